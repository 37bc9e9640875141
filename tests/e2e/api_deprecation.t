#!/usr/bin/env bash
# Requests to a deprecated API version, as kube-apiserver v1.32 marks them: a
# `Warning: 299 - "<group/version> <Kind> is deprecated in vX.Y+[, unavailable in vX.Y+][; use ...]"`
# header on every verb its handlers serve (get, list, watch, create, status, a 404 from the
# handler), none on the GA version, none before the handler (403, an unknown resource), and the
# audit annotations k8s.io/deprecated and k8s.io/removed-release, the gauge
# apiserver_requested_deprecated_apis; a beta
# (admissionregistration.k8s.io/v1beta1), an alpha past its default deprecation
# (storage.k8s.io/v1alpha1) and one before it (admissionregistration.k8s.io/v1alpha1), the GA
# ComponentStatus; stock kubectl shows the warning.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/audit_lib.sh
e2e_require deprecation

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
D=$KGATE_TEST_TMP
LOG=$D/logs/audit.log
cat >"$D/policy.yaml" <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/readyz*", "/livez*", "/healthz*"]
- level: Metadata
YAML

# annotations JSON: the last request's ResponseComplete annotations, those named k8s.io/*, are
# exactly JSON (a Python dict literal).
annotations() {
    events "$(header Audit-Id)" || return 1
    python3 - "$1" "$D/events" <<'PY'
import json, sys
e = [json.loads(l) for l in open(sys.argv[2])][-1]
got = {k: v for k, v in e.get('annotations', {}).items() if k.startswith('k8s.io/')}
want = eval(sys.argv[1])
if got != want:
    print("# annotations: got %r, want %r" % (got, want))
    sys.exit(1)
PY
}
# warned TEXT: the last answer carries exactly one Warning header, `299 - "TEXT"`.
warned() {
    local got
    got=$(warnings)
    [[ $got == "299 - \"$1\"" ]] && return 0
    diag "warnings: '$got'"
    return 1
}
no_warning() {
    [[ -z $(warnings) ]] && return 0
    diag "warnings: '$(warnings)'"
    return 1
}

AR=/apis/admissionregistration.k8s.io
VAP_BETA="admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy is deprecated in v1.31+, unavailable in v1.34+; use admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy"
VAC_ALPHA="storage.k8s.io/v1alpha1 VolumeAttributesClass is deprecated in v1.32+, unavailable in v1.35+"
CS="v1 ComponentStatus is deprecated in v1.19+"
BETA_NOTES="{'k8s.io/deprecated': 'true', 'k8s.io/removed-release': '1.34'}"
POLICY='{"apiVersion":"admissionregistration.k8s.io/v1beta1","kind":"ValidatingAdmissionPolicy",
"metadata":{"name":"p1"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],
"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
"validations":[{"expression":"true"}]}}'

check "kgate starts with admissionregistration v1beta1 and v1alpha1 (and its gate), storage v1alpha1 on" \
    api_start deprecation --authorization-mode=RBAC \
    --runtime-config=admissionregistration.k8s.io/v1beta1=true,admissionregistration.k8s.io/v1alpha1=true,storage.k8s.io/v1alpha1=true \
    --feature-gates=MutatingAdmissionPolicy=true \
    --audit-policy-file="$D/policy.yaml" --audit-log-path="$LOG"

req GET $AR/v1beta1/validatingadmissionpolicies
check "LIST of v1beta1 policies: 200" code_is 200
check "... warns that v1beta1 is deprecated, when it goes and what replaces it" warned "$VAP_BETA"
check "... audited as deprecated, removed in 1.34" annotations "$BETA_NOTES"

req POST $AR/v1beta1/validatingadmissionpolicies "$POLICY"
check "CREATE of a v1beta1 policy: 201" code_is 201
check "... with the warning" warned "$VAP_BETA"
check "... and the annotations" annotations "$BETA_NOTES"

req GET $AR/v1beta1/validatingadmissionpolicies/p1
check "GET of it in v1beta1: 200" code_is 200
check "... with the warning" warned "$VAP_BETA"
check "... and the annotations" annotations "$BETA_NOTES"

req GET $AR/v1beta1/validatingadmissionpolicies/p1/status
check "GET of its status in v1beta1: the same warning" warned "$VAP_BETA"

req GET $AR/v1beta1/validatingadmissionpolicies/missing
check "a missing v1beta1 policy: 404 from the handler" code_is 404
check "... still warned, as kube's handler wrapper warns first" warned "$VAP_BETA"
check "... and annotated" annotations "$BETA_NOTES"

req GET $AR/v1beta1/validatingadmissionpolicybindings
check "the v1beta1 binding kind warns with its own name" warned \
    "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding is deprecated in v1.31+, unavailable in v1.34+; use admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding"

req GET "$AR/v1beta1/validatingadmissionpolicies?watch=1&timeoutSeconds=1"
check "a WATCH of v1beta1 policies warns too" warned "$VAP_BETA"
check "... and is annotated by its end" annotations "$BETA_NOTES"

req GET $AR/v1/validatingadmissionpolicies/p1
check "GET of the same policy in v1: 200" code_is 200
check "... no warning" no_warning
check "... no deprecation annotations" annotations "{}"

req GET $AR/v1beta1/nosuchresources
check "an unknown v1beta1 resource: 404 before any handler, no warning" \
    bash -c "[[ $CODE == 404 && -z \"\$(grep -i '^Warning:' '$HDR')\" ]]"

fetch $AR/v1beta1/validatingadmissionpolicies "${ALICE[@]}" -D "$HDR"
check "alice may not list v1beta1 policies: 403, refused before the handler" \
    bash -c "[[ $CODE == 403 ]]"
check "... without a warning" no_warning

req GET /apis/storage.k8s.io/v1alpha1/volumeattributesclasses
check "LIST of v1alpha1 VolumeAttributesClasses: 200" code_is 200
check "... an alpha introduced in 1.29 is deprecated in 1.32 by default" warned "$VAC_ALPHA"
check "... audited as removed in 1.35" annotations \
    "{'k8s.io/deprecated': 'true', 'k8s.io/removed-release': '1.35'}"

req GET $AR/v1alpha1/mutatingadmissionpolicies
check "LIST of v1alpha1 MutatingAdmissionPolicies (introduced in 1.32): 200" code_is 200
check "... not deprecated yet: no warning" no_warning
check "... no annotations" annotations "{}"

# (kgate's handler answers ComponentStatus reads 405: kube's probes of the scheduler and the
# controller manager have no counterpart here; the handler's wrapper warns all the same.)
req GET /api/v1/componentstatuses
check "LIST of ComponentStatuses: the GA kind deprecated without removal warns" warned "$CS"
check "... annotated deprecated with no removed-release" annotations "{'k8s.io/deprecated': 'true'}"

req GET $CORE/configmaps
check "a GA kind: no warning" no_warning

req GET /metrics
check "/metrics has the gauge of each deprecated API requested, with its removal release" grep -qx \
    'apiserver_requested_deprecated_apis{group="admissionregistration.k8s.io",removed_release="1.34",resource="validatingadmissionpolicies",subresource="",version="v1beta1"} 1' "$OUT"
check "... the status subresource apart" grep -qx \
    'apiserver_requested_deprecated_apis{group="admissionregistration.k8s.io",removed_release="1.34",resource="validatingadmissionpolicies",subresource="status",version="v1beta1"} 1' "$OUT"
check "... ComponentStatus without a removal release" grep -qx \
    'apiserver_requested_deprecated_apis{group="",removed_release="",resource="componentstatuses",subresource="",version="v1"} 1' "$OUT"
check "... and none for the kinds not deprecated" bash -c \
    "! grep -qE 'apiserver_requested_deprecated_apis[{].*resource=\"(mutatingadmissionpolicies|configmaps)\"' '$OUT'"

if kubectl_ok; then
    export KUBECONFIG=$D/kubeconfig
    kubeconfig "$KUBECONFIG"
    check "kubectl get of v1beta1 policies succeeds" \
        k get validatingadmissionpolicies.v1beta1.admissionregistration.k8s.io
    check "... and prints kube's warning on stderr" has "Warning: $VAP_BETA"
    KOUT=$(kubectl --request-timeout=20s get componentstatuses 2>&1)
    check "kubectl get cs prints the ComponentStatus warning" has "Warning: $CS"
    check "kubectl get of v1 policies prints no warning" \
        bash -c "! kubectl --request-timeout=20s get validatingadmissionpolicies.v1.admissionregistration.k8s.io 2>&1 | grep -q Warning"
else
    diag "kubectl 1.32 is not installed: its checks are left out"
fi
tap_end
