#!/usr/bin/env bash
# Discovery, /version and OpenAPI as kube-apiserver v1.32 serves them: the documents' shapes,
# aggregated discovery by Accept, ETags and 304s, OpenAPI v3 hash links, negotiation (YAML,
# pretty, 406), gzip for big answers, and stock kubectl reading them.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require api_discovery

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
KCURL_AUTH=("${ADMIN[@]}") # anonymous is off under AlwaysAllow
trap stop_all EXIT
KUBECTL_AGG='application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'
UA=(-A "kubectl/v1.32.4 (linux/amd64) kubernetes/test")

check "kgate starts" api_start discovery --workers=2

fetch /version "${UA[@]}"
check "/version is 200" test "$CODE" = 200
check "/version names v1.32" jpy "d['major'] == '1' and d['minor'] == '32' and \
d['gitVersion'].startswith('v1.32.') and d['platform'] != ''"
check "/version is application/json" test "$(header Content-Type)" = application/json
check "compact JSON ends with a newline, as kube's encoder writes it" \
    test "$(tail -c 1 "$OUT" | od -An -c | tr -d ' ')" = '\n'
check "compact JSON has no indentation" test "$(wc -l <"$OUT")" = 1

fetch /api "${UA[@]}"
check "/api lists v1" jpy "d['kind'] == 'APIVersions' and d['versions'] == ['v1']"
fetch /apis "${UA[@]}"
check "/apis is an APIGroupList with apps/v1 preferred" jpy "d['kind'] == 'APIGroupList' and \
any(g['name'] == 'apps' and g['preferredVersion']['groupVersion'] == 'apps/v1' \
for g in d['groups'])"
fetch /apis/apps "${UA[@]}"
check "/apis/apps is its APIGroup" jpy "d['kind'] == 'APIGroup' and d['name'] == 'apps'"
fetch /apis/apps/v1 "${UA[@]}"
check "/apis/apps/v1 lists deployments with their verbs and scale" jpy "d['kind'] == \
'APIResourceList' and d['groupVersion'] == 'apps/v1' and any(r['name'] == 'deployments' and \
r['namespaced'] and 'create' in r['verbs'] for r in d['resources']) and \
any(r['name'] == 'deployments/scale' for r in d['resources'])"
fetch /api/v1 "${UA[@]}"
check "/api/v1 lists pods and pods/status" jpy "{'pods', 'pods/status'} <= \
{r['name'] for r in d['resources']}"
check "/apis/nosuch.example.com is 404" test "$(http_code /apis/nosuch.example.com)" = 404
check "/apis/apps/v9 is 404" test "$(http_code /apis/apps/v9)" = 404
check "/api/v2 is 404" test "$(http_code /api/v2)" = 404

# aggregated discovery
fetch /apis "${UA[@]}" -H "Accept: $KUBECTL_AGG"
check "aggregated /apis with kubectl's Accept: 200" test "$CODE" = 200
check "its Content-Type carries the parameters" test "$(header Content-Type)" = \
    'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
check "it is an APIGroupDiscoveryList v2 with apps" jpy "d['kind'] == 'APIGroupDiscoveryList' \
and d['apiVersion'] == 'apidiscovery.k8s.io/v2' and \
any(g['metadata']['name'] == 'apps' for g in d['items'])"
check "it varies by Accept" grep -qi '^Vary: Accept' "$HDR"
etag=$(header ETag)
check "it has an ETag" test -n "$etag"
check "If-None-Match with that ETag is 304" test "$(http_code /apis -H "Accept: $KUBECTL_AGG" \
    -H "If-None-Match: $etag")" = 304
check "another ETag is 200" test "$(http_code /apis -H "Accept: $KUBECTL_AGG" \
    -H 'If-None-Match: "other"')" = 200
fetch /api "${UA[@]}" -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'
check "aggregated /api v2beta1 holds the core group only" jpy "d['apiVersion'] == \
'apidiscovery.k8s.io/v2beta1' and [g['metadata'].get('name', '') for g in d['items']] == ['']"
check "... with the v2beta1 Content-Type" test "$(header Content-Type)" = \
    'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'
fetch /apis "${UA[@]}" -H 'Accept: application/json'
check "plain Accept gets the plain APIGroupList" jpy "d['kind'] == 'APIGroupList'"

# negotiation
fetch /version "${UA[@]}" -H 'Accept: application/yaml'
check "YAML when asked" test "$(header Content-Type)" = application/yaml
check "... as YAML text" grep -q '^gitVersion: v1.32' "$OUT"
fetch /version
check "curl gets pretty JSON, as kube does for command-line agents" grep -q '^  "major": "1",$' "$OUT"
fetch '/version?pretty=false'
check "?pretty=false wins over the agent" test "$(wc -l <"$OUT")" = 1
fetch '/version?pretty=true' "${UA[@]}"
check "?pretty=true makes kubectl's answer pretty too" grep -q '^  "minor": "32",$' "$OUT"
fetch /version -H 'Accept: text/html'
check "nothing acceptable is 406" test "$CODE" = 406
check "... a NotAcceptable Status" is_status 406 NotAcceptable \
    'only the following media types are accepted: application/json, application/yaml'
check "protobuf is skipped for the next acceptable type" test "$(http_code /version \
    -H 'Accept: application/vnd.kubernetes.protobuf, application/json')" = 200

# discovery answers the same with a trailing slash
for path in /api /apis /apis/apps /apis/apps/v1 /api/v1; do
    fetch "$path" "${UA[@]}"
    want=$(cat "$OUT")
    fetch "$path/" "${UA[@]}"
    check "$path/ answers as $path (200)" test "$CODE:$(cat "$OUT")" = "200:$want"
done

fetch /nosuch
check "an unknown path is 404 with kube's text" test "$CODE:$(cat "$OUT")" = "404:404 page not found"
fetch /apis/nosuch.example.com/v1 "${UA[@]}"
check "... and so is an unknown group's version (kube's last handler)" \
    test "$CODE:$(cat "$OUT")" = "404:404 page not found"
fetch /apis/apps/v9 "${UA[@]}"
check "an unknown version of a served group is go-restful's 404 Status" \
    is_status 404 NotFound 'the server could not find the requested resource'
check "... with empty details" jpy "d['details'] == {}"
for path in /version /api /api/v1 /apis/apps /apis/apps/v1; do
    fetch "$path" "${UA[@]}" -X POST -H 'Content-Type: application/json' -d '{}'
    check "POST $path: go-restful's 405 Status" is_status 405 MethodNotAllowed \
        'the server does not allow this method on the requested resource'
done
check "a 404 has an Audit-ID" grep -qi '^Audit-ID: ' "$HDR"

# OpenAPI
fetch /openapi/v2 "${UA[@]}"
check "/openapi/v2 is a Swagger 2.0 document with Pod" jpy "d['swagger'] == '2.0' and \
'io.k8s.api.core.v1.Pod' in d['definitions']"
v2etag=$(header ETag)
check "/openapi/v2 has an ETag" test -n "$v2etag"
check "/openapi/v2 If-None-Match is 304" \
    test "$(http_code /openapi/v2 -H "If-None-Match: $v2etag")" = 304

# /openapi/v2 as protobuf (gnostic's openapi.v2.Document), negotiated as kube-openapi does
PB=application/com.github.proto-openapi.spec.v2.v1.0+protobuf
PB_OLD=application/com.github.proto-openapi.spec.v2@v1.0+protobuf
# served_as ACCEPT: the Content-Type /openapi/v2 answers ACCEPT with (or the code when not 200).
served_as() {
    fetch /openapi/v2 -H "Accept: $1"
    if [[ $CODE == 200 ]]; then header Content-Type; else echo "$CODE"; fi
}
fetch /openapi/v2 -H "Accept: $PB"
check "protobuf Accept: 200 as $PB" test "$CODE:$(header Content-Type)" = "200:$PB"
check "... starting with Document.swagger = 1 \"2.0\"" \
    test "$(head -c 5 "$OUT" | od -An -tx1 | tr -d ' ')" = 0a03322e30
check "... the JSON's ETag, as kube's handler" test "$(header ETag)" = "$v2etag"
check "... Vary: Accept" grep -qi '^Vary: Accept$' <(tr -d '\r' <"$HDR")
cp "$OUT" "$KGATE_TEST_TMP/v2.pb"
check "the @v1.0 subtype answers with the current one's name" test "$(served_as "$PB_OLD")" = "$PB"
check "... the same bytes" cmp -s "$OUT" "$KGATE_TEST_TMP/v2.pb"
fetch /openapi/v2 -H "Accept: $PB" -H "If-None-Match: $v2etag"
check "protobuf If-None-Match is 304 without a Content-Type" \
    test "$CODE:$(header Content-Type)" = "304:"
fetch /openapi/v2 -H "Accept: $PB" -H 'Accept-Encoding: gzip'
check "protobuf is gzipped when asked" test "$(header Content-Encoding)" = gzip
check "... and unzips to the same bytes" bash -c "gzip -dc <'$OUT' | cmp -s - '$KGATE_TEST_TMP/v2.pb'"
check "JSON listed first wins over protobuf" test "$(served_as "application/json, $PB")" = application/json
check "protobuf listed first wins over JSON" test "$(served_as "$PB, application/json")" = "$PB"
check "a higher q wins" test "$(served_as "$PB;q=0.5, application/json")" = application/json
check "a concrete type wins over */* at equal q" test "$(served_as "*/*, $PB")" = "$PB"
check "*/* is JSON" test "$(served_as '*/*')" = application/json
check "no Accept is JSON" test "$(served_as '')" = application/json
check "application/yaml is 406" test "$(served_as application/yaml)" = 406
check "... with Vary: Accept" grep -qi '^Vary: Accept$' <(tr -d '\r' <"$HDR")
check "Kubernetes protobuf is 406" test "$(served_as application/vnd.kubernetes.protobuf)" = 406
fetch /openapi/v3 "${UA[@]}"
check "/openapi/v3 indexes api/v1 and apis/apps/v1 with hashes" jpy "d['paths']['api/v1']\
['serverRelativeURL'].startswith('/openapi/v3/api/v1?hash=') and 'apis/apps/v1' in d['paths']"
link=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["paths"]["apis/apps/v1"]["serverRelativeURL"])' "$OUT")
fetch "$link" "${UA[@]}"
check "the hashed link serves the apps/v1 document" jpy "d['openapi'].startswith('3.') and \
any(p.startswith('/apis/apps/v1/') for p in d['paths'])"
check "a matching hash may be cached for good" test "$(header Cache-Control)" = "public, immutable"
check "... with an Expires date" test -n "$(header Expires)"
v3etag=$(header ETag)
check "the ETag is the hash" test "$v3etag" = "\"${link#*hash=}\""
check "If-None-Match is 304" test "$(http_code "$link" -H "If-None-Match: $v3etag")" = 304
fetch '/openapi/v3/apis/apps/v1?hash=stale'
check "a stale hash redirects (301) to the current one" test "$CODE:$(header Location)" = "301:$link"
fetch /openapi/v3/apis/apps/v1
check "no hash: no immutable caching" test "$CODE:$(header Cache-Control)" = "200:no-cache, private"
check "/openapi/v3/apis/nosuch/v1 is 404" test "$(http_code /openapi/v3/apis/nosuch/v1)" = 404

# gzip
fetch /openapi/v2 "${UA[@]}" -H 'Accept-Encoding: gzip'
check "a big answer is gzipped when the client accepts it" test "$(header Content-Encoding)" = gzip
check "... with Vary: Accept-Encoding" grep -qi '^Vary: Accept-Encoding' "$HDR"
check "... and unzips to the document" bash -c "gzip -dc <'$OUT' | python3 -c \
'import json,sys; assert json.load(sys.stdin)[\"swagger\"] == \"2.0\"'"
fetch /version "${UA[@]}" -H 'Accept-Encoding: gzip'
check "a small answer is not gzipped" test -z "$(header Content-Encoding)"
fetch /openapi/v2 "${UA[@]}"
check "no gzip without Accept-Encoding" test -z "$(header Content-Encoding)"
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

api_start nogzip --feature-gates=APIResponseCompression=false
fetch /openapi/v2 -H 'Accept-Encoding: gzip'
check "APIResponseCompression=false turns gzip off" test "$CODE:$(header Content-Encoding)" = "200:"

# kubectl
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    out=$(kubectl version -o json 2>&1)
    check "kubectl version reads the server version" \
        python3 -c 'import json,sys; assert json.loads(sys.argv[1])["serverVersion"]["minor"] == "32"' "$out"
    out=$(kubectl api-versions 2>&1)
    check "kubectl api-versions lists v1 and apps/v1" bash -c "grep -qx v1 <<<'$out' && grep -qx apps/v1 <<<'$out'"
    out=$(kubectl api-resources 2>&1)
    check "kubectl api-resources lists deployments with short name deploy" \
        grep -qE '^deployments +deploy +apps/v1 +true +Deployment' <<<"$out"
    out=$(kubectl explain pods.spec.containers 2>&1)
    check "kubectl explain pods.spec.containers reads OpenAPI v3" \
        grep -q '^FIELD: *containers <\[\]Container>' <<<"$out" || diag "$out"
    check "... with the container fields" grep -qE '^  image\b' <<<"$out"
else
    for _ in 1 2 3 4 5; do
        TAP_N=$((TAP_N + 1))
        echo "ok $TAP_N # SKIP kubectl 1.32 is not installed"
    done
fi
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
