#!/usr/bin/env bash
# `make bench`: run every benchmark against a throwaway etcd on free loopback ports and print
# their tables. KGATE_BENCH_ETCD=http://host:port points them at an existing etcd instead;
# BENCH_SECONDS sets the measured duration of each row. Builds nothing: make has done that.
set -euo pipefail
cd "$(dirname "$0")/.."
KGATE_BUILD=${KGATE_BUILD:-build}

if [[ -z ${KGATE_BENCH_ETCD:-} ]]; then
    export KGATE_TEST_TMP
    KGATE_TEST_TMP=$(mktemp -d /tmp/kgate-bench.XXXXXX)
    source tests/lib/etcd.sh
    trap 'stop_all; rm -rf "$KGATE_TEST_TMP"' EXIT
    etcd_start bench
    etcd_wait "$ETCD_URL"
    KGATE_BENCH_ETCD=$ETCD_URL
fi
export KGATE_BENCH_ETCD

"$KGATE_BUILD/bench/bench_etcd" "$KGATE_BENCH_ETCD"
