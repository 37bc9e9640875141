#!/usr/bin/env bash
# The chain's own answers as kube-apiserver gives them: 404 for what the catalog does not
# serve, 405 for a verb a resource lacks, 406, 400 for a malformed path, 413 for an oversize
# body, each a metav1.Status in the negotiated encoding with an Audit-ID; and /metrics
# counting what was served.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require api_errors

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
KCURL_AUTH=("${ADMIN[@]}") # anonymous is off under AlwaysAllow
trap stop_all EXIT
UA=(-A "kubectl/v1.32.4 (linux/amd64) kubernetes/test")
NOROUTE='the server could not find the requested resource'

check "kgate starts" api_start errors --workers=2

for path in /api/v1/nosuch /apis/nosuch.example.com/v1/things /api/v9/pods \
    /api/v1/namespaces/default/pods/p/nosuch /apis/apps/v1/namespaces/d/deployments/x/status2; do
    fetch "$path" "${UA[@]}"
    check "$path: 404" test "$CODE" = 404
    check "$path: a NotFound Status" is_status 404 NotFound "$NOROUTE"
done
check "... with empty details, as kube's" jpy "d['details'] == {}"
check "... and an Audit-ID" grep -qiE '^Audit-ID: [0-9a-f-]{36}' "$HDR"
fetch /api/v1/nosuch -H 'Audit-ID: my-trace-42'
check "a client's Audit-ID is echoed, as kube does" test "$(header Audit-ID)" = my-trace-42
fetch /api/v1/nosuch -H "Audit-ID: $(head -c 200 /dev/zero | tr '\0' x)"
check "an overlong one is replaced by a UUID" grep -qiE '^Audit-ID: [0-9a-f-]{36}'$'\r$' "$HDR"

fetch /apis/authentication.k8s.io/v1/tokenreviews "${UA[@]}"
check "GET on a create-only resource: 405" is_status 405 MethodNotAllowed \
    'the server does not allow this method on the requested resource'
fetch /api/v1/componentstatuses/x "${UA[@]}" -X DELETE
check "DELETE on a read-only resource: 405" test "$CODE" = 405
fetch /api/v1/namespaces/default/pods "${UA[@]}" -X OPTIONS
check "a method with no verb: 405" test "$CODE" = 405

# verbs a path does not take: go-restful's 405, a Status with empty details and no Allow
NOTALLOWED='the server does not allow this method on the requested resource'
fetch /api/v1/namespaces/default/configmaps "${UA[@]}" -X PUT -H 'Content-Type: application/json' \
    -d '{"metadata":{"name":"x"}}'
check "PUT on a collection: 405" is_status 405 MethodNotAllowed "$NOTALLOWED"
check "... with empty details" jpy "d['details'] == {}"
check "... and no Allow header, as kube sends none" test -z "$(header Allow)"
fetch /api/v1/namespaces/default/configmaps "${UA[@]}" -X PATCH \
    -H 'Content-Type: application/merge-patch+json' -d '{}'
check "PATCH on a collection: 405" is_status 405 MethodNotAllowed "$NOTALLOWED"
fetch /api/v1/namespaces/default/configmaps/x "${UA[@]}" -X POST \
    -H 'Content-Type: application/json' -d '{"metadata":{"name":"x"}}'
check "POST on an object: 405" is_status 405 MethodNotAllowed "$NOTALLOWED"
fetch /api/v1/namespaces/x "${UA[@]}" -X POST -H 'Content-Type: application/json' \
    -d '{"metadata":{"name":"x"}}'
check "POST on a namespace: 405" is_status 405 MethodNotAllowed "$NOTALLOWED"
fetch /apis/authentication.k8s.io/v1/tokenreviews/x "${UA[@]}" -X POST \
    -H 'Content-Type: application/json' -d '{}'
check "POST on an object of a create-only resource: 404 (no such route)" \
    is_status 404 NotFound "$NOROUTE"
check "... with go-restful's empty details" jpy "d['details'] == {}"

fetch /api/v1/namespaces/default "${UA[@]}" -H 'Accept: text/html'
check "nothing acceptable on a resource: 406" is_status 406 NotAcceptable \
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf'
fetch /api/v1/namespaces/default "${UA[@]}" -H 'Accept: application/vnd.kubernetes.protobuf, */*'
check "protobuf first, then anything: protobuf" \
    test "$CODE:$(header Content-Type)" = "200:application/vnd.kubernetes.protobuf"
fetch /api/v1/namespaces/default "${UA[@]}" -H 'Accept: text/html, */*'
check "anything else: JSON" test "$CODE:$(header Content-Type)" = "200:application/json"
fetch /api/v1/nosuch "${UA[@]}" -H 'Accept: application/yaml'
check "an error in YAML when YAML is asked for" test "$(header Content-Type)" = application/yaml
check "... a YAML Status" grep -qx 'reason: NotFound' "$OUT"
fetch /api/v1/nosuch
check "an error for curl is pretty JSON" grep -qx '  "reason": "NotFound",' "$OUT"

fetch /api/v1/namespaces//pods "${UA[@]}"
check "an empty path segment: 400" is_status 400 BadRequest 'the request path is malformed'
fetch /api/v1/watch "${UA[@]}"
check "a watch path without a resource: 400" test "$CODE" = 400
fetch '/api/v1/namespaces/%zz' "${UA[@]}"
check "a bad percent escape: 400" test "$CODE" = 400

# bodies by Content-Type
CM=/api/v1/namespaces/default/configmaps
fetch "$CM" "${UA[@]}" -H 'Content-Type: text/plain' -d '{}'
check "a create in text/plain: 415" is_status 415 UnsupportedMediaType \
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf'
fetch "$CM" "${UA[@]}" -H 'Content-Type: application/json' -d '{"kind": '
check "malformed JSON: 400 naming the kind, in encoding/json's words, with kube's summary" \
    is_status 400 BadRequest \
    "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({\"kind\": )"
fetch "$CM" "${UA[@]}" -H 'Content-Type: application/json' -d '{"kind": }'
check "... a character out of place, quoted as Go quotes it" is_status 400 BadRequest \
    "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '}' looking for beginning of value ({\"kind\": })"
fetch "$CM/x" "${UA[@]}" -X PUT -H 'Content-Type: application/json' -d '{"kind":"ConfigMap"} x'
check "... text after the object" is_status 400 BadRequest \
    "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'x' after top-level value ({\"kind\":\"ConfigMap\"} x)"
fetch "$CM" "${UA[@]}" -H 'Content-Type: application/json' -d '"ConfigMap"'
check "a JSON string: kube's 400 for what its struct cannot hold" is_status 400 BadRequest \
    'the object provided is unrecognized (must be of type ConfigMap): couldn'"'"'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" } (22436f6e6669674d617022)'
fetch "$CM" "${UA[@]}" -H 'Content-Type: application/json' --data-binary \
    $'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad-utf8"},"data":{"a":"x\xffy\\ud800z"}}'
check "bad UTF-8 and an unpaired surrogate in a string are taken, as Go takes them: 201" \
    test "$CODE" = 201
check "... stored as U+FFFD, as Go decodes them" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["data"]["a"] != "x\ufffdy\ufffdz")' "$OUT"
fetch "$CM/x" "${UA[@]}" -X PUT -H 'Content-Type: application/json' -d '[]'
check "a PUT of a JSON array: kube's 400 with the body in hex" is_status 400 BadRequest \
    'the object provided is unrecognized (must be of type ConfigMap): couldn'"'"'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" } (5b5d)'

fetch "$CM?fieldValidation=Warn" "${UA[@]}" -H 'Content-Type: application/yaml' --data-binary \
    $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\nbogus: 1\ndata:\n  a: "1"\n'
check "a YAML create is read as YAML: 201" test "$CODE" = 201
check "... an unknown field warns, quotes escaped as kube does" \
    grep -qix 'Warning: 299 - "unknown field \\"bogus\\""'$'\r' "$HDR"
fetch "$CM/from-yaml" "${UA[@]}" -X PATCH -H 'Content-Type: application/json' -d '{}'
check "a PATCH in plain JSON: 415 listing the patch types" is_status 415 UnsupportedMediaType \
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml'

head -c $((3 * 1024 * 1024 + 1)) /dev/zero | tr '\0' a >"$KGATE_TEST_TMP/big.body"
fetch /api/v1/namespaces/default/configmaps "${UA[@]}" -X POST \
    -H 'Content-Type: application/json' --data-binary @"$KGATE_TEST_TMP/big.body"
check "a body over 3 MiB: 413 Status" is_status 413 RequestEntityTooLarge \
    'Request entity too large: limit is 3145728'
head -c $((7 * 1024 * 1024)) /dev/zero >"$KGATE_TEST_TMP/huge.body"
code=$(http_code /api/v1/namespaces/default/configmaps -X POST --data-binary @"$KGATE_TEST_TMP/huge.body")
check "a body past evhttp's own limit is still refused (got $code)" test "$code" = 413
check "kgate still serves" test "$(http_code /api/v1/namespaces/default)" = 200

# metrics: only what a route served, with kube's labels
for _ in 1 2 3; do kcurl -o /dev/null "$KGATE_URL/api/v1/namespaces/default"; done
kcurl -o /dev/null "$KGATE_URL/api/v1/namespaces/kube-system?dryRun=All"
kcurl -o /dev/null "$KGATE_URL/api/v1/namespaces/nosuchns"
# a watch that lasts its one second: counted when it ends, for all of its time
kcurl -o /dev/null "$KGATE_URL/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1"
fetch /metrics
check "/metrics is Prometheus text" test "$(header Content-Type)" = \
    'text/plain; version=0.0.4; charset=utf-8'
labels='component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="GET",version="v1"'
n=$(grep -F "apiserver_request_total{code=\"200\",$labels}" "$OUT" | awk '{print $2}')
check "three GETs of one namespace counted, with a fourth from earlier (got $n)" test "$n" -ge 4
check "the 404 of a missing object is counted" grep -qF \
    "apiserver_request_total{code=\"404\",$labels} 1" "$OUT"
check "dry_run is a label" grep -qF 'dry_run="All",group="",resource="namespaces"' "$OUT"
check "the duration histogram has kube's buckets" grep -qF \
    "apiserver_request_duration_seconds_bucket{$labels,le=\"0.005\"}" "$OUT"
check "... up to 60 s" grep -qF "apiserver_request_duration_seconds_bucket{$labels,le=\"60\"}" "$OUT"
check "health checks are counted under their path" grep -qF \
    'component="",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="GET",version=""' "$OUT"
wlabels='component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"'
check "a watch that ended is counted" grep -qF "apiserver_request_total{code=\"200\",$wlabels} 1" "$OUT"
secs=$(grep -F "apiserver_request_duration_seconds_sum{$wlabels}" "$OUT" | awk '{print $2}')
check "... with its whole duration (got ${secs:-none} s)" \
    python3 -c "import sys; sys.exit(not 1 <= float('${secs:-0}') < 5)"
check "unknown resources are not series" bash -c "! grep -q 'resource=\"nosuch\"' '$OUT'"
check "in-flight gauges" grep -q '^apiserver_current_inflight_requests{request_kind="readOnly"} 1$' "$OUT"

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "SIGTERM: exit 0" test "$EXIT_CODE" = 0
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
