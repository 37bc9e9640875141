#!/usr/bin/env bash
# Custom resources as their users drive them, through stock kubectl 1.32 and the Python
# client, on two kgate instances: a prometheus-operator-sized CRD (about 300 KiB) applied
# server-side and re-applied changed, refused client-side (its last-applied annotation passes
# kube's 256 KiB limit), a second CRD applied client-side; custom objects created, listed with
# their printer columns (and the default ones), watched (JSON and Table), selected by a
# selectable field, diffed, applied client-side (three-way merge), labelled, sorted, applied
# server-side by two managers merging list maps (one with a composite key holding a defaulted
# member), deleted in a server dry run, replaced, explained, deleted with --all; RBAC on the
# custom resource (a Role, and an operator's aggregate-to-view ClusterRole); a cluster-scoped
# CRD applied with its objects; the big CRD deleted with kubectl; the Python dynamic
# client (create, list, patch, watch, delete, deletecollection by label), typed CRD reads and
# CustomObjectsApi.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/instances_lib.sh
e2e_require crd_kubectl
if ! kubectl_ok; then
    echo "1..0 # SKIP kubectl 1.32 is not installed"
    exit 0
fi

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
PREFIX=/registry-crdkubectl-$$
M=$KGATE_TEST_TMP/manifests
export KUBECACHEDIR=$KGATE_TEST_TMP/kube-cache
mkdir -p "$M"
PROM=prometheuses.monitoring.example.com

check "instance a starts" start a
check "instance b starts" start b
# One kubeconfig per instance for the admin; jane (certificate) and bob (token) on b.
on a && kubeconfig "$KGATE_TEST_TMP/a.kubeconfig"
on b && kubeconfig "$KGATE_TEST_TMP/b.kubeconfig"
user_kubeconfig() {
    cat >"$KGATE_TEST_TMP/$1.kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
- cluster: {certificate-authority: $PKI/ca.crt, server: "${URL[b]}"}
  name: kgate
users:
- name: $1
  user: $2
contexts:
- context: {cluster: kgate, user: $1, namespace: default}
  name: kgate
current-context: kgate
YAML
}
user_kubeconfig jane "{client-certificate: $PKI/jane.crt, client-key: $PKI/jane.key}"
user_kubeconfig bob "{token: bob-token}"
# ka / kb ARGS...: kubectl as the admin on instance a / b (k's $KOUT, has).
ka() { KUBECONFIG=$KGATE_TEST_TMP/a.kubeconfig k "$@"; }
kb() { KUBECONFIG=$KGATE_TEST_TMP/b.kubeconfig k "$@"; }
# cols: $KOUT with its column padding squeezed to one space.
cols() { tr -s ' ' <<<"$KOUT"; }
has_line() { grep -qxE -- "$1" <<<"$(cols)" || { diag "no line /$1/ in: $KOUT"; return 1; }; }

# gen_prometheus VARIANT: a CRD shaped as prometheus-operator's Prometheus (pod-like spec with
# containers keyed by name, ports keyed by port and protocol, probes, affinity, storage,
# int-or-string quantities, 200 plain settings, a description on every node). Variant v2 adds
# spec.walCompression.
gen_prometheus() {
    /usr/bin/python3 - "$1" <<'PY'
import json, sys

# A CRD shaped as prometheus-operator's Prometheus: a pod-like spec (containers and init
# containers keyed by name, their ports keyed by port and protocol, env, probes, resources),
# affinity, storage, many scalar settings, long descriptions, int-or-string fields.
WORDS = ("the operator reconciles this field into the generated workload and keeps it in sync "
         "with the desired state declared by the user when the value is empty a default is "
         "chosen by the controller according to the documented upstream behaviour").split()

seq = [0]
def desc(n=55):
    seq[0] += 1
    s = seq[0]
    return " ".join(WORDS[(s * 7 + i * 3) % len(WORDS)] for i in range(n)).capitalize() + "."

def s(**kw): return dict(type="string", description=desc(), **kw)
def i32(**kw): return dict(type="integer", format="int32", description=desc(), **kw)
def b(): return dict(type="boolean", description=desc())
def ios(): return {"anyOf": [{"type": "integer"}, {"type": "string"}],
                   "x-kubernetes-int-or-string": True, "description": desc()}
def obj(props, req=None, **kw):
    o = dict(type="object", description=desc(), properties=props, **kw)
    if req: o["required"] = req
    return o
def arr(items, **kw): return dict(type="array", description=desc(), items=items, **kw)
def smap(): return dict(type="object", description=desc(), additionalProperties={"type": "string"})

def selector():
    return obj({"matchLabels": smap(),
                "matchExpressions": arr(obj({"key": s(), "operator": s(), "values": arr({"type": "string"}, **{"x-kubernetes-list-type": "atomic"})}, ["key", "operator"]), **{"x-kubernetes-list-type": "atomic"})},
               **{"x-kubernetes-map-type": "atomic"})

def probe():
    return obj({"exec": obj({"command": arr({"type": "string"})}),
                "httpGet": obj({"path": s(), "port": ios(), "host": s(), "scheme": s(),
                                "httpHeaders": arr(obj({"name": s(), "value": s()}, ["name", "value"]))}, ["port"]),
                "tcpSocket": obj({"host": s(), "port": ios()}, ["port"]),
                "grpc": obj({"port": i32(), "service": s()}, ["port"]),
                "initialDelaySeconds": i32(), "periodSeconds": i32(), "timeoutSeconds": i32(),
                "successThreshold": i32(), "failureThreshold": i32(),
                "terminationGracePeriodSeconds": dict(type="integer", format="int64", description=desc())})

def resources():
    q = {"additionalProperties": ios(), "type": "object", "description": desc()}
    return obj({"limits": q, "requests": dict(q, description=desc()),
                "claims": arr(obj({"name": s()}, ["name"]), **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]})})

def security():
    return obj({"runAsUser": dict(type="integer", format="int64", description=desc()),
                "runAsGroup": dict(type="integer", format="int64", description=desc()),
                "runAsNonRoot": b(), "readOnlyRootFilesystem": b(), "privileged": b(),
                "allowPrivilegeEscalation": b(),
                "capabilities": obj({"add": arr({"type": "string"}), "drop": arr({"type": "string"})}),
                "seLinuxOptions": obj({"level": s(), "role": s(), "type": s(), "user": s()}),
                "seccompProfile": obj({"localhostProfile": s(), "type": s()}, ["type"])})

def env_source(key):
    return obj({"key": s(), "name": s(default=""), "optional": b()}, ["key"], **{"x-kubernetes-map-type": "atomic"})

def container():
    return obj({
        "name": s(), "image": s(), "imagePullPolicy": s(enum=["Always", "Never", "IfNotPresent"]),
        "command": arr({"type": "string"}), "args": arr({"type": "string"}), "workingDir": s(),
        "ports": arr(obj({"name": s(), "containerPort": i32(), "hostPort": i32(), "hostIP": s(),
                          "protocol": s(default="TCP")}, ["containerPort"]),
                     **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["containerPort", "protocol"]}),
        "env": arr(obj({"name": s(), "value": s(),
                        "valueFrom": obj({"configMapKeyRef": env_source("c"), "secretKeyRef": env_source("s"),
                                          "fieldRef": obj({"apiVersion": s(), "fieldPath": s()}, ["fieldPath"]),
                                          "resourceFieldRef": obj({"containerName": s(), "divisor": ios(), "resource": s()}, ["resource"])})},
                       ["name"])),
        "envFrom": arr(obj({"prefix": s(), "configMapRef": obj({"name": s(), "optional": b()}),
                            "secretRef": obj({"name": s(), "optional": b()})})),
        "resources": resources(), "securityContext": security(),
        "livenessProbe": probe(), "readinessProbe": probe(), "startupProbe": probe(),
        "lifecycle": obj({"postStart": obj({"exec": obj({"command": arr({"type": "string"})}),
                                            "sleep": obj({"seconds": dict(type="integer", format="int64", description=desc())}, ["seconds"])}),
                          "preStop": obj({"exec": obj({"command": arr({"type": "string"})})})}),
        "volumeMounts": arr(obj({"name": s(), "mountPath": s(), "subPath": s(), "readOnly": b(),
                                 "mountPropagation": s()}, ["mountPath", "name"])),
        "stdin": b(), "tty": b(), "terminationMessagePath": s(), "terminationMessagePolicy": s(),
    }, ["name"])

def affinity_term():
    return obj({"labelSelector": selector(), "namespaceSelector": selector(),
                "namespaces": arr({"type": "string"}), "topologyKey": s()}, ["topologyKey"])

def affinity():
    return obj({
        "nodeAffinity": obj({"requiredDuringSchedulingIgnoredDuringExecution": obj({
            "nodeSelectorTerms": arr(obj({"matchExpressions": arr(obj({"key": s(), "operator": s(), "values": arr({"type": "string"})}, ["key", "operator"])),
                                          "matchFields": arr(obj({"key": s(), "operator": s(), "values": arr({"type": "string"})}, ["key", "operator"]))}))}, ["nodeSelectorTerms"])}),
        "podAffinity": obj({"requiredDuringSchedulingIgnoredDuringExecution": arr(affinity_term()),
                            "preferredDuringSchedulingIgnoredDuringExecution": arr(obj({"podAffinityTerm": affinity_term(), "weight": i32()}, ["podAffinityTerm", "weight"]))}),
        "podAntiAffinity": obj({"requiredDuringSchedulingIgnoredDuringExecution": arr(affinity_term()),
                                "preferredDuringSchedulingIgnoredDuringExecution": arr(obj({"podAffinityTerm": affinity_term(), "weight": i32()}, ["podAffinityTerm", "weight"]))}),
    })

def storage():
    return obj({"disableMountSubPath": b(), "emptyDir": obj({"medium": s(), "sizeLimit": ios()}),
                "volumeClaimTemplate": obj({"apiVersion": s(), "kind": s(),
                    "metadata": obj({"name": s(), "labels": smap(), "annotations": smap()}),
                    "spec": obj({"accessModes": arr({"type": "string"}), "storageClassName": s(),
                                 "resources": resources(), "selector": selector(), "volumeMode": s(), "volumeName": s()})})})

def spec(extra):
    props = {
        "replicas": i32(), "shards": i32(), "version": s(), "image": s(), "paused": b(),
        "retention": s(pattern="^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"),
        "logLevel": s(enum=["", "debug", "info", "warn", "error"]),
        "containers": arr(container(), **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}),
        "initContainers": arr(container(), **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}),
        "affinity": affinity(), "storage": storage(), "securityContext": security(),
        "nodeSelector": smap(), "podMetadata": obj({"labels": smap(), "annotations": smap(), "name": s()}),
        "serviceMonitorSelector": selector(), "podMonitorSelector": selector(), "ruleSelector": selector(),
        "probeSelector": selector(), "serviceMonitorNamespaceSelector": selector(),
        "tolerations": arr(obj({"effect": s(), "key": s(), "operator": s(), "tolerationSeconds": dict(type="integer", format="int64", description=desc()), "value": s()})),
        "remoteWrite": arr(obj({"url": s(), "name": s(), "remoteTimeout": s(), "headers": smap(),
                                "writeRelabelConfigs": arr(obj({"action": s(default="replace"), "regex": s(), "replacement": s(), "separator": s(), "sourceLabels": arr({"type": "string", "pattern": "^[a-zA-Z_][a-zA-Z0-9_]*$"}), "targetLabel": s(), "modulus": dict(type="integer", format="int64", description=desc())})),
                                "queueConfig": obj({"capacity": i32(), "maxShards": i32(), "minShards": i32(), "maxSamplesPerSend": i32(), "batchSendDeadline": s(), "retryOnRateLimit": b()}),
                                "tlsConfig": obj({"ca": obj({"configMap": env_source("c"), "secret": env_source("s")}), "caFile": s(), "certFile": s(), "keyFile": s(), "insecureSkipVerify": b(), "serverName": s()})}, ["url"])),
        "additionalScrapeConfigs": env_source("s"),
        "externalLabels": smap(), "enableFeatures": arr({"type": "string"}, **{"x-kubernetes-list-type": "set"}),
        "web": obj({"pageTitle": s(), "maxConnections": i32(minimum=0), "httpConfig": obj({"http2": b(), "headers": obj({"xFrameOptions": s(enum=["", "Deny", "SameOrigin"]), "strictTransportSecurity": s()})})}),
        "rawExtension": dict(type="object", description=desc(), **{"x-kubernetes-preserve-unknown-fields": True}),
    }
    for n in range(extra):
        props["setting%03d" % n] = [s, i32, b][n % 3]()
    return obj(props)

def status():
    return obj({"paused": b(), "replicas": i32(), "updatedReplicas": i32(), "availableReplicas": i32(),
                "conditions": arr(obj({"type": s(), "status": s(), "reason": s(), "message": s(),
                                       "lastTransitionTime": s(format="date-time"), "observedGeneration": dict(type="integer", format="int64", description=desc())},
                                      ["type", "status", "lastTransitionTime"]),
                                  **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]}),
                "shardStatuses": arr(obj({"shardID": s(), "replicas": i32()}, ["shardID", "replicas"]),
                                     **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["shardID"]})})

variant = sys.argv[1] if len(sys.argv) > 1 else "v1"
sp = spec(200)
if variant == "v2":
    sp["properties"]["walCompression"] = b()
    sp["properties"]["walCompression"]["description"] = "Configures compression of the write-ahead log."
crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "prometheuses.monitoring.example.com",
                    "annotations": {"controller-gen.kubebuilder.io/version": "v0.16.1"}},
       "spec": {"group": "monitoring.example.com", "scope": "Namespaced",
                "names": {"plural": "prometheuses", "singular": "prometheus", "kind": "Prometheus",
                          "listKind": "PrometheusList", "categories": ["prometheus-operator"]},
                "versions": [{"name": "v1", "served": True, "storage": True,
                              "subresources": {"status": {}},
                              "schema": {"openAPIV3Schema": obj({"apiVersion": s(), "kind": s(),
                                  "metadata": {"type": "object"}, "spec": sp, "status": status()}, ["spec"])}}]}}
json.dump(crd, sys.stdout, indent=2)
PY
}

# --- CRDs -------------------------------------------------------------------------------------
gen_prometheus v1 >"$M/prometheus-crd.json"
gen_prometheus v2 >"$M/prometheus-crd-v2.json"
check "the generated Prometheus CRD is over 256 KiB compacted" \
    test "$(python3 -c 'import json,sys; print(len(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"))))' "$M/prometheus-crd.json")" -gt 262144
check "kubectl apply --server-side of the big CRD through a" \
    ka apply --server-side -f "$M/prometheus-crd.json"
check "... kubectl says it was applied" has "customresourcedefinition.apiextensions.k8s.io/$PROM serverside-applied"
check "kubectl wait sees it Established (b)" \
    kb wait --for=condition=Established "crd/$PROM" --timeout=20s
kb get crd "$PROM" -o json --show-managed-fields
check "its managedFields name kubectl's apply manager" jpy \
    "('kubectl', 'Apply', None) in [(m['manager'], m['operation'], m.get('subresource')) for m in d['metadata']['managedFields']]" \
    <(echo "$KOUT")
check "re-applying it changed (spec.walCompression added) through b is conflict-free" \
    kb apply --server-side -f "$M/prometheus-crd-v2.json"
check "... serverside-applied" has "serverside-applied"
wal_explained() {
    for _ in $(seq 50); do
        KUBECONFIG=$KGATE_TEST_TMP/a.kubeconfig kubectl explain prometheus.spec.walCompression \
            >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    false
}
check "a explains the new field" wal_explained
ka explain prometheus.spec.walCompression
check "... with its type and description" has "FIELD: walCompression <boolean>"
check "... and description" has "Configures compression of the write-ahead log."
refuse_csa() { ! ka apply -f "$M/prometheus-crd-v2.json"; }
check "client-side kubectl apply of the big CRD is refused" refuse_csa
check "... its last-applied annotation passes kube's limit" \
    has "metadata.annotations: Too long: may not be more than 262144 bytes"

cat >"$M/widget-crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    selectableFields:
    - jsonPath: .spec.color
    additionalPrinterColumns:
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [color]
            properties:
              color: {type: string, enum: [red, green, blue], description: The widget's colour.}
              replicas: {type: integer, minimum: 0}
              ports:
                type: array
                description: Ports the widget listens on, keyed by name.
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
          status:
            type: object
            properties:
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [type, status]
                  properties:
                    type: {type: string}
                    status: {type: string}
YAML
check "client-side kubectl apply of a second CRD through b" kb apply -f "$M/widget-crd.yaml"
check "... created" has "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created"
check "it is Established (a)" \
    ka wait --for=condition=Established crd/widgets.example.com --timeout=20s
check "kubectl get crd lists both" ka get crd
check "... under the CRD table's columns" has_line "NAME CREATED AT"
check "... the Prometheus one" has "$PROM"
check "... and the widgets" has "widgets.example.com"

# --- custom objects ---------------------------------------------------------------------------
cat >"$M/w1.yaml" <<'YAML'
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: default}
spec: {color: red, replicas: 3}
YAML
cat >"$M/w3.yaml" <<'YAML'
apiVersion: example.com/v1
kind: Widget
metadata: {name: w3, namespace: default}
spec: {color: blue, replicas: 1}
YAML
check "kubectl apply -f creates a Widget (a)" ka apply -f "$M/w1.yaml"
check "... created" has "widget.example.com/w1 created"
check "and another" ka apply -f "$M/w3.yaml"
cat >"$M/bogus.yaml" <<'YAML'
apiVersion: example.com/v1
kind: Widget
metadata: {name: bogus, namespace: default}
spec: {color: red, bogus: 1}
YAML
strict_refused() { ! ka create -f "$M/bogus.yaml"; }
check "kubectl create (--validate=strict, kubectl's default) refuses an unknown field" strict_refused
check "... with kube's strict decoding error" \
    has 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"'
check "... nothing was created" ka get widgets -o name
check "... only w1 and w3" test "$KOUT" = $'widget.example.com/w1\nwidget.example.com/w3'
check "kubectl patch --subresource=status sets its Ready condition (b)" \
    kb patch widget w1 --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Synced","status":"False"},{"type":"Ready","status":"True"}]}}'
check "kubectl wait --for=condition=Ready on the custom object (a)" \
    ka wait --for=condition=Ready widget/w1 --timeout=10s
check "kubectl wait --for=jsonpath on its spec (b)" \
    kb wait --for=jsonpath='{.spec.replicas}'=3 widget/w1 --timeout=10s
check "kubectl get widgets (a)" ka get widgets
check "... prints the printer columns' header" has_line "NAME READY REPLICAS AGE"
check "... w1 Ready True with 3 replicas and an age" has_line "w1 True 3 [0-9]+s"
# (a cell whose path finds nothing is null: kubectl leaves it blank)
check "... w3 with no Ready condition and 1 replica" has_line "w3 1 [0-9]+s"
check "kubectl get widgets -A lists across namespaces (b)" kb get widgets -A
check "... with the namespace column" has_line "NAMESPACE NAME READY REPLICAS AGE"
check "... and the rows" has_line "default w1 True 3 [0-9]+s"
check "kubectl get wd -o wide (short name, b)" kb get wd w1 -o wide
check "... the same columns" has_line "w1 True 3 [0-9]+s"

cat >"$M/p1.json" <<'JSON'
{"apiVersion":"monitoring.example.com/v1","kind":"Prometheus","metadata":{"name":"p1","namespace":"default"},
 "spec":{"replicas":2,"retention":"15d","logLevel":"info","walCompression":true,
  "containers":[{"name":"config-reloader","image":"reloader:v1",
    "ports":[{"containerPort":8080,"name":"reloader-web"}],
    "resources":{"limits":{"cpu":"100m","memory":"50Mi"},"requests":{"cpu":1}},
    "livenessProbe":{"httpGet":{"path":"/healthz","port":"reloader-web"}}}],
  "rawExtension":{"free":{"form":[1,2]}}}}
JSON
check "a Prometheus object is created from JSON (b)" kb create -f "$M/p1.json"
check "kubectl get prometheus: the default columns of a CRD without any (a)" ka get prometheuses
check "... NAME and AGE" has_line "NAME AGE"
check "... p1 with its age" has_line "p1 [0-9]+s"
ka get prometheus p1 -o json
check "the object round-trips: defaults, int-or-string, preserved fields" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); c = d["spec"]["containers"][0]
ok = (c["ports"] == [{"containerPort": 8080, "name": "reloader-web", "protocol": "TCP"}]
      and c["resources"]["requests"] == {"cpu": 1}
      and c["livenessProbe"]["httpGet"]["port"] == "reloader-web"
      and d["spec"]["rawExtension"] == {"free": {"form": [1, 2]}} and d["spec"]["walCompression"] is True)
print("# " + json.dumps(d["spec"])) if not ok else None
sys.exit(0 if ok else 1)' "$KOUT"
check "kubectl get by category (prometheus-operator)" kb get prometheus-operator -o name
check "... lists p1" test "$KOUT" = "prometheus.monitoring.example.com/p1"

# watch: kubectl get -w on b sees a change made through a
KUBECONFIG=$KGATE_TEST_TMP/b.kubeconfig timeout 15 kubectl get widget w1 -w \
    -o 'jsonpath={.spec.replicas}{"\n"}' >"$KGATE_TEST_TMP/watch.out" 2>&1 &
WATCH=$!
check "kubectl get -w prints the current state" wait_for_line '^3$' "$KGATE_TEST_TMP/watch.out"
check "kubectl scale-like patch through a" ka patch widget w1 --type=merge -p '{"spec":{"replicas":5}}'
check "... the watch sees the update" wait_for_line '^5$' "$KGATE_TEST_TMP/watch.out"
kill "$WATCH" 2>/dev/null
wait "$WATCH" 2>/dev/null
diag "$(cat "$KGATE_TEST_TMP/watch.out")"

# selectableFields
check "kubectl get --field-selector spec.color=blue (b)" \
    kb get widgets --field-selector spec.color=blue -o name
check "... only w3" test "$KOUT" = "widget.example.com/w3"
check "--field-selector spec.color!=blue (a)" ka get widgets --field-selector 'spec.color!=blue' -o name
check "... only w1" test "$KOUT" = "widget.example.com/w1"
no_sel() { ! kb get widgets --field-selector spec.replicas=1; }
check "a field that is not selectable is refused" no_sel
check "... 400 in kube's words" has 'Error from server (BadRequest): Unable to find "example.com/v1, Resource=widgets" that match label selector "", field selector "spec.replicas=1": field label not supported: spec.replicas'

# the Table watch kubectl prints by default: rows with the printer columns, then each change
KUBECONFIG=$KGATE_TEST_TMP/a.kubeconfig timeout 15 kubectl get widgets -w \
    >"$KGATE_TEST_TMP/watch-table.out" 2>&1 &
WATCH=$!
check "kubectl get -w (a table) prints the rows" wait_for_line '^w3 ' "$KGATE_TEST_TMP/watch-table.out"
check "a change through b" kb patch widget w1 --type=merge -p '{"spec":{"replicas":7}}'
check "... comes as a row with the printer columns" \
    wait_for_line '^w1 *True *7 *[0-9]*s$' "$KGATE_TEST_TMP/watch-table.out"
kill "$WATCH" 2>/dev/null
wait "$WATCH" 2>/dev/null

# client-side apply of an existing object: a three-way merge from the last-applied annotation
sed -i 's/replicas: 1}/replicas: 2, ports: [{name: a, port: 1}]}/' "$M/w3.yaml"
diff_shows() { ! ka diff -f "$M/w3.yaml"; }
check "kubectl diff of the changed manifest shows a difference (server dry run)" diff_shows
check "... the new replicas" has "+  replicas: 2"
check "kubectl apply -f of the changed manifest (b)" kb apply -f "$M/w3.yaml"
check "... configured" has "widget.example.com/w3 configured"
sed -i 's/, ports: \[{name: a, port: 1}\]//' "$M/w3.yaml"
check "kubectl apply -f without the ports (a)" ka apply -f "$M/w3.yaml"
check "... the field the manifest dropped is removed" \
    ka get widget w3 -o 'jsonpath={.spec.replicas}/{.spec.ports}'
check "... replicas kept" test "$KOUT" = "2/"
check "kubectl label (a merge patch for a custom kind)" kb label widget w3 tier=gold
check "kubectl get -l tier=gold" ka get widgets -l tier=gold -o name
check "... w3" test "$KOUT" = "widget.example.com/w3"
check "kubectl get --sort-by=.spec.replicas" ka get widgets --sort-by=.spec.replicas -o name
check "... w3 (2) before w1 (7)" test "$KOUT" = $'widget.example.com/w3\nwidget.example.com/w1'
check "kubectl api-resources --api-group=example.com" kb api-resources --api-group=example.com
check "... lists widgets with its short name" has_line "widgets wd example.com/v1 true Widget"

# server-side apply of a listType=map list by two managers
cat >"$M/w2-alice.yaml" <<'YAML'
apiVersion: example.com/v1
kind: Widget
metadata: {name: w2, namespace: default}
spec:
  color: green
  ports:
  - {name: http, port: 80}
YAML
cat >"$M/w2-bob.yaml" <<'YAML'
apiVersion: example.com/v1
kind: Widget
metadata: {name: w2, namespace: default}
spec:
  ports:
  - {name: metrics, port: 9090}
YAML
check "alice applies w2 server-side with port http (a)" \
    ka apply --server-side --field-manager=alice -f "$M/w2-alice.yaml"
check "bob applies port metrics to it (b)" \
    kb apply --server-side --field-manager=bob -f "$M/w2-bob.yaml"
sed -i 's/port: 80}/port: 8080}/' "$M/w2-alice.yaml"
check "alice changes her port (a)" ka apply --server-side --field-manager=alice -f "$M/w2-alice.yaml"
ka get widget w2 -o json --show-managed-fields
check "the list holds both entries merged by key, each manager owning its own" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
own = {m["manager"]: m["fieldsV1"]["f:spec"] for m in d["metadata"]["managedFields"]}
ok = (d["spec"]["ports"] == [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9090}]
      and "k:{\"name\":\"http\"}" in own["alice"]["f:ports"] and "f:color" in own["alice"]
      and list(own["bob"]["f:ports"]) == ["k:{\"name\":\"metrics\"}"])
print("# " + json.dumps([d["spec"], d["metadata"]["managedFields"]])) if not ok else None
sys.exit(0 if ok else 1)' "$KOUT"
sed -i 's/^  ports:/  color: blue\n  ports:/' "$M/w2-bob.yaml"
bob_conflict() { ! kb apply --server-side --field-manager=bob -f "$M/w2-bob.yaml"; }
check "bob applying alice's colour conflicts" bob_conflict
check "... with kube's message" has 'Apply failed with 1 conflict: conflict with "alice": .spec.color'

# the same with a composite key whose member has a schema default (ports: containerPort and
# protocol, protocol defaulting to TCP), nested in a list map, as prometheus-operator's users do
cat >"$M/p2-m1.yaml" <<'YAML'
apiVersion: monitoring.example.com/v1
kind: Prometheus
metadata: {name: p2, namespace: default}
spec:
  replicas: 1
  containers:
  - name: prometheus
    image: prom:v1
    ports:
    - {containerPort: 9090, name: web}
YAML
cat >"$M/p2-m2.yaml" <<'YAML'
apiVersion: monitoring.example.com/v1
kind: Prometheus
metadata: {name: p2, namespace: default}
spec:
  containers:
  - name: prometheus
    ports:
    - {containerPort: 9091, name: extra, protocol: UDP}
  - name: sidecar
    image: side:v1
YAML
check "m1 applies a Prometheus with one port (a)" \
    ka apply --server-side --field-manager=m1 -f "$M/p2-m1.yaml"
check "m1 applies it again unchanged" ka apply --server-side --field-manager=m1 -f "$M/p2-m1.yaml"
check "m2 applies another port and a sidecar (b)" \
    kb apply --server-side --field-manager=m2 -f "$M/p2-m2.yaml"
ka get prometheus p2 -o json --show-managed-fields
check "the ports merge by their composite key, m1's key holding the defaulted protocol" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
own = {m["manager"]: m["fieldsV1"]["f:spec"]["f:containers"] for m in d["metadata"]["managedFields"]}
c = d["spec"]["containers"]
ok = ([x["name"] for x in c] == ["prometheus", "sidecar"]
      and c[0]["ports"] == [{"containerPort": 9090, "name": "web", "protocol": "TCP"},
                            {"containerPort": 9091, "name": "extra", "protocol": "UDP"}]
      and list(own["m1"]["k:{\"name\":\"prometheus\"}"]["f:ports"]) == ["k:{\"containerPort\":9090,\"protocol\":\"TCP\"}"]
      and list(own["m2"]["k:{\"name\":\"prometheus\"}"]["f:ports"]) == ["k:{\"containerPort\":9091,\"protocol\":\"UDP\"}"]
      and d["metadata"]["generation"] == 2)
print("# " + json.dumps([c, d["metadata"]["managedFields"]])) if not ok else None
sys.exit(0 if ok else 1)' "$KOUT"
sed -i '/ports:/d; /containerPort: 9090/d' "$M/p2-m1.yaml"
check "m1 applies without its port" ka apply --server-side --field-manager=m1 -f "$M/p2-m1.yaml"
check "... its port goes, m2's stays" \
    kb get prometheus p2 -o 'jsonpath={.spec.containers[*].ports[*].containerPort}/{.spec.containers[1].name}'
check "... 9091, sidecar" test "$KOUT" = "9091/sidecar"

# delete in a server dry run, replace, explain
check "kubectl delete --dry-run=server (b)" kb delete widget w1 --dry-run=server
check "... says so" has 'widget.example.com "w1" deleted (server dry run)'
check "... the object stays" ka get widget w1 -o name
ka get widget w1 -o json
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); d["spec"]["color"]="green"; print(json.dumps(d))' \
    "$KOUT" >"$M/w1-edit.json"
check "kubectl replace of the object read back (a)" ka replace -f "$M/w1-edit.json"
check "... replaced" has "widget.example.com/w1 replaced"
check "... b reads the new colour" kb get widget w1 -o 'jsonpath={.spec.color}'
check "... green" test "$KOUT" = green
stale() { ! ka replace -f "$M/w1-edit.json"; }
check "replacing the stale copy again is a conflict" stale
check "... in kube's words" has 'Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again'
check "kubectl edit (an editor that changes the colour, a)" \
    env EDITOR="sed -i s/color:\ green/color:\ red/" KUBECONFIG="$KGATE_TEST_TMP/a.kubeconfig" \
    kubectl edit widget w1
check "... b reads the edited colour" kb get widget w1 -o 'jsonpath={.spec.color}'
check "... red" test "$KOUT" = red
check "kubectl get --chunk-size=1 pages through continue tokens (b)" \
    kb get widgets --chunk-size=1 -o name
check "... every object once" test "$KOUT" = $'widget.example.com/w1\nwidget.example.com/w2\nwidget.example.com/w3'
check "kubectl explain widget.spec.ports (b)" kb explain widget.spec.ports
check "... its type" has "FIELD: ports <[]Object>"
check "... its description" has "Ports the widget listens on, keyed by name."
check "... its fields" has "port	<integer>"

# RBAC: jane may read widgets in default, bob may not
check "a Role on widgets" ka create role widget-reader --verb=get,list,watch --resource=widgets.example.com
check "bound to jane" ka create rolebinding jane-widgets --role=widget-reader --user=jane
jane_lists() {
    for _ in $(seq 50); do
        KUBECONFIG=$KGATE_TEST_TMP/jane.kubeconfig k get widgets -o name && return 0
        sleep 0.2
    done
    return 1
}
check "jane lists widgets (b)" jane_lists
check "... all three" test "$(wc -l <<<"$KOUT")" = 3
bob_lists() { ! KUBECONFIG=$KGATE_TEST_TMP/bob.kubeconfig k get widgets; }
check "bob cannot" bob_lists
check "... 403 in kube's words" has 'Error from server (Forbidden): widgets.example.com is forbidden: User "bob" cannot list resource "widgets" in API group "example.com" in the namespace "default"'
# an operator's ClusterRole labelled aggregate-to-view: bob, bound to view, may then list
cat >"$M/widgets-view.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widgets-view
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- apiGroups: [example.com]
  resources: [widgets]
  verbs: [get, list, watch]
YAML
check "an aggregate-to-view ClusterRole for widgets (a)" ka apply -f "$M/widgets-view.yaml"
check "bob bound to view in default" ka create rolebinding bob-view --clusterrole=view --user=bob
bob_may() {
    for _ in $(seq 50); do
        KUBECONFIG=$KGATE_TEST_TMP/bob.kubeconfig kubectl get widgets -o name >/dev/null 2>&1 &&
            return 0
        sleep 0.2
    done
    return 1
}
check "bob now lists widgets through the aggregated view (b)" bob_may
jane_writes() { ! KUBECONFIG=$KGATE_TEST_TMP/jane.kubeconfig k delete widget w1; }
check "jane cannot delete" jane_writes
check "... forbidden" has 'User "jane" cannot delete resource "widgets" in API group "example.com" in the namespace "default"'

check "kubectl delete widgets --all (a)" ka delete widgets --all
check "... deletes the three" test "$(grep -c 'deleted' <<<"$KOUT")" = 3
check "none left (b)" kb get widgets -o name
check "... empty" test -z "$KOUT"

# a cluster-scoped CRD, as cert-manager's ClusterIssuer
cat >"$M/gates.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gates.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {plural: gates, singular: gate, kind: Gate}
  versions:
  - name: v1
    served: true
    storage: true
    selectableFields: [{jsonPath: .spec.zone}]
    additionalPrinterColumns:
    - {name: Zone, type: string, jsonPath: .spec.zone}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              zone: {type: string}
---
apiVersion: example.com/v1
kind: Gate
metadata: {name: north}
spec: {zone: north-1}
---
apiVersion: example.com/v1
kind: Gate
metadata: {name: south}
spec: {zone: south-1}
YAML
gates_applied() {
    # (the objects of a CRD applied in the same file need its kind served: kubectl retries
    # nothing, so a second pass creates them, as users run it)
    for _ in $(seq 20); do
        KUBECONFIG=$KGATE_TEST_TMP/a.kubeconfig kubectl apply -f "$M/gates.yaml" >/dev/null 2>&1 &&
            return 0
        sleep 0.3
    done
    ka apply -f "$M/gates.yaml"
}
check "kubectl apply of a cluster-scoped CRD and two of its objects in one file (a)" gates_applied
check "kubectl get gates (b): no namespace, the Zone column" kb get gates
check "... the header" has_line "NAME ZONE"
check "... a row" has_line "south south-1"
check "kubectl get gates --field-selector spec.zone=north-1 (b)" \
    kb get gates --field-selector spec.zone=north-1 -o name
check "... north" test "$KOUT" = "gate.example.com/north"
no_ns_sel() { ! kb get gates --field-selector metadata.namespace=default; }
check "metadata.namespace is no field of a cluster-scoped kind" no_ns_sel
check "... kube's message" has "field label not supported: metadata.namespace"
check "kubectl delete gate south (b)" kb delete gate south
check "... deleted" has 'gate.example.com "south" deleted'

# --- the Python client (Debian's python3-kubernetes) ------------------------------------------
if /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
    check "Python: typed CRD reads, dynamic create/list/patch/delete, deletecollection (a, b)" \
        /usr/bin/python3 - "$KGATE_TEST_TMP/a.kubeconfig" "$KGATE_TEST_TMP/b.kubeconfig" "$PROM" <<'PY'
import sys
from kubernetes import client, config, dynamic
from kubernetes.dynamic.exceptions import NotFoundError

def api(path):
    return config.new_client_from_config(config_file=path)

a, b = api(sys.argv[1]), api(sys.argv[2])
bad = []
def expect(what, ok):
    if not ok:
        bad.append(what)

# The typed CRD model is strict (required members, nested JSONSchemaProps): the big CRD
# deserializes, with its int-or-string and list-map markers.
crd = client.ApiextensionsV1Api(b).read_custom_resource_definition(sys.argv[3])
spec = crd.spec.versions[0].schema.open_apiv3_schema.properties["spec"]
cont = spec.properties["containers"]
expect("typed CRD list-map", cont.x_kubernetes_list_type == "map"
       and cont.x_kubernetes_list_map_keys == ["name"])
# (items is an untyped object in the model: either a schema or a list of them)
expect("typed CRD int-or-string",
       cont.items["properties"]["livenessProbe"]["properties"]["httpGet"]["properties"]["port"]
       == {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True,
           "description": cont.items["properties"]["livenessProbe"]["properties"]["httpGet"]
           ["properties"]["port"]["description"]})
expect("typed CRD conditions", any(c.type == "Established" and c.status == "True"
                                   for c in crd.status.conditions))
names = [c.metadata.name for c in client.ApiextensionsV1Api(a).list_custom_resource_definition().items]
expect("typed CRD list", sorted(names) == ["gates.example.com", sys.argv[3], "widgets.example.com"])

dyn = dynamic.DynamicClient(a)
widgets = dyn.resources.get(api_version="example.com/v1", kind="Widget")
body = {"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "py", "labels": {"from": "python"}},
        "spec": {"color": "green", "replicas": 2, "ports": [{"name": "p", "port": 1}]}}
made = widgets.create(body=body, namespace="default")
expect("dynamic create", made.spec.color == "green" and made.spec.ports[0].port == 1
       and made.metadata.uid and made.metadata.generation == 1)
listed = dynamic.DynamicClient(b).resources.get(api_version="example.com/v1", kind="Widget") \
    .get(namespace="default", label_selector="from=python")
expect("dynamic list on b", [i.metadata.name for i in listed.items] == ["py"]
       and listed.kind == "WidgetList")
patched = widgets.patch(name="py", namespace="default", body={"spec": {"replicas": 4}},
                        content_type="application/merge-patch+json")
expect("dynamic merge patch", patched.spec.replicas == 4 and patched.metadata.generation == 2
       and patched.spec.ports[0].name == "p")
widgets.delete(name="py", namespace="default")
try:
    widgets.get(name="py", namespace="default")
    expect("dynamic delete", False)
except NotFoundError:
    pass

# a watch from the list's resourceVersion sees a create made through the other instance
rv = widgets.get(namespace="default").metadata.resourceVersion
widgets.create(body=dict(body, metadata={"name": "watched"}), namespace="default")
seen = [(e["type"], e["object"].metadata.name)
        for e in dynamic.DynamicClient(b).resources.get(api_version="example.com/v1", kind="Widget")
        .watch(namespace="default", resource_version=rv, timeout=2)]
expect("dynamic watch", seen == [("ADDED", "watched")])
widgets.delete(name="watched", namespace="default")

# CustomObjectsApi creates three; the dynamic client deletes two by label (deletecollection with
# a selector), then CustomObjectsApi's deletecollection takes the last.
co = client.CustomObjectsApi(b)
for n, labels in (("c1", {"batch": "x"}), ("c2", {"batch": "x"}), ("c3", {})):
    co.create_namespaced_custom_object("example.com", "v1", "default", "widgets",
        {"apiVersion": "example.com/v1", "kind": "Widget",
         "metadata": {"name": n, "labels": labels}, "spec": {"color": "red"}})
got = co.get_namespaced_custom_object("example.com", "v1", "default", "widgets", "c1")
expect("CustomObjectsApi get", got["spec"] == {"color": "red"} and got["kind"] == "Widget")
widgets.delete(namespace="default", label_selector="batch=x")
left = co.list_namespaced_custom_object("example.com", "v1", "default", "widgets")
expect("deletecollection by label", [i["metadata"]["name"] for i in left["items"]] == ["c3"])
co.delete_collection_namespaced_custom_object("example.com", "v1", "default", "widgets")
left = co.list_namespaced_custom_object("example.com", "v1", "default", "widgets")
expect("deletecollection", left["items"] == [])

if bad:
    print("# failed: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY
fi

# kubectl delete of a CRD with objects waits until the finalizer has deleted them and the CRD
check "kubectl delete crd of the Prometheus CRD, objects and all, waits for its end (a)" \
    timeout 60 env KUBECONFIG="$KGATE_TEST_TMP/a.kubeconfig" kubectl delete crd "$PROM"
no_prom() {
    for _ in $(seq 50); do
        KUBECONFIG=$KGATE_TEST_TMP/b.kubeconfig kubectl get prometheuses >/dev/null 2>&1 || break
        sleep 0.2
    done
    # (a fresh discovery cache: kubectl's own would still list the kind, and answer NotFound)
    ! KUBECACHEDIR=$KGATE_TEST_TMP/fresh-cache kb get prometheuses
}
check "b no longer knows the kind" no_prom
check "... in kubectl's words" has 'error: the server doesn'"'"'t have a resource type "prometheuses"'
req GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions
check "only the gates and widgets CRDs are left" \
    jpy "[i['metadata']['name'] for i in d['items']] == ['gates.example.com', 'widgets.example.com']"
check "etcd holds no Prometheus object" \
    bash -c "[[ -z \$(ETCDCTL_API=3 etcdctl --endpoints=$KGATE_TEST_ETCD get $PREFIX/monitoring.example.com/ --prefix --keys-only) ]]"

for i in a b; do
    on "$i"
    check "instance $i stops cleanly" clean_exit
done
tap_end
