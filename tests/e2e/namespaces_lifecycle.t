#!/usr/bin/env bash
# Namespace lifecycle through the API, as kube-apiserver behaves: the initial namespaces exist;
# a namespace and its content are removed after DELETE (Terminating meanwhile); creates into a
# missing namespace are 404, into a terminating one 403; default, kube-system and kube-public
# may not be deleted (403). The Status answers are checked with curl, the everyday flow with
# kubectl 1.32 when it is here.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require namespaces_lifecycle

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
JSON=(-H 'Content-Type: application/json')

# post PATH JSON: create as the admin; sets CODE and $OUT.
post() { fetch "$1" "${ADMIN[@]}" "${JSON[@]}" -X POST -d "$2"; }

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
check "a create into a terminating namespace: 403" is_status 403 Forbidden \
    'configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated'
check "... with the NamespaceTerminating cause" jpy \
    "d['details']['causes'] == [{'reason': 'NamespaceTerminating', \
'message': 'namespace held is being terminated', 'field': 'metadata.namespace'}]"
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
