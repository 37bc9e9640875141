# An etcd outage for an integration test binary: one member whose client port moves aside while
# the binary is cut off. Source after tests/lib/etcd.sh; the caller defines
#   change_aside: what happens while the binary cannot see etcd (the member listens on
#                 $aside; etcdctl_aside runs etcdctl there)
# then calls etcd_outage_run NAME BINARY. The binary asks for the outage by creating
# $KGATE_TEST_OUTAGE_REQ and learns it is over from $KGATE_TEST_OUTAGE_DONE.

# etcdctl against the member while it listens aside.
etcdctl_aside() {
    etcdctl --endpoints="http://127.0.0.1:$aside" "$@"
}

# Compact all history of the member while it listens aside.
compact_aside() {
    local rev
    rev=$(etcdctl_aside endpoint status -w json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]["header"]["revision"])')
    etcdctl_aside compact "$rev" >/dev/null
}

# start_member PORT: the one member, on client port PORT.
start_member() {
    etcd --name "$outage_name" --data-dir "$outage_dir/data" \
        --listen-client-urls "http://127.0.0.1:$1" \
        --advertise-client-urls "http://127.0.0.1:$1" \
        --listen-peer-urls "http://127.0.0.1:$pport" \
        --initial-advertise-peer-urls "http://127.0.0.1:$pport" \
        --initial-cluster "$outage_name=http://127.0.0.1:$pport" \
        --logger zap --log-level warn >>"$outage_dir/log" 2>&1 &
    member=$!
    echo "$member" >>"$KGATE_TEST_TMP/pids"
    etcd_wait "http://127.0.0.1:$1"
}

stop_member() {
    kill -KILL "$member"
    wait "$member" 2>/dev/null || true
}

# etcd_outage_run NAME BINARY: run BINARY (a path under the build's tests/) on a fresh member;
# when it asks, restart the member aside, change_aside, restart it on its port and say so.
etcd_outage_run() {
    local test_pid
    outage_name=$1
    KGATE_TEST_TMP=$(mktemp -d "${KGATE_TEST_TMP:-/tmp}/$1.XXXXXX")
    export KGATE_TEST_TMP
    trap 'stop_all; rm -rf "$KGATE_TEST_TMP"' EXIT
    outage_dir=$KGATE_TEST_TMP/etcd-$1
    mkdir -p "$outage_dir"
    cport=$(free_port)
    aside=$(free_port)
    pport=$(free_port)
    start_member "$cport"
    export KGATE_TEST_ETCD=http://127.0.0.1:$cport
    export KGATE_TEST_OUTAGE_REQ=$KGATE_TEST_TMP/outage-req
    export KGATE_TEST_OUTAGE_DONE=$KGATE_TEST_TMP/outage-done
    "${KGATE_BUILD:-build/san}/tests/$2" &
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
}
