#!/usr/bin/env bash
# The Webhook authorizer (--authorization-mode=Webhook,RBAC): every decision is a
# SubjectAccessReview POSTed over HTTPS to tests/e2e/sar.py, named by a kubeconfig with its CA
# and bearer token. An allow allows, a denial denies before RBAC is asked, no opinion falls
# through to RBAC; answers are cached per the authorized and unauthorized TTLs; a webhook that
# fails or does not answer in time has no opinion and an error (a plain-text 500 unless a later
# authorizer allows, as kube); a 500 is tried 5 times in all, as kube's webhook client; v1 or
# v1beta1 reviews; RBAC's escalation checks wait for the webhook's escalate and bind;
# start-up errors.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/idp_lib.sh
source tests/e2e/sar_lib.sh
e2e_require authz_webhook

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
printf 'sleepy-token,sleepy,1003\nboom-token,boom,1004\ngranter-token,granter,1005\n' \
    >>"$PKI/tokens.csv"
set_users
BOB=(-H "Authorization: Bearer bob-token")
SLEEPY=(-H "Authorization: Bearer sleepy-token")
BOOM=(-H "Authorization: Bearer boom-token")
trap stop_all EXIT

sar_start "$KGATE_TEST_TMP/sar"
HOOK=$KGATE_TEST_TMP/hook.yaml
hook_kubeconfig "$HOOK" /authorize

# asked PATTERN: how many reviews the webhook got whose line matches PATTERN.
asked() { grep -c -- "$1" "$SAR_DIR/hits" 2>/dev/null || true; }
# message_has TEXT: the last answer's Status message holds TEXT.
message_has() { jpy "'''$1''' in d['message']"; }

PODS=$CORE/pods
check "kgate starts with Webhook,RBAC" api_start hook --authorization-mode=Webhook,RBAC \
    --authorization-webhook-config-file="$HOOK" --authorization-webhook-cache-unauthorized-ttl=5s
fetch "$PODS" "${ALICE[@]}"
check "the webhook allows alice to list pods" code_is 200
check "... asked once with a v1beta1 review naming her groups in spec.group" \
    test "$(asked '^authorization.k8s.io/v1beta1 alice list pods group$')" = 1
fetch "$PODS" "${ALICE[@]}"
check "alice again: allowed" code_is 200
check "... from the cache (not asked again)" test "$(asked ' alice list pods ')" = 1
fetch "$CORE/configmaps" "${ALICE[@]}"
check "no opinion on alice's configmaps, and RBAC grants nothing: 403" code_is 403
check "... the webhook was asked" test "$(asked ' alice list configmaps ')" = 1
fetch /api "${BOB[@]}"
check "the webhook denies bob /api, which RBAC would allow: 403" code_is 403
check "... with the webhook's reason" message_has "bob is banned"
fetch /api "${JANE[@]}"
check "no opinion on jane's /api: RBAC's discovery role allows it" code_is 200
check "... the webhook was asked first" test "$(asked ' jane get /api ')" = 1
fetch /api "${BOB[@]}"
check "bob again within the unauthorized TTL: denied from the cache" \
    test "$(code_is 403 && asked ' bob get /api ')" = 1
sleep 5.5
fetch /api "${BOB[@]}"
check "after the unauthorized TTL: asked again" test "$(code_is 403 && asked ' bob get /api ')" = 2
fetch /api "${BOOM[@]}"
check "a webhook answering 500 has no opinion: RBAC allows /api" code_is 200
check "... after 5 attempts" test "$(asked ' boom get /api ')" = 5
fetch /api "${BOOM[@]}"
check "... and the failure is not cached" test "$(asked ' boom get /api ')" = 10
check "... it is logged" grep -q "authorization webhook .*HTTP status 500" "$KGATE_LOG"
OUT=$KGATE_TEST_TMP/body
CODE=$(curl -s --max-time 90 --cacert "$PKI/ca.crt" -o "$OUT" -w '%{http_code}' "${SLEEPY[@]}" \
    "$KGATE_URL$PODS")
check "a webhook that does not answer in time, RBAC without an opinion: kube's bare 500" code_is 500
check "... in plain text naming the request and the failure" grep -q \
    "^Internal Server Error: \"$PODS\": authorization webhook https://.*: no answer in time" "$OUT"
check "... logged as no answer in time" grep -q "authorization webhook .*no answer in time" \
    "$KGATE_LOG"
# review BODY-SPEC: a SubjectAccessReview by the admin, answered into $OUT.
review() {
    req POST /apis/authorization.k8s.io/v1/subjectaccessreviews \
        "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\",\"spec\":$1}"
}
review '{"user":"bob","nonResourceAttributes":{"path":"/api","verb":"get"}}'
check "a review of bob's /api: an explicit denial is status.denied, with the reason" jpy \
    "d['status'] == {'allowed': False, 'denied': True, 'reason': 'bob is banned'}"
review '{"user":"boom","nonResourceAttributes":{"path":"/x","verb":"get"}}'
check "a review the webhook fails: neither allowed nor denied, its evaluationError" jpy \
    "not d['status']['allowed'] and 'denied' not in d['status'] and 'HTTP status 500' in d['status']['evaluationError']"
review '{"user":"jane","nonResourceAttributes":{"path":"/x","verb":"get"}}'
check "a review nobody has an opinion on: no denied, no evaluationError" jpy \
    "d['status'].get('allowed') is False and set(d['status']) <= {'allowed', 'reason'}"
# as_granter PATH BODY: a POST by granter, whom only the (slow) webhook lets manage RBAC.
as_granter() {
    OUT=$KGATE_TEST_TMP/body
    CODE=$(kcurl -o "$OUT" -w '%{http_code}' -X POST -H "Content-Type: application/json" \
        --data-binary "$2" -H "Authorization: Bearer granter-token" "$KGATE_URL$1")
}
RB=/apis/rbac.authorization.k8s.io/v1/namespaces/default
as_granter $RB/roles '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
"metadata":{"name":"secret-reader"},"rules":[{"apiGroups":[""],"resources":["secrets"],"verbs":["get"]}]}'
check "granter creates a Role granting what it does not hold: the webhook allows escalate" \
    code_is 201
check "... it was asked for escalate on the role" test "$(asked ' granter escalate roles ')" = 1
as_granter $RB/rolebindings '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
"metadata":{"name":"admins"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",
"name":"cluster-admin"},"subjects":[{"kind":"User","name":"carol"}]}'
check "... and binds cluster-admin: the webhook allows bind" code_is 201
check "... asked for bind on the cluster role" test "$(asked ' granter bind clusterroles ')" = 1
req GET "$PODS"
check "system:masters is allowed without asking" \
    test "$(code_is 200 && asked ' kubernetes-admin ')" = 0
req GET /metrics
az=apiserver_authorization
check "kube's webhook metrics: round trips that succeeded" \
    test "$(metric_sum "$OUT" "${az}_webhook_evaluations_total{name=\"webhook\",result=\"success\"}")" -ge 3
check "... failed (the 500s, once per exchange whatever the retries)" \
    test "$(metric_sum "$OUT" "${az}_webhook_evaluations_total{name=\"webhook\",result=\"error\"}")" -eq 3
check "... timed out" \
    test "$(metric_sum "$OUT" "${az}_webhook_evaluations_total{name=\"webhook\",result=\"timeout\"}")" -ge 1
check "... failures that gave no opinion (failurePolicy NoOpinion)" \
    test "$(metric_sum "$OUT" "${az}_webhook_evaluations_fail_open_total{name=\"webhook\",result=\"error\"}")" -eq 3
check "... durations with Prometheus' default buckets" \
    test "$(metric_sum "$OUT" "${az}_webhook_duration_seconds_bucket{name=\"webhook\",result=\"success\",le=\"10\"}")" -ge 3
check "decisions by type and name: the webhook's denials" \
    test "$(metric_sum "$OUT" "${az}_decisions_total{decision=\"denied\",name=\"webhook\",type=\"Webhook\"}")" -ge 2
check "... and RBAC's allows" \
    test "$(metric_sum "$OUT" "${az}_decisions_total{decision=\"allowed\",name=\"rbac\",type=\"RBAC\"}")" -ge 1
check "kgate exits cleanly" clean_exit

check "kgate starts with --authorization-webhook-version=v1" api_start hookv1 \
    --authorization-mode=Webhook --authorization-webhook-config-file="$HOOK" \
    --authorization-webhook-version=v1
fetch "$PODS" "${ALICE[@]}"
check "alice lists pods" code_is 200
check "... asked with a v1 review naming her groups in spec.groups" \
    test "$(asked '^authorization.k8s.io/v1 alice list pods groups$')" = 1
check "kgate exits cleanly" clean_exit

start_fails "Webhook without its kubeconfig" \
    "authorization-mode Webhook's authorization config file not passed" \
    --authorization-mode=Webhook
start_fails "a webhook kubeconfig without mode Webhook" \
    "cannot specify --authorization-webhook-config-file without mode Webhook" \
    --authorization-mode=RBAC --authorization-webhook-config-file="$HOOK"
printf 'clusters:\n- cluster: {server: "http://127.0.0.1:1/"}\n' >"$KGATE_TEST_TMP/plain.yaml"
start_fails "a plain http webhook" "names no https server" --authorization-mode=Webhook \
    --authorization-webhook-config-file="$KGATE_TEST_TMP/plain.yaml"
start_fails "a bad webhook version" "must be v1 or v1beta1" --authorization-mode=Webhook \
    --authorization-webhook-config-file="$HOOK" --authorization-webhook-version=v2
tap_end
