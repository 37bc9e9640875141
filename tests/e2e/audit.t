#!/usr/bin/env bash
# The audit log (--audit-policy-file, --audit-log-*), as kube-apiserver writes it: one
# audit.k8s.io/v1 Event a line per stage, the level of the first matching rule (None: nothing),
# omitStages, the Audit-ID header as auditID, user and impersonatedUser, objectRef,
# responseStatus, requestObject at Request, responseObject at RequestResponse, omitManagedFields,
# the authorization annotations, kube's audit metrics, '-' for standard output, rotation at
# --audit-log-maxsize, and the start-up errors of a bad policy and an unwritable log path.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/audit_lib.sh
e2e_require audit

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
D=$KGATE_TEST_TMP
LOG=$D/logs/audit.log
cat >"$D/policy.yaml" <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/readyz*", "/livez*", "/healthz*"]
- level: None
  users: ["bob"]
- level: Metadata
  resources:
  - group: ""
    resources: ["secrets"]
- level: RequestResponse
  omitStages: ["RequestReceived"]
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Request
  namespaces: ["default"]
  resources:
  - group: ""
    resources: ["pods"]
- level: RequestResponse
  omitManagedFields: true
  resources:
  - group: apps
    resources: ["deployments"]
- level: Metadata
  userGroups: ["dev"]
- level: Metadata
  nonResourceURLs: ["/version", "/api*"]
YAML

# ev EXPR: a Python expression over es (the events, in order) and e (the last one).
ev() {
    python3 - "$1" "$D/events" <<'PY'
import json, sys
es = [json.loads(l) for l in open(sys.argv[2])]
e = es[-1]
v = eval(sys.argv[1])
if v is not True:
    print("# ev: %r gave %r over %s" % (sys.argv[1], v, json.dumps(es)[:1500]))
    sys.exit(1)
PY
}
audit_id() { header Audit-Id; }

check "kgate starts with the audit policy and log (RBAC)" api_start audit \
    --authorization-mode=RBAC --audit-policy-file="$D/policy.yaml" --audit-log-path="$LOG"
check "the log's directory and file are created" test -f "$LOG"

req POST $CORE/configmaps "$(cm one)"
ID=$(audit_id)
check "a ConfigMap is created (201)" code_is 201
check "its events carry the Audit-ID header as auditID" events "$ID"
check "RequestReceived is omitted by the rule: ResponseComplete only" ev \
    "[x['stage'] for x in es] == ['ResponseComplete']"
check "the event's kind, apiVersion, level and verb" ev \
    "(e['kind'], e['apiVersion'], e['level'], e['verb']) == ('Event', 'audit.k8s.io/v1', 'RequestResponse', 'create')"
check "requestURI and the user" ev \
    "e['requestURI'] == '/api/v1/namespaces/default/configmaps' and e['user']['username'] == 'kubernetes-admin' and e['user']['groups'] == ['system:masters', 'system:authenticated']"
check "sourceIPs and userAgent" ev "e['sourceIPs'] == ['127.0.0.1'] and e['userAgent'].startswith('curl/')"
check "objectRef names the object from the body" ev \
    "e['objectRef'] == {'resource': 'configmaps', 'namespace': 'default', 'name': 'one', 'apiVersion': 'v1'}"
check "responseStatus of a success: metadata and code" ev "e['responseStatus'] == {'metadata': {}, 'code': 201}"
check "requestObject is the body" ev "e['requestObject']['data'] == {'k': 'v'}"
check "responseObject is the created object" ev \
    "e['responseObject']['metadata']['name'] == 'one' and 'uid' in e['responseObject']['metadata'] and 'managedFields' in e['responseObject']['metadata']"
check "the authorization annotations" ev \
    "e['annotations']['authorization.k8s.io/decision'] == 'allow' and 'authorization.k8s.io/reason' in e['annotations']"
check "timestamps are MicroTime, the stage's not before the request's" ev \
    "all(len(x) == 27 and x.endswith('Z') and x[19] == '.' for x in (e['requestReceivedTimestamp'], e['stageTimestamp'])) and e['stageTimestamp'] >= e['requestReceivedTimestamp']"
check "fields in kube's order" ev \
    "list(e) == ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', 'requestObject', 'responseObject', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']"

req GET $CORE/secrets/missing
ID=$(audit_id)
check "a missing Secret: 404" code_is 404
events "$ID"
check "Metadata level: RequestReceived then ResponseComplete" ev \
    "[x['stage'] for x in es] == ['RequestReceived', 'ResponseComplete'] and e['level'] == 'Metadata'"
check "RequestReceived has no responseStatus and no annotations" ev \
    "'responseStatus' not in es[0] and 'annotations' not in es[0] and es[0]['stageTimestamp'] == es[0]['requestReceivedTimestamp']"
check "responseStatus of a failure: status, message, reason, details, code" ev \
    "e['responseStatus'] == {'metadata': {}, 'status': 'Failure', 'message': 'secrets \"missing\" not found', 'reason': 'NotFound', 'details': {'name': 'missing', 'kind': 'secrets'}, 'code': 404}"
check "no objects at Metadata" ev "'requestObject' not in e and 'responseObject' not in e"

fetch $CORE/pods "${ALICE[@]}"
ID=$(audit_id)
check "alice may not list pods: 403" code_is 403
events "$ID"
check "her user (uid, groups) and the rule by namespace: Request" ev \
    "e['user'] == {'username': 'alice', 'uid': '1001', 'groups': ['dev', 'ops', 'system:authenticated']} and e['level'] == 'Request'"
check "403 Forbidden in responseStatus, verb list" ev \
    "e['responseStatus']['code'] == 403 and e['responseStatus']['reason'] == 'Forbidden' and e['verb'] == 'list'"
check "decision forbid" ev "e['annotations']['authorization.k8s.io/decision'] == 'forbid'"

fetch /api/v1/namespaces/kube-system/services "${ALICE[@]}"
ID=$(audit_id)
events "$ID"
check "a rule by userGroups (dev): Metadata" ev "e['level'] == 'Metadata'"

fetch $CORE/configmaps/one "${ADMIN[@]}" -H "Impersonate-User: alice" -H "Impersonate-Group: dev"
ID=$(audit_id)
check "the admin as alice may not read the ConfigMap: 403" code_is 403
events "$ID"
check "user is the admin, impersonatedUser alice" ev \
    "e['user']['username'] == 'kubernetes-admin' and e['impersonatedUser'] == {'username': 'alice', 'groups': ['dev', 'system:authenticated']}"

POD='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}'
req POST $CORE/pods "$POD"
ID=$(audit_id)
check "a Pod is created" code_is 201
events "$ID"
check "Request level: requestObject, no responseObject" ev \
    "e['level'] == 'Request' and e['requestObject']['metadata']['name'] == 'p1' and 'responseObject' not in e"

req POST $APPS/deployments "$(deploy web)"
ID=$(audit_id)
check "a Deployment is created" code_is 201
events "$ID"
check "omitManagedFields: the responseObject has no managedFields" ev \
    "e['responseObject']['metadata']['name'] == 'web' and 'managedFields' not in e['responseObject']['metadata'] and 'labels' in e['responseObject']['spec']['template']['metadata']"
req PATCH $APPS/deployments/web '{"spec":{"replicas":2}}' application/merge-patch+json
ID=$(audit_id)
events "$ID"
check "a patch's requestObject is the patch" ev \
    "e['verb'] == 'patch' and e['requestObject'] == {'spec': {'replicas': 2}} and e['objectRef']['apiGroup'] == 'apps' and e['objectRef']['name'] == 'web'"

req GET "$CORE/configmaps?watch=1&timeoutSeconds=1"
ID=$(audit_id)
check "a watch answers" code_is 200
events "$ID"
check "a watch: ResponseStarted then ResponseComplete, code 200" ev \
    "[x['stage'] for x in es] == ['ResponseStarted', 'ResponseComplete'] and all(x['responseStatus']['code'] == 200 for x in es) and e['verb'] == 'watch'"

fetch /version "${ALICE[@]}"
ID=$(audit_id)
events "$ID"
check "a non-resource request: verb get, no objectRef" ev \
    "e['verb'] == 'get' and 'objectRef' not in e and e['requestURI'] == '/version'"

fetch $CORE/configmaps -H "Authorization: Bearer bob-token"
check "bob's request (level None) answers" test -n "$(audit_id)"
BOB_ID=$(audit_id)
sleep 0.3
check "... and is not in the log" bash -c "! grep -qF '$BOB_ID' '$LOG'"

if kubectl_ok; then
    kubeconfig "$D/kubeconfig"
    kubectl --kubeconfig "$D/kubeconfig" get configmap one -n default >/dev/null 2>&1
    check "kubectl's get is logged with its userAgent" bash -c \
        "for i in \$(seq 50); do grep -q '\"userAgent\":\"kubectl/v1.32' '$LOG' && exit 0; sleep 0.1; done; exit 1"
fi

fetch $CORE/configmaps -H "Authorization: Bearer wrong-token"
ID=$(audit_id)
check "a wrong token: 401" code_is 401
for _ in $(seq 50); do grep -qF "\"auditID\":\"$ID\"" "$LOG" && break; sleep 0.1; done
grep -F "\"auditID\":\"$ID\"" "$LOG" >"$D/events"
check "failed authentication: one event, at ResponseStarted, without a user" ev \
    "len(es) == 1 and e['stage'] == 'ResponseStarted' and e['user'] == {} and e['level'] == 'RequestResponse'"
check "... with the 401 Status" ev \
    "e['responseStatus']['code'] == 401 and e['responseStatus']['reason'] == 'Unauthorized'"

fetch /metrics "${ADMIN[@]}"
check "apiserver_audit_event_total counts events" bash -c \
    "grep -E '^apiserver_audit_event_total [1-9]' '$OUT'"
check "apiserver_audit_level_total by level (None counted)" bash -c \
    "grep -E '^apiserver_audit_level_total\\{level=\"None\"\\} [1-9]' '$OUT' && grep -E '^apiserver_audit_level_total\\{level=\"RequestResponse\"\\} [1-9]' '$OUT'"
check "apiserver_audit_error_total of the log plugin at 0" bash -c \
    "grep -E '^apiserver_audit_error_total\\{plugin=\"log\"\\} 0$' '$OUT'"
check "kgate stops cleanly" clean_exit

# '-': events on standard output
check "kgate starts with --audit-log-path=-" api_start stdout \
    --audit-policy-file="$D/policy.yaml" --audit-log-path=-
fetch /version "${ALICE[@]}"
ID=$(audit_id)
check "the events go to standard output" wait_for_line "\"auditID\":\"$ID\",\"stage\":\"ResponseComplete\"" "$KGATE_LOG"
check "kgate stops cleanly" clean_exit

# rotation at --audit-log-maxsize (MB), one backup kept
RLOG=$D/rot/audit.log
check "kgate starts with --audit-log-maxsize=1 --audit-log-maxbackup=1" api_start rot \
    --audit-policy-file="$D/policy.yaml" --audit-log-path="$RLOG" --audit-log-maxsize=1 \
    --audit-log-maxbackup=1
for i in $(seq 1 16); do
    python3 -c "import json; print(json.dumps({'apiVersion': 'v1', 'kind': 'ConfigMap', \
'metadata': {'name': 'big$i'}, 'data': {'k': 'x' * 150000}}))" >"$D/big.json"
    CODE=$(kcurl "${ADMIN[@]}" -o /dev/null -w '%{http_code}' -X POST \
        -H 'Content-Type: application/json' --data-binary @"$D/big.json" "$KGATE_URL$CORE/configmaps")
done
check "the last create answers 201" test "$CODE" = 201
sleep 0.5
check "the log rotated: one backup named <name>-<time>.log" bash -c \
    "ls '$D/rot' | grep -cE '^audit-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}\\.[0-9]{3}\\.log$' | grep -qx 1"
check "no file past 1 MiB" bash -c "! find '$D/rot' -size +1048576c | grep -q ."
check "every line is one whole event" bash -c \
    "cat '$D/rot'/* | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]'"
check "kgate stops cleanly" clean_exit

# start-up errors
start_fails() {
    "$KGATE" --etcd-servers="$KGATE_TEST_ETCD" --bind-address=127.0.0.1 --secure-port="$(free_port)" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" "$@" \
        >"$D/fail.out" 2>&1
    FAIL_RC=$?
    [[ $FAIL_RC -eq 1 ]] || diag "exit $FAIL_RC: $(cat "$D/fail.out")"
    [[ $FAIL_RC -eq 1 ]]
}
touch "$D/plainfile"
check "an unwritable log path: exit 1" start_fails --audit-policy-file="$D/policy.yaml" \
    --audit-log-path="$D/plainfile/audit.log"
check "... saying why" grep -qF "kgate: ensureLogFile: mkdir $D/plainfile: not a directory" "$D/fail.out"
printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- verbs: [get]\n- level: Loud\n' >"$D/bad.yaml"
check "a policy with errors: exit 1" start_fails --audit-policy-file="$D/bad.yaml" \
    --audit-log-path="$D/x.log"
check "... in kube's words" grep -qF \
    "kgate: [rules[0].level: Required value, rules[1].level: Unsupported value: \"Loud\": supported values: \"None\", \"Metadata\", \"Request\", \"RequestResponse\"]: from file $D/bad.yaml" \
    "$D/fail.out"
printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\n' >"$D/empty.yaml"
check "a policy without rules: exit 1" start_fails --audit-policy-file="$D/empty.yaml" \
    --audit-log-path="$D/x.log"
check "... in kube's words" grep -qF "loaded illegal policy with 0 rules: from file" "$D/fail.out"
check "--audit-log-format=legacy is refused" bash -c \
    "'$KGATE' --etcd-servers=http://127.0.0.1:1 --audit-log-format=legacy 2>&1 | grep -q 'invalid audit log format'"
check "--audit-log-maxage=-1 is refused in kube's words" bash -c \
    "'$KGATE' --etcd-servers=http://127.0.0.1:1 --audit-log-maxage=-1 2>&1 | grep -qF -- '--audit-log-maxage -1 can'\"'\"'t be a negative number'"
tap_end
