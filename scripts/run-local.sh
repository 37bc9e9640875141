#!/usr/bin/env bash
# run-local.sh start|stop: a one-member etcd and build/kgate on https://127.0.0.1:6443 for
# trying kgate out (`make run` / `make stop`). Everything lives in .run/: etcd's data and log,
# the PKI, kgate's log, pid files and a kubeconfig for the admin user. `start` is idempotent;
# `stop` stops both processes and keeps the data.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/pki.sh

RUN=$PWD/.run
PKI=$RUN/pki
KGATE_PORT=6443
KGATE_URL=https://127.0.0.1:$KGATE_PORT

die() { echo "run-local: $*" >&2; exit 1; }
say() { echo "run-local: $*"; }

# running NAME: the process in $RUN/NAME.pid is alive.
running() {
    local pid
    [[ -s $RUN/$1.pid ]] || return 1
    pid=$(<"$RUN/$1.pid")
    kill -0 "$pid" 2>/dev/null
}

# free_port: a loopback TCP port nobody listens on right now.
free_port() {
    perl -MIO::Socket::INET -e \
        'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0")->sockport, "\n"'
}

# port_taken PORT: something listens on PORT (any address).
port_taken() { ss -Hltn "sport = :$1" | grep -q .; }

# etcd's ports are chosen once and kept, so that its data directory stays valid.
etcd_ports() {
    if [[ ! -s $RUN/etcd.ports ]]; then
        echo "$(free_port) $(free_port)" >"$RUN/etcd.ports"
    fi
    read -r ETCD_CLIENT_PORT ETCD_PEER_PORT <"$RUN/etcd.ports"
    ETCD_URL=http://127.0.0.1:$ETCD_CLIENT_PORT
}

# wait_until SECONDS CMD...: retry CMD every 0.2 s until it succeeds or time runs out.
wait_until() {
    local tries=$(($1 * 5)); shift
    for ((i = 0; i < tries; i++)); do
        "$@" && return 0
        sleep 0.2
    done
    return 1
}

etcd_healthy() { curl -sf --max-time 2 "$ETCD_URL/health" | grep -q '"health":"true"'; }

start_etcd() {
    etcd_ports
    if running etcd; then
        say "etcd is already running (pid $(<"$RUN/etcd.pid")) at $ETCD_URL"
        return 0
    fi
    ! port_taken "$ETCD_CLIENT_PORT" ||
        die "port $ETCD_CLIENT_PORT (etcd's, kept in $RUN/etcd.ports) is in use"
    local peer=http://127.0.0.1:$ETCD_PEER_PORT
    setsid etcd --name kgate-local --data-dir "$RUN/etcd" \
        --listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
        --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
        --initial-cluster "kgate-local=$peer" --logger zap --log-level warn \
        </dev/null >>"$RUN/etcd.log" 2>&1 &
    echo $! >"$RUN/etcd.pid"
    wait_until 15 etcd_healthy || die "etcd did not become healthy; see $RUN/etcd.log"
    say "etcd started (pid $(<"$RUN/etcd.pid")) at $ETCD_URL, data in $RUN/etcd"
}

make_pki() {
    pki_ca "$PKI" ca
    pki_cert "$PKI" ca apiserver server "/CN=kgate" "DNS:localhost,IP:127.0.0.1"
    pki_cert "$PKI" ca admin client "/O=system:masters/CN=kubernetes-admin"
}

# The key that signs service account tokens (`kubectl create token`), made once.
make_sa_key() {
    [[ -f $PKI/sa.key ]] ||
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/sa.key" 2>/dev/null
}

kgate_ready() {
    [[ $(curl -s --max-time 2 -o /dev/null -w '%{http_code}' --cacert "$PKI/ca.crt" \
        --cert "$PKI/admin.crt" --key "$PKI/admin.key" "$KGATE_URL/readyz") == 200 ]]
}

start_kgate() {
    setsid build/kgate --etcd-servers="$ETCD_URL" \
        --bind-address=127.0.0.1 --secure-port="$KGATE_PORT" \
        --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
        --client-ca-file="$PKI/ca.crt" \
        --service-account-issuer=https://kubernetes.default.svc.cluster.local \
        --service-account-signing-key-file="$PKI/sa.key" \
        --service-account-key-file="$PKI/sa.key" </dev/null >>"$RUN/kgate.log" 2>&1 &
    echo $! >"$RUN/kgate.pid"
    if ! wait_until 30 kgate_ready; then
        tail -5 "$RUN/kgate.log" >&2
        stop_one kgate
        die "kgate did not become ready; see $RUN/kgate.log"
    fi
    say "kgate started (pid $(<"$RUN/kgate.pid")) at $KGATE_URL, log in $RUN/kgate.log"
}

b64() { base64 -w0 <"$1"; }

write_kubeconfig() {
    cat >"$RUN/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kgate
  cluster:
    server: $KGATE_URL
    certificate-authority-data: $(b64 "$PKI/ca.crt")
users:
- name: kubernetes-admin
  user:
    client-certificate-data: $(b64 "$PKI/admin.crt")
    client-key-data: $(b64 "$PKI/admin.key")
contexts:
- name: kgate
  context:
    cluster: kgate
    user: kubernetes-admin
current-context: kgate
EOF
    chmod 600 "$RUN/kubeconfig"
}

# stop_one NAME: SIGTERM the process, wait up to 20 s, then SIGKILL; remove its pid file.
stop_one() {
    local name=$1 pid
    if ! running "$name"; then
        rm -f "$RUN/$name.pid"
        return 0
    fi
    pid=$(<"$RUN/$name.pid")
    kill -TERM "$pid"
    wait_until 20 bash -c "! kill -0 $pid 2>/dev/null" || kill -KILL "$pid" 2>/dev/null || true
    rm -f "$RUN/$name.pid"
    say "$name stopped (pid $pid)"
}

start() {
    mkdir -p "$RUN"
    if ! running kgate; then
        [[ -x build/kgate ]] || die "build/kgate is missing: run make first"
        ! port_taken "$KGATE_PORT" || die "port $KGATE_PORT is already in use by another process"
    fi
    start_etcd
    make_pki
    make_sa_key
    if running kgate; then
        say "kgate is already running (pid $(<"$RUN/kgate.pid")) at $KGATE_URL"
    else
        start_kgate
    fi
    write_kubeconfig
    echo "export KUBECONFIG=$RUN/kubeconfig"
}

stop() {
    stop_one kgate
    stop_one etcd
}

case ${1:-} in
start) start ;;
stop) stop ;;
*) die "usage: $0 start|stop" ;;
esac
