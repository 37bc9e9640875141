#!/usr/bin/env bash
# kgate refuses bad flags, unusable files and an unreachable etcd with one clear line on
# stderr and a non-zero exit code, never hangs, and never leaves a sanitizer report.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
e2e_require bad_input

PKI=$KGATE_TEST_TMP/pki
e2e_pki "$PKI"
trap stop_all EXIT
ERR=$KGATE_TEST_TMP/stderr
TLS=(--tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key")

# run_kgate ARGS...: run kgate to completion (at most 30 s); sets RC, stderr in $ERR.
run_kgate() {
    timeout 30 "$KGATE" --bind-address=127.0.0.1 --secure-port="$(free_port)" "$@" \
        >/dev/null 2>"$ERR"
    RC=$?
}

# refused WANT_RC PATTERN DESC ARGS...: kgate exits WANT_RC ("nonzero": anything but 0 and
# timeout's 124) with exactly one "kgate: " line matching PATTERN and no sanitizer report.
refused() {
    local want=$1 pattern=$2 desc=$3; shift 3
    run_kgate "$@"
    if [[ $want == nonzero ]]; then
        check "$desc: non-zero exit (got $RC)" test "$RC" -ne 0 -a "$RC" -ne 124
    else
        check "$desc: exit $want (got $RC)" test "$RC" = "$want"
    fi
    check "$desc: one line saying why" test "$(grep -c '^kgate: ' "$ERR")" = 1
    check "$desc: the line reads as expected" grep -qE "^kgate: $pattern" "$ERR" ||
        diag "$(cat "$ERR")"
    check "$desc: no sanitizer report" no_sanitizer_report "$ERR"
}

E=--etcd-servers=$KGATE_TEST_ETCD

refused 2 'unknown flag: --foo$' "unknown flag" "$E" --foo
check "unknown flag: nothing else on stderr" test "$(wc -l <"$ERR")" = 1
refused 2 'invalid value "abc" for --secure-port: ' "port abc" "$E" --secure-port=abc
refused 2 'invalid value "5" for --shutdown-delay-duration: ' "duration without unit" "$E" \
    --shutdown-delay-duration=5
refused 2 '--etcd-servers must be specified$' "no --etcd-servers"
refused 2 '--etcd-servers entry "ftp://x": ' "ftp:// etcd server" --etcd-servers=ftp://x
refused 2 '--etcd-servers entry "http://:0": ' "etcd server without host" \
    --etcd-servers=http://:0
refused 2 '--etcd-servers: ' "empty --etcd-servers" --etcd-servers=
refused 2 '--tls-cert-file and --tls-private-key-file must be given together' \
    "cert without key" "$E" --tls-cert-file="$PKI/server.crt"

refused 1 'cannot read --tls-cert-file ".*/nosuch.crt": No such file' "missing --tls-cert-file" \
    "$E" --tls-cert-file="$PKI/nosuch.crt" --tls-private-key-file="$PKI/server.key"
refused 1 'cannot read --etcd-cafile ".*": not a regular file' "directory as --etcd-cafile" \
    "$E" "${TLS[@]}" --etcd-cafile="$PKI"
refused 1 '--tls-private-key-file ".*/admin.key" does not match --tls-cert-file' \
    "mismatched certificate and key" "$E" --tls-cert-file="$PKI/server.crt" \
    --tls-private-key-file="$PKI/admin.key"
echo "not a certificate" >"$KGATE_TEST_TMP/garbage.pem"
refused 1 'cannot load --tls-cert-file ".*/garbage.pem": ' "garbage --tls-cert-file" "$E" \
    --tls-cert-file="$KGATE_TEST_TMP/garbage.pem" --tls-private-key-file="$PKI/server.key"
refused 1 'no usable CA certificate in --client-ca-file ".*/garbage.pem"' \
    "garbage --client-ca-file" "$E" "${TLS[@]}" --client-ca-file="$KGATE_TEST_TMP/garbage.pem"
refused 1 'cannot create --cert-dir "/proc/kgate": ' "unwritable --cert-dir" "$E" \
    --cert-dir=/proc/kgate

# The shared etcd's client port is taken by etcd itself.
port=${KGATE_TEST_ETCD##*:}
timeout 30 "$KGATE" "$E" "${TLS[@]}" --bind-address=127.0.0.1 --secure-port="$port" \
    >/dev/null 2>"$ERR"
RC=$?
check "port in use: exit 1 (got $RC)" test "$RC" = 1
check "port in use: says so" grep -q "^kgate: cannot listen on 127.0.0.1:$port: Address already in use" "$ERR"
check "port in use: no sanitizer report" no_sanitizer_report "$ERR"

nobody=http://127.0.0.1:$(free_port)
refused 1 "cannot reach etcd at $nobody: " "unreachable etcd" --etcd-servers="$nobody" \
    "${TLS[@]}"

timeout 30 "$KGATE" --help >"$KGATE_TEST_TMP/help" 2>"$ERR"
RC=$?
check "--help exits 0 (got $RC)" test "$RC" = 0
check "--help lists the flags" grep -q -- '--etcd-servers string' "$KGATE_TEST_TMP/help"
check "no core file left behind" test -z "$(find . "$KGATE_TEST_TMP" -maxdepth 1 -name 'core*')"
tap_end
