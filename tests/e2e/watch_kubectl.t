#!/usr/bin/env bash
# Stock kubectl 1.32 watching through kgate: `get -w` (Tables over a watch) printing adds,
# changes and deletions, `get -w -o name` (JSON), `wait --for=delete` and `wait --for=jsonpath`,
# and `delete namespace` waiting until the namespace is gone.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
source tests/e2e/watch_lib.sh
e2e_require watch_kubectl
if ! kubectl_ok; then
    echo "1..0 # SKIP kubectl 1.32 is not installed"
    exit 0
fi

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start kwatch --workers=2
export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
kubeconfig "$KUBECONFIG"

# k ARGS...: kubectl, output in $KOUT; true when it succeeded.
k() { KOUT=$(kubectl --request-timeout=30s "$@" 2>&1); local rc=$?; [[ $rc -eq 0 ]] || diag "kubectl $*: $KOUT"; return $rc; }
# bg NAME ARGS...: kubectl in the background, output into $KGATE_TEST_TMP/NAME; BG[NAME]=pid.
declare -A BG
bg() {
    local name=$1; shift
    timeout 60 kubectl "$@" >"$KGATE_TEST_TMP/$name" 2>&1 &
    BG[$name]=$!
}
# has NAME PATTERN...: the background output NAME shows lines matching each extended regular
# expression, in this order, within 20 s.
has() {
    local name=$1; shift
    for _ in $(seq 200); do
        python3 - "$KGATE_TEST_TMP/$name" "$@" <<'EOF' && return 0
import re, sys
lines = open(sys.argv[1]).read().splitlines()
i = 0
for pat in sys.argv[2:]:
    while i < len(lines) and not re.search(pat, lines[i]):
        i += 1
    if i == len(lines):
        sys.exit(1)
    i += 1
EOF
        sleep 0.1
    done
    diag "$(cat "$KGATE_TEST_TMP/$name")"
    return 1
}
# finished NAME: the background kubectl NAME ended with status 0 within 30 s.
finished() {
    local pid=${BG[$1]} rc
    for _ in $(seq 300); do alive "$pid" || break; sleep 0.1; done
    alive "$pid" && { diag "$1 still runs: $(cat "$KGATE_TEST_TMP/$1")"; return 1; }
    wait "$pid"
    rc=$?
    [[ $rc -eq 0 ]] || diag "$1 exited $rc: $(cat "$KGATE_TEST_TMP/$1")"
    return $rc
}

# cmk NAME [NAMESPACE]: create a ConfigMap from a manifest (kubectl create configmap would
# send protobuf).
cmk() {
    KOUT=$(kubectl --request-timeout=30s create -f - 2>&1 <<EOF
apiVersion: v1
kind: ConfigMap
metadata: {name: $1, namespace: ${2:-default}}
data: {k: v}
EOF
    ) || { diag "create $1: $KOUT"; return 1; }
}

check "a ConfigMap to start with" cmk first
bg getw get configmaps -w --output-watch-events
check "kubectl get -w lists, then watches" has getw '^EVENT +NAME +DATA +AGE' '^ADDED +first +1 '
check "... (kgate counts its watch)" metric_is kgate_watchers 1
cmk second
k patch configmap second -p '{"data":{"b":"2"}}'
k delete configmap first
check "kubectl get -w prints the add, the change and the deletion" has getw \
    '^ADDED +second +1 ' '^MODIFIED +second +2 ' '^DELETED +first +1 '

bg names get configmaps -w -o name
check "kubectl get -w -o name (JSON events)" has names '^configmap/second$'
cmk third
check "... prints the new one" has names '^configmap/third$'

cmk doomed
bg waitdel wait --for=delete configmap/doomed --timeout=30s
check "kubectl wait --for=delete is watching" metric_is kgate_watchers 3
k delete configmap doomed --wait=false
check "kubectl wait --for=delete returns once the object is gone" finished waitdel

bg waitjp wait --for=jsonpath='{.data.k}'=ready configmap/second --timeout=30s
check "kubectl wait --for=jsonpath is watching" metric_is kgate_watchers 3
k patch configmap second -p '{"data":{"k":"ready"}}'
check "kubectl wait --for=jsonpath returns once the value is there" finished waitjp

check "a namespace" k create -f - <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: scratch}
EOF
check "... with something in it" cmk inside scratch
check "kubectl delete namespace waits until it is gone" k delete namespace scratch --timeout=60s
check "... and it is" bash -c '! kubectl get namespace scratch >/dev/null 2>&1'

kill "${BG[getw]}" "${BG[names]}" 2>/dev/null
wait "${BG[getw]}" "${BG[names]}" 2>/dev/null
check "kubectl's watches are freed when it goes away" metric_is kgate_watchers 0
check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
