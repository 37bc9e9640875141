#!/usr/bin/env bash
# TokenReview (POST /apis/authentication.k8s.io/v1/tokenreviews), as kube-apiserver's
# tokenreview REST: the user a token belongs to (static tokens at once, bootstrap tokens
# after their Secret is read), the audiences it was reviewed for (API audiences only here),
# unauthenticated with an error for a bad token, 400 without a token, the request's object
# echoed back.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require authn_review

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
TR=/apis/authentication.k8s.io/v1/tokenreviews
b64() { printf '%s' "$1" | base64 -w0; }
review() { echo "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":$1}"; }

check "kgate starts" api_start review --enable-bootstrap-token-auth \
    --api-audiences=api,other --service-account-issuer=https://kgate.example
req POST $TR "$(review '{"token":"alice-token"}')"
check "a static token's review: 201" code_is 201
check "... authenticated as alice with her uid and groups" jpy "d['status'] == {'authenticated': \
True, 'user': {'username': 'alice', 'uid': '1001', 'groups': ['dev', 'ops', \
'system:authenticated']}, 'audiences': ['api', 'other']}"
check "... the object echoed back, kind and spec included" jpy "d['kind'] == 'TokenReview' and \
d['apiVersion'] == 'authentication.k8s.io/v1' and d['spec'] == {'token': 'alice-token'} and \
d['metadata'] == {'creationTimestamp': None}"
req POST $TR "$(review '{"token":"alice-token","audiences":["other","mine"]}')"
check "the API audiences among spec.audiences are the ones reported" \
    jpy "d['status']['authenticated'] and d['status']['audiences'] == ['other']"
req POST $TR "$(review '{"token":"alice-token","audiences":["mine"]}')"
check "no API audience among spec.audiences: not authenticated" \
    jpy "d['status'] == {'user': {}, 'error': 'invalid bearer token'}"
req POST $TR "$(review '{"token":"nope"}')"
check "an unknown token: 201, not authenticated" jpy "d['status'] == {'user': {}, 'error': \
'invalid bearer token'}"
req POST /api/v1/namespaces/kube-system/secrets "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\
\"metadata\":{\"name\":\"bootstrap-token-abcdef\"},\"type\":\"bootstrap.kubernetes.io/token\",\
\"data\":{\"token-id\":\"$(b64 abcdef)\",\"token-secret\":\"$(b64 0123456789abcdef)\",\
\"usage-bootstrap-authentication\":\"$(b64 true)\"}}"
check "a bootstrap token Secret" code_is 201
req POST $TR "$(review '{"token":"abcdef.0123456789abcdef"}')"
check "a bootstrap token's review reads its Secret first" jpy "d['status']['authenticated'] and \
d['status']['user'] == {'username': 'system:bootstrap:abcdef', 'groups': \
['system:bootstrappers', 'system:authenticated']}"
req POST $TR "$(review '{"token":"abcdef.0123456789abcdee"}')"
check "... and a wrong secret is not authenticated" jpy "'authenticated' not in d['status'] \
and d['status']['error'] == 'invalid bearer token'"
req POST $TR "$(review '{}')"
check "no token: 400" code_is 400
check "... in kube's words" is_status 400 BadRequest \
    'token is required for TokenReview in authentication'
req POST $TR "$(review '{"token":""}')"
check "an empty token: 400" code_is 400
OUT=$KGATE_TEST_TMP/body
CODE=$(kcurl -o "$OUT" -w '%{http_code}' -X POST -H "Content-Type: application/json" \
    "${ALICE[@]}" --data "$(review '{"token":"bob-token"}')" "$KGATE_URL$TR")
check "a token user may review another token (AlwaysAllow)" jpy \
    "d['status']['user']['username'] == 'bob'"
check "kgate exits cleanly" clean_exit

check "kgate starts with AlwaysDeny" api_start reviewdeny --authorization-mode=AlwaysDeny
CODE=$(kcurl -o "$OUT" -w '%{http_code}' -X POST -H "Content-Type: application/json" \
    "${ALICE[@]}" --data "$(review '{"token":"bob-token"}')" "$KGATE_URL$TR")
check "reviewing tokens is authorized like any create" is_status 403 Forbidden \
    'tokenreviews.authentication.k8s.io is forbidden: User "alice" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope: Everything is forbidden.'
check "kgate exits cleanly" clean_exit
tap_end
