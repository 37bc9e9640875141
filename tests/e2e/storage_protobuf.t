#!/usr/bin/env bash
# kgate on an etcd kube-apiserver wrote: values in kube's protobuf envelope ("k8s\0" and a
# runtime.Unknown) are read through every verb by a kgate in JSON mode (get, list, watch with
# events for protobuf values changed behind its back with etcdctl, patch, update, delete), next
# to JSON ones; a kgate with --storage-media-type=application/vnd.kubernetes.protobuf writes
# such envelopes (checked field by field with the independent reader tests/lib/pbwire.py), and
# the JSON kgate on the same etcd reads them back identically. The fixtures written straight
# into etcd are bodies kubectl 1.32 really sent (tests/unit/encoding/protobuf/), the same envelope
# kube-apiserver stores. Also: YAML storage, kube's message for a bad flag value, a corrupt
# envelope treated as a corrupt object (500; AllowUnsafeMalformedObjectDeletion removes it).
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require storage_protobuf

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
PREFIX=/registry-storage-pb-$$
FIX=tests/unit/encoding/protobuf
RAW=$KGATE_TEST_TMP/raw
PBMEDIA=application/vnd.kubernetes.protobuf
ETCDCTL=(env ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD")

# start_on NAME MEDIA [ARGS...]: a kgate on $PREFIX writing MEDIA; sets <NAME>_URL, <NAME>_PID, <NAME>_LOG.
start_on() {
    kgate_start "$1" --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --token-auth-file="$PKI/tokens.csv" \
        --storage-media-type="$2" "${@:3}"
    printf -v "${1}_URL" %s "$KGATE_URL"
    printf -v "${1}_PID" %s "$KGATE_PID"
    printf -v "${1}_LOG" %s "$KGATE_LOG"
    for _ in $(seq 300); do
        [[ $(http_code /readyz "${ADMIN[@]}") == 200 ]] && return 0
        alive "$KGATE_PID" || break
        sleep 0.1
    done
    diag "$(tail -20 "$KGATE_LOG")"
    return 1
}
# on NAME: the next requests go to that kgate.
on() { local u=${1}_URL; KGATE_URL=${!u}; }
# raw KEY: the bytes etcd holds for KEY (under $PREFIX) into $RAW.
raw() {
    "${ETCDCTL[@]}" get "$PREFIX/$1" -w json | python3 -c '
import base64, json, sys
d = json.load(sys.stdin)
sys.stdout.buffer.write(base64.b64decode(d["kvs"][0]["value"]) if d.get("kvs") else b"")' >"$RAW"
}
# starts_with KEY PREFIX-PY-BYTES: etcd's value of KEY starts with those bytes.
starts_with() {
    raw "$1"
    python3 -c "import sys; v = open('$RAW', 'rb').read(); sys.exit(0 if v.startswith($2) else 1)" ||
        { diag "$(head -c 80 "$RAW" | od -c | head -3)"; return 1; }
}
# put_file KEY FILE: FILE's bytes as KEY's value, behind kgate's back.
put_file() { "${ETCDCTL[@]}" put "$PREFIX/$1" <"$2" >/dev/null; }
# pbraw EXPR: a Python expression over the envelope e of $RAW and its message m (pbwire).
pbraw() {
    python3 - "$1" "$RAW" <<'PY'
import sys
sys.path.insert(0, "tests/lib")
from pbwire import *
data = open(sys.argv[2], "rb").read()
e = envelope(data) if data[:4] == b"k8s\x00" else None
m = msg(e["raw"]) if e else None
meta = msg(one(m, 1, b"")) if m else {}
smap = lambda ms: {text(msg(x), 1): text(msg(x), 2) for x in ms}
v = eval(sys.argv[1])
if v is not True:
    print("# pbraw: %r gave %r" % (sys.argv[1], v))
    sys.exit(1)
PY
}
# same_json A B: two saved answers are the same JSON document.
same_json() {
    python3 -c "import json,sys; a=json.load(open('$1')); b=json.load(open('$2'));
sys.exit(0 if a == b else 1)" || { diag "$(head -c 400 "$1")"; diag "$(head -c 400 "$2")"; return 1; }
}
keep() { cp "$OUT" "$KGATE_TEST_TMP/$1"; }

# ---- the flag ---------------------------------------------------------------------------
"$KGATE" --etcd-servers="$KGATE_TEST_ETCD" --storage-media-type=application/protobuf \
    >"$KGATE_TEST_TMP/bad.out" 2>&1
code=$?
check "a bad --storage-media-type: exit 2 with kube's message" test "$code:$(cat "$KGATE_TEST_TMP/bad.out")" = \
    '2:kgate: --storage-media-type "application/protobuf" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml'

# ---- a protobuf kgate writes kube's envelope ------------------------------------------------
check "a kgate writing protobuf starts" start_on PB "$PBMEDIA"
check "... and one writing JSON (the default kept) on the same etcd" start_on JS application/json \
    --feature-gates=AllowUnsafeMalformedObjectDeletion=true
check "the namespaces created at start-up are stored as protobuf" \
    starts_with namespaces/default 'b"k8s\x00"'

on PB
req POST $CORE/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"pb-cm","labels":{"app":"x"}},"data":{"k":"v","z":"1"}}'
check "PB: a ConfigMap is created" code_is 201
keep pb-created
req POST $APPS/deployments "$(deploy pb-dep 2)"
check "PB: a Deployment is created" code_is 201
check "etcd holds the ConfigMap as k8s\\0 and a runtime.Unknown" starts_with configmaps/default/pb-cm 'b"k8s\x00"'
check "... typeMeta v1 ConfigMap, contentType empty as kube writes it" \
    pbraw 'e["apiVersion"] == "v1" and e["kind"] == "ConfigMap" and not e.get("contentType")'
check "... its ObjectMeta names it, without a resourceVersion (as kube stores)" \
    pbraw 'text(meta, 1) == "pb-cm" and text(meta, 3) == "default" and not text(meta, 6) and bool(text(meta, 5))'
check "... its data as a map field" pbraw 'smap(m.get(2, [])) == {"k": "v", "z": "1"}'
raw deployments/default/pb-dep
check "the Deployment too: apps/v1 Deployment, spec.replicas 2" \
    pbraw 'e["apiVersion"] == "apps/v1" and e["kind"] == "Deployment" and one(msg(one(m, 2)), 1) == 2'
req GET $CORE/configmaps/pb-cm
check "PB reads its own value back" code_is 200
keep pb-get
check "... as it answered the create" same_json "$KGATE_TEST_TMP/pb-get" "$KGATE_TEST_TMP/pb-created"

on JS
req GET $CORE/configmaps/pb-cm
check "JS reads the protobuf value" code_is 200
keep js-get
check "... identically to PB" same_json "$KGATE_TEST_TMP/js-get" "$KGATE_TEST_TMP/pb-get"

# ---- values kube wrote, straight into etcd ---------------------------------------------------
put_file configmaps/default/x $FIX/kubectl-create-configmap.pb
put_file deployments/default/web $FIX/kubectl-create-deployment.pb
check "etcd holds the kubectl bodies as they are" starts_with configmaps/default/x 'b"k8s\x00\x0a\x0f\x0a\x02v1"'
rv_x=$("${ETCDCTL[@]}" get "$PREFIX/configmaps/default/x" -w json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["mod_revision"])')
req GET $CORE/configmaps/x
check "GET of a kube-written ConfigMap: 200" code_is 200
check "... the JSON kube shows, resourceVersion the etcd revision" \
    jpy "(d['kind'] == 'ConfigMap' and d['apiVersion'] == 'v1' and d['metadata']['name'] == 'x'
and d['data'] == {'a': 'b', 'bin': '34493\n'} and d['metadata']['resourceVersion'] == '$rv_x')"
req GET $APPS/deployments/web
check "GET of a kube-written Deployment: its spec" \
    jpy "(d['kind'] == 'Deployment' and d['spec']['selector'] == {'matchLabels': {'app': 'web'}}
and d['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.27')"
CODE=$(kcurl "${ADMIN[@]}" -o "$KGATE_TEST_TMP/body" -w '%{http_code}' -H "Accept: $PBMEDIA" \
    "$KGATE_URL$CORE/configmaps/x")
check "... answered as protobuf too" test "$CODE:$(head -c 4 "$KGATE_TEST_TMP/body" | od -An -c | tr -d ' ')" = '200:k8s\0'
CODE=$(kcurl "${ADMIN[@]}" -o "$KGATE_TEST_TMP/body" -w '%{http_code}' \
    -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' "$KGATE_URL$CORE/configmaps/x")
OUT=$KGATE_TEST_TMP/body
check "... and as a Table" jpy "d['kind'] == 'Table' and d['rows'][0]['cells'][0] == 'x'"

req POST $CORE/configmaps "$(cm js-cm)"
check "JS: a ConfigMap is created" code_is 201
check "... stored as JSON" starts_with configmaps/default/js-cm 'b"{"'

req GET $CORE/configmaps
check "LIST mixes protobuf and JSON values" \
    jpy "({'pb-cm', 'x', 'js-cm'} <= {i['metadata']['name'] for i in d['items']}
and [i for i in d['items'] if i['metadata']['name'] == 'x'][0]['data']['a'] == 'b')"
req GET "$CORE/configmaps?labelSelector=app%3Dx"
check "... label selectors see protobuf values' labels" jpy "[i['metadata']['name'] for i in d['items']] == ['pb-cm']"
req GET "$CORE/configmaps?limit=1"
check "... paged" jpy "len(d['items']) == 1 and bool(d['metadata'].get('continue'))"

# ---- watch: protobuf values changed behind kgate's back --------------------------------------
W=$KGATE_TEST_TMP/watch.json
req GET $CORE/configmaps
rv=$(jget "d['metadata']['resourceVersion']")
kcurl "${ADMIN[@]}" -N --max-time 20 "$KGATE_URL$CORE/configmaps?watch=true&resourceVersion=$rv&allowWatchBookmarks=false" >"$W" &
WATCH_PID=$!
sleep 1
python3 -c "
d = open('$FIX/kubectl-create-configmap.pb', 'rb').read()
assert d.count(b'\x12\x01b') == 1
open('$KGATE_TEST_TMP/x2.pb', 'wb').write(d.replace(b'\x12\x01b', b'\x12\x01c'))"
put_file configmaps/default/x "$KGATE_TEST_TMP/x2.pb"
"${ETCDCTL[@]}" del "$PREFIX/configmaps/default/x" >/dev/null
for _ in $(seq 100); do [[ $(wc -l <"$W") -ge 2 ]] && break; sleep 0.1; done
kill "$WATCH_PID" 2>/dev/null
wait "$WATCH_PID" 2>/dev/null
check "watch: etcdctl's protobuf put is a MODIFIED with the new JSON, its delete a DELETED with the last" python3 -c "
import json
ev = [json.loads(l) for l in open('$W') if l.strip()]
ev = [(e['type'], e['object']['metadata']['name'], e['object'].get('data')) for e in ev]
want = [('MODIFIED', 'x', {'a': 'c', 'bin': '34493\n'}), ('DELETED', 'x', {'a': 'c', 'bin': '34493\n'})]
assert ev == want, ev"

# ---- writes through a JSON kgate over protobuf values ----------------------------------------
req GET $APPS/deployments/pb-dep
rv_dep=$(jget "d['metadata']['resourceVersion']")
req PATCH $APPS/deployments/pb-dep '{}' application/merge-patch+json
check "an empty PATCH of a protobuf value: 200, nothing written" \
    jpy "d['metadata']['resourceVersion'] == '$rv_dep' and d['spec']['replicas'] == 2"
check "... the value stays protobuf" starts_with deployments/default/pb-dep 'b"k8s\x00"'

req PATCH $CORE/configmaps/pb-cm '{"data":{"k2":"v2"}}' application/merge-patch+json
check "PATCH of a protobuf value: 200, merged" \
    jpy "d['data'] == {'k': 'v', 'z': '1', 'k2': 'v2'} and d['metadata']['labels'] == {'app': 'x'}"
check "... written back as JSON by the JSON kgate" starts_with configmaps/default/pb-cm 'b"{"'

req GET $APPS/deployments/pb-dep
python3 -c "import json; d = json.load(open('$OUT')); d['spec']['replicas'] = 3;
open('$KGATE_TEST_TMP/dep.json', 'w').write(json.dumps(d))"
req PUT $APPS/deployments/pb-dep "$(cat "$KGATE_TEST_TMP/dep.json")"
check "PUT over a protobuf value: 200" jpy "d['spec']['replicas'] == 3"

req GET $APPS/deployments/web
uid=$(jget "d['metadata'].get('uid', '')")
req DELETE $APPS/deployments/web
check "DELETE of a kube-written value: 200" code_is 200
req GET $APPS/deployments/web
check "... gone" code_is 404

on PB
req PUT $CORE/configmaps/js-cm "$(cm js-cm)"
check "PB: a PUT changing nothing: 200" code_is 200
check "... the value is not rewritten merely to change its encoding" starts_with configmaps/default/js-cm 'b"{"'
req PUT $CORE/configmaps/js-cm "$(cm js-cm '"labels":{"l":"1"}')"
check "PB: PUT over a JSON value: 200" code_is 200
check "... written back as protobuf" starts_with configmaps/default/js-cm 'b"k8s\x00"'
keep pb-js-cm
on JS
req GET $CORE/configmaps/js-cm
keep js-js-cm
check "... which JS reads identically" same_json "$KGATE_TEST_TMP/js-js-cm" "$KGATE_TEST_TMP/pb-js-cm"

# ---- a corrupt envelope -----------------------------------------------------------------------
printf 'k8s\0\x0a\xff' >"$KGATE_TEST_TMP/bad.pb"
put_file configmaps/default/bad "$KGATE_TEST_TMP/bad.pb"
req GET $CORE/configmaps/bad
check "a corrupt envelope cannot be read: 500" code_is 500
check "... and the log says why" wait_for_line "configmaps/default/bad cannot be decoded" "$JS_LOG"
req DELETE $CORE/configmaps/bad
check "... nor deleted the usual way: 500" code_is 500
req DELETE $CORE/configmaps/bad '{"ignoreStoreReadErrorWithClusterBreakingPotential":true}'
check "... but by the unsafe deletion of a corrupt object: 200" code_is 200
check "... gone from etcd" test -z "$("${ETCDCTL[@]}" get "$PREFIX/configmaps/default/bad" --keys-only)"
req DELETE $CORE/configmaps/pb-cm '{"ignoreStoreReadErrorWithClusterBreakingPotential":true}'
check "the unsafe deletion refuses a protobuf value that decodes: 422" code_is 422

# ---- YAML storage -----------------------------------------------------------------------------
check "a kgate writing YAML starts" start_on YM application/yaml
on YM
req POST $CORE/configmaps "$(cm yaml-cm)"
check "YM: a ConfigMap is created" code_is 201
check "... stored as YAML" starts_with configmaps/default/yaml-cm 'b"apiVersion: v1\n"'
on JS
req GET $CORE/configmaps/yaml-cm
check "... which JS reads" jpy "d['data'] == {'k': 'v'} and d['metadata']['name'] == 'yaml-cm'"

for n in PB JS YM; do
    p=${n}_PID l=${n}_LOG
    KGATE_PID=${!p} KGATE_LOG=${!l}
    check "$n exits cleanly (no sanitizer report)" clean_exit
done
tap_end
