#!/usr/bin/env bash
# The Node authorizer end to end, --authorization-mode=Node,RBAC with a token user
# system:node:n1 in system:nodes: it reads the secret its pod mounts and that pod, is refused
# a pod and a secret of a pod on another node (in kube's words), patches its own Node's status
# but not another's, keeps its Lease, and loses the secret once its pod is gone.
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

# send METHOD PATH BODY CURL-ARGS...: into $OUT; sets CODE. A PATCH is a merge patch.
send() {
    local method=$1 path=$2 body=$3 type=application/json; shift 3
    [[ $method == PATCH ]] && type=application/merge-patch+json
    OUT=$KGATE_TEST_TMP/body
    CODE=$(kcurl -o "$OUT" -w '%{http_code}' -X "$method" -H "Content-Type: $type" \
        --data-binary "$body" "$@" "$KGATE_URL$path")
}

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

check "kgate starts with Node,RBAC" api_start node --authorization-mode=Node,RBAC
check "admin creates nodes n1 and n2" eval 'created /api/v1/nodes "$(node n1)" && created /api/v1/nodes "$(node n2)"'
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
check "... and reading another node" test "$CODE" = 403
fetch /api/v1/nodes "${NODE[@]}"
check "n1 lists nodes" test "$CODE" = 200

LEASE='{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"n1"},"spec":{"holderIdentity":"n1"}}'
check "kube-node-lease exists" until_code 200 /api/v1/namespaces/kube-node-lease "${ADMIN[@]}"
send POST $LEASES "$LEASE" "${NODE[@]}"
check "n1 creates its lease" test "$CODE" = 201
send PATCH $LEASES/n1 '{"spec":{"leaseDurationSeconds":40}}' "${NODE[@]}"
check "... and renews it" test "$CODE" = 200
fetch $LEASES/n2 "${NODE[@]}"
check "... but may not read n2's" forbidden_because \
    "can only access node lease with the same name as the requesting node"

send DELETE $NS/pods/p1 '{"gracePeriodSeconds":0}' "${ADMIN[@]}"
check "admin deletes p1" test "$CODE" = 200
check "n1 loses the secret once its pod is gone" until_code 403 $NS/secrets/s1 "${NODE[@]}"

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report from C" no_sanitizer_report "$KGATE_LOG"
tap_end
