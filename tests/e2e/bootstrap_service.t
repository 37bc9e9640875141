#!/usr/bin/env bash
# kube-apiserver's bootstrap controller and lease endpoint reconciler with up to three kgate
# instances on one etcd prefix, on 127.0.0.1, 127.0.0.2 and 127.0.0.3 and one port (as
# apiservers behind the kubernetes Service): the Service default/kubernetes as kube writes it;
# its Endpoints and EndpointSlice list exactly the live instances as they start, stop with
# SIGTERM (kube's pre-shutdown hook) and die with SIGKILL (their record expires after 15 s);
# the TTL records under <prefix>/masterleases/; the official Python client reads all three.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require bootstrap_service

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
pki_cert "$PKI" ca multi server "/CN=kgate" "DNS:localhost,IP:127.0.0.1,IP:127.0.0.2,IP:127.0.0.3,IP:::1"
set_users
KCURL_AUTH=("${ADMIN[@]}")
trap stop_all EXIT
PREFIX=/registry-boot-$$
PORT=$(free_port)
declare -A PID LOG
CORE=/api/v1/namespaces/default

# start NAME IP [FLAG...]: an instance on IP:$PORT; true once its /readyz answers 200.
start() {
    local name=$1 ip=$2
    shift 2
    LOG[$name]=$KGATE_TEST_TMP/kgate-$name.log
    "$KGATE" --bind-address="$ip" --secure-port="$PORT" --etcd-servers="$KGATE_TEST_ETCD" \
        --etcd-prefix="$PREFIX" --tls-cert-file="$PKI/multi.crt" \
        --tls-private-key-file="$PKI/multi.key" --client-ca-file="$PKI/ca.crt" \
        --shutdown-delay-duration=0s --workers=2 "$@" >"${LOG[$name]}" 2>&1 &
    PID[$name]=$!
    echo "$!" >>"$KGATE_TEST_TMP/pids"
    KGATE_URL=https://$ip:$PORT
    [[ $ip == *:* ]] && KGATE_URL="https://[$ip]:$PORT"
    wait_for_code /readyz 200 30
}

# json PATH EXPR: EXPR (Python, over the answer as d) printed, for PATH's answer.
json() {
    kcurl "$KGATE_URL$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"
}

# ips: the Endpoints' addresses and port, then the EndpointSlice's, as one line each.
ips() {
    json $CORE/endpoints/kubernetes \
        "' '.join(a['ip'] for s in d['subsets'] for a in s['addresses']) + ' :' + \
         str(d['subsets'][0]['ports'][0]['port'])"
    json /apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes \
        "' '.join(a for e in d['endpoints'] for a in e['addresses']) + ' :' + \
         str(d['ports'][0]['port'])"
}

# listed WANT [SECONDS]: wait (default 10 s) until both list exactly WANT (addresses, port).
listed() {
    local want="$1 :$PORT" tries=$((${2:-10} * 5))
    for ((i = 0; i < tries; i++)); do
        [[ $(ips 2>/dev/null) == "$want"$'\n'"$want" ]] && return 0
        sleep 0.2
    done
    diag "endpoints: $(ips 2>&1)"
    return 1
}

wait_v6() {
    local want="IPv6 ['::1']"
    for _ in $(seq 50); do
        [[ $(json /apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes \
            "d['addressType'], [a for e in d['endpoints'] for a in e['addresses']]" \
            2>/dev/null) == "$want" ]] && return 0
        sleep 0.2
    done
    return 1
}

leases() {
    ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" get --prefix --keys-only \
        "$PREFIX/masterleases/" | grep -v '^$' | tr '\n' ' '
}

check "instance a starts on 127.0.0.1" start a 127.0.0.1
check "the Endpoints and EndpointSlice list a" listed 127.0.0.1

check "the kubernetes Service is as kube writes it" test "$(json $CORE/services/kubernetes "
d['metadata']['labels'] == {'component': 'apiserver', 'provider': 'kubernetes'} and
{k: v for k, v in d['spec'].items()} == {'clusterIP': '10.0.0.1', 'clusterIPs': ['10.0.0.1'],
 'type': 'ClusterIP', 'sessionAffinity': 'None', 'ipFamilies': ['IPv4'],
 'ipFamilyPolicy': 'SingleStack', 'internalTrafficPolicy': 'Cluster',
 'ports': [{'name': 'https', 'protocol': 'TCP', 'port': 443, 'targetPort': $PORT}]}")" = True
check "the Endpoints carry kube's skip-mirror label" test \
    "$(json $CORE/endpoints/kubernetes "d['metadata']['labels']")" = \
    "{'endpointslice.kubernetes.io/skip-mirror': 'true'}"
check "the EndpointSlice is kube's: labels, addressType, ready endpoints, ports" test \
    "$(json /apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes "
d['metadata']['labels'] == {'kubernetes.io/service-name': 'kubernetes'} and
d['addressType'] == 'IPv4' and d['metadata']['generation'] == 1 and
d['endpoints'] == [{'addresses': ['127.0.0.1'], 'conditions': {'ready': True}}] and
d['ports'] == [{'name': 'https', 'protocol': 'TCP', 'port': $PORT}]")" = True
check "a keeps a TTL record under masterleases" test "$(leases)" = "$PREFIX/masterleases/127.0.0.1 "
lease_id=$(ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" get -w json \
    "$PREFIX/masterleases/127.0.0.1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["lease"])')
ttl=$(ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" lease timetolive \
    "$(printf %x "$lease_id")" | grep -o 'granted with TTL([0-9]*s)')
check "the record's etcd lease is kube's 15 s" test "$ttl" = "granted with TTL(15s)"

check "instance b starts on 127.0.0.2" start b 127.0.0.2
check "instance c starts on 127.0.0.3" start c 127.0.0.3
check "the Endpoints and EndpointSlice list a, b and c, in order" \
    listed "127.0.0.1 127.0.0.2 127.0.0.3"
check "one record per instance" test "$(leases)" = \
    "$PREFIX/masterleases/127.0.0.1 $PREFIX/masterleases/127.0.0.2 $PREFIX/masterleases/127.0.0.3 "

KGATE_URL=https://127.0.0.1:$PORT
kill -TERM "${PID[c]}"
check "c (SIGTERM) is gone from both within 3 s" listed "127.0.0.1 127.0.0.2" 3
wait_exit "${PID[c]}" 30
check "c exits cleanly" test "$EXIT_CODE" = 0
check "no sanitizer report from c" no_sanitizer_report "${LOG[c]}"
check "c removed its record" test "$(leases)" = \
    "$PREFIX/masterleases/127.0.0.1 $PREFIX/masterleases/127.0.0.2 "
check "c's log names kube's pre-shutdown step" \
    grep -q "Shutting down kubernetes service endpoint reconciler" "${LOG[c]}"

kill -KILL "${PID[b]}"
wait "${PID[b]}" 2>/dev/null
check "b (SIGKILL) still listed at first: its record lives on" listed "127.0.0.1 127.0.0.2" 1
check "b is gone once its record expired (15 s TTL, a's 10 s passes)" listed 127.0.0.1 30
check "b's record expired" test "$(leases)" = "$PREFIX/masterleases/127.0.0.1 "

check "b starts again" start b 127.0.0.2
check "b is listed again" listed "127.0.0.1 127.0.0.2"
KGATE_URL=https://127.0.0.1:$PORT
kill -KILL "${PID[b]}"
wait "${PID[b]}" 2>/dev/null
check "b restarted after SIGKILL" start b 127.0.0.2
check "b removed the record its last run left, then listed itself again" \
    grep -q "Found stale data, removed previous endpoints on kubernetes service" "${LOG[b]}"
check "a and b listed" listed "127.0.0.1 127.0.0.2"

# ---- the official Python client, through its typed API ---------------------------------------
KGATE_URL=https://127.0.0.1:$PORT
export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
kubeconfig "$KUBECONFIG"
# Debian's python3-kubernetes is for Debian's python3 (not one first on PATH).
if /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
    check "the Python client reads the Service, Endpoints, EndpointSlice, identity Lease, PriorityClass and ConfigMap" /usr/bin/python3 - <<'EOF'
import sys
from kubernetes import client, config
config.load_kube_config()
core, disc = client.CoreV1Api(), client.DiscoveryV1Api()
svc = core.read_namespaced_service('kubernetes', 'default')
ep = core.read_namespaced_endpoints('kubernetes', 'default')
sl = disc.read_namespaced_endpoint_slice('kubernetes', 'default')
core.list_namespaced_endpoints('default')
disc.list_namespaced_endpoint_slice('default', label_selector='kubernetes.io/service-name=kubernetes')
# the other objects kube-apiserver keeps for its clients
leases = client.CoordinationV1Api().list_namespaced_lease(
    'kube-system', label_selector='apiserver.kubernetes.io/identity=kube-apiserver')
pc = client.SchedulingV1Api().read_priority_class('system-node-critical')
cm = core.read_namespaced_config_map('extension-apiserver-authentication', 'kube-system')
if len(leases.items) != 1 or leases.items[0].spec.renew_time is None or pc.value != 2000001000 \
        or 'client-ca-file' not in cm.data:
    sys.exit(1)
ok = (svc.spec.cluster_ip == '10.0.0.1' and svc.spec.ports[0].port == 443
      and [a.ip for a in ep.subsets[0].addresses] == ['127.0.0.1', '127.0.0.2']
      and [e.addresses[0] for e in sl.endpoints] == ['127.0.0.1', '127.0.0.2']
      and sl.endpoints[0].conditions.ready and sl.address_type == 'IPv4')
sys.exit(0 if ok else 1)
EOF
else
    check "the Python client (skipped: python3-kubernetes is not installed)" true
fi

# the last instance leaves its address: kube never erases every address
kill -TERM "${PID[b]}"
wait_exit "${PID[b]}" 30
kill -TERM "${PID[a]}"
wait_exit "${PID[a]}" 30
check "the last instance to stop exits cleanly" test "$EXIT_CODE" = 0
check "no sanitizer report from a" no_sanitizer_report "${LOG[a]}"
check "it says why it leaves its address" grep -q \
    "no API server IP addresses were listed in storage, refusing to erase all endpoints" "${LOG[a]}"

# --endpoint-reconciler-type=none: the Service only
PREFIX=/registry-boot-none-$$
check "an instance with --endpoint-reconciler-type=none starts" \
    start none 127.0.0.1 --endpoint-reconciler-type=none
check "it writes the kubernetes Service" wait_for_code $CORE/services/kubernetes 200 10
sleep 1
check "but no Endpoints" test "$(http_code $CORE/endpoints/kubernetes)" = 404
check "and no record" test -z "$(leases)"
kill -TERM "${PID[none]}"
wait_exit "${PID[none]}" 30
check "it exits cleanly, without a sanitizer report" no_sanitizer_report "${LOG[none]}"
# IPv6: the Service in the family of its CIDR, the EndpointSlice in its addresses' family
PREFIX=/registry-boot-v6-$$
if check "an instance on ::1 with an IPv6 service CIDR starts" \
    start v6 ::1 --service-cluster-ip-range=fd00:10:96::/112; then
    check "the Service is IPv6: fd00:10:96::1" test "$(json $CORE/services/kubernetes \
        "d['spec']['clusterIP'], d['spec']['ipFamilies']")" = "fd00:10:96::1 ['IPv6']"
    check "the EndpointSlice's addressType is IPv6" wait_v6
fi
check "--endpoint-reconciler-type=master-count is refused (no --apiserver-count)" \
    bash -c "\"$KGATE\" --etcd-servers=$KGATE_TEST_ETCD --endpoint-reconciler-type=master-count \
        2>/dev/null; test \$? = 2"
tap_end
