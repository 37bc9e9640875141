/* Unit tests for gateway/encoding/gw_gofmt: Go's %v, %s and %q of decoded JSON, as Go's fmt prints
 * them (checked against fmt's documented rules: sorted map keys, shortest %g with exponents
 * from 1e+06 and below 1e-04, bad-verb forms). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_gofmt.h"
#include "tap.h"

typedef struct {
    const char *json, *want;
} case_t;

static void
run(const case_t *cases, size_t n, char *(*fn)(const json_t *), const char *verb)
{
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);
        char *got = fn(v);
        if (!tap_ok(v != NULL && strcmp(got, cases[i].want) == 0, "%s of %s", verb, cases[i].json))
            tap_diag("got [%s], want [%s]", got, cases[i].want);
        free(got);
        json_decref(v);
    }
}

static const case_t values[] = {
    {"{\"b\":1,\"a\":\"x\",\"$patch\":\"delete\"}", "map[$patch:delete a:x b:1]"},
    {"[1,\"two\",true,null,{}]", "[1 two true <nil> map[]]"},
    {"{\"a\":[],\"b\":{\"c\":[{\"d\":null}]}}", "map[a:[] b:map[c:[map[d:<nil>]]]]"},
    {"{\"B\":1,\"a\":2,\"_\":3}", "map[B:1 _:3 a:2]"},
    {"null", "<nil>"},
    {"1.5", "1.5"},
    {"100.0", "100"},
    {"123456.0", "123456"},
    {"1234567.0", "1.234567e+06"},
    {"1e21", "1e+21"},
    {"1e100", "1e+100"},
    {"0.0001", "0.0001"},
    {"0.00001", "1e-05"},
    {"-2.5e-7", "-2.5e-07"},
    {"0.1", "0.1"},
    {"0.30000000000000004", "0.30000000000000004"},
    {"-0.0", "-0"},
    {"9007199254740993", "9007199254740993"},
    {"-42", "-42"},
    {"\"a b\"", "a b"},
    {"false", "false"},
};

static const case_t strings[] = {
    {"\"plain\"", "plain"},
    {"1", "%!s(int64=1)"},
    {"1.5", "%!s(float64=1.5)"},
    {"true", "%!s(bool=true)"},
    {"null", "%!s(<nil>)"},
    {"{\"a\":1,\"b\":null}", "map[a:%!s(int64=1) b:<nil>]"},
    {"[\"x\",2]", "[x %!s(int64=2)]"},
};

static char *
quote(const json_t *v)
{
    return gw_go_quote(json_string_value(v));
}

static const case_t quotes[] = {
    {"\"nope\"", "\"nope\""},
    {"\"a\\\"b\\\\c\"", "\"a\\\"b\\\\c\""},
    {"\"tab\\tnl\\ncr\\r\"", "\"tab\\tnl\\ncr\\r\""},
    {"\"\\u0001\\u007f\"", "\"\\x01\\x7f\""},
    {"\"caf\\u00e9 \\u65e5\"", "\"caf\xc3\xa9 \xe6\x97\xa5\""},
};

int
main(void)
{
    char *bad;

    run(values, sizeof(values) / sizeof(values[0]), gw_go_value, "%v");
    run(strings, sizeof(strings) / sizeof(strings[0]), gw_go_string, "%s");
    run(quotes, sizeof(quotes) / sizeof(quotes[0]), quote, "%q");
    bad = gw_go_quote("\xff"
                      "a");
    tap_is_str(bad, "\"\\xffa\"", "%q of a byte that is not UTF-8");
    free(bad);
    return tap_done();
}
