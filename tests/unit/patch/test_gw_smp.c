/* Unit tests for gateway/patch/gw_smp: the strategic merge patch against the built-in catalog's
 * schemas. The cases are data: tests/unit/patch/smp/<topic>.json, each
 *   {"kind": "<group>/<version>/<Kind>" (or "" for no schema), "cases": [
 *      {"name": ..., "original": {...}, "patch": {...},
 *       "expected": {...}                       -- the patched document, list order included
 *       | "error": "<kube's message>", "status": 400 | 422 | 500,
 *       "patch_after": {...} (optional)          -- the patch as the merge leaves it
 *       "kind": ... (optional, this case's own)}]}
 * Every case also checks that the inputs are left as they were. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_smp.h"
#include "tap.h"

static const gw_catalog_t *cat;

/* "<group>/<version>/<Kind>" -> the kind's schema; "" -> NULL (schema-less). */
static const gw_schema_t *
kind_schema(const char *kind, int *ok)
{
    char buf[160], *version, *name;
    const gw_schema_t *s;

    *ok = 1;
    if (kind == NULL || kind[0] == '\0')
        return NULL;
    snprintf(buf, sizeof(buf), "%s", kind);
    version = strchr(buf, '/');
    name = version ? strchr(version + 1, '/') : NULL;
    *ok = 0;
    if (name == NULL)
        return NULL;
    *version++ = '\0';
    *name++ = '\0';
    s = gw_catalog_kind_schema(cat, buf, version, name);
    *ok = s != NULL;
    return s;
}

static void
diag_json(const char *label, const json_t *v)
{
    char *t = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
    tap_diag("%s %s", label, t ? t : "(null)");
    free(t);
}

static const char *
status_name(gw_smp_status_t st)
{
    static const char *const names[] = {"ok", "400", "422", "500"};
    return names[st];
}

static void
run_case(const char *file, const json_t *c, const char *file_kind)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *kind = json_string_value(json_object_get(c, "kind"));
    json_t *orig = json_object_get(c, "original"), *patch = json_object_get(c, "patch");
    json_t *want = json_object_get(c, "expected"), *after_want = json_object_get(c, "patch_after");
    const char *want_err = json_string_value(json_object_get(c, "error"));
    int want_status = (int)json_integer_value(json_object_get(c, "status")), ok;
    json_t *o0 = json_deep_copy(orig), *p0 = json_deep_copy(patch), *after = NULL, *got;
    gw_smp_status_t st;
    char err[1024];
    const gw_schema_t *schema = kind_schema(kind ? kind : file_kind, &ok);
    char status_want[8];

    snprintf(status_want, sizeof(status_want), "%d", want_status);
    got = ok ? gw_smp_apply_ex(orig, patch, schema, &st, &after, err, sizeof(err)) : NULL;
    if (!ok)
        tap_diag("unknown kind %s", kind ? kind : file_kind);
    else if (want != NULL)
        ok = got != NULL && json_equal(got, want);
    else
        ok = got == NULL && want_err != NULL && strcmp(err, want_err) == 0 &&
             strcmp(status_name(st), status_want) == 0;
    if (after_want != NULL && !json_equal(after, after_want)) {
        ok = 0;
        diag_json("patch after:", after);
    }
    if (!json_equal(orig, o0) || !json_equal(patch, p0)) {
        ok = 0;
        tap_diag("the inputs were changed");
    }
    if (!tap_ok(ok, "%s: %s", file, name ? name : "(unnamed)")) {
        diag_json("got: ", got);
        diag_json("want:", want);
        if (got == NULL)
            tap_diag("err: [%s] %s", status_name(st), err);
    }
    json_decref(got);
    json_decref(after);
    json_decref(o0);
    json_decref(p0);
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

/* ---- the plain entry point ------------------------------------------------------------------ */

static void
api_cases(void)
{
    char err[256];
    json_t *doc = json_pack("{s:{s:s}}", "metadata", "name", "a");
    json_t *arr = json_array(), *got;

    got = gw_smp_apply(doc, json_null(), NULL, err, sizeof(err));
    tap_ok(got != NULL && json_equal(got, doc), "a null patch changes nothing");
    json_decref(got);
    got = gw_smp_apply(doc, arr, NULL, err, sizeof(err));
    tap_ok(got == NULL, "a list is not a patch");
    tap_is_str(err, "json: cannot unmarshal array into Go value of type map[string]interface {}",
               "... with encoding/json's words");
    json_decref(arr);
    json_decref(doc);
}

int
main(int argc, char **argv)
{
    cat = gw_catalog_builtin();
    api_cases();
    run_files(argc > 1 ? argv[1] : "tests/unit/patch/smp");
    return tap_done();
}
