#!/usr/bin/env bash
# PATCH with application/strategic-merge-patch+json as kube-apiserver answers it: containers
# merged by name, directives ($patch, $setElementOrder, $deleteFromPrimitiveList, $retainKeys),
# the errors of a patch that does not apply (400, 422, and kube's reasonless 500), field
# validation of the patched object (Warn, Strict, Ignore), status and scale subresources, no-op
# patches and dry runs.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_smp

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start smp --workers=2
SMP=application/strategic-merge-patch+json
WEB=$APPS/deployments/web

# status_is CODE REASON MESSAGE: like is_status, where REASON "-" means none (kube's 500s).
status_is() {
    python3 - "$1" "$2" "$3" "$OUT" <<'EOF'
import json, sys
d = json.load(open(sys.argv[4]))
want_reason = None if sys.argv[2] == '-' else sys.argv[2]
ok = (d.get('kind') == 'Status' and d.get('code') == int(sys.argv[1]) and
      d.get('reason') == want_reason and d.get('message') == sys.argv[3])
if not ok:
    print("# got %s" % json.dumps(d))
sys.exit(0 if ok else 1)
EOF
}

# names: the container names of the answer, comma separated.
names() { jget "','.join(c['name'] for c in d['spec']['template']['spec']['containers'])"; }

req POST $APPS/deployments "$(deploy web 2)"
check "a Deployment to patch" code_is 201
gen=$(jget "d['metadata']['generation']")

# ---- merging ------------------------------------------------------------------------------
req PATCH $WEB '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}}' $SMP
check "a container merges by name" jpy "[(c['name'], c['image']) for c in \
d['spec']['template']['spec']['containers']] == [('c', 'nginx:2')]"
check "... and the spec change bumps the generation" jpy "d['metadata']['generation'] == $gen + 1"
req PATCH $WEB '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox"}]}}}}' $SMP
check "a new container goes first (no \$setElementOrder)" test "$(names)" = side,c
req PATCH $WEB '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"side"}]}}}}' $SMP
check "\$setElementOrder reorders them" test "$(names)" = c,side
req PATCH $WEB '{"spec":{"template":{"spec":{"containers":[{"$patch":"delete","name":"side"}]}}}}' $SMP
check "\$patch: delete removes one" test "$(names)" = c
req PATCH $WEB '{"metadata":{"labels":{"team":"a","tier":"b"}}}' $SMP
req PATCH $WEB '{"metadata":{"labels":{"team":null}}}' $SMP
check "null removes a label, the others stay" jpy "d['metadata']['labels'] == {'tier': 'b'}"
req PATCH $WEB '{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate","rollingUpdate":null}}}' $SMP
check "\$retainKeys switches the strategy and drops rollingUpdate" jpy \
    "d['spec']['strategy'] == {'type': 'Recreate'}"
rv=$(jget "d['metadata']['resourceVersion']")
req PATCH $WEB '{"spec":{"strategy":{"type":"Recreate"}}}' $SMP
check "a patch that changes nothing writes nothing" jpy "d['metadata']['resourceVersion'] == '$rv'"
req PATCH "$WEB?dryRun=All" '{"spec":{"replicas":7}}' $SMP
check "a dry run answers the patched object" jpy "d['spec']['replicas'] == 7"
req GET $WEB
check "... and stores nothing" jpy "d['spec']['replicas'] == 2"
req PATCH $WEB '{"apiVersion":"v9","kind":"Other","spec":{"replicas":3}}' $SMP
check "apiVersion and kind in the patch are the kind's own again" jpy \
    "d['apiVersion'] == 'apps/v1' and d['kind'] == 'Deployment' and d['spec']['replicas'] == 3"

req POST $CORE/configmaps '{"metadata":{"name":"f","finalizers":["a/x","b/y"]},"data":{"k":"v","j":"w"}}'
req PATCH $CORE/configmaps/f '{"metadata":{"finalizers":["c/z"]},"data":{"k":null}}' $SMP
check "finalizers take the union, data keys go with null" jpy \
    "d['metadata']['finalizers'] == ['c/z', 'a/x', 'b/y'] and d['data'] == {'j': 'w'}"
req PATCH $CORE/configmaps/f '{"metadata":{"$deleteFromPrimitiveList/finalizers":["a/x","c/z"]}}' $SMP
check "\$deleteFromPrimitiveList removes finalizers" jpy "d['metadata']['finalizers'] == ['b/y']"
req PATCH $CORE/configmaps/f '{"metadata":{"$patch":"replace","name":"f"},"data":{"$patch":"delete"}}' $SMP
check "\$patch: replace and delete on maps" jpy "'finalizers' not in d['metadata'] and \
d.get('data', {}) == {}"

# ---- patches that do not apply ------------------------------------------------------------
req PATCH $WEB '{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}' $SMP
check "a container without its merge key: kube's 500 without a reason" status_is 500 - \
    'map: map[image:x] does not contain declared merge key: name'
req PATCH $WEB '{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}}' $SMP
check "a patch outside its \$retainKeys is 400" status_is 400 BadRequest \
    'invalid patch format of retainKeys'
req PATCH $CORE/configmaps/f '{"metadata":{"$setElementOrder/finalizers":[],"finalizers":[["x"]]}}' $SMP
check "lists of lists are kube's generic 422" status_is 422 Invalid \
    'the server rejected our request due to an error in our request'
check "... with the reason as cause" jpy "d['details']['causes'] == [{'reason': \
'UnexpectedServerResponse', 'message': 'lists of lists are not supported'}]"
req PATCH $CORE/configmaps/f '{"metadata":{"finalizers":[{"a":1}]}}' $SMP
check "... and a merge list gets what a merge list is not" jpy "d['code'] == 422"
req PATCH $WEB '[{"op":"add"}]' $SMP
check "a patch that is not an object is 400" status_is 400 BadRequest \
    'json: cannot unmarshal array into Go value of type map[string]interface {}'
req PATCH $WEB '{"spec":' $SMP
check "a patch that is not JSON is 400 in encoding/json's words" status_is 400 BadRequest \
    'unexpected end of JSON input'
req PATCH "$WEB?fieldValidation=Ignore" '{"spec": }' $SMP
check "... also without field validation" status_is 400 BadRequest \
    "invalid character '}' looking for beginning of value"
req PATCH $APPS/deployments/nope '{"spec":' $SMP
check "... but a missing object is 404 first, as kube finds out in that order" status_is 404 NotFound \
    'deployments.apps "nope" not found'
req PATCH $WEB '{"spec":{"$setElementOrder/nope":[]}}' $SMP
check "a \$setElementOrder of a field the struct lacks: kube's words" status_is 500 - \
    'unable to find api field in struct DeploymentSpec for the json field "nope"'

# ---- field validation of the patched object ----------------------------------------------
req PATCH $WEB '{"spec":{"replicas":4,"bogus":1}}' $SMP
check "Warn (the default): an unknown field is 200" code_is 200
check "... with kube's warning" test "$(warnings)" = '299 - "unknown field \"spec.bogus\""'
check "... and it is pruned" jpy "'bogus' not in d['spec'] and d['spec']['replicas'] == 4"
req PATCH "$WEB?fieldValidation=Strict" '{"spec":{"replicas":5,"bogus":1}}' $SMP
check "Strict: kube's 422 naming the patch" status_is 422 Invalid \
    ' "" is invalid: patch: Invalid value: "map[spec:map[bogus:1 replicas:5]]": strict decoding error: unknown field "spec.bogus"'
check "... with a patch cause" jpy "d['details'] == {'causes': [{'reason': 'FieldValueInvalid', \
'message': 'Invalid value: \"map[spec:map[bogus:1 replicas:5]]\": strict decoding error: \
unknown field \"spec.bogus\"', 'field': 'patch'}]}"
req PATCH "$WEB?fieldValidation=Strict" '{"spec":{"replicas":5,"replicas":6}}' $SMP
check "Strict: a duplicate field of the patch is refused too" status_is 422 Invalid \
    ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:6]]": strict decoding error: duplicate field "spec.replicas"'
req PATCH "$WEB?fieldValidation=Ignore" '{"spec":{"replicas":5,"bogus":1}}' $SMP
check "Ignore: 200 without warnings" bash -c "[[ $CODE == 200 && -z \"\$(grep -i '^Warning:' $HDR)\" ]]"
req PATCH $WEB '{"spec":{"replicas":"many"}}' $SMP
check "a value its type cannot hold is kube's 422 on the patch" jpy \
    "d['code'] == 422 and d['message'].startswith(' \"\" is invalid: patch: Invalid value: \"map[spec:map[replicas:many]]\": ')"

# ---- subresources -------------------------------------------------------------------------
req PATCH $WEB/status '{"status":{"conditions":[{"type":"Available","status":"True"}]},"spec":{"replicas":1}}' $SMP
check "PATCH /status merges the status only" jpy "d['status']['conditions'][0]['type'] == \
'Available' and d['spec']['replicas'] == 5"
req PATCH $WEB/status '{"status":{"conditions":[{"type":"Progressing","status":"True"},{"type":"Available","status":"False"}]}}' $SMP
check "... conditions merge by type" jpy "[(c['type'], c['status']) for c in d['status']['conditions']] \
== [('Progressing', 'True'), ('Available', 'False')]"
req PATCH $WEB/scale '{"spec":{"replicas":8}}' $SMP
check "PATCH /scale answers the Scale" jpy "d['kind'] == 'Scale' and d['spec']['replicas'] == 8"
req GET $WEB
check "... and scales the Deployment" jpy "d['spec']['replicas'] == 8"
APPLIED='{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1}}'
req PATCH "$WEB?fieldManager=t" "$APPLIED" application/apply-patch+yaml
check "an apply of replicas conflicts with the scale write (tests/e2e/registry_apply.t has more)" \
    jpy "d['code'] == 409 and d['details']['causes'][0]['message'] == \
'conflict with \"curl\" with subresource \"scale\" using apps/v1'"
req PATCH "$WEB?fieldManager=t&force=true" "$APPLIED" application/apply-patch+yaml
check "... and forced, takes it" jpy "d['spec']['replicas'] == 1"

check "kgate exits cleanly" clean_exit
tap_end
