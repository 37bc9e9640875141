#!/usr/bin/env bash
# `make bench`: run every benchmark and print their tables: bench_etcd against etcd, then
# bench_api against $KGATE_BUILD/kgate in front of that etcd. The etcd is a throwaway one on
# free loopback ports unless KGATE_BENCH_ETCD=http://host:port points at an existing one
# (bench_api's objects are removed from it afterwards). BENCH_SECONDS sets the measured
# duration of each row. Builds nothing: make has done that.
set -euo pipefail
cd "$(dirname "$0")/.."
KGATE_BUILD=${KGATE_BUILD:-build}
source tests/lib/etcd.sh
source scripts/pki.sh

# The CEL library alone: no etcd.
"$KGATE_BUILD/bench/bench_cel"
echo

export KGATE_TEST_TMP
KGATE_TEST_TMP=$(mktemp -d /tmp/kgate-bench.XXXXXX)
PREFIX=/bench-api-$$
OWN_ETCD=
cleanup() {
    stop_all
    if [[ -z $OWN_ETCD ]]; then
        ETCDCTL_API=3 etcdctl --endpoints="$KGATE_BENCH_ETCD" del --prefix "$PREFIX/" >/dev/null
    fi
    rm -rf "$KGATE_TEST_TMP"
}
trap cleanup EXIT

if [[ -z ${KGATE_BENCH_ETCD:-} ]]; then
    OWN_ETCD=1
    etcd_start bench
    etcd_wait "$ETCD_URL"
    KGATE_BENCH_ETCD=$ETCD_URL
fi
export KGATE_BENCH_ETCD

"$KGATE_BUILD/bench/bench_etcd" "$KGATE_BENCH_ETCD"
echo

# kgate with its defaults (--workers = CPUs) under a prefix of its own, the admin presenting
# a client certificate as kubectl would.
PKI=$KGATE_TEST_TMP/pki
pki_ca "$PKI" ca
pki_cert "$PKI" ca server server "/CN=kgate" "IP:127.0.0.1"
pki_cert "$PKI" ca admin client "/O=system:masters/CN=kubernetes-admin"
PORT=$(free_port)
LOG=$KGATE_TEST_TMP/kgate.log
"$KGATE_BUILD/kgate" --bind-address=127.0.0.1 --secure-port="$PORT" \
    --etcd-servers="$KGATE_BENCH_ETCD" --etcd-prefix="$PREFIX" \
    --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
    --client-ca-file="$PKI/ca.crt" >"$LOG" 2>&1 &
echo $! >>"$KGATE_TEST_TMP/pids"
READY=
for _ in $(seq 150); do
    curl -sf --cacert "$PKI/ca.crt" "https://127.0.0.1:$PORT/readyz" >/dev/null && READY=1 && break
    sleep 0.1
done
WORKERS=$(sed -n 's/.* with \([0-9]*\) workers$/\1/p' "$LOG")
if [[ -z $READY || -z $WORKERS ]]; then
    echo "kgate did not become ready:" >&2
    cat "$LOG" >&2
    exit 1
fi

"$KGATE_BUILD/bench/bench_api" "https://127.0.0.1:$PORT" "$PKI" "$KGATE_BENCH_ETCD" "$PREFIX" \
    "$WORKERS"
