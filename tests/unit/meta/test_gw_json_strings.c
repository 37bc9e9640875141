/* Unit tests for gateway/meta/gw_json_strings: JSON arrays of strings to and from C lists. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_json_strings.h"
#include "tap.h"

static char *
dump(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static void
test_build(void)
{
    char g0[] = "system:masters", g1[] = "dev";
    char *groups[] = {g0, g1}; /* authn_user_t's groups are char ** */
    const char *const nt[] = {"api", "vault", NULL};
    json_t *a = gw_json_strings(groups, 2);
    char *s = dump(a);

    tap_is_str(s, "[\"system:masters\",\"dev\"]", "a counted list, in order");
    free(s);
    json_decref(a);
    a = gw_json_strings((char **)NULL, 0);
    s = dump(a);
    tap_is_str(s, "[]", "no strings: an empty array");
    free(s);
    json_decref(a);
    a = gw_json_strings_nt(nt);
    s = dump(a);
    tap_is_str(s, "[\"api\",\"vault\"]", "a NULL-terminated list");
    free(s);
    json_decref(a);
    a = gw_json_strings_nt((const char *const *)NULL);
    tap_ok(json_is_array(a) && json_array_size(a) == 0, "a NULL list: an empty array");
    json_decref(a);
}

static void
test_read(void)
{
    json_t *a = json_loads("[\"kubernetes\", 3, null, \"orphan\"]", 0, NULL);
    size_t n = 99;

    tap_ok(gw_json_strings_has(a, "orphan"), "has finds a member");
    tap_ok(!gw_json_strings_has(a, "3"), "only strings count");
    tap_ok(!gw_json_strings_has(NULL, "x") && !gw_json_strings_has(json_object_get(a, "x"), "x"),
           "nothing is in NULL");
    char **v = gw_json_strings_dup(a, &n);
    tap_ok(n == 2 && strcmp(v[0], "kubernetes") == 0 && strcmp(v[1], "orphan") == 0 && v[2] == NULL,
           "dup copies the strings, skips the rest, ends with NULL");
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    v = gw_json_strings_dup(NULL, &n);
    tap_ok(n == 0 && v != NULL && v[0] == NULL, "dup of no array is an empty list");
    free(v);
    json_decref(a);
}

/* The lists at o.<a>.<b>, as finalizers are kept. */
static void
test_at(void)
{
    json_t *o =
        json_loads("{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"a\"]},\"spec\":7}", 0, NULL);
    char *text;

    tap_ok(gw_json_strings_count_at(o, "metadata", "finalizers") == 3, "count_at counts the list");
    tap_ok(gw_json_strings_at(o, "spec", "finalizers") == NULL &&
               gw_json_strings_count_at(o, "spec", "finalizers") == 0,
           "a parent that is not an object holds no list");
    tap_ok(gw_json_strings_remove_at(o, "metadata", "finalizers", "a") &&
               !gw_json_strings_remove_at(o, "metadata", "finalizers", "a"),
           "remove_at takes every copy, then finds none");
    tap_ok(!gw_json_strings_add_at(o, "metadata", "finalizers", "b"), "add_at keeps one copy");
    tap_ok(gw_json_strings_add_at(o, "spec", "finalizers", "kubernetes"),
           "add_at makes the parent and the list");
    text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    tap_is_str(text,
               "{\"metadata\":{\"finalizers\":[\"b\"]},\"spec\":{\"finalizers\":[\"kubernetes\"]}}",
               "the document after the edits");
    free(text);
    json_decref(o);
}

int
main(void)
{
    test_build();
    test_read();
    test_at();
    return tap_done();
}
