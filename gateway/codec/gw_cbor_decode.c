/* Reading CBOR as apimachinery's decoder does into Unstructured (internal/modes/decode.go of
 * kube v1.32 over fxamacker/cbor v2.7). Two passes, as fxamacker makes them: one checks that
 * the input is one well-formed item within the limits (so those errors win, wherever they
 * sit), the other builds the JSON. Recursion is bounded by the nesting limit; every item costs
 * at least one input byte, so the output is bounded by the input. */
#include "gw_cbor.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_protobuf_int.h"

enum {
    MT_UINT = 0,
    MT_NEGINT = 1,
    MT_BYTES = 2,
    MT_TEXT = 3,
    MT_ARRAY = 4,
    MT_MAP = 5,
    MT_TAG = 6,
    MT_SIMPLE = 7,
};

enum {
    TAG_RFC3339 = 0,
    TAG_EPOCH = 1,
    TAG_BIGNUM = 2,
    TAG_NEG_BIGNUM = 3,
    TAG_BASE64URL_LATER = 21,
    TAG_BASE64_LATER = 22,
    TAG_BASE16_LATER = 23,
};

typedef struct {
    const uint8_t *p;
    size_t n, off;
    char *err;
    size_t err_len;
    bool failed;
    bool deferred; /* a type mismatch: fxamacker finishes the item, then reports the first */
} dec_t;

/* fxamacker's names of the major types, as its messages print them. */
static const char *const type_names[] = {
    "positive integer",
    "negative integer",
    "byte string",
    "UTF-8 text string",
    "array",
    "map",
    "tag",
    "primitives",
};

static bool fail(dec_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool
fail(dec_t *d, const char *fmt, ...)
{
    va_list ap;

    if (!d->failed) {
        va_start(ap, fmt);
        vsnprintf(d->err, d->err_len, fmt, ap);
        va_end(ap);
    }
    d->failed = true;
    return false;
}

/* An UnmarshalTypeError: remembered, the decode goes on, and it is reported at the end unless
   a harder error comes first. */
static void defer_type_error(dec_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
defer_type_error(dec_t *d, const char *fmt, ...)
{
    va_list ap;

    if (d->deferred || d->failed)
        return;
    va_start(ap, fmt);
    vsnprintf(d->err, d->err_len, fmt, ap);
    va_end(ap);
    d->deferred = true;
}

/* ---- pass 1: well-formedness and limits (fxamacker's valid.go) ---------------------------- */

static bool
wf_head(dec_t *d, int *major, int *ai, uint64_t *val)
{
    size_t left = d->n - d->off, width;
    uint8_t b;

    if (left == 0)
        return fail(d, "unexpected EOF");
    b = d->p[d->off++];
    *major = b >> 5;
    *ai = b & 0x1f;
    *val = (uint64_t)*ai;
    if (*ai < 24)
        return true;
    if (*ai <= 27) {
        width = (size_t)1 << (*ai - 24);
        if (left < 1 + width)
            return fail(d, "unexpected EOF");
        *val = 0;
        for (size_t i = 0; i < width; i++)
            *val = *val << 8 | d->p[d->off++];
        if (*ai == 24 && *major == MT_SIMPLE && *val < 32)
            return fail(d, "cbor: invalid simple value %d for type primitives", (int)*val);
        return true;
    }
    if (*ai == 31) {
        if (*major == MT_UINT || *major == MT_NEGINT || *major == MT_TAG)
            return fail(d, "cbor: invalid additional information 31 for type %s",
                        type_names[*major]);
        if (*major == MT_SIMPLE)
            return fail(d, "cbor: unexpected \"break\" code");
        return true;
    }
    return fail(d, "cbor: invalid additional information %d for type %s", *ai, type_names[*major]);
}

static bool wf_item(dec_t *d, int depth);

static bool
wf_indefinite_string(dec_t *d, int major, int depth)
{
    for (;;) {
        if (d->off == d->n)
            return fail(d, "unexpected EOF");
        if (d->p[d->off] == 0xff) {
            d->off++;
            return true;
        }
        if (d->p[d->off] >> 5 != major)
            return fail(d, "cbor: wrong element type %s for indefinite-length %s",
                        type_names[d->p[d->off] >> 5], type_names[major]);
        if ((d->p[d->off] & 0x1f) == 31)
            return fail(d, "cbor: indefinite-length %s chunk is not definite-length",
                        type_names[major]);
        if (!wf_item(d, depth))
            return false;
    }
}

static bool
wf_indefinite_container(dec_t *d, int major, int depth)
{
    size_t i = 0;

    for (;;) {
        if (d->off == d->n)
            return fail(d, "unexpected EOF");
        if (d->p[d->off] == 0xff) {
            d->off++;
            break;
        }
        if (!wf_item(d, depth))
            return false;
        i++;
        if (major == MT_ARRAY && i > GW_CBOR_MAX_ELEMENTS)
            return fail(d, "cbor: exceeded max number of elements %d for CBOR array",
                        GW_CBOR_MAX_ELEMENTS);
        if (major == MT_MAP && i % 2 == 0 && i / 2 > GW_CBOR_MAX_ELEMENTS)
            return fail(d, "cbor: exceeded max number of key-value pairs %d for CBOR map",
                        GW_CBOR_MAX_ELEMENTS);
    }
    if (major == MT_MAP && i % 2 == 1)
        return fail(d, "cbor: unexpected \"break\" code");
    return true;
}

static bool
wf_container(dec_t *d, int major, int ai, uint64_t val, int depth)
{
    if (++depth > GW_CBOR_MAX_DEPTH)
        return fail(d, "cbor: exceeded max nested level %d", GW_CBOR_MAX_DEPTH);
    if (ai == 31)
        return wf_indefinite_container(d, major, depth);
    if (val > INT64_MAX)
        return fail(d, "cbor: %s length %" PRIu64 " is too large, it would cause integer overflow",
                    type_names[major], val);
    if (major == MT_ARRAY && val > GW_CBOR_MAX_ELEMENTS)
        return fail(d, "cbor: exceeded max number of elements %d for CBOR array",
                    GW_CBOR_MAX_ELEMENTS);
    if (major == MT_MAP && val > GW_CBOR_MAX_ELEMENTS)
        return fail(d, "cbor: exceeded max number of key-value pairs %d for CBOR map",
                    GW_CBOR_MAX_ELEMENTS);
    for (uint64_t i = 0; i < (major == MT_MAP ? 2 * val : val); i++)
        if (!wf_item(d, depth))
            return false;
    return true;
}

static bool
wf_item(dec_t *d, int depth)
{
    int major, ai;
    uint64_t val;

    if (!wf_head(d, &major, &ai, &val))
        return false;
    switch (major) {
    case MT_BYTES:
    case MT_TEXT:
        if (ai == 31)
            return wf_indefinite_string(d, major, depth);
        if (val > INT64_MAX)
            return fail(d, "cbor: %s length %" PRIu64 " is too large, causing integer overflow",
                        type_names[major], val);
        if (d->n - d->off < val)
            return fail(d, "unexpected EOF");
        d->off += (size_t)val;
        return true;
    case MT_ARRAY:
    case MT_MAP:
        return wf_container(d, major, ai, val, depth);
    case MT_TAG:
        /* Nested tag numbers count as levels too. */
        for (;;) {
            if (d->off == d->n)
                return fail(d, "unexpected EOF");
            if (d->p[d->off] >> 5 != MT_TAG)
                break;
            if (!wf_head(d, &major, &ai, &val))
                return false;
            if (++depth > GW_CBOR_MAX_DEPTH)
                return fail(d, "cbor: exceeded max nested level %d", GW_CBOR_MAX_DEPTH);
        }
        return wf_item(d, depth);
    default:
        return true;
    }
}

/* ---- pass 2: the JSON value ---------------------------------------------------------------- */

/* The head at the cursor (already known to be well-formed). */
static void
head(dec_t *d, int *major, int *ai, uint64_t *val)
{
    uint8_t b = d->p[d->off++];

    *major = b >> 5;
    *ai = b & 0x1f;
    *val = (uint64_t)*ai;
    if (*ai >= 24 && *ai <= 27) {
        size_t width = (size_t)1 << (*ai - 24);
        *val = 0;
        for (size_t i = 0; i < width; i++)
            *val = *val << 8 | d->p[d->off++];
    }
}

/* The bytes of a byte or text string (chunks of an indefinite one joined) into *out, which the
   caller frees; *n its length. */
static void
string_bytes(dec_t *d, int ai, uint64_t val, uint8_t **out, size_t *n)
{
    gw_protobuf__buf_t b = {0};
    int major;

    if (ai != 31) {
        *n = (size_t)val;
        *out = gw_malloc(*n + 1);
        memcpy(*out, d->p + d->off, *n);
        d->off += (size_t)val;
        return;
    }
    while (d->p[d->off] != 0xff) {
        head(d, &major, &ai, &val);
        gw_protobuf__put(&b, d->p + d->off, (size_t)val);
        d->off += (size_t)val;
    }
    d->off++;
    *out = b.buf != NULL ? b.buf : gw_malloc(1);
    *n = b.len;
}

static json_t *
hex_string(const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *s = gw_malloc(2 * n + 1);
    json_t *v;

    for (size_t i = 0; i < n; i++) {
        s[2 * i] = digits[p[i] >> 4];
        s[2 * i + 1] = digits[p[i] & 15];
    }
    v = json_stringn(s, 2 * n);
    free(s);
    return v;
}

/* base64.RawURLEncoding: the URL alphabet, no padding. */
static json_t *
base64url_string(const uint8_t *p, size_t n)
{
    json_t *std = gw_protobuf__base64(p, n), *v;
    char *s = gw_strdup(json_string_value(std));
    size_t len = strlen(s);

    for (size_t i = 0; i < len; i++)
        s[i] = s[i] == '+' ? '-' : s[i] == '/' ? '_' : s[i];
    while (len > 0 && s[len - 1] == '=')
        len--;
    v = json_stringn(s, len);
    free(s);
    json_decref(std);
    return v;
}

/* A byte string as a Go string: the text its expected-later-encoding tag names, else the bytes
   themselves (invalid UTF-8 as U+FFFD, which is what kube's JSON shows of them). */
static json_t *
byte_string(dec_t *d, int ai, uint64_t val, int later)
{
    uint8_t *raw;
    size_t n;
    json_t *v;

    string_bytes(d, ai, val, &raw, &n);
    if (later == TAG_BASE64_LATER)
        v = gw_protobuf__base64(raw, n);
    else if (later == TAG_BASE64URL_LATER)
        v = base64url_string(raw, n);
    else if (later == TAG_BASE16_LATER)
        v = hex_string(raw, n);
    else
        v = gw_protobuf__string(raw, n);
    free(raw);
    return v;
}

static json_t *
text_string(dec_t *d, int ai, uint64_t val)
{
    uint8_t *raw;
    size_t n;
    json_t *v;

    string_bytes(d, ai, val, &raw, &n);
    v = json_stringn((const char *)raw, n);
    free(raw);
    if (v == NULL)
        fail(d, "cbor: invalid UTF-8 string");
    return v;
}

/* float16 bits to a double (RFC 8949 Appendix D). */
static double
half_value(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;

    if (exp == 0)
        v = ldexp(mant, -24);
    else if (exp != 31)
        v = ldexp(mant + 1024, exp - 25);
    else
        v = mant == 0 ? INFINITY : NAN;
    return h & 0x8000 ? -v : v;
}

static bool
float_value(dec_t *d, int ai, uint64_t val, double *out)
{
    if (ai == 25) {
        *out = half_value((uint16_t)val);
    } else if (ai == 26) {
        uint32_t bits = (uint32_t)val;
        float f;
        memcpy(&f, &bits, sizeof(f));
        *out = f;
    } else {
        memcpy(out, &val, sizeof(*out));
    }
    /* NaNDecodeForbidden, InfDecodeForbidden: JSON has neither. */
    if (isnan(*out))
        return fail(d, "cbor: data item of cbor type primitives is not accepted by protocol: "
                       "floating-point NaN");
    if (isinf(*out))
        return fail(d, "cbor: data item of cbor type primitives is not accepted by protocol: "
                       "floating-point infinity");
    return true;
}

/* false, true, null and floats; every other simple value (undefined too) is rejected. */
static json_t *
simple(dec_t *d, int ai, uint64_t val)
{
    double f;

    if (ai >= 25 && ai <= 27)
        return float_value(d, ai, val, &f) ? json_real(f) : NULL;
    if (val == 20)
        return json_false();
    if (val == 21)
        return json_true();
    if (val == 22)
        return json_null();
    if (val >= 24 && val <= 31) /* reserved: cannot be encoded in one byte (pass 1) */
        return json_null();
    fail(d,
         "cbor: data item of cbor type primitives is not accepted by protocol: simple value "
         "%d is not recognized",
         (int)val);
    return NULL;
}

static json_t *
integer(dec_t *d, int major, uint64_t val)
{
    if (val <= INT64_MAX)
        return json_integer(major == MT_UINT ? (json_int_t)val : -1 - (json_int_t)val);
    /* IntDecConvertSignedOrFail: Unstructured holds int64 only. */
    if (major == MT_UINT)
        defer_type_error(d,
                         "cbor: cannot unmarshal positive integer into Go value of type int64 "
                         "(%" PRIu64 " overflows Go's int64)",
                         val);
    else if (val == UINT64_MAX)
        defer_type_error(d, "cbor: cannot unmarshal negative integer into Go value of type int64 "
                            "(-18446744073709551616 overflows Go's int64)");
    else
        defer_type_error(d,
                         "cbor: cannot unmarshal negative integer into Go value of type int64 "
                         "(-%" PRIu64 " overflows Go's int64)",
                         val + 1);
    return json_null();
}

static json_t *value(dec_t *d, int later);

/* Tag 1 (epoch seconds) as Go's time.Time.Format(time.RFC3339Nano), in UTC. */
static json_t *
epoch_time(dec_t *d)
{
    int major, ai;
    uint64_t val;
    double f, whole;
    int64_t sec, nsec = 0;
    struct tm tm;
    time_t t;
    char buf[64], frac[16] = "";

    head(d, &major, &ai, &val);
    if (major == MT_SIMPLE) {
        if (!float_value(d, ai, val, &f))
            return NULL;
        nsec = (int64_t)(modf(f, &whole) * 1e9);
        if (whole < -62135596800.0 || whole > 253402300799.0)
            goto range;
        sec = (int64_t)whole;
    } else {
        if (val > 253402300799u)
            goto range;
        sec = major == MT_UINT ? (int64_t)val : -1 - (int64_t)val;
        if (sec < -62135596800)
            goto range;
    }
    if (nsec < 0) {
        sec--;
        nsec += 1000000000;
    }
    t = (time_t)sec;
    gmtime_r(&t, &tm);
    if (nsec > 0) {
        size_t k = (size_t)snprintf(frac, sizeof(frac), ".%09" PRId64, nsec);
        while (frac[k - 1] == '0')
            frac[--k] = '\0';
    }
    snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d%sZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
    return json_string(buf);
range:
    fail(d, "cbor: cannot unmarshal tag into Go value of type time.Time (time out of range)");
    return NULL;
}

/* Built-in tags whose content type fxamacker checks (validBuiltinTag). */
static bool
tag_content_ok(dec_t *d, uint64_t tag)
{
    uint8_t b = d->p[d->off];
    int major = b >> 5;

    if (tag == TAG_RFC3339 && major != MT_TEXT)
        return fail(d, "cbor: tag number 0 must be followed by text string, got %s",
                    type_names[major]);
    if (tag == TAG_EPOCH && major != MT_UINT && major != MT_NEGINT && (b < 0xf9 || b > 0xfb))
        return fail(d,
                    "cbor: tag number 1 must be followed by integer or floating-point number, "
                    "got %s",
                    type_names[major]);
    if ((tag == TAG_BIGNUM || tag == TAG_NEG_BIGNUM) && major != MT_BYTES)
        return fail(d, "cbor: tag number 2 or 3 must be followed by byte string, got %s",
                    type_names[major]);
    if (tag == TAG_BIGNUM || tag == TAG_NEG_BIGNUM)
        /* BignumTagForbidden: Unstructured has no arbitrary-precision integers. */
        return fail(d, "cbor: data item of cbor type tag is not accepted by protocol: bignum");
    return true;
}

static json_t *
tagged(dec_t *d, uint64_t tag, int later)
{
    int major, ai;
    uint64_t val;
    json_t *v;

    if (!tag_content_ok(d, tag))
        return NULL;
    if (tag == TAG_EPOCH)
        return epoch_time(d);
    if (tag == TAG_RFC3339) {
        int64_t sec;
        int32_t nanos;
        head(d, &major, &ai, &val);
        v = text_string(d, ai, val);
        if (v != NULL && !gw_protobuf__parse_time(json_string_value(v), &sec, &nanos)) {
            json_decref(v);
            fail(d, "cbor: cannot unmarshal UTF-8 text string into Go value of type time.Time "
                    "(not an RFC 3339 timestamp)");
            return NULL;
        }
        return v;
    }
    if (tag == TAG_BASE64_LATER || tag == TAG_BASE64URL_LATER || tag == TAG_BASE16_LATER)
        later = (int)tag;
    /* The self-described tag and any other tag: the content (UnrecognizedTagContentToAny). */
    return value(d, later);
}

static json_t *map(dec_t *d, int ai, uint64_t val, int later);

static json_t *
array(dec_t *d, int ai, uint64_t val, int later)
{
    json_t *a = json_array(), *x;

    for (uint64_t i = 0; ai == 31 ? d->p[d->off] != 0xff : i < val; i++) {
        x = value(d, later);
        if (x == NULL) {
            json_decref(a);
            return NULL;
        }
        json_array_append_new(a, x);
    }
    if (ai == 31)
        d->off++;
    return a;
}

static json_t *
value(dec_t *d, int later)
{
    int major, ai;
    uint64_t val;

    head(d, &major, &ai, &val);
    switch (major) {
    case MT_UINT:
    case MT_NEGINT:
        return integer(d, major, val);
    case MT_BYTES:
        return byte_string(d, ai, val, later);
    case MT_TEXT:
        return text_string(d, ai, val);
    case MT_ARRAY:
        return array(d, ai, val, later);
    case MT_MAP:
        return map(d, ai, val, later);
    case MT_TAG:
        return tagged(d, val, later);
    default:
        return simple(d, ai, val);
    }
}

/* A map key as the Go string map[string]interface{} wants: text or byte strings (under their
   expected-later-encoding tags), null as "" (fxamacker leaves the string at its zero value);
   anything else is a type error. Returns false on a hard error; *key NULL on a type error. */
static bool
map_key(dec_t *d, int later, json_t **key)
{
    int major, ai;
    uint64_t val;

    *key = NULL;
    while (d->p[d->off] >> 5 == MT_TAG) {
        head(d, &major, &ai, &val);
        if (!tag_content_ok(d, val))
            return false;
        if (val == TAG_BASE64_LATER || val == TAG_BASE64URL_LATER || val == TAG_BASE16_LATER)
            later = (int)val;
    }
    major = d->p[d->off] >> 5;
    if (major == MT_TEXT || major == MT_BYTES) {
        *key = value(d, later);
        return *key != NULL;
    }
    if (d->p[d->off] == 0xf6) {
        d->off++;
        *key = json_string("");
        return true;
    }
    *key = value(d, later);
    if (*key == NULL)
        return false;
    json_decref(*key);
    *key = NULL;
    defer_type_error(d, "cbor: cannot unmarshal %s into Go value of type string",
                     type_names[major]);
    return true;
}

static json_t *
map(dec_t *d, int ai, uint64_t val, int later)
{
    json_t *m = json_object(), *k, *x;

    for (uint64_t i = 0; ai == 31 ? d->p[d->off] != 0xff : i < val; i++) {
        if (!map_key(d, later, &k))
            goto bad;
        /* DupMapKeyEnforcedAPF: a repeated key fails the whole decode. */
        if (k != NULL && json_object_getn(m, json_string_value(k), json_string_length(k)) != NULL) {
            fail(d, "cbor: found duplicate map key \"%s\" at map element index %" PRIu64,
                 json_string_value(k), i);
            json_decref(k);
            goto bad;
        }
        x = value(d, later);
        if (x == NULL) {
            json_decref(k);
            goto bad;
        }
        if (k != NULL)
            json_object_setn_new(m, json_string_value(k), json_string_length(k), x);
        else
            json_decref(x);
        json_decref(k);
    }
    if (ai == 31)
        d->off++;
    return m;
bad:
    json_decref(m);
    return NULL;
}

/* The top level decodes into Unstructured's map[string]interface{}. */
static json_t *
document(dec_t *d)
{
    size_t at = d->off;
    int major, ai;
    uint64_t val;
    json_t *v;

    /* The self-described tag may lead, any number of times, or be absent; the type that
       matters is the content's under any tags. */
    while (d->p[at] >> 5 == MT_TAG) {
        size_t save = d->off;
        d->off = at;
        head(d, &major, &ai, &val);
        at = d->off;
        d->off = save;
    }
    major = d->p[at] >> 5;
    if (d->p[at] == 0xf6) {
        d->off = at + 1;
        return json_object();
    }
    v = value(d, 0);
    if (v == NULL)
        return NULL;
    if (major != MT_MAP) {
        json_decref(v);
        fail(d, "cbor: cannot unmarshal %s into Go value of type map[string]interface {}",
             type_names[major]);
        return NULL;
    }
    return v;
}

json_t *
gw_cbor_decode(const uint8_t *data, size_t len, char *err, size_t err_len)
{
    dec_t d = {.p = data, .n = len, .err = err, .err_len = err_len};
    json_t *v;

    if (len == 0) {
        snprintf(err, err_len, "EOF");
        return NULL;
    }
    if (!wf_item(&d, 0))
        return NULL;
    if (d.off != len) {
        snprintf(err, err_len, "cbor: %zu bytes of extraneous data starting at index %zu",
                 len - d.off, d.off);
        return NULL;
    }
    d.off = 0;
    v = document(&d);
    if (v != NULL && d.deferred) {
        json_decref(v);
        return NULL;
    }
    return v;
}
