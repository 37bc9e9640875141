#!/usr/bin/env bash
# Stock kubectl 1.32 doing its everyday work against kgate: create -f, get (table, yaml, json,
# jsonpath, all namespaces), label, annotate, patch, replace, scale, delete.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require kubectl_basic
kubectl_e2e kubectl

cat >"$M/cm.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team
data:
  color: blue
EOF
cat >"$M/ns.yaml" <<'EOF'
apiVersion: v1
kind: Namespace
metadata:
  name: team
EOF
cat >"$M/deploy.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
EOF

check "create -f a Namespace" k create -f "$M/ns.yaml"
check "... says so" has "namespace/team created"
check "create -f a ConfigMap" k create -f "$M/cm.yaml"
check "... says so" has "configmap/settings created"
check "create -f a Deployment" k create -f "$M/deploy.yaml"
check "... says so" has "deployment.apps/web created"
KOUT=$(kubectl create -f "$M/cm.yaml" 2>&1)
check "create -f again fails" test $? -ne 0
check "... with AlreadyExists naming the object" has 'configmaps "settings" already exists'

check "get (the default table)" k get configmaps -n team
check "... has the NAME column and the object" bash -c "grep -q '^NAME' <<<\"\$0\" && \
grep -q '^settings ' <<<\"\$0\"" "$KOUT"
check "get -o yaml" k get configmap settings -n team -o yaml
check "... is the object" has "color: blue"
check "... with its resourceVersion" has "resourceVersion:"
check "get -o json" k get configmap settings -n team -o json
check "... parses, with uid and creationTimestamp" python3 -c "import json,sys; d=json.loads(\
sys.argv[1]); sys.exit(not (d['kind'] == 'ConfigMap' and d['metadata']['uid'] and \
d['metadata']['creationTimestamp']))" "$KOUT"
check "get -o jsonpath" k get configmap settings -n team -o 'jsonpath={.data.color}'
check "... prints the field" test "$KOUT" = blue
check "get -A" k get configmaps -A
check "... lists with the namespace column" bash -c "grep -q '^NAMESPACE' <<<\"\$0\" && \
grep -q '^team *settings' <<<\"\$0\"" "$KOUT"
check "get namespaces" k get namespaces
check "... the initial ones and ours" bash -c "for n in default kube-system kube-public \
kube-node-lease team; do grep -q \"^\$n \" <<<\"\$0\" || exit 1; done" "$KOUT"

check "label" k label configmap settings -n team tier=frontend
check "... says so" has "configmap/settings labeled"
check "annotate" k annotate configmap settings -n team owner=alice
check "... says so" has "configmap/settings annotated"
check "get -l selects by the label" k get configmaps -n team -l tier=frontend -o name
check "... finds it" test "$KOUT" = configmap/settings
check "the annotation is there" k get configmap settings -n team \
    -o 'jsonpath={.metadata.annotations.owner}'
check "... alice" test "$KOUT" = alice
check "patch --type=merge" k patch configmap settings -n team --type=merge -p '{"data":{"size":"xl"}}'
check "... says so" has "configmap/settings patched"
check "patch --type=json" k patch configmap settings -n team --type=json \
    -p '[{"op":"replace","path":"/data/color","value":"red"}]'
k get configmap settings -n team -o 'jsonpath={.data.color}/{.data.size}'
check "... both patches took" test "$KOUT" = red/xl
check "replace -f" k replace -f "$M/cm.yaml"
check "... says so" has "configmap/settings replaced"
k get configmap settings -n team -o 'jsonpath={.data.color}/{.data.size}/{.metadata.labels.tier}'
check "... the object is the file's again" test "$KOUT" = blue//

gen() { kubectl get deploy/web -n team -o 'jsonpath={.metadata.generation}'; }
check "the deployment starts at generation 1" test "$(gen)" = 1
check "label a deployment" k label deploy web -n team extra=yes
check "... a label leaves the generation" test "$(gen)" = 1
check "scale deployment" k scale deployment web -n team --replicas=3
check "... says so" has "deployment.apps/web scaled"
k get deploy/web -n team -o 'jsonpath={.spec.replicas}'
check "... spec.replicas is 3" test "$KOUT" = 3
check "... the spec change moved the generation" test "$(gen)" = 2
check "a spec patch" k patch deploy web -n team --type=merge \
    -p '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}}}'
check "... moves the generation again" test "$(gen)" = 3

check "delete" k delete configmap settings -n team
check "... says so" has 'configmap "settings" deleted'
check "get after delete fails" bash -c "! kubectl get configmap settings -n team >/dev/null 2>&1"
check "delete the deployment" k delete deploy web -n team
check "delete the namespace (without waiting for the controller)" k delete namespace team --wait=false
check "... says so" has 'namespace "team" deleted'

check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
