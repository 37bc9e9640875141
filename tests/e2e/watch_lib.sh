# Helpers for the watch scenarios (tests/e2e/watch_*.t), sourced after kgate.sh, api_lib.sh and
# registry_lib.sh: watches read with curl -N in the background, their events summarised one per
# line, and kgate's watch gauges from /metrics.

# watch_start NAME PATH [CURL ARGS...]: watch PATH as the admin in the background (for at most
# $WATCH_MAX_TIME s, default 600: a loaded machine stretches a scenario over minutes, and kgate's
# end at the script's exit ends the watch anyway); the body goes to $KGATE_TEST_TMP/watch-NAME, the headers to ...-NAME.hdr. Sets
# WATCH_PID (also kept in $KGATE_TEST_TMP/watch-NAME.pid).
watch_start() {
    local name=$1 path=$2; shift 2
    local out=$KGATE_TEST_TMP/watch-$name
    : >"$out"
    curl -sN --max-time "${WATCH_MAX_TIME:-600}" --cacert "$PKI/ca.crt" "${ADMIN[@]}" "$@" \
        -D "$out.hdr" -o "$out" "$KGATE_URL$path" &
    WATCH_PID=$!
    echo "$WATCH_PID" >"$out.pid"
}

# watch_stop NAME: end the client of watch NAME (as a client that goes away).
watch_stop() {
    local pid
    pid=$(cat "$KGATE_TEST_TMP/watch-$1.pid")
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

# watch_wait_end NAME [SECONDS]: wait for watch NAME's curl to end by itself; sets WATCH_RC.
watch_wait_end() {
    local pid tries=$((${2:-20} * 10))
    pid=$(cat "$KGATE_TEST_TMP/watch-$1.pid")
    for ((i = 0; i < tries; i++)); do
        alive "$pid" || break
        sleep 0.1
    done
    WATCH_RC=124
    alive "$pid" && { diag "watch $1 still open"; return 1; }
    wait "$pid"
    WATCH_RC=$?
    return 0
}

# events NAME: watch NAME's events so far, one per line: "TYPE name resourceVersion", with
# "TYPE - rv [initial-events-end]" for bookmarks and "ERROR code reason message" for errors.
events() {
    python3 - "$KGATE_TEST_TMP/watch-$1" <<'EOF'
import json, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    e = json.loads(line)
    o = e['object']
    if e['type'] == 'ERROR':
        print('ERROR', o.get('code'), o.get('reason'), o.get('message'))
        continue
    m = o.get('metadata', {})
    if e['type'] == 'BOOKMARK':
        end = m.get('annotations', {}).get('k8s.io/initial-events-end')
        print('BOOKMARK', '-', m.get('resourceVersion'), 'initial-events-end' if end == 'true' else '')
        continue
    if o.get('kind') == 'Table':
        row = o['rows'][0]
        print(e['type'], row['cells'][0], row['object']['metadata'].get('resourceVersion'))
        continue
    print(e['type'], m.get('name'), m.get('resourceVersion'))
EOF
}

# n_lines NAME: how many events watch NAME has received.
n_lines() { grep -c . "$KGATE_TEST_TMP/watch-$1" 2>/dev/null || true; }

# wait_events NAME COUNT [SECONDS]: wait until watch NAME has at least COUNT events.
wait_events() {
    local tries=$((${3:-15} * 10))
    for ((i = 0; i < tries; i++)); do
        [[ $(n_lines "$1") -ge $2 ]] && return 0
        sleep 0.1
    done
    diag "watch $1 has $(n_lines "$1") events, want $2: $(events "$1")"
    return 1
}

# events_are NAME EXPECTED: watch NAME's summarised events equal EXPECTED (lines), waiting up to
# 15 s for enough of them.
events_are() {
    local want=$2 got
    wait_events "$1" "$(grep -c . <<<"$want")" || true
    got=$(events "$1")
    [[ $got == "$want" ]] && return 0
    diag "got:"$'\n'"$got"$'\n'"want:"$'\n'"$want"
    return 1
}

# metric NAME: the value of an unlabelled metric on the kgate at $KGATE_URL.
metric() {
    kcurl "${ADMIN[@]}" "$KGATE_URL/metrics" | awk -v n="$1" '$1 == n {print $2}'
}

# metric_is NAME VALUE [SECONDS]: wait until metric NAME is VALUE (default up to 15 s).
metric_is() {
    local tries=$((${3:-15} * 10)) v
    for ((i = 0; i < tries; i++)); do
        v=$(metric "$1")
        [[ $v == "$2" ]] && return 0
        sleep 0.1
    done
    diag "$1 is $v, want $2"
    return 1
}

# rv_of: the resourceVersion of the object in the last answer ($OUT).
rv_of() { jget "d['metadata']['resourceVersion']"; }
