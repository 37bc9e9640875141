#!/usr/bin/env bash
# kube-apiserver's defaulting as clients see it: bare objects of the common kinds come back with
# the fields kube v1.32 fills in (pods and every pod template, deployments, services, jobs,
# cron jobs, stateful sets, ...), set values stay, the stored object is the defaulted one, an
# update that drops a defaulted field gets it back (and writes nothing when that is all it
# did), and kubectl's client-side apply of a minimal manifest is unchanged the second time.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_defaults

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start defaults --workers=2
PREFIX=/registry-defaults-$$
BATCH=/apis/batch/v1/namespaces/default
MERGE=application/merge-patch+json
# C: the first container of a Pod, for jpy; T: the pod spec of a template.
C="d['spec']['containers'][0]"
T="d['spec']['template']['spec']"

# ---- pods -----------------------------------------------------------------------------------
req POST $CORE/pods '{"metadata":{"name":"bare"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}'
check "a bare Pod is created" code_is 201
check "... with kube's pod spec defaults" jpy "{k: d['spec'][k] for k in ('dnsPolicy', \
'restartPolicy', 'terminationGracePeriodSeconds', 'schedulerName', 'securityContext', \
'enableServiceLinks')} == {'dnsPolicy': 'ClusterFirst', 'restartPolicy': 'Always', \
'terminationGracePeriodSeconds': 30, 'schedulerName': 'default-scheduler', \
'securityContext': {}, 'enableServiceLinks': True}"
check "... and container defaults (an untagged image is pulled Always)" jpy "{k: v for k, v in \
$C.items() if k != 'volumeMounts'} == {'name': 'c', 'image': 'nginx', 'imagePullPolicy': 'Always', \
'resources': {}, 'terminationMessagePath': '/dev/termination-log', \
'terminationMessagePolicy': 'File'}"
req GET $CORE/pods/bare
check "GET shows the same defaults" jpy "d['spec']['dnsPolicy'] == 'ClusterFirst' and \
$C['imagePullPolicy'] == 'Always'"
check "etcd holds the defaulted object" python3 -c "import json,sys; d=json.loads(sys.argv[1]); \
sys.exit(d['spec']['schedulerName'] != 'default-scheduler')" "$(stored pods/default/bare)"

req POST $CORE/pods '{"metadata":{"name":"set"},"spec":{"dnsPolicy":"Default","restartPolicy":"Never",
"terminationGracePeriodSeconds":0,"enableServiceLinks":false,"containers":[{"name":"c",
"image":"nginx:1.27","imagePullPolicy":"Never","ports":[{"containerPort":53,"protocol":"UDP"}],
"readinessProbe":{"httpGet":{"port":80},"periodSeconds":3},"resources":{"limits":{"cpu":"1"}}}]}}'
check "a Pod with its own values is created" code_is 201
check "... set values stay" jpy "d['spec']['dnsPolicy'] == 'Default' and \
d['spec']['restartPolicy'] == 'Never' and d['spec']['terminationGracePeriodSeconds'] == 0 and \
d['spec']['enableServiceLinks'] is False and $C['imagePullPolicy'] == 'Never' and \
$C['ports'] == [{'containerPort': 53, 'protocol': 'UDP'}]"
check "... a probe gets kube's timings and HTTP defaults" jpy "$C['readinessProbe'] == \
{'httpGet': {'port': 80, 'path': '/', 'scheme': 'HTTP'}, 'periodSeconds': 3, \
'timeoutSeconds': 1, 'successThreshold': 1, 'failureThreshold': 3}"
check "... requests default to limits, so the pod is Burstable" jpy "$C['resources'] == \
{'limits': {'cpu': '1'}, 'requests': {'cpu': '1'}} and d['status']['qosClass'] == 'Burstable'"

# ---- deployments ----------------------------------------------------------------------------
req POST $APPS/deployments '{"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":
{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c",
"image":"nginx:1.27"}]}}}}'
check "a minimal Deployment is created" code_is 201
req GET $APPS/deployments/web
check "... replicas 1, history 10, deadline 600" jpy "(d['spec']['replicas'], \
d['spec']['revisionHistoryLimit'], d['spec']['progressDeadlineSeconds']) == (1, 10, 600)"
check "... rolling updates of 25%/25%" jpy "d['spec']['strategy'] == {'type': 'RollingUpdate', \
'rollingUpdate': {'maxUnavailable': '25%', 'maxSurge': '25%'}}"
check "... its template is defaulted (a tagged image is IfNotPresent)" jpy "$T['dnsPolicy'] == \
'ClusterFirst' and $T['containers'][0]['imagePullPolicy'] == 'IfNotPresent'"
check "... but for what kube sets on Pods only" jpy "'enableServiceLinks' not in $T"
rv=$(jget "d['metadata']['resourceVersion']")
gen=$(jget "d['metadata']['generation']")

req PATCH $APPS/deployments/web '{"spec":{"revisionHistoryLimit":null,"strategy":null}}' $MERGE
check "a patch dropping defaulted fields gets them back" jpy "d['spec']['revisionHistoryLimit'] \
== 10 and d['spec']['strategy']['type'] == 'RollingUpdate'"
check "... and, changing nothing else, writes nothing" jpy "d['metadata']['resourceVersion'] == \
'$rv' and d['metadata']['generation'] == $gen"
body=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
del d['spec']['progressDeadlineSeconds']; d['spec']['template']['spec'].pop('schedulerName'); \
print(json.dumps(d))" "$OUT")
req PUT $APPS/deployments/web "$body"
check "a PUT without defaulted fields gets them back too" jpy "d['spec']['progressDeadlineSeconds'] \
== 600 and $T['schedulerName'] == 'default-scheduler' and d['metadata']['resourceVersion'] == '$rv'"
req PATCH $APPS/deployments/web '{"spec":{"revisionHistoryLimit":3}}' $MERGE
check "a real change is written" jpy "d['spec']['revisionHistoryLimit'] == 3 and \
d['metadata']['generation'] == $gen + 1"

# ---- services -------------------------------------------------------------------------------
req POST $CORE/services '{"metadata":{"name":"web"},"spec":{"selector":{"app":"web"},"ports":
[{"name":"http","port":80},{"name":"dns","port":53,"protocol":"UDP","targetPort":5353}]}}'
check "a minimal Service is created" code_is 201
req GET $CORE/services/web
check "... ClusterIP without affinity, internal policy Cluster" jpy "(d['spec']['type'], \
d['spec']['sessionAffinity'], d['spec']['internalTrafficPolicy']) == ('ClusterIP', 'None', \
'Cluster')"
check "... ports default to TCP and to the port as target" jpy "d['spec']['ports'] == [{'name': \
'http', 'port': 80, 'protocol': 'TCP', 'targetPort': 80}, {'name': 'dns', 'port': 53, \
'protocol': 'UDP', 'targetPort': 5353}]"
check "... single-stack IPv4, no external policy, no cluster IP allocated" jpy \
    "d['spec']['ipFamilyPolicy'] == 'SingleStack' and d['spec']['ipFamilies'] == ['IPv4'] and \
'externalTrafficPolicy' not in d['spec'] and 'clusterIP' not in d['spec']"
req POST $CORE/services '{"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","ports":[{"port":443}]}}'
check "a LoadBalancer gets its external policy and node ports flag" jpy \
    "d['spec']['externalTrafficPolicy'] == 'Cluster' and \
d['spec']['allocateLoadBalancerNodePorts'] is True"
req POST $CORE/services '{"metadata":{"name":"headless"},"spec":{"clusterIP":"None","selector":{"app":"db"}}}'
check "a headless Service keeps None in clusterIPs too" jpy "d['spec']['clusterIPs'] == ['None']"

# ---- jobs and cron jobs -----------------------------------------------------------------------
JOB_TEMPLATE='"template":{"metadata":{"labels":{"app":"pi"}},"spec":{"restartPolicy":"Never",
"containers":[{"name":"pi","image":"perl:5.34"}]}}'
req POST $BATCH/jobs "{\"metadata\":{\"name\":\"pi\"},\"spec\":{$JOB_TEMPLATE}}"
check "a Job is created" code_is 201
req GET $BATCH/jobs/pi
check "... one pod once, backoff 6, NonIndexed, not suspended" jpy "{k: d['spec'][k] for k in \
('completions', 'parallelism', 'backoffLimit', 'completionMode', 'suspend', 'manualSelector', \
'podReplacementPolicy')} == {'completions': 1, 'parallelism': 1, 'backoffLimit': 6, \
'completionMode': 'NonIndexed', 'suspend': False, 'manualSelector': False, \
'podReplacementPolicy': 'TerminatingOrFailed'}"
check "... its labels come from the template" jpy "d['metadata']['labels'] == {'app': 'pi'}"
check "... the template's restartPolicy stays" jpy "$T['restartPolicy'] == 'Never' and \
$T['terminationGracePeriodSeconds'] == 30"
req POST $BATCH/cronjobs "{\"metadata\":{\"name\":\"tick\"},\"spec\":{\"schedule\":\"*/5 * * * *\",
\"jobTemplate\":{\"spec\":{$JOB_TEMPLATE}}}}"
check "a CronJob is created" code_is 201
req GET $BATCH/cronjobs/tick
check "... Allow, not suspended, histories 3 and 1" jpy "{k: d['spec'][k] for k in \
('concurrencyPolicy', 'suspend', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit')} == \
{'concurrencyPolicy': 'Allow', 'suspend': False, 'successfulJobsHistoryLimit': 3, \
'failedJobsHistoryLimit': 1}"
check "... the job template's pod is defaulted, the job spec is not" jpy \
    "d['spec']['jobTemplate']['spec']['template']['spec']['dnsPolicy'] == 'ClusterFirst' and \
'backoffLimit' not in d['spec']['jobTemplate']['spec']"

# ---- stateful sets ----------------------------------------------------------------------------
req POST $APPS/statefulsets '{"metadata":{"name":"db"},"spec":{"serviceName":"headless",
"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":
{"containers":[{"name":"db","image":"postgres:17"}]}},"volumeClaimTemplates":[{"metadata":
{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":
{"storage":"1Gi"}}}}]}}'
check "a StatefulSet is created" code_is 201
req GET $APPS/statefulsets/db
check "... OrderedReady, rolling updates from partition 0, claims retained" jpy \
    "d['spec']['podManagementPolicy'] == 'OrderedReady' and d['spec']['updateStrategy'] == \
{'type': 'RollingUpdate', 'rollingUpdate': {'partition': 0}} and \
d['spec']['persistentVolumeClaimRetentionPolicy'] == {'whenDeleted': 'Retain', \
'whenScaled': 'Retain'} and (d['spec']['replicas'], d['spec']['revisionHistoryLimit']) == (1, 10)"
check "... claim templates as kube writes them" jpy "(lambda t: t['apiVersion'] == 'v1' and \
t['kind'] == 'PersistentVolumeClaim' and t['spec']['volumeMode'] == 'Filesystem' and \
t['status'] == {'phase': 'Pending'})(d['spec']['volumeClaimTemplates'][0])"

# ---- a few more kinds -------------------------------------------------------------------------
req POST $CORE/persistentvolumeclaims '{"metadata":{"name":"c"},"spec":{"accessModes":
["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}'
check "claims: Filesystem" jpy "d['spec']['volumeMode'] == 'Filesystem'"
req POST /apis/networking.k8s.io/v1/namespaces/default/networkpolicies '{"metadata":{"name":"np"},
"spec":{"podSelector":{},"egress":[{"ports":[{"port":53}]}]}}'
check "network policies: types from the rules, TCP ports" jpy "d['spec']['policyTypes'] == \
['Ingress', 'Egress'] and d['spec']['egress'][0]['ports'] == [{'port': 53, 'protocol': 'TCP'}]"
req POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings '{"metadata":{"name":"rb"},
"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},"subjects":[{"kind":
"User","name":"jane"},{"kind":"ServiceAccount","name":"default","namespace":"default"}]}'
check "role bindings: users in RBAC's group, service accounts in none" jpy "d['subjects'] == \
[{'kind': 'User', 'name': 'jane', 'apiGroup': 'rbac.authorization.k8s.io'}, {'kind': \
'ServiceAccount', 'name': 'default', 'namespace': 'default'}]"
req POST /apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers '{"metadata":{"name":"h"},
"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},"maxReplicas":5,
"behavior":{}}}'
check "autoscalers: min 1, 80% CPU, the scaling rules kube had before behaviours" jpy \
    "d['spec']['minReplicas'] == 1 and d['spec']['metrics'][0]['resource']['target'] == \
{'type': 'Utilization', 'averageUtilization': 80} and \
d['spec']['behavior']['scaleDown']['policies'] == [{'type': 'Percent', 'value': 100, \
'periodSeconds': 15}]"
req POST /apis/storage.k8s.io/v1/storageclasses '{"metadata":{"name":"sc"},"provisioner":"x"}'
check "storage classes: Delete, Immediate" jpy "(d['reclaimPolicy'], d['volumeBindingMode']) == \
('Delete', 'Immediate')"

# ---- kubectl apply ----------------------------------------------------------------------------
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    cat >"$KGATE_TEST_TMP/app.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
---
apiVersion: v1
kind: Service
metadata: {name: app}
spec:
  selector: {app: app}
  ports: [{port: 80}]
EOF
    k() { KOUT=$(kubectl --request-timeout=20s "$@" 2>&1); local rc=$?; [[ $rc -eq 0 ]] || diag "kubectl $*: $KOUT"; return $rc; }
    check "kubectl apply creates a minimal Deployment and Service" k apply -f "$KGATE_TEST_TMP/app.yaml"
    rv_d=$(kubectl get deployment app -o 'jsonpath={.metadata.resourceVersion}')
    rv_s=$(kubectl get service app -o 'jsonpath={.metadata.resourceVersion}')
    check "applying it again says unchanged" k apply -f "$KGATE_TEST_TMP/app.yaml"
    check "... for both" test "$(grep -c unchanged <<<"$KOUT")" = 2
    check "... and writes nothing" test "$(kubectl get deployment app -o \
'jsonpath={.metadata.resourceVersion}')/$(kubectl get service app -o \
'jsonpath={.metadata.resourceVersion}')" = "$rv_d/$rv_s"
    check "kubectl diff sees no difference" k diff -f "$KGATE_TEST_TMP/app.yaml"
else
    for _ in 1 2 3 4 5; do check "kubectl apply # SKIP kubectl 1.32 is not installed" true; done
fi

check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
