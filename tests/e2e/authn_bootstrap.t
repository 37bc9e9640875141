#!/usr/bin/env bash
# Bootstrap tokens (--enable-bootstrap-token-auth): "<id>.<secret>" bearer tokens checked
# against kube-system/bootstrap-token-<id> Secrets, as kube-apiserver's bootstrap authenticator:
# the user and groups of a valid token, and a 401 that tells nothing for each way a token or
# its Secret can be wrong; kubectl auth whoami with a bootstrap token.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require authn_bootstrap

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
SECRETS=/api/v1/namespaces/kube-system/secrets
REVIEW=/apis/authentication.k8s.io/v1/selfsubjectreviews

b64() { printf '%s' "$1" | base64 -w0; }

# token_secret ID SECRET [EXTRA-DATA-MEMBERS] [TYPE]: a bootstrap token Secret document.
token_secret() {
    local id=$1 secret=$2 extra=${3:-} type=${4:-bootstrap.kubernetes.io/token}
    echo "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"bootstrap-token-$id\"},\
\"type\":\"$type\",\"data\":{\"token-id\":\"$(b64 "$id")\",\"token-secret\":\"$(b64 "$secret")\",\
\"usage-bootstrap-authentication\":\"$(b64 true)\"${extra:+,$extra}}}"
}

# whoami TOKEN: a SelfSubjectReview with that bearer token; sets CODE and OUT.
whoami() {
    OUT=$KGATE_TEST_TMP/body HDR=$KGATE_TEST_TMP/headers
    CODE=$(kcurl -o "$OUT" -D "$HDR" -w '%{http_code}' -X POST -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' \
        --data '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
        "$KGATE_URL$REVIEW")
}

# refused DESC TOKEN: 401 with kube's bare Unauthorized Status.
refused() {
    whoami "$2"
    check "$1: 401" code_is 401
    check "$1: nothing said of why" is_status 401 Unauthorized Unauthorized
}

check "kgate starts with --enable-bootstrap-token-auth" api_start boot \
    --enable-bootstrap-token-auth --anonymous-auth=false
req POST $SECRETS "$(token_secret abcdef 0123456789abcdef \
    "\"auth-extra-groups\":\"$(b64 'system:bootstrappers:kubeadm:default-node-token')\"")"
check "a bootstrap token Secret is created" code_is 201
whoami abcdef.0123456789abcdef
check "a valid bootstrap token authenticates" code_is 201
check "... as system:bootstrap:<id>, in system:bootstrappers, the extra group and all users" \
    jpy "d['status']['userInfo'] == {'username': 'system:bootstrap:abcdef', 'groups': \
['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', \
'system:authenticated']}"
check "the token works for reads (AlwaysAllow)" \
    test "$(http_code /api/v1/namespaces -H 'Authorization: Bearer abcdef.0123456789abcdef')" = 200

refused "a wrong secret" abcdef.0123456789abcdee
refused "an unknown token id" zzzzzz.0123456789abcdef
refused "an upper-case token" ABCDEF.0123456789ABCDEF

req POST $SECRETS "$(token_secret expire 0123456789abcdef \
    "\"expiration\":\"$(b64 2020-01-01T00:00:00Z)\"")"
check "an expired token's Secret is stored" code_is 201
refused "an expired token" expire.0123456789abcdef

req POST $SECRETS "$(token_secret later1 0123456789abcdef \
    "\"expiration\":\"$(b64 "$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)")\"")"
whoami later1.0123456789abcdef
check "a token expiring in an hour authenticates" code_is 201

req POST $SECRETS "$(token_secret opaque 0123456789abcdef '' Opaque)"
refused "a Secret of another type" opaque.0123456789abcdef

req POST $SECRETS "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\
\"bootstrap-token-nousag\"},\"type\":\"bootstrap.kubernetes.io/token\",\"data\":{\"token-id\":\
\"$(b64 nousag)\",\"token-secret\":\"$(b64 0123456789abcdef)\"}}"
refused "a token without the authentication usage" nousag.0123456789abcdef

req POST $SECRETS "$(token_secret badgrp 0123456789abcdef \
    "\"auth-extra-groups\":\"$(b64 system:masters)\"")"
refused "a token whose extra groups are not bootstrappers'" badgrp.0123456789abcdef

req POST $SECRETS "$(token_secret wrngid 0123456789abcdef | sed "s/$(b64 wrngid)/$(b64 abcdef)/")"
refused "a Secret naming another token id" wrngid.0123456789abcdef

req DELETE $SECRETS/bootstrap-token-abcdef
check "the token's Secret is deleted" code_is 200
refused "a token whose Secret is gone" abcdef.0123456789abcdef
check "nothing of the refusals reached the answers" \
    bash -c "! grep -q 'bootstrap' '$OUT'"

if kubectl_ok; then
    cat >"$KGATE_TEST_TMP/boot.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- cluster: {certificate-authority: $PKI/ca.crt, server: "$KGATE_URL"}
  name: kgate
users:
- name: boot
  user: {token: later1.0123456789abcdef}
contexts:
- context: {cluster: kgate, user: boot}
  name: kgate
current-context: kgate
KC
    check "kubectl auth whoami with a bootstrap token" bash -c \
        "kubectl --kubeconfig '$KGATE_TEST_TMP/boot.kubeconfig' auth whoami -o jsonpath='{.status.userInfo.username}' | grep -qx 'system:bootstrap:later1'"
else
    check "kubectl auth whoami with a bootstrap token # SKIP no kubectl 1.32" true
fi

check "kgate exits cleanly" clean_exit

check "without the flag bootstrap tokens are not read" api_start noboot --anonymous-auth=false
req POST $SECRETS "$(token_secret abcdef 0123456789abcdef)"
refused "a valid token without --enable-bootstrap-token-auth" abcdef.0123456789abcdef
check "kgate exits cleanly" clean_exit
tap_end
