/* Unit tests for gw_gojson_unmarshal_map (gateway/encoding/gw_gojson.c): what Go's json.Unmarshal
 * into a map[string]interface{} says of bytes, message for message (the scanner's states, Go's
 * quoting of the offending byte, end of input, the decoder's type errors). */
#include <stdlib.h>
#include <string.h>

#include "gw_gojson.h"
#include "tap.h"

static void
is(const char *in, size_t n, const char *want, const char *name)
{
    char *got = gw_gojson_unmarshal_map((const unsigned char *)in, n);

    tap_is_str(got, want, name);
    free(got);
}

/* A NUL-free input. */
static void
is_s(const char *in, const char *want, const char *name)
{
    is(in, strlen(in), want, name);
}

/* in copied into a buffer of exactly its size, so the sanitizer sees any read past it */
static void
is_exact(const char *in, const char *want, const char *name)
{
    size_t n = strlen(in);
    char *copy = malloc(n);

    memcpy(copy, in, n);
    is(copy, n, want, name);
    free(copy);
}

static void
test_valid(void)
{
    is_s("{}", NULL, "an empty object");
    is_s(" \t\r\n{\"auths\":{\"r.io\":{\"auth\":\"eDp5\",\"n\":[1,-0.5e+3,true,null]}}}\n", NULL,
         "a docker config with spaces around");
    is_s("null", NULL, "null leaves the map nil: no error");
    is_s("{\"a\":1e-400}", NULL, "a number that underflows is 0, no error");
    is_exact("{\"a\":[1,2.5e3]}", NULL, "numbers read within the input's bounds");
    is_exact("{\"a\":-1e400}", "json: cannot unmarshal number -1e400 into Go value of type float64",
             "... also the one that does not fit");
    is_s("{\"a\":\"1e400\",\"b\":\"\\u00e9\\\"\"}", NULL, "strings with escapes");
    is_s("{\"\xff\":\"\xc3\"}", NULL, "bad UTF-8 in strings is accepted");
}

static void
test_end_of_input(void)
{
    is_s("", "unexpected end of JSON input", "empty input");
    is_s("  \n", "unexpected end of JSON input", "only spaces");
    is_s("{", "unexpected end of JSON input", "an unclosed object");
    is_s("{\"a\":1", "unexpected end of JSON input", "a number then the end");
    is_s("{\"a\":\"x", "unexpected end of JSON input", "an unclosed string");
    is_s("tru", "invalid character ' ' in literal true (expecting 'e')",
         "a cut literal: the end is read as a space");
    is_s("nul", "invalid character ' ' in literal null (expecting 'l')", "a cut null");
    is_s("-", "invalid character ' ' in numeric literal", "a lone minus");
    is_s("{\"a\":\"\\", "invalid character ' ' in string escape code", "a cut escape");
}

static void
test_syntax(void)
{
    is_s("x", "invalid character 'x' looking for beginning of value", "a bare word");
    is_s("{'a':1}", "invalid character '\\'' looking for beginning of object key string",
         "a single-quoted key: Go's quoting of '");
    is_s("{\"a\" 1}", "invalid character '1' after object key", "no colon");
    is_s("{\"a\":1 \"b\":2}", "invalid character '\"' after object key:value pair",
         "no comma between members: Go's quoting of \"");
    is_s("[1 2]", "invalid character '2' after array element", "no comma between elements");
    is_s("{} x", "invalid character 'x' after top-level value", "text after the value");
    is_s("{}{}", "invalid character '{' after top-level value", "two values");
    is_s("{\"a\":tru}", "invalid character '}' in literal true (expecting 'e')", "true cut");
    is_s("{\"a\":fxlse}", "invalid character 'x' in literal false (expecting 'a')", "false typo");
    is_s("{\"a\":-}", "invalid character '}' in numeric literal", "minus alone");
    is_s("{\"a\":1.}", "invalid character '}' after decimal point in numeric literal", "1.");
    is_s("{\"a\":1e}", "invalid character '}' in exponent of numeric literal", "1e");
    is_s("{\"a\":1e+}", "invalid character '}' in exponent of numeric literal", "1e+");
    is_s("{\"a\":01}", "invalid character '1' after object key:value pair",
         "a leading zero ends the number");
    is_s("01", "invalid character '1' after top-level value", "a top-level leading zero");
    is_s("{\"a\":\"\\x\"}", "invalid character 'x' in string escape code", "a bad escape");
    is_s("{\"a\":\"\\u12g4\"}", "invalid character 'g' in \\u hexadecimal character escape",
         "a bad \\u escape");
    is_s("{\"a\":\"\t\"}", "invalid character '\\t' in string literal", "a raw tab in a string");
    is_s("{\"a\":\"\x01\"}", "invalid character '\\x01' in string literal", "a control byte");
    is_s("[1,]", "invalid character ']' looking for beginning of value", "a trailing comma");
    is_s("{\"a\":1,}", "invalid character '}' looking for beginning of object key string",
         "a trailing comma in an object");
    is_s("\\", "invalid character '\\\\' looking for beginning of value", "a backslash");
    is_s("\x7f", "invalid character '\\x7f' looking for beginning of value", "DEL");
    is_s("\x80", "invalid character '\\u0080' looking for beginning of value",
         "a byte read as U+0080 (not printable)");
    is_s("\xa0", "invalid character '\\u00a0' looking for beginning of value", "U+00A0");
    is_s("\xef\xbb\xbf{}", "invalid character '\xc3\xaf' looking for beginning of value",
         "a byte-order mark: its first byte as the rune U+00EF");
    is("\0", 1, "invalid character '\\x00' looking for beginning of value", "a NUL byte");
}

static void
test_depth(void)
{
    size_t n = 10001;
    char *deep = malloc(2 * n + 1);

    memset(deep, '[', n);
    memset(deep + n, ']', n);
    is(deep, 2 * n, "invalid character '[' exceeded max depth", "10001 nested arrays");
    is(deep + 1, 2 * n - 2,
       "json: cannot unmarshal array into Go value of type map[string]interface {}",
       "10000 nested arrays scan");
    free(deep);
}

static void
test_types(void)
{
    const char *pre = "json: cannot unmarshal ", *post = " into Go value of type map[string]"
                                                         "interface {}";
    char want[700], big[600];

    snprintf(want, sizeof(want), "%sarray%s", pre, post);
    is_s(" [1]", want, "an array");
    snprintf(want, sizeof(want), "%sstring%s", pre, post);
    is_s("\"s\"", want, "a string");
    snprintf(want, sizeof(want), "%sbool%s", pre, post);
    is_s("false", want, "a boolean");
    snprintf(want, sizeof(want), "%snumber%s", pre, post);
    is_s("-0.5e3", want, "a number");
    memset(big, '0', sizeof(big) - 1);
    big[0] = '{';
    memcpy(big + 1, "\"a\":1", 5);
    memcpy(big + sizeof(big) - 2, "}", 2);
    snprintf(want, sizeof(want),
             "json: cannot unmarshal number 1%.*s into Go value of type "
             "float64",
             (int)(sizeof(big) - 8), big + 6);
    is_s(big, want, "a long number is shown whole");
    is_s("{\"a\":[1,{\"b\":\"1e999\",\"c\":-1e400}],\"d\":2e400}",
         "json: cannot unmarshal number -1e400 into Go value of type float64",
         "the first number float64 cannot hold");
}

int
main(void)
{
    test_valid();
    test_end_of_input();
    test_syntax();
    test_depth();
    test_types();
    return tap_done();
}
