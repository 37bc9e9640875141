#!/usr/bin/env bash
# The cache of accepted bearer tokens, as kube-apiserver's (TokenSuccessCacheTTL 10 s,
# TokenFailureCacheTTL 0): a service account token keeps authenticating, as the same user, for
# 10 s after it was last checked even once its ServiceAccount is deleted, and is refused after
# that (a use inside the 10 s does not extend them); a TokenReview of it answers from the same
# cache; a refused bootstrap token is not remembered, so it authenticates as soon as its Secret
# exists, and then outlives its deleted Secret by the same 10 s.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require authn_token_cache

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
ISSUER=https://kgate.example
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/sa.key" 2>/dev/null
SECRETS=/api/v1/namespaces/kube-system/secrets
REVIEW=/apis/authentication.k8s.io/v1/selfsubjectreviews

check "kgate starts with a service account issuer and bootstrap tokens" api_start cache \
    --service-account-issuer="$ISSUER" --service-account-signing-key-file="$PKI/sa.key" \
    --service-account-key-file="$PKI/sa.key" --enable-bootstrap-token-auth

# whoami TOKEN: a SelfSubjectReview with that bearer token; sets CODE and OUT.
whoami() {
    OUT=$KGATE_TEST_TMP/body HDR=$KGATE_TEST_TMP/headers
    CODE=$(kcurl -o "$OUT" -D "$HDR" -w '%{http_code}' -X POST -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' \
        --data '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
        "$KGATE_URL$REVIEW")
}
# Times come from $EPOCHREALTIME, read when a request is sent or answered, so that a loaded
# machine's slow helpers do not count.
# elapsed FROM TO: seconds between two $EPOCHREALTIME readings.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# between LOW HIGH VALUE: LOW <= VALUE <= HIGH.
between() {
    awk -v lo="$1" -v hi="$2" -v v="$3" 'BEGIN { exit !(lo <= v && v <= hi) }' && return 0
    diag "$3 s is not within [$1, $2]"
    return 1
}
# until_refused TOKEN: use TOKEN every 0.2 s (up to 25 s) until it is refused; sets REFUSED_AT.
# Were a use to extend the 10 s, this would never end.
until_refused() {
    REFUSED_AT=
    for _ in $(seq 125); do
        whoami "$1"
        [[ $CODE == 401 ]] && { REFUSED_AT=$EPOCHREALTIME; return 0; }
        [[ $CODE == 201 ]] || { diag "got $CODE"; return 1; }
        sleep 0.2
    done
    return 1
}

# ---- a service account token whose account goes ----
req POST "$CORE/serviceaccounts" '{"metadata":{"name":"robot"}}'
check "a ServiceAccount is created" code_is 201
req POST "$CORE/serviceaccounts/robot/token" '{"spec":{}}'
check "... and a token for it" code_is 201
TOKEN=$(jget "d['status']['token']")

T0=$EPOCHREALTIME
whoami "$TOKEN"
cp "$OUT" "$KGATE_TEST_TMP/first.json"
check "the token authenticates" code_is 201
# within the 10 s: the account deleted, then three requests with the token (checked after)
req DELETE "$CORE/serviceaccounts/robot"
DELETE_CODE=$CODE
whoami "$TOKEN"
cp "$OUT" "$KGATE_TEST_TMP/again.json"
AGAIN_CODE=$CODE
GET_CODE=$(http_code "$CORE/configmaps" -H "Authorization: Bearer $TOKEN")
req POST /apis/authentication.k8s.io/v1/tokenreviews \
    "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":{\"token\":\"$TOKEN\"}}"
T1=$EPOCHREALTIME
cp "$OUT" "$KGATE_TEST_TMP/review.json"
check "... as the service account" jpy "d['status']['userInfo']['username'] == \
'system:serviceaccount:default:robot'" "$KGATE_TEST_TMP/first.json"
check "the ServiceAccount is deleted" test "$DELETE_CODE" = 200
check "at once the token still authenticates: kube caches accepted tokens for 10 s" \
    test "$AGAIN_CODE" = 201
check "... as the same user, extra and all" jpy "d['status']['userInfo'] == \
json.load(open('$KGATE_TEST_TMP/first.json'))['status']['userInfo']" "$KGATE_TEST_TMP/again.json"
check "... for any request" test "$GET_CODE" = 200
check "a TokenReview of it answers from the same cache: authenticated" \
    jpy "d['status']['authenticated'] is True and \
d['status']['user']['username'] == 'system:serviceaccount:default:robot'" "$KGATE_TEST_TMP/review.json"
check "... all within the 10 s ($(elapsed "$T0" "$T1") s)" between 0 9.5 "$(elapsed "$T0" "$T1")"
check "the token is refused once the 10 s are over, however often it is used" \
    until_refused "$TOKEN"
GONE=$(elapsed "$T0" "${REFUSED_AT:-$T0}")
check "... 10 s after it was checked ($GONE s)" between 9.8 25 "$GONE"
fetch "$CORE/configmaps" -H "Authorization: Bearer $TOKEN"
check "... for every request" is_status 401 Unauthorized Unauthorized

# ---- refusals are not remembered ----
b64() { printf '%s' "$1" | base64 -w0; }
BOOT=abcdef.0123456789abcdef
whoami "$BOOT"
check "a bootstrap token without its Secret is refused" code_is 401
req POST $SECRETS "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\
\"bootstrap-token-abcdef\"},\"type\":\"bootstrap.kubernetes.io/token\",\"data\":{\"token-id\":\
\"$(b64 abcdef)\",\"token-secret\":\"$(b64 0123456789abcdef)\",\
\"usage-bootstrap-authentication\":\"$(b64 true)\"}}"
check "its Secret is created" code_is 201
T0=$EPOCHREALTIME
whoami "$BOOT"
check "at once the token authenticates: the refusal was not cached" code_is 201
check "... as system:bootstrap:abcdef" jpy "d['status']['userInfo']['username'] == \
'system:bootstrap:abcdef'"
req DELETE $SECRETS/bootstrap-token-abcdef
whoami "$BOOT"
T1=$EPOCHREALTIME
check "its Secret deleted, the token still authenticates" code_is 201
check "... (within the 10 s: $(elapsed "$T0" "$T1") s)" between 0 9.5 "$(elapsed "$T0" "$T1")"
check "... and is refused after them" until_refused "$BOOT"
GONE=$(elapsed "$T0" "${REFUSED_AT:-$T0}")
check "... 10 s after it was checked ($GONE s)" between 9.8 25 "$GONE"
check "kgate exits cleanly" clean_exit
tap_end
