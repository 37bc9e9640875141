/*
 * PATCH with application/json-patch+json (RFC 6902), application/merge-patch+json (RFC 7386),
 * application/strategic-merge-patch+json and application/apply-patch+yaml (server-side apply):
 * the patch is applied to the current object (its Scale for the scale subresource) on every
 * attempt of the update, and the result then goes the way of a PUT. Only an apply creates a
 * missing object.
 */
#include "gw_registry_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_cbor.h"
#include "gw_err.h"
#include "gw_fieldval.h"
#include "gw_gofmt.h"
#include "gw_gojson.h"
#include "gw_negotiate.h"
#include "gw_patch.h"
#include "gw_smp.h"
#include "gw_yaml.h"
#include "gw_json.h"

typedef enum {
    PATCH_JSON,
    PATCH_MERGE,
    PATCH_STRATEGIC,
    PATCH_APPLY,
} patch_type_t;

typedef struct {
    patch_type_t type;
    json_t *patch;
    const char *raw; /* the patch text, for duplicate fields of a merge patch */
    size_t raw_len;
    const char *bad;        /* why the patch text does not decode: kube finds out once it holds
                               the object, so a missing object is a 404 first */
    bool bad_syntax;        /* ... because it is not JSON to Go */
    gw_field_issues_t dups; /* keys an apply body sets twice */
} patch_t;

/* kube reports a patch that does not apply as a generic 422 with the reason as cause. */
static void
fail_generic_422(gw_upd_t *u, const char *why)
{
    gw_registry__fail(u->r, &u->fail, 422, "Invalid",
                      json_pack("{s:[{s:s,s:s}]}", "causes", "reason", "UnexpectedServerResponse",
                                "message", why),
                      "the server rejected our request due to an error in our request");
}

/* Why kube's sigs.k8s.io/json refuses to decode a JSON patch into its []jsonPatchOp, or a merge
 * patch into a map (a null is no map, and decodes); NULL when it decodes. */
static const char *
strict_type_error(const json_t *patch, patch_type_t type, char *buf, size_t len)
{
    const char *go = type == PATCH_MERGE ? "map[string]interface {}" : "[]handlers.jsonPatchOp";
    bool fits =
        json_is_null(patch) || (type == PATCH_MERGE ? json_is_object(patch) : json_is_array(patch));

    if (!fits) {
        snprintf(buf, len, "json: cannot unmarshal %s into Go value of type %s",
                 gw_gojson_kind(patch), go);
        return buf;
    }
    for (size_t i = 0; type == PATCH_JSON && i < json_array_size(patch); i++) {
        const json_t *op = json_array_get(patch, i);
        if (json_is_object(op) || json_is_null(op))
            continue;
        snprintf(buf, len, "json: cannot unmarshal %s into Go value of type handlers.jsonPatchOp",
                 gw_gojson_kind(op));
        return buf;
    }
    return NULL;
}

/* kube's reading of a JSON or merge patch once it holds the object: under Strict or Warn field
 * validation sigs.k8s.io/json reads it first ("error decoding patch: ..."); under Ignore the
 * patch library alone does, whose merge patch refuses text that is not JSON, and a patch that
 * is not an object, as "Invalid JSON Patch". */
static bool
check_decodes(gw_upd_t *u, const patch_t *p)
{
    bool strict = u->opts.field_validation != GW_FV_IGNORE;
    char buf[160];
    const char *why = p->bad;

    if (why == NULL && strict)
        why = strict_type_error(p->patch, p->type, buf, sizeof(buf));
    if (why != NULL && strict)
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL, "error decoding patch: %s", why);
    else if (p->type == PATCH_MERGE &&
             (p->bad_syntax || (why == NULL && !json_is_object(p->patch))))
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL, "Invalid JSON Patch");
    else if (why != NULL)
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL, "%s", why);
    else
        return true;
    return false;
}

/* A JSON or merge patch applied to doc. */
static bool
apply(gw_upd_t *u, const patch_t *p, const json_t *doc, json_t **out)
{
    char why[512];
    int bad = 0;

    if (!check_decodes(u, p))
        return false;
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
    fail_generic_422(u, why);
    return false;
}

/* kube's 422 for a JSON or merge patched object that does not decode: the patched JSON
 * (Go's json.Marshal of the patched map: compact, keys sorted) with the decoder's words. */
static bool
check_patched_decodes(gw_upd_t *u, const json_t *obj, const gw_schema_t *schema)
{
    gw_field_issues_t is = {0};
    json_t *copy;
    bool ok = true;

    if (schema == NULL)
        return true;
    copy = json_deep_copy(obj); /* the check prunes what it does not know */
    gw_fieldval_check(copy, schema, &is);
    for (size_t i = 0; ok && i < is.n; i++) {
        if (is.items[i].kind != GW_FIELD_DECODE)
            continue;
        gw_field_errors_t errs = {0};
        char *text = gw_json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS), *summary;
        gw_ferr_invalid_str(&errs, "patch", text ? text : "", is.items[i].message);
        summary = gw_ferr_summary(&errs);
        gw_registry__fail(u->r, &u->fail, 422, "Invalid", json_pack("{s:O}", "causes", errs.causes),
                          " \"\" is invalid: %s", summary);
        free(summary);
        free(text);
        gw_ferr_clear(&errs);
        ok = false;
    }
    gw_field_issues_clear(&is);
    json_decref(copy);
    return ok;
}

/* The patched object decoded as a PUT body would be, for `schema`'s kind. */
static bool
check_patched(gw_upd_t *u, const patch_t *p, json_t *obj, const char *av, const char *kind,
              const gw_schema_t *schema)
{
    bool warn = !u->warned;

    if (!check_patched_decodes(u, obj, schema))
        return false;

    return gw_registry__check_object(u->r, obj, av, kind, schema,
                                     p->type == PATCH_MERGE ? p->raw : NULL, p->raw_len,
                                     u->opts.field_validation, warn, &u->req_errs, &u->fail);
}

/* ---- strategic merge ------------------------------------------------------------------------ */

/* kube's 422 for a strategically patched object that does not decode or fails strict field
 * validation: the patch as the merge left it, in Go's %+v, with the decoder's words. */
static void
fail_patch_invalid(gw_upd_t *u, const json_t *after, const char *detail)
{
    gw_field_errors_t errs = {0};
    char *text = gw_go_value(after), *summary;

    gw_ferr_invalid_str(&errs, "patch", text, detail);
    summary = gw_ferr_summary(&errs);
    gw_registry__fail(u->r, &u->fail, 422, "Invalid", json_pack("{s:O}", "causes", errs.causes),
                      " \"\" is invalid: %s", summary);
    free(summary);
    free(text);
    gw_ferr_clear(&errs);
}

static bool
apply_strategic(gw_upd_t *u, const patch_t *p, const json_t *doc, const gw_schema_t *schema,
                json_t **out, json_t **after)
{
    char why[1024];
    gw_smp_status_t st;

    *out = *after = NULL;
    if (p->bad != NULL) {
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL, "%s", p->bad);
        return false;
    }
    *out = gw_smp_apply_ex(doc, p->patch, schema, &st, after, why, sizeof(why));
    if (*out != NULL)
        return true;
    if (st == GW_SMP_BAD_REQUEST)
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL, "%s", why);
    else if (st == GW_SMP_INVALID)
        fail_generic_422(u, why);
    else /* kube passes the merge's own errors through: a 500 without a reason */
        gw_registry__fail(u->r, &u->fail, 500, NULL, NULL, "%s", why);
    return false;
}

/* The reflect kind (as Go names it) of what JSON's decoder called `json` in its message. */
static const char *
unstructured_kind(const char *json)
{
    static const char *const map[][2] = {
        {"string", "string"}, {"number", "int64"}, {"bool", "bool"},
        {"array", "slice"},   {"object", "map"},
    };

    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strncmp(json, map[i][0], strlen(map[i][0])) == 0)
            return map[i][1];
    return json;
}

/* kube decodes a strategically patched map with its unstructured converter, whose words differ
 * from encoding/json's for containers: "cannot restore map from string" where encoding/json
 * says "json: cannot unmarshal string into Go struct field ... of type map[string]string".
 * Other messages are kept. Caller frees. */
static char *
converter_message(const char *decode)
{
    static const char pre[] = "json: cannot unmarshal ";
    const char *type = strstr(decode, " of type "), *what;

    if (strncmp(decode, pre, sizeof(pre) - 1) != 0 || type == NULL)
        return gw_strdup(decode);
    what = unstructured_kind(decode + sizeof(pre) - 1);
    type += strlen(" of type ");
    if (strncmp(type, "map[", 4) == 0)
        return gw_sprintf("cannot restore map from %s", what);
    if (strncmp(type, "[]", 2) == 0 && strcmp(type, "[]uint8") != 0)
        return gw_sprintf("cannot restore slice from %s", what);
    if (strchr(type, '.') != NULL)
        return gw_sprintf("cannot restore struct from: %s", what);
    return gw_strdup(decode);
}

/* The messages of the issues of one kind, joined with ", " onto *out. */
static void
join(char **out, const gw_field_issues_t *is, gw_field_issue_kind_t kind)
{
    for (size_t i = 0; i < is->n; i++) {
        char *next;
        if (is->items[i].kind != kind)
            continue;
        next = gw_sprintf("%s%s%s", *out ? *out : "", *out ? ", " : "", is->items[i].message);
        free(*out);
        *out = next;
    }
}

/* kube's decoding of the patched map (FromUnstructuredWithValidation): a value its Go type
 * cannot hold is a 422; duplicate fields of the patch text, then unknown fields of the result,
 * are its strict errors (Strict: a 422, Warn: warnings); missing fields join validation. */
static bool
report_strategic(gw_upd_t *u, const json_t *after, const gw_field_issues_t *dups,
                 const gw_field_issues_t *walk)
{
    gw_fieldval_mode_t mode = u->opts.field_validation;
    char *strict = NULL, *detail;

    for (size_t i = 0; i < walk->n; i++) {
        if (walk->items[i].kind == GW_FIELD_DECODE) {
            detail = converter_message(walk->items[i].message);
            fail_patch_invalid(u, after, detail);
            free(detail);
            return false;
        }
    }
    join(&strict, dups, GW_FIELD_DUPLICATE);
    join(&strict, walk, GW_FIELD_UNKNOWN);
    if (strict != NULL && mode == GW_FV_STRICT) {
        detail = gw_sprintf("strict decoding error: %s", strict);
        fail_patch_invalid(u, after, detail);
        free(detail);
        free(strict);
        return false;
    }
    free(strict);
    for (size_t i = 0; mode == GW_FV_WARN && !u->warned && i < dups->n; i++)
        gw_req_warning(u->r, "%s", dups->items[i].message);
    for (size_t i = 0; i < walk->n; i++) {
        const gw_field_issue_t *it = &walk->items[i];
        if (it->kind == GW_FIELD_REQUIRED && gw_registry__strategy(u->r->resource)->own_required)
            continue;
        if (it->kind != GW_FIELD_UNKNOWN && u->r->resource->custom != NULL)
            continue; /* a custom resource's schema validation reports these */
        if (it->kind == GW_FIELD_REQUIRED)
            gw_ferr_required(&u->req_errs, it->path, NULL);
        else if (it->kind == GW_FIELD_INVALID)
            gw_ferr_add(&u->req_errs, "FieldValueInvalid", it->path, it->message);
        else if (it->kind == GW_FIELD_UNKNOWN && mode == GW_FV_WARN && !u->warned)
            gw_req_warning(u->r, "%s", it->message);
    }
    return true;
}

static bool
check_strategic(gw_upd_t *u, const patch_t *p, json_t *obj, const gw_schema_t *schema,
                const json_t *after)
{
    gw_field_issues_t dups = {0}, walk = {0};
    bool ok;

    if (u->opts.field_validation != GW_FV_IGNORE)
        gw_json_find_duplicates(p->raw, p->raw_len, &dups);
    if (schema != NULL)
        gw_fieldval_check(obj, schema, &walk);
    ok = report_strategic(u, after, &dups, &walk);
    gw_field_issues_clear(&dups);
    gw_field_issues_clear(&walk);
    return ok;
}

/* The strategically patched object: kube decodes it into the request's Go type, so whatever
 * apiVersion and kind the patch wrote are the kind's own again. */
static bool
patched_strategic(gw_upd_t *u, const patch_t *p, const json_t *doc, const char *av,
                  const char *kind, const gw_schema_t *schema, json_t **out)
{
    json_t *after;
    bool ok = apply_strategic(u, p, doc, schema, out, &after) &&
              check_strategic(u, p, *out, schema, after);

    json_decref(after);
    if (!ok)
        return false;
    json_object_set_new(*out, "apiVersion", json_string(av ? av : gw_registry__api_version(u->r)));
    json_object_set_new(*out, "kind", json_string(kind ? kind : u->r->resource->kind));
    return true;
}

/* ---- server-side apply ------------------------------------------------------------------- */

/* kube's checks of an apply body before the merge: no managedFields, the request's apiVersion,
 * then decoding's field checks (unknown fields per fieldValidation, types) on a copy that
 * loses the unknown ones. Required fields are not asked of a partial configuration. */
static json_t *
apply_config(gw_upd_t *u, const patch_t *p, const char *av, const char *kind,
             const gw_schema_t *schema)
{
    const json_t *managed = json_object_get(json_object_get(p->patch, "metadata"), "managedFields");
    const char *pav = json_string_value(json_object_get(p->patch, "apiVersion"));
    gw_field_errors_t partial = {0};
    json_t *config;
    bool ok;

    if (managed != NULL && !json_is_null(managed)) {
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL,
                          "metadata.managedFields must be nil");
        return NULL;
    }
    if (pav == NULL || strcmp(pav, av) != 0) {
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL,
                          "Incorrect version specified in apply patch. Specified patch version: "
                          "%s, expected: %s",
                          pav ? pav : "", av);
        return NULL;
    }
    config = json_deep_copy(p->patch);
    ok = gw_registry__check_object(u->r, config, av, kind, schema, NULL, 0,
                                   u->opts.field_validation, !u->warned, &partial, &u->fail);
    gw_ferr_clear(&partial);
    if (!ok) {
        json_decref(config);
        return NULL;
    }
    return config;
}

/* kube's ApplyConflict: 409 with one FieldManagerConflict cause per field. */
static void
fail_apply(gw_upd_t *u, const gw_ssa_result_t *res)
{
    json_t *causes;

    if (res->status == GW_SSA_BAD_REQUEST) {
        gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL, "%s", res->message);
        return;
    }
    if (res->status != GW_SSA_CONFLICT) {
        gw_registry__fail(u->r, &u->fail, 500, NULL, NULL, "%s", res->message);
        return;
    }
    causes = json_array();
    for (size_t i = 0; i < res->n_conflicts; i++) {
        char *msg = gw_sprintf("conflict with %s", res->conflicts[i].manager);
        json_array_append_new(causes, json_pack("{s:s,s:s,s:s}", "reason", "FieldManagerConflict",
                                                "message", msg, "field", res->conflicts[i].field));
        free(msg);
    }
    gw_registry__fail(u->r, &u->fail, 409, "Conflict", json_pack("{s:o}", "causes", causes), "%s",
                      res->message);
}

/* Keys the body sets twice, which kube's strict YAML decoding reports once the apply worked:
 * a 400 under Strict, a warning each under Warn. */
static bool
check_apply_duplicates(gw_upd_t *u, const patch_t *p)
{
    char *text = NULL, *next;

    if (p->dups.n == 0 || u->opts.field_validation == GW_FV_IGNORE)
        return true;
    if (u->opts.field_validation == GW_FV_WARN) {
        for (size_t i = 0; !u->warned && i < p->dups.n; i++)
            gw_req_warning(u->r, "%s", p->dups.items[i].message);
        return true;
    }
    for (size_t i = 0; i < p->dups.n; i++) {
        next = gw_sprintf("%s\n  %s", text ? text : "", p->dups.items[i].message);
        free(text);
        text = next;
    }
    gw_registry__fail(u->r, &u->fail, 400, "BadRequest", NULL,
                      "error strict decoding YAML: error converting YAML to JSON: yaml: "
                      "unmarshal errors:%s",
                      text);
    free(text);
    return false;
}

/* The scope of the apply's entries: the request's, or a Scale's own for the scale view. */
static void
apply_scope(gw_upd_t *u, const char *av, const char *kind, const gw_schema_t *schema,
            gw_ssa_scope_t *s, char now[21])
{
    gw_registry__ssa_scope(u->r, u->subres, s, now);
    if (kind != NULL) {
        s->schema = schema;
        s->api_version = av;
        s->kind = kind;
        s->reset_fields = NULL;
    }
}

/* The configuration merged into doc (NULL: the object is missing) by the request's manager. */
static bool
apply_patch(gw_upd_t *u, const patch_t *p, const json_t *doc, const char *av, const char *kind,
            const gw_schema_t *schema, json_t **out)
{
    gw_ssa_result_t res = {0};
    gw_ssa_scope_t s;
    char now[21];
    json_t *config = apply_config(u, p, av ? av : gw_registry__api_version(u->r),
                                  kind ? kind : u->r->resource->kind, schema);

    if (config == NULL)
        return false;
    apply_scope(u, av, kind, schema, &s, now);
    *out = gw_ssa_apply(&s, doc, config, u->opts.field_manager, u->opts.force, &res);
    json_decref(config);
    if (*out == NULL) {
        fail_apply(u, &res);
        gw_ssa_result_clear(&res);
        return false;
    }
    return check_apply_duplicates(u, p) &&
           gw_registry__check_object(u->r, *out, av, kind, schema, NULL, 0,
                                     u->opts.field_validation, false, &u->req_errs, &u->fail);
}

/* ---- deriving the object ----------------------------------------------------------------------
 */

/* The patched document, checked as kube checks the patch type's result for `schema`'s kind
 * (av and kind: NULL for the request's own), then its namespace and name. */
static bool
patched(gw_upd_t *u, const json_t *doc, const char *av, const char *kind, const gw_schema_t *schema,
        json_t **out)
{
    const patch_t *p = u->arg;
    bool ok;

    if (p->type == PATCH_APPLY)
        ok = apply_patch(u, p, doc, av, kind, schema, out);
    else if (p->type == PATCH_STRATEGIC)
        ok = patched_strategic(u, p, doc, av, kind, schema, out);
    else
        ok = apply(u, p, doc, out) && check_patched(u, p, *out, av, kind, schema);
    return ok && gw_registry__check_namespace(u->r, *out, &u->fail) &&
           gw_registry__check_name(u, *out);
}

static bool
derive_main(gw_upd_t *u, const json_t *cur, json_t **out)
{
    return patched(u, cur, NULL, NULL, u->r->resource->schema, out);
}

static bool
derive_status(gw_upd_t *u, const json_t *cur, json_t **out)
{
    json_t *obj = NULL;
    bool ok = patched(u, cur, NULL, NULL, u->r->resource->schema, &obj);

    if (ok) {
        *out = gw_registry__status_into(cur, obj);
        if (u->applied) /* the apply's record of the write */
            json_object_set(gw_objmeta_get(*out), "managedFields",
                            json_object_get(json_object_get(obj, "metadata"), "managedFields"));
    }
    json_decref(obj);
    return ok;
}

/* pods/ephemeralcontainers: the patched pod's spec.ephemeralContainers into the current one. */
static bool
derive_ephemeral(gw_upd_t *u, const json_t *cur, json_t **out)
{
    json_t *obj = NULL;
    bool ok = patched(u, cur, NULL, NULL, u->r->resource->schema, &obj);

    if (ok)
        *out = gw_registry__ephemeral_into(cur, obj);
    json_decref(obj);
    return ok;
}

static bool
derive_scale(gw_upd_t *u, const json_t *cur, json_t **out)
{
    const gw_subresource_t *sub = u->r->subresource;
    json_t *scale = gw_registry__scale_of(u, cur), *obj = NULL;
    bool ok = patched(u, scale, "autoscaling/v1", "Scale", sub ? sub->schema : NULL, &obj) &&
              gw_registry__scale_into(u, cur, obj, out);

    json_decref(scale);
    json_decref(obj);
    return ok;
}

/* An apply body: YAML (or JSON) of one object, or CBOR (feature gate CBORServingAndStorage);
 * an empty body is an empty configuration. */
static bool
read_apply(gw_req_t *r, patch_t *p, bool cbor)
{
    char err[512];

    p->type = PATCH_APPLY;
    p->raw = gw_req_body(r, &p->raw_len);
    gw_arena_defer(r->arena, (void (*)(void *))gw_field_issues_clear, &p->dups);
    p->patch = cbor ? gw_cbor_decode((const uint8_t *)p->raw, p->raw_len, err, sizeof(err))
                    : gw_yaml_to_json_dups(p->raw, p->raw_len, &p->dups, err, sizeof(err));
    if (p->patch == NULL) {
        gw_reply_status(r, 400, "BadRequest", NULL, "error decoding %s: %s",
                        cbor ? "patch" : "YAML", err);
        return false;
    }
    if (json_is_null(p->patch)) {
        json_decref(p->patch);
        p->patch = json_object();
    }
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, p->patch);
    if (!json_is_object(p->patch)) {
        gw_reply_status(r, 400, "BadRequest", NULL,
                        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: "
                        "cannot unmarshal %s into Go value of type map[string]interface {}",
                        json_is_array(p->patch)     ? "array"
                        : json_is_string(p->patch)  ? "string"
                        : json_is_boolean(p->patch) ? "bool"
                                                    : "number");
        return false;
    }
    return true;
}

/* The patch document; false after replying (415 for a type not served). Text that does not
 * decode is answered once the object is found, as kube does. */
static bool
read_patch(gw_req_t *r, patch_t *p)
{
    /* custom resources have no strategic merge (kube: 415) */
    gw_body_type_t type = gw_req_patch_type(r, r->resource->custom == NULL);
    char why[256];

    if (type == GW_BODY_UNSUPPORTED)
        return false;
    if (type == GW_BODY_APPLY_PATCH || type == GW_BODY_APPLY_PATCH_CBOR)
        return read_apply(r, p, type == GW_BODY_APPLY_PATCH_CBOR);
    p->type = type == GW_BODY_JSON_PATCH    ? PATCH_JSON
              : type == GW_BODY_MERGE_PATCH ? PATCH_MERGE
                                            : PATCH_STRATEGIC;
    p->raw = gw_req_body(r, &p->raw_len);
    /* kube decodes the patch with encoding/json (or its fork, sigs.k8s.io/json) */
    p->patch = gw_gojson_load(p->raw, p->raw_len, JSON_DECODE_ANY, why, sizeof(why));
    if (p->patch == NULL) {
        p->bad = gw_arena_strdup(r->arena, why);
        p->bad_syntax = gw_gojson_syntax_error(p->raw, p->raw_len, why, sizeof(why));
        return true;
    }
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, p->patch);
    return true;
}

/* kube's ValidatePatchOptions: an apply names its manager; only an apply may force. */
static bool
check_apply_options(gw_upd_t *u, const patch_t *p)
{
    gw_field_errors_t errs = {0};

    if (p->type == PATCH_APPLY && !u->opts.manager_given)
        gw_ferr_required(&errs, "fieldManager", "is required for apply patch");
    if (p->type != PATCH_APPLY && u->opts.force_given)
        gw_ferr_forbidden(&errs, "force", "may not be specified for non-apply patch");
    if (gw_ferr_count(&errs) == 0)
        return true;
    gw_registry__fail_invalid(u->r, &u->fail, "meta.k8s.io", "PatchOptions", "", &errs);
    return false;
}

void
gw_registry__patch_target(gw_req_t *r, const gw_subres_strategy_t *sub)
{
    gw_upd_t *u = gw_registry__upd_new(r);
    patch_t *p = gw_arena_calloc(r->arena, sizeof(*p));

    if (!read_patch(r, p))
        return;
    if (!gw_registry__write_opts(r, "PatchOptions", &u->opts, &u->fail) ||
        !check_apply_options(u, p)) {
        gw_registry__reply_fail(r, &u->fail);
        return;
    }
    u->arg = p;
    u->sub = sub != NULL ? sub->name : NULL;
    u->subres = sub;
    /* An apply records its own ownership (not on the Scale view) and creates what is missing. */
    u->applied = p->type == PATCH_APPLY && (sub == NULL || sub->status_write);
    u->allow_create = p->type == PATCH_APPLY && sub == NULL;
    if (sub == NULL) {
        u->derive = derive_main;
    } else if (sub->form == GW_SUBRES_STATUS) {
        u->derive = derive_status;
    } else if (sub->form == GW_SUBRES_EPHEMERAL) {
        u->derive = derive_ephemeral;
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
