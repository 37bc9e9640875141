#!/usr/bin/env bash
# The unsafe deletion of a corrupt object: with the feature gate
# AllowUnsafeMalformedObjectDeletion, a DELETE with ignoreStoreReadErrorWithClusterBreakingPotential
# removes an object etcd holds but nobody can decode, once the caller is also allowed the verb
# unsafe-delete-ignore-read-errors; a readable object is refused, the option's exclusions are
# checked; without the gate the option changes nothing.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_unsafe_delete

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
CMS=/api/v1/namespaces/default/configmaps
OPT=ignoreStoreReadErrorWithClusterBreakingPotential
RBAC=/apis/rbac.authorization.k8s.io/v1/namespaces/default

# as_alice METHOD PATH [BODY]: a request by the token user alice, into $OUT; sets CODE.
as_alice() {
    local body=()
    [[ $# -gt 2 ]] && body=(-H "Content-Type: application/json" --data-binary "$3")
    OUT=$KGATE_TEST_TMP/body
    CODE=$(kcurl -o "$OUT" -w '%{http_code}' -X "$1" "${body[@]}" "${ALICE[@]}" "$KGATE_URL$2")
}
# role VERBS-JSON: alice's Role on configmaps in default, replaced.
role() {
    req DELETE "$RBAC/roles/cm" >/dev/null
    req POST "$RBAC/roles" "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"Role\",\
\"metadata\":{\"name\":\"cm\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\
\"verbs\":$1}]}"
}
message_has() { jpy "'''$1''' in d['message']"; }

check "kgate starts with the gate and RBAC" api_start unsafe --authorization-mode=RBAC \
    --feature-gates=AllowUnsafeMalformedObjectDeletion=true
PREFIX=/registry-unsafe-$$
req POST "$RBAC/rolebindings" '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
"metadata":{"name":"alice-cm"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role",
"name":"cm"},"subjects":[{"kind":"User","name":"alice"}]}'
check "alice is bound to the Role cm" code_is 201
role '["get","delete"]'
req POST "$CMS" "$(cm good)"
check "a readable ConfigMap is created" code_is 201
ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" put "$PREFIX/configmaps/default/bad" \
    '{"kind":"ConfigMap", not json' >/dev/null
req GET "$CMS/bad"
check "a corrupt object cannot be read: 500" code_is 500
req DELETE "$CMS/bad"
check "... nor deleted the usual way: 500" code_is 500

req DELETE "$CMS/bad" "{\"$OPT\":true,\"dryRun\":[\"All\"],\"gracePeriodSeconds\":5}"
check "the option with dryRun and a grace period: 422 on DeleteOptions" code_is 422
check "... each exclusion named" jpy "[c['field'] for c in d['details']['causes']] == \
['dryRun', 'gracePeriodSeconds'] and all('can not be set together with $OPT' in c['message'] \
for c in d['details']['causes'])"
req DELETE "$CMS/bad" "{\"$OPT\":true,\"preconditions\":{\"uid\":\"x\"}}"
check "... with preconditions: 422" code_is 422
as_alice DELETE "$CMS/bad" "{\"$OPT\":true,\"gracePeriodSeconds\":0}"
check "... a grace period of 0 is allowed (on to authorization: 403 for alice)" code_is 403

as_alice DELETE "$CMS/bad?$OPT=true"
check "alice may delete configmaps but not unsafe-delete-ignore-read-errors: 403" code_is 403
check "... in kube's words" message_has \
    'configmaps "bad" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: '
role '["get","delete","unsafe-delete-ignore-read-errors"]'
for _ in $(seq 50); do
    as_alice DELETE "$CMS/good?$OPT=true"
    [[ $CODE == 422 ]] && break
    sleep 0.2 # the Role reaches the RBAC snapshot through a watch
done
check "granted the verb, a readable object is refused: 422" code_is 422
check "... the option is only for corrupt objects" message_has \
    'configmaps "good" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option'
as_alice DELETE "$CMS/bad?$OPT=true"
check "the corrupt object is deleted: 200" code_is 200
check "... a Status naming it and its kind" jpy "d['status'] == 'Success' and \
d['details'] == {'name': 'bad', 'kind': 'ConfigMap'}"
check "... gone from etcd" test -z "$(stored configmaps/default/bad)"
as_alice DELETE "$CMS/bad?$OPT=true"
check "again: 404" code_is 404
req GET "$CMS/good"
check "the readable one is still there" code_is 200
check "kgate exits cleanly" clean_exit

check "kgate starts without the gate" api_start plain
PREFIX=/registry-plain-$$
req POST "$CMS" "$(cm good)"
ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" put "$PREFIX/configmaps/default/bad" \
    'garbage' >/dev/null
req DELETE "$CMS/bad?$OPT=true"
check "without the gate the option is ignored: a corrupt object still fails, 500" code_is 500
req DELETE "$CMS/good?$OPT=true"
check "... and a readable one is deleted as usual" code_is 200
req DELETE "$CMS/good" "{\"$OPT\":true,\"propagationPolicy\":\"Orphan\"}"
check "the option's exclusions are checked even so: 422" code_is 422
check "kgate exits cleanly" clean_exit
tap_end
