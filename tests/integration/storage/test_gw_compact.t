#!/usr/bin/env bash
# The compactor compacts: give it an etcd of its own so the shared one keeps its history.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export KGATE_BUILD=${KGATE_BUILD:-build/san}
parent=${KGATE_TEST_TMP:-/tmp}
KGATE_TEST_TMP=$(mktemp -d "$parent/compact.XXXXXX")
export KGATE_TEST_TMP
source tests/lib/etcd.sh
trap 'stop_all; rm -rf "$KGATE_TEST_TMP"' EXIT

etcd_start compact
etcd_wait "$ETCD_URL"
KGATE_TEST_ETCD=$ETCD_URL "$KGATE_BUILD/tests/integration/storage/test_gw_compact"
