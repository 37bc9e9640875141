#!/usr/bin/env bash
# PUT and PATCH as kube-apiserver answers them: resourceVersion rules, immutable metadata,
# no-op updates, create-on-update, status and spec split, generation, merge and JSON patches,
# the scale and status subresources, namespaces/finalize, dry runs, and the last finalizer
# going away.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_update

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start update --workers=2
MERGE=application/merge-patch+json
JSONP=application/json-patch+json

req POST $CORE/configmaps "$(cm c1)"
rv=$(jget "d['metadata']['resourceVersion']")
uid=$(jget "d['metadata']['uid']")
created=$(jget "d['metadata']['creationTimestamp']")

# ---- PUT --------------------------------------------------------------------------------------
req PUT $CORE/configmaps/c1 "{\"metadata\":{\"name\":\"c1\",\"resourceVersion\":\"$rv\"},\
\"data\":{\"k\":\"v2\"}}"
check "PUT at the current resourceVersion is 200" code_is 200
rv2=$(jget "d['metadata']['resourceVersion']")
check "... the change is there, at a new resourceVersion" jpy "d['data'] == {'k': 'v2'} and \
int(d['metadata']['resourceVersion']) > $rv"
check "... uid and creationTimestamp are kept" jpy "d['metadata']['uid'] == '$uid' and \
d['metadata']['creationTimestamp'] == '$created'"
req PUT $CORE/configmaps/c1 "{\"metadata\":{\"name\":\"c1\",\"resourceVersion\":\"$rv\"},\
\"data\":{\"k\":\"stale\"}}"
check "PUT at a stale resourceVersion is 409" is_status 409 Conflict \
    'Operation cannot be fulfilled on configmaps "c1": the object has been modified; please apply your changes to the latest version and try again'
req PUT $CORE/configmaps/c1 '{"metadata":{"name":"c1"},"data":{"k":"v3"}}'
check "PUT without a resourceVersion is unconditional for configmaps" jpy "d['data'] == \
{'k': 'v3'}"
rv3=$(jget "d['metadata']['resourceVersion']")
req PUT $CORE/configmaps/c1 "{\"metadata\":{\"name\":\"c1\",\"resourceVersion\":\"$rv3\"},\
\"data\":{\"k\":\"v3\"}}"
check "a PUT that changes nothing writes nothing (same resourceVersion)" jpy \
    "d['metadata']['resourceVersion'] == '$rv3'"
req PUT $CORE/configmaps/c1 '{"metadata":{"name":"other"},"data":{}}'
check "a body naming another object is 400" is_status 400 BadRequest \
    'the name of the object (other) does not match the name on the URL (c1)'
req PUT $CORE/configmaps/c1 '{"metadata":{"name":"c1","namespace":"kube-system"},"data":{}}'
check "a body in another namespace is 400" is_status 400 BadRequest \
    'the namespace of the object (kube-system) does not match the namespace on the request (default)'
req PUT $CORE/configmaps/c1 '{"metadata":{"name":"c1","uid":"not-mine"},"data":{}}'
check "a changed uid is 422" is_status 422 Invalid \
    'ConfigMap "c1" is invalid: metadata.uid: Invalid value: "not-mine": field is immutable'
req PUT $CORE/configmaps/c1 '{"metadata":{"name":"c1","generation":7,"creationTimestamp":"2001-01-01T00:00:00Z"},"data":{}}'
check "generation and creationTimestamp cannot be set by a PUT" jpy "d['metadata']\
['creationTimestamp'] == '$created' and 'generation' not in d['metadata']"
req PUT $CORE/configmaps/nope '{"metadata":{"name":"nope"},"data":{}}'
check "PUT of a missing configmap is 404" is_status 404 NotFound 'configmaps "nope" not found'
req PUT /apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/r1 \
    '{"metadata":{"name":"r1"},"rules":[]}'
check "PUT of a missing role creates it (create-on-update): 201" code_is 201
check "... as a create would" jpy "len(d['metadata']['uid']) == 36 and \
d['metadata']['namespace'] == 'default'"
req PUT /apis/rbac.authorization.k8s.io/v1/namespaces/nons/roles/r1 \
    '{"metadata":{"name":"r1"},"rules":[]}'
check "... but not into a missing namespace" is_status 404 NotFound 'namespaces "nons" not found'
req PUT "$CORE/configmaps/c1?dryRun=All" '{"metadata":{"name":"c1"},"data":{"k":"dry"}}'
check "a dry-run PUT answers the new object" jpy "d['data'] == {'k': 'dry'}"
req GET $CORE/configmaps/c1
check "... and changes nothing" jpy "d['data'] == {}"

# ---- PATCH ------------------------------------------------------------------------------------
req PATCH $CORE/configmaps/c1 '{"metadata":{"labels":{"a":"b"}},"data":{"x":"1"}}' $MERGE
check "a merge patch is 200" code_is 200
check "... merged" jpy "d['metadata']['labels'] == {'a': 'b'} and d['data'] == {'x': '1'}"
req PATCH $CORE/configmaps/c1 '{"metadata":{"labels":{"a":null}}}' $MERGE
check "null removes a member" jpy "d['metadata'].get('labels', {}) == {}"
req PATCH $CORE/configmaps/c1 '[{"op":"add","path":"/data/y","value":"2"}]' $JSONP
check "a JSON patch is 200" jpy "d['data'] == {'x': '1', 'y': '2'}"
req PATCH $CORE/configmaps/c1 '[{"op":"test","path":"/data/y","value":"9"}]' $JSONP
check "a failing test op is 422" jpy "d['code'] == 422 and d['reason'] == 'Invalid' and \
d['message'] == 'the server rejected our request due to an error in our request' and \
d['details']['causes'][0]['reason'] == 'UnexpectedServerResponse'"
req PATCH $CORE/configmaps/c1 '{"op":"add"}' $JSONP
check "a JSON patch that is not a list is 400" jpy "d['code'] == 400"
req PATCH $CORE/configmaps/c1 'not json' $MERGE
check "a merge patch that is not JSON is 400 in encoding/json's words" is_status 400 BadRequest \
    "error decoding patch: invalid character 'o' in literal null (expecting 'u')"
req PATCH "$CORE/configmaps/c1?fieldValidation=Ignore" 'not json' $MERGE
check "... the patch library's words without field validation" is_status 400 BadRequest \
    'Invalid JSON Patch'
req PATCH $CORE/configmaps/nope 'not json' $MERGE
check "... but a missing object is 404 first, as kube reads the patch once it holds the object" \
    is_status 404 NotFound 'configmaps "nope" not found'
req PATCH $CORE/configmaps/c1 '[{"op":"add"}]' $MERGE
check "a merge patch that is not an object is 400" is_status 400 BadRequest \
    'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'
req PATCH "$CORE/configmaps/c1?fieldValidation=Ignore" '"x"' $MERGE
check "... the patch library's words without field validation" is_status 400 BadRequest \
    'Invalid JSON Patch'
req PATCH $CORE/configmaps/c1 'null' $MERGE
check "... and a null merge patch, which decodes, is refused by the patch library" \
    is_status 400 BadRequest 'Invalid JSON Patch'
req PATCH $CORE/configmaps/c1 '[{"op":"add","path":"/data/y","value":"2"}' $JSONP
check "a JSON patch that is not JSON is 400 in encoding/json's words" is_status 400 BadRequest \
    'error decoding patch: unexpected end of JSON input'
req PATCH "$CORE/configmaps/c1?fieldValidation=Ignore" '[1,]' $JSONP
check "... the patch library's words without field validation" is_status 400 BadRequest \
    "invalid character ']' looking for beginning of value"
req PATCH $CORE/configmaps/c1 '{"op":"add"}' $JSONP
check "a JSON patch that is not a list: sigs.k8s.io/json's words for kube's op type" \
    is_status 400 BadRequest \
    'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'
req PATCH "$CORE/configmaps/c1?fieldValidation=Ignore" '{"op":"add"}' $JSONP
check "... the patch library's words without field validation" is_status 400 BadRequest \
    'json: cannot unmarshal object into Go value of type jsonpatch.Patch'
req PATCH $CORE/configmaps/c1 '[1]' $JSONP
check "... nor a list of objects" is_status 400 BadRequest \
    'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'
req PATCH $CORE/configmaps/c1 '{"metadata":{"resourceVersion":"1"}}' $MERGE
check "a patch carrying a stale resourceVersion is 409" jpy "d['code'] == 409 and \
d['reason'] == 'Conflict'"
req PATCH $CORE/configmaps/c1 '{"metadata":{"name":"c2"}}' $MERGE
check "a patch renaming the object is 400" is_status 400 BadRequest \
    'the name of the object (c2) does not match the name on the URL (c1)'
req PATCH $CORE/configmaps/nope '{"data":{}}' $MERGE
check "a patch of a missing object is 404" is_status 404 NotFound 'configmaps "nope" not found'
req PATCH $CORE/configmaps/c1 '{}' application/strategic-merge-patch+json
check "a strategic merge patch is served (tests/e2e/registry_smp.t has the rest)" code_is 200
req PATCH $CORE/configmaps/c1 '{}' application/apply-patch+yaml
check "an apply patch needs a fieldManager (tests/e2e/registry_apply.t has the rest)" code_is 422
req PATCH $CORE/configmaps/c1 '{}' text/plain
check "another content type is 415" jpy "d['code'] == 415 and d['reason'] == \
'UnsupportedMediaType'"
req PATCH "$CORE/configmaps/c1?dryRun=All" '{"data":{"z":"3"}}' $MERGE
check "a dry-run patch answers the result" jpy "d['data']['z'] == '3'"
req GET $CORE/configmaps/c1
check "... and changes nothing" jpy "'z' not in d['data']"

# ---- status, spec and generation ------------------------------------------------------------
req POST $APPS/deployments "$(deploy web 2)"
check "a deployment at generation 1" jpy "d['metadata']['generation'] == 1"
req PUT $APPS/deployments/web/status '{"apiVersion":"apps/v1","kind":"Deployment",
"metadata":{"name":"web"},"spec":{"replicas":50},"status":{"replicas":2,"readyReplicas":1}}'
check "PUT /status is 200" code_is 200
check "... changes the status only" jpy "d['status'] == {'replicas': 2, 'readyReplicas': 1} and \
d['spec']['replicas'] == 2 and d['metadata']['generation'] == 1"
req PATCH $APPS/deployments/web '{"status":{"replicas":9},"metadata":{"labels":{"l":"1"}}}' $MERGE
check "the main resource ignores status changes" jpy "d['status']['replicas'] == 2 and \
d['metadata']['labels'] == {'l': '1'}"
check "... and a label change keeps the generation" jpy "d['metadata']['generation'] == 1"
req PATCH $APPS/deployments/web '{"metadata":{"annotations":{"a":"b"}}}' $MERGE
check "a deployment's annotation change moves its generation (as kube's strategy does)" \
    jpy "d['metadata']['generation'] == 2"
req PATCH $APPS/deployments/web '{"spec":{"replicas":3}}' $MERGE
check "a spec change moves the generation" jpy "d['metadata']['generation'] == 3"
req PATCH $APPS/deployments/web/status '{"status":{"replicas":3}}' $MERGE
check "PATCH /status changes the status" jpy "d['status']['replicas'] == 3 and \
d['metadata']['generation'] == 3"
req GET $APPS/deployments/web/status
check "GET /status answers the object" jpy "d['kind'] == 'Deployment' and \
d['status']['replicas'] == 3"

# ---- scale ------------------------------------------------------------------------------------
req GET $APPS/deployments/web/scale
check "GET /scale answers an autoscaling/v1 Scale" jpy "d['kind'] == 'Scale' and \
d['apiVersion'] == 'autoscaling/v1' and d['spec'] == {'replicas': 3} and \
d['status'] == {'replicas': 3, 'selector': 'app=web'} and d['metadata']['name'] == 'web'"
srv=$(jget "d['metadata']['resourceVersion']")
req PUT $APPS/deployments/web/scale "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\
\"metadata\":{\"name\":\"web\",\"namespace\":\"default\",\"resourceVersion\":\"$srv\"},\
\"spec\":{\"replicas\":5}}"
check "PUT /scale sets the replicas" jpy "d['kind'] == 'Scale' and d['spec'] == {'replicas': 5}"
req PUT $APPS/deployments/web/scale "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\
\"metadata\":{\"name\":\"web\",\"resourceVersion\":\"$srv\"},\"spec\":{\"replicas\":6}}"
check "... at a stale resourceVersion it is 409" jpy "d['code'] == 409 and \
'deployments.apps \"web\"' in d['message']"
req PATCH $APPS/deployments/web/scale '{"spec":{"replicas":7}}' $MERGE
check "PATCH /scale (kubectl scale)" jpy "d['spec'] == {'replicas': 7}"
req PATCH $APPS/deployments/web/scale '{"spec":{"replicas":-1}}' $MERGE
check "negative replicas are 422" is_status 422 Invalid \
    'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'
req PATCH $APPS/deployments/web/scale '{"metadata":{"uid":"x"}}' $MERGE
check "a Scale naming another uid is 409" jpy "d['code'] == 409 and 'Precondition failed: UID \
in precondition: x' in d['message']"
req GET $APPS/deployments/web
check "the deployment has the replicas, a new generation and its status" jpy "\
d['spec']['replicas'] == 7 and d['metadata']['generation'] == 5 and d['status']['replicas'] == 3"
req GET $CORE/configmaps/c1/scale
check "a kind without a scale subresource answers 404 or 405" jpy "d['code'] in (404, 405)"
req POST $CORE/replicationcontrollers '{"metadata":{"name":"rc"},"spec":{"replicas":1,
"selector":{"app":"rc"},"template":{"metadata":{"labels":{"app":"rc"}},"spec":{"containers":[
{"name":"c","image":"x"}]}}}}'
req GET $CORE/replicationcontrollers/rc/scale
check "a replication controller's Scale has its map selector" jpy "d['status'] == \
{'replicas': 0, 'selector': 'app=rc'}"

# ---- finalizers and the last one going away ---------------------------------------------------
req POST $CORE/configmaps "$(cm fin '"finalizers":["example.com/keep"]')"
req DELETE $CORE/configmaps/fin
check "deleting an object with a finalizer marks it" jpy "'deletionTimestamp' in d['metadata'] \
and d['metadata']['deletionGracePeriodSeconds'] == 0"
req PATCH $CORE/configmaps/fin '{"metadata":{"finalizers":["example.com/keep","example.com/new"]}}' $MERGE
check "no finalizer can be added once deletion started" jpy "d['code'] == 422 and \
'no new finalizers can be added if the object is being deleted' in d['message']"
req PATCH $CORE/configmaps/fin '{"data":{"still":"here"}}' $MERGE
check "the marked object can still be updated" jpy "d['data']['still'] == 'here'"
req PATCH $CORE/configmaps/fin '{"metadata":{"finalizers":null}}' $MERGE
check "removing the last finalizer answers the object" jpy "d['metadata']['name'] == 'fin'"
req GET $CORE/configmaps/fin
check "... and deletes it" code_is 404
req POST $CORE/configmaps "$(cm fin)"
check "... so the name is free again" code_is 201

# ---- namespaces/finalize ----------------------------------------------------------------------
req POST /api/v1/namespaces '{"metadata":{"name":"nsf"}}'
req PUT /api/v1/namespaces/nsf '{"metadata":{"name":"nsf"},"spec":{"finalizers":[]}}'
check "the main endpoint keeps spec.finalizers" jpy "d['spec'] == {'finalizers': ['kubernetes']}"
req PUT /api/v1/namespaces/nsf/finalize '{"metadata":{"name":"nsf"},"spec":{"finalizers":[]},
"status":{"phase":"Terminating"}}'
check "PUT /finalize changes spec.finalizers" jpy "d.get('spec', {}).get('finalizers', []) == [] \
and d['status'] == {'phase': 'Active'}"
check "... and keeps the name label" jpy "d['metadata']['labels'] == \
{'kubernetes.io/metadata.name': 'nsf'}"

check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
