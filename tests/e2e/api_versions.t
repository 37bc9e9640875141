#!/usr/bin/env bash
# Every served version of a kind is a view of one stored object: objects written through any
# version are stored once, in kube-apiserver 1.32's storage version, and read, listed, watched,
# updated and patched through every other version with kube's conversions (core Event and
# events.k8s.io/v1, autoscaling v1 and v2, the betas and alphas --runtime-config enables beside
# their storage version). Each pair round-trips without loss: an object read through one
# version and written back unchanged through it changes nothing.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/watch_lib.sh
e2e_require api_versions

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
PREFIX=/registry-versions-$$
check "kgate starts with every version on" api_start versions --workers=2 \
    --runtime-config=api/all=true

EV1=/api/v1/namespaces/default/events
EV2=/apis/events.k8s.io/v1/namespaces/default/events
HPA1=/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers
HPA2=/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers
ADM=/apis/admissionregistration.k8s.io
DRA=/apis/resource.k8s.io
VAC=/apis/storage.k8s.io

# stored_av KEY: the apiVersion of the object etcd holds at KEY (under this kgate's prefix).
stored_av() {
    stored "$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["apiVersion"])'
}

# same_as FILE: $OUT holds the same document as FILE (a diff of both is shown when not).
same_as() {
    python3 - "$1" "$OUT" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
if a != b:
    print("# before: %s\n# after:  %s" % (json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True)))
    sys.exit(1)
PY
}

# unchanged_put PATH NAME WHAT: GET PATH/NAME, PUT it back as read, and require that nothing
# changed (same resourceVersion) and that it reads back the same.
unchanged_put() {
    local path=$1 name=$2 what=$3 before=$KGATE_TEST_TMP/before.json
    req GET "$path/$name"
    cp "$OUT" "$before"
    req PUT "$path/$name" "$(cat "$before")"
    check "$what: PUT back as read: 200" code_is 200
    check "$what: ... and nothing was written (same resourceVersion)" \
        jpy "d['metadata']['resourceVersion'] == $(python3 -c "import json; print(repr(json.load(open('$before'))['metadata']['resourceVersion']))")"
    req GET "$path/$name"
    check "$what: ... and it reads back the same" same_as "$before"
}

# pair WHAT FROM TO NAME KEY BODY FROM_EXPR TO_EXPR: POST BODY through collection FROM; the
# object is stored at KEY in TO's version when TO is the storage version (else FROM's), its
# answers through FROM pass FROM_EXPR and through TO pass TO_EXPR (Python over d); then the
# round trips through both versions.
pair() {
    local what=$1 from=$2 to=$3 name=$4 key=$5 body=$6 from_expr=$7 to_expr=$8 hub=${9}
    local from_av to_av
    from_av=$(sed -E 's,^/api/,,; s,^/apis/,,; s,/namespaces/.*,,; s,/[a-z]+$,,' <<<"$from")
    to_av=$(sed -E 's,^/api/,,; s,^/apis/,,; s,/namespaces/.*,,; s,/[a-z]+$,,' <<<"$to")
    req POST "$from" "$body"
    check "$what: created through $from_av" code_is 201
    check "$what: the answer is $from_av" jpy "d['apiVersion'] == '$from_av' and ($from_expr)"
    check "$what: stored as $hub" eval '[[ $(stored_av "$key") == "$hub" ]]'
    req GET "$to/$name"
    check "$what: GET through $to_av converts" jpy "d['apiVersion'] == '$to_av' and ($to_expr)"
    req GET "$to"
    check "$what: LIST through $to_av converts" jpy "[(lambda d: d['apiVersion'] == '$to_av' \
and ($to_expr))(dict(i, apiVersion='$to_av')) for i in d['items'] if i['metadata']['name'] == '$name'] == [True] \
and d['apiVersion'] == '$to_av'"
    req GET "$from/$name"
    check "$what: GET through $from_av" jpy "d['apiVersion'] == '$from_av' and ($from_expr)"
    unchanged_put "$to" "$name" "$what through $to_av"
    unchanged_put "$from" "$name" "$what through $from_av"
}

# ---- core Event <-> events.k8s.io/v1 ---------------------------------------------------------
pair "an events.k8s.io Event" "$EV2" "$EV1" e1 events/default/e1 \
    '{"metadata":{"name":"e1"},"eventTime":"2026-11-28T10:00:00.000000Z","reportingController":
"example.com/ctl","reportingInstance":"ctl-1","action":"Scheduling","reason":"Started","note":"hello",
"type":"Normal","regarding":{"kind":"Pod","name":"p1","namespace":"default"},
"series":{"count":2,"lastObservedTime":"2026-11-28T10:01:00.000000Z"}}' \
    "d['note'] == 'hello' and d['regarding']['name'] == 'p1' and \
d['reportingController'] == 'example.com/ctl' and 'message' not in d and \
d['deprecatedFirstTimestamp'] is None and d['deprecatedSource'] == {}" \
    "d['message'] == 'hello' and d['involvedObject']['name'] == 'p1' and \
d['reportingComponent'] == 'example.com/ctl' and d['reportingInstance'] == 'ctl-1' and \
d['series']['count'] == 2 and d['source'] == {} and d['firstTimestamp'] is None and 'note' not in d" \
    v1
pair "a core Event" "$EV1" "$EV2" e2 events/default/e2 \
    '{"metadata":{"name":"e2"},"involvedObject":{"kind":"Node","name":"n1"},"reason":"Rebooted",
"message":"node rebooted","source":{"component":"kubelet","host":"n1"},"count":3,
"firstTimestamp":"2026-11-28T09:00:00Z","lastTimestamp":"2026-11-28T09:30:00Z","type":"Warning"}' \
    "d['message'] == 'node rebooted' and d['count'] == 3 and d['source']['host'] == 'n1'" \
    "d['note'] == 'node rebooted' and d['deprecatedCount'] == 3 and \
d['deprecatedSource'] == {'component': 'kubelet', 'host': 'n1'} and \
d['deprecatedFirstTimestamp'] == '2026-11-28T09:00:00Z' and d['regarding']['kind'] == 'Node' and \
d['eventTime'] is None and 'involvedObject' not in d" \
    v1

# A merge patch through one version changes what the other reads (the note is immutable
# through events.k8s.io/v1: kube's strict update rules).
req PATCH "$EV1/e2" '{"message":"patched"}' application/merge-patch+json
check "PATCH message through core/v1" code_is 200
req GET "$EV2/e2"
check "... the events.k8s.io Event's note changed" \
    jpy "d['note'] == 'patched' and d['deprecatedCount'] == 3"

# Field selectors of events.k8s.io/v1 read the stored core fields.
req GET "$EV2?fieldSelector=regarding.name=n1"
check "events.k8s.io field selector regarding.name" \
    jpy "[i['metadata']['name'] for i in d['items']] == ['e2']"

# kube's Event validation, on the core form whatever the version written through.
req POST "$EV2" '{"metadata":{"name":"bad"},"eventTime":"2026-11-28T10:00:00.000000Z",
"reason":"R","type":"Bogus","regarding":{"kind":"Pod","name":"p1","namespace":"default"},
"series":{"count":1,"lastObservedTime":"2026-11-28T10:00:00.000000Z"},
"deprecatedCount":2}'
check "an events.k8s.io Event without its reporting fields: 422 in kube's order, core field names" \
    jpy "d['code'] == 422 and [(c['field'], c['reason']) for c in d['details']['causes']] == [
('reportingController', 'FieldValueRequired'), ('reportingController', 'FieldValueInvalid'),
('reportingController', 'FieldValueInvalid'), ('reportingInstance', 'FieldValueRequired'),
('action', 'FieldValueRequired'), ('series.count', 'FieldValueInvalid'),
('type', 'FieldValueInvalid'), ('count', 'FieldValueInvalid')] and \
'type: Invalid value: \"\": has invalid value: Bogus' in d['message'] and \
'count: Invalid value: \"\": needs to be unset' in d['message']"
req GET "$EV2/bad"
check "... and nothing was stored" code_is 404
req POST "$EV1" '{"metadata":{"name":"elsewhere"},"involvedObject":{"kind":"Pod","name":"p",
"namespace":"kube-system"},"reason":"R","message":"m"}'
check "a core Event about an object of another namespace" is_status 422 Invalid \
    'Event "elsewhere" is invalid: involvedObject.namespace: Invalid value: "kube-system": does not match event.namespace'
req PATCH "$EV2/e1" '{"action":"Other"}' application/merge-patch+json
check "an events.k8s.io update may not change the action" is_status 422 Invalid \
    'Event.events.k8s.io "e1" is invalid: action: Invalid value: "Other": field is immutable'
req PATCH "$EV1/e1" '{"action":"Other"}' application/merge-patch+json
check "... a core one may (no strict rules for core/v1)" code_is 200
req PATCH "$EV1/e1" '{"action":"Scheduling"}' application/merge-patch+json

# ---- watches of a converted version ---------------------------------------------------------
req GET "$EV2"
rv=$(rv_of)
watch_start ev2 "$EV2?watch=1&resourceVersion=$rv"
watch_start ev2pb "$EV2?watch=1&resourceVersion=$rv" -H 'Accept: application/vnd.kubernetes.protobuf'
watch_start ev1 "$EV1?watch=1&resourceVersion=$rv"
req PATCH "$EV1/e1" '{"message":"again"}' application/merge-patch+json
check "PATCH through core" code_is 200
check "the events.k8s.io watch sees MODIFIED" wait_events ev2 1
check "... as events.k8s.io/v1 with the new note" python3 - "$KGATE_TEST_TMP/watch-ev2" <<'PY'
import json, sys
e = json.loads(open(sys.argv[1]).readline())
o = e["object"]
ok = (e["type"] == "MODIFIED" and o["apiVersion"] == "events.k8s.io/v1" and o["note"] == "again"
      and "message" not in o and o["regarding"]["name"] == "p1")
print("" if ok else "# %s" % json.dumps(e))
sys.exit(0 if ok else 1)
PY
wait_events ev1 1
head -1 "$KGATE_TEST_TMP/watch-ev1" >"$KGATE_TEST_TMP/ev1.json"
check "the core watch sees it as core v1" \
    jpy "d['object']['apiVersion'] == 'v1' and d['object']['message'] == 'again'" "$KGATE_TEST_TMP/ev1.json"
check "the protobuf watch of events.k8s.io/v1 frames it as events.k8s.io/v1" \
    eval 'for _ in $(seq 50); do grep -q "events.k8s.io/v1" "$KGATE_TEST_TMP/watch-ev2pb" && break; sleep 0.1; done; grep -q "events.k8s.io/v1" "$KGATE_TEST_TMP/watch-ev2pb"'
watch_stop ev2
watch_stop ev2pb
watch_stop ev1

# Protobuf and Table answers of a converted version.
fetch "$EV2/e1" "${ADMIN[@]}" -H 'Accept: application/vnd.kubernetes.protobuf'
check "protobuf GET through events.k8s.io/v1: 200, the envelope names events.k8s.io/v1" \
    eval '[[ $CODE == 200 ]] && grep -q "events.k8s.io/v1" "$OUT" && ! grep -q "involvedObject" "$OUT"'
fetch "$EV2" "${ADMIN[@]}" -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io'
check "a Table of events.k8s.io/v1 lists both with the event columns kube prints for every version" \
    jpy "d['kind'] == 'Table' and len(d['rows']) == 2 and [c['name'] for c in \
d['columnDefinitions']][:7] == ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', \
'Message'] and sorted(r['cells'][6] for r in d['rows']) == ['again', 'patched']"
fetch "$EV2?includeObject=Object" "${ADMIN[@]}" -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io'
check "... whose rows hold the events.k8s.io/v1 objects" \
    jpy "all(r['object']['apiVersion'] == 'events.k8s.io/v1' and 'note' in r['object'] for r in d['rows'])"

# ---- autoscaling v1 <-> v2 -------------------------------------------------------------------
TARGET='"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}'
pair "an autoscaling/v1 HPA" "$HPA1" "$HPA2" h1 horizontalpodautoscalers/default/h1 \
    "{\"metadata\":{\"name\":\"h1\"},\"spec\":{$TARGET,\"minReplicas\":2,\"maxReplicas\":5,
\"targetCPUUtilizationPercentage\":50}}" \
    "d['spec']['targetCPUUtilizationPercentage'] == 50 and 'annotations' not in d['metadata']" \
    "d['spec']['metrics'] == [{'type': 'Resource', 'resource': {'name': 'cpu', 'target': \
{'type': 'Utilization', 'averageUtilization': 50}}}] and d['spec']['minReplicas'] == 2" \
    autoscaling/v2
pair "an autoscaling/v1 HPA without a CPU target" "$HPA1" "$HPA2" h0 \
    horizontalpodautoscalers/default/h0 \
    "{\"metadata\":{\"name\":\"h0\"},\"spec\":{$TARGET,\"maxReplicas\":5}}" \
    "d['spec']['targetCPUUtilizationPercentage'] == 80 and d['spec']['minReplicas'] == 1" \
    "d['spec']['metrics'][0]['resource']['target'] == {'type': 'Utilization', \
'averageUtilization': 80}" \
    autoscaling/v2
pair "an autoscaling/v2 HPA with what v1 cannot say" "$HPA2" "$HPA1" h2 \
    horizontalpodautoscalers/default/h2 \
    "{\"metadata\":{\"name\":\"h2\"},\"spec\":{$TARGET,\"maxReplicas\":4,\"metrics\":[
{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"target\":{\"type\":\"AverageValue\",\"averageValue\":\"100Mi\"}}},
{\"type\":\"Pods\",\"pods\":{\"metric\":{\"name\":\"qps\"},\"target\":{\"type\":\"AverageValue\",\"averageValue\":\"10\"}}},
{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"target\":{\"type\":\"Utilization\",\"averageUtilization\":70}}}],
\"behavior\":{\"scaleDown\":{\"stabilizationWindowSeconds\":60}}}}" \
    "len(d['spec']['metrics']) == 3 and d['spec']['behavior']['scaleDown']['stabilizationWindowSeconds'] == 60" \
    "d['spec']['targetCPUUtilizationPercentage'] == 70 and \
'autoscaling.alpha.kubernetes.io/metrics' in d['metadata']['annotations'] and \
'autoscaling.alpha.kubernetes.io/behavior' in d['metadata']['annotations']" \
    autoscaling/v2
# The v1 view's annotations carry the other metrics back: a PUT through v1 that changes only
# the CPU target keeps them.
req GET "$HPA1/h2"
body=$(jget "dict(d, spec=dict(d['spec'], targetCPUUtilizationPercentage=60))")
req PUT "$HPA1/h2" "$body"
check "PUT through v1 with a new CPU target" code_is 200
req GET "$HPA2/h2"
check "... v2 shows it, the other metrics and the behavior kept" jpy "sorted((m['type'], \
(m.get('resource') or {}).get('name')) for m in d['spec']['metrics']) == [('Pods', None), \
('Resource', 'cpu'), ('Resource', 'memory')] and [m for m in d['spec']['metrics'] if \
m['type'] == 'Resource' and m['resource']['name'] == 'cpu'][0]['resource']['target']\
['averageUtilization'] == 60 and d['spec']['behavior']['scaleDown']['stabilizationWindowSeconds'] == 60 \
and 'annotations' not in d['metadata']"

# v2 never carries the round-trip annotations: kube's decoding of a v2 HPA drops them.
req POST "$HPA2" "{\"metadata\":{\"name\":\"h3\",\"annotations\":{\"a\":\"b\",
\"autoscaling.alpha.kubernetes.io/metrics\":\"[]\",\"autoscaling.alpha.kubernetes.io/conditions\":\"x\"}},
\"spec\":{$TARGET,\"maxReplicas\":2}}"
check "a v2 HPA written with v1's round-trip annotations: created" code_is 201
check "... without them" jpy "d['metadata']['annotations'] == {'a': 'b'}"
check "... and stored without them" eval '[[ $(stored horizontalpodautoscalers/default/h3) != *autoscaling.alpha* ]]'

# ---- betas and alphas beside their storage version -------------------------------------------
VAP_SPEC='"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":[""],
"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
"validations":[{"expression":"object.metadata.name != \"bad\""}]}'
pair "a v1beta1 ValidatingAdmissionPolicy" "$ADM/v1beta1/validatingadmissionpolicies" \
    "$ADM/v1/validatingadmissionpolicies" p1 validatingadmissionpolicies/p1 \
    "{\"metadata\":{\"name\":\"p1\"},$VAP_SPEC}" \
    "d['spec']['validations'][0]['expression'].startswith('object')" \
    "d['spec']['failurePolicy'] == 'Fail'" admissionregistration.k8s.io/v1
pair "a v1 ValidatingAdmissionPolicyBinding" "$ADM/v1/validatingadmissionpolicybindings" \
    "$ADM/v1beta1/validatingadmissionpolicybindings" b1 validatingadmissionpolicybindings/b1 \
    '{"metadata":{"name":"b1"},"spec":{"policyName":"p1","validationActions":["Deny"]}}' \
    "d['spec']['policyName'] == 'p1'" "d['spec']['validationActions'] == ['Deny']" \
    admissionregistration.k8s.io/v1
pair "a v1alpha3 DeviceClass" "$DRA/v1alpha3/deviceclasses" "$DRA/v1beta1/deviceclasses" dc \
    deviceclasses/dc '{"metadata":{"name":"dc"},"spec":{"selectors":[{"cel":{"expression":"true"}}]}}' \
    "d['spec']['selectors'][0]['cel']['expression'] == 'true'" \
    "d['spec']['selectors'][0]['cel']['expression'] == 'true'" resource.k8s.io/v1beta1
pair "a v1alpha3 ResourceSlice" "$DRA/v1alpha3/resourceslices" "$DRA/v1beta1/resourceslices" rs \
    resourceslices/rs '{"metadata":{"name":"rs"},"spec":{"driver":"gpu.example.com","nodeName":"n1",
"pool":{"name":"p","generation":1,"resourceSliceCount":1},
"devices":[{"name":"g0","basic":{"capacity":{"memory":"16Gi"}}}]}}' \
    "d['spec']['devices'][0]['basic']['capacity'] == {'memory': '16Gi'}" \
    "d['spec']['devices'][0]['basic']['capacity'] == {'memory': {'value': '16Gi'}}" \
    resource.k8s.io/v1beta1
pair "a v1beta1 ResourceClaim" "$DRA/v1beta1/namespaces/default/resourceclaims" \
    "$DRA/v1alpha3/namespaces/default/resourceclaims" rc resourceclaims/default/rc \
    '{"metadata":{"name":"rc"},"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"dc"}]}}}' \
    "d['spec']['devices']['requests'][0]['name'] == 'r'" \
    "d['spec']['devices']['requests'][0]['deviceClassName'] == 'dc'" resource.k8s.io/v1beta1
pair "a v1alpha3 ResourceClaimTemplate" "$DRA/v1alpha3/namespaces/default/resourceclaimtemplates" \
    "$DRA/v1beta1/namespaces/default/resourceclaimtemplates" rct resourceclaimtemplates/default/rct \
    '{"metadata":{"name":"rct"},"spec":{"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"dc"}]}}}}' \
    "d['spec']['spec']['devices']['requests'][0]['name'] == 'r'" \
    "d['spec']['spec']['devices']['requests'][0]['name'] == 'r'" resource.k8s.io/v1beta1
pair "a v1alpha1 VolumeAttributesClass" "$VAC/v1alpha1/volumeattributesclasses" \
    "$VAC/v1beta1/volumeattributesclasses" gold volumeattributesclasses/gold \
    '{"metadata":{"name":"gold"},"driverName":"csi.example.com","parameters":{"iops":"3000"}}' \
    "d['parameters'] == {'iops': '3000'}" "d['driverName'] == 'csi.example.com'" \
    storage.k8s.io/v1beta1

check "kgate exits cleanly" clean_exit
tap_end
