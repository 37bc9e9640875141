#!/usr/bin/env bash
# DELETE and deletecollection as kube-apiserver answers them: Status or object answers, graceful
# pod deletion, finalizers and two-phase deletion, preconditions, propagation policies, options
# in the body or the query, dry runs, namespaces.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_delete

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
# The garbage collector would finish the finalizers these checks look at.
check "kgate starts" api_start delete --workers=2 '--controllers=*,-garbage-collector-controller'
MERGE=application/merge-patch+json
POD='"spec":{"containers":[{"name":"c","image":"x"}]'

# ---- plain deletes ----------------------------------------------------------------------------
req POST $CORE/configmaps "$(cm c1)"
uid=$(jget "d['metadata']['uid']")
req DELETE $CORE/configmaps/c1
check "deleting a configmap answers a success Status" jpy "d == {'kind': 'Status', \
'apiVersion': 'v1', 'metadata': {}, 'status': 'Success', 'details': {'name': 'c1', \
'kind': 'configmaps', 'uid': '$uid'}}"
req GET $CORE/configmaps/c1
check "... and it is gone" code_is 404
req DELETE $CORE/configmaps/c1
check "deleting it again is 404" is_status 404 NotFound 'configmaps "c1" not found'

req POST $CORE/pods "{\"metadata\":{\"name\":\"p1\"},$POD}}"
req DELETE $CORE/pods/p1
check "a pod answers with the deleted object (kube's ReturnDeletedObject)" jpy "\
d['kind'] == 'Pod' and d['metadata']['name'] == 'p1'"
req GET $CORE/pods/p1
check "a pod never scheduled is deleted at once" code_is 404

# ---- graceful pod deletion --------------------------------------------------------------------
req POST $CORE/pods "{\"metadata\":{\"name\":\"p2\"},$POD,\"nodeName\":\"n1\"}}"
req DELETE $CORE/pods/p2
check "a scheduled pod is only marked: 200 with the pod" code_is 200
check "... deletionGracePeriodSeconds is the default 30" jpy "\
d['metadata']['deletionGracePeriodSeconds'] == 30 and 'deletionTimestamp' in d['metadata']"
req GET $CORE/pods/p2
check "... it is still there" code_is 200
req DELETE "$CORE/pods/p2?gracePeriodSeconds=40"
check "a longer grace period changes nothing" jpy "\
d['metadata']['deletionGracePeriodSeconds'] == 30"
req DELETE "$CORE/pods/p2?gracePeriodSeconds=0"
check "grace period 0 deletes it" code_is 200
req GET $CORE/pods/p2
check "... gone" code_is 404

# ---- finalizers ---------------------------------------------------------------------------------
req POST $CORE/configmaps "$(cm f1 '"finalizers":["example.com/keep"]')"
req DELETE $CORE/configmaps/f1
check "an object with finalizers is marked: 200 with the object" jpy "\
d['metadata']['finalizers'] == ['example.com/keep'] and 'deletionTimestamp' in d['metadata'] \
and d['metadata']['deletionGracePeriodSeconds'] == 0"
first=$(jget "d['metadata']['deletionTimestamp']")
req DELETE $CORE/configmaps/f1
check "deleting it again keeps the first deletionTimestamp" jpy "\
d['metadata']['deletionTimestamp'] == '$first'"
req POST $CORE/configmaps "$(cm f1)"
check "creating the name while it is deleted says so" is_status 409 AlreadyExists \
    'object is being deleted: configmaps "f1" already exists'
req PATCH $CORE/configmaps/f1 '{"metadata":{"finalizers":[]}}' $MERGE
req GET $CORE/configmaps/f1
check "the last finalizer gone, it is gone" code_is 404

# ---- preconditions ------------------------------------------------------------------------------
req POST $CORE/configmaps "$(cm c2)"
uid=$(jget "d['metadata']['uid']")
rv=$(jget "d['metadata']['resourceVersion']")
req DELETE $CORE/configmaps/c2 '{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"wrong"}}'
check "a uid precondition that fails is 409" is_status 409 Conflict \
    "Operation cannot be fulfilled on ConfigMap \"c2\": the UID in the precondition (wrong) does not match the UID in record ($uid). The object might have been deleted and then recreated"
req DELETE $CORE/configmaps/c2 '{"preconditions":{"resourceVersion":"1"}}'
check "a resourceVersion precondition that fails is 409" is_status 409 Conflict \
    "Operation cannot be fulfilled on ConfigMap \"c2\": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record ($rv). The object might have been modified"
req DELETE $CORE/configmaps/c2 "{\"preconditions\":{\"uid\":\"$uid\",\"resourceVersion\":\"$rv\"}}"
check "matching preconditions delete" jpy "d['status'] == 'Success'"

# ---- options ------------------------------------------------------------------------------------
req POST $CORE/configmaps "$(cm c3)"
req DELETE "$CORE/configmaps/c3?propagationPolicy=Sideways"
check "an unknown propagationPolicy is 422" is_status 422 Invalid \
    'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"'
req DELETE $CORE/configmaps/c3 '{"propagationPolicy":"Orphan","orphanDependents":true}'
check "orphanDependents with a policy is 422" jpy "d['code'] == 422 and \
'orphanDependents and deletionPropagation cannot be both set' in d['message']"
req DELETE "$CORE/configmaps/c3?dryRun=All"
check "a dry-run delete answers as a delete would" jpy "d['status'] == 'Success'"
req GET $CORE/configmaps/c3
check "... and deletes nothing" code_is 200
req DELETE "$CORE/configmaps/c3?propagationPolicy=Orphan"
check "Orphan adds the orphan finalizer and keeps the object" jpy "\
d['metadata']['finalizers'] == ['orphan'] and 'deletionTimestamp' in d['metadata']"
req POST $CORE/configmaps "$(cm c4)"
req DELETE $CORE/configmaps/c4 '{"propagationPolicy":"Foreground"}'
check "Foreground adds foregroundDeletion" jpy "d['metadata']['finalizers'] == \
['foregroundDeletion']"
req POST $CORE/configmaps "$(cm c5 '"finalizers":["example.com/keep"]')"
req DELETE $CORE/configmaps/c5 '{"orphanDependents":false}'
check "orphanDependents=false on an object that stays answers 202, as kube does" code_is 202
check "... with the object" jpy "'deletionTimestamp' in d['metadata']"
req DELETE $CORE/configmaps/c5 'not json'
check "a body that is not JSON is 400" jpy "d['code'] == 400"
req PATCH $CORE/configmaps/c5 '{"metadata":{"finalizers":null}}' $MERGE
req DELETE $CORE/configmaps/c3 '{"propagationPolicy":"Background"}'
check "Background on an orphaned object drops the orphan finalizer and deletes it" jpy "\
d['status'] == 'Success'"

# ---- subresources not served ----------------------------------------------------------------
req POST $CORE/pods "{\"metadata\":{\"name\":\"p3\"},$POD}}"
req GET $CORE/pods/p3/log
check "pods/log is not served yet (405)" is_status 405 MethodNotAllowed \
    'the server does not allow this method on the requested resource'
req GET $CORE/pods/p3/eviction
check "pods/eviction takes only POST (405; registry_subres.t evicts)" code_is 405

# ---- deletecollection ---------------------------------------------------------------------------
for n in a b c d; do req POST $CORE/configmaps "$(cm dc-$n "\"labels\":{\"set\":\"$n\"}")"; done
req DELETE "$CORE/configmaps?labelSelector=set+in+(a,b,c)"
check "deletecollection answers the list of what it deleted" jpy "d['kind'] == 'ConfigMapList' \
and sorted(i['metadata']['name'] for i in d['items']) == ['dc-a', 'dc-b', 'dc-c']"
req GET "$CORE/configmaps?labelSelector=set"
check "... the rest stays" jpy "[i['metadata']['name'] for i in d['items']] == ['dc-d']"
req DELETE "/api/v1/configmaps"
check "deletecollection across namespaces is 405" code_is 405
req DELETE "/api/v1/namespaces"
check "namespaces have no deletecollection (405)" code_is 405

# ---- namespaces ---------------------------------------------------------------------------------
req DELETE /api/v1/namespaces/default
check "default may not be deleted" is_status 403 Forbidden \
    'namespaces "default" is forbidden: this namespace may not be deleted'
req POST /api/v1/namespaces '{"metadata":{"name":"gone"}}'
req DELETE /api/v1/namespaces/gone
check "deleting a namespace answers it, Terminating" jpy "d['kind'] == 'Namespace' and \
d['status']['phase'] == 'Terminating' and 'deletionTimestamp' in d['metadata']"
check "... and the controller removes it" wait_code /api/v1/namespaces/gone 404

check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
