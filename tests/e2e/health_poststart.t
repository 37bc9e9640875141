#!/usr/bin/env bash
# kube-apiserver's post-start hooks in kgate's health checks: /readyz stays failing while the
# default RBAC policy cannot be reconciled (a corrupt ClusterRole stands in the way), naming the
# hook, and passes once it is; the kubernetes Service's endpoints wait for readiness; the system
# PriorityClasses are created as kube's scheduling/bootstrap-system-priority-classes does.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require health_poststart

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
KCURL_AUTH=("${ADMIN[@]}")
trap stop_all EXIT
PREFIX=/registry-poststart-$$
etcdctl_() { ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" "$@" >/dev/null; }

check "a corrupt ClusterRole cluster-admin is in etcd" \
    etcdctl_ put "$PREFIX/clusterroles/cluster-admin" 'not an object{'
kgate_start hooks --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
    --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
    --client-ca-file="$PKI/ca.crt" --shutdown-delay-duration=0s --workers=2
check "kgate serves" wait_for_line "listening on https://127.0.0.1:$KGATE_PORT" "$KGATE_LOG"
check "the start-up state is confirmed (informer-sync)" \
    wait_for_line "poststarthook/start-system-namespaces-controller: done" "$KGATE_LOG"
sleep 2
body=$(kcurl "$KGATE_URL/readyz?verbose")
check "/readyz fails while the RBAC policy is not reconciled" test "$(http_code /readyz)" = 500
check "its verbose list names the hook, reason withheld" \
    grep -qx '\[-\]poststarthook/rbac/bootstrap-roles failed: reason withheld' <<<"$body"
check "the other checks pass" test "$(grep -c '^\[-\]' <<<"$body")" = 1
check "/readyz/poststarthook/rbac/bootstrap-roles says it is not finished" \
    test "$(kcurl "$KGATE_URL/readyz/poststarthook/rbac/bootstrap-roles")" = \
    "internal server error: not finished"
check "/readyz?exclude=poststarthook/rbac/bootstrap-roles passes" \
    test "$(http_code "/readyz?exclude=poststarthook/rbac/bootstrap-roles")" = 200
check "/livez lists the hook too (no grace period given)" \
    grep -qx '\[-\]poststarthook/rbac/bootstrap-roles failed: reason withheld' \
    <<<"$(kcurl "$KGATE_URL/livez?verbose")"
check "the kubernetes Service's endpoints wait for readiness" \
    test "$(http_code /api/v1/namespaces/default/endpoints/kubernetes)" = 404
check "the system PriorityClasses did not wait" \
    test "$(http_code /apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical)" = 200

check "the corrupt ClusterRole is removed" etcdctl_ del "$PREFIX/clusterroles/cluster-admin"
check "/readyz passes once the policy is reconciled" wait_for_code /readyz 200 10
check "cluster-admin is there again" \
    test "$(http_code /apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin)" = 200
check "the kubernetes Service's endpoints follow readiness" \
    wait_for_code /api/v1/namespaces/default/endpoints/kubernetes 200 10

pc() {
    kcurl "$KGATE_URL/apis/scheduling.k8s.io/v1/priorityclasses/$1" | python3 -c "
import json, sys
d = json.load(sys.stdin)
print(d['value'], d.get('globalDefault', False), d['preemptionPolicy'], d['description'])"
}
check "system-node-critical is kube's" test "$(pc system-node-critical)" = \
    "2000001000 False PreemptLowerPriority Used for system critical pods that must not be moved from their current node."
check "system-cluster-critical is kube's" test "$(pc system-cluster-critical)" = \
    "2000000000 False PreemptLowerPriority Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."
kcurl -X DELETE -o /dev/null "$KGATE_URL/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical"
check "a deleted system PriorityClass is not recreated before the next start" \
    test "$(http_code /apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical)" = 404
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID" 30
check "kgate exits cleanly" test "$EXIT_CODE" = 0
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
kgate_start again --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
    --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
    --client-ca-file="$PKI/ca.crt" --shutdown-delay-duration=0s --workers=2
check "a restarted kgate is ready" wait_for_code /readyz 200
check "it created the missing PriorityClass again" \
    test "$(pc system-node-critical | cut -d' ' -f1)" = 2000001000
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID" 30
exited_cleanly() { [[ $EXIT_CODE == 0 ]] && no_sanitizer_report "$KGATE_LOG"; }
check "the restarted kgate exits cleanly, without a sanitizer report" exited_cleanly
tap_end
