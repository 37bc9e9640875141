#!/usr/bin/env bash
# The subresources clients use beyond status and scale, as kube-apiserver answers them:
# pods/eviction (PodDisruptionBudgets, deleteOptions, kube's 201, 429 and 500), pods/binding
# and the bindings collection, CertificateSigningRequests (the requester recorded on create,
# the approval subresource with its signer check, the status rules), pods/ephemeralcontainers,
# and kubectl drain, certificate approve and debug on top of them.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_subres

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
# ABAC: the admins and jane may do anything; alice only CertificateSigningRequests (so not
# approve for a signer); RBAC, asked after ABAC: alice may approve for the signers of one domain
# (the `<domain>/*` name kube's approval admission also asks about).
POLICY=$KGATE_TEST_TMP/abac.jsonl
abac() { echo "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{$1}}"; }
{
    abac '"group":"system:masters","namespace":"*","resource":"*","apiGroup":"*","nonResourcePath":"*"'
    abac '"user":"jane","namespace":"*","resource":"*","apiGroup":"*","nonResourcePath":"*"'
    abac '"user":"alice","resource":"certificatesigningrequests","apiGroup":"certificates.k8s.io"'
} >"$POLICY"
trap stop_all EXIT
check "kgate starts" api_start subres --workers=2 --authorization-mode=ABAC,RBAC \
    --authorization-policy-file="$POLICY"
POLICY_V1=/apis/policy/v1/namespaces/default

# pod NAME [LABELS-JSON [SPEC-EXTRA]]: a Pod document.
pod() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1\",\"labels\":${2:-{\}}},\
\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]${3:+,$3}}}"
}
# running NAME: the pod reports Running and Ready (what a kubelet would write).
running() {
    req PATCH $CORE/pods/$1/status '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}' \
        application/merge-patch+json
    [[ $CODE == 200 ]] || diag "status of $1: $CODE $(head -c 300 "$OUT")"
}
# evict NAME [DELETE-OPTIONS [QUERY]]: POST an Eviction for pod NAME.
evict() {
    req POST "$CORE/pods/$1/eviction${3:-}" "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\
\"metadata\":{\"name\":\"$1\"}${2:+,\"deleteOptions\":$2}}"
}
# pdb NAME APP ALLOWED [GENERATION-SEEN]: a budget over app=APP whose status allows ALLOWED.
pdb() {
    req POST $POLICY_V1/poddisruptionbudgets "{\"apiVersion\":\"policy/v1\",\
\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"minAvailable\":1,\
\"selector\":{\"matchLabels\":{\"app\":\"$2\"}}}}"
    req PATCH $POLICY_V1/poddisruptionbudgets/$1/status "{\"status\":{\"observedGeneration\":${4:-1},\
\"disruptionsAllowed\":$3,\"currentHealthy\":2,\"desiredHealthy\":1,\"expectedPods\":2}}" \
        application/merge-patch+json
    [[ $CODE == 200 ]] || diag "pdb $1: $CODE $(head -c 300 "$OUT")"
}
# bind NAME NODE: assign pod NAME to NODE through pods/binding.
bind() {
    req POST $CORE/pods/$1/binding "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\
\"metadata\":{\"name\":\"$1\"},\"target\":{\"kind\":\"Node\",\"name\":\"$2\"}}"
}
success_201() { code_is 201 && jpy "d == {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, \
'status': 'Success', 'code': 201}"; }

# ---- pods/binding -----------------------------------------------------------------------------
req POST $CORE/pods "$(pod b1)"
b1_rv=$(jget "d['metadata']['resourceVersion']")
req POST $CORE/pods/b1/binding '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"b1",
"annotations":{"scheduled-by":"test"}},"target":{"kind":"Node","name":"n1"}}'
check "binding a pod answers kube's 201 Status Success" success_201
req GET $CORE/pods/b1
check "... the pod is on the node, with the Binding's annotations" jpy "d['spec']['nodeName'] == \
'n1' and d['metadata']['annotations'] == {'scheduled-by': 'test'}"
check "... and PodScheduled=True" jpy "[(c['type'], c['status'], c['lastProbeTime']) for c in \
d['status']['conditions']] == [('PodScheduled', 'True', None)] and \
'lastTransitionTime' in d['status']['conditions'][0]"
check "... its managedFields are left alone" jpy "[m['operation'] for m in \
d['metadata']['managedFields']] == ['Update']"
bind b1 n2
check "binding an assigned pod is kube's 409" is_status 409 Conflict \
    'Operation cannot be fulfilled on pods/binding "b1": pod b1 is already assigned to node "n1"'
req POST $CORE/pods "$(pod b2)"
req POST $CORE/bindings '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"b2"},"target":{"name":"n1"}}'
check "a Binding POSTed to the bindings collection binds its pod" success_201
req GET $CORE/pods/b2
check "... spec.nodeName is set" jpy "d['spec']['nodeName'] == 'n1'"
req POST $CORE/pods "$(pod b3)"
req POST $CORE/pods/b3/binding '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"b3"},"target":{"kind":"Node"}}'
check "a Binding without target.name is kube's 500 (a plain error: no reason)" jpy \
    "d == {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure', \
'message': 'target.name: Required value', 'code': 500}"
req POST $CORE/pods/b3/binding '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"b3","uid":"not-it"},"target":{"name":"n1"}}'
b3_uid=$(kcurl "${ADMIN[@]}" "$KGATE_URL$CORE/pods/b3" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["uid"])')
check "a Binding's uid is a precondition" is_status 409 Conflict \
    "Operation cannot be fulfilled on pods \"b3\": Precondition failed: UID in precondition: not-it, UID in object meta: $b3_uid"
req POST $CORE/pods/b3/binding '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"other"},"target":{"name":"n1"}}'
check "a Binding named otherwise than the URL is 400" is_status 400 BadRequest \
    'name in URL does not match name in Binding object'
req POST "$CORE/pods/b3/binding?dryRun=All" '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"b3"},"target":{"name":"n1"}}'
check "a dry-run binding answers 201" success_201
req GET $CORE/pods/b3
check "... and binds nothing" jpy "'nodeName' not in d['spec']"
req POST $CORE/pods "$(pod g1 '{}' '"schedulingGates":[{"name":"wait"}]')"
bind g1 n1
check "a gated pod cannot be bound" is_status 409 Conflict \
    'Operation cannot be fulfilled on pods/binding "g1": pod g1 has non-empty .spec.schedulingGates'
bind nope n1
check "binding a missing pod is 404" is_status 404 NotFound 'pods "nope" not found'
req GET $CORE/pods/b1/binding
check "GET of pods/binding is 405" code_is 405

# ---- pods/eviction ----------------------------------------------------------------------------
req POST $CORE/pods "$(pod e1)"
evict e1
check "evicting a pending pod without a budget answers kube's 201 Status Success" success_201
req GET $CORE/pods/e1
check "... and deletes it (never scheduled: at once)" code_is 404

req POST $CORE/pods "$(pod w1 '{"app":"web"}')"
bind w1 n1
running w1
req POST $CORE/pods "$(pod w2 '{"app":"web"}')"
bind w2 n1
running w2
pdb web web 1
evict w1
check "an eviction the budget allows is 201" success_201
req GET $POLICY_V1/poddisruptionbudgets/web
check "... the budget's disruptionsAllowed went down by one" jpy \
    "d['status']['disruptionsAllowed'] == 0"
check "... the pod is recorded in status.disruptedPods" jpy \
    "list(d['status']['disruptedPods']) == ['w1']"
check "... and DisruptionAllowed=False (InsufficientPods)" jpy "[(c['type'], c['status'], \
c['reason']) for c in d['status']['conditions']] == [('DisruptionAllowed', 'False', \
'InsufficientPods')]"
req GET $CORE/pods/w1
check "... the scheduled pod is deleted gracefully (a kubelet finishes)" jpy \
    "d['metadata']['deletionGracePeriodSeconds'] == 30 and 'deletionTimestamp' in d['metadata']"
check "... with the DisruptionTarget condition" jpy "[(c['type'], c['status'], c['reason'], \
c['message']) for c in d['status']['conditions'] if c['type'] == 'DisruptionTarget'] == \
[('DisruptionTarget', 'True', 'EvictionByEvictionAPI', 'Eviction API: evicting')]"
evict w2
check "an eviction the budget does not allow is kube's 429" is_status 429 TooManyRequests \
    "Cannot evict pod as it would violate the pod's disruption budget."
check "... with a DisruptionBudget cause" jpy "d['details']['causes'] == [{'reason': \
'DisruptionBudget', 'message': 'The disruption budget web needs 1 healthy pods and has 2 currently'}]"
req GET $CORE/pods/w2
check "... and the pod stays" jpy "'deletionTimestamp' not in d['metadata']"
evict w1
check "evicting a pod already being deleted skips the budget" success_201

req POST $CORE/pods "$(pod s1 '{"app":"stale"}')"
running s1
pdb stale stale 1 0
evict s1
check "a budget its controller has not seen yet is 429, retry after 10 s" is_status 429 \
    TooManyRequests "Cannot evict pod as it would violate the pod's disruption budget."
check "... its cause says it is still being processed" jpy "d['details'] == {'causes': \
[{'reason': 'DisruptionBudget', 'message': 'The disruption budget stale is still being \
processed by the server.'}], 'retryAfterSeconds': 10}"

pdb web2 web 5
evict w2
check "a pod under two budgets is kube's 500" jpy "d == {'kind': 'Status', 'apiVersion': 'v1', \
'metadata': {}, 'status': 'Failure', 'message': 'This pod has more than one \
PodDisruptionBudget, which the eviction subresource does not support.', 'code': 500}"
check "... answered with HTTP 500" code_is 500

req POST $CORE/pods "$(pod f1 '{"app":"free"}')"
bind f1 n1
running f1
f1_uid=$(kcurl "${ADMIN[@]}" "$KGATE_URL$CORE/pods/f1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["uid"])')
evict f1 '' '?dryRun=All'
check "a dry-run eviction answers 201" success_201
req GET $CORE/pods/f1
check "... and changes nothing" jpy "'deletionTimestamp' not in d['metadata'] and \
all(c['type'] != 'DisruptionTarget' for c in d['status']['conditions'])"
evict f1 '{"preconditions":{"uid":"not-it"}}'
check "the Eviction's deleteOptions preconditions hold" is_status 409 Conflict \
    "Operation cannot be fulfilled on Pod \"f1\": the UID in the precondition (not-it) does not match the UID in record ($f1_uid). The object might have been deleted and then recreated"
evict f1 '{"dryRun":["Bogus"]}'
check "the Eviction's deleteOptions are validated" is_status 422 Invalid \
    'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"'
evict f1 "{\"gracePeriodSeconds\":0,\"preconditions\":{\"uid\":\"$f1_uid\"}}"
check "an eviction with gracePeriodSeconds 0 is 201" success_201
req GET $CORE/pods/f1
check "... and removes the scheduled pod at once" code_is 404

req POST $CORE/pods "$(pod u1 '{"app":"unready"}')"
bind u1 n1
req PATCH $CORE/pods/u1/status '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False"}]}}' \
    application/merge-patch+json
pdb unready unready 0
evict u1
check "an unready pod goes while its budget has its healthy pods, even at 0 allowed" success_201
req GET $POLICY_V1/poddisruptionbudgets/unready
check "... and the budget is not charged for it" jpy "d['status']['disruptionsAllowed'] == 0 and \
'disruptedPods' not in d['status']"
req POST $CORE/pods "$(pod v1b)"
req POST $CORE/pods/v1b/eviction '{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"v1b"}}'
check "a policy/v1beta1 Eviction is taken too" success_201
req POST $CORE/pods "$(pod t1 '{"app":"web"}')"
req PATCH $CORE/pods/t1/status '{"status":{"phase":"Succeeded"}}' application/merge-patch+json
evict t1
check "a terminal pod is evicted whatever its budgets say" success_201
req POST $CORE/pods/w2/eviction '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"w1"}}'
check "an Eviction named otherwise than the URL is 400" is_status 400 BadRequest \
    'name in URL does not match name in Eviction object'
evict nope
check "evicting a missing pod is 404" is_status 404 NotFound 'pods "nope" not found'
req POST $CORE/pods/w2/eviction '{"apiVersion":"policy/v1","kind":"Status","metadata":{"name":"w2"}}'
check "a body of another kind is 400" code_is 400

# ---- CertificateSigningRequests ---------------------------------------------------------------
CSRS=/apis/certificates.k8s.io/v1/certificatesigningrequests
openssl req -new -newkey rsa:2048 -nodes -keyout "$KGATE_TEST_TMP/csr.key" -subj "/CN=someone" \
    -out "$KGATE_TEST_TMP/csr.pem" 2>/dev/null
REQ64=$(base64 -w0 "$KGATE_TEST_TMP/csr.pem")
csr() {
    echo "{\"apiVersion\":\"certificates.k8s.io/v1\",\"kind\":\"CertificateSigningRequest\",\
\"metadata\":{\"name\":\"$1\"},\"spec\":{\"request\":\"$REQ64\",\"signerName\":\"${2:-example.com/signer}\",\
\"usages\":[\"client auth\"],\"username\":\"root\",\"groups\":[\"system:masters\"],\"uid\":\"0\",\
\"extra\":{\"x\":[\"y\"]}}${3:+,\"status\":$3}}"
}
CODE=$(kcurl "${JANE[@]}" -o "$KGATE_TEST_TMP/body" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' --data-binary "$(csr c1 '' '{"conditions":[{"type":"Approved","status":"True"}]}')" \
    "$KGATE_URL$CSRS")
OUT=$KGATE_TEST_TMP/body
check "jane creates a CertificateSigningRequest" code_is 201
check "... spec.username and groups are jane's, not what she sent" jpy \
    "d['spec']['username'] == 'jane' and d['spec']['groups'] == ['qa', 'dev', 'system:authenticated'] \
and 'uid' not in d['spec'] and 'extra' not in d['spec']"
check "... and it cannot be created approved" jpy "d['status'] == {}"
CODE=$(kcurl "${ADMIN[@]}" -o "$OUT" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -H 'Impersonate-User: jane' -H 'Impersonate-Group: g1' -H 'Impersonate-Uid: 42' \
    -H 'Impersonate-Extra-Scopes: s1' --data-binary "$(csr c2)" "$KGATE_URL$CSRS")
check "an impersonated create records the impersonated user, uid and extra" jpy \
    "d['spec']['username'] == 'jane' and d['spec']['uid'] == '42' and \
d['spec']['groups'] == ['g1', 'system:authenticated'] and d['spec']['extra'] == {'scopes': ['s1']}"

req GET $CSRS/c1
c1=$(cat "$OUT")
approved=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); d["status"]["conditions"]=[{"type":"Approved","status":"True","reason":"R","message":"M"}]; print(json.dumps(d))' "$c1")
req PUT $CSRS/c1/status "$approved"
check "the status subresource cannot approve" is_status 422 Invalid \
    'CertificateSigningRequest.certificates.k8s.io "c1" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"'
req PUT $CSRS/c1 "$approved"
check "the main resource ignores status changes" jpy "'conditions' not in d['status']"
CODE=$(kcurl -H "Authorization: Bearer alice-token" -o "$OUT" -w '%{http_code}' -X PUT \
    -H 'Content-Type: application/json' --data-binary "$approved" "$KGATE_URL$CSRS/c1/approval")
check "approval needs approve on the signer" is_status 403 Forbidden \
    'certificatesigningrequests.certificates.k8s.io "c1" is forbidden: user not permitted to approve requests with signerName "example.com/signer"'
CODE=$(kcurl "${JANE[@]}" -o "$OUT" -w '%{http_code}' -X PUT \
    -H 'Content-Type: application/json' --data-binary "$approved" "$KGATE_URL$CSRS/c1/approval")
check "a user allowed to approve for the signer approves through approval" jpy \
    "[(c['type'], c['status'], c['reason']) for c in d['status']['conditions']] == \
[('Approved', 'True', 'R')] and 'lastUpdateTime' in d['status']['conditions'][0] and \
'lastTransitionTime' in d['status']['conditions'][0]"
check "... the requester stays" jpy "d['spec']['username'] == 'jane'"
both=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["status"]["conditions"].append({"type":"Denied","status":"True"}); print(json.dumps(d))' "$OUT")
req PUT $CSRS/c1/approval "$both"
check "Approved and Denied are exclusive" jpy "d['code'] == 422 and d['reason'] == 'Invalid' and \
'only one of Approved or Denied is allowed' in d['message']"
req GET $CSRS/c1
none=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["status"]["conditions"]=[]; d["metadata"].pop("resourceVersion"); print(json.dumps(d))' "$OUT")
req PUT $CSRS/c1/approval "$none"
check "an approval cannot be taken back" is_status 422 Invalid \
    'CertificateSigningRequest.certificates.k8s.io "c1" is invalid: status.conditions: Forbidden: updates may not remove a condition of type "Approved"'
req GET $CSRS/c1
certified=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["status"]["certificate"]="Y2VydA=="; d["spec"]["signerName"]="other/x"; print(json.dumps(d))' "$OUT")
req PUT $CSRS/c1/status "$certified"
check "the status subresource sets the certificate (spec stays)" jpy \
    "d['status']['certificate'] == 'Y2VydA==' and d['spec']['signerName'] == 'example.com/signer'"
recert=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["status"]["certificate"]="b3RoZXI="; print(json.dumps(d))' "$OUT")
req PUT $CSRS/c1/status "$recert"
check "... but not twice" is_status 422 Invalid \
    'CertificateSigningRequest.certificates.k8s.io "c1" is invalid: status.certificate: Forbidden: updates may not modify existing certificate content'
req GET $CSRS/c2
signed=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["status"]["certificate"]="Y2VydA=="; print(json.dumps(d))' "$OUT")
CODE=$(kcurl -H "Authorization: Bearer alice-token" -o "$OUT" -w '%{http_code}' -X PUT \
    -H 'Content-Type: application/json' --data-binary "$signed" "$KGATE_URL$CSRS/c2/status")
check "setting the certificate needs sign on the signer" is_status 403 Forbidden \
    'certificatesigningrequests.certificates.k8s.io "c2" is forbidden: user not permitted to sign requests with signerName "example.com/signer"'
# approve on "<domain>/*" is enough for every signer of that domain.
req POST /apis/rbac.authorization.k8s.io/v1/clusterroles '{"metadata":{"name":"wild-approver"},
"rules":[{"apiGroups":["certificates.k8s.io"],"resources":["signers"],"verbs":["approve"],
"resourceNames":["wild.example/*"]}]}'
check "a ClusterRole allowing approve on wild.example/*" code_is 201
req POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings '{"metadata":{"name":"alice-wild"},
"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"wild-approver"},
"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}]}'
check "... bound to alice" code_is 201
CODE=$(kcurl "${JANE[@]}" -o "$OUT" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary "$(csr c5 wild.example/signer-a)" "$KGATE_URL$CSRS")
check "a CSR for wild.example/signer-a" code_is 201
wild=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["status"]["conditions"]=[{"type":"Approved","status":"True","reason":"R"}]; print(json.dumps(d))' "$OUT")
approve_wild() {
    CODE=$(kcurl -H "Authorization: Bearer alice-token" -o "$OUT" -w '%{http_code}' -X PUT \
        -H 'Content-Type: application/json' --data-binary "$wild" "$KGATE_URL$CSRS/c5/approval")
    [[ $CODE == 200 ]]
}
check "alice approves it through approve on wild.example/* (RBAC's snapshot may take a moment)" \
    eval 'for _ in $(seq 300); do approve_wild && break; sleep 0.1; done; [[ $CODE == 200 ]]'
check "... and it is Approved" jpy "[c['type'] for c in d['status']['conditions']] == ['Approved']"
CODE=$(kcurl "${JANE[@]}" -o "$OUT" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary "$(csr c6)" "$KGATE_URL$CSRS")
other=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["status"]["conditions"]=[{"type":"Approved","status":"True","reason":"R"}]; print(json.dumps(d))' "$OUT")
CODE=$(kcurl -H "Authorization: Bearer alice-token" -o "$OUT" -w '%{http_code}' -X PUT \
    -H 'Content-Type: application/json' --data-binary "$other" "$KGATE_URL$CSRS/c6/approval")
check "... which does not cover example.com/signer" is_status 403 Forbidden \
    'certificatesigningrequests.certificates.k8s.io "c6" is forbidden: user not permitted to approve requests with signerName "example.com/signer"'
req PATCH $CSRS/c2/approval '{"status":{"conditions":[{"type":"Denied","status":"True","reason":"No"}]}}' \
    application/merge-patch+json
check "a PATCH of approval denies" jpy "[c['type'] for c in d['status']['conditions']] == ['Denied']"
req GET $CSRS/c2/approval
check "GET of approval answers the object" jpy "d['kind'] == 'CertificateSigningRequest'"
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    CODE=$(kcurl "${JANE[@]}" -o "$OUT" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        --data-binary "$(csr c3)" "$KGATE_URL$CSRS")
    check "kubectl certificate approve works" k certificate approve c3
    req GET $CSRS/c3
    check "... the CSR is Approved by kubectl" jpy "[(c['type'], c['reason']) for c in \
d['status']['conditions']] == [('Approved', 'KubectlApprove')]"
    CODE=$(kcurl "${JANE[@]}" -o "$OUT" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        --data-binary "$(csr c4)" "$KGATE_URL$CSRS")
    check "kubectl certificate deny works" k certificate deny c4
    req GET $CSRS/c4
    check "... the CSR is Denied by kubectl" jpy "[(c['type'], c['reason']) for c in \
d['status']['conditions']] == [('Denied', 'KubectlDeny')]"
fi

# ---- pods/ephemeralcontainers -----------------------------------------------------------------
req POST $CORE/pods "$(pod d1)"
req GET $CORE/pods/d1/ephemeralcontainers
check "GET of ephemeralcontainers answers the pod" jpy "d['kind'] == 'Pod' and \
d['metadata']['name'] == 'd1'"
with_ec=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["spec"]["ephemeralContainers"]=[{"name":"dbg","image":"busybox","targetContainerName":"c"}]; d["spec"]["containers"][0]["image"]="changed"; d["metadata"]["labels"]={"x":"y"}; print(json.dumps(d))' "$OUT")
req PUT $CORE/pods/d1/ephemeralcontainers "$with_ec"
check "a PUT of ephemeralcontainers adds an ephemeral container (defaulted)" jpy \
    "[(e['name'], e['terminationMessagePolicy'], e['imagePullPolicy']) for e in \
d['spec']['ephemeralContainers']] == [('dbg', 'File', 'Always')]"
check "... and changes nothing else" jpy "d['spec']['containers'][0]['image'] == 'nginx' and \
d['metadata'].get('labels') == {}"
cur=$(cat "$OUT")
removed=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); d["spec"]["ephemeralContainers"]=[]; print(json.dumps(d))' "$cur")
req PUT $CORE/pods/d1/ephemeralcontainers "$removed"
check "an ephemeral container cannot be removed" jpy "d['code'] == 422 and d['message'] == \
'Pod \"d1\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be removed\\n'"
req PATCH $CORE/pods/d1/ephemeralcontainers \
    '{"spec":{"ephemeralContainers":[{"name":"dbg","image":"alpine","targetContainerName":"c"}]}}' \
    application/strategic-merge-patch+json
check "... nor changed" jpy "d['code'] == 422 and 'existing ephemeral containers \"dbg\" may not be changed' in d['message']"
req PATCH $CORE/pods/d1/ephemeralcontainers \
    '{"spec":{"ephemeralContainers":[{"name":"c","image":"busybox","ports":[{"containerPort":80}]}]}}' \
    application/strategic-merge-patch+json
check "names are unique across containers; ports are not for ephemeral containers" is_status 422 \
    Invalid 'Pod "d1" is invalid: [spec.ephemeralContainers[0].name: Duplicate value: "c", spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container]'
req PATCH $CORE/pods/d1/ephemeralcontainers \
    '{"spec":{"ephemeralContainers":[{"name":"e2","image":"busybox","targetContainerName":"zz"}]}}' \
    application/strategic-merge-patch+json
check "the target container must exist" is_status 422 Invalid \
    'Pod "d1" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: "zz"'
req POST $CORE/pods/d1/ephemeralcontainers '{}'
check "POST of ephemeralcontainers is 405" code_is 405
if kubectl_ok; then
    req POST $CORE/pods "$(pod d2)"
    check "kubectl debug adds an ephemeral container" k debug d2 --image=busybox
    req GET $CORE/pods/d2
    check "... a debugger container running busybox" jpy "[e['image'] for e in \
d['spec']['ephemeralContainers']] == ['busybox'] and \
d['spec']['ephemeralContainers'][0]['name'].startswith('debugger-')"
fi

# ---- events.k8s.io field selectors, watch bookmarks -------------------------------------------
EV1=/apis/events.k8s.io/v1/namespaces/default/events
req GET $CORE/events
ev_rv=$(jget "d['metadata']['resourceVersion']")
req POST $CORE/events '{"apiVersion":"v1","kind":"Event","metadata":{"name":"ev1"},
"involvedObject":{"kind":"Pod","name":"p1","namespace":"default","uid":"u1"},"reason":"Started",
"type":"Normal","source":{"component":"kubelet"},"message":"m"}'
check "a core Event is created" code_is 201
req POST $EV1 '{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"ev2"},
"regarding":{"kind":"Node","name":"n1","apiVersion":"v1"},"reason":"Rebooted","type":"Warning",
"reportingController":"example.com/ctl","reportingInstance":"i1","action":"Reboot",
"eventTime":"2024-01-01T00:00:00.000000Z","note":"n"}'
check "an events.k8s.io Event is created" code_is 201
names() { jpy "sorted(i['metadata']['name'] for i in d['items']) == $1"; }
req GET "$EV1?fieldSelector=regarding.kind%3DPod"
check "events.k8s.io selects on regarding.kind (a core Event's involvedObject.kind)" names "['ev1']"
req GET "$EV1?fieldSelector=regarding.name%3Dn1,type%3DWarning"
check "... on regarding.name and type" names "['ev2']"
req GET "$EV1?fieldSelector=reportingController%3Dexample.com/ctl"
check "... on reportingController" names "['ev2']"
req GET "$EV1?fieldSelector=reason%21%3DStarted"
check "... on reason" names "['ev2']"
req GET "$EV1?fieldSelector=regarding.uid%3Du1,regarding.namespace%3Ddefault"
check "... on regarding.uid and regarding.namespace" names "['ev1']"
req GET "$EV1?fieldSelector=involvedObject.kind%3DPod"
check "events.k8s.io does not take the core field names" is_status 400 BadRequest \
    'field label not supported: involvedObject.kind'
req GET "$CORE/events?fieldSelector=involvedObject.kind%3DNode"
check "core events select on involvedObject.kind (an events.k8s.io Event's regarding.kind)" \
    names "['ev2']"
req GET "$CORE/events?fieldSelector=source%3Dexample.com/ctl"
check "... source is the reporting controller when there is no source.component" names "['ev2']"
req GET "$CORE/events?fieldSelector=source%3Dkubelet,reportingComponent%3D"
check "... and source.component otherwise" names "['ev1']"
req GET "$CORE/events?fieldSelector=regarding.kind%3DPod"
check "core events do not take the events.k8s.io field names" is_status 400 BadRequest \
    'field label not supported: regarding.kind'
req GET "/api/v1/nodes?fieldSelector=metadata.namespace%3Dx"
check "nodes select on metadata.name and spec.unschedulable only" is_status 400 BadRequest \
    'field label not supported: metadata.namespace'
req GET "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse"
check "... an unset spec.unschedulable reads false" jpy "'n9' not in [i['metadata']['name'] for \
i in d['items']] and len(d['items']) >= 0"
req GET "$CORE/pods?fieldSelector=spec.hostNetwork%3Dfalse,spec.host%3Dn1"
check "pods: an unset hostNetwork reads false; spec.host is spec.nodeName" jpy \
    "{'b1', 'b2', 'w2'} <= {i['metadata']['name'] for i in d['items']} and \
all(i['spec']['nodeName'] == 'n1' for i in d['items'])"
req GET "$CORE/pods?fieldSelector=spec.hostNetwork%3Dtrue"
check "... and never true for them" jpy "d['items'] == []"
req GET "/apis/batch/v1/namespaces/default/jobs?fieldSelector=status.succeeded%3D1"
check "jobs name kube's message for an unsupported field" is_status 400 BadRequest \
    'field label "status.succeeded" not supported for batchv1.Job'
req GET "$CORE/services?fieldSelector=spec.type%3DClusterIP"
check "services select on spec.type" code_is 200

# 8 s: the event must have arrived by the bookmark 2 s before the end, even under sanitizers
# on a loaded machine.
start=$(date +%s.%N)
kcurl "${ADMIN[@]}" -N --max-time 20 -o "$KGATE_TEST_TMP/watch" \
    "$KGATE_URL$EV1?watch=true&resourceVersion=$ev_rv&allowWatchBookmarks=true&timeoutSeconds=8&fieldSelector=regarding.name%3Dn1"
took=$(python3 -c "import time; print(time.time() - $start)")
types=$(python3 -c 'import json,sys; print(" ".join(json.loads(l)["type"] + ":" + json.loads(l)["object"]["metadata"].get("name", "") for l in open(sys.argv[1]) if l.strip()))' "$KGATE_TEST_TMP/watch")
check "a selected watch gets its event, then a BOOKMARK before timeoutSeconds ends" \
    test "$types" = "ADDED:ev2 BOOKMARK:" || diag "got: $types"
last_rv=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]["object"]["metadata"]["resourceVersion"])' "$KGATE_TEST_TMP/watch")
req GET $CORE/events
# other writes (the instance's leases, renewed every 10 s) move the revision on meanwhile
first_rv=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1]) if l.strip()][0]["object"]["metadata"]["resourceVersion"])' "$KGATE_TEST_TMP/watch")
check "... the bookmark carries a resourceVersion past the event's, not past the collection's" \
    python3 -c "import sys; sys.exit(not int('$first_rv') <= int('$last_rv') <= \
int('$(jget "d['metadata']['resourceVersion']")'))"
within() { python3 -c "import sys; sys.exit(0 if $1 < $took < $2 else 1)" || { diag "took $took s"; return 1; }; }
check "... and the stream ends when timeoutSeconds says (8 s)" within 7.5 14
kcurl "${ADMIN[@]}" -N -o "$KGATE_TEST_TMP/watch" \
    "$KGATE_URL$CORE/events?watch=true&resourceVersion=$ev_rv&timeoutSeconds=1&fieldSelector=metadata.name%3Dev2"
check "a watch by name sees its object (core events)" test "$(python3 -c 'import json,sys; print(" ".join(json.loads(l)["object"]["metadata"]["name"] for l in open(sys.argv[1]) if l.strip()))' "$KGATE_TEST_TMP/watch")" = ev2
kcurl "${ADMIN[@]}" -N -o "$KGATE_TEST_TMP/watch" \
    "$KGATE_URL$EV1?watch=true&resourceVersion=$last_rv&allowWatchBookmarks=true&timeoutSeconds=3"
check "a watch with nothing past its start gets no bookmark (as kube's cacher)" test ! -s \
    "$KGATE_TEST_TMP/watch"

# ---- kubectl drain ----------------------------------------------------------------------------
if kubectl_ok; then
    req POST /api/v1/nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n9"}}'
    for p in r1 r2; do
        req POST $CORE/pods "$(pod $p '{"app":"drain"}' '"volumes":[{"name":"v","emptyDir":{}}]')"
        bind $p n9
        running $p
    done
    pdb drainpdb drain 2
    check "kubectl drain evicts the node's pods" k drain n9 --ignore-daemonsets \
        --delete-emptydir-data --force --grace-period=0 --timeout=60s
    check "... and says the node is drained" has 'node/n9 drained'
    req GET "$CORE/pods?fieldSelector=spec.nodeName%3Dn9"
    check "... none is left on the node" jpy "d['items'] == []"
    req GET /api/v1/nodes/n9
    check "... which is cordoned" jpy "d['spec']['unschedulable'] is True"
fi

check "kgate stops cleanly" clean_exit
tap_end
