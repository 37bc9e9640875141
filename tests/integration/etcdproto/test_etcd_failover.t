#!/usr/bin/env bash
# A three-member cluster for test_etcd_failover, which kills member 0 half way through.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tests/lib/etcd.sh
export KGATE_TEST_TMP=${KGATE_TEST_TMP:?}/failover-$$
mkdir -p "$KGATE_TEST_TMP"
trap stop_all EXIT
etcd_cluster_start fo 3
export KGATE_TEST_ETCD_URLS
KGATE_TEST_ETCD_URLS=$(IFS=,; echo "${ETCD_URLS[*]}")
export KGATE_TEST_ETCD_PIDS="${ETCD_PIDS[*]}"
"${KGATE_BUILD:-build/san}/tests/integration/etcdproto/test_etcd_failover"
