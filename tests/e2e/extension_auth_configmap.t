#!/usr/bin/env bash
# kube-system/extension-apiserver-authentication as kube's cluster authentication trust
# controller writes it: the client CA and the authenticating proxy's CA, allowed names and
# headers (JSON arrays), combined over every instance, written again when deleted.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require extension_auth_configmap

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
pki_ca "$PKI" front
pki_ca "$PKI" other
set_users
KCURL_AUTH=("${ADMIN[@]}")
trap stop_all EXIT
PREFIX=/registry-extauth-$$
CM=/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication

# data EXPR: EXPR (Python, over the ConfigMap's data as d) printed.
data() {
    kcurl "$KGATE_URL$CM" | python3 -c "
import json, sys
d = json.load(sys.stdin).get('data', {})
print($1)"
}

check "kgate starts" api_start one --etcd-prefix="$PREFIX" --workers=2 \
    --requestheader-client-ca-file="$PKI/front.crt" --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra-
check "the ConfigMap exists" wait_for_code $CM 200 10
check "it has kube's six keys" test "$(data "sorted(d)")" = \
    "['client-ca-file', 'requestheader-allowed-names', 'requestheader-client-ca-file', \
'requestheader-extra-headers-prefix', 'requestheader-group-headers', 'requestheader-username-headers']"
check "client-ca-file is --client-ca-file's certificate" \
    test "$(data "d['client-ca-file']")" = "$(cat "$PKI/ca.crt")"
check "requestheader-client-ca-file is the proxy CA" \
    test "$(data "d['requestheader-client-ca-file']")" = "$(cat "$PKI/front.crt")"
check "the lists are JSON arrays as kube writes them" test "$(data "' '.join(d[k] for k in (
    'requestheader-allowed-names', 'requestheader-username-headers',
    'requestheader-group-headers', 'requestheader-extra-headers-prefix'))")" = \
    '["front-proxy-client"] ["X-Remote-User"] ["X-Remote-Group"] ["X-Remote-Extra-"]'
check "its hook is listed and done" grep -qx \
    '\[+\]poststarthook/start-cluster-authentication-info-controller ok' \
    <<<"$(kcurl "$KGATE_URL/readyz?verbose")"

kcurl -X DELETE -o /dev/null "$KGATE_URL$CM"
check "a deleted ConfigMap is written again" wait_for_code $CM 200 10

ONE=$KGATE_URL
cat "$PKI/other.crt" "$PKI/ca.crt" >"$PKI/both.crt"
check "a second instance with one more client CA and another proxy name starts" api_start two \
    --etcd-prefix="$PREFIX" --workers=2 --client-ca-file="$PKI/both.crt" \
    --requestheader-client-ca-file="$PKI/front.crt" --requestheader-allowed-names=aggregator
combined() {
    [[ $(data "d['client-ca-file'].count('BEGIN CERTIFICATE')") == 2 &&
        $(data "d['requestheader-allowed-names']") == '["front-proxy-client","aggregator"]' ]]
}
wait_combined() { for _ in $(seq 50); do combined && return 0; sleep 0.2; done; return 1; }
check "both client CAs (each once) and both names are trusted, the existing first" \
    wait_combined
check "the proxy CA is there once" test "$(data "d['requestheader-client-ca-file'].count('BEGIN')")" = 1
KGATE_URL=$ONE
sleep 2
check "the first instance keeps the combined data (no flapping)" combined
check "kgate exits cleanly" clean_exit
tap_end
