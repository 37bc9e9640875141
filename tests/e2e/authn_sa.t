#!/usr/bin/env bash
# Service account tokens end to end, as kube-apiserver issues and checks them: `kubectl create
# token` and `kubectl auth whoami` with the token; TokenRequest defaults, validation, the
# maximum expiration, bound secrets and pods; legacy Secret-based tokens; the issuer's OpenID
# documents; the serviceaccount and root-ca-cert-publisher controllers; and every bad credential
# refused with 401 (expired, not yet valid, another key, unknown kid, another issuer, another
# audience, tampered payload, alg none, malformed header, deleted account).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require authn_sa

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
ISSUER=https://kgate.example
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/sa.key" 2>/dev/null
openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/rogue.key" 2>/dev/null

check "kgate starts with a service account issuer" api_start sa \
    --service-account-issuer="$ISSUER" --service-account-signing-key-file="$PKI/sa.key" \
    --service-account-key-file="$PKI/sa.pub" --service-account-max-token-expiration=48h
KC=$KGATE_TEST_TMP/kubeconfig
kubeconfig "$KC"
export KUBECONFIG=$KC

# as (token) PATH: the status code of a GET with a bearer token.
as() { http_code "$2" -H "Authorization: Bearer $1"; }

# token_of: status.token of the TokenRequest in $OUT.
token_of() { jget "d['status']['token']"; }

# refused_after_cache TOKEN: TOKEN is refused (401) within 15 s. kube-apiserver caches an
# accepted token for 10 s (TokenSuccessCacheTTL), so one checked shortly before its account,
# Secret or bound object went is accepted until then; this polls through them.
refused_after_cache() {
    for _ in $(seq 75); do
        [[ $(as "$1" "$CORE") == 401 ]] && return 0
        sleep 0.2
    done
    return 1
}

# ---- the serviceaccount and root-ca-cert-publisher controllers ----
# until_code CODE METHOD PATH: repeat a request (up to 30 s) until it answers CODE.
until_code() {
    local want=$1; shift
    for _ in $(seq 150); do
        req "$@"
        [[ $CODE == "$want" ]] && return 0
        sleep 0.2
    done
    diag "got $CODE: $(head -c 300 "$OUT")"
    return 1
}
# same_pem FILE: ca.crt of the ConfigMap in $OUT holds the certificates of FILE.
same_pem() {
    python3 - "$OUT" "$1" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
norm = lambda t: ''.join(t.split())
sys.exit(0 if norm(d['data']['ca.crt']) == norm(open(sys.argv[2]).read()) else 1)
EOF2
}
check "the default namespace gets a default ServiceAccount" \
    until_code 200 GET "$CORE/serviceaccounts/default"
check "... and kube-root-ca.crt" until_code 200 GET "$CORE/configmaps/kube-root-ca.crt"
check "... holding the client CA bundle as ca.crt" same_pem "$PKI/ca.crt"
check "... with kube's description" jpy "d['metadata']['annotations']['kubernetes.io/description'].startswith('Contains a CA bundle')"
req POST /api/v1/namespaces '{"metadata":{"name":"team"}}'
check "a new namespace gets its default ServiceAccount" \
    until_code 200 GET /api/v1/namespaces/team/serviceaccounts/default
OLD_UID=$(jget "d['metadata']['uid']")
check "... and its kube-root-ca.crt" until_code 200 GET /api/v1/namespaces/team/configmaps/kube-root-ca.crt
req DELETE /api/v1/namespaces/team/serviceaccounts/default
check "a deleted default ServiceAccount comes back" \
    until_code 200 GET /api/v1/namespaces/team/serviceaccounts/default
check "... as a new object" jpy "d['metadata']['uid'] != '$OLD_UID'"
req PUT /api/v1/namespaces/team/configmaps/kube-root-ca.crt \
    '{"metadata":{"name":"kube-root-ca.crt"},"data":{"ca.crt":"forged"}}'
check "kube-root-ca.crt can be overwritten by hand" code_is 200
restored() {
    for _ in $(seq 150); do
        req GET /api/v1/namespaces/team/configmaps/kube-root-ca.crt
        same_pem "$PKI/ca.crt" && return 0
        sleep 0.2
    done
    return 1
}
check "... and is put back" restored

req POST "$CORE/serviceaccounts" '{"metadata":{"name":"robot"}}'
check "a ServiceAccount is created" code_is 201
SA_UID=$(jget "d['metadata']['uid']")

# ---- TokenRequest ----
req POST "$CORE/serviceaccounts/robot/token" '{"spec":{}}'
check "TokenRequest: 201" code_is 201
check "... a TokenRequest of authentication.k8s.io/v1" \
    jpy "d['kind'] == 'TokenRequest' and d['apiVersion'] == 'authentication.k8s.io/v1'"
check "... audiences default to the issuer" jpy "d['spec']['audiences'] == ['$ISSUER']"
check "... expirationSeconds defaults to 3600" jpy "d['spec']['expirationSeconds'] == 3600"
check "... named after the account" \
    jpy "d['metadata']['name'] == 'robot' and d['metadata']['namespace'] == 'default'"
check "... expirationTimestamp an hour away" python3 - "$OUT" <<'EOF'
import json, sys, time, calendar
d = json.load(open(sys.argv[1]))
t = calendar.timegm(time.strptime(d['status']['expirationTimestamp'], '%Y-%m-%dT%H:%M:%SZ'))
sys.exit(0 if abs(t - time.time() - 3600) < 60 else 1)
EOF
TOKEN=$(token_of)
CLAIMS=$KGATE_TEST_TMP/claims.json
python3 - "$TOKEN" >"$CLAIMS" <<'EOF'
import base64, json, sys
h, p, s = sys.argv[1].split('.')
dec = lambda x: json.loads(base64.urlsafe_b64decode(x + '=' * (-len(x) % 4)))
print(json.dumps({'header': dec(h), 'claims': dec(p)}))
EOF
check "... claims: iss, sub, aud" jpy "d['claims']['iss'] == '$ISSUER' and \
d['claims']['sub'] == 'system:serviceaccount:default:robot' and d['claims']['aud'] == ['$ISSUER']" \
    "$CLAIMS"
check "... kubernetes.io names the account and its uid" \
    jpy "d['claims']['kubernetes.io'] == {'namespace': 'default', \
'serviceaccount': {'name': 'robot', 'uid': '$SA_UID'}}" "$CLAIMS"
check "... exp = iat + 3600, nbf = iat, a jti" jpy "d['claims']['exp'] - d['claims']['iat'] == 3600 \
and d['claims']['nbf'] == d['claims']['iat'] and len(d['claims']['jti']) == 36" "$CLAIMS"
check "... header: RS256 and a kid" jpy "d['header']['alg'] == 'RS256' and len(d['header']['kid']) == 43" \
    "$CLAIMS"
check "the token authenticates" test "$(as "$TOKEN" "$CORE")" = 200

req POST "$CORE/serviceaccounts/robot/token" '{"spec":{"expirationSeconds":60}}'
check "expirationSeconds under 10 minutes: 422" code_is 422
check "... with kube's message" is_status 422 Invalid \
    'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes'
req POST "$CORE/serviceaccounts/robot/token" '{"spec":{"expirationSeconds":200000}}'
check "over --service-account-max-token-expiration: shortened" \
    jpy "d['spec']['expirationSeconds'] == 172800"
check "... with a warning" bash -c "grep -qi 'requested expiration of 200000 seconds shortened to 172800 seconds' '$HDR'"
req POST "$CORE/serviceaccounts/ghost/token" '{"spec":{}}'
check "a missing ServiceAccount: 404" is_status 404 NotFound 'serviceaccounts "ghost" not found'
req POST "$CORE/serviceaccounts/robot/token" '{"metadata":{"name":"other"},"spec":{}}'
check "a body naming another account: 422" code_is 422
req POST "$CORE/serviceaccounts/robot/token" '{"spec":{"audiences":["vault"]}}'
VAULT_TOKEN=$(token_of)
check "a token for another audience is refused" test "$(as "$VAULT_TOKEN" "$CORE")" = 401

# ---- bound objects ----
req POST "$CORE/secrets" '{"metadata":{"name":"s1"}}'
SECRET_UID=$(jget "d['metadata']['uid']")
req POST "$CORE/serviceaccounts/robot/token" \
    "{\"spec\":{\"boundObjectRef\":{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"name\":\"s1\",\"uid\":\"$SECRET_UID\"}}}"
check "a token bound to a Secret" code_is 201
BOUND=$(token_of)
check "... works while the secret exists" test "$(as "$BOUND" "$CORE")" = 200
req POST "$CORE/serviceaccounts/robot/token" \
    '{"spec":{"boundObjectRef":{"kind":"Secret","apiVersion":"v1","name":"s1","uid":"nope"}}}'
check "a reference with another uid: 409" code_is 409
req POST "$CORE/serviceaccounts/robot/token" \
    '{"spec":{"boundObjectRef":{"kind":"Secret","apiVersion":"v1","name":"s2"}}}'
check "a missing bound secret: 404" is_status 404 NotFound 'secrets "s2" not found'
req POST "$CORE/serviceaccounts/robot/token" \
    '{"spec":{"boundObjectRef":{"kind":"ConfigMap","apiVersion":"v1","name":"c"}}}'
check "a ConfigMap cannot be bound: 400" is_status 400 BadRequest \
    'cannot bind token to object of type /v1, Kind=ConfigMap'
req POST "$CORE/pods" '{"metadata":{"name":"p1"},"spec":{"serviceAccountName":"default","containers":[{"name":"c","image":"busybox"}]}}'
req POST "$CORE/serviceaccounts/robot/token" \
    '{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"p1"}}}'
check "a pod running as another account: 400" is_status 400 BadRequest \
    'cannot bind token for serviceaccount "robot" to pod running with serviceaccount "default"'
req DELETE "$CORE/secrets/s1"
check "the bound secret deleted: its token is refused (once kube's 10 s token cache is over)" \
    refused_after_cache "$BOUND"

# ---- kubectl ----
if kubectl_ok; then
    KT=$(kubectl create token robot 2>&1)
    check "kubectl create token" test -n "$KT"
    W=$(kubectl --kubeconfig=/dev/null --server="$KGATE_URL" --certificate-authority="$PKI/ca.crt" \
        --token="$KT" auth whoami -o json 2>&1)
    echo "$W" >"$KGATE_TEST_TMP/whoami.json"
    check "kubectl auth whoami with the token names the service account" \
        jpy "d['status']['userInfo']['username'] == 'system:serviceaccount:default:robot' and \
d['status']['userInfo']['uid'] == '$SA_UID' and \
d['status']['userInfo']['groups'] == ['system:serviceaccounts', 'system:serviceaccounts:default', \
'system:authenticated'] and d['status']['userInfo']['extra']['authentication.kubernetes.io/credential-id'][0].startswith('JTI=')" \
        "$KGATE_TEST_TMP/whoami.json"
else
    check "kubectl create token # SKIP kubectl 1.32 missing" true
    check "kubectl auth whoami # SKIP kubectl 1.32 missing" true
fi

# ---- the issuer's documents ----
fetch /.well-known/openid-configuration "${ADMIN[@]}" # anonymous is off under AlwaysAllow
check "openid-configuration: 200" test "$CODE" = 200
check "... issuer, jwks_uri and kube's fields" jpy "d == {'issuer': '$ISSUER', \
'jwks_uri': '$ISSUER/openid/v1/jwks', 'response_types_supported': ['id_token'], \
'subject_types_supported': ['public'], 'id_token_signing_alg_values_supported': ['RS256']}"
fetch /openid/v1/jwks "${ADMIN[@]}"
check "jwks: 200 as application/jwk-set+json" test "$CODE/$(header Content-Type)" = "200/application/jwk-set+json"
KID=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['header']['kid'])" "$CLAIMS")
check "... the signing key, by the tokens' kid" jpy "[k['kid'] for k in d['keys']] == ['$KID'] and \
d['keys'][0]['kty'] == 'RSA' and d['keys'][0]['use'] == 'sig' and 'd' not in d['keys'][0]"

# ---- forged and damaged tokens ----
# forge KEY CLAIMS-PYTHON-EXPR [HEADER-JSON]: a token signed with KEY (openssl), claims from a
# Python expression over now (seconds) and the good token's claims c.
forge() {
    local key=$1 expr=$2 header=${3:-"{\"alg\":\"RS256\",\"kid\":\"$KID\"}"}
    local input
    input=$(python3 - "$CLAIMS" "$expr" "$header" <<'EOF'
import base64, json, sys, time
c = json.load(open(sys.argv[1]))['claims']
now = int(time.time())
enc = lambda b: base64.urlsafe_b64encode(b).rstrip(b'=').decode()
claims = eval(sys.argv[2])
print(enc(sys.argv[3].encode()) + '.' + enc(json.dumps(claims).encode()))
EOF
)
    local sig
    sig=$(printf '%s' "$input" | openssl dgst -sha256 -sign "$key" -binary | basenc --base64url | tr -d '=\n')
    printf '%s.%s' "$input" "$sig"
}
GOOD=$(forge "$PKI/sa.key" "dict(c, iat=now, nbf=now, exp=now + 600)")
check "a token forged with the signing key is accepted (the forging works)" \
    test "$(as "$GOOD" "$CORE")" = 200
check "expired" test "$(as "$(forge "$PKI/sa.key" "dict(c, iat=now-7200, nbf=now-7200, exp=now-300)")" "$CORE")" = 401
check "not yet valid" test "$(as "$(forge "$PKI/sa.key" "dict(c, iat=now, nbf=now+3600, exp=now+7200)")" "$CORE")" = 401
check "signed by another key" test "$(as "$(forge "$PKI/rogue.key" "dict(c, exp=now+600)")" "$CORE")" = 401
check "unknown kid, another key" test "$(as "$(forge "$PKI/rogue.key" "dict(c, exp=now+600)" '{"alg":"RS256","kid":"rogue"}')" "$CORE")" = 401
check "another issuer" test "$(as "$(forge "$PKI/sa.key" "dict(c, iss='https://evil.example', exp=now+600)")" "$CORE")" = 401
check "another audience" test "$(as "$(forge "$PKI/sa.key" "dict(c, aud=['https://evil.example'], exp=now+600)")" "$CORE")" = 401
TAMPERED=$(python3 - "$TOKEN" <<'EOF'
import base64, json, sys
h, p, s = sys.argv[1].split('.')
c = json.loads(base64.urlsafe_b64decode(p + '=' * (-len(p) % 4)))
c['sub'] = 'system:serviceaccount:kube-system:admin'
c['kubernetes.io']['namespace'] = 'kube-system'
print(h + '.' + base64.urlsafe_b64encode(json.dumps(c).encode()).rstrip(b'=').decode() + '.' + s)
EOF
)
check "tampered payload" test "$(as "$TAMPERED" "$CORE")" = 401
NONE="$(printf '{"alg":"none"}' | basenc --base64url | tr -d '=\n').$(cut -d. -f2 <<<"$TOKEN")."
check "alg none" test "$(as "$NONE" "$CORE")" = 401
check "malformed header" test "$(as "eyJhbGciOi.$(cut -d. -f2- <<<"$TOKEN")" "$CORE")" = 401
fetch "$CORE" -H "Authorization: Bearer $NONE"
check "... the 401 says only Unauthorized" is_status 401 Unauthorized Unauthorized

# ---- legacy Secret-based tokens (signed elsewhere with the same key, e.g. a migrated cluster) ----
LEGACY=$(forge "$PKI/sa.key" "{'iss': 'kubernetes/serviceaccount', \
'sub': 'system:serviceaccount:default:robot', \
'kubernetes.io/serviceaccount/namespace': 'default', \
'kubernetes.io/serviceaccount/secret.name': 'robot-legacy', \
'kubernetes.io/serviceaccount/service-account.name': 'robot', \
'kubernetes.io/serviceaccount/service-account.uid': '$SA_UID'}" '{"alg":"RS256"}')
check "a legacy token without its Secret is refused" test "$(as "$LEGACY" "$CORE")" = 401
req POST "$CORE/secrets" "{\"metadata\":{\"name\":\"robot-legacy\",\
\"annotations\":{\"kubernetes.io/service-account.name\":\"robot\"}},\
\"type\":\"kubernetes.io/service-account-token\",\
\"data\":{\"token\":\"$(printf %s "$LEGACY" | base64 -w0)\"}}"
check "its Secret is created" code_is 201
check "a legacy token held by its Secret authenticates" test "$(as "$LEGACY" "$CORE")" = 200
req DELETE "$CORE/secrets/robot-legacy"
check "... and is refused once the Secret is deleted (and the 10 s token cache over)" \
    refused_after_cache "$LEGACY"

req DELETE "$CORE/serviceaccounts/robot"
check "the account deleted: its token is refused (once the 10 s token cache is over)" \
    refused_after_cache "$TOKEN"
req POST "$CORE/serviceaccounts" '{"metadata":{"name":"robot"}}'
check "... and stays refused when the name is reused (another uid)" \
    test "$(as "$TOKEN" "$CORE")" = 401

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

# without an issuer nothing is issued or served
check "kgate starts without an issuer" api_start plain
req POST "$CORE/serviceaccounts/default/token" '{"spec":{}}'
check "no TokenRequest without an issuer: 404" code_is 404
check "no openid-configuration: 404" test "$(http_code /.well-known/openid-configuration "${ADMIN[@]}")" = 404
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
# start-up refusals of the service account flags, as kube-apiserver words them
ERR=$KGATE_TEST_TMP/stderr
refused() {
    local pattern=$1 desc=$2; shift 2
    timeout 30 "$KGATE" --bind-address=127.0.0.1 --secure-port="$(free_port)" \
        --etcd-servers="$KGATE_TEST_ETCD" --tls-cert-file="$PKI/server.crt" \
        --tls-private-key-file="$PKI/server.key" "$@" >/dev/null 2>"$ERR"
    local rc=$?
    check "$desc: exit 2 (got $rc)" test "$rc" = 2
    check "$desc: saying why" grep -qxF "kgate: $pattern" "$ERR" || diag "$(cat "$ERR")"
}
refused "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds" \
    "a maximum under an hour" --service-account-issuer="$ISSUER" \
    --service-account-max-token-expiration=30m
refused 'service-account-issuer "a" is already specified' "a repeated issuer" \
    --service-account-issuer=a --service-account-issuer=a
refused "service-account-issuer is a required flag" "a signing key without an issuer" \
    --service-account-signing-key-file="$PKI/sa.key"
tap_end
