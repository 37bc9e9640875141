#!/usr/bin/env bash
# The token webhook (--authentication-token-webhook-config-file): bearer tokens no other
# authenticator takes are reviewed by a TokenReview webhook over HTTPS (tests/e2e/idp.py),
# named by a kubeconfig with its CA and bearer token; verdicts, accepted and refused, are
# cached for --authentication-token-webhook-cache-ttl (an accepted one also 10 s in the token
# union's cache, as kube's); failures are 401s that are not cached;
# v1 or v1beta1 reviews; start-up errors for a bad kubeconfig.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/idp_lib.sh
e2e_require authn_webhook

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
idp_start "$KGATE_TEST_TMP/idp"
cat >"$IDP_DIR/reviews.json" <<'JSON'
{"good-token": {"username": "wh-user", "uid": "7", "groups": ["wh"], "extra": {"scopes": ["a", "b"]}}}
JSON

# hook_config FILE [TOKEN]: the webhook's kubeconfig (CA by path, the provider's bearer token).
hook_config() {
    cat >"$1" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: hook
  cluster: {certificate-authority: $PKI/ca.crt, server: "$IDP_URL/review"}
users:
- name: kgate
  user: {token: ${2:-hook-secret}}
contexts:
- name: hook
  context: {cluster: hook, user: kgate}
current-context: hook
YAML
}
HOOK=$KGATE_TEST_TMP/hook.yaml
hook_config "$HOOK"
reviews() { hits "POST /review"; }

check "kgate starts with the webhook" api_start hook --anonymous-auth=false \
    --authentication-token-webhook-config-file="$HOOK" --authentication-token-webhook-cache-ttl=4s
whoami good-token
check "a token the webhook accepts authenticates" code_is 201
check "... as the user it names, with system:authenticated" user_is "{'username': 'wh-user', \
'uid': '7', 'groups': ['wh', 'system:authenticated'], 'extra': {'scopes': ['a', 'b']}}"
check "... asked once, as v1beta1 by default" test "$(reviews)/$(tail -1 "$IDP_DIR/review-versions")" \
    = "1/authentication.k8s.io/v1beta1"
whoami good-token
check "the verdict is cached" test "$(code_is 201 && reviews)" = 1
refused "a token the webhook refuses" bad-token
check "... asked" test "$(reviews)" = 2
refused "the same token again" bad-token
check "... the refusal is cached too" test "$(reviews)" = 2
refused "a token the webhook fails on (500)" boom
refused "the same failing token" boom
check "... failures are not cached" test "$(reviews)" = 4
whoami alice-token
check "the token file still comes first" test "$(code_is 201 && reviews)" = 4
sleep 4.5
refused "after the TTL a refusal is asked again" bad-token
check "... of the webhook" test "$(reviews)" = 5
# an accepted token is also in kube's cache of the token union, for 10 s from its first check
sleep 6
whoami good-token
check "after both TTLs an accepted token goes to the webhook again" \
    test "$(code_is 201 && reviews)" = 6
echo '{}' >"$IDP_DIR/reviews.json"
sleep 10.5
refused "a token the webhook no longer knows, after the TTLs" good-token
kill "$IDP_PID"
wait "$IDP_PID" 2>/dev/null
refused "an unreachable webhook" other-token
check "kgate exits cleanly" clean_exit

idp_start "$KGATE_TEST_TMP/idp2"
echo '{"v1-token": {"username": "v1-user"}}' >"$IDP_DIR/reviews.json"
hook_config "$HOOK"
check "kgate starts with --authentication-token-webhook-version=v1" api_start hookv1 \
    --anonymous-auth=false --authentication-token-webhook-config-file="$HOOK" \
    --authentication-token-webhook-version=v1
whoami v1-token
check "a v1 review" test "$(code_is 201 && tail -1 "$IDP_DIR/review-versions")" = \
    authentication.k8s.io/v1
check "... names the user" user_is "{'username': 'v1-user', 'groups': ['system:authenticated']}"
check "kgate exits cleanly" clean_exit

hook_config "$HOOK" wrong-secret
check "kgate starts with a webhook credential the provider refuses" api_start hookbad \
    --anonymous-auth=false --authentication-token-webhook-config-file="$HOOK"
refused "a webhook that answers 401" v1-token
check "kgate exits cleanly" clean_exit

printf 'clusters:\n- cluster: {server: "http://127.0.0.1:1/"}\n' >"$KGATE_TEST_TMP/plain.yaml"
start_fails "a plain http webhook" "names no https server" \
    --authentication-token-webhook-config-file="$KGATE_TEST_TMP/plain.yaml"
start_fails "a missing kubeconfig" "authentication-token-webhook-config-file" \
    --authentication-token-webhook-config-file="$KGATE_TEST_TMP/none.yaml"
tap_end
