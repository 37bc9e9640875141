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
#include "gw_cbor_int.h"
#include "gw_protobuf_int.h"

typedef struct {
    const uint8_t *p;
    size_t n, off;
    char *err;
    size_t err_len;
    bool failed;
    bool deferred; /* a type mismatch: fxamacker finishes the item, then reports the first */
} cd_dec_t;

/* fxamacker's names of the major types, as its messages print them. */
static const char *const cd_type_names[] = {
    "positive integer",
    "negative integer",
    "byte string",
    "UTF-8 text string",
    "array",
    "map",
    "tag",
    "primitives",
};

static bool cd_fail(cd_dec_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool
cd_fail(cd_dec_t *d, const char *fmt, ...)
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
static void cd_defer_type_error(cd_dec_t *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
cd_defer_type_error(cd_dec_t *d, const char *fmt, ...)
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
cd_wf_head(cd_dec_t *d, int *major, int *ai, uint64_t *val)
{
    size_t left = d->n - d->off, width;
    uint8_t b;

    if (left == 0)
        return cd_fail(d, "unexpected EOF");
    b = d->p[d->off++];
    *major = b >> 5;
    *ai = b & 0x1f;
    *val = (uint64_t)*ai;
    if (*ai < 24)
        return true;
    if (*ai <= 27) {
        width = (size_t)1 << (*ai - 24);
        if (left < 1 + width)
            return cd_fail(d, "unexpected EOF");
        *val = 0;
        for (size_t i = 0; i < width; i++)
            *val = *val << 8 | d->p[d->off++];
        if (*ai == 24 && *major == GW_CBOR__SIMPLE && *val < 32)
            return cd_fail(d, "cbor: invalid simple value %d for type primitives", (int)*val);
        return true;
    }
    if (*ai == 31) {
        if (*major == GW_CBOR__UINT || *major == GW_CBOR__NEGINT || *major == GW_CBOR__TAG)
            return cd_fail(d, "cbor: invalid additional information 31 for type %s",
                           cd_type_names[*major]);
        if (*major == GW_CBOR__SIMPLE)
            return cd_fail(d, "cbor: unexpected \"break\" code");
        return true;
    }
    return cd_fail(d, "cbor: invalid additional information %d for type %s", *ai,
                   cd_type_names[*major]);
}

static bool cd_wf_item(cd_dec_t *d, int depth);

static bool
cd_wf_indefinite_string(cd_dec_t *d, int major, int depth)
{
    for (;;) {
        if (d->off == d->n)
            return cd_fail(d, "unexpected EOF");
        if (d->p[d->off] == 0xff) {
            d->off++;
            return true;
        }
        if (d->p[d->off] >> 5 != major)
            return cd_fail(d, "cbor: wrong element type %s for indefinite-length %s",
                           cd_type_names[d->p[d->off] >> 5], cd_type_names[major]);
        if ((d->p[d->off] & 0x1f) == 31)
            return cd_fail(d, "cbor: indefinite-length %s chunk is not definite-length",
                           cd_type_names[major]);
        if (!cd_wf_item(d, depth))
            return false;
    }
}

static bool
cd_wf_indefinite_container(cd_dec_t *d, int major, int depth)
{
    size_t i = 0;

    for (;;) {
        if (d->off == d->n)
            return cd_fail(d, "unexpected EOF");
        if (d->p[d->off] == 0xff) {
            d->off++;
            break;
        }
        if (!cd_wf_item(d, depth))
            return false;
        i++;
        if (major == GW_CBOR__ARRAY && i > GW_CBOR_MAX_ELEMENTS)
            return cd_fail(d, "cbor: exceeded max number of elements %d for CBOR array",
                           GW_CBOR_MAX_ELEMENTS);
        if (major == GW_CBOR__MAP && i % 2 == 0 && i / 2 > GW_CBOR_MAX_ELEMENTS)
            return cd_fail(d, "cbor: exceeded max number of key-value pairs %d for CBOR map",
                           GW_CBOR_MAX_ELEMENTS);
    }
    if (major == GW_CBOR__MAP && i % 2 == 1)
        return cd_fail(d, "cbor: unexpected \"break\" code");
    return true;
}

static bool
cd_wf_container(cd_dec_t *d, int major, int ai, uint64_t val, int depth)
{
    if (++depth > GW_CBOR_MAX_DEPTH)
        return cd_fail(d, "cbor: exceeded max nested level %d", GW_CBOR_MAX_DEPTH);
    if (ai == 31)
        return cd_wf_indefinite_container(d, major, depth);
    if (val > INT64_MAX)
        return cd_fail(d,
                       "cbor: %s length %" PRIu64 " is too large, it would cause integer overflow",
                       cd_type_names[major], val);
    if (major == GW_CBOR__ARRAY && val > GW_CBOR_MAX_ELEMENTS)
        return cd_fail(d, "cbor: exceeded max number of elements %d for CBOR array",
                       GW_CBOR_MAX_ELEMENTS);
    if (major == GW_CBOR__MAP && val > GW_CBOR_MAX_ELEMENTS)
        return cd_fail(d, "cbor: exceeded max number of key-value pairs %d for CBOR map",
                       GW_CBOR_MAX_ELEMENTS);
    for (uint64_t i = 0; i < (major == GW_CBOR__MAP ? 2 * val : val); i++)
        if (!cd_wf_item(d, depth))
            return false;
    return true;
}

static bool
cd_wf_item(cd_dec_t *d, int depth)
{
    int major, ai;
    uint64_t val;

    if (!cd_wf_head(d, &major, &ai, &val))
        return false;
    switch (major) {
    case GW_CBOR__BYTES:
    case GW_CBOR__TEXT:
        if (ai == 31)
            return cd_wf_indefinite_string(d, major, depth);
        if (val > INT64_MAX)
            return cd_fail(d, "cbor: %s length %" PRIu64 " is too large, causing integer overflow",
                           cd_type_names[major], val);
        if (d->n - d->off < val)
            return cd_fail(d, "unexpected EOF");
        d->off += (size_t)val;
        return true;
    case GW_CBOR__ARRAY:
    case GW_CBOR__MAP:
        return cd_wf_container(d, major, ai, val, depth);
    case GW_CBOR__TAG:
        /* Nested tag numbers count as levels too. */
        for (;;) {
            if (d->off == d->n)
                return cd_fail(d, "unexpected EOF");
            if (d->p[d->off] >> 5 != GW_CBOR__TAG)
                break;
            if (!cd_wf_head(d, &major, &ai, &val))
                return false;
            if (++depth > GW_CBOR_MAX_DEPTH)
                return cd_fail(d, "cbor: exceeded max nested level %d", GW_CBOR_MAX_DEPTH);
        }
        return cd_wf_item(d, depth);
    default:
        return true;
    }
}

/* ---- pass 2: the JSON value ----------------------------------------------------------------
 */

/* The head at the cursor (already known to be well-formed). */
static void
cd_head(cd_dec_t *d, int *major, int *ai, uint64_t *val)
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
cd_string_bytes(cd_dec_t *d, int ai, uint64_t val, uint8_t **out, size_t *n)
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
        cd_head(d, &major, &ai, &val);
        gw_protobuf__put(&b, d->p + d->off, (size_t)val);
        d->off += (size_t)val;
    }
    d->off++;
    *out = b.buf != NULL ? b.buf : gw_malloc(1);
    *n = b.len;
}

static json_t *
cd_hex_string(const uint8_t *p, size_t n)
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
cd_base64url_string(const uint8_t *p, size_t n)
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
cd_byte_string(cd_dec_t *d, int ai, uint64_t val, int later)
{
    uint8_t *raw;
    size_t n;
    json_t *v;

    cd_string_bytes(d, ai, val, &raw, &n);
    if (later == GW_CBOR__TAG_BASE64_LATER)
        v = gw_protobuf__base64(raw, n);
    else if (later == GW_CBOR__TAG_BASE64URL_LATER)
        v = cd_base64url_string(raw, n);
    else if (later == GW_CBOR__TAG_BASE16_LATER)
        v = cd_hex_string(raw, n);
    else
        v = gw_protobuf__string(raw, n);
    free(raw);
    return v;
}

static json_t *
cd_text_string(cd_dec_t *d, int ai, uint64_t val)
{
    uint8_t *raw;
    size_t n;
    json_t *v;

    cd_string_bytes(d, ai, val, &raw, &n);
    v = json_stringn((const char *)raw, n);
    free(raw);
    if (v == NULL)
        cd_fail(d, "cbor: invalid UTF-8 string");
    return v;
}

/* float16 bits to a double (RFC 8949 Appendix D). */
static double
cd_half_value(uint16_t h)
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
cd_float_value(cd_dec_t *d, int ai, uint64_t val, double *out)
{
    if (ai == 25) {
        *out = cd_half_value((uint16_t)val);
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
        return cd_fail(d, "cbor: data item of cbor type primitives is not accepted by protocol: "
                          "floating-point NaN");
    if (isinf(*out))
        return cd_fail(d, "cbor: data item of cbor type primitives is not accepted by protocol: "
                          "floating-point infinity");
    return true;
}

/* false, true, null and floats; every other simple value (undefined too) is rejected. */
static json_t *
cd_simple(cd_dec_t *d, int ai, uint64_t val)
{
    double f;

    if (ai >= 25 && ai <= 27)
        return cd_float_value(d, ai, val, &f) ? json_real(f) : NULL;
    if (val == 20)
        return json_false();
    if (val == 21)
        return json_true();
    if (val == 22)
        return json_null();
    if (val >= 24 && val <= 31) /* reserved: cannot be encoded in one byte (pass 1) */
        return json_null();
    cd_fail(d,
            "cbor: data item of cbor type primitives is not accepted by protocol: simple value "
            "%d is not recognized",
            (int)val);
    return NULL;
}

static json_t *
cd_integer(cd_dec_t *d, int major, uint64_t val)
{
    if (val <= INT64_MAX)
        return json_integer(major == GW_CBOR__UINT ? (json_int_t)val : -1 - (json_int_t)val);
    /* IntDecConvertSignedOrFail: Unstructured holds int64 only. */
    if (major == GW_CBOR__UINT)
        cd_defer_type_error(d,
                            "cbor: cannot unmarshal positive integer into Go value of type int64 "
                            "(%" PRIu64 " overflows Go's int64)",
                            val);
    else if (val == UINT64_MAX)
        cd_defer_type_error(d,
                            "cbor: cannot unmarshal negative integer into Go value of type int64 "
                            "(-18446744073709551616 overflows Go's int64)");
    else
        cd_defer_type_error(d,
                            "cbor: cannot unmarshal negative integer into Go value of type int64 "
                            "(-%" PRIu64 " overflows Go's int64)",
                            val + 1);
    return json_null();
}

static json_t *cd_value(cd_dec_t *d, int later);

/* Tag 1 (epoch seconds) as Go's time.Time.Format(time.RFC3339Nano), in UTC. */
static json_t *
cd_epoch_time(cd_dec_t *d)
{
    int major, ai;
    uint64_t val;
    double f, whole;
    int64_t sec, nsec = 0;
    struct tm tm;
    time_t t;
    char buf[64], frac[16] = "";

    cd_head(d, &major, &ai, &val);
    if (major == GW_CBOR__SIMPLE) {
        if (!cd_float_value(d, ai, val, &f))
            return NULL;
        nsec = (int64_t)(modf(f, &whole) * 1e9);
        if (whole < -62135596800.0 || whole > 253402300799.0)
            goto range;
        sec = (int64_t)whole;
    } else {
        if (val > 253402300799u)
            goto range;
        sec = major == GW_CBOR__UINT ? (int64_t)val : -1 - (int64_t)val;
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
    cd_fail(d, "cbor: cannot unmarshal tag into Go value of type time.Time (time out of range)");
    return NULL;
}

/* Built-in tags whose content type fxamacker checks (validBuiltinTag). */
static bool
cd_tag_content_ok(cd_dec_t *d, uint64_t tag)
{
    uint8_t b = d->p[d->off];
    int major = b >> 5;

    if (tag == GW_CBOR__TAG_RFC3339 && major != GW_CBOR__TEXT)
        return cd_fail(d, "cbor: tag number 0 must be followed by text string, got %s",
                       cd_type_names[major]);
    if (tag == GW_CBOR__TAG_EPOCH && major != GW_CBOR__UINT && major != GW_CBOR__NEGINT &&
        (b < 0xf9 || b > 0xfb))
        return cd_fail(d,
                       "cbor: tag number 1 must be followed by integer or floating-point number, "
                       "got %s",
                       cd_type_names[major]);
    if ((tag == GW_CBOR__TAG_BIGNUM || tag == GW_CBOR__TAG_NEG_BIGNUM) && major != GW_CBOR__BYTES)
        return cd_fail(d, "cbor: tag number 2 or 3 must be followed by byte string, got %s",
                       cd_type_names[major]);
    if (tag == GW_CBOR__TAG_BIGNUM || tag == GW_CBOR__TAG_NEG_BIGNUM)
        /* BignumTagForbidden: Unstructured has no arbitrary-precision integers. */
        return cd_fail(d, "cbor: data item of cbor type tag is not accepted by protocol: bignum");
    return true;
}

static json_t *
cd_tagged(cd_dec_t *d, uint64_t tag, int later)
{
    int major, ai;
    uint64_t val;
    json_t *v;

    if (!cd_tag_content_ok(d, tag))
        return NULL;
    if (tag == GW_CBOR__TAG_EPOCH)
        return cd_epoch_time(d);
    if (tag == GW_CBOR__TAG_RFC3339) {
        int64_t sec;
        int32_t nanos;
        cd_head(d, &major, &ai, &val);
        v = cd_text_string(d, ai, val);
        if (v != NULL && !gw_protobuf__parse_time(json_string_value(v), &sec, &nanos)) {
            json_decref(v);
            cd_fail(d, "cbor: cannot unmarshal UTF-8 text string into Go value of type time.Time "
                       "(not an RFC 3339 timestamp)");
            return NULL;
        }
        return v;
    }
    if (tag == GW_CBOR__TAG_BASE64_LATER || tag == GW_CBOR__TAG_BASE64URL_LATER ||
        tag == GW_CBOR__TAG_BASE16_LATER)
        later = (int)tag;
    /* The self-described tag and any other tag: the content (UnrecognizedTagContentToAny). */
    return cd_value(d, later);
}

static json_t *cd_map(cd_dec_t *d, int ai, uint64_t val, int later);

static json_t *
cd_array(cd_dec_t *d, int ai, uint64_t val, int later)
{
    json_t *a = json_array(), *x;

    for (uint64_t i = 0; ai == 31 ? d->p[d->off] != 0xff : i < val; i++) {
        x = cd_value(d, later);
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
cd_value(cd_dec_t *d, int later)
{
    int major, ai;
    uint64_t val;

    cd_head(d, &major, &ai, &val);
    switch (major) {
    case GW_CBOR__UINT:
    case GW_CBOR__NEGINT:
        return cd_integer(d, major, val);
    case GW_CBOR__BYTES:
        return cd_byte_string(d, ai, val, later);
    case GW_CBOR__TEXT:
        return cd_text_string(d, ai, val);
    case GW_CBOR__ARRAY:
        return cd_array(d, ai, val, later);
    case GW_CBOR__MAP:
        return cd_map(d, ai, val, later);
    case GW_CBOR__TAG:
        return cd_tagged(d, val, later);
    default:
        return cd_simple(d, ai, val);
    }
}

/* A map key as the Go string map[string]interface{} wants: text or byte strings (under their
   expected-later-encoding tags), null as "" (fxamacker leaves the string at its zero value);
   anything else is a type error. Returns false on a hard error; *key NULL on a type error. */
static bool
cd_map_key(cd_dec_t *d, int later, json_t **key)
{
    int major, ai;
    uint64_t val;

    *key = NULL;
    while (d->p[d->off] >> 5 == GW_CBOR__TAG) {
        cd_head(d, &major, &ai, &val);
        if (!cd_tag_content_ok(d, val))
            return false;
        if (val == GW_CBOR__TAG_BASE64_LATER || val == GW_CBOR__TAG_BASE64URL_LATER ||
            val == GW_CBOR__TAG_BASE16_LATER)
            later = (int)val;
    }
    major = d->p[d->off] >> 5;
    if (major == GW_CBOR__TEXT || major == GW_CBOR__BYTES) {
        *key = cd_value(d, later);
        return *key != NULL;
    }
    if (d->p[d->off] == 0xf6) {
        d->off++;
        *key = json_string("");
        return true;
    }
    *key = cd_value(d, later);
    if (*key == NULL)
        return false;
    json_decref(*key);
    *key = NULL;
    cd_defer_type_error(d, "cbor: cannot unmarshal %s into Go value of type string",
                        cd_type_names[major]);
    return true;
}

static json_t *
cd_map(cd_dec_t *d, int ai, uint64_t val, int later)
{
    json_t *m = json_object(), *k, *x;

    for (uint64_t i = 0; ai == 31 ? d->p[d->off] != 0xff : i < val; i++) {
        if (!cd_map_key(d, later, &k))
            goto bad;
        /* DupMapKeyEnforcedAPF: a repeated key fails the whole decode. */
        if (k != NULL && json_object_getn(m, json_string_value(k), json_string_length(k)) != NULL) {
            cd_fail(d, "cbor: found duplicate map key \"%s\" at map element index %" PRIu64,
                    json_string_value(k), i);
            json_decref(k);
            goto bad;
        }
        x = cd_value(d, later);
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
cd_document(cd_dec_t *d)
{
    size_t at = d->off;
    int major, ai;
    uint64_t val;
    json_t *v;

    /* The self-described tag may lead, any number of times, or be absent; the type that
       matters is the content's under any tags. */
    while (d->p[at] >> 5 == GW_CBOR__TAG) {
        size_t save = d->off;
        d->off = at;
        cd_head(d, &major, &ai, &val);
        at = d->off;
        d->off = save;
    }
    major = d->p[at] >> 5;
    if (d->p[at] == 0xf6) {
        d->off = at + 1;
        return json_object();
    }
    v = cd_value(d, 0);
    if (v == NULL)
        return NULL;
    if (major != GW_CBOR__MAP) {
        json_decref(v);
        cd_fail(d, "cbor: cannot unmarshal %s into Go value of type map[string]interface {}",
                cd_type_names[major]);
        return NULL;
    }
    return v;
}

json_t *
gw_cbor_decode(const uint8_t *data, size_t len, char *err, size_t err_len)
{
    cd_dec_t d = {.p = data, .n = len, .err = err, .err_len = err_len};
    json_t *v;

    if (len == 0) {
        snprintf(err, err_len, "EOF");
        return NULL;
    }
    if (!cd_wf_item(&d, 0))
        return NULL;
    if (d.off != len) {
        snprintf(err, err_len, "cbor: %zu bytes of extraneous data starting at index %zu",
                 len - d.off, d.off);
        return NULL;
    }
    d.off = 0;
    v = cd_document(&d);
    if (v != NULL && d.deferred) {
        json_decref(v);
        return NULL;
    }
    return v;
}
