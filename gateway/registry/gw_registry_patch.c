/*
 * PATCH with application/json-patch+json (RFC 6902) and application/merge-patch+json
 * (RFC 7386): the patch is applied to the current object (its Scale for the scale subresource)
 * on every attempt of the update, and the result then goes the way of a PUT. Strategic merge
 * and apply patches are answered 415 until they are implemented. A patch never creates.
 */
#include "gw_registry_int.h"

#include <string.h>

#include "gw_err.h"
#include "gw_negotiate.h"
#include "gw_patch.h"

typedef enum {
    PATCH_JSON,
    PATCH_MERGE,
} patch_type_t;

typedef struct {
    patch_type_t type;
    json_t *patch;
    const char *raw; /* the patch text, for duplicate fields of a merge patch */
    size_t raw_len;
} patch_t;

static bool
apply(gw_upd_t *u, const patch_t *p, const json_t *doc, json_t **out)
{
    char why[512];
    int bad = 0;

    if (p->type == PATCH_MERGE) {
        *out = gw_merge_patch(doc, p->patch);
        return true;
    }
    *out = gw_json_patch(doc, p->patch, &bad, why, sizeof(why));
    if (*out != NULL)
        return true;
    if (bad) {
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL, "%s", why);
        return false;
    }
    /* kube reports a patch that does not apply as a generic 422 with the reason as cause. */
    gw_registry__fail(u->r, &u->fail, 422, "Invalid",
                      json_pack("{s:[{s:s,s:s}]}", "causes", "reason", "UnexpectedServerResponse",
                                "message", why),
                      "the server rejected our request due to an error in our request");
    return false;
}

/* The patched object decoded as a PUT body would be, for `schema`'s kind. */
static bool
check_patched(gw_upd_t *u, const patch_t *p, json_t *obj, const char *av, const char *kind,
              const gw_schema_t *schema)
{
    bool warn = !u->warned;

    if (!gw_registry__check_object(u->r, obj, av, kind, schema,
                                   p->type == PATCH_MERGE ? p->raw : NULL, p->raw_len,
                                   u->opts.field_validation, warn, &u->req_errs, &u->fail))
        return false;
    if (!gw_registry__check_namespace(u->r, obj, &u->fail))
        return false;
    return gw_registry__check_name(u, obj);
}

static bool
derive_main(gw_upd_t *u, const json_t *cur, json_t **out)
{
    const patch_t *p = u->arg;

    if (!apply(u, p, cur, out))
        return false;
    return check_patched(u, p, *out, NULL, NULL, u->r->resource->schema);
}

static bool
derive_status(gw_upd_t *u, const json_t *cur, json_t **out)
{
    const patch_t *p = u->arg;
    json_t *patched;
    bool ok;

    if (!apply(u, p, cur, &patched))
        return false;
    ok = check_patched(u, p, patched, NULL, NULL, u->r->resource->schema);
    if (ok)
        *out = gw_registry__status_into(cur, patched);
    json_decref(patched);
    return ok;
}

static bool
derive_scale(gw_upd_t *u, const json_t *cur, json_t **out)
{
    const patch_t *p = u->arg;
    const gw_subresource_t *sub = u->r->subresource;
    json_t *scale = gw_registry__scale_of(u, cur), *patched;
    bool ok = apply(u, p, scale, &patched);

    json_decref(scale);
    if (!ok)
        return false;
    ok = check_patched(u, p, patched, "autoscaling/v1", "Scale", sub ? sub->schema : NULL) &&
         gw_registry__scale_into(u, cur, patched, out);
    json_decref(patched);
    return ok;
}

/* The patch document; false after replying (415 for a type not served, 400 for bad text). */
static bool
read_patch(gw_req_t *r, patch_t *p)
{
    gw_body_type_t type = gw_req_patch_type(r, true);
    json_error_t jerr;

    if (type == GW_BODY_UNSUPPORTED)
        return false;
    if (type != GW_BODY_JSON_PATCH && type != GW_BODY_MERGE_PATCH) {
        gw_reply_status(r, 415, "UnsupportedMediaType", NULL,
                        "the body of the request was in an unknown format - accepted media types "
                        "include: application/json-patch+json, application/merge-patch+json");
        return false;
    }
    p->type = type == GW_BODY_JSON_PATCH ? PATCH_JSON : PATCH_MERGE;
    p->raw = gw_req_body(r, &p->raw_len);
    p->patch = json_loadb(p->raw, p->raw_len, JSON_DECODE_ANY, &jerr);
    if (p->patch == NULL || (p->type == PATCH_MERGE && !json_is_object(p->patch))) {
        json_decref(p->patch);
        gw_reply_status(r, 400, "BadRequest", NULL, "Invalid JSON Patch");
        return false;
    }
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, p->patch);
    return true;
}

void
gw_registry__patch_target(gw_req_t *r, const char *sub)
{
    gw_upd_t *u = gw_registry__upd_new(r);
    patch_t *p = gw_arena_calloc(r->arena, sizeof(*p));

    if (!read_patch(r, p))
        return;
    if (!gw_registry__write_opts(r, "PatchOptions", &u->opts, &u->fail)) {
        gw_registry__reply_fail(r, &u->fail);
        return;
    }
    u->arg = p;
    u->sub = sub;
    if (sub == NULL) {
        u->derive = derive_main;
    } else if (strcmp(sub, "status") == 0) {
        u->derive = derive_status;
    } else {
        u->derive = derive_scale;
        u->present = gw_registry__scale_of;
    }
    gw_registry__upd_run(u);
}

void
gw_registry__patch(gw_req_t *r)
{
    gw_registry__patch_target(r, NULL);
}
