# Start and stop throwaway etcd members on free loopback ports; sourced by tests/run.sh and
# by the .t scripts that need a topology of their own (TLS, several members, restarts).
# Everything lives under $KGATE_TEST_TMP, which the caller creates and removes.

# free_port: print a TCP port nobody listens on right now.
free_port() {
    perl -MIO::Socket::INET -e \
        'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0")->sockport, "\n"'
}

# etcd_wait URL [CURL_ARGS...]: wait (up to 15 s) until the member at URL reports healthy.
etcd_wait() {
    local url=$1; shift
    for _ in $(seq 150); do
        curl -sf "$@" "$url/health" 2>/dev/null | grep -q '"health":"true"' && return 0
        sleep 0.1
    done
    echo "etcd at $url did not become healthy" >&2
    return 1
}

# etcd_start NAME [SCHEME [EXTRA ETCD ARGS...]]: start a one-member cluster NAME on free ports.
# Sets ETCD_URL (client URL) and ETCD_PID; the member's data and log are in
# $KGATE_TEST_TMP/etcd-NAME. SCHEME https needs --cert-file/--key-file in the extra args.
etcd_start() {
    local name=$1 scheme=${2:-http}; shift; [[ $# -gt 0 ]] && shift
    local cport pport dir=$KGATE_TEST_TMP/etcd-$name
    cport=$(free_port); pport=$(free_port)
    mkdir -p "$dir"
    etcd --name "$name" --data-dir "$dir/data" \
        --listen-client-urls "$scheme://127.0.0.1:$cport" \
        --advertise-client-urls "$scheme://127.0.0.1:$cport" \
        --listen-peer-urls "http://127.0.0.1:$pport" \
        --initial-advertise-peer-urls "http://127.0.0.1:$pport" \
        --initial-cluster "$name=http://127.0.0.1:$pport" \
        --logger zap --log-level warn "$@" >"$dir/log" 2>&1 &
    ETCD_PID=$!
    ETCD_URL=$scheme://127.0.0.1:$cport
    echo "$ETCD_PID" >>"$KGATE_TEST_TMP/pids"
}

# etcd_cluster_start PREFIX N: start an N-member cluster; sets ETCD_URLS (array) and
# ETCD_PIDS (array), member i named PREFIX-i. Waits until every member is healthy.
etcd_cluster_start() {
    local prefix=$1 n=$2 i cluster="" cports=() pports=()
    for ((i = 0; i < n; i++)); do
        cports+=("$(free_port)"); pports+=("$(free_port)")
        cluster+="${cluster:+,}$prefix-$i=http://127.0.0.1:${pports[i]}"
    done
    ETCD_URLS=(); ETCD_PIDS=()
    for ((i = 0; i < n; i++)); do
        local dir=$KGATE_TEST_TMP/etcd-$prefix-$i
        mkdir -p "$dir"
        etcd --name "$prefix-$i" --data-dir "$dir/data" \
            --listen-client-urls "http://127.0.0.1:${cports[i]}" \
            --advertise-client-urls "http://127.0.0.1:${cports[i]}" \
            --listen-peer-urls "http://127.0.0.1:${pports[i]}" \
            --initial-advertise-peer-urls "http://127.0.0.1:${pports[i]}" \
            --initial-cluster "$cluster" --initial-cluster-state new \
            --logger zap --log-level warn >"$dir/log" 2>&1 &
        ETCD_PIDS+=($!); ETCD_URLS+=("http://127.0.0.1:${cports[i]}")
        echo "$!" >>"$KGATE_TEST_TMP/pids"
    done
    for ((i = 0; i < n; i++)); do etcd_wait "${ETCD_URLS[i]}" || return 1; done
}

# stop_all: kill every process started through these helpers (safe to call twice).
stop_all() {
    [[ -f $KGATE_TEST_TMP/pids ]] || return 0
    while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$KGATE_TEST_TMP/pids"
    while read -r pid; do wait "$pid" 2>/dev/null || true; done <"$KGATE_TEST_TMP/pids"
    rm -f "$KGATE_TEST_TMP/pids"
}
