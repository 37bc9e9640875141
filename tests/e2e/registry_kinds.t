#!/usr/bin/env bash
# Kind-specific rules as kube-apiserver has them: a Secret's write-only stringData (merged into
# data on every kind of write), Secret data validation, resourceVersion "0" as no precondition
# (and kinds that need one), a Service's cluster IPs on update; and kube's words for a patched
# object that does not decode and for a body of another kind than the URL's.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_kinds

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start kinds --workers=2
MERGE=application/merge-patch+json
SMP=application/strategic-merge-patch+json
JSONP=application/json-patch+json
APPLY=application/apply-patch+yaml

b64() { printf '%s' "$1" | base64 -w0; }

# ---- Secret stringData --------------------------------------------------------------------------
req POST $CORE/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},
"stringData":{"user":"admin","pass":"p@ss word"}}'
check "a Secret with stringData only is created (201)" code_is 201
check "... its data holds the base64 values, stringData is gone" jpy "d['data'] == \
{'user': '$(b64 admin)', 'pass': '$(b64 'p@ss word')'} and 'stringData' not in d"
req GET $CORE/secrets/s1
check "... and so does what is read back" jpy "d['data']['user'] == '$(b64 admin)' and \
'stringData' not in d and d['type'] == 'Opaque'"
check "... nor is stringData stored" bash -c "! ETCDCTL_API=3 etcdctl --endpoints=$KGATE_TEST_ETCD \
get /registry-kinds-$$/secrets/default/s1 --print-value-only | grep -q stringData"

req POST $CORE/secrets "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s2\"},
\"data\":{\"a\":\"$(b64 old)\",\"b\":\"$(b64 keep)\"},\"stringData\":{\"a\":\"new\"}}"
check "stringData overrides the same key of data on create" jpy "d['data'] == \
{'a': '$(b64 new)', 'b': '$(b64 keep)'} and 'stringData' not in d"

req PUT $CORE/secrets/s2 "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s2\"},
\"data\":{\"b\":\"$(b64 keep)\"},\"stringData\":{\"c\":\"put\"}}"
check "PUT merges stringData (200)" jpy "d['data'] == {'b': '$(b64 keep)', 'c': '$(b64 put)'} \
and 'stringData' not in d"
req PATCH $CORE/secrets/s2 '{"stringData":{"c":"merge"}}' $MERGE
check "a merge patch merges stringData" jpy "d['data']['c'] == '$(b64 merge)' and \
'stringData' not in d"
req PATCH $CORE/secrets/s2 '{"stringData":{"d":"smp"}}' $SMP
check "a strategic merge patch merges stringData" jpy "d['data']['d'] == '$(b64 smp)' and \
'stringData' not in d"
req PATCH $CORE/secrets/s2 '[{"op":"add","path":"/stringData","value":{"e":"json"}}]' $JSONP
check "a JSON patch merges stringData" jpy "d['data']['e'] == '$(b64 json)' and \
'stringData' not in d"
req PATCH "$CORE/secrets/s3?fieldManager=helm" 'apiVersion: v1
kind: Secret
metadata:
  name: s3
stringData:
  token: applied' $APPLY
check "server-side apply creates a Secret from stringData (201)" jpy "d['data'] == \
{'token': '$(b64 applied)'} and 'stringData' not in d"
req PATCH "$CORE/secrets/s3?fieldManager=helm" 'apiVersion: v1
kind: Secret
metadata:
  name: s3
stringData:
  token: again' $APPLY
check "... and an apply again updates it" jpy "d['data'] == {'token': '$(b64 again)'} and \
'stringData' not in d"
req PATCH "$CORE/secrets/s2?dryRun=All" '{"stringData":{"f":"dry"}}' $MERGE
check "a dry run answers the merge" jpy "d['data']['f'] == '$(b64 dry)'"
req GET $CORE/secrets/s2
check "... and stores nothing" jpy "'f' not in d['data']"

req POST $CORE/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s4"},
"stringData":{"bad key":"x"}}'
check "a bad stringData key is kube's 422 on data[key]" is_status 422 Invalid \
    "Secret \"s4\" is invalid: data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
req POST $CORE/secrets "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s4\"},
\"data\":{\"..x\":\"$(b64 x)\"}}"
check "a data key starting with '..' is 422" is_status 422 Invalid \
    "Secret \"s4\" is invalid: data[..x]: Invalid value: \"..x\": must not start with '..'"
big=$(head -c 1048577 /dev/zero | tr '\0' 'a')
printf '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s5"},"stringData":{"k":"%s"}}' \
    "$big" >"$KGATE_TEST_TMP/big.json"
CODE=$(kcurl "${ADMIN[@]}" -o "$OUT" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary @"$KGATE_TEST_TMP/big.json" "$KGATE_URL$CORE/secrets")
check "a Secret over 1 MiB is 422" is_status 422 Invalid \
    'Secret "s5" is invalid: data: Too long: may not be more than 1048576 bytes'

# ---- resourceVersion "0" ------------------------------------------------------------------------
req POST $CORE/configmaps "$(cm c0)"
req PUT $CORE/configmaps/c0 '{"metadata":{"name":"c0","resourceVersion":"0"},"data":{"k":"zero"}}'
check "PUT with resourceVersion \"0\" is an unconditional update (200)" jpy \
    "d['data'] == {'k': 'zero'} and d['metadata']['resourceVersion'] != '0'"
req PUT $CORE/configmaps/c0 '{"metadata":{"name":"c0","resourceVersion":"-1"},"data":{"k":"x"}}'
check "... a malformed one is still 400" is_status 400 BadRequest 'invalid resourceVersion: -1'
VWC=/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations
req POST $VWC '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"w0"}}'
check "a ValidatingWebhookConfiguration is created" code_is 201
req PUT $VWC/w0 '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"w0","resourceVersion":"0"}}'
check "... whose PUT with resourceVersion \"0\" is kube's 422 (no unconditional update)" \
    is_status 422 Invalid \
    'validatingwebhookconfigurations.admissionregistration.k8s.io "w0" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update'
req PUT $VWC/w0 '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"w0"}}'
check "... and so is one without a resourceVersion" is_status 422 Invalid \
    'validatingwebhookconfigurations.admissionregistration.k8s.io "w0" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update'

# ---- Service cluster IPs ------------------------------------------------------------------------
svc() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"$1\"},\"spec\":{${2-}\
\"ports\":[{\"port\":80}],\"selector\":{\"app\":\"$1\"}}}"
}
req POST $CORE/services "$(svc web '"clusterIP":"10.0.0.10",')"
check "a Service with a clusterIP is created, clusterIPs follows it" jpy \
    "d['spec']['clusterIP'] == '10.0.0.10' and d['spec']['clusterIPs'] == ['10.0.0.10']"
req PUT $CORE/services/web "$(svc web)"
check "a PUT that leaves the addresses out keeps them" jpy \
    "d['spec']['clusterIP'] == '10.0.0.10' and d['spec']['clusterIPs'] == ['10.0.0.10']"
req PUT $CORE/services/web "$(svc web '"clusterIP":"10.0.0.10",')"
check "a PUT with clusterIP only gets clusterIPs back" jpy \
    "d['spec']['clusterIPs'] == ['10.0.0.10']"
req PUT $CORE/services/web "$(svc web '"clusterIP":"10.0.0.11",')"
check "changing clusterIP is kube's 422" is_status 422 Invalid \
    'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.11"}: may not change once set'
check "... with its cause" jpy "d['details']['causes'] == [{'reason': 'FieldValueInvalid', \
'message': 'Invalid value: []string{\"10.0.0.11\"}: may not change once set', \
'field': 'spec.clusterIPs[0]'}]"
req PATCH $CORE/services/web '{"spec":{"clusterIP":"None"}}' $MERGE
check "becoming headless is the same 422" is_status 422 Invalid \
    'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"None"}: may not change once set'
req PATCH $CORE/services/web '{"spec":{"clusterIP":"10.0.0.10","clusterIPs":["10.0.0.12"]}}' $MERGE
check "clusterIPs that disagree with clusterIP are 422" is_status 422 Invalid \
    'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.12"}: first value must match `clusterIP`'
req PATCH $CORE/services/web '{"spec":{"clusterIPs":["10.0.0.10","10.0.0.13"]}}' $MERGE
check "two IPv4 addresses are 422" is_status 422 Invalid \
    'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.10", "10.0.0.13"}: may specify no more than one IP for each IP family'
req PATCH $CORE/services/web '{"spec":{"type":"ExternalName","externalName":"example.com"}}' $MERGE
check "becoming ExternalName drops the addresses and families" jpy "d['spec']['type'] == \
'ExternalName' and not any(k in d['spec'] for k in ('clusterIP', 'clusterIPs', 'ipFamilies', \
'ipFamilyPolicy'))"

req POST $CORE/services "$(svc noip)"
check "a Service without a clusterIP gets none (kgate allocates nothing)" jpy \
    "'clusterIP' not in d['spec'] and 'clusterIPs' not in d['spec']"
req PUT $CORE/services/noip "$(svc noip '"clusterIP":"None",')"
check "... and may become headless, clusterIPs with it" jpy \
    "d['spec']['clusterIP'] == 'None' and d['spec']['clusterIPs'] == ['None']"
req PUT $CORE/services/noip "$(svc noip '"clusterIP":"None",')"
check "... which a PUT without clusterIPs keeps" jpy "d['spec']['clusterIPs'] == ['None']"
req POST $CORE/services "$(svc bad '"clusterIP":"10.0.0.300",')"
check "a malformed clusterIP is 422" is_status 422 Invalid \
    'Service "bad" is invalid: spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'

# ---- patched objects that do not decode ---------------------------------------------------------
req POST $CORE/configmaps "$(cm p1)"
req PATCH $CORE/configmaps/p1 '{"metadata":{"labels":"invalid"}}' $SMP
check "a strategic patch that does not decode is kube's 422 (its converter's words)" \
    is_status 422 Invalid \
    ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:invalid]]": cannot restore map from string'
check "... a cause on the field patch" jpy "d['details']['causes'][0]['field'] == 'patch' and \
d['details']['causes'][0]['reason'] == 'FieldValueInvalid'"
req PATCH $CORE/configmaps/p1 '{"metadata":{"labels":"invalid"}}' $MERGE
check "a merge patch that does not decode is 422 with the patched JSON and the decoder's words" \
    jpy "d['code'] == 422 and d['reason'] == 'Invalid' and \
d['message'].startswith(' \"\" is invalid: patch: Invalid value: \"{') and \
d['message'].endswith('\": json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string') \
and d['message'].count('invalid') == 2 and 'managedFields' in d['message']"
req PATCH $CORE/configmaps/p1 '[{"op":"add","path":"/data","value":"x"}]' $JSONP
check "so does a JSON patch" jpy "d['code'] == 422 and d['message'].endswith(\
'json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string')"

# ---- a body of another kind ---------------------------------------------------------------------
req POST $CORE/configmaps '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"k"}}'
check "POST of another known kind: kube's 400 (it decodes, then cannot be converted)" \
    is_status 400 BadRequest \
    'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion'
req PUT /api/v1/namespaces/default '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"default"}}'
check "PUT of another kind: the same 400" is_status 400 BadRequest \
    'ConfigMap in version "v1" cannot be handled as a Namespace: converting (v1.ConfigMap) to (core.Namespace): unknown conversion'
req POST $APPS/deployments '{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"k"}}'
check "... named by the internal package of the URL's group" is_status 400 BadRequest \
    'StatefulSet in version "v1" cannot be handled as a Deployment: converting (v1.StatefulSet) to (apps.Deployment): unknown conversion'
req POST $APPS/deployments '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"k"}}'
check "... whatever the body's group" is_status 400 BadRequest \
    'Job in version "v1" cannot be handled as a Deployment: converting (v1.Job) to (apps.Deployment): unknown conversion'

check "kgate exits cleanly" clean_exit
tap_end
