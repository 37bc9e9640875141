/*
 * Evaluating a compiled MutatingAdmissionPolicy for one (binding, param): the matchConditions,
 * then each mutation's expression, its result turned into JSON and applied (see gw_map_eval.h).
 */
#include "gw_map_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_apply_config.h"
#include "gw_buf.h"
#include "gw_map_int.h"
#include "gw_patch.h"

/* ---- CEL values to JSON (what kube's ConvertToNative and encoding/json make of them) ---- */

static json_t *to_json(const cel_value_t *v, const char **err);

/* A timestamp, duration or bytes as the string cel-go's conversion to a JSON value writes. */
static json_t *
json_text(const cel_value_t *v)
{
    cel_arena_t *a = cel_arena_new();
    json_t *s = json_string(cel_value_json_text(a, v));

    cel_arena_free(a);
    return s;
}

static json_t *
list_to_json(const cel_value_t *v, const char **err)
{
    if (v->flags & CEL_VF_JSON)
        return json_deep_copy(v->v.json);
    json_t *out = json_array();
    for (size_t i = 0; i < cel_list_size(v); i++) {
        cel_value_t e = cel_list_at(v, i);
        json_t *j = to_json(&e, err);
        if (j == NULL) {
            json_decref(out);
            return NULL;
        }
        json_array_append_new(out, j);
    }
    return out;
}

static json_t *
map_to_json(const cel_value_t *v, const char **err)
{
    if (v->flags & CEL_VF_JSON)
        return json_deep_copy(v->v.json);
    json_t *out = json_object();
    cel_map_iter_t it = CEL_MAP_ITER_INIT;
    cel_value_t k, e;
    while (cel_map_next(v, &it, &k, &e)) {
        json_t *j = k.kind == CEL_STRING ? to_json(&e, err) : NULL;
        if (j == NULL) {
            if (k.kind != CEL_STRING)
                *err = "map key is not a string";
            json_decref(out);
            return NULL;
        }
        json_object_setn_new(out, k.v.str.data, k.v.str.len, j);
    }
    return out;
}

static json_t *
to_json(const cel_value_t *v, const char **err)
{
    switch (v->kind) {
    case CEL_NULL:
        return json_null();
    case CEL_BOOL:
        return json_boolean(v->v.b);
    case CEL_INT:
        return json_integer(v->v.i);
    case CEL_UINT:
        return v->v.u <= INT64_MAX ? json_integer((json_int_t)v->v.u) : json_real((double)v->v.u);
    case CEL_DOUBLE:
        if (isnan(v->v.d) || isinf(v->v.d)) {
            *err = "json: unsupported value: NaN or Inf";
            return NULL;
        }
        /* Go's encoding/json writes a whole float64 without a fraction ("3", not "3.0"), which
         * decodes into an integer field */
        if (v->v.d == floor(v->v.d) && fabs(v->v.d) < 9007199254740992.0)
            return json_integer((json_int_t)v->v.d);
        return json_real(v->v.d);
    case CEL_STRING:
        return json_stringn(v->v.str.data, v->v.str.len);
    case CEL_LIST:
        return list_to_json(v, err);
    case CEL_MAP:
        return map_to_json(v, err);
    case CEL_TIMESTAMP:
    case CEL_DURATION:
    case CEL_BYTES:
        return json_text(v);
    default:
        *err = cel_type_name(cel_value_type(v));
        return NULL;
    }
}

/* ---- kube's CheckTypeNamesMatchFieldPathNames ---------------------------------------------- */

static void
type_names(const cel_value_t *v, gw_buf_t *path, gw_buf_t *errs)
{
    const char *name = cel_value_object_name(v);
    cel_map_iter_t it = CEL_MAP_ITER_INIT;
    cel_value_t k, e;
    size_t mark = path->len;
    if (name != NULL && strcmp(name, gw_buf_cstr(path)) != 0)
        gw_buf_printf(errs,
                      "%sunexpected type name \"%s\", expected \"%s\", which matches field name "
                      "path from root Object type",
                      errs->len ? "\n" : "", name, gw_buf_cstr(path));
    if (v->kind == CEL_LIST && !(v->flags & CEL_VF_JSON)) {
        for (size_t i = 0; i < cel_list_size(v); i++) {
            e = cel_list_at(v, i);
            type_names(&e, path, errs);
        }
    } else if (v->kind == CEL_MAP && !(v->flags & CEL_VF_JSON)) {
        while (cel_map_next(v, &it, &k, &e)) {
            if (name != NULL && k.kind == CEL_STRING)
                gw_buf_printf(path, ".%.*s", (int)k.v.str.len, k.v.str.data);
            type_names(&e, path, errs);
            gw_buf_truncate(path, mark);
        }
    }
}

/* "type mismatch: ..." for an object whose nested types do not follow its field paths. */
static const char *
check_type_names(cel_arena_t *a, const cel_value_t *obj)
{
    gw_buf_t path = {0}, errs = {0};
    gw_buf_str(&path, cel_value_object_name(obj));
    type_names(obj, &path, &errs);
    const char *msg = errs.len ? gw_vap__aprintf(a, "type mismatch: %s", gw_buf_cstr(&errs)) : NULL;
    gw_buf_free(&path);
    gw_buf_free(&errs);
    return msg;
}

/* ---- the mutations ------------------------------------------------------------------------ */

/* The patch operations of a JSONPatch expression's list (kube's evaluatePatchExpression). */
static json_t *
json_patch_ops(cel_arena_t *a, const cel_value_t *list, const char **err)
{
    json_t *ops = json_array();
    for (size_t i = 0; i < cel_list_size(list); i++) {
        cel_value_t op = cel_list_at(list, i), f;
        json_t *o = json_object();
        json_array_append_new(ops, o);
        static const char *const names[] = {"op", "path", "from"};
        for (size_t k = 0; k < 3; k++) {
            cel_value_t key = cel_string_borrowed(names[k], strlen(names[k]));
            bool set = cel_map_find(&op, &key, &f) && f.kind == CEL_STRING;
            if (k < 2 || (set && f.v.str.len > 0))
                json_object_set_new(
                    o, names[k], set ? json_stringn(f.v.str.data, f.v.str.len) : json_string(""));
        }
        cel_value_t key = cel_string_borrowed("value", 5);
        if (!cel_map_find(&op, &key, &f))
            continue;
        if (cel_value_object_name(&f) != NULL && (*err = check_type_names(a, &f)) != NULL)
            break;
        const char *why = NULL;
        json_t *v = to_json(&f, &why);
        if (v == NULL) {
            *err = gw_vap__aprintf(
                a,
                "JSONPath valueExpression evaluated to a type that could not marshal to "
                "JSON: %s",
                why);
            break;
        }
        json_object_set_new(o, "value", v);
    }
    if (*err != NULL) {
        json_decref(ops);
        return NULL;
    }
    return ops;
}

/* Apply a JSONPatch mutation's result to `obj`: the new object, or NULL with `*err` (or with
 * neither when a `test` failed: the object stays as it was). */
static json_t *
apply_json_patch(cel_arena_t *a, const json_t *obj, const cel_value_t *v, const char **err)
{
    json_t *ops = json_patch_ops(a, v, err);
    if (ops == NULL)
        return NULL;
    char why[512];
    int bad = 0;
    json_t *out = gw_json_patch(obj, ops, &bad, why, sizeof(why));
    json_decref(ops);
    if (out == NULL && strstr(why, "test failed") == NULL)
        *err = gw_vap__aprintf(a, "JSON Patch: %s", why);
    return out;
}

/* Merge an ApplyConfiguration mutation's `Object` into `obj`. */
static json_t *
apply_configuration(cel_arena_t *a, const json_t *obj, const cel_value_t *v,
                    const gw_schema_t *schema, const char **err)
{
    if ((*err = check_type_names(a, v)) != NULL)
        return NULL;
    const char *why = NULL;
    json_t *config = to_json(v, &why);
    if (config == NULL) {
        *err = gw_vap__aprintf(a, "invalid return type: %s", why);
        return NULL;
    }
    /* The patch object takes the object's group, version and kind. */
    json_object_set(config, "apiVersion", json_object_get(obj, "apiVersion"));
    json_object_set(config, "kind", json_object_get(obj, "kind"));
    char *msg = NULL;
    json_t *out = gw_apply_config_merge(schema, obj, config, &msg);
    json_decref(config);
    if (out == NULL) {
        *err = gw_vap__aprintf(a, "error applying patch: %s", msg);
        free(msg);
    }
    return out;
}

/* Run mutation `m` on `*cur` (replaced by the new object when it changes; `*owned` says
 * whether the evaluation owns it); NULL, or kube's message. */
static const char *
run_mutation(const gw_map_compiled_t *c, const gw_map__mutation_t *m, const gw_vap_input_t *in,
             const gw_schema_t *schema, gw_vap_memo_t *memo, cel_arena_t *a, json_t **cur)
{
    if (m->type == GW_MAP_NONE) {
        size_t compiled = 0;
        for (size_t i = 0; i < c->nmutations; i++)
            compiled += c->mutations[i].type != GW_MAP_NONE;
        return gw_vap__aprintf(a, "expected %zu compiled evaluators for policy %s, got %zu",
                               c->nmutations, c->base->name, compiled);
    }
    if (m->expr.prog == NULL)
        return m->expr.error;
    gw_vap_input_t mine = *in;
    mine.object = *cur;
    gw_vap__phase_t p;
    int64_t budget = GW_VAP__BUDGET;
    cel_value_t v;
    const char *err = NULL;
    gw_vap__phase_init(&p, c->base, &mine, memo, a, true, in->namespace_object);
    if (!gw_vap__eval_expr(&p, &m->expr, &budget, &v, &err))
        return gw_vap__out_of_budget;
    if (err != NULL)
        return err;
    json_t *out = m->type == GW_MAP_JSON_PATCH ? apply_json_patch(a, *cur, &v, &err)
                                               : apply_configuration(a, *cur, &v, schema, &err);
    if (out != NULL) {
        json_decref(*cur);
        *cur = out;
    }
    return err;
}

int
gw_map_eval(const gw_map_compiled_t *c, const gw_vap_input_t *in, const gw_schema_t *schema,
            gw_vap_memo_t *memo, cel_arena_t *a, gw_map_result_t *out)
{
    const char *msg = NULL;
    memset(out, 0, sizeof(*out));
    gw_vap__memo_begin(memo);
    out->errors = cel_arena_alloc(a, (c->nmutations + 1) * sizeof(*out->errors));
    int m = gw_vap__run_matches(c->base, in, memo, a, &msg, NULL);
    if (m < 0)
        out->errors[out->nerrors++] = msg;
    json_t *cur = m > 0 && in->object != NULL ? json_deep_copy(in->object) : NULL;
    out->matched = m > 0;
    for (size_t i = 0; cur != NULL && i < c->nmutations && !out->internal; i++) {
        const char *err = run_mutation(c, &c->mutations[i], in, schema, memo, a, &cur);
        if (err != NULL) {
            out->internal = c->mutations[i].type == GW_MAP_NONE;
            if (out->internal) /* kube's internal error replaces everything else */
                out->nerrors = 0;
            out->errors[out->nerrors++] = err;
        }
    }
    if (gw_vap__memo_missed(memo)) {
        json_decref(cur);
        memset(out, 0, sizeof(*out));
        return GW_VAP_NEEDS_ANSWERS;
    }
    if (cur != NULL && !json_equal(cur, in->object))
        out->object = cur;
    else
        json_decref(cur);
    return 0;
}

void
gw_map_result_clear(gw_map_result_t *r)
{
    json_decref(r->object);
    memset(r, 0, sizeof(*r));
}
