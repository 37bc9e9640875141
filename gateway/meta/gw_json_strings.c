/* JSON arrays of strings to and from C string lists. */
#include "gw_json_strings.h"

#include <string.h>

#include "gw_alloc.h"

json_t *
gw_json_strings_(const char *const *v, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

json_t *
gw_json_strings_nt_(const char *const *v)
{
    size_t n = 0;

    while (v != NULL && v[n] != NULL)
        n++;
    return gw_json_strings_(v, n);
}

bool
gw_json_strings_has(const json_t *arr, const char *s)
{
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *v = json_string_value(json_array_get(arr, i));
        if (v != NULL && strcmp(v, s) == 0)
            return true;
    }
    return false;
}

char **
gw_json_strings_dup(const json_t *arr, size_t *n)
{
    char **out = gw_calloc(json_array_size(arr) + 1, sizeof(*out));

    *n = 0;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *v = json_array_get(arr, i);
        if (json_is_string(v))
            out[(*n)++] = gw_strdup(json_string_value(v));
    }
    return out;
}

json_t *
gw_json_child(json_t *o, const char *name)
{
    json_t *c = json_object_get(o, name);

    if (!json_is_object(c)) {
        c = json_object();
        json_object_set_new(o, name, c);
    }
    return c;
}

json_t *
gw_json_strings_at(const json_t *o, const char *a, const char *b)
{
    json_t *arr = json_object_get(json_object_get(o, a), b);

    return json_is_array(arr) ? arr : NULL;
}

size_t
gw_json_strings_count_at(const json_t *o, const char *a, const char *b)
{
    return json_array_size(gw_json_strings_at(o, a, b));
}

bool
gw_json_strings_remove_at(json_t *o, const char *a, const char *b, const char *s)
{
    json_t *arr = gw_json_strings_at(o, a, b);
    bool removed = false;

    for (size_t i = json_array_size(arr); i-- > 0;) {
        json_t *v = json_array_get(arr, i);
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0) {
            json_array_remove(arr, i);
            removed = true;
        }
    }
    return removed;
}

bool
gw_json_strings_add_at(json_t *o, const char *a, const char *b, const char *s)
{
    json_t *parent = gw_json_child(o, a);
    json_t *arr = json_object_get(parent, b);

    if (!json_is_array(arr)) {
        arr = json_array();
        json_object_set_new(parent, b, arr);
    }
    if (gw_json_strings_has(arr, s))
        return false;
    json_array_append_new(arr, json_string(s));
    return true;
}
