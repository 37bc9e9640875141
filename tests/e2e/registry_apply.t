#!/usr/bin/env bash
# Server-side apply and field ownership over HTTP, as kube-apiserver answers them: apply
# creates and patches, managedFields on every write (Apply and Update entries, the manager
# from fieldManager or the User-Agent), conflicts and force, shared ownership, giving fields
# up, atomic maps, PUT transferring ownership, clearing managedFields, the status
# subresource, and the bad requests (no fieldManager, force without apply, managedFields or a
# wrong apiVersion in the body, unknown and duplicate fields per fieldValidation).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_apply

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start apply --workers=2
APPLY=application/apply-patch+yaml
MERGE=application/merge-patch+json

# apply PATH MANAGER BODY [QUERY]: a server-side apply as the admin.
apply() { req PATCH "$1?fieldManager=$2${4:+&$4}" "$3" "$APPLY"; }
# entry MANAGER: python for the managedFields entry of MANAGER in the answer d.
entry() { echo "[e for e in d['metadata'].get('managedFields', []) if e['manager'] == '$1']"; }
# owns MANAGER FIELDSV1-PYTHON: MANAGER's one entry has exactly these fieldsV1.
owns() { jpy "len($(entry "$1")) == 1 and $(entry "$1")[0]['fieldsV1'] == $2"; }
# gone MANAGER: MANAGER has no entry.
gone() { jpy "$(entry "$1") == []"; }

CM1='apiVersion: v1
kind: ConfigMap
metadata:
  name: a1
  labels: {team: x}
data:
  k: v
  shared: s'

# ---- apply creates, and records an Apply entry ------------------------------------------------
apply $CORE/configmaps/a1 alice "$CM1"
check "apply on a missing object creates it (201)" code_is 201
check "... with the configuration's content" jpy "d['data'] == {'k': 'v', 'shared': 's'} and \
d['metadata']['labels'] == {'team': 'x'}"
check "... and one Apply entry for alice" jpy "[(e['manager'], e['operation'], e['apiVersion'], \
e['fieldsType']) for e in d['metadata']['managedFields']] == [('alice', 'Apply', 'v1', 'FieldsV1')]"
check "... stamped with a time" jpy "len($(entry alice)[0]['time']) == 20"
check "... owning the fields it applied" owns alice "{'f:data': {'f:k': {}, 'f:shared': {}}, \
'f:metadata': {'f:labels': {'f:team': {}}}}"
req GET $CORE/configmaps/a1
check "... which GET shows too" owns alice "{'f:data': {'f:k': {}, 'f:shared': {}}, \
'f:metadata': {'f:labels': {'f:team': {}}}}"
rv=$(jget "d['metadata']['resourceVersion']")
apply $CORE/configmaps/a1 alice "$CM1"
check "applying the same configuration again is 200" code_is 200
check "... and writes nothing" jpy "d['metadata']['resourceVersion'] == '$rv'"

# ---- conflicts and force ------------------------------------------------------------------------
apply $CORE/configmaps/a1 bob 'apiVersion: v1
kind: ConfigMap
metadata: {name: a1}
data: {k: other}'
check "another manager changing an owned value conflicts (409)" is_status 409 Conflict \
    'Apply failed with 1 conflict: conflict with "alice": .data.k'
check "... with a FieldManagerConflict cause naming the field" jpy "d['details']['causes'] == \
[{'reason': 'FieldManagerConflict', 'message': 'conflict with \"alice\"', 'field': '.data.k'}]"
req GET $CORE/configmaps/a1
check "... and nothing changed" jpy "d['data']['k'] == 'v' and d['metadata']['resourceVersion'] == '$rv'"
apply $CORE/configmaps/a1 bob 'apiVersion: v1
kind: ConfigMap
metadata: {name: a1}
data: {k: other}' force=true
check "force=true takes the field (200)" code_is 200
check "... the value is bob's" jpy "d['data']['k'] == 'other'"
check "... bob owns it" owns bob "{'f:data': {'f:k': {}}}"
check "... and alice no longer does" owns alice "{'f:data': {'f:shared': {}}, 'f:metadata': \
{'f:labels': {'f:team': {}}}}"

apply $CORE/configmaps/a1 carol 'apiVersion: v1
kind: ConfigMap
metadata: {name: a1}
data: {shared: s}'
check "a manager applying the same value shares ownership (200)" code_is 200
check "... both own it" jpy "'f:shared' in $(entry alice)[0]['fieldsV1']['f:data'] and \
'f:shared' in $(entry carol)[0]['fieldsV1']['f:data']"
apply $CORE/configmaps/a1 carol 'apiVersion: v1
kind: ConfigMap
metadata: {name: a1}
data: {shared: changed}'
check "... then changing it conflicts with the co-owner" is_status 409 Conflict \
    'Apply failed with 1 conflict: conflict with "alice": .data.shared'

# ---- giving fields up -----------------------------------------------------------------------------
apply $CORE/configmaps/a1 alice 'apiVersion: v1
kind: ConfigMap
metadata: {name: a1}
data: {shared: s}'
check "alice applies without her label" code_is 200
check "... the label nobody else owns is removed" jpy "'team' not in d['metadata'].get('labels', {})"
check "... and shared stays" jpy "d['data'] == {'k': 'other', 'shared': 's'}"
apply $CORE/configmaps/a1 alice 'apiVersion: v1
kind: ConfigMap
metadata: {name: a1}'
check "alice gives up shared too" code_is 200
check "... carol still owns it, so it stays" jpy "d['data'] == {'k': 'other', 'shared': 's'}"

# ---- updates: the manager, Update entries, ownership moving ---------------------------------------
req POST $CORE/configmaps "$(cm u1)"
check "a create records an Update entry" jpy "[(e['manager'], e['operation']) for e in \
d['metadata']['managedFields']] == [('curl', 'Update')]"
check "... for the User-Agent's product (curl/x.y -> curl), owning data and name-less metadata" \
    owns curl "{'f:data': {'.': {}, 'f:k': {}}}"
OUT=$KGATE_TEST_TMP/body
CODE=$(kcurl "${ADMIN[@]}" -o "$OUT" -w '%{http_code}' -X PATCH -H "Content-Type: $MERGE" \
    -H 'User-Agent: my-ctl/1.2 (linux)' --data-binary '{"data":{"n":"1"}}' \
    "$KGATE_URL$CORE/configmaps/u1")
check "a patch from another client adds its own Update entry" owns my-ctl "{'f:data': {'f:n': {}}}"
req PATCH "$CORE/configmaps/u1?fieldManager=named" '{"data":{"k":"v2"}}' $MERGE
check "fieldManager names the manager; the changed field moves to it" owns named \
    "{'f:data': {'f:k': {}}}"
check "... and leaves the creator owning the data map itself" owns curl "{'f:data': {}}"
apply $CORE/configmaps/u1 alice 'apiVersion: v1
kind: ConfigMap
metadata: {name: u1}
data: {k: v9}'
check "an apply over an Update-owned field conflicts, naming the version" is_status 409 Conflict \
    'Apply failed with 1 conflict: conflict with "named" using v1: .data.k'
req GET $CORE/configmaps/u1
rv=$(jget "d['metadata']['resourceVersion']")
req PUT "$CORE/configmaps/u1?fieldManager=putter" "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\
\"metadata\":{\"name\":\"u1\",\"resourceVersion\":\"$rv\"},\"data\":{\"k\":\"v3\",\"n\":\"1\"}}"
check "a PUT never conflicts and takes what it changed" owns putter "{'f:data': {'f:k': {}}}"
check "... from its previous owner" gone named
req PATCH "$CORE/configmaps/u1?fieldManager=bad%01name" '{"data":{"k":"v4"}}' $MERGE
check "a fieldManager with a control character is 422" is_status 422 Invalid \
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "bad\x01name": invalid character U+0001 (at position 3)'
long=$(printf 'm%.0s' $(seq 129))
req PATCH "$CORE/configmaps/u1?fieldManager=$long" '{"data":{"k":"v4"}}' $MERGE
check "a fieldManager longer than 128 bytes is 422" is_status 422 Invalid \
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes'

# ---- clearing managedFields -----------------------------------------------------------------------
req PATCH $CORE/configmaps/u1 '{"metadata":{"managedFields":[]}}' $MERGE
check "setting managedFields to [] changes nothing" jpy "len(d['metadata']['managedFields']) >= 3"
req PATCH $CORE/configmaps/u1 '{"metadata":{"managedFields":[{}]},"data":{"z":"1"}}' $MERGE
check "setting them to [{}] strips them" jpy "'managedFields' not in d['metadata'] and d['data']['z'] == '1'"
req PATCH $CORE/configmaps/u1 '{"data":{"q":"1"}}' $MERGE
check "... and later updates do not start tracking again" jpy "'managedFields' not in d['metadata']"
apply $CORE/configmaps/u1 alice 'apiVersion: v1
kind: ConfigMap
metadata: {name: u1}
data: {w: "1"}'
check "an apply on an untracked object records its own fields" \
    jpy "d['data']['w'] == '1' and $(entry alice)[0]['fieldsV1'] == {'f:data': {'f:w': {}}}"
check "... and gives what was there to before-first-apply" jpy "'f:k' in \
$(entry before-first-apply)[0]['fieldsV1']['f:data']"
apply $CORE/configmaps/u1 alice 'apiVersion: v1
kind: ConfigMap
metadata: {name: u1}
data: {q: "2"}'
check "... whose fields then conflict" is_status 409 Conflict \
    'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.q'

# ---- atomic maps, status and the Deployment shape -------------------------------------------------
D='apiVersion: apps/v1
kind: Deployment
metadata: {name: d1}
spec:
  replicas: 2
  selector: {matchLabels: {app: d1}}
  template:
    metadata: {labels: {app: d1}}
    spec:
      containers:
      - {name: c, image: "nginx:1"}'
apply $APPS/deployments/d1 alice "$D"
check "a Deployment applied" code_is 201
check "... the selector (an atomic struct) is owned whole, containers by key" owns alice \
    "{'f:spec': {'f:replicas': {}, 'f:selector': {}, 'f:template': {'f:metadata': {'f:labels': \
{'f:app': {}}}, 'f:spec': {'f:containers': {'k:{\"name\":\"c\"}': {'.': {}, 'f:image': {}, \
'f:name': {}}}}}}}"
apply $APPS/deployments/d1 bob 'apiVersion: apps/v1
kind: Deployment
metadata: {name: d1}
spec:
  selector: {matchLabels: {app: d1, extra: x}}'
check "changing one key of an atomic map conflicts over the whole map" is_status 409 Conflict \
    'Apply failed with 1 conflict: conflict with "alice": .spec.selector'
apply $APPS/deployments/d1 bob 'apiVersion: apps/v1
kind: Deployment
metadata: {name: d1}
spec:
  template:
    spec:
      containers:
      - {name: side, image: "busybox:1"}'
check "another manager adds a container to the map list (no conflict)" jpy \
    "[c['name'] for c in d['spec']['template']['spec']['containers']] == ['c', 'side']"
req PATCH "$APPS/deployments/d1/status?fieldManager=ctl" \
    '{"status":{"replicas":2,"observedGeneration":1}}' $MERGE
check "a status write records an entry with subresource status" jpy \
    "[(e['operation'], e.get('subresource')) for e in $(entry ctl)] == [('Update', 'status')]"
check "... owning the status fields it set, and nothing else" jpy "set($(entry ctl)[0]['fieldsV1']) \
== {'f:status'} and {'f:observedGeneration', 'f:replicas'} <= set($(entry ctl)[0]['fieldsV1']['f:status'])"
apply $APPS/deployments/d1 alice "$D
status: {replicas: 5}"
check "status in a main-resource apply is ignored and not owned" jpy "d['status']['replicas'] == 2 \
and 'f:status' not in $(entry alice)[0]['fieldsV1']"

# ---- bad requests -----------------------------------------------------------------------------------
req PATCH $CORE/configmaps/a1 "$CM1" $APPLY
check "apply without fieldManager is 422" is_status 422 Invalid \
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'
req PATCH "$CORE/configmaps/a1?force=true" '{"data":{"k":"x"}}' $MERGE
check "force on a merge patch is 422" is_status 422 Invalid \
    'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'
apply $CORE/configmaps/a1 alice 'apiVersion: v1
kind: ConfigMap
metadata: {name: a1, managedFields: [{manager: x}]}'
check "an apply body with managedFields is 400" is_status 400 BadRequest \
    'metadata.managedFields must be nil'
apply $CORE/configmaps/a1 alice 'apiVersion: v2
kind: ConfigMap
metadata: {name: a1}'
check "an apply body of another version is 400" is_status 400 BadRequest \
    'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1'
apply $CORE/configmaps/a1 alice 'apiVersion: v1
kind: ConfigMap
metadata: {name: other}'
check "an apply body naming another object is 400" is_status 400 BadRequest \
    'the name of the object (other) does not match the name on the URL (a1)'
apply $CORE/configmaps/a1 alice '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a1"},
  "data": [1]}'
check "a mistyped field is 400" jpy "d['code'] == 400 and d['reason'] == 'BadRequest'"
apply $CORE/configmaps/a1 alice 'data: {k: [unclosed'
check "YAML that does not parse is 400" jpy "d['code'] == 400 and \
d['message'].startswith('error decoding YAML: ')"
apply $CORE/configmaps/a1 alice '[1, 2]'
check "a body that is not a map is 400" is_status 400 BadRequest \
    'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}'
BOGUS='apiVersion: v1
kind: ConfigMap
metadata: {name: a1}
bogus: 1'
apply $CORE/configmaps/a1 alice "$BOGUS" fieldValidation=Strict
check "an unknown field under Strict is 400" jpy "d['code'] == 400 and \
'unknown field \"bogus\"' in d['message']"
apply $CORE/configmaps/a1 alice "$BOGUS"
check "... under Warn it is dropped with a warning" jpy "'bogus' not in d"
check "... the warning" grep -q 'unknown field \\"bogus\\"' "$HDR"
DUP='apiVersion: v1
kind: ConfigMap
metadata: {name: a1}
data: {k: other}
data: {k: other}'
apply $CORE/configmaps/a1 bob "$DUP" fieldValidation=Strict
check "a key set twice under Strict is 400" is_status 400 BadRequest \
    'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:
  line 5: key "data" already set in map'
apply $CORE/configmaps/a1 bob "$DUP"
check "... under Warn a warning" grep -q 'line 5: key \\"data\\" already set in map' "$HDR"
req PATCH "$CORE/configmaps/new1?fieldManager=alice&dryRun=All" "$(cm new1)" $APPLY
check "a dry-run apply of a missing object answers 201" code_is 201
req GET $CORE/configmaps/new1
check "... and creates nothing" code_is 404

check "kgate exits cleanly" clean_exit
tap_end
