#!/usr/bin/env bash
# The Node authorizer end to end, --authorization-mode=Node,RBAC with a token user
# system:node:n1 in system:nodes: it reads the secret its pod mounts and that pod, is refused
# a pod and a secret of a pod on another node (in kube's words), lists and watches its pods
# through a spec.nodeName field selector only, reads only its own Node (by name or by a
# metadata.name field selector), patches its own Node's status but not another's, keeps its
# Lease, registers its Node, lists services and posts events (kube's static node rules), and
# loses the secret once its pod is gone. Access reviews carry field and label
# selectors (raw or as requirements, and kube's validation of them); kubectl auth can-i
# agrees when kubectl is here.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require authz_node

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
echo 'node1-token,system:node:n1,2001,"system:nodes"' >>"$PKI/tokens.csv"
set_users
NODE=(-H "Authorization: Bearer node1-token")
trap stop_all EXIT
NS=/api/v1/namespaces/default
LEASES=/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases

# until_code CODE PATH CURL-ARGS...: poll a GET for up to 10 s (the graph follows etcd's
# watch; bounded, not a timing claim).
until_code() {
    local want=$1 path=$2; shift 2
    for _ in $(seq 100); do
        fetch "$path" "$@"
        [[ $CODE == "$want" ]] && return 0
        sleep 0.1
    done
    diag "GET $path: $CODE $(cat "$OUT")"
    return 1
}

created() { # PATH BODY: an admin create that must succeed
    send POST "$1" "$2" "${ADMIN[@]}"
    [[ $CODE == 201 ]] || { diag "POST $1: $CODE $(cat "$OUT")"; return 1; }
}

secret() { printf '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"%s"},"data":{"k":"dg=="}}' "$1"; }
node() { printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"%s"}}' "$1"; }
pod() { # NAME NODE SECRET
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"nodeName":"%s","automountServiceAccountToken":false,"containers":[{"name":"c","image":"busybox"}],"volumes":[{"name":"s","secret":{"secretName":"%s"}}]}}' "$@"
}

# forbidden_because MESSAGE-PART: $OUT is a 403 Status whose message holds MESSAGE-PART.
forbidden_because() {
    [[ $CODE == 403 ]] && jpy "d['reason'] == 'Forbidden' and '''$1''' in d['message']"
}

# names_are NAME...: $OUT is a 200 list of exactly these objects (in any order).
names_are() {
    [[ $CODE == 200 ]] && jpy "sorted(i['metadata']['name'] for i in d['items']) == sorted('$*'.split())"
}

# watch_names PATH CURL-ARGS...: the names in the ADDED events of a watch that ends after a
# second (timeoutSeconds=1), into $NAMES; sets CODE.
watch_names() {
    local path=$1; shift
    OUT=$KGATE_TEST_TMP/watch
    CODE=$(kcurl -N -o "$OUT" -w '%{http_code}' "$@" "$KGATE_URL$path&timeoutSeconds=1")
    NAMES=$(python3 -c 'import json, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(" ".join(sorted(e["object"]["metadata"]["name"] for e in events if e["type"] == "ADDED")))' \
        "$OUT" 2>/dev/null)
}

AZ=/apis/authorization.k8s.io/v1
AS_N1='"user":"system:node:n1","groups":["system:nodes","system:authenticated"]'
LIST_PODS='"verb":"list","resource":"pods","version":"v1"'
IN_N1='{"requirements":[{"key":"spec.nodeName","operator":"In","values":["n1"]}]}'

# review PATH SPEC CURL-ARGS...: POST an access review (its kind from PATH) with SPEC.
review() {
    local path=$1 spec=$2 kind; shift 2
    case $path in
        */selfsubjectaccessreviews) kind=SelfSubjectAccessReview ;;
        */localsubjectaccessreviews) kind=LocalSubjectAccessReview ;;
        *) kind=SubjectAccessReview ;;
    esac
    send POST "$path" "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"$kind\",\"spec\":$spec}" "$@"
}

# allowed_is True|False [REASON]: $OUT is a 201 review with that status.allowed (and reason).
allowed_is() {
    [[ $CODE == 201 ]] && jpy "d['status']['allowed'] is $1 and d['status'].get('reason', '') == '''${2:-}'''" ||
        { diag "$CODE $(cat "$OUT")"; return 1; }
}

# invalid_because FIELD MESSAGE: $OUT is a 422 whose causes hold FIELD with MESSAGE.
invalid_because() {
    [[ $CODE == 422 ]] && python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
causes = d["details"]["causes"]
sys.exit(0 if any(c["field"] == sys.argv[2] and c["message"] == sys.argv[3] for c in causes) else 1)
' "$OUT" "$1" "$2" || { diag "$CODE $(cat "$OUT")"; return 1; }
}

check "kgate starts with Node,RBAC" api_start node --authorization-mode=Node,RBAC
send POST /api/v1/nodes "$(node n1)" "${NODE[@]}"
check "n1 registers its Node (kube's static node rules)" test "$CODE" = 201
check "admin creates node n2" created /api/v1/nodes "$(node n2)"
check "admin creates secrets s1 and s2" eval 'created $NS/secrets "$(secret s1)" && created $NS/secrets "$(secret s2)"'
check "admin creates pod p1 on n1 mounting s1" created $NS/pods "$(pod p1 n1 s1)"
check "admin creates pod p2 on n2 mounting s2" created $NS/pods "$(pod p2 n2 s2)"

check "n1 reads the secret its pod mounts" until_code 200 $NS/secrets/s1 "${NODE[@]}"
check "... its content" jpy "d['data'] == {'k': 'dg=='}"
fetch $NS/pods/p1 "${NODE[@]}"
check "n1 reads its pod" test "$CODE" = 200
fetch $NS/secrets/s2 "${NODE[@]}"
check "n1 is refused the secret of a pod on n2" forbidden_because \
    "User \"system:node:n1\" cannot get resource \"secrets\" in API group \"\" in the namespace \"default\": no relationship found between node 'n1' and this object"
fetch $NS/pods/p2 "${NODE[@]}"
check "... and that pod" test "$CODE" = 403
fetch $NS/secrets "${NODE[@]}"
check "n1 may not list secrets" test "$CODE" = 403

send PATCH /api/v1/nodes/n1/status '{"status":{"capacity":{"pods":"110"}}}' "${NODE[@]}"
check "n1 patches its node's status" test "$CODE" = 200
fetch /api/v1/nodes/n1 "${ADMIN[@]}"
check "... which is stored" jpy "d['status']['capacity']['pods'] == '110'"
send PATCH /api/v1/nodes/n2/status '{"status":{"capacity":{"pods":"1"}}}' "${NODE[@]}"
check "n1 is refused another node's status" forbidden_because \
    "node 'n1' can only modify its own Node object"
fetch /api/v1/nodes/n2 "${NODE[@]}"
check "... and reading another node" forbidden_because \
    "node 'n1' cannot read 'n2', only its own Node object"
fetch /api/v1/nodes "${NODE[@]}"
check "n1 may not list all nodes" forbidden_because \
    "User \"system:node:n1\" cannot list resource \"nodes\" in API group \"\" at the cluster scope: node 'n1' cannot read all nodes, only its own Node object"
fetch "/api/v1/nodes?fieldSelector=metadata.name%3Dn1" "${NODE[@]}"
check "n1 lists its own Node by metadata.name" names_are n1
watch_names "/api/v1/nodes?watch=1&fieldSelector=metadata.name%3Dn1" "${NODE[@]}"
check "... and watches it" test "$CODE:$NAMES" = 200:n1
fetch "/api/v1/nodes?fieldSelector=metadata.name%3Dn2" "${NODE[@]}"
check "... but not another by metadata.name" forbidden_because \
    "node 'n1' cannot read 'n2', only its own Node object"

check "admin creates pod p3 on n1 and p4 on no node" \
    eval 'created $NS/pods "$(pod p3 n1 s3)" && created $NS/pods "$(pod p4 "" s2)"'
fetch "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1" "${NODE[@]}"
check "n1 lists its pods with spec.nodeName=n1" names_are p1 p3
fetch "$NS/pods?fieldSelector=spec.nodeName%3D%3Dn1,metadata.namespace%3Ddefault" "${NODE[@]}"
check "... in a namespace, with == and another term" names_are p1 p3
watch_names "/api/v1/pods?watch=1&fieldSelector=spec.nodeName%3Dn1" "${NODE[@]}"
check "n1 watches its pods, and sees only those" test "$CODE:$NAMES" = "200:p1 p3"
fetch /api/v1/pods "${NODE[@]}"
check "n1 may not list pods without a field selector" forbidden_because \
    "User \"system:node:n1\" cannot list resource \"pods\" in API group \"\" at the cluster scope: can only list/watch pods with spec.nodeName field selector"
fetch "/api/v1/pods?watch=1" "${NODE[@]}"
check "... nor watch them" forbidden_because \
    "cannot watch resource \"pods\" in API group \"\" at the cluster scope: can only list/watch pods with spec.nodeName field selector"
fetch "/api/v1/pods?fieldSelector=spec.nodeName%3Dn2" "${NODE[@]}"
check "... nor list another node's" forbidden_because \
    "can only list/watch pods with spec.nodeName field selector"
fetch "/api/v1/pods?fieldSelector=spec.nodeName!%3Dn1" "${NODE[@]}"
check "... nor with spec.nodeName!=n1" test "$CODE" = 403
fetch "$NS/pods?fieldSelector=metadata.name%3Dp1" "${NODE[@]}"
check "n1 lists one pod of its own by metadata.name" names_are p1
fetch "$NS/pods?fieldSelector=metadata.name%3Dp2" "${NODE[@]}"
check "... but not one on n2" forbidden_because \
    "no relationship found between node 'n1' and this object"

review $AZ/selfsubjectaccessreviews \
    "{\"resourceAttributes\":{$LIST_PODS,\"fieldSelector\":{\"rawSelector\":\"spec.nodeName=n1\"}}}" \
    "${NODE[@]}"
check "SelfSubjectAccessReview: n1 may list pods with spec.nodeName=n1" allowed_is True
review $AZ/selfsubjectaccessreviews "{\"resourceAttributes\":{$LIST_PODS}}" "${NODE[@]}"
check "... not without it, with the reason" allowed_is False \
    "can only list/watch pods with spec.nodeName field selector"
review $AZ/subjectaccessreviews \
    "{$AS_N1,\"resourceAttributes\":{$LIST_PODS,\"fieldSelector\":$IN_N1}}" "${ADMIN[@]}"
check "SubjectAccessReview: requirements In [n1] allowed" allowed_is True
review $AZ/subjectaccessreviews \
    "{$AS_N1,\"resourceAttributes\":{$LIST_PODS,\"fieldSelector\":${IN_N1/In/NotIn}}}" "${ADMIN[@]}"
check "... NotIn [n1] not" allowed_is False \
    "can only list/watch pods with spec.nodeName field selector"
review $AZ/subjectaccessreviews \
    "{$AS_N1,\"resourceAttributes\":{$LIST_PODS,\"fieldSelector\":${IN_N1/\"n1\"/\"n1\",\"n2\"}}}" \
    "${ADMIN[@]}"
check "... In [n1 n2] (kube makes no selector of it) not" allowed_is False \
    "can only list/watch pods with spec.nodeName field selector"
review $AZ/subjectaccessreviews \
    "{$AS_N1,\"resourceAttributes\":{$LIST_PODS,\"fieldSelector\":$IN_N1,\"labelSelector\":{\"requirements\":[{\"key\":\"app\",\"operator\":\"Unheard\",\"values\":[\"x\"]}]}}}" \
    "${ADMIN[@]}"
check "... an unknown label operator is let through" allowed_is True
review $AZ/namespaces/default/localsubjectaccessreviews \
    "{$AS_N1,\"resourceAttributes\":{\"verb\":\"watch\",\"resource\":\"pods\",\"namespace\":\"default\",\"fieldSelector\":{\"rawSelector\":\"spec.nodeName==n1\"}}}" \
    "${ADMIN[@]}"
check "LocalSubjectAccessReview: watch with spec.nodeName==n1 allowed" allowed_is True
review $AZ/subjectaccessreviews \
    "{$AS_N1,\"resourceAttributes\":{$LIST_PODS,\"fieldSelector\":{\"rawSelector\":\"spec.nodeName=n1\",\"requirements\":[{\"key\":\"spec.nodeName\",\"operator\":\"In\",\"values\":[\"n1\"]}]}}}" \
    "${ADMIN[@]}"
check "rawSelector with requirements: 422" invalid_because \
    spec.resourceAttributes.fieldSelector.rawSelector \
    'Invalid value: "spec.nodeName=n1": may not specified at the same time as requirements'
review $AZ/selfsubjectaccessreviews "{\"resourceAttributes\":{$LIST_PODS,\"fieldSelector\":{}}}" \
    "${NODE[@]}"
check "neither rawSelector nor requirements: 422" invalid_because \
    spec.resourceAttributes.fieldSelector.requirements \
    'Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required'
review $AZ/subjectaccessreviews \
    "{$AS_N1,\"resourceAttributes\":{$LIST_PODS,\"fieldSelector\":{\"requirements\":[{\"key\":\"\",\"operator\":\"Exists\",\"values\":[\"x\"]}]}}}" \
    "${ADMIN[@]}"
check "a field requirement without a key: 422" invalid_because \
    'spec.resourceAttributes.fieldSelector.requirements[0].key' 'Required value: must be specified'
check "... Exists with values" invalid_because \
    'spec.resourceAttributes.fieldSelector.requirements[0].values' \
    "Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'"
review $AZ/subjectaccessreviews \
    "{$AS_N1,\"resourceAttributes\":{$LIST_PODS,\"labelSelector\":{\"requirements\":[{\"key\":\"a b\",\"operator\":\"In\"}]}}}" \
    "${ADMIN[@]}"
check "a label requirement In without values: 422" invalid_because \
    'spec.resourceAttributes.labelSelector.requirements[0].values' \
    "Required value: must be specified when \`operator\` is 'In' or 'NotIn'"
check "... and its bad key" jpy \
    "any(c['field'] == 'spec.resourceAttributes.labelSelector.requirements[0].key' and c['message'].startswith('Invalid value: \"a b\": ') for c in d['details']['causes'])"

if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    check "kubectl auth can-i list pods as n1: no" \
        eval '! k auth can-i list pods --as=system:node:n1 --as-group=system:nodes && has no'
    check "kubectl auth can-i get nodes/n1 as n1: yes" \
        k auth can-i get nodes/n1 --as=system:node:n1 --as-group=system:nodes
else
    check "# SKIP kubectl 1.32 is not here" true
    check "# SKIP kubectl 1.32 is not here" true
fi

LEASE='{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"n1"},"spec":{"holderIdentity":"n1"}}'
check "kube-node-lease exists" until_code 200 /api/v1/namespaces/kube-node-lease "${ADMIN[@]}"
send POST $LEASES "$LEASE" "${NODE[@]}"
check "n1 creates its lease" test "$CODE" = 201
send PATCH $LEASES/n1 '{"spec":{"leaseDurationSeconds":40}}' "${NODE[@]}"
check "... and renews it" test "$CODE" = 200
fetch $LEASES/n2 "${NODE[@]}"
check "... but may not read n2's" forbidden_because \
    "can only access node lease with the same name as the requesting node"

fetch $NS/services "${NODE[@]}"
check "n1 lists services (static rules)" test "$CODE" = 200
send POST $NS/events '{"apiVersion":"v1","kind":"Event","metadata":{"name":"n1.1"},"involvedObject":{"kind":"Node","name":"n1"},"reason":"Starting","message":"kubelet up","type":"Normal"}' "${NODE[@]}"
check "n1 posts an event" test "$CODE" = 201
send DELETE /api/v1/nodes/n2 '' "${NODE[@]}"
check "... but may not delete another node's Node" forbidden_because \
    "node 'n1' can only modify its own Node object"

send DELETE $NS/pods/p1 '{"gracePeriodSeconds":0}' "${ADMIN[@]}"
check "admin deletes p1" test "$CODE" = 200
check "n1 loses the secret once its pod is gone" until_code 403 $NS/secrets/s1 "${NODE[@]}"

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report from C" no_sanitizer_report "$KGATE_LOG"
tap_end
