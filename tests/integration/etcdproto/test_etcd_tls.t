#!/usr/bin/env bash
# An etcd that serves https and requires client certificates, for test_etcd_tls. The PKI: a
# CA, etcd's server certificate (127.0.0.1 and localhost), a client certificate, an unrelated
# key and an unrelated CA.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tests/lib/etcd.sh
source scripts/pki.sh
export KGATE_TEST_TMP=${KGATE_TEST_TMP:?}/tls-$$
mkdir -p "$KGATE_TEST_TMP"
trap stop_all EXIT
pki=$KGATE_TEST_TMP/pki
pki_ca "$pki" ca
pki_ca "$pki" otherca
pki_cert "$pki" ca server server "/CN=etcd" "IP:127.0.0.1,DNS:localhost"
pki_cert "$pki" ca client client "/CN=kgate"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$pki/other.key" 2>/dev/null
etcd_start tls https --cert-file "$pki/server.crt" --key-file "$pki/server.key" \
    --client-cert-auth --trusted-ca-file "$pki/ca.crt"
etcd_wait "$ETCD_URL" --cacert "$pki/ca.crt" --cert "$pki/client.crt" --key "$pki/client.key"
KGATE_TEST_ETCD=$ETCD_URL KGATE_TEST_PKI=$pki \
    "${KGATE_BUILD:-build/san}/tests/integration/etcdproto/test_etcd_tls"
