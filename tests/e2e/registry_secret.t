#!/usr/bin/env bash
# A Secret's validation by type as kube-apiserver's ValidateSecret (service-account-token,
# dockercfg, dockerconfigjson, basic-auth, ssh-auth, tls, custom types), ValidateSecretUpdate's
# immutable type and `immutable: true` rules, and ValidateConfigMap(Update)'s keys, size and
# immutability: every refusal is kube's 422 (message, causes in kube's order) and stores nothing.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_secret

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
PREFIX=/registry-secret-$$
check "kgate starts" api_start secret --workers=2
MERGE=application/merge-patch+json
JSONP=application/json-patch+json
APPLY=application/apply-patch+yaml

b64() { printf '%s' "$1" | base64 -w0; }

# secret NAME TYPE [DATA-MEMBERS [METADATA-MEMBERS [OTHER-MEMBERS]]]: a Secret document.
secret() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"$1\"${4:+,$4}},\
\"type\":\"$2\",\"data\":{${3:-}}${5:+,$5}}"
}

# causes_are PY-LIST: the 422's causes, as [(reason, field, message), ...] in order.
causes_are() {
    jpy "[(c['reason'], c.get('field'), c['message']) for c in d['details']['causes']] == $1"
}

# nothing_stored KIND NAME: neither GET nor etcd know the object.
nothing_stored() {
    local out=$OUT code=$CODE ok=0
    req GET "$CORE/$1/$2"
    [[ $CODE == 404 ]] || { diag "GET $1/$2 answered $CODE"; ok=1; }
    [[ -z $(stored "$1/default/$2") ]] || { diag "etcd holds $1/$2"; ok=1; }
    OUT=$out CODE=$code
    return $ok
}

# unchanged KIND NAME RV: the object still has resourceVersion RV.
unchanged() {
    local out=$OUT code=$CODE ok=0
    req GET "$CORE/$1/$2"
    jpy "d['metadata']['resourceVersion'] == '$3'" || ok=1
    OUT=$out CODE=$code
    return $ok
}

REQ=FieldValueRequired
INV=FieldValueInvalid
FORB=FieldValueForbidden
IMM='field is immutable when `immutable` is set'

# ---- create: each type's rules ------------------------------------------------------------------
req POST $CORE/secrets "$(secret sat kubernetes.io/service-account-token)"
check "service-account-token without the account annotation: 422" is_status 422 Invalid \
    'Secret "sat" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value'
check "... with kube's details and cause" jpy "d['details'] == {'name': 'sat', 'kind': 'Secret', \
'causes': [{'reason': 'FieldValueRequired', 'message': 'Required value', \
'field': 'metadata.annotations[kubernetes.io/service-account.name]'}]}"
check "... and nothing is stored" nothing_stored secrets sat
req POST $CORE/secrets "$(secret sat kubernetes.io/service-account-token '' \
    '"annotations":{"kubernetes.io/service-account.name":"default"}')"
check "... with it: created, no token needed (201)" code_is 201

req POST $CORE/secrets "$(secret dc kubernetes.io/dockercfg "\"config\":\"$(b64 '{}')\"")"
check "dockercfg without .dockercfg: 422" is_status 422 Invalid \
    'Secret "dc" is invalid: data[.dockercfg]: Required value'
check "... nothing stored" nothing_stored secrets dc
req POST $CORE/secrets "$(secret dc kubernetes.io/dockercfg "\".dockercfg\":\"$(b64 'not json')\"")"
check "dockercfg that is not JSON: Go's syntax error, the value redacted" is_status 422 Invalid \
    "Secret \"dc\" is invalid: data[.dockercfg]: Invalid value: \"<secret contents redacted>\": invalid character 'o' in literal null (expecting 'u')"
check "... an Invalid cause" causes_are "[('$INV', 'data[.dockercfg]', 'Invalid value: \
\"<secret contents redacted>\": invalid character \\'o\\' in literal null (expecting \\'u\\')')]"
check "... nothing stored" nothing_stored secrets dc
req POST $CORE/secrets "$(secret dc kubernetes.io/dockercfg "\".dockercfg\":\"$(b64 '{"r.io":')\"")"
check "dockercfg cut short: unexpected end of JSON input" is_status 422 Invalid \
    'Secret "dc" is invalid: data[.dockercfg]: Invalid value: "<secret contents redacted>": unexpected end of JSON input'
req POST $CORE/secrets "$(secret dc kubernetes.io/dockercfg \
    "\".dockercfg\":\"$(b64 '{"r.io":{"auth":"eDp5","email":"a@b"}}')\"")"
check "dockercfg with a JSON object: created" code_is 201

req POST $CORE/secrets "$(secret dcj kubernetes.io/dockerconfigjson \
    "\".dockercfg\":\"$(b64 '{}')\"")"
check "dockerconfigjson without .dockerconfigjson: 422" is_status 422 Invalid \
    'Secret "dcj" is invalid: data[.dockerconfigjson]: Required value'
req POST $CORE/secrets "$(secret dcj kubernetes.io/dockerconfigjson \
    "\".dockerconfigjson\":\"$(b64 '["auths"]')\"")"
check "dockerconfigjson holding an array: Go's type error" is_status 422 Invalid \
    'Secret "dcj" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}'
check "... nothing stored" nothing_stored secrets dcj
req POST $CORE/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"dcj"},
"type":"kubernetes.io/dockerconfigjson","stringData":{".dockerconfigjson":"{\"auths\":{}}"}}'
check "dockerconfigjson from stringData: the merged bytes are checked, created" code_is 201

req POST $CORE/secrets "$(secret ba kubernetes.io/basic-auth "\"user\":\"$(b64 x)\"")"
check "basic-auth with neither username nor password: both required" is_status 422 Invalid \
    'Secret "ba" is invalid: [data[username]: Required value, data[password]: Required value]'
check "... two causes in that order" causes_are \
    "[('$REQ', 'data[username]', 'Required value'), ('$REQ', 'data[password]', 'Required value')]"
check "... nothing stored" nothing_stored secrets ba
req POST $CORE/secrets "$(secret ba kubernetes.io/basic-auth '"password":""')"
check "basic-auth with an empty password only: created" code_is 201

req POST $CORE/secrets "$(secret ssh kubernetes.io/ssh-auth '"ssh-privatekey":""')"
check "ssh-auth with an empty ssh-privatekey: 422" is_status 422 Invalid \
    'Secret "ssh" is invalid: data[ssh-privatekey]: Required value'
check "... nothing stored" nothing_stored secrets ssh
req POST $CORE/secrets "$(secret ssh kubernetes.io/ssh-auth "\"ssh-privatekey\":\"$(b64 k)\"")"
check "ssh-auth with a key: created" code_is 201

req POST $CORE/secrets "$(secret tls kubernetes.io/tls)"
check "tls without tls.crt and tls.key: both required, crt first" is_status 422 Invalid \
    'Secret "tls" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]'
req POST $CORE/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls"},
"type":"kubernetes.io/tls","stringData":{"tls.crt":"c"}}'
check "tls with tls.crt from stringData only: tls.key required" is_status 422 Invalid \
    'Secret "tls" is invalid: data[tls.key]: Required value'
check "... nothing stored" nothing_stored secrets tls
req POST $CORE/secrets "$(secret tls kubernetes.io/tls "\"bad key\":\"\",\"tls.key\":\"\"")"
check "the data keys are reported before the type's rules" causes_are "[('$INV', 'data[bad key]', \
'Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, \\'-\\', \
\\'_\\' or \\'.\\' (e.g. \\'key.name\\',  or \\'KEY_NAME\\',  or \\'key-name\\', regex used for \
validation is \\'[-._a-zA-Z0-9]+\\')'), ('$REQ', 'data[tls.crt]', 'Required value')]"
req POST $CORE/secrets "$(secret tls kubernetes.io/tls \
    "\"tls.crt\":\"$(b64 c)\",\"tls.key\":\"$(b64 k)\"")"
check "tls with both: created" code_is 201

req POST $CORE/secrets "$(secret custom 'example.com/any Type!')"
check "a custom type has no rules: created without data" code_is 201
req POST $CORE/secrets "$(secret opq Opaque)"
check "Opaque without data: created" code_is 201

# ---- update: the type is immutable, and the new type's rules apply -------------------------------
req GET $CORE/secrets/tls
RV=$(jget "d['metadata']['resourceVersion']")
req PUT $CORE/secrets/tls "$(secret tls Opaque "\"tls.crt\":\"$(b64 c)\"")"
check "a PUT changing the type: 422, field is immutable" is_status 422 Invalid \
    'Secret "tls" is invalid: type: Invalid value: "Opaque": field is immutable'
check "... an Invalid cause on type" causes_are \
    "[('$INV', 'type', 'Invalid value: \"Opaque\": field is immutable')]"
check "... the Secret is unchanged" unchanged secrets tls "$RV"
req PUT $CORE/secrets/tls '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls"},"data":{}}'
check "a PUT without type is defaulted to Opaque: the same 422 (and no tls rules)" \
    is_status 422 Invalid \
    'Secret "tls" is invalid: type: Invalid value: "Opaque": field is immutable'
req PATCH $CORE/secrets/opq '{"type":"kubernetes.io/ssh-auth"}' $MERGE
check "a merge patch to ssh-auth: type immutable, then ssh-auth's rule" is_status 422 Invalid \
    'Secret "opq" is invalid: [type: Invalid value: "kubernetes.io/ssh-auth": field is immutable, data[ssh-privatekey]: Required value]'
req PATCH $CORE/secrets/tls '[{"op":"remove","path":"/data/tls.key"}]' $JSONP
check "a JSON patch removing tls.key: 422" is_status 422 Invalid \
    'Secret "tls" is invalid: data[tls.key]: Required value'
check "... unchanged" unchanged secrets tls "$RV"
req PATCH $CORE/secrets/sat \
    '{"metadata":{"annotations":{"kubernetes.io/service-account.name":null}}}' $MERGE
check "a patch dropping the account annotation of a token Secret: 422" is_status 422 Invalid \
    'Secret "sat" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value'
req PATCH $CORE/secrets/tls "{\"data\":{\"tls.crt\":\"$(b64 c2)\"}}" $MERGE
check "a valid change of a tls Secret passes (200)" jpy "d['data']['tls.crt'] == '$(b64 c2)'"

# ---- update: immutable Secrets ------------------------------------------------------------------
req POST $CORE/secrets "$(secret frozen Opaque "\"a\":\"$(b64 one)\"" '' '"immutable":true')"
check "an immutable Secret is created" jpy "d['immutable'] is True"
RV=$(jget "d['metadata']['resourceVersion']")
req PATCH $CORE/secrets/frozen "{\"data\":{\"a\":\"$(b64 two)\"}}" $MERGE
check "changing its data: 422 Forbidden on data" is_status 422 Invalid \
    "Secret \"frozen\" is invalid: data: Forbidden: $IMM"
check "... a Forbidden cause" causes_are "[('$FORB', 'data', 'Forbidden: $IMM')]"
req PATCH $CORE/secrets/frozen '{"stringData":{"b":"new"}}' $MERGE
check "adding a key through stringData: the same 422" is_status 422 Invalid \
    "Secret \"frozen\" is invalid: data: Forbidden: $IMM"
req PATCH $CORE/secrets/frozen '{"immutable":false}' $MERGE
check "setting immutable to false: 422 Forbidden on immutable" is_status 422 Invalid \
    "Secret \"frozen\" is invalid: immutable: Forbidden: $IMM"
req PATCH $CORE/secrets/frozen '[{"op":"remove","path":"/immutable"}]' $JSONP
check "removing immutable: the same 422" is_status 422 Invalid \
    "Secret \"frozen\" is invalid: immutable: Forbidden: $IMM"
req PUT $CORE/secrets/frozen "$(secret frozen kubernetes.io/tls "\"bad key\":\"\"")"
check "a PUT changing everything: kube's order (type, immutable, data, keys, type rules)" \
    is_status 422 Invalid "Secret \"frozen\" is invalid: [type: Invalid value: \"kubernetes.io/tls\": field is immutable, immutable: Forbidden: $IMM, data: Forbidden: $IMM, data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+'), data[tls.crt]: Required value, data[tls.key]: Required value]"
check "... six causes" jpy "[c['field'] for c in d['details']['causes']] == ['type', 'immutable', \
'data', 'data[bad key]', 'data[tls.crt]', 'data[tls.key]']"
req PATCH "$CORE/secrets/frozen?fieldManager=tool&force=true" "apiVersion: v1
kind: Secret
metadata:
  name: frozen
data:
  a: $(b64 three)" $APPLY
check "a server-side apply changing its data: the same 422" is_status 422 Invalid \
    "Secret \"frozen\" is invalid: data: Forbidden: $IMM"
check "... the Secret is unchanged after all of these" unchanged secrets frozen "$RV"
req PATCH $CORE/secrets/frozen '{"metadata":{"labels":{"l":"v"}}}' $MERGE
check "its metadata may still change (200)" jpy "d['metadata']['labels'] == {'l': 'v'} and \
d['data'] == {'a': '$(b64 one)'}"
req PATCH $CORE/secrets/opq "{\"immutable\":true,\"data\":{\"x\":\"$(b64 x)\"}}" $MERGE
check "data may change in the update that makes a Secret immutable" jpy \
    "d['immutable'] is True and d['data'] == {'x': '$(b64 x)'}"
req DELETE $CORE/secrets/frozen
check "an immutable Secret can be deleted" code_is 200

# ---- ConfigMaps ---------------------------------------------------------------------------------
req POST $CORE/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keys"},
"data":{"a b":"x","dup":"y"},"binaryData":{"dup":"eA==","..":"eA=="}}'
check "ConfigMap keys: 422 with data keys, a duplicate, then binaryData keys" \
    is_status 422 Invalid \
    "ConfigMap \"keys\" is invalid: [data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+'), data[dup]: Invalid value: \"dup\": duplicate of key present in binaryData, binaryData[..]: Invalid value: \"..\": must not be '..']"
check "... nothing stored" nothing_stored configmaps keys
big=$(head -c 1048000 /dev/zero | tr '\0' 'a')
fmt='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},'
fmt+='"data":{"k":"%s"},"binaryData":{"b":"%s"}}'
# shellcheck disable=SC2059
printf "$fmt" "$big" "$(head -c 600 /dev/zero | base64 -w0)" >"$KGATE_TEST_TMP/big.json"
CODE=$(kcurl "${ADMIN[@]}" -o "$OUT" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary @"$KGATE_TEST_TMP/big.json" "$KGATE_URL$CORE/configmaps")
check "data and binaryData over 1 MiB together: 422 on the whole object ([])" \
    is_status 422 Invalid \
    'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes'
check "... a TooLong cause on field []" causes_are \
    "[('FieldValueTooLong', '[]', 'Too long: may not be more than 1048576 bytes')]"
check "... nothing stored" nothing_stored configmaps big

req POST $CORE/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fixed"},
"immutable":true,"data":{"k":"v"},"binaryData":{"b":"eA=="}}'
check "an immutable ConfigMap is created" code_is 201
RV=$(jget "d['metadata']['resourceVersion']")
req PATCH $CORE/configmaps/fixed '{"data":{"k":"w"}}' $MERGE
check "changing its data: 422" is_status 422 Invalid \
    "ConfigMap \"fixed\" is invalid: data: Forbidden: $IMM"
req PATCH $CORE/configmaps/fixed '{"binaryData":{"c":"eQ=="}}' $MERGE
check "changing its binaryData: 422" is_status 422 Invalid \
    "ConfigMap \"fixed\" is invalid: binaryData: Forbidden: $IMM"
req PUT $CORE/configmaps/fixed '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fixed"},
"data":{"k":"v"}}'
check "a PUT without immutable and binaryData: 422, immutable then binaryData" is_status 422 \
    Invalid "ConfigMap \"fixed\" is invalid: [immutable: Forbidden: $IMM, binaryData: Forbidden: $IMM]"
check "... the ConfigMap is unchanged" unchanged configmaps fixed "$RV"
req PATCH $CORE/configmaps/fixed '{"metadata":{"labels":{"l":"v"}}}' $MERGE
check "its labels may change (200)" jpy "d['metadata']['labels'] == {'l': 'v'}"
req POST $CORE/configmaps "$(cm free)"
req PATCH $CORE/configmaps/free '{"data":{"k":"w"}}' $MERGE
check "a mutable ConfigMap changes freely" jpy "d['data'] == {'k': 'w'}"

check "kgate exits cleanly" clean_exit
tap_end
