/* Unit tests for gateway/patch/gw_patch: the RFC 6902 appendix A examples, the RFC 7386
 * appendix A table, and the error cases with kube-apiserver's wording. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_patch.h"
#include "tap.h"

typedef struct {
    const char *name;
    const char *doc;
    const char *patch;
    const char *want; /* the patched document, or NULL when the patch must fail */
    const char *err;  /* for failures: the message, or NULL to skip checking it */
    int bad_request;
} case_t;

#define OK(name, doc, patch, want)                                                                 \
    {                                                                                              \
        name, doc, patch, want, NULL, 0                                                            \
    }
#define FAIL(name, doc, patch, err, bad)                                                           \
    {                                                                                              \
        name, doc, patch, NULL, err, bad                                                           \
    }

static const case_t rfc6902[] = {
    OK("A.1 add an object member", "{\"foo\":\"bar\"}",
       "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
       "{\"baz\":\"qux\",\"foo\":\"bar\"}"),
    OK("A.2 add an array element", "{\"foo\":[\"bar\",\"baz\"]}",
       "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
       "{\"foo\":[\"bar\",\"qux\",\"baz\"]}"),
    OK("A.3 remove an object member", "{\"baz\":\"qux\",\"foo\":\"bar\"}",
       "[{\"op\":\"remove\",\"path\":\"/baz\"}]", "{\"foo\":\"bar\"}"),
    OK("A.4 remove an array element", "{\"foo\":[\"bar\",\"qux\",\"baz\"]}",
       "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]", "{\"foo\":[\"bar\",\"baz\"]}"),
    OK("A.5 replace a value", "{\"baz\":\"qux\",\"foo\":\"bar\"}",
       "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
       "{\"baz\":\"boo\",\"foo\":\"bar\"}"),
    OK("A.6 move a value",
       "{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":\"grault\"}}",
       "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]",
       "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}"),
    OK("A.7 move an array element", "{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
       "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
       "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}"),
    OK("A.8 testing a value: success", "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
       "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},"
       "{\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]",
       "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}"),
    FAIL("A.9 testing a value: error", "{\"baz\":\"qux\"}",
         "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]",
         "testing value /baz failed: test failed", 0),
    OK("A.10 add a nested member object", "{\"foo\":\"bar\"}",
       "[{\"op\":\"add\",\"path\":\"/child\",\"value\":{\"grandchild\":{}}}]",
       "{\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}"),
    OK("A.11 ignore unrecognized elements", "{\"foo\":\"bar\"}",
       "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"xyz\":123}]",
       "{\"foo\":\"bar\",\"baz\":\"qux\"}"),
    FAIL("A.12 add to a nonexistent target", "{\"foo\":\"bar\"}",
         "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]",
         "add operation does not apply: doc is missing path: \"/baz/bat\": missing value", 0),
    FAIL("A.13 duplicate op member (the last one wins: remove of a missing member)",
         "{\"foo\":\"bar\"}",
         "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"op\":\"remove\"}]", NULL, 0),
    OK("A.14 ~ escape ordering", "{\"/\":9,\"~1\":10}",
       "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}]", "{\"/\":9,\"~1\":10}"),
    FAIL("A.15 comparing strings and numbers", "{\"/\":9,\"~1\":10}",
         "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]",
         "testing value /~01 failed: test failed", 0),
    OK("A.16 add an array value", "{\"foo\":[\"bar\"]}",
       "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\",\"def\"]}]",
       "{\"foo\":[\"bar\",[\"abc\",\"def\"]]}"),
};

static const case_t more[] = {
    OK("~1 unescapes to a slash", "{}", "[{\"op\":\"add\",\"path\":\"/a~1b\",\"value\":1}]",
       "{\"a/b\":1}"),
    OK("the empty key is a key", "{\"\":1}", "[{\"op\":\"replace\",\"path\":\"/\",\"value\":2}]",
       "{\"\":2}"),
    OK("add at the root replaces the document", "{\"a\":1}",
       "[{\"op\":\"add\",\"path\":\"\",\"value\":[1]}]", "[1]"),
    OK("replace at the root", "{\"a\":1}",
       "[{\"op\":\"replace\",\"path\":\"\",\"value\":{\"b\":2}}]", "{\"b\":2}"),
    OK("add replaces an existing member", "{\"a\":1}",
       "[{\"op\":\"add\",\"path\":\"/a\",\"value\":2}]", "{\"a\":2}"),
    OK("add at the end index appends", "{\"a\":[1]}",
       "[{\"op\":\"add\",\"path\":\"/a/1\",\"value\":2}]", "{\"a\":[1,2]}"),
    FAIL("add past the end", "{\"a\":[1]}", "[{\"op\":\"add\",\"path\":\"/a/2\",\"value\":2}]",
         "error in add for path: '/a/2': Unable to access invalid index: 2: invalid index "
         "referenced",
         0),
    FAIL("a leading zero is not an index", "{\"a\":[1,2]}",
         "[{\"op\":\"add\",\"path\":\"/a/01\",\"value\":2}]",
         "error in add for path: '/a/01': value was not a proper array index: '01'", 0),
    FAIL("a negative index is not an index", "{\"a\":[1,2]}",
         "[{\"op\":\"remove\",\"path\":\"/a/-1\"}]", NULL, 0),
    FAIL("- is only for add", "{\"a\":[1,2]}", "[{\"op\":\"remove\",\"path\":\"/a/-\"}]",
         "error in remove for path: '/a/-': Unable to access invalid index: -: invalid index "
         "referenced",
         0),
    FAIL("remove past the end", "{\"a\":[1]}", "[{\"op\":\"remove\",\"path\":\"/a/1\"}]", NULL, 0),
    FAIL("remove a missing member", "{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"/b\"}]",
         "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value", 0),
    FAIL("remove the document", "{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"\"}]", NULL, 0),
    FAIL("replace a missing member", "{\"a\":1}",
         "[{\"op\":\"replace\",\"path\":\"/b\",\"value\":1}]",
         "replace operation does not apply: doc is missing key: /b: missing value", 0),
    OK("replace an array element", "{\"a\":[1,2]}",
       "[{\"op\":\"replace\",\"path\":\"/a/1\",\"value\":3}]", "{\"a\":[1,3]}"),
    FAIL("replace under a missing parent", "{}",
         "[{\"op\":\"replace\",\"path\":\"/a/b\",\"value\":1}]",
         "replace operation does not apply: doc is missing path: /a/b: missing value", 0),
    FAIL("a bad escape", "{}", "[{\"op\":\"add\",\"path\":\"/a~2\",\"value\":1}]",
         "add operation failed to decode path: \"/a~2\" is not a JSON pointer", 0),
    FAIL("a pointer without its slash", "{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"a\"}]", NULL,
         0),
    FAIL("through a scalar", "{\"a\":1}", "[{\"op\":\"add\",\"path\":\"/a/b\",\"value\":1}]", NULL,
         0),
    FAIL("move into its own child", "{\"a\":{\"b\":{}}}",
         "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/b/c\"}]",
         "move operation does not apply: cannot move /a into its own child /a/b/c", 0),
    FAIL("move into an array sibling's child", "{\"a\":[{},{}]}",
         "[{\"op\":\"move\",\"from\":\"/a/0\",\"path\":\"/a/0/x\"}]", NULL, 0),
    OK("move to itself", "{\"a\":{\"b\":1}}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a\"}]",
       "{\"a\":{\"b\":1}}"),
    OK("move to a sibling with a shared prefix", "{\"a\":1}",
       "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/ab\"}]", "{\"ab\":1}"),
    FAIL("move from a missing member", "{}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/b\"}]",
         "move operation does not apply: doc is missing from path: /a: missing value", 0),
    OK("copy a subtree", "{\"a\":{\"b\":[1]}}",
       "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/c\"},"
       "{\"op\":\"add\",\"path\":\"/c/b/-\",\"value\":2}]",
       "{\"a\":{\"b\":[1]},\"c\":{\"b\":[1,2]}}"),
    FAIL("copy from a missing member", "{}", "[{\"op\":\"copy\",\"from\":\"/x\",\"path\":\"/y\"}]",
         "copy operation does not apply: doc is missing from path: /x: missing value", 0),
    OK("test 1 against 1.0", "{\"a\":1}", "[{\"op\":\"test\",\"path\":\"/a\",\"value\":1.0}]",
       "{\"a\":1}"),
    OK("test objects in another order", "{\"a\":{\"x\":1,\"y\":[true,null]}}",
       "[{\"op\":\"test\",\"path\":\"/a\",\"value\":{\"y\":[true,null],\"x\":1}}]",
       "{\"a\":{\"x\":1,\"y\":[true,null]}}"),
    FAIL("test arrays in another order", "{\"a\":[1,2]}",
         "[{\"op\":\"test\",\"path\":\"/a\",\"value\":[2,1]}]", NULL, 0),
    FAIL("test a missing member against null", "{}",
         "[{\"op\":\"test\",\"path\":\"/a\",\"value\":null}]",
         "testing value /a failed: test failed", 0),
    OK("test the whole document", "[1]", "[{\"op\":\"test\",\"path\":\"\",\"value\":[1]}]", "[1]"),
    FAIL(
        "test past the end", "[1]", "[{\"op\":\"test\",\"path\":\"/3\",\"value\":1}]",
        "error in test for path: '/3': Unable to access invalid index: 3: invalid index referenced",
        0),
    FAIL("test false against null", "{\"a\":false}",
         "[{\"op\":\"test\",\"path\":\"/a\",\"value\":null}]", NULL, 0),
    FAIL("an unknown op", "{}", "[{\"op\":\"merge\",\"path\":\"/a\"}]", "Unexpected kind: merge",
         0),
    FAIL("no op", "{}", "[{\"path\":\"/a\"}]", "Unexpected kind: unknown", 0),
    FAIL("a null operation", "{}", "[null]", "Unexpected kind: unknown", 0),
    FAIL("no path", "{}", "[{\"op\":\"add\",\"value\":1}]",
         "add operation failed to decode path: missing value", 0),
    FAIL("a path that is not a string", "{}", "[{\"op\":\"remove\",\"path\":1}]",
         "remove operation failed to decode path: missing value", 0),
    FAIL("no value", "{}", "[{\"op\":\"add\",\"path\":\"/a\"}]",
         "add operation failed to decode value: missing value", 0),
    FAIL("no from", "{}", "[{\"op\":\"copy\",\"path\":\"/a\"}]",
         "copy operation failed to decode from: missing value", 0),
    FAIL("a patch that is an object", "{}", "{\"op\":\"add\"}",
         "json: cannot unmarshal object into Go value of type jsonpatch.Patch", 1),
    FAIL("an operation that is a string", "{}", "[\"add\"]",
         "json: cannot unmarshal string into Go value of type jsonpatch.Operation", 1),
    OK("a null patch changes nothing", "{\"a\":1}", "null", "{\"a\":1}"),
    OK("an empty patch changes nothing", "{\"a\":1}", "[]", "{\"a\":1}"),
    FAIL("a later failure fails the whole patch", "{}",
         "[{\"op\":\"add\",\"path\":\"/a\",\"value\":1},{\"op\":\"remove\",\"path\":\"/b\"}]", NULL,
         0),
};

static json_t *
parse(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &e);
    if (v == NULL)
        tap_diag("unparsable test input %s: %s", text, e.text);
    return v;
}

static void
run_case(const case_t *c)
{
    json_t *doc = parse(c->doc), *patch = parse(c->patch), *before = json_deep_copy(doc);
    char err[256] = "";
    int bad = -1;
    json_t *got = gw_json_patch(doc, patch, &bad, err, sizeof(err));
    if (c->want != NULL) {
        json_t *want = parse(c->want);
        if (!tap_ok(got != NULL && json_equal(got, want), "%s", c->name))
            tap_diag("  error: %s", err);
        json_decref(want);
    } else if (tap_ok(got == NULL && err[0] != '\0' && bad == c->bad_request, "%s fails",
                      c->name)) {
        if (c->err != NULL)
            tap_is_str(err, c->err, "  with kube's message");
    }
    tap_ok(json_equal(doc, before), "  the input document is unchanged");
    json_decref(got);
    json_decref(doc);
    json_decref(patch);
    json_decref(before);
}

/* A patch of copies doubling a document hits kube-apiserver's 3 MiB copy budget. */
static void
test_copy_limit(void)
{
    json_t *doc = json_pack("{s:s}", "a", "0123456789012345678901234567890123456789");
    json_t *patch = json_array();
    char to[32];
    for (int i = 0; i < 20; i++) {
        snprintf(to, sizeof(to), "/%c", 'b' + i);
        json_array_append_new(patch,
                              json_pack("{s:s,s:s,s:s}", "op", "copy", "from", "", "path", to));
    }
    char err[256] = "";
    int bad = 0;
    json_t *got = gw_json_patch(doc, patch, &bad, err, sizeof(err));
    tap_ok(got == NULL && bad == 0, "copies of the whole document stop at the copy budget");
    tap_ok(strstr(err, "Unable to complete the copy, the accumulated size increase of copy is ") ==
                   err &&
               strstr(err, "exceeding the limit 3145728") != NULL,
           "  with kube's message");
    json_decref(got);
    json_decref(doc);
    json_decref(patch);
}

/* The result shares nothing with the patch: changing one leaves the other alone. */
static void
test_independent(void)
{
    json_t *doc = json_object(), *patch = parse("[{\"op\":\"add\",\"path\":\"/a\",\"value\":{}}]");
    char err[256];
    int bad;
    json_t *got = gw_json_patch(doc, patch, &bad, err, sizeof(err));
    json_object_set_new(json_object_get(got, "a"), "x", json_true());
    tap_is_int(json_object_size(json_object_get(json_array_get(patch, 0), "value")), 0,
               "the result shares no value with the patch");
    json_decref(got);
    json_decref(doc);
    json_decref(patch);
}

static const char *const rfc7386[][3] = {
    {"{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
    {"{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"},
    {"{\"a\":\"b\"}", "{\"a\":null}", "{}"},
    {"{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"},
    {"{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
    {"{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"},
    {"{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}"},
    {"{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"},
    {"[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"},
    {"{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"},
    {"{\"a\":\"foo\"}", "null", "null"},
    {"{\"a\":\"foo\"}", "\"bar\"", "\"bar\""},
    {"{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"},
    {"[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"},
    {"{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"},
};

static void
test_merge_patch(void)
{
    for (size_t i = 0; i < sizeof(rfc7386) / sizeof(rfc7386[0]); i++) {
        json_t *doc = parse(rfc7386[i][0]), *patch = parse(rfc7386[i][1]);
        json_t *want = parse(rfc7386[i][2]), *before = json_deep_copy(doc);
        json_t *got = gw_merge_patch(doc, patch);
        tap_ok(json_equal(got, want) && json_equal(doc, before), "RFC 7386 A: %s + %s = %s",
               rfc7386[i][0], rfc7386[i][1], rfc7386[i][2]);
        json_decref(got);
        json_decref(doc);
        json_decref(patch);
        json_decref(want);
        json_decref(before);
    }
    json_t *doc = parse("{\"metadata\":{\"labels\":{\"a\":\"1\"}}}");
    json_t *patch = parse("{\"metadata\":{\"labels\":{\"b\":\"2\"}}}");
    json_t *got = gw_merge_patch(doc, patch);
    json_object_set_new(json_object_get(json_object_get(got, "metadata"), "labels"), "c",
                        json_true());
    tap_is_int(json_object_size(json_object_get(json_object_get(doc, "metadata"), "labels")), 1,
               "a merged result shares nothing with its input");
    json_decref(got);
    json_decref(doc);
    json_decref(patch);
}

int
main(void)
{
    for (size_t i = 0; i < sizeof(rfc6902) / sizeof(rfc6902[0]); i++)
        run_case(&rfc6902[i]);
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
        run_case(&more[i]);
    test_copy_limit();
    test_independent();
    test_merge_patch();
    return tap_done();
}
