#!/usr/bin/env bash
# Leader election on an etcd of its own: the test freezes it (SIGSTOP) to see a leader step
# down, which must not disturb the run's shared etcd.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export KGATE_BUILD=${KGATE_BUILD:-build/san}
parent=${KGATE_TEST_TMP:-/tmp}
KGATE_TEST_TMP=$(mktemp -d "$parent/leader.XXXXXX")
export KGATE_TEST_TMP
source tests/lib/etcd.sh
trap 'kill -CONT "$ETCD_PID" 2>/dev/null || true; stop_all; rm -rf "$KGATE_TEST_TMP"' EXIT

etcd_start leader
etcd_wait "$ETCD_URL"
KGATE_TEST_ETCD=$ETCD_URL KGATE_TEST_ETCD_PID=$ETCD_PID \
    "$KGATE_BUILD/tests/integration/controllers/test_gw_leader"
