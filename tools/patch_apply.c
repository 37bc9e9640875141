/*
 * patch-apply: apply patches given as JSON lines on stdin, one reply line per request.
 *
 *   {"type": "json" | "merge", "doc": <json>, "patch": <json>}
 *   {"type": "strategic", "kind": "<group>/<version>/<Kind>", "doc": {...}, "patch": {...}}
 *       -> {"doc": <result>} or {"error": "message"}
 *   {"type": "apply", "kind": ..., "live": <object or null>, "config": {...},
 *    "manager": "name", "force": false, "subresource": "status", "now": "<RFC 3339>"}
 *       -> {"doc": <object with managedFields>} or {"error": "message"}, and for conflicts
 *          {"error": "message", "conflicts": [{"field": path, "manager": name}]}
 *
 * The kind is "/v1/Pod" for the core group. An apply's entries get the time `now` (default:
 * the current time); a kind with a status subresource resets status on the main resource and
 * spec on the status subresource, as the registry has it. A malformed request gets an error
 * reply and the tool reads on.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_patch.h"
#include "gw_smp.h"
#include "gw_ssa.h"

typedef struct {
    char group[128], version[64], kind[128], api_version[200];
    const gw_schema_t *schema;
    const gw_resource_t *res;
} kind_t;

/* {"error": "<prefix><detail>"} */
static json_t *
error_reply(const char *prefix, const char *detail)
{
    json_t *o = json_object();

    json_object_set_new(o, "error", json_sprintf("%s%s", prefix, detail));
    return o;
}

static json_t *
doc_reply(json_t *doc)
{
    json_t *o = json_object();

    json_object_set_new(o, "doc", doc);
    return o;
}

/* "<group>/<version>/<Kind>" into k; false when malformed or unknown. */
static bool
parse_kind(const char *text, kind_t *k)
{
    const char *v = text ? strchr(text, '/') : NULL, *n = v ? strchr(v + 1, '/') : NULL;
    const gw_catalog_t *cat = gw_catalog_builtin();

    *k = (kind_t){0};
    if (n == NULL || (size_t)(v - text) >= sizeof(k->group) ||
        (size_t)(n - v - 1) >= sizeof(k->version) || strlen(n + 1) >= sizeof(k->kind))
        return false;
    memcpy(k->group, text, (size_t)(v - text));
    memcpy(k->version, v + 1, (size_t)(n - v - 1));
    strcpy(k->kind, n + 1);
    snprintf(k->api_version, sizeof(k->api_version), "%s%s%s", k->group, k->group[0] ? "/" : "",
             k->version);
    k->schema = gw_catalog_kind_schema(cat, k->group, k->version, k->kind);
    k->res = gw_catalog_find_kind(cat, k->group, k->version, k->kind);
    return k->schema != NULL;
}

static json_t *
json_or_merge(const json_t *req, bool merge)
{
    const json_t *doc = json_object_get(req, "doc"), *patch = json_object_get(req, "patch");
    char err[1024];
    int bad = 0;
    json_t *out;

    if (doc == NULL || patch == NULL)
        return error_reply("malformed request: ", "doc and patch are required");
    if (merge)
        return doc_reply(gw_merge_patch(doc, patch));
    out = gw_json_patch(doc, patch, &bad, err, sizeof(err));
    return out != NULL ? doc_reply(out) : error_reply("", err);
}

static json_t *
strategic(const json_t *req)
{
    const json_t *doc = json_object_get(req, "doc"), *patch = json_object_get(req, "patch");
    char err[1024];
    kind_t k;
    json_t *out;

    if (!parse_kind(json_string_value(json_object_get(req, "kind")), &k))
        return error_reply("malformed request: ", "kind must name a built-in kind");
    if (!json_is_object(doc) || patch == NULL)
        return error_reply("malformed request: ", "doc must be an object and patch given");
    out = gw_smp_apply(doc, patch, k.schema, err, sizeof(err));
    return out != NULL ? doc_reply(out) : error_reply("", err);
}

static json_t *
conflict_reply(const gw_ssa_result_t *r)
{
    json_t *o = error_reply("", r->message), *list = json_array(), *c;

    for (size_t i = 0; i < r->n_conflicts; i++) {
        c = json_object();
        json_object_set_new(c, "field", json_string(r->conflicts[i].field));
        json_object_set_new(c, "manager", json_string(r->conflicts[i].manager));
        json_array_append_new(list, c);
    }
    json_object_set_new(o, "conflicts", list);
    return o;
}

static bool
has_status(const kind_t *k)
{
    return k->res != NULL && gw_resource_subresource(k->res, "status") != NULL;
}

static json_t *
apply(const json_t *req)
{
    static const char *const main_reset[] = {"status", NULL}, *const status_reset[] = {"spec",
                                                                                       NULL};
    const json_t *live = json_object_get(req, "live"), *config = json_object_get(req, "config");
    const json_t *force = json_object_get(req, "force");
    const char *manager = json_string_value(json_object_get(req, "manager"));
    const char *sub = json_string_value(json_object_get(req, "subresource"));
    gw_ssa_scope_t scope;
    gw_ssa_result_t r;
    char now[32];
    time_t t = time(NULL);
    json_t *out, *reply;
    kind_t k;

    if (!parse_kind(json_string_value(json_object_get(req, "kind")), &k))
        return error_reply("malformed request: ", "kind must name a built-in kind");
    if (!json_is_object(config) || (live != NULL && !json_is_object(live) && !json_is_null(live)))
        return error_reply("malformed request: ", "config must be an object, live one or null");
    if (manager == NULL || (force != NULL && !json_is_boolean(force)))
        return error_reply("malformed request: ", "manager must be a string, force a boolean");
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    scope = (gw_ssa_scope_t){
        .schema = k.schema,
        .api_version = k.api_version,
        .kind = k.kind,
        .subresource = sub,
        .reset_fields = !has_status(&k) ? NULL
                        : sub           ? status_reset
                                        : main_reset,
        .now = json_string_value(json_object_get(req, "now"))
                   ? json_string_value(json_object_get(req, "now"))
                   : now,
    };
    out = gw_ssa_apply(&scope, json_is_null(live) ? NULL : live, config, manager,
                       json_is_true(force), &r);
    reply = out != NULL                   ? doc_reply(out)
            : r.status == GW_SSA_CONFLICT ? conflict_reply(&r)
                                          : error_reply("", r.message);
    gw_ssa_result_clear(&r);
    return reply;
}

static json_t *
handle(const char *line)
{
    json_error_t jerr;
    json_t *req = json_loads(line, 0, &jerr), *reply;
    const char *type = json_string_value(json_object_get(req, "type"));

    if (req == NULL)
        return error_reply("malformed request: ", jerr.text);
    if (type != NULL && (strcmp(type, "json") == 0 || strcmp(type, "merge") == 0))
        reply = json_or_merge(req, strcmp(type, "merge") == 0);
    else if (type != NULL && strcmp(type, "strategic") == 0)
        reply = strategic(req);
    else if (type != NULL && strcmp(type, "apply") == 0)
        reply = apply(req);
    else
        reply = error_reply("malformed request: ", "type must be json, merge, strategic or apply");
    json_decref(req);
    return reply;
}

int
main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    json_t *reply;

    gw_catalog_builtin();
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        if (n == 0 || (n == 1 && line[0] == '\n'))
            continue;
        reply = handle(line);
        json_dumpf(reply, stdout, JSON_COMPACT | JSON_ENCODE_ANY);
        fputc('\n', stdout);
        fflush(stdout);
        json_decref(reply);
    }
    free(line);
    return 0;
}
