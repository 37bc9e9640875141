#!/usr/bin/env bash
# Answers in application/vnd.kubernetes.protobuf and as PartialObjectMetadata, read by an
# independent wire-format reader (tests/lib/pbwire.py) with kube's field numbers: objects,
# errors, lists (a streamed one past 500 items and 128 KiB), watches, subresources, reviews,
# the metadata views in JSON and protobuf, and the 406s of views that do not fit. On an etcd of
# its own, which it compacts.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require api_protobuf

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
etcd_start own >/dev/null
check "an etcd of its own" etcd_wait "$ETCD_URL"
KGATE_TEST_ETCD=$ETCD_URL
export KGATE_WATCH_PROGRESS_MS=500
check "kgate starts" api_start protobuf --workers=2
PB='Accept: application/vnd.kubernetes.protobuf'
META='Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'
METALIST='Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1'
PBMETA='Accept: application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'
PBMETALIST='Accept: application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1'

# pb ACCEPT METHOD PATH [CURL ARGS...]: a request as the admin into $OUT/$HDR; sets CODE.
pb() {
    local accept=$1 method=$2 path=$3; shift 3
    OUT=$KGATE_TEST_TMP/body HDR=$KGATE_TEST_TMP/headers
    CODE=$(kcurl "${ADMIN[@]}" -o "$OUT" -D "$HDR" -w '%{http_code}' -X "$method" \
        -H "$accept" "$@" "$KGATE_URL$path")
}

# pby EXPR: a Python expression over the envelope e of $OUT, its message m (e's raw, parsed)
# and pbwire's functions (msg, one, text, frames); exits non-zero when it is not True.
pby() {
    python3 - "$1" "$OUT" <<'PY'
import sys
sys.path.insert(0, "tests/lib")
from pbwire import *
data = open(sys.argv[2], "rb").read()
e = envelope(data) if data[:4] == b"k8s\x00" else None
m = msg(e["raw"]) if e else None
meta = lambda obj: msg(one(obj, 1, b""))            # ObjectMeta of a decoded object
smap = lambda ms: {text(msg(x), 1): text(msg(x), 2) for x in ms}  # map<string,string>
v = eval(sys.argv[1])
if v is not True:
    print("# pby: %r gave %r" % (sys.argv[1], v))
    sys.exit(1)
PY
}

# ---- one object ---------------------------------------------------------------------------
req POST $CORE/configmaps '{"metadata":{"name":"one","labels":{"app":"x"}},"data":{"a":"1","b":"2"}}'
check "a ConfigMap is created" code_is 201
rv=$(jget "d['metadata']['resourceVersion']")
pb "$PB" GET $CORE/configmaps/one
check "GET in protobuf: 200 with kube's media type" \
    test "$CODE:$(header Content-Type)" = "200:application/vnd.kubernetes.protobuf"
check "... the k8s envelope names v1 ConfigMap, contentType unset" \
    pby "e['apiVersion'] == 'v1' and e['kind'] == 'ConfigMap' and e['contentType'] == ''"
check "... ObjectMeta: name, namespace, resourceVersion, labels" \
    pby "text(meta(m), 1) == 'one' and text(meta(m), 3) == 'default' and text(meta(m), 6) == '$rv' and smap(meta(m)[11]) == {'app': 'x'}"
check "... data (field 2) as a map" pby "smap(m[2]) == {'a': '1', 'b': '2'}"
cp "$OUT" "$KGATE_TEST_TMP/one.pb"
pb "$PB" PUT $CORE/configmaps/one -H 'Content-Type: application/vnd.kubernetes.protobuf' \
    --data-binary "@$KGATE_TEST_TMP/one.pb"
check "the same bytes PUT back as protobuf: 200 in protobuf" \
    test "$CODE:$(header Content-Type)" = "200:application/vnd.kubernetes.protobuf"
check "... the object is unchanged (no new resourceVersion)" \
    pby "text(meta(m), 6) == '$rv' and smap(m[2]) == {'a': '1', 'b': '2'}"
pb "$PB" PATCH $CORE/configmaps/one -H 'Content-Type: application/merge-patch+json' \
    --data-binary '{"data":{"c":"3"}}'
check "a merge patch answered in protobuf" \
    pby "smap(m[2]) == {'a': '1', 'b': '2', 'c': '3'} and text(meta(m), 6) != '$rv'"

# ---- errors ---------------------------------------------------------------------------------
pb "$PB" GET $CORE/configmaps/nosuch
check "a 404 is a protobuf Status" test "$CODE:$(header Content-Type)" = "404:application/vnd.kubernetes.protobuf"
check "... v1 Status: Failure, NotFound, code 404, kube's message" \
    pby "e['kind'] == 'Status' and text(m, 2) == 'Failure' and text(m, 4) == 'NotFound' and one(m, 6) == 404 and text(m, 3) == 'configmaps \"nosuch\" not found'"
check "... details name the object" pby "text(msg(m[5][0]), 1) == 'nosuch' and text(msg(m[5][0]), 3) == 'configmaps'"
pb "$PB" POST $CORE/configmaps -H 'Content-Type: application/json' --data-binary "$(cm one)"
check "a conflict is a protobuf Status too" pby "text(m, 4) == 'AlreadyExists' and one(m, 6) == 409"
pb "$PB" GET /api/v1/namespaces/default/nosuchresources
check "an unknown resource: 404 Status in protobuf" pby "one(m, 6) == 404 and e['kind'] == 'Status'"
pb "Accept: application/vnd.kubernetes.protobuf" GET /version
check "protobuf is not produced for /version: 406" test "$CODE" = 406

# ---- delete, subresources, reviews ----------------------------------------------------------
req POST $APPS/deployments "$(deploy web 2)"
check "a Deployment is created" code_is 201
pb "$PB" GET $APPS/deployments/web/scale
check "scale in protobuf: autoscaling/v1 Scale with spec.replicas 2" \
    pby "e['kind'] == 'Scale' and e['apiVersion'] == 'autoscaling/v1' and one(msg(m[2][0]), 1) == 2"
pb "$PB" GET $APPS/deployments/web/status
check "status in protobuf: the Deployment" pby "e['kind'] == 'Deployment' and text(meta(m), 1) == 'web'"
pb "$PB" POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews \
    -H 'Content-Type: application/json' \
    --data-binary '{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}'
check "a review answered in protobuf: status.allowed" \
    pby "e['kind'] == 'SelfSubjectAccessReview' and one(msg(m[3][0]), 1) == 1"
pb "$PB" DELETE $APPS/deployments/web
check "a delete answered in protobuf" pby "e['kind'] in ('Status', 'Deployment')"

# ---- lists ----------------------------------------------------------------------------------
pb "$PB" GET $CORE/configmaps
check "LIST in protobuf: ConfigMapList" pby "e['kind'] == 'ConfigMapList' and e['apiVersion'] == 'v1'"
check "... ListMeta carries the revision, items the objects" \
    pby "text(msg(m[1][0]), 2).isdigit() and 'one' in [text(meta(msg(i)), 1) for i in m[2]]"
pb "$PB" GET "$CORE/configmaps?limit=1"
check "a page in protobuf carries its continue token" \
    pby "len(m[2]) == 1 and len(text(msg(m[1][0]), 3)) > 0"

# 620 ConfigMaps of 1 KiB: more than one etcd chunk (500) and past 128 KiB, so streamed.
python3 - "$KGATE_URL" "$PKI" <<'PY'
import http.client, json, ssl, sys, urllib.parse
url, pki = urllib.parse.urlparse(sys.argv[1]), sys.argv[2]
ctx = ssl.create_default_context(cafile=pki + "/ca.crt")
ctx.load_cert_chain(pki + "/admin.crt", pki + "/admin.key")
c = http.client.HTTPSConnection(url.hostname, url.port, context=ctx)
for i in range(620):
    body = json.dumps({"metadata": {"name": "bulk-%03d" % i, "namespace": "bulk"},
                       "data": {"k": "v" * 1024}})
    if i == 0:
        c.request("POST", "/api/v1/namespaces", json.dumps({"metadata": {"name": "bulk"}}),
                  {"Content-Type": "application/json"})
        c.getresponse().read()
    c.request("POST", "/api/v1/namespaces/bulk/configmaps", body,
              {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    if r.status != 201:
        sys.exit("create %d: %d" % (i, r.status))
PY
check "620 ConfigMaps are created" test $? = 0
pb "$PB" GET /api/v1/namespaces/bulk/configmaps
check "a large protobuf list is streamed (no length)" bash -c "! grep -qi '^Content-Length' '$HDR'"
check "... its envelope length is right and every item is there, in order" \
    pby "[n for n in (text(meta(msg(i)), 1) for i in m[2]) if n.startswith('bulk-')] == ['bulk-%03d' % i for i in range(620)]"
cp "$OUT" "$KGATE_TEST_TMP/big.pb"
pb "$PB" GET /api/v1/namespaces/bulk/configmaps --compressed
check "... gzipped when asked, the same bytes" \
    bash -c "grep -qi '^Content-Encoding: gzip' '$HDR' && cmp -s '$OUT' '$KGATE_TEST_TMP/big.pb'"
pb "$METALIST" GET '/api/v1/namespaces/bulk/configmaps?pretty=0'
check "a large PartialObjectMetadataList in JSON is streamed too" \
    bash -c "! grep -qi '^Content-Length' '$HDR'"
check "... every item a PartialObjectMetadata without data" jpy "d['kind'] == \
'PartialObjectMetadataList' and len(d['items']) >= 620 and all(i['kind'] == \
'PartialObjectMetadata' and set(i) == {'kind', 'apiVersion', 'metadata'} for i in d['items'])"

# ---- PartialObjectMetadata ------------------------------------------------------------------
pb "$META" GET $CORE/configmaps/one
check "GET as PartialObjectMetadata: kind, apiVersion, metadata only" jpy "d['kind'] == \
'PartialObjectMetadata' and d['apiVersion'] == 'meta.k8s.io/v1' and set(d) == {'kind', \
'apiVersion', 'metadata'} and d['metadata']['name'] == 'one'"
pb "$PBMETA" GET $CORE/configmaps/one
check "... in protobuf: the meta.k8s.io/v1 envelope around metadata=1" \
    pby "e['kind'] == 'PartialObjectMetadata' and e['apiVersion'] == 'meta.k8s.io/v1' and list(m) == [1] and text(meta(m), 1) == 'one'"
pb "$PBMETALIST" GET $CORE/configmaps
check "LIST as PartialObjectMetadataList in protobuf" \
    pby "e['kind'] == 'PartialObjectMetadataList' and 'one' in [text(meta(msg(i)), 1) for i in m[2]] and all(list(msg(i)) == [1] for i in m[2])"
pb "$METALIST" GET $CORE/configmaps/one
check "an object asked as a list: 406 in kube's words" is_status 406 NotAcceptable \
    'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)'
pb "$META" GET $CORE/configmaps
check "a list asked as an object: 406 in kube's words" is_status 406 NotAcceptable \
    'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)'
pb "$METALIST" GET /apis/apps/v1/namespaces/default/deployments/nosuch
check "errors stay a Status" is_status 404 NotFound 'deployments.apps "nosuch" not found'
pb "Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1" GET $CORE/configmaps/one
check "v1beta1 views too" jpy "d['apiVersion'] == 'meta.k8s.io/v1beta1'"

# ---- watches --------------------------------------------------------------------------------
# watch_to FILE ACCEPT QUERY: a watch of default's ConfigMaps for 6 s in the background (its
# pid added to WATCHES). Its bookmark comes 2 s before its end, as kube's: by then the writes
# below, a second after it starts, must have reached it, even on a loaded machine.
WATCHES=()
watch_to() {
    kcurl --max-time 10 "${ADMIN[@]}" -o "$1" -D "$1.hdr" -H "$2" \
        "$KGATE_URL$CORE/configmaps?watch=1&timeoutSeconds=6&$3" &
    WATCHES+=($!)
}
W=$KGATE_TEST_TMP/w
req GET "$CORE/configmaps?limit=1"
rv=$(jget "d['metadata']['resourceVersion']")
watch_to "$W.pb" "$PB" "resourceVersion=$rv&allowWatchBookmarks=true"
watch_to "$W.meta" "$META" "resourceVersion=$rv"
watch_to "$W.pbmeta" "$PBMETA" "resourceVersion=$rv"
watch_to "$W.json" "Accept: application/json" "resourceVersion=$rv"
sleep 1
req POST $CORE/configmaps "$(cm w1)"
req PATCH $CORE/configmaps/w1 '{"data":{"k":"v2"}}' application/merge-patch+json
req DELETE $CORE/configmaps/w1
sleep 0.5
req POST /api/v1/namespaces/bulk/secrets '{"metadata":{"name":"later"}}'
wait "${WATCHES[@]}"
# frames FILE: the protobuf watch frames of FILE as "TYPE kind name" lines.
frames() {
    python3 - "$1" <<'PY'
import sys
sys.path.insert(0, "tests/lib")
from pbwire import frames, msg, one, text
for f in frames(open(sys.argv[1], "rb").read()):
    o = f["object"]
    m = msg(o["raw"])
    print(f["type"], o["kind"], text(msg(one(m, 1, b"")), 1))
PY
}
check "a protobuf watch is served as kube's stream type" \
    grep -qi '^Content-Type: application/vnd.kubernetes.protobuf;stream=watch' "$W.pb.hdr"
check "... its frames: ADDED, MODIFIED, DELETED of the ConfigMap" \
    test "$(frames "$W.pb" | grep -v BOOKMARK)" = "$(printf 'ADDED ConfigMap w1\nMODIFIED ConfigMap w1\nDELETED ConfigMap w1')"
check "... and bookmarks as frames" bash -c "frames() { :; }; python3 -c \"
import sys; sys.path.insert(0, 'tests/lib'); from pbwire import frames
sys.exit(not any(f['type'] == 'BOOKMARK' and f['object']['kind'] == 'ConfigMap' for f in frames(open('$W.pb', 'rb').read())))\""
check "a JSON watch beside it is unchanged" \
    test "$(python3 -c "import json,sys; print(' '.join(json.loads(l)['type'] for l in open('$W.json')))")" = "ADDED MODIFIED DELETED"
check "a PartialObjectMetadata watch: each object a metadata view" python3 -c "
import json, sys
ev = [json.loads(l) for l in open('$W.meta')]
sys.exit(not ([e['type'] for e in ev] == ['ADDED', 'MODIFIED', 'DELETED'] and all(
    e['object']['kind'] == 'PartialObjectMetadata' and 'data' not in e['object'] for e in ev)))"
check "... and in protobuf" \
    test "$(frames "$W.pbmeta")" = "$(printf 'ADDED PartialObjectMetadata w1\nMODIFIED PartialObjectMetadata w1\nDELETED PartialObjectMetadata w1')"
ETCDCTL_API=3 etcdctl --endpoints="$ETCD_URL" compact "$(python3 -c "
import sys; sys.path.insert(0, 'tests/lib'); from pbwire import *
print(max(int(text(msg(one(msg(f['object']['raw']), 1, b'')), 6)) for f in frames(open('$W.pb', 'rb').read())))")" >/dev/null
OUT=$KGATE_TEST_TMP/old.pb
kcurl --max-time 8 "${ADMIN[@]}" -o "$OUT" -H "$PB" "$KGATE_URL$CORE/configmaps?watch=1&resourceVersion=1&timeoutSeconds=2" >/dev/null
check "a too old resourceVersion ends a protobuf watch with an ERROR frame holding a Status" python3 -c "
import sys; sys.path.insert(0, 'tests/lib'); from pbwire import *
f = frames(open('$OUT', 'rb').read())
m = msg(f[-1]['object']['raw'])
sys.exit(not (f[-1]['type'] == 'ERROR' and f[-1]['object']['kind'] == 'Status' and one(m, 6) == 410))"
pb "$METALIST" GET "$CORE/configmaps?watch=1&timeoutSeconds=1"
check "a watch asked as a list view: 406" is_status 406 NotAcceptable \
    'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)'

tap_end
