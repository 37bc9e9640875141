/* Continue tokens: base64url (RFC 4648 section 5, no padding) of a small JSON document. */
#include "gw_continue.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_json.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *
b64url_encode(const unsigned char *in, size_t len)
{
    char *out = gw_malloc((len + 2) / 3 * 4 + 1), *w = out;

    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)in[i + 1] << 8;
        if (i + 2 < len)
            v |= in[i + 2];
        *w++ = b64[v >> 18];
        *w++ = b64[(v >> 12) & 63];
        if (i + 1 < len)
            *w++ = b64[(v >> 6) & 63];
        if (i + 2 < len)
            *w++ = b64[v & 63];
    }
    *w = '\0';
    return out;
}

/* Decode; on failure *bad is the offset of the offending byte (as Go reports it). */
static unsigned char *
b64url_decode(const char *in, size_t *len, size_t *bad)
{
    size_t n = strlen(in), bits = 0, o = 0;
    unsigned char *out = gw_malloc(n * 3 / 4 + 1);
    unsigned acc = 0;

    for (size_t i = 0; i < n; i++) {
        const char *p = in[i] != '\0' ? strchr(b64, in[i]) : NULL;
        if (p == NULL) {
            *bad = i;
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (unsigned)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    /* A lone trailing character, or leftover bits that are not zero, is not valid. */
    if (n % 4 == 1 || (acc & ((1u << bits) - 1)) != 0) {
        *bad = n - 1;
        free(out);
        return NULL;
    }
    *len = o;
    return out;
}

char *
gw_continue_encode(int64_t revision, const char *start)
{
    json_t *doc = json_pack("{s:s,s:I,s:s}", "v", "meta.k8s.io/v1", "rv", (json_int_t)revision,
                            "start", start);
    char *text = gw_json_dumps(doc, JSON_COMPACT);
    char *out = b64url_encode((const unsigned char *)text, strlen(text));

    free(text);
    json_decref(doc);
    return out;
}

static int invalid(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
invalid(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, err_len, "continue key is not valid");

    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < err_len)
        vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
    va_end(ap);
    return GW_EINVAL;
}

/* Whether "/"+key is what Go's path.Clean leaves unchanged: no empty, "." or ".." segments
 * and no trailing '/', so the key cannot climb out of the collection. */
static bool
clean(const char *key)
{
    const char *seg = key;

    if (key[0] == '\0')
        return true;
    for (const char *p = key;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        size_t n = (size_t)(p - seg);
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return false;
        if (*p == '\0')
            return true;
        seg = p + 1;
    }
}

static int
decode_doc(const json_t *doc, int64_t *revision, char **start, char *err, size_t err_len)
{
    const char *v = json_string_value(json_object_get(doc, "v"));
    const json_t *rv = json_object_get(doc, "rv");
    const char *key = json_string_value(json_object_get(doc, "start"));

    if (v == NULL || strcmp(v, "meta.k8s.io/v1") != 0)
        return invalid(err, err_len, ": server does not recognize this encoded version %s",
                       v ? v : "");
    if (rv != NULL && !json_is_integer(rv))
        return invalid(err, err_len, ": cannot decode rv");
    if (json_integer_value(rv) == 0)
        return invalid(err, err_len,
                       ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    if (key == NULL || key[0] == '\0')
        return invalid(err, err_len, ": encoded start key empty (version meta.k8s.io/v1)");
    if (key[0] == '/')
        key++;
    if (!clean(key))
        return invalid(err, err_len, ": %s", json_string_value(json_object_get(doc, "start")));
    *revision = json_integer_value(rv) < 0 ? -1 : json_integer_value(rv);
    *start = gw_strdup(key);
    return 0;
}

int
gw_continue_decode(const char *token, int64_t *revision, char **start, char *err, size_t err_len)
{
    size_t len, bad = 0;
    unsigned char *raw = b64url_decode(token, &len, &bad);
    json_error_t jerr;
    json_t *doc;
    int rc;

    if (raw == NULL)
        return invalid(err, err_len,
                       ": incorrect encoded start resourceVersion (version meta.k8s.io/v1): "
                       "illegal base64 data at input byte %zu",
                       bad);
    doc = gw_json_loadb((const char *)raw, len, 0, &jerr);
    free(raw);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return invalid(err, err_len, ": %s", doc ? "not an object" : jerr.text);
    }
    rc = decode_doc(doc, revision, start, err, err_len);
    json_decref(doc);
    return rc;
}
