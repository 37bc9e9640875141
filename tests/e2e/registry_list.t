#!/usr/bin/env bash
# GET and LIST as kube-apiserver answers them: the list document, all namespaces and one,
# limit and continue (kube's token, one snapshot across pages, remainingItemCount), label and
# field selectors, resourceVersion and resourceVersionMatch, and Table output.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_list

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
# Without kube-root-ca.crt in every namespace, so that ConfigMaps can be counted.
check "kgate starts" api_start list --workers=2 '--controllers=*,-root-ca-cert-publisher'
TABLE='Accept: application/json;as=Table;v=v1;g=meta.k8s.io'

req POST /api/v1/namespaces '{"metadata":{"name":"a"}}'
req POST /api/v1/namespaces '{"metadata":{"name":"b"}}'
for i in 1 2 3 4 5 6 7; do
    tier=$([[ $i -le 3 ]] && echo front || echo back)
    req POST /api/v1/namespaces/a/configmaps "$(cm "cm$i" "\"labels\":{\"tier\":\"$tier\",\"n\":\"$i\"}")"
done
for i in 1 2 3; do req POST /api/v1/namespaces/b/configmaps "$(cm "cm$i" '"labels":{"tier":"db"}')"; done

# ---- the list document --------------------------------------------------------------------------
req GET /api/v1/namespaces/a/configmaps
check "a list answers 200" code_is 200
check "... a ConfigMapList in v1" jpy "d['kind'] == 'ConfigMapList' and d['apiVersion'] == 'v1'"
check "... of the namespace's seven items, in name order" jpy "[i['metadata']['name'] for i in \
d['items']] == ['cm%d' % n for n in range(1, 8)]"
check "... each with its own resourceVersion" jpy "all(i['metadata']['resourceVersion'].isdigit() \
for i in d['items'])"
check "... the list's resourceVersion, no continue, no remainingItemCount" jpy "\
d['metadata']['resourceVersion'].isdigit() and set(d['metadata']) == {'resourceVersion'}"
check "... not older than its items" jpy "all(int(i['metadata']['resourceVersion']) <= \
int(d['metadata']['resourceVersion']) for i in d['items'])"
req GET /api/v1/configmaps
check "all namespaces: ten items and kube-system's extension-apiserver-authentication, \
namespace by namespace" jpy "[(i['metadata']['namespace'], \
i['metadata']['name']) for i in d['items']] == [('a', 'cm%d' % n) for n in range(1, 8)] + \
[('b', 'cm%d' % n) for n in range(1, 4)] + [('kube-system', 'extension-apiserver-authentication')]"
req GET /api/v1/namespaces/empty/configmaps
check "an empty collection answers an empty items list" jpy "d['items'] == []"

# ---- limit and continue --------------------------------------------------------------------------
req GET "/api/v1/namespaces/a/configmaps?limit=3"
check "limit=3 answers three items" jpy "[i['metadata']['name'] for i in d['items']] == \
['cm1', 'cm2', 'cm3']"
check "... with remainingItemCount 4 and a continue token" jpy "\
d['metadata']['remainingItemCount'] == 4 and len(d['metadata']['continue']) > 0"
rv=$(jget "d['metadata']['resourceVersion']")
tok=$(jget "d['metadata']['continue']")
check "the token is kube's: base64url JSON with v, rv and the next key" python3 -c "
import base64, json, sys
t = sys.argv[1]
d = json.loads(base64.urlsafe_b64decode(t + '=' * (-len(t) % 4)))
sys.exit(not (d == {'v': 'meta.k8s.io/v1', 'rv': int(sys.argv[2]), 'start': 'cm4'}))" "$tok" "$rv"
req POST /api/v1/namespaces/a/configmaps "$(cm cm35)"
req GET "/api/v1/namespaces/a/configmaps?limit=3&continue=$tok"
check "the next page continues the same snapshot" jpy "[i['metadata']['name'] for i in \
d['items']] == ['cm4', 'cm5', 'cm6'] and d['metadata']['resourceVersion'] == '$rv'"
check "... remainingItemCount 1" jpy "d['metadata']['remainingItemCount'] == 1"
tok=$(jget "d['metadata']['continue']")
req GET "/api/v1/namespaces/a/configmaps?limit=3&continue=$tok"
check "the last page has the rest and no continue" jpy "[i['metadata']['name'] for i in \
d['items']] == ['cm7'] and 'continue' not in d['metadata'] and \
'remainingItemCount' not in d['metadata']"
req GET "/api/v1/namespaces/a/configmaps?limit=3&continue=$tok&resourceVersion=5"
check "continue with a resourceVersion is 400" is_status 400 BadRequest \
    'specifying resource version is not allowed when using continue'
req GET "/api/v1/namespaces/a/configmaps?limit=3&continue=bogus*"
check "a token that is not base64url is 400" jpy "d['code'] == 400 and \
d['message'].startswith('invalid continue token: continue key is not valid')"
req GET "/api/v1/configmaps?limit=8"
check "paging across namespaces" jpy "len(d['items']) == 8 and \
d['metadata']['remainingItemCount'] == 4"
req GET "/api/v1/namespaces/a/configmaps?limit=3&resourceVersion=$rv"
check "a resourceVersion with a limit lists exactly at it (cm35 not there yet)" jpy "\
[i['metadata']['name'] for i in d['items']] == ['cm1', 'cm2', 'cm3'] and \
d['metadata']['resourceVersion'] == '$rv'"
req GET "/api/v1/namespaces/a/configmaps?limit=0"
check "limit=0 is no limit" jpy "len(d['items']) == 8 and 'continue' not in d['metadata']"

# ---- label selectors -----------------------------------------------------------------------------
sel() { req GET "/api/v1/namespaces/a/configmaps?labelSelector=$1${2:+&$2}"; jget \
"','.join(i['metadata']['name'] for i in d['items'])"; }
check "tier=front" test "$(sel tier%3Dfront)" = cm1,cm2,cm3
check "tier!=front (absent label matches)" test "$(sel tier%21%3Dfront)" = cm35,cm4,cm5,cm6,cm7
check "n in (2,5)" test "$(sel 'n+in+(2,5)')" = cm2,cm5
check "tier,n notin (1,2,3,4)" test "$(sel 'tier,n+notin+(1,2,3,4)')" = cm5,cm6,cm7
check "!tier" test "$(sel '%21tier')" = cm35
check "n>5" test "$(sel 'n%3E5')" = cm6,cm7
check "a selector with a limit pages matching items" test "$(sel tier%3Dback limit=2)" = cm4,cm5
check "... without remainingItemCount" jpy "'remainingItemCount' not in d['metadata'] and \
len(d['metadata']['continue']) > 0"
tok=$(jget "d['metadata']['continue']")
check "... and continues" test "$(sel tier%3Dback "limit=2&continue=$tok")" = cm6,cm7
req GET "/api/v1/namespaces/a/configmaps?labelSelector=a+in+b"
check "a malformed selector is 400" is_status 400 BadRequest \
    "unable to parse requirement: found 'b' expected: '('"

# ---- field selectors -----------------------------------------------------------------------------
req GET "/api/v1/configmaps?fieldSelector=metadata.name%3Dcm2"
check "metadata.name=cm2 across namespaces" jpy "[(i['metadata']['namespace'], \
i['metadata']['name']) for i in d['items']] == [('a', 'cm2'), ('b', 'cm2')]"
req GET "/api/v1/configmaps?fieldSelector=metadata.namespace%3Db"
check "metadata.namespace=b" jpy "len(d['items']) == 3"
req GET "/api/v1/namespaces/a/configmaps?fieldSelector=metadata.name%21%3Dcm1,metadata.name%21%3Dcm2"
check "two != terms" jpy "len(d['items']) == 6"
req GET "/api/v1/configmaps?fieldSelector=spec.foo%3Dx"
check "an unsupported field is 400" is_status 400 BadRequest 'field label not supported: spec.foo'
req GET "/api/v1/configmaps?fieldSelector=metadata.name"
check "a malformed field selector is 400" jpy "d['code'] == 400"

# ---- resourceVersion -----------------------------------------------------------------------------
req GET "/api/v1/namespaces/a/configmaps?resourceVersion=0"
check "resourceVersion=0 lists" jpy "len(d['items']) == 8"
req GET "/api/v1/namespaces/a/configmaps?resourceVersion=$rv"
check "resourceVersion=N without a limit is not-older-than (the latest)" jpy "len(d['items']) == 8"
req GET "/api/v1/namespaces/a/configmaps?resourceVersion=99999999"
check "a resourceVersion from the future is 504 Too large resource version" jpy "d['code'] == 504 \
and 'Too large resource version' in d['message']"
req GET "/api/v1/namespaces/a/configmaps?resourceVersionMatch=Exact"
check "resourceVersionMatch without a resourceVersion is 422" is_status 422 Invalid \
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'
req GET "/api/v1/namespaces/a/configmaps?resourceVersionMatch=Exact&resourceVersion=$rv"
check "Exact lists at the version" jpy "len(d['items']) == 7 and \
d['metadata']['resourceVersion'] == '$rv'"
req GET "/api/v1/namespaces/a/configmaps?resourceVersion=abc"
check "a resourceVersion that is not a number is 400" jpy "d['code'] == 400"

# ---- get -----------------------------------------------------------------------------------------
req GET "/api/v1/namespaces/a/configmaps/cm1?resourceVersion=0"
check "get with resourceVersion=0" code_is 200
req GET "/api/v1/namespaces/a/configmaps/cm1?resourceVersion=$rv"
check "get with an older resourceVersion answers the latest" code_is 200
req GET "/api/v1/namespaces/a/configmaps/cm1?resourceVersion=99999999"
check "get from the future is 504" jpy "d['code'] == 504 and 'Too large resource version' in \
d['message']"
req GET /api/v1/configmaps/cm1
check "a namespaced object outside a namespace has no route (404)" is_status 404 NotFound \
    'the server could not find the requested resource'
req GET /api/v1/namespaces/a/nodes/x
check "a cluster-scoped resource under a namespace has no route (404)" code_is 404

# ---- Table -------------------------------------------------------------------------------------
fetch /api/v1/namespaces/a/configmaps/cm1 "${ADMIN[@]}" -H "$TABLE"
check "get as a Table" jpy "d['kind'] == 'Table' and d['apiVersion'] == 'meta.k8s.io/v1' and \
len(d['rows']) == 1 and d['rows'][0]['cells'][0] == 'cm1'"
check "... with the object's resourceVersion in its metadata" jpy "\
d['metadata']['resourceVersion'] == d['rows'][0]['object']['metadata']['resourceVersion']"
fetch "/api/v1/namespaces/a/configmaps?limit=2" "${ADMIN[@]}" -H "$TABLE"
check "list as a Table, with the list's metadata" jpy "d['kind'] == 'Table' and \
len(d['rows']) == 2 and len(d['metadata']['continue']) > 0"
fetch "/api/v1/namespaces/a/configmaps?includeObject=Everything" "${ADMIN[@]}" -H "$TABLE"
check "an unknown includeObject is 400" is_status 400 BadRequest \
    'unrecognized includeObject value: "Everything"'

check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
