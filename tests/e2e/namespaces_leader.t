#!/usr/bin/env bash
# Several kgate instances on one etcd prefix: every one ensures the initial namespaces, only
# the elected one runs the namespace controller (its log says "namespace controller started"),
# and that one empties and removes a namespace marked for deletion. A graceful stop hands the
# controller over at once (the lease is revoked); a killed leader is succeeded once its lease
# expires (15 s).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
e2e_require namespaces_leader

PKI=$KGATE_TEST_TMP/pki
e2e_pki "$PKI"
# anonymous is off under AlwaysAllow
KCURL_AUTH=(--cert "$PKI/admin.crt" --key "$PKI/admin.key")
trap stop_all EXIT
PREFIX=/registry-nsleader-$$
ELECTION=/kgate/leader$PREFIX/namespace-controller
declare -A PID LOG URL

etcdctl_() { ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" "$@"; }

# start NAME: a kgate on the shared prefix, ready to serve.
start() {
    kgate_start "$1" --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --shutdown-delay-duration=0s
    PID[$1]=$KGATE_PID LOG[$1]=$KGATE_LOG URL[$1]=$KGATE_URL
    wait_for_code /readyz 200
}

# leads NAME: NAME runs the namespace controller now (its last start/stop line is a start).
leads() {
    alive "${PID[$1]}" &&
        grep -E 'namespace controller (started|stopped)$' "${LOG[$1]}" | tail -1 | grep -q started
}

# leaders: the names of the instances running the controller.
leaders() {
    local n
    for n in "${!PID[@]}"; do leads "$n" && echo "$n"; done
}

# wait_one_leader SECONDS: until exactly one instance leads.
wait_one_leader() {
    for ((i = 0; i < $1 * 10; i++)); do
        [[ $(leaders | wc -l) -eq 1 ]] && return 0
        sleep 0.1
    done
    return 1
}

# gone KEY...: wait (up to 30 s) until none of the etcd keys exists.
gone() {
    for _ in $(seq 300); do
        local left=0 k
        for k in "$@"; do [[ -n $(etcdctl_ get "$k" --keys-only) ]] && left=1; done
        [[ $left -eq 0 ]] && return 0
        sleep 0.1
    done
    return 1
}

# doom NAME: a configmap, then its namespace marked for deletion, straight into etcd (in that
# order: the controller may finish the namespace as soon as it sees it).
doom() {
    etcdctl_ put "$PREFIX/configmaps/$1/cm" '{"kind":"ConfigMap"}' >/dev/null &&
        etcdctl_ put "$PREFIX/namespaces/$1" "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\
\"metadata\":{\"name\":\"$1\",\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"},\
\"spec\":{\"finalizers\":[\"kubernetes\"]},\"status\":{\"phase\":\"Terminating\"}}" >/dev/null
}

check "instance a starts" start a
check "instance b starts" start b
initial=$(etcdctl_ get --prefix "$PREFIX/namespaces/" --keys-only | grep -c .)
check "the four initial namespaces exist (got $initial)" test "$initial" = 4
check "exactly one instance runs the namespace controller" wait_one_leader 20
first=$(leaders)
holder=$(etcdctl_ get "$ELECTION" --print-value-only)
check "the election key names it ($holder)" grep -q "leading as $holder\$" "${LOG[$first]}"
sleep 1
check "still only one" test "$(leaders | wc -l)" = 1

check "a namespace marked for deletion, with a configmap" doom one
check "is emptied and removed" gone "$PREFIX/namespaces/one" "$PREFIX/configmaps/one/cm"

kill -TERM "${PID[$first]}"
wait_exit "${PID[$first]}"
check "the leader stops cleanly (exit $EXIT_CODE)" test "$EXIT_CODE" = 0
check "without a sanitizer report" no_sanitizer_report "${LOG[$first]}"
unset "PID[$first]"
check "the other instance takes over at once" wait_one_leader 10
second=$(leaders)

check "instance c starts" start c
check "c does not lead while $second does" test "$(leaders)" = "$second"
kill -KILL "${PID[$second]}"
wait "${PID[$second]}" 2>/dev/null
unset "PID[$second]"
check "a killed leader is succeeded once its lease expires" wait_one_leader 40
check "by c" leads c
check "which removes the next namespace marked for deletion" doom two
check "emptied and removed" gone "$PREFIX/namespaces/two" "$PREFIX/configmaps/two/cm"

kill -TERM "${PID[c]}"
wait_exit "${PID[c]}"
check "c stops cleanly (exit $EXIT_CODE)" test "$EXIT_CODE" = 0
check "without a sanitizer report" no_sanitizer_report "${LOG[c]}"
check "and releases the election" test -z "$(etcdctl_ get "$ELECTION" --keys-only)"
etcdctl_ del --prefix "$PREFIX/" >/dev/null
tap_end
