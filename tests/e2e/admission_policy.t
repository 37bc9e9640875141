#!/usr/bin/env bash
# ValidatingAdmissionPolicy end to end on two kgate instances sharing etcd, under RBAC: a
# policy created through one instance denies through the other within a second; each row of
# kube's matching and evaluation (reasons and their codes, Warn in kubectl's output, params by
# name and by selector, parameterNotFoundAction, namespace and object selectors,
# matchConditions, messageExpression, variables, an authorizer check, failurePolicy with a
# runtime error, cost exceeded, dry run, a DELETE) with kube's messages and codes.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/instances_lib.sh
e2e_require admission_policy

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
PREFIX=/registry-vap-$$
ARV=/apis/admissionregistration.k8s.io/v1

# vap NAME ROW OPERATIONS SPEC-MEMBERS: a policy on configmaps labelled row=ROW.
vap() {
    req POST $ARV/validatingadmissionpolicies "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",
\"kind\":\"ValidatingAdmissionPolicy\",\"metadata\":{\"name\":\"$1\"},\"spec\":{
\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],
\"operations\":$3,\"resources\":[\"configmaps\"]}],\"objectSelector\":{\"matchLabels\":{
\"row\":\"$2\"}}},$4}}"
    code_is 201
}
# vapb NAME POLICY ACTIONS [SPEC-MEMBERS]
vapb() {
    req POST $ARV/validatingadmissionpolicybindings "{\"apiVersion\":
\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicyBinding\",\"metadata\":{
\"name\":\"$1\"},\"spec\":{\"policyName\":\"$2\",\"validationActions\":$3${4:+,$4}}}"
    code_is 201
}
# row NAME ROW K [NAMESPACE]: a ConfigMap labelled row=ROW with data k=K.
row() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$1\",\"namespace\":
\"${4:-default}\",\"labels\":{\"row\":\"$2\"}},\"data\":{\"k\":\"$3\"}}"
}
# create NAME ROW K [NAMESPACE [QUERY]]: POST it as the admin.
create() {
    req POST "/api/v1/namespaces/${4:-default}/configmaps${5:-}" "$(row "$1" "$2" "$3" "${4:-}")"
}
# until_code CODE SECONDS NAME ROW K [NAMESPACE]: dry-run creates until one answers CODE.
until_code() {
    local want=$1 secs=$2; shift 2
    local end=$(($(date +%s%N) + secs * 1000000000))
    while (($(date +%s%N) < end)); do
        create "$1" "$2" "$3" "${4:-default}" "?dryRun=All"
        [[ $CODE == "$want" ]] && return 0
        sleep 0.05
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
# denied CODE REASON NAME MESSAGE: a refusal of configmap NAME with kube's words.
denied() {
    is_status "$1" "$2" "configmaps \"$3\" is forbidden: $4" &&
        jpy "d['details'] == {'name': '$3', 'kind': 'configmaps', 'causes': [{'message':
d['message']}]}"
}
vmsg() { echo "ValidatingAdmissionPolicy '$1' with binding '$2' denied request: $3"; }

check "instance a starts" start a
AUDIT_LOG=$KGATE_TEST_TMP/audit.log
printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n' \
    >"$KGATE_TEST_TMP/audit.yaml"
check "instance b starts, with an audit log" start b \
    --audit-policy-file="$KGATE_TEST_TMP/audit.yaml" --audit-log-path="$AUDIT_LOG"

# ---- through one instance, enforced by the other ---------------------------------------------
on a
create c0 deny bad
check "without policies a configmap is created" code_is 201
check "a policy is created through a" vap p-deny deny '["CREATE","UPDATE"]' \
    '"validations":[{"expression":"object.data.k != '"'"'bad'"'"'","message":"k must not be bad"}]'
check "... and its binding" vapb b-deny p-deny '["Deny"]'
on b
check "instance b denies within a second" until_code 422 1 c1 deny bad
check "... a dry run with kube's message (Invalid, 422)" denied 422 Invalid c1 \
    "$(vmsg p-deny b-deny 'k must not be bad')"
create c1 deny bad
check "a real create through b is denied the same way" denied 422 Invalid c1 \
    "$(vmsg p-deny b-deny 'k must not be bad')"
create c2 deny good
check "an object the validation accepts is created" code_is 201
req POST $CORE/configmaps "$(cm c3)"
check "the object selector leaves out unlabelled objects" code_is 201
req PUT $CORE/configmaps/c2 "$(row c2 deny bad)"
check "an UPDATE is denied too" denied 422 Invalid c2 "$(vmsg p-deny b-deny 'k must not be bad')"
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    row kc1 deny bad >"$KGATE_TEST_TMP/kc1.json"
    kdeny() {
        local out
        out=$(kubectl --request-timeout=20s create -f "$KGATE_TEST_TMP/kc1.json" 2>&1) &&
            { diag "created: $out"; return 1; }
        [[ $out == "The configmaps \"kc1\" is invalid: : configmaps \"kc1\" is forbidden: $(vmsg \
            p-deny b-deny 'k must not be bad')" ]] ||
            { diag "$out"; return 1; }
    }
    check "kubectl create is refused with kube's words" kdeny
else
    check "kubectl 1.32 is not here: the kubectl deny row # SKIP" true
fi

# ---- reasons and their codes ----------------------------------------------------------------
on a
Q="'"
check "a policy with a reason per validation" vap p-reason reason '["CREATE"]' \
    "\"validations\":[{\"expression\":\"object.data.k != ${Q}forbid${Q}\",\"reason\":\"Forbidden\",
\"message\":\"no forbid\"},{\"expression\":\"object.data.k != ${Q}plain${Q}\"},{\"expression\":\"object.data.k != ${Q}big${Q}\",\"reason\":
\"RequestEntityTooLarge\",\"message\":\"too big\"}]"
vapb b-reason p-reason '["Deny"]'
on b
check "Forbidden is 403" until_code 403 5 r1 reason forbid
check "... with its message" denied 403 Forbidden r1 "$(vmsg p-reason b-reason 'no forbid')"
create r2 reason plain
check "no reason is Invalid, 422, with kube's message for a validation without one" denied 422 \
    Invalid r2 "$(vmsg p-reason b-reason "failed expression: object.data.k != 'plain'")"
create r3 reason big
check "RequestEntityTooLarge is 413" denied 413 RequestEntityTooLarge r3 \
    "$(vmsg p-reason b-reason 'too big')"

# ---- Warn, through kubectl -------------------------------------------------------------------
on a
vap p-warn warn '["CREATE"]' '"validations":[{"expression":"false","message":"warned"}]'
check "a Warn binding" vapb b-warn p-warn '["Warn"]'
on b
WANT_WARN="299 - \"Validation failed for ValidatingAdmissionPolicy 'p-warn' with binding 'b-warn': warned\""
warned() {
    for _ in $(seq 50); do
        create w0 warn x default "?dryRun=All"
        [[ $CODE == 201 && $(warnings) == "$WANT_WARN" ]] && return 0
        sleep 0.1
    done
    diag "$CODE: $(warnings)"
    return 1
}
check "Warn lets the request through with kube's warning header" warned
on a
vapb b-deny-warn p-deny '["Warn"]'
on b
WANT_DW="299 - \"Validation failed for ValidatingAdmissionPolicy 'p-deny' with binding 'b-deny-warn': k must not be bad\""
denied_warned() {
    for _ in $(seq 50); do
        create dw deny bad default "?dryRun=All"
        [[ $CODE == 422 && $(warnings) == "$WANT_DW" ]] && return 0
        sleep 0.1
    done
    diag "$CODE: $(warnings)"
    return 1
}
check "a Warn binding's warning rides on another binding's denial" denied_warned
check "... which is the refusal" denied 422 Invalid dw "$(vmsg p-deny b-deny 'k must not be bad')"
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    row w1 warn x >"$KGATE_TEST_TMP/w1.json"
    kwarn() {
        local out
        out=$(kubectl --request-timeout=20s create -f "$KGATE_TEST_TMP/w1.json" 2>&1 >/dev/null)
        [[ $out == "Warning: Validation failed for ValidatingAdmissionPolicy 'p-warn' with binding 'b-warn': warned" ]] ||
            { diag "$out"; return 1; }
    }
    check "kubectl prints the warning on stderr and creates the object" kwarn
else
    check "kubectl 1.32 is not here: the kubectl row # SKIP" true
fi

# ---- params by name --------------------------------------------------------------------------
on a
PK='"paramKind":{"apiVersion":"v1","kind":"ConfigMap"}'
vap p-pname pname '["CREATE"]' "$PK,\"validations\":[{\"expression\":
\"object.data.k != params.data.banned\",\"messageExpression\":\"${Q}k is banned: ${Q} + params.data.banned\"}]"
vapb b-pname p-pname '["Deny"]' '"paramRef":{"name":"limits","namespace":"default",
"parameterNotFoundAction":"Deny"}'
on b
check "a missing param under Deny refuses" until_code 422 5 n1 pname evil
check "... with kube's message" denied 422 Invalid n1 "$(vmsg p-pname b-pname \
    'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction')"
req POST $CORE/configmaps "$(cm limits)"
req PATCH $CORE/configmaps/limits '{"data":{"banned":"evil"}}' application/merge-patch+json
check "the param by name is used once it exists" until_code 422 5 n2 pname evil
check "... its messageExpression" denied 422 Invalid n2 "$(vmsg p-pname b-pname 'k is banned: evil')"
create n3 pname fine
check "... and what it allows is created" code_is 201

# ---- params by selector, parameterNotFoundAction Allow ---------------------------------------
on a
vap p-psel psel '["CREATE"]' "$PK,\"validations\":[{\"expression\":
\"object.data.k != params.data.banned\",\"messageExpression\":
\"${Q}banned by ${Q} + params.metadata.name\"}]"
vapb b-psel p-psel '["Deny"]' '"paramRef":{"selector":{"matchLabels":{"kind":"limit"}},
"parameterNotFoundAction":"Allow"}'
on b
req POST $CORE/configmaps "$(cm s-one '"labels":{"kind":"limit"}')"
req PATCH $CORE/configmaps/s-one '{"data":{"banned":"a"}}' application/merge-patch+json
req POST $CORE/configmaps "$(cm s-two '"labels":{"kind":"limit"}')"
req PATCH $CORE/configmaps/s-two '{"data":{"banned":"b"}}' application/merge-patch+json
check "each selected param is evaluated: the first" until_code 422 5 s1 psel a
check "... denies with its own message" denied 422 Invalid s1 "$(vmsg p-psel b-psel 'banned by s-one')"
check "... and the second" until_code 422 5 s2 psel b
check "... with its own" denied 422 Invalid s2 "$(vmsg p-psel b-psel 'banned by s-two')"
create s3 psel c
check "what no param bans is created" code_is 201
req DELETE $CORE/configmaps/s-one
req DELETE $CORE/configmaps/s-two
check "no param selected under Allow: nothing is evaluated (null params would fail)" \
    until_code 201 5 s0 psel a

# ---- namespace selector and namespaceObject --------------------------------------------------
on a
req POST /api/v1/namespaces '{"metadata":{"name":"vap-on","labels":{"vap":"on"}}}'
req POST /api/v1/namespaces '{"metadata":{"name":"vap-off"}}'
req POST $ARV/validatingadmissionpolicies '{"metadata":{"name":"p-ns"},"spec":{
"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],
"resources":["configmaps"]}],"namespaceSelector":{"matchLabels":{"vap":"on"}}},
"validations":[{"expression":"false","messageExpression":"'"'"'in '"'"' + namespaceObject.metadata.name"}]}}'
check "a policy with a namespace selector" code_is 201
vapb b-ns p-ns '["Deny"]'
on b
check "a namespace the selector matches is denied" until_code 422 5 x1 any v vap-on
check "... and namespaceObject is that namespace" denied 422 Invalid x1 "$(vmsg p-ns b-ns 'in vap-on')"
create x2 any v vap-off
check "a namespace it does not match is not" code_is 201

# ---- matchConditions and variables -----------------------------------------------------------
on a
vap p-mc mc '["CREATE"]' '"matchConditions":[{"name":"only-x","expression":
"object.metadata.name.startsWith('"'"'x'"'"')"}],"validations":[{"expression":"false","message":"mc"}]'
vapb b-mc p-mc '["Deny"]'
vap p-var var '["CREATE"]' "\"variables\":[{\"name\":\"k\",\"expression\":\"object.data.k\"},
{\"name\":\"bad\",\"expression\":\"variables.k == ${Q}v-bad${Q}\"}],\"validations\":[{\"expression\":
\"!variables.bad\",\"messageExpression\":\"${Q}variable k is ${Q} + variables.k\"}]"
vapb b-var p-var '["Deny"]'
on b
check "matchConditions all true: evaluated" until_code 422 5 xa mc v
check "... denied" denied 422 Invalid xa "$(vmsg p-mc b-mc mc)"
create ya mc v
check "a false matchCondition skips the policy" code_is 201
check "variables feed validations and messages" until_code 422 5 v1 var v-bad
check "... with the message they build" denied 422 Invalid v1 "$(vmsg p-var b-var 'variable k is v-bad')"
create v2 var v-good
check "... and allow what they allow" code_is 201

# ---- the authorizer --------------------------------------------------------------------------
on a
req POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/roles '{"metadata":{"name":"cm"},
"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["create"]}]}'
req POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings '{"metadata":{"name":"cm"},
"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"cm"},
"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}]}'
vap p-authz authz '["CREATE"]' '"validations":[{"expression":
"authorizer.group('"''"').resource('"'"'secrets'"'"').namespace('"'"'default'"'"').check('"'"'list'"'"').allowed()",
"message":"must be able to list secrets"}]'
vapb b-authz p-authz '["Deny"]'
on b
alice_create() { send POST $CORE/configmaps "$(row "$1" authz v)" "${ALICE[@]}"; }
as_alice_denied() {
    for _ in $(seq 50); do
        alice_create z1
        [[ $CODE == 422 ]] && break
        sleep 0.1
    done
    denied 422 Invalid z1 "$(vmsg p-authz b-authz 'must be able to list secrets')"
}
check "alice, who may not list secrets, is denied through RBAC" as_alice_denied
create z0 authz v
check "the admin (who may list secrets) passes the same check" code_is 201
on a
req POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/roles '{"metadata":{"name":"sec"},
"rules":[{"apiGroups":[""],"resources":["secrets"],"verbs":["list"]}]}'
req POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings '{"metadata":{"name":"sec"},
"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"sec"},
"subjects":[{"kind":"Group","name":"ops","apiGroup":"rbac.authorization.k8s.io"}]}'
on b
as_alice_allowed() {
    for _ in $(seq 50); do
        alice_create z2
        [[ $CODE == 201 ]] && return 0
        sleep 0.1
    done
    code_is 201
}
check "once her group may list secrets, she passes" as_alice_allowed

# ---- failurePolicy with a runtime error, cost ------------------------------------------------
on a
vap p-ign ign '["CREATE"]' "\"failurePolicy\":\"Ignore\",\"validations\":[{\"expression\":
\"object.data.missing == ${Q}x${Q}\"}]"
vapb b-ign p-ign '["Deny"]'
vap p-fail fail '["CREATE"]' "\"failurePolicy\":\"Fail\",\"validations\":[{\"expression\":
\"object.data.missing == ${Q}x${Q}\"}]"
vapb b-fail p-fail '["Deny"]'
L='[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]'
COST="$L.all(a, $L.all(b, $L.all(c, $L.all(d, $L.all(e, a + b + c + d + e > 0)))))"
vap p-cost cost '["CREATE"]' "\"validations\":[{\"expression\":\"$COST\"}]"
vapb b-cost p-cost '["Deny"]'
on b
check "a runtime error under Fail denies" until_code 422 5 f1 fail v
check "... with kube's message" denied 422 Invalid f1 \
    "$(vmsg p-fail b-fail "expression 'object.data.missing == 'x'' resulted in error: no such key: missing")"
create f2 ign v
check "... and under Ignore (created before) admits" code_is 201
check "an expression over its cost budget denies" until_code 422 5 k1 cost v
check "... with kube's message" denied 422 Invalid k1 \
    "$(vmsg p-cost b-cost "expression '$COST' resulted in error: operation cancelled: actual cost limit exceeded")"

# ---- DELETE: object null, oldObject set ------------------------------------------------------
on a
create d1 del keep
create d2 del other
vap p-del del '["DELETE"]' "\"validations\":[{\"expression\":
\"object != null || oldObject.data.k != ${Q}keep${Q}\",\"message\":\"kept\"}]"
vapb b-del p-del '["Deny"]'
on b
del_denied() {
    for _ in $(seq 50); do
        req DELETE "$CORE/configmaps/d1?dryRun=All"
        [[ $CODE == 422 ]] && break
        sleep 0.1
    done
    denied 422 Invalid d1 "$(vmsg p-del b-del kept)"
}
check "a DELETE is matched with a null object and the stored one as oldObject" del_denied
req DELETE $CORE/configmaps/d2
check "... and what it allows is deleted" code_is 200

# ---- a paramKind nobody serves: the policy's configuration error under failurePolicy -------
on a
UNK='"paramKind":{"apiVersion":"example.com/v1","kind":"Limit"}'
# the Ignore one first: once the Fail one denies on b, b has both
vap p-unki unki '["CREATE"]' "$UNK,\"failurePolicy\":\"Ignore\",\"validations\":[{\"expression\":\"true\"}]"
vapb b-unki p-unki '["Deny"]' '"paramRef":{"name":"x","parameterNotFoundAction":"Allow"}'
vap p-unk unk '["CREATE"]' "$UNK,\"validations\":[{\"expression\":\"true\"}]"
vapb b-unk p-unk '["Deny"]' '"paramRef":{"name":"x","parameterNotFoundAction":"Allow"}'
on b
check "an unserved paramKind under Fail denies" until_code 422 5 u1 unk v
check "... with kube's words for the policy" denied 422 Invalid u1 "ValidatingAdmissionPolicy \
'p-unk' denied request: failed to configure policy: failed to find resource referenced by \
paramKind: 'example.com/v1, Kind=Limit'"
create u2 unki v
check "... and under Ignore admits" code_is 201

# ---- Audit: the failure and the policy's own annotations go to b's audit event ------------
on a
check "a policy with an audit annotation" vap p-aud aud '["CREATE"]' '"validations":[{
"expression":"object.data.k != '"'"'bad'"'"'","message":"k is bad"}],"auditAnnotations":[{
"key":"seen","valueExpression":"'"'"'k is '"'"' + object.data.k"}]'
check "... and an Audit binding" vapb b-aud p-aud '["Audit"]'
on b
# audited KEY: the annotations of b's last ResponseComplete event holding KEY, as JSON.
audited() {
    python3 - "$AUDIT_LOG" "$1" <<'PY'
import json, sys
hit = None
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("stage") == "ResponseComplete" and sys.argv[2] in e.get("annotations", {}):
        hit = e["annotations"]
print(json.dumps(hit, sort_keys=True) if hit else "")
PY
}
audit_seen() {
    local end=$(($(date +%s%N) + 5000000000))
    while (($(date +%s%N) < end)); do
        create a1 aud bad default "?dryRun=All"
        [[ -n $(audited p-aud/seen) ]] && return 0
        sleep 0.1
    done
    diag "answer $CODE; the audit log ends: $(tail -2 "$AUDIT_LOG")"
    return 1
}
check "an Audit binding admits and annotates b's audit event" audit_seen
check "... the request was admitted" code_is 201
ANN=$(audited p-aud/seen)
# ann_is PYTHON-TEST: the test holds of a, the annotations found (and f, their failure list).
ann_is() {
    python3 -c 'import json, sys
a = json.loads(sys.argv[1])
f = json.loads(a.get("validation.policy.admission.k8s.io/validation_failure", "null"))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$ANN" "$1"
}
check "... <policy>/<key> holds the valueExpression's result" ann_is 'a["p-aud/seen"] == "k is bad"'
check "... validation_failure holds kube's JSON list" ann_is 'f == [{"message": "k is bad",
    "policy": "p-aud", "binding": "b-aud", "expressionIndex": 0, "validationActions": ["Audit"]}]'

# ---- removed through a, no longer enforced on b ----------------------------------------------
on a
req DELETE $ARV/validatingadmissionpolicybindings/b-deny
on b
check "a binding deleted through a stops denying on b" until_code 201 2 c9 deny bad

# ---- kube's policy metrics, summed over both instances ------------------------------------
for i in a b; do on "$i"; req GET /metrics; cat "$OUT"; done >"$KGATE_TEST_TMP/metrics"
pc=apiserver_validating_admission_policy_check
check "check_total: a failed validation under Deny, kube's error type invalid_error" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${pc}_total{enforcement_action=\"deny\",error_type=\"invalid_error\",policy=\"p-deny\",policy_binding=\"b-deny\"}")" -ge 3
check "... under Warn" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${pc}_total{enforcement_action=\"warn\",error_type=\"invalid_error\",policy=\"p-warn\",policy_binding=\"b-warn\"}")" -ge 1
check "... under Audit" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${pc}_total{enforcement_action=\"audit\",error_type=\"invalid_error\",policy=\"p-aud\",policy_binding=\"b-aud\"}")" -ge 1
check "... an error under Ignore: allow" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${pc}_total{enforcement_action=\"allow\",error_type=\"invalid_error\",policy=\"p-ign\",policy_binding=\"b-ign\"}")" -ge 1
check "a false matchCondition: exclusions_total, kind policy" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "apiserver_admission_match_condition_exclusions_total{kind=\"policy\",name=\"p-mc\",operation=\"CREATE\",type=\"validating\"}")" -ge 1
check "... a passing validation is not counted" bash -c \
    "! grep -q '^${pc}_total{.*error_type=\"no_error\"' '$KGATE_TEST_TMP/metrics'"
check "check_duration_seconds with kube's buckets (5e-07 to 1), BETA" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${pc}_duration_seconds_bucket{enforcement_action=\"deny\",error_type=\"invalid_error\",policy=\"p-deny\",policy_binding=\"b-deny\",le=\"1\"}")" -ge 3 -a \
    "$(grep -c "^${pc}_duration_seconds_bucket{.*le=\"5e-07\"}" "$KGATE_TEST_TMP/metrics")" -ge 1 -a \
    "$(grep -c "^# HELP ${pc}_duration_seconds \\[BETA\\]" "$KGATE_TEST_TMP/metrics")" -ge 1

check "a exits cleanly" eval 'on a; clean_exit'
check "b exits cleanly" eval 'on b; clean_exit'
tap_end
