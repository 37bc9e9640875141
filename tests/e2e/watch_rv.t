#!/usr/bin/env bash
# The streaming-list row of the watch table that watch_basic.t leaves out: sendInitialEvents
# with resourceVersionMatch=NotOlderThan and resourceVersion "0" (any state: kgate's is the
# latest), with and without bookmarks, then the changes.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/watch_lib.sh
e2e_require watch_rv

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
# Without kube-root-ca.crt in every namespace, so that ConfigMaps can be counted.
check "kgate starts" api_start watchrv --workers=2 '--controllers=*,-root-ca-cert-publisher'
W=$CORE/configmaps
SIE="$W?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0"

req POST $W "$(cm a)"
rv_a=$(rv_of)
req POST $W "$(cm b)"
rv_b=$(rv_of)

watch_start bm "$SIE&allowWatchBookmarks=true"
watch_start plain "$SIE"
check "rv 0 with bookmarks: the current state as ADDED, then the initial-events-end BOOKMARK" \
    wait_events bm 3
check "... the ADDED events first" test "$(events bm | head -2)" == "ADDED a $rv_a
ADDED b $rv_b"
last_is_end_bookmark() {
    events bm | tail -1 | awk -v min="$rv_b" \
        '$1 == "BOOKMARK" && $3 >= min && $4 == "initial-events-end" {ok = 1} END {exit !ok}' ||
        { diag "$(events bm)"; return 1; }
}
check "... then the BOOKMARK, at or past the last of them" last_is_end_bookmark
check "without bookmarks: the ADDED events alone" events_are plain "ADDED a $rv_a
ADDED b $rv_b"
req PATCH $W/a '{"data":{"k":"v2"}}' application/merge-patch+json
rv_a2=$(rv_of)
check "... then the changes" events_are plain "ADDED a $rv_a
ADDED b $rv_b
MODIFIED a $rv_a2"
changed_too() { wait_events bm 4 && [[ $(events bm | tail -1) == "MODIFIED a $rv_a2" ]]; }
check "... on the bookmarked watch too" changed_too

watch_stop bm
watch_stop plain
check "no watcher left" metric_is kgate_watchers 0
check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
