#!/usr/bin/env bash
# The PKI test_gw_fetch needs: a CA, a server certificate for 127.0.0.1 and localhost, one for
# another name, a client certificate, an unrelated key and an unrelated CA.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/pki.sh
pki=${KGATE_TEST_TMP:?}/fetch-pki-$$
trap 'rm -rf "$pki"' EXIT
pki_ca "$pki" ca
pki_ca "$pki" otherca
pki_cert "$pki" ca server server "/CN=idp" "IP:127.0.0.1,DNS:localhost"
pki_cert "$pki" ca wrongname server "/CN=elsewhere" "DNS:elsewhere.example,IP:10.9.9.9"
pki_cert "$pki" ca client client "/CN=kgate-client"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$pki/other.key" 2>/dev/null
KGATE_TEST_PKI=$pki "${KGATE_BUILD:-build/san}/tests/unit/api/test_gw_fetch"
