#!/usr/bin/env bash
# Objects answered as kube-apiserver writes them after decoding into its Go structs: fields
# without omitempty and value structs appear with their zero values (GET, LIST, WATCH), also for
# objects stored without them; writes complete objects before validating them (kubectl set
# image on a DaemonSet); the official Python client reads every workload kind through its typed
# API; ConfigMaps are served byte for byte as stored.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/watch_lib.sh
e2e_require registry_gozero

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start gozero --workers=2
PREFIX=/registry-gozero-$$
export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
kubeconfig "$KUBECONFIG"

BATCH=/apis/batch/v1/namespaces/default
POLICY=/apis/policy/v1/namespaces/default
HPA1=/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers
HPA2=/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers
SEL='"selector":{"matchLabels":{"app":"g"}}'
TPL='"template":{"metadata":{"labels":{"app":"g"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}'
# The pod template as kube shows it: creationTimestamp null, the container's resources {}.
TPL_OK="t['metadata']['creationTimestamp'] is None and \
t['spec']['containers'][0]['resources'] == {}"

req GET "$APPS/daemonsets"
start_rv=$(rv_of)
watch_start ds "$APPS/daemonsets?watch=1&resourceVersion=$start_rv"

# ---- each workload kind, created through curl and read back ----------------------------------
# made NAME PATH BODY CHECK: POST BODY to PATH; the answer, GET and LIST all pass CHECK (a Python
# expression over the object d).
made() {
    local what=$1 path=$2 body=$3 expr=$4 name
    req POST "$path" "$body"
    check "$what: created" code_is 201
    check "$what: the create's answer shows Go's zero values" jpy "$expr"
    name=$(jget "d['metadata']['name']")
    req GET "$path/$name"
    check "$what: GET shows them" jpy "$expr"
    req GET "$path"
    check "$what: LIST shows them" jpy "[(lambda d: $expr)(i) for i in d['items'] \
if i['metadata']['name'] == '$name'] == [True]"
}

made ReplicaSet "$APPS/replicasets" \
    "{\"metadata\":{\"name\":\"rs\"},\"spec\":{\"replicas\":1,$SEL,$TPL}}" \
    "d['status'] == {'replicas': 0} and (lambda t: $TPL_OK)(d['spec']['template'])"
made DaemonSet "$APPS/daemonsets" "{\"metadata\":{\"name\":\"ds\"},\"spec\":{$SEL,$TPL}}" \
    "d['status'] == {'currentNumberScheduled': 0, 'numberMisscheduled': 0, \
'desiredNumberScheduled': 0, 'numberReady': 0} and (lambda t: $TPL_OK)(d['spec']['template'])"
made StatefulSet "$APPS/statefulsets" \
    "{\"metadata\":{\"name\":\"sts\"},\"spec\":{\"serviceName\":\"s\",$SEL,$TPL}}" \
    "d['status'] == {'replicas': 0, 'availableReplicas': 0} and \
(lambda t: $TPL_OK)(d['spec']['template'])"
made Deployment "$APPS/deployments" "$(deploy dep)" \
    "d['status'] == {} and (lambda t: $TPL_OK)(d['spec']['template'])"
made ReplicationController "$CORE/replicationcontrollers" \
    "{\"metadata\":{\"name\":\"rc\"},\"spec\":{\"selector\":{\"app\":\"g\"},$TPL}}" \
    "d['status'] == {'replicas': 0} and (lambda t: $TPL_OK)(d['spec']['template'])"
made Job "$BATCH/jobs" "{\"metadata\":{\"name\":\"job\"},\"spec\":{\"template\":{\"spec\":{\
\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}" \
    "d['status'] == {} and d['spec']['template']['metadata']['creationTimestamp'] is None"
made PodDisruptionBudget "$POLICY/poddisruptionbudgets" \
    "{\"metadata\":{\"name\":\"pdb\"},\"spec\":{\"minAvailable\":1,$SEL}}" \
    "d['status'] == {'disruptionsAllowed': 0, 'currentHealthy': 0, 'desiredHealthy': 0, \
'expectedPods': 0}"
made "HPA v2" "$HPA2" "{\"metadata\":{\"name\":\"hpa2\"},\"spec\":{\"maxReplicas\":3,\
\"scaleTargetRef\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"dep\"}}}" \
    "d['status'] == {'currentMetrics': None, 'desiredReplicas': 0}"
made "HPA v1" "$HPA1" "{\"metadata\":{\"name\":\"hpa1\"},\"spec\":{\"maxReplicas\":3,\
\"scaleTargetRef\":{\"kind\":\"Deployment\",\"name\":\"dep\"}}}" \
    "d['status'] == {'currentReplicas': 0, 'desiredReplicas': 0}"
made Node /api/v1/nodes '{"metadata":{"name":"n1"}}' \
    "d['spec'] == {} and d['status']['daemonEndpoints'] == {'kubeletEndpoint': {'Port': 0}} \
and d['status']['nodeInfo']['machineID'] == '' and len(d['status']['nodeInfo']) == 10"
made Pod "$CORE/pods" '{"metadata":{"name":"pod"},"spec":{"containers":[{"name":"c",
"image":"nginx","ports":[{"name":"http","protocol":"TCP","containerPort":80}],
"env":[{"name":"E"}]}]}}' \
    "d['spec']['containers'][0]['resources'] == {} and \
d['spec']['containers'][0]['env'] == [{'name': 'E'}]"

# ---- objects stored without the zero fields (by an older kgate) ----------------------------
etcd_put() { ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" put "$PREFIX/$1" "$2" >/dev/null; }
check "an old DaemonSet is put into etcd" etcd_put daemonsets/default/old \
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"creationTimestamp\":\
\"2024-01-02T03:04:05Z\",\"generation\":1,\"name\":\"old\",\"namespace\":\"default\",\"uid\":\
\"6a1b2c3d-0000-4000-8000-000000000001\"},\"spec\":{\"revisionHistoryLimit\":10,$SEL,$TPL,\
\"updateStrategy\":{\"type\":\"OnDelete\"}},\"status\":{}}"
req GET "$APPS/daemonsets/old"
check "GET completes an object stored without the counters" jpy "d['status'] == \
{'currentNumberScheduled': 0, 'numberMisscheduled': 0, 'desiredNumberScheduled': 0, \
'numberReady': 0} and d['spec']['template']['metadata']['creationTimestamp'] is None"
check "a ConfigMap is put into etcd with its own spacing" etcd_put configmaps/default/raw \
    '{"apiVersion":"v1","data":{"k":   "v"},"kind":"ConfigMap","metadata":{"name":"raw","namespace":"default","uid":"6a1b2c3d-0000-4000-8000-000000000002","creationTimestamp":"2024-01-02T03:04:05Z"}}'
# (not as curl: kube pretty-prints for curl, which re-encodes any answer)
fetch "$CORE/configmaps/raw" "${ADMIN[@]}" -A gozero-test
check "a ConfigMap is served as stored, never re-encoded" grep -qF '"k":   "v"' "$OUT" ||
    diag "$(cat "$OUT")"

# ---- writes: kubectl set image on DaemonSets --------------------------------------------------
if kubectl_ok; then
    check "kubectl set image on a DaemonSet kgate created" k set image daemonset/ds '*=busybox'
    req GET "$APPS/daemonsets/ds"
    check "... changed the image and kept the counters" jpy "d['spec']['template']['spec']\
['containers'][0]['image'] == 'busybox' and d['status']['numberReady'] == 0"
    check "kubectl set image on a DaemonSet stored without counters" \
        k set image daemonset/old '*=busybox'
    check "a status PUT without the counters is completed" bash -c "kubectl get ds ds -o json |
python3 -c 'import json,sys; d=json.load(sys.stdin); d[\"status\"]={\"numberReady\":0};
print(json.dumps(d))' | kubectl replace --subresource=status -f - >/dev/null"
    req GET "$APPS/daemonsets/ds"
    check "... as its stored status shows" jpy "d['status']['desiredNumberScheduled'] == 0"
    check "kubectl scale on a StatefulSet" k scale statefulset/sts --replicas=2
    req GET "$APPS/statefulsets/sts"
    check "... kept its zero status" jpy "d['spec']['replicas'] == 2 and \
d['status']['availableReplicas'] == 0"
    check "kubectl apply --server-side of a DaemonSet" bash -c "kubectl apply --server-side \
-f - >/dev/null <<'EOF'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: applied}
spec:
  selector: {matchLabels: {app: g}}
  template:
    metadata: {labels: {app: g}}
    spec: {containers: [{name: c, image: nginx}]}
EOF"
    req GET "$APPS/daemonsets/applied"
    check "... stored with its counters" jpy "d['status']['currentNumberScheduled'] == 0"
else
    check "kubectl 1.32 for the write checks (skipped: not installed)" true
fi

# ---- watches --------------------------------------------------------------------------------
# The DaemonSet watch saw ADDED for ds, old (put) and applied and MODIFIED for the writes.
wait_events ds 4 >/dev/null
check "watch events show the zero values" python3 - "$KGATE_TEST_TMP/watch-ds" <<'EOF'
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = len(evs) >= 4 and all(
    e['object']['status'].get('numberMisscheduled') == 0 and
    e['object']['spec']['template']['metadata']['creationTimestamp'] is None for e in evs)
if not ok:
    for e in evs:
        o = e['object']
        print('# %s %s %s %s' % (e['type'], o['metadata']['name'], o.get('status'),
                                 o['spec']['template']['metadata']))
sys.exit(0 if ok else 1)
EOF
watch_stop ds
watch_start initial "$APPS/replicasets?watch=1&resourceVersion=0"
wait_events initial 1 >/dev/null
check "initial watch events show the zero values" python3 - "$KGATE_TEST_TMP/watch-initial" <<'EOF'
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if evs and all(e['object']['status'] == {'replicas': 0} for e in evs) else 1)
EOF
watch_stop initial

# ---- the official Python client, through its typed API ----------------------------------------
# Debian's python3-kubernetes is for Debian's python3 (not one first on PATH).
if /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
    check "the Python client reads every kind through its typed API" /usr/bin/python3 - <<'EOF'
import sys
from kubernetes import client, config
config.load_kube_config()
apps, core = client.AppsV1Api(), client.CoreV1Api()
ns = 'default'
reads = [
    lambda: apps.read_namespaced_replica_set('rs', ns),
    lambda: apps.read_namespaced_daemon_set('ds', ns),
    lambda: apps.read_namespaced_daemon_set('old', ns),
    lambda: apps.read_namespaced_stateful_set('sts', ns),
    lambda: apps.read_namespaced_deployment('dep', ns),
    lambda: core.read_namespaced_replication_controller('rc', ns),
    lambda: core.read_node('n1'),
    lambda: core.read_namespaced_pod('pod', ns),
    lambda: client.BatchV1Api().read_namespaced_job('job', ns),
    lambda: client.PolicyV1Api().read_namespaced_pod_disruption_budget('pdb', ns),
    lambda: client.AutoscalingV1Api().read_namespaced_horizontal_pod_autoscaler('hpa1', ns),
    lambda: apps.list_namespaced_daemon_set(ns),
    lambda: apps.list_namespaced_stateful_set(ns),
    lambda: apps.list_namespaced_replica_set(ns),
    lambda: core.list_node(),
]
failed = 0
for i, read in enumerate(reads):
    try:
        read()
    except Exception as e:
        failed += 1
        print('# read %d: %s' % (i, str(e).splitlines()[0]))
sys.exit(1 if failed else 0)
EOF
else
    check "the Python client (skipped: python3-kubernetes is not installed)" true
fi

check "kgate exits cleanly" clean_exit
tap_end
