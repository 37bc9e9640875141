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
