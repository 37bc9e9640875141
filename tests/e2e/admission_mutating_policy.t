#!/usr/bin/env bash
# MutatingAdmissionPolicy (admissionregistration.k8s.io/v1alpha1) end to end: served only with
# the MutatingAdmissionPolicy feature gate and the group version enabled by --runtime-config;
# kube's defaults (failurePolicy Fail, the match resources'); bad policies and bindings refused
# with 422 in kube's words (the patchType union, return types, compile errors, operations);
# the plugin: an ApplyConfiguration label and a JSONPatch default from a param on ConfigMaps,
# a Deployment's replicas and container merged by key, dry runs, failurePolicy Fail (403 with
# kube's PolicyError) and Ignore, the mutated object validated; paramKind and paramRef
# authorization under RBAC.
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

# ---- the plugin ------------------------------------------------------------------------------
CORE=/api/v1/namespaces/default
Q="'"
# cmrow NAME ROW [DATA-MEMBERS]: a ConfigMap labelled row=ROW.
cmrow() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$1\",
\"labels\":{\"row\":\"$2\"}},\"data\":{${3:-\"k\":\"v\"}}}"
}
# until_label NAME ROW KEY VALUE: dry-run creates until the answer carries label KEY=VALUE
# (the instance's snapshot has the policy and its binding).
until_label() {
    for _ in $(seq 100); do
        req POST "$CORE/configmaps?dryRun=All" "$(cmrow "$1" "$2")"
        [[ $CODE == 201 ]] && jpy "d['metadata']['labels'].get('$3') == '$4'" >/dev/null && return 0
        sleep 0.1
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
check "an ApplyConfiguration policy sets a label on a dry run" until_label m1 plain team a
req GET $CORE/configmaps/m1
check "... a dry run stores nothing" code_is 404
req POST $CORE/configmaps "$(cmrow m1 plain)"
check "... a create is mutated" jpy "d['metadata']['labels'] == {'row': 'plain', 'team': 'a'}"
req GET $CORE/configmaps/m1
check "... and stored mutated" jpy "d['metadata']['labels'] == {'row': 'plain', 'team': 'a'}"

# a JSONPatch policy with a param: data.tier defaults to the param's value
req POST $CORE/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"tier-param"},
"data":{"tier":"gold"}}'
check "the param exists" code_is 201
req POST $AR/mutatingadmissionpolicies "$(policy p-tier '"matchConstraints":{"resourceRules":[{
"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}],
"objectSelector":{"matchLabels":{"row":"tier"}}},"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},
"reinvocationPolicy":"Never","mutations":[{"patchType":"JSONPatch","jsonPatch":{"expression":
"has(object.data) && has(object.data.tier) ? [] : [JSONPatch{op: \"add\", path: \"/data/tier\", value: params.data.tier}, JSONPatch{op: \"add\", path: \"/metadata/labels/\" + jsonpatch.escapeKey(\"example.com/tiered\"), value: \"true\"}]"}}]')"
check "a JSONPatch policy with a paramKind" code_is 201
req POST $AR/mutatingadmissionpolicybindings '{"apiVersion":"admissionregistration.k8s.io/v1alpha1",
"kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"b-tier"},"spec":{"policyName":"p-tier",
"paramRef":{"name":"tier-param","namespace":"default","parameterNotFoundAction":"Deny"}}}'
check "... and its binding to the param" code_is 201
check "the JSONPatch adds the escaped label" until_label t1 tier example.com/tiered true
check "... and the param's default" jpy "d['data'] == {'k': 'v', 'tier': 'gold'} and \
d['metadata']['labels']['team'] == 'a'"
req POST "$CORE/configmaps?dryRun=All" "$(cmrow t2 tier '"tier":"silver"')"
check "an object with its own value keeps it" jpy "d['data'] == {'tier': 'silver'} and \
'example.com/tiered' not in d['metadata']['labels']"

# a Deployment's replicas set by an apply configuration
req POST $AR/mutatingadmissionpolicies "$(policy p-deploy '"matchConstraints":{"resourceRules":[{
"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}]},
"reinvocationPolicy":"Never","mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{
"expression":"Object{spec: Object.spec{replicas: 3, template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: \"c\", imagePullPolicy: \"Always\"}, Object.spec.template.spec.containers{name: \"side\", image: \"busybox:1.36\"}]}}}}"}}]')"
check "a policy on deployments" code_is 201
req POST $AR/mutatingadmissionpolicybindings '{"apiVersion":"admissionregistration.k8s.io/v1alpha1",
"kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"b-deploy"},"spec":{"policyName":"p-deploy"}}'
until_deploy() {
    for _ in $(seq 100); do
        req POST "$APPS/deployments?dryRun=All" "$(deploy d1)"
        [[ $CODE == 201 ]] && jpy "d['spec']['replicas'] == 3" >/dev/null && return 0
        sleep 0.1
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
check "a Deployment's replicas are set" until_deploy
check "... its container merged by name, defaults kept" jpy "d['spec']['template']['spec']\
['containers'][0]['imagePullPolicy'] == 'Always' and d['spec']['template']['spec']['containers'][0]\
['image'] == 'nginx'"
check "... a container appended, defaulted as kube defaults the patched object" jpy \
    "[(c['name'], c['image'], c['imagePullPolicy'], c['terminationMessagePolicy']) for c in \
d['spec']['template']['spec']['containers'][1:]] == [('side', 'busybox:1.36', 'IfNotPresent', 'File')]"

# failurePolicy
fpolicy() {
    req POST $AR/mutatingadmissionpolicies "$(policy "$1" '"failurePolicy":"'"$2"'",
"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],
"resources":["configmaps"]}],"objectSelector":{"matchLabels":{"row":"'"$3"'"}}},
"reinvocationPolicy":"Never","mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{
"expression":"Object{metadata: Object.metadata{labels: {\"x\": string(1 / (size(object.data) - 1))}}}"}},
'"$AC_LABEL"']')"
    code_is 201 || return 1
    req POST $AR/mutatingadmissionpolicybindings '{"apiVersion":"admissionregistration.k8s.io/v1alpha1",
"kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"b-'"$1"'"},"spec":{"policyName":"'"$1"'"}}'
    code_is 201
}
check "a failing policy under Fail" fpolicy p-fail Fail fail
until_code() {
    for _ in $(seq 100); do
        req POST "$CORE/configmaps?dryRun=All" "$(cmrow "$2" "$3")"
        [[ $CODE == "$1" ]] && return 0
        sleep 0.1
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
check "... refuses the request (403)" until_code 403 f1 fail
MSG="policy 'p-fail' with binding 'b-p-fail' denied request: expression 'Object{metadata: \
Object.metadata{labels: {\"x\": string(1 / (size(object.data) - 1))}}}' resulted in error: division by zero"
check "... with kube's words, reason Invalid (the whole message is the failure's)" \
    is_status 403 Invalid "$MSG"
check "... every failure a cause" jpy "d['details']['causes'] == [{'message': d['message']}] and \
d['details']['kind'] == 'configmaps' and d['details']['name'] == 'f1'"
check "the same policy under Ignore" fpolicy p-ignore Ignore ignore
until_ignored() {
    for _ in $(seq 100); do
        req POST "$CORE/configmaps?dryRun=All" "$(cmrow i1 ignore)"
        [[ $CODE == 201 ]] && jpy "d['metadata']['labels'].get('team') == 'a' and 'x' not in \
d['metadata']['labels']" >/dev/null && return 0
        sleep 0.1
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
check "... admits, its failed mutation left out, the next one applied" until_ignored

# the mutated object is validated
req POST $AR/mutatingadmissionpolicies "$(policy p-bad '"matchConstraints":{"resourceRules":[{
"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}],
"objectSelector":{"matchLabels":{"row":"bad"}}},"reinvocationPolicy":"Never","mutations":[{
"patchType":"JSONPatch","jsonPatch":{"expression":"[JSONPatch{op: \"add\", path: \"/metadata/labels/bad\", value: \"not a value!\"}]"}}]')"
req POST $AR/mutatingadmissionpolicybindings '{"apiVersion":"admissionregistration.k8s.io/v1alpha1",
"kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"b-bad"},"spec":{"policyName":"p-bad"}}'
check "a mutation that makes the object invalid is refused by validation" until_code 422 v1 bad
check "... in kube's words" jpy "'metadata.labels: Invalid value: \"not a value!\"' in d['message']"

# ---- reinvocation ------------------------------------------------------------------------------
# rpolicy NAME ROW REINVOCATION EXPRESSION: a bound ApplyConfiguration policy on ConfigMaps
# labelled row=ROW.
rpolicy() {
    req POST $AR/mutatingadmissionpolicies "$(policy "$1" "\"matchConstraints\":{\"resourceRules\":[{
\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"configmaps\"]}],
\"objectSelector\":{\"matchLabels\":{\"row\":\"$2\"}}},\"reinvocationPolicy\":\"$3\",\"mutations\":[{
\"patchType\":\"ApplyConfiguration\",\"applyConfiguration\":{\"expression\":\"$4\"}}]")"
    [[ $CODE == 201 ]] || return 1
    req POST $AR/mutatingadmissionpolicybindings "{\"apiVersion\":
\"admissionregistration.k8s.io/v1alpha1\",\"kind\":\"MutatingAdmissionPolicyBinding\",
\"metadata\":{\"name\":\"b-$1\"},\"spec\":{\"policyName\":\"$1\"}}"
    [[ $CODE == 201 ]]
}
COPY='Object{metadata: Object.metadata{labels: {\"copy\": \"src\" in object.metadata.labels ? object.metadata.labels[\"src\"] : \"none\"}}}'
SRC='Object{metadata: Object.metadata{labels: {\"src\": \"set\"}}}'
# Policies run in name order: the copying one first, then the one setting what it copies.
check "an IfNeeded policy copying a label, then one setting it" \
    eval 'rpolicy r-a-copy again IfNeeded "$COPY" && rpolicy r-b-src again Never "$SRC"'
check "... the copying policy runs again after the later one changed the object" \
    until_label r1 again copy set
check "the same pair with reinvocationPolicy Never" \
    eval 'rpolicy r-c-copy once Never "$COPY" && rpolicy r-d-src once Never "$SRC"'
check "... sets the label" until_label r2 once src set
check "... but the copying policy ran once only" jpy "d['metadata']['labels']['copy'] == 'none'"

# ---- a second instance on the same etcd enforces what the first stored ----------------------
second() {
    kgate_start gate2 --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="/registry-gate-$$" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --token-auth-file="$PKI/tokens.csv" "$RC" \
        --feature-gates=MutatingAdmissionPolicy=true
    for _ in $(seq 300); do
        [[ $(http_code /readyz "${ADMIN[@]}") == 200 ]] && return 0
        sleep 0.1
    done
    return 1
}
check "a second instance starts on the first one's etcd prefix" second
check "... and mutates with the policies stored through the first" until_label s1 tier \
    example.com/tiered true

# ---- paramKind and paramRef authorization, under RBAC ------------------------------------------
check "kgate starts with RBAC" api_start rbac "$RC" --feature-gates=MutatingAdmissionPolicy=true \
    --authorization-mode=RBAC
RBAC=/apis/rbac.authorization.k8s.io/v1
grant() { # NAME RESOURCE GROUP VERBS-JSON: a ClusterRole on RESOURCE bound to alice
    req POST $RBAC/clusterroles "{\"metadata\":{\"name\":\"$1\"},\"rules\":[{\"apiGroups\":[\"$3\"],\
\"resources\":[\"$2\"],\"verbs\":$4}]}"
    req POST $RBAC/clusterrolebindings "{\"metadata\":{\"name\":\"$1\"},\"roleRef\":{\
\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"$1\"},\
\"subjects\":[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"alice\"}]}"
}
as_alice_until() { # CODE PATH BODY
    for _ in $(seq 100); do
        send POST "$2" "$3" "${ALICE[@]}"
        [[ $CODE == "$1" ]] && return 0
        sleep 0.1
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
grant map-writer mutatingadmissionpolicies admissionregistration.k8s.io '["create"]'
PK='"paramKind":{"apiVersion":"v1","kind":"ConfigMap"}'
check "alice may create a policy without paramKind" as_alice_until 201 \
    $AR/mutatingadmissionpolicies "$(policy a1 "$RULES,\"reinvocationPolicy\":\"Never\",\"mutations\":[$AC_LABEL]")"
send POST $AR/mutatingadmissionpolicies "$(policy a2 "$RULES,$PK,\"reinvocationPolicy\":\"Never\",\"mutations\":[$AC_LABEL]")" "${ALICE[@]}"
check "one whose paramKind alice cannot get: 422 Forbidden on spec.paramKind" invalid a2 \
    "spec.paramKind: Forbidden: user &{alice 1001 [dev ops system:authenticated] map[]} must have \
\"get\" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)"
grant cm-reader configmaps "" '["get"]'
check "with get on configmaps, it is created" as_alice_until 201 $AR/mutatingadmissionpolicies \
    "$(policy a2 "$RULES,$PK,\"reinvocationPolicy\":\"Never\",\"mutations\":[$AC_LABEL]")"
grant mapb-writer mutatingadmissionpolicybindings admissionregistration.k8s.io '["create"]'
bref() { # NAME POLICY
    echo "{\"apiVersion\":\"admissionregistration.k8s.io/v1alpha1\",\"kind\":
\"MutatingAdmissionPolicyBinding\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"policyName\":\"$2\",
\"paramRef\":{\"name\":\"limits\",\"namespace\":\"default\",\"parameterNotFoundAction\":\"Deny\"}}}"
}
check "alice may bind a param of the mutating policy's paramKind" as_alice_until 201 \
    $AR/mutatingadmissionpolicybindings "$(bref ab1 a2)"
send POST $AR/mutatingadmissionpolicybindings "$(bref ab2 typo)" "${ALICE[@]}"
check "a policy not found: get on every resource needed, 422 Forbidden on spec.paramRef" binvalid ab2 \
    "spec.paramRef: Forbidden: user &{alice 1001 [dev ops system:authenticated] map[]} does not \
have \"get\" permission on the object referenced by paramRef"

check "kgate exits cleanly" clean_exit
tap_end
