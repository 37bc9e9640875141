#!/usr/bin/env bash
# --feature-gates as kube-apiserver 1.32 reads it: an unknown gate, a locked gate set to the
# other value and a value Go does not parse stop start-up with kube's words; a GA gate set to
# its locked default warns and kgate serves; several pairs in one flag value; /metrics has
# kubernetes_feature_enabled with each gate's value and stage.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require feature_gates

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
ERR=$KGATE_TEST_TMP/stderr
TLS=(--tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key")

# refused PATTERN DESC ARGS...: kgate exits non-zero with one "kgate: " line matching PATTERN.
refused() {
    local pattern=$1 desc=$2; shift 2
    timeout 30 "$KGATE" --bind-address=127.0.0.1 --secure-port="$(free_port)" \
        --etcd-servers="$KGATE_TEST_ETCD" "${TLS[@]}" "$@" >/dev/null 2>"$ERR"
    local rc=$?
    check "$desc: non-zero exit (got $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
    check "$desc: kube's words" grep -qF -- "$pattern" "$ERR" || diag "$(cat "$ERR")"
    check "$desc: no sanitizer report" no_sanitizer_report "$ERR"
}

refused "unrecognized feature gate: NoSuchGate" "unknown gate" \
    --feature-gates=APIResponseCompression=true,NoSuchGate=true
refused "cannot set feature gate ComponentSLIs to false, feature is locked to true" \
    "locked GA gate set off" --feature-gates=ComponentSLIs=false
refused "cannot set feature gate AllowServiceLBStatusOnNonLB to true, feature is locked to false" \
    "locked deprecated gate set on" --feature-gates=AllowServiceLBStatusOnNonLB=true
refused 'invalid value of WatchList=yes, err: strconv.ParseBool: parsing "yes": invalid syntax' \
    "a value Go does not parse" --feature-gates=WatchList=yes

check "kgate starts with a GA gate, a deprecated gate and two pairs in one value" \
    api_start gates "--feature-gates=ComponentSLIs=true,KMSv1=true" \
    --feature-gates=AllowUnsafeMalformedObjectDeletion=true
check "the GA gate's warning" grep -qF \
    "Setting GA feature gate ComponentSLIs=true. It will be removed in a future release." \
    "$KGATE_LOG"
check "the deprecated gate's warning" grep -qF \
    "Setting deprecated feature gate KMSv1=true. It will be removed in a future release." \
    "$KGATE_LOG"
METRICS=$(kcurl "${ADMIN[@]}" "$KGATE_URL/metrics")
has_series() { grep -qxF -- "$1" <<<"$METRICS" || { diag "no '$1'"; return 1; }; }
check "the family is BETA" has_series \
    "# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature."
check "an alpha gate set on" has_series \
    'kubernetes_feature_enabled{name="AllowUnsafeMalformedObjectDeletion",stage="ALPHA"} 1'
check "an alpha gate left off" has_series \
    'kubernetes_feature_enabled{name="CBORServingAndStorage",stage="ALPHA"} 0'
check "a beta gate on by default" has_series \
    'kubernetes_feature_enabled{name="APIResponseCompression",stage="BETA"} 1'
check "a GA gate's stage is empty" has_series \
    'kubernetes_feature_enabled{name="ComponentSLIs",stage=""} 1'
check "a deprecated gate set on" has_series \
    'kubernetes_feature_enabled{name="KMSv1",stage="DEPRECATED"} 1'
check "AllAlpha is a gate too" has_series \
    'kubernetes_feature_enabled{name="AllAlpha",stage="ALPHA"} 0'
stop_all
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
