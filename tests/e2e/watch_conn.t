#!/usr/bin/env bash
# A watch's connection: kgate drops the request's and the answer's headers once a watch
# streams, so what must outlive them is checked here: after the watch ends, a keep-alive
# connection serves the next request and a "Connection: close" one is closed; the audit event
# of a watch still names its client. And kgate raises its descriptor limit at start-up, as
# kube-apiserver's Go runtime does, so that thousands of watches fit.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require watch_conn

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
POLICY=$KGATE_TEST_TMP/audit-policy.yaml
AUDIT=$KGATE_TEST_TMP/audit.log
printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n' >"$POLICY"

# kgate inherits a soft limit below the hard one, as a service manager may leave it.
HARD=$(ulimit -Hn)
ulimit -Sn 512
check "kgate starts with a soft limit of 512 descriptors" \
    api_start conn --workers=1 --audit-policy-file="$POLICY" --audit-log-path="$AUDIT"
ulimit -Sn "$HARD"
soft_limit() { awk '/^Max open files/ {print $4}' "/proc/$KGATE_PID/limits"; }
check "... and raises it to the hard limit ($HARD)" test "$(soft_limit)" = "$HARD"

W=/api/v1/namespaces/default/configmaps
CURLV=$KGATE_TEST_TMP/curl-v
# two_gets [CURL ARGS...]: a one-second watch, then a list, in one curl run over HTTP/1.1 (one
# connection when it can be kept); the list's body in $OUT, curl's trace in $CURLV.
two_gets() {
    OUT=$KGATE_TEST_TMP/body
    kcurl -v --http1.1 "${ADMIN[@]}" "$@" "$KGATE_URL$W?watch=1&timeoutSeconds=1" -o /dev/null \
        "$KGATE_URL$W" -o "$OUT" 2>"$CURLV"
}
connections() { grep -c '^\* Connected to' "$CURLV"; }

check "a watch, then a list on the same connection" two_gets
check "... one connection served both" test "$(connections)" = 1
check "... the list answered after the watch" jpy "d['kind'] == 'ConfigMapList'"
check "a watch asking to close its connection" two_gets -H "Connection: close"
check "... is answered with Connection: close" grep -qi '^< Connection: close' "$CURLV"
check "... and the list needed a second connection" test "$(connections)" = 2
check "... and answered too" jpy "d['kind'] == 'ConfigMapList'"

kcurl "${ADMIN[@]}" -A "watch-conn-agent/1.0" -o /dev/null \
    "$KGATE_URL$W?watch=1&timeoutSeconds=1"
watch_events() {
    for _ in $(seq 50); do
        [[ $(grep -c '"userAgent":"watch-conn-agent/1.0"' "$AUDIT" 2>/dev/null) -ge 2 ]] && return 0
        sleep 0.1
    done
    return 1
}
check "the watch's ResponseStarted and ResponseComplete events carry its userAgent" watch_events
check "... the latter too, once the headers were dropped" \
    grep -q '"stage":"ResponseComplete".*"userAgent":"watch-conn-agent/1.0"\|"userAgent":"watch-conn-agent/1.0".*"stage":"ResponseComplete"' "$AUDIT"

tap_end
