#!/usr/bin/env bash
# Take etcd away from test_gw_nsctl_relist when it asks ($KGATE_TEST_OUTAGE_REQ): restart the
# member on another client port, mark a namespace for deletion and compact history there,
# then restart it on the original port and say so ($KGATE_TEST_OUTAGE_DONE).
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tests/lib/etcd.sh
source tests/lib/etcd_outage.sh

# Mark namespace "late" (with a configmap) for deletion, then compact all history.
change_aside() {
    etcdctl_aside put /registry/configmaps/late/cm '{"kind":"ConfigMap"}' >/dev/null
    etcdctl_aside put /registry/namespaces/late '{"kind":"Namespace","metadata":{"name":"late",'`
        `'"deletionTimestamp":"2024-01-01T00:00:00Z"},"spec":{"finalizers":["kubernetes"]},'`
        `'"status":{"phase":"Terminating"}}' >/dev/null
    compact_aside
}

etcd_outage_run relist integration/controllers/test_gw_nsctl_relist
