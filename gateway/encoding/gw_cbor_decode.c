/* Reading CBOR as apimachinery's decoder does into Unstructured (internal/modes/decode.go of
 * kube v1.32 over fxamacker/cbor v2.7). Two passes, as fxamacker makes them. The first checks
 * that the input is one well-formed item within the limits, without NaN, infinities or
 * bignums; its errors win wherever they sit. The second builds the JSON and, as fxamacker
 * does, goes on after an error inside an array or a map, reporting the first one, except that
 * a duplicate key ends its map and is what that map reports. Recursion is bounded by the
 * nesting limit; every item costs at least one input byte, so the output is bounded by the
 * input. */
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
#include "gw_err.h"
#include "gw_protobuf_int.h"

#define CD_MSG_MAX 256 /* a message kept while a container's items are read */

typedef struct {
    const uint8_t *p;
    size_t n, off;
    char msg[CD_MSG_MAX]; /* the first error of the container being read */
    bool failed;
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

/* Record an error unless one came first; always false. */
static bool
cd_fail(cd_dec_t *d, const char *fmt, ...)
{
    va_list ap;

    if (!d->failed) {
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
        va_end(ap);
    }
    d->failed = true;
    return false;
}

/* ---- pass 1: well-formedness and limits (fxamacker's valid.go) ---------------------------- */

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

/* The value of a float head (additional information 25, 26 or 27). */
static double
cd_float(int ai, uint64_t val)
{
    uint32_t bits = (uint32_t)val;
    float f;
    double v;

    if (ai == 25)
        return cd_half_value((uint16_t)val);
    if (ai == 26) {
        memcpy(&f, &bits, sizeof(f));
        return f;
    }
    memcpy(&v, &val, sizeof(v));
    return v;
}

/* NaNDecodeForbidden, InfDecodeForbidden: JSON has neither. */
static bool
cd_acceptable_float(cd_dec_t *d, int ai, uint64_t val)
{
    double v = cd_float(ai, val);

    if (isnan(v))
        return cd_fail(d, "cbor: data item of cbor type primitives is not accepted by protocol: "
                          "floating-point NaN");
    if (isinf(v))
        return cd_fail(d, "cbor: data item of cbor type primitives is not accepted by protocol: "
                          "floating-point infinity");
    return true;
}

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
        if (*ai > 24 && *major == GW_CBOR__SIMPLE)
            return cd_acceptable_float(d, *ai, *val);
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
            /* BignumTagForbidden: Unstructured has no arbitrary-precision integers. */
            if (val == GW_CBOR__TAG_BIGNUM || val == GW_CBOR__TAG_NEG_BIGNUM)
                return cd_fail(d, "cbor: data item of cbor type tag is not accepted by "
                                  "protocol: bignum");
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
 * Every function here consumes its whole item, also on error, and then returns NULL. */

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

/* Step over one item. */
static void
cd_skip(cd_dec_t *d)
{
    int major, ai;
    uint64_t val;

    cd_head(d, &major, &ai, &val);
    if (ai == 31 && major >= GW_CBOR__BYTES && major <= GW_CBOR__MAP) {
        while (d->p[d->off] != 0xff)
            cd_skip(d);
        d->off++;
    } else if (major == GW_CBOR__BYTES || major == GW_CBOR__TEXT) {
        d->off += (size_t)val;
    } else if (major == GW_CBOR__ARRAY || major == GW_CBOR__MAP) {
        for (uint64_t i = 0; i < (major == GW_CBOR__MAP ? 2 * val : val); i++)
            cd_skip(d);
    } else if (major == GW_CBOR__TAG) {
        cd_skip(d);
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
        d->off += *n;
        return;
    }
    while (d->p[d->off] != 0xff) {
        cd_head(d, &major, &ai, &val);
        gw_protobuf__put(&b, d->p + d->off, (size_t)val);
        d->off += (size_t)val;
    }
    d->off++;
    *n = b.len;
    *out = (uint8_t *)gw_buf_take(&b);
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

/* A byte string as a Go string: the text the innermost expected-later-encoding tag around it
   names, else the bytes themselves (invalid UTF-8 as U+FFFD, which kube's JSON shows). */
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

/* UTF8RejectInvalid. */
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

/* false, true, null and floats; every other simple value (undefined too) is rejected. */
static json_t *
cd_simple(cd_dec_t *d, int ai, uint64_t val)
{
    if (ai >= 25 && ai <= 27)
        return json_real(cd_float(ai, val)); /* NaN and infinities stopped in pass 1 */
    if (val == 20)
        return json_false();
    if (val == 21)
        return json_true();
    if (val == 22)
        return json_null();
    cd_fail(d,
            "cbor: data item of cbor type primitives is not accepted by protocol: simple value "
            "%d is not recognized",
            (int)val);
    return NULL;
}

/* IntDecConvertSignedOrFail: Unstructured holds int64 only. */
static json_t *
cd_integer(cd_dec_t *d, int major, uint64_t val)
{
    if (val <= INT64_MAX)
        return json_integer(major == GW_CBOR__UINT ? (json_int_t)val : -1 - (json_int_t)val);
    if (major == GW_CBOR__UINT)
        cd_fail(d,
                "cbor: cannot unmarshal positive integer into Go value of type int64 "
                "(%" PRIu64 " overflows Go's int64)",
                val);
    else if (val == UINT64_MAX)
        cd_fail(d, "cbor: cannot unmarshal negative integer into Go value of type int64 "
                   "(-18446744073709551616 overflows Go's int64)");
    else
        cd_fail(d,
                "cbor: cannot unmarshal negative integer into Go value of type int64 "
                "(-%" PRIu64 " overflows Go's int64)",
                val + 1);
    return NULL;
}

/* "2006-01-02T15:04:05.999999999Z07:00" of a broken-down UTC time and nanoseconds. */
static json_t *
cd_rfc3339_nano(const struct tm *tm, int64_t nsec, const char *zone)
{
    char buf[80], frac[16] = "";

    if (nsec > 0) {
        size_t k = (size_t)snprintf(frac, sizeof(frac), ".%09" PRId64, nsec);
        while (frac[k - 1] == '0')
            frac[--k] = '\0';
    }
    snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d%s%s", tm->tm_year + 1900,
             tm->tm_mon + 1, tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec, frac, zone);
    return json_string(buf);
}

/* Tag 1 (epoch seconds): fxamacker's TimeTagToRFC3339Nano, in UTC. */
static json_t *
cd_epoch_time(cd_dec_t *d)
{
    int major, ai;
    uint64_t val;
    double f, whole;
    int64_t sec, nsec = 0;
    struct tm tm;
    time_t t;

    cd_head(d, &major, &ai, &val);
    if (major == GW_CBOR__SIMPLE) {
        f = cd_float(ai, val);
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
    return cd_rfc3339_nano(&tm, nsec, "Z");
range:
    cd_fail(d, "cbor: decoded time cannot be represented in RFC3339 format with sub-second "
               "precision: Time.MarshalText: year outside of range [0,9999]");
    return NULL;
}

/* Tag 0: Go's time.Parse(time.RFC3339) then Format(time.RFC3339Nano): the fraction loses its
   trailing zeros, a zero offset becomes Z (the server runs in UTC), others stay. */
static json_t *
cd_rfc3339_time(cd_dec_t *d)
{
    int major, ai;
    uint64_t val;
    json_t *v, *out;
    const char *s, *z;
    char buf[80];
    size_t k = 19, digits = 0;
    int64_t sec;
    int32_t nanos;

    cd_head(d, &major, &ai, &val);
    v = cd_text_string(d, ai, val);
    if (v == NULL)
        return NULL;
    s = json_string_value(v);
    if (!gw_protobuf__parse_time(s, &sec, &nanos)) {
        cd_fail(d, "cbor: cannot set %s for time.Time", s);
        json_decref(v);
        return NULL;
    }
    memcpy(buf, s, 19);
    z = s + 19;
    if (*z == '.') {
        buf[k++] = '.';
        for (z++; *z >= '0' && *z <= '9'; z++)
            if (digits++ < 9)
                buf[k++] = *z;
        while (buf[k - 1] == '0')
            k--;
        if (buf[k - 1] == '.')
            k--;
    }
    if (strcmp(z, "+00:00") == 0 || strcmp(z, "-00:00") == 0)
        z = "Z";
    snprintf(buf + k, sizeof(buf) - k, "%s", z);
    out = json_string(buf);
    json_decref(v);
    return out;
}

/* The content types fxamacker requires of the built-in tags (validBuiltinTag). */
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
    return true;
}

static bool
cd_is_later_tag(uint64_t tag)
{
    return tag == GW_CBOR__TAG_BASE64_LATER || tag == GW_CBOR__TAG_BASE64URL_LATER ||
           tag == GW_CBOR__TAG_BASE16_LATER;
}

static json_t *cd_value(cd_dec_t *d, int later);

static json_t *
cd_tagged(cd_dec_t *d, uint64_t tag, int later)
{
    if (!cd_tag_content_ok(d, tag)) {
        cd_skip(d);
        return NULL;
    }
    if (tag == GW_CBOR__TAG_EPOCH)
        return cd_epoch_time(d);
    if (tag == GW_CBOR__TAG_RFC3339)
        return cd_rfc3339_time(d);
    if (cd_is_later_tag(tag))
        later = (int)tag;
    /* The self-described tag and any other tag: the content (UnrecognizedTagContentToAny). */
    return cd_value(d, later);
}

/* A container's own error state, saved around the reading of its items. */
typedef struct {
    bool failed;
    char msg[CD_MSG_MAX];
} cd_saved_t;

static void
cd_enter(cd_dec_t *d, cd_saved_t *outer)
{
    outer->failed = d->failed;
    if (d->failed)
        memcpy(outer->msg, d->msg, sizeof(outer->msg));
    d->failed = false;
}

/* Leave a container: the outer error stands if there was one, else the container's. Returns v,
   or NULL (v released) when the container failed. */
static json_t *
cd_leave(cd_dec_t *d, cd_saved_t *outer, json_t *v)
{
    bool inner = d->failed;

    if (outer->failed) {
        memcpy(d->msg, outer->msg, sizeof(d->msg));
        d->failed = true;
    }
    if (!inner)
        return v;
    json_decref(v);
    return NULL;
}

static json_t *
cd_array(cd_dec_t *d, int ai, uint64_t val, int later)
{
    json_t *a = json_array(), *x;
    cd_saved_t outer;

    cd_enter(d, &outer);
    for (uint64_t i = 0; ai == 31 ? d->p[d->off] != 0xff : i < val; i++) {
        x = cd_value(d, later);
        if (x != NULL)
            json_array_append_new(a, x);
    }
    if (ai == 31)
        d->off++;
    return cd_leave(d, &outer, a);
}

/* A map key as the Go string map[string]interface{} wants: a text or byte string (under its
   expected-later-encoding tags), or null, which leaves Go's string empty. NULL on error. */
static json_t *
cd_map_key(cd_dec_t *d, int later)
{
    int major, ai;
    uint64_t val;
    size_t start = d->off;

    while (d->p[d->off] >> 5 == GW_CBOR__TAG) {
        cd_head(d, &major, &ai, &val);
        if (!cd_tag_content_ok(d, val)) {
            cd_skip(d);
            return NULL;
        }
        if (cd_is_later_tag(val))
            later = (int)val;
    }
    major = d->p[d->off] >> 5;
    if (major == GW_CBOR__TEXT || major == GW_CBOR__BYTES)
        return cd_value(d, later);
    if (d->p[d->off] == 0xf6) {
        d->off++;
        return json_string("");
    }
    d->off = start;
    cd_skip(d);
    cd_fail(d, "cbor: cannot unmarshal %s into Go value of type string", cd_type_names[major]);
    return NULL;
}

/* Skip the pairs left in a map after a duplicate key. */
static void
cd_skip_pairs(cd_dec_t *d, int ai, uint64_t left)
{
    for (uint64_t i = 0; ai == 31 ? d->p[d->off] != 0xff : i < left; i++) {
        cd_skip(d);
        cd_skip(d);
    }
    if (ai == 31)
        d->off++;
}

static json_t *
cd_map(cd_dec_t *d, int ai, uint64_t val, int later)
{
    json_t *m = json_object(), *k, *x;
    cd_saved_t outer;

    cd_enter(d, &outer);
    for (uint64_t i = 0; ai == 31 ? d->p[d->off] != 0xff : i < val; i++) {
        k = cd_map_key(d, later);
        if (k == NULL) {
            cd_skip(d); /* the value of a key that failed is not read */
            continue;
        }
        x = cd_value(d, later);
        if (x == NULL) {
            json_decref(k);
            continue;
        }
        /* DupMapKeyEnforcedAPF: a repeated key ends the map, and is its error. */
        if (json_object_getn(m, json_string_value(k), json_string_length(k)) != NULL) {
            d->failed = false;
            cd_fail(d, "cbor: found duplicate map key \"%s\" at map element index %" PRIu64,
                    json_string_value(k), i);
            json_decref(k);
            json_decref(x);
            cd_skip_pairs(d, ai, ai == 31 ? 0 : val - i - 1);
            return cd_leave(d, &outer, m);
        }
        json_object_setn_new(m, json_string_value(k), json_string_length(k), x);
        json_decref(k);
    }
    if (ai == 31)
        d->off++;
    return cd_leave(d, &outer, m);
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

/* The top level decodes into Unstructured's map[string]interface{}: the self-described tag may
   lead (any number of times) or be absent, other tags are checked and stepped over, null
   leaves the map nil (an empty object here), anything but a map is a type error. */
static json_t *
cd_document(cd_dec_t *d)
{
    int major, ai;
    uint64_t val;
    int later = 0;

    while (d->p[d->off] >> 5 == GW_CBOR__TAG) {
        cd_head(d, &major, &ai, &val);
        if (!cd_tag_content_ok(d, val))
            return NULL;
        if (cd_is_later_tag(val))
            later = (int)val;
    }
    if (d->p[d->off] == 0xf6)
        return json_object();
    major = d->p[d->off] >> 5;
    if (major != GW_CBOR__MAP) {
        cd_fail(d, "cbor: cannot unmarshal %s into Go value of type map[string]interface {}",
                cd_type_names[major]);
        return NULL;
    }
    cd_head(d, &major, &ai, &val);
    return cd_map(d, ai, val, later);
}

/* Pass 1 over the whole input: one item, nothing after it. */
static bool
cd_wellformed(cd_dec_t *d)
{
    if (d->n == 0)
        return cd_fail(d, "EOF");
    if (cd_wf_item(d, 0) && d->off != d->n)
        return cd_fail(d, "cbor: %zu bytes of extraneous data starting at index %zu", d->n - d->off,
                       d->off);
    return !d->failed;
}

int
gw_cbor_check(const uint8_t *data, size_t len, char *err, size_t err_len)
{
    cd_dec_t *d = gw_calloc(1, sizeof(*d));
    int rc = 0;

    d->p = data;
    d->n = len;
    if (!cd_wellformed(d)) {
        snprintf(err, err_len, "%s", d->msg);
        rc = GW_EINVAL;
    }
    free(d);
    return rc;
}

json_t *
gw_cbor_decode(const uint8_t *data, size_t len, char *err, size_t err_len)
{
    cd_dec_t *d = gw_calloc(1, sizeof(*d));
    json_t *v = NULL;

    d->p = data;
    d->n = len;
    if (cd_wellformed(d)) {
        d->off = 0;
        v = cd_document(d);
    }
    if (v == NULL)
        snprintf(err, err_len, "%s", d->msg);
    free(d);
    return v;
}
