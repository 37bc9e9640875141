#!/usr/bin/env bash
# A kgate against the shared etcd: the health endpoints as kube-apiserver serves them, the
# Audit-ID header, TLS versions, optional client certificates and request limits.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
e2e_require health

PKI=$KGATE_TEST_TMP/pki
e2e_pki "$PKI"
pki_ca "$PKI" other
pki_cert "$PKI" other stranger client "/CN=stranger"
# anonymous is off under AlwaysAllow
KCURL_AUTH=(--cert "$PKI/admin.crt" --key "$PKI/admin.key")
trap stop_all EXIT

kgate_start health --etcd-servers="$KGATE_TEST_ETCD" --workers=2 \
    --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
    --client-ca-file="$PKI/ca.crt"
check "kgate becomes ready" wait_for_code /readyz 200
check "the log says where it listens" grep -q "listening on https://127.0.0.1:$KGATE_PORT" "$KGATE_LOG"

for ep in livez readyz healthz; do
    check "/$ep answers 200" test "$(http_code /$ep)" = 200
    check "/$ep body is ok" test "$(kcurl "$KGATE_URL/$ep")" = ok
done

body=$(kcurl "$KGATE_URL/readyz?verbose")
HOOKS=$'[+]poststarthook/priority-and-fairness-config-consumer ok\n[+]poststarthook/priority-and-fairness-filter ok\n[+]poststarthook/start-system-namespaces-controller ok\n[+]poststarthook/start-cluster-authentication-info-controller ok\n[+]poststarthook/start-kube-apiserver-identity-lease-controller ok\n[+]poststarthook/start-kube-apiserver-identity-lease-garbage-collector ok\n[+]poststarthook/rbac/bootstrap-roles ok\n[+]poststarthook/scheduling/bootstrap-system-priority-classes ok\n[+]poststarthook/priority-and-fairness-config-producer ok\n[+]poststarthook/bootstrap-controller ok\n'
want=$'[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]informer-sync ok\n'"$HOOKS"$'[+]shutdown ok\nreadyz check passed'
check "/readyz?verbose lists every check and the passed line" test "$body" = "$want"
body=$(kcurl "$KGATE_URL/livez?verbose")
want=$'[+]ping ok\n[+]log ok\n[+]etcd ok\n'"$HOOKS"'livez check passed'
check "/livez?verbose has no shutdown check" test "$body" = "$want"
body=$(kcurl "$KGATE_URL/healthz?verbose=1")
check "/healthz?verbose=1 ends with the passed line" test "$(tail -1 <<<"$body")" = "healthz check passed"

body=$(kcurl "$KGATE_URL/readyz?verbose&exclude=etcd&exclude=log")
want=$'[+]ping ok\n[+]log excluded: ok\n[+]etcd excluded: ok\n[+]informer-sync ok\n'"$HOOKS"$'[+]shutdown ok\nreadyz check passed'
check "exclude is repeatable and shown as excluded: ok" test "$body" = "$want"
body=$(kcurl "$KGATE_URL/livez?exclude=nosuch&verbose")
check "an unknown exclude is named in a warning" \
    grep -qx 'warn: some health checks cannot be excluded: no matches for "nosuch"' <<<"$body"
body=$(kcurl "$KGATE_URL/livez?verbose&exclude=%0Abad%22")
check "an unknown exclude is quoted with its control characters escaped" \
    grep -qx 'warn: some health checks cannot be excluded: no matches for "\\x0abad\\x22"' <<<"$body"
check "/readyz?exclude=etcd without verbose is plain ok" \
    test "$(kcurl "$KGATE_URL/readyz?exclude=etcd")" = ok

check "/livez/ping is ok" test "$(kcurl "$KGATE_URL/livez/ping")" = ok
check "/readyz/etcd is ok" test "$(kcurl "$KGATE_URL/readyz/etcd")" = ok
check "/readyz/shutdown is 200" test "$(http_code /readyz/shutdown)" = 200
check "/readyz/poststarthook/rbac/bootstrap-roles is ok" \
    test "$(kcurl "$KGATE_URL/readyz/poststarthook/rbac/bootstrap-roles")" = ok
check "/livez/poststarthook/bootstrap-controller is ok" \
    test "$(kcurl "$KGATE_URL/livez/poststarthook/bootstrap-controller")" = ok
body=$(kcurl "$KGATE_URL/readyz?verbose&exclude=poststarthook/rbac/bootstrap-roles")
check "a post-start hook can be excluded" \
    grep -qx '\[+\]poststarthook/rbac/bootstrap-roles excluded: ok' <<<"$body"
check "/livez/shutdown is 404 (not a livez check)" test "$(http_code /livez/shutdown)" = 404
check "/readyz/nosuch is 404" test "$(http_code /readyz/nosuch)" = 404
check "/readyz/ is 404" test "$(http_code /readyz/)" = 404
check "an unknown path is 404" test "$(http_code /nosuch)" = 404

headers=$(kcurl -D - -o /dev/null "$KGATE_URL/readyz")
uuid='[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'
check "responses carry an Audit-ID (UUID v4)" grep -qiE "^Audit-ID: $uuid"$'\r$' <<<"$headers"
check "health responses are text/plain" \
    grep -qi '^Content-Type: text/plain; charset=utf-8' <<<"$headers"
check "health responses say nosniff" grep -qi '^X-Content-Type-Options: nosniff' <<<"$headers"
check "a 404 carries an Audit-ID too" \
    grep -qiE "^Audit-ID: $uuid" <(kcurl -D - -o /dev/null "$KGATE_URL/nosuch")
ids=$(for _ in 1 2 3; do kcurl -D - -o /dev/null "$KGATE_URL/livez"; done | grep -i '^Audit-ID' |
    sort -u | wc -l)
check "every request gets its own Audit-ID" test "$ids" = 3

head=$(kcurl -I "$KGATE_URL/livez")
check "HEAD /livez is 200" grep -qE "^HTTP/(1.1|2) 200" <<<"$head"
check "HEAD /livez has an Audit-ID" grep -qiE "^Audit-ID: $uuid" <<<"$head"
check "PATCH reaches the router (404, not 501)" test "$(http_code /nosuch -X PATCH)" = 404

tls_handshake() {
    openssl s_client -connect "127.0.0.1:$KGATE_PORT" "$@" </dev/null >/dev/null 2>&1
}
check "TLS 1.2 is accepted" tls_handshake -tls1_2
check "TLS 1.3 is accepted" tls_handshake -tls1_3
check "TLS 1.1 is refused" bash -c "! openssl s_client -connect 127.0.0.1:$KGATE_PORT -tls1_1 \
    -cipher DEFAULT@SECLEVEL=0 </dev/null >/dev/null 2>&1"

check "a request with the admin client certificate is answered" \
    test "$(http_code /readyz --cert "$PKI/admin.crt" --key "$PKI/admin.key")" = 200
check "a request without a client certificate is answered" test "$(http_code /readyz)" = 200
check "a client certificate from another CA fails the handshake" \
    test "$(http_code /readyz --cert "$PKI/stranger.crt" --key "$PKI/stranger.key")" = 000

big=$(head -c 70000 /dev/zero | tr '\0' a)
code=$(http_code /livez --http1.1 -H "X-Big: $big")
check "HTTP/1.1 headers over 64 KiB are refused (got $code)" test "$code" -ge 400 -a "$code" -lt 500
head -c $((3 * 1024 * 1024 + 1)) /dev/zero >"$KGATE_TEST_TMP/big.body"
code=$(http_code /livez -X POST --data-binary @"$KGATE_TEST_TMP/big.body")
check "a body over 3 MiB is refused with 413 (got $code)" test "$code" = 413
check "kgate still serves after refusing them" test "$(http_code /livez)" = 200

kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "SIGTERM: exit code 0 (got $EXIT_CODE)" test "$EXIT_CODE" = 0
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"
tap_end
