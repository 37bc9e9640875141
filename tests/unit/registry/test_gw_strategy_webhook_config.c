/* Unit tests for the MutatingWebhookConfiguration and ValidatingWebhookConfiguration strategies
 * (gateway/registry/gw_strategy_webhook_config.c over gw_webhook_config_valid.c,
 * gw_webhook_client_valid.c and gw_admission_rules.c): bad webhooks with kube's aggregate 422
 * message (paths, messages, order), the match conditions' compilation in the webhook
 * environment, and the update's relaxed options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_registry_int.h"
#include "gw_strategy.h"
#include "tap.h"

static const gw_catalog_t *cat;

#define ADMREG "admissionregistration.k8s.io"
#define VWC "validatingwebhookconfigurations"
#define MWC "mutatingwebhookconfigurations"

/* A valid webhook's members; tests add or replace some. */
#define NAME "\"name\":\"a.example.com\""
#define CC "\"clientConfig\":{\"url\":\"https://h.example.com/x\"}"
#define SE "\"sideEffects\":\"None\""
#define ARV "\"admissionReviewVersions\":[\"v1\"]"
#define HOOK(extra) "{" NAME "," CC "," SE "," ARV extra "}"
#define CONFIG(hooks) "{\"metadata\":{\"name\":\"c\"},\"webhooks\":[" hooks "]}"

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
res(const char *name)
{
    const gw_resource_t *r = gw_catalog_find(cat, ADMREG, "v1", name);

    if (r == NULL) {
        printf("Bail out! no %s %s in the catalog\n", ADMREG, name);
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

/* The kind's create validation through its strategy. */
static void
create(const char *resource, const char *text, const char *want, const char *name)
{
    json_t *obj = doc(text);
    gw_field_errors_t errs = {0};

    gw_registry__validate_kind(res(resource), obj, NULL, &errs);
    is_summary(&errs, want, name);
    json_decref(obj);
}

/* An update: Validate's part (nothing) and ValidateUpdate. */
static void
update(const char *resource, const char *text, const char *old_text, const char *want,
       const char *name)
{
    const gw_resource_t *r = res(resource);
    json_t *obj = doc(text), *old = doc(old_text);
    gw_field_errors_t errs = {0};

    gw_registry__validate_kind(r, obj, old, &errs);
    gw_strategy_of(r)->validate_update(r, obj, old, &errs);
    is_summary(&errs, want, name);
    json_decref(obj);
    json_decref(old);
}

#define W0 "webhooks[0]"

static void
test_webhook(void)
{
    create(VWC, CONFIG(HOOK("")), "", "a valid validating webhook");
    create(MWC, CONFIG(HOOK(",\"reinvocationPolicy\":\"IfNeeded\"")), "",
           "a valid mutating webhook");
    create(VWC, CONFIG("{" CC "," SE "," ARV "}"), W0 ".name: Required value",
           "a webhook's name is required");
    create(VWC, CONFIG("{\"name\":\"a.example\"," CC "," SE "," ARV "}"),
           W0 ".name: Invalid value: \"a.example\": should be a domain with at least three "
              "segments separated by dots",
           "a webhook's name has three segments");
    create(VWC, CONFIG("{\"name\":\"A.example.com\"," CC "," SE "," ARV "}"),
           W0 ".name: Invalid value: \"A.example.com\": a lowercase RFC 1123 subdomain must "
              "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
              "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
           "a webhook's name is a DNS subdomain");
    create(VWC, CONFIG(HOOK("") "," HOOK("") "," HOOK("")),
           "[webhooks[1].name: Duplicate value: \"a.example.com\", webhooks[2].name: Duplicate "
           "value: \"a.example.com\"]",
           "webhook names are unique");
    create(MWC,
           CONFIG("{" NAME "," CC "," ARV ",\"failurePolicy\":\"Maybe\",\"matchPolicy\":\"Some\","
                  "\"timeoutSeconds\":31,\"reinvocationPolicy\":\"Always\"}"),
           "[" W0 ".failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", "
           "\"Ignore\", " W0 ".matchPolicy: Unsupported value: \"Some\": supported values: "
           "\"Equivalent\", \"Exact\", " W0 ".sideEffects: Required value: must specify one of "
           "None, NoneOnDryRun, " W0 ".timeoutSeconds: Invalid value: 31: the timeout value must "
           "be between 1 and 30 seconds, " W0 ".reinvocationPolicy: Unsupported value: "
           "\"Always\": supported values: \"IfNeeded\", \"Never\"]",
           "policies, sideEffects, timeout and reinvocation in kube's order");
    create(VWC, CONFIG("{" NAME "," CC "," ARV ",\"sideEffects\":\"Some\",\"timeoutSeconds\":0}"),
           "[" W0 ".sideEffects: Unsupported value: \"Some\": supported values: \"None\", "
           "\"NoneOnDryRun\", " W0 ".timeoutSeconds: Invalid value: 0: the timeout value must be "
           "between 1 and 30 seconds]",
           "sideEffects Some is refused on create; a zero timeout too");
    create(VWC, CONFIG("{" NAME "," CC "," SE "}"),
           W0 ".admissionReviewVersions: Required value: must specify one of v1, v1beta1",
           "admissionReviewVersions is required");
    create(VWC,
           CONFIG("{" NAME "," CC "," SE ",\"admissionReviewVersions\":[\"v2\",\"v2\",\"V3\"]}"),
           "[" W0 ".admissionReviewVersions[1]: Invalid value: \"v2\": duplicate version, " W0
           ".admissionReviewVersions[2]: Invalid value: \"V3\": a DNS-1035 label must consist of "
           "lower case alphanumeric characters or '-', start with an alphabetic character, and "
           "end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
           "validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), " W0
           ".admissionReviewVersions: Invalid value: []string{\"v2\", \"v2\", \"V3\"}: must "
           "include at least one of v1, v1beta1]",
           "review versions: duplicates, DNS-1035 labels, one kube accepts");
    create(VWC,
           CONFIG("{" NAME "," SE "," ARV ",\"rules\":[{\"operations\":[\"PATCH\"],\"apiGroups\":"
                  "[\"\"],\"apiVersions\":[\"v1\"],\"resources\":[]}],\"namespaceSelector\":"
                  "{\"matchLabels\":{\"a\":\"-x\"}}}"),
           "[" W0 ".rules[0].operations[0]: Unsupported value: \"PATCH\": supported values: "
           "\"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\", " W0
           ".rules[0].resources: Required value, " W0
           ".namespaceSelector.matchLabels: Invalid value: \"-x\": a valid label must be an "
           "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
           "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
           "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), " W0
           ".clientConfig: Required value: exactly one of url or service is required]",
           "rules, selectors and a missing client config");
}

#define CCP "webhooks[0].clientConfig"

static void
test_client_config(void)
{
    create(VWC,
           CONFIG("{" NAME "," SE "," ARV ",\"clientConfig\":{\"url\":\"http://u@/p?q=1#f\"}}"),
           "[" CCP ".url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired "
           "format: https://host[/path], " CCP ".url: Invalid value: \"\": host must be "
           "specified; desired format: https://host[/path], " CCP ".url: Invalid value: \"u\": "
           "user information is not permitted in the URL, " CCP ".url: Invalid value: \"f\": "
           "fragments are not permitted in the URL, " CCP ".url: Invalid value: \"q=1\": query "
           "parameters are not permitted in the URL]",
           "a URL: https, a host, no user, fragment or query");
    create(VWC,
           CONFIG("{" NAME "," SE "," ARV ",\"clientConfig\":{\"url\":\"https://h\",\"service\":"
                  "{\"name\":\"s\",\"namespace\":\"n\",\"port\":443}}}"),
           CCP ": Required value: exactly one of url or service is required",
           "url and service together are refused");
    create(VWC, CONFIG("{" NAME "," SE "," ARV ",\"clientConfig\":{\"url\":\":x\"}}"),
           CCP ".url: Required value: url must be a valid URL: parse \":x\": missing protocol "
               "scheme; desired format: https://host[/path]",
           "a URL Go cannot parse");
    create(VWC,
           CONFIG("{" NAME "," SE "," ARV ",\"clientConfig\":{\"service\":{\"name\":\"s\","
                  "\"port\":0,\"path\":\"/a//B\"}}}"),
           "[" CCP ".service.name: Required value, " CCP ".service.port: Invalid value: 0: port "
           "is not valid: must be between 1 and 65535, inclusive, " CCP ".service.path: Invalid "
           "value: \"/a//B\": segment[1] may not be empty, " CCP ".service.path: Invalid value: "
           "\"/a//B\": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case "
           "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
           "character (e.g. 'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]",
           "a service: kube reports a missing namespace as the name, port and path rules");
}

#define MC0 "webhooks[0].matchConditions"

/* A configuration whose one webhook has n match conditions named c0, c1, ... */
static char *
many_conditions(size_t n)
{
    json_t *obj = json_loads(CONFIG(HOOK("")), 0, NULL), *list = json_array();
    char *text;

    for (size_t i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof(name), "c%zu", i);
        json_array_append_new(list, json_pack("{s:s,s:s}", "name", name, "expression", "true"));
    }
    json_object_set_new(json_array_get(json_object_get(obj, "webhooks"), 0), "matchConditions",
                        list);
    text = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    return text;
}

static void
test_match_conditions(void)
{
    create(VWC,
           CONFIG(HOOK(",\"matchConditions\":[{\"name\":\"a\",\"expression\":\" request.name "
                       "== 'x' && authorizer.group('').resource('pods').check('get').allowed() "
                       "&& namespaceObject.metadata.name != 'y' \"}]")),
           "", "object, request, authorizer and namespaceObject are declared");
    create(VWC,
           CONFIG(HOOK(",\"matchConditions\":[{\"name\":\"a\",\"expression\":\"params.x\"},"
                       "{\"name\":\"a\",\"expression\":\"variables.v\"},{\"name\":\"c/d/e\","
                       "\"expression\":\"1\"},{\"name\":\"\",\"expression\":\"  \"}]")),
           "[" MC0 "[0].expression: Invalid value: \"params.x\": compilation failed: ERROR: "
           "<input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | "
           "^, " MC0 "[1].expression: Invalid value: \"variables.v\": compilation failed: ERROR: "
           "<input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.v\n"
           " | ^, " MC0 "[1].name: Duplicate value: \"a\", " MC0 "[2].expression: Invalid value: "
           "\"1\": must evaluate to bool but got int, " MC0 "[2].name: Invalid value: \"c/d/e\": "
           "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
           "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
           "'123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
           "and '/' (e.g. 'example.com/MyName'), " MC0 "[3].expression: Required value, " MC0
           "[3].name: Required value]",
           "no params or variables, bool results, qualified unique names");
    char *text = many_conditions(64);
    create(VWC, text, "", "64 match conditions are allowed");
    free(text);
    text = many_conditions(65);
    create(VWC, text, MC0 ": Too many: 65: must have at most 64 items", "65 are too many");
    free(text);
}

/* A stored configuration that breaks what newer rules ask. */
#define OLD_LAX                                                                                    \
    CONFIG("{" NAME "," CC ",\"sideEffects\":\"Unknown\",\"admissionReviewVersions\":[\"v0\"],"    \
           "\"objectSelector\":{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\","         \
           "\"values\":[\"-x\"]}]},\"matchConditions\":[{\"name\":\"m\",\"expression\":\"x\"}]},"  \
           "{" NAME "," CC "," SE "," ARV "}")

static void
test_update(void)
{
    create(
        VWC,
        CONFIG(HOOK(",\"objectSelector\":{\"matchExpressions\":[{\"key\":\"a\",\"operator\":"
                    "\"In\",\"values\":[\"-x\"]}]}")),
        "webhooks[0].objectSelector.matchExpressions[0].values[0]: Invalid value: \"-x\": a valid "
        "label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
        "and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        "a create refuses a selector's invalid label value");
    update(VWC, OLD_LAX, OLD_LAX, "",
           "an update keeps what the stored object already had (side effects, versions, "
           "duplicate names, label values, match conditions)");
    update(VWC,
           CONFIG("{" NAME "," CC ",\"sideEffects\":\"Some\",\"admissionReviewVersions\":[\"v0\"],"
                  "\"matchConditions\":[{\"name\":\"m\",\"expression\":\"x\"},{\"name\":\"n\","
                  "\"expression\":\"y\"}]}," HOOK("")),
           OLD_LAX,
           MC0 "[1].expression: Invalid value: \"y\": compilation failed: ERROR: <input>:1:1: "
               "undeclared reference to 'y' (in container '')\n | y\n | ^",
           "changed match conditions are checked, but a stored expression is accepted");
    update(VWC, CONFIG(HOOK("") "," HOOK(",\"sideEffects\":\"Some\"")), CONFIG(HOOK("")),
           "[webhooks[1].sideEffects: Unsupported value: \"Some\": supported values: \"None\", "
           "\"NoneOnDryRun\", webhooks[1].name: Duplicate value: \"a.example.com\"]",
           "a valid stored object relaxes nothing");
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_webhook();
    test_client_config();
    test_match_conditions();
    test_update();
    tap_is_str(gw_strategy_of(res(MWC))->name, "mutatingwebhookconfiguration",
               "the mutating kind has its strategy");
    tap_ok(gw_strategy_of(res(VWC))->conditional_update, "updates are conditional");
    return tap_done();
}
