#!/usr/bin/env bash
# Two kgate instances on one etcd prefix: a write through either is seen by watchers on the
# other; when the instance serving a watch is killed, the client watches again on the other
# from the last resourceVersion it got and misses nothing written meanwhile.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/watch_lib.sh
e2e_require watch_instances

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
KCURL_AUTH=("${ADMIN[@]}") # anonymous is off under AlwaysAllow
trap stop_all EXIT
PREFIX=/registry-watchinst-$$
declare -A PID URL LOG

# start NAME: a kgate on the shared prefix, ready to serve.
start() {
    kgate_start "$1" --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --shutdown-delay-duration=0s --workers=2
    PID[$1]=$KGATE_PID URL[$1]=$KGATE_URL LOG[$1]=$KGATE_LOG
    wait_for_code /readyz 200
}

# on NAME: the helpers (req, watch_start, metric) talk to instance NAME from now on.
on() { KGATE_URL=${URL[$1]} KGATE_PID=${PID[$1]} KGATE_LOG=${LOG[$1]}; }

check "instance a starts" start a
check "instance b starts" start b
W=$CORE/configmaps

on a
req GET "$W"
rv0=$(rv_of)
watch_start on_a "$W?watch=1&resourceVersion=$rv0"
check "a watch on a" metric_is kgate_watchers 1
on b
watch_start on_b "$W?watch=1&resourceVersion=$rv0"
check "a watch on b" metric_is kgate_watchers 1
req POST $W "$(cm x1)"
rv1=$(rv_of)
on a
req POST $W "$(cm x2)"
rv2=$(rv_of)
check "a write through b is seen on a (and a's own)" events_are on_a "ADDED x1 $rv1
ADDED x2 $rv2"
check "a write through a is seen on b (and b's own)" events_are on_b "ADDED x1 $rv1
ADDED x2 $rv2"

# a dies mid-watch; writes go on through b before the client comes back.
on b
req PATCH $W/x1 '{"data":{"k":"2"}}' application/merge-patch+json
rv3=$(rv_of)
check "a's watcher sees the change" events_are on_a "ADDED x1 $rv1
ADDED x2 $rv2
MODIFIED x1 $rv3"
kill -9 "${PID[a]}"
wait "${PID[a]}" 2>/dev/null
check "a is killed; its client's stream breaks" watch_wait_end on_a 10
last=$(events on_a | tail -1 | cut -d' ' -f3)
req DELETE $W/x2
req POST $W "$(cm x3)"
rv5=$(rv_of)
req PATCH $W/x3 '{"data":{"k":"2"}}' application/merge-patch+json
rv6=$(rv_of)
watch_start again "$W?watch=1&resourceVersion=$last"
resumed() {
    wait_events again 3 || return 1
    [[ $(events again | cut -d' ' -f1,2) == "DELETED x2
ADDED x3
MODIFIED x3" ]] || { diag "$(events again)"; return 1; }
    [[ $(events again | tail -1 | cut -d' ' -f3) == "$rv6" ]]
}
check "the client watches again on b from its last resourceVersion: nothing missed" resumed
check "... nothing repeated" test "$(events again | awk '$3 <= '"$last"' {n++} END {print n + 0}')" == 0
check "b's first watcher saw the same changes" events_are on_b "ADDED x1 $rv1
ADDED x2 $rv2
MODIFIED x1 $rv3
$(events again | sed -n 1p)
ADDED x3 $rv5
MODIFIED x3 $rv6"
watch_stop on_b
watch_stop again
check "b exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
