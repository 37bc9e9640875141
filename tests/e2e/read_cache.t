#!/usr/bin/env bash
# The read cache, seen only through what it answers: two instances on an etcd of their own,
# answers compared with etcd's at the same revision under concurrent writes, reads through one
# instance right after writes through the other, limits and continue tokens across instances,
# an etcd restart (the cache's watch breaks and resumes) and a compaction, --watch-cache-sizes
# and --watch-cache=false.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/watch_lib.sh
e2e_require read_cache

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
KCURL_AUTH=("${ADMIN[@]}") # anonymous is off under AlwaysAllow
trap stop_all EXIT
PREFIX=/registry
etcd_start readcache
etcd_wait "$ETCD_URL"
mapfile -d '' etcd_cmd </proc/"$ETCD_PID"/cmdline
declare -A PID URL LOG PORT

# start NAME FLAGS...: a kgate on the test's etcd, ready to serve.
start() {
    local name=$1; shift
    kgate_start "$name" --etcd-servers="$ETCD_URL" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --shutdown-delay-duration=0s --workers=2 \
        --etcd-compaction-interval=0 "$@"
    PID[$name]=$KGATE_PID URL[$name]=$KGATE_URL LOG[$name]=$KGATE_LOG PORT[$name]=$KGATE_PORT
    wait_for_code /readyz 200
}
on() { KGATE_URL=${URL[$1]} KGATE_PID=${PID[$1]} KGATE_LOG=${LOG[$1]}; }

# cache_reads SOURCE: kgate_read_cache_reads_total{source="SOURCE"} of the current instance.
cache_reads() {
    kcurl "$KGATE_URL/metrics" | awk -v m="kgate_read_cache_reads_total{source=\"$1\"}" \
        '$1 == m {print $2}'
}
# check_py MODE INSTANCE...: the property checks of read_cache_check.py against the instances,
# in a namespace of their own.
RUNS=0
check_py() {
    local mode=$1 ports=(); shift
    for n in "$@"; do ports+=("${PORT[$n]}"); done
    RUNS=$((RUNS + 1))
    req POST /api/v1/namespaces "{\"metadata\":{\"name\":\"rc$RUNS\"}}"
    code_is 201 || return 1
    python3 tests/e2e/read_cache_check.py "$mode" "rc$RUNS" "$PKI/ca.crt" "$PKI/admin.crt" \
        "$PKI/admin.key" "$ETCD_URL" "$PREFIX" "${ports[@]}"
}
# names: the item names of the list in the last answer, space-separated.
names() { jget "' '.join(i['metadata']['name'] for i in d['items'])"; }

check "instance a starts" start a
check "instance b starts" start b
W=/api/v1/namespaces/rc/configmaps
on a
req POST /api/v1/namespaces '{"metadata":{"name":"rc"}}'
check "namespace rc" code_is 201

# Reads right after writes through the other instance, in both directions.
check "a write through one instance is read at once through the other" check_py fresh a b
on b
check "b answered reads from its cache" test "$(cache_reads cache)" -gt 0
check "... and keeps the collections it read" test "$(metric kgate_read_caches)" -ge 1

# Answers compared with etcd's at their revision while a writer changes the collection.
check "lists and gets equal etcd's state at their revision, never older than one seen" \
    check_py consistent a b

# Pages: a limit at every resourceVersion, continue tokens served by the other instance.
on a
for i in 1 2 3 4 5; do req POST $W "$(cm p$i)"; done
req GET "$W?limit=2&labelSelector=!absent"
first=$(names) token=$(jget "d['metadata']['continue']") rv=$(jget "d['metadata']['resourceVersion']")
check "a limited list from the cache pages" test -n "$token"
on b
req GET "$W?limit=2&continue=$token"
check "the next page through the other instance" code_is 200
check "... at the first page's revision" test "$(jget "d['metadata']['resourceVersion']")" = "$rv"
req GET "$W?resourceVersion=0&limit=2"
check "resourceVersion=0 honours the limit" test "$(jget "len(d['items'])")" = 2
check "... and gives a continue token" test -n "$(jget "d['metadata'].get('continue','')")"
req GET "$W?resourceVersion=$rv&resourceVersionMatch=Exact"
check "an Exact list at the page's revision" code_is 200
check "... at that revision" test "$(jget "d['metadata']['resourceVersion']")" = "$rv"
req GET "$W/p1?resourceVersion=$rv"
check "a GET not older than the page's revision finds what the page showed" code_is 200
req GET "$W/kube-root-ca.crt?resourceVersion=0"
check "a GET at resourceVersion=0 (any state) is answered" \
    jpy "d['metadata']['name'] == 'kube-root-ca.crt'"
req GET "$W?resourceVersion=$((rv + 1000000))"
check "a resourceVersion in the future is still refused" code_is 504

# etcd restarts: the caches' watches break and resume; nothing read afterwards is stale.
kill -TERM "$ETCD_PID"
wait "$ETCD_PID" 2>/dev/null
"${etcd_cmd[@]}" >>"$KGATE_TEST_TMP/etcd-readcache/log" 2>&1 &
echo $! >>"$KGATE_TEST_TMP/pids"
check "etcd back on the same port" etcd_wait "$ETCD_URL"
on a
check "a is ready again" wait_for_code /readyz 200 30
on b
check "b is ready again" wait_for_code /readyz 200 30
check "after the restart, reads through either instance still see writes at once" \
    check_py fresh b a
check "... and equal etcd's state under concurrent writes" check_py consistent a b

# A compaction: the caches keep answering; a token at a compacted revision is 410.
on a
req GET "$W?limit=1"
old=$(jget "d['metadata']['continue']")
req POST $W "$(cm after-compaction)"
rev=$(rv_of)
ETCDCTL_API=3 etcdctl --endpoints="$ETCD_URL" compact "$rev" >/dev/null
on b
req GET "$W/after-compaction"
check "after a compaction the cache still answers" code_is 200
req GET "$W?limit=1&continue=$old"
check "a token from before the compaction is 410 Expired" code_is 410

# --watch-cache-sizes: a collection over its limit is read from etcd, with the same answers.
check "an instance whose ConfigMap cache may hold 3 objects" start small --watch-cache-sizes=configmaps#3
on small
before=$(cache_reads etcd)
req GET "$W"
check "it lists them all" test "$(jget "len(d['items'])")" -gt 3
req GET "$W"
check "... from etcd" test "$(cache_reads etcd)" -gt "$before"
check "answers through it equal etcd's too" check_py fresh small a
refused() {
    local out
    out=$("$KGATE" --etcd-servers="$ETCD_URL" "$1" 2>&1) && return 1
    grep -qF -- "$2" <<<"$out" || { diag "$out"; return 1; }
}
check "a --watch-cache-sizes item without a size is refused at start-up" \
    refused --watch-cache-sizes=configmaps3 'invalid value of watch cache size'
check "... and a negative size" \
    refused --watch-cache-sizes=configmaps#-1 'watch cache size cannot be negative'

# --watch-cache=false: every read goes to etcd, answers unchanged.
check "an instance without read caches" start nocache --watch-cache=false
on nocache
check "its answers equal etcd's" check_py consistent nocache a
check "... and none came from a cache" test "$(cache_reads cache)" = 0
check "no cache is kept" test "$(metric kgate_read_caches)" = 0

for n in a b small nocache; do
    on "$n"
    check "$n: no sanitizer report" no_sanitizer_report "$KGATE_LOG"
done
tap_end
