# Helpers for the OIDC and webhook scenarios (tests/e2e/authn_oidc.t, authn_webhook.t),
# sourced after kgate.sh and api_lib.sh: the identity provider of tests/e2e/idp.py on loopback,
# RSA keys and their JWKs made with openssl, and ID tokens signed with openssl dgst.

# idp_start DIR: idp.py serving with DIR as its state and a certificate "idp" from $PKI's CA;
# sets IDP_DIR, IDP_URL (its issuer) and IDP_PID.
idp_start() {
    IDP_DIR=$1
    mkdir -p "$IDP_DIR"
    rm -f "$IDP_DIR/port"
    pki_cert "$PKI" ca idp server "/CN=idp" "IP:127.0.0.1"
    python3 tests/e2e/idp.py "$IDP_DIR" "$PKI/idp.crt" "$PKI/idp.key" 2>"$IDP_DIR/idp.log" &
    IDP_PID=$!
    echo "$IDP_PID" >>"$KGATE_TEST_TMP/pids"
    for _ in $(seq 100); do
        [[ -s $IDP_DIR/port ]] && break
        sleep 0.1
    done
    IDP_URL=https://127.0.0.1:$(cat "$IDP_DIR/port")
}

# hits PATTERN: how many requests the provider got whose "METHOD PATH" matches PATTERN.
hits() { grep -c -- "$1" "$IDP_DIR/hits" 2>/dev/null || true; }

b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }

# rsa_key FILE: a new 2048-bit RSA private key.
rsa_key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null; }

# jwk KEYFILE KID: the public JWK of an RSA key.
jwk() {
    local mod
    mod=$(openssl rsa -in "$1" -noout -modulus | sed 's/^Modulus=//')
    printf '{"kty":"RSA","kid":"%s","alg":"RS256","use":"sig","n":"%s","e":"AQAB"}' "$2" \
        "$(xxd -r -p <<<"$mod" | b64url)"
}

# set_keys JWK...: the provider's key set from now on.
set_keys() {
    local IFS=,
    echo "{\"keys\":[$*]}" >"$IDP_DIR/jwks.json"
}

# mint KEYFILE KID CLAIMS [HEADER]: an RS256 ID token (kid "" leaves it out; HEADER replaces
# the JOSE header).
mint() {
    local key=$1 kid=$2 claims=$3 header=${4:-}
    [[ -n $header ]] || header="{\"alg\":\"RS256\"${kid:+,\"kid\":\"$kid\"}}"
    local input
    input="$(printf '%s' "$header" | b64url).$(printf '%s' "$claims" | b64url)"
    printf '%s.%s' "$input" "$(printf '%s' "$input" | openssl dgst -sha256 -sign "$key" | b64url)"
}

# whoami TOKEN: a SelfSubjectReview with that bearer token; sets CODE and OUT.
whoami() {
    OUT=$KGATE_TEST_TMP/body HDR=$KGATE_TEST_TMP/headers
    CODE=$(kcurl -o "$OUT" -D "$HDR" -w '%{http_code}' -X POST -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' \
        --data '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
        "$KGATE_URL/apis/authentication.k8s.io/v1/selfsubjectreviews")
}

# refused DESC TOKEN: 401 with kube's bare Unauthorized Status.
refused() {
    whoami "$2"
    check "$1: 401" code_is 401
    check "$1: nothing said of why" is_status 401 Unauthorized Unauthorized
}

# user_is PYTHON-DICT: the last review's userInfo.
user_is() { jpy "d['status']['userInfo'] == $1"; }

# start_fails DESC MESSAGE ARGS...: kgate refuses to start with ARGS, saying MESSAGE.
start_fails() {
    local desc=$1 msg=$2; shift 2
    kgate_start fails --etcd-servers="$KGATE_TEST_ETCD" --tls-cert-file="$PKI/server.crt" \
        --tls-private-key-file="$PKI/server.key" "$@"
    wait_exit "$KGATE_PID" 30
    check "$desc: kgate exits non-zero" test "$EXIT_CODE" -ne 0 -a "$EXIT_CODE" -ne 124
    check "$desc: it says why" grep -qF -- "$msg" "$KGATE_LOG" || diag "$(tail -3 "$KGATE_LOG")"
}
