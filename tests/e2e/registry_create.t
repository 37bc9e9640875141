#!/usr/bin/env bash
# POST as kube-apiserver answers it: system fields, the stored layout, generateName, names per
# kind, apiVersion/kind/namespace checks, NamespaceLifecycle, dry runs, field validation, and
# the status and generation a kind starts with.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_create

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start create --workers=2
PREFIX=/registry-create-$$
UUID='^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'

# ---- a plain create -------------------------------------------------------------------------
req POST $CORE/configmaps '{"metadata":{"name":"c1","labels":{"app":"x"}},"data":{"k":"v"}}'
check "create answers 201" code_is 201
check "apiVersion and kind are filled in" jpy "d['apiVersion'] == 'v1' and d['kind'] == 'ConfigMap'"
check "the namespace comes from the URL" jpy "d['metadata']['namespace'] == 'default'"
check "a v4 uid is set" grep -Eq "$UUID" <<<"$(jget "d['metadata']['uid']")"
check "creationTimestamp is RFC 3339 UTC" \
    grep -Eq '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' \
    <<<"$(jget "d['metadata']['creationTimestamp']")"
rv=$(jget "d['metadata']['resourceVersion']")
check "resourceVersion is a revision" grep -Eq '^[0-9]+$' <<<"$rv"
uid=$(jget "d['metadata']['uid']")
req GET $CORE/configmaps/c1
check "get answers the same object" jpy "d['metadata']['resourceVersion'] == '$rv' and \
d['metadata']['uid'] == '$uid' and d['data'] == {'k': 'v'}"
value=$(stored configmaps/default/c1)
check "etcd holds the object at kube's key" test -n "$value"
check "the stored value carries no resourceVersion" \
    python3 -c "import json,sys; d=json.loads(sys.argv[1]); sys.exit('resourceVersion' in \
d['metadata'] or d['metadata']['uid'] != '$uid')" "$value"

req POST $CORE/configmaps "$(cm c1)"
check "the same name again is 409" is_status 409 AlreadyExists 'configmaps "c1" already exists'
check "... with kube's details" jpy "d['details'] == {'name': 'c1', 'kind': 'configmaps'}"

# ---- generateName ---------------------------------------------------------------------------
req POST $CORE/configmaps '{"metadata":{"generateName":"gen-"},"data":{}}'
check "generateName creates (201)" code_is 201
check "the name is the prefix and 5 characters of kube's alphabet" \
    grep -Eq '^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$' <<<"$(jget "d['metadata']['name']")"
check "generateName is kept" jpy "d['metadata']['generateName'] == 'gen-'"

# ---- names ----------------------------------------------------------------------------------
req POST $CORE/configmaps '{"metadata":{},"data":{}}'
check "no name at all is 422" is_status 422 Invalid \
    'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required'
check "... with the cause" jpy "d['details']['causes'] == [{'reason': 'FieldValueRequired', \
'message': 'Required value: name or generateName is required', 'field': 'metadata.name'}]"
req POST $CORE/configmaps "$(cm Bad_Name)"
check "a name that is not a DNS subdomain is 422" jpy "d['code'] == 422 and \
d['message'].startswith('ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \
\"Bad_Name\": a lowercase RFC 1123 subdomain must consist of')"
req POST /api/v1/namespaces '{"metadata":{"name":"a.b"}}'
check "namespace names are DNS labels" is_status 422 Invalid \
    'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots'
req POST $CORE/services '{"metadata":{"name":"1svc"},"spec":{"ports":[{"port":80}]}}'
check "service names are DNS-1035 labels" jpy "d['code'] == 422 and 'a DNS-1035 label' in \
d['message']"
req POST /apis/rbac.authorization.k8s.io/v1/clusterroles '{"metadata":{"name":"system:x"}}'
check "RBAC names are path segments (colons are fine)" code_is 201
req POST $APPS/deployments "$(deploy web | sed 's/"name":"web"/"name":"-web"/')"
check "a kind in a group names it Kind.group" jpy "d['code'] == 422 and \
d['message'].startswith('Deployment.apps \"-web\" is invalid:') and \
d['details']['group'] == 'apps' and d['details']['kind'] == 'Deployment'"

# ---- metadata validation --------------------------------------------------------------------
req POST $CORE/configmaps "$(cm l1 '"labels":{"-bad":"v"}')"
check "a bad label key is 422" jpy "d['code'] == 422 and \
'metadata.labels: Invalid value: \"-bad\": name part must consist of' in d['message']"
req POST $CORE/configmaps "$(cm l2 '"labels":{"ok":"-v"}')"
check "a bad label value is 422" jpy "d['code'] == 422 and \
'metadata.labels: Invalid value: \"-v\": a valid label must be' in d['message']"
req POST $CORE/configmaps "$(cm l25 '"annotations":{"bad key":"v"}')"
check "a bad annotation key is 422" jpy "d['code'] == 422 and \
'metadata.annotations: Invalid value: \"bad key\": name part must consist of' in d['message']"
req POST $CORE/configmaps "$(cm l3 '"finalizers":["orphan","foregroundDeletion"]')"
check "orphan with foregroundDeletion is 422" jpy "d['code'] == 422 and \
'finalizer orphan and foregroundDeletion cannot be both set' in d['message']"
req POST $CORE/configmaps "$(cm l4 '"finalizers":["mine"]')"
check "an unqualified finalizer is accepted" code_is 201
check "... with kube's warning" grep -q 'prefer a domain-qualified finalizer name' <<<"$(warnings)"

# ---- type and namespace checks --------------------------------------------------------------
req POST $CORE/configmaps '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"k"}}'
check "another kind is 400" jpy "d['code'] == 400 and d['reason'] == 'BadRequest' and \
d['message'].startswith('Secret in version \"v1\" cannot be handled as a ConfigMap')"
req POST $CORE/configmaps '{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"k"}}'
check "another apiVersion is 400" is_status 400 BadRequest \
    'the API version in the data (v2) does not match the expected API version (v1)'
req POST $CORE/configmaps '{"metadata":{"name":"k","namespace":"other"}}'
check "a namespace other than the URL's is 400" is_status 400 BadRequest \
    'the namespace of the provided object does not match the namespace sent on the request'
req POST /api/v1/namespaces/nope/configmaps "$(cm k)"
check "a missing namespace is 404" is_status 404 NotFound 'namespaces "nope" not found'
req POST $CORE/configmaps "$(cm k '"resourceVersion":"12"')"
check "a resourceVersion on create is refused as kube's etcd store does" jpy "d['code'] == 500 \
and d['message'] == 'resourceVersion should not be set on objects to be created'"
req POST /api/v1/configmaps "$(cm k)"
check "POST across namespaces is 405" is_status 405 MethodNotAllowed \
    'the server does not allow this method on the requested resource'
req POST /api/v1/namespaces '{"metadata":{"name":"ns1","namespace":"x"}}'
check "a cluster-scoped object drops a namespace" jpy "d['metadata']['name'] == 'ns1' and \
'namespace' not in d['metadata']"

# ---- namespaces and kind defaults -----------------------------------------------------------
req GET /api/v1/namespaces/ns1
check "a namespace starts Active with the kubernetes finalizer and its name label" jpy "\
d['status'] == {'phase': 'Active'} and d['spec'] == {'finalizers': ['kubernetes']} and \
d['metadata']['labels'] == {'kubernetes.io/metadata.name': 'ns1'}"
req POST $APPS/deployments "$(deploy web | sed 's/}}}}}$/}}},"status":{"replicas":7}}/')"
check "a deployment is created" code_is 201
check "... at generation 1 with its status reset" jpy "d['metadata']['generation'] == 1 and \
d['status'] == {}"
req POST $CORE/pods '{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}]},
"status":{"phase":"Running"}}'
check "a pod starts Pending, best effort" jpy "d['status'] == {'phase': 'Pending', \
'qosClass': 'BestEffort'}"
req POST $CORE/pods '{"metadata":{"name":"g"},"spec":{"containers":[{"name":"c","image":"x",
"resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}}'
check "limits alone make a pod Guaranteed" jpy "d['status']['qosClass'] == 'Guaranteed'"
req POST $CORE/services '{"metadata":{"name":"svc"},"spec":{"ports":[{"port":80}]}}'
check "a service starts with an empty load balancer status" jpy "d['status'] == {'loadBalancer': {}}"

# ---- virtual kinds -----------------------------------------------------------------------------
req POST /apis/authentication.k8s.io/v1/selfsubjectreviews \
    '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}'
check "a SelfSubjectReview answers 201 with who asked" jpy "d['kind'] == 'SelfSubjectReview' and \
d['status']['userInfo'] == {'username': 'kubernetes-admin', 'groups': ['system:masters', \
'system:authenticated']}"
req GET /apis/authentication.k8s.io/v1/selfsubjectreviews
check "... it cannot be listed (405)" code_is 405
req POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews '{"spec":{}}'
check "an access review without attributes is invalid (422)" code_is 422

# ---- dry run --------------------------------------------------------------------------------
req POST "$CORE/configmaps?dryRun=All" "$(cm dry)"
check "dryRun=All answers 201" code_is 201
check "... with the object, without a resourceVersion" jpy "d['metadata']['name'] == 'dry' and \
'uid' in d['metadata'] and 'resourceVersion' not in d['metadata']"
req GET $CORE/configmaps/dry
check "... and stores nothing" code_is 404
req POST "$CORE/configmaps?dryRun=All" "$(cm c1)"
check "a dry run still refuses a taken name" code_is 409
req POST "$CORE/configmaps?dryRun=Bad" "$(cm dry)"
check "an unknown dryRun value is 422" is_status 422 Invalid \
    'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bad"}: supported values: "All"'

# ---- field validation -----------------------------------------------------------------------
req POST "$CORE/configmaps?fieldValidation=Nope" "$(cm fv)"
check "an unknown fieldValidation is 422" is_status 422 Invalid \
    'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Nope": supported values: "", "Ignore", "Strict", "Warn"'
body='{"metadata":{"name":"fv1"},"data":{"k":"v"},"spec":{"foo":1},"bogus":true}'
req POST "$CORE/configmaps?fieldValidation=Strict" "$body"
check "Strict refuses unknown fields with 400" jpy "d['code'] == 400 and \
d['reason'] == 'BadRequest' and d['message'].startswith('ConfigMap in version \"v1\" cannot be \
handled as a ConfigMap: strict decoding error: ') and 'unknown field \"spec\"' in d['message'] \
and 'unknown field \"bogus\"' in d['message']"
req POST $CORE/configmaps "$body"
check "Warn (the default) creates" code_is 201
check "... pruning the unknown fields" jpy "'spec' not in d and 'bogus' not in d"
check "... with one warning per field" test "$(warnings | grep -c 'unknown field')" = 2
req POST "$CORE/configmaps?fieldValidation=Ignore" '{"metadata":{"name":"fv2"},"bogus":1}'
check "Ignore creates without warnings" test "$CODE:$(warnings | grep -c 'unknown field')" = 201:0
req POST "$CORE/configmaps?fieldValidation=Strict" \
    '{"metadata":{"name":"fv3"},"data":{"a":"1","a":"2"}}'
check "Strict refuses duplicate fields" jpy "d['code'] == 400 and 'duplicate field' in \
d['message']"
req POST $CORE/configmaps '{"metadata":{"name":"fv4"},"data":{"a":"1","a":"2"}}'
check "Warn names a duplicate field in a warning" grep -q 'duplicate field' <<<"$(warnings)"
yaml=$'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  a: "1"\n  a: "2"\n'
req POST $CORE/configmaps "$yaml" application/yaml
check "a YAML body creates" jpy "d['metadata']['name'] == 'y1' and d['data'] == {'a': '2'}"
check "... and its duplicate key is warned about" grep -qF 'key \"a\" already set in map' \
    <<<"$(warnings)"
req POST $CORE/configmaps '{"metadata":{"name":"fv5"},"data":{"a":1}}'
check "a mistyped field is 400" jpy "d['code'] == 400 and d['reason'] == 'BadRequest'"

# ---- namespaces being deleted ---------------------------------------------------------------
req POST /api/v1/namespaces '{"metadata":{"name":"doomed"}}'
req POST /api/v1/namespaces/doomed/configmaps "$(cm pin '"finalizers":["example.com/pin"]')"
check "a pinned object in a namespace" code_is 201
req DELETE /api/v1/namespaces/doomed
check "deleting the namespace starts termination" jpy "d['status']['phase'] == 'Terminating'"
req POST /api/v1/namespaces/doomed/configmaps "$(cm late)"
check "creates into a terminating namespace are 403" is_status 403 Forbidden \
    'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated'
check "... with kube's cause" jpy "d['details']['causes'] == [{'reason': 'NamespaceTerminating', \
'message': 'namespace doomed is being terminated', 'field': 'metadata.namespace'}]"
req POST /api/v1/namespaces/doomed/configmaps "$(cm pin)"
check "... whatever the name" jpy "d['code'] == 403"
req PATCH /api/v1/namespaces/doomed/configmaps/pin '{"metadata":{"finalizers":null}}' \
    application/merge-patch+json
check "the pin can be removed" jpy "d.get('code') in (None, 404)"

check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
