#!/usr/bin/env bash
# MutatingWebhookConfiguration and ValidatingWebhookConfiguration on a real kgate: kube's 422
# bodies for each rule (names, policies, sideEffects, timeout, review versions, rules,
# selectors, client config, match conditions compiled in the webhook environment), kube's v1
# defaults as stored, generation 1 on create and moved only when the webhooks change, the
# update's relaxed rules and conditional updates; stock kubectl applying a valid configuration
# and showing kube's error for a bad one. No webhook here matches a resource kgate serves.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require admission_webhook_validation

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start whval --workers=2
AR=/apis/admissionregistration.k8s.io/v1
VWC=$AR/validatingwebhookconfigurations
MWC=$AR/mutatingwebhookconfigurations
QV=ValidatingWebhookConfiguration.admissionregistration.k8s.io
QM=MutatingWebhookConfiguration.admissionregistration.k8s.io

causes_are() {
    jpy "[(c['reason'], c.get('field'), c['message']) for c in d['details']['causes']] == $1"
}

# config KIND NAME WEBHOOKS: a v1 configuration document.
config() {
    echo "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"$1\",\
\"metadata\":{\"name\":\"$2\"},\"webhooks\":[$3]}"
}
vwc() { config ValidatingWebhookConfiguration "$@"; }
mwc() { config MutatingWebhookConfiguration "$@"; }
# hook NAME [EXTRA-MEMBERS]: a valid webhook (a rule for a resource nothing serves).
hook() {
    echo "{\"name\":\"$1\",\"clientConfig\":{\"url\":\"https://hook.example.com/x\"},\
\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"],\"rules\":[{\"apiGroups\":\
[\"example.com\"],\"apiVersions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":\
[\"widgets\"]}]${2:+,$2}}"
}
W=webhooks[0]

# ---- bad configurations -----------------------------------------------------------------------
req POST $VWC "$(vwc names "$(hook a.example) , $(hook x.example.com), $(hook x.example.com)")"
check "names: three segments, unique (422)" is_status 422 Invalid \
    "$QV \"names\" is invalid: [$W.name: Invalid value: \"a.example\": should be a domain with at least three segments separated by dots, webhooks[2].name: Duplicate value: \"x.example.com\"]"
check "... kube's causes" causes_are "[('FieldValueInvalid', '$W.name', 'Invalid value: \"a.example\": should be a domain with at least three segments separated by dots'), ('FieldValueDuplicate', 'webhooks[2].name', 'Duplicate value: \"x.example.com\"')]"
check "... and details" jpy "d['details']['kind'] == 'ValidatingWebhookConfiguration' and d['details']['group'] == 'admissionregistration.k8s.io' and d['details']['name'] == 'names'"
req GET $VWC/names
check "... nothing is stored" code_is 404

req POST $MWC "$(mwc policies '{"name":"p.example.com","clientConfig":{"url":"https://h.example.com"},
"admissionReviewVersions":["v1"],"failurePolicy":"Maybe","matchPolicy":"Some","timeoutSeconds":31,
"reinvocationPolicy":"Always"}')"
check "policies, sideEffects required, timeout, reinvocation" is_status 422 Invalid \
    "$QM \"policies\" is invalid: [$W.failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", \"Ignore\", $W.matchPolicy: Unsupported value: \"Some\": supported values: \"Equivalent\", \"Exact\", $W.sideEffects: Required value: must specify one of None, NoneOnDryRun, $W.timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds, $W.reinvocationPolicy: Unsupported value: \"Always\": supported values: \"IfNeeded\", \"Never\"]"

req POST $VWC "$(vwc effects "$(hook s.example.com '"sideEffects":"Some","timeoutSeconds":0')")"
check "sideEffects Some is refused in v1; timeout 0" is_status 422 Invalid \
    "$QV \"effects\" is invalid: [$W.sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\", $W.timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds]"

req POST $VWC "$(vwc versions "$(hook v.example.com '"admissionReviewVersions":["v2","v2"]')")"
check "review versions: duplicate, one kube accepts" is_status 422 Invalid \
    "$QV \"versions\" is invalid: [$W.admissionReviewVersions[1]: Invalid value: \"v2\": duplicate version, $W.admissionReviewVersions: Invalid value: []string{\"v2\", \"v2\"}: must include at least one of v1, v1beta1]"
req POST $VWC "$(vwc noversions '{"name":"v.example.com","clientConfig":{"url":"https://h.example.com"},"sideEffects":"None"}')"
check "review versions are required" is_status 422 Invalid \
    "$QV \"noversions\" is invalid: $W.admissionReviewVersions: Required value: must specify one of v1, v1beta1"

req POST $VWC "$(vwc rules "$(hook r.example.com '"rules":[{"apiGroups":["*","apps"],"apiVersions":["v1"],"operations":["PATCH"],"resources":["*/*","pods"]}]')")"
check "rules as kube validates a webhook's" is_status 422 Invalid \
    "$QV \"rules\" is invalid: [$W.rules[0].operations[0]: Unsupported value: \"PATCH\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\", $W.rules[0].apiGroups: Invalid value: []string{\"*\", \"apps\"}: if '*' is present, must not specify other API groups, $W.rules[0].resources: Invalid value: []string{\"*/*\", \"pods\"}: if '*/*' is present, must not specify other resources]"

req POST $VWC "$(vwc selectors "$(hook l.example.com '"namespaceSelector":{"matchExpressions":[{"key":"a","operator":"Near"}]}')")"
check "selectors validated" is_status 422 Invalid \
    "$QV \"selectors\" is invalid: $W.namespaceSelector.matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector operator"

req POST $VWC "$(vwc url '{"name":"u.example.com","clientConfig":{"url":"http://me@/p?x=1#f"},"sideEffects":"None","admissionReviewVersions":["v1"]}')"
check "a URL: https, host, no user, query or fragment" is_status 422 Invalid \
    "$QV \"url\" is invalid: [$W.clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path], $W.clientConfig.url: Invalid value: \"\": host must be specified; desired format: https://host[/path], $W.clientConfig.url: Invalid value: \"me\": user information is not permitted in the URL, $W.clientConfig.url: Invalid value: \"f\": fragments are not permitted in the URL, $W.clientConfig.url: Invalid value: \"x=1\": query parameters are not permitted in the URL]"
req POST $VWC "$(vwc svc '{"name":"s.example.com","clientConfig":{"service":{"name":"s","port":70000,"path":"x/"}},"sideEffects":"None","admissionReviewVersions":["v1"]}')"
check "a service: kube's swapped name, port, path" is_status 422 Invalid \
    "$QV \"svc\" is invalid: [$W.clientConfig.service.name: Required value, $W.clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive, $W.clientConfig.service.path: Invalid value: \"x/\": must start with a '/', $W.clientConfig.service.path: Invalid value: \"x/\": segment[0] may not be empty]"
req POST $VWC "$(vwc none '{"name":"n.example.com","clientConfig":{},"sideEffects":"None","admissionReviewVersions":["v1"]}')"
check "a client config needs a url or a service" is_status 422 Invalid \
    "$QV \"none\" is invalid: $W.clientConfig: Required value: exactly one of url or service is required"

req POST $VWC "$(vwc cel "$(hook c.example.com '"matchConditions":[{"name":"p","expression":"params.x"},{"name":"p","expression":"object.metadata.name"}]')")"
check "match conditions: the webhook environment (no params), bool results, unique names" \
    is_status 422 Invalid \
    "$QV \"cel\" is invalid: [$W.matchConditions[0].expression: Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')
 | params.x
 | ^, $W.matchConditions[1].expression: Invalid value: \"object.metadata.name\": must evaluate to bool but got dyn, $W.matchConditions[1].name: Duplicate value: \"p\"]"

# ---- defaults, generation, updates ------------------------------------------------------------
req POST $MWC "$(mwc good "$(hook m.example.com), {\"name\":\"svc.example.com\",\"clientConfig\":{\"service\":{\"name\":\"s\",\"namespace\":\"default\"}},\"sideEffects\":\"NoneOnDryRun\",\"admissionReviewVersions\":[\"v1beta1\"],\"matchConditions\":[{\"name\":\"mine\",\"expression\":\"request.userInfo.username == 'x' && authorizer.group('').resource('pods').check('get').allowed()\"}]}")"
check "a valid mutating configuration is created" code_is 201
check "... with kube's v1 defaults" jpy "all(w['failurePolicy'] == 'Fail' and w['matchPolicy'] == 'Equivalent' and w['namespaceSelector'] == {} and w['objectSelector'] == {} and w['timeoutSeconds'] == 10 and w['reinvocationPolicy'] == 'Never' for w in d['webhooks']) and d['webhooks'][0]['rules'][0]['scope'] == '*' and d['webhooks'][1]['clientConfig']['service']['port'] == 443"
check "... generation 1" jpy "d['metadata']['generation'] == 1"
RV=$(jget "d['metadata']['resourceVersion']")
req PATCH $MWC/good '{"metadata":{"labels":{"a":"b"}}}' application/merge-patch+json
check "a label change keeps the generation" jpy "d['metadata']['generation'] == 1"
req PATCH $MWC/good '{"webhooks":[{"name":"m.example.com","timeoutSeconds":5}]}' application/strategic-merge-patch+json
check "a webhook change moves it" jpy "d['metadata']['generation'] == 2 and d['webhooks'][0]['timeoutSeconds'] == 5"
req PUT $MWC/good "$(mwc good "$(hook m.example.com)")"
check "a PUT without resourceVersion is refused (conditional updates)" is_status 422 Invalid \
    "mutatingwebhookconfigurations.admissionregistration.k8s.io \"good\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"
req PATCH $MWC/good '{"webhooks":[{"name":"m.example.com","timeoutSeconds":40}]}' application/strategic-merge-patch+json
check "an update is validated" is_status 422 Invalid \
    "$QM \"good\" is invalid: $W.timeoutSeconds: Invalid value: 40: the timeout value must be between 1 and 30 seconds"

# A stored configuration older rules let in (written to etcd as an older kube could have):
# an update keeps what it already had.
PREFIX=/registry-whval-$$
ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" put "$PREFIX/validatingwebhookconfigurations/old" \
    "$(vwc old "$(hook o.example.com '"sideEffects":"Unknown"'), $(hook o.example.com)" | python3 -c 'import json,sys; d=json.load(sys.stdin); d["metadata"].update(uid="1a2b3c4d-0000-4000-8000-000000000001", creationTimestamp="2024-01-01T00:00:00Z", generation=1); print(json.dumps(d))')" >/dev/null
req PATCH $VWC/old '{"metadata":{"labels":{"x":"y"}}}' application/merge-patch+json
check "an update keeps a stored sideEffects Unknown and duplicate names" code_is 200
req POST $VWC "$(vwc new "$(hook o.example.com '"sideEffects":"Unknown"')")"
check "... which a create refuses" is_status 422 Invalid \
    "$QV \"new\" is invalid: $W.sideEffects: Unsupported value: \"Unknown\": supported values: \"None\", \"NoneOnDryRun\""

# ---- stock kubectl ------------------------------------------------------------------------------
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    M=$KGATE_TEST_TMP/manifests
    mkdir -p "$M"
    cat >"$M/vwc.yaml" <<'YAML'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: kubectl-hooks
webhooks:
- name: widgets.example.com
  clientConfig:
    service: {name: hooks, namespace: default, path: /validate}
  rules:
  - apiGroups: [example.com]
    apiVersions: [v1]
    operations: [CREATE]
    resources: [widgets]
  sideEffects: None
  admissionReviewVersions: [v1]
YAML
    check "kubectl apply of a valid configuration" k apply -f "$M/vwc.yaml"
    check "... created" has "validatingwebhookconfiguration.admissionregistration.k8s.io/kubectl-hooks created"
    cat >"$M/bad.yaml" <<'YAML'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: kubectl-bad
webhooks:
- name: widgets
  clientConfig:
    url: https://hooks.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
YAML
    fails() { ! "$@"; }
    check "kubectl create of a bad configuration fails" fails k create -f "$M/bad.yaml"
    check "... with kube's message" has 'The ValidatingWebhookConfiguration "kubectl-bad" is invalid: webhooks[0].name: Invalid value: "widgets": should be a domain with at least three segments separated by dots'
fi

check "kgate exits cleanly" clean_exit
tap_end
