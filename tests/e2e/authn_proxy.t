#!/usr/bin/env bash
# The authenticating proxy (--requestheader-*), as kube-apiserver's request header
# authenticator: a client certificate of the request-header CA with an allowed CN names the
# user, groups and extra in headers; the same headers from anyone else are ignored; the proxy's
# certificate is nobody by itself; the TLS layer takes certificates of either client CA.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require authn_proxy

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
pki_ca "$PKI" proxyca
pki_cert "$PKI" proxyca proxy client "/CN=front-proxy"
pki_cert "$PKI" proxyca stranger client "/CN=stranger"
pki_ca "$PKI" rogueca
pki_cert "$PKI" rogueca rogue client "/CN=front-proxy"
PROXY=(--cert "$PKI/proxy.crt" --key "$PKI/proxy.key")
STRANGER=(--cert "$PKI/stranger.crt" --key "$PKI/stranger.key")
ROGUE=(--cert "$PKI/rogue.crt" --key "$PKI/rogue.key")
trap stop_all EXIT
REVIEW=/apis/authentication.k8s.io/v1/selfsubjectreviews

# whoami CURL-ARGS...: a SelfSubjectReview with those credentials and headers.
whoami() {
    OUT=$KGATE_TEST_TMP/body HDR=$KGATE_TEST_TMP/headers
    CODE=$(kcurl -o "$OUT" -D "$HDR" -w '%{http_code}' -X POST "$@" \
        -H 'Content-Type: application/json' \
        --data '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
        "$KGATE_URL$REVIEW")
}
user_is() { jpy "d['status']['userInfo'] == $1"; }

CLAIM=(-H "X-Remote-User: alice" -H "X-Remote-Group: dev" -H "X-Remote-Group: ops,qa"
    -H "X-Remote-Extra-Scopes: read" -H "X-Remote-Extra-Scopes: write"
    -H "X-Remote-Extra-Example.com%2fProject: p1")

check "kgate starts with a request-header CA" api_start proxy --anonymous-auth=false \
    --requestheader-client-ca-file="$PKI/proxyca.crt" --requestheader-allowed-names=front-proxy \
    --requestheader-username-headers=X-Remote-User \
    --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra-
whoami "${PROXY[@]}" "${CLAIM[@]}"
check "the proxy's user is authenticated" test "$CODE" = 201
check "... with each group header line as one group, and extra keys lowercased and unescaped" \
    user_is "{'username': 'alice', 'groups': ['dev', 'ops,qa', 'system:authenticated'], \
'extra': {'scopes': ['read', 'write'], 'example.com/project': ['p1']}}"
whoami "${PROXY[@]}" -H "X-Remote-User: root" -H "X-Remote-Group: system:masters"
check "the proxy may name system:masters" user_is \
    "{'username': 'root', 'groups': ['system:masters', 'system:authenticated']}"
check "a proxied user reads (AlwaysAllow)" \
    test "$(http_code /api/v1/namespaces "${PROXY[@]}" -H 'X-Remote-User: bob')" = 200
whoami "${PROXY[@]}"
check "the proxy's certificate without a user header is nobody: 401" test "$CODE" = 401
check "... kube's bare Unauthorized" is_status 401 Unauthorized Unauthorized
whoami "${STRANGER[@]}" "${CLAIM[@]}"
check "a request-header CA certificate with a CN not allowed: 401" test "$CODE" = 401
whoami "${ADMIN[@]}" "${CLAIM[@]}"
check "a --client-ca-file user's proxy headers are ignored" user_is \
    "{'username': 'kubernetes-admin', 'groups': ['system:masters', 'system:authenticated']}"
whoami "${ALICE[@]}" -H "X-Remote-User: mallory" -H "X-Remote-Group: system:masters"
check "a token user's proxy headers are ignored" user_is \
    "{'username': 'alice', 'uid': '1001', 'groups': ['dev', 'ops', 'system:authenticated']}"
whoami -H "X-Remote-User: mallory"
check "headers alone authenticate no one" test "$CODE" = 401
whoami "${ROGUE[@]}" "${CLAIM[@]}"
check "a certificate of an unknown CA is refused in the handshake" test "$CODE" = 000
whoami "${PROXY[@]}" -H "Authorization: Bearer alice-token"
check "the proxy's certificate without a user lets the token decide" user_is \
    "{'username': 'alice', 'uid': '1001', 'groups': ['dev', 'ops', 'system:authenticated']}"
check "kgate exits cleanly" clean_exit

check "kgate starts with any CN allowed and no group headers" api_start anycn \
    --anonymous-auth=false --requestheader-username-headers=X-Remote-User \
    --requestheader-client-ca-file="$PKI/proxyca.crt"
whoami "${STRANGER[@]}" -H "X-Remote-User: carol"
check "any certificate of the request-header CA vouches without allowed names" user_is \
    "{'username': 'carol', 'groups': ['system:authenticated']}"
whoami "${PROXY[@]}" -H "X-Remote-User: carol" -H "X-Remote-Group: admins"
check "no group headers configured: no groups read" user_is \
    "{'username': 'carol', 'groups': ['system:authenticated']}"
check "kgate exits cleanly" clean_exit

# a request-header CA without --client-ca-file: certificates are asked for all the same
kgate_start rhonly --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="/registry-rhonly-$$" \
    --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
    --requestheader-client-ca-file="$PKI/proxyca.crt" --requestheader-username-headers=X-Remote-User
# anonymous is off under AlwaysAllow: wait as a proxied user
KCURL_AUTH=("${PROXY[@]}" -H "X-Remote-User: dora")
check "kgate starts with a request-header CA and no client CA" wait_for_code /readyz 200
KCURL_AUTH=()
whoami "${PROXY[@]}" -H "X-Remote-User: dora"
check "the proxy vouches" user_is "{'username': 'dora', 'groups': ['system:authenticated']}"
whoami "${STRANGER[@]}"
check "its CA's certificate alone is no x509 user (no --client-ca-file), and anonymous is off under AlwaysAllow: 401" \
    test "$CODE" = 401
whoami "${ADMIN[@]}"
check "a certificate of another CA is refused in the handshake" test "$CODE" = 000
check "kgate exits cleanly" clean_exit

# start-up checks of the --requestheader-* flags, as kube's options validation
ERR=$KGATE_TEST_TMP/stderr
start_fails() {
    local desc=$1 want=$2; shift 2
    timeout 30 "$KGATE" --bind-address=127.0.0.1 --secure-port="$(free_port)" \
        --etcd-servers="$KGATE_TEST_ETCD" --tls-cert-file="$PKI/server.crt" \
        --tls-private-key-file="$PKI/server.key" "$@" >/dev/null 2>"$ERR"
    local rc=$?
    check "$desc: exit 2 (got $rc)" test "$rc" = 2
    check "$desc: says why" grep -qxF "kgate: $want" "$ERR" || diag "$(cat "$ERR")"
}
start_fails "a blank username header" 'empty value in "requestheader-username-headers"' \
    --requestheader-username-headers="X-Remote-User, "
start_fails "a blank allowed name" 'empty value in "requestheader-allowed-names"' \
    --requestheader-allowed-names=" "
: >"$KGATE_TEST_TMP/empty.crt"
timeout 30 "$KGATE" --bind-address=127.0.0.1 --secure-port="$(free_port)" \
    --etcd-servers="$KGATE_TEST_ETCD" --tls-cert-file="$PKI/server.crt" \
    --tls-private-key-file="$PKI/server.key" \
    --requestheader-client-ca-file="$KGATE_TEST_TMP/empty.crt" >/dev/null 2>"$ERR"
check "a request-header CA file without certificates: kgate refuses to start" \
    grep -q 'no usable CA certificate in --requestheader-client-ca-file' "$ERR"
tap_end
