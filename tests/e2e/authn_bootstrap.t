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
# kube-apiserver caches an accepted token for 10 s: until they are over the token still works
gone() {
    for _ in $(seq 75); do
        whoami abcdef.0123456789abcdef
        [[ $CODE == 401 ]] && return 0
        sleep 0.2
    done
    return 1
}
check "a token whose Secret is gone is refused within kube's 10 s token cache" gone
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

# the controllers
CM=/api/v1/namespaces/kube-public/configmaps
KUBECONFIG_TEXT='apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://kgate.example:6443"}
  name: ""'
# signature_ok ID SECRET: cluster-info's jws-kubeconfig-ID is the detached JWS of its
# kubeconfig, HS256 keyed with ID.SECRET, header {"alg":"HS256","kid":"ID"}.
signature_ok() {
    req GET $CM/cluster-info
    python3 - "$1" "$2" "$OUT" <<'PY'
import base64, hashlib, hmac, json, sys
tid, secret, path = sys.argv[1:]
d = json.load(open(path))['data']
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b'=').decode()
header, empty, sig = d['jws-kubeconfig-' + tid].split('.')
want_header = b64(json.dumps({'alg': 'HS256', 'kid': tid}, separators=(',', ':')).encode())
mac = hmac.new((tid + '.' + secret).encode(),
               (header + '.' + b64(d['kubeconfig'].encode())).encode(), hashlib.sha256).digest()
ok = empty == '' and header == want_header and sig == b64(mac)
if not ok:
    print('# bad signature entry: %r' % d)
sys.exit(0 if ok else 1)
PY
}
# sig_keys: the jws-kubeconfig-* keys of cluster-info, sorted and space-separated.
sig_keys() {
    req GET $CM/cluster-info
    jget "' '.join(sorted(k for k in d.get('data', {}) if k.startswith('jws-kubeconfig-')))"
}
# wait_keys WANT: until sig_keys prints WANT (up to 30 s).
wait_keys() {
    for _ in $(seq 300); do
        [[ $(sig_keys) == "$1" ]] && return 0
        sleep 0.1
    done
    diag "cluster-info signatures: $(sig_keys)"
    return 1
}
signing() { echo "\"usage-bootstrap-signing\":\"$(b64 true)\"${1:+,$1}"; }

check "kgate starts with the tokencleaner and bootstrapsigner controllers" api_start ctl \
    --enable-bootstrap-token-auth --controllers='*,tokencleaner,bootstrapsigner'
req POST $CM "$(python3 -c 'import json,sys; print(json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cluster-info"}, "data": {"kubeconfig": sys.argv[1], "jws-kubeconfig-zzzzzz": "stale"}}))' "$KUBECONFIG_TEXT")"
check "cluster-info is created (with a stale signature)" code_is 201
req POST $SECRETS "$(token_secret abcdef 0123456789abcdef "$(signing)")"
check "a signing token's Secret is created" code_is 201
check "cluster-info gets that token's signature and loses the stale one" \
    wait_keys "jws-kubeconfig-abcdef"
check "... a detached HS256 JWS of the kubeconfig keyed by the full token" \
    signature_ok abcdef 0123456789abcdef
req POST $SECRETS "$(token_secret nosign 0123456789abcdef)"
req POST $SECRETS "$(token_secret second 0123456789abcdee "$(signing)")"
check "a second signing token is signed for too, a token without the usage is not" \
    wait_keys "jws-kubeconfig-abcdef jws-kubeconfig-second"
check "... its signature uses its own secret" signature_ok second 0123456789abcdee
req POST $SECRETS "$(token_secret soon00 0123456789abcdef \
    "$(signing "\"expiration\":\"$(b64 "$(date -u -d '+8 seconds' +%Y-%m-%dT%H:%M:%SZ)")\"")")"
check "a token expiring in seconds is signed for while valid" \
    wait_keys "jws-kubeconfig-abcdef jws-kubeconfig-second jws-kubeconfig-soon00"
check "... its signature goes once it expires" \
    wait_keys "jws-kubeconfig-abcdef jws-kubeconfig-second"
check "... and the tokencleaner deletes its Secret" \
    wait_code $SECRETS/bootstrap-token-soon00 404
req POST $SECRETS "$(token_secret old000 0123456789abcdef \
    "$(signing "\"expiration\":\"$(b64 2020-01-01T00:00:00Z)\"")")"
check "an expired token's Secret can be created" code_is 201
check "... the tokencleaner deletes it" wait_code $SECRETS/bootstrap-token-old000 404
req POST $SECRETS "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"opaque\"},\
\"data\":{\"expiration\":\"$(b64 2020-01-01T00:00:00Z)\"}}"
req DELETE $SECRETS/bootstrap-token-second
check "a deleted token's signature goes" wait_keys "jws-kubeconfig-abcdef"
req GET $SECRETS/opaque
check "a Secret of another type with a past expiration is left alone" code_is 200
req GET $SECRETS/bootstrap-token-nosign
check "a token without expiration is left alone" code_is 200
check "kgate exits cleanly" clean_exit

check "by default (--controllers=*) neither runs" api_start ctloff --enable-bootstrap-token-auth
req POST $SECRETS "$(token_secret old000 0123456789abcdef \
    "\"expiration\":\"$(b64 2020-01-01T00:00:00Z)\"")"
check "an expired token's Secret is created" code_is 201
check "... no bootstrap token controller was started" \
    bash -c "! grep -q 'bootstrap token controllers' '$KGATE_LOG'"
req GET $SECRETS/bootstrap-token-old000
check "... and the Secret stays" code_is 200
check "kgate exits cleanly" clean_exit

check "without the flag bootstrap tokens are not read" api_start noboot --anonymous-auth=false
req POST $SECRETS "$(token_secret abcdef 0123456789abcdef)"
refused "a valid token without --enable-bootstrap-token-auth" abcdef.0123456789abcdef
check "kgate exits cleanly" clean_exit
tap_end
