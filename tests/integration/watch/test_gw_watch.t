#!/usr/bin/env bash
# The watch tests compact etcd: give them an etcd of their own so the shared one keeps its
# history.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export KGATE_BUILD=${KGATE_BUILD:-build/san}
parent=${KGATE_TEST_TMP:-/tmp}
KGATE_TEST_TMP=$(mktemp -d "$parent/watch.XXXXXX")
export KGATE_TEST_TMP
source tests/lib/etcd.sh
trap 'stop_all; rm -rf "$KGATE_TEST_TMP"' EXIT

etcd_start watch
etcd_wait "$ETCD_URL"
KGATE_TEST_ETCD=$ETCD_URL "$KGATE_BUILD/tests/integration/watch/test_gw_watch"
