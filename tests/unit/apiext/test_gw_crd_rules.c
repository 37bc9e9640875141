/* Unit tests for CRD x-kubernetes-validations (gateway/apiext/gw_crd_rules*.c): rules compiled
 * once per schema and run on objects with kube's self/oldSelf, transition and optionalOldSelf
 * semantics, messages, messageExpression, reason, fieldPath and runtime budget; and the
 * CRD-side checks (compile errors, estimated cost limits, oldSelf placement), with the texts
 * of kube's validation_test.go and schema/cel validation_test.go. */
#include <stdlib.h>
#include <string.h>

#include "gw_arena.h"
#include "gw_buf.h"
#include "gw_crd.h"
#include "gw_crd_rules.h"
#include "gw_crd_schema.h"
#include "tap.h"

static const gw_schema_t objmeta = {.type = GW_SCHEMA_OBJECT};

static json_t *
doc(const char *text)
{
    json_error_t err;
    json_t *d = json_loads(text, JSON_DECODE_ANY, &err);
    if (d == NULL) {
        printf("Bail out! bad test JSON (%s): %s\n", err.text, text);
        exit(1);
    }
    return d;
}

/* A compiled version of the openAPIV3Schema `schema`, in `a`. */
static gw_crd_version_t
version(gw_arena_t *a, const char *schema)
{
    gw_crd_version_t cv = {0};
    char err[256];
    json_t *s = doc(schema);
    gw_arena_defer(a, (void (*)(void *))json_decref, s);
    if (gw_crd_schema_compile(a, s, &objmeta, &cv.schema, err, sizeof(err)) != 0) {
        printf("Bail out! schema: %s\n", err);
        exit(1);
    }
    cv.rules = gw_crd_rules_compile(a, cv.schema);
    return cv;
}

/* The 422 text of validating obj (old: NULL or the stored object); "" when it passes. */
static char *
run(const char *schema, const char *obj, const char *old)
{
    gw_arena_t *a = gw_arena_new();
    gw_crd_version_t cv = version(a, schema);
    gw_field_errors_t errs = {0};
    json_t *o = doc(obj), *p = old != NULL ? doc(old) : NULL;
    char *out;

    gw_crd_rules_validate(&cv, o, p, &errs);
    out = gw_ferr_count(&errs) > 0 ? gw_ferr_summary(&errs) : strdup("");
    gw_ferr_clear(&errs);
    json_decref(o);
    json_decref(p);
    gw_arena_free(a);
    return out;
}

/* The CRD-side check's text for an openAPIV3Schema; "" when it passes. */
static char *
check(const char *schema)
{
    gw_field_errors_t errs = {0};
    json_t *s = doc(schema);
    char *out;

    gw_crd_rules_check(s, "spec.validation.openAPIV3Schema", &errs);
    out = gw_ferr_count(&errs) > 0 ? gw_ferr_summary(&errs) : strdup("");
    gw_ferr_clear(&errs);
    json_decref(s);
    return out;
}

#define IS(got, want, name)                                                                        \
    do {                                                                                           \
        char *g__ = (got);                                                                         \
        tap_is_str(g__, want, name);                                                               \
        free(g__);                                                                                 \
    } while (0)

/* A root with spec {replicas, minReplicas, name} carrying `rules` (a JSON array). */
#define SPEC(rules)                                                                                \
    "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"          \
    "\"replicas\":{\"type\":\"integer\"},\"minReplicas\":{\"type\":\"integer\"},"                  \
    "\"name\":{\"type\":\"string\",\"maxLength\":64}},\"x-kubernetes-validations\":" rules "}}}"
#define OBJ(spec)                                                                                  \
    "{\"apiVersion\":\"g/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},\"spec\":" spec "}"

static void
test_self(void)
{
    const char *s =
        SPEC("[{\"rule\":\"self.minReplicas <= self.replicas\","
             "\"message\":\"replicas should be greater than or equal to minReplicas\"}]");
    IS(run(s, OBJ("{\"replicas\":3,\"minReplicas\":1}"), NULL), "", "a rule that holds");
    IS(run(s, OBJ("{\"replicas\":1,\"minReplicas\":3}"), NULL),
       "spec: Invalid value: \"object\": replicas should be greater than or equal to minReplicas",
       "a failing rule: its message at the node's path, the value its type");
    IS(run(SPEC("[{\"rule\":\"self.minReplicas <= self.replicas\"}]"),
           OBJ("{\"replicas\":1,\"minReplicas\":3}"), NULL),
       "spec: Invalid value: \"object\": failed rule: self.minReplicas <= self.replicas",
       "without a message: failed rule: <rule>");
    IS(run(SPEC("[{\"rule\":\"self.replicas / self.minReplicas > 0\"}]"),
           OBJ("{\"replicas\":1,\"minReplicas\":0}"), NULL),
       "spec: Invalid value: \"object\": division by zero evaluating rule: self.replicas / "
       "self.minReplicas > 0",
       "a runtime error: <error> evaluating rule: <rule>");
    IS(run(SPEC("[{\"rule\":\"self.minReplicas <= self.replicas\"}]"), OBJ("null"), NULL), "",
       "null values are not validated");
    IS(run("{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":"
           "\"self.metadata.name.startsWith('x') && self.kind == 'K' && self.apiVersion == "
           "'g/v1'\"}]}",
           OBJ("{}"), NULL),
       "<nil>: Invalid value: \"object\": failed rule: self.metadata.name.startsWith('x') && "
       "self.kind == 'K' && self.apiVersion == 'g/v1'",
       "the root sees apiVersion, kind and metadata.name; its path is <nil>");
}

static void
test_messages(void)
{
    const char *one = OBJ("{\"replicas\":1,\"minReplicas\":3}");
    IS(run(SPEC("[{\"rule\":\"self.replicas >= self.minReplicas\",\"messageExpression\":"
                "\"'replicas ' + string(self.replicas) + ' below ' + string(self.minReplicas)\"}]"),
           one, NULL),
       "spec: Invalid value: \"object\": replicas 1 below 3", "messageExpression's result");
    IS(run(SPEC("[{\"rule\":\"self.replicas >= self.minReplicas\",\"message\":\"too few\","
                "\"messageExpression\":\"'  '\"}]"),
           one, NULL),
       "spec: Invalid value: \"object\": too few", "an empty messageExpression: the message");
    IS(run(SPEC("[{\"rule\":\"self.replicas >= self.minReplicas\",\"message\":\"too few\","
                "\"messageExpression\":\"string(self.replicas / 0)\"}]"),
           one, NULL),
       "spec: Invalid value: \"object\": too few", "a failing messageExpression: the message");
    IS(run(SPEC("[{\"rule\":\"self.replicas >= self.minReplicas\","
                "\"messageExpression\":\"'a\\\\nb'\"}]"),
           one, NULL),
       "spec: Invalid value: \"object\": failed rule: self.replicas >= self.minReplicas",
       "a messageExpression with a line break: the default message");
}

static void
test_reason_path(void)
{
    const char *one = OBJ("{\"replicas\":1,\"minReplicas\":3}");
    IS(run(SPEC("[{\"rule\":\"self.replicas >= self.minReplicas\",\"message\":\"m\","
                "\"reason\":\"FieldValueForbidden\"}]"),
           one, NULL),
       "spec: Forbidden: m", "reason FieldValueForbidden");
    IS(run(SPEC("[{\"rule\":\"self.replicas >= self.minReplicas\",\"message\":\"m\","
                "\"reason\":\"FieldValueRequired\"}]"),
           one, NULL),
       "spec: Required value: m", "reason FieldValueRequired");
    IS(run(SPEC("[{\"rule\":\"self.replicas >= self.minReplicas\",\"message\":\"m\","
                "\"reason\":\"FieldValueDuplicate\"}]"),
           one, NULL),
       "spec: Duplicate value: \"object\"", "reason FieldValueDuplicate");
    IS(run(SPEC("[{\"rule\":\"self.replicas >= self.minReplicas\",\"message\":\"m\","
                "\"fieldPath\":\".replicas\"}]"),
           one, NULL),
       "spec.replicas: Invalid value: \"object\": m", "fieldPath: the error's path");
}

#define NAME_RULE(extra)                                                                           \
    "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"          \
    "\"name\":{\"type\":\"string\",\"maxLength\":64,\"x-kubernetes-validations\":[" extra "]}}}}}"

static void
test_transition(void)
{
    const char *s = NAME_RULE("{\"rule\":\"self == oldSelf\",\"message\":\"Value is immutable\"}");
    IS(run(s, OBJ("{\"name\":\"a\"}"), NULL), "", "a transition rule does not run on create");
    IS(run(s, OBJ("{\"name\":\"a\"}"), OBJ("{\"name\":\"a\"}")), "", "unchanged: it holds");
    IS(run(s, OBJ("{\"name\":\"b\"}"), OBJ("{\"name\":\"a\"}")),
       "spec.name: Invalid value: \"string\": Value is immutable", "changed: it fails");
    IS(run(s, OBJ("{\"name\":\"b\"}"), OBJ("{}")), "", "no old value at the node: it does not run");
    s = NAME_RULE("{\"rule\":\"oldSelf.hasValue()\",\"optionalOldSelf\":true,\"message\":\"new\"}");
    IS(run(s, OBJ("{\"name\":\"a\"}"), NULL), "spec.name: Invalid value: \"string\": new",
       "optionalOldSelf: it runs on create, oldSelf none");
    IS(run(s, OBJ("{\"name\":\"a\"}"), OBJ("{\"name\":\"z\"}")), "",
       "optionalOldSelf: oldSelf.value() on update");
    s = NAME_RULE("{\"rule\":\"self.size() < 3\"}");
    IS(run(s, OBJ("{\"name\":\"long\"}"), OBJ("{\"name\":\"long\"}")), "",
       "ratcheting: an unchanged value that fails a rule without oldSelf passes");
    IS(run(s, OBJ("{\"name\":\"longer\"}"), OBJ("{\"name\":\"long\"}")),
       "spec.name: Invalid value: \"string\": failed rule: self.size() < 3",
       "a changed value fails it");
}

/* A map list of {name, value} whose items carry `rule`. */
#define MAPLIST(rule)                                                                              \
    "{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\",\"maxItems\":10,"          \
    "\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\"],\"items\":{"     \
    "\"type\":\"object\",\"required\":[\"name\"],\"properties\":{\"name\":{\"type\":\"string\","   \
    "\"maxLength\":10},\"value\":{\"type\":\"integer\"}},\"x-kubernetes-validations\":[{"          \
    "\"rule\":\"" rule "\"}]}}}}"

static void
test_correlation(void)
{
    const char *s = MAPLIST("self.value >= oldSelf.value");
    const char *old = "{\"items\":[{\"name\":\"a\",\"value\":5},{\"name\":\"b\",\"value\":1}]}";
    IS(run(s, "{\"items\":[{\"name\":\"b\",\"value\":2},{\"name\":\"a\",\"value\":5}]}", old), "",
       "map-list items correlate by key, not index");
    IS(run(s, "{\"items\":[{\"name\":\"b\",\"value\":2},{\"name\":\"a\",\"value\":4}]}", old),
       "items[1]: Invalid value: \"object\": failed rule: self.value >= oldSelf.value",
       "a decrease of a correlated item fails, at the item's index");
    IS(run(s, "{\"items\":[{\"name\":\"c\",\"value\":0}]}", old), "", "a new key has no old value");
    s = "{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\",\"maxProperties\":5,"
        "\"additionalProperties\":{\"type\":\"integer\",\"x-kubernetes-validations\":[{\"rule\":"
        "\"self >= oldSelf\"}]}}}}";
    IS(run(s, "{\"m\":{\"x\":1,\"y\":0}}", "{\"m\":{\"x\":2,\"y\":0}}"),
       "m[x]: Invalid value: \"integer\": failed rule: self >= oldSelf",
       "map values correlate by key; their path is m[key]");
}

/* A list of strings (maxItems `max`, "" for none) whose rule compares every pair. */
#define PAIRS(max)                                                                                 \
    "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\"" max ",\"items\":{"            \
    "\"type\":\"string\",\"maxLength\":10},\"x-kubernetes-validations\":[{\"rule\":"               \
    "\"self.all(x, self.all(y, x == y))\"}]}}}"

static void
test_budget(void)
{
    gw_buf_t b = {0};
    gw_buf_str(&b, "{\"l\":[");
    for (int i = 0; i < 1200; i++)
        gw_buf_printf(&b, "%s\"a\"", i ? "," : "");
    gw_buf_str(&b, "]}");
    IS(run(PAIRS(""), gw_buf_cstr(&b), NULL),
       "l: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further "
       "validation rules will be run due to call cost exceeds limit for rule: self.all(x, "
       "self.all(y, x == y))",
       "one evaluation over the per-call limit stops the rules");
    gw_buf_free(&b);
    b = (gw_buf_t){0};
    IS(run(PAIRS(""), "{\"l\":[\"a\",\"a\"]}", NULL), "", "a small list passes");
    /* eleven evaluations of about 962,000 each: the eleventh is over the object's 10,000,000 */
    gw_buf_str(&b, "{\"z\":1,\"ll\":[");
    for (int k = 0; k < 11; k++) {
        gw_buf_str(&b, k ? ",[" : "[");
        for (int i = 0; i < 400; i++)
            gw_buf_str(&b, i ? ",\"a\"" : "\"a\"");
        gw_buf_str(&b, "]");
    }
    gw_buf_str(&b, "]}");
    IS(run("{\"type\":\"object\",\"properties\":{\"z\":{\"type\":\"integer\","
           "\"x-kubernetes-validations\":[{\"rule\":\"self > 100\"}]},\"ll\":{\"type\":"
           "\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
           "\"maxLength\":10},\"x-kubernetes-validations\":[{\"rule\":"
           "\"self.all(x, self.all(y, x == y))\"}]}}}}",
           gw_buf_cstr(&b), NULL),
       "ll[10]: Invalid value: \"array\": validation failed due to running out of cost budget, no "
       "further validation rules will be run",
       "the object's budget: the evaluation that exhausts it stops every further rule");
    gw_buf_free(&b);
}

static void
test_blocking(void)
{
    gw_arena_t *a = gw_arena_new();
    gw_crd_version_t cv = version(a, SPEC("[{\"rule\":\"self.replicas > 5\"}]"));
    gw_field_errors_t errs = {0};
    json_t *o = doc(OBJ("{\"replicas\":1}"));
    char *text;

    gw_ferr_required(&errs, "spec.name", NULL);
    gw_crd_rules_validate(&cv, o, NULL, &errs);
    text = gw_ferr_summary(&errs);
    tap_is_str(text,
               "[spec.name: Required value, <nil>: Invalid value: \"null\": some validation rules "
               "were not checked because the object was invalid; correct the existing errors to "
               "complete validation]",
               "a blocking schema error: rules are not run");
    free(text);
    gw_ferr_clear(&errs);
    json_decref(o);
    gw_arena_free(a);
}

#define V "spec.validation.openAPIV3Schema"
#define RULE_V(rule)                                                                               \
    "apiextensions.ValidationRule{Rule:\"" rule "\", Message:\"\", MessageExpression:\"\", "       \
    "Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", "                         \
    "OptionalOldSelf:(*bool)(nil)}"

static void
test_check_compile(void)
{
    IS(check(SPEC("[{\"rule\":\"self.minReplicas <= self.replicas\"}]")), "",
       "a rule that compiles");
    IS(check(SPEC("[{\"rule\":\"self.nope > 0\"}]")),
       V ".properties[spec].x-kubernetes-validations[0].rule: Invalid value: " RULE_V(
           "self.nope > 0") ": compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n"
                            " | self.nope > 0\n | ....^",
       "an undefined field: kube's compile error");
    IS(check(SPEC("[{\"rule\":\"self.replicas\"}]")),
       V ".properties[spec].x-kubernetes-validations[0].rule: Invalid value: " RULE_V(
           "self.replicas") ": cel expression must evaluate to a bool",
       "a rule that is not a bool");
    IS(check(SPEC("[{\"rule\":\"true\",\"messageExpression\":\"self.replicas\"}]")),
       V ".properties[spec].x-kubernetes-validations[0].messageExpression: Invalid value: "
         "apiextensions.ValidationRule{Rule:\"true\", Message:\"\", MessageExpression:"
         "\"self.replicas\", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", "
         "OptionalOldSelf:(*bool)(nil)}: messageExpression must evaluate to a string",
       "a messageExpression that is not a string");
    IS(check("{\"type\":\"object\",\"x-kubernetes-validations\":[{\"rule\":"
             "\"self.metadata.labels.size() > 0\"}]}"),
       V ".x-kubernetes-validations[0].rule: Invalid value: " RULE_V(
           "self.metadata.labels.size() > 0") ": compilation failed: ERROR: <input>:1:14: "
                                              "undefined field 'labels'\n"
                                              " | self.metadata.labels.size() > 0\n"
                                              " | .............^",
       "metadata shows only name and generateName");
}

/* A rule on spec.name (a string of at most 64). */
#define ON_NAME(rule)                                                                              \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":64,"         \
    "\"x-kubernetes-validations\":[{\"rule\":\"" rule "\"}]}}}"

static void
test_check_libraries(void)
{
    IS(check(ON_NAME("self.lowerAscii().split('-').size() < 3 && [1, 2].sum() == 3 && "
                     "sets.contains([self], [self])")),
       "", "kube's libraries: ext strings v2, Kubernetes lists, sets");
    IS(check(ON_NAME("self.matches('^a') && isURL(self) && !isIP(self) && !isQuantity(self)")), "",
       "kube's libraries: regex, URL, IP, quantity");
    IS(check(ON_NAME("self.reverse() == self")),
       V ".properties[name].x-kubernetes-validations[0].rule: Invalid value: " RULE_V(
           "self.reverse() == self") ": compilation failed: ERROR: <input>:1:13: undeclared "
                                     "reference to 'reverse' (in container '')\n"
                                     " | self.reverse() == self\n"
                                     " | ............^",
       "string reverse (ext strings v3) is not in kube 1.32");
    IS(check(ON_NAME("self.split('-').sort() == ['a']")),
       V ".properties[name].x-kubernetes-validations[0].rule: Invalid value: " RULE_V(
           "self.split('-').sort() == ['a']") ": compilation failed: ERROR: <input>:1:21: "
                                              "undeclared reference to 'sort' (in container '')\n"
                                              " | self.split('-').sort() == ['a']\n"
                                              " | ....................^",
       "ext lists are not in kube 1.32");
}

static void
test_check_transition(void)
{
    const char *s = "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"maxItems\":5,"
                    "\"items\":{\"type\":\"string\",\"maxLength\":5,\"x-kubernetes-validations\":"
                    "[{\"rule\":\"self == oldSelf\"}]}}}}";
    IS(check(s),
       V ".properties[l].items.x-kubernetes-validations[0].rule: Invalid value: \"self == "
         "oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within " V
         ".properties[l]",
       "oldSelf under the items of an atomic list");
    IS(check(MAPLIST("self.value >= oldSelf.value")), "", "oldSelf under a map list's items");
}

static void
test_check_cost(void)
{
    IS(check(PAIRS(",\"maxItems\":10")), "", "a quadratic rule over a bounded list");
    IS(check(PAIRS("")),
       "[" V ".properties[l].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost "
       "exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, "
       "maxProperties, and maxLength where arrays, maps, and strings are declared), " V
       ".properties[l].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule "
       "cost total exceeding cost limit for entire OpenAPIv3 schema, " V ": Forbidden: "
       "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds "
       "budget by factor of more than 100x (try simplifying the rule, or adding maxItems, "
       "maxProperties, and maxLength where arrays, maps, and strings are declared)]",
       "an unbounded list: the rule's and the schema's limits");
}

int
main(void)
{
    test_self();
    test_messages();
    test_reason_path();
    test_transition();
    test_correlation();
    test_budget();
    test_blocking();
    test_check_compile();
    test_check_libraries();
    test_check_transition();
    test_check_cost();
    return tap_done();
}
