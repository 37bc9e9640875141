#!/usr/bin/env bash
# The scale-out row of `make bench` (bench/run.sh runs it; it also runs alone): three kgate
# instances on one etcd prefix, haproxy in TCP mode with three frontends (in front of the first
# instance, the first two, all three) and bench_scaleout through them.
# Usage: bench/scaleout.sh PKI_DIR ETCD_URL PREFIX
#   PKI_DIR as bench/run.sh makes it (ca.crt, server.crt/.key naming 127.0.0.1, admin.crt/.key).
#   KGATE_BUILD names the build (default build); scratch files go under KGATE_TEST_TMP (default
#   a directory of its own under /tmp), and what this script starts it stops.
set -euo pipefail
cd "$(dirname "$0")/.."
KGATE_BUILD=${KGATE_BUILD:-build}
PKI=$1 ETCD=$2 PREFIX=$3
source tests/lib/etcd.sh
export KGATE_TEST_TMP
KGATE_TEST_TMP=$(mktemp -d "${KGATE_TEST_TMP:-/tmp}/scaleout.XXXXXX")
trap 'stop_all; rm -rf "$KGATE_TEST_TMP"' EXIT

if ! command -v haproxy >/dev/null; then
    echo "scale-out: skipped, haproxy is not installed (scripts/install-deps.sh)"
    exit 0
fi

# ready URL: wait (up to 15 s) until URL/readyz answers the admin 200.
ready() {
    for _ in $(seq 150); do
        curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
            "$1/readyz" >/dev/null && return 0
        sleep 0.1
    done
    echo "scale-out: $1 did not become ready" >&2
    return 1
}

# Each instance with kgate's defaults (--workers = CPUs), waited for until ready.
ports=()
for i in 0 1 2; do
    port=$(free_port)
    "$KGATE_BUILD/kgate" --bind-address=127.0.0.1 --secure-port="$port" --etcd-servers="$ETCD" \
        --etcd-prefix="$PREFIX" --tls-cert-file="$PKI/server.crt" \
        --tls-private-key-file="$PKI/server.key" --client-ca-file="$PKI/ca.crt" \
        >"$KGATE_TEST_TMP/kgate-$i.log" 2>&1 &
    echo $! >>"$KGATE_TEST_TMP/pids"
    ready "https://127.0.0.1:$port" || { cat "$KGATE_TEST_TMP/kgate-$i.log" >&2; exit 1; }
    ports+=("$port")
done

# Three frontends: the first instance, the first two, all three. TCP mode: TLS stays end to
# end, so the client certificate reaches kgate, and haproxy costs the least CPU it can.
urls=()
{
    printf 'global\n    maxconn 2000\ndefaults\n    mode tcp\n    timeout connect 5s\n'
    printf '    timeout client 60s\n    timeout server 60s\n'
    for n in 1 2 3; do
        lb=$(free_port)
        urls+=("https://127.0.0.1:$lb")
        printf 'listen k%d\n    bind 127.0.0.1:%s\n    balance roundrobin\n' "$n" "$lb"
        for ((i = 0; i < n; i++)); do
            printf '    server k%d 127.0.0.1:%s\n' "$i" "${ports[i]}"
        done
    done
} >"$KGATE_TEST_TMP/haproxy.cfg"
haproxy -f "$KGATE_TEST_TMP/haproxy.cfg" -db >"$KGATE_TEST_TMP/haproxy.log" 2>&1 &
echo $! >>"$KGATE_TEST_TMP/pids"
ready "${urls[2]}"

"$KGATE_BUILD/bench/bench_scaleout" "$PKI" "${urls[@]}"
