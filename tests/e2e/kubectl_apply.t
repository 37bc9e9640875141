#!/usr/bin/env bash
# Stock kubectl 1.32's client-side apply against kgate: kubectl computes three-way strategic
# merge patches from the last-applied-configuration annotation ($setElementOrder, $retainKeys,
# deletions as nulls and $patch: delete) and kgate must land each change as kube-apiserver
# does. Then kubectl patch (strategic by default), kubectl edit and kubectl diff (a dry-run
# patch).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require kubectl_apply
kubectl_e2e kubectl-apply

# live KIND NAME: the object as JSON into $OUT, for jpy.
live() { OUT=$KGATE_TEST_TMP/live.json; kubectl get "$1" "$2" -o json >"$OUT" 2>&1; }
# C: the first container of the live Deployment in $OUT, for jpy expressions.
C="d['spec']['template']['spec']['containers']"

# deployment FILE IMAGE REPLICAS LABELS ENV PORTS STRATEGY [EXTRA-CONTAINER]: a manifest.
deployment() {
    cat >"$1" <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {$4}
spec:
  replicas: $3
  selector:
    matchLabels: {app: web}
  strategy: {$7}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: $2
        env: [$5]
        ports: [$6]
${8-}
EOF
}

# ---- Deployment: create, re-apply, change, add and remove ------------------------------------
deployment "$M/d1.yaml" nginx:1.27 1 "app: web, tier: front" \
    "{name: A, value: '1'}, {name: B, value: '2'}" "{containerPort: 80}, {containerPort: 8080}" \
    "type: RollingUpdate, rollingUpdate: {maxSurge: 2}"
check "apply creates the Deployment" k apply -f "$M/d1.yaml"
check "... says so" has "deployment.apps/web created"
live deployment web
check "... with the last-applied-configuration annotation" jpy "'kubectl.kubernetes.io/\
last-applied-configuration' in d['metadata']['annotations']"
rv=$(python3 -c "import json; print(json.load(open('$OUT'))['metadata']['resourceVersion'])")
check "apply again unchanged" k apply -f "$M/d1.yaml"
check "... says unchanged" has "deployment.apps/web unchanged"
live deployment web
check "... and writes nothing (resourceVersion and generation)" jpy \
    "d['metadata']['resourceVersion'] == '$rv' and d['metadata']['generation'] == 1"

deployment "$M/d2.yaml" nginx:1.28 3 "app: web" "{name: A, value: '1'}" "{containerPort: 80}" \
    "type: Recreate"
check "apply with changes" k apply -f "$M/d2.yaml"
check "... says configured" has "deployment.apps/web configured"
live deployment web
check "... the image changed" jpy "$C[0]['image'] == 'nginx:1.28'"
check "... the removed env var is gone" jpy "$C[0]['env'] == [{'name': 'A', 'value': '1'}]"
check "... the removed port is gone" jpy "[p['containerPort'] for p in $C[0]['ports']] == [80]"
check "... replicas changed" jpy "d['spec']['replicas'] == 3"
check "... the removed label is gone" jpy "d['metadata']['labels'] == {'app': 'web'}"
check "... the strategy is Recreate without rollingUpdate (\$retainKeys)" jpy \
    "d['spec']['strategy'] == {'type': 'Recreate'}"
check "... one new generation" jpy "d['metadata']['generation'] == 2"

deployment "$M/d3.yaml" nginx:1.28 3 "app: web, stage: canary" "{name: A, value: '1'}" \
    "{containerPort: 80}" "type: Recreate" "      - {name: log, image: 'busybox:1.36'}"
check "apply adds a container and a label" k apply -f "$M/d3.yaml"
live deployment web
check "... the sidecar comes after web, as the manifest has it" jpy \
    "[c['name'] for c in $C] == ['web', 'log']"
check "... the label is there" jpy "d['metadata']['labels'] == {'app': 'web', 'stage': 'canary'}"
check "kubectl patch (strategic by default) merges a container by name" k patch deployment web \
    -p '{"spec":{"template":{"spec":{"containers":[{"name":"log","image":"busybox:1.37"}]}}}}'
live deployment web
check "... and leaves the other alone" jpy "[(c['name'], c['image']) for c in $C] == \
[('web', 'nginx:1.28'), ('log', 'busybox:1.37')]"
check "apply removes the container and the label again" k apply -f "$M/d2.yaml"
live deployment web
check "... the sidecar is gone" jpy "[c['name'] for c in $C] == ['web']"
check "... the label is gone" jpy "d['metadata']['labels'] == {'app': 'web'}"

# ---- ConfigMap and Service ---------------------------------------------------------------------
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "1", b: "2"}\n' >"$M/cm1.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "1"}\n' >"$M/cm2.yaml"
check "apply a ConfigMap" k apply -f "$M/cm1.yaml"
check "apply it without a data key" k apply -f "$M/cm2.yaml"
live configmap settings
check "... the key is gone" jpy "d['data'] == {'a': '1'}"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "2"}\nbogus: 1\n' >"$M/cm3.yaml"
KOUT=$(kubectl apply -f "$M/cm3.yaml" 2>&1)
check "apply with an unknown field fails (kubectl validates strictly on the server)" test $? -ne 0
check "... with kube's 422 naming the patch" has 'The request is invalid: patch: Invalid value: "map[bogus:1 data:map[a:2]'
check "... and the strict decoding error" has 'strict decoding error: unknown field "bogus"'
check "apply --validate=warn lets it through" k apply --validate=warn -f "$M/cm3.yaml"
check "... with the warning" has 'Warning: unknown field "bogus"'
live configmap settings
check "... and the change" jpy "d['data'] == {'a': '2'} and 'bogus' not in d"
check "apply the ConfigMap back" k apply -f "$M/cm2.yaml"
printf 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports:\n  - {name: http, port: 80}\n  - {name: https, port: 443}\n' >"$M/s1.yaml"
printf 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports:\n  - {name: http, port: 80, targetPort: 8080}\n  - {name: alt, port: 8443}\n' >"$M/s2.yaml"
check "apply a Service" k apply -f "$M/s1.yaml"
check "apply it with other ports" k apply -f "$M/s2.yaml"
live service web
check "... port 443 went, 8443 came, 80 changed its target" jpy \
    "[(p['name'], p['port'], p.get('targetPort')) for p in d['spec']['ports']][0] == \
('http', 80, 8080) and [p['name'] for p in d['spec']['ports']] == ['http', 'alt']"

# ---- kubectl edit and kubectl diff ------------------------------------------------------------
export EDITOR="sed -i -e s/replicas:\\ 3/replicas:\\ 4/"
check "kubectl edit with a scripted editor" k edit deployment web
check "... says edited" has "deployment.apps/web edited"
live deployment web
check "... the edit landed" jpy "d['spec']['replicas'] == 4"
rv=$(python3 -c "import json; print(json.load(open('$OUT'))['metadata']['resourceVersion'])")
KOUT=$(kubectl diff -f "$M/d3.yaml" 2>&1)
check "kubectl diff (a server-side dry-run patch) finds the differences" test $? -eq 1
check "... showing the sidecar" has "busybox:1.36"
live deployment web
check "... and changes nothing" jpy "d['metadata']['resourceVersion'] == '$rv'"
check "kubectl diff of the live state" k diff -f "$M/cm2.yaml"

check "kgate exits cleanly" clean_exit
tap_end
