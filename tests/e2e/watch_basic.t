#!/usr/bin/env bash
# Watches with curl -N: every resourceVersion row of the watch table, the streaming-list rows
# (sendInitialEvents) and kube's refusals of the other combinations, bookmarks, legacy /watch/
# paths, a watch of one object, namespaces, selectors that objects enter and leave, deletions,
# Tables, timeouts, one shared etcd watch per collection, clients that leave, and a shutdown
# with watches open.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/watch_lib.sh
e2e_require watch_basic

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
# Bookmarks every 300 ms instead of every minute; hubs gone half a second after their last
# watcher (gateway/watch/README.md).
export KGATE_WATCH_PROGRESS_MS=300 KGATE_WATCH_LINGER_MS=500
# Without kube-root-ca.crt in every namespace, so that ConfigMaps can be counted.
check "kgate starts" api_start watch --workers=2 '--controllers=*,-root-ca-cert-publisher'
W=$CORE/configmaps

req POST $W "$(cm a)"
rv_a=$(rv_of)
req POST $W "$(cm b)"
rv_b=$(rv_of)

# ---- the watch table: resourceVersion unset, "0", N ----------------------------------------

watch_start unset "$W?watch=1"
check "rv unset: synthetic ADDED events for the current state" events_are unset "ADDED a $rv_a
ADDED b $rv_b"
check "... served as application/json;stream=watch" \
    grep -qi '^Content-Type: application/json;stream=watch' "$KGATE_TEST_TMP/watch-unset.hdr"
check "... without a length (chunked on HTTP/1.1, DATA frames on HTTP/2)" \
    bash -c "! grep -qi '^Content-Length' '$KGATE_TEST_TMP/watch-unset.hdr'"
req PATCH $W/a '{"data":{"k":"v2"}}' application/merge-patch+json
rv_a2=$(rv_of)
check "... then the changes" events_are unset "ADDED a $rv_a
ADDED b $rv_b
MODIFIED a $rv_a2"

watch_start zero "$W?watch=1&resourceVersion=0"
check "rv 0: synthetic ADDED events too" events_are zero "ADDED a $rv_a2
ADDED b $rv_b"

watch_start since "$W?watch=1&resourceVersion=$rv_a"
check "rv N: only the changes after N" events_are since "ADDED b $rv_b
MODIFIED a $rv_a2"
check "two watchers of one collection share one etcd watch" metric_is kgate_watch_hubs 1
check "kgate_watchers counts the open watches" metric_is kgate_watchers 3

# ---- streaming lists --------------------------------------------------------------------------

# bookmark_end NAME MIN: the last event of NAME is the initial-events-end bookmark at >= MIN.
bookmark_end() {
    wait_events "$1" 3 || return 1
    events "$1" | tail -1 | awk -v min="$2" '$1 == "BOOKMARK" && $3 >= min && $4 == "initial-events-end" {ok = 1} END {exit !ok}' ||
        { diag "$(events "$1")"; return 1; }
}

watch_start bm "$W?watch=1&allowWatchBookmarks=true"
check "rv unset with bookmarks: the initial events end with a marked BOOKMARK" bookmark_end bm "$rv_a2"
check "... after the synthetic ADDED events" test "$(events bm | head -2)" == "ADDED a $rv_a2
ADDED b $rv_b"
watch_start sie "$W?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=$rv_a2&allowWatchBookmarks=true"
check "sendInitialEvents with NotOlderThan N: ADDED events, then the bookmark at >= N" \
    bookmark_end sie "$rv_a2"
watch_start sie_nobm "$W?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
check "... without allowWatchBookmarks no bookmark" events_are sie_nobm "ADDED a $rv_a2
ADDED b $rv_b"
watch_start sie_off "$W?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan"
check "sendInitialEvents=false: no initial events" metric_is kgate_watchers 7
req PATCH $W/b '{"data":{"k":"v2"}}' application/merge-patch+json
rv_b2=$(rv_of)
check "... only the changes from now" events_are sie_off "MODIFIED b $rv_b2"
check "... and sie_nobm got the change after its initial events" events_are sie_nobm "ADDED a $rv_a2
ADDED b $rv_b
MODIFIED b $rv_b2"

# ---- periodic bookmarks -----------------------------------------------------------------------

watch_start periodic "$W?watch=1&resourceVersion=$rv_b2&allowWatchBookmarks=true"
req POST $CORE/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"elsewhere"}}'
rv_s=$(rv_of)
periodic_bookmark() {
    for _ in $(seq 100); do
        events periodic | awk -v min="$rv_s" '$1 == "BOOKMARK" && $3 >= min {ok = 1} END {exit !ok}' && return 0
        sleep 0.1
    done
    diag "$(events periodic)"
    return 1
}
check "a quiet collection gets BOOKMARKs past writes elsewhere (allowWatchBookmarks)" periodic_bookmark
check "... carrying only kind, apiVersion and metadata.resourceVersion" python3 -c "
import json, sys
e = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][0]
o = e['object']
sys.exit(not (e['type'] == 'BOOKMARK' and sorted(o) == ['apiVersion', 'kind', 'metadata']
    and o['kind'] == 'ConfigMap' and o['apiVersion'] == 'v1' and list(o['metadata']) == ['resourceVersion']))
" "$KGATE_TEST_TMP/watch-periodic"
no_bookmark() { ! events "$1" | grep -q BOOKMARK; }
check "watches without allowWatchBookmarks get none" no_bookmark since

# ---- refusals, as kube-apiserver words them ---------------------------------------------------

req GET "$W?watch=1&sendInitialEvents=true"
check "sendInitialEvents without resourceVersionMatch: 422" is_status 422 Invalid \
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'
req GET "$W?watch=1&resourceVersion=$rv_a&resourceVersionMatch=NotOlderThan"
check "resourceVersionMatch without sendInitialEvents: 422" is_status 422 Invalid \
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'
req GET "$W?watch=1&sendInitialEvents=true&resourceVersionMatch=Exact"
check "sendInitialEvents with Exact: 422 with both findings" is_status 422 Invalid \
    'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]'
req GET "$W?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=x"
check "resourceVersionMatch with continue: 422" is_status 422 Invalid \
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided'
req GET "$W?watch=1&resourceVersion=abc"
check "a malformed resourceVersion: 400" is_status 400 BadRequest 'invalid resource version: abc'
CODE=$(kcurl "${ADMIN[@]}" -o "$KGATE_TEST_TMP/body" -w '%{http_code}' -H 'Accept: application/yaml' \
    "$KGATE_URL$W?watch=1")
check "YAML only: 406 (watches stream JSON)" code_is 406

# ---- paths, names, namespaces -----------------------------------------------------------------

watch_start legacy "/api/v1/watch/namespaces/default/configmaps?resourceVersion=$rv_a"
check "the legacy /watch/ path" events_are legacy "ADDED b $rv_b
MODIFIED a $rv_a2
MODIFIED b $rv_b2"
watch_start one "/api/v1/watch/namespaces/default/configmaps/b"
watch_start byname "$W?watch=1&fieldSelector=metadata.name%3Da"
check "a legacy watch of one object: only it" events_are one "ADDED b $rv_b2"
check "fieldSelector=metadata.name: only that object (kubectl's way)" events_are byname "ADDED a $rv_a2"
req POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}'
check "a second namespace" code_is 201
req GET "$W"
rv_list=$(rv_of)
watch_start allns "/api/v1/configmaps?watch=1&resourceVersion=$rv_list"
watch_start defns "$W?watch=1&resourceVersion=$rv_list"
check "both listening" metric_is kgate_watchers 13
req POST /api/v1/namespaces/other/configmaps "$(cm c)"
rv_c=$(rv_of)
req PATCH $W/b '{"data":{"k":"v3"}}' application/merge-patch+json
rv_b3=$(rv_of)
check "an all-namespaces watch sees every namespace" events_are allns "ADDED c $rv_c
MODIFIED b $rv_b3"
check "a namespace's watch only its own" events_are defns "MODIFIED b $rv_b3"
check "... the object watch its object" events_are one "ADDED b $rv_b2
MODIFIED b $rv_b3"

# ---- selectors: entering and leaving ----------------------------------------------------------

watch_start red "$W?watch=1&resourceVersion=$rv_b3&labelSelector=team%3Dred"
check "a selector watch listening" metric_is kgate_watchers 14
req PATCH $W/b '{"metadata":{"labels":{"team":"red"}}}' application/merge-patch+json
rv_in=$(rv_of)
req PATCH $W/a '{"data":{"k":"v3"}}' application/merge-patch+json
req PATCH $W/b '{"data":{"k":"v4"}}' application/merge-patch+json
rv_b4=$(rv_of)
req PATCH $W/b '{"metadata":{"labels":{"team":"blue"}}}' application/merge-patch+json
rv_out=$(rv_of)
check "an object entering a label selector is ADDED, leaving it DELETED" events_are red "ADDED b $rv_in
MODIFIED b $rv_b4
DELETED b $rv_out"
check "... the DELETED carries its last state inside the selection" python3 -c "
import json, sys
e = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][2]['object']
sys.exit(not (e['metadata']['labels'] == {'team': 'red'} and e['data'] == {'k': 'v4'}))
" "$KGATE_TEST_TMP/watch-red"

# ---- deletion --------------------------------------------------------------------------------

req DELETE $W/a
deleted_rv() {
    ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" get "$PREFIX/configmaps/default/a" \
        --print-value-only | grep -q . && return 1
    events defns | tail -1 | awk '$1 == "DELETED" && $2 == "a" {print $3}'
}
PREFIX=/registry-watch-$$
check "a deletion is DELETED" wait_events defns 6
rv_del=$(deleted_rv)
check "... at the deletion's resourceVersion, with the last state" python3 -c "
import json, sys
e = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
o = e['object']
sys.exit(not (e['type'] == 'DELETED' and int(o['metadata']['resourceVersion']) > int(sys.argv[2])
              and o['data'] == {'k': 'v3'}))
" "$KGATE_TEST_TMP/watch-defns" "$rv_b4"
all_have_rv() {
    for f in unset zero since bm sie sie_nobm sie_off legacy one byname allns defns red; do
        events $f | grep -v '^BOOKMARK' | awk '$3 !~ /^[0-9]+$/ {bad = 1} END {exit bad}' ||
            { diag "$f: $(events $f)"; return 1; }
    done
}
check "every event's object carries its resourceVersion" all_have_rv

# ---- Tables, timeouts ------------------------------------------------------------------------

watch_start table "$W?watch=1" -H 'Accept: application/json;as=Table;g=meta.k8s.io;v=v1'
check "a Table watch: one Table per event" events_are table "ADDED b $rv_out"
req PATCH $W/b '{"data":{"k":"v5"}}' application/merge-patch+json
rv_b5=$(rv_of)
check "... for the changes too" events_are table "ADDED b $rv_out
MODIFIED b $rv_b5"
check "... column definitions in the first only" python3 -c "
import json, sys
t = [json.loads(l)['object'] for l in open(sys.argv[1]) if l.strip()]
sys.exit(not (t[0]['kind'] == 'Table' and len(t[0]['columnDefinitions']) > 0
              and t[1]['columnDefinitions'] is None))
" "$KGATE_TEST_TMP/watch-table"

watch_start short "$W?watch=1&resourceVersion=$rv_b5&timeoutSeconds=1"
check "timeoutSeconds ends the watch cleanly" watch_wait_end short 10
check "... a complete chunked answer (curl exits 0)" test "$WATCH_RC" -eq 0

# ---- clients leaving, hubs going away, shutdown -----------------------------------------------

for w in unset zero since bm sie sie_nobm sie_off periodic legacy one byname allns red table; do
    watch_stop $w
done
check "clients that leave free their watches at once" metric_is kgate_watchers 1
check "one etcd watch left (the last watcher's)" metric_is kgate_watch_hubs 1
watch_stop defns
check "no watcher left" metric_is kgate_watchers 0
check "the shared etcd watch stops after its linger" metric_is kgate_watch_hubs 0

watch_start last "$W?watch=1"
check "a watch open at shutdown" wait_events last 1
check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
check "... having ended the open watch with a complete answer" watch_wait_end last 5
check "... (curl exits 0)" test "$WATCH_RC" -eq 0
tap_end
