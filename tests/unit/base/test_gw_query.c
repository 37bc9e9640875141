/* Unit tests for gateway/base/gw_query: one decoder, with Go's url.ParseQuery rules. */
#include <stdlib.h>
#include <string.h>

#include "gw_arena.h"
#include "gw_query.h"
#include "tap.h"

static void
test_unescape(void)
{
    char out[32];

    tap_ok(gw_unescape(out, "a%2Fb+c", 7, true) && strcmp(out, "a/b c") == 0,
           "query: %%2F is '/', '+' is a space");
    tap_ok(gw_unescape(out, "a%2fb+c", 7, false) && strcmp(out, "a/b+c") == 0,
           "path: lower-case hex decodes, '+' stays");
    tap_ok(gw_unescape(out, "%E2%9C%93", 9, true) && strcmp(out, "\xe2\x9c\x93") == 0,
           "UTF-8 bytes decode");
    tap_ok(gw_unescape(out, "abc", 2, true) && strcmp(out, "ab") == 0, "only len bytes are read");
    const char *bad[] = {"%", "%4", "%zz", "a%g1", "%00", "50%"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        tap_ok(!gw_unescape(out, bad[i], strlen(bad[i]), true), "\"%s\" does not decode", bad[i]);
}

static void
test_lookup(void)
{
    gw_arena_t *a = gw_arena_new();
    const char *q = "labelSelector=app%3Dweb%2Cx+in+(a)&limit=5&watch&limit=7&dryRun=";

    tap_is_str(gw_query_get(a, q, "labelSelector"), "app=web,x in (a)", "a value decodes");
    tap_is_str(gw_query_get(a, q, "limit"), "5", "the first of a repeated key");
    tap_is_str(gw_query_get(a, q, "watch"), "", "a key without '=' has the value \"\"");
    tap_is_str(gw_query_get(a, q, "dryRun"), "", "an empty value");
    tap_is_str(gw_query_get(a, q, "continue"), NULL, "an absent key");
    tap_is_str(gw_query_get(a, NULL, "limit"), NULL, "no query at all");
    tap_is_str(gw_query_get(a, "", "limit"), NULL, "an empty query");
    tap_is_str(gw_query_get(a, "field%53elector=a&x+y=1", "fieldSelector"), "a",
               "an escaped key matches");
    tap_is_str(gw_query_get(a, "field%53elector=a&x+y=1", "x y"), "1", "'+' in a key is a space");
    tap_is_str(gw_query_get(a, "limit=%zz&limit=3", "limit"), "3",
               "a value with a bad escape is dropped, the next one found");
    tap_is_str(gw_query_get(a, "lim%zit=1&limit=2", "limit"), "2", "so is a key with one");
    tap_is_str(gw_query_get(a, "limit=1;x=2&limit=4", "limit"), "4",
               "a parameter holding ';' is dropped, as Go does");
    tap_is_str(gw_query_get(a, "a=%00&a=b", "a"), "b", "a NUL cannot be a value");

    size_t pos = 0;
    const char *v1 = gw_query_next(a, "exclude=etcd&x=1&exclude=ping+pong", "exclude", &pos);
    const char *v2 = gw_query_next(a, "exclude=etcd&x=1&exclude=ping+pong", "exclude", &pos);
    const char *v3 = gw_query_next(a, "exclude=etcd&x=1&exclude=ping+pong", "exclude", &pos);
    tap_ok(v1 != NULL && strcmp(v1, "etcd") == 0 && v2 != NULL && strcmp(v2, "ping pong") == 0 &&
               v3 == NULL,
           "next walks every value of a repeated key, then NULL");
    pos = 0;
    char *heap = gw_query_next(NULL, "verbose=1", "verbose", &pos);
    tap_is_str(heap, "1", "without an arena the value is the caller's to free");
    free(heap);
    gw_arena_free(a);
}

int
main(void)
{
    test_unescape();
    test_lookup();
    return tap_done();
}
