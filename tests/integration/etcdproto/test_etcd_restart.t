#!/usr/bin/env bash
# Restart etcd under test_etcd_restart when it asks (by creating $KGATE_TEST_RESTART_REQ):
# SIGKILL, then start it again on the same ports and data; $KGATE_TEST_RESTART_DONE says so.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tests/lib/etcd.sh
export KGATE_TEST_TMP=${KGATE_TEST_TMP:?}/restart-$$
mkdir -p "$KGATE_TEST_TMP"
trap stop_all EXIT
dir=$KGATE_TEST_TMP/etcd-restart
mkdir -p "$dir"
cport=$(free_port)
pport=$(free_port)

start_member() {
    etcd --name restart --data-dir "$dir/data" \
        --listen-client-urls "http://127.0.0.1:$cport" \
        --advertise-client-urls "http://127.0.0.1:$cport" \
        --listen-peer-urls "http://127.0.0.1:$pport" \
        --initial-advertise-peer-urls "http://127.0.0.1:$pport" \
        --initial-cluster "restart=http://127.0.0.1:$pport" \
        --logger zap --log-level warn >>"$dir/log" 2>&1 &
    member=$!
    echo "$member" >>"$KGATE_TEST_TMP/pids"
}

start_member
etcd_wait "http://127.0.0.1:$cport"
export KGATE_TEST_ETCD=http://127.0.0.1:$cport
export KGATE_TEST_RESTART_REQ=$KGATE_TEST_TMP/restart-req
export KGATE_TEST_RESTART_DONE=$KGATE_TEST_TMP/restart-done
"${KGATE_BUILD:-build/san}/tests/integration/etcdproto/test_etcd_restart" &
test_pid=$!
for _ in $(seq 600); do
    [[ -e $KGATE_TEST_RESTART_REQ ]] && break
    kill -0 "$test_pid" 2>/dev/null || break
    sleep 0.05
done
if [[ -e $KGATE_TEST_RESTART_REQ ]]; then
    kill -KILL "$member"
    wait "$member" 2>/dev/null || true
    start_member
    etcd_wait "http://127.0.0.1:$cport"
    touch "$KGATE_TEST_RESTART_DONE"
fi
wait "$test_pid"
