/* Unit tests for gateway/registry/gw_map_policy_valid.c: kube's validation of
 * MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding (v1alpha1): field paths, messages
 * and their order, and the update rules (unchanged match conditions, stored expressions). */
#include <stdlib.h>
#include <string.h>

#include "gw_map_policy_valid.h"
#include "tap.h"

/* What the registry's defaulting has set before validation. */
#define DEFAULTED "\"matchPolicy\":\"Equivalent\",\"namespaceSelector\":{},\"objectSelector\":{},"
#define RULES                                                                                      \
    "\"matchConstraints\":{" DEFAULTED "\"resourceRules\":[{\"apiGroups\":[\"apps\"],"             \
    "\"apiVersions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"deployments\"],"        \
    "\"scope\":\"*\"}]}"
#define AC(e) "{\"patchType\":\"ApplyConfiguration\",\"applyConfiguration\":{\"expression\":" e "}}"
#define POLICY(spec)                                                                               \
    "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"failurePolicy\":\"Fail\"," RULES "," spec "}}"

static json_t *
doc(const char *text)
{
    json_error_t err;
    json_t *d = json_loads(text, 0, &err);

    if (d == NULL) {
        printf("Bail out! bad test JSON (%s): %s\n", err.text, text);
        exit(1);
    }
    return d;
}

static void
is_summary(gw_field_errors_t *errs, const char *want, const char *name)
{
    char *got = gw_ferr_count(errs) ? gw_ferr_summary(errs) : strdup("");

    if (!tap_ok(strcmp(got, want) == 0, "%s", name))
        tap_diag("  got  %s\n  want %s", got, want);
    free(got);
    gw_ferr_clear(errs);
}

static void
create(const char *text, const char *want, const char *name)
{
    gw_field_errors_t errs = {0};
    json_t *d = doc(text);

    gw_map_validate(d, &errs);
    is_summary(&errs, want, name);
    json_decref(d);
}

static void
update(const char *text, const char *old_text, const char *want, const char *name)
{
    gw_field_errors_t errs = {0};
    json_t *d = doc(text), *old = doc(old_text);

    gw_map_validate_update(d, old, &errs);
    is_summary(&errs, want, name);
    json_decref(d);
    json_decref(old);
}

static void
binding(const char *text, const char *want, const char *name)
{
    gw_field_errors_t errs = {0};
    json_t *d = doc(text);

    gw_mapb_validate(d, &errs);
    is_summary(&errs, want, name);
    json_decref(d);
}

int
main(void)
{
    create(POLICY("\"reinvocationPolicy\":\"IfNeeded\",\"mutations\":[" AC(
               "\"Object{spec: Object.spec{replicas: 1}}\"") "]"),
           "", "a valid policy");
    create(POLICY("\"reinvocationPolicy\":\"Never\",\"mutations\":[{\"patchType\":\"JSONPatch\","
                  "\"jsonPatch\":{\"expression\":\"  \"}}]"),
           "spec.mutations[0].jsonPatch.expression: Required value", "a blank expression");
    create(POLICY("\"reinvocationPolicy\":\"Never\",\"mutations\":[{}]"),
           "spec.mutations[0].patchType: Required value", "no patchType");
    create(POLICY("\"reinvocationPolicy\":\"Never\",\"mutations\":[" AC("\"object\"") "]"),
           "spec.mutations[0].applyConfiguration.expression: Invalid value: \"object\": must "
           "evaluate to Object but got dyn",
           "an apply configuration of another type");
    create(POLICY("\"reinvocationPolicy\":\"Never\",\"mutations\":[" AC(
               "\"Object{}\"") "],"
                               "\"variables\":[{\"name\":\"v\",\"expression\":\"Object{}\"}]"),
           "spec.variables[0].expression: Invalid value: \"Object{}\": compilation failed: ERROR: "
           "<input>:1:7: undeclared reference to 'Object' (in container '')\n | Object{}\n | "
           "......^",
           "variables have no mutation library");
    create(POLICY("\"reinvocationPolicy\":\"Never\",\"mutations\":[" AC("\"nope\"") "]"),
           "spec.mutations[0].applyConfiguration.expression: Invalid value: \"nope\": compilation "
           "failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope\n"
           " | ^",
           "a mutation that does not compile");
    update(POLICY("\"reinvocationPolicy\":\"Never\",\"mutations\":[" AC("\"nope\"") "]"),
           POLICY("\"reinvocationPolicy\":\"Never\",\"mutations\":[" AC("\"nope\"") "]"), "",
           "an update keeps a stored mutation that does not compile");
    update(POLICY("\"reinvocationPolicy\":\"Never\",\"matchConditions\":[{\"name\":\"m\","
                  "\"expression\":\"x\"}],\"mutations\":[" AC("\"Object{}\"") "]"),
           POLICY("\"reinvocationPolicy\":\"Never\",\"matchConditions\":[{\"name\":\"m\","
                  "\"expression\":\"x\"}],\"mutations\":[" AC("\"Object{}\"") "]"),
           "", "... and does not check unchanged match conditions");
    binding("{\"metadata\":{\"name\":\"b\"},\"spec\":{\"policyName\":\"P\",\"matchResources\":"
            "{" DEFAULTED "\"resourceRules\":[{\"operations\":[\"DELETE\"],\"apiGroups\":[\"\"],"
            "\"apiVersions\":[\"v1\"],\"resources\":[\"pods\"],\"scope\":\"*\"}]}}}",
            "[spec.policyName: Invalid value: \"P\": a lowercase RFC 1123 subdomain must consist "
            "of lower case alphanumeric characters, '-' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
            "spec.matchResources.resourceRules.operations: Unsupported value: \"DELETE\": "
            "supported values: \"*\", \"CONNECT\", \"CREATE\", \"UPDATE\"]",
            "a binding's name and operations");
    return tap_done();
}
