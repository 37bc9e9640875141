#!/usr/bin/env bash
# The apiserver's side of garbage collection on a real kgate: the finalizers a DELETE adds by
# kind and version (kube's DefaultGarbageCollectionPolicy: ReplicationControllers in v1 and
# Jobs in batch/v1 orphan by default, other kinds do not, events never take a garbage
# collector's finalizer), what the options and the object's own finalizers change, the Job
# registry's warning; and the OwnerReferencesPermissionEnforcement admission plugin with a
# limited RBAC user: refused and allowed ownerReferences and blockOwnerDeletion, kube's messages.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require gc_apiserver

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts (RBAC, OwnerReferencesPermissionEnforcement)" api_start gcapi --workers=2 \
    --authorization-mode=RBAC --enable-admission-plugins=OwnerReferencesPermissionEnforcement
JOBS=/apis/batch/v1/namespaces/default/jobs
RCS=$CORE/replicationcontrollers
WARN='child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning'
POD='{"containers":[{"name":"c","image":"busybox"}]}'

job() {
    echo "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"$1\"${2:+,$2}},\
\"spec\":{\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\
\"image\":\"busybox\"}]}}}}"
}
rc() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"ReplicationController\",\"metadata\":{\"name\":\"$1\"${2:+,$2}},\
\"spec\":{\"replicas\":0,\"selector\":{\"app\":\"$1\"},\"template\":{\"metadata\":{\"labels\":\
{\"app\":\"$1\"}},\"spec\":$POD}}}"
}
# finalizers_are PY-LIST: the answer's finalizers (absent: []).
finalizers_are() { jpy "d['metadata'].get('finalizers', []) == $1"; }
deleting() { jpy "'deletionTimestamp' in d['metadata']"; }
no_warning() { [[ -z $(warnings) ]] || { diag "warnings: $(warnings)"; return 1; }; }
warns() { [[ $(warnings) == "299 - \"$WARN\"" ]] || { diag "warnings: $(warnings)"; return 1; }; }
gone() { req GET "$1"; code_is 404; }

# ---- default propagation ----------------------------------------------------------------------
req POST $JOBS "$(job j1)"
check "a Job is created" code_is 201
req DELETE $JOBS/j1
check "a batch/v1 Job deleted without a policy is kept with the orphan finalizer" \
    finalizers_are "['orphan']"
check "... marked for deletion (200)" deleting
check "... and the answer warns as kube does" warns
req POST $JOBS "$(job j2)"
req DELETE "$JOBS/j2?propagationPolicy=Background"
check "Background: no finalizer, no warning" no_warning
check "... the Job is gone" gone $JOBS/j2
req POST $JOBS "$(job j3)"
req DELETE "$JOBS/j3?propagationPolicy=Orphan"
check "Orphan: the orphan finalizer without the warning" finalizers_are "['orphan']"
check "... no warning" no_warning
req POST $JOBS "$(job j4)"
req DELETE $JOBS/j4 '{"kind":"DeleteOptions","apiVersion":"v1","orphanDependents":false}'
check "orphanDependents=false in the body: no warning" no_warning
check "... the Job is gone" gone $JOBS/j4
req POST $JOBS "$(job j5 '"finalizers":["foregroundDeletion"]')"
req DELETE $JOBS/j5
check "a Job holding foregroundDeletion keeps it instead of the default" \
    finalizers_are "['foregroundDeletion']"
req POST $JOBS "$(job j6 '"labels":{"batch":"x"}')"
req DELETE "$JOBS?labelSelector=batch%3Dx"
check "deletecollection of Jobs warns too" warns

req POST $RCS "$(rc rc1)"
check "a ReplicationController is created" code_is 201
req DELETE $RCS/rc1
check "a v1 ReplicationController orphans by default" finalizers_are "['orphan']"
check "... without the Job's warning" no_warning
req POST $RCS "$(rc rc2)"
req DELETE "$RCS/rc2?propagationPolicy=Foreground"
check "Foreground: foregroundDeletion instead" finalizers_are "['foregroundDeletion']"

req POST $APPS/deployments "$(deploy d1)"
req DELETE $APPS/deployments/d1
check "an apps/v1 Deployment is not orphaned by default: gone" gone $APPS/deployments/d1
req POST $CORE/configmaps "$(cm c1 '"finalizers":["example.com/keep"]')"
req DELETE $CORE/configmaps/c1
check "a ConfigMap keeps only its own finalizer" finalizers_are "['example.com/keep']"
req POST $CORE/events '{"apiVersion":"v1","kind":"Event","metadata":{"name":"e1"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m"}'
check "an Event is created" code_is 201
req DELETE "$CORE/events/e1?propagationPolicy=Orphan"
check "events take no garbage collector's finalizer, even when asked" gone $CORE/events/e1

# ---- OwnerReferencesPermissionEnforcement -----------------------------------------------------
RBAC=/apis/rbac.authorization.k8s.io/v1
# grant NAME RULES-JSON: a Role in default with RULES, bound to alice.
grant() {
    req POST $RBAC/namespaces/default/roles "{\"metadata\":{\"name\":\"$1\"},\"rules\":$2}"
    req POST $RBAC/namespaces/default/rolebindings "{\"metadata\":{\"name\":\"$1\"},\"roleRef\":{\
\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"$1\"},\
\"subjects\":[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"alice\"}]}"
}
# as_alice_until CODE METHOD PATH BODY: a request as alice until it answers CODE (RBAC's snapshot
# follows its objects within moments).
as_alice_until() {
    for _ in $(seq 100); do
        send "$2" "$3" "$4" "${ALICE[@]}"
        [[ $CODE == "$1" ]] && return 0
        sleep 0.1
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
req POST $APPS/deployments "$(deploy owner)"
OWNER_UID=$(jget "d['metadata']['uid']")
# ref [EXTRA-MEMBERS [APIVERSION [KIND]]]: an ownerReferences member naming the owner.
ref() {
    echo "\"ownerReferences\":[{\"apiVersion\":\"${2:-apps/v1}\",\"kind\":\"${3:-Deployment}\",\
\"name\":\"owner\",\"uid\":\"$OWNER_UID\"${1:+,$1}}]"
}
grant cm-writer '[{"apiGroups":[""],"resources":["configmaps"],"verbs":["create","get","update","patch"]}]'
check "alice may create a ConfigMap with an ownerReference (creating needs no delete)" \
    as_alice_until 201 POST $CORE/configmaps "$(cm o1 "$(ref)")"
send PATCH $CORE/configmaps/o1 '{"metadata":{"ownerReferences":null}}' "${ALICE[@]}"
check "changing ownerReferences on an update needs delete on the object" is_status 403 Forbidden \
    'configmaps "o1" is forbidden: cannot set an ownerRef on a resource you can'"'"'t delete: , <nil>'
check "... kube's details" jpy "d['details'] == {'name': 'o1', 'kind': 'configmaps'}"
send PATCH $CORE/configmaps/o1 '{"data":{"x":"y"}}' "${ALICE[@]}"
check "an update leaving ownerReferences alone is allowed" code_is 200
send POST $CORE/configmaps "$(cm o2 "$(ref '"blockOwnerDeletion":true')")" "${ALICE[@]}"
check "blockOwnerDeletion needs update on the owner's finalizers" is_status 403 Forbidden \
    'configmaps "o2" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can'"'"'t set finalizers on: , <nil>'
send POST $CORE/configmaps "$(cm o3 "$(ref '"blockOwnerDeletion":true' example.com/v1 Widget)")" "${ALICE[@]}"
check "an owner kind nothing serves: kube's RESTMapping failure" is_status 403 Forbidden \
    'configmaps "o3" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"'
send POST $CORE/configmaps "$(cm o4 "$(ref '"blockOwnerDeletion":false')")" "${ALICE[@]}"
check "blockOwnerDeletion false needs nothing more" code_is 201
grant finalizer '[{"apiGroups":["apps"],"resources":["deployments/finalizers"],"verbs":["update"],"resourceNames":["owner"]}]'
check "with update on deployments/finalizers of the owner, a blocking reference is allowed" \
    as_alice_until 201 POST $CORE/configmaps "$(cm o5 "$(ref '"blockOwnerDeletion":true')")"
grant deleter '[{"apiGroups":[""],"resources":["configmaps"],"verbs":["delete"]}]'
check "with delete on configmaps, alice may change ownerReferences" \
    as_alice_until 200 PATCH $CORE/configmaps/o1 '{"metadata":{"ownerReferences":null}}'
send PATCH $CORE/configmaps/o4 "{\"metadata\":{$(ref '"blockOwnerDeletion":true')}}" "${ALICE[@]}"
check "turning a reference blocking is checked against the owner (allowed here)" code_is 200
req POST $CORE/configmaps "$(cm o6 "$(ref '"blockOwnerDeletion":true' example.com/v1 Widget)")"
check "the admin may finalize anything: no owner is resolved" code_is 201

check "kgate exits cleanly" clean_exit
tap_end
