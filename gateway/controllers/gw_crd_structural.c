/* The one structural schema rule the NonStructuralSchema condition checks in kgate: every schema
 * node has a type, unless it is int-or-string or preserves unknown fields (kube's
 * validateStructuralInvariants, whose other rules the CRD validation enforces on every write;
 * this only catches CRDs written into etcd by other means). */
#include "gw_crd_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

typedef enum { ROOT, ITEMS, FIELD } level_t;

static bool
flag(const json_t *node, const char *name)
{
    return json_is_true(json_object_get(node, name));
}

static void
add(json_t *errs, const char *path, const char *detail)
{
    char *e = gw_sprintf("%s.type: Required value: %s", path, detail);

    json_array_append_new(errs, json_string(e));
    free(e);
}

static void
walk(const json_t *node, level_t lvl, const char *path, json_t *errs)
{
    static const char *const empty[] = {"must not be empty at the root",
                                        "must not be empty for specified array items",
                                        "must not be empty for specified object fields"};
    if (!json_is_object(node))
        return;
    const char *type = json_string_value(json_object_get(node, "type"));
    if (type == NULL || type[0] == '\0') {
        if (flag(node, "x-kubernetes-embedded-resource"))
            add(errs, path, "must be object if x-kubernetes-embedded-resource is true");
        else if (!flag(node, "x-kubernetes-int-or-string") &&
                 !flag(node, "x-kubernetes-preserve-unknown-fields"))
            add(errs, path, empty[lvl]);
    }
    const char *k;
    const json_t *child;
    json_object_foreach((json_t *)json_object_get(node, "properties"), k, child)
    {
        char *p = gw_sprintf("%s.properties[%s]", path, k);
        walk(child, FIELD, p, errs);
        free(p);
    }
    char *p = gw_sprintf("%s.items", path);
    walk(json_object_get(node, "items"), ITEMS, p, errs);
    free(p);
    p = gw_sprintf("%s.additionalProperties", path);
    walk(json_object_get(node, "additionalProperties"), FIELD, p, errs);
    free(p);
}

static int
by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* field.ErrorList.ToAggregate().Error(): sorted (kube sorts them), duplicates once, several
 * within brackets. */
static char *
aggregate(const json_t *errs)
{
    size_t n = json_array_size(errs), len = 3;
    const char **v = gw_calloc(n, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        v[i] = json_string_value(json_array_get(errs, i));
        len += strlen(v[i]) + 2;
    }
    qsort(v, n, sizeof(*v), by_text);
    char *out = gw_calloc(1, len);
    strcat(out, n > 1 ? "[" : "");
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(v[i], v[i - 1]) == 0)
            continue;
        strcat(out, i > 0 ? ", " : "");
        strcat(out, v[i]);
    }
    strcat(out, n > 1 ? "]" : "");
    free(v);
    return out;
}

char *
gw_crd__nonstructural(const json_t *crd)
{
    const json_t *versions = json_object_get(json_object_get(crd, "spec"), "versions");
    json_t *errs = json_array();

    for (size_t i = 0; i < json_array_size(versions); i++) {
        const json_t *schema = json_object_get(
            json_object_get(json_array_get(versions, i), "schema"), "openAPIV3Schema");
        char *path = gw_sprintf("spec.versions[%zu].schema.openAPIV3Schema", i);
        walk(schema, ROOT, path, errs);
        free(path);
    }
    char *msg = json_array_size(errs) > 0 ? aggregate(errs) : NULL;
    json_decref(errs);
    return msg;
}
