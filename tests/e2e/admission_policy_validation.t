#!/usr/bin/env bash
# ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding validation on a real kgate:
# kube's 422 bodies (message and causes in kube's order) for bad rules, selectors, expressions
# that fail to compile, bindings' paramRef and validationActions; the status subresource
# (status read-only on the main resource, its own validation); the writer's `get` on a
# paramKind's objects (kube's paramKind authorization); v1beta1 through
# --runtime-config validating as v1; and stock kubectl applying a valid policy and binding
# and showing kube's error for a bad one.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require admission_policy_validation

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts (RBAC, admissionregistration v1beta1 on)" api_start vapval --workers=2 \
    --runtime-config=admissionregistration.k8s.io/v1beta1=true --authorization-mode=RBAC
AR=/apis/admissionregistration.k8s.io/v1
VAP=$AR/validatingadmissionpolicies
VAPB=$AR/validatingadmissionpolicybindings
MERGE=application/merge-patch+json

# causes_are PY-LIST: the 422's causes, as [(reason, field, message), ...] in order.
causes_are() {
    jpy "[(c['reason'], c.get('field'), c['message']) for c in d['details']['causes']] == $1"
}

# policy NAME SPEC-MEMBERS: a v1 ValidatingAdmissionPolicy document.
policy() {
    echo "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicy\",\
\"metadata\":{\"name\":\"$1\"},\"spec\":{$2}}"
}
RULES='"matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],
"operations":["CREATE","UPDATE"],"resources":["deployments"]}]}'
VALS='"validations":[{"expression":"object.spec.replicas <= 5"}]'
QK=ValidatingAdmissionPolicy.admissionregistration.k8s.io
QB=ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io
RR=spec.matchConstraints.resourceRules

# ---- bad policies -----------------------------------------------------------------------------
req POST $VAP "$(policy rules '"matchConstraints":{"resourceRules":[{"apiGroups":["*","apps"],
"apiVersions":["v1"],"operations":["*","CREATE"],"resources":["pods/*","pods/log"],
"scope":"Global"}]},'"$VALS")"
check "bad rules: 422 with kube's message" is_status 422 Invalid \
    "$QK \"rules\" is invalid: [$RR[0].operations: Invalid value: []admissionregistration.OperationType{\"*\", \"CREATE\"}: if '*' is present, must not specify other operations, $RR[0].apiGroups: Invalid value: []string{\"*\", \"apps\"}: if '*' is present, must not specify other API groups, $RR[0].resources[1]: Invalid value: \"pods/log\": if 'pods/*' is present, must not specify pods/log, $RR[0].scope: Unsupported value: \"Global\": supported values: \"*\", \"Cluster\", \"Namespaced\"]"
check "... kube's causes in order" causes_are "[('FieldValueInvalid', '$RR[0].operations', \
'Invalid value: []admissionregistration.OperationType{\"*\", \"CREATE\"}: if \\'*\\' is present, must not specify other operations'), \
('FieldValueInvalid', '$RR[0].apiGroups', 'Invalid value: []string{\"*\", \"apps\"}: if \\'*\\' is present, must not specify other API groups'), \
('FieldValueInvalid', '$RR[0].resources[1]', 'Invalid value: \"pods/log\": if \\'pods/*\\' is present, must not specify pods/log'), \
('FieldValueNotSupported', '$RR[0].scope', 'Unsupported value: \"Global\": supported values: \"*\", \"Cluster\", \"Namespaced\"')]"
check "... and the details name the kind and group" \
    jpy "d['details']['kind'] == 'ValidatingAdmissionPolicy' and d['details']['group'] == 'admissionregistration.k8s.io' and d['details']['name'] == 'rules'"
req GET $VAP/rules
check "... nothing is stored" code_is 404

req POST $VAP "$(policy empty '')"
check "no matchConstraints, validations or auditAnnotations (failurePolicy defaulted)" \
    is_status 422 Invalid \
    "$QK \"empty\" is invalid: [spec.matchConstraints: Required value, spec.validations: Required value: validations or auditAnnotations must contain at least one item, spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item]"

req POST $VAP "$(policy cel "$RULES"',"validations":[{"expression":"nope == 1"},
{"expression":"object.spec","message":"a\nb"}],"auditAnnotations":[{"key":"k",
"valueExpression":"1"}]')"
check "expressions compiled in kube's environment: undeclared reference, result types" \
    is_status 422 Invalid \
    "$QK \"cel\" is invalid: [spec.validations[0].expression: Invalid value: \"nope == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')
 | nope == 1
 | ^, spec.validations[1].expression: Invalid value: \"object.spec\": must evaluate to bool but got dyn, spec.validations[1].message: Invalid value: \"a\\nb\": message must not contain line breaks, spec.auditAnnotations[0].valueExpression: Invalid value: \"1\": must evaluate to one of [string null_type] but got int]"

req POST $VAP "$(policy typo "$RULES"',"validations":[{"expression":"object.spec.replicaz <= 5"}]')"
check "a misspelt field of object is not a validation error (201)" code_is 201

req POST $VAP "$(policy params "$RULES"',"validations":[{"expression":"params.max > 1"}],
"matchConditions":[{"name":"a b","expression":"true"},{"name":"c","expression":"request.nope"}]')"
check "params without paramKind, match conditions' names and fields" is_status 422 Invalid \
    "$QK \"params\" is invalid: [spec.matchConditions[0].name: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.matchConditions[1].expression: Invalid value: \"request.nope\": compilation failed: ERROR: <input>:1:8: undefined field 'nope'
 | request.nope
 | .......^, spec.validations[0].expression: Invalid value: \"params.max > 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')
 | params.max > 1
 | ^]"

# ---- the status subresource --------------------------------------------------------------------
req POST $VAP "$(policy good "$RULES,$VALS"',"paramKind":{"apiVersion":"v1","kind":"ConfigMap"}')"
check "a valid policy: 201" code_is 201
check "... its status reset on create, generation 1" \
    jpy "d['status'] == {} and d['metadata']['generation'] == 1"
# The status controller records generation 1 (admission_policy_status.t); then nothing changes.
observed() {
    for _ in $(seq 200); do
        req GET $VAP/good
        jpy "d.get('status', {}).get('observedGeneration') == 1" >/dev/null && return 0
        sleep 0.05
    done
    return 1
}
check "... then the status controller observes it" observed
RV=$(jget "d['metadata']['resourceVersion']")
req PATCH $VAP/good '{"status":{"observedGeneration":7}}' $MERGE
check "status is read-only on the main resource" jpy "d['status'] == {'observedGeneration': 1,
 'typeChecking': {}} and d['metadata']['resourceVersion'] == '$RV'"
req PATCH $VAP/good/status '{"status":{"observedGeneration":1,"conditions":[{"type":"A",
"status":"Maybe","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"R","message":""}]}}' $MERGE
check "a bad status condition: 422" is_status 422 Invalid \
    "$QK \"good\" is invalid: status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\""
req PATCH $VAP/good/status '{"status":{"observedGeneration":1,"typeChecking":{
"expressionWarnings":[{"fieldRef":"spec.validations[0].expression","warning":"w"}]}}}' $MERGE
check "the status subresource writes status (200)" \
    jpy "d['status']['observedGeneration'] == 1 and d['status']['typeChecking']['expressionWarnings'][0]['warning'] == 'w'"
req PATCH $VAP/good '{"spec":{"validations":[{"expression":"object.spec.replicas <= 6"}]}}' $MERGE
check "a spec change keeps the status and bumps generation" \
    jpy "d['status']['observedGeneration'] == 1 and d['metadata']['generation'] == 2"
req PATCH $VAP/good '{"spec":{"failurePolicy":"Sometimes"}}' $MERGE
check "an update is validated too" is_status 422 Invalid \
    "$QK \"good\" is invalid: spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\""

# ---- paramKind authorization --------------------------------------------------------------------
RBAC=/apis/rbac.authorization.k8s.io/v1
# grant NAME RESOURCE GROUP VERBS-JSON: a ClusterRole on RESOURCE bound to alice.
grant() {
    req POST $RBAC/clusterroles "{\"metadata\":{\"name\":\"$1\"},\"rules\":[{\"apiGroups\":[\"$3\"],\
\"resources\":[\"$2\"],\"verbs\":$4}]}"
    req POST $RBAC/clusterrolebindings "{\"metadata\":{\"name\":\"$1\"},\"roleRef\":{\
\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"$1\"},\
\"subjects\":[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"alice\"}]}"
}
# as_alice_until CODE BODY: POST BODY as alice until it answers CODE (up to 10 s: RBAC's
# snapshot follows its objects).
as_alice_until() {
    for _ in $(seq 100); do
        send POST $VAP "$2" "${ALICE[@]}"
        [[ $CODE == "$1" ]] && return 0
        sleep 0.1
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
grant vap-writer validatingadmissionpolicies admissionregistration.k8s.io '["create"]'
check "alice may create a policy without paramKind" as_alice_until 201 "$(policy alice1 "$RULES,$VALS")"
send POST $VAP "$(policy alice2 "$RULES,$VALS"',"paramKind":{"apiVersion":"v1","kind":"ConfigMap"}')" "${ALICE[@]}"
check "one whose paramKind alice cannot get: 422 Forbidden on spec.paramKind" is_status 422 Invalid \
    "$QK \"alice2\" is invalid: spec.paramKind: Forbidden: user &{alice 1001 [dev ops system:authenticated] map[]} must have \"get\" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)"
check "... a Forbidden cause" causes_are "[('FieldValueForbidden', 'spec.paramKind', 'Forbidden: user &{alice 1001 [dev ops system:authenticated] map[]} must have \"get\" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)')]"
grant cm-reader configmaps "" '["get"]'
check "with get on configmaps, the policy is created" \
    as_alice_until 201 "$(policy alice2 "$RULES,$VALS"',"paramKind":{"apiVersion":"v1","kind":"ConfigMap"}')"

# as_alice_until_b CODE BODY: as_alice_until for a binding.
as_alice_until_b() {
    for _ in $(seq 100); do
        send POST $VAPB "$2" "${ALICE[@]}"
        [[ $CODE == "$1" ]] && return 0
        sleep 0.1
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
bref() { # NAME POLICY: a v1 binding with a paramRef to ConfigMap default/limits
    echo "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicyBinding\",\
\"metadata\":{\"name\":\"$1\"},\"spec\":{\"policyName\":\"$2\",\"validationActions\":[\"Deny\"],\
\"paramRef\":{\"name\":\"limits\",\"namespace\":\"default\",\"parameterNotFoundAction\":\"Deny\"}}}"
}
grant vapb-writer validatingadmissionpolicybindings admissionregistration.k8s.io '["create"]'
check "alice may bind a param of the policy's paramKind she can get" \
    as_alice_until_b 201 "$(bref alice-good alice2)"
send POST $VAPB "$(bref alice-any typo)" "${ALICE[@]}"
check "a policy without paramKind: get on every resource needed, 422 Forbidden on spec.paramRef" \
    is_status 422 Invalid \
    "$QB \"alice-any\" is invalid: spec.paramRef: Forbidden: user &{alice 1001 [dev ops system:authenticated] map[]} does not have \"get\" permission on the object referenced by paramRef"

# ---- bindings ------------------------------------------------------------------------------------
binding() {
    echo "{\"apiVersion\":\"admissionregistration.k8s.io/${3:-v1}\",\"kind\":\"ValidatingAdmissionPolicyBinding\",\
\"metadata\":{\"name\":\"$1\"},\"spec\":{$2}}"
}
req POST $VAPB "$(binding b '"policyName":"good","paramRef":{"name":"x","selector":{}},
"validationActions":["Deny","Warn"]')"
check "a binding: name XOR selector, parameterNotFoundAction, no Deny with Warn" \
    is_status 422 Invalid \
    "$QB \"b\" is invalid: [spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: name and selector are mutually exclusive, spec.paramRef.parameterNotFoundAction: Required value, spec.validationActions: Invalid value: []admissionregistration.ValidationAction{\"Deny\", \"Warn\"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)]"
req POST $VAPB "$(binding b '"policyName":"good","matchResources":{"matchPolicy":"Nope"},
"validationActions":["Audit"]')"
check "matchResources under kube's path spec.matchResouces" causes_are \
    "[('FieldValueNotSupported', 'spec.matchResouces.matchPolicy', 'Unsupported value: \"Nope\": supported values: \"Equivalent\", \"Exact\"')]"
req POST /apis/admissionregistration.k8s.io/v1beta1/validatingadmissionpolicybindings \
    "$(binding beta '"policyName":"good","paramRef":{"name":"x"},"validationActions":["Deny"]' v1beta1)"
check "v1beta1 validates as v1: parameterNotFoundAction required" is_status 422 Invalid \
    "$QB \"beta\" is invalid: spec.paramRef.parameterNotFoundAction: Required value"
req POST /apis/admissionregistration.k8s.io/v1beta1/validatingadmissionpolicies \
    "$(policy beta "$RULES"',"validations":[{"expression":"1"}]' | sed 's#/v1"#/v1beta1"#')"
check "... and so does a v1beta1 policy" is_status 422 Invalid \
    "$QK \"beta\" is invalid: spec.validations[0].expression: Invalid value: \"1\": must evaluate to bool but got int"

# ---- stock kubectl -------------------------------------------------------------------------------
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    M=$KGATE_TEST_TMP/manifests
    mkdir -p "$M"
    cat >"$M/vap.yaml" <<'YAML'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas-limit
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  variables:
  - name: max
    expression: "int(params.data.max)"
  validations:
  - expression: "object.spec.replicas <= variables.max"
    messageExpression: "'at most ' + string(variables.max) + ' replicas'"
    reason: Invalid
  auditAnnotations:
  - key: replicas
    valueExpression: "string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replicas-limit
spec:
  policyName: replicas-limit
  validationActions: [Deny, Audit]
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
YAML
    check "kubectl apply of a valid policy and binding" k apply -f "$M/vap.yaml"
    check "... both created" has "validatingadmissionpolicybinding.admissionregistration.k8s.io/replicas-limit created"
    check "... the policy reads back" k get validatingadmissionpolicy replicas-limit -o name
    cat >"$M/bad.yaml" <<'YAML'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-actions
spec:
  policyName: replicas-limit
YAML
        fails() { ! "$@"; }
    check "kubectl create of a binding without actions fails" fails k create -f "$M/bad.yaml"
    check "... with kube's message" has 'The ValidatingAdmissionPolicyBinding "no-actions" is invalid: spec.validationActions: Required value: at least one validation action is required'
fi

check "kgate exits cleanly" clean_exit
tap_end
