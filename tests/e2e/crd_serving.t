#!/usr/bin/env bash
# Custom resources served by every instance: a CRD created through one kgate is served by
# another within a second (discovery, CRUD, watch), with its schema's pruning, defaulting and
# validation, the status and scale subresources, generation, strategic merge patch refused,
# protobuf refused unless JSON is acceptable, a second version converted with the None
# strategy and stored in the storage version, stock kubectl (get, scale, patch), and the
# CRD's deletion removing its objects and its discovery everywhere.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/instances_lib.sh
e2e_require crd_serving

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
PREFIX=/registry-crd-$$
CRDS=/apis/apiextensions.k8s.io/v1/customresourcedefinitions
G=/apis/stable.example.com
NS=$G/v1/namespaces/default/crontabs

crd() {
    cat <<'EOF'
{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"crontabs.stable.example.com"},
 "spec":{"group":"stable.example.com","scope":"Namespaced",
  "names":{"plural":"crontabs","singular":"crontab","kind":"CronTab","shortNames":["ct"]},
  "versions":[
   {"name":"v1beta1","served":true,"storage":false,"deprecated":true,
    "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
   {"name":"v1","served":true,"storage":true,
    "selectableFields":[{"jsonPath":".spec.image"}],
    "subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas",
                                         "statusReplicasPath":".status.replicas"}},
    "schema":{"openAPIV3Schema":{"type":"object","properties":{
      "spec":{"type":"object","required":["cronSpec"],"properties":{
        "cronSpec":{"type":"string","pattern":"^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"},
        "image":{"type":"string"},
        "replicas":{"type":"integer","minimum":0,"maximum":10,"default":1}}},
      "status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}
EOF
}

# established: the CRD's Established condition is True on the instance in use.
established() {
    req GET "$CRDS/crontabs.stable.example.com"
    [[ $CODE == 200 ]] &&
        jpy "any(c['type'] == 'Established' and c['status'] == 'True' for c in d.get('status', {}).get('conditions', []))" >/dev/null
}
wait_established() {
    for _ in $(seq 50); do established && return 0; sleep 0.1; done
    diag "$(head -c 800 "$OUT")"
    return 1
}

check "instance a starts" start a
check "instance b starts" start b

on a
req POST "$CRDS" "$(crd | sed 's/"default":1}/"default":20}/')"
check "a CRD whose default breaks its own schema is 422" \
    jpy "d['code'] == 422 and d['details']['causes'][0]['field'] == 'spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[replicas].default' and 'less than or equal to 10' in d['details']['causes'][0]['message']"
req GET "$G/v1"
check "... and leaves nothing served" code_is 404
req POST "$CRDS" "$(crd)"
check "the CRD is created through a" code_is 201
check "the CRD becomes Established" wait_established
on b
check "b serves the group within a second" wait_code "$G/v1" 200 1
check "b's discovery lists crontabs with its short name" \
    jpy "[(r['name'], r.get('shortNames')) for r in d['resources'] if r['name'] == 'crontabs'] == [('crontabs', ['ct'])]"
req GET /openapi/v3
check "b's OpenAPI v3 index lists both versions" \
    jpy "'apis/stable.example.com/v1' in d['paths'] and 'apis/stable.example.com/v1beta1' in d['paths']"
req GET /openapi/v3/apis/stable.example.com/v1
check "whose document has the kind's schema" \
    jpy "d['components']['schemas']['com.example.stable.v1.CronTab']['properties']['spec']['properties']['replicas']['maximum'] == 10"
req GET "$G"
check "the group prefers v1 over v1beta1" \
    jpy "d['preferredVersion']['version'] == 'v1' and [v['version'] for v in d['versions']] == ['v1', 'v1beta1']"

# create: pruning, defaulting, validation
req POST "$NS" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * */5","extra":1},"status":{"replicas":3}}'
check "a custom object is created through b" code_is 201
check "its unknown field is warned about" grep -q 'unknown field \\"spec.extra\\"' "$HDR"
check "the answer is pruned, defaulted, status dropped, generation 1" \
    jpy "d['spec'] == {'cronSpec': '* * * * */5', 'replicas': 1} and 'status' not in d and d['metadata']['generation'] == 1"
check "etcd holds it under <prefix>/<group>/<plural>/<ns>/<name>" \
    bash -c "[[ \$(ETCDCTL_API=3 etcdctl --endpoints=$KGATE_TEST_ETCD get $PREFIX/stable.example.com/crontabs/default/a --print-value-only) == *'\"cronSpec\"'* ]]"
req POST "$NS" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"bad"},"spec":{"cronSpec":"bad","replicas":20,"image":5}}'
check "a schema violation is 422 Invalid" code_is 422
check "with kube's causes (type, pattern, maximum)" jpy "sorted(c['field'] for c in d['details']['causes']) == ['spec.cronSpec', 'spec.image', 'spec.replicas'] and any('should match' in c['message'] for c in d['details']['causes']) and any('less than or equal to 10' in c['message'] for c in d['details']['causes'])"
req POST "$NS" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nospec"},"spec":{}}'
check "a missing required field is 422" jpy "d['details']['causes'][0]['field'] == 'spec.cronSpec' and d['details']['causes'][0]['reason'] == 'FieldValueRequired'"
req POST "$NS?fieldValidation=Strict" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"strict"},"spec":{"cronSpec":"* * * * *","x":1,"y":2}}'
check "fieldValidation=Strict lists the unknown fields" \
    jpy "d['code'] == 400 and 'unknown field \"spec.x\", unknown field \"spec.y\"' in d['message']"

# reads from a: the object and the list
on a
req GET "$NS/a"
check "a reads the object" jpy "d['spec']['replicas'] == 1 and d['kind'] == 'CronTab'"
req GET "$NS"
check "a lists them as CronTabList" jpy "d['kind'] == 'CronTabList' and [i['metadata']['name'] for i in d['items']] == ['a']"

# updates: status subresource, generation, strategic merge patch
req PATCH "$NS/a" '{"spec":{"image":"x"},"status":{"replicas":9}}' application/merge-patch+json
check "a spec change bumps generation, status stays out" \
    jpy "d['metadata']['generation'] == 2 and 'status' not in d and d['spec']['image'] == 'x'"
req PATCH "$NS/a/status" '{"spec":{"image":"y"},"status":{"replicas":2}}' application/merge-patch+json
check "the status subresource writes status only" \
    jpy "d['status'] == {'replicas': 2} and d['spec']['image'] == 'x' and d['metadata']['generation'] == 2"
req PATCH "$NS/a" '{"spec":{"image":"z"}}' application/strategic-merge-patch+json
check "a strategic merge patch is 415" code_is 415
check "in kube's words" jpy "d['reason'] == 'UnsupportedMediaType' and 'application/merge-patch+json' in d['message'] and 'strategic' not in d['message']"
req PATCH "$NS/a" '[{"op":"replace","path":"/spec/image","value":"j"}]' application/json-patch+json
check "a JSON patch applies" jpy "d['spec']['image'] == 'j'"

# field selectors: metadata and the CRD's selectableFields
req GET "$NS?fieldSelector=spec.image%3Dj"
check "a selectable field selects" jpy "[i['metadata']['name'] for i in d['items']] == ['a']"
req GET "$NS?fieldSelector=spec.image%3Dnone"
check "and deselects" jpy "d['items'] == []"
req GET "$NS?fieldSelector=metadata.name%3Da"
check "metadata.name is selectable" jpy "[i['metadata']['name'] for i in d['items']] == ['a']"
req GET "$NS?fieldSelector=spec.cronSpec%3Dx"
check "another field is 400 in kube's words" \
    jpy "d['code'] == 400 and 'field label not supported: spec.cronSpec' in d['message']"

# scale
req GET "$NS/a/scale"
check "the scale subresource reads the CRD's paths" \
    jpy "d['kind'] == 'Scale' and d['spec']['replicas'] == 1 and d['status']['replicas'] == 2"
req PATCH "$NS/a/scale" '{"spec":{"replicas":4}}' application/merge-patch+json
req GET "$NS/a"
check "a scale write sets specReplicasPath" jpy "d['spec']['replicas'] == 4"

# media types
kcurl "${ADMIN[@]}" -o "$OUT" -w '%{http_code}' -H 'Accept: application/vnd.kubernetes.protobuf' "$KGATE_URL$NS/a" >"$KGATE_TEST_TMP/code"
check "protobuf alone is 406" grep -qx 406 "$KGATE_TEST_TMP/code"
kcurl "${ADMIN[@]}" -o "$OUT" -D "$HDR" -H 'Accept: application/vnd.kubernetes.protobuf, application/json' "$KGATE_URL$NS/a"
check "protobuf or JSON answers JSON" bash -c "grep -qi '^content-type: application/json' $HDR"

# a second version: None conversion, stored in the storage version
req POST "$G/v1beta1/namespaces/default/crontabs" '{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"old"},"spec":{"cronSpec":"* * * * *","free":{"form":true}}}'
check "a v1beta1 object is created" code_is 201
check "with the deprecated version's warning" grep -q 'stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab' "$HDR"
check "and stored as v1" \
    bash -c "[[ \$(ETCDCTL_API=3 etcdctl --endpoints=$KGATE_TEST_ETCD get $PREFIX/stable.example.com/crontabs/default/old --print-value-only) == *'\"apiVersion\":\"stable.example.com/v1\"'* ]]"
req GET "$NS/old"
check "read as v1 it is v1, pruned by v1's schema and defaulted" \
    jpy "d['apiVersion'] == 'stable.example.com/v1' and d['spec'].get('replicas') == 1"
req GET "$G/v1beta1/namespaces/default/crontabs"
check "listed as v1beta1 every item is v1beta1" \
    jpy "d['apiVersion'] == 'stable.example.com/v1beta1' and {i['apiVersion'] for i in d['items']} == {'stable.example.com/v1beta1'}"

# an object stored in an older storage version is served in the version asked for
storage_is() {
    req PATCH "$CRDS/crontabs.stable.example.com" "[{\"op\":\"replace\",\"path\":\"/spec/versions/0/storage\",\"value\":$1},{\"op\":\"replace\",\"path\":\"/spec/versions/1/storage\",\"value\":$2}]" application/json-patch+json
}
storage_is true false
check "the storage version moves to v1beta1" jpy "d['status']['storedVersions'] == ['v1', 'v1beta1']"
stored_beta() {
    for _ in $(seq 50); do
        req DELETE "$NS/s"
        req POST "$NS" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"s"},"spec":{"cronSpec":"* * * * *"}}'
        [[ $(ETCDCTL_API=3 etcdctl --endpoints=$KGATE_TEST_ETCD get $PREFIX/stable.example.com/crontabs/default/s --print-value-only) == *'"apiVersion":"stable.example.com/v1beta1"'* ]] && return 0
        sleep 0.1
    done
    return 1
}
check "an object is then stored as v1beta1" stored_beta
storage_is false true
check "and back to v1" code_is 200
served_v1() {
    for _ in $(seq 50); do
        req GET "$NS/s"
        jpy "d['apiVersion'] == 'stable.example.com/v1'" >/dev/null && return 0
        sleep 0.1
    done
    return 1
}
check "the v1beta1-stored object reads as v1" served_v1
req GET "$NS"
check "and lists as v1" jpy "{i['apiVersion'] for i in d['items']} == {'stable.example.com/v1'}"

# watch
kcurl "${ADMIN[@]}" -N --max-time 3 "$KGATE_URL$NS?watch=1&resourceVersion=0" >"$KGATE_TEST_TMP/watch" &
WATCH=$!
sleep 0.5
req POST "$NS" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"w"},"spec":{"cronSpec":"* * * * *"}}'
wait "$WATCH"
check "a watch sees the objects, defaulted" python3 - "$KGATE_TEST_TMP/watch" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
names = [(e['type'], e['object']['metadata']['name']) for e in ev]
ok = ('ADDED', 'w') in names and all(e['object']['spec'].get('replicas') is not None for e in ev)
print("# events: %r" % names) if not ok else None
sys.exit(0 if ok else 1)
PY

# kubectl
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    check "kubectl get ct lists them" k get ct
    check "with their names" has "old"
    check "kubectl scale works" k scale crontab a --replicas=3
    check "kubectl reads the scaled replicas" k get crontab a -o 'jsonpath={.spec.replicas}'
    check "as 3" has 3
    check "kubectl explain reads the schema" k explain crontab.spec.replicas
    check "with its type" has "FIELD: replicas <integer>"
    check "kubectl patch (strategic by default) is refused" bash -c "! kubectl patch crontab a -p '{\"spec\":{\"image\":\"k\"}}' 2>&1 | grep -q patched"
fi

# admission policies match custom resources and type-check against their schema
ADM=/apis/admissionregistration.k8s.io/v1
req POST $ADM/validatingadmissionpolicies '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"few"},"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["stable.example.com"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["crontabs"]}]},"validations":[{"expression":"object.spec.replicas <= 5","message":"too many"},{"expression":"object.spec.replicass > 0"}]}}'
check "a policy on crontabs is created" code_is 201
req POST $ADM/validatingadmissionpolicybindings '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"few-b"},"spec":{"policyName":"few","validationActions":["Deny"]}}'
typechecked() {
    for _ in $(seq 100); do
        req GET $ADM/validatingadmissionpolicies/few
        jpy "d.get('status', {}).get('observedGeneration') == 1" >/dev/null && return 0
        sleep 0.1
    done
    return 1
}
check "the policy is type-checked" typechecked
check "against the CRD's schema: the misspelt field is warned about" \
    jpy "d['status']['typeChecking']['expressionWarnings'][0]['fieldRef'] == 'spec.validations[1].expression' and \"undefined field 'replicass'\" in d['status']['typeChecking']['expressionWarnings'][0]['warning'] and 'stable.example.com/v1, Kind=CronTab' in d['status']['typeChecking']['expressionWarnings'][0]['warning']"
denied() {
    for _ in $(seq 50); do
        req POST "$NS" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"many"},"spec":{"cronSpec":"* * * * *","replicas":7}}'
        [[ $CODE == 422 ]] && return 0
        req DELETE "$NS/many"
        sleep 0.1
    done
    return 1
}
check "a custom object the policy denies is 422" denied
check "in the policy's words" is_status 422 Invalid \
    "crontabs.stable.example.com \"many\" is forbidden: ValidatingAdmissionPolicy 'few' with binding 'few-b' denied request: too many"
req DELETE $ADM/validatingadmissionpolicybindings/few-b
req DELETE $ADM/validatingadmissionpolicies/few

# a namespace's deletion empties its custom resources too
req POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}'
req POST "$G/v1/namespaces/team/crontabs" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"t"},"spec":{"cronSpec":"* * * * *"}}'
check "a custom object is created in namespace team" code_is 201
req DELETE /api/v1/namespaces/team
check "the namespace deletion removes it, then the namespace" wait_code /api/v1/namespaces/team 404 20
check "... and etcd holds nothing of team's" \
    bash -c "[[ -z \$(ETCDCTL_API=3 etcdctl --endpoints=$KGATE_TEST_ETCD get $PREFIX/stable.example.com/crontabs/team/ --prefix --keys-only) ]]"

# deleting the CRD removes its objects and its discovery, on every instance
# validation ratcheting: a value the schema no longer allows may stay while it is unchanged
req POST "$NS" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"r"},"spec":{"cronSpec":"* * * * *","replicas":8}}'
req PATCH "$CRDS/crontabs.stable.example.com" '[{"op":"replace","path":"/spec/versions/1/schema/openAPIV3Schema/properties/spec/properties/replicas/maximum","value":5}]' application/json-patch+json
check "the CRD's maximum is lowered to 5" code_is 200
stricter() {
    for _ in $(seq 50); do
        req POST "$NS?dryRun=All" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"probe"},"spec":{"cronSpec":"* * * * *","replicas":6}}'
        [[ $CODE == 422 ]] && return 0
        sleep 0.1
    done
    return 1
}
check "new objects get the new maximum" stricter
req PATCH "$NS/r" '{"spec":{"image":"new"}}' application/merge-patch+json
check "an update leaving replicas 8 unchanged is accepted" code_is 200
req PATCH "$NS/r" '{"spec":{"replicas":9}}' application/merge-patch+json
check "changing it to another invalid value is 422" \
    jpy "d['code'] == 422 and d['details']['causes'][0]['field'] == 'spec.replicas'"

req POST "$NS" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"held","finalizers":["example.com/hold"]},"spec":{"cronSpec":"* * * * *"}}'
req DELETE "$CRDS/crontabs.stable.example.com"
check "the CRD delete is accepted" code_is 200
refused() {
    for _ in $(seq 50); do
        req POST "$NS" '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"late"},"spec":{"cronSpec":"* * * * *"}}'
        [[ $CODE == 405 ]] && return 0
        sleep 0.1
    done
    diag "$(head -c 600 "$OUT")"
    return 1
}
check "while an object's finalizer holds the CRD, creates are 405" refused
check "in kube's words" is_status 405 MethodNotAllowed "create not allowed while custom resource definition is terminating"
req PATCH "$NS/held" '{"metadata":{"finalizers":null}}' application/merge-patch+json
gone() {
    for _ in $(seq 100); do
        req GET "$CRDS/crontabs.stable.example.com"
        [[ $CODE == 404 ]] && return 0
        sleep 0.1
    done
    diag "$(head -c 800 "$OUT")"
    return 1
}
check "the CRD goes once its objects are deleted" gone
check "etcd holds no custom object" \
    bash -c "[[ -z \$(ETCDCTL_API=3 etcdctl --endpoints=$KGATE_TEST_ETCD get $PREFIX/stable.example.com/ --prefix --keys-only) ]]"
on b
check "b stops serving the group" wait_code "$G/v1" 404 2
on a
check "a stops serving the group" wait_code "$G/v1" 404 2
tap_end
