#!/usr/bin/env bash
# OIDC (--oidc-* flags) and JWT authenticators (--authentication-config) against a loopback
# HTTPS identity provider (tests/e2e/idp.py) whose keys are made here with openssl and whose
# ID tokens are signed here with openssl dgst: discovery and keys fetched and cached, keys
# rotated, every way a token can be bad refused with a bare 401, kube's prefix and email
# rules, required claims, CEL claim mappings, the configuration file reloaded when it
# changes, and the start-up errors.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/idp_lib.sh
e2e_require authn_oidc

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
idp_start "$KGATE_TEST_TMP/idp"
K1=$KGATE_TEST_TMP/k1.pem K2=$KGATE_TEST_TMP/k2.pem EVIL=$KGATE_TEST_TMP/evil.pem
rsa_key "$K1"
rsa_key "$K2"
rsa_key "$EVIL"
set_keys "$(jwk "$K1" one)"
NOW=$(date +%s)

# claims [JSON MEMBERS]: good claims for issuer $IDP_URL and audience kgate, with MEMBERS
# replacing or adding some (each name once: token parsers refuse repeated members).
claims() {
    python3 - "$IDP_URL" "$NOW" "${1:-}" <<'PY'
import json, sys
iss, now, more = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = {"iss": iss, "sub": "alice", "aud": "kgate", "iat": now, "exp": now + 600,
     "groups": ["dev", "ops"], "tier": "gold"}
d.update(json.loads("{" + more + "}"))
print(json.dumps(d, separators=(",", ":")))
PY
}
good() { mint "$K1" one "$(claims "$@")"; }

check "kgate starts with the --oidc-* flags" api_start oidc --anonymous-auth=false \
    --oidc-issuer-url="$IDP_URL" --oidc-client-id=kgate --oidc-ca-file="$PKI/ca.crt" \
    --oidc-groups-claim=groups --oidc-groups-prefix=oidc: --oidc-required-claim=tier=gold
whoami "$(good)"
check "a valid ID token authenticates" code_is 201
check "... as <issuer>#sub, groups prefixed" user_is "{'username': '$IDP_URL#alice', \
'groups': ['oidc:dev', 'oidc:ops', 'system:authenticated']}"
check "... after fetching the discovery document and the keys once" \
    test "$(hits well-known)/$(hits 'GET /keys')" = 1/1
whoami "$(good '"sub":"bob"')"
check "the keys are cached" test "$(code_is 201 && hits 'GET /keys')" = 1
check "kubectl reads its token from a kubeconfig" kubectl_ok
if kubectl_ok; then
    kubectl --server="$KGATE_URL" --certificate-authority="$PKI/ca.crt" --token="$(good)" \
        auth whoami -o json >"$KGATE_TEST_TMP/whoami.json" 2>"$KGATE_TEST_TMP/kubectl.err"
    check "kubectl auth whoami with an ID token" \
        jpy "d['status']['userInfo']['username'] == '$IDP_URL#alice'" "$KGATE_TEST_TMP/whoami.json"
fi

refused "an expired token" "$(good "\"exp\":$((NOW - 120))")"
refused "a token not yet valid" "$(good "\"nbf\":$((NOW + 600))")"
refused "a token without exp" "$(mint "$K1" one "{\"iss\":\"$IDP_URL\",\"sub\":\"a\",\"aud\":\"kgate\",\"tier\":\"gold\"}")"
refused "a wrong signature" "$(mint "$EVIL" one "$(claims)")"
refused "another issuer" "$(good '"iss":"https://elsewhere.example"')"
refused "another audience" "$(good '"aud":"other"')"
T=$(good) F=$(good '"sub":"mallory"')
refused "a tampered payload" "${T%%.*}.$(cut -d. -f2 <<<"$F").${T##*.}"
refused "alg none" "$(printf '%s' '{"alg":"none"}' | b64url).$(claims | b64url)."
refused "a malformed header" "$(printf '%s' '{"alg":' | b64url).$(claims | b64url).c2ln"
refused "a required claim missing" "$(mint "$K1" one "{\"iss\":\"$IDP_URL\",\"sub\":\"a\",\
\"aud\":\"kgate\",\"exp\":$((NOW + 600))}")"
refused "a required claim with another value" "$(good '"tier":"silver"')"
sleep 5.2
K=$(hits 'GET /keys')
refused "an unknown key id" "$(mint "$K1" nine "$(claims)")"
check "... after fetching the keys again" test "$(hits 'GET /keys')" = $((K + 1))

req POST /apis/authentication.k8s.io/v1/tokenreviews "{\"apiVersion\":\"authentication.k8s.io/v1\",\
\"kind\":\"TokenReview\",\"spec\":{\"token\":\"$(good)\"}}"
check "a TokenReview of an ID token" code_is 201
check "... says who it is" jpy "d['status']['authenticated'] is True and \
d['status']['user']['username'] == '$IDP_URL#alice'"
req POST /apis/authentication.k8s.io/v1/tokenreviews "{\"apiVersion\":\"authentication.k8s.io/v1\",\
\"kind\":\"TokenReview\",\"spec\":{\"token\":\"$(good '"aud":"other"')\"}}"
check "a TokenReview of an ID token for another audience: not authenticated" \
    jpy "d['status'].get('authenticated') is not True"

set_keys "$(jwk "$K1" one)" "$(jwk "$K2" two)"
sleep 5.2
whoami "$(mint "$K2" two "$(claims)")"
check "a rotated-in key is fetched and accepted" code_is 201
check "kgate exits cleanly" clean_exit

check "kgate starts with --oidc-username-claim=email" api_start email --anonymous-auth=false \
    --oidc-issuer-url="$IDP_URL" --oidc-client-id=kgate --oidc-ca-file="$PKI/ca.crt" \
    --oidc-username-claim=email
whoami "$(good '"email":"al@example.com","email_verified":true')"
check "a verified email is the username, without prefix" \
    user_is "{'username': 'al@example.com', 'groups': ['system:authenticated']}"
refused "an email not verified" "$(good '"email":"al@example.com","email_verified":false')"
check "kgate exits cleanly" clean_exit

check "kgate starts with --oidc-username-prefix=-" api_start noprefix --anonymous-auth=false \
    --oidc-issuer-url="$IDP_URL" --oidc-client-id=kgate --oidc-ca-file="$PKI/ca.crt" \
    --oidc-username-prefix=-
whoami "$(good)"
check "'-' means no prefix" user_is "{'username': 'alice', 'groups': ['system:authenticated']}"
check "kgate exits cleanly" clean_exit

# ---- AuthenticationConfiguration --------------------------------------------------------------
AUTH=$KGATE_TEST_TMP/auth.yaml
# auth_config USERNAME-MAPPING: the file with one JWT authenticator for the provider.
auth_config() {
    cat >"$AUTH.tmp" <<YAML
apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: $IDP_URL
    audiences: [kgate, other]
    audienceMatchPolicy: MatchAny
    certificateAuthority: |
$(sed 's/^/      /' "$PKI/ca.crt")
  claimValidationRules:
  - expression: 'claims.tier == "gold"'
    message: gold tier only
  claimMappings:
    username: $1
    groups: {expression: 'claims.groups.map(g, "jwt:" + g)'}
    uid: {claim: sub}
    extra:
    - key: example.com/tier
      valueExpression: claims.tier
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: no system users
YAML
    mv "$AUTH.tmp" "$AUTH"
}
auth_config "{expression: 'claims.sub + \"@idp\"'}"
check "kgate starts with --authentication-config" api_start config --anonymous-auth=false \
    --authentication-config="$AUTH"
whoami "$(good '"aud":["someone","other"]')"
check "a token for any of the audiences authenticates" code_is 201
check "... mapped by the CEL expressions" user_is "{'username': 'alice@idp', 'uid': 'alice', \
'groups': ['jwt:dev', 'jwt:ops', 'system:authenticated'], 'extra': {'example.com/tier': ['gold']}}"
refused "a claim validation rule false" "$(good '"tier":"silver"')"
refused "a user validation rule false" "$(good '"sub":"system:x"')"
refused "an audience not listed" "$(good '"aud":"kgate2"')"
auth_config "{claim: sub, prefix: 'reloaded:'}"
# picked up within 20 s: the file is looked at every 10 s, and the token, accepted under the
# old file, stays in kube's token cache for 10 s
check "the changed file is picked up (within 20 s)" bash -c "for i in \$(seq 30); do
    code=\$(curl -s --max-time 10 --cacert '$PKI/ca.crt' -o '$KGATE_TEST_TMP/r.json' -w '%{http_code}' \
        -X POST -H 'Authorization: Bearer $(good)' -H 'Content-Type: application/json' \
        --data '{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}' \
        '$KGATE_URL/apis/authentication.k8s.io/v1/selfsubjectreviews')
    [[ \$code == 201 ]] && grep -q 'reloaded:alice' '$KGATE_TEST_TMP/r.json' && exit 0
    sleep 1
done; exit 1"
echo "jwt: [" >"$AUTH"
sleep 11
whoami "$(good)"
check "a broken new file keeps the authenticators" code_is 201
check "... and is logged" grep -q 'keeping the authenticators in use' "$KGATE_LOG"
fetch /metrics "${ADMIN[@]}"
reloads=apiserver_authentication_config_controller_automatic_reloads_total
check "the reload is counted as kube counts it, by status and apiserver identity" grep -qE \
    "^$reloads\{apiserver_id_hash=\"sha256:[0-9a-f]{64}\",status=\"success\"\} [1-9]" "$OUT"
check "... the broken file as a failure" grep -qE \
    "^$reloads\{apiserver_id_hash=\"sha256:[0-9a-f]{64}\",status=\"failure\"\} [1-9]" "$OUT"
check "... with the time of the last of each" grep -qE \
    '^apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="failure"\} [0-9]\.[0-9]+e\+09$' "$OUT"
check "kgate exits cleanly" clean_exit

# ---- start-up errors --------------------------------------------------------------------------
auth_config "{expression: 'claims.sub'}"
start_fails "--authentication-config with --oidc-* flags" \
    "authentication-config file and oidc-* flags are mutually exclusive" \
    --authentication-config="$AUTH" --oidc-username-claim=email
start_fails "--oidc-issuer-url without --oidc-client-id" \
    "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set" \
    --oidc-issuer-url="$IDP_URL"
start_fails "--oidc-groups-claim alone" "oidc-issuer-url and oidc-client-id must be specified" \
    --oidc-groups-claim=groups
: >"$KGATE_TEST_TMP/empty.yaml"
start_fails "an empty --authentication-config" "empty config data" \
    --authentication-config="$KGATE_TEST_TMP/empty.yaml"
start_fails "an http issuer" "URL scheme must be https" \
    --oidc-issuer-url=http://127.0.0.1:1 --oidc-client-id=kgate
cat >"$AUTH" <<'YAML'
apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer: {url: "https://a.example", audiences: [a, b]}
  claimMappings: {username: {claim: sub}}
YAML
start_fails "an invalid AuthenticationConfiguration" "[jwt[0].issuer.audienceMatchPolicy: \
Invalid value: \"\": audienceMatchPolicy must be MatchAny for multiple audiences, \
jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. \
It can be set to an empty string to disable prefixing]" --authentication-config="$AUTH"
tap_end
