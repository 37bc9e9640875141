#!/usr/bin/env bash
# Take etcd away from test_gw_informer when it asks ($KGATE_TEST_OUTAGE_REQ, holding the key
# prefix it watches): restart the member on another client port, change c, add e, delete d and
# compact history there, then restart it on the original port and say so
# ($KGATE_TEST_OUTAGE_DONE).
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tests/lib/etcd.sh
parent=${KGATE_TEST_TMP:-/tmp}
KGATE_TEST_TMP=$(mktemp -d "$parent/informer.XXXXXX")
export KGATE_TEST_TMP
trap 'stop_all; rm -rf "$KGATE_TEST_TMP"' EXIT
dir=$KGATE_TEST_TMP/etcd-informer
mkdir -p "$dir"
cport=$(free_port)
aside=$(free_port)
pport=$(free_port)

# start_member PORT: the one member, on client port PORT.
start_member() {
    etcd --name informer --data-dir "$dir/data" \
        --listen-client-urls "http://127.0.0.1:$1" \
        --advertise-client-urls "http://127.0.0.1:$1" \
        --listen-peer-urls "http://127.0.0.1:$pport" \
        --initial-advertise-peer-urls "http://127.0.0.1:$pport" \
        --initial-cluster "informer=http://127.0.0.1:$pport" \
        --logger zap --log-level warn >>"$dir/log" 2>&1 &
    member=$!
    echo "$member" >>"$KGATE_TEST_TMP/pids"
    etcd_wait "http://127.0.0.1:$1"
}

stop_member() {
    kill -KILL "$member"
    wait "$member" 2>/dev/null || true
}

# Change the watched keys where the informer cannot see it, then compact all history.
change_aside() {
    local e=(etcdctl --endpoints="http://127.0.0.1:$aside") p
    p=$(head -n1 "$KGATE_TEST_OUTAGE_REQ")
    "${e[@]}" put "${p}c" '{"v":"c2"}' >/dev/null
    "${e[@]}" put "${p}e" '{"v":"e1"}' >/dev/null
    "${e[@]}" del "${p}d" >/dev/null
    local rev
    rev=$("${e[@]}" endpoint status -w json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]["header"]["revision"])')
    "${e[@]}" compact "$rev" >/dev/null
}

start_member "$cport"
export KGATE_TEST_ETCD=http://127.0.0.1:$cport
export KGATE_TEST_OUTAGE_REQ=$KGATE_TEST_TMP/outage-req
export KGATE_TEST_OUTAGE_DONE=$KGATE_TEST_TMP/outage-done
"${KGATE_BUILD:-build/san}/tests/integration/controllers/test_gw_informer" &
test_pid=$!
for _ in $(seq 600); do
    [[ -e $KGATE_TEST_OUTAGE_REQ ]] && break
    kill -0 "$test_pid" 2>/dev/null || break
    sleep 0.05
done
if [[ -e $KGATE_TEST_OUTAGE_REQ ]]; then
    stop_member
    start_member "$aside"
    change_aside
    stop_member
    start_member "$cport"
    touch "$KGATE_TEST_OUTAGE_DONE"
fi
wait "$test_pid"
