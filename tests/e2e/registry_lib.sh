# Helpers for the registry scenarios (tests/e2e/registry_*.t), sourced after kgate.sh and
# api_lib.sh: requests as the admin with a body, and JSON reads of the answer.

CORE=/api/v1/namespaces/default
APPS=/apis/apps/v1/namespaces/default

# req METHOD PATH [BODY [CONTENT-TYPE]]: one request as the admin; sets CODE, OUT (body) and
# HDR (headers).
req() {
    local method=$1 path=$2 body=${3-} type=${4:-application/json}
    OUT=$KGATE_TEST_TMP/body HDR=$KGATE_TEST_TMP/headers
    if [[ -n $body ]]; then
        CODE=$(kcurl "${ADMIN[@]}" -o "$OUT" -D "$HDR" -w '%{http_code}' -X "$method" \
            -H "Content-Type: $type" --data-binary "$body" "$KGATE_URL$path")
    else
        CODE=$(kcurl "${ADMIN[@]}" -o "$OUT" -D "$HDR" -w '%{http_code}' -X "$method" \
            "$KGATE_URL$path")
    fi
}

# jget EXPR: print a Python expression over the answer d (the JSON in $OUT).
jget() {
    python3 - "$1" "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
v = eval(sys.argv[1])
print(v if not isinstance(v, (dict, list)) else json.dumps(v))
PY
}

# code_is WANT: the last request answered WANT (the body is shown when it did not).
code_is() {
    [[ $CODE == "$1" ]] && return 0
    diag "got $CODE: $(head -c 600 "$OUT")"
    return 1
}

# warnings: the Warning header values of the last answer, one per line.
warnings() { grep -i '^Warning:' "$HDR" | sed 's/^[^:]*: *//; s/\r$//'; }

# stored KEY: the value etcd holds for KEY under this kgate's prefix.
stored() {
    ETCDCTL_API=3 etcdctl --endpoints="$KGATE_TEST_ETCD" get "$PREFIX/$1" --print-value-only
}

# cm NAME [EXTRA-JSON-MEMBERS]: a ConfigMap document.
cm() {
    echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$1\"${2:+,$2}},\"data\":{\"k\":\"v\"}}"
}

# deploy NAME [REPLICAS]: a Deployment document.
deploy() {
    echo "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"$1\"},\
\"spec\":{\"replicas\":${2:-1},\"selector\":{\"matchLabels\":{\"app\":\"$1\"}},\"template\":{\
\"metadata\":{\"labels\":{\"app\":\"$1\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\
\"image\":\"nginx\"}]}}}}"
}

# wait_code PATH CODE [SECONDS]: poll GET PATH as the admin until it answers CODE (default up
# to 30 s).
wait_code() {
    local tries=$((${3:-30} * 10))
    for ((i = 0; i < tries; i++)); do
        req GET "$1"
        [[ $CODE == "$2" ]] && return 0
        sleep 0.1
    done
    return 1
}

# clean_exit: stop kgate with SIGTERM and require a clean exit (status 0, no sanitizer report,
# leaks included: LeakSanitizer reports at exit).
clean_exit() {
    kill -TERM "$KGATE_PID" 2>/dev/null
    wait_exit "$KGATE_PID" 30 || return 1
    [[ $EXIT_CODE -eq 0 ]] || { diag "kgate exited with $EXIT_CODE"; return 1; }
    no_sanitizer_report "$KGATE_LOG"
}
