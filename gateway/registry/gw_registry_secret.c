/*
 * Secrets: the write-only stringData and validation (pkg/apis/core/v1's
 * Convert_v1_Secret_To_core_Secret, pkg/apis/core/validation's ValidateSecret and
 * ValidateSecretUpdate past the metadata).
 *
 * kube merges stringData into data while it converts the decoded v1 object to its internal
 * type, which has no stringData: so every write (create, update, each kind of patch, apply)
 * stores the merge and never stringData itself, and validation sees the merged keys.
 */
#include "gw_registry_int.h"

#include <string.h>

#include "gw_alloc.h"
#include "gw_gojson.h"
#include "gw_names.h"

/* core.ServiceAccountNameKey */
#define SA_NAME_KEY "kubernetes.io/service-account.name"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Standard base64 with padding, as encoding/json writes a []byte. Caller frees. */
static char *
base64(const unsigned char *p, size_t n)
{
    const char *tab = B64;
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

size_t
gw_registry__bytes_len(const json_t *v)
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

/* The bytes of a []byte's base64 value (checked when the body was decoded; Go's decoder skips
 * \r and \n); *len is their number. Caller frees. */
static unsigned char *
unbase64(const json_t *v, size_t *len)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    unsigned char *out = gw_malloc(n / 4 * 3 + 3), *w = out;
    unsigned acc = 0, bits = 0;

    for (size_t i = 0; s != NULL && i < n && s[i] != '='; i++) {
        const char *p = strchr(B64, s[i]);
        if (s[i] == '\0' || p == NULL)
            continue;
        acc = (acc << 6) | (unsigned)(p - B64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            *w++ = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    *len = (size_t)(w - out);
    return out;
}

/* Two []byte values hold the same bytes (their base64 texts may differ in line breaks). */
static bool
same_bytes(const json_t *a, const json_t *b)
{
    size_t na, nb;
    unsigned char *pa, *pb;
    bool same;

    if (json_is_string(a) && json_is_string(b) && json_equal(a, b))
        return true;
    pa = unbase64(a, &na);
    pb = unbase64(b, &nb);
    same = na == nb && memcmp(pa, pb, na) == 0;
    free(pa);
    free(pb);
    return same;
}

/* kube compares with reflect.DeepEqual, where a nil map differs from an empty one; but it
 * reads an empty map back from storage as nil, while kgate keeps the `{}` it was sent: absent
 * and empty are taken as equal on both sides, so no unchanged update is ever refused. */
bool
gw_registry__bytes_maps_equal(const json_t *a, const json_t *b)
{
    const char *k;
    json_t *v;

    if (json_object_size(a) != json_object_size(b))
        return false;
    json_object_foreach((json_t *)a, k, v)
    {
        const json_t *w = json_object_get(b, k);
        if (w == NULL || !same_bytes(v, w))
            return false;
    }
    return true;
}

/* ValidateSecret's data rules: every key IsConfigMapKey, the decoded values 1 MiB at most. */
static void
validate_data(const json_t *data, gw_field_errors_t *errs)
{
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
        total += gw_registry__bytes_len(v);
    }
    if (total > GW_MAX_SECRET_SIZE)
        gw_ferr_too_long(errs, "data", GW_MAX_SECRET_SIZE);
}

/* A docker config key: required, and its bytes must unmarshal into a map[string]interface{}
 * (the message is Go's; the value is never shown). */
static void
validate_docker_config(const json_t *data, const char *key, gw_field_errors_t *errs)
{
    const json_t *v = json_object_get(data, key);
    char *field = gw_sprintf("data[%s]", key), *msg;
    unsigned char *bytes;
    size_t n;

    if (v == NULL) {
        gw_ferr_required(errs, field, NULL);
    } else {
        bytes = unbase64(v, &n);
        msg = gw_gojson_unmarshal_map(bytes, n);
        if (msg != NULL)
            gw_ferr_invalid_str(errs, field, "<secret contents redacted>", msg);
        free(msg);
        free(bytes);
    }
    free(field);
}

/* A data key the type requires: present (and, with non_empty, not empty). */
static void
require_key(const json_t *data, const char *key, bool non_empty, gw_field_errors_t *errs)
{
    const json_t *v = json_object_get(data, key);
    char *field;

    if (v != NULL && (!non_empty || gw_registry__bytes_len(v) > 0))
        return;
    field = gw_sprintf("data[%s]", key);
    gw_ferr_required(errs, field, NULL);
    free(field);
}

/* The switch on the type at the end of ValidateSecret; Opaque, "" and any other type: nothing
 * more. */
static void
validate_type(const json_t *obj, const char *type, gw_field_errors_t *errs)
{
    const json_t *data = json_object_get(obj, "data");
    const json_t *ann = json_object_get(json_object_get(obj, "metadata"), "annotations");

    if (strcmp(type, "kubernetes.io/service-account-token") == 0) {
        /* the controller adds the token and the account's uid later */
        if (json_string_length(json_object_get(ann, SA_NAME_KEY)) == 0)
            gw_ferr_required(errs, "metadata.annotations[" SA_NAME_KEY "]", NULL);
    } else if (strcmp(type, "kubernetes.io/dockercfg") == 0) {
        validate_docker_config(data, ".dockercfg", errs);
    } else if (strcmp(type, "kubernetes.io/dockerconfigjson") == 0) {
        validate_docker_config(data, ".dockerconfigjson", errs);
    } else if (strcmp(type, "kubernetes.io/basic-auth") == 0) {
        /* either may be empty, but one must be there */
        if (json_object_get(data, "username") == NULL &&
            json_object_get(data, "password") == NULL) {
            gw_ferr_required(errs, "data[username]", NULL);
            gw_ferr_required(errs, "data[password]", NULL);
        }
    } else if (strcmp(type, "kubernetes.io/ssh-auth") == 0) {
        require_key(data, "ssh-privatekey", true, errs);
    } else if (strcmp(type, "kubernetes.io/tls") == 0) {
        require_key(data, "tls.crt", false, errs);
        require_key(data, "tls.key", false, errs);
    }
}

static const char *
type_of(const json_t *obj)
{
    const char *t = json_string_value(json_object_get(obj, "type"));
    return t != NULL ? t : "";
}

bool
gw_registry__immutable_kept(const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    if (!json_is_true(json_object_get(old, "immutable")))
        return false;
    if (!json_is_true(json_object_get(obj, "immutable")))
        gw_ferr_forbidden(errs, "immutable", GW_IMMUTABLE_WHEN_SET);
    return true;
}

void
gw_registry__secret_validate(const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    const json_t *data = json_object_get(obj, "data");

    /* ValidateSecretUpdate's own rules come first, then all of ValidateSecret */
    if (old != NULL) {
        if (strcmp(type_of(obj), type_of(old)) != 0)
            gw_ferr_invalid_str(errs, "type", type_of(obj), "field is immutable");
        /* stringData is already merged into data here */
        if (gw_registry__immutable_kept(obj, old, errs) &&
            !gw_registry__bytes_maps_equal(data, json_object_get(old, "data")))
            gw_ferr_forbidden(errs, "data", GW_IMMUTABLE_WHEN_SET);
    }
    validate_data(data, errs);
    validate_type(obj, type_of(obj), errs);
}

/* ---- the strategy ------------------------------------------------------------------------- */

/* Converting a Secret to kube's internal type merges stringData, on every create and update. */
static void
strategy_prepare_create(const gw_resource_t *res, const authn_user_t *user, json_t *obj)
{
    (void)res;
    (void)user;
    gw_registry__secret_prepare(obj);
}

static void
strategy_prepare_update(const gw_resource_t *res, json_t *obj, const json_t *old)
{
    (void)res;
    (void)old;
    gw_registry__secret_prepare(obj);
}

static void
strategy_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                  gw_field_errors_t *errs)
{
    (void)res;
    gw_registry__secret_validate(obj, old, errs);
}

const gw_strategy_t gw_strategy_secret = {
    .name = "secret",
    .prepare_create = strategy_prepare_create,
    .prepare_update = strategy_prepare_update,
    .validate = strategy_validate,
};
