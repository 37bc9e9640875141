#!/usr/bin/env bash
# HTTP/2, as kubectl, client-go and Helm speak it: ALPN h2 on the TLS port; curl, stock kubectl
# and h2load over it; 1,000 watches on one connection each receiving the event; a stalled watch
# stream beside creates and a list on its connection; the stream limit; a request reset
# mid-body writes nothing; GOAWAY on SIGTERM with no request failed; --goaway-chance moving a
# client between two instances behind haproxy. The HTTP/2 client is hyper-h2 (h2_client.py).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require http2

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
H2C=(/usr/bin/python3 tests/e2e/h2_client.py)
CM=/api/v1/namespaces/default/configmaps

check "kgate starts" api_start h2 --workers=2
A_URL=$KGATE_URL A_PID=$KGATE_PID A_LOG=$KGATE_LOG
hostport() { echo "${1#https://}"; }

# metric NAME: the value of a kgate_* sample (labels included in NAME) on $KGATE_URL.
metric() {
    kcurl "${ADMIN[@]}" "$KGATE_URL/metrics" | awk -v m="$1" '$1 == m {print $2}'
}
H1='kgate_http_requests_total{protocol="HTTP/1.1"}'
H2='kgate_http_requests_total{protocol="HTTP/2"}'

# ---- curl ------------------------------------------------------------------------------------

version=$(kcurl "${ADMIN[@]}" -o /dev/null -w '%{http_version}' "$KGATE_URL/version")
check "curl is answered over HTTP/2 (ALPN h2)" test "$version" = 2
check "... a LIST" test "$(kcurl "${ADMIN[@]}" --http2 -o /dev/null -w '%{http_code} %{http_version}' \
    "$KGATE_URL/api/v1/namespaces")" = "200 2"
kcurl "${ADMIN[@]}" -o "$KGATE_TEST_TMP/w" -w '%{http_code} %{http_version}' \
    "$KGATE_URL$CM?watch=1&timeoutSeconds=1" >"$KGATE_TEST_TMP/w.code"
check "... a watch that ends cleanly at its timeout (curl exits 0)" test $? = 0
check "... 200 over HTTP/2" test "$(cat "$KGATE_TEST_TMP/w.code")" = "200 2"
check "a client asking for HTTP/1.1 still gets it" test "$(kcurl "${ADMIN[@]}" --http1.1 \
    -o /dev/null -w '%{http_version}' "$KGATE_URL/version")" = 1.1

# ---- stock kubectl ---------------------------------------------------------------------------

if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    h1=$(metric "$H1") h2=$(metric "$H2")
    k create namespace h2k && k -n h2k create configmap one --from-literal=a=b &&
        k -n h2k apply -f - <<<'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"two"}}'
    check "kubectl creates and applies" test $? = 0
    k -n h2k get configmaps -o name
    check "... and lists" has configmap/two
    k -n h2k get configmaps --watch --request-timeout=2s >/dev/null 2>&1
    k -n h2k delete configmap one two
    check "... and deletes" has deleted
    check "kubectl spoke HTTP/2 only (kgate's request counts by protocol)" \
        test "$(metric "$H1")" = "$h1" -a "$(metric "$H2")" -gt "$((h2 + 5))"
else
    diag "kubectl 1.32 is not installed: its HTTP/2 checks are skipped"
fi

# ---- h2load -----------------------------------------------------------------------------------

H2LOAD=$KGATE_TEST_TMP/h2load.out
h2load -n 2000 -c 4 -m 16 -H "Authorization: Bearer alice-token" "$KGATE_URL$CM" >"$H2LOAD" 2>&1
check "h2load: 2,000 GETs on 4 connections of 16 streams all succeed" \
    grep -q "2000 succeeded, 0 failed, 0 errored" "$H2LOAD"
check "... all 200" grep -qE "status codes: 2000 2xx" "$H2LOAD" ||
    diag "$(cat "$H2LOAD")"
h2load -n 200 -c 2 -m 8 -H "Authorization: Bearer alice-token" "$KGATE_URL/api/v1/namespaces" \
    >"$H2LOAD" 2>&1
check "h2load: 200 LISTs, all 200" grep -qE "status codes: 200 2xx" "$H2LOAD" ||
    diag "$(cat "$H2LOAD")"
h2load -n 20 -c 1 -m 20 -H "Authorization: Bearer alice-token" \
    "$KGATE_URL$CM?watch=1&timeoutSeconds=1" >"$H2LOAD" 2>&1
check "h2load: 20 one-second watches on one connection, all 200 and complete" \
    grep -q "20 succeeded, 0 failed, 0 errored" "$H2LOAD" || diag "$(cat "$H2LOAD")"

# ---- 1,000 watches on one connection -----------------------------------------------------------

READY=$KGATE_TEST_TMP/watches.ready
"${H2C[@]}" watches "$(hostport "$KGATE_URL")" "$PKI" 1000 "$CM?watch=1&resourceVersion=0" \
    "$READY" h2-thousand >"$KGATE_TEST_TMP/watches.out" 2>&1 &
WATCHES=$!
for _ in $(seq 300); do [[ -e $READY ]] && break; sleep 0.1; done
check "1,000 watch streams open on one connection" grep -q '^answered 1000$' \
    "$KGATE_TEST_TMP/watches.out"
check "... kgate counts them as HTTP/2 streams" test "$(metric kgate_http2_streams)" -ge 1000
send POST "$CM" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h2-thousand"}}' \
    "${ADMIN[@]}"
wait "$WATCHES"
check "... and every one of them receives the event" test $? = 0 ||
    diag "$(cat "$KGATE_TEST_TMP/watches.out")"

# ---- a stalled stream pauses only itself -----------------------------------------------------

kcurl "${ADMIN[@]}" -X POST -H 'Content-Type: application/json' -o /dev/null \
    -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"h2s"}}' "$KGATE_URL/api/v1/namespaces"
"${H2C[@]}" slow "$(hostport "$KGATE_URL")" "$PKI" /api/v1/namespaces/h2s/configmaps 40 \
    >"$KGATE_TEST_TMP/slow.out" 2>&1
check "a watch whose window stays shut beside 40 creates and a LIST on its connection: they \
succeed, and the watch resumes with every event once its window opens" test $? = 0 ||
    diag "$(cat "$KGATE_TEST_TMP/slow.out")"

# ---- a request reset mid-body ----------------------------------------------------------------

"${H2C[@]}" reset "$(hostport "$KGATE_URL")" "$PKI" "$CM" \
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h2-cut"},"data":{"a":"b"}}' \
    >"$KGATE_TEST_TMP/reset.out" 2>&1
check "a create reset before its body ends is not answered" test $? = 0 ||
    diag "$(cat "$KGATE_TEST_TMP/reset.out")"
check "... and writes nothing" test "$(http_code "$CM/h2-cut" "${ADMIN[@]}")" = 404

# ---- the stream limit, and GOAWAY on SIGTERM -------------------------------------------------

check "a second kgate with --http2-max-streams-per-connection=20" \
    api_start h2b --http2-max-streams-per-connection=20 --shutdown-delay-duration=0s
B_PID=$KGATE_PID B_LOG=$KGATE_LOG
"${H2C[@]}" refused "$(hostport "$KGATE_URL")" "$PKI" "$CM?watch=1&timeoutSeconds=5" \
    >"$KGATE_TEST_TMP/refused.out" 2>&1
check "a 21st concurrent stream is refused with PROTOCOL_ERROR, the 20 others answered" test $? = 0 ||
    diag "$(cat "$KGATE_TEST_TMP/refused.out")"

READY=$KGATE_TEST_TMP/goaway.ready
"${H2C[@]}" goaway "$(hostport "$KGATE_URL")" "$PKI" "$CM?watch=1" "$READY" \
    >"$KGATE_TEST_TMP/goaway.out" 2>&1 &
GOAWAY=$!
for _ in $(seq 300); do [[ -e $READY ]] && break; sleep 0.1; done
kill -TERM "$B_PID"
wait "$GOAWAY"
check "SIGTERM: the client gets GOAWAY (NO_ERROR), its watch ends cleanly and its GET is answered" \
    test $? = 0 || diag "$(cat "$KGATE_TEST_TMP/goaway.out")"
wait_exit "$B_PID" 30
check "... and kgate exits 0" test "$EXIT_CODE" = 0

# ---- --goaway-chance behind a load balancer ---------------------------------------------------

PREFIX=/registry-h2spread-$$
spread_start() {
    kgate_start "$1" --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --goaway-chance=0.02 --workers=1
    for _ in $(seq 300); do
        [[ $(http_code /readyz "${ADMIN[@]}") == 200 ]] && return 0
        sleep 0.1
    done
    return 1
}
check "two instances with --goaway-chance=0.02" spread_start c
C_URL=$KGATE_URL
spread_start d
D_URL=$KGATE_URL
LB_PORT=$(free_port)
cat >"$KGATE_TEST_TMP/haproxy.cfg" <<EOF
defaults
    mode tcp
    timeout connect 5s
    timeout client 60s
    timeout server 60s
frontend kgate
    bind 127.0.0.1:$LB_PORT
    default_backend instances
backend instances
    balance roundrobin
    server c $(hostport "$C_URL")
    server d $(hostport "$D_URL")
EOF
haproxy -f "$KGATE_TEST_TMP/haproxy.cfg" -db >"$KGATE_TEST_TMP/haproxy.log" 2>&1 &
echo $! >>"$KGATE_TEST_TMP/pids"
for _ in $(seq 50); do
    [[ $(KGATE_URL=https://127.0.0.1:$LB_PORT http_code /readyz "${ADMIN[@]}") == 200 ]] && break
    sleep 0.1
done
"${H2C[@]}" spread "127.0.0.1:$LB_PORT" "$PKI" 400 "$CM" >"$KGATE_TEST_TMP/spread.out" 2>&1
check "400 GETs through haproxy, reconnecting after each GOAWAY: none fails" test $? = 0 ||
    diag "$(cat "$KGATE_TEST_TMP/spread.out")"
conns=$(awk '$1 == "connections" {print $2}' "$KGATE_TEST_TMP/spread.out")
check "... the client was sent away and reconnected ($conns connections)" test "${conns:-0}" -gt 1
c_h2=$(KGATE_URL=$C_URL metric "$H2") d_h2=$(KGATE_URL=$D_URL metric "$H2")
check "... and both instances served it ($c_h2 and $d_h2 requests)" \
    test "${c_h2:-0}" -gt 10 -a "${d_h2:-0}" -gt 10

check "no sanitizer report" no_sanitizer_report "$A_LOG"
check "... nor from the stopped instance" no_sanitizer_report "$B_LOG"
tap_end
