# Helpers for the end-to-end scripts (tests/e2e/*.t): TAP output, a test PKI, starting and
# stopping kgate processes, curl against them. Sourced after tests/lib/etcd.sh; everything
# lives under $KGATE_TEST_TMP and every process started is recorded for stop_all.

source scripts/pki.sh

TAP_N=0
TAP_FAILED=0

# check DESC CMD...: one TAP line, "ok" when CMD succeeds.
check() {
    local desc=$1; shift
    TAP_N=$((TAP_N + 1))
    if "$@"; then
        echo "ok $TAP_N - $desc"
    else
        echo "not ok $TAP_N - $desc"
        TAP_FAILED=$((TAP_FAILED + 1))
        return 1
    fi
}

# diag MSG: a TAP comment.
diag() { sed 's/^/# /' <<<"$*"; }

# tap_end: print the plan and exit non-zero if anything failed.
tap_end() {
    echo "1..$TAP_N"
    [[ $TAP_FAILED -eq 0 ]]
}

# e2e_require NAME: skip the script unless tests/run.sh (or the caller) set the environment
# up; then give the script a directory of its own, so that its stop_all stops only what it
# started (never the shared etcd).
e2e_require() {
    if [[ -z ${KGATE_BUILD:-} || -z ${KGATE_TEST_TMP:-} || -z ${KGATE_TEST_ETCD:-} ]]; then
        echo "1..0 # SKIP needs KGATE_BUILD, KGATE_TEST_TMP and KGATE_TEST_ETCD (tests/run.sh)"
        exit 0
    fi
    KGATE=$KGATE_BUILD/kgate
    KGATE_TEST_TMP=$(mktemp -d "$KGATE_TEST_TMP/$1.XXXXXX")
}

# e2e_pki DIR: CA "ca", serving cert "server" for localhost/127.0.0.1, admin client cert.
e2e_pki() {
    local dir=$1
    pki_ca "$dir" ca
    pki_cert "$dir" ca server server "/CN=kgate" "DNS:localhost,IP:127.0.0.1"
    pki_cert "$dir" ca admin client "/O=system:masters/CN=kubernetes-admin"
}

# kgate_start NAME ARGS...: start kgate on a free loopback port with ARGS (and the flags in
# $KGATE_FLAGS, which runs a scenario under another configuration). Sets KGATE_PID,
# KGATE_PORT, KGATE_URL, KGATE_LOG (its stderr).
kgate_start() {
    local name=$1; shift
    KGATE_PORT=$(free_port)
    KGATE_URL=https://127.0.0.1:$KGATE_PORT
    KGATE_LOG=$KGATE_TEST_TMP/kgate-$name.log
    # shellcheck disable=SC2086 # KGATE_FLAGS is a list of flags
    "$KGATE" --bind-address=127.0.0.1 --secure-port="$KGATE_PORT" "$@" ${KGATE_FLAGS:-} \
        >"$KGATE_LOG" 2>&1 &
    KGATE_PID=$!
    echo "$KGATE_PID" >>"$KGATE_TEST_TMP/pids"
}

# Credentials every kcurl presents before its own (empty: none). kube-apiserver turns anonymous
# authentication off under AlwaysAllow (the default mode), so scenarios on that mode that are
# not about authentication present a user's.
KCURL_AUTH=()

# kcurl ARGS...: curl trusting the test CA ($PKI/ca.crt), bounded in time, with $KCURL_AUTH.
kcurl() {
    curl -s --max-time 10 --cacert "$PKI/ca.crt" ${KCURL_AUTH[@]+"${KCURL_AUTH[@]}"} "$@"
}

# http_code PATH [CURL ARGS...]: the status code kgate answers for PATH.
http_code() {
    local path=$1; shift
    kcurl -o /dev/null -w '%{http_code}' "$@" "$KGATE_URL$path"
}

# wait_for_code PATH CODE [SECONDS]: poll until PATH answers CODE (default: up to 30 s).
wait_for_code() {
    local path=$1 want=$2 tries=$((${3:-30} * 10))
    for ((i = 0; i < tries; i++)); do
        [[ $(http_code "$path") == "$want" ]] && return 0
        sleep 0.1
    done
    return 1
}

# wait_for_line PATTERN FILE: wait (up to 10 s) until FILE has a line matching PATTERN.
wait_for_line() {
    for _ in $(seq 100); do
        grep -q -- "$1" "$2" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# alive PID: the process still runs.
alive() { kill -0 "$1" 2>/dev/null; }

# wait_exit PID [SECONDS]: wait for PID (a child of this shell) to end, at most SECONDS
# (default 30); sets EXIT_CODE (124 if it had to be killed).
wait_exit() {
    local pid=$1 tries=$((${2:-30} * 10))
    for ((i = 0; i < tries; i++)); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        EXIT_CODE=124
        return 1
    fi
    wait "$pid"
    EXIT_CODE=$?
}

# no_sanitizer_report FILE: no ASan/LSan/UBSan report in FILE.
no_sanitizer_report() {
    if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: ' "$1"; then
        diag "$(head -40 "$1")"
        return 1
    fi
}
