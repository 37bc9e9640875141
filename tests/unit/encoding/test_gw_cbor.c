/* The CBOR codec against bytes worked out by hand from RFC 8949 and kube's encoder options
 * (byte-string keys and values, bytewise-lexical key order, shortest integers and floats, tag
 * 22 for []byte), every kind of the catalog through CBOR and back, and each class of bad input
 * with the message kube's decoder (fxamacker/cbor) gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_cbor.h"
#include "gw_err.h"
#include "gw_protobuf_int.h"
#include "tap.h"

/* "d9d9f7 a1 41 61" -> bytes; spaces ignored. Returns the length. */
static size_t
unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;

    for (const char *p = hex; *p != '\0' && n < cap; p++) {
        unsigned v;
        if (*p == ' ')
            continue;
        if (sscanf(p, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
        p++;
    }
    return n;
}

static char *
to_hex(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 1);

    for (size_t i = 0; i < n; i++)
        snprintf(s + 2 * i, 3, "%02x", p[i]);
    s[2 * n] = '\0';
    return s;
}

/* Encode the JSON text with schema s and compare with the expected hex. */
static void
encodes(const char *json, const gw_schema_t *s, const char *want_hex, const char *name)
{
    uint8_t want[512], *got = NULL;
    size_t want_len = unhex(want_hex, want, sizeof(want)), len = 0;
    char err[256] = "", *got_hex;
    json_t *doc = json_loads(json, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    int rc = gw_cbor_encode(doc, s, &got, &len, err, sizeof(err));

    got_hex = rc == 0 ? to_hex(got, len) : NULL;
    if (!tap_ok(rc == 0 && len == want_len && memcmp(got, want, len) == 0, "encode: %s", name))
        tap_diag("got %s (%s), want %s", got_hex ? got_hex : "error", err, want_hex);
    free(got_hex);
    free(got);
    json_decref(doc);
}

/* {"i": <json>} encodes as the prefix, a1 41 69, then want_hex. */
static void
value_encodes(const char *json, const gw_schema_t *s, const char *want_hex)
{
    char doc[128], want[256];

    snprintf(doc, sizeof(doc), "{\"i\": %s}", json);
    snprintf(want, sizeof(want), "d9d9f7 a1 4169 %s", want_hex);
    encodes(doc, s, want, json);
}

static void
decodes(const char *hex, const char *want_json, const char *name)
{
    uint8_t in[2048];
    size_t n = unhex(hex, in, sizeof(in));
    char err[256] = "";
    json_t *got = gw_cbor_decode(in, n, err, sizeof(err));
    json_t *want = json_loads(want_json, 0, NULL);
    char *dump = got ? json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT) : NULL;

    if (!tap_ok(got != NULL && json_equal(got, want), "decode: %s", name))
        tap_diag("got %s (%s), want %s", dump ? dump : "NULL", err, want_json);
    free(dump);
    json_decref(got);
    json_decref(want);
}

static void
rejects_bytes(const uint8_t *in, size_t n, const char *want, const char *name)
{
    char err[256] = "";
    json_t *got = gw_cbor_decode(in, n, err, sizeof(err));

    if (!tap_ok(got == NULL && strcmp(err, want) == 0, "reject: %s", name))
        tap_diag("got \"%s\"%s, want \"%s\"", err, got ? " and a document" : "", want);
    json_decref(got);
}

static void
rejects(const char *hex, const char *want, const char *name)
{
    uint8_t in[4096];

    rejects_bytes(in, unhex(hex, in, sizeof(in)), want, name);
}

/* ---- hand-computed encodings --------------------------------------------------------------- */

static const gw_schema_t number_schema = {.type = GW_SCHEMA_NUMBER, .format = "double"};
static const gw_schema_t bytes_schema = {.type = GW_SCHEMA_STRING, .format = "byte"};
static const gw_schema_field_t float_fields[] = {{"i", &number_schema}};
static const gw_schema_t float_object = {
    .type = GW_SCHEMA_OBJECT, .fields = float_fields, .n_fields = 1};
static const gw_schema_field_t byte_fields[] = {{"i", &bytes_schema}};
static const gw_schema_t byte_object = {
    .type = GW_SCHEMA_OBJECT, .fields = byte_fields, .n_fields = 1};

static void
test_documents(const gw_catalog_t *c)
{
    const gw_schema_t *cm = gw_catalog_kind_schema(c, "", "v1", "ConfigMap");
    const gw_schema_t *secret = gw_catalog_kind_schema(c, "", "v1", "Secret");

    /* Keys by length, then bytewise: data, kind, metadata, apiVersion. */
    encodes("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"},"
            "\"data\":{\"k\":\"v\"}}",
            cm,
            "d9d9f7 a4 4464617461 a1 416b 4176 446b696e64 49436f6e6669674d6170"
            " 486d65746164617461 a1 446e616d65 4178 4a61706956657273696f6e 427631",
            "a ConfigMap: byte-string keys and values, keys in kube's order");
    encodes("{\"b\":1,\"aa\":2,\"a\":3}", NULL, "d9d9f7 a3 4161 03 4162 01 426161 02",
            "keys a, b, aa: shorter encodings first");
    encodes("{\"a\":{},\"b\":[],\"c\":null}", NULL, "d9d9f7 a3 4161 a0 4162 80 4163 f6",
            "empty map, empty array and null stay apart");
    encodes("{\"t\":true,\"f\":false}", NULL, "d9d9f7 a2 4166 f4 4174 f5", "booleans");
    encodes("{\"s\":\"\\u00e9\\u0000x\"}", NULL, "d9d9f7 a1 4173 44 c3a90078",
            "a string with a NUL and UTF-8 goes out byte for byte");
    /* Secret data is []byte: tag 22 over the decoded bytes; stringData stays a string. */
    encodes("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"k\":\"aGk=\"},"
            "\"stringData\":{\"k\":\"aGk=\"}}",
            secret,
            "d9d9f7 a4 4464617461 a1 416b d6 426869 446b696e64 46536563726574"
            " 4a61706956657273696f6e 427631 4a737472696e6744617461 a1 416b 4461476b3d",
            "a Secret's data as tag 22 byte strings");
    value_encodes("\"\"", &byte_object, "d6 40");
    value_encodes("\"aGk=\"", NULL, "4461476b3d");
}

static void
test_integers(void)
{
    static const char *const cases[][2] = {
        {"0", "00"},
        {"23", "17"},
        {"24", "1818"},
        {"255", "18ff"},
        {"256", "190100"},
        {"65535", "19ffff"},
        {"65536", "1a00010000"},
        {"4294967295", "1affffffff"},
        {"4294967296", "1b0000000100000000"},
        {"9223372036854775807", "1b7fffffffffffffff"},
        {"-1", "20"},
        {"-24", "37"},
        {"-25", "3818"},
        {"-256", "38ff"},
        {"-257", "390100"},
        {"-65537", "3a00010000"},
        {"-4294967297", "3b0000000100000000"},
        {"-9223372036854775808", "3b7fffffffffffffff"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        value_encodes(cases[i][0], NULL, cases[i][1]);
}

static void
test_floats(void)
{
    static const char *const cases[][2] = {
        {"1.5", "f93e00"},
        {"0.0", "f90000"},
        {"-0.0", "f98000"},
        {"65504.0", "f97bff"},
        {"-4.0", "f9c400"},
        {"5.960464477539063e-08", "f90001"}, /* the smallest float16 subnormal */
        {"6.103515625e-05", "f90400"},       /* the smallest float16 normal */
        {"100000.0", "fa47c35000"},          /* past float16's range */
        {"3.4028234663852886e+38", "fa7f7fffff"},
        {"0.1", "fb3fb999999999999a"},
        {"1.1", "fb3ff199999999999a"},
        {"1e+300", "fb7e37e43c8800759c"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        value_encodes(cases[i][0], NULL, cases[i][1]);
    /* A Go float64 field holding an integral value: kube's typed encoder writes a float. */
    value_encodes("1", &float_object, "f93c00");
    value_encodes("100000", &float_object, "fa47c35000");
    tap_ok(json_real(0.0 / 0.0) == NULL, "a NaN never reaches the encoder (JSON has none)");
}

static void
test_encode_errors(void)
{
    json_t *doc = json_pack("{s:s}", "i", "not base64!");
    uint8_t *out = NULL;
    size_t len = 0;
    char err[256] = "";
    int rc = gw_cbor_encode(doc, &byte_object, &out, &len, err, sizeof(err));

    tap_is_int(rc, GW_EINVAL, "a []byte field that is not base64 is refused");
    tap_is_str(err, "illegal base64 data in a []byte field", "... with a reason");
    json_decref(doc);
}

static void
test_watch_event(void)
{
    json_t *obj = json_pack("{s:i}", "a", 1), *back, *want_doc;
    uint8_t *enc = NULL, *frame, want[64];
    size_t enc_len = 0, len = 0, want_len;
    char err[256] = "";

    gw_cbor_encode(obj, NULL, &enc, &enc_len, err, sizeof(err));
    frame = gw_cbor_encode_watch_event("ADDED", enc, enc_len, &len);
    want_len = unhex("d9d9f7 a2 4474797065 454144444544 466f626a656374 d9d9f7 a1 4161 01", want,
                     sizeof(want));
    tap_ok(len == want_len && memcmp(frame, want, len) == 0,
           "a watch frame: tagged {type, object} with the object's own encoding inside");
    back = gw_cbor_decode(frame, len, err, sizeof(err));
    want_doc = json_pack("{s:s,s:{s:i}}", "type", "ADDED", "object", "a", 1);
    tap_ok(back != NULL && json_equal(back, want_doc), "a watch frame decodes to {type, object}");
    json_decref(want_doc);
    json_decref(back);
    free(frame);
    free(enc);
    json_decref(obj);
}

/* ---- decoding ------------------------------------------------------------------------------- */

static void
test_decode(void)
{
    decodes("d9d9f7 a1 4161 01", "{\"a\":1}", "with the self-described tag");
    decodes("a1 4161 01", "{\"a\":1}", "without it (apply-patch+cbor bodies from clients)");
    decodes("d9d9f7 d9d9f7 a1 4161 01", "{\"a\":1}", "the tag twice");
    decodes("a1 6161 6162", "{\"a\":\"b\"}", "text strings");
    decodes("a1 4161 d6 426869", "{\"a\":\"aGk=\"}", "tag 22: base64");
    decodes("a1 4161 d5 42fbff", "{\"a\":\"-_8\"}", "tag 21: base64url without padding");
    decodes("a1 4161 d7 42fbff", "{\"a\":\"fbff\"}", "tag 23: hex");
    decodes("a1 4161 d6 a1 4162 4163", "{\"a\":{\"Yg==\":\"Yw==\"}}",
            "tag 22 reaches every byte string it encloses");
    decodes("a1 4161 42 ff61", "{\"a\":\"\\ufffda\"}", "invalid UTF-8 of a byte string as U+FFFD");
    decodes("bf 4161 9f 01 02 ff 4162 5f 4161 4162 ff ff", "{\"a\":[1,2],\"b\":\"ab\"}",
            "indefinite lengths");
    decodes("a1 4161 7f 6161 6162 ff", "{\"a\":\"ab\"}", "an indefinite text string");
    decodes("a2 4161 f93e00 4162 fb3ff199999999999a", "{\"a\":1.5,\"b\":1.1}", "floats");
    decodes("a1 4161 1b7fffffffffffffff", "{\"a\":9223372036854775807}", "the largest int64");
    decodes("a1 4161 3b7fffffffffffffff", "{\"a\":-9223372036854775808}", "the smallest int64");
    decodes("a1 4161 c1 1a514b67b0", "{\"a\":\"2013-03-21T20:04:00Z\"}",
            "tag 1: epoch seconds as RFC 3339");
    decodes("a1 4161 c1 fb41d452d9ec200000", "{\"a\":\"2013-03-21T20:04:00.5Z\"}",
            "tag 1 with a fraction");
    decodes("a1 4161 c0 74323031332d30332d32315432303a30343a30305a",
            "{\"a\":\"2013-03-21T20:04:00Z\"}", "tag 0: an RFC 3339 string");
    decodes("a1 4161 c0 781d 323031332d30332d32315432303a30343a30302e3530302b30303a3030",
            "{\"a\":\"2013-03-21T20:04:00.5Z\"}",
            "tag 0: trailing zeros and a zero offset as Go formats them");
    decodes("a1 4161 c0 7819 323031332d30332d32315432303a30343a30302b30313a3030",
            "{\"a\":\"2013-03-21T20:04:00+01:00\"}", "tag 0 keeps another offset");
    decodes("a1 4161 d8 64 01", "{\"a\":1}", "another tag: its content");
    decodes("a3 4161 f4 4162 f5 4163 f6", "{\"a\":false,\"b\":true,\"c\":null}",
            "false, true, null");
    decodes("a1 f6 01", "{\"\":1}", "a null key is Go's empty string");
    decodes("f6", "{}", "a null document");

    {
        char err[64];
        uint8_t in[] = {0xa1, 0x41, 0x61, 0xf9, 0x3c, 0x00};
        json_t *v = gw_cbor_decode(in, sizeof(in), err, sizeof(err));
        tap_ok(v && json_is_real(json_object_get(v, "a")),
               "an integral float stays a float (float64 in Unstructured)");
        json_decref(v);
    }
}

static void
test_decode_errors(void)
{

    rejects("", "EOF", "empty input");
    rejects("a1 41", "unexpected EOF", "a truncated key");
    rejects("a1 4161", "unexpected EOF", "a missing value");
    rejects("a1 4161 5b0000000100000000", "unexpected EOF", "a length past the end");
    rejects("d9d9f7", "unexpected EOF", "the tag alone");
    rejects("a0 00", "cbor: 1 bytes of extraneous data starting at index 1", "trailing bytes");
    rejects("d9d9f7 a0 a0 a0", "cbor: 2 bytes of extraneous data starting at index 4",
            "a second document");
    rejects("a2 4161 01 4161 02", "cbor: found duplicate map key \"a\" at map element index 1",
            "a duplicate key");
    rejects("a2 6161 01 4161 02", "cbor: found duplicate map key \"a\" at map element index 1",
            "a duplicate key, once text and once bytes");
    rejects("a1 4161 a3 4162 01 4163 02 4162 03",
            "cbor: found duplicate map key \"b\" at map element index 2", "a nested duplicate");
    rejects("a1 4161 f97e00",
            "cbor: data item of cbor type primitives is not accepted by protocol: "
            "floating-point NaN",
            "NaN");
    rejects("a1 4161 fa7fc00000",
            "cbor: data item of cbor type primitives is not accepted by protocol: "
            "floating-point NaN",
            "a float32 NaN");
    rejects("a1 4161 f97c00",
            "cbor: data item of cbor type primitives is not accepted by protocol: "
            "floating-point infinity",
            "infinity");
    rejects("a1 4161 fbfff0000000000000",
            "cbor: data item of cbor type primitives is not accepted by protocol: "
            "floating-point infinity",
            "minus infinity");
    rejects("a1 4161 f7",
            "cbor: data item of cbor type primitives is not accepted by protocol: simple value "
            "23 is not recognized",
            "undefined");
    rejects("a1 4161 e0",
            "cbor: data item of cbor type primitives is not accepted by protocol: simple value "
            "0 is not recognized",
            "simple value 0");
    rejects("a1 4161 f820",
            "cbor: data item of cbor type primitives is not accepted by protocol: simple value "
            "32 is not recognized",
            "simple value 32");
    rejects("a1 4161 f818", "cbor: invalid simple value 24 for type primitives",
            "a two-byte simple value below 32");
    rejects("a1 4161 62c328", "cbor: invalid UTF-8 string", "invalid UTF-8 in a text string");
    rejects("a1 62c328 01", "cbor: invalid UTF-8 string", "invalid UTF-8 in a text key");
    rejects("a1 4161 1bffffffffffffffff",
            "cbor: cannot unmarshal positive integer into Go value of type int64 "
            "(18446744073709551615 overflows Go's int64)",
            "an unsigned integer past int64");
    rejects("a1 4161 3bffffffffffffffff",
            "cbor: cannot unmarshal negative integer into Go value of type int64 "
            "(-18446744073709551616 overflows Go's int64)",
            "a negative integer past int64");
    rejects("a1 01 01", "cbor: cannot unmarshal positive integer into Go value of type string",
            "an integer key");
    rejects("a1 80 01", "cbor: cannot unmarshal array into Go value of type string",
            "an array key");
}

/* The first pass alone: what kube's typed decode sees before it knows the kind. */
static void
test_check(void)
{
    static const char *const cases[][2] = {
        {"d9d9f7 a1 4161 01", ""},
        {"a1 4161 e0", ""},         /* simple value 0: a second-pass error */
        {"a2 4161 01 4161 02", ""}, /* a duplicate key too */
        {"", "EOF"},
        {"a1 4161", "unexpected EOF"},
        {"a0 00", "cbor: 1 bytes of extraneous data starting at index 1"},
        {"a1 4161 f97e00", "cbor: data item of cbor type primitives is not accepted by protocol: "
                           "floating-point NaN"},
        {"a1 4161 c2 4101", "cbor: data item of cbor type tag is not accepted by protocol: bignum"},
        {"b90401", "cbor: exceeded max number of key-value pairs 1024 for CBOR map"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t in[64];
        size_t n = unhex(cases[i][0], in, sizeof(in));
        char err[256] = "";
        int rc = gw_cbor_check(in, n, err, sizeof(err));
        bool want_ok = cases[i][1][0] == '\0';

        if (!tap_ok(want_ok ? rc == 0 : rc == GW_EINVAL && strcmp(err, cases[i][1]) == 0,
                    "check: %s", cases[i][0]))
            tap_diag("got %d \"%s\", want \"%s\"", rc, err, cases[i][1]);
    }
}

/* Of several errors, the one kube reports. */
static void
test_decode_error_order(void)
{
    /* Which error a document with several reports: pass 1's (syntax, limits, NaN, infinity,
       bignum) anywhere first; then the first in document order, except that a duplicate key
       is what its own map reports. */
    rejects("a2 01 01 4161 f97e00",
            "cbor: data item of cbor type primitives is not accepted by protocol: "
            "floating-point NaN",
            "a NaN anywhere wins over an earlier key of the wrong type");
    rejects("a3 4161 62c328 4162 f7 4163 01 00",
            "cbor: 1 bytes of extraneous data starting at index 12",
            "trailing bytes win over everything inside");
    rejects("a2 4161 62c328 4162 f7", "cbor: invalid UTF-8 string",
            "the first of two errors in a map");
    rejects("a2 4161 82 e0 62c328 4162 01",
            "cbor: data item of cbor type primitives is not accepted by protocol: simple value "
            "0 is not recognized",
            "the first of two errors in an array");
    rejects("a3 4161 e0 4162 01 4162 02",
            "cbor: found duplicate map key \"b\" at map element index 2",
            "a duplicate key wins over an earlier error of its map");
    rejects("a2 4161 e0 4162 a2 4163 01 4163 02",
            "cbor: data item of cbor type primitives is not accepted by protocol: simple value "
            "0 is not recognized",
            "an earlier error wins over a nested map's duplicate key");
    rejects("a3 4161 e0 4161 01 4162 01",
            "cbor: data item of cbor type primitives is not accepted by protocol: simple value "
            "0 is not recognized",
            "a key whose value failed is not a duplicate later");
    rejects("a2 01 f7 4161 01",
            "cbor: cannot unmarshal positive integer into Go value of type string",
            "the value of a bad key is not read");
    rejects("a1 4161 c0 6178", "cbor: cannot set x for time.Time", "tag 0 over a non-time");
}

/* Documents that are no map; tags; syntax errors. */
static void
test_decode_error_types(void)
{
    rejects("80", "cbor: cannot unmarshal array into Go value of type map[string]interface {}",
            "a document that is an array");
    rejects("d9d9f7 4161",
            "cbor: cannot unmarshal byte string into Go value of type map[string]interface {}",
            "a document that is a string");
    rejects("f5", "cbor: cannot unmarshal primitives into Go value of type map[string]interface {}",
            "a document that is true");
    rejects("a1 4161 c2 4101",
            "cbor: data item of cbor type tag is not accepted by protocol: bignum", "a bignum");
    rejects("a1 4161 c3 01", "cbor: data item of cbor type tag is not accepted by protocol: bignum",
            "a bignum tag over an integer");
    rejects("a1 4161 d8 64 c2 4101",
            "cbor: data item of cbor type tag is not accepted by protocol: bignum",
            "a bignum under another tag");
    rejects("a1 4161 c0 01",
            "cbor: tag number 0 must be followed by text string, got positive integer",
            "tag 0 over an integer");
    rejects("a1 4161 c1 6161",
            "cbor: tag number 1 must be followed by integer or floating-point number, got UTF-8 "
            "text string",
            "tag 1 over a string");
    rejects("1c", "cbor: invalid additional information 28 for type positive integer",
            "reserved additional information");
    rejects("a1 4161 1f", "cbor: invalid additional information 31 for type positive integer",
            "an indefinite integer");
    rejects("ff", "cbor: unexpected \"break\" code", "a break outside an indefinite item");
    rejects("bf 4161 ff", "cbor: unexpected \"break\" code", "a key without a value");
    rejects("a1 4161 5f 6161 ff",
            "cbor: wrong element type UTF-8 text string for indefinite-length byte string",
            "a text chunk in a byte string");
    rejects("a1 4161 5f 5f ff ff",
            "cbor: indefinite-length byte string chunk is not definite-length",
            "an indefinite chunk");
    rejects("a1 4161 5bffffffffffffffff",
            "cbor: byte string length 18446744073709551615 is too large, causing integer "
            "overflow",
            "a string length past int64");
    rejects("a1 4161 9bffffffffffffffff",
            "cbor: array length 18446744073709551615 is too large, it would cause integer "
            "overflow",
            "an array length past int64");
    rejects("a1 4161 990401", "cbor: exceeded max number of elements 1024 for CBOR array",
            "an array of 1025");
    rejects("b90401", "cbor: exceeded max number of key-value pairs 1024 for CBOR map",
            "a map of 1025 pairs");
}

/* Nesting and element limits. */
static void
test_decode_limits(void)
{
    char deep[1024], *p;

    /* A map, then 63 arrays: 64 levels pass; one more fails. A tag inside a tag counts as a
       level too (the outermost tag does not). */
    p = deep + sprintf(deep, "a1 4161");
    for (int i = 0; i < 63; i++)
        p += sprintf(p, " 81");
    sprintf(p, " 01");
    {
        char want[256];
        char *w = want + sprintf(want, "{\"a\":");
        for (int i = 0; i < 63; i++)
            *w++ = '[';
        *w++ = '1';
        for (int i = 0; i < 63; i++)
            *w++ = ']';
        strcpy(w, "}");
        decodes(deep, want, "64 levels");
        memmove(deep + 7, deep, strlen(deep) + 1);
        memcpy(deep, "d9d9f7 ", 7);
        decodes(deep, want, "64 levels under the self-described tag");
    }
    p = deep + sprintf(deep, "a1 4161");
    for (int i = 0; i < 64; i++)
        p += sprintf(p, " 81");
    sprintf(p, " 01");
    rejects(deep, "cbor: exceeded max nested level 64", "65 levels");
    p = deep + sprintf(deep, "d9d9f7 d9d9f7 a1 4161");
    for (int i = 0; i < 63; i++)
        p += sprintf(p, " 81");
    sprintf(p, " 01");
    rejects(deep, "cbor: exceeded max nested level 64", "64 levels under two tags");

    {
        /* 1025 elements of an indefinite array; 1024 pass. */
        static uint8_t in[1100];
        size_t n = 0;
        in[n++] = 0xa1, in[n++] = 0x41, in[n++] = 0x61, in[n++] = 0x9f;
        for (int i = 0; i < 1024; i++)
            in[n++] = 0x01;
        in[n++] = 0xff;
        char err[256] = "";
        json_t *v = gw_cbor_decode(in, n, err, sizeof(err));
        tap_ok(v != NULL && json_array_size(json_object_get(v, "a")) == 1024,
               "an indefinite array of 1024");
        json_decref(v);
        in[n - 1] = 0x01;
        in[n++] = 0xff;
        rejects_bytes(in, n, "cbor: exceeded max number of elements 1024 for CBOR array",
                      "an indefinite array of 1025");
    }
}

/* ---- every kind through CBOR and back ------------------------------------------------------- */

#define DEPTH_MAX 6 /* deeper objects are left empty (JSONSchemaProps nests without end) */

static json_t *sample(const gw_schema_t *s, int depth);

static json_t *
sample_object(const gw_proto_message_t *m, int depth, json_t *into)
{
    for (size_t i = 0; m != NULL && i < m->n_fields; i++) {
        const gw_proto_field_t *f = &m->fields[i];
        json_t *v;

        if (f->field == NULL) {
            sample_object(f->inlined, depth, into);
            continue;
        }
        v = depth < DEPTH_MAX ? sample(f->field->schema, depth + 1) : NULL;
        if (v != NULL)
            json_object_set_new(into, f->field->name, v);
    }
    return into;
}

/* One value of s: every scalar type, byte strings, integers and floats, nested maps and lists. */
static json_t *
sample(const gw_schema_t *s, int depth)
{
    json_t *v;

    switch (gw_protobuf__wire_type(s)) {
    case GW_PROTO_TIME:
        return json_string("2024-05-06T07:08:09Z");
    case GW_PROTO_INT_OR_STRING:
        return json_integer(8080);
    case GW_PROTO_QUANTITY:
        return json_string("1Gi");
    case GW_PROTO_RAW_JSON:
        return json_pack("{s:s,s:[i,f,n,b]}", "a", "b", "c", -3, 0.25, true);
    case GW_PROTO_PLAIN:
        break;
    default:
        return json_string("x");
    }
    switch (s->type) {
    case GW_SCHEMA_STRING:
        return json_string(s->format && strcmp(s->format, "byte") == 0 ? "aGk=" : "s");
    case GW_SCHEMA_INTEGER:
        return json_integer(-70000);
    case GW_SCHEMA_NUMBER:
        return json_real(1.5);
    case GW_SCHEMA_BOOLEAN:
        return json_true();
    case GW_SCHEMA_ARRAY:
        v = sample(s->items, depth);
        return v ? json_pack("[o]", v) : NULL;
    case GW_SCHEMA_MAP:
        v = sample(s->values, depth);
        return v ? json_pack("{s:o,s:n}", "k", v, "long-key-of-more-than-24-bytes") : NULL;
    case GW_SCHEMA_OBJECT:
        return s->proto ? sample_object(s->proto, depth, json_object()) : json_object();
    default:
        return json_pack("{s:i}", "any", 1);
    }
}

static int
round_trip(const gw_resource_t *r, const gw_schema_t *s, const char *kind)
{
    char *api_version = gw_resource_api_version(r), err[256] = "";
    json_t *doc = sample(s, 0), *back = NULL;
    uint8_t *bytes = NULL;
    size_t len = 0;
    bool ok;

    json_object_set_new(doc, "apiVersion", json_string(api_version));
    json_object_set_new(doc, "kind", json_string(kind));
    ok = gw_cbor_encode(doc, s, &bytes, &len, err, sizeof(err)) == 0;
    ok = ok && len > 3 && memcmp(bytes, GW_CBOR_SELF_DESCRIBED, 3) == 0;
    if (ok)
        back = gw_cbor_decode(bytes, len, err, sizeof(err));
    ok = back != NULL && json_equal(doc, back);
    if (!tap_ok(ok, "%s %s: JSON -> CBOR -> the same JSON", api_version, kind))
        tap_diag("%s", err);
    free(api_version);
    free(bytes);
    json_decref(doc);
    json_decref(back);
    return ok ? 1 : 0;
}

static void
test_kinds(void)
{
    const gw_catalog_t *c = NULL;
    char err[256];
    size_t total = 0, passed = 0;

    if (gw_catalog_configure(gw_catalog_builtin(), "api/all=true", &c, err, sizeof(err)) != 0)
        tap_diag("%s", err);
    for (size_t i = 0; c != NULL && i < gw_catalog_count(c); i++) {
        const gw_resource_t *r = gw_catalog_at(c, i);
        if (r->schema == NULL)
            continue;
        total++;
        passed += (size_t)round_trip(r, r->schema, r->kind);
        if (r->list_schema != NULL) {
            total++;
            passed += (size_t)round_trip(r, r->list_schema, r->list_kind);
        }
    }
    tap_ok(total > 100 && passed == total, "%zu of %zu kinds and list kinds of every version",
           passed, total);
}

int
main(void)
{
    const gw_catalog_t *c = gw_catalog_builtin();

    test_documents(c);
    test_integers();
    test_floats();
    test_encode_errors();
    test_watch_event();
    test_decode();
    test_decode_errors();
    test_decode_error_order();
    test_decode_error_types();
    test_decode_limits();
    test_check();
    test_kinds();
    return tap_done();
}
