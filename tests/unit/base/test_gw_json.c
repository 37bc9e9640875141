/* Unit tests for gateway/base/gw_json: whatever text or document, the same result as
 * Jansson's json_loadb and json_dumps (values, key order, errors and their positions). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_json.h"
#include "tap.h"

static const size_t dump_flags[] = {
    JSON_COMPACT,
    JSON_COMPACT | JSON_ENCODE_ANY,
    0,
    JSON_ENCODE_ANY,
    JSON_INDENT(2),
    JSON_INDENT(3) | JSON_SORT_KEYS,
    JSON_INDENT(1) | JSON_COMPACT,
    JSON_COMPACT | JSON_SORT_KEYS,
    JSON_SORT_KEYS,
    JSON_COMPACT | JSON_ENSURE_ASCII,
    JSON_COMPACT | JSON_REAL_PRECISION(5),
};
#define N_DUMP_FLAGS (sizeof(dump_flags) / sizeof(dump_flags[0]))

static int
same_text(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Every dump of doc as json_dumps writes it; 1 when all agree. */
static int
dumps_agree(const json_t *doc, const char *what)
{
    for (size_t i = 0; i < N_DUMP_FLAGS; i++) {
        char *want = json_dumps(doc, dump_flags[i]), *got = gw_json_dumps(doc, dump_flags[i]);
        int same = same_text(want, got);
        if (!same)
            tap_diag("%s, flags %#zx: jansson %s, gw_json %s", what, dump_flags[i],
                     want ? want : "(null)", got ? got : "(null)");
        free(want);
        free(got);
        if (!same)
            return 0;
    }
    return 1;
}

/* text read both ways with flags: the same document (same dump, keys in the same order), or
 * both refused with the same error at the same place. */
static int
loads_agree(const char *text, size_t len, size_t flags)
{
    json_error_t we, ge;
    json_t *want = json_loadb(text, len, flags, &we), *got;
    int same;

    memset(&ge, 0x5a, sizeof(ge));
    got = gw_json_loadb(text, len, flags, &ge);
    if (want == NULL || got == NULL) {
        same = want == got && strcmp(we.text, ge.text) == 0 && we.line == ge.line &&
               we.column == ge.column && we.position == ge.position;
    } else {
        char *a = json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT);
        char *b = json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT);
        same = json_equal(want, got) && same_text(a, b) && strcmp(we.text, ge.text) == 0 &&
               we.line == ge.line && we.column == ge.column && strcmp(we.source, ge.source) == 0 &&
               dumps_agree(got, "read back");
        free(a);
        free(b);
    }
    if (!same)
        tap_diag("text %.*s (flags %#zx): jansson %s, gw_json %s", (int)(len > 200 ? 200 : len),
                 text, flags, want ? "a document" : we.text, got ? "a document" : ge.text);
    json_decref(want);
    json_decref(got);
    return same;
}

/* Equal documents, with their members in the same order. */
static int
same_docs(json_t *want, json_t *got)
{
    int same = want == got || (want != NULL && got != NULL && json_equal(want, got));

    if (same && want != NULL) {
        char *a = json_dumps(want, JSON_COMPACT), *b = json_dumps(got, JSON_COMPACT);
        same = same_text(a, b);
        free(a);
        free(b);
    }
    return same;
}

/* Keys "<member>.<name>": of metadata only name and labels.app, of spec only x.y (and spec
 * whole where it is not an object). */
static int
some_members_agree(const char *text, size_t len)
{
    static const char *const keys[] = {"kind", "metadata.name", "metadata.labels.app", "spec.x.y"};
    json_t *want = json_loadb(text, len, 0, NULL), *got, *v, *w, *m;
    const char *k, *l;
    void *tmp, *tmp2;
    int same;

    if (!json_is_object(want)) {
        json_decref(want);
        want = NULL;
    }
    json_object_foreach_safe(want, tmp, k, v)
    {
        if (strcmp(k, "kind") != 0 && strcmp(k, "metadata") != 0 && strcmp(k, "spec") != 0)
            json_object_del(want, k);
    }
    json_object_foreach_safe(json_object_get(want, "metadata"), tmp, k, v)
    {
        if (strcmp(k, "name") != 0 && strcmp(k, "labels") != 0)
            json_object_del(json_object_get(want, "metadata"), k);
    }
    m = json_object_get(json_object_get(want, "metadata"), "labels");
    json_object_foreach_safe(m, tmp2, l, w)
    {
        if (strcmp(l, "app") != 0)
            json_object_del(m, l);
    }
    json_object_foreach_safe(json_object_get(want, "spec"), tmp, k, v)
    {
        if (strcmp(k, "x") != 0)
            json_object_del(json_object_get(want, "spec"), k);
        else if (json_is_object(v))
            json_object_foreach_safe(v, tmp2, l, w)
            {
                if (strcmp(l, "y") != 0)
                    json_object_del(v, l);
            }
    }
    got = gw_json_load_members(text, len, keys, sizeof(keys) / sizeof(keys[0]));
    same = same_docs(want, got);
    if (!same)
        tap_diag("some members of %.*s differ", (int)(len > 200 ? 200 : len), text);
    json_decref(want);
    json_decref(got);
    return same;
}

/* gw_json_load_members keeps what json_loadb reads, less the members not asked for. */
static int
members_agree(const char *text, size_t len)
{
    static const char *const keys[] = {"kind", "metadata", "a", "k\u00e9y", "dup"};
    json_t *want = json_loadb(text, len, 0, NULL), *got, *v;
    const char *k;
    void *tmp;
    int same;

    if (!json_is_object(want)) {
        json_decref(want);
        want = NULL;
    }
    json_object_foreach_safe(want, tmp, k, v)
    {
        if (strcmp(k, "kind") != 0 && strcmp(k, "metadata") != 0 && strcmp(k, "a") != 0 &&
            strcmp(k, "k\u00e9y") != 0 && strcmp(k, "dup") != 0)
            json_object_del(want, k);
    }
    got = gw_json_load_members(text, len, keys, sizeof(keys) / sizeof(keys[0]));
    same = same_docs(want, got);
    json_decref(want);
    json_decref(got);
    if (!same)
        tap_diag("members of %.*s differ", (int)(len > 200 ? 200 : len), text);
    return same && some_members_agree(text, len);
}

static int
loads_agree_str(const char *text)
{
    return loads_agree(text, strlen(text), 0) && loads_agree(text, strlen(text), JSON_DECODE_ANY) &&
           members_agree(text, strlen(text));
}

static void
test_documents(void)
{
    static const char *const docs[] = {
        "{}",
        "[]",
        " \t\r\n{ \"a\" : 1 , \"b\" : [ true , false , null ] } \n",
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\",\"labels\":"
        "{\"app\":\"x\"}},\"data\":{\"k\":\"v\"}}",
        "{\"kind\":\"K\",\"metadata\":{\"uid\":\"u\",\"name\":\"n\",\"labels\":{\"b\":\"1\","
        "\"app\":\"a\"},\"managedFields\":[{\"f\":{}}]},\"spec\":{\"x\":{\"y\":[1],\"z\":2},"
        "\"w\":3},\"status\":{}}",
        "{\"metadata\":[1],\"spec\":{\"x\":\"s\"}}",
        "{\"metadata\":{\"labels\":null,\"name\":{\"deep\":1}},\"spec\":5}",
        "{\"b\":1,\"a\":2,\"c\":{\"z\":[],\"y\":{}}}",
        "{\"dup\":1,\"other\":2,\"dup\":3}",
        "[0,-0,1,-1,9223372036854775807,-9223372036854775808,1234567890]",
        "[0.0,-0.0,1.5,-2.25e3,1E2,1e+2,1e-2,3.141592653589793,1e-400,2.5E-310]",
        "[\"\",\"plain\",\"q\\\"b\\\\s\\/\\b\\f\\n\\r\\t\",\"\\u00e9\\u20ac\\ud83d\\ude00\"]",
        "[\"caf\xc3\xa9\",\"\xe2\x82\xac\",\"\xf0\x9f\x98\x80\",\"del\x7f\"]",
        "{\"k\\u00e9y\":{\"n\\ne\":\"x\"},\"k\\\"\":1}",
        "[[[[[[[[[[1]]]]]]]]]]",
        "{\"a\":{\"b\":{\"c\":{\"d\":\"e\\u0041\"}}}}",
        "\"top\"",
        "42",
        "-7.5",
        "true",
        "null",
        "  [1 , 2 ]  ",
        "{\"kind\":\"K\",\"data\":{\"x\":[1,{\"y\":\"\\u00e9\"}],\"kind\":2},\"metadata\":{"
        "\"name\":\"n\"},\"dup\":1,\"dup\":[2],\"met\\u0061data\":3,\"k\\u00e9y\":4}",
    };
    int ok = 1;

    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
        ok &= loads_agree_str(docs[i]);
    tap_ok(ok, "documents Jansson reads are read alike: values, key order, duplicates, numbers, "
               "escapes, UTF-8, scalars at the top with JSON_DECODE_ANY; and read for some "
               "members only, the same members");
}

static void
test_refused(void)
{
    static const char *const bad[] = {
        "",
        "   ",
        "{",
        "[1,]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{a:1}",
        "[01]",
        "[1.]",
        "[.5]",
        "[-]",
        "[1e]",
        "[+1]",
        "[tru]",
        "[truex]",
        "[nul]",
        "[1x]",
        "[9223372036854775808]",
        "[-9223372036854775809]",
        "[1e400]",
        "[-1e400]",
        "[\"\\u0000\"]",
        "{\"\\u0000\":1}",
        "[\"\\ud800\"]",
        "[\"\\udc00\"]",
        "[\"\\ud800\\u0041\"]",
        "[\"\\x\"]",
        "[\"\\u12g4\"]",
        "[\"tab\there\"]",
        "[\"\xc3\"]",
        "[\"\xc0\xaf\"]",
        "[\"\xed\xa0\x80\"]",
        "[\"\xf4\x90\x80\x80\"]",
        "[\"\xff\"]",
        "[\"open",
        "[1] [2]",
        "{} x",
        "\xef\xbb\xbf{}",
        "[1,2",
    };
    int ok = 1;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ok &= loads_agree_str(bad[i]);
    ok &= loads_agree("[\"a\0b\"]", 7, 0) && loads_agree("{}\0", 3, 0);
    tap_ok(ok, "text Jansson refuses is refused with its error, line, column and position (and "
               "refused when read for some members)");
    ok = loads_agree_str("\"x\"") && loads_agree("[1]", 3, JSON_DISABLE_EOF_CHECK) &&
         loads_agree("[1] 2", 5, JSON_DISABLE_EOF_CHECK) &&
         loads_agree("[1,2]", 5, JSON_DECODE_INT_AS_REAL) &&
         loads_agree("{\"a\":1,\"a\":2}", 13, JSON_REJECT_DUPLICATES);
    tap_ok(ok, "other flags are Jansson's: EOF check off, integers as reals, duplicates refused");
}

static void
test_depth(void)
{
    size_t n = 3000;
    char *deep = malloc(2 * n + 1);
    int ok;

    for (size_t d = 1000; d <= n; d += 1000) {
        memset(deep, '[', d);
        memset(deep + d, ']', d);
        ok = loads_agree(deep, 2 * d, 0);
        tap_ok(ok, "%zu nested arrays: the same document or Jansson's depth error", d);
    }
    free(deep);
}

static void
test_dumps(void)
{
    json_t *doc =
        json_pack("{s:s,s:i,s:f,s:b,s:n,s:[s,s,s],s:{}}", "ctl", "a\x01\x1f\"\\/\x7f", "int", -42,
                  "real", 0.1, "t", 1, "nil", "arr", "", "\xc3\xa9", "\t\n", "obj");
    json_t *nul = json_stringn("a\0b", 3), *bad = json_stringn_nocheck("\xff", 1);
    json_t *seven = json_integer(7);
    int ok;

    json_object_set_new(doc, "big", json_integer(INT64_MIN));
    json_object_set_new(doc, "reals", json_pack("[f,f,f,f]", 1e300, -0.0, 100.0, 1.0 / 3));
    json_object_setn_new(doc, "k\0ey", 4, json_true());
    /* more members than the writer keeps on its stack, keys that prefix each other */
    json_t *many = json_object();
    static const char *const keys[] = {"b", "a", "ab", "", "B", "\xc3\xa9", "a\x7f", "aa", "ba"};
    for (int i = 0; i < 40; i++) {
        char k[16];
        snprintf(k, sizeof(k), "%s%d", keys[i % 9], 40 - i);
        json_object_set_new(many, k, json_integer(i));
    }
    for (int i = 0; i < 9; i++)
        json_object_set_new(many, keys[i], json_string(keys[i]));
    json_object_set_new(doc, "many", many);
    ok = dumps_agree(doc, "object") && dumps_agree(nul, "NUL string") &&
         dumps_agree(bad, "invalid UTF-8") && dumps_agree(seven, "integer") &&
         dumps_agree(NULL, "no document");
    tap_ok(ok,
           "json_dumps' bytes for every flag set: escapes, controls as \\u00XX, integers, reals "
           "in Jansson's form, keys with NUL, invalid UTF-8 refused, scalars only with "
           "JSON_ENCODE_ANY");
    gw_buf_t b = {0};
    gw_buf_str(&b, "x");
    tap_ok(gw_json_dump_buf(bad, JSON_ENCODE_ANY, &b) == -1 && b.len == 1 &&
               gw_json_dump_buf(doc, JSON_COMPACT, &b) == 0 && b.data[0] == 'x' && b.data[1] == '{',
           "gw_json_dump_buf appends, and leaves the buffer as it was when the dump fails");
    gw_buf_free(&b);
    json_decref(doc);
    json_decref(nul);
    json_decref(bad);
    json_decref(seven);
}

/* Strings long enough to be passed over a word at a time, with each kind of byte that ends
 * a plain run at each position: read and written alike. */
static void
test_long_strings(void)
{
    static const char *const odd[] = {"\\\"", "\\n",  "\\u00e9", "\xc3\xa9", "\x7f",    " ",
                                      "~",    "\x01", "\"",      "\xff",     "\xe2\x82"};
    int ok = 1;

    for (size_t k = 0; k < sizeof(odd) / sizeof(odd[0]); k++) {
        for (int at = 0; at < 40; at++) {
            char text[128];
            int n = snprintf(text, sizeof(text), "[\"%.*s%s%.*s\"]", at,
                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", odd[k],
                             40 - at, "0123456789012345678901234567890123456789");
            ok &= loads_agree(text, (size_t)n, 0) && members_agree(text, (size_t)n);
            json_t *str = json_loadb(text, (size_t)n, 0, NULL);
            if (str == NULL)
                str = json_stringn_nocheck(text + 2, (size_t)n - 4); /* as it is, invalid or not */
            ok &= dumps_agree(str, "long string");
            json_decref(str);
        }
    }
    tap_ok(ok, "long strings with a quote, escape, control, DEL, non-ASCII or invalid byte at "
               "any position: read and written as Jansson does");
}

/* Random texts: pieces of JSON and bytes that break it, glued together; and mutations of a
 * real object. Reading each must agree with Jansson. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned
rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void
test_random(void)
{
    static const char *const pieces[] = {
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\"k\"",
        "\"v\\n\"",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\ud800",
        "1",
        "-0",
        "0.5",
        "1e3",
        "-",
        "e",
        "true",
        "false",
        "null",
        " ",
        "\n",
        "\xc3\xa9",
        "\xc3",
        "\x01",
        "\\",
        "9223372036854775807",
        "99999999999999999999",
    };
    const char *base =
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
        "\"cm\",\"labels\":{\"a\":\"b\"}},\"data\":{\"k\":\"v \\u00e9\"},\"n\":[1,2.5,"
        "true,null]}";
    char text[512];
    int fails = 0, valid = 0;

    for (int i = 0; i < 20000; i++) {
        size_t len = 0;
        if (i % 2 == 0) {
            for (int k = rnd(12) + 1; k > 0; k--) {
                const char *p = pieces[rnd(sizeof(pieces) / sizeof(pieces[0]))];
                memcpy(text + len, p, strlen(p));
                len += strlen(p);
            }
        } else {
            len = strlen(base);
            memcpy(text, base, len);
            for (int k = rnd(3) + 1; k > 0; k--)
                text[rnd((unsigned)len)] = "{}[],:\"\\ 0-.eu\x80"[rnd(16)];
        }
        json_t *v = json_loadb(text, len, JSON_DECODE_ANY, NULL);
        valid += v != NULL;
        json_decref(v);
        fails += !loads_agree(text, len, JSON_DECODE_ANY) || !loads_agree(text, len, 0) ||
                 !members_agree(text, len);
    }
    tap_ok(fails == 0,
           "20000 random texts (%d of them JSON) read as Jansson reads them, whole and for some "
           "members",
           valid);
}

int
main(void)
{
    test_documents();
    test_refused();
    test_depth();
    test_dumps();
    test_long_strings();
    test_random();
    return tap_done();
}
