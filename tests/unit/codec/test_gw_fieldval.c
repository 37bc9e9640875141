/* Unit tests for gateway/codec/gw_fieldval: duplicate keys in raw JSON, and the walk of a
 * document against a structural schema (unknown fields pruned, type errors in kube-apiserver's
 * words, required fields), with hand-built schemas. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_err.h"
#include "gw_fieldval.h"
#include "tap.h"

/* kube-apiserver's field validation test body (invalidBodyJSON) */
static const char *const kube_body =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\","
    "\"unknownMeta\":\"x\",\"name\":\"d2\",\"labels\":{\"app\":\"nginx\"}},\"spec\":{"
    "\"unknown1\":\"val1\",\"unknownDupe\":\"valDupe\",\"unknownDupe\":\"valDupe2\","
    "\"paused\":true,\"paused\":false,\"selector\":{\"matchLabels\":{\"app\":\"nginx\"}},"
    "\"template\":{\"metadata\":{\"labels\":{\"app\":\"nginx\"}},\"spec\":{\"containers\":[{"
    "\"name\":\"nginx\",\"image\":\"nginx:latest\",\"unknownNested\":\"val1\","
    "\"imagePullPolicy\":\"Always\",\"imagePullPolicy\":\"Never\"}]}}}}";

static void
test_duplicates(void)
{
    gw_field_issues_t is = {0};
    tap_is_int(gw_json_find_duplicates(kube_body, strlen(kube_body), &is), 0,
               "kube's test body scans");
    const char *want[] = {"metadata.name", "spec.unknownDupe", "spec.paused",
                          "spec.template.spec.containers[0].imagePullPolicy"};
    tap_is_int(is.n, 4, "four keys are set twice");
    for (size_t i = 0; i < is.n && i < 4; i++) {
        char msg[128];
        snprintf(msg, sizeof(msg), "duplicate field \"%s\"", want[i]);
        tap_is_str(is.items[i].path, want[i], "  in document order, with kube's path");
        tap_is_str(is.items[i].message, msg, "  and kube's message");
        tap_ok(is.items[i].kind == GW_FIELD_DUPLICATE, "  as a duplicate");
    }
    gw_field_issues_clear(&is);

    const char *escaped = "{\"a\\u0062\":1,\"ab\":2,\"\\ud83d\\ude00\":[{\"x\":1,\"x\":2}],"
                          "\"\xf0\x9f\x98\x80\":3}";
    tap_is_int(gw_json_find_duplicates(escaped, strlen(escaped), &is), 0, "escapes scan");
    tap_ok(is.n == 3 && strcmp(is.items[0].path, "ab") == 0 &&
               strcmp(is.items[1].path, "\xf0\x9f\x98\x80[0].x") == 0 &&
               strcmp(is.items[2].path, "\xf0\x9f\x98\x80") == 0,
           "keys compare unescaped (\\u0062 is b, a surrogate pair is its character)");
    gw_field_issues_clear(&is);

    const char *fine = " [ {\"a\":{\"a\":1}}, {\"a\":2}, [], {}, \"s\", -0.5e+3, true, null ] ";
    tap_ok(gw_json_find_duplicates(fine, strlen(fine), &is) == 0 && is.n == 0,
           "the same key in different objects is no duplicate");

    static const char *const bad[] = {
        "",           "{",           "{\"a\":1,}", "[1,]",
        "{\"a\" 1}",  "{a:1}",       "01",         "1.",
        "-",          "1e",          "tru",        "\"\\x\"",
        "\"\x01\"",   "\"\\ud800\"", "\"\xff\"",   "\"\xc0\x80\"",
        "{\"a\":1}x", "[1] [2]",     "\"abc",      "{\"a\":1,\"a\":2",
    };
    int all = 1;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = gw_json_find_duplicates(bad[i], strlen(bad[i]), &is);
        all &= rc == GW_EINVAL && is.n == 0;
    }
    tap_ok(all, "malformed JSON is GW_EINVAL, with no issues appended");
    char *deep = malloc(5000);
    memset(deep, '[', 2500);
    memset(deep + 2500, ']', 2500);
    tap_is_int(gw_json_find_duplicates(deep, 5000, &is), GW_EINVAL, "nesting is bounded");
    free(deep);
}

int
main(void)
{
    test_duplicates();
    return tap_done();
}
