/* Unit tests for gateway/encoding/gw_gojson: encoding/json's SyntaxError messages for every
 * context its scanner names (cases marked "Go:" are from Go's own decode_test.go and
 * scanner_test.go), the end of input, the depth limit, Go's quoting of the refused byte, and
 * the text Go takes that Jansson alone refuses. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_gojson.h"
#include "tap.h"

typedef struct {
    const char *name;
    const char *text;
    size_t len; /* 0: strlen(text) */
    const char *msg;
} bad_case_t;

static const bad_case_t bad[] = {
    {"Go: a key without a value", "{\"X\": \"foo\", \"Y\"}", 0,
     "invalid character '}' after object key"},
    {"Go: pairs without a comma", "{\"X\": \"foo\" \"Y\": \"bar\"}", 0,
     "invalid character '\"' after object key:value pair"},
    {"Go: a plus after an element", "[1, 2, 3+]", 0, "invalid character '+' after array element"},
    {"Go: a letter after a number value", "{\"X\":12x}", 0,
     "invalid character 'x' after object key:value pair"},
    {"Go: an unclosed array", "[2, 3", 0, "unexpected end of JSON input"},
    {"Go: a lone minus", "{\"F3\": -}", 0, "invalid character '}' in numeric literal"},
    {"Go: a control byte first", "\x01 42", 0,
     "invalid character '\\x01' looking for beginning of value"},
    {"Go: a control byte after the value", " 42 \x01", 0,
     "invalid character '\\x01' after top-level value"},
    {"Go: an empty text", "", 0, "unexpected end of JSON input"},
    {"Go: only spaces", " \n\r\t", 0, "unexpected end of JSON input"},
    {"kube's summary case: a value missing at the end", "{\"kind\": ", 0,
     "unexpected end of JSON input"},
    {"a value missing before the brace", "{\"kind\": }", 0,
     "invalid character '}' looking for beginning of value"},
    {"a trailing comma in an array", "[1,]", 0,
     "invalid character ']' looking for beginning of value"},
    {"a trailing comma in an object", "{\"a\":1,}", 0,
     "invalid character '}' looking for beginning of object key string"},
    {"a bare key", "{a:1}", 0, "invalid character 'a' looking for beginning of object key string"},
    {"a key without a colon", "{\"a\" 1}", 0, "invalid character '1' after object key"},
    {"a second value", "{} {}", 0, "invalid character '{' after top-level value"},
    {"a leading zero", "01", 0, "invalid character '1' after top-level value"},
    {"a leading zero in an array", "[01]", 0, "invalid character '1' after array element"},
    {"a raw newline in a string", "\"a\nb\"", 0, "invalid character '\\n' in string literal"},
    {"a raw tab in a string", "\"a\tb\"", 0, "invalid character '\\t' in string literal"},
    {"a NUL in a string", "\"a\0b\"", 5, "invalid character '\\x00' in string literal"},
    {"an unknown escape", "\"\\q\"", 0, "invalid character 'q' in string escape code"},
    {"a short \\u escape", "\"\\u12g4\"", 0,
     "invalid character 'g' in \\u hexadecimal character escape"},
    {"a minus and a letter", "-x", 0, "invalid character 'x' in numeric literal"},
    {"a point and a letter", "1.x", 0,
     "invalid character 'x' after decimal point in numeric literal"},
    {"an exponent without digits", "1ex", 0,
     "invalid character 'x' in exponent of numeric literal"},
    {"a signed exponent without digits", "[1e+]", 0,
     "invalid character ']' in exponent of numeric literal"},
    {"true misspelt at r", "tx", 0, "invalid character 'x' in literal true (expecting 'r')"},
    {"true misspelt at u", "trx", 0, "invalid character 'x' in literal true (expecting 'u')"},
    {"true misspelt at e", "trux", 0, "invalid character 'x' in literal true (expecting 'e')"},
    {"false misspelt at a", "fx", 0, "invalid character 'x' in literal false (expecting 'a')"},
    {"false misspelt at l", "fax", 0, "invalid character 'x' in literal false (expecting 'l')"},
    {"false misspelt at s", "falx", 0, "invalid character 'x' in literal false (expecting 's')"},
    {"false misspelt at e", "falsx", 0, "invalid character 'x' in literal false (expecting 'e')"},
    {"null misspelt at u", "nx", 0, "invalid character 'x' in literal null (expecting 'u')"},
    {"null misspelt at the first l", "nux", 0,
     "invalid character 'x' in literal null (expecting 'l')"},
    {"null misspelt at the second l", "nulx", 0,
     "invalid character 'x' in literal null (expecting 'l')"},
    {"Python's True", "True", 0, "invalid character 'T' looking for beginning of value"},
    /* Go's scanner.eof feeds a space: what a space cannot end is named with ' ' */
    {"a literal cut short", "tru", 0, "invalid character ' ' in literal true (expecting 'e')"},
    {"a minus at the end", "-", 0, "invalid character ' ' in numeric literal"},
    {"a point at the end", "1.", 0, "invalid character ' ' after decimal point in numeric literal"},
    {"an exponent at the end", "123e", 0, "invalid character ' ' in exponent of numeric literal"},
    {"an escape at the end", "\"\\", 0, "invalid character ' ' in string escape code"},
    {"a \\u escape at the end", "\"\\u00", 0,
     "invalid character ' ' in \\u hexadecimal character escape"},
    {"a string at the end", "\"abc", 0, "unexpected end of JSON input"},
    {"an object at the end", "{\"a\":1", 0, "unexpected end of JSON input"},
    {"an object after a comma at the end", "{\"a\":1,", 0, "unexpected end of JSON input"},
    /* quoteChar */
    {"a single quote", "'a'", 0, "invalid character '\\'' looking for beginning of value"},
    {"a backslash", "\\", 0, "invalid character '\\\\' looking for beginning of value"},
    {"a vertical tab", "\v", 0, "invalid character '\\v' looking for beginning of value"},
    {"an escape byte", "\x1b", 0, "invalid character '\\x1b' looking for beginning of value"},
    {"DEL", "\x7f", 0, "invalid character '\\x7f' looking for beginning of value"},
    {"a NUL after the value", "{}\0", 3, "invalid character '\\x00' after top-level value"},
    {"UTF-8 outside a string: its first byte as a Latin-1 rune", "\xc3\xa9", 0,
     "invalid character '\xc3\x83' looking for beginning of value"},
    {"a C1 control byte", "\x80", 0, "invalid character '\\u0080' looking for beginning of value"},
    {"a no-break space byte", "\xa0", 0,
     "invalid character '\\u00a0' looking for beginning of value"},
    {"a soft hyphen byte", "\xad", 0, "invalid character '\\u00ad' looking for beginning of value"},
    {"0xff", "[1,\xff]", 0, "invalid character '\xc3\xbf' looking for beginning of value"},
};

static const char *const good[] = {
    "{}",
    "[]",
    "[ ]",
    "{ }",
    " 1 ",
    "-0.5e+10",
    "0",
    "1E-2",
    "\"\"",
    "true",
    "false",
    "null",
    "{\"a\":[1,{\"b\":null}],\"c\":\"\\u00e9\\n\\\"\"}",
    "\"\\ud800\"",
    "\"\xff\xfe\"",
    "\"\xed\xa0\x80\"",
};

static void
test_bad(void)
{
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char msg[128] = "";
        size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);
        bool is_bad = gw_gojson_syntax_error(bad[i].text, len, msg, sizeof(msg));
        tap_ok(is_bad, "%s: refused", bad[i].name);
        tap_is_str(msg, bad[i].msg, bad[i].name);
    }
}

static void
test_good(void)
{
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        char msg[128] = "untouched";
        tap_ok(!gw_gojson_syntax_error(good[i], strlen(good[i]), msg, sizeof(msg)),
               "valid to Go: %s", good[i]);
        tap_is_str(msg, "untouched", "... and the message is left alone");
    }
}

static char *
nested(size_t depth, bool close)
{
    char *s = malloc(2 * depth + 1);
    memset(s, '[', depth);
    memset(s + depth, close ? ']' : ' ', depth);
    s[2 * depth] = '\0';
    return s;
}

static void
test_depth(void)
{
    char msg[128] = "";
    char *s = nested(GW_GOJSON_MAX_DEPTH, true);
    tap_ok(!gw_gojson_syntax_error(s, strlen(s), msg, sizeof(msg)), "10000 nested arrays: valid");
    free(s);
    s = nested(GW_GOJSON_MAX_DEPTH + 1, true);
    tap_ok(gw_gojson_syntax_error(s, strlen(s), msg, sizeof(msg)), "10001 nested arrays: refused");
    tap_is_str(msg, "invalid character '[' exceeded max depth", "... with Go's depth message");
    free(s);
    s = nested(GW_GOJSON_MAX_DEPTH, false);
    gw_gojson_syntax_error(s, strlen(s), msg, sizeof(msg));
    tap_is_str(msg, "unexpected end of JSON input", "10000 open arrays: the end of input");
    free(s);
    /* an object at the limit: the 10001st opening is refused whichever kind it is */
    size_t n = GW_GOJSON_MAX_DEPTH;
    s = malloc(6 * n + 2);
    for (size_t i = 0; i < n; i++)
        memcpy(s + 5 * i, "{\"a\":", 5);
    strcpy(s + 5 * n, "{");
    gw_gojson_syntax_error(s, strlen(s), msg, sizeof(msg));
    tap_is_str(msg, "invalid character '{' exceeded max depth", "objects count toward the limit");
    free(s);
}

static void
test_short_buffer(void)
{
    char msg[12];
    tap_ok(gw_gojson_syntax_error("}", 1, msg, sizeof(msg)), "a short buffer: still refused");
    tap_is_str(msg, "invalid cha", "... with the message cut to fit");
}

static void
check_load(const char *name, const char *text, size_t len, const char *want_json)
{
    char err[256] = "";
    json_t *doc = gw_gojson_load(text, len ? len : strlen(text), JSON_DECODE_ANY, err, sizeof(err));
    char *got = doc ? json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (!tap_ok(got != NULL && strcmp(got, want_json) == 0, "%s", name))
        tap_diag("  got %s (%s), want %s", got ? got : "NULL", err, want_json);
    free(got);
    json_decref(doc);
}

static void
check_refused(const char *name, const char *text, size_t len, size_t flags, const char *want)
{
    char err[256] = "";
    json_t *doc = gw_gojson_load(text, len ? len : strlen(text), flags, err, sizeof(err));
    tap_ok(doc == NULL, "%s: refused", name);
    if (!tap_ok(strstr(err, want) != NULL, "... %s", want))
        tap_diag("  got %s", err);
    json_decref(doc);
}

static void
test_load(void)
{
    check_load("Jansson's own parse", "{\"a\":[1,\"\\ud83d\\ude00\"]}", 0,
               "{\"a\":[1,\"\xf0\x9f\x98\x80\"]}");
    check_load("Go: a bad byte in a string is U+FFFD", "\"hello\xffworld\"", 0,
               "\"hello\xef\xbf\xbdworld\"");
    check_load("Go: each bad byte is one U+FFFD", "\"hello\xc2\xc2world\"", 0,
               "\"hello\xef\xbf\xbd\xef\xbf\xbdworld\"");
    check_load("Go: a lone high surrogate escape is U+FFFD", "\"hello\\ud800world\"", 0,
               "\"hello\xef\xbf\xbdworld\"");
    check_load("Go: two high surrogates are two U+FFFD", "\"hello\\ud800\\ud800world\"", 0,
               "\"hello\xef\xbf\xbd\xef\xbf\xbdworld\"");
    check_load(
        "Go: an encoded surrogate pair is six U+FFFD", "\"hello\xed\xa0\x80\xed\xb0\x80world\"", 0,
        "\"hello\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdworld"
        "\"");
    check_load("a lone low surrogate escape", "{\"k\":\"\\udc00\"}", 0, "{\"k\":\"\xef\xbf\xbd\"}");
    check_load("a high surrogate before a pair", "[\"\\uD800\\uD83D\\uDE00\"]", 0,
               "[\"\xef\xbf\xbd\xf0\x9f\x98\x80\"]");
    check_load("an escaped backslash before u is no escape", "[\"\\\\ud800\", \"\xff\"]", 0,
               "[\"\\\\ud800\",\"\xef\xbf\xbd\"]");
    check_load("a bad byte in a key", "{\"\xc0\":1}", 0, "{\"\xef\xbf\xbd\":1}");
    check_load("an overlong form", "\"\xe0\x80\x80\"", 0,
               "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    check_load("beyond U+10FFFF", "\"\xf4\x90\x80\x80\"", 0,
               "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    check_load("a sequence cut by the quote", "\"\xe2\x82\"", 0, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
    check_load("good UTF-8 is left alone", "[\"\xc3\xa9\xe2\x82\xac\", \"\\ue000\"]", 0,
               "[\"\xc3\xa9\xe2\x82\xac\",\"\xee\x80\x80\"]");

    check_refused("not JSON", "{\"kind\": ", 0, 0, "unexpected end of JSON input");
    check_refused("bad UTF-8 and not JSON", "{\"a\":\"\xff\",}", 0, 0,
                  "invalid character '}' looking for beginning of object key string");
    check_refused("a NUL after the value, which Jansson takes for the end", "{}\0", 3, 0,
                  "invalid character '\\x00' after top-level value");
    check_refused("a \\u0000 Jansson cannot hold", "{\"a\":\"\\u0000\"}", 0, 0, "(line 1, column ");
    check_refused("a real beyond double", "{\"a\":1e400}", 0, 0, "(line 1, column ");
    check_refused("a scalar without JSON_DECODE_ANY", "\"x\"", 0, 0, "(line 1, column ");
}

int
main(void)
{
    test_bad();
    test_good();
    test_depth();
    test_short_buffer();
    test_load();
    return tap_done();
}
