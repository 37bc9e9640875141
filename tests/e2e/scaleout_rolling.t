#!/usr/bin/env bash
# A rolling restart behind a load balancer: three kgate instances on one etcd prefix behind
# haproxy (health checks on /readyz), a client of GETs, creates and two watches through haproxy
# (scaleout_client.py) on keep-alive connections, and each instance in turn sent SIGTERM and
# started again on its port. --shutdown-delay-duration lets haproxy see /readyz fail and send
# the instance nothing new before it closes its listener; requests in progress finish and
# watches end cleanly. Asserted: no request failed, every watch that ended was resumed from its
# last resourceVersion without a 410, and each watcher saw every created ConfigMap exactly once.
# LB_MODE=http (the default: haproxy terminates TLS and picks an instance per request) or tcp
# (TLS end to end, an instance per connection: kubeadm's HA set-up; scaleout_rolling_tcp.t).
# ROLLING_DELAY=0s shows what the delay is for: haproxy then sends requests to an instance
# that has closed its listener and the client gets a 503 or a closed connection.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
LB_MODE=${LB_MODE:-http}
e2e_require "scaleout_rolling_$LB_MODE"

if ! command -v haproxy >/dev/null; then
    echo "1..0 # SKIP haproxy is not installed (scripts/install-deps.sh)"
    exit 0
fi
PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
echo "admin-token,rolling-admin,1000,system:masters" >>"$PKI/tokens.csv"
trap stop_all EXIT
PREFIX=/registry-rolling-$$
NS=rolling
DELAY=${ROLLING_DELAY:-2s}

# start N: instance N on its port ${PORT[N]}, waited for until /readyz answers 200.
declare -a PORT PID LOGS
start() {
    local n=$1
    LOGS[n]=$KGATE_TEST_TMP/kgate-$n.log
    "$KGATE" --bind-address=127.0.0.1 --secure-port="${PORT[n]}" \
        --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --token-auth-file="$PKI/tokens.csv" \
        --authorization-mode=RBAC --shutdown-delay-duration=$DELAY --workers=1 \
        >>"${LOGS[n]}" 2>&1 &
    PID[n]=$!
    echo "${PID[n]}" >>"$KGATE_TEST_TMP/pids"
    KGATE_URL=https://127.0.0.1:${PORT[n]} wait_for_code /readyz 200 60
}
for n in 0 1 2; do
    PORT[n]=$(free_port)
    check "instance $n starts" start "$n"
done

# haproxy checks each instance's /readyz over TLS (anonymous: kube's
# system:public-info-viewer) every 100 ms; two failures take an instance out, well within the
# shutdown delay. It never retries a request elsewhere (retries 0): a request sent to an
# instance that is no longer listening, or whose connection it closed, fails the client.
LB_PORT=$(free_port)
cat "$PKI/server.crt" "$PKI/server.key" >"$KGATE_TEST_TMP/lb.pem"
if [[ $LB_MODE == http ]]; then
    BIND="ssl crt $KGATE_TEST_TMP/lb.pem"
    CHECK="ssl verify required ca-file $PKI/ca.crt"
else
    BIND=""
    CHECK="check-ssl verify required ca-file $PKI/ca.crt"
fi
{
    cat <<EOF
global
    maxconn 1000
    stats socket $KGATE_TEST_TMP/haproxy.sock
defaults
    mode $LB_MODE
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    retries 0
frontend kgate
    bind 127.0.0.1:$LB_PORT $BIND
    default_backend instances
backend instances
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server check inter 100ms fall 2 rise 2 $CHECK
EOF
    for n in 0 1 2; do echo "    server k$n 127.0.0.1:${PORT[n]}"; done
} >"$KGATE_TEST_TMP/haproxy.cfg"
haproxy -f "$KGATE_TEST_TMP/haproxy.cfg" -db >"$KGATE_TEST_TMP/haproxy.log" 2>&1 &
echo $! >>"$KGATE_TEST_TMP/pids"
KGATE_URL=https://127.0.0.1:$LB_PORT
KCURL_AUTH=(-H "Authorization: Bearer admin-token")

# lb_up N: wait (up to 20 s) until haproxy's checks have put instance N back in service.
lb_up() {
    python3 - "$KGATE_TEST_TMP/haproxy.sock" "k$1" <<'EOF'
import socket, sys, time
for _ in range(200):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(b"show stat\n")
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    s.close()
    rows = [l.split(",") for l in out.decode().splitlines()]
    if any(r[0] == "instances" and r[1] == sys.argv[2] and r[17] == "UP" for r in rows if len(r) > 17):
        sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
EOF
}
check "haproxy answers /readyz" wait_for_code /readyz 200 10

send POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$NS\"}}"
check "namespace $NS" test "$CODE" = 201
send POST /api/v1/namespaces/$NS/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"anchor"},"data":{"k":"v"}}'
check "the ConfigMap the GETs read" test "$CODE" = 201

STOP=$KGATE_TEST_TMP/stop
python3 tests/e2e/scaleout_client.py "127.0.0.1:$LB_PORT" "$PKI/ca.crt" admin-token "$NS" \
    "$STOP" >"$KGATE_TEST_TMP/client.out" 2>"$KGATE_TEST_TMP/client.err" &
CLIENT=$!
echo $CLIENT >>"$KGATE_TEST_TMP/pids"
sleep 2

# The rolling restart: each instance in turn.
for n in 0 1 2; do
    kill -TERM "${PID[n]}"
    wait_exit "${PID[n]}" 30
    check "instance $n exits 0 after SIGTERM (got $EXIT_CODE)" test "$EXIT_CODE" = 0
    check "... with nothing left in progress to cut" \
        bash -c "! grep -q 'still in progress' ${LOGS[n]}"
    check "... without a sanitizer report" no_sanitizer_report "${LOGS[n]}"
    check "instance $n starts again on its port" start "$n"
    check "... and haproxy sends it requests again" lb_up "$n"
done
sleep 2
touch "$STOP"
wait "$CLIENT"
check "the client ran to its end" test $? = 0 || diag "$(cat "$KGATE_TEST_TMP/client.err")"
OUT=$KGATE_TEST_TMP/client.json
tail -1 "$KGATE_TEST_TMP/client.out" >"$OUT"
diag "client: $(cat "$OUT")"
check "GETs and creates were served throughout" jpy "d['gets'] > 100 and d['creates'] > 50"
check "no request failed" jpy "d['failures'] == 0"
check "both watches ended and were resumed" jpy "min(d['resumes']) >= 1"
check "... every end was clean (HTTP's end of the stream)" jpy "d['unclean'] == 0"
check "... and no resume was refused (410)" jpy "d['gone'] == 0"
check "each watcher saw every created ConfigMap" jpy "d['missing'] == [[], []]"
check "... once" jpy "d['duplicate'] == [[], []]"
for n in 0 1 2; do
    kill -TERM "${PID[n]}"
    wait_exit "${PID[n]}" 30
    check "instance $n: no sanitizer report at the end" no_sanitizer_report "${LOGS[n]}"
done
tap_end
