#!/usr/bin/env bash
# Stock kubectl 1.32 in both apply modes on one Deployment: three client-side applies that add,
# change and remove a container and a label; then `kubectl apply --server-side`, which first
# moves the client-side apply manager's fields to its own (kubectl's upgrade patch of
# managedFields), conflicts with a field another manager changed, and wins with
# --force-conflicts; after that, server-side applies that drop fields remove them.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require kubectl_ssa
kubectl_e2e kubectl-ssa

live() { OUT=$KGATE_TEST_TMP/live.json; kubectl get deployment web --show-managed-fields -o json >"$OUT" 2>&1; }
C="d['spec']['template']['spec']['containers']"
MF="{e['manager']: e['operation'] for e in d['metadata']['managedFields']}"

# manifest FILE REPLICAS LABELS CONTAINERS: a Deployment named web.
manifest() {
    cat >"$1" <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {$3}
spec:
  replicas: $2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
$4
EOF
}
WEB="      - {name: web, image: 'nginx:1.27'}"
WEB2="      - {name: web, image: 'nginx:1.28'}"
LOG="      - {name: log, image: 'busybox:1.36'}"
manifest "$M/v1.yaml" 2 "app: web, tier: front" "$WEB"
manifest "$M/v2.yaml" 2 "app: web, tier: front, stage: canary" "$WEB2
$LOG"
manifest "$M/v3.yaml" 2 "app: web, stage: canary" "$WEB2"

# ---- three client-side applies -----------------------------------------------------------------
check "client-side apply creates" k apply -f "$M/v1.yaml"
live
check "... recorded for kubectl-client-side-apply (Update)" jpy "$MF == \
{'kubectl-client-side-apply': 'Update'}"
check "client-side apply adds a container and a label, changes the image" k apply -f "$M/v2.yaml"
live
check "... all there" jpy "[(c['name'], c['image']) for c in $C] == [('web', 'nginx:1.28'), \
('log', 'busybox:1.36')] and d['metadata']['labels'] == {'app': 'web', 'tier': 'front', \
'stage': 'canary'}"
check "client-side apply removes the container and a label" k apply -f "$M/v3.yaml"
live
check "... both gone" jpy "[c['name'] for c in $C] == ['web'] and d['metadata']['labels'] == \
{'app': 'web', 'stage': 'canary'}"
check "... still one manager" jpy "$MF == {'kubectl-client-side-apply': 'Update'}"

# ---- another manager, then server-side apply ----------------------------------------------------
check "kubectl patch changes replicas" k patch deployment web -p '{"spec":{"replicas":5}}'
live
check "... as kubectl-patch" jpy "$MF == {'kubectl-client-side-apply': 'Update', \
'kubectl-patch': 'Update'}"
KOUT=$(kubectl apply --server-side -f "$M/v3.yaml" 2>&1)
check "apply --server-side over the patched replicas fails" test $? -ne 0
check "... with the conflict named" has 'Apply failed with 1 conflict: conflict with "kubectl-patch" using apps/v1: .spec.replicas'
live
check "... and changes nothing" jpy "d['spec']['replicas'] == 5 and $MF == \
{'kubectl-client-side-apply': 'Update', 'kubectl-patch': 'Update'}"
check "apply --server-side --force-conflicts wins" k apply --server-side --force-conflicts -f "$M/v3.yaml"
check "... says serverside-applied" has "deployment.apps/web serverside-applied"
live
check "... replicas are the manifest's" jpy "d['spec']['replicas'] == 2"
check "... kubectl-patch owns nothing any more; kubectl-last-applied holds the annotation" jpy \
    "$MF == {'kubectl': 'Apply', 'kubectl-last-applied': 'Apply'}"
check "... kubectl owns the fields client-side apply had" jpy "'f:stage' in [e for e in \
d['metadata']['managedFields'] if e['manager'] == 'kubectl'][0]['fieldsV1']['f:metadata']['f:labels']"

manifest "$M/v4.yaml" 2 "app: web" "$WEB2
$LOG"
check "apply --server-side without a label and with a container" k apply --server-side -f "$M/v4.yaml"
live
check "... the label it no longer applies is removed" jpy "d['metadata']['labels'] == {'app': 'web'}"
check "... the container is added" jpy "[c['name'] for c in $C] == ['web', 'log']"
check "... and the last-applied annotation follows the manifest" jpy "'log' in \
d['metadata']['annotations']['kubectl.kubernetes.io/last-applied-configuration']"
rv=$(python3 -c "import json; print(json.load(open('$OUT'))['metadata']['resourceVersion'])")
check "apply --server-side of the same manifest again" k apply --server-side -f "$M/v4.yaml"
live
check "... writes nothing" jpy "d['metadata']['resourceVersion'] == '$rv'"
check "client-side apply still works afterwards" k apply -f "$M/v3.yaml"
live
check "... and removes the container" jpy "[c['name'] for c in $C] == ['web']"

check "kgate exits cleanly" clean_exit
tap_end
