#!/usr/bin/env bash
# API Priority and Fairness as kube-apiserver 1.32 runs it: the leader creates kube's mandatory
# and suggested FlowSchemas and PriorityLevelConfigurations (annotated autoupdate-spec "true"),
# restores the mandatory ones, recreates deleted ones and leaves a suggested one alone once its
# annotation says "false"; FlowSchemas get their Dangling condition; every answer names the
# matched FlowSchema and priority level by uid; a Reject level without seats answers 429 with
# Retry-After and kube's words; with --enable-priority-and-fairness=false none of it applies.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require apf

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
FC=/apis/flowcontrol.apiserver.k8s.io/v1
BOB=(-H "Authorization: Bearer bob-token")

check "kgate starts with priority and fairness (on by default)" api_start apf \
    --max-requests-inflight=2 --max-mutating-requests-inflight=1

# names PATH: the sorted names of a list
names() {
    kcurl "${ADMIN[@]}" "$KGATE_URL$1" |
        python3 -c 'import json,sys; print(" ".join(sorted(i["metadata"]["name"] for i in json.load(sys.stdin)["items"])))'
}
# field PATH EXPR: a Python expression over the object d at PATH
field() {
    kcurl "${ADMIN[@]}" "$KGATE_URL$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"
}
# until_eq WANT CMD...: CMD prints WANT within 15 s
until_eq() {
    local want=$1 got=""; shift
    for _ in $(seq 150); do
        got=$("$@" 2>/dev/null)
        [[ $got == "$want" ]] && return 0
        sleep 0.1
    done
    diag "want: $want"
    diag "got:  $got"
    return 1
}

FS_ALL="catch-all endpoint-controller exempt global-default kube-controller-manager kube-scheduler kube-system-service-accounts probes service-accounts system-leader-election system-node-high system-nodes workload-leader-election"
PL_ALL="catch-all exempt global-default leader-election node-high system workload-high workload-low"
check "kube 1.32's FlowSchemas are created" until_eq "$FS_ALL" names $FC/flowschemas
check "and its priority levels" until_eq "$PL_ALL" names $FC/prioritylevelconfigurations
check "each annotated autoupdate-spec true" test "$(field $FC/flowschemas/global-default \
    'd["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"]')" = true
check "catch-all's level: 5 shares, Reject" test "$(field $FC/prioritylevelconfigurations/catch-all \
    'd["spec"]["limited"]["nominalConcurrencyShares"], d["spec"]["limited"]["limitResponse"]["type"]')" = "5 Reject"
check "global-default: 20 shares, 128 queues of hand 6, 50 long" test "$(field \
    $FC/prioritylevelconfigurations/global-default 'd["spec"]["limited"]["nominalConcurrencyShares"] == 20 and d["spec"]["limited"]["limitResponse"]["queuing"] == {"queues": 128, "handSize": 6, "queueLengthLimit": 50}')" = True
check "FlowSchemas are marked not dangling" until_eq "False Found" field $FC/flowschemas/probes \
    '[c["status"] + " " + c["reason"] for c in d["status"]["conditions"] if c["type"] == "Dangling"][0]'

uid() { field "$1" 'd["metadata"]["uid"]'; }
# pf_headers CURL-ARGS...: the two APF headers of a GET of namespaces
pf_headers() {
    fetch /api/v1/namespaces "$@"
    echo "$(header X-Kubernetes-PF-FlowSchema-UID) $(header X-Kubernetes-PF-PriorityLevel-UID)"
}
GD="$(uid $FC/flowschemas/global-default) $(uid $FC/prioritylevelconfigurations/global-default)"
EX="$(uid $FC/flowschemas/exempt) $(uid $FC/prioritylevelconfigurations/exempt)"
check "alice lands in global-default (headers name its uids)" until_eq "$GD" pf_headers "${ALICE[@]}"
check "system:masters in exempt" until_eq "$EX" pf_headers "${ADMIN[@]}"

# kube's ensurer: mandatory objects are restored and recreated
send PATCH $FC/prioritylevelconfigurations/catch-all \
    '{"spec":{"limited":{"nominalConcurrencyShares":50}}}' "${ADMIN[@]}"
check "a changed mandatory level is accepted" test "$CODE" = 200
check "and restored to kube's spec" until_eq 5 field $FC/prioritylevelconfigurations/catch-all \
    'd["spec"]["limited"]["nominalConcurrencyShares"]'
OLD=$(uid $FC/flowschemas/catch-all)
kcurl "${ADMIN[@]}" -X DELETE "$KGATE_URL$FC/flowschemas/catch-all" >/dev/null
recreated() { local u; u=$(uid $FC/flowschemas/catch-all) && [[ -n $u && $u != "$OLD" ]] && echo yes; }
check "a deleted mandatory FlowSchema comes back" until_eq yes recreated
send PATCH $FC/prioritylevelconfigurations/exempt \
    '{"spec":{"exempt":{"nominalConcurrencyShares":7}}}' "${ADMIN[@]}"
sleep 1
check "the exempt level keeps the shares users may set" test "$(field \
    $FC/prioritylevelconfigurations/exempt 'd["spec"]["exempt"]["nominalConcurrencyShares"]')" = 7

# suggested objects: updated while autoupdate-spec is true, left alone once it is "false"
send PATCH $FC/prioritylevelconfigurations/workload-low '{"spec":{"limited":{"nominalConcurrencyShares":99}}}' "${ADMIN[@]}"
check "a changed suggested level (annotation true) is restored" until_eq 100 field \
    $FC/prioritylevelconfigurations/workload-low 'd["spec"]["limited"]["nominalConcurrencyShares"]'
send PATCH $FC/prioritylevelconfigurations/workload-low \
    '{"metadata":{"annotations":{"apf.kubernetes.io/autoupdate-spec":"false"}},"spec":{"limited":{"nominalConcurrencyShares":99}}}' "${ADMIN[@]}"
sleep 2
check "with autoupdate-spec false it stays as the user left it" test "$(field \
    $FC/prioritylevelconfigurations/workload-low 'd["spec"]["limited"]["nominalConcurrencyShares"]')" = 99
kcurl "${ADMIN[@]}" -X DELETE "$KGATE_URL$FC/flowschemas/service-accounts" >/dev/null
check "a deleted suggested FlowSchema is created again" until_eq 9000 field \
    $FC/flowschemas/service-accounts 'd["spec"]["matchingPrecedence"]'

# a FlowSchema naming no level is dangling
send POST $FC/flowschemas '{"metadata":{"name":"lost"},"spec":{"priorityLevelConfiguration":{"name":"nope"},"matchingPrecedence":600,"rules":[{"subjects":[{"kind":"User","user":{"name":"bob"}}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}]}]}}' "${ADMIN[@]}"
check "a FlowSchema of a missing level is created" test "$CODE" = 201
check "its Dangling condition says NotFound, in kube's words" until_eq \
    'True NotFound This FlowSchema references the PriorityLevelConfiguration object named "nope" but there is no such object' \
    field $FC/flowschemas/lost \
    '[" ".join((c["status"], c["reason"], c["message"])) for c in d["status"]["conditions"] if c["type"] == "Dangling"][0]'

# kube's validation (422, field paths and words) and v1 defaults
send POST $FC/flowschemas '{"metadata":{"name":"bad"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":20000,"distinguisherMethod":{"type":"ByGroup"},"rules":[{"subjects":[{"kind":"ServiceAccount","serviceAccount":{"name":"x"}}],"resourceRules":[{"verbs":["get","*"],"apiGroups":[""],"resources":["pods"]}]}]}}' "${ADMIN[@]}"
check "an invalid FlowSchema is refused: 422" test "$CODE" = 422
for msg in 'spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000' \
    'spec.distinguisherMethod.type: Unsupported value: \"ByGroup\": supported values: \"ByNamespace\", \"ByUser\"' \
    'spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account' \
    "spec.rules[0].resourceRules[0].verbs: Invalid value: []string{\\\"get\\\", \\\"*\\\"}: if '*' is present, must not specify other verbs" \
    'spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace'; do
    check "... $msg" grep -qF -- "$msg" "$OUT" || diag "$(cat "$OUT")"
done
send POST $FC/prioritylevelconfigurations '{"metadata":{"name":"badpl"},"spec":{"type":"Limited","exempt":{},"limited":{"nominalConcurrencyShares":-1,"lendablePercent":101,"limitResponse":{"type":"Queue","queuing":{"queues":4,"handSize":10,"queueLengthLimit":5}}}}}' "${ADMIN[@]}"
check "an invalid priority level is refused: 422" test "$CODE" = 422
for msg in 'spec.exempt: Forbidden: must be nil if the type is Limited' \
    'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer' \
    'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive' \
    'spec.limited.limitResponse.queuing.handSize: Invalid value: 10: should not be greater than queues (4)'; do
    check "... $msg" grep -qF -- "$msg" "$OUT" || diag "$(cat "$OUT")"
done
send POST $FC/prioritylevelconfigurations '{"metadata":{"name":"defaulted"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{}}}}}' "${ADMIN[@]}"
check "a level given no numbers is created" test "$CODE" = 201
check "with v1's defaults: 30 shares, lendable 0, 64 queues of hand 8, 50 long" jpy \
    'd["spec"]["limited"] == {"nominalConcurrencyShares": 30, "lendablePercent": 0, "limitResponse": {"type": "Queue", "queuing": {"queues": 64, "handSize": 8, "queueLengthLimit": 50}}}'

# a jail: a Reject level of no seats for bob's resource requests
send POST $FC/prioritylevelconfigurations '{"metadata":{"name":"jail"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":0,"limitResponse":{"type":"Reject"}}}}' "${ADMIN[@]}"
check "a Reject level of no shares is created" test "$CODE" = 201
send POST $FC/flowschemas '{"metadata":{"name":"jail-bob"},"spec":{"priorityLevelConfiguration":{"name":"jail"},"matchingPrecedence":100,"distinguisherMethod":{"type":"ByUser"},"rules":[{"subjects":[{"kind":"User","user":{"name":"bob"}}],"resourceRules":[{"verbs":["list"],"apiGroups":[""],"resources":["namespaces"],"clusterScope":true}]}]}}' "${ADMIN[@]}"
check "a FlowSchema sending bob's namespace lists there" test "$CODE" = 201
JAIL="$(uid $FC/flowschemas/jail-bob) $(uid $FC/prioritylevelconfigurations/jail)"
check "bob's list is classified into it" until_eq "$JAIL" pf_headers "${BOB[@]}"
fetch /api/v1/namespaces "${BOB[@]}"
check "and refused: 429" test "$CODE" = 429
check "with Retry-After: 1" test "$(header Retry-After)" = 1
check "in kube's words" test "$(cat "$OUT")" = "Too many requests, please try again later."
fetch /api/v1/namespaces/default "${BOB[@]}"
check "bob's other requests are served" test "$CODE" = 200
rejections() {
    kcurl "${ADMIN[@]}" "$KGATE_URL/metrics" | sed -n \
        's/^apiserver_flowcontrol_rejected_requests_total{flow_schema="jail-bob",priority_level="jail",reason="concurrency-limit"} //p'
}
# the list that found bob classified there was refused too
check "both refusals are counted (rejected_requests_total, reason concurrency-limit)" \
    test "$(rejections)" = 2
# kube's post-start hooks: the consumer and the filter once the configuration is in force, the
# producer once the bootstrap objects are
check "/readyz?verbose has kube's priority and fairness hooks, passed" test "$(kcurl \
    "${ADMIN[@]}" "$KGATE_URL/readyz?verbose" | grep -c -e '^\[+\]poststarthook/priority-and-fairness-config-consumer ok$' \
    -e '^\[+\]poststarthook/priority-and-fairness-filter ok$' \
    -e '^\[+\]poststarthook/priority-and-fairness-config-producer ok$')" = 3
check "/readyz/poststarthook/priority-and-fairness-config-producer is ok" test "$(kcurl \
    "${ADMIN[@]}" "$KGATE_URL/readyz/poststarthook/priority-and-fairness-config-producer")" = ok
check "kgate reported no sanitizer error" no_sanitizer_report "$KGATE_LOG"

check "kgate starts with --enable-priority-and-fairness=false" api_start noapf \
    --enable-priority-and-fairness=false
fetch /api/v1/namespaces "${ALICE[@]}"
check "then answers carry no APF headers" test -z "$(header X-Kubernetes-PF-FlowSchema-UID)"
check "and /readyz has no priority and fairness hook" test "$(kcurl "${ADMIN[@]}" \
    "$KGATE_URL/readyz?verbose" | grep -c priority-and-fairness)" = 0
check "and no sanitizer error" no_sanitizer_report "$KGATE_LOG"
tap_end
