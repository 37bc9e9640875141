#!/usr/bin/env bash
# A Helm chart that ships a CRD in its crds/ folder and a template of the custom kind: Helm 3
# installs the CRD first, waits for it, then renders and validates the custom object against
# the refreshed discovery and OpenAPI; the object is readable (curl, kubectl with its printer
# columns), an upgrade changes it, a second release reuses the CRD (Helm skips crds/ that
# exist), and uninstalling removes the custom objects but leaves the CRD, as Helm does.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/helm_lib.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require crd_helm
kubectl_e2e crd_helm
export KUBECACHEDIR=$KGATE_TEST_TMP/kube-cache

helm_e2e

get() { fetch "$1" "${ADMIN[@]}"; }

CRD=/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.toys.example.com
GADGETS=/apis/toys.example.com/v1alpha1/namespaces/shop/gadgets

C=$KGATE_TEST_TMP/chart
mkdir -p "$C/templates" "$C/crds"
cat >"$C/Chart.yaml" <<'YAML'
apiVersion: v2
name: gadgets
version: 0.1.0
appVersion: "1.0"
YAML
cat >"$C/values.yaml" <<'YAML'
size: small
replicas: 1
YAML
cat >"$C/crds/gadgets.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.toys.example.com
spec:
  group: toys.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Size, type: string, jsonPath: .spec.size}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: string, enum: [small, large]}
              replicas: {type: integer, minimum: 1, default: 1}
              owner: {type: string}
YAML
cat >"$C/templates/gadget.yaml" <<'YAML'
apiVersion: toys.example.com/v1alpha1
kind: Gadget
metadata:
  name: {{ .Release.Name }}-gadget
  labels:
    app.kubernetes.io/instance: {{ .Release.Name }}
spec:
  size: {{ .Values.size }}
  replicas: {{ .Values.replicas }}
  owner: {{ .Release.Name }}
YAML
cat >"$C/templates/configmap.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  gadget: {{ .Release.Name }}-gadget
YAML

gadget_is() {
    get "$GADGETS/$1" && jpy "d['spec'] == {'size': '$2', 'replicas': $3, 'owner': '${1%-gadget}'} and \
d['metadata']['labels']['app.kubernetes.io/managed-by'] == 'Helm' and \
d['metadata']['annotations']['meta.helm.sh/release-name'] == '${1%-gadget}'"
}

check "namespace shop" k create namespace shop
check "helm install of a chart with a crds/ folder" h install demo "$C" -n shop
check "... the CRD exists and is Established" get "$CRD"
check "... Established" jpy "any(c['type'] == 'Established' and c['status'] == 'True' for c in d['status']['conditions'])"
check "... the CRD carries no Helm ownership (crds/ are not release resources)" \
    jpy "'meta.helm.sh/release-name' not in d['metadata'].get('annotations', {})"
check "... the Gadget is readable with the chart's values, labelled by Helm" gadget_is demo-gadget small 1
check "... and the ConfigMap beside it" test "$(http_code /api/v1/namespaces/shop/configmaps/demo-settings "${ADMIN[@]}")" = 200
check "kubectl get gadgets shows its printer columns" k get gadgets -n shop
# kline REGEX: a line of $KOUT matches REGEX whole.
kline() { grep -qxE -- "$1" <<<"$KOUT" || { diag "no line /$1/ in: $KOUT"; return 1; }; }
# (a v1 CRD that states columns gets no Age column added, unlike v1beta1's defaulting)
check "... the header: NAME and the CRD's columns only" kline 'NAME +SIZE +REPLICAS'
check "... the row" kline 'demo-gadget +small +1'

check "helm status: deployed" h status demo -n shop
check "... deployed" grep -q '^STATUS: deployed' <<<"$HOUT"

check "helm upgrade --set size=large,replicas=3" h upgrade demo "$C" -n shop --set size=large --set replicas=3
check "... the Gadget follows" gadget_is demo-gadget large 3

bad_values() { ! h upgrade demo "$C" -n shop --set size=huge; }
check "an upgrade to a value the CRD's enum refuses fails" bad_values
check "... with the server's message" grep -qF 'spec.size: Unsupported value: "huge": supported values: "small", "large"' <<<"$HOUT"
check "... the Gadget keeps its values" gadget_is demo-gadget large 3

check "a second release of the chart while the CRD exists" h install other "$C" -n shop
check "... its Gadget is created" gadget_is other-gadget small 1

check "helm uninstall demo" h uninstall demo -n shop
check "... the release's Gadget is gone" test "$(http_code "$GADGETS/demo-gadget" "${ADMIN[@]}")" = 404
check "... the other release's stays" test "$(http_code "$GADGETS/other-gadget" "${ADMIN[@]}")" = 200
check "helm uninstall other" h uninstall other -n shop
get "$GADGETS"
check "... no Gadget is left" jpy "d['items'] == []"
check "... the CRD stays, as Helm leaves crds/" test "$(http_code "$CRD" "${ADMIN[@]}")" = 200
check "... still served" test "$(http_code "$GADGETS" "${ADMIN[@]}")" = 200

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
