/* kube's x-kubernetes-list-type invariants of a custom object (schema/listtype/validation.go):
 * a set's items are unique, a map's items are objects with unique keys. */
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd_schema_int.h"
#include "gw_crd_schema.h"

static void lists_node(const json_t *v, const gw_schema_t *s, const char *path,
                       gw_field_errors_t *errs);

static char *
index_path(const char *path, size_t i)
{
    return gw_sprintf("%s[%zu]", path, i);
}

static void
duplicate(gw_field_errors_t *errs, const char *path, size_t i, const json_t *value)
{
    char *p = index_path(path, i), *v = gw_crd__show(value);
    char *msg = gw_sprintf("Duplicate value: %s", v);
    gw_ferr_add(errs, "FieldValueDuplicate", p, msg);
    free(msg);
    free(v);
    free(p);
}

/* validateListSet: the second appearance of each value (compound values by their JSON). */
static void
check_set(const json_t *arr, const char *path, gw_field_errors_t *errs)
{
    size_t n = json_array_size(arr);
    for (size_t i = 1; i < n; i++) {
        const json_t *x = json_array_get(arr, i);
        size_t seen = 0;
        for (size_t j = 0; j < i && seen < 2; j++)
            seen += json_equal(x, json_array_get(arr, j));
        if (seen == 1)
            duplicate(errs, path, i, x);
    }
}

/* A map item's key: its value of each key field, else the field's default, else {} (kube's
   unspecified key). */
static json_t *
item_key(const json_t *item, const gw_schema_t *s)
{
    json_t *key = json_object();
    for (size_t k = 0; k < s->n_list_map_keys; k++) {
        const char *name = s->list_map_keys[k];
        const json_t *v = json_object_get(item, name);
        const gw_schema_field_t *f = s->items != NULL ? gw_schema_field(s->items, name) : NULL;
        const json_t *d =
            f != NULL && f->schema->rules != NULL ? f->schema->rules->default_value : NULL;
        json_object_set_new(key, name,
                            v != NULL   ? json_deep_copy(v)
                            : d != NULL ? json_deep_copy(d)
                                        : json_object());
    }
    return key;
}

/* validateListMap: objects (or null) only, then every later item whose keys repeat. */
static void
check_map(const json_t *arr, const gw_schema_t *s, const char *path, gw_field_errors_t *errs)
{
    size_t n = json_array_size(arr);
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(arr, i);
        if (!json_is_null(x) && !json_is_object(x)) {
            char *p = index_path(path, i);
            gw_ferr_invalid(errs, p, x, "must be an object for an array of list-type map");
            free(p);
            return;
        }
    }
    json_t **keys = gw_calloc(n + 1, sizeof(*keys));
    for (size_t i = 0; i < n; i++) {
        if (json_is_null(json_array_get(arr, i)))
            continue;
        keys[i] = item_key(json_array_get(arr, i), s);
        for (size_t j = 0; j < i; j++)
            if (keys[j] != NULL && json_equal(keys[i], keys[j])) {
                duplicate(errs, path, i, keys[i]);
                break;
            }
    }
    for (size_t i = 0; i < n; i++)
        json_decref(keys[i]);
    free(keys);
}

static void
lists_array(const json_t *arr, const gw_schema_t *s, const char *path, gw_field_errors_t *errs)
{
    const char *lt = s->list_type != NULL ? s->list_type : "";
    if (strcmp(lt, "set") == 0 && json_array_size(arr) > 1)
        check_set(arr, path, errs);
    else if (strcmp(lt, "map") == 0)
        check_map(arr, s, path, errs);
    for (size_t i = 0; s->items != NULL && i < json_array_size(arr); i++) {
        char *p = index_path(path, i);
        lists_node(json_array_get(arr, i), s->items, p, errs);
        free(p);
    }
}

static void
lists_node(const json_t *v, const gw_schema_t *s, const char *path, gw_field_errors_t *errs)
{
    const char *key;
    const json_t *val;
    if (s == NULL || s->rules == NULL)
        return;
    if (json_is_array(v)) {
        lists_array(v, s, path, errs);
        return;
    }
    json_object_foreach((json_t *)v, key, val)
    {
        const gw_schema_field_t *f = gw_schema_field(s, key);
        const gw_schema_t *ms = f != NULL ? f->schema : s->values;
        if (ms == NULL)
            continue;
        char *p = path[0] != '\0' ? gw_sprintf("%s.%s", path, key) : gw_strdup(key);
        lists_node(val, ms, p, errs);
        free(p);
    }
}

void
gw_crd__validate_lists(const gw_schema_t *root, const json_t *obj, gw_field_errors_t *errs)
{
    lists_node(obj, root, "", errs);
}
