#!/usr/bin/env bash
# Namespace lifecycle through the API, as kube-apiserver behaves: the initial namespaces exist;
# a namespace and its content are removed after DELETE (Terminating meanwhile); creates into a
# missing namespace are 404, into a terminating one 403; default, kube-system and kube-public
# may not be deleted (403). A create whose namespace changes between its admission (from the
# read cache) and its write is checked again live: written when the namespace is still
# active, 403 when it became terminating (a validating webhook changes the namespace in etcd
# meanwhile). The Status answers are checked with curl, the everyday flow with kubectl 1.32
# when it is here.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source scripts/pki.sh
e2e_require namespaces_lifecycle

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
pki_cert "$PKI" ca webhook server "/CN=webhook" "IP:127.0.0.1" >/dev/null 2>&1
set_users
trap stop_all EXIT
JSON=(-H 'Content-Type: application/json')

# post PATH JSON: create as the admin; sets CODE and $OUT.
post() { fetch "$1" "${ADMIN[@]}" "${JSON[@]}" -X POST -d "$2"; }

# check_terminating WHAT CONFIGMAP NAMESPACE: the last answer is kube's 403 for a create of the
# ConfigMap into a terminating namespace, with its NamespaceTerminating cause.
check_terminating() {
    check "$1: 403" is_status 403 Forbidden \
        "configmaps \"$2\" is forbidden: unable to create new content in namespace $3 because it is being terminated"
    check "... with the NamespaceTerminating cause" jpy \
        "d['details']['causes'] == [{'reason': 'NamespaceTerminating', \
'message': 'namespace $3 is being terminated', 'field': 'metadata.namespace'}]"
}

# ns_code NAME: the status code of GET namespaces/NAME.
ns_code() { http_code "/api/v1/namespaces/$1" "${ADMIN[@]}"; }

# wait_gone NAME [SECONDS]: until GET namespaces/NAME is 404 (default 60 s).
wait_gone() {
    for ((i = 0; i < ${2:-60} * 10; i++)); do
        [[ $(ns_code "$1") == 404 ]] && return 0
        sleep 0.1
    done
    return 1
}

# wait_exists NAME: until GET namespaces/NAME is 200 (30 s).
wait_exists() {
    for _ in $(seq 300); do
        [[ $(ns_code "$1") == 200 ]] && return 0
        sleep 0.1
    done
    return 1
}

# Without kube-root-ca.crt in every namespace, so that ConfigMaps can be counted.
check "kgate starts" api_start nslife --workers=2 '--controllers=*,-root-ca-cert-publisher'
for ns in default kube-system kube-public kube-node-lease; do
    check "the initial namespace $ns exists" wait_exists "$ns"
done
fetch /api/v1/namespaces/kube-system "${ADMIN[@]}"
check "kube-system is Active, labelled with its name, finalized by kubernetes" jpy \
    "d['status']['phase'] == 'Active' and d['spec']['finalizers'] == ['kubernetes'] and \
d['metadata']['labels']['kubernetes.io/metadata.name'] == 'kube-system'"

# --- creates into missing and terminating namespaces --------------------------------------
post /api/v1/namespaces/nowhere/configmaps '{"metadata":{"name":"c"}}'
check "a create into a missing namespace: 404" is_status 404 NotFound \
    'namespaces "nowhere" not found'
check "... naming the namespace" jpy "d['details'] == {'name': 'nowhere', 'kind': 'namespaces'}"

post /api/v1/namespaces '{"metadata":{"name":"held"}}'
check "create namespace held" test "$CODE" = 201
check "it gets the name label and the kubernetes finalizer" jpy \
    "d['metadata']['labels'] == {'kubernetes.io/metadata.name': 'held'} and \
d['spec']['finalizers'] == ['kubernetes'] and d['status']['phase'] == 'Active'"
post /api/v1/namespaces/held/configmaps \
    '{"metadata":{"name":"keep","finalizers":["example.com/hold"]}}'
check "a configmap with a finalizer in it" test "$CODE" = 201
post /api/v1/namespaces/held/secrets '{"metadata":{"name":"s"}}'
check "and a secret" test "$CODE" = 201

fetch /api/v1/namespaces/held "${ADMIN[@]}" -X DELETE
check "DELETE namespace held: 200" test "$CODE" = 200
check "... answers the namespace, Terminating, with a deletionTimestamp" jpy \
    "d['kind'] == 'Namespace' and d['status']['phase'] == 'Terminating' and \
'deletionTimestamp' in d['metadata']"
post /api/v1/namespaces/held/configmaps '{"metadata":{"name":"late"}}'
check_terminating "a create into a terminating namespace" late held
for _ in $(seq 100); do
    [[ $(http_code /api/v1/namespaces/held/secrets/s "${ADMIN[@]}") == 404 ]] && break
    sleep 0.1
done
check "the controller deletes the secret" test \
    "$(http_code /api/v1/namespaces/held/secrets/s "${ADMIN[@]}")" = 404
fetch /api/v1/namespaces/held/configmaps/keep "${ADMIN[@]}"
check "the configmap with a finalizer is marked deleted and stays" jpy \
    "'deletionTimestamp' in d['metadata']"
check "the namespace stays meanwhile" test "$(ns_code held)" = 200
fetch /api/v1/namespaces/held "${ADMIN[@]}" -X DELETE
check "a second DELETE: 200, still Terminating" jpy "d['status']['phase'] == 'Terminating'"
fetch /api/v1/namespaces/held/configmaps/keep "${ADMIN[@]}" -X PATCH \
    -H 'Content-Type: application/merge-patch+json' -d '{"metadata":{"finalizers":null}}'
check "its owner removes the finalizer" test "$CODE" = 200
check "then the namespace is removed" wait_gone held

# --- immortal namespaces -------------------------------------------------------------------
for ns in default kube-system kube-public; do
    fetch "/api/v1/namespaces/$ns" "${ADMIN[@]}" -X DELETE
    check "DELETE $ns: 403" is_status 403 Forbidden \
        "namespaces \"$ns\" is forbidden: this namespace may not be deleted"
done
check "default is still Active" test "$(ns_code default)" = 200

# --- a namespace that changes between a create's admission and its write ------------------
HOOK_PORT=$(free_port)
HOOK_LOG=$KGATE_TEST_TMP/hook.log
# The webhook: on a ConfigMap labelled guard=touch it labels the ConfigMap's namespace, on
# guard=doom it marks it terminating, both straight in etcd; it admits everything.
python3 - "$HOOK_PORT" "$PKI/webhook.crt" "$PKI/webhook.key" "$HOOK_LOG" "$KGATE_TEST_ETCD" \
    "/registry-nslife-$$" >>"$KGATE_TEST_TMP/hook.err" 2>&1 <<'PY' &
import http.server, json, ssl, subprocess, sys
port, crt, key, log, etcd, prefix = sys.argv[1:7]

def etcdctl(*args, data=None):
    return subprocess.run(["etcdctl", "--endpoints=" + etcd, *args], input=data,
                          capture_output=True, check=True).stdout

def change(ns, how):
    k = "%s/namespaces/%s" % (prefix, ns)
    obj = json.loads(etcdctl("get", k, "--print-value-only"))
    if how == "touch":
        obj["metadata"]["labels"]["touched"] = "yes"
    else:
        obj["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
        obj["status"]["phase"] = "Terminating"
    etcdctl("put", k, data=json.dumps(obj).encode())

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["request"]
        how = req["object"]["metadata"].get("labels", {}).get("guard")
        if how in ("touch", "doom"):
            change(req["namespace"], how)
        with open(log, "a") as f:
            f.write("%s %s\n" % (req["name"], how))
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                           "response": {"uid": req["uid"], "allowed": True}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

srv = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(crt, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
echo "$!" >>"$KGATE_TEST_TMP/pids"
post /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations \
    "{\"metadata\":{\"name\":\"guard\"},\"webhooks\":[{\"name\":\"guard.example.com\",
\"clientConfig\":{\"url\":\"https://127.0.0.1:$HOOK_PORT/\",\"caBundle\":\"$(base64 -w0 "$PKI/ca.crt")\"},
\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],
\"resources\":[\"configmaps\"]}],\"objectSelector\":{\"matchExpressions\":[{\"key\":\"guard\",
\"operator\":\"Exists\"}]},\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]}]}"
check "a validating webhook that changes namespaces" test "$CODE" = 201
post /api/v1/namespaces '{"metadata":{"name":"guarded"}}'
check "create namespace guarded" test "$CODE" = 201
# hook_called: until a probe's create reaches the webhook (its configuration is in force).
hook_called() {
    for i in $(seq 100); do
        post /api/v1/namespaces/guarded/configmaps \
            "{\"metadata\":{\"name\":\"probe-$i\",\"labels\":{\"guard\":\"probe\"}}}"
        grep -q "^probe-$i " "$HOOK_LOG" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
check "the webhook is called" hook_called
post /api/v1/namespaces/guarded/configmaps '{"metadata":{"name":"t","labels":{"guard":"touch"}}}'
check "a create whose namespace was relabelled meanwhile: 201" test "$CODE" = 201
fetch /api/v1/namespaces/guarded "${ADMIN[@]}"
check "... the namespace did change during the create" jpy \
    "d['metadata']['labels'].get('touched') == 'yes' and d['status']['phase'] == 'Active'"
check "... and the configmap is there" test \
    "$(http_code /api/v1/namespaces/guarded/configmaps/t "${ADMIN[@]}")" = 200
# A finalizer keeps the doomed namespace terminating: without it the namespace controller
# could remove the namespace before the create's live check, which then answers 404.
post /api/v1/namespaces/guarded/configmaps \
    '{"metadata":{"name":"pin","finalizers":["example.com/hold"]}}'
check "a configmap with a finalizer in guarded" test "$CODE" = 201
post /api/v1/namespaces/guarded/configmaps '{"metadata":{"name":"d","labels":{"guard":"doom"}}}'
check_terminating "a create whose namespace began terminating meanwhile" d guarded
check "... and nothing was written" test \
    "$(http_code /api/v1/namespaces/guarded/configmaps/d "${ADMIN[@]}")" = 404

# --- kubectl -------------------------------------------------------------------------------
if kubectl_ok; then
    KC=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KC"
    k() { kubectl --kubeconfig "$KC" --request-timeout=20s "$@"; }
    kq() { k "$@" >/dev/null; }
    # Manifests rather than "kubectl create ns|cm|deployment": those typed clients send
    # protobuf bodies, which kgate does not decode yet.
    cat >"$KGATE_TEST_TMP/x.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: x}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c1, namespace: x}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: x}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: c, image: nginx}]}
YAML
    check "kubectl create -f: namespace x, a configmap and a deployment in it" \
        kq create -f "$KGATE_TEST_TMP/x.yaml"
    check "kubectl get cm -n x lists it" test "$(k get cm -n x -o name)" = configmap/c1
    check "kubectl delete ns x" kq delete ns x --wait=false
    check "x is gone" wait_gone x
    check "and its configmap with it" test \
        "$(http_code /api/v1/namespaces/x/configmaps/c1 "${ADMIN[@]}")" = 404
    check "and its deployment" test \
        "$(http_code /apis/apps/v1/namespaces/x/deployments/d "${ADMIN[@]}")" = 404
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c2, namespace: nowhere}\n' \
        >"$KGATE_TEST_TMP/c2.yaml"
    err=$(k create -f "$KGATE_TEST_TMP/c2.yaml" 2>&1)
    check "kubectl create into a missing namespace: NotFound" \
        grep -q 'namespaces "nowhere" not found' <<<"$err"
    err=$(k delete ns default 2>&1)
    check "kubectl delete ns default: Forbidden" \
        grep -q 'namespaces "default" is forbidden: this namespace may not be deleted' <<<"$err"
else
    diag "kubectl 1.32 is not here: the kubectl scenario is skipped"
fi

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "kgate stops cleanly (exit $EXIT_CODE)" test "$EXIT_CODE" = 0
check "without a sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
