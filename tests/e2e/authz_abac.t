#!/usr/bin/env bash
# ABAC end to end with token-file users (alice in dev and ops, bob): --authorization-mode=ABAC
# with --authorization-policy-file, comments and blank lines skipped, a group's policy, a
# read-only policy, a "*" user on a non-resource path, unversioned (v0) lines as kube converts
# them, kube's 403 wording with ABAC's reason,
# ABAC after AlwaysDeny in a chain, and the start-up errors (a bad line named, a missing file,
# the mode without the file, the file without the mode).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require authz_abac

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
BOB=(-H "Authorization: Bearer bob-token")
trap stop_all EXIT
POLICY=$KGATE_TEST_TMP/policy.jsonl
V1B1='"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy"'
{
    echo "# the dev group owns namespace dev"
    echo "{$V1B1,\"spec\":{\"group\":\"dev\",\"namespace\":\"dev\",\"resource\":\"*\",\"apiGroup\":\"*\"}}"
    echo ""
    echo "  # bob reads configmaps anywhere"
    echo "{$V1B1,\"spec\":{\"user\":\"bob\",\"readonly\":true,\"namespace\":\"*\",\"resource\":\"configmaps\"}}"
    echo "{$V1B1,\"spec\":{\"user\":\"*\",\"readonly\":true,\"nonResourcePath\":\"/version\"}}"
    echo "# unversioned: bob may do anything to secrets in default, in any API group"
    echo "{\"user\":\"bob\",\"namespace\":\"default\",\"resource\":\"secrets\"}"
    echo "# unversioned, no namespace and no resource: ops may do anything, paths included"
    echo "{\"group\":\"ops\",\"readonly\":true}"
} >"$POLICY"

cm() { printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"},"data":{"k":"v"}}' "$1"; }

# fails_to_start WANT-EXIT WANT-TEXT ARGS...: kgate exits with WANT-EXIT, saying WANT-TEXT.
fails_to_start() {
    local want=$1 text=$2; shift 2
    kgate_start bad --etcd-servers="$KGATE_TEST_ETCD" --tls-cert-file="$PKI/server.crt" \
        --tls-private-key-file="$PKI/server.key" --token-auth-file="$PKI/tokens.csv" "$@"
    wait_exit "$KGATE_PID"
    [[ $EXIT_CODE == "$want" ]] && grep -qF -- "$text" "$KGATE_LOG" &&
        no_sanitizer_report "$KGATE_LOG" && return 0
    diag "exit $EXIT_CODE: $(tail -5 "$KGATE_LOG")"
    return 1
}

check "kgate starts with ABAC" api_start abac --authorization-mode=ABAC \
    --authorization-policy-file="$POLICY"
send POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"dev"}}' \
    "${ADMIN[@]}"
check "the admin (system:masters) creates namespace dev" test "$CODE" = 201
send POST /api/v1/namespaces/dev/configmaps "$(cm c1)" "${ALICE[@]}"
check "alice, in group dev, creates a configmap in dev" test "$CODE" = 201
send POST /api/v1/namespaces/default/configmaps "$(cm c2)" "${ALICE[@]}"
check "alice may not create one in default" test "$CODE" = 403
check "kube's wording, with ABAC's reason" is_status 403 Forbidden \
    'configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default": No policy matched.'
fetch /api/v1/namespaces/dev/configmaps/c1 "${BOB[@]}"
check "bob reads the configmap (readonly policy)" test "$CODE" = 200
fetch /api/v1/namespaces/default/configmaps "${BOB[@]}"
check "bob lists configmaps in another namespace" test "$CODE" = 200
send DELETE /api/v1/namespaces/dev/configmaps/c1 "" "${BOB[@]}"
check "bob may not delete it" test "$CODE" = 403
fetch /api/v1/namespaces/dev/secrets "${BOB[@]}"
check "bob may not read secrets in dev" test "$CODE" = 403
send POST /api/v1/namespaces/default/secrets \
    '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"}}' "${BOB[@]}"
check "bob creates a secret in default (a v0 line)" test "$CODE" = 201
fetch /api/v1/namespaces/default/secrets/s1 "${BOB[@]}"
check "... and reads it" test "$CODE" = 200
fetch /version "${BOB[@]}"
check "user \"*\" reads /version" test "$CODE" = 200
fetch /apis "${BOB[@]}"
check "but no other path" test "$CODE" = 403
fetch /apis "${ALICE[@]}"
check "alice, in ops, reads any path (a v0 line with neither namespace nor resource)" \
    test "$CODE" = 200
fetch /apis/apps/v1/namespaces/kube-system/deployments "${ALICE[@]}"
check "... and any resource of any API group" test "$CODE" = 200
send DELETE /api/v1/namespaces/default/secrets/s1 "" "${ALICE[@]}"
check "... read-only" test "$CODE" = 403
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

check "kgate starts with AlwaysDeny,ABAC" api_start chain \
    --authorization-mode=AlwaysDeny,ABAC --authorization-policy-file="$POLICY"
fetch /version "${BOB[@]}"
check "bob reads /version through the chain" test "$CODE" = 200
fetch /apis "${BOB[@]}"
check "and is refused /apis" test "$CODE" = 403
check "with both reasons joined as kube does" \
    jpy "d['message'] == 'forbidden: User \"bob\" cannot get path \"/apis\": Everything is forbidden.\nNo policy matched.'"
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

BAD=$KGATE_TEST_TMP/bad.jsonl
{
    echo "# fine"
    echo "{$V1B1,\"spec\":{\"user\":\"bob\"}}"
    echo "{$V1B1,\"spec\":{\"user\":true}}"
} >"$BAD"
check "a bad line stops start-up, named (exit 1)" fails_to_start 1 \
    "error reading policy file $BAD, line 3: " --authorization-mode=ABAC \
    --authorization-policy-file="$BAD"
check "a missing policy file is refused" fails_to_start 1 "authorization-policy-file" \
    --authorization-mode=ABAC --authorization-policy-file="$KGATE_TEST_TMP/none.jsonl"
check "ABAC without the file is a usage error (exit 2)" fails_to_start 2 \
    "authorization-mode ABAC's authorization policy file not passed" --authorization-mode=ABAC
check "the file without ABAC is a usage error (exit 2)" fails_to_start 2 \
    "cannot specify --authorization-policy-file without mode ABAC" \
    --authorization-mode=RBAC --authorization-policy-file="$POLICY"
tap_end
