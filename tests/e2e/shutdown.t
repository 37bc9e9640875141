#!/usr/bin/env bash
# Graceful shutdown as kube-apiserver does it: after SIGTERM /readyz fails at once (shutdown
# check) while /livez still passes and the listener stays open for
# --shutdown-delay-duration; then kgate exits 0 without a sanitizer report. A second run
# shows a second signal cutting the delay short.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
e2e_require shutdown

PKI=$KGATE_TEST_TMP/pki
e2e_pki "$PKI"
trap stop_all EXIT
TLS=(--tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key"
    --client-ca-file="$PKI/ca.crt")
# anonymous is off under AlwaysAllow
KCURL_AUTH=(--cert "$PKI/admin.crt" --key "$PKI/admin.key")

kgate_start delay --etcd-servers="$KGATE_TEST_ETCD" "${TLS[@]}" --shutdown-delay-duration=2s
check "kgate becomes ready" wait_for_code /readyz 200
# An idle TLS connection is not a request in progress: it must not hold the shutdown up.
mkfifo "$KGATE_TEST_TMP/idle.in"
openssl s_client -connect "127.0.0.1:$KGATE_PORT" <"$KGATE_TEST_TMP/idle.in" \
    >"$KGATE_TEST_TMP/idle.out" 2>&1 &
echo $! >>"$KGATE_TEST_TMP/pids"
exec 7>"$KGATE_TEST_TMP/idle.in"
check "an idle TLS connection is open" wait_for_line 'Verify return code' "$KGATE_TEST_TMP/idle.out"

kill -TERM "$KGATE_PID"
check "after SIGTERM /readyz answers 500" wait_for_code /readyz 500 2
body=$(kcurl "$KGATE_URL/readyz?verbose")
check "the failing check is shutdown" grep -qx '\[-\]shutdown failed: reason withheld' <<<"$body"
check "etcd is still fine meanwhile" grep -qx '\[+\]etcd ok' <<<"$body"
check "/readyz/shutdown is 500" test "$(http_code /readyz/shutdown)" = 500
check "/livez still answers 200 during the delay" test "$(http_code /livez)" = 200
check "kgate is still running during the delay" alive "$KGATE_PID"
wait_exit "$KGATE_PID"
check "then it exits 0 (got $EXIT_CODE)" test "$EXIT_CODE" = 0
check "the log tells the shutdown" grep -q 'kgate stopped' "$KGATE_LOG"
check "the idle connection was not waited for" bash -c "! grep -q 'still in progress' $KGATE_LOG"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
check "the port is closed afterwards" test "$(http_code /livez)" = 000
exec 7>&-

kgate_start impatient --etcd-servers="$KGATE_TEST_ETCD" "${TLS[@]}" \
    --shutdown-delay-duration=10m
check "second kgate becomes ready" wait_for_code /readyz 200
kill -TERM "$KGATE_PID"
check "after SIGTERM /readyz answers 500" wait_for_code /readyz 500 5
kill -INT "$KGATE_PID"
wait_exit "$KGATE_PID" 20
check "a second signal ends a 10m delay: exit 0 (got $EXIT_CODE)" test "$EXIT_CODE" = 0
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
