/* Unit tests for gateway/admission/gw_map_compile and gw_map_eval: kube-apiserver 1.32's
 * MutatingAdmissionPolicy compilation (return types, the mutation library only in mutations)
 * and evaluation (apply configurations merged by the kind's schema, JSON patches, mutations in
 * order, params, variables, matchConditions, kube's error texts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_map_compile.h"
#include "gw_map_eval.h"
#include "tap.h"

static const char deployment[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\","
    "\"namespace\":\"ns1\",\"labels\":{\"app\":\"x\"}},\"spec\":{\"replicas\":1,\"selector\":"
    "{\"matchLabels\":{\"app\":\"x\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}},"
    "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}";

static const gw_schema_t *schema;
static json_t *object_doc, *request_doc, *params_doc;
static cel_arena_t *arena;

/* A policy from its spec's JSON (name "p1"). */
static gw_map_compiled_t *
compile(const char *spec)
{
    json_t *s = json_loads(spec, 0, NULL);
    if (s == NULL)
        tap_diag("bad spec: %s", spec);
    json_t *p = json_pack("{s:{s:s}, s:o}", "metadata", "name", "p1", "spec", s);
    gw_map_compiled_t *c = gw_map_compile(p, NULL);
    json_decref(p);
    return c;
}

/* The policy evaluated last: its result's errors may point into it. */
static gw_map_compiled_t *last;

/* Evaluate a policy of `spec` on the Deployment (params `params_doc` when has_params). */
static int
eval(const char *spec, gw_map_result_t *r)
{
    gw_map_compiled_free(last);
    last = compile(spec);
    gw_vap_input_t in = {.object = object_doc, .request = request_doc, .params = params_doc};
    return gw_map_eval(last, &in, schema, NULL, arena, r);
}

static const json_t *
at(const json_t *j, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *k = strtok(buf, "."); k != NULL && j != NULL; k = strtok(NULL, "."))
        j = json_is_array(j) ? json_array_get(j, (size_t)atoi(k)) : json_object_get(j, k);
    return j;
}

/* The mutated object's value at `path` is the JSON `want`, and no error. */
static void
expect_value(const char *name, const char *spec, const char *path, const char *want)
{
    gw_map_result_t r;
    int rc = eval(spec, &r);
    json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
    bool ok = rc == 0 && r.nerrors == 0 && r.object != NULL && json_equal(at(r.object, path), w);
    if (!tap_ok(ok, "%s", name)) {
        char *got = r.object ? json_dumps(r.object, JSON_COMPACT) : NULL;
        tap_diag("  rc %d, %zu errors (%s), object %s", rc, r.nerrors, r.nerrors ? r.errors[0] : "",
                 got ? got : "unchanged");
        free(got);
    }
    json_decref(w);
    gw_map_result_clear(&r);
}

/* The evaluation's first error contains `want`. */
static void
expect_error(const char *name, const char *spec, const char *want)
{
    gw_map_result_t r;
    int rc = eval(spec, &r);
    bool ok = rc == 0 && r.nerrors > 0 && strstr(r.errors[0], want) != NULL;
    if (!tap_ok(ok, "%s", name))
        tap_diag("  got %s, want %s", r.nerrors ? r.errors[0] : "(no error)", want);
    gw_map_result_clear(&r);
}

#define AC(expr)                                                                                   \
    "{\"patchType\":\"ApplyConfiguration\",\"applyConfiguration\":{\"expression\":" expr "}}"
#define JP(expr) "{\"patchType\":\"JSONPatch\",\"jsonPatch\":{\"expression\":" expr "}}"

static void
is_str(const char *got, const char *want, const char *name)
{
    if (!tap_ok(got != NULL && strcmp(got, want) == 0, "%s", name))
        tap_diag("  got %s, want %s", got ? got : "(null)", want);
}

static void
test_compile(void)
{
    gw_map_compiled_t *c =
        compile("{\"mutations\":[" AC("\"{'a': 1}\"") "," JP("\"JSONPatch{op: 'add'}\"") "," AC(
            "\"nope\"") "," AC("\"Object{}\"") ",{\"patchType\":\"JSONPatch\"}],"
                                               "\"matchConditions\":[{\"name\":\"m\","
                                               "\"expression\":\"Object{} == "
                                               "Object{}\"}]}");
    const char *e0 = gw_map_mutation_error(c, 0), *e1 = gw_map_mutation_error(c, 1);
    const char *e2 = gw_map_mutation_error(c, 2);
    is_str(e0, "must evaluate to Object but got map(string, int)",
           "an apply configuration must evaluate to Object");
    is_str(e1, "must evaluate to list(JSONPatch) but got JSONPatch",
           "a JSON patch must evaluate to list(JSONPatch)");
    tap_ok(e2 != NULL && strncmp(e2,
                                 "compilation failed: ERROR: <input>:1:1: undeclared "
                                 "reference to 'nope'",
                                 60) == 0,
           "a compile error is kube's");
    tap_ok(gw_map_mutation_error(c, 3) == NULL &&
               gw_map_mutation_type(c, 3) == GW_MAP_APPLY_CONFIGURATION,
           "Object{} compiles as an apply configuration");
    tap_ok(gw_map_mutation_type(c, 4) == GW_MAP_NONE, "a patchType without its body compiles "
                                                      "to nothing");
    const char *m = gw_vap_compile_error(gw_map_compiled_base(c), GW_VAP_MATCH_CONDITION, 0);
    tap_ok(m != NULL && strstr(m, "undeclared reference to 'Object'") != NULL,
           "matchConditions do not have the mutation library");
    gw_map_compiled_free(c);
}

static void
test_apply_configuration(void)
{
    expect_value("a label is merged into the labels",
                 "{\"mutations\":[" AC("\"Object{metadata: Object.metadata{labels: {'team': "
                                       "'a'}}}\"") "]}",
                 "metadata.labels", "{\"app\":\"x\",\"team\":\"a\"}");
    expect_value("a whole double is written as Go writes it, an integer",
                 "{\"mutations\":[" JP("\"[JSONPatch{op: 'replace', path: '/spec/replicas', "
                                       "value: 4.0}]\"") "]}",
                 "spec.replicas", "4");
    expect_value("a scalar is set",
                 "{\"mutations\":[" AC("\"Object{spec: Object.spec{replicas: "
                                       "3}}\"") "]}",
                 "spec.replicas", "3");
    expect_value("a container merges by name",
                 "{\"mutations\":[" AC("\"Object{spec: Object.spec{template: "
                                       "Object.spec.template{spec: Object.spec.template.spec{"
                                       "containers: [Object.spec.template.spec.containers{name: "
                                       "'c', imagePullPolicy: 'Always'}]}}}}\"") "]}",
                 "spec.template.spec.containers.0",
                 "{\"name\":\"c\",\"image\":\"i\",\"imagePullPolicy\":\"Always\"}");
    expect_error("nested types must follow the field path",
                 "{\"mutations\":[" AC("\"Object{spec: Object.spec.wrong{}}\"") "]}",
                 "type mismatch: unexpected type name \"Object.spec.wrong\", expected "
                 "\"Object.spec\", which matches field name path from root Object type");
    expect_error("an atomic struct is refused",
                 "{\"mutations\":[" AC("\"Object{spec: Object.spec{selector: "
                                       "Object.spec.selector{matchLabels: {'a': 'b'}}}}\"") "]}",
                 "error applying patch: invalid ApplyConfiguration: may not mutate atomic "
                 "arrays, maps or structs: .spec.selector");
    expect_error("an undeclared field is refused",
                 "{\"mutations\":[" AC("\"Object{spec: Object.spec{nope: 1}}\"") "]}",
                 "error applying patch: failed to convert patch object to typed object: "
                 ".spec.nope: field not declared in schema");
    expect_error("an evaluation error is kube's",
                 "{\"mutations\":[" AC("\"Object{spec: Object.spec{replicas: 1 / 0}}\"") "]}",
                 "expression 'Object{spec: Object.spec{replicas: 1 / 0}}' resulted in error: "
                 "division by zero");
}

static void
test_json_patch(void)
{
    expect_value("a label is added with an escaped key",
                 "{\"mutations\":[" JP("\"[JSONPatch{op: 'add', path: '/metadata/labels/' + "
                                       "jsonpatch.escapeKey('k8s.io/x'), value: 'y'}]\"") "]}",
                 "metadata.labels", "{\"app\":\"x\",\"k8s.io/x\":\"y\"}");
    expect_value("an object value",
                 "{\"mutations\":[" JP("\"[JSONPatch{op: 'replace', path: '/spec/selector', "
                                       "value: Object.spec.selector{matchLabels: {'a': "
                                       "'b'}}}]\"") "]}",
                 "spec.selector", "{\"matchLabels\":{\"a\":\"b\"}}");
    expect_value("remove and copy",
                 "{\"mutations\":[" JP("\"[JSONPatch{op: 'copy', from: '/metadata/name', path: "
                                       "'/metadata/labels/name'}, JSONPatch{op: 'remove', path: "
                                       "'/metadata/labels/app'}]\"") "]}",
                 "metadata.labels", "{\"name\":\"d\"}");
    expect_value(
        "timestamps, durations and bytes become the strings cel-go's JSON values are",
        "{\"mutations\":[" JP("\"[JSONPatch{op: 'add', path: '/metadata/annotations', "
                              "value: {'t': dyn(timestamp('2024-01-02T03:04:05.500Z')), 'd': "
                              "dyn(duration('1m30.25s')), 'b': dyn(b'hi!')}}]\"") "]}",
        "metadata.annotations",
        "{\"t\":\"2024-01-02T03:04:05.5Z\",\"d\":\"90.25s\",\"b\":\"aGkh\"}");
    gw_map_result_t r;
    eval(
        "{\"mutations\":[" JP("\"[JSONPatch{op: 'test', path: '/spec/replicas', value: 5}, "
                              "JSONPatch{op: 'replace', path: '/spec/replicas', value: 9}]\"") "]}",
        &r);
    tap_ok(r.nerrors == 0 && r.object == NULL, "a failed test leaves the object as it was");
    gw_map_result_clear(&r);
    expect_error(
        "a patch that does not apply",
        "{\"mutations\":[" JP("\"[JSONPatch{op: 'remove', path: '/metadata/nope'}]\"") "]}",
        "JSON Patch: ");
}

static void
test_sequence_and_inputs(void)
{
    expect_value("a mutation sees the ones before it",
                 "{\"mutations\":[" AC("\"Object{metadata: Object.metadata{labels: {'a': "
                                       "'1'}}}\"") "," AC("\"Object{metadata: Object.metadata{"
                                                          "labels: {'b': object.metadata.labels."
                                                          "a + '2'}}}\"") "]}",
                 "metadata.labels", "{\"app\":\"x\",\"a\":\"1\",\"b\":\"12\"}");
    expect_value("params and variables",
                 "{\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},"
                 "\"variables\":[{\"name\":\"r\",\"expression\":\"int(params.data.replicas)\"}],"
                 "\"mutations\":[" AC("\"Object{spec: Object.spec{replicas: variables.r}}\"") "]}",
                 "spec.replicas", "7");
    gw_map_result_t r;
    eval("{\"matchConditions\":[{\"name\":\"m\",\"expression\":\"object.spec.replicas > 5\"}],"
         "\"mutations\":[" AC("\"Object{spec: Object.spec{replicas: 3}}\"") "]}",
         &r);
    tap_ok(!r.matched && r.object == NULL && r.nerrors == 0,
           "matchConditions that do not match: nothing runs");
    gw_map_result_clear(&r);
    eval("{\"mutations\":[" AC("\"Object{spec: Object.spec{replicas: 1 / 0}}\"") "," AC(
             "\"Object{spec: Object.spec{replicas: 4}}\"") "]}",
         &r);
    tap_ok(r.nerrors == 1 && r.object != NULL &&
               json_integer_value(at(r.object, "spec.replicas")) == 4,
           "a failed mutation does not stop the next one");
    gw_map_result_clear(&r);
    eval("{\"mutations\":[" AC(
             "\"Object{spec: Object.spec{replicas: 1 / 0}}\"") ","
                                                               "{\"patchType\":\"JSONPatch\"}]}",
         &r);
    tap_ok(r.nerrors == 1 && r.internal &&
               strcmp(r.errors[0], "expected 2 compiled evaluators for policy p1, got 1") == 0,
           "a mutation compiled to nothing is kube's internal error, alone");
    gw_map_result_clear(&r);
}

int
main(void)
{
    arena = cel_arena_new();
    schema = gw_catalog_kind_schema(gw_catalog_builtin(), "apps", "v1", "Deployment");
    object_doc = json_loads(deployment, 0, NULL);
    request_doc = json_pack("{s:s}", "operation", "CREATE");
    params_doc = json_loads("{\"data\":{\"replicas\":\"7\"}}", 0, NULL);
    test_compile();
    test_apply_configuration();
    test_json_patch();
    test_sequence_and_inputs();
    gw_map_compiled_free(last);
    cel_arena_free(arena);
    json_decref(object_doc);
    json_decref(request_doc);
    json_decref(params_doc);
    return tap_done();
}
