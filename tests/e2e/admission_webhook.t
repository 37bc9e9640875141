#!/usr/bin/env bash
# Admission webhooks end to end on two kgate instances sharing etcd: a loopback HTTPS webhook
# server written here answers by path (allow, deny, a label patch, warnings and audit
# annotations, garbage, a wrong uid, a slow answer). Validating refusals with kube's code and
# message, a mutating patch, reinvocation of an IfNeeded webhook, failurePolicy Ignore and Fail
# on a dead and a slow webhook, namespace and object selectors, matchConditions, dry run with
# each sideEffects class (Unknown and Some written straight into etcd), a webhook reached
# through a Service and its Endpoints, and a configuration created on one instance enforced
# on the other within a second; stock kubectl shows kube's refusal.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/instances_lib.sh
source scripts/pki.sh
e2e_require admission_webhook

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
pki_cert "$PKI" ca webhook server "/CN=webhook" "DNS:localhost,IP:127.0.0.1,DNS:hook.default.svc,DNS:hook2.default.svc"
set_users
trap stop_all EXIT
PREFIX=/registry-wh-$$
ARV=/apis/admissionregistration.k8s.io/v1
HOOK_LOG=$KGATE_TEST_TMP/hook.log
HOOK_PORT=$(free_port)
DEAD_PORT=$(free_port)
CA_B64=$(base64 -w0 "$PKI/ca.crt")

# The webhook: answers by its path; logs "<path> <operation> <name> <dryRun> <labels>" per call.
start_hook() {
    python3 - "$HOOK_PORT" "$PKI/webhook.crt" "$PKI/webhook.key" "$HOOK_LOG" \
        >>"$KGATE_TEST_TMP/hook.err" 2>&1 <<'PY' &
import base64, http.server, json, ssl, sys, time
port, crt, key, log = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]

def patch(ops):
    return {"patchType": "JSONPatch", "patch": base64.b64encode(json.dumps(ops).encode()).decode()}

def add_label(obj, k, v):
    labels = obj.get("metadata", {}).get("labels")
    if labels is None:
        return patch([{"op": "add", "path": "/metadata/labels", "value": {k: v}}])
    if labels.get(k) == v:
        return {}
    return patch([{"op": "add", "path": "/metadata/labels/" + k, "value": v}])

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        req = review["request"]
        path = self.path.split("?")[0]
        obj = req.get("object") or {}
        with open(log, "a") as f:
            f.write("%s %s %s %s %s\n" % (path, req["operation"], req.get("name", "-"),
                    req["dryRun"], json.dumps(obj.get("metadata", {}).get("labels", {}),
                                              sort_keys=True, separators=(",", ":"))))
        with open(log + ".last", "w") as f:
            json.dump(review, f)
        rsp = {"uid": req["uid"], "allowed": True}
        if path == "/deny":
            rsp = {"uid": req["uid"], "allowed": False,
                   "status": {"code": 403, "reason": "Forbidden", "message": "no thanks"}}
        elif path == "/deny-bare":
            rsp = {"uid": req["uid"], "allowed": False}
        elif path == "/label":
            rsp.update(add_label(obj, "patched", "yes"))
        elif path == "/reinvoke-a":
            rsp.update(add_label(obj, "a", "1"))
        elif path == "/reinvoke-b":
            rsp.update(add_label(obj, "b", "1"))
        elif path == "/notes":
            rsp["warnings"] = ["think twice"]
            rsp["auditAnnotations"] = {"seen": "yes"}
        elif path == "/wronguid":
            rsp["uid"] = "nope"
        elif path == "/bad-patch":
            rsp.update(patch([{"op": "replace", "path": "/nothing/here", "value": 1}]))
        elif path == "/typed":
            rsp.update(patch([{"op": "add", "path": "/data", "value": {"n": 1}}]))
        elif path == "/unknown":
            rsp.update(patch([{"op": "add", "path": "/extra", "value": {"x": 1}}]))
        elif path == "/huge":
            rsp["warnings"] = ["x" * (5 << 20)]
        elif path == "/slow":
            time.sleep(3)
        if path == "/garbage":
            body = b"garbage"
        else:
            body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                               "response": rsp}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

srv = http.server.ThreadingHTTPServer(("0.0.0.0", port), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(crt, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
    echo "$!" >>"$KGATE_TEST_TMP/pids"
    for _ in $(seq 50); do
        curl -s --cacert "$PKI/ca.crt" -o /dev/null "https://127.0.0.1:$HOOK_PORT/" && return 0
        sleep 0.1
    done
    return 1
}

url() { echo "{\"url\":\"https://127.0.0.1:${2:-$HOOK_PORT}$1\",\"caBundle\":\"$CA_B64\"}"; }

# hook NAME ROW CLIENT-CONFIG [MEMBERS]: one webhook on configmap creates labelled row=ROW.
hook() {
    echo "{\"name\":\"$1\",\"clientConfig\":$3,\"rules\":[{\"operations\":[\"CREATE\"],
\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"resources\":[\"configmaps\"]}],
\"objectSelector\":{\"matchLabels\":{\"row\":\"$2\"}},\"sideEffects\":\"None\",
\"admissionReviewVersions\":[\"v1\"]${4:+,$4}}"
}
# config KIND NAME WEBHOOKS: create a webhook configuration (KIND mutating or validating).
config() {
    local plural=validatingwebhookconfigurations kind=ValidatingWebhookConfiguration
    [[ $1 == mutating ]] && plural=mutatingwebhookconfigurations kind=MutatingWebhookConfiguration
    req POST "$ARV/$plural" "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"$kind\",
\"metadata\":{\"name\":\"$2\"},\"webhooks\":[$3]}"
    code_is 201
}
# row NAME ROW [NAMESPACE]: a ConfigMap labelled row=ROW.
row() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$1\",
\"namespace\":\"${3:-default}\",\"labels\":{\"row\":\"$2\"}},\"data\":{\"k\":\"v\"}}"
}
# create NAME ROW [NAMESPACE [QUERY]]
create() { req POST "/api/v1/namespaces/${3:-default}/configmaps${4:-}" "$(row "$1" "$2" "${3:-}")"; }
# until_code CODE SECONDS NAME ROW: dry-run creates until one answers CODE.
until_code() {
    local want=$1 secs=$2 end
    end=$(($(date +%s%N) + secs * 1000000000))
    while (($(date +%s%N) < end)); do
        create "$3" "$4" default "?dryRun=All"
        [[ $CODE == "$want" ]] && return 0
        sleep 0.05
    done
    diag "got $CODE: $(head -c 400 "$OUT")"
    return 1
}
calls() { [[ -f $HOOK_LOG ]] && grep -c "^$1 CREATE $2 " "$HOOK_LOG" || echo 0; }
internal() {
    is_status 500 InternalError "Internal error occurred: failed calling webhook \"$1\": $2" &&
        python3 - "failed calling webhook \"$1\": $2" "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
sys.exit(0 if d.get("details") == {"causes": [{"message": sys.argv[1]}]} else 1)
PY
}

check "the webhook starts" start_hook
AUDIT_LOG=$KGATE_TEST_TMP/audit.log
printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Request\n' \
    >"$KGATE_TEST_TMP/audit.yaml"
check "instance a starts, with an audit log" start a \
    --audit-policy-file="$KGATE_TEST_TMP/audit.yaml" --audit-log-path="$AUDIT_LOG"
check "instance b starts" start b

# ---- one instance's configuration enforced by the other ------------------------------------
on b
create c0 deny
check "without webhooks a configmap is created" code_is 201
on a
check "a denying validating webhook is configured through a" config validating v-deny \
    "$(hook deny.example.com deny "$(url /deny)")"
on b
check "instance b calls it within a second" until_code 403 1 c1 deny
check "... kube's refusal: the webhook's status, its message prefixed" is_status 403 Forbidden \
    'admission webhook "deny.example.com" denied the request: no thanks'
create c1 deny
check "a real create is refused the same way" is_status 403 Forbidden \
    'admission webhook "deny.example.com" denied the request: no thanks'
req GET $CORE/configmaps/c1
check "... and nothing was written" code_is 404
create c2 other
check "the object selector leaves other objects alone" code_is 201

# ---- the review ---------------------------------------------------------------------------
on a
check "an allowing webhook" config validating v-allow "$(hook allow.example.com allow "$(url /allow)")"
check "... is called within a second" until_code 201 1 r1 allow
create r1 allow
check "... and admits" code_is 201
check "the review names the request as kube's does" python3 - "$HOOK_LOG.last" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
q = r["request"]
assert r["apiVersion"] == "admission.k8s.io/v1" and r["kind"] == "AdmissionReview", r
assert list(q)[:3] == ["uid", "kind", "resource"], list(q)
assert q["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}, q
assert q["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}, q
assert q["requestKind"] == q["kind"] and q["requestResource"] == q["resource"], q
assert q["name"] == "r1" and q["namespace"] == "default" and q["operation"] == "CREATE", q
assert q["userInfo"]["username"] == "kubernetes-admin", q
assert "system:masters" in q["userInfo"]["groups"], q
assert q["object"]["metadata"]["name"] == "r1" and q["oldObject"] is None, q
assert q["dryRun"] is False, q
assert q["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}, q
PY

# ---- mutating: a patch, and reinvocation ---------------------------------------------------
check "a mutating webhook adding a label" config mutating m-label \
    "$(hook label.example.com label "$(url /label)")"
check "... is called within a second" until_code 201 1 p0 label
check "... and its label is in the dry run's answer" jpy \
    "d['metadata']['labels'] == {'row': 'label', 'patched': 'yes'}"
create p1 label
check "a create stores the patched object" jpy "d['metadata']['labels'].get('patched') == 'yes'"
req GET $CORE/configmaps/p1
check "... as read back" jpy "d['metadata']['labels'] == {'row': 'label', 'patched': 'yes'}"

check "two mutating webhooks, the first IfNeeded" config mutating m1-a \
    "$(hook a.example.com reinvoke "$(url /reinvoke-a)" '"reinvocationPolicy":"IfNeeded"')"
check "... the second Never" config mutating m2-b "$(hook b.example.com reinvoke "$(url /reinvoke-b)")"
sleep 1
create re1 reinvoke
check "the object gets both labels" jpy "d['metadata']['labels'] == {'row': 'reinvoke', 'a': '1', 'b': '1'}"
check "the IfNeeded webhook is called again after the second one changed the object" \
    test "$(calls /reinvoke-a re1)" = 2
check "... the other once" test "$(calls /reinvoke-b re1)" = 1

# ---- warnings and audit annotations ---------------------------------------------------------
check "a webhook with warnings and audit annotations" config validating v-notes \
    "$(hook notes.example.com notes "$(url /notes)")"
sleep 1
create n1 notes
check "... admits" code_is 201
check "its warning is a Warning header" test "$(warnings)" = '299 - "think twice"'
# audited NAME: the annotations of the ResponseComplete event of the create of NAME.
audited() {
    python3 - "$AUDIT_LOG" "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if (e.get("stage") == "ResponseComplete" and e.get("verb") == "create"
            and e.get("objectRef", {}).get("name") == sys.argv[2]):
        print(json.dumps(e.get("annotations", {}), sort_keys=True))
PY
}
# audited_has NAME ERE: the audit event of NAME's create has a line matching ERE (the log is
# written behind the answers: wait for it a little).
audited_has() {
    for _ in $(seq 30); do
        grep -qE "$2" <<<"$(audited "$1")" && return 0
        sleep 0.1
    done
    diag "$(audited "$1")"
    return 1
}
check "its audit annotation is <webhook>/<key>" \
    grep -qF '"notes.example.com/seen": "yes"' <<<"$(audited n1)"
check "a mutation is annotated as kube does" grep -qF \
    '"mutation.webhook.admission.k8s.io/round_0_index_0": "{\"configuration\":\"m-label\",\"webhook\":\"label.example.com\",\"mutated\":true}"' \
    <<<"$(audited p1)"
check "... and its patch (level Request)" grep -qF \
    '"patch.webhook.admission.k8s.io/round_0_index_0": "{\"configuration\":\"m-label\",\"webhook\":\"label.example.com\",\"patch\":[{\"op\":\"add\",\"path\":\"/metadata/labels/patched\",\"value\":\"yes\"}],\"patchType\":\"JSONPatch\"}"' \
    <<<"$(audited p1)"

# ---- failures and failurePolicy ------------------------------------------------------------
check "a dead webhook under Fail" config validating v-dead \
    "$(hook dead.example.com dead "$(url /x "$DEAD_PORT")" '"failurePolicy":"Fail"')"
sleep 1
create d1 dead
check "... refuses with kube's internal error" internal dead.example.com \
    "failed to call webhook: Post \"https://127.0.0.1:$DEAD_PORT/x?timeout=10s\": dial tcp 127.0.0.1:$DEAD_PORT: connect: connection refused"
check "a dead webhook under Ignore" config validating v-dead-ignore \
    "$(hook dead-ignore.example.com deadok "$(url /x "$DEAD_PORT")" '"failurePolicy":"Ignore"')"
sleep 1
create d2 deadok
check "... is ignored" code_is 201
check "... and logged as kube logs it" grep -qF \
    'Failed calling webhook, failing open dead-ignore.example.com: failed calling webhook "dead-ignore.example.com": failed to call webhook: Post' \
    "${LOG[a]}"
check "a slow webhook (timeoutSeconds 1) under Fail" config validating v-slow \
    "$(hook slow.example.com slow "$(url /slow)" '"timeoutSeconds":1')"
sleep 1
start_ns=$(date +%s%N)
create s1 slow
elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))
check "... times out with kube's message" internal slow.example.com \
    "failed to call webhook: Post \"https://127.0.0.1:$HOOK_PORT/slow?timeout=1s\": context deadline exceeded"
check "... after about a second" test "$elapsed_ms" -lt 2500 || diag "took $elapsed_ms ms"
check "a slow webhook under Ignore" config validating v-slow-ignore \
    "$(hook slow-ignore.example.com slowok "$(url /slow)" '"timeoutSeconds":1,"failurePolicy":"Ignore"')"
sleep 1
create s2 slowok
check "... is ignored" code_is 201
check "a webhook answering garbage" config validating v-garbage \
    "$(hook garbage.example.com garbage "$(url /garbage)")"
sleep 1
create g1 garbage
check "... refuses with the decoder's words" internal garbage.example.com \
    "failed to call webhook: couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value"
check "a webhook answering another uid" config validating v-uid \
    "$(hook uid.example.com uid "$(url /wronguid)")"
sleep 1
create u1 uid
check "... refuses" internal uid.example.com \
    "received invalid webhook response: expected response.uid=\"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["request"]["uid"])' "$HOOK_LOG.last")\", got \"nope\""
check "a webhook answering more than 4 MiB" config validating v-huge \
    "$(hook huge.example.com huge "$(url /huge)")"
sleep 1
create hu1 huge
check "... refuses as a failed call" internal huge.example.com \
    "failed to call webhook: Post \"https://127.0.0.1:$HOOK_PORT/huge?timeout=10s\": http: response body too large"
check "a mutating webhook whose patch does not apply" config mutating m-badpatch \
    "$(hook badpatch.example.com badpatch "$(url /bad-patch)" '"failurePolicy":"Ignore"')"
sleep 1
create bp1 badpatch
check "... is an internal error whatever the failurePolicy" jpy \
    "d['code'] == 500 and d['reason'] == 'InternalError' and d['message'].startswith('Internal error occurred: ')"
check "a mutating webhook patching in a value its Go type cannot hold" config mutating m-typed \
    "$(hook typed.example.com typed "$(url /typed)" '"failurePolicy":"Ignore"')"
sleep 1
create ty1 typed
check "... is kube's internal error in the decoder's words, whatever the failurePolicy" \
    is_status 500 InternalError \
    'Internal error occurred: json: cannot unmarshal number into Go struct field ConfigMap.data of type string'
check "a mutating webhook adding a field ConfigMaps do not have" config mutating m-unknown \
    "$(hook unknown.example.com unknown "$(url /unknown)")"
sleep 1
create un1 unknown
check "... admits, the field dropped as kube's decoder drops it" \
    jpy "d['metadata']['name'] == 'un1' and 'extra' not in d"

check "a mutating webhook on a dead port under Ignore" config mutating m-dead \
    "$(hook mdead.example.com mdead "$(url /x "$DEAD_PORT")" '"failurePolicy":"Ignore"')"
sleep 1
create md1 mdead
check "... is ignored" code_is 201
check "... and kube's failed-open annotation names it" audited_has md1 \
    '"failed-open\.mutation\.webhook\.admission\.k8s\.io/round_0_index_[0-9]+": "mdead\.example\.com"'
check "a webhook speaking v1beta1 only" config validating v-beta \
    "$(hook beta.example.com beta "$(url /allow)" | sed 's/"admissionReviewVersions":\["v1"\]/"admissionReviewVersions":["v1beta1"]/')"
sleep 1
create b1 beta
check "... is called" code_is 201
check "... with a v1beta1 review" jpy "d['apiVersion'] == 'admission.k8s.io/v1beta1'" "$HOOK_LOG.last"
check "a webhook denying deletes" config validating v-del \
    "$(hook del.example.com deldeny "$(url /deny)" | sed 's/"operations":\["CREATE"\]/"operations":["DELETE"]/')"
sleep 1
create del1 deldeny
check "... leaves creates alone" code_is 201
req DELETE $CORE/configmaps/del1
check "... refuses the delete" is_status 403 Forbidden \
    'admission webhook "del.example.com" denied the request: no thanks'
check "... whose review holds the old object and DeleteOptions" jpy \
    "d['request']['operation'] == 'DELETE' and d['request']['object'] is None and d['request']['oldObject']['metadata']['name'] == 'del1' and d['request']['options']['kind'] == 'DeleteOptions' and d['request']['options']['apiVersion'] == 'meta.k8s.io/v1'" "$HOOK_LOG.last"
req GET $CORE/configmaps/del1
check "... and the object stays" code_is 200

# ---- selectors and matchConditions ----------------------------------------------------------
req POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"guarded","labels":{"guard":"on"}}}'
check "a labelled namespace" code_is 201
req POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"open"}}'
check "an unlabelled one" code_is 201
check "a denying webhook with a namespace selector" config validating v-ns \
    "$(hook ns.example.com nssel "$(url /deny)" '"namespaceSelector":{"matchLabels":{"guard":"on"}}')"
sleep 1
create ns1 nssel guarded
check "... refuses in the selected namespace" code_is 403
create ns2 nssel open
check "... not in the other" code_is 201
check "a denying webhook with matchConditions" config validating v-mc \
    "$(hook mc.example.com mc "$(url /deny)" '"matchConditions":[{"name":"only-bad","expression":"object.metadata.name.startsWith('"'"'bad'"'"')"}]')"
sleep 1
create good1 mc
check "... a false condition skips it" code_is 201
create bad1 mc
check "... a true one calls it" code_is 403
check "a webhook whose condition errs under Fail" config validating v-mcerr \
    "$(hook mcerr.example.com mcerr "$(url /allow)" '"matchConditions":[{"name":"err","expression":"object.data.missing == '"'"'x'"'"'"}]')"
sleep 1
create e1 mcerr
check "... refuses with kube's forbidden" jpy \
    "d['code'] == 403 and d['reason'] == 'Forbidden' and d['message'].startswith('configmaps \"e1\" is forbidden: expression ')"

# ---- matchPolicy Equivalent: the matched version's review and object ------------------------
hpa_hook() {
    echo "{\"name\":\"$1\",\"clientConfig\":$2,\"rules\":[{\"operations\":[\"CREATE\"],
\"apiGroups\":[\"autoscaling\"],\"apiVersions\":[\"v1\"],\"resources\":[\"horizontalpodautoscalers\"]}],
\"matchPolicy\":\"Equivalent\",\"objectSelector\":{\"matchLabels\":{\"row\":\"equiv\"}},
\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]}"
}
check "a mutating webhook on autoscaling/v1 HPAs, matchPolicy Equivalent" config mutating m-equiv \
    "$(hpa_hook equiv.example.com "$(url /label)")"
sleep 1
req POST /apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers '{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h1","labels":{"row":"equiv"}},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"minReplicas":1,"maxReplicas":3,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}}'
check "an autoscaling/v2 create is admitted" code_is 201
check "... with the label the webhook patched in through v1" jpy \
    "d['apiVersion'] == 'autoscaling/v2' and d['metadata']['labels'].get('patched') == 'yes' and d['spec']['metrics'][0]['resource']['target']['averageUtilization'] == 50"
check "the webhook got the matched version's kind and resource, the request's beside them" \
    jpy "d['request']['kind'] == {'group': 'autoscaling', 'version': 'v1', 'kind': 'HorizontalPodAutoscaler'} and d['request']['resource']['version'] == 'v1' and d['request']['requestKind']['version'] == 'v2' and d['request']['requestResource']['version'] == 'v2'" "$HOOK_LOG.last"
check "... and the object in that version" jpy \
    "d['request']['object']['apiVersion'] == 'autoscaling/v1' and d['request']['object']['spec']['targetCPUUtilizationPercentage'] == 50" "$HOOK_LOG.last"

# ---- dry run and sideEffects ------------------------------------------------------------------
check "None: called with dryRun true" until_code 201 1 dr1 allow
check "... the review says so" jpy "d['request']['dryRun'] is True" "$HOOK_LOG.last"
put_etcd() {
    ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" put \
        "$PREFIX/validatingwebhookconfigurations/$1" "$2" >/dev/null
}
for se in Unknown Some; do
    lc=$(tr 'A-Z' 'a-z' <<<"$se")
    put_etcd "v-se-$lc" "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v-se-$lc\",\"uid\":\"0d6e7a43-0000-4000-8000-00000000000$((${#se} % 10))\",\"creationTimestamp\":\"2024-01-01T00:00:00Z\"},\"webhooks\":[$(hook "se-$lc.example.com" "se$lc" "$(url /allow)" | sed "s/\"None\"/\"$se\"/")]}"
    check "sideEffects $se (written into etcd) refuses a dry run" until_code 400 2 dry "se$lc"
    check "... with kube's message" is_status 400 BadRequest \
        "admission webhook \"se-$lc.example.com\" does not support dry run"
    create "real-$lc" "se$lc"
    check "... but a real create calls it" code_is 201
done

put_etcd v-noclient "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v-noclient\",\"uid\":\"0d6e7a43-0000-4000-8000-0000000000aa\",\"creationTimestamp\":\"2024-01-01T00:00:00Z\"},\"webhooks\":[$(hook noclient.example.com noclient '{}')]}"
check "a webhook with neither URL nor service (written into etcd)" until_code 500 2 nc1 noclient
check "... fails as kube's client does" internal noclient.example.com \
    "could not get REST client: webhook configuration must have either service or URL"

# ---- a webhook behind a Service ---------------------------------------------------------------
req POST $CORE/services '{"apiVersion":"v1","kind":"Service","metadata":{"name":"hook"},"spec":{"ports":[{"name":"https","port":443,"targetPort":8443}]}}'
check "a Service for the webhook" code_is 201
req POST $CORE/endpoints "{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"hook\"},\"subsets\":[{\"addresses\":[{\"ip\":\"127.0.0.1\"}],\"ports\":[{\"name\":\"https\",\"port\":$HOOK_PORT}]}]}"
check "... and its Endpoints" code_is 201
check "a webhook named by the Service" config validating v-svc \
    "$(hook svc.example.com svc "{\"service\":{\"namespace\":\"default\",\"name\":\"hook\",\"path\":\"/deny\"},\"caBundle\":\"$CA_B64\"}")"
check "... is called through the Endpoints" until_code 403 2 sv1 svc
check "... with its answer" is_status 403 Forbidden \
    'admission webhook "svc.example.com" denied the request: no thanks'

req POST $CORE/services '{"apiVersion":"v1","kind":"Service","metadata":{"name":"hook2"},"spec":{"ports":[{"name":"https","port":443,"targetPort":8443}]}}'
check "a second Service" code_is 201
req POST $CORE/endpoints "{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"hook2\"},\"subsets\":[{\"addresses\":[{\"ip\":\"127.0.0.1\"}],\"ports\":[{\"name\":\"https\",\"port\":$DEAD_PORT}]}]}"
check "... Endpoints pointing nowhere" code_is 201
req POST /apis/discovery.k8s.io/v1/namespaces/default/endpointslices "{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":{\"name\":\"hook2-x1\",\"labels\":{\"kubernetes.io/service-name\":\"hook2\"}},\"addressType\":\"IPv4\",\"ports\":[{\"name\":\"https\",\"port\":$HOOK_PORT,\"protocol\":\"TCP\"}],\"endpoints\":[{\"addresses\":[\"10.255.255.1\"],\"conditions\":{\"ready\":false}},{\"addresses\":[\"127.0.0.1\"],\"conditions\":{\"ready\":true}}]}"
check "... and an EndpointSlice with a ready endpoint on the webhook" code_is 201
check "a webhook named by that Service" config validating v-slice \
    "$(hook slice.example.com slice "{\"service\":{\"namespace\":\"default\",\"name\":\"hook2\",\"path\":\"/deny\"},\"caBundle\":\"$CA_B64\"}")"
check "... is called at the slice's ready endpoint, not the Endpoints'" until_code 403 2 sl1 slice
check "... with its answer" is_status 403 Forbidden \
    'admission webhook "slice.example.com" denied the request: no thanks'

# ---- the configurations themselves are exempt -------------------------------------------------
check "a webhook on every resource, denying" config validating v-all \
    "{\"name\":\"all.example.com\",\"clientConfig\":$(url /deny-bare),\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"admissionregistration.k8s.io\"],\"apiVersions\":[\"*\"],\"resources\":[\"*\"]}],\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]}"
sleep 1
check "a webhook configuration can still be created" config validating v-more \
    "$(hook more.example.com more "$(url /allow)")"

# ---- stock kubectl -------------------------------------------------------------------------------
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    row kc1 deny >"$KGATE_TEST_TMP/kc1.json"
    check "kubectl create is refused" bash -c '! kubectl create -f "$1" >"$2" 2>&1' _ \
        "$KGATE_TEST_TMP/kc1.json" "$KGATE_TEST_TMP/kc1.out"
    check "... with kube's text" grep -qF \
        'Error from server (Forbidden): error when creating "'"$KGATE_TEST_TMP/kc1.json"'": admission webhook "deny.example.com" denied the request: no thanks' \
        "$KGATE_TEST_TMP/kc1.out"
fi

# ---- kube's webhook metrics, summed over both instances ------------------------------------
for i in a b; do on "$i"; req GET /metrics; cat "$OUT"; done >"$KGATE_TEST_TMP/metrics"
wh='apiserver_admission_webhook'
check "an allowing webhook's calls: request_total with code 200, not rejected" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${wh}_request_total{code=\"200\",name=\"allow.example.com\",operation=\"CREATE\",rejected=\"false\",type=\"validating\"}")" -ge 1
check "a refusal: rejection_count, no_error with the webhook's code" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${wh}_rejection_count{error_type=\"no_error\",name=\"deny.example.com\",operation=\"CREATE\",rejection_code=\"403\",type=\"validating\"}")" -ge 1
check "a dead validating webhook under Fail: a calling_webhook_error with kube's 400" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${wh}_rejection_count{error_type=\"calling_webhook_error\",name=\"dead.example.com\",operation=\"CREATE\",rejection_code=\"400\",type=\"validating\"}")" -ge 1
check "... under Ignore: fail_open_count" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${wh}_fail_open_count{name=\"dead-ignore.example.com\",type=\"validating\"}")" -ge 1
check "... and not a rejection" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${wh}_rejection_count{error_type=\"calling_webhook_error\",name=\"dead-ignore.example.com\",operation=\"CREATE\",rejection_code=\"400\",type=\"validating\"}")" -eq 0
check "a dead mutating webhook under Ignore: type admit, kube's 503" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${wh}_request_total{code=\"503\",name=\"mdead.example.com\",operation=\"CREATE\",rejected=\"false\",type=\"admit\"}")" -ge 1 ||
    diag "$(grep "^${wh}_request_total" "$KGATE_TEST_TMP/metrics" | grep admit)"
check "the mutating webhook's time: the STABLE histogram, kube's buckets up to 25 s" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${wh}_admission_duration_seconds_bucket{name=\"label.example.com\",operation=\"CREATE\",rejected=\"false\",type=\"admit\",le=\"25\"}")" -ge 1
check "... its help line says STABLE" grep -q \
    "^# HELP ${wh}_admission_duration_seconds \\[STABLE\\] " "$KGATE_TEST_TMP/metrics"
mc='apiserver_admission_match_condition'
check "a false match condition: exclusions_total, kind webhook" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${mc}_exclusions_total{kind=\"webhook\",name=\"mc.example.com\",operation=\"CREATE\",type=\"validating\"}")" -ge 1
check "... one that errs: evaluation_errors_total" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${mc}_evaluation_errors_total{kind=\"webhook\",name=\"mcerr.example.com\",operation=\"CREATE\",type=\"validating\"}")" -ge 1
check "... their time, kube's buckets up to 0.25 s" test "$(metric_sum "$KGATE_TEST_TMP/metrics" \
    "${mc}_evaluation_seconds_bucket{kind=\"webhook\",name=\"mc.example.com\",operation=\"CREATE\",type=\"validating\",le=\"0.25\"}")" -ge 2

on a
check "instance a exits cleanly" clean_exit
on b
check "instance b exits cleanly" clean_exit
tap_end
