#!/usr/bin/env bash
# Take etcd away from test_gw_informer when it asks ($KGATE_TEST_OUTAGE_REQ, holding the key
# prefix it watches): restart the member on another client port, change c, add e, delete d and
# compact history there, then restart it on the original port and say so
# ($KGATE_TEST_OUTAGE_DONE).
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tests/lib/etcd.sh
source tests/lib/etcd_outage.sh

# Change the watched keys where the informer cannot see it, then compact all history.
change_aside() {
    local p
    p=$(head -n1 "$KGATE_TEST_OUTAGE_REQ")
    etcdctl_aside put "${p}c" '{"v":"c2"}' >/dev/null
    etcdctl_aside put "${p}e" '{"v":"e1"}' >/dev/null
    etcdctl_aside del "${p}d" >/dev/null
    compact_aside
}

etcd_outage_run informer integration/controllers/test_gw_informer
