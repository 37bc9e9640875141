#!/usr/bin/env bash
# x-kubernetes-validations over HTTP, as kube-apiserver 1.32 answers: a CRD whose rules hold
# lets its objects through; objects that break them are 422 with kube's paths, values and
# messages (message, messageExpression, reason, fieldPath); a transition rule lets a create
# through and refuses the change on update; a rule that does not compile, and one whose
# estimated cost is over kube's limits, make the CRD itself 422.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require crd_rules

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
CRDS=/apis/apiextensions.k8s.io/v1/customresourcedefinitions
NS=/apis/rules.example.com/v1/namespaces/default/widgets

# crd NAME-PLURAL SCHEMA: a namespaced CRD of group rules.example.com with one version.
crd() {
    local plural=$1 kind=$2 schema=$3
    cat <<EOF
{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"$plural.rules.example.com"},
 "spec":{"group":"rules.example.com","scope":"Namespaced",
  "names":{"plural":"$plural","singular":"${plural%s}","kind":"$kind"},
  "versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":$schema}}]}}
EOF
}

WIDGET='{"type":"object","properties":{"spec":{"type":"object",
  "properties":{
    "replicas":{"type":"integer"},"minReplicas":{"type":"integer"},
    "name":{"type":"string","maxLength":32,
      "x-kubernetes-validations":[{"rule":"self == oldSelf","message":"name is immutable"}]}},
  "x-kubernetes-validations":[
    {"rule":"self.minReplicas <= self.replicas",
     "message":"replicas should be greater than or equal to minReplicas"},
    {"rule":"self.replicas < 100","reason":"FieldValueForbidden","fieldPath":".replicas",
     "messageExpression":"\"too many replicas for \" + self.name"}]}}}'

widget() {
    echo "{\"apiVersion\":\"rules.example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"$1\"},\"spec\":$2}"
}

established() {
    req GET "$CRDS/widgets.rules.example.com"
    [[ $CODE == 200 ]] &&
        jpy "any(c['type'] == 'Established' and c['status'] == 'True' for c in d.get('status', {}).get('conditions', []))" >/dev/null
}
wait_served() {
    for _ in $(seq 50); do
        established && [[ $(http_code /apis/rules.example.com/v1 "${ADMIN[@]}") == 200 ]] &&
            return 0
        sleep 0.1
    done
    diag "$(head -c 800 "$OUT")"
    return 1
}

# causes FIELD=REASON...: the 422's causes, in order.
causes() {
    jpy "[c['field'] + '=' + c['reason'] for c in d['details']['causes']] == $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "$@")"
}

check "kgate starts" api_start rules --workers=2

req POST "$CRDS" "$(crd widgets Widget "$WIDGET")"
check "a CRD with rules is created" code_is 201
check "and served" wait_served

req POST "$NS" "$(widget ok '{"replicas":3,"minReplicas":1,"name":"a"}')"
check "an object that keeps the rules is created" code_is 201

req POST "$NS" "$(widget low '{"replicas":1,"minReplicas":3}')"
check "an object that breaks a rule is 422" code_is 422
check "with the rule's message at the node's path" is_status 422 Invalid \
    'Widget.rules.example.com "low" is invalid: spec: Invalid value: "object": replicas should be greater than or equal to minReplicas'
check "one FieldValueInvalid cause at spec" causes spec=FieldValueInvalid

req POST "$NS" "$(widget many '{"replicas":200,"minReplicas":3,"name":"m"}')"
check "messageExpression, reason and fieldPath" is_status 422 Invalid \
    'Widget.rules.example.com "many" is invalid: spec.replicas: Forbidden: too many replicas for m'
req POST "$NS" "$(widget noname '{"replicas":200,"minReplicas":3}')"
check "a messageExpression that fails at runtime gives the default message" is_status 422 Invalid \
    'Widget.rules.example.com "noname" is invalid: spec.replicas: Forbidden: failed rule: self.replicas < 100'

req POST "$NS" "$(widget both '{"replicas":200,"minReplicas":300}')"
check "both rules fail: both errors, in order" causes spec=FieldValueInvalid spec.replicas=FieldValueForbidden

req POST "$NS" "$(widget typed '{"replicas":"x","minReplicas":3}')"
check "a schema type error keeps the rules from running" causes spec.replicas=FieldValueTypeInvalid '<nil>=FieldValueInvalid'
check "in kube's words" jpy "d['details']['causes'][1]['message'] == 'Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'"

# a transition rule: the create went through; the update is refused, an unchanged one is not
req PATCH "$NS/ok" '{"spec":{"name":"b"}}' application/merge-patch+json
check "changing an immutable name is 422" is_status 422 Invalid \
    'Widget.rules.example.com "ok" is invalid: spec.name: Invalid value: "string": name is immutable'
req PATCH "$NS/ok" '{"spec":{"replicas":4}}' application/merge-patch+json
check "another change keeps the name and passes" code_is 200

# the CRD's own checks
BAD='{"type":"object","properties":{"spec":{"type":"object",
  "properties":{"replicas":{"type":"integer"}},
  "x-kubernetes-validations":[{"rule":"self.nope > 0"}]}}}'
req POST "$CRDS" "$(crd gadgets Gadget "$BAD")"
check "a rule that does not compile makes the CRD 422" code_is 422
check "with kube's compile error at the rule" jpy "d['details']['causes'] == [{'reason': 'FieldValueInvalid', 'field': 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule', 'message': 'Invalid value: apiextensions.ValidationRule{Rule:\"self.nope > 0\", Message:\"\", MessageExpression:\"\", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field \\'nope\\'\n | self.nope > 0\n | ....^'}]"

COSTLY='{"type":"object","properties":{"spec":{"type":"object","properties":{
  "tags":{"type":"array","items":{"type":"string"},
    "x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x == y))"}]}}}}}'
req POST "$CRDS" "$(crd gizmos Gizmo "$COSTLY")"
check "a rule over the cost limit makes the CRD 422" code_is 422
check "with kube's cost errors" causes \
    'spec.validation.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule=FieldValueForbidden' \
    'spec.validation.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule=FieldValueForbidden' \
    'spec.validation.openAPIV3Schema=FieldValueForbidden'
check "the rule's estimate exceeds its budget" jpy "d['details']['causes'][0]['message'] == 'Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)'"

BOUNDED=${COSTLY/'"type":"array",'/'"type":"array","maxItems":10,'}
BOUNDED=${BOUNDED/'"type":"string"'/'"type":"string","maxLength":10'}
req POST "$CRDS" "$(crd gizmos Gizmo "$BOUNDED")"
check "bounded by maxItems and maxLength, the same rule is accepted" code_is 201

OLDSELF='{"type":"object","properties":{"spec":{"type":"object","properties":{
  "tags":{"type":"array","maxItems":5,"items":{"type":"string","maxLength":5,
    "x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}}}'
req POST "$CRDS" "$(crd doodads Doodad "$OLDSELF")"
check "oldSelf under an atomic list's items makes the CRD 422" is_status 422 Invalid \
    'CustomResourceDefinition.apiextensions.k8s.io "doodads.rules.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[tags]'

check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
