#!/usr/bin/env bash
# The ValidatingAdmissionPolicy status controller on two kgate instances: one leader writes
# status.typeChecking (kube's fieldRef and warning text for a misspelt field, a typed param, a
# messageExpression) and status.observedGeneration, owned in managedFields by
# validatingadmissionpolicy-status-controller; a fixed policy's next generation clears the
# warnings; policies that name no kind exactly get an empty typeChecking; stock kubectl shows
# the status.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/instances_lib.sh
e2e_require admission_policy_status

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
PREFIX=/registry-vapstatus-$$
ARV=/apis/admissionregistration.k8s.io/v1
ELECTION=validatingadmissionpolicy-status-controller

# policy NAME RULES VALIDATIONS [MORE-SPEC]
policy() {
    echo "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicy\",
\"metadata\":{\"name\":\"$1\"},\"spec\":{\"matchConstraints\":{\"resourceRules\":$2},
\"validations\":$3${4:+,$4}}}"
}
DEPLOY='[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"]}]'
DEPLOY_PODS='[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]},{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods","pods/status"]}]'
ANY='[{"apiGroups":["*"],"apiVersions":["*"],"operations":["CREATE"],"resources":["*"]}]'

# observed NAME GENERATION: poll (10 s) until the policy's status observed that generation.
observed() {
    for _ in $(seq 200); do
        req GET "$ARV/validatingadmissionpolicies/$1"
        jpy "isinstance(d.get('status'), dict) and d['status'].get('observedGeneration') == $2" \
            >/dev/null && return 0
        sleep 0.05
    done
    diag "$(cat "$OUT")"
    return 1
}

check "instance a starts" start a
check "instance b starts" start b

one_leader() {
    for _ in $(seq 100); do
        local n
        n=$(grep -l "$ELECTION started" "${LOG[a]}" "${LOG[b]}" | wc -l)
        [[ $n == 1 ]] && return 0
        sleep 0.1
    done
    diag "leaders: $n"
    return 1
}
check "exactly one instance runs the status controller" one_leader

on a
Q="'"
req POST $ARV/validatingadmissionpolicies "$(policy typo "$DEPLOY" "[{\"expression\":
\"object.spec.replicas > 0\"},{\"expression\":\"object.spec.replicass > 0\",\"messageExpression\":
\"${Q}bad: ${Q} + object.metadata.nam\"},{\"expression\":\"params.data.max != ${Q}${Q}\"}]" \
    '"paramKind":{"apiVersion":"v1","kind":"ConfigMap"}')"
check "a policy with a misspelt field is stored, as kube stores it" code_is 201
check "its status observes generation 1" observed typo 1
check "the misspelt expression is reported with kube's fieldRef and text" jpy "
d['status']['typeChecking']['expressionWarnings'][0] == {'fieldRef': 'spec.validations[1].expression',
 'warning': \"apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\\n\"
            ' | object.spec.replicass > 0\\n | ...........^\\n'}"
check "... and its messageExpression, typed as ObjectMeta" jpy "(
len(d['status']['typeChecking']['expressionWarnings']) == 2 and
 d['status']['typeChecking']['expressionWarnings'][1]['fieldRef'] ==
 'spec.validations[1].messageExpression' and
 \"undefined field 'nam'\" in d['status']['typeChecking']['expressionWarnings'][1]['warning'])"
check "the controller owns what it applied, on the status subresource" jpy "
[m for m in d['metadata']['managedFields'] if m['manager'] == '$ELECTION'] == [{
 'apiVersion': 'admissionregistration.k8s.io/v1', 'fieldsType': 'FieldsV1',
 'fieldsV1': {'f:status': {'f:observedGeneration': {}, 'f:typeChecking': {'f:expressionWarnings': {}}}},
 'manager': '$ELECTION', 'operation': 'Apply', 'subresource': 'status',
 'time': [m for m in d['metadata']['managedFields'] if m['manager'] == '$ELECTION'][0]['time']}]"
check "metadata.generation is unchanged by the status write" jpy "d['metadata']['generation'] == 1"

req PATCH $ARV/validatingadmissionpolicies/typo \
    '[{"op":"replace","path":"/spec/validations/1","value":{"expression":"object.spec.replicas < 100"}}]' \
    application/json-patch+json
check "the policy is fixed (generation 2)" jpy "d['metadata']['generation'] == 2"
on b
check "its status observes generation 2" observed typo 2
check "... with no warnings left" jpy "d['status']['typeChecking'] == {}"
check "... and one managedFields entry of the controller" jpy "([(m['fieldsV1'], m['subresource'])
 for m in d['metadata']['managedFields'] if m['manager'] == '$ELECTION'] ==
 [({'f:status': {'f:observedGeneration': {}, 'f:typeChecking': {}}}, 'status')])"

req POST $ARV/validatingadmissionpolicies "$(policy two "$DEPLOY_PODS" \
    '[{"expression":"object.spec.replicas > 0"}]')"
check "a policy on deployments and pods" code_is 201
check "its status is written" observed two 1
check "the kind lacking the field is reported; pods/status is not a kind checked" jpy "
d['status']['typeChecking']['expressionWarnings'] == [{'fieldRef': 'spec.validations[0].expression',
 'warning': \"/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'replicas'\\n\"
            ' | object.spec.replicas > 0\\n | ...........^\\n'}]"

req POST $ARV/validatingadmissionpolicies "$(policy wild "$ANY" '[{"expression":"object.nosuch == 1"}]')"
check "a policy on every resource" code_is 201
check "its status observes generation 1" observed wild 1
check "... with nothing to type against, no warnings" jpy "d['status']['typeChecking'] == {}"

req GET $ARV/validatingadmissionpolicies/wild
RV=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['metadata']['resourceVersion'])" "$OUT")
req PUT $ARV/validatingadmissionpolicies/wild "$(policy wild "$ANY" '[{"expression":"true"}]' \
    "\"failurePolicy\":\"Ignore\"" | python3 -c "
import json, sys
p = json.load(sys.stdin)
p['status'] = {'observedGeneration': 99}
p['metadata']['resourceVersion'] = sys.argv[1]
print(json.dumps(p))" "$RV")"
check "an update of the main resource ignores status" jpy "
d['metadata']['generation'] == 2 and d['status']['observedGeneration'] == 1"
check "the controller then observes generation 2" observed wild 2

if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    kwarn() {
        local out
        out=$(kubectl --request-timeout=20s get validatingadmissionpolicy two \
            -o jsonpath='{.status.typeChecking.expressionWarnings[0].fieldRef}' 2>&1)
        [[ $out == "spec.validations[0].expression" ]] || { diag "$out"; return 1; }
    }
    check "kubectl reads the warning's fieldRef" kwarn
else
    check "kubectl 1.32 is not here: the kubectl row # SKIP" true
fi

check "no instance logged a status write failure" bash -c "! grep -q '$ELECTION: status of' \
    '${LOG[a]}' '${LOG[b]}'"
check "a exits cleanly" eval 'on a; clean_exit'
check "b exits cleanly" eval 'on b; clean_exit'
tap_end
