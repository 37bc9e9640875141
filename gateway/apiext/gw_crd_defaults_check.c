/*
 * A CRD's `default` values checked against their own schema, as kube's CRD validation does
 * (apiextensions-apiserver pkg/apiserver/schema/defaulting/validation.go): a default must be
 * pruned already ("must not have unknown fields") and must validate against the schema it
 * sits in, its errors placed under "<schema path>.default".
 */
#include "gw_crd_schema.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

#define OBJECT_META "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

/* The default's own schema errors, their fields put under `at` ("<path>.default"). */
static void
check_value(const gw_schema_t *s, const json_t *def, const char *at, gw_field_errors_t *errs)
{
    gw_field_errors_t own = {0};
    json_t *pruned = json_deep_copy(def);
    size_t i;
    json_t *c;

    gw_crd_prune(s, pruned, NULL);
    if (!json_equal(pruned, def)) {
        gw_ferr_invalid(errs, at, def, "must not have unknown fields");
        json_decref(pruned);
        return;
    }
    json_decref(pruned);
    gw_crd_validate(s, def, &own);
    json_array_foreach(own.causes, i, c)
    {
        const char *f = json_string_value(json_object_get(c, "field"));
        char *field =
            f && *f && strcmp(f, "<nil>") != 0 ? gw_sprintf("%s.%s", at, f) : gw_strdup(at);
        gw_ferr_add(errs, json_string_value(json_object_get(c, "reason")), field,
                    json_string_value(json_object_get(c, "message")));
        free(field);
    }
    gw_ferr_clear(&own);
}

static void walk(const json_t *js, const gw_schema_t *s, const char *path, gw_field_errors_t *errs,
                 int depth);

static void
walk_child(const json_t *js, const gw_schema_t *s, const char *path, const char *suffix,
           gw_field_errors_t *errs, int depth)
{
    char *p = gw_sprintf("%s.%s", path, suffix);

    walk(js, s, p, errs, depth + 1);
    free(p);
}

/* The schema JSON js and its compiled node s side by side; defaults checked where stated. */
static void
walk(const json_t *js, const gw_schema_t *s, const char *path, gw_field_errors_t *errs, int depth)
{
    const json_t *def = json_object_get(js, "default"), *v;
    const char *name;

    if (!json_is_object(js) || s == NULL || depth > 64)
        return;
    if (def != NULL && !json_is_null(def)) {
        char *at = gw_sprintf("%s.default", path);
        check_value(s, def, at, errs);
        free(at);
    }
    json_object_foreach((json_t *)json_object_get(js, "properties"), name, v)
    {
        const gw_schema_field_t *f = gw_schema_field(s, name);
        char *suffix = gw_sprintf("properties[%s]", name);
        if (f != NULL)
            walk_child(v, f->schema, path, suffix, errs, depth);
        free(suffix);
    }
    if (json_is_object(json_object_get(js, "items")))
        walk_child(json_object_get(js, "items"), s->items, path, "items", errs, depth);
    if (json_is_object(json_object_get(js, "additionalProperties")))
        walk_child(json_object_get(js, "additionalProperties"), s->values, path,
                   "additionalProperties", errs, depth);
}

void
gw_crd_defaults_check(const json_t *schema, const char *path, gw_field_errors_t *errs)
{
    gw_arena_t *a = gw_arena_new();
    const gw_schema_t *root = NULL;
    char err[256];

    if (gw_crd_schema_compile(a, schema, gw_catalog_definition(gw_catalog_builtin(), OBJECT_META),
                              &root, err, sizeof(err)) == 0)
        walk(schema, root, path, errs, 0);
    gw_arena_free(a);
}
