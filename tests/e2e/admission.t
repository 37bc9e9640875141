#!/usr/bin/env bash
# The admission chain as kube-apiserver runs it: the plugins and their order from
# --enable-admission-plugins / --disable-admission-plugins (bad names refused at start), the
# ServiceAccount plugin on pod creation (the default account, the API access volume and its
# mounts, imagePullSecrets, mirror pods, a missing account), and AlwaysDeny refusing every
# write with kube's message while reads go on.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require admission

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT

# refused ARGS...: kgate exits 2 at start with ARGS; its stderr is in $KGATE_LOG.
refused() {
    kgate_start refused --etcd-servers="$KGATE_TEST_ETCD" --tls-cert-file="$PKI/server.crt" \
        --tls-private-key-file="$PKI/server.key" "$@"
    wait_exit "$KGATE_PID" 20 && [[ $EXIT_CODE -eq 2 ]] ||
        { diag "exit $EXIT_CODE: $(cat "$KGATE_LOG")"; return 1; }
}

# ---- the flags ------------------------------------------------------------------------------
check "an unknown plugin stops kgate (exit 2)" refused --enable-admission-plugins=NoSuchPlugin
check "... with kube's message" grep -qF \
    'kgate: enable-admission-plugins plugin "NoSuchPlugin" is unknown' "$KGATE_LOG"
check "a plugin kgate does not implement cannot be enabled" refused \
    --enable-admission-plugins=NodeRestriction
check "... and it says so" grep -qF \
    'enable-admission-plugins plugin "NodeRestriction" is not implemented by kgate' "$KGATE_LOG"
check "a plugin in both flags stops kgate" refused --enable-admission-plugins=AlwaysDeny \
    --disable-admission-plugins=AlwaysDeny,ServiceAccount
check "... with kube's message" grep -qF \
    '[AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped' \
    "$KGATE_LOG"

check "kgate starts with the default plugins" api_start adm --workers=2
check "... and logs them in kube's order" grep -qF \
    'admission plugins in order: NamespaceLifecycle,ServiceAccount,CertificateApproval,CertificateSigning,MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook' \
    "$KGATE_LOG"
check "the default service account exists" wait_code $CORE/serviceaccounts/default 200

# ---- ServiceAccount -------------------------------------------------------------------------
POD='{"metadata":{"name":"p1"},"spec":{"initContainers":[{"name":"i","image":"busybox"}],
"containers":[{"name":"c","image":"nginx"},{"name":"m","image":"nginx","volumeMounts":[
{"name":"own","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],
"volumes":[{"name":"own","emptyDir":{}}]}}'
req POST $CORE/pods "$POD"
check "a pod without an account is created" code_is 201
check "... with the default account (and the deprecated field beside it)" jpy \
    "d['spec']['serviceAccountName'] == 'default' and d['spec']['serviceAccount'] == 'default'"
check "... and the projected API access volume kube adds" jpy "[v for v in d['spec']['volumes'] \
if v['name'].startswith('kube-api-access-')] == [{'name': d['spec']['volumes'][1]['name'], \
'projected': {'sources': [{'serviceAccountToken': {'expirationSeconds': 3607, 'path': 'token'}}, \
{'configMap': {'name': 'kube-root-ca.crt', 'items': [{'key': 'ca.crt', 'path': 'ca.crt'}]}}, \
{'downwardAPI': {'items': [{'path': 'namespace', 'fieldRef': {'apiVersion': 'v1', \
'fieldPath': 'metadata.namespace'}}]}}], 'defaultMode': 420}}]"
check "... whose name has kube's five random characters" jpy \
    "__import__('re').fullmatch('kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}', \
d['spec']['volumes'][1]['name']) is not None"
check "... mounted read-only by the init container and the container" jpy \
    "all(c['volumeMounts'] == [{'name': d['spec']['volumes'][1]['name'], 'readOnly': True, \
'mountPath': '/var/run/secrets/kubernetes.io/serviceaccount'}] for c in \
(d['spec']['initContainers'][0], d['spec']['containers'][0]))"
check "... but not by a container that mounts something there itself" jpy \
    "d['spec']['containers'][1]['volumeMounts'] == [{'name': 'own', \
'mountPath': '/var/run/secrets/kubernetes.io/serviceaccount'}]"

req POST $CORE/pods '{"metadata":{"name":"p2"},"spec":{"automountServiceAccountToken":false,
"containers":[{"name":"c","image":"nginx"}]}}'
check "a pod that opts out gets the account but no volume" jpy \
    "d['spec']['serviceAccountName'] == 'default' and 'volumes' not in d['spec'] and \
'volumeMounts' not in d['spec']['containers'][0]"

req POST $CORE/serviceaccounts '{"metadata":{"name":"quiet"},"automountServiceAccountToken":false,
"imagePullSecrets":[{"name":"regcred"}]}'
check "an account that opts out, with a pull secret" code_is 201
req POST $CORE/pods '{"metadata":{"name":"p3"},"spec":{"serviceAccountName":"quiet",
"containers":[{"name":"c","image":"nginx"}]}}'
check "its pods mount nothing and take its pull secrets" jpy \
    "'volumes' not in d['spec'] and d['spec']['imagePullSecrets'] == [{'name': 'regcred'}]"
req POST $CORE/pods '{"metadata":{"name":"p4"},"spec":{"serviceAccount":"quiet",
"automountServiceAccountToken":true,"imagePullSecrets":[{"name":"mine"}],
"containers":[{"name":"c","image":"nginx"}]}}'
check "the deprecated field names the account; the pod's own choices win" jpy \
    "d['spec']['serviceAccountName'] == 'quiet' and len(d['spec']['volumes']) == 1 and \
d['spec']['imagePullSecrets'] == [{'name': 'mine'}]"

req POST $CORE/pods '{"metadata":{"name":"p5"},"spec":{"serviceAccountName":"ghost",
"containers":[{"name":"c","image":"nginx"}]}}'
check "a missing account: 403" is_status 403 Forbidden \
    'pods "p5" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found'
check "... naming the pod" jpy "d['details'] == {'name': 'p5', 'kind': 'pods'}"
req GET $CORE/pods/p5
check "... and nothing is stored" code_is 404

MIRROR='"annotations":{"kubernetes.io/config.mirror":"x"}'
req POST $CORE/pods "{\"metadata\":{\"name\":\"m1\",$MIRROR},\"spec\":{\"containers\":[
{\"name\":\"c\",\"image\":\"nginx\"}]}}"
check "a mirror pod is left as it is" jpy "'serviceAccountName' not in d['spec'] and \
'volumes' not in d['spec']"
req POST $CORE/pods "{\"metadata\":{\"name\":\"m2\",$MIRROR},\"spec\":{\"serviceAccountName\":
\"default\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}"
check "a mirror pod may not name an account" is_status 403 Forbidden \
    'pods "m2" is forbidden: a mirror pod may not reference service accounts'
req POST $CORE/pods "{\"metadata\":{\"name\":\"m3\",$MIRROR},\"spec\":{\"containers\":[
{\"name\":\"c\",\"image\":\"nginx\"}],\"volumes\":[{\"name\":\"s\",\"secret\":{\"secretName\":\"x\"}}]}}"
check "... nor a secret" is_status 403 Forbidden \
    'pods "m3" is forbidden: a mirror pod may not reference secrets'

req POST "$CORE/pods?dryRun=All" '{"metadata":{"name":"dry"},"spec":{"containers":[
{"name":"c","image":"nginx"}]}}'
check "a dry run goes through admission too" jpy "d['spec']['serviceAccountName'] == 'default'"
req GET $CORE/pods/dry
check "... and stores nothing" code_is 404

req POST /api/v1/namespaces '{"metadata":{"name":"fresh"}}'
check "a new namespace" code_is 201
req POST /api/v1/namespaces/fresh/pods '{"metadata":{"name":"early"},"spec":{"containers":[
{"name":"c","image":"nginx"}]}}'
check "a pod created at once waits for its default account" code_is 201

req POST $CORE/configmaps '{"metadata":{"name":"plain"}}'
check "other kinds are not touched" jpy "'spec' not in d"

# ---- AlwaysDeny, and plugins turned off ------------------------------------------------------
check "kgate starts with AlwaysDeny on and ServiceAccount off" api_start deny \
    --enable-admission-plugins=AlwaysDeny --disable-admission-plugins=ServiceAccount
req POST $CORE/configmaps '{"metadata":{"name":"c"}}'
check "AlwaysDeny refuses a create" is_status 403 Forbidden \
    'configmaps "c" is forbidden: admission control is denying all modifications'
req DELETE /api/v1/namespaces/kube-public
check "... NamespaceLifecycle, earlier in the chain, refuses first" is_status 403 Forbidden \
    'namespaces "kube-public" is forbidden: this namespace may not be deleted'
req DELETE $CORE/configmaps/kube-root-ca.crt
check "... a delete" is_status 403 Forbidden \
    'configmaps "kube-root-ca.crt" is forbidden: admission control is denying all modifications'
req PATCH $CORE/serviceaccounts/default '{"metadata":{"labels":{"a":"b"}}}' \
    application/merge-patch+json
check "... and an update" is_status 403 Forbidden \
    'serviceaccounts "default" is forbidden: admission control is denying all modifications'
req POST $CORE/pods/p/binding '{"metadata":{"name":"p"},"target":{"name":"n1"}}'
check "... a subresource's POST (a binding)" is_status 403 Forbidden \
    'pods "p" is forbidden: admission control is denying all modifications'
req POST $CORE/pods/p/eviction '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}}'
check "... and an eviction" is_status 403 Forbidden \
    'pods "p" is forbidden: admission control is denying all modifications'
req GET $CORE/serviceaccounts/default
check "reads go on" code_is 200
check "kgate stops cleanly" clean_exit

check "kgate starts without ServiceAccount and NamespaceLifecycle" api_start open \
    --disable-admission-plugins=ServiceAccount,NamespaceLifecycle
req POST $CORE/pods '{"metadata":{"name":"bare"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}'
check "a pod keeps no account" jpy "'serviceAccountName' not in d['spec'] and \
'volumes' not in d['spec']"
req POST /api/v1/namespaces/nowhere/configmaps '{"metadata":{"name":"c"}}'
check "a create into a missing namespace is not checked" code_is 201
check "kgate stops cleanly" clean_exit

tap_end
