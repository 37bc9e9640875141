/* Unit tests for the ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding strategies
 * (gateway/registry/gw_strategy_admission_policy.c over gw_admission_policy_valid.c and
 * gw_admission_rules.c): a table of bad objects with kube's aggregate 422 message (field paths,
 * messages and their order), the update rules (unchanged match conditions, stored
 * expressions), the status subresource's rules, and v1beta1 objects validating as v1 does. */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_registry_int.h"
#include "gw_strategy.h"
#include "tap.h"

static const gw_catalog_t *cat;

#define ADMREG "admissionregistration.k8s.io"

/* A valid policy's parts; tests replace one of them. */
#define RULE                                                                                       \
    "{\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"operations\":[\"CREATE\"],"              \
    "\"resources\":[\"deployments\"],\"scope\":\"*\"}"
#define MC(rules)                                                                                  \
    "\"matchConstraints\":{\"matchPolicy\":\"Equivalent\",\"namespaceSelector\":{},"               \
    "\"objectSelector\":{},\"resourceRules\":[" rules "]}"
#define VALS "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\"}]"
#define POLICY(spec)                                                                               \
    "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"failurePolicy\":\"Fail\"," spec "}}"
#define BINDING(spec) "{\"metadata\":{\"name\":\"b\"},\"spec\":{" spec "}}"

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

static const gw_resource_t *
res(const char *version, const char *name)
{
    const gw_resource_t *r = gw_catalog_find(cat, ADMREG, version, name);

    if (r == NULL) {
        printf("Bail out! no %s/%s %s in the catalog\n", ADMREG, version, name);
        exit(1);
    }
    return r;
}

static void
is_summary(gw_field_errors_t *errs, const char *want, const char *name)
{
    char *got = gw_ferr_count(errs) ? gw_ferr_summary(errs) : strdup("");

    tap_is_str(got, want, name);
    free(got);
    gw_ferr_clear(errs);
}

/* The kind's create validation of `text` through its strategy. */
static void
create(const char *version, const char *resource, const char *text, const char *want,
       const char *name)
{
    json_t *obj = doc(text);
    gw_field_errors_t errs = {0};

    gw_registry__validate_kind(res(version, resource), obj, NULL, &errs);
    is_summary(&errs, want, name);
    json_decref(obj);
}

static void
policy(const char *text, const char *want, const char *name)
{
    create("v1", "validatingadmissionpolicies", text, want, name);
}

static void
binding(const char *text, const char *want, const char *name)
{
    create("v1", "validatingadmissionpolicybindings", text, want, name);
}

/* A main-resource update of the policy: Validate's part (nothing) and ValidateUpdate. */
static void
update(const char *text, const char *old_text, const char *want, const char *name)
{
    const gw_resource_t *r = res("v1", "validatingadmissionpolicies");
    const gw_strategy_t *st = gw_strategy_of(r);
    json_t *obj = doc(text), *old = doc(old_text);
    gw_field_errors_t errs = {0};

    gw_registry__validate_kind(r, obj, old, &errs);
    st->validate_update(r, obj, old, &errs);
    is_summary(&errs, want, name);
    json_decref(obj);
    json_decref(old);
}

static void
status(const char *text, const char *want, const char *name)
{
    const gw_resource_t *r = res("v1", "validatingadmissionpolicies");
    const gw_subres_strategy_t *sub = gw_strategy_subresource(r, "status");
    json_t *obj = doc(text);
    gw_field_errors_t errs = {0};

    gw_registry__validate_kind(r, obj, obj, &errs);
    sub->validate_update(NULL, obj, obj, &errs);
    is_summary(&errs, want, name);
    json_decref(obj);
}

#define RR "spec.matchConstraints.resourceRules[0]"

static void
test_rules(void)
{
    policy(POLICY(MC(RULE) "," VALS), "", "a valid policy");
    policy(
        POLICY(MC(
            "{\"apiGroups\":[\"*\",\"apps\"],\"apiVersions\":[],\"operations\":[\"*\","
            "\"CREATE\",\"PATCH\"],\"resources\":[\"*\",\"pods\"],\"scope\":\"Global\"}") "," VALS),
        "[" RR ".operations: Invalid value: []admissionregistration.OperationType{\"*\", "
        "\"CREATE\", \"PATCH\"}: if '*' is present, must not specify other operations, " RR
        ".operations[2]: Unsupported value: \"PATCH\": supported values: \"*\", \"CONNECT\", "
        "\"CREATE\", \"DELETE\", \"UPDATE\", " RR ".apiGroups: Invalid value: []string{\"*\", "
        "\"apps\"}: if '*' is present, must not specify other API groups, " RR
        ".apiVersions: Required value, " RR ".resources: Invalid value: []string{\"*\", "
        "\"pods\"}: if '*' is present, must not specify other resources without "
        "subresources, " RR ".scope: Unsupported value: \"Global\": supported values: \"*\", "
        "\"Cluster\", \"Namespaced\"]",
        "operations, groups, versions, resources and scope in kube's order");
    policy(POLICY(MC("{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\",\"\"],\"operations\":["
                     "\"UPDATE\"],\"resources\":[\"pods/*\",\"pods/log\",\"*/scale\","
                     "\"deployments/scale\",\"\"]}") "," VALS),
           "[" RR ".apiVersions[1]: Required value, " RR ".resources[1]: Invalid value: "
           "\"pods/log\": if 'pods/*' is present, must not specify pods/log, " RR
           ".resources[3]: Invalid value: \"deployments/scale\": if '*/scale' is present, must "
           "not specify deployments/scale, " RR ".resources[4]: Required value]",
           "overlapping subresource wildcards, empty versions and resources");
    policy(
        POLICY(MC(
            "{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":[\"*\"],"
            "\"resources\":[\"*/*\",\"pods\"],\"resourceNames\":[\"a/b\",\"x\",\"x\"]}") "," VALS),
        "[" RR ".resourceNames[0]: Invalid value: \"a/b\": may not contain '/', " RR
        ".resourceNames[2]: Duplicate value: \"x\", " RR ".resources: Invalid value: "
        "[]string{\"*/*\", \"pods\"}: if '*/*' is present, must not specify other resources]",
        "resourceNames, and */* beside another resource");
    policy(
        POLICY("\"matchConstraints\":{\"matchPolicy\":\"Sometimes\",\"namespaceSelector\":{"
               "\"matchLabels\":{\"a b\":\"c\"},\"matchExpressions\":[{\"key\":\"k\","
               "\"operator\":\"In\"},{\"key\":\"k\",\"operator\":\"Exists\",\"values\":[\"v\"]},"
               "{\"key\":\"k\",\"operator\":\"Near\"}]},\"excludeResourceRules\":[" RULE
               "]}," VALS),
        "[spec.matchConstraints.matchPolicy: Unsupported value: \"Sometimes\": supported "
        "values: \"Equivalent\", \"Exact\", spec.matchConstraints.namespaceSelector.matchLabels: "
        "Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
        "spec.matchConstraints.namespaceSelector.matchExpressions[0].values: Required value: "
        "must be specified when `operator` is 'In' or 'NotIn', "
        "spec.matchConstraints.namespaceSelector.matchExpressions[1].values: Forbidden: may not "
        "be specified when `operator` is 'Exists' or 'DoesNotExist', "
        "spec.matchConstraints.namespaceSelector.matchExpressions[2].operator: Invalid value: "
        "\"Near\": not a valid selector operator, spec.matchConstraints.objectSelector: "
        "Required value, spec.matchConstraints.resourceRules: Required value]",
        "matchPolicy, selectors, and a resource rule required");
}

static void
test_spec(void)
{
    policy("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"failurePolicy\":\"Sometimes\"}}",
           "[spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", "
           "\"Ignore\", spec.matchConstraints: Required value, spec.validations: Required value: "
           "validations or auditAnnotations must contain at least one item, "
           "spec.auditAnnotations: Required value: validations or auditAnnotations must contain "
           "at least one item]",
           "an empty spec");
    policy(
        POLICY("\"paramKind\":{\"apiVersion\":\"a/b/c\",\"kind\":\"Bad_Kind\"}," MC(RULE) "," VALS),
        "[spec.paramKind.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: "
        "a/b/c, spec.paramKind.kind: Invalid value: \"Bad_Kind\": may have mixed case, but "
        "should otherwise match: a DNS-1035 label must consist of lower case alphanumeric "
        "characters or '-', start with an alphabetic character, and end with an alphanumeric "
        "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')]",
        "paramKind's apiVersion and kind");
    policy(POLICY("\"paramKind\":{\"apiVersion\":\"Ex.com/\"}," MC(RULE) "," VALS),
           "[spec.paramKind.apiVersion: Invalid value: \"Ex.com\": a lowercase RFC 1123 subdomain "
           "must consist of lower case alphanumeric characters, '-' or '.', and must start and "
           "end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
           "spec.paramKind.apiVersion: Invalid value: \"Ex.com/\": version must be specified, "
           "spec.paramKind.kind: Required value]",
           "paramKind's group, a missing version and kind");
}

static void
test_validations(void)
{
    policy(
        POLICY(MC(RULE) ",\"validations\":[{\"expression\":\"  \"},{\"expression\":\"true\","
                        "\"message\":\"a\\nb\",\"reason\":\"Teapot\",\"messageExpression\":\" \"},"
                        "{\"expression\":\"object.spec\",\"message\":\"  \","
                        "\"messageExpression\":\"1\"}]"),
        "[spec.validations[0].expression: Required value: expression is not specified, "
        "spec.validations[1].messageExpression: Invalid value: \" \": must be non-empty if "
        "specified, spec.validations[1].message: Invalid value: \"a\\nb\": message must not "
        "contain line breaks, spec.validations[1].reason: Unsupported value: \"Teapot\": "
        "supported values: \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\", "
        "spec.validations[2].expression: Invalid value: \"object.spec\": must evaluate to bool "
        "but got dyn, spec.validations[2].messageExpression: Invalid value: \"1\": must "
        "evaluate to string but got int, spec.validations[2].message: Invalid value: \"  \": "
        "message must be non-empty if specified]",
        "expression, message, messageExpression and reason");
    policy(
        POLICY(MC(RULE) ",\"validations\":[{\"expression\":\"params.x == 1\"},"
                        "{\"expression\":\"request.foo == 'a' && request.namespace == 'b'\"},"
                        "{\"expression\":\"true\",\"messageExpression\":\"string(authorizer)\"}]"),
        "[spec.validations[0].expression: Invalid value: \"params.x == 1\": compilation "
        "failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n"
        " | params.x == 1\n"
        " | ^, spec.validations[1].expression: Invalid value: \"request.foo == 'a' && "
        "request.namespace == 'b'\": compilation failed: ERROR: <input>:1:8: undefined field "
        "'foo'\n"
        " | request.foo == 'a' && request.namespace == 'b'\n"
        " | .......^, spec.validations[2].messageExpression: Invalid value: "
        "\"string(authorizer)\": compilation failed: ERROR: <input>:1:8: undeclared reference "
        "to 'authorizer' (in container '')\n"
        " | string(authorizer)\n"
        " | .......^]",
        "undeclared references: params without paramKind, authorizer in messageExpression");
    policy(POLICY("\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}," MC(
               RULE) ",\"validations\":[{\"expression\":\"params.data.x == object.metadata.name && "
                     "authorizer.group('').resource('pods').check('get').allowed() && "
                     "namespaceObject.metadata.labels['a'] == oldObject.x && "
                     "request.userInfo.username == 'u'\",\"messageExpression\":\"'m: ' + "
                     "string(params.m)\"}]"),
           "", "object, oldObject, params, authorizer, namespaceObject and request are declared");
}

static void
test_variables_and_conditions(void)
{
    policy(POLICY(MC(
               RULE) ",\"variables\":[{\"name\":\"1x\",\"expression\":\"1\"},"
                     "{\"name\":\"a\",\"expression\":\"variables.b\"},{\"name\":\"b\","
                     "\"expression\":\"'s'\"},{\"name\":\" \",\"expression\":\"\"}],"
                     "\"validations\":[{\"expression\":\"variables.b == 's' && variables.a == 1\"},"
                     "{\"expression\":\"variables.b\"}]"),
           "[spec.variables[0].name: Invalid value: \"1x\": name is not a valid CEL identifier, "
           "spec.variables[1].expression: Invalid value: \"variables.b\": compilation failed: "
           "ERROR: <input>:1:10: undefined field 'b'\n"
           " | variables.b\n"
           " | .........^, spec.variables[3].name: Required value: name is not specified, "
           "spec.variables[3].expression: Required value: expression is not specified, "
           "spec.validations[1].expression: Invalid value: \"variables.b\": must evaluate to bool "
           "but got string]",
           "variables: identifiers, only earlier ones visible, their types");
    policy(
        POLICY(MC(
            RULE) ",\"matchConditions\":[{\"name\":\"a b\",\"expression\":\" x \"},"
                  "{\"name\":\"c\",\"expression\":\"true\"},{\"name\":\"c\",\"expression\":\"1\"},"
                  "{\"name\":\"\",\"expression\":\"\"}]," VALS),
        "[spec.matchConditions[0].expression: Invalid value: \"x\": compilation failed: "
        "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n"
        " | x\n"
        " | ^, spec.matchConditions[0].name: Invalid value: \"a b\": name part must consist of "
        "alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
        "spec.matchConditions[2].expression: Invalid value: \"1\": must evaluate to bool but "
        "got int, spec.matchConditions[2].name: Duplicate value: \"c\", "
        "spec.matchConditions[3].expression: Required value, spec.matchConditions[3].name: "
        "Required value]",
        "match conditions: trimmed, qualified and unique names, bool results");
}

/* How kube's validation composes variables, which the plugin's compile does otherwise. */
static void
test_composition(void)
{
    policy(POLICY(MC(RULE) ",\"variables\":[{\"name\":\"a\",\"expression\":\"1\"},"
                           "{\"name\":\"a\",\"expression\":\"true\"}],"
                           "\"validations\":[{\"expression\":\"variables.a\"}]"),
           "", "a later variable of a name replaces the earlier one's type");
    policy(POLICY(MC(RULE) ",\"variables\":[{\"name\":\"a\",\"expression\":\" \"},"
                           "{\"name\":\"b\",\"expression\":\"variables.a\"}]," VALS),
           "[spec.variables[0].expression: Required value: expression is not specified, "
           "spec.variables[1].expression: Invalid value: \"variables.a\": compilation failed: "
           "ERROR: <input>:1:10: undefined field 'a'\n"
           " | variables.a\n"
           " | .........^]",
           "a variable without an expression is not declared");
    policy(POLICY(MC(RULE) ",\"validations\":[{\"expression\":\"variables.a\"}]"),
           "spec.validations[0].expression: Invalid value: \"variables.a\": compilation failed: "
           "ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n"
           " | variables.a\n"
           " | ^",
           "without variables, `variables` is not declared");
    policy(POLICY(MC(RULE) ",\"matchConditions\":[{\"name\":\"c\",\"expression\":\"variables.a\"}],"
                           "\"variables\":[{\"name\":\"a\",\"expression\":\"true\"}]," VALS),
           "spec.matchConditions[0].expression: Invalid value: \"variables.a\": compilation "
           "failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n"
           " | variables.a\n"
           " | ^",
           "match conditions do not see the variables");
    policy(POLICY(MC(RULE) ",\"variables\":[{\"name\":\"l\",\"expression\":\"[1, 2]\"}],"
                           "\"validations\":[{\"expression\":\"variables.l[0] == 'a'\"}]"),
           "spec.validations[0].expression: Invalid value: \"variables.l[0] == 'a'\": "
           "compilation failed: ERROR: <input>:1:16: found no matching overload for '_==_' "
           "applied to '(int, string)'\n"
           " | variables.l[0] == 'a'\n"
           " | ...............^",
           "a variable's list type is kept");
    policy(POLICY(MC(RULE) ",\"auditAnnotations\":[{\"key\":\"k\",\"valueExpression\":\"  x\"}]"),
           "spec.auditAnnotations[0].valueExpression: Invalid value: \"  x\": compilation "
           "failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n"
           " | x\n"
           " | ^",
           "an audit annotation's value expression is compiled trimmed, shown as written");
}

/* A policy with n match conditions named c0, c1, ... */
static char *
conditions_policy(int n)
{
    char *list = strdup(""), *out;

    for (int i = 0; i < n; i++) {
        char *next = NULL;
        if (asprintf(&next, "%s%s{\"name\":\"c%d\",\"expression\":\"true\"}", list, i ? "," : "",
                     i) < 0)
            abort();
        free(list);
        list = next;
    }
    if (asprintf(&out, POLICY(MC(RULE) ",\"matchConditions\":[%s]," VALS), list) < 0)
        abort();
    free(list);
    return out;
}

/* A policy with n audit annotations k0, k1, ... whose values are `value`; *want gets kube's
 * "more than 20" error when n > 20. */
static char *
annotations_policy(int n, const char *value, char **want)
{
    char *list = strdup(""), *shown = strdup(""), *out;

    for (int i = 0; i < n; i++) {
        char *next = NULL, *snext = NULL;
        if (asprintf(&next, "%s%s{\"key\":\"k%d\",\"valueExpression\":\"%s\"}", list, i ? "," : "",
                     i, value) < 0 ||
            asprintf(&snext,
                     "%s%sadmissionregistration.AuditAnnotation{Key:\"k%d\", "
                     "ValueExpression:\"%s\"}",
                     shown, i ? ", " : "", i, value) < 0)
            abort();
        free(list);
        free(shown);
        list = next;
        shown = snext;
    }
    if (asprintf(&out, POLICY(MC(RULE) ",\"auditAnnotations\":[%s]"), list) < 0 ||
        asprintf(want,
                 "spec.auditAnnotations: Invalid value: []admissionregistration.AuditAnnotation{"
                 "%s}: must not have more than 20 auditAnnotations",
                 shown) < 0)
        abort();
    free(list);
    free(shown);
    return out;
}

static void
test_limits(void)
{
    char *want, *big = malloc(5 * 1024 + 16);
    char *atext = annotations_policy(20, "'v'", &want);

    policy(atext, "", "20 audit annotations");
    free(atext);
    free(want);
    atext = annotations_policy(21, "'v'", &want);
    policy(atext, want, "21 audit annotations: kube's Go rendering of the list");
    free(atext);
    free(want);
    /* a string literal of 5119 characters in quotes: 5121 bytes, over 5 KiB */
    big[0] = '\'';
    memset(big + 1, 'x', 5 * 1024 - 1);
    strcpy(big + 5 * 1024, "'");
    atext = annotations_policy(1, big, &want);
    policy(atext,
           "spec.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes "
           "in length",
           "a valueExpression over 5 KiB");
    free(atext);
    free(want);
    big[5 * 1024 - 1] = '\'';
    big[5 * 1024] = '\0';
    atext = annotations_policy(1, big, &want);
    policy(atext, "", "a valueExpression of 5 KiB");
    free(atext);
    free(want);
    free(big);

    char *text = conditions_policy(64);
    policy(text, "", "64 match conditions");
    free(text);
    text = conditions_policy(65);
    policy(text, "spec.matchConditions: Too many: 65: must have at most 64 items",
           "65 match conditions");
    free(text);
    policy(
        POLICY(MC(
            RULE) ",\"auditAnnotations\":[{\"key\":\"k\",\"valueExpression\":\"1\"},"
                  "{\"key\":\"k\",\"valueExpression\":\"'v'\"},{\"key\":\"a-very-long-key-that-"
                  "goes-on-and-on-past-the-sixty-three-bytes-limit-x\",\"valueExpression\":\"null\""
                  "},{\"key\":\"e\",\"valueExpression\":\" \"}]"),
        "[spec.auditAnnotations[0].valueExpression: Invalid value: \"1\": must evaluate to one "
        "of [string null_type] but got int, spec.auditAnnotations[1].key: Duplicate value: "
        "\"k\", spec.auditAnnotations[2].key: Invalid value: \"p/a-very-long-key-that-goes-on-"
        "and-on-past-the-sixty-three-bytes-limit-x\": name part must be no more than 63 "
        "characters, spec.auditAnnotations[3].valueExpression: Required value: "
        "valueExpression is not specified]",
        "audit annotations: result type, unique keys, <policy>/<key> a qualified name");
    policy(POLICY(MC(RULE) ",\"auditAnnotations\":[{\"key\":\"\",\"valueExpression\":\"'v'\"}]"),
           "[spec.auditAnnotations[0].key: Invalid value: \"p/\": name part must be non-empty, "
           "spec.auditAnnotations[0].key: Invalid value: \"p/\": name part must consist of "
           "alphanumeric characters, '-', '_' or '.', and must start and end with an "
           "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
           "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]",
           "an empty audit annotation key: every message of IsQualifiedName");
}

static void
test_binding(void)
{
    binding(BINDING("\"policyName\":\"p\",\"validationActions\":[\"Deny\"]"), "",
            "a valid binding");
    binding(BINDING(""),
            "[spec.policyName: Required value, spec.validationActions: Required value: at least "
            "one validation action is required]",
            "an empty binding");
    binding(BINDING("\"policyName\":\"P\",\"paramRef\":{\"name\":\"a/b\",\"selector\":{"
                    "\"matchExpressions\":[{\"key\":\"k\",\"operator\":\"In\",\"values\":[\"-\"]}]}"
                    ",\"parameterNotFoundAction\":\"Maybe\"},\"validationActions\":[\"Deny\","
                    "\"Warn\",\"Deny\",\"Log\"]"),
            "[spec.policyName: Invalid value: \"P\": a lowercase RFC 1123 subdomain must consist "
            "of lower case alphanumeric characters, '-' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
            "spec.paramRef.name: Invalid value: \"a/b\": may not contain '/', spec.paramRef.name: "
            "Forbidden: name and selector are mutually exclusive, "
            "spec.paramRef.selector.matchExpressions[0].values[0]: Invalid value: \"-\": a valid "
            "label must be an empty string or consist of alphanumeric characters, '-', '_' or "
            "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
            "'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), spec.paramRef.selector: Forbidden: "
            "name and selector are mutually exclusive, spec.paramRef.parameterNotFoundAction: "
            "Unsupported value: \"Maybe\": supported values: \"Deny\", \"Allow\", "
            "spec.validationActions[2]: Duplicate value: \"Deny\", spec.validationActions[3]: "
            "Unsupported value: \"Log\": supported values: \"Audit\", \"Deny\", \"Warn\", "
            "spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"
            "\"Deny\", \"Warn\", \"Deny\", \"Log\"}: must not contain both Deny and Warn "
            "(repeating the same validation failure information in the API response and headers "
            "serves no purpose)]",
            "policyName, paramRef name XOR selector, validationActions a set without Deny+Warn");
    binding(BINDING("\"policyName\":\"p\",\"paramRef\":{},\"matchResources\":{"
                    "\"matchPolicy\":\"Exact\",\"namespaceSelector\":{},\"objectSelector\":{}},"
                    "\"validationActions\":[\"Audit\"]"),
            "[spec.paramRef: Required value: one of name or selector must be specified, "
            "spec.paramRef.parameterNotFoundAction: Required value]",
            "paramRef needs a name or a selector and parameterNotFoundAction");
    binding(
        BINDING("\"policyName\":\"p\",\"matchResources\":{\"objectSelector\":{},"
                "\"resourceRules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],"
                "\"apiVersions\":[\"v1\"],\"resources\":[]}]},\"validationActions\":[\"Warn\"]"),
        "[spec.matchResouces.matchPolicy: Required value, spec.matchResouces.namespaceSelector: "
        "Required value, spec.matchResouces.resourceRules[0].resources: Required value]",
        "matchResources under kube's misspelt path");
    create("v1beta1", "validatingadmissionpolicybindings",
           BINDING("\"policyName\":\"p\",\"paramRef\":{\"name\":\"x\"},"
                   "\"validationActions\":[\"Deny\"]"),
           "spec.paramRef.parameterNotFoundAction: Required value",
           "v1beta1 validates as v1: parameterNotFoundAction required");
}

/* A syntax error's report starts as cel-go's does; the parser's wording of what it expected
 * is its own. */
static void
syntax_error(const char *text, const char *prefix, const char *name)
{
    json_t *obj = doc(text);
    gw_field_errors_t errs = {0};
    char *got;

    gw_registry__validate_kind(res("v1", "validatingadmissionpolicies"), obj, NULL, &errs);
    got = gw_ferr_count(&errs) == 1 ? gw_ferr_summary(&errs) : strdup("");
    if (!tap_ok(strncmp(got, prefix, strlen(prefix)) == 0, "%s", name))
        tap_diag("got %s", got);
    free(got);
    gw_ferr_clear(&errs);
    json_decref(obj);
}

#define BROKEN "\"validations\":[{\"expression\":\"object.x ==\"}]"

static void
test_update(void)
{
    syntax_error(POLICY(MC(RULE) "," BROKEN),
                 "spec.validations[0].expression: Invalid value: "
                 "\"object.x ==\": compilation failed: ERROR: <input>:1:12: Syntax error: ",
                 "a syntax error is a compilation failure");
    update(POLICY(MC(RULE) "," BROKEN ",\"failurePolicy\":\"Ignore\""), POLICY(MC(RULE) "," BROKEN),
           "", "an expression the stored policy holds stays on update");
    update(POLICY(MC(RULE) ",\"validations\":[{\"expression\":\"z == 1\"}]"),
           POLICY(MC(RULE) "," BROKEN),
           "spec.validations[0].expression: Invalid value: \"z == 1\": compilation failed: "
           "ERROR: <input>:1:1: undeclared reference to 'z' (in container '')\n"
           " | z == 1\n"
           " | ^",
           "a new expression is compiled on update");
    update(POLICY(MC(RULE) ",\"matchConditions\":[{\"name\":\"c\",\"expression\":\"x\"}]," VALS),
           POLICY(MC(RULE) ",\"matchConditions\":[{\"name\":\"c\",\"expression\":\"x\"}],"
                           "\"validations\":[{\"expression\":\"false\"}]"),
           "", "unchanged match conditions and paramKind: the conditions are not checked");
    update(POLICY(MC(RULE) ",\"matchConditions\":[{\"name\":\"c\",\"expression\":\"x\"},{"
                           "\"name\":\"d\",\"expression\":\"true\"}]," VALS),
           POLICY(MC(RULE) ",\"matchConditions\":[{\"name\":\"c\",\"expression\":\"x\"}]," VALS),
           "", "a changed list: its stored expression still stays");
    update(POLICY(MC(RULE) ",\"matchConditions\":[{\"name\":\"c\",\"expression\":\"y\"}]," VALS),
           POLICY(MC(RULE) ",\"matchConditions\":[{\"name\":\"c\",\"expression\":\"x\"}]," VALS),
           "spec.matchConditions[0].expression: Invalid value: \"y\": compilation failed: ERROR: "
           "<input>:1:1: undeclared reference to 'y' (in container '')\n"
           " | y\n"
           " | ^",
           "a changed match condition is compiled");
}

static void
test_status(void)
{
    status("{\"metadata\":{\"name\":\"p\"},\"spec\":{},\"status\":{\"typeChecking\":{"
           "\"expressionWarnings\":[{\"fieldRef\":\" \",\"warning\":\"\"}]},\"conditions\":[{"
           "\"type\":\"A\",\"status\":\"Maybe\",\"observedGeneration\":-1,\"reason\":\"1x\"},{"
           "\"type\":\"A\",\"status\":\"True\",\"lastTransitionTime\":\"2024-01-01T00:00:00Z\","
           "\"reason\":\"R\"}]}}",
           "[status.typeChecking.expressionWarnings[0].warning: Required value, "
           "status.typeChecking.expressionWarnings[0].fieldRef: Required value, "
           "status.conditions[0].status: Unsupported value: \"Maybe\": supported values: "
           "\"False\", \"True\", \"Unknown\", status.conditions[0].observedGeneration: Invalid "
           "value: -1: must be greater than or equal to zero, "
           "status.conditions[0].lastTransitionTime: Required value: must be set, "
           "status.conditions[0].reason: Invalid value: \"1x\": a condition reason must start "
           "with alphabetic character, optionally followed by a string of alphanumeric "
           "characters or '_,:', and must end with an alphanumeric character or '_' (e.g. "
           "'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or "
           "'ReasonA:ReasonB', regex used for validation is "
           "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?'), status.conditions[1].type: Duplicate value: "
           "\"A\"]",
           "the status subresource validates typeChecking and conditions only");
    tap_ok(gw_strategy_subresource(res("v1", "validatingadmissionpolicies"), "status") != NULL,
           "the status subresource is served");
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_rules();
    test_spec();
    test_validations();
    test_variables_and_conditions();
    test_composition();
    test_limits();
    test_binding();
    test_update();
    test_status();
    return tap_done();
}
