#!/usr/bin/env bash
# The CRD status controllers on two kgate instances: a new CRD gets its accepted names,
# NamesAccepted and Established within a second; a second CRD of the group asking for the same
# kind gets kube's KindConflict and is not established until the first is deleted; a CRD written
# into etcd with a type-less schema node gets NonStructuralSchema, lost when the schema is fixed;
# a CRD whose conversion webhook CA bundle holds no certificate is not established;
# the finalizer deletes a CRD's custom objects (objects with finalizers get a deletionTimestamp
# and stay, keeping the CRD Terminating with kube's message, and after a minute its
# InstanceDeletionCheck), then the CRD itself.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/instances_lib.sh
e2e_require crd_status

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
PREFIX=/registry-crdstatus-$$
CRDS=/apis/apiextensions.k8s.io/v1/customresourcedefinitions
CLEANUP=customresourcecleanup.apiextensions.k8s.io
etcdctl_() { ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" "$@"; }

# crd PLURAL SINGULAR KIND LISTKIND [METADATA-MEMBERS]: a namespaced CRD of group example.com.
crd() {
    echo "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",
\"metadata\":{\"name\":\"$1.example.com\"${5:+,$5}},\"spec\":{\"group\":\"example.com\",
\"names\":{\"plural\":\"$1\",\"singular\":\"$2\",\"kind\":\"$3\",\"listKind\":\"$4\"},
\"scope\":\"Namespaced\",\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,
\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}}]}}"
}

# cond TYPE: the Python expression of CRD d's condition TYPE as (status, reason, message).
cond() {
    echo "next(((c['status'], c['reason'], c['message']) for c in d.get('status', {}).get(
'conditions', []) if c['type'] == '$1'), None)"
}

# until_crd NAME EXPR [SECONDS]: poll (default 10 s) until GET of CRD NAME satisfies EXPR.
until_crd() {
    local end=$(($(date +%s%N) + ${3:-10} * 1000000000))
    while (($(date +%s%N) < end)); do
        req GET "$CRDS/$1"
        [[ $CODE == 200 ]] && jpy "($2)" >/dev/null && return 0
        sleep 0.05
    done
    diag "$CODE $(head -c 1500 "$OUT")"
    return 1
}

one_leader() {
    for _ in $(seq 100); do
        local n
        n=$(grep -l "$1 started" "${LOG[a]}" "${LOG[b]}" | wc -l)
        [[ $n == 1 ]] && return 0
        sleep 0.1
    done
    diag "leaders of $1: $n"
    return 1
}

check "instance a starts" start a
check "instance b starts" start b
check "exactly one instance runs the naming controller" one_leader crd-naming-controller
check "exactly one instance runs the CRD finalizer" one_leader crd-finalizer-controller

on a
req POST $CRDS "$(crd foos foo Foo FooList)"
check "a CRD is created" code_is 201
check "it is established within a second" until_crd foos.example.com \
    "$(cond Established) == ('True', 'InitialNamesAccepted', 'the initial names have been accepted')" 1
# (the stored form: how the API serves a CRD's members is the registry's business)
names_in_order() {
    stored apiextensions.k8s.io/customresourcedefinitions/foos.example.com >"$KGATE_TEST_TMP/foos"
    jpy "(list(d['status']['acceptedNames'].items()) == [('plural', 'foos'), ('singular', 'foo'),
 ('kind', 'Foo'), ('listKind', 'FooList')] and list(d['status'])[:2] == ['conditions', 'acceptedNames'])" \
        "$KGATE_TEST_TMP/foos" || { diag "$(cat "$KGATE_TEST_TMP/foos")"; return 1; }
}
check "its accepted names are its names, stored in kube's member order" names_in_order
check "NamesAccepted comes first, as kube's naming controller appends it" jpy "(
[c['type'] for c in d['status']['conditions']] == ['NamesAccepted', 'Established'] and
 $(cond NamesAccepted) == ('True', 'NoConflicts', 'no conflicts found') and
 all(c['lastTransitionTime'] for c in d['status']['conditions']))"
check "metadata.generation is unchanged by the status writes" jpy "d['metadata']['generation'] == 1"

on b
req POST $CRDS "$(crd bars bar Foo BarList)"
check "a second CRD of the group asks for the same kind" code_is 201
check "it gets kube's KindConflict" until_crd bars.example.com \
    "$(cond NamesAccepted) == ('False', 'KindConflict', '\"Foo\" is already in use')"
check "its other names are accepted, the kind is not" jpy "
d['status']['acceptedNames'] == {'plural': 'bars', 'singular': 'bar', 'kind': '', 'listKind': 'BarList'}"
check "it is not established" jpy "$(cond Established) == ('False', 'NotAccepted', 'not all names are accepted')"

# A CRD written into etcd directly, with a schema node that has no type.
gadget() {
    echo "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",
\"metadata\":{\"name\":\"gadgets.example.com\",\"uid\":\"3f0c4e36-0000-4000-8000-000000000001\",
\"generation\":$1,\"creationTimestamp\":\"2024-01-01T00:00:00Z\"},\"spec\":{\"group\":\"example.com\",
\"names\":{\"plural\":\"gadgets\",\"singular\":\"gadget\",\"kind\":\"Gadget\",\"listKind\":\"GadgetList\"},
\"scope\":\"Namespaced\",\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,
\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{\"spec\":$2}}}}]},
\"status\":{\"acceptedNames\":{\"plural\":\"\",\"kind\":\"\"},\"storedVersions\":[\"v1\"]}}"
}
etcdctl_ put "$PREFIX/apiextensions.k8s.io/customresourcedefinitions/gadgets.example.com" \
    "$(gadget 1 '{"properties":{"size":{"type":"integer"}}}')" >/dev/null
check "a non-structural schema written into etcd gets NonStructuralSchema" until_crd \
    gadgets.example.com "$(cond NonStructuralSchema) == ('True', 'Violations',
 'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields')"
check "... and its names, as any CRD" jpy "$(cond Established)[0] == 'True'"
req GET "$CRDS/gadgets.example.com"
STATUS=$(jget "d['status']")
etcdctl_ put "$PREFIX/apiextensions.k8s.io/customresourcedefinitions/gadgets.example.com" \
    "$(gadget 2 '{"type":"object"}' | python3 -c "
import json, sys
d = json.load(sys.stdin)
d['status'] = json.loads(sys.argv[1])
print(json.dumps(d))" "$STATUS")" >/dev/null
check "its next generation, structural, loses the condition" until_crd gadgets.example.com \
    "$(cond NonStructuralSchema) is None and $(cond Established)[0] == 'True'"

# A CRD whose conversion webhook has a CA bundle with no certificate (only etcd holds such a
# new CRD: the validation refuses it) gets its names but is not established, as in kube.
etcdctl_ put "$PREFIX/apiextensions.k8s.io/customresourcedefinitions/doodads.example.com" "$(
    gadget 1 '{"type":"object"}' | sed 's/gadget/doodad/g; s/Gadget/Doodad/g' | python3 -c "
import json, sys
d = json.load(sys.stdin)
d['metadata']['uid'] = '3f0c4e36-0000-4000-8000-000000000002'
d['spec']['conversion'] = {'strategy': 'Webhook', 'webhook': {'conversionReviewVersions': ['v1'],
    'clientConfig': {'url': 'https://example.com/convert', 'caBundle': 'Zm9v'}}}
print(json.dumps(d))")" >/dev/null
check "a conversion webhook CA bundle without a certificate: kube's InvalidCABundle" until_crd \
    doodads.example.com "$(cond NamesAccepted)[0] == 'True' and
 $(cond Established) == ('False', 'InvalidCABundle', 'The conversion webhook CABundle is invalid')"

on a
req DELETE "$CRDS/foos.example.com"
check "the first CRD is deleted" code_is 200
check "the second then gets the kind, and is established" until_crd bars.example.com "
$(cond NamesAccepted) == ('True', 'NoConflicts', 'no conflicts found') and
 d['status']['acceptedNames']['kind'] == 'Foo' and $(cond Established)[0] == 'True'"

# ---- the finalizer ---------------------------------------------------------------------------
req POST $CRDS "$(crd widgets widget Widget WidgetList "\"finalizers\":[\"$CLEANUP\"]")"
check "a CRD with the cleanup finalizer is created" code_is 201
check "it is established" until_crd widgets.example.com "$(cond Established)[0] == 'True'"
W=$PREFIX/example.com/widgets
widget() {
    echo "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"$2\",
\"namespace\":\"$1\",\"uid\":\"3f0c4e36-0000-4000-8000-00000000001$3\",\"generation\":1,
\"creationTimestamp\":\"2024-01-01T00:00:00Z\"${4:+,$4}},\"spec\":{\"size\":$3}}"
}
etcdctl_ put "$W/default/w1" "$(widget default w1 1)" >/dev/null
etcdctl_ put "$W/other/w2" "$(widget other w2 2)" >/dev/null
etcdctl_ put "$W/default/w3" "$(widget default w3 3 '"finalizers":["example.com/hold"]')" >/dev/null
etcdctl_ put "$PREFIX/example.com/gadgets/default/g1" "$(widget default g1 4)" >/dev/null

on b
# Every state the CRD goes through from here on (kube's InstanceDeletionCheck lasts as long as
# the write of the next round takes).
req GET "$CRDS/widgets.example.com"
RV=$(jget "d['metadata']['resourceVersion']")
kcurl --max-time 80 "${ADMIN[@]}" -o "$KGATE_TEST_TMP/watch" \
    "$KGATE_URL$CRDS?watch=1&resourceVersion=$RV&timeoutSeconds=75" &
WATCH=$!
req DELETE "$CRDS/widgets.example.com"
check "the CRD is deleted: its finalizer keeps it, with a deletionTimestamp" jpy \
    "d['metadata'].get('deletionTimestamp') is not None"
gone() { [[ -z $(etcdctl_ get "$1" --keys-only) ]]; }
wait_gone() {
    for _ in $(seq 100); do gone "$1" && return 0; sleep 0.1; done
    return 1
}
check "its object without finalizers is deleted" wait_gone "$W/default/w1"
check "... in every namespace" wait_gone "$W/other/w2"
held() {
    etcdctl_ get "$W/default/w3" --print-value-only >"$KGATE_TEST_TMP/w3"
    jpy "(d['metadata'].get('deletionTimestamp') is not None and
 d['metadata']['deletionGracePeriodSeconds'] == 0 and d['metadata']['generation'] == 2 and
 d['metadata']['finalizers'] == ['example.com/hold'])" "$KGATE_TEST_TMP/w3"
}
check "its object with a finalizer is marked deleted, as the generic store does" held
check "another CRD's objects are left alone" test -n "$(etcdctl_ get "$PREFIX/example.com/gadgets/default/g1" --keys-only)"
sleep 2
check "the held object keeps the CRD, Terminating with kube's message" until_crd widgets.example.com \
    "$(cond Terminating) == ('True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress')
 and '$CLEANUP' in d['metadata']['finalizers']"
# kube waits a minute for the instances, then says so and starts a new round.
waited() {
    for _ in $(seq 750); do
        grep -q 'could not confirm zero CustomResources remaining: context deadline exceeded' \
            "$KGATE_TEST_TMP/watch" && return 0
        sleep 0.1
    done
    return 1
}
check "after a minute the CRD says InstanceDeletionCheck with kube's message" waited
check "... and the next round says InstanceDeletionInProgress again" until_crd widgets.example.com \
    "$(cond Terminating) == ('True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress')"
check "the watch saw the Check condition with Terminating's status true" python3 -c "
import json, sys
for line in open(sys.argv[1]):
    for c in json.loads(line)['object'].get('status', {}).get('conditions', []):
        if c['type'] == 'Terminating' and c['reason'] == 'InstanceDeletionCheck':
            sys.exit(0 if c['status'] == 'True' else 1)
sys.exit(1)" "$KGATE_TEST_TMP/watch"
kill "$WATCH" 2>/dev/null
wait "$WATCH" 2>/dev/null
# The holder removes its finalizer: the generic store removes an object being deleted with the
# update that drops its last finalizer.
etcdctl_ del "$W/default/w3" >/dev/null
gone_crd() {
    for _ in $(seq 100); do
        req GET "$CRDS/widgets.example.com"
        [[ $CODE == 404 ]] && return 0
        sleep 0.1
    done
    diag "$CODE $(head -c 1500 "$OUT")"
    return 1
}
check "once its last object is gone, the finalizer is removed and the CRD with it" gone_crd

# A CRD held by another finalizer too keeps the status the finalizer wrote last.
req POST $CRDS "$(crd things thing Thing ThingList "\"finalizers\":[\"$CLEANUP\",\"example.com/keep\"]")"
check "a CRD with a second finalizer is created" code_is 201
check "it is established" until_crd things.example.com "$(cond Established)[0] == 'True'"
req DELETE "$CRDS/things.example.com"
check "once deleted, it loses only the cleanup finalizer" until_crd things.example.com "
$(cond Terminating) == ('False', 'InstanceDeletionCompleted', 'removed all instances') and
 d['metadata']['finalizers'] == ['example.com/keep']"

req POST $CRDS "$(crd quxes qux Foo QuxList "\"finalizers\":[\"$CLEANUP\",\"example.com/keep\"]")"
check "a CRD that never gets its names" code_is 201
check "is not established" until_crd quxes.example.com "$(cond NamesAccepted)[1] == 'KindConflict'"
req DELETE "$CRDS/quxes.example.com"
check "deleted, it has nothing to clean up: kube's NeverEstablished" until_crd quxes.example.com "
$(cond Terminating) == ('False', 'NeverEstablished', 'resource was never established') and
 d['metadata']['finalizers'] == ['example.com/keep']"

check "no instance logged a status write failure" bash -c "! grep -q 'status of' \
    '${LOG[a]}' '${LOG[b]}'"
check "a exits cleanly" eval 'on a; clean_exit'
check "b exits cleanly" eval 'on b; clean_exit'
etcdctl_ del --prefix "$PREFIX/" >/dev/null
tap_end
