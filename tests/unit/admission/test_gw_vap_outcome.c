/* Unit tests for gateway/admission/gw_vap_outcome: what kube-apiserver 1.32's validating
 * policy dispatcher makes of evaluations: Deny (message, reason, code), Warn (the warning
 * text), Audit (the validation_failure annotation's JSON), configuration errors under
 * failurePolicy, and the policies' audit annotations. */
#include <stdlib.h>
#include <string.h>

#include "gw_vap_outcome.h"
#include "tap.h"

static json_t *
binding(const char *name, const char *actions)
{
    json_t *b =
        json_pack("{s:{s:s}, s:{s:s}}", "metadata", "name", name, "spec", "policyName", "p1");
    json_object_set_new(json_object_get(b, "spec"), "validationActions",
                        json_loads(actions, 0, NULL));
    return b;
}

static void
test_words(void)
{
    tap_is_int(gw_vap_reason_code("Unauthorized"), 401, "Unauthorized is 401");
    tap_is_int(gw_vap_reason_code("Forbidden"), 403, "Forbidden is 403");
    tap_is_int(gw_vap_reason_code("RequestEntityTooLarge"), 413, "RequestEntityTooLarge is 413");
    tap_is_int(gw_vap_reason_code("Invalid"), 422, "Invalid is 422");
    tap_is_int(gw_vap_reason_code(NULL), 422, "unset is 422");

    char *s = gw_vap_deny_message("p1", "b1", "no");
    tap_is_str(s, "ValidatingAdmissionPolicy 'p1' with binding 'b1' denied request: no",
               "kube's denial");
    free(s);
    s = gw_vap_deny_message("p1", NULL, "no");
    tap_is_str(s, "ValidatingAdmissionPolicy 'p1' denied request: no", "without a binding");
    free(s);
    s = gw_vap_warning_text("p1", "b1", "careful");
    tap_is_str(s, "Validation failed for ValidatingAdmissionPolicy 'p1' with binding 'b1': careful",
               "kube's warning");
    free(s);
    json_t *actions = json_loads("[\"Warn\",\"Audit\"]", 0, NULL);
    s = gw_vap_validation_failure_json("p1", "b1", 2, "a < b & \"c\"\n\xe2\x80\xa8", actions);
    tap_is_str(s,
               "[{\"message\":\"a \\u003c b \\u0026 \\\"c\\\"\\n\\u2028\",\"policy\":\"p1\","
               "\"binding\":\"b1\",\"expressionIndex\":2,\"validationActions\":[\"Warn\","
               "\"Audit\"]}]",
               "the validation_failure value, as Go's encoding/json writes it");
    free(s);
    json_decref(actions);
}

static gw_vap_decision_t admit = {GW_VAP_ADMIT, GW_VAP_EVAL_ADMIT, NULL, NULL, 0};

static void
test_actions(void)
{
    gw_vap_outcome_t o = {0};
    gw_vap_decision_t d1[] = {
        admit,
        {GW_VAP_DENY, GW_VAP_EVAL_DENY, "Forbidden", "first", 0},
        {GW_VAP_DENY, GW_VAP_EVAL_DENY, "Invalid", "second", 0},
        {GW_VAP_ADMIT, GW_VAP_EVAL_ERROR, NULL, "ignored error", 0},
    };
    gw_vap_result_t r = {d1, 4, NULL, 0, {0}};
    json_t *warn_audit = binding("b-warn", "[\"Warn\",\"Audit\"]");
    json_t *deny = binding("b-deny", "[\"Deny\"]");

    gw_vap_outcome_add(&o, "p1", warn_audit, &r);
    tap_ok(o.deny_message == NULL, "Warn and Audit do not refuse");
    tap_is_int(o.nwarnings, 2, "one warning per failed validation");
    tap_is_str(o.nwarnings > 1 ? o.warnings[1] : NULL,
               "Validation failed for ValidatingAdmissionPolicy 'p1' with binding 'b-warn': second",
               "the warning's text");
    tap_is_int(o.nannotations, 1, "the first failure's audit annotation (no overwrite)");
    tap_is_str(o.nannotations > 0 ? o.annotations[0].key : NULL,
               "validation.policy.admission.k8s.io/validation_failure", "its key");
    tap_is_str(o.nannotations > 0 ? o.annotations[0].value : NULL,
               "[{\"message\":\"first\",\"policy\":\"p1\",\"binding\":\"b-warn\","
               "\"expressionIndex\":1,\"validationActions\":[\"Warn\",\"Audit\"]}]",
               "its value names the validation's index");

    gw_vap_outcome_add(&o, "p1", warn_audit, &r);
    tap_is_int(o.nannotations, 1, "another binding's failure does not overwrite it");
    gw_vap_outcome_add(&o, "p1", deny, &r);
    tap_is_str(o.deny_message,
               "ValidatingAdmissionPolicy 'p1' with binding 'b-deny' denied request: first",
               "Deny: the first failure refuses");
    tap_is_str(o.deny_reason, "Forbidden", "with its reason");
    tap_is_int(o.deny_code, 403, "and code");
    gw_vap_outcome_config_error(&o, "p2", NULL, false, "x");
    tap_is_str(o.deny_message,
               "ValidatingAdmissionPolicy 'p1' with binding 'b-deny' denied request: first",
               "the first denial stays the answer");
    gw_vap_outcome_clear(&o);

    gw_vap_outcome_config_error(&o, "p2", "b2", true, "no params");
    tap_ok(o.deny_message == NULL, "a configuration error under Ignore admits");
    gw_vap_outcome_config_error(&o, "p2", "b2", false,
                                "no params found for policy binding with `Deny` "
                                "parameterNotFoundAction");
    tap_is_str(o.deny_message,
               "ValidatingAdmissionPolicy 'p2' with binding 'b2' denied request: failed to "
               "configure binding: no params found for policy binding with `Deny` "
               "parameterNotFoundAction",
               "under Fail it refuses, in kube's words");
    tap_is_int(o.deny_code, 422, "as Invalid");
    gw_vap_outcome_clear(&o);
    gw_vap_outcome_config_error(&o, "p3", NULL, false, "paramKind not found");
    tap_is_str(o.deny_message,
               "ValidatingAdmissionPolicy 'p3' denied request: failed to configure policy: "
               "paramKind not found",
               "a policy's configuration error");
    gw_vap_outcome_clear(&o);
    json_decref(warn_audit);
    json_decref(deny);
}

static void
test_audit_annotations(void)
{
    gw_vap_outcome_t o = {0};
    char *big = malloc(11001);
    memset(big, 'z', 11000);
    big[11000] = '\0';
    gw_vap_audit_t a1[] = {{GW_VAP_AUDIT_PUBLISH, "k", "one", NULL, 0},
                           {GW_VAP_AUDIT_EXCLUDE, "gone", NULL, NULL, 0},
                           {GW_VAP_AUDIT_PUBLISH, "big", big, NULL, 0}};
    gw_vap_audit_t a2[] = {{GW_VAP_AUDIT_PUBLISH, "k", "two", NULL, 0}};
    gw_vap_audit_t a3[] = {{GW_VAP_AUDIT_PUBLISH, "k", "one", NULL, 0}};
    gw_vap_result_t r1 = {NULL, 0, a1, 3, {0}}, r2 = {NULL, 0, a2, 1, {0}},
                    r3 = {NULL, 0, a3, 1, {0}};
    json_t *b1 = binding("b1", "[\"Warn\"]"), *b2 = binding("b2", "[\"Warn\"]");
    gw_vap_outcome_add(&o, "p1", b1, &r1);
    gw_vap_outcome_add(&o, "p1", b2, &r2);
    gw_vap_outcome_add(&o, "p1", b2, &r3);
    tap_is_int(o.nannotations, 0, "held until the policy's bindings are done");
    gw_vap_outcome_end_policy(&o, "p1");
    tap_is_int(o.nannotations, 2, "one annotation per key; excluded ones left out");
    tap_is_str(o.annotations[0].key, "p1/k", "keyed <policy>/<key>");
    tap_is_str(o.annotations[0].value, "one, two", "distinct values of bindings joined");
    tap_is_int(strlen(o.annotations[1].value), 10240, "values truncated to 10 KiB");
    tap_ok(o.deny_message == NULL, "nothing refused");

    gw_vap_audit_t bad[] = {
        {GW_VAP_AUDIT_ERROR, "k", NULL, "expression 'x' resulted in error: e", 0}};
    gw_vap_result_t rb = {NULL, 0, bad, 1, {0}};
    gw_vap_outcome_add(&o, "p2", b1, &rb);
    gw_vap_outcome_end_policy(&o, "p2");
    tap_is_str(o.deny_message,
               "ValidatingAdmissionPolicy 'p2' with binding 'b1' denied request: expression 'x' "
               "resulted in error: e",
               "an audit annotation's error refuses whatever the actions say");
    tap_is_int(o.deny_code, 422, "as Invalid");
    gw_vap_outcome_clear(&o);
    json_decref(b1);
    json_decref(b2);
    free(big);
}

int
main(void)
{
    test_words();
    test_actions();
    test_audit_annotations();
    return tap_done();
}
