#!/usr/bin/env bash
# kgate against an etcd of its own: when etcd goes away /readyz fails on its etcd check, and
# when etcd comes back on the same port and data, /readyz recovers by itself. kgate keeps
# running throughout. A second kgate with --livez-grace-period shows /livez not failing on etcd
# while the grace period lasts.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
e2e_require etcd_outage

PKI=$KGATE_TEST_TMP/pki
e2e_pki "$PKI"
trap stop_all EXIT

etcd_start outage
etcd_wait "$ETCD_URL"
# The exact command line, to restart the member on the same ports and data directory.
mapfile -d '' etcd_cmd </proc/"$ETCD_PID"/cmdline

TLS=(--tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key"
    --client-ca-file="$PKI/ca.crt")
# anonymous is off under AlwaysAllow
KCURL_AUTH=(--cert "$PKI/admin.crt" --key "$PKI/admin.key")
kgate_start graced --etcd-servers="$ETCD_URL" "${TLS[@]}" --livez-grace-period=1h
check "the kgate with a grace period becomes ready" wait_for_code /readyz 200
GRACED_URL=$KGATE_URL GRACED_PID=$KGATE_PID GRACED_LOG=$KGATE_LOG
graced() { KGATE_URL=$GRACED_URL "$@"; } # run a helper against the kgate with a grace period
kgate_start outage --etcd-servers="$ETCD_URL" "${TLS[@]}"
check "kgate becomes ready" wait_for_code /readyz 200

kill -TERM "$ETCD_PID"
wait "$ETCD_PID" 2>/dev/null
check "etcd stopped: /readyz turns 500" wait_for_code /readyz 500 20
body=$(kcurl "$KGATE_URL/readyz")
check "the failure names the etcd check" grep -qx '\[-\]etcd failed: reason withheld' <<<"$body"
check "... and ends with the failed line" test "$(tail -1 <<<"$body")" = "readyz check failed"
check "/readyz/etcd is 500 too" test "$(http_code /readyz/etcd)" = 500
check "/readyz?exclude=etcd still passes" test "$(http_code '/readyz?exclude=etcd')" = 200
check "/livez/ping still answers" test "$(http_code /livez/ping)" = 200
check "/livez fails on etcd" test "$(http_code /livez)" = 500
check "within its grace period, the other kgate's /livez passes" \
    test "$(graced http_code /livez)" = 200
check "... while its /readyz fails" graced wait_for_code /readyz 500 20
check "kgate is still running" alive "$KGATE_PID"

"${etcd_cmd[@]}" >>"$KGATE_TEST_TMP/etcd-outage/log" 2>&1 &
echo $! >>"$KGATE_TEST_TMP/pids"
check "etcd restarted on the same port" etcd_wait "$ETCD_URL"
check "/readyz recovers to 200" wait_for_code /readyz 200 30
check "/readyz?verbose shows etcd ok again" grep -qx '\[+\]etcd ok' <(kcurl "$KGATE_URL/readyz?verbose")
check "kgate never exited" alive "$KGATE_PID"

check "the other kgate is ready again too" graced wait_for_code /readyz 200 30
for pid in "$KGATE_PID" "$GRACED_PID"; do
    kill -TERM "$pid"
    wait_exit "$pid"
    check "SIGTERM: exit code 0 (got $EXIT_CODE)" test "$EXIT_CODE" = 0
done
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
check "no sanitizer report (the other kgate)" no_sanitizer_report "$GRACED_LOG"
tap_end
