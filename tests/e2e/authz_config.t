#!/usr/bin/env bash
# --authorization-config: an AuthorizationConfiguration with two webhooks (tests/e2e/sar.py's
# /authorize and /second), RBAC and Node, asked in that order. The first webhook's match
# conditions skip non-resource requests and secrets (it is not asked: its hits are counted);
# each webhook has its own cache TTLs and failure policy (the first NoOpinion: RBAC may still
# allow; the second Deny: a 500 although RBAC would allow); a 500 answer is retried; reviews
# carry the request's selectors. Rewriting the file changes the behaviour within seconds; an
# invalid file is logged and the old behaviour kept. Start-up errors exit 2 with kube's words.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/sar_lib.sh
e2e_require authz_config

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
for u in sleepy drowsy flaky; do
    printf '%s-token,%s,%s\n' "$u" "$u" "$RANDOM" >>"$PKI/tokens.csv"
done
set_users
SLEEPY=(-H "Authorization: Bearer sleepy-token")
DROWSY=(-H "Authorization: Bearer drowsy-token")
FLAKY=(-H "Authorization: Bearer flaky-token")
trap stop_all EXIT

sar_start "$KGATE_TEST_TMP/sar"
HOOK1=$KGATE_TEST_TMP/first.yaml
HOOK2=$KGATE_TEST_TMP/second.yaml
hook_kubeconfig "$HOOK1" /authorize
hook_kubeconfig "$HOOK2" /second

# first_hook [CONDITION]: the first webhook's entry (its second match condition CONDITION).
first_hook() {
    cat <<YAML
- type: Webhook
  name: first
  webhook:
    timeout: 2s
    authorizedTTL: 5s
    unauthorizedTTL: 5s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: $HOOK1}
    matchConditions:
    - expression: has(request.resourceAttributes)
    - expression: ${1:-request.resourceAttributes.resource != 'secrets'}
YAML
}
# config_with ENTRIES: the whole file with ENTRIES first, then the second webhook, RBAC, Node.
config_with() {
    cat <<YAML
apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
$1
- type: Webhook
  name: second
  webhook:
    timeout: 2s
    authorizedTTL: 10m
    unauthorizedTTL: 10m
    subjectAccessReviewVersion: v1beta1
    failurePolicy: Deny
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: $HOOK2}
- {type: RBAC, name: rbac}
- {type: Node, name: node}
YAML
}
CONFIG=$KGATE_TEST_TMP/authz.yaml
# install TEXT: replace the configuration file at once (a rename, as editors and kubelets do).
install() {
    printf '%s\n' "$1" >"$CONFIG.new" && mv "$CONFIG.new" "$CONFIG"
}
install "$(config_with "$(first_hook)")"

# first PATTERN, second PATTERN: how many reviews each webhook got matching PATTERN.
count() {
    local n
    n=$(grep -c -- "$1" "$2" 2>/dev/null)
    echo "${n:-0}"
}
first() { count "$1" "$SAR_DIR/hits"; }
second() { count "$1" "$SAR_DIR/hits-second"; }

# polled CODE PATH CURL-ARGS...: within 10 s, PATH answers CODE.
polled() {
    local want=$1 path=$2; shift 2
    for _ in $(seq 50); do
        fetch "$path" "$@"
        [[ $CODE == "$want" ]] && return 0
        sleep 0.2
    done
    return 1
}

PODS=$CORE/pods
check "kgate starts with --authorization-config" api_start config \
    --authorization-config="$CONFIG"
check "RBAC has its bootstrap policy: jane may read /version" polled 200 /version "${JANE[@]}"
req POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings \
    '{"metadata":{"name":"sleepers-view"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
      "kind":"ClusterRole","name":"view"},"subjects":[{"kind":"User","name":"sleepy"},
      {"kind":"User","name":"drowsy"}]}'
check "RBAC lets sleepy and drowsy view" code_is 201
fetch "$PODS" "${ALICE[@]}"
check "the first webhook allows alice to list pods" code_is 200
check "... asked once, with a v1 review" \
    test "$(first '^authorization.k8s.io/v1 alice list pods groups$')" = 1
check "... the second webhook was not asked" test "$(second ' alice list pods ')" = 0
fetch "$CORE/secrets" "${ALICE[@]}"
check "alice's secrets: the first webhook is skipped, the second has no opinion: 403" code_is 403
check "... the first was not asked (its match condition is false)" \
    test "$(first ' alice list secrets ')" = 0
check "... the second was, with a v1beta1 review" \
    test "$(second '^authorization.k8s.io/v1beta1 alice list secrets group$')" = 1
fetch /api "${ALICE[@]}"
check "alice's /api: skipped by the first (not a resource), RBAC allows" code_is 200
check "... the first was not asked" test "$(first ' alice get /api ')" = 0

fetch "$PODS" "${ALICE[@]}"
fetch "$CORE/secrets" "${ALICE[@]}"
check "alice again at once: both answers come from the caches" \
    test "$(first ' alice list pods '),$(second ' alice list secrets ')" = 1,1
sleep 5.5
fetch "$PODS" "${ALICE[@]}"
fetch "$CORE/secrets" "${ALICE[@]}"
check "5.5 s later: the first webhook's 5s TTL has passed, it is asked again" \
    test "$(first ' alice list pods ')" = 2
check "... the second's 10m TTL has not: still cached" test "$(second ' alice list secrets ')" = 1

fetch "$CORE/configmaps" "${SLEEPY[@]}"
check "the first webhook times out on sleepy (NoOpinion): the second has none, RBAC allows" \
    code_is 200
check "... the timeout was not retried" test "$(first ' sleepy list configmaps ')" = 1
OUT=$KGATE_TEST_TMP/body
CODE=$(kcurl -o "$OUT" "${DROWSY[@]}" -w '%{http_code}' "$KGATE_URL$CORE/configmaps")
check "the second webhook times out on drowsy (Deny): a 500 although RBAC would allow" \
    code_is 500
check "... in kube's plain text naming the failure" \
    grep -q "authorization webhook https://.*/second: no answer in time" "$OUT"
fetch "$PODS" "${FLAKY[@]}"
check "a webhook answering 500 twice is tried again: flaky is allowed" code_is 200
check "... after three reviews" test "$(first ' flaky list pods ')" = 3
fetch "$PODS?labelSelector=app%3Dweb,tier&fieldSelector=spec.nodeName%3Dn1" "${ALICE[@]}"
check "a list with selectors" code_is 200
check "... the review carries them as kube 1.32 sends them" grep -qF \
    '{"fieldSelector": {"requirements": [{"key": "spec.nodeName", "operator": "In", "values": ["n1"]}]}, "labelSelector": {"requirements": [{"key": "app", "operator": "In", "values": ["web"]}, {"key": "tier", "operator": "Exists"}]}}' \
    "$SAR_DIR/selectors"

install "$(config_with "$(first_hook "request.resourceAttributes.resource != 'pods'")")"
check "the file rewritten so that the first webhook skips pods: alice's pods are refused" \
    polled 403 "$PODS" "${ALICE[@]}"
check "... the reload is logged" grep -q "authorization-config \"$CONFIG\" reloaded" "$KGATE_LOG"
install "$(config_with "$(first_hook)")"
check "rewritten back: allowed again" polled 200 "$PODS" "${ALICE[@]}"
install "$(config_with "")"
check "the first webhook removed: alice's pods are refused" polled 403 "$PODS" "${ALICE[@]}"
install "$(config_with "$(first_hook)" | sed 's/timeout: 2s/timeout: 45s/')"
check "an invalid file is logged as a warning with kube's reason" wait_for_line \
    'not reloaded, keeping the authorizers in use: .*timeout: Invalid value: "45s": must be > 0s and <= 30s' \
    "$KGATE_LOG"
fetch "$PODS" "${ALICE[@]}"
check "... and the configuration in use stays (no first webhook: 403)" code_is 403
install "$(config_with "$(first_hook)" | grep -v 'name: node')"
check "a file without Node is refused" wait_for_line "missing required types: \[Node\]" \
    "$KGATE_LOG"
fetch /metrics "${ADMIN[@]}"
az=apiserver_authorization
reloads="${az}_config_controller_automatic_reloads_total"
check "kube's reload counts: the three accepted rewrites" \
    test "$(grep -c "^$reloads{apiserver_id_hash=\"sha256:[0-9a-f]*\",status=\"success\"} 3$" "$OUT")" = 1
check "... the two refused" \
    test "$(grep -c "^$reloads{apiserver_id_hash=\"sha256:[0-9a-f]*\",status=\"failure\"} 2$" "$OUT")" = 1
check "... and when each last happened" grep -q \
    "^${az}_config_controller_automatic_reload_last_timestamp_seconds{.*status=\"failure\"} 1\.[0-9.e+]*$" "$OUT"
check "match conditions that kept the first webhook away, by type and name" test "$(metric_sum "$OUT" \
    "${az}_match_condition_exclusions_total{name=\"first\",type=\"Webhook\"}")" -ge 2
check "... their evaluation time (kube's buckets up to 0.25 s)" test "$(metric_sum "$OUT" \
    "${az}_match_condition_evaluation_seconds_bucket{name=\"first\",type=\"Webhook\",le=\"0.25\"}")" -ge 3
check "decisions: the second webhook's Deny-policy failure counted as its denial" test "$(metric_sum "$OUT" \
    "${az}_decisions_total{decision=\"denied\",name=\"second\",type=\"Webhook\"}")" -ge 1
check "kgate exits cleanly" clean_exit

# fails_with DESC MESSAGE ARGS...: kgate exits 2 with ARGS, saying MESSAGE.
fails_with() {
    local desc=$1 msg=$2; shift 2
    kgate_start fails --etcd-servers="$KGATE_TEST_ETCD" --tls-cert-file="$PKI/server.crt" \
        --tls-private-key-file="$PKI/server.key" "$@"
    wait_exit "$KGATE_PID" 30
    check "$desc: kgate exits 2" test "$EXIT_CODE" = 2
    check "$desc: it says why" grep -qF -- "$msg" "$KGATE_LOG" || diag "$(tail -3 "$KGATE_LOG")"
}
MIX="--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined"
fails_with "with --authorization-mode" "$MIX" --authorization-config="$CONFIG" \
    --authorization-mode=RBAC
fails_with "with --authorization-webhook-version" "$MIX" --authorization-config="$CONFIG" \
    --authorization-webhook-version=v1
fails_with "a file that is not there" \
    "failed to read file path \"$KGATE_TEST_TMP/none.yaml\": No such file or directory" \
    --authorization-config="$KGATE_TEST_TMP/none.yaml"
BAD=$KGATE_TEST_TMP/bad.yaml
config_with "$(first_hook)" | sed 's/timeout: 2s/timeout: 45s/' >"$BAD"
fails_with "a 45s timeout" \
    'authorizers[0].webhook.timeout: Invalid value: "45s": must be > 0s and <= 30s' \
    --authorization-config="$BAD"
config_with "$(first_hook)" | sed 's/name: second/name: first/' >"$BAD"
fails_with "two webhooks named first" 'authorizers[1].name: Duplicate value: "first"' \
    --authorization-config="$BAD"
config_with "$(first_hook)" | sed 's/name: rbac/name: roles/' >"$BAD"
fails_with "RBAC named roles" "expected name rbac for authorizer RBAC instead of roles" \
    --authorization-config="$BAD"
printf 'authorizers: [\n' >"$BAD"
fails_with "a file that is not YAML" "failed to decode: yaml: line 2" \
    --authorization-config="$BAD"
tap_end
