#!/usr/bin/env bash
# kubectl's typed commands send built-in kinds as protobuf (application/vnd.kubernetes.protobuf):
# create namespace, configmap, secret, deployment, service, job and auth whoami, read back.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require kubectl_create
kubectl_e2e kubectl-create

# is EXPECTED ARGS...: kubectl ARGS prints exactly EXPECTED.
is() { local want=$1; shift; k "$@" && [[ $KOUT == "$want" ]] || { diag "want '$want', got '$KOUT'"; return 1; }; }

check "create namespace" k create namespace shop
is_ns() { is Active get ns shop -o jsonpath='{.status.phase}'; }
check "the namespace is Active" is_ns

check "create configmap --from-literal" \
    k create configmap prices -n shop --from-literal=apple=3 --from-literal=pear=5
check "its data reads back" is 3/5 get cm prices -n shop -o 'jsonpath={.data.apple}/{.data.pear}'

check "create secret generic" k create secret generic token -n shop --from-literal=key=s3cret
check "its bytes read back base64-encoded" \
    is "$(printf s3cret | base64)" get secret token -n shop -o 'jsonpath={.data.key}'
check "its type is Opaque" is Opaque get secret token -n shop -o 'jsonpath={.type}'

check "create deployment --image --replicas" \
    k create deployment web -n shop --image=nginx:1.27 --replicas=2
check "its replicas and image read back" \
    is 2/nginx:1.27 get deploy web -n shop \
    -o 'jsonpath={.spec.replicas}/{.spec.template.spec.containers[0].image}'
check "the selector and template labels match" \
    is web/web get deploy web -n shop \
    -o 'jsonpath={.spec.selector.matchLabels.app}/{.spec.template.metadata.labels.app}'
check "generation starts at 1" is 1 get deploy web -n shop -o 'jsonpath={.metadata.generation}'

check "create service clusterip" k create service clusterip web -n shop --tcp=80:8080
check "its ports read back (int and int-or-string)" \
    is 80/8080 get svc web -n shop -o 'jsonpath={.spec.ports[0].port}/{.spec.ports[0].targetPort}'

check "create job" k create job once -n shop --image=busybox -- echo hi
check "its command reads back" \
    is 'echo hi' get job once -n shop -o 'jsonpath={.spec.template.spec.containers[0].command[*]}'

check "create with --dry-run=server stores nothing" \
    k create configmap ghost -n shop --from-literal=a=b --dry-run=server
check "the dry-run object does not exist" bash -c \
    '! kubectl get cm ghost -n shop >/dev/null 2>&1'

check "auth whoami names the admin" k auth whoami
check "whoami shows the certificate's user" grep -q kubernetes-admin <<<"$KOUT"

dup_ns() { ! k create namespace shop && grep -q AlreadyExists <<<"$KOUT"; }
check "a second create of the same name is AlreadyExists" dup_ns

bad_pb() { printf 'k8s\0\x0a\x05' | kcurl -o /dev/null -w '%{http_code}' -X POST \
    --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    -H 'Content-Type: application/vnd.kubernetes.protobuf' --data-binary @- \
    "$KGATE_URL/api/v1/namespaces/shop/configmaps"; }
check "a truncated protobuf body is a 400" test "$(bad_pb)" = 400

check "kgate exits cleanly" clean_exit
tap_end
