#!/usr/bin/env bash
# MutatingAdmissionPolicy (admissionregistration.k8s.io/v1alpha1) end to end: served only with
# the MutatingAdmissionPolicy feature gate and the group version enabled by --runtime-config;
# kube's defaults (failurePolicy Fail, the match resources'); bad policies and bindings refused
# with 422 in kube's words (the patchType union, return types, compile errors, operations).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require admission_mutating_policy

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
AR=/apis/admissionregistration.k8s.io/v1alpha1
RC=--runtime-config=admissionregistration.k8s.io/v1alpha1=true

# policy NAME SPEC-MEMBERS: a MutatingAdmissionPolicy document on configmaps.
policy() {
    echo "{\"apiVersion\":\"admissionregistration.k8s.io/v1alpha1\",\"kind\":
\"MutatingAdmissionPolicy\",\"metadata\":{\"name\":\"$1\"},\"spec\":{$2}}"
}
RULES='"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],
"operations":["CREATE"],"resources":["configmaps"]}]}'
AC_LABEL='{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":
"Object{metadata: Object.metadata{labels: {\"team\": \"a\"}}}"}}'
# invalid NAME MESSAGE: $OUT is kube's 422 for MutatingAdmissionPolicy NAME.
invalid() {
    is_status 422 Invalid \
        "MutatingAdmissionPolicy.admissionregistration.k8s.io \"$1\" is invalid: $2"
}
binvalid() {
    is_status 422 Invalid \
        "MutatingAdmissionPolicyBinding.admissionregistration.k8s.io \"$1\" is invalid: $2"
}

# ---- the gate --------------------------------------------------------------------------------
check "kgate starts with v1alpha1 but without the gate" api_start nogate "$RC"
req GET $AR/mutatingadmissionpolicies
check "... mutatingadmissionpolicies are not served" code_is 404
req GET $AR
check "... nor is v1alpha1, which holds nothing else in 1.32" code_is 404
check "kgate starts with the gate" api_start gate "$RC" --feature-gates=MutatingAdmissionPolicy=true
req GET $AR/mutatingadmissionpolicies
check "... mutatingadmissionpolicies are served" code_is 200
req GET $AR
check "... in v1alpha1's discovery" jpy "sorted(r['name'] for r in d['resources']) == \
['mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']"

# ---- valid policies and kube's defaults -----------------------------------------------------
req POST $AR/mutatingadmissionpolicies "$(policy p1 "$RULES,\"reinvocationPolicy\":\"Never\",
\"mutations\":[$AC_LABEL]")"
check "a policy is created" code_is 201
check "... failurePolicy defaults to Fail, matchPolicy to Equivalent" jpy \
    "d['spec']['failurePolicy'] == 'Fail' and d['spec']['matchConstraints']['matchPolicy'] == 'Equivalent'"

# ---- bad policies ------------------------------------------------------------------------------
req POST $AR/mutatingadmissionpolicies "$(policy p2 "$RULES")"
check "no mutations and no reinvocationPolicy" invalid p2 "[spec.mutations: Required value: \
mutations must contain at least one item, spec.reinvocationPolicy: Required value]"
req POST $AR/mutatingadmissionpolicies "$(policy p3 "$RULES,\"reinvocationPolicy\":\"Sometimes\",
\"mutations\":[{\"patchType\":\"Merge\"}]")"
check "an unknown patchType and reinvocationPolicy" invalid p3 "[spec.mutations[0].patchType: \
Unsupported value: \"Merge\": supported values: \"ApplyConfiguration\", \"JSONPatch\", \
spec.reinvocationPolicy: Unsupported value: \"Sometimes\": supported values: \"Never\", \"IfNeeded\"]"
req POST $AR/mutatingadmissionpolicies "$(policy p4 "$RULES,\"reinvocationPolicy\":\"Never\",
\"mutations\":[{\"patchType\":\"JSONPatch\",\"applyConfiguration\":{\"expression\":\"Object{}\"}}]")"
check "the patchType union" invalid p4 "[spec.mutations[0].jsonPatch: Required value: must be \
specified when patchType is JSONPatch, spec.mutations[0].applyConfiguration: Invalid value: \
\"{applyConfiguration}\": must not be specified when patchType is JSONPatch]"
req POST $AR/mutatingadmissionpolicies "$(policy p5 "$RULES,\"reinvocationPolicy\":\"Never\",
\"mutations\":[{\"patchType\":\"ApplyConfiguration\",\"applyConfiguration\":{\"expression\":
\" {'a': 1} \"}}]")"
check "an apply configuration must evaluate to Object" invalid p5 \
    "spec.mutations[0].applyConfiguration.expression: Invalid value: \"{'a': 1}\": must evaluate \
to Object but got map(string, int)"
req POST $AR/mutatingadmissionpolicies "$(policy p6 "$RULES,\"reinvocationPolicy\":\"Never\",
\"mutations\":[{\"patchType\":\"JSONPatch\",\"jsonPatch\":{\"expression\":\"[JSONPatch{op: 1}]\"}}]")"
check "a JSONPatch's fields are typed" jpy "d['code'] == 422 and \"spec.mutations[0].jsonPatch.\
expression: Invalid value: \\\"[JSONPatch{op: 1}]\\\": compilation failed: ERROR: <input>:1:14: \
expected type of field 'op' is 'string' but provided type is 'int'\" in d['message']"
req POST $AR/mutatingadmissionpolicies "$(policy p7 '"matchConstraints":{"resourceRules":[{
"apiGroups":[""],"apiVersions":["v1"],"operations":["DELETE"],"resources":["configmaps"]}]},
"reinvocationPolicy":"Never","mutations":['"$AC_LABEL"']')"
check "DELETE cannot be mutated" invalid p7 "spec.matchConstraints.resourceRules.operations: \
Unsupported value: \"DELETE\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"UPDATE\""
req POST $AR/mutatingadmissionpolicies "$(policy p8 "$RULES,\"reinvocationPolicy\":\"Never\",
\"matchConditions\":[{\"name\":\"m\",\"expression\":\"Object{} == Object{}\"}],
\"mutations\":[$AC_LABEL]")"
check "matchConditions have no mutation library" jpy "d['code'] == 422 and \
\"undeclared reference to 'Object'\" in d['message']"

# ---- bindings ------------------------------------------------------------------------------------
req POST $AR/mutatingadmissionpolicybindings '{"apiVersion":"admissionregistration.k8s.io/v1alpha1",
"kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"b1"},"spec":{"policyName":"p1"}}'
check "a binding is created" code_is 201
req POST $AR/mutatingadmissionpolicybindings '{"apiVersion":"admissionregistration.k8s.io/v1alpha1",
"kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"b2"},"spec":{"paramRef":{"name":"x"}}}'
check "a binding needs its policy and parameterNotFoundAction" binvalid b2 "[spec.policyName: \
Required value, spec.paramRef.parameterNotFoundAction: Required value]"

check "kgate exits cleanly" clean_exit
tap_end
