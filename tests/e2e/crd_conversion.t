#!/usr/bin/env bash
# A CRD with two versions converted by a webhook (spec.conversion.strategy Webhook): a loopback
# HTTPS server written here converts between v1 (spec.host, spec.port) and v2 (spec.hostPort
# "host:port"). Objects are stored in v1 and served in the version asked: create in either,
# read, list and update through the other, objects already in the wanted version never sent;
# a webhook that is down or answers garbage fails the read with kube's error; the webhook
# reached through a Service and its Endpoints.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source scripts/pki.sh
e2e_require crd_conversion

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
pki_cert "$PKI" ca webhook server "/CN=webhook" "DNS:localhost,IP:127.0.0.1,DNS:conv.default.svc"
set_users
trap stop_all EXIT
CRDS=/apis/apiextensions.k8s.io/v1/customresourcedefinitions
G=/apis/conv.example.com
V1=$G/v1/namespaces/default/proxies
V2=$G/v2/namespaces/default/proxies
HOOK_LOG=$KGATE_TEST_TMP/hook.log
HOOK_MODE=$KGATE_TEST_TMP/hook.mode
HOOK_PORT=$(free_port)
CA_B64=$(base64 -w0 "$PKI/ca.crt")

# The webhook: converts each object, logs "<desiredAPIVersion> <count> <apiVersions>" per
# review, and answers garbage while $HOOK_MODE says so.
start_hook() {
    python3 - "$HOOK_PORT" "$PKI/webhook.crt" "$PKI/webhook.key" "$HOOK_LOG" "$HOOK_MODE" \
        >>"$KGATE_TEST_TMP/hook.err" 2>&1 <<'PY' &
import http.server, json, ssl, sys
port, crt, key, log, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]

def convert(o, to):
    o = dict(o)
    spec = dict(o.get("spec", {}))
    if to.endswith("/v2") and "host" in spec:
        spec["hostPort"] = "%s:%d" % (spec.pop("host"), spec.pop("port", 80))
    elif to.endswith("/v1") and "hostPort" in spec:
        h, p = spec.pop("hostPort").rsplit(":", 1)
        spec["host"], spec["port"] = h, int(p)
    o["spec"], o["apiVersion"] = spec, to
    return o

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        req = review["request"]
        with open(log + ".conn", "a") as f:
            f.write("%d\n" % self.client_address[1])
        with open(log, "a") as f:
            f.write("%s %s %d %s\n" % (self.path.split("?")[0], req["desiredAPIVersion"], len(req["objects"]),
                    ",".join(o["apiVersion"] for o in req["objects"])))
        try:
            m = open(mode).read().strip()
        except OSError:
            m = "ok"
        if m == "garbage":
            body = b"garbage"
        else:
            body = json.dumps({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                               "response": {"uid": req["uid"], "result": {"status": "Success"},
                               "convertedObjects": [convert(o, req["desiredAPIVersion"])
                                                    for o in req["objects"]]}}).encode()
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
    HOOK_PID=$!
    echo "$HOOK_PID" >>"$KGATE_TEST_TMP/pids"
    for _ in $(seq 50); do
        curl -s --cacert "$PKI/ca.crt" -o /dev/null "https://127.0.0.1:$HOOK_PORT/" && return 0
        sleep 0.1
    done
    return 1
}

# crd PLURAL KIND CLIENT-CONFIG: the two-version CRD converted by the webhook at CLIENT-CONFIG.
crd() {
    cat <<EOF
{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"$1.conv.example.com"},
 "spec":{"group":"conv.example.com","scope":"Namespaced",
  "names":{"plural":"$1","singular":"${1%s}","kind":"$2"},
  "conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],
    "clientConfig":$3}},
  "versions":[
   {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
    "properties":{"spec":{"type":"object","properties":{"host":{"type":"string"},
                                                        "port":{"type":"integer"}}}}}}},
   {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object",
    "properties":{"spec":{"type":"object","properties":{"hostPort":{"type":"string"}}}}}}}]}}
EOF
}

wait_established() {
    for _ in $(seq 50); do
        req GET "$CRDS/$1.conv.example.com"
        jpy "any(c['type'] == 'Established' and c['status'] == 'True' for c in d.get('status', {}).get('conditions', []))" \
            >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    diag "$(head -c 800 "$OUT")"
    return 1
}

reviews() { [[ -f $HOOK_LOG ]] && wc -l <"$HOOK_LOG" || echo 0; }
last_review() { tail -1 "$HOOK_LOG"; }

check "the webhook starts" start_hook
check "kgate starts" api_start conv --workers=2
PREFIX=/registry-conv-$$

req POST "$CRDS" "$(crd proxies Proxy "{\"url\":\"https://127.0.0.1:$HOOK_PORT/convert\",\"caBundle\":\"$CA_B64\"}")"
check "the CRD with a conversion webhook is created" code_is 201
check "it becomes Established" wait_established proxies
check "v2 is served" wait_code "$G/v2" 200 5

# ---- create in the storage version, read in both -------------------------------------------
req POST "$V1" '{"apiVersion":"conv.example.com/v1","kind":"Proxy","metadata":{"name":"a"},"spec":{"host":"a.example","port":80}}'
check "create in v1 (the storage version)" code_is 201
check "answered in v1" jpy "d['apiVersion'] == 'conv.example.com/v1' and d['spec'] == {'host': 'a.example', 'port': 80}"
check "no review for an object already in the storage version" test "$(reviews)" = 0
uid=$(jget "d['metadata']['uid']")

req GET "$V2/a"
check "read in v2" code_is 200
check "converted by the webhook" jpy "d['apiVersion'] == 'conv.example.com/v2' and d['spec'] == {'hostPort': 'a.example:80'}"
check "metadata kept (uid, resourceVersion)" \
    jpy "d['metadata']['uid'] == '$uid' and d['metadata']['name'] == 'a' and int(d['metadata']['resourceVersion']) > 0"
check "one review asking v2 for one v1 object" test "$(last_review)" = "/convert conv.example.com/v2 1 conv.example.com/v1"
n=$(reviews)
req GET "$V1/a"
check "read in v1" jpy "d['apiVersion'] == 'conv.example.com/v1' and d['spec'] == {'host': 'a.example', 'port': 80}"
check "without a review" test "$(reviews)" = "$n"

# ---- create in v2: stored in v1, answered in v2 ---------------------------------------------
req POST "$V2" '{"apiVersion":"conv.example.com/v2","kind":"Proxy","metadata":{"name":"b"},"spec":{"hostPort":"b.example:443"}}'
check "create in v2" code_is 201
check "answered in v2" jpy "d['apiVersion'] == 'conv.example.com/v2' and d['spec'] == {'hostPort': 'b.example:443'}"
check "converted to v1 to be stored, and back for the answer" \
    test "$(tail -2 "$HOOK_LOG" | tr '\n' ';')" = "/convert conv.example.com/v1 1 conv.example.com/v2;/convert conv.example.com/v2 1 conv.example.com/v1;"
check "stored in v1" grep -q '"apiVersion":"conv.example.com/v1".*"host":"b.example","port":443' \
    <<<"$(stored conv.example.com/proxies/default/b)"

# ---- lists ---------------------------------------------------------------------------------
n=$(reviews)
req GET "$V2"
check "list in v2" code_is 200
check "every item in v2" \
    jpy "[(i['apiVersion'], i['spec']) for i in d['items']] == [('conv.example.com/v2', {'hostPort': 'a.example:80'}), ('conv.example.com/v2', {'hostPort': 'b.example:443'})]"
check "the page converted in one review" test "$(reviews)" = $((n + 1))
check "of both objects" test "$(last_review)" = "/convert conv.example.com/v2 2 conv.example.com/v1,conv.example.com/v1"
check "the reviews so far came over kept-alive connections (one per worker at most)" \
    test "$(sort -u "$HOOK_LOG.conn" | wc -l)" -le 2 -a "$(reviews)" -ge 4
n=$(reviews)
req GET "$V1"
check "list in v1 without a review" \
    jpy "[i['spec']['host'] for i in d['items']] == ['a.example', 'b.example'] and all(i['apiVersion'] == 'conv.example.com/v1' for i in d['items'])"
check "no review for a list in the storage version" test "$(reviews)" = "$n"

# ---- update through v2 -----------------------------------------------------------------------
req PATCH "$V2/a" '{"spec":{"hostPort":"c.example:8080"}}' application/merge-patch+json
check "a merge patch through v2" code_is 200
check "answered in v2" jpy "d['apiVersion'] == 'conv.example.com/v2' and d['spec'] == {'hostPort': 'c.example:8080'}"
req GET "$V1/a"
check "stored converted back to v1" jpy "d['spec'] == {'host': 'c.example', 'port': 8080}"
req GET "$V2/a"
req PUT "$V2/a" "$(jget "dict(d, spec={'hostPort': 'd.example:9'})")"
check "a PUT through v2" code_is 200
req GET "$V1/a"
check "stored in v1" jpy "d['spec'] == {'host': 'd.example', 'port': 9}"

# ---- watch in v2, delete through v2 -----------------------------------------------------------
req GET "$V2"
rv=$(jget "d['metadata']['resourceVersion']")
kcurl "${ADMIN[@]}" -sN "$KGATE_URL$V2?watch=1&resourceVersion=$rv&timeoutSeconds=4" \
    >"$KGATE_TEST_TMP/watch.out" &
WATCH_PID=$!
sleep 0.5
req POST "$V1" '{"apiVersion":"conv.example.com/v1","kind":"Proxy","metadata":{"name":"w"},"spec":{"host":"w.example","port":5}}'
check "create w in v1" code_is 201
req PATCH "$V1/w" '{"spec":{"port":6}}' application/merge-patch+json
check "patch w in v1" code_is 200
req DELETE "$V2/w"
check "delete w through v2" code_is 200
check "answered with a Success Status" jpy "d['kind'] == 'Status' and d['status'] == 'Success'"
wait "$WATCH_PID"
OUT=$KGATE_TEST_TMP/watch.out
check "the watch in v2 saw every change converted, in order" python3 - "$OUT" <<'PY'
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
got = [(e["type"], e["object"]["apiVersion"], e["object"]["spec"]) for e in evs]
want = [(t, "conv.example.com/v2", {"hostPort": hp}) for t, hp in
        [("ADDED", "w.example:5"), ("MODIFIED", "w.example:6"), ("DELETED", "w.example:6")]]
if got != want:
    print("# got %r" % got)
    sys.exit(1)
PY

# ---- a webhook that answers garbage, then one that is down ----------------------------------
echo garbage >"$HOOK_MODE"
req GET "$V2/a"
check "garbage from the webhook: 500" code_is 500
check "with kube's message" \
    jpy "d['reason'] == '' and d['code'] == 500 and d['message'] == 'conversion for conv.example.com/v1, Kind=Proxy failed: conversion webhook for /, Kind= failed: couldn\\'t get version/kind; json parse error: invalid character \\'g\\' looking for beginning of value'"
req GET "$V1/a"
check "the storage version is still read without it" code_is 200
echo ok >"$HOOK_MODE"

kill "$HOOK_PID"
wait "$HOOK_PID" 2>/dev/null
req GET "$V2/a"
check "the webhook down: 500" code_is 500
check "with kube's message" \
    jpy "d['message'] == 'conversion for conv.example.com/v1, Kind=Proxy failed: conversion webhook for /, Kind= failed: Post \"https://127.0.0.1:$HOOK_PORT/convert?timeout=30s\": dial tcp 127.0.0.1:$HOOK_PORT: connect: connection refused'"
req POST "$V2" '{"apiVersion":"conv.example.com/v2","kind":"Proxy","metadata":{"name":"e"},"spec":{"hostPort":"e.example:1"}}'
check "a create in v2 fails too" code_is 500
req GET "$V1/e"
check "and stores nothing" code_is 404
check "the webhook comes back" start_hook
req GET "$V2/a"
check "reads in v2 work again" jpy "d['spec'] == {'hostPort': 'd.example:9'}"

# ---- the webhook as a service ------------------------------------------------------------
req POST "$CORE/services" '{"metadata":{"name":"conv"},"spec":{"ports":[{"name":"https","port":443,"targetPort":'"$HOOK_PORT"'}]}}'
check "the webhook's Service" code_is 201
# an endpoint may not be a loopback address: the host's own one
HOST_IP=$(hostname -I | awk '{print $1}')
req POST "$CORE/endpoints" '{"metadata":{"name":"conv"},"subsets":[{"addresses":[{"ip":"'"$HOST_IP"'"}],"ports":[{"name":"https","port":'"$HOOK_PORT"'}]}]}'
check "its Endpoints" code_is 201
req POST "$CRDS" "$(crd routes Route "{\"service\":{\"namespace\":\"default\",\"name\":\"conv\",\"path\":\"/svc\"},\"caBundle\":\"$CA_B64\"}")"
check "a CRD whose webhook is the service" code_is 201
check "it becomes Established" wait_established routes
check "its v2 is served" wait_code "$G/v2/namespaces/default/routes" 200 5
req POST "$G/v2/namespaces/default/routes" '{"apiVersion":"conv.example.com/v2","kind":"Route","metadata":{"name":"r"},"spec":{"hostPort":"r.example:7"}}'
check "create in v2 through the service" code_is 201
check "stored through a review at the service's path" \
    test "$(tail -2 "$HOOK_LOG" | head -1)" = "/svc conv.example.com/v1 1 conv.example.com/v2"
check "answered through another" test "$(last_review)" = "/svc conv.example.com/v2 1 conv.example.com/v1"
req GET "$G/v1/namespaces/default/routes/r"
check "stored in v1" jpy "d['spec'] == {'host': 'r.example', 'port': 7}"

check "kgate exits cleanly" clean_exit
tap_end
