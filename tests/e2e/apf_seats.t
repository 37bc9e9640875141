#!/usr/bin/env bash
# kube 1.32's work estimates under API Priority and Fairness, with the default in-flight limits
# (ServerCL 600): a LIST of 1000 ConfigMaps is estimated at 10 seats (a seat per 100 objects
# read, at most 10) where the level allows it (at most 15% of its NominalCL, and NominalCL /
# handSize), 7 in global-default (NominalCL 44 beside the test's level, hand 6); a level of 70 seats that neither lends
# nor borrows runs at most 7 such LISTs at once and queues the rest; a create that 25 watches
# of its namespace will see takes ceil(25/10) = 3 seats (kube's mutating work estimator); a
# watch that sends initial events holds its seats until they are written.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require apf_seats

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap 'kill $WATCHES 2>/dev/null; stop_all' EXIT
WATCHES=""
FC=/apis/flowcontrol.apiserver.k8s.io/v1

check "kgate starts with the default limits, counting objects every second" api_start apfseats \
    --etcd-count-metric-poll-period=1s
send POST /api/v1/namespaces '{"metadata":{"name":"many"}}' "${ADMIN[@]}"
check "a namespace is created" test "$CODE" = 201
check "1000 ConfigMaps of 2 KiB are created" python3 tests/e2e/apf_fairness.py \
    seed "$KGATE_URL" "$PKI/ca.crt" "$PKI/admin.crt" "$PKI/admin.key" many 1000

metrics() { kcurl "${ADMIN[@]}" "$KGATE_URL/metrics"; }
# val NAME LABELS: the value of one series
val() { metrics | grep -F "$1{$2}" | head -1 | awk '{print $2}'; }
# until_ge MIN CMD...: CMD prints a number >= MIN within 20 s
until_ge() {
    local min=$1 got; shift
    for _ in $(seq 200); do
        got=$("$@" 2>/dev/null)
        [[ -n $got ]] && python3 -c "import sys; sys.exit(0 if float('$got') >= $min else 1)" &&
            return 0
        sleep 0.1
    done
    diag "got: $got"
    return 1
}
check "the count sees them (apiserver_storage_objects)" until_ge 1000 \
    val apiserver_storage_objects 'resource="configmaps"'

send POST $FC/prioritylevelconfigurations '{"metadata":{"name":"lists"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":32,"lendablePercent":0,"borrowingLimitPercent":0,"limitResponse":{"type":"Queue","queuing":{"queues":8,"handSize":2,"queueLengthLimit":50}}}}}' "${ADMIN[@]}"
check "a level of 32 shares that neither lends nor borrows is created" test "$CODE" = 201
send POST $FC/flowschemas '{"metadata":{"name":"lists"},"spec":{"priorityLevelConfiguration":{"name":"lists"},"matchingPrecedence":100,"distinguisherMethod":{"type":"ByUser"},"rules":[{"subjects":[{"kind":"User","user":{"name":"jane"}}],"resourceRules":[{"verbs":["list"],"apiGroups":[""],"resources":["configmaps"],"namespaces":["*"]}]}]}}' "${ADMIN[@]}"
check "a FlowSchema sends jane's LISTs there" test "$CODE" = 201
check "its nominal limit: ceil(600 * 32 / 277) = 70 seats" until_ge 70 \
    val apiserver_flowcontrol_nominal_limit_seats 'priority_level="lists"'

RESULT=$(python3 tests/e2e/apf_borrowing.py "$KGATE_URL" "$PKI/ca.crt" "$PKI/jane.crt" \
    "$PKI/jane.key" "$PKI/admin.crt" "$PKI/admin.key" many 16 8 lists "")
diag "$RESULT"
r() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($1)" "$RESULT"; }
check "jane's 16 LISTs at a time were answered" test "$(r 'd["codes"]')" = "[200]"
LISTS='flow_schema="lists",priority_level="lists"'
n=$(val apiserver_flowcontrol_work_estimated_seats_count "$LISTS")
sum=$(val apiserver_flowcontrol_work_estimated_seats_sum "$LISTS")
check "each LIST of 1000 objects was estimated at 10 seats (work_estimated_seats: $sum / $n)" \
    python3 -c "import sys; sys.exit(0 if $n > 0 and $sum == 10 * $n else 1)"
check "never more than 70 seats executed at once ($(r 'd["most_seats"]'))" \
    test "$(r '0 < d["most_seats"] <= 70')" = True
check "so never more than 7 of the LISTs ($(r 'd["most_executing"]'))" \
    test "$(r '0 < d["most_executing"] <= 7')" = True
check "the others waited in the level's queues (request_wait_duration_seconds)" until_ge 1 \
    val apiserver_flowcontrol_request_wait_duration_seconds_count "execute=\"true\",$LISTS"

GD='flow_schema="global-default",priority_level="global-default"'
fetch /api/v1/namespaces/many/configmaps "${ALICE[@]}"
check "alice's LIST (global-default) is answered" test "$CODE" = 200
check "global-default has ceil(600 * 20 / 277) = 44 nominal seats" \
    test "$(val apiserver_flowcontrol_nominal_limit_seats 'priority_level="global-default"')" = 44
check "alice's LIST is estimated at its most: min(ceil(44 * 0.15), 44 / 6) = 7 seats" \
    test "$(val apiserver_flowcontrol_work_estimated_seats_sum "$GD")" = 7

for _ in $(seq 25); do
    kcurl "${ADMIN[@]}" -N "$KGATE_URL/api/v1/namespaces/many/configmaps?watch=1&resourceVersion=0&allowWatchBookmarks=false" >/dev/null 2>&1 &
    WATCHES+=" $!"
done
check "25 watches of the namespace's ConfigMaps are open" until_ge 25 \
    val apiserver_registered_watchers 'group="",kind="ConfigMap",version="v1"'
send POST /api/v1/namespaces/many/configmaps '{"metadata":{"name":"seen"}}' "${ALICE[@]}"
check "alice creates a ConfigMap there" test "$CODE" = 201
got=$(val apiserver_flowcontrol_watch_count_samples_sum "$GD")
check "the mutating estimator saw 25 interested watches (watch_count_samples: $got)" \
    test "$got" = 25
got=$(val apiserver_flowcontrol_work_estimated_seats_sum "$GD")
check "and charged ceil(25/10) = 3 seats (7 + 3 estimated in global-default: $got)" \
    test "$got" = 10
kill $WATCHES 2>/dev/null
WATCHES=""

# a watch that sends initial events holds its seats until they are written, not its whole life
W="$GD,type=\"watch\""
INIT=$KGATE_TEST_TMP/initial.json
kcurl "${ALICE[@]}" -N "$KGATE_URL/api/v1/namespaces/many/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=20" >"$INIT" 2>/dev/null &
WATCHES=$!
ended() { grep -q initial-events-end "$INIT" && echo 1; }
check "alice's watch sends its initial events, then the initial-events-end bookmark" until_ge 1 ended
check "its seats went back then (request_execution_seconds, type watch)" until_ge 1 \
    val apiserver_flowcontrol_request_execution_seconds_count "$W"
check "while the watch stays open" kill -0 $WATCHES
held=$(val apiserver_flowcontrol_request_execution_seconds_sum "$W")
check "it held them while it sent 1001 objects ($held s)" \
    python3 -c "import sys; sys.exit(0 if $held > 0.01 else 1)"
kill $WATCHES 2>/dev/null
WATCHES=""
check "kgate reported no sanitizer error" no_sanitizer_report "$KGATE_LOG"
tap_end
