#!/usr/bin/env bash
# `make bench`: run every benchmark and print their tables: bench_etcd against etcd, then
# bench_start (kgate's start-up time), bench_api, bench_h2 (HTTP/2 beside HTTP/1.1), bench_watch
# (1,000 then 10,000 watchers), bench_list, bench_encryption.sh, bench_authn, bench_rbac,
# bench_audit, bench_vap, bench_webhook, bench_crd (two instances), bench_gc (the garbage
# collector), API Priority and Fairness's victim beside a flooder (tests/e2e/apf_fairness.py)
# and bench_scaleout (1, 2 and 3 instances behind haproxy, bench/scaleout.sh) against
# $KGATE_BUILD/kgate in front of that etcd. The etcd is a throwaway one on free loopback ports
# unless KGATE_BENCH_ETCD=http://host:port points at an existing one (the benchmarks' objects are
# removed from it afterwards).
# BENCH_SECONDS sets the measured duration of each row. Builds nothing: make has done that.
set -euo pipefail
cd "$(dirname "$0")/.."
KGATE_BUILD=${KGATE_BUILD:-build}
source tests/lib/etcd.sh
source scripts/pki.sh

# The CEL library alone: no etcd.
"$KGATE_BUILD/bench/bench_cel"
echo

export KGATE_TEST_TMP
KGATE_TEST_TMP=$(mktemp -d /tmp/kgate-bench.XXXXXX)
PREFIX=/bench-api-$$
OWN_ETCD=
cleanup() {
    stop_all
    if [[ -z $OWN_ETCD ]]; then
        ETCDCTL_API=3 etcdctl --endpoints="$KGATE_BENCH_ETCD" del --prefix "$PREFIX/" >/dev/null
    fi
    rm -rf "$KGATE_TEST_TMP"
}
trap cleanup EXIT

if [[ -z ${KGATE_BENCH_ETCD:-} ]]; then
    OWN_ETCD=1
    etcd_start bench
    etcd_wait "$ETCD_URL"
    KGATE_BENCH_ETCD=$ETCD_URL
fi
export KGATE_BENCH_ETCD

"$KGATE_BUILD/bench/bench_etcd" "$KGATE_BENCH_ETCD"
echo

# kgate with its defaults (--workers = CPUs) under a prefix of its own, the admin presenting
# a client certificate as kubectl would.
PKI=$KGATE_TEST_TMP/pki
pki_ca "$PKI" ca
pki_cert "$PKI" ca server server "/CN=kgate" "IP:127.0.0.1"
pki_cert "$PKI" ca admin client "/O=system:masters/CN=kubernetes-admin"
LOG=$KGATE_TEST_TMP/kgate.log

# Start-up: kgate started afresh on an empty prefix, timed to its first answer and to its first
# /readyz 200.
KGATE_LOG=$KGATE_TEST_TMP/kgate-start.log \
    "$KGATE_BUILD/bench/bench_start" "$KGATE_BUILD/kgate" "$PKI" "$KGATE_BENCH_ETCD" "$PREFIX"
echo

# start_kgate [ETCD_URL [FLAGS...]]: a kgate on a free port in front of ETCD_URL (default: the
# bench etcd) with extra FLAGS, waited for until ready; sets PORT, KGATE_PID, WORKERS.
start_kgate() {
    PORT=$(free_port)
    "$KGATE_BUILD/kgate" --bind-address=127.0.0.1 --secure-port="$PORT" \
        --etcd-servers="${1:-$KGATE_BENCH_ETCD}" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" "${@:2}" >"$LOG" 2>&1 &
    KGATE_PID=$!
    echo $KGATE_PID >>"$KGATE_TEST_TMP/pids"
    local ready=
    for _ in $(seq 150); do
        curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
            "https://127.0.0.1:$PORT/readyz" >/dev/null && ready=1 &&
            break
        sleep 0.1
    done
    WORKERS=$(sed -n 's/.* with \([0-9]*\) workers$/\1/p' "$LOG")
    if [[ -z $ready || -z $WORKERS ]]; then
        echo "kgate did not become ready:" >&2
        cat "$LOG" >&2
        exit 1
    fi
}

# The watch and list rows each measure a kgate started afresh: memory an earlier row made kgate
# take and free stays in its heap, where it would hide what the row costs.
restart_kgate() {
    kill "$KGATE_PID"
    wait "$KGATE_PID" || true
    start_kgate "$@"
}

start_kgate
"$KGATE_BUILD/bench/bench_api" "https://127.0.0.1:$PORT" "$PKI" "$KGATE_BENCH_ETCD" "$PREFIX" \
    "$WORKERS"
echo

# HTTP/2: GET and LIST as streams on one TLS connection (and over 4) beside as many HTTP/1.1
# keep-alive connections, and kgate's memory per idle watch with 1,000 watches as the streams of
# one connection. A kgate started afresh, so that the watches' memory is theirs alone, and
# without kube-root-ca.crt among the ConfigMaps it lists.
restart_kgate "$KGATE_BENCH_ETCD" '--controllers=*,-root-ca-cert-publisher'
"$KGATE_BUILD/bench/bench_h2" "https://127.0.0.1:$PORT" "$PKI" "$KGATE_PID"
echo

# The watch row reports etcd's memory too when this script owns the etcd, from an etcd of its
# own: Go keeps the heap that the earlier rows grew, which would hide what the watches take.
WATCH_ETCD=$KGATE_BENCH_ETCD
WATCH_ETCD_PID=-
if [[ -n $OWN_ETCD ]]; then
    etcd_start watch
    etcd_wait "$ETCD_URL"
    WATCH_ETCD=$ETCD_URL
    WATCH_ETCD_PID=$ETCD_PID
fi
# Neither row wants kgate's kube-root-ca.crt among the ConfigMaps it measures.
restart_kgate "$WATCH_ETCD" '--controllers=*,-root-ca-cert-publisher'
"$KGATE_BUILD/bench/bench_watch" "https://127.0.0.1:$PORT" "$PKI" "$WATCH_ETCD" "$PREFIX" \
    "$KGATE_PID" "$WATCH_ETCD_PID"
echo

# 10,000 watchers, each its own HTTPS connection: again a kgate (and an etcd) of their own, so
# that their memory per watcher is theirs alone. Both processes raise their descriptor limits
# to the hard limit, which must allow 10,100.
if [[ -n $OWN_ETCD ]]; then
    etcd_start watch10k
    etcd_wait "$ETCD_URL"
    WATCH_ETCD=$ETCD_URL
    WATCH_ETCD_PID=$ETCD_PID
fi
restart_kgate "$WATCH_ETCD" '--controllers=*,-root-ca-cert-publisher'
"$KGATE_BUILD/bench/bench_watch" "https://127.0.0.1:$PORT" "$PKI" "$WATCH_ETCD" "$PREFIX" \
    "$KGATE_PID" "$WATCH_ETCD_PID" 10000
echo

restart_kgate "$KGATE_BENCH_ETCD" '--controllers=*,-root-ca-cert-publisher'
"$KGATE_BUILD/bench/bench_list" "https://127.0.0.1:$PORT" "$PKI" "$KGATE_BENCH_ETCD" "$PREFIX" \
    "$KGATE_PID"
echo

# Encryption at rest: GET and LIST of Secrets under aescbc and aesgcm beside identity, each
# through a kgate of its own (the script starts and stops them).
bench/bench_encryption.sh "$KGATE_BUILD/kgate" "$KGATE_BENCH_ETCD" "$PKI"
echo

# Authentication: a kgate that issues and checks service account tokens. Anonymous requests
# are not served under AlwaysAllow (as in kube), so an ABAC policy lets everyone in.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/sa.key" 2>/dev/null
for g in system:authenticated system:unauthenticated; do
    echo '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"'$g'","namespace":"*","resource":"*","apiGroup":"*","nonResourcePath":"*"}}'
done >"$PKI/abac.jsonl"
restart_kgate "$KGATE_BENCH_ETCD" --service-account-issuer=https://kgate.bench \
    --service-account-signing-key-file="$PKI/sa.key" --service-account-key-file="$PKI/sa.key" \
    --authorization-mode=ABAC --authorization-policy-file="$PKI/abac.jsonl"
"$KGATE_BUILD/bench/bench_authn" "https://127.0.0.1:$PORT" "$PKI"
echo

# Authorization: a kgate with RBAC beside one with AlwaysAllow, on the same prefix, both taking
# the bench user's bearer token; each keeps a log of its own.
echo "bench-token,bench-user,3001" >"$PKI/tokens.csv"
restart_kgate "$KGATE_BENCH_ETCD" --authorization-mode=AlwaysAllow \
    --token-auth-file="$PKI/tokens.csv"
ALLOW_PORT=$PORT
LOG=$KGATE_TEST_TMP/kgate-rbac.log
start_kgate "$KGATE_BENCH_ETCD" --authorization-mode=RBAC --token-auth-file="$PKI/tokens.csv"
"$KGATE_BUILD/bench/bench_rbac" "https://127.0.0.1:$PORT" "https://127.0.0.1:$ALLOW_PORT" "$PKI" \
    bench-token bench-user
echo

# The audit log: a kgate logging every request at RequestResponse into a file beside one
# without auditing, on the same prefix.
cat >"$KGATE_TEST_TMP/audit-policy.yaml" <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: RequestResponse
YAML
restart_kgate "$KGATE_BENCH_ETCD"
NONE_PORT=$PORT
LOG=$KGATE_TEST_TMP/kgate-audit.log
start_kgate "$KGATE_BENCH_ETCD" --audit-policy-file="$KGATE_TEST_TMP/audit-policy.yaml" \
    --audit-log-path="$KGATE_TEST_TMP/audit/audit.log" --audit-log-maxsize=100 \
    --audit-log-maxbackup=1
"$KGATE_BUILD/bench/bench_audit" "https://127.0.0.1:$PORT" "https://127.0.0.1:$NONE_PORT" "$PKI"
echo

# Admission policies: in-process, then through a kgate started afresh.
LOG=$KGATE_TEST_TMP/kgate-vap.log
restart_kgate "$KGATE_BENCH_ETCD"
"$KGATE_BUILD/bench/bench_vap" "https://127.0.0.1:$PORT" "$PKI"
echo

# Admission webhooks: a kgate started afresh; the webhooks are the bench's own server.
LOG=$KGATE_TEST_TMP/kgate-webhook.log
restart_kgate "$KGATE_BENCH_ETCD"
"$KGATE_BUILD/bench/bench_webhook" "https://127.0.0.1:$PORT" "$PKI"
echo

# Custom resources: a kgate started afresh and a second one on the same prefix (instance B of
# the time until a new CRD is usable).
LOG=$KGATE_TEST_TMP/kgate-crd.log
restart_kgate "$KGATE_BENCH_ETCD"
CRD_A_PORT=$PORT CRD_A_PID=$KGATE_PID
LOG=$KGATE_TEST_TMP/kgate-crd-b.log
start_kgate "$KGATE_BENCH_ETCD"
"$KGATE_BUILD/bench/bench_crd" "https://127.0.0.1:$CRD_A_PORT" "https://127.0.0.1:$PORT" "$PKI"
echo

# The garbage collector: both CRD instances stop, one kgate started afresh leads every election
# on the prefix, and its collector deletes what bench_gc writes into etcd.
kill "$CRD_A_PID"
wait "$CRD_A_PID" || true
LOG=$KGATE_TEST_TMP/kgate-gc.log
restart_kgate "$KGATE_BENCH_ETCD"
"$KGATE_BUILD/bench/bench_gc" "$KGATE_BENCH_ETCD" "$PREFIX"
echo

# API Priority and Fairness: one nominal seat for global-default (in-flight limits 2 + 1; it
# may borrow idle levels' seats), a victim's small GETs one at a time alone, then while a
# flooder keeps 48 LISTs of 300 ConfigMaps of 2 KiB in flight (tests/e2e/apf_fairness.py; the
# admin who seeds them is exempt).
pki_cert "$PKI" ca flooder client "/CN=flooder"
LOG=$KGATE_TEST_TMP/kgate-apf.log
restart_kgate "$KGATE_BENCH_ETCD" --max-requests-inflight=2 --max-mutating-requests-inflight=1 \
    --token-auth-file="$PKI/tokens.csv"
curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    -H 'Content-Type: application/json' -d '{"metadata":{"name":"apf-flood"}}' \
    "https://127.0.0.1:$PORT/api/v1/namespaces" >/dev/null
python3 tests/e2e/apf_fairness.py seed "https://127.0.0.1:$PORT" "$PKI/ca.crt" \
    "$PKI/admin.crt" "$PKI/admin.key" apf-flood 300
apf_row() {
    python3 tests/e2e/apf_fairness.py "https://127.0.0.1:$PORT" "$PKI/ca.crt" \
        "$PKI/flooder.crt" "$PKI/flooder.key" bench-token apf-flood "$2" 200 |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print("%-34s %9.2f %9.2f %12s" % (sys.argv[1], d["victim_p50"], d["victim_p99"], "%.2f" % d["flood_p50"] if d["flood_n"] else "-"))' "$1"
}
printf '%-34s %9s %9s %12s\n' "APF: victim GET, nominal 1 seat" "p50 ms" "p99 ms" "flooder p50"
apf_row "alone" 0
apf_row "beside 48 flooding LISTs" 48

# Scale-out: the collector's kgate stops (its CPU is the instances'); 1, 2 and 3 instances of
# their own behind haproxy.
kill "$KGATE_PID"
wait "$KGATE_PID" || true
bench/scaleout.sh "$PKI" "$KGATE_BENCH_ETCD" "$PREFIX"
