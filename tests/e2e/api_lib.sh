# Helpers for the REST layer scenarios (tests/e2e/api_*.t), sourced after tests/e2e/kgate.sh:
# a PKI with users, a token file, kgate on its own etcd prefix, curl as a given user, and
# JSON checks with python3.

# api_pki DIR: e2e_pki plus a client certificate for "jane" in groups "qa" and "dev", and a
# token file DIR/tokens.csv (alice in dev and ops, bob in no group).
api_pki() {
    local dir=$1
    e2e_pki "$dir"
    pki_cert "$dir" ca jane client "/O=qa/O=dev/CN=jane"
    cat >"$dir/tokens.csv" <<'EOF'
alice-token,alice,1001,"dev,ops"
bob-token,bob,1002
EOF
}

# api_start NAME ARGS...: kgate with the test PKI ($PKI), its token file and a fresh etcd
# prefix, waited for until /readyz answers 200 to the admin.
api_start() {
    local name=$1; shift
    kgate_start "$name" --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="/registry-$name-$$" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --token-auth-file="$PKI/tokens.csv" "$@"
    for _ in $(seq 300); do
        [[ $(http_code /readyz "${ADMIN[@]}") == 200 ]] && return 0
        alive "$KGATE_PID" || break
        sleep 0.1
    done
    diag "$(tail -20 "$KGATE_LOG")"
    return 1
}

# Credentials for kcurl.
ADMIN=()
JANE=()
ALICE=(-H "Authorization: Bearer alice-token")
set_users() {
    ADMIN=(--cert "$PKI/admin.crt" --key "$PKI/admin.key")
    JANE=(--cert "$PKI/jane.crt" --key "$PKI/jane.key")
}

# fetch PATH [CURL ARGS...]: GET into $OUT (body), $HDR (headers); sets CODE.
fetch() {
    local path=$1; shift
    OUT=$KGATE_TEST_TMP/body HDR=$KGATE_TEST_TMP/headers
    CODE=$(kcurl -o "$OUT" -D "$HDR" -w '%{http_code}' "$@" "$KGATE_URL$path")
}

# send METHOD PATH BODY CURL-ARGS...: a request with a JSON body (a PATCH's is a merge patch)
# into $OUT; sets CODE.
send() {
    local method=$1 path=$2 body=$3 type=application/json; shift 3
    [[ $method == PATCH ]] && type=application/merge-patch+json
    OUT=$KGATE_TEST_TMP/body
    CODE=$(kcurl -o "$OUT" -w '%{http_code}' -X "$method" -H "Content-Type: $type" \
        --data-binary "$body" "$@" "$KGATE_URL$path")
}

# header NAME: the value of response header NAME in $HDR (first one), without the CR.
header() { grep -i "^$1:" "$HDR" | head -1 | sed 's/^[^:]*: *//; s/\r$//'; }

# jpy EXPR [FILE]: evaluate a Python expression over the JSON document d in FILE (default
# $OUT); exits non-zero when it is false or fails.
jpy() {
    python3 - "$1" "${2:-$OUT}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[2]))
v = eval(sys.argv[1])
if v is not True:
    print("# jpy: %r gave %r" % (sys.argv[1], v))
    sys.exit(1)
EOF
}

# is_status CODE REASON MESSAGE: $OUT is a metav1.Status with that code, reason and message.
is_status() {
    python3 - "$1" "$2" "$3" "$OUT" <<'EOF'
import json, sys
d = json.load(open(sys.argv[4]))
ok = (d.get('kind') == 'Status' and d.get('apiVersion') == 'v1' and d.get('status') == 'Failure'
      and d.get('code') == int(sys.argv[1]) and d.get('reason') == sys.argv[2]
      and d.get('message') == sys.argv[3])
if not ok:
    print("# got %s" % json.dumps(d))
sys.exit(0 if ok else 1)
EOF
}

# kubectl_ok: kubectl 1.32 is here (the kubectl scenarios skip otherwise).
kubectl_ok() {
    command -v kubectl >/dev/null && kubectl version --client 2>/dev/null | grep -q 'v1\.32\.'
}

# kubeconfig FILE: a kubeconfig for the admin certificate against $KGATE_URL.
kubeconfig() {
    cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- cluster: {certificate-authority: $PKI/ca.crt, server: "$KGATE_URL"}
  name: kgate
users:
- name: admin
  user: {client-certificate: $PKI/admin.crt, client-key: $PKI/admin.key}
contexts:
- context: {cluster: kgate, user: admin}
  name: kgate
current-context: kgate
EOF
}

# kubectl_e2e NAME KGATE-NAME: the start of a stock-kubectl scenario (after e2e_require NAME):
# the script is skipped unless kubectl 1.32 is here; a PKI and its users, kgate started (the
# first check), KUBECONFIG for the admin, and $M for manifests. k ARGS... runs kubectl with its
# output in $KOUT (true when it succeeded); has TEXT looks for TEXT in that output.
kubectl_e2e() {
    if ! kubectl_ok; then
        echo "1..0 # SKIP kubectl 1.32 is not installed"
        exit 0
    fi
    PKI=$KGATE_TEST_TMP/pki
    api_pki "$PKI"
    set_users
    trap stop_all EXIT
    check "kgate starts" api_start "$1" --workers=2
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    M=$KGATE_TEST_TMP/manifests
    mkdir -p "$M"
}
k() {
    KOUT=$(kubectl --request-timeout=20s "$@" 2>&1)
    local rc=$?
    [[ $rc -eq 0 ]] || diag "kubectl $*: $KOUT"
    return $rc
}
has() { grep -qF -- "$1" <<<"$KOUT" || { diag "no '$1' in: $KOUT"; return 1; }; }

# metric_sum FILE SERIES: the sum of SERIES' samples (`name{labels}` exactly as /metrics prints
# it) in the /metrics texts in FILE, 0 when it has none.
metric_sum() {
    awk -v s="$2" 'index($0, s " ") == 1 { n += $2 } END { print n + 0 }' "$1"
}
