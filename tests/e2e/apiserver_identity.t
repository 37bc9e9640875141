#!/usr/bin/env bash
# kube-apiserver's identity Lease in kube-system (named from the hostname as kube hashes it,
# kube's labels, holderIdentity, duration, renewed every 10 s) and the identity lease garbage
# collector (expired identity Leases of kube-system go at start; fresh ones, other Leases and
# other namespaces' stay).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require apiserver_identity

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
KCURL_AUTH=("${ADMIN[@]}")
trap stop_all EXIT
PREFIX=/registry-identity-$$
LEASES=/apis/coordination.k8s.io/v1/namespaces

# lease NS NAME RENEWED LABELLED: a Lease written into etcd as kgate stores it (JSON).
lease() {
    local labels='{}'
    [[ $4 == yes ]] && labels='{"apiserver.kubernetes.io/identity":"kube-apiserver"}'
    ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" put "$PREFIX/leases/$1/$2" \
        "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"$2\",\"namespace\":\"$1\",\"uid\":\"$(cat /proc/sys/kernel/random/uuid)\",\"creationTimestamp\":\"2020-01-01T00:00:00Z\",\"labels\":$labels},\"spec\":{\"holderIdentity\":\"$2\",\"leaseDurationSeconds\":3600,\"renewTime\":\"$3\"}}" \
        >/dev/null
}
hours_ago() { date -u -d "$1 hours ago" +%Y-%m-%dT%H:%M:%S.000000Z; }
lease kube-system old-identity "$(hours_ago 2)" yes
lease kube-system fresh-identity "$(hours_ago 0)" yes
lease kube-system old-other "$(hours_ago 2)" no
lease default old-identity "$(hours_ago 2)" yes

check "kgate starts" api_start identity --etcd-prefix="$PREFIX" --workers=2
code() { http_code "$LEASES/$1"; }
for _ in $(seq 50); do [[ $(code kube-system/leases/old-identity) == 404 ]] && break; sleep 0.1; done
check "an expired identity Lease of kube-system is collected at start" \
    test "$(code kube-system/leases/old-identity)" = 404
check "a fresh identity Lease stays" test "$(code kube-system/leases/fresh-identity)" = 200
check "an expired Lease without the identity label stays" \
    test "$(code kube-system/leases/old-other)" = 200
check "an expired identity Lease of another namespace stays" \
    test "$(code default/leases/old-identity)" = 200

# kube's expectedAPIServerIdentity
name=$(python3 -c '
import base64, hashlib, socket, struct
h, c = socket.gethostname().encode(), b"kube-apiserver"
d = struct.pack(">H", len(h)) + h + struct.pack(">H", len(c)) + c
print("apiserver-" + base64.b32encode(hashlib.sha256(d).digest()[:16]).decode().rstrip("=").lower())')
show() {
    kcurl "$KGATE_URL$LEASES/kube-system/leases/$name" | python3 -c "
import json, sys
d = json.load(sys.stdin)
print($1)"
}
check "the instance's Lease is kube-system/$name" \
    test "$(code kube-system/leases/$name)" = 200
check "it carries kube's labels" test "$(show "d['metadata']['labels'] == {
    'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': '$(hostname)'}")" = True
check "holderIdentity is the name, then a UUID" \
    grep -qE "^${name}_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$" \
    <<<"$(show "d['spec']['holderIdentity']")"
check "leaseDurationSeconds is 3600" test "$(show "d['spec']['leaseDurationSeconds']")" = 3600
check "renewTime is a MicroTime" grep -qE '^[0-9-]{10}T[0-9:]{8}\.[0-9]{6}Z$' \
    <<<"$(show "d['spec']['renewTime']")"
first=$(show "d['spec']['renewTime']")
renewed() { [[ $(show "d['spec']['renewTime']") != "$first" ]]; }
wait_renewed() { for _ in $(seq 30); do renewed && return 0; sleep 0.5; done; return 1; }
check "it is renewed within 10 s (and a little)" wait_renewed
check "the identity hooks are listed and done" test "$(kcurl "$KGATE_URL/readyz?verbose" |
    grep -c -e '^\[+\]poststarthook/start-kube-apiserver-identity-lease-controller ok$' \
        -e '^\[+\]poststarthook/start-kube-apiserver-identity-lease-garbage-collector ok$')" = 2
check "kgate exits cleanly" clean_exit
tap_end
