#!/usr/bin/env bash
# The garbage collector on two kgate instances (it runs on the leader of its election): a
# Deployment -> ReplicaSet -> Pod chain made by hand with ownerReferences (blockOwnerDeletion)
# deleted in Background (all go), in Foreground with stock kubectl (the owners stay
# Terminating with foregroundDeletion while a dependent is held by a finalizer of its own, then
# go) and with orphaning (the dependents stay, without the reference); a dependent whose owner
# uid never existed is deleted; a dependent with two owners loses only the deleted owner's
# reference; custom objects (a CRD made here) owned by a ConfigMap are collected; a
# cluster-scoped dependent of a namespaced owner gets kube's OwnerRefInvalidNamespace Event and
# stays; after the leader is killed the other instance collects.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/instances_lib.sh
e2e_require gc

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
PREFIX=/registry-gc-$$

# leads NAME: NAME runs the garbage collector now.
leads() {
    alive "${PID[$1]}" && grep -E 'garbage-collector-controller (started|stopped)$' "${LOG[$1]}" |
        tail -1 | grep -q started
}
# wait_leader SECONDS: until one instance leads; $LEADER names it.
wait_leader() {
    for ((i = 0; i < $1 * 10; i++)); do
        for n in "${!PID[@]}"; do
            if leads "$n"; then LEADER=$n; return 0; fi
        done
        sleep 0.1
    done
    return 1
}

# ref APIVERSION KIND NAME UID [BLOCK]: an ownerReference.
ref() {
    echo "{\"apiVersion\":\"$1\",\"kind\":\"$2\",\"name\":\"$3\",\"uid\":\"$4\",\
\"controller\":${5:-true},\"blockOwnerDeletion\":${5:-true}}"
}
# create PATH DOC: POST, print the new object's uid.
create() {
    req POST "$1" "$2"
    [[ $CODE == 201 ]] || { diag "create $1: $CODE $(head -c 400 "$OUT")" >&2; return 1; }
    jget "d['metadata']['uid']"
}
rs_doc() {
    echo "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"$1\",\
\"ownerReferences\":[$2]},\"spec\":{\"replicas\":1,\"selector\":{\"matchLabels\":{\"app\":\"$1\"}},\
\"template\":{\"metadata\":{\"labels\":{\"app\":\"$1\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\
\"image\":\"nginx\"}]}}}}"
}
pod_doc() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1\",\
\"ownerReferences\":[$2]${3:+,\"finalizers\":[\"$3\"]}},\"spec\":{\"containers\":[{\"name\":\"c\",\
\"image\":\"nginx\"}]}}"
}
# chain NAME [POD-FINALIZER]: Deployment NAME, ReplicaSet NAME-rs it owns, Pod NAME-pod the
# ReplicaSet owns (blocking references); uids in D, RS, P.
chain() {
    D=$(create "$APPS/deployments" "$(deploy "$1")") &&
        RS=$(create "$APPS/replicasets" "$(rs_doc "$1-rs" "$(ref apps/v1 Deployment "$1" "$D")")") &&
        P=$(create "$CORE/pods" "$(pod_doc "$1-pod" "$(ref apps/v1 ReplicaSet "$1-rs" "$RS")" "${2-}")")
}
# made PATH DOC: create, quietly.
made() { create "$@" >/dev/null; }
# field PATH EXPR: GET PATH and print EXPR over it.
field() { req GET "$1" && [[ $CODE == 200 ]] && jget "$2"; }
# wait_field PATH EXPR WANT: until EXPR over GET PATH prints WANT (lists and dicts as JSON;
# up to 30 s).
wait_field() {
    local until=$((SECONDS + 30))
    while ((SECONDS < until)); do
        [[ $(field "$1" "$2" 2>/dev/null) == "$3" ]] && return 0
        sleep 0.1
    done
    diag "$1: $(field "$1" "$2" 2>&1)"
    return 1
}
BG='{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}'

check "instance a starts" start a
check "instance b starts" start b
check "one instance runs the garbage collector" wait_leader 30
first=$LEADER
on "$first"
check "it builds its graph" wait_for_line 'garbage-collector-controller: graph built' "${LOG[$first]}"

# ---- background ----
check "a Deployment -> ReplicaSet -> Pod chain" chain bg
req DELETE "$APPS/deployments/bg" "$BG"
check "the Deployment is deleted in the background" code_is 200
check "its ReplicaSet is collected" wait_code "$APPS/replicasets/bg-rs" 404
check "and the ReplicaSet's Pod" wait_code "$CORE/pods/bg-pod" 404

# ---- foreground, kubectl ----
on "$first" && kubeconfig "$KGATE_TEST_TMP/kubeconfig"
export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
check "a chain whose Pod holds a finalizer of its own" chain fg example.com/hold
check "kubectl delete --cascade=foreground" \
    k delete deployment fg --cascade=foreground --wait=false
META="d['metadata'].get('deletionTimestamp') is not None, d['metadata'].get('finalizers')"
# (python's tuple repr: the finalizers inside print as a Python list)
check "the Pod is being deleted (its finalizer holds it)" \
    wait_field "$CORE/pods/fg-pod" "$META" "(True, ['example.com/hold'])"
check "the ReplicaSet waits for it, in the foreground itself" \
    wait_field "$APPS/replicasets/fg-rs" "$META" "(True, ['foregroundDeletion'])"
check "the Deployment stays Terminating with foregroundDeletion" \
    wait_field "$APPS/deployments/fg" "$META" "(True, ['foregroundDeletion'])"
req PATCH "$CORE/pods/fg-pod" '{"metadata":{"finalizers":null}}' application/merge-patch+json
check "the Pod's finalizer is removed" code_is 200
check "the Pod goes" wait_code "$CORE/pods/fg-pod" 404
check "then the ReplicaSet" wait_code "$APPS/replicasets/fg-rs" 404
check "then the Deployment" wait_code "$APPS/deployments/fg" 404

# ---- orphan, kubectl ----
check "a chain" chain or
check "kubectl delete --cascade=orphan" k delete deployment or --cascade=orphan --wait=false
check "the Deployment goes" wait_code "$APPS/deployments/or" 404
check "the ReplicaSet stays, without its ownerReference" \
    wait_field "$APPS/replicasets/or-rs" "d['metadata'].get('ownerReferences')" None
check "the Pod keeps its own" \
    wait_field "$CORE/pods/or-pod" "[r['uid'] for r in d['metadata']['ownerReferences']]" "[\"$RS\"]"

# ---- a pod on a node ----
NODE_POD="{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"scheduled\",\
\"ownerReferences\":[$(ref v1 ConfigMap gone "$(python3 -c 'import uuid; print(uuid.uuid4())')")]},\
\"spec\":{\"nodeName\":\"node-1\",\"terminationGracePeriodSeconds\":45,\
\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}"
check "a pod on a node whose owner never existed" made "$CORE/pods" "$NODE_POD"
check "is deleted gracefully, as the pod strategy does it (its kubelet removes it)" \
    wait_field "$CORE/pods/scheduled" \
    "d['metadata'].get('deletionTimestamp') is not None, d['metadata'].get('deletionGracePeriodSeconds')" \
    "(True, 45)"

# ---- a dangling owner, two owners ----
GHOST=$(python3 -c 'import uuid; print(uuid.uuid4())')
check "a ConfigMap owned by a uid that never existed" \
    made "$CORE/configmaps" "$(cm dangling "\"ownerReferences\":[$(ref v1 ConfigMap ghost "$GHOST")]")"
check "is deleted" wait_code "$CORE/configmaps/dangling" 404
O1=$(create "$CORE/configmaps" "$(cm owner1)")
O2=$(create "$CORE/configmaps" "$(cm owner2)")
check "a ConfigMap with two owners" made "$CORE/configmaps" \
    "$(cm shared "\"ownerReferences\":[$(ref v1 ConfigMap owner1 "$O1" false),$(ref v1 ConfigMap owner2 "$O2" false)]")"
req DELETE "$CORE/configmaps/owner1"
check "one owner deleted" code_is 200
check "loses only that owner's reference" \
    wait_field "$CORE/configmaps/shared" "[r['name'] for r in d['metadata']['ownerReferences']]" \
    '["owner2"]'
# the reference goes in the round that judged the object: it was not deleted by that round
req GET "$CORE/configmaps/shared"
check "and stays" code_is 200

# ---- custom resources ----
CRD='{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.gc.example.com"},"spec":{"group":"gc.example.com","scope":"Namespaced",
"names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
"x-kubernetes-preserve-unknown-fields":true}}}]}}'
req POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions "$CRD"
check "a CRD is created" code_is 201
WIDGETS=/apis/gc.example.com/v1/namespaces/default/widgets
check "its objects are served" wait_code "$WIDGETS" 200
CO=$(create "$CORE/configmaps" "$(cm widget-owner)")
check "a custom object owned by a ConfigMap" made "$WIDGETS" \
    "{\"apiVersion\":\"gc.example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\",\
\"ownerReferences\":[$(ref v1 ConfigMap widget-owner "$CO")]}}"
check "a ConfigMap owned by the custom object" made "$CORE/configmaps" \
    "$(cm widget-dep "\"ownerReferences\":[$(ref gc.example.com/v1 Widget w1 "$(field "$WIDGETS/w1" "d['metadata']['uid']")")]")"
req DELETE "$CORE/configmaps/widget-owner"
check "the owner is deleted" code_is 200
check "the custom object is collected" wait_code "$WIDGETS/w1" 404
check "and what it owned" wait_code "$CORE/configmaps/widget-dep" 404

# ---- a cluster-scoped dependent of a namespaced owner ----
NO=$(create "$CORE/configmaps" "$(cm ns-owner)")
check "a ClusterRole naming a ConfigMap as owner" made \
    /apis/rbac.authorization.k8s.io/v1/clusterroles \
    "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\",\"metadata\":{\
\"name\":\"gc-invalid\",\"ownerReferences\":[$(ref v1 ConfigMap ns-owner "$NO")]}}"
CR_UID=$(field /apis/rbac.authorization.k8s.io/v1/clusterroles/gc-invalid "d['metadata']['uid']")
EV="[(e['type'], e['message'], e['source'], e['involvedObject']) for e in d['items'] \
if e['reason'] == 'OwnerRefInvalidNamespace'] == [('Warning', 'ownerRef [v1/ConfigMap, \
namespace: , name: ns-owner, uid: $NO] does not exist in namespace \"\"', \
{'component': 'garbage-collector-controller'}, {'kind': 'ClusterRole', 'name': 'gc-invalid', \
'uid': '$CR_UID', 'apiVersion': 'rbac.authorization.k8s.io/v1'})]"
check "gets kube's OwnerRefInvalidNamespace warning Event in default" \
    wait_field "$CORE/events" "$EV" True
check "and is not collected (kube cannot resolve its owner)" \
    wait_code /apis/rbac.authorization.k8s.io/v1/clusterroles/gc-invalid 200 1

# ---- an owner in another namespace, an owner of a kind nobody serves ----
req POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"gc-other"}}'
check "another namespace" code_is 201
XO=$(create /api/v1/namespaces/gc-other/configmaps "$(cm x-owner)")
check "a ConfigMap naming a ConfigMap of another namespace as owner" made "$CORE/configmaps" \
    "$(cm cross "\"ownerReferences\":[$(ref v1 ConfigMap x-owner "$XO")]")"
check "is deleted: its owner is looked for in its own namespace" \
    wait_code "$CORE/configmaps/cross" 404
check "and gets the OwnerRefInvalidNamespace Event" wait_field "$CORE/events" \
    "[e['message'] for e in d['items'] if e['involvedObject']['name'] == 'cross']" \
    "[\"ownerRef [v1/ConfigMap, namespace: default, name: x-owner, uid: $XO] does not exist in \
namespace \\\"default\\\"\"]"
req GET /api/v1/namespaces/gc-other/configmaps/x-owner
check "the owner stays" code_is 200
NOPE=$(python3 -c 'import uuid; print(uuid.uuid4())')
check "a ConfigMap owned by a kind nobody serves" made "$CORE/configmaps" \
    "$(cm unknown-kind "\"ownerReferences\":[$(ref nope.example.com/v1 Nope n "$NOPE")]")"
check "is retried (kube's REST mapping error)" wait_for_line \
    'unable to get REST mapping for nope.example.com/v1/Nope.' "${LOG[$first]}"
req GET "$CORE/configmaps/unknown-kind"
check "not deleted" code_is 200

# ---- the leader moves ----
kill -KILL "${PID[$first]}"
wait "${PID[$first]}" 2>/dev/null
unset "PID[$first]"
for n in "${!PID[@]}"; do on "$n"; done
check "the other instance takes the garbage collector over" wait_leader 40
check "a chain" chain moved
req DELETE "$APPS/deployments/moved" "$BG"
check "its owner deleted in the background" code_is 200
check "the new leader collects the ReplicaSet" wait_code "$APPS/replicasets/moved-rs" 404
check "and the Pod" wait_code "$CORE/pods/moved-pod" 404

kill -TERM "${PID[$LEADER]}"
wait_exit "${PID[$LEADER]}"
check "the leader stops cleanly (exit $EXIT_CODE)" test "$EXIT_CODE" = 0
check "without a sanitizer report" no_sanitizer_report "${LOG[$LEADER]}"
ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" del --prefix "$PREFIX/" >/dev/null
tap_end
