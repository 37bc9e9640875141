/* The OpenAPI paths of one resource: its operations, parameters and responses, v2 or v3. */
#include "gw_catalog_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

typedef struct {
    const char *name;
    const char *type;
} param_t;

/* kube-apiserver's query parameters, per kind of operation. */
static const param_t list_params[] = {
    {"allowWatchBookmarks", "boolean"},
    {"continue", "string"},
    {"fieldSelector", "string"},
    {"labelSelector", "string"},
    {"limit", "integer"},
    {"resourceVersion", "string"},
    {"resourceVersionMatch", "string"},
    {"sendInitialEvents", "boolean"},
    {"timeoutSeconds", "integer"},
    {"watch", "boolean"},
    {NULL, NULL},
};
static const param_t write_params[] = {
    {"dryRun", "string"},
    {"fieldManager", "string"},
    {"fieldValidation", "string"},
    {NULL, NULL},
};
static const param_t patch_params[] = {
    {"dryRun", "string"},
    {"fieldManager", "string"},
    {"fieldValidation", "string"},
    {"force", "boolean"},
    {NULL, NULL},
};
static const param_t delete_params[] = {
    {"dryRun", "string"},
    {"gracePeriodSeconds", "integer"},
    {"ignoreStoreReadErrorWithClusterBreakingPotential", "boolean"},
    {"orphanDependents", "boolean"},
    {"propagationPolicy", "string"},
    {NULL, NULL},
};
static const param_t delete_collection_params[] = {
    {"continue", "string"},
    {"dryRun", "string"},
    {"fieldSelector", "string"},
    {"gracePeriodSeconds", "integer"},
    {"ignoreStoreReadErrorWithClusterBreakingPotential", "boolean"},
    {"labelSelector", "string"},
    {"limit", "integer"},
    {"orphanDependents", "boolean"},
    {"propagationPolicy", "string"},
    {"resourceVersion", "string"},
    {"resourceVersionMatch", "string"},
    {"sendInitialEvents", "boolean"},
    {"timeoutSeconds", "integer"},
    {NULL, NULL},
};
static const param_t log_params[] = {
    {"container", "string"},
    {"follow", "boolean"},
    {"insecureSkipTLSVerifyBackend", "boolean"},
    {"limitBytes", "integer"},
    {"previous", "boolean"},
    {"sinceSeconds", "integer"},
    {"stream", "string"},
    {"tailLines", "integer"},
    {"timestamps", "boolean"},
    {NULL, NULL},
};
static const param_t exec_params[] = {
    {"command", "string"}, {"container", "string"}, {"stderr", "boolean"}, {"stdin", "boolean"},
    {"stdout", "boolean"}, {"tty", "boolean"},      {NULL, NULL},
};
static const param_t attach_params[] = {
    {"container", "string"}, {"stderr", "boolean"}, {"stdin", "boolean"},
    {"stdout", "boolean"},   {"tty", "boolean"},    {NULL, NULL},
};
static const param_t portforward_params[] = {{"ports", "integer"}, {NULL, NULL}};
static const param_t proxy_params[] = {{"path", "string"}, {NULL, NULL}};
static const param_t no_params[] = {{NULL, NULL}};

static const struct {
    const char *subresource;
    const param_t *params;
} connect_params[] = {
    {"exec", exec_params},
    {"attach", attach_params},
    {"portforward", portforward_params},
    {"proxy", proxy_params},
};

/* Media types an operation answers with. */
typedef enum { PRODUCE_OBJECT, PRODUCE_WATCH, PRODUCE_LOG, PRODUCE_ANY } produce_t;

static const char *const produce_object[] = {"application/json", "application/yaml", NULL};
static const char *const produce_watch[] = {"application/json", "application/yaml",
                                            "application/json;stream=watch", NULL};
static const char *const produce_log[] = {"text/plain", "application/json", "application/yaml",
                                          NULL};
static const char *const produce_any[] = {"*/*", NULL};
static const char *const *const produces[] = {produce_object, produce_watch, produce_log,
                                              produce_any};

static const char *const consume_any[] = {"*/*", NULL};
static const char *const consume_patch[] = {
    "application/json-patch+json", "application/merge-patch+json",
    "application/strategic-merge-patch+json", "application/apply-patch+yaml", NULL};

#define META "io.k8s.apimachinery.pkg.apis.meta.v1."

/* Path-level parameters. */
enum { PP_NAMESPACE = 1, PP_NAME = 2, PP_PATH = 4 };

/* One operation to write. NULL schemas mean a plain string. */
typedef struct {
    const char *method; /* "get", "post", ... */
    const char *action; /* x-kubernetes-action */
    char *id;           /* operationId, owned */
    const param_t *params;
    const char *body;            /* request body definition, or NULL for none */
    bool patch;                  /* the body is a patch document */
    bool body_optional;          /* kube's Required(false) on the body */
    const char *const *consumes; /* request media types; NULL: by `patch`, as built-ins */
    const char *response;
    const char *codes; /* response codes: "200", "200 201", "200 201 202", "200 202" */
    produce_t produce;
    const char *group, *version, *kind; /* x-kubernetes-group-version-kind */
} op_t;

/* Names for one resource: where its paths start and how its operations are named. */
typedef struct {
    gw_openapi__gen_t *g;
    const gw_resource_t *r;
    char *base;   /* "/api/v1", "/apis/apps/v1" */
    char *tag;    /* "core_v1", "apps_v1" */
    char *prefix; /* "CoreV1", "AppsV1" */
} res_t;

/* ---- JSON pieces ------------------------------------------------------------------------ */

static json_t *
ref(gw_openapi__gen_t *g, const char *name)
{
    char *text = gw_sprintf("%s%s", g->v3 ? "#/components/schemas/" : "#/definitions/", name);
    json_t *o = json_pack("{s:s}", "$ref", text);

    json_object_set_new(g->refs, name, json_true());
    free(text);
    return o;
}

static json_t *
schema_of(gw_openapi__gen_t *g, const char *definition)
{
    return definition ? ref(g, definition) : json_pack("{s:s}", "type", "string");
}

static json_t *
strings(const char *const *list)
{
    json_t *a = json_array();

    for (; *list; list++)
        json_array_append_new(a, json_string(*list));
    return a;
}

static json_t *
param(bool v3, const char *name, const char *in, const char *type, bool required)
{
    json_t *p = json_pack("{s:s, s:s}", "name", name, "in", in);

    if (v3)
        json_object_set_new(p, "schema",
                            json_pack("{s:s, s:b}", "type", type, "uniqueItems", true));
    else {
        json_object_set_new(p, "type", json_string(type));
        json_object_set_new(p, "uniqueItems", json_true());
    }
    if (required)
        json_object_set_new(p, "required", json_true());
    return p;
}

static json_t *
content(gw_openapi__gen_t *g, const char *const *types, const char *definition)
{
    json_t *c = json_object();

    for (; *types; types++)
        json_object_set_new(c, *types, json_pack("{s:o}", "schema", schema_of(g, definition)));
    return c;
}

static json_t *
response(gw_openapi__gen_t *g, const op_t *op, const char *description)
{
    json_t *r = json_pack("{s:s}", "description", description);

    if (g->v3)
        json_object_set_new(r, "content", content(g, produces[op->produce], op->response));
    else
        json_object_set_new(r, "schema", schema_of(g, op->response));
    return r;
}

static json_t *
responses(gw_openapi__gen_t *g, const op_t *op)
{
    json_t *rs = json_object();

    json_object_set_new(rs, "200", response(g, op, "OK"));
    if (strstr(op->codes, "201"))
        json_object_set_new(rs, "201", response(g, op, "Created"));
    if (strstr(op->codes, "202"))
        json_object_set_new(rs, "202", response(g, op, "Accepted"));
    json_object_set_new(rs, "401", json_pack("{s:s}", "description", "Unauthorized"));
    return rs;
}

static json_t *
parameters(gw_openapi__gen_t *g, const op_t *op)
{
    json_t *ps = json_array();

    if (op->body && !g->v3) {
        json_t *body = json_pack("{s:s, s:s}", "name", "body", "in", "body");
        if (!op->body_optional)
            json_object_set_new(body, "required", json_true());
        json_object_set_new(body, "schema", ref(g, op->body));
        json_array_append_new(ps, body);
    }
    for (const param_t *p = op->params; p->name; p++)
        json_array_append_new(ps, param(g->v3, p->name, "query", p->type, false));
    return ps;
}

static const char *const *
consumes(const op_t *op)
{
    if (op->consumes)
        return op->consumes;
    return op->patch ? consume_patch : consume_any;
}

static json_t *
request_body(gw_openapi__gen_t *g, const op_t *op)
{
    json_t *b = json_pack("{s:o}", "content", content(g, consumes(op), op->body));

    if (!op->body_optional)
        json_object_set_new(b, "required", json_true());
    return b;
}

static json_t *
operation(gw_openapi__gen_t *g, const char *tag, const op_t *op)
{
    json_t *o = json_object();

    if (!g->v3) {
        json_object_set_new(o, "consumes", strings(consumes(op)));
        json_object_set_new(o, "produces", strings(produces[op->produce]));
        json_object_set_new(o, "schemes", json_pack("[s]", "https"));
    }
    json_object_set_new(o, "tags", json_pack("[s]", tag));
    json_object_set_new(o, "operationId", json_string(op->id));
    json_object_set_new(o, "parameters", parameters(g, op));
    if (op->body && g->v3)
        json_object_set_new(o, "requestBody", request_body(g, op));
    json_object_set_new(o, "responses", responses(g, op));
    json_object_set_new(o, "x-kubernetes-action", json_string(op->action));
    json_object_set_new(
        o, "x-kubernetes-group-version-kind",
        json_pack("{s:s, s:s, s:s}", "group", op->group, "kind", op->kind, "version", op->version));
    return o;
}

/* The path item at `path`, created with its path-level parameters on first use. */
static json_t *
path_item(gw_openapi__gen_t *g, const char *path, unsigned pp)
{
    json_t *item = json_object_get(g->paths, path), *ps;

    if (item)
        return item;
    ps = json_array();
    if (pp & PP_NAME)
        json_array_append_new(ps, param(g->v3, "name", "path", "string", true));
    if (pp & PP_NAMESPACE)
        json_array_append_new(ps, param(g->v3, "namespace", "path", "string", true));
    if (pp & PP_PATH)
        json_array_append_new(ps, param(g->v3, "path", "path", "string", true));
    json_array_append_new(ps, param(g->v3, "pretty", "query", "string", false));
    item = json_pack("{s:o}", "parameters", ps);
    json_object_set_new(g->paths, path, item);
    return item;
}

static void
emit(res_t *rs, const char *path, unsigned pp, op_t *op)
{
    json_object_set_new(path_item(rs->g, path, pp), op->method, operation(rs->g, rs->tag, op));
    free(op->id);
}

/* ---- naming ------------------------------------------------------------------------------ */

static char *
capitalized(const char *s)
{
    char *out = gw_strdup(s);

    out[0] = (char)toupper((unsigned char)out[0]);
    return out;
}

/* kube's ToValidOperationID: letters, '_' and (not first) digits kept, anything else dropped
   and the next letter capitalized ("stable.example.com" -> "stableExampleCom"). */
static char *
op_word(const char *s, size_t len, bool capitalize)
{
    char *out = gw_malloc(len + 1), *w = out;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalpha(c) || c == '_' || (i != 0 && isdigit(c))) {
            *w++ = capitalize ? (char)toupper(c) : (char)c;
            capitalize = false;
        } else {
            capitalize = true;
        }
    }
    *w = '\0';
    return out;
}

/* "rbac.authorization.k8s.io" -> "rbacAuthorization"; "" -> "core" (kube's tag names). */
static char *
group_word(const char *group)
{
    size_t len = strlen(group);

    if (len == 0)
        return gw_strdup("core");
    if (len > 7 && strcmp(group + len - 7, ".k8s.io") == 0)
        len -= 7;
    return op_word(group, len, false);
}

static void
res_init(res_t *rs, gw_openapi__gen_t *g, const gw_resource_t *r)
{
    char *word = group_word(r->group), *cw = capitalized(word);
    char *cv = op_word(r->version, strlen(r->version), true);
    char *v = op_word(r->version, strlen(r->version), false);

    rs->g = g;
    rs->r = r;
    rs->base = r->group[0] ? gw_sprintf("/apis/%s/%s", r->group, r->version)
                           : gw_sprintf("/api/%s", r->version);
    rs->tag = gw_sprintf("%s_%s", word, v);
    rs->prefix = gw_sprintf("%s%s", cw, cv);
    free(word);
    free(cw);
    free(cv);
    free(v);
}

static void
res_free(res_t *rs)
{
    free(rs->base);
    free(rs->tag);
    free(rs->prefix);
}

/*
 * What a path's operations are about: the resource itself, its list across namespaces, or a
 * subresource. Operation templates below name their bodies and responses relative to it.
 */
typedef struct {
    unsigned verbs;
    bool namespaced;      /* in the operationId */
    const char *kind_def; /* the kind's definition; NULL answers a plain string (pods/log) */
    const char *list_def;
    const char *deleted_def;            /* what a delete answers with */
    const char *group, *version, *kind; /* x-kubernetes-group-version-kind */
    const char *suffix;                 /* operationId tail: "Status", "ForAllNamespaces" */
} target_t;

typedef enum {
    S_NONE,
    S_KIND,
    S_LIST,
    S_PATCH,
    S_DELETE_OPTIONS,
    S_STATUS,
    S_EVENT,
    S_DELETED
} ref_t;

/* One operation kind: kube's method, action, operationId words, parameters and payloads. */
typedef struct {
    unsigned verb;
    const char *method, *action, *id_verb, *id_infix, *id_suffix;
    const param_t *params;
    ref_t body, response;
    const char *codes;
    produce_t produce;
} op_spec_t;

static const op_spec_t collection_specs[] = {
    {GW_VERB_LIST, "get", "list", "list", "", "", list_params, S_NONE, S_LIST, "200",
     PRODUCE_WATCH},
    {GW_VERB_CREATE, "post", "post", "create", "", "", write_params, S_KIND, S_KIND, "200 201 202",
     PRODUCE_OBJECT},
    {GW_VERB_DELETECOLLECTION, "delete", "deletecollection", "delete", "Collection", "",
     delete_collection_params, S_DELETE_OPTIONS, S_STATUS, "200", PRODUCE_OBJECT},
};

/* On an object; a subresource uses the same, its create taking the place of delete. */
static const op_spec_t item_specs[] = {
    {GW_VERB_GET, "get", "get", "read", "", "", no_params, S_NONE, S_KIND, "200", PRODUCE_OBJECT},
    {GW_VERB_CREATE, "post", "post", "create", "", "", write_params, S_KIND, S_KIND, "200 201 202",
     PRODUCE_OBJECT},
    {GW_VERB_UPDATE, "put", "put", "replace", "", "", write_params, S_KIND, S_KIND, "200 201",
     PRODUCE_OBJECT},
    {GW_VERB_PATCH, "patch", "patch", "patch", "", "", patch_params, S_PATCH, S_KIND, "200 201",
     PRODUCE_OBJECT},
    {GW_VERB_DELETE, "delete", "delete", "delete", "", "", delete_params, S_DELETE_OPTIONS,
     S_DELETED, "200 202", PRODUCE_OBJECT},
};

static const op_spec_t log_specs[] = {
    {GW_VERB_GET, "get", "get", "read", "", "", log_params, S_NONE, S_KIND, "200", PRODUCE_LOG},
};

/* The deprecated /watch/ paths kube-apiserver still documents. */
static const op_spec_t watch_list_specs[] = {
    {GW_VERB_WATCH, "get", "watchlist", "watch", "", "List", list_params, S_NONE, S_EVENT, "200",
     PRODUCE_WATCH},
};
static const op_spec_t watch_item_specs[] = {
    {GW_VERB_WATCH, "get", "watch", "watch", "", "", list_params, S_NONE, S_EVENT, "200",
     PRODUCE_WATCH},
};

#define N_SPECS(a) (sizeof(a) / sizeof((a)[0]))

static const char *
ref_name(const target_t *t, ref_t which)
{
    switch (which) {
    case S_KIND:
        return t->kind_def;
    case S_LIST:
        return t->list_def;
    case S_PATCH:
        return META "Patch";
    case S_DELETE_OPTIONS:
        return META "DeleteOptions";
    case S_STATUS:
        return META "Status";
    case S_EVENT:
        return META "WatchEvent";
    case S_DELETED:
        return t->deleted_def;
    case S_NONE:
        break;
    }
    return NULL;
}

/* kube's operationId: verb, group/version, infix, scope, kind, suffixes. */
static char *
op_id(const res_t *rs, const char *verb, const char *infix, bool namespaced, const char *suffix,
      const char *suffix2)
{
    return gw_sprintf("%s%s%s%s%s%s%s", verb, rs->prefix, infix, namespaced ? "Namespaced" : "",
                      rs->r->kind, suffix, suffix2);
}

static void
emit_specs(res_t *rs, const op_spec_t *specs, size_t n, const target_t *t, const char *path,
           unsigned pp)
{
    for (size_t i = 0; i < n; i++) {
        const op_spec_t *s = &specs[i];
        op_t op = {
            .method = s->method,
            .action = s->action,
            .params = s->params,
            .body = ref_name(t, s->body),
            .patch = s->body == S_PATCH,
            .response = ref_name(t, s->response),
            .codes = s->codes,
            .produce = s->produce,
            .group = t->group,
            .version = t->version,
            .kind = t->kind,
        };
        if (!(t->verbs & s->verb))
            continue;
        op.id = op_id(rs, s->id_verb, s->id_infix, t->namespaced, s->id_suffix, t->suffix);
        emit(rs, path, pp, &op);
    }
}

static target_t
resource_target(const gw_resource_t *r)
{
    target_t t = {
        .verbs = r->verbs,
        .namespaced = r->namespaced,
        .kind_def = r->schema->ref,
        .list_def = r->list_schema ? r->list_schema->ref : NULL,
        .deleted_def = r->delete_returns_object ? r->schema->ref : META "Status",
        .group = r->group,
        .version = r->version,
        .kind = r->kind,
        .suffix = "",
    };

    return t;
}

/* ---- resource paths ---------------------------------------------------------------------- */

static void
watch_paths(res_t *rs, const target_t *t)
{
    const gw_resource_t *r = rs->r;
    unsigned pp = r->namespaced ? PP_NAMESPACE : 0;
    char *coll = r->namespaced ? gw_sprintf("%s/watch/namespaces/{namespace}/%s", rs->base, r->name)
                               : gw_sprintf("%s/watch/%s", rs->base, r->name);
    char *item = gw_sprintf("%s/{name}", coll);
    target_t all = *t;

    emit_specs(rs, watch_list_specs, N_SPECS(watch_list_specs), t, coll, pp);
    emit_specs(rs, watch_item_specs, N_SPECS(watch_item_specs), t, item, pp | PP_NAME);
    free(coll);
    free(item);
    if (r->namespaced) {
        all.namespaced = false;
        all.suffix = "ForAllNamespaces";
        coll = gw_sprintf("%s/watch/%s", rs->base, r->name);
        emit_specs(rs, watch_list_specs, N_SPECS(watch_list_specs), &all, coll, 0);
        free(coll);
    }
}

static void
all_namespaces_list(res_t *rs, const target_t *t)
{
    char *path = gw_sprintf("%s/%s", rs->base, rs->r->name);
    target_t all = *t;

    all.namespaced = false;
    all.suffix = "ForAllNamespaces";
    all.verbs &= GW_VERB_LIST;
    emit_specs(rs, collection_specs, N_SPECS(collection_specs), &all, path, 0);
    free(path);
}

/* ---- subresource paths ------------------------------------------------------------------- */

static const param_t *
connect_params_of(const char *subresource)
{
    for (size_t i = 0; i < N_SPECS(connect_params); i++) {
        if (strcmp(connect_params[i].subresource, subresource) == 0)
            return connect_params[i].params;
    }
    return no_params;
}

static const struct {
    unsigned verb;
    const char *method, *word;
} connect_methods[] = {
    {GW_VERB_DELETE, "delete", "Delete"}, {GW_VERB_GET, "get", "Get"},
    {GW_VERB_PATCH, "patch", "Patch"},    {GW_VERB_CREATE, "post", "Post"},
    {GW_VERB_UPDATE, "put", "Put"},
};

static void
connect_ops(res_t *rs, const gw_subresource_t *s, const char *path, unsigned pp, bool with_path)
{
    char *sub = capitalized(s->name);
    const char *tail = with_path ? "WithPath" : "";

    for (size_t i = 0; i < N_SPECS(connect_methods); i++) {
        op_t op = {.method = connect_methods[i].method,
                   .action = "connect",
                   .params = with_path ? no_params : connect_params_of(s->name),
                   .codes = "200",
                   .produce = PRODUCE_ANY,
                   .group = s->group,
                   .version = s->version,
                   .kind = s->kind};
        if (!(s->verbs & connect_methods[i].verb))
            continue;
        op.id = op_id(rs, "connect", connect_methods[i].word, rs->r->namespaced, sub, tail);
        emit(rs, path, pp, &op);
    }
    free(sub);
}

static void
subresource_paths(res_t *rs, const gw_subresource_t *s, const char *item, unsigned pp)
{
    char *path = gw_sprintf("%s/%s", item, s->name), *sub = capitalized(s->name);
    target_t t = {
        .verbs = s->verbs,
        .namespaced = rs->r->namespaced,
        .kind_def = s->schema ? s->schema->ref : NULL,
        .group = s->group,
        .version = s->version,
        .kind = s->kind,
        .suffix = sub,
    };

    if (s->connect) {
        char *with_path = gw_sprintf("%s/{path}", path);
        connect_ops(rs, s, path, pp, false);
        if (strcmp(s->name, "proxy") == 0)
            connect_ops(rs, s, with_path, pp | PP_PATH, true);
        free(with_path);
    } else if (s->schema == NULL)
        emit_specs(rs, log_specs, N_SPECS(log_specs), &t, path, pp);
    else
        emit_specs(rs, item_specs, N_SPECS(item_specs), &t, path, pp);
    free(path);
    free(sub);
}

/* ---- custom resources --------------------------------------------------------------------- */

/* apiextensions-apiserver's openapi builder: its own routes, media types and option structs
   (a get takes GetOptions, a deletecollection ListOptions), every op marked with the custom
   kind's group-version-kind, scale included. */
static const param_t get_params[] = {{"resourceVersion", "string"}, {NULL, NULL}};
static const char *const consume_custom[] = {"application/json", "application/yaml", NULL};
static const char *const consume_custom_patch[] = {"application/json-patch+json",
                                                   "application/merge-patch+json",
                                                   "application/apply-patch+yaml", NULL};

typedef struct {
    const char *method, *action, *id_verb, *id_infix;
    const param_t *params;
    ref_t body, response;
    const char *codes;
} custom_spec_t;

static const custom_spec_t custom_collection[] = {
    {"get", "list", "list", "", list_params, S_NONE, S_LIST, "200"},
    {"post", "post", "create", "", write_params, S_KIND, S_KIND, "200 201 202"},
    {"delete", "deletecollection", "delete", "Collection", list_params, S_NONE, S_STATUS, "200"},
};

/* An object's path; a subresource's has the get, put and patch (the first, second and last). */
static const custom_spec_t custom_item[] = {
    {"get", "get", "read", "", get_params, S_NONE, S_KIND, "200"},
    {"put", "put", "replace", "", write_params, S_KIND, S_KIND, "200 201"},
    {"delete", "delete", "delete", "", delete_params, S_DELETE_OPTIONS, S_STATUS, "200 202"},
    {"patch", "patch", "patch", "", patch_params, S_PATCH, S_KIND, "200"},
};

/* kube's operation id: the verb, the group/version prefix, then the rest made a valid id. */
static char *
custom_op_id(const res_t *rs, const char *verb, const char *infix, bool namespaced,
             const char *suffix)
{
    char *tail = gw_sprintf("%s%s%s%s", infix, namespaced ? "Namespaced" : "", rs->r->kind, suffix);
    char *word = op_word(tail, strlen(tail), true);
    char *id = gw_sprintf("%s%s%s", verb, rs->prefix, word);

    free(tail);
    free(word);
    return id;
}

static void
custom_emit(res_t *rs, const custom_spec_t *s, const target_t *t, const char *path, unsigned pp)
{
    op_t op = {
        .method = s->method,
        .action = s->action,
        .params = s->params,
        .body = ref_name(t, s->body),
        .patch = s->body == S_PATCH,
        .body_optional = s->body == S_DELETE_OPTIONS,
        .consumes = s->body == S_PATCH ? consume_custom_patch : consume_custom,
        .response = ref_name(t, s->response),
        .codes = s->codes,
        .produce = PRODUCE_OBJECT,
        .group = t->group,
        .version = t->version,
        .kind = t->kind,
    };

    op.id = custom_op_id(rs, s->id_verb, s->id_infix, t->namespaced, t->suffix);
    emit(rs, path, pp, &op);
}

/* The status or scale subresource at item/<name>, when the CRD version has it. */
static void
custom_subresource(res_t *rs, const target_t *t, const char *item, unsigned pp, const char *name)
{
    const json_t *subs = json_object_get(rs->r->custom->version, "subresources");
    char *path = gw_sprintf("%s/%s", item, name), *sub = capitalized(name);
    target_t st = *t;

    if (json_object_get(subs, name) != NULL) {
        st.suffix = sub;
        if (strcmp(name, "scale") == 0)
            st.kind_def = "io.k8s.api.autoscaling.v1.Scale";
        custom_emit(rs, &custom_item[0], &st, path, pp);
        custom_emit(rs, &custom_item[1], &st, path, pp);
        custom_emit(rs, &custom_item[3], &st, path, pp);
    }
    free(path);
    free(sub);
}

static void
custom_paths(gw_openapi__gen_t *g, const gw_resource_t *r)
{
    char *kind_def = gw_openapi__custom_name(r->group, r->version, r->kind);
    char *list_def = gw_openapi__custom_name(r->group, r->version, r->list_kind);
    target_t t = {.namespaced = r->namespaced,
                  .kind_def = kind_def,
                  .list_def = list_def,
                  .group = r->group,
                  .version = r->version,
                  .kind = r->kind,
                  .suffix = ""};
    target_t all = t;
    unsigned pp = r->namespaced ? PP_NAMESPACE : 0;
    char *coll, *item;
    res_t rs;

    res_init(&rs, g, r);
    coll = gw_sprintf("%s/%s", rs.base, r->name);
    if (r->namespaced) {
        all.namespaced = false;
        all.suffix = "ForAllNamespaces";
        custom_emit(&rs, &custom_collection[0], &all, coll, 0);
        free(coll);
        coll = gw_sprintf("%s/namespaces/{namespace}/%s", rs.base, r->name);
    }
    item = gw_sprintf("%s/{name}", coll);
    for (size_t i = 0; i < N_SPECS(custom_collection); i++)
        custom_emit(&rs, &custom_collection[i], &t, coll, pp);
    for (size_t i = 0; i < N_SPECS(custom_item); i++)
        custom_emit(&rs, &custom_item[i], &t, item, pp | PP_NAME);
    custom_subresource(&rs, &t, item, pp | PP_NAME, "status");
    custom_subresource(&rs, &t, item, pp | PP_NAME, "scale");
    free(coll);
    free(item);
    free(kind_def);
    free(list_def);
    res_free(&rs);
}

void
gw_openapi__resource_paths(gw_openapi__gen_t *g, const gw_resource_t *r)
{
    target_t t = resource_target(r);
    unsigned pp = r->namespaced ? PP_NAMESPACE : 0;
    char *coll, *item;
    res_t rs;

    if (r->custom) {
        custom_paths(g, r);
        return;
    }
    res_init(&rs, g, r);
    coll = r->namespaced ? gw_sprintf("%s/namespaces/{namespace}/%s", rs.base, r->name)
                         : gw_sprintf("%s/%s", rs.base, r->name);
    item = gw_sprintf("%s/{name}", coll);
    emit_specs(&rs, collection_specs, N_SPECS(collection_specs), &t, coll, pp);
    t.verbs &= ~GW_VERB_CREATE; /* an object's own path has no create */
    emit_specs(&rs, item_specs, N_SPECS(item_specs), &t, item, pp | PP_NAME);
    t.verbs = r->verbs;
    if (r->namespaced && (r->verbs & GW_VERB_LIST))
        all_namespaces_list(&rs, &t);
    if (r->verbs & GW_VERB_WATCH)
        watch_paths(&rs, &t);
    for (size_t i = 0; i < r->n_subresources; i++)
        subresource_paths(&rs, &r->subresources[i], item, pp | PP_NAME);
    free(coll);
    free(item);
    res_free(&rs);
}
