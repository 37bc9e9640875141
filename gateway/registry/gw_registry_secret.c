/*
 * Secrets: the write-only stringData and the validation of data (pkg/apis/core/v1's
 * Convert_v1_Secret_To_core_Secret and pkg/apis/core/validation's ValidateSecret).
 *
 * kube merges stringData into data while it converts the decoded v1 object to its internal
 * type, which has no stringData: so every write (create, update, each kind of patch, apply)
 * stores the merge and never stringData itself, and validation sees the merged keys.
 */
#include "gw_registry_int.h"

#include <string.h>

#include "gw_alloc.h"
#include "gw_names.h"

/* core.MaxSecretSize */
#define MAX_SECRET_SIZE (1024 * 1024)

/* Standard base64 with padding, as encoding/json writes a []byte. Caller frees. */
static char *
base64(const unsigned char *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = gw_malloc((n + 2) / 3 * 4 + 1), *w = out;

    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        *w++ = tab[(v >> 18) & 63];
        *w++ = tab[(v >> 12) & 63];
        *w++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        *w++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *w = '\0';
    return out;
}

void
gw_registry__secret_prepare(json_t *obj)
{
    json_t *string_data = json_object_get(obj, "stringData"), *data, *v;
    const char *k;

    if (json_is_object(string_data) && json_object_size(string_data) > 0) {
        data = json_object_get(obj, "data");
        if (!json_is_object(data)) {
            data = json_object();
            json_object_set_new(obj, "data", data);
        }
        /* stringData wins over data for the same key */
        json_object_foreach(string_data, k, v)
        {
            const char *s = json_string_value(v);
            char *enc = base64((const unsigned char *)(s ? s : ""), s ? json_string_length(v) : 0);
            json_object_set_new(data, k, json_string(enc));
            free(enc);
        }
    }
    json_object_del(obj, "stringData");
}

/* The number of bytes a base64 value decodes to (the value was checked when decoded). */
static size_t
decoded_len(const json_t *v)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v), pad = 0, chars = 0;

    for (size_t i = 0; s != NULL && i < n; i++) {
        if (s[i] == '=')
            pad++;
        else if (s[i] != '\r' && s[i] != '\n')
            chars++;
    }
    return (chars + pad) / 4 * 3 - (pad > 2 ? 2 : pad);
}

void
gw_registry__secret_validate(const json_t *obj, gw_field_errors_t *errs)
{
    const json_t *data = json_object_get(obj, "data");
    size_t total = 0;
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)data, k, v)
    {
        const char *msgs[3];
        size_t n = gw_valid_config_map_key(k, msgs);
        char *field = NULL;

        for (size_t i = 0; i < n; i++) {
            if (field == NULL)
                field = gw_sprintf("data[%s]", k);
            gw_ferr_invalid_str(errs, field, k, msgs[i]);
        }
        free(field);
        total += decoded_len(v);
    }
    if (total > MAX_SECRET_SIZE)
        gw_ferr_too_long(errs, "data", MAX_SECRET_SIZE);
}
