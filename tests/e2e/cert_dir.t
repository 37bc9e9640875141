#!/usr/bin/env bash
# Without --tls-cert-file, kgate serves a self-signed pair it keeps in --cert-dir, as
# kube-apiserver does: made on first start, valid for localhost, 127.0.0.1 and the host name,
# and reused on the next start.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
e2e_require cert_dir
trap stop_all EXIT

DIR=$KGATE_TEST_TMP/certs/nested
PKI=$DIR
# kcurl trusts $PKI/ca.crt: point it at the generated certificate.
ca_link() { [[ -f $DIR/apiserver.crt ]] && ln -sf apiserver.crt "$DIR/ca.crt"; }

# anonymous is off under AlwaysAllow: present a token from a token file
TOKENS=$KGATE_TEST_TMP/tokens.csv
echo 'admin-token,admin,1,system:masters' >"$TOKENS"
KCURL_AUTH=(-H 'Authorization: Bearer admin-token')

kgate_start first --etcd-servers="$KGATE_TEST_ETCD" --cert-dir="$DIR" --token-auth-file="$TOKENS"
check "the pair is written into a new --cert-dir" wait_for_line listening "$KGATE_LOG"
check "apiserver.crt and apiserver.key exist" test -s "$DIR/apiserver.crt" -a -s "$DIR/apiserver.key"
ca_link
check "the key is private (0600)" test "$(stat -c %a "$DIR/apiserver.key")" = 600
check "kgate is ready over the generated certificate" wait_for_code /readyz 200
check "the certificate is valid for localhost" \
    test "$(kcurl "https://localhost:$KGATE_PORT/livez")" = ok
sans=$(openssl x509 -in "$DIR/apiserver.crt" -noout -ext subjectAltName)
check "its names include 127.0.0.1" grep -q 'IP Address:127.0.0.1' <<<"$sans"
check "its names include this host" grep -q "DNS:$(hostname)" <<<"$sans"
check "the certificate matches the key" test \
    "$(openssl x509 -in "$DIR/apiserver.crt" -noout -pubkey)" = \
    "$(openssl pkey -in "$DIR/apiserver.key" -pubout)"
before=$(openssl x509 -in "$DIR/apiserver.crt" -noout -fingerprint -sha256)
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "first kgate exits 0 (got $EXIT_CODE)" test "$EXIT_CODE" = 0
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

kgate_start second --etcd-servers="$KGATE_TEST_ETCD" --cert-dir="$DIR" --token-auth-file="$TOKENS"
check "the second start is ready with the kept pair" wait_for_code /readyz 200
after=$(openssl x509 -in "$DIR/apiserver.crt" -noout -fingerprint -sha256)
check "the pair was reused, not regenerated" test "$before" = "$after"
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "second kgate exits 0 (got $EXIT_CODE)" test "$EXIT_CODE" = 0
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
