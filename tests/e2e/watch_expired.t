#!/usr/bin/env bash
# Watches and etcd's history, on an etcd of its own (the test compacts it): a start etcd
# compacted away is a 200 stream with one ERROR event (410 Expired, kube's "too old resource
# version" wording); a start still in the shared watch's window is served from memory even
# after compaction; a start older than the window but not compacted catches up from etcd and
# hands over to the shared watch; a start in the future waits for it; a streaming list asked
# to be newer than etcd answers kube's "Too large resource version".
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/watch_lib.sh
e2e_require watch_expired

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
etcd_start own >/dev/null
check "an etcd of its own" etcd_wait "$ETCD_URL"
KGATE_TEST_ETCD=$ETCD_URL
# A window of three events per shared watch, gone 200 ms after its last watcher.
export KGATE_WATCH_WINDOW=3 KGATE_WATCH_LINGER_MS=200
check "kgate starts" api_start expired --workers=2
W=$CORE/configmaps

compact() { ETCDCTL_API=3 etcdctl --endpoints="$ETCD_URL" compact "$1" >/dev/null; }

req POST $W "$(cm a)"
rv1=$(rv_of)
req PATCH $W/a '{"data":{"k":"2"}}' application/merge-patch+json
rv2=$(rv_of)
req PATCH $W/a '{"data":{"k":"3"}}' application/merge-patch+json
rv3=$(rv_of)
check "etcd compacts at the latest revision" compact "$rv3"

watch_start old "$W?watch=1&resourceVersion=$rv1"
check "a compacted start: one ERROR event, 410 Expired" events_are old \
    "ERROR 410 Expired too old resource version: $rv1 ($((rv3 - 1)))"
check "... in a 200 stream that then ends cleanly" watch_wait_end old 10
check "... (curl exits 0)" test "$WATCH_RC" -eq 0
check "... HTTP 200" grep -qE '^HTTP/(1.1|2) 200' "$KGATE_TEST_TMP/watch-old.hdr"
check "the failed shared watch is gone" metric_is kgate_watch_hubs 0

# A shared watch from rv3 keeps a window of its latest events.
watch_start keep "$W?watch=1&resourceVersion=$rv3"
check "a watch from the compaction point" metric_is kgate_watch_hubs 1
req PATCH $W/a '{"data":{"k":"4"}}' application/merge-patch+json
rv4=$(rv_of)
req PATCH $W/a '{"data":{"k":"5"}}' application/merge-patch+json
rv5=$(rv_of)
check "... sees the changes" events_are keep "MODIFIED a $rv4
MODIFIED a $rv5"
check "etcd compacts again" compact "$rv5"
watch_start window "$W?watch=1&resourceVersion=$rv3"
check "a start etcd compacted but still in the window is served from memory" \
    events_are window "MODIFIED a $rv4
MODIFIED a $rv5"
check "... without a catch-up watch" test "$(metric kgate_watch_catchups_total)" == 0

# The window holds three events: four more push rv5 out of it (but not out of etcd).
for v in 6 7 8 9; do
    req PATCH $W/a "{\"data\":{\"k\":\"$v\"}}" application/merge-patch+json
done
rv9=$(rv_of)
watch_start catchup "$W?watch=1&resourceVersion=$rv5"
check "a start older than the window catches up from etcd" wait_events catchup 4
check "... on a watch of its own" test "$(metric kgate_watch_catchups_total)" == 1
req PATCH $W/a '{"data":{"k":"10"}}' application/merge-patch+json
rv10=$(rv_of)
check "... then hands over to the shared watch" metric_is kgate_watch_catchups 0
check "... having missed and repeated nothing" events_are catchup "$(for ((r = rv5 + 1; r <= rv9; r++)); do echo "MODIFIED a $r"; done)
MODIFIED a $rv10"
req PATCH $W/a '{"data":{"k":"11"}}' application/merge-patch+json
rv11=$(rv_of)
check "... and goes on with it" wait_events catchup 6
check "one shared etcd watch all along" test "$(metric kgate_watch_hubs)" == 1

# ---- the future -------------------------------------------------------------------------------

watch_start future "$W?watch=1&resourceVersion=$((rv11 + 2))"
check "a start in the future" metric_is kgate_watchers 4
for v in 12 13 14; do
    req PATCH $W/a "{\"data\":{\"k\":\"$v\"}}" application/merge-patch+json
done
check "... waits for it: only the changes after it" events_are future "MODIFIED a $(rv_of)"
watch_start toolarge \
    "$W?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=99999999"
too_large() {
    wait_events toolarge 1 &&
        events toolarge | grep -q '^ERROR 504 Timeout Timeout: Too large resource version: 99999999, current: [0-9]*$'
}
check "a streaming list newer than etcd: ERROR 504 Too large resource version" too_large

for w in keep window catchup future; do watch_stop $w; done
check "no watcher left" metric_is kgate_watchers 0
check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
