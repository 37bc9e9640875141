/* Writing CBOR as apimachinery's serializer does (internal/modes/encode.go of kube v1.32).
 *
 * Our own small encoder rather than libcbor: the subset is what JSON can hold (maps, arrays,
 * byte strings, integers, floats, true/false/null, one tag), kube's rules (all strings as
 * byte strings, bytewise-lexical key order, shortest float16/32/64) would have to be layered
 * over libcbor's item trees anyway, and writing straight into one growing buffer needs no
 * allocation per item. */
#include "gw_cbor.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_cbor_int.h"
#include "gw_err.h"
#include "gw_protobuf_int.h"

typedef struct {
    gw_protobuf__buf_t b;
    char *err;
    size_t err_len;
} ce_enc_t;

/* The head of a data item in its shortest form (RFC 8949 4.2.1). */
static void
ce_put_head(gw_protobuf__buf_t *b, int major, uint64_t v)
{
    uint8_t h[9];
    size_t n;

    h[0] = (uint8_t)(major << 5);
    if (v < 24) {
        h[0] |= (uint8_t)v;
        n = 1;
    } else if (v <= 0xff) {
        h[0] |= 24;
        n = 2;
    } else if (v <= 0xffff) {
        h[0] |= 25;
        n = 3;
    } else if (v <= 0xffffffffu) {
        h[0] |= 26;
        n = 5;
    } else {
        h[0] |= 27;
        n = 9;
    }
    for (size_t i = 1; i < n; i++)
        h[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    gw_protobuf__put(b, h, n);
}

static void
ce_put_int(gw_protobuf__buf_t *b, json_int_t v)
{
    if (v >= 0)
        ce_put_head(b, GW_CBOR__UINT, (uint64_t)v);
    else
        ce_put_head(b, GW_CBOR__NEGINT, (uint64_t)(-(v + 1)));
}

/* The float16 bits of f when it is exactly representable (subnormals included). */
static bool
ce_half_of(float f, uint16_t *out)
{
    uint32_t bits;
    uint16_t sign;
    int exp;
    uint32_t mant;

    memcpy(&bits, &f, sizeof(bits));
    sign = (uint16_t)((bits >> 16) & 0x8000);
    exp = (int)((bits >> 23) & 0xff) - 127;
    mant = bits & 0x7fffff;
    if ((bits & 0x7fffffff) == 0) {
        *out = sign;
        return true;
    }
    if (exp >= -14 && exp <= 15) {
        if (mant & 0x1fff)
            return false;
        *out = (uint16_t)(sign | (uint16_t)((exp + 15) << 10) | (uint16_t)(mant >> 13));
        return true;
    }
    if (exp >= -24 && exp < -14) {
        int shift = -1 - exp; /* 14..23: the bits below float16's smallest subnormal */
        uint32_t full = 0x800000 | mant;
        if (full & ((1u << shift) - 1))
            return false;
        *out = (uint16_t)(sign | (full >> shift));
        return true;
    }
    return false;
}

/* ShortestFloat16: the narrowest IEEE 754 width that keeps the value. */
static void
ce_put_float(gw_protobuf__buf_t *b, double d)
{
    float f = (float)d;
    uint8_t h[9];
    uint16_t half;

    if ((double)f == d && ce_half_of(f, &half)) {
        h[0] = 0xf9;
        h[1] = (uint8_t)(half >> 8);
        h[2] = (uint8_t)half;
        gw_protobuf__put(b, h, 3);
    } else if ((double)f == d) {
        uint32_t bits;
        memcpy(&bits, &f, sizeof(bits));
        h[0] = 0xfa;
        for (int i = 0; i < 4; i++)
            h[1 + i] = (uint8_t)(bits >> (24 - 8 * i));
        gw_protobuf__put(b, h, 5);
    } else {
        uint64_t bits;
        memcpy(&bits, &d, sizeof(bits));
        h[0] = 0xfb;
        for (int i = 0; i < 8; i++)
            h[1 + i] = (uint8_t)(bits >> (56 - 8 * i));
        gw_protobuf__put(b, h, 9);
    }
}

static void
ce_put_bytes(gw_protobuf__buf_t *b, const void *p, size_t n)
{
    ce_put_head(b, GW_CBOR__BYTES, n);
    gw_protobuf__put(b, p, n);
}

static bool
ce_is_byte_format(const gw_schema_t *s)
{
    return s != NULL && s->type == GW_SCHEMA_STRING && s->format != NULL &&
           strcmp(s->format, "byte") == 0;
}

/* The schema of property `key` of an object, or of any value of a map. */
static const gw_schema_t *
ce_child_schema(const gw_schema_t *s, const char *key)
{
    const gw_schema_field_t *f;

    if (s == NULL)
        return NULL;
    if (s->type == GW_SCHEMA_MAP)
        return s->values;
    if (s->type != GW_SCHEMA_OBJECT)
        return NULL;
    f = gw_schema_field(s, key);
    return f != NULL ? f->schema : NULL;
}

typedef struct {
    const char *key;
    size_t len;
    json_t *value;
} ce_entry_t;

/* Bytewise-lexical order of the encoded keys: every key is a byte string, whose head grows
   with its length, so shorter keys come first and keys of one length compare bytewise. */
static int
ce_entry_cmp(const void *a, const void *b)
{
    const ce_entry_t *x = a, *y = b;

    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->key, y->key, x->len);
}

static int ce_put_value(ce_enc_t *e, const json_t *v, const gw_schema_t *s);

static int
ce_put_object(ce_enc_t *e, const json_t *v, const gw_schema_t *s)
{
    size_t n = json_object_size(v), i = 0;
    ce_entry_t *es = gw_calloc(n ? n : 1, sizeof(*es));
    void *it;
    int rc = 0;

    for (it = json_object_iter((json_t *)v); it != NULL;
         it = json_object_iter_next((json_t *)v, it)) {
        es[i].key = json_object_iter_key(it);
        es[i].len = json_object_iter_key_len(it);
        es[i].value = json_object_iter_value(it);
        i++;
    }
    qsort(es, n, sizeof(*es), ce_entry_cmp);
    ce_put_head(&e->b, GW_CBOR__MAP, n);
    for (i = 0; i < n && rc == 0; i++) {
        ce_put_bytes(&e->b, es[i].key, es[i].len);
        rc = ce_put_value(e, es[i].value, ce_child_schema(s, es[i].key));
    }
    free(es);
    return rc;
}

/* A Go []byte: tag 22 over the bytes the base64 stands for. */
static int
ce_put_byte_slice(ce_enc_t *e, const json_t *v)
{
    uint8_t *raw;
    size_t n;

    if (!gw_protobuf__unbase64(json_string_value(v), json_string_length(v), &raw, &n)) {
        snprintf(e->err, e->err_len, "illegal base64 data in a []byte field");
        return GW_EINVAL;
    }
    ce_put_head(&e->b, GW_CBOR__TAG, GW_CBOR__TAG_BASE64_LATER);
    ce_put_bytes(&e->b, raw, n);
    free(raw);
    return 0;
}

static int
ce_put_number(ce_enc_t *e, const json_t *v, const gw_schema_t *s)
{
    double d = json_number_value(v);

    if (json_is_integer(v) && !(s != NULL && s->type == GW_SCHEMA_NUMBER)) {
        ce_put_int(&e->b, json_integer_value(v));
        return 0;
    }
    /* NaNConvertReject, InfConvertReject: what encoding/json refuses too. */
    if (isnan(d) || isinf(d)) {
        snprintf(e->err, e->err_len, "cbor: unsupported value: %s", isnan(d) ? "NaN" : "Inf");
        return GW_EINVAL;
    }
    ce_put_float(&e->b, d);
    return 0;
}

static int
ce_put_value(ce_enc_t *e, const json_t *v, const gw_schema_t *s)
{
    size_t i;
    json_t *x;
    int rc = 0;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return ce_put_object(e, v, s);
    case JSON_ARRAY:
        ce_put_head(&e->b, GW_CBOR__ARRAY, json_array_size(v));
        json_array_foreach(v, i, x)
        {
            rc = ce_put_value(e, x, s != NULL && s->type == GW_SCHEMA_ARRAY ? s->items : NULL);
            if (rc != 0)
                return rc;
        }
        return 0;
    case JSON_STRING:
        if (ce_is_byte_format(s))
            return ce_put_byte_slice(e, v);
        ce_put_bytes(&e->b, json_string_value(v), json_string_length(v));
        return 0;
    case JSON_INTEGER:
    case JSON_REAL:
        return ce_put_number(e, v, s);
    case JSON_TRUE:
        gw_protobuf__put(&e->b, "\xf5", 1);
        return 0;
    case JSON_FALSE:
        gw_protobuf__put(&e->b, "\xf4", 1);
        return 0;
    default:
        gw_protobuf__put(&e->b, "\xf6", 1);
        return 0;
    }
}

int
gw_cbor_encode(const json_t *doc, const gw_schema_t *s, uint8_t **out, size_t *len, char *err,
               size_t err_len)
{
    ce_enc_t e = {.err = err, .err_len = err_len};
    int rc;

    gw_protobuf__put(&e.b, GW_CBOR_SELF_DESCRIBED, GW_CBOR_SELF_DESCRIBED_LEN);
    rc = ce_put_value(&e, doc, s);
    if (rc != 0) {
        gw_buf_free(&e.b);
        return rc;
    }
    *len = e.b.len;
    *out = (uint8_t *)gw_buf_take(&e.b);
    return 0;
}

uint8_t *
gw_cbor_encode_watch_event(const char *type, const uint8_t *object, size_t object_len, size_t *len)
{
    gw_protobuf__buf_t b = {0};

    /* metav1.WatchEvent's keys in bytewise-lexical order: "type" (4 bytes) before "object". */
    gw_protobuf__put(&b, GW_CBOR_SELF_DESCRIBED, GW_CBOR_SELF_DESCRIBED_LEN);
    ce_put_head(&b, GW_CBOR__MAP, 2);
    ce_put_bytes(&b, "type", 4);
    ce_put_bytes(&b, type, strlen(type));
    ce_put_bytes(&b, "object", 6);
    gw_protobuf__put(&b, object, object_len);
    *len = b.len;
    return (uint8_t *)gw_buf_take(&b);
}
