/* Unit tests for gateway/patch/gw_ssa: server-side apply and managedFields against the built-in
 * catalog's schemas. The cases are data: tests/unit/patch/ssa/<topic>.json, each
 *   {"kind": "<group>/<version>/<Kind>" ("" for no schema), "cases": [{"name": ..., <one of>}]}
 * where a case is either
 *   - a scenario: {"live": <object> (optional), "steps": [step...]}, each step
 *       {"apply": <config>, "manager": "m", "force": bool, "subresource": "status",
 *        "reset": ["status"], "now": "<RFC 3339>", "expect": {...}}
 *     or {"update": <new object>, "manager": ..., "subresource", "reset", "now", "expect"},
 *     run one after the other on the object each leaves (a failed apply leaves it as it was);
 *     "expect" may hold "object" (the result without managedFields), "managed" ({"<manager>
 *     <Operation>[ <subresource>]": fieldsV1} for every entry), "managedFields" (the exact
 *     entries), "error", "status" ("bad_request", "conflict", "failed") and "conflicts"
 *     ([{"field", "manager"}] in order);
 *   - an operation underneath: {"op": "fieldset", "object": ..., "expect": fieldsV1 | "error"},
 *     {"op": "compare", "lhs", "rhs", "added", "modified", "removed"} (null: absent),
 *     {"op": "merge", "lhs", "rhs", "expect"}, {"op": "remove", "value", "set", "expect"},
 *     {"op": "named" | "reconcile", "set", "expect"}, {"op": "zero", "expect"}.
 * Every case also checks that its inputs are left as they were. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_alloc.h"
#include "gw_catalog.h"
#include "gw_ssa.h"
#include "gw_ssa_int.h"
#include "tap.h"

static const gw_catalog_t *cat;

/* "<group>/<version>/<Kind>" -> the kind's schema; "" -> NULL (schema-less). */
static const gw_schema_t *
kind_schema(const char *kind, char *api_version, size_t av_len, char *name, size_t name_len,
            int *ok)
{
    char buf[96], *version, *k;
    const gw_schema_t *s;

    *ok = 1;
    snprintf(api_version, av_len, "v1");
    snprintf(name, name_len, "Object");
    if (kind == NULL || kind[0] == '\0')
        return NULL;
    snprintf(buf, sizeof(buf), "%s", kind);
    version = strchr(buf, '/');
    k = version ? strchr(version + 1, '/') : NULL;
    *ok = 0;
    if (k == NULL)
        return NULL;
    *version++ = '\0';
    *k++ = '\0';
    snprintf(api_version, av_len, "%s%s%s", buf, buf[0] ? "/" : "", version);
    snprintf(name, name_len, "%s", k);
    s = gw_catalog_kind_schema(cat, buf, version, k);
    *ok = s != NULL;
    return s;
}

static void
diag_json(const char *label, const json_t *v)
{
    char *t = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    tap_diag("%s %s", label, t ? t : "(null)");
    free(t);
}

/* ---- scenarios ------------------------------------------------------------------------------ */

typedef struct {
    const gw_schema_t *schema;
    char api_version[200], kind[100];
    json_t *live; /* owned; NULL before a create */
} world_t;

static json_t *
managed_map(const json_t *obj)
{
    json_t *mf = json_object_get(json_object_get(obj, "metadata"), "managedFields"), *e;
    json_t *out = json_object();
    size_t i;

    json_array_foreach(mf, i, e)
    {
        const char *sub = json_string_value(json_object_get(e, "subresource"));
        char *key = gw_sprintf("%s %s%s%s", json_string_value(json_object_get(e, "manager")),
                               json_string_value(json_object_get(e, "operation")), sub ? " " : "",
                               sub ? sub : "");
        json_object_set(out, key, json_object_get(e, "fieldsV1"));
        free(key);
    }
    return out;
}

static json_t *
without_managed(const json_t *obj)
{
    json_t *c = json_deep_copy(obj);

    json_object_del(json_object_get(c, "metadata"), "managedFields");
    return c;
}

static const char *
status_name(gw_ssa_status_t st)
{
    static const char *const names[] = {"ok", "bad_request", "conflict", "failed"};
    return names[st];
}

static bool
check_conflicts(const json_t *want, const gw_ssa_result_t *r)
{
    size_t i;
    json_t *c;

    if (want == NULL)
        return true;
    if (json_array_size(want) != r->n_conflicts)
        return false;
    json_array_foreach(want, i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "field")), r->conflicts[i].field) != 0 ||
            strcmp(json_string_value(json_object_get(c, "manager")), r->conflicts[i].manager) != 0)
            return false;
    }
    return true;
}

/* The expectations of a step over the object it left. */
static bool
check_expect(const json_t *x, const json_t *obj)
{
    json_t *want, *got;
    bool ok = true;

    if ((want = json_object_get(x, "object")) != NULL) {
        got = without_managed(obj);
        if (!json_equal(want, got)) {
            ok = false;
            diag_json("object:", got);
        }
        json_decref(got);
    }
    if ((want = json_object_get(x, "managed")) != NULL) {
        got = managed_map(obj);
        if (!json_equal(want, got)) {
            ok = false;
            diag_json("managed:", got);
        }
        json_decref(got);
    }
    if ((want = json_object_get(x, "managedFields")) != NULL &&
        !json_equal(want, json_object_get(json_object_get(obj, "metadata"), "managedFields"))) {
        ok = false;
        diag_json("managedFields:",
                  json_object_get(json_object_get(obj, "metadata"), "managedFields"));
    }
    return ok;
}

static void
scope_of(const world_t *w, const json_t *step, gw_ssa_scope_t *s, const char **reset)
{
    json_t *rs = json_object_get(step, "reset"), *v;
    size_t i, n = 0;

    json_array_foreach(rs, i, v) if (n < 7) reset[n++] = json_string_value(v);
    reset[n] = NULL;
    *s = (gw_ssa_scope_t){
        .schema = w->schema,
        .api_version = json_string_value(json_object_get(step, "apiVersion"))
                           ? json_string_value(json_object_get(step, "apiVersion"))
                           : w->api_version,
        .kind = w->kind,
        .subresource = json_string_value(json_object_get(step, "subresource")),
        .reset_fields = reset,
        .now = json_string_value(json_object_get(step, "now"))
                   ? json_string_value(json_object_get(step, "now"))
                   : "2024-01-01T00:00:00Z",
    };
}

static bool
apply_step(world_t *w, const json_t *step, const json_t *x)
{
    const char *reset[8], *want_err = json_string_value(json_object_get(x, "error"));
    const char *want_st = json_string_value(json_object_get(x, "status"));
    gw_ssa_scope_t s;
    gw_ssa_result_t r;
    json_t *out;
    bool ok;

    scope_of(w, step, &s, reset);
    out = gw_ssa_apply(&s, w->live, json_object_get(step, "apply"),
                       json_string_value(json_object_get(step, "manager")),
                       json_is_true(json_object_get(step, "force")), &r);
    if (out != NULL) {
        json_decref(w->live);
        w->live = out;
    }
    ok = (out != NULL) == (want_err == NULL && want_st == NULL);
    if (want_err != NULL && (r.message == NULL || strcmp(want_err, r.message) != 0))
        ok = false;
    if (want_st != NULL && strcmp(want_st, status_name(r.status)) != 0)
        ok = false;
    ok = check_conflicts(json_object_get(x, "conflicts"), &r) && ok;
    if (out == NULL && !ok)
        tap_diag("apply failed [%s]: %s", status_name(r.status), r.message ? r.message : "");
    ok = (out == NULL || check_expect(x, w->live)) && ok;
    gw_ssa_result_clear(&r);
    return ok;
}

static bool
update_step(world_t *w, const json_t *step, const json_t *x)
{
    const char *reset[8];
    json_t *obj = json_deep_copy(json_object_get(step, "update"));
    gw_ssa_scope_t s;

    scope_of(w, step, &s, reset);
    gw_ssa_update(&s, w->live, obj, json_string_value(json_object_get(step, "manager")));
    json_decref(w->live);
    w->live = obj;
    return check_expect(x, w->live);
}

static bool
run_scenario(const json_t *c, const gw_schema_t *schema, const char *av, const char *kind)
{
    world_t w = {.schema = schema, .live = json_deep_copy(json_object_get(c, "live"))};
    json_t *step, *before = json_deep_copy(c);
    bool ok = true, step_ok;
    size_t i;

    snprintf(w.api_version, sizeof(w.api_version), "%s", av);
    snprintf(w.kind, sizeof(w.kind), "%s", kind);
    json_array_foreach(json_object_get(c, "steps"), i, step)
    {
        const json_t *x = json_object_get(step, "expect");
        step_ok = json_object_get(step, "apply") != NULL ? apply_step(&w, step, x)
                                                         : update_step(&w, step, x);
        if (!step_ok)
            tap_diag("step %zu failed", i + 1);
        ok = ok && step_ok;
    }
    if (!json_equal(before, c)) {
        ok = false;
        tap_diag("the inputs were changed");
    }
    json_decref(before);
    json_decref(w.live);
    return ok;
}

/* ---- operations underneath ------------------------------------------------------------------ */

static gw_fieldset_t *
set_of(const json_t *fields)
{
    gw_fieldset_t *s = NULL;
    char err[256];

    if (fields == NULL || gw_fieldset_from_json(fields, &s, err, sizeof(err)) != 0)
        return gw_fieldset_new();
    return s;
}

static bool
same_set(const char *label, const gw_fieldset_t *got, const json_t *want)
{
    json_t *g = gw_fieldset_to_json(got);
    bool ok = json_equal(g, want);

    if (!ok)
        diag_json(label, g);
    json_decref(g);
    return ok;
}

static const json_t *
present(const json_t *v)
{
    return json_is_null(v) ? NULL : v;
}

static bool
op_fieldset(const gw_schema_t *s, const json_t *c)
{
    char err[1024];
    gw_fieldset_t *set = gw_ssa_fieldset(s, json_object_get(c, "object"), err, sizeof(err));
    const json_t *want = json_object_get(c, "expect");
    bool ok;

    if (set == NULL) {
        ok = json_is_string(want) && strcmp(err, json_string_value(want)) == 0;
        if (!ok)
            tap_diag("error: %s", err);
        return ok;
    }
    ok = json_is_object(want) && same_set("set:", set, want);
    gw_fieldset_free(set);
    return ok;
}

static bool
op_compare(const gw_schema_t *s, const json_t *c)
{
    gw_ssa__cmp_t cmp;
    bool ok;

    gw_ssa__compare(s, present(json_object_get(c, "lhs")), present(json_object_get(c, "rhs")),
                    &cmp);
    ok = same_set("added:", cmp.added, json_object_get(c, "added"));
    ok = same_set("modified:", cmp.modified, json_object_get(c, "modified")) && ok;
    ok = same_set("removed:", cmp.removed, json_object_get(c, "removed")) && ok;
    gw_ssa__cmp_clear(&cmp);
    return ok;
}

static bool
op_value(const gw_schema_t *s, const json_t *c, const char *op)
{
    gw_ssa__errs_t e = {0};
    gw_fieldset_t *set = set_of(json_object_get(c, "set"));
    json_t *got = NULL;
    bool ok;

    if (strcmp(op, "merge") == 0)
        got = gw_ssa__merge(s, present(json_object_get(c, "lhs")),
                            present(json_object_get(c, "rhs")), &e);
    else if (strcmp(op, "remove") == 0)
        got = gw_ssa__remove(s, json_object_get(c, "value"), set);
    else
        got = gw_ssa_zero_object(s);
    if (got == NULL) {
        char *why = gw_ssa__errs_text(&e);
        ok = json_is_string(json_object_get(c, "error")) &&
             strcmp(why, json_string_value(json_object_get(c, "error"))) == 0;
        if (!ok)
            tap_diag("error: %s", why);
        free(why);
    } else {
        ok = json_equal(got, json_object_get(c, "expect"));
        if (!ok)
            diag_json("got:", got);
    }
    json_decref(got);
    gw_fieldset_free(set);
    gw_ssa__errs_clear(&e);
    return ok;
}

static bool
op_set(const gw_schema_t *s, const json_t *c, const char *op)
{
    gw_fieldset_t *in = set_of(json_object_get(c, "set"));
    gw_fieldset_t *out = strcmp(op, "named") == 0 ? gw_ssa__named(s, in) : gw_ssa__reconcile(s, in);
    bool ok = same_set("set:", out, json_object_get(c, "expect"));

    gw_fieldset_free(in);
    gw_fieldset_free(out);
    return ok;
}

static bool
run_op(const json_t *c, const gw_schema_t *s)
{
    const char *op = json_string_value(json_object_get(c, "op"));
    json_t *before = json_deep_copy(c);
    bool ok;

    if (strcmp(op, "fieldset") == 0)
        ok = op_fieldset(s, c);
    else if (strcmp(op, "compare") == 0)
        ok = op_compare(s, c);
    else if (strcmp(op, "named") == 0 || strcmp(op, "reconcile") == 0)
        ok = op_set(s, c, op);
    else
        ok = op_value(s, c, op);
    if (!json_equal(before, c)) {
        ok = false;
        tap_diag("the inputs were changed");
    }
    json_decref(before);
    return ok;
}

static void
run_case(const char *file, const json_t *c, const char *file_kind)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *kind = json_string_value(json_object_get(c, "kind"));
    char av[200], kname[100];
    int known;
    const gw_schema_t *s =
        kind_schema(kind ? kind : file_kind, av, sizeof(av), kname, sizeof(kname), &known);
    bool ok = false;

    if (!known)
        tap_diag("unknown kind %s", kind ? kind : file_kind);
    else if (json_object_get(c, "op") != NULL)
        ok = run_op(c, s);
    else
        ok = run_scenario(c, s, av, kname);
    tap_ok(ok, "%s: %s", file, name ? name : "(unnamed)");
}

static int
by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void
run_files(const char *dir)
{
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, by_name);

    tap_ok(n > 2, "case files in %s", dir);
    for (int i = 0; i < n; i++) {
        const char *f = ents[i]->d_name;
        size_t len = strlen(f);
        if (len > 5 && strcmp(f + len - 5, ".json") == 0) {
            char path[512];
            json_error_t jerr;
            snprintf(path, sizeof(path), "%s/%s", dir, f);
            json_t *doc = json_load_file(path, 0, &jerr), *c;
            size_t j;
            if (!tap_ok(doc != NULL, "%s parses", f))
                tap_diag("%s:%d: %s", f, jerr.line, jerr.text);
            json_array_foreach(json_object_get(doc, "cases"), j, c)
                run_case(f, c, json_string_value(json_object_get(doc, "kind")));
            json_decref(doc);
        }
        free(ents[i]);
    }
    free(ents);
}

int
main(int argc, char **argv)
{
    cat = gw_catalog_builtin();
    run_files(argc > 1 ? argv[1] : "tests/unit/patch/ssa");
    return tap_done();
}
