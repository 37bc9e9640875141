/*
 * Validation ratcheting (kube 1.30+, CRDValidationRatcheting): an update may keep a value that
 * no longer validates, as long as it does not touch it. kube skips the schema checks of every
 * node whose new value equals the correlated old one; here each schema error is looked up at
 * its field path in both objects and dropped when the value there is unchanged (for a missing
 * required field, the parent that requires it). Paths are kube's ("spec.items[0].name",
 * "spec.labels[key]").
 */
#include "gw_crd_schema.h"

#include <stdlib.h>
#include <string.h>

/* The value at kube field path `path` of doc (NULL when absent). */
static const json_t *
at_field_path(const json_t *doc, const char *path)
{
    const json_t *v = doc;
    const char *p = path;
    char seg[256];

    while (v != NULL && *p != '\0') {
        size_t n;
        if (*p == '.')
            p++;
        if (*p == '[') {
            const char *end = strchr(p, ']');
            if (end == NULL || (size_t)(end - p - 1) >= sizeof(seg))
                return NULL;
            n = (size_t)(end - p - 1);
            memcpy(seg, p + 1, n);
            seg[n] = '\0';
            if (json_is_array(v)) {
                char *stop;
                long i = strtol(seg, &stop, 10);
                v = *stop == '\0' && i >= 0 ? json_array_get(v, (size_t)i) : NULL;
            } else {
                v = json_object_get(v, seg);
            }
            p = end + 1;
            continue;
        }
        n = strcspn(p, ".[");
        if (n == 0 || n >= sizeof(seg))
            return NULL;
        memcpy(seg, p, n);
        seg[n] = '\0';
        v = json_object_get(v, seg);
        p += n;
    }
    return v;
}

/* Whether the node an error is about is unchanged between obj and old. */
static bool
unchanged(const json_t *obj, const json_t *old, const json_t *cause)
{
    const char *field = json_string_value(json_object_get(cause, "field"));
    const char *reason = json_string_value(json_object_get(cause, "reason"));
    char *parent = NULL;
    const json_t *a, *b;
    bool same;

    if (field == NULL || *field == '\0' || strcmp(field, "<nil>") == 0)
        return json_equal(obj, old);
    /* a missing field: what requires it is its parent */
    if (reason != NULL && strcmp(reason, "FieldValueRequired") == 0) {
        const char *cut = strrchr(field, '.');
        parent = cut ? strndup(field, (size_t)(cut - field)) : NULL;
        if (parent == NULL)
            return json_equal(obj, old);
        field = parent;
    }
    a = at_field_path(obj, field);
    b = at_field_path(old, field);
    same = a != NULL && b != NULL && json_equal(a, b);
    free(parent);
    return same;
}

void
gw_crd_ratchet(const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    size_t i = 0;

    if (old == NULL || errs->causes == NULL)
        return;
    while (i < json_array_size(errs->causes)) {
        if (unchanged(obj, old, json_array_get(errs->causes, i)))
            json_array_remove(errs->causes, i);
        else
            i++;
    }
    if (json_array_size(errs->causes) == 0)
        gw_ferr_clear(errs);
}
