#!/usr/bin/env bash
# The PKI test_authn_proxy needs: a front-proxy CA with the proxy's certificate (and one with
# another CN), a client CA with a user's certificate, and a server-only certificate of the
# proxy CA.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/pki.sh
pki=${KGATE_TEST_TMP:?}/proxy-pki-$$
trap 'rm -rf "$pki"' EXIT
pki_ca "$pki" proxyca
pki_ca "$pki" clientca
pki_cert "$pki" proxyca proxy client "/O=system:masters/CN=front-proxy"
pki_cert "$pki" proxyca other client "/CN=someone-else"
pki_cert "$pki" clientca jane client "/CN=jane"
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=front-proxy" \
    -keyout "$pki/serveronly.key" -out "$pki/serveronly.csr" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$pki/serveronly.ext"
openssl x509 -req -in "$pki/serveronly.csr" -CA "$pki/proxyca.crt" -CAkey "$pki/proxyca.key" \
    -CAcreateserial -days 365 -extfile "$pki/serveronly.ext" -out "$pki/serveronly.crt" 2>/dev/null
: >"$pki/empty.crt"
KGATE_TEST_PKI=$pki "${KGATE_BUILD:-build/san}/tests/unit/authn/test_authn_proxy"
