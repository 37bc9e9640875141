#!/usr/bin/env bash
# test: alone (it compares latencies: a test running beside it would skew them)
# API Priority and Fairness keeps one user's latency while another floods: against one seat of
# global-default (--max-requests-inflight=2, --max-mutating-requests-inflight=1: ServerCL 3,
# ceil(3 * 20 / 245) = 1), jane keeps 48 LISTs of 300 ConfigMaps in flight while alice sends
# small GETs one at a time. Their flows differ (ByUser), so shuffle sharding gives them
# different queues: jane's fill the 6 queues of her hand, and fair queuing serves alice's one
# queue as often as each of them, so alice waits for a few of jane's LISTs where jane waits for
# all of her own. Alice is never rejected, and her latency stays far below jane's, in the same
# run (no fixed threshold).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require apf_fairness

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT

check "kgate starts with one seat for global-default" api_start apffair \
    --max-requests-inflight=2 --max-mutating-requests-inflight=1
send POST /api/v1/namespaces '{"metadata":{"name":"flood"}}' "${ADMIN[@]}"
check "a namespace to flood is created" test "$CODE" = 201
check "300 ConfigMaps of 2 KiB are created (the admin is exempt)" python3 tests/e2e/apf_fairness.py \
    seed "$KGATE_URL" "$PKI/ca.crt" "$PKI/admin.crt" "$PKI/admin.key" flood 300

RESULT=$(python3 tests/e2e/apf_fairness.py "$KGATE_URL" "$PKI/ca.crt" "$PKI/jane.crt" \
    "$PKI/jane.key" alice-token flood 48 200)
diag "$RESULT"
r() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($1)" "$RESULT"; }
check "the flood ran throughout (jane's LISTs were answered)" test "$(r 'd["flood_n"] > 80')" = True
check "alice was never rejected" test "$(r 'd["victim_codes"]')" = "[200]"
check "alice's median stays below a quarter of jane's" \
    test "$(r 'd["victim_p50"] * 4 < d["flood_p50"]')" = True
check "alice's p99 stays below jane's median" test "$(r 'd["victim_p99"] < d["flood_p50"]')" = True
metric() {
    kcurl "${ADMIN[@]}" "$KGATE_URL/metrics" | grep "^apiserver_flowcontrol_$1" | grep -c "$2"
}
check "jane's requests waited in a queue (request_wait_duration_seconds)" \
    test "$(metric request_wait_duration_seconds_count 'flow_schema="global-default"')" -ge 1
check "global-default has 1 nominal seat" test "$(kcurl "${ADMIN[@]}" "$KGATE_URL/metrics" |
    sed -n 's/^apiserver_flowcontrol_nominal_limit_seats{priority_level="global-default"} //p')" = 1
check "kgate reported no sanitizer error" no_sanitizer_report "$KGATE_LOG"
tap_end
