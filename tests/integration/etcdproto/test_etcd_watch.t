#!/usr/bin/env bash
# test_etcd_watch compacts, so it gets an etcd of its own rather than the run's shared one.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tests/lib/etcd.sh
export KGATE_TEST_TMP=${KGATE_TEST_TMP:?}/watch-$$
mkdir -p "$KGATE_TEST_TMP"
trap stop_all EXIT
etcd_start watch
etcd_wait "$ETCD_URL"
KGATE_TEST_ETCD=$ETCD_URL "${KGATE_BUILD:-build/san}/tests/integration/etcdproto/test_etcd_watch"
