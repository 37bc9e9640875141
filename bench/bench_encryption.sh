#!/usr/bin/env bash
# bench_encryption: GET of one Secret and LIST of 100 (1 KiB each) through kgate with Secrets
# encrypted at rest by aescbc and by aesgcm, beside identity (no encryption), as requests per
# second and their ratio to identity's. Each provider gets a kgate started afresh on a prefix of
# its own, its Secrets created through it. Rows run twice: with --watch-cache=false, where every
# read decrypts what etcd holds, and with the read cache (kube's default), which keeps the
# decrypted objects, so that a read decrypts nothing.
# Load: h2load, 4 connections, BENCH_SECONDS (default 5) per row.
# Usage: bench_encryption.sh KGATE ETCD_URL PKI_DIR (PKI_DIR as bench/run.sh makes it).
set -euo pipefail
KGATE=$1 ETCD=$2 PKI=$3
SECONDS_PER_ROW=${BENCH_SECONDS:-5}
TMP=$(mktemp -d /tmp/kgate-bench-enc.XXXXXX)
PID=
cleanup() {
    [[ -n $PID ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    for p in identity aescbc aesgcm; do
        ETCDCTL_API=3 etcdctl --endpoints="$ETCD" del --prefix "/bench-enc-$p-$$/" >/dev/null
    done
    rm -rf "$TMP"
}
trap cleanup EXIT
echo "bench-token,bench-user,3001,system:masters" >"$TMP/tokens.csv"
AUTH="Authorization: Bearer bench-token"
NS=/api/v1/namespaces/default/secrets

config() {
    local provider=$1
    case $provider in
    identity) echo "- identity: {}" ;;
    aescbc) echo "- aescbc: {keys: [{name: k, secret: $(head -c 32 /dev/urandom | base64)}]}" ;;
    aesgcm) echo "- aesgcm: {keys: [{name: k, secret: $(head -c 32 /dev/urandom | base64)}]}" ;;
    esac | sed 's/^/      /' >"$TMP/providers"
    cat >"$TMP/$provider.yaml" <<EOF
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
$(cat "$TMP/providers")
EOF
}

# start PROVIDER FLAGS...: a kgate for PROVIDER's configuration; sets PID and URL.
start() {
    local provider=$1 port; shift
    port=$(perl -MIO::Socket::INET -e \
        'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0")->sockport')
    "$KGATE" --bind-address=127.0.0.1 --secure-port="$port" --etcd-servers="$ETCD" \
        --etcd-prefix="/bench-enc-$provider-$$" --tls-cert-file="$PKI/server.crt" \
        --tls-private-key-file="$PKI/server.key" --token-auth-file="$TMP/tokens.csv" \
        --encryption-provider-config="$TMP/$provider.yaml" "$@" >"$TMP/kgate.log" 2>&1 &
    PID=$!
    URL=https://127.0.0.1:$port
    for _ in $(seq 150); do
        curl -skf -H "$AUTH" "$URL/readyz" >/dev/null && return 0
        sleep 0.1
    done
    cat "$TMP/kgate.log" >&2
    exit 1
}

stop() {
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
}

seed() {
    local blob
    blob=$(head -c 768 /dev/urandom | base64 -w0)
    for i in $(seq 100); do
        curl -skf -o /dev/null -H "$AUTH" -H "Content-Type: application/json" -X POST \
            --data-binary "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s$i\"},\"data\":{\"blob\":\"$blob\"}}" \
            "$URL$NS"
    done
}

# rate PATH: requests per second h2load sustains on PATH for the row's duration.
rate() {
    h2load -c 4 -m 1 -D "$SECONDS_PER_ROW" -H "$AUTH" "$URL$1" 2>/dev/null |
        sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p'
}

declare -A R
for p in identity aescbc aesgcm; do
    config "$p" # once: the cached rows read what the uncached ones wrote
done
for cache in false true; do
    for p in identity aescbc aesgcm; do
        start "$p" --watch-cache="$cache"
        [[ $cache == false ]] && seed
        R[$cache-$p-get]=$(rate "$NS/s1")
        R[$cache-$p-list]=$(rate "$NS")
        stop
    done
done

echo "encryption at rest: Secrets (1 KiB) through kgate, req/s (ratio to identity)"
printf '%-34s %14s %20s %20s\n' row identity aescbc aesgcm
for cache in false true; do
    for op in get list; do
        label="GET one"
        [[ $op == list ]] && label="LIST of 100"
        [[ $cache == true ]] && label+=", read cache" || label+=", from etcd"
        id=${R[$cache-identity-$op]}
        printf '%-34s %14.0f' "$label" "$id"
        for p in aescbc aesgcm; do
            v=${R[$cache-$p-$op]}
            printf ' %12.0f (%5.2f)' "$v" "$(echo "$v / $id" | bc -l)"
        done
        echo
    done
done
