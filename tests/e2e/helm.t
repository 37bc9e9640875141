#!/usr/bin/env bash
# Helm 3 and kubectl's client-side validation, which read /openapi/v2 as protobuf: a chart of
# our own (a ConfigMap, a Deployment, a Service) installed with Helm's default validation,
# upgraded, rolled back and uninstalled, each step checked through curl; `kubectl create
# --validate=true` of a `kind: List`, and of one with an unknown field, refused with kubectl's
# message.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/helm_lib.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require helm
kubectl_e2e helm

helm_e2e

# get PATH: GET as the admin into $OUT; sets CODE.
get() { fetch "$1" "${ADMIN[@]}"; }

# The chart: its values feed the ConfigMap's greeting and the Deployment's replicas.
C=$KGATE_TEST_TMP/chart
mkdir -p "$C/templates"
cat >"$C/Chart.yaml" <<'EOF'
apiVersion: v2
name: greeter
version: 0.1.0
EOF
cat >"$C/values.yaml" <<'EOF'
greeting: hello
replicas: 1
EOF
cat >"$C/templates/configmap.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  greeting: {{ .Values.greeting | quote }}
EOF
cat >"$C/templates/deployment.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
  labels: {app: {{ .Release.Name }}}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 8080
        env:
        - name: GREETING
          valueFrom:
            configMapKeyRef: {name: {{ .Release.Name }}-config, key: greeting}
EOF
cat >"$C/templates/service.yaml" <<'EOF'
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-svc
spec:
  selector: {app: {{ .Release.Name }}}
  ports:
  - port: 80
    targetPort: 8080
EOF

NS=/api/v1/namespaces/shop
DEPLOY=/apis/apps/v1/namespaces/shop/deployments/demo-web

# state GREETING REPLICAS: the ConfigMap and the Deployment as the release should have them.
state() {
    get "$NS/configmaps/demo-config" && jpy "d['data'] == {'greeting': '$1'} and \
d['metadata']['labels']['app.kubernetes.io/managed-by'] == 'Helm'" &&
        get "$DEPLOY" && jpy "d['spec']['replicas'] == $2"
}

# release_secret REVISION STATUS: Helm's record of that revision, a Secret, with that status.
release_secret() {
    get "$NS/secrets/sh.helm.release.v1.demo.v$1" &&
        jpy "d['type'] == 'helm.sh/release.v1' and d['metadata']['labels']['status'] == '$2'"
}

check "namespace shop" k create namespace shop

# install
check "helm install (validation on) succeeds" h install demo "$C" -n shop
check "... the ConfigMap holds the greeting, labelled managed-by Helm" state hello 1
svc_ok() { get "$NS/services/demo-svc" && jpy "d['spec']['ports'][0]['port'] == 80 and \
d['spec']['ports'][0]['targetPort'] == 8080"; }
check "... the Service exists with its port" svc_ok
check "... the release is recorded as revision 1, deployed" release_secret 1 deployed
check "helm list shows the release deployed" h list -n shop
check "... revision 1" grep -qE '^demo\s+shop\s+1\s.*deployed' <<<"$HOUT"

# upgrade
check "helm upgrade --set greeting=bonjour,replicas=2" \
    h upgrade demo "$C" -n shop --set greeting=bonjour --set replicas=2
check "... the ConfigMap and the Deployment follow" state bonjour 2
check "... revision 2 is deployed" release_secret 2 deployed
check "... revision 1 is superseded" release_secret 1 superseded

# rollback
check "helm rollback demo 1" h rollback demo 1 -n shop
check "... the first values are back" state hello 1
check "... as revision 3" release_secret 3 deployed
check "helm history lists three revisions" h history demo -n shop
check "... the last a rollback to 1" grep -qE '^3\s.*Rollback to 1' <<<"$HOUT"

# uninstall
check "helm uninstall demo" h uninstall demo -n shop
for p in "$NS/configmaps/demo-config" "$DEPLOY" "$NS/services/demo-svc"; do
    check "... $p is gone" test "$(http_code "$p" "${ADMIN[@]}")" = 404
done
get "$NS/secrets?labelSelector=owner%3Dhelm"
check "... and so are the release's Secrets" jpy "d['items'] == []"

# Helm's validation asks the OpenAPI document whether the server validates fields itself (the
# fieldValidation parameter on the kind's paths); it does, so Helm leaves it to the server,
# which warns about an unknown field (kube's default, Warn) and drops it, as kube-apiserver.
B=$KGATE_TEST_TMP/loose
mkdir -p "$B/templates"
printf 'apiVersion: v2\nname: loose\nversion: 0.1.0\n' >"$B/Chart.yaml"
cat >"$B/templates/configmap.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: loose
data: {a: b}
bogus: 1
EOF
check "helm install of a chart with an unknown field succeeds" h install loose "$B" -n shop
check "... with the server's warning" grep -qF 'unknown field "bogus"' <<<"$HOUT"
loose_ok() { get "$NS/configmaps/loose" && jpy "d['data'] == {'a': 'b'} and 'bogus' not in d"; }
check "... the field dropped" loose_ok
check "helm uninstall loose" h uninstall loose -n shop

# kubectl's client-side validation
cat >"$M/list.yaml" <<'EOF'
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: listed, namespace: shop}
  data: {a: "1"}
- apiVersion: v1
  kind: Service
  metadata: {name: listed, namespace: shop}
  spec:
    ports: [{port: 80}]
EOF
check "kubectl create --validate=true -f of a kind: List" k create --validate=true -f "$M/list.yaml"
get "$NS/configmaps/listed"
check "... created the ConfigMap" jpy "d['data'] == {'a': '1'}"
check "... and the Service" test "$(http_code "$NS/services/listed" "${ADMIN[@]}")" = 200

cat >"$M/bad-list.yaml" <<'EOF'
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: bad, namespace: shop}
  bogus: 1
EOF
refused() { ! k create --validate=true -f "$M/bad-list.yaml"; }
check "an unknown field in a List item fails validation" refused
check "... with kubectl's message" has 'ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap'
check "... nothing was created" test "$(http_code "$NS/configmaps/bad" "${ADMIN[@]}")" = 404

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
