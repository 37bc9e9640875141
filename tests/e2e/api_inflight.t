#!/usr/bin/env bash
# In-flight limits as kube-apiserver's max-in-flight filter applies them, on an etcd of this
# test's own that is paused (SIGSTOP) so requests stay in flight: over the limit a request
# gets 429 TooManyRequests with Retry-After, system:masters and watches are exempt, mutating
# requests count apart; a client that leaves while its request waits costs nothing, and every
# slot comes back.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require api_inflight

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
KCURL_AUTH=("${JANE[@]}") # anonymous is off under AlwaysAllow; jane is limited
etcd_start inflight
ETCD=$ETCD_PID
trap 'kill -CONT $ETCD 2>/dev/null; stop_all' EXIT
check "a private etcd starts" etcd_wait "$ETCD_URL"
KGATE_TEST_ETCD=$ETCD_URL
NS=/api/v1/namespaces/default

check "kgate starts with limits of 1" api_start inflight --workers=2 \
    --max-requests-inflight=1 --max-mutating-requests-inflight=1 --enable-priority-and-fairness=false
check "a read is answered" test "$(http_code "$NS")" = 200

# readOnly in flight, as the admin (who is never refused) sees it
inflight() {
    kcurl "${ADMIN[@]}" "$KGATE_URL/metrics" |
        sed -n 's/^apiserver_current_inflight_requests{request_kind="readOnly"} //p'
}
wait_inflight() {
    for _ in $(seq 100); do
        [[ $(inflight) == "$1" ]] && return 0
        sleep 0.1
    done
    diag "in flight: $(inflight)"
    return 1
}

# A read left waiting on the paused etcd. The admin's scrape that watches for it is in flight
# too, and may reach kgate first and take the one slot: the read is then refused, and sent
# again.
hold_slot() {
    for _ in 1 2 3 4 5; do
        kcurl -o "$KGATE_TEST_TMP/held.out" -w '%{http_code}' "$KGATE_URL$NS" \
            >"$KGATE_TEST_TMP/held.code" &
        held=$!
        for _ in $(seq 100); do
            # the admin's own scrape is the second request in flight
            [[ $(inflight) == 2 ]] && return 0
            alive "$held" || break
            sleep 0.1
        done
        wait "$held"
        diag "the read was answered $(cat "$KGATE_TEST_TMP/held.code") before it held the slot"
    done
    return 1
}
kill -STOP "$ETCD"
check "a read waiting on the paused etcd holds the one slot" hold_slot

fetch /version
check "another read is refused: 429" test "$CODE" = 429
check "... a TooManyRequests Status" is_status 429 TooManyRequests \
    'Too many requests, please try again later.'
check "... with Retry-After: 1" test "$(header Retry-After)" = 1
check "... and retryAfterSeconds in its details" jpy "d['details'] == {'retryAfterSeconds': 1}"
check "/readyz is limited too, as in kube" test "$(http_code /readyz)" = 429
check "system:masters is still answered" test "$(http_code /version "${ADMIN[@]}")" = 200
code=$(http_code "/api/v1/namespaces?watch=1" --max-time 2)
check "a watch is exempt (got $code)" test "$code" != 429
code=$(http_code /api/v1/namespaces/default/configmaps -X POST -d '{}' --max-time 2)
check "a mutating request has its own limit (got $code)" test "$code" != 429

# a client that gives up while its request waits on etcd
kcurl -o /dev/null --max-time 1 "${ADMIN[@]}" "$KGATE_URL/api/v1/namespaces/kube-system"
check "the admin's read that gave up is still in flight" wait_inflight 3

kill -CONT "$ETCD"
wait "$held"
check "the held read is answered once etcd is back" test "$(cat "$KGATE_TEST_TMP/held.code")" = 200
check "... with the object" jpy "d['metadata']['name'] == 'default'" "$KGATE_TEST_TMP/held.out"
check "every slot comes back (the abandoned one included)" wait_inflight 1
check "reads are answered again" test "$(http_code /version)" = 200

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "SIGTERM: exit 0" test "$EXIT_CODE" = 0
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
