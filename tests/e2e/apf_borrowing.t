#!/usr/bin/env bash
# Seat borrowing between priority levels, as kube-apiserver 1.32: with ServerCL 3
# (--max-requests-inflight=2, --max-mutating-requests-inflight=1) global-default's nominal limit
# is ceil(3 * 20 / 245) = 1 seat, and it lends half (round(0.5) = 1), may borrow 3. While jane
# keeps 16 one-seat LISTs in flight and the other levels stay idle, the next adjustment (every
# 10 s) lends it what the idle levels do not keep: current_limit_seats rises above 1, and more
# of its requests execute at once than its nominal limit.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require apf_borrowing

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT

check "kgate starts with one nominal seat for global-default" api_start apfborrow \
    --max-requests-inflight=2 --max-mutating-requests-inflight=1
send POST /api/v1/namespaces '{"metadata":{"name":"busy"}}' "${ADMIN[@]}"
check "a namespace is created" test "$CODE" = 201
check "60 ConfigMaps of 2 KiB are created" python3 tests/e2e/apf_fairness.py \
    seed "$KGATE_URL" "$PKI/ca.crt" "$PKI/admin.crt" "$PKI/admin.key" busy 60

m() { kcurl "${ADMIN[@]}" "$KGATE_URL/metrics" | sed -n "s/^apiserver_flowcontrol_$1{priority_level=\"$2\"} //p"; }
check "global-default: nominal 1, lower 0, upper 4 seats" \
    test "$(m nominal_limit_seats global-default) $(m lower_limit_seats global-default) $(m upper_limit_seats global-default)" = "1 0 4"
check "while idle, it keeps at most its nominal seat" test "$(m current_limit_seats global-default)" -le 1

RESULT=$(python3 tests/e2e/apf_borrowing.py "$KGATE_URL" "$PKI/ca.crt" "$PKI/jane.crt" \
    "$PKI/jane.key" "$PKI/admin.crt" "$PKI/admin.key" busy 16 22 global-default)
diag "$RESULT"
r() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($1)" "$RESULT"; }
check "jane's LISTs were answered" test "$(r 'd["codes"]')" = "[200]"
check "an adjustment under that demand lends global-default more than its nominal seat" \
    test "$(r 'd["current_limit"] > 1')" = True
check "and more of its requests execute at once than its nominal limit" \
    test "$(r 'd["most_executing"] > 1')" = True
check "its demand was seen (demand_seats_high_watermark above 1)" \
    test "$(m demand_seats_high_watermark global-default | cut -d. -f1)" -gt 1
check "the fair fraction is published" \
    kcurl "${ADMIN[@]}" "$KGATE_URL/metrics" -o "$OUT"
check "... apiserver_flowcontrol_seat_fair_frac" grep -q '^apiserver_flowcontrol_seat_fair_frac ' "$OUT"
check "... its execution times (request_execution_seconds, type regular)" grep -q \
    '^apiserver_flowcontrol_request_execution_seconds_count{flow_schema="global-default",priority_level="global-default",type="regular"}' "$OUT"
check "... its estimated seats (work_estimated_seats, 1 seat each)" grep -q \
    '^apiserver_flowcontrol_work_estimated_seats_bucket{flow_schema="global-default",priority_level="global-default",le="1"}' "$OUT"
check "... its seat utilization (priority_level_seat_utilization)" grep -q \
    '^apiserver_flowcontrol_priority_level_seat_utilization_count{phase="executing",priority_level="global-default"}' "$OUT"
check "... request_concurrency_in_use, deprecated in 1.31, is hidden" \
    test "$(grep -c '^apiserver_flowcontrol_request_concurrency_in_use' "$OUT")" = 0
check "kgate reported no sanitizer error" no_sanitizer_report "$KGATE_LOG"
tap_end
