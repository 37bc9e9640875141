#!/usr/bin/env bash
# CBOR (alpha, feature gate CBORServingAndStorage), read and written by an independent CBOR
# reader in the test (tests/lib/cborwire.py): with the gate off application/cbor is 406 and
# 415 as in kube; with it on, objects, lists and errors come as self-described CBOR with
# strings as byte strings and a Secret's data as tag 22, request bodies and apply patches may
# be CBOR, and watches stream application/cbor-seq.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require api_cbor

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
CB='Accept: application/cbor'

# cb ACCEPT METHOD PATH [CURL ARGS...]: a request as the admin into $OUT/$HDR; sets CODE.
cb() {
    local accept=$1 method=$2 path=$3; shift 3
    OUT=$KGATE_TEST_TMP/body HDR=$KGATE_TEST_TMP/headers
    CODE=$(kcurl "${ADMIN[@]}" -o "$OUT" -D "$HDR" -w '%{http_code}' -X "$method" \
        -H "$accept" "$@" "$KGATE_URL$path")
}

# cby EXPR: a Python expression over $OUT read as CBOR: raw (the bytes), t (the item, tags
# kept), d (the item as plain JSON-like values).
cby() {
    python3 - "$1" "$OUT" <<'PY'
import sys
sys.path.insert(0, "tests/lib")
from cborwire import Tag, decode, plain
raw = open(sys.argv[2], "rb").read()
t, rest = decode(raw)
d = plain(t)
v = eval(sys.argv[1])
if v is not True:
    print("# cby: %r gave %r" % (sys.argv[1], v))
    sys.exit(1)
PY
}

# cbor_of JSON: the CBOR bytes of a JSON document into $KGATE_TEST_TMP/in.cbor.
cbor_of() {
    python3 -c "
import json, sys
sys.path.insert(0, 'tests/lib')
from cborwire import encode
open('$KGATE_TEST_TMP/in.cbor', 'wb').write(b'\xd9\xd9\xf7' + encode(json.loads(sys.argv[1])))" "$1"
}

# ---- the gate off (kube 1.32's default) -----------------------------------------------------
check "kgate starts without the gate" api_start cbor-off --workers=1
cb "$CB" GET $CORE/configmaps
check "Accept application/cbor without the gate: 406" is_status 406 NotAcceptable \
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf'
cbor_of "$(cm off)"
cb 'Accept: application/json' POST $CORE/configmaps -H 'Content-Type: application/cbor' \
    --data-binary "@$KGATE_TEST_TMP/in.cbor"
check "a CBOR body without the gate: 415" is_status 415 UnsupportedMediaType \
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf'
stop_all

# ---- the gate on ----------------------------------------------------------------------------
check "kgate starts with CBORServingAndStorage" \
    api_start cbor --workers=2 --feature-gates=CBORServingAndStorage=true
req POST $CORE/configmaps '{"metadata":{"name":"one"},"data":{"a":"1"}}'
check "a ConfigMap is created" code_is 201
cb "$CB" GET $CORE/configmaps/one
check "GET as CBOR: application/cbor" test "$CODE:$(header Content-Type)" = "200:application/cbor"
check "... self-described (tag 55799), nothing after the item" \
    cby "raw[:3] == b'\xd9\xd9\xf7' and isinstance(t, Tag) and t.number == 55799 and rest == len(raw)"
check "... strings and keys as byte strings" \
    cby "isinstance(t.value[b'kind' if b'kind' in t.value else 'kind'], bytes)"
check "... the object as JSON shows it" \
    cby "d['kind'] == 'ConfigMap' and d['metadata']['name'] == 'one' and d['data'] == {'a': '1'}"
req POST $CORE/secrets '{"metadata":{"name":"s"},"data":{"k":"aGk="}}'
cb "$CB" GET $CORE/secrets/s
check "a Secret's data: tag 22 over the raw bytes" \
    cby "isinstance(t.value['data']['k'], Tag) and t.value['data']['k'].number == 22 and t.value['data']['k'].value == b'hi'"
cb "$CB" GET $CORE/configmaps
check "LIST as CBOR" cby "d['kind'] == 'ConfigMapList' and 'one' in [i['metadata']['name'] for i in d['items']]"
cb "$CB" GET $CORE/configmaps/nosuch
check "an error is a CBOR Status" \
    cby "d['kind'] == 'Status' and d['code'] == 404 and d['reason'] == 'NotFound'"
cb "$CB" GET /version
check "/version is not served as CBOR: 406" test "$CODE" = 406

cbor_of "$(cm two)"
cb "$CB" POST $CORE/configmaps -H 'Content-Type: application/cbor' --data-binary "@$KGATE_TEST_TMP/in.cbor"
check "a CBOR body creates (201)" code_is 201
check "... answered in CBOR" cby "d['metadata']['name'] == 'two' and d['data'] == {'k': 'v'}"
printf '\xd9\xd9\xf7\xa2\x61\x61\x01\x61\x61\x02' >"$KGATE_TEST_TMP/dup.cbor"
cb 'Accept: application/json' POST $CORE/configmaps -H 'Content-Type: application/cbor' \
    --data-binary "@$KGATE_TEST_TMP/dup.cbor"
check "a CBOR body with a duplicate key: 400 in the decoder's words" \
    jpy "d['code'] == 400 and 'duplicate map key' in d['message']" || diag "$(cat "$OUT")"
python3 -c "
import sys
sys.path.insert(0, 'tests/lib')
from cborwire import encode
open('$KGATE_TEST_TMP/apply.cbor', 'wb').write(encode({'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'applied'}, 'data': {'x': 'y'}}))"
cb 'Accept: application/json' PATCH "$CORE/configmaps/applied?fieldManager=cbor" \
    -H 'Content-Type: application/apply-patch+cbor' --data-binary "@$KGATE_TEST_TMP/apply.cbor"
check "an apply-patch+cbor body creates the object" \
    jpy "d['data'] == {'x': 'y'} and d['metadata']['managedFields'][0]['manager'] == 'cbor'"

# ---- watch ------------------------------------------------------------------------------------
req GET "$CORE/configmaps?limit=1"
rv=$(jget "d['metadata']['resourceVersion']")
W=$KGATE_TEST_TMP/w.cbor
kcurl --max-time 8 "${ADMIN[@]}" -o "$W" -D "$W.hdr" -H "$CB" \
    "$KGATE_URL$CORE/configmaps?watch=1&resourceVersion=$rv&timeoutSeconds=3" &
WPID=$!
sleep 1
req PATCH $CORE/configmaps/one '{"data":{"a":"2"}}' application/merge-patch+json
req DELETE $CORE/configmaps/one
wait $WPID
check "a CBOR watch is application/cbor-seq" grep -qi '^Content-Type: application/cbor-seq' "$W.hdr"
check "... each event one self-described item {type, object}" python3 -c "
import sys
sys.path.insert(0, 'tests/lib')
from cborwire import Tag, decode, plain
b = open('$W', 'rb').read()
ev = []
while b:
    t, n = decode(b)
    ev.append(plain(t))
    b = b[n:]
sys.exit(not ([e['type'] for e in ev] == ['MODIFIED', 'DELETED'] and all(e['object']['metadata']['name'] == 'one' for e in ev)))"

tap_end
