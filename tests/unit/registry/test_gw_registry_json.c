/* Unit tests for gateway/registry/gw_registry_json.c: the resourceVersion splice into stored
 * bytes, its Jansson fallback, and the output buffer. */
#include <stdlib.h>
#include <string.h>

#include "gw_registry_int.h"
#include "tap.h"

/* with_rv as a string (NULL for a refusal). */
static char *
with_rv(const char *json, int64_t rev)
{
    size_t len;

    return gw_registry__with_rv(json, strlen(json), rev, &len);
}

static void
is_rv(const char *json, int64_t rev, const char *want, const char *name)
{
    char *got = with_rv(json, rev);

    tap_is_str(got, want, name);
    free(got);
}

static void
test_splice_point(void)
{
    static const struct {
        const char *json;
        int at; /* -1: no splice */
        int empty;
    } cases[] = {
        {"{\"metadata\":{\"name\":\"a\"}}", 13, 0},
        {"{\"metadata\":{}}", 13, 1},
        {" { \"a\" : [1,{\"metadata\":{}}], \"metadata\" : { } }", 44, 1},
        {"{\"data\":{\"x\":\"}\\\"{\"},\"metadata\":{\"n\":1}}", 33, 0},
        {"{\"metadata\":{\"resourceVersion\":\"5\"}}", -1, 0},
        {"{\"metadata\":{\"a\":{\"resourceVersion\":1}}}", 13, 0},
        {"{\"metadata\" : {\"resourceVersion\" :\"1\"}}", -1, 0},
        {"{\"metadata\":null}", -1, 0},
        {"{\"data\":{}}", -1, 0},
        {"[1]", -1, 0},
        {"{\"meta\\u0064ata\":{}}", -1, 0},
        {"{\"metadata\":{\"na", -1, 0},
        {"", -1, 0},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t at = 0;
        bool empty = false;
        bool ok = gw_registry__rv_splice_point(cases[i].json, strlen(cases[i].json), &at, &empty);
        if (cases[i].at < 0) {
            tap_ok(!ok, "no splice: %s", cases[i].json);
        } else {
            tap_ok(ok && at == (size_t)cases[i].at && empty == (cases[i].empty != 0),
                   "splice at %d%s: %s (got %d at %zu)", cases[i].at,
                   cases[i].empty ? " (empty)" : "", cases[i].json, ok, at);
        }
    }
}

static void
test_with_rv(void)
{
    is_rv("{\"kind\":\"K\",\"metadata\":{\"name\":\"a\"}}", 42,
          "{\"kind\":\"K\",\"metadata\":{\"resourceVersion\":\"42\",\"name\":\"a\"}}",
          "spliced before the first member");
    is_rv("{\"metadata\":{}}", 7, "{\"metadata\":{\"resourceVersion\":\"7\"}}",
          "spliced into an empty metadata");
    is_rv("{\"metadata\":{\"resourceVersion\":\"1\",\"name\":\"a\"}}", 9,
          "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"9\"}}",
          "an existing resourceVersion is replaced (through Jansson)");
    is_rv("{\"kind\":\"K\"}", 3, "{\"kind\":\"K\",\"metadata\":{\"resourceVersion\":\"3\"}}",
          "metadata is created when missing");
    is_rv("[1,2]", 3, NULL, "not an object: refused");
    is_rv("{bad", 3, NULL, "not JSON: refused");
}

static void
test_parse_stored(void)
{
    const char *s = "{\"metadata\":{\"name\":\"a\"}}";
    json_t *d = gw_registry__parse_stored(s, strlen(s), 12, NULL);

    tap_is_str(
        json_string_value(json_object_get(json_object_get(d, "metadata"), "resourceVersion")), "12",
        "parse_stored sets the resourceVersion");
    json_decref(d);
    d = gw_registry__parse_stored(s, strlen(s), 0, NULL);
    tap_ok(json_object_get(json_object_get(d, "metadata"), "resourceVersion") == NULL,
           "revision 0 sets none");
    json_decref(d);
    tap_ok(gw_registry__parse_stored("\"x\"", 3, 1, NULL) == NULL, "a string is no object");
}

static void
test_buf(void)
{
    gw_buf_t b = {0};
    gw_obj_t o = {.key = "k",
                  .value = (const uint8_t *)"{\"metadata\":{}}",
                  .value_len = 15,
                  .mod_revision = 5};

    gw_buf_str(&b, "[");
    tap_ok(gw_registry__buf_obj(&b, &o, NULL), "append a stored object");
    gw_buf_add(&b, ",", 1);
    o.value = (const uint8_t *)"{}";
    o.value_len = 2;
    tap_ok(gw_registry__buf_obj(&b, &o, NULL), "append one without metadata");
    gw_buf_str(&b, "]");
    tap_is_str(b.data,
               "[{\"metadata\":{\"resourceVersion\":\"5\"}},{\"metadata\":{\"resourceVersion\":"
               "\"5\"}}]",
               "the buffer holds both");
    tap_is_int(b.len, strlen(b.data), "length kept");
    o.value = (const uint8_t *)"nope";
    o.value_len = 4;
    tap_ok(!gw_registry__buf_obj(&b, &o, NULL), "bytes that are not an object are refused");
    free(b.data);
}

/* The members picked, compact and with sorted keys; "NULL" when refused. */
static void
is_picked(json_t *got, const char *want, const char *what)
{
    char *text = got != NULL ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

    tap_is_str(text != NULL ? text : "NULL", want, what);
    free(text);
    json_decref(got);
}

static void
test_parse_members(void)
{
    static const char *const meta_spec[] = {"metadata", "spec"};
    const char *obj = " {\"data\":{\"x\":\"a\\\"}\"},\"metadata\":{\"name\":\"n\","
                      "\"labels\":{\"app\":\"web\"}},\"spec\":[1,{\"a\":[]}],\"z\":true}";

    is_picked(
        gw_registry__parse_members(obj, strlen(obj), meta_spec, 2),
        "{\"metadata\":{\"labels\":{\"app\":\"web\"},\"name\":\"n\"},\"spec\":[1,{\"a\":[]}]}",
        "the members asked for, the others skipped (escaped quotes in them too)");
    is_picked(gw_registry__parse_members("{\"a\":1}", 7, meta_spec, 2), "{}",
              "absent members are absent");
    is_picked(gw_registry__parse_members("{\"metadata\":{", 13, meta_spec, 2), "NULL",
              "truncated bytes are refused");
    is_picked(gw_registry__parse_members("[1]", 3, meta_spec, 2), "NULL", "so is a non-object");
    static const char *const escapes[][3] = {
        {"{\"d\":\"a\\\\\",\"spec\":1}", "{\"spec\":1}",
         "an escaped backslash before a closing quote ends the string"},
        {"{\"d\":\"\\\"spec\\\"\",\"spec\":2}", "{\"spec\":2}",
         "escaped quotes inside a string do not end it"},
        {"{\"d\":\"ab\\", "NULL", "a backslash as the last byte is refused"},
    };
    for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++)
        is_picked(gw_registry__parse_members(escapes[i][0], strlen(escapes[i][0]), meta_spec, 2),
                  escapes[i][1], escapes[i][2]);
    is_picked(gw_registry__parse_members("{\"metadata\":{\"a\":tru}}", 23, meta_spec, 2), "NULL",
              "and a member that is not JSON");
    is_picked(gw_registry__parse_labels(obj, strlen(obj)),
              "{\"metadata\":{\"labels\":{\"app\":\"web\"}}}", "labels alone");
    is_picked(gw_registry__parse_labels("{\"metadata\":{\"name\":\"n\"}}", 26), "{\"metadata\":{}}",
              "no labels");
    is_picked(gw_registry__parse_labels("{\"data\":{}}", 11), "{\"metadata\":{}}", "no metadata");
    is_picked(gw_registry__parse_labels("{\"metadata\":7}", 14), "NULL",
              "metadata that is not an object is refused");
}

/* Kinds whose Go structs show more than the stored bytes hold are completed on the way out;
 * the others keep their bytes. */
static void
test_completion(void)
{
    is_rv("{\"apiVersion\":\"v1\",\"data\":{\"k\":  \"v\"},\"kind\":\"ConfigMap\","
          "\"metadata\":{\"name\":\"c\"}}",
          7,
          "{\"apiVersion\":\"v1\",\"data\":{\"k\":  \"v\"},\"kind\":\"ConfigMap\","
          "\"metadata\":{\"resourceVersion\":\"7\",\"name\":\"c\"}}",
          "a ConfigMap keeps its bytes (spliced, never parsed)");
    is_rv("{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"r\","
          "\"creationTimestamp\":\"2024-01-02T03:04:05Z\"},\"spec\":{\"selector\":null,"
          "\"template\":{}},\"status\":{}}",
          7,
          "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{"
          "\"creationTimestamp\":\"2024-01-02T03:04:05Z\",\"name\":\"r\",\"resourceVersion\":"
          "\"7\"},\"spec\":{\"selector\":null,\"template\":{\"metadata\":{"
          "\"creationTimestamp\":null},\"spec\":{\"containers\":null}}},\"status\":{"
          "\"replicas\":0}}",
          "a ReplicaSet stored without its zero values is answered with them");
    is_rv("{\"kind\":\"DaemonSet\",\"metadata\":{},\"apiVersion\":\"apps/v1\"}", 3,
          "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{"
          "\"creationTimestamp\":null,\"resourceVersion\":\"3\"},\"spec\":{\"selector\":null,"
          "\"template\":{\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"containers\":"
          "null}},\"updateStrategy\":{}},\"status\":{\"currentNumberScheduled\":0,"
          "\"desiredNumberScheduled\":0,"
          "\"numberMisscheduled\":0,\"numberReady\":0}}",
          "the kind is found whatever the key order");
    static const char pdb[] =
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{}}";
    json_t *doc = gw_registry__parse_stored(pdb, strlen(pdb), 0, NULL);
    tap_ok(json_integer_value(json_object_get(json_object_get(doc, "status"), "expectedPods")) ==
                   0 &&
               json_object_get(json_object_get(doc, "status"), "expectedPods") != NULL,
           "parsed stored objects are completed too (what updates start from)");
    json_decref(doc);
}

/* Objects of a kind served in several versions: served as the request's version, and the
 * shared watches' encoding (with_rv) in the storage version, whatever version is stored. */
static void
test_versions(void)
{
    const gw_catalog_t *c = gw_catalog_builtin();
    const gw_resource_t *events = gw_catalog_find(c, "events.k8s.io", "v1", "events");
    const gw_resource_t *core = gw_catalog_find(c, "", "v1", "events");
    const char *stored = "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"message\":\"m\","
                         "\"metadata\":{\"name\":\"e\"}}";
    const char *spoke = "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"note\":\"n\","
                        "\"metadata\":{\"name\":\"e\"}}";
    gw_obj_t o = {.key = "k",
                  .value = (const uint8_t *)stored,
                  .value_len = strlen(stored),
                  .mod_revision = 7};
    gw_buf_t b = {0};
    json_t *d = gw_registry__parse_stored(stored, strlen(stored), 7, events), *got;
    char *line;
    size_t len;

    tap_ok(d && json_is_string(json_object_get(d, "note")) &&
               json_object_get(d, "message") == NULL &&
               strcmp(json_string_value(json_object_get(d, "apiVersion")), "events.k8s.io/v1") == 0,
           "parse_stored converts a stored core Event to the events.k8s.io/v1 it is read as");
    json_decref(d);
    tap_ok(gw_registry__buf_obj(&b, &o, events) && strstr(b.data, "\"note\":\"m\"") != NULL &&
               strstr(b.data, "\"resourceVersion\":\"7\"") != NULL,
           "buf_obj converts too, with the resourceVersion");
    b.len = 0;
    tap_ok(gw_registry__buf_obj(&b, &o, core) && strstr(b.data, "\"message\":\"m\"") != NULL,
           "the storage version is served as stored");
    free(b.data);
    line = gw_registry__with_rv(spoke, strlen(spoke), 3, &len);
    got = line ? json_loads(line, 0, NULL) : NULL;
    tap_ok(got && strcmp(json_string_value(json_object_get(got, "apiVersion")), "v1") == 0 &&
               strcmp(json_string_value(json_object_get(got, "message")), "n") == 0,
           "with_rv shows an object stored in another version in its storage version");
    json_decref(got);
    free(line);
}

int
main(void)
{
    test_parse_members();
    test_splice_point();
    test_with_rv();
    test_parse_stored();
    test_buf();
    test_versions();
    test_completion();
    return tap_done();
}
