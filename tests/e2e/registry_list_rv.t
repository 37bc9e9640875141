#!/usr/bin/env bash
# The list half of the spec's resourceVersion table (4.5) row by row: resourceVersion unset,
# "0" and N, with resourceVersionMatch unset, Exact and NotOlderThan, without and with limit
# and continue, every combination it calls invalid, and versions etcd has not reached. Then
# paging at one revision while objects are created, changed and deleted between the pages,
# the pages taken alternately from two kgate instances on one etcd; and lists too large to
# hold, streamed (chunked, gzipped when asked), including clients that read slowly or leave.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_list_rv

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
KCURL_AUTH=("${ADMIN[@]}") # anonymous is off under AlwaysAllow
trap stop_all EXIT
PREFIX=/registry-listrv-$$
declare -A PID URL LOG

# start NAME: a kgate on the shared prefix, ready to serve; without kube-root-ca.crt in every
# namespace, so that ConfigMaps can be counted.
start() {
    kgate_start "$1" --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --workers=2 '--controllers=*,-root-ca-cert-publisher'
    PID[$1]=$KGATE_PID URL[$1]=$KGATE_URL LOG[$1]=$KGATE_LOG
    wait_for_code /readyz 200
}

# on NAME: the helpers talk to instance NAME from now on.
on() { KGATE_URL=${URL[$1]} KGATE_PID=${PID[$1]} KGATE_LOG=${LOG[$1]}; }

check "instance a starts" start a
check "instance b starts" start b
on a
W=$CORE/configmaps
INVALID='ListOptions.meta.k8s.io "" is invalid: '

# names_are NAMES RV-TEST [META-TEST]: the last answer lists exactly NAMES (comma-separated),
# its resourceVersion r passes the Python test RV-TEST and its metadata m passes META-TEST.
names_are() {
    jpy "','.join(i['metadata']['name'] for i in d['items']) == '$1' and \
(lambda r: $2)(int(d['metadata']['resourceVersion'])) and (lambda m: ${3:-True})(d['metadata'])"
}
token() { jget "d['metadata']['continue']"; }
rv_of() { jget "d['metadata']['resourceVersion']"; }

for i in 1 2 3 4 5; do req POST $W "$(cm cm$i)"; done
rv5=$(rv_of)
for i in 6 7 8 9; do req POST $W "$(cm cm$i)"; done
rv9=$(rv_of)
ALL=cm1,cm2,cm3,cm4,cm5,cm6,cm7,cm8,cm9

# ---- resourceVersionMatch unset -----------------------------------------------------------------
req GET "$W"
check "no limit, rv unset: the most recent state (the last write is there)" names_are $ALL "r >= $rv9"
req GET "$W?resourceVersion=0"
check "no limit, rv 0: any state (without a cache kgate reads the latest)" names_are $ALL "r >= $rv9"
req GET "$W?resourceVersion=$rv5"
check "no limit, rv N: not older than N" names_are $ALL "r >= $rv9"
req GET "$W?limit=4"
check "limit, rv unset: the most recent state, paged" names_are cm1,cm2,cm3,cm4 "r >= $rv9" \
    "m['remainingItemCount'] == 5"
req GET "$W?limit=4&resourceVersion=0"
check "limit, rv 0: any state, paged" names_are cm1,cm2,cm3,cm4 "r >= $rv9" "len(m['continue']) > 0"
req GET "$W?limit=4&resourceVersion=$rv5"
check "limit, rv N: exactly N (cm6 and later not there yet)" names_are cm1,cm2,cm3,cm4 \
    "r == $rv5" "m['remainingItemCount'] == 1"
tok5=$(token)
req GET "$W?limit=4&continue=$tok5"
check "limit and continue, rv unset: the token's revision" names_are cm5 "r == $rv5" \
    "'continue' not in m"
req GET "$W?limit=4&continue=$tok5&resourceVersion=0"
check "limit and continue, rv 0: taken as the token's revision" names_are cm5 "r == $rv5"
req GET "$W?limit=4&continue=$tok5&resourceVersion=$rv5"
check "limit and continue, rv N: 400" is_status 400 BadRequest \
    'specifying resource version is not allowed when using continue'
req GET "$W?limit=4&continue=bogus*&resourceVersion=$rv5"
check "... a token that cannot be read is the error reported first (kube's store reads it first)" \
    jpy "d['code'] == 400 and d['message'].startswith('invalid continue token: ')"

# ---- Exact --------------------------------------------------------------------------------------
req GET "$W?resourceVersionMatch=Exact"
check "Exact, rv unset: 422" is_status 422 Invalid \
    "${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
req GET "$W?resourceVersionMatch=Exact&limit=4"
check "... with a limit too" code_is 422
req GET "$W?resourceVersionMatch=Exact&resourceVersion=0"
check "Exact, rv 0: 422" is_status 422 Invalid \
    "${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""
req GET "$W?resourceVersionMatch=Exact&resourceVersion=0&limit=4"
check "... with a limit too" code_is 422
req GET "$W?resourceVersionMatch=Exact&resourceVersion=$rv5"
check "Exact, rv N: the collection at N" names_are cm1,cm2,cm3,cm4,cm5 "r == $rv5"
req GET "$W?resourceVersionMatch=Exact&resourceVersion=$rv5&limit=3"
check "Exact, rv N with a limit: paged at N" names_are cm1,cm2,cm3 "r == $rv5" \
    "m['remainingItemCount'] == 2"
req GET "$W?limit=3&continue=$(token)"
check "... and continued at N" names_are cm4,cm5 "r == $rv5" "'continue' not in m"

# ---- NotOlderThan -------------------------------------------------------------------------------
req GET "$W?resourceVersionMatch=NotOlderThan"
check "NotOlderThan, rv unset: 422" is_status 422 Invalid \
    "${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
req GET "$W?resourceVersionMatch=NotOlderThan&resourceVersion=0"
check "NotOlderThan, rv 0: any state" names_are $ALL "r >= $rv9"
req GET "$W?resourceVersionMatch=NotOlderThan&resourceVersion=0&limit=4"
check "... paged" names_are cm1,cm2,cm3,cm4 "r >= $rv9" "len(m['continue']) > 0"
req GET "$W?resourceVersionMatch=NotOlderThan&resourceVersion=$rv5"
check "NotOlderThan, rv N: not older than N" names_are $ALL "r >= $rv9"
req GET "$W?resourceVersionMatch=NotOlderThan&resourceVersion=$rv5&limit=4"
check "... with a limit: the latest state, not N (unlike a bare rv N)" names_are cm1,cm2,cm3,cm4 \
    "r >= $rv9" "m['remainingItemCount'] == 5"

# ---- the other invalid combinations -------------------------------------------------------------
req GET "$W?resourceVersionMatch=NotOlderThan&resourceVersion=$rv5&continue=$tok5"
check "resourceVersionMatch with continue: 422" is_status 422 Invalid \
    "${INVALID}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"
req GET "$W?resourceVersionMatch=Exact&continue=$tok5"
check "... with no resourceVersion either: both findings" is_status 422 Invalid \
    "${INVALID}[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]"
req GET "$W?resourceVersionMatch=Newest&resourceVersion=$rv5"
check "an unknown resourceVersionMatch: 422" is_status 422 Invalid \
    "${INVALID}resourceVersionMatch: Unsupported value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\""
req GET "$W?sendInitialEvents=false"
check "sendInitialEvents on a list (any value): 422" is_status 422 Invalid \
    "${INVALID}sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"

# ---- versions etcd has not reached --------------------------------------------------------------
future=$((rv9 + 100000))
too_large() {
    jpy "d['code'] == 504 and d['reason'] == 'Timeout' and 'Too large resource version' in \
d['message']" && [[ $(header Retry-After) == 1 ]]
}
req GET "$W?resourceVersionMatch=NotOlderThan&resourceVersion=$future"
check "NotOlderThan, rv in the future: 504 Too large resource version, Retry-After: 1" too_large
req GET "$W?resourceVersionMatch=Exact&resourceVersion=$future"
check "Exact, rv in the future: the same" too_large
req GET "$W?limit=2&resourceVersion=$future"
check "limit, rv in the future: the same" too_large

# ---- paging while the collection changes, across instances -----------------------------------
# Twelve objects listed three at a time, pages taken from a and b in turn; between pages,
# through the other instance, an object past the page is deleted, one is created where the
# next page will read, and the last one is changed. The pages must give exactly the twelve as
# they were at the first page's revision: nothing missed, repeated or added.
req POST /api/v1/namespaces '{"metadata":{"name":"paging"}}'
P=/api/v1/namespaces/paging/configmaps
for i in $(seq -w 1 12); do req POST $P "$(cm p$i)"; done
before=$KGATE_TEST_TMP/paging-before.json
req GET $P
cp "$OUT" "$before"
pages=()
tok=
for n in 1 2 3 4; do
    [[ $((n % 2)) -eq 1 ]] && on a || on b
    req GET "$P?limit=3${tok:+&continue=$tok}"
    cp "$OUT" "$KGATE_TEST_TMP/page-$n.json"
    pages+=("$KGATE_TEST_TMP/page-$n.json")
    tok=$(jget "d['metadata'].get('continue', '')")
    [[ $((n % 2)) -eq 1 ]] && on b || on a
    last=$((n * 3))
    req DELETE "$P/p$(printf %02d $((last + 2)))"
    req POST $P "$(cm "p$(printf %02d $last)x")"
    req PATCH "$P/p12" "{\"data\":{\"k\":\"v$n\"}}" application/merge-patch+json
done
on a
check "four pages, the last without a continue token" test -z "$tok"
check "the pages hold the collection as it was at the first page, once each" python3 -c "
import json, sys
before = json.load(open(sys.argv[1]))
pages = [json.load(open(p)) for p in sys.argv[2:]]
rv = pages[0]['metadata']['resourceVersion']
got = [(i['metadata']['name'], i['metadata']['resourceVersion']) for p in pages for i in p['items']]
want = [(i['metadata']['name'], i['metadata']['resourceVersion']) for i in before['items']]
ok = got == want and all(p['metadata']['resourceVersion'] == rv for p in pages)
if not ok:
    print('# got  %s\n# want %s' % (got, want))
sys.exit(not ok)
" "$before" "${pages[@]}"
req GET $P
check "... while the collection did change meanwhile" jpy "len(d['items']) == 12 - 3 + 4 and \
'p03x' in [i['metadata']['name'] for i in d['items']]"

# ---- lists too large to hold: streamed -----------------------------------------------------------
# 600 ConfigMaps of 16 KiB: about 10 MB of JSON, more than one etcd chunk of 500 items.
req POST /api/v1/namespaces '{"metadata":{"name":"big"}}'
B=/api/v1/namespaces/big/configmaps
pad=$(head -c 16384 /dev/zero | tr '\0' x)
for i in $(seq 0 599); do
    printf '{"metadata":{"name":"big%03d","labels":{"even":"%d"}},"data":{"pad":"%s"}}' \
        "$i" $((i % 2 == 0)) "$pad" >"$KGATE_TEST_TMP/big-$i.json"
done
created=$(seq 0 599 | xargs -P 8 -I{} curl -s --max-time 30 --cacert "$PKI/ca.crt" "${ADMIN[@]}" \
    -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
    --data-binary "@$KGATE_TEST_TMP/big-{}.json" "$KGATE_URL$B" | grep -c '^201$')
check "600 large objects created" test "$created" -eq 600

# big_ok FILE: FILE is the whole list of the 600, in order, with their data.
big_ok() {
    python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
names = [i['metadata']['name'] for i in d['items']]
ok = (d['kind'] == 'ConfigMapList' and names == ['big%03d' % n for n in range(600)]
      and set(d['metadata']) == {'resourceVersion'}
      and all(len(i['data']['pad']) == 16384 and i['metadata']['resourceVersion'].isdigit()
              for i in d['items']))
if not ok:
    print('# %d items, metadata %s' % (len(names), d['metadata']))
sys.exit(not ok)
EOF
}
# get_big NAME [CURL ARGS...]: GET the large list into $KGATE_TEST_TMP/NAME(.hdr).
get_big() {
    local name=$1; shift
    OUT=$KGATE_TEST_TMP/$name HDR=$KGATE_TEST_TMP/$name.hdr
    CODE=$(kcurl "${ADMIN[@]}" -o "$OUT" -D "$HDR" -w '%{http_code}' "$@" "$KGATE_URL$B")
}
# Streamed: no length; on HTTP/1.1 chunked (HTTP/2 frames every answer).
streamed() {
    ! grep -qi '^Content-Length' "$HDR" &&
        { grep -q '^HTTP/2' "$HDR" || grep -qi '^Transfer-Encoding: chunked' "$HDR"; }
}
gzipped() { streamed && [[ $(header Content-Encoding) == gzip ]]; }
# The same bytes but for the list's resourceVersion (its first), which other writes move: the
# instance's leases are renewed every 10 s.
same_but_rv() {
    python3 -c "
import re, sys
a, b = (open(f).read() for f in sys.argv[1:3])
rv = re.compile(r'\"resourceVersion\": ?\"[0-9]+\"')
sys.exit(not rv.sub('RV', a, 1) == rv.sub('RV', b, 1))" "$1" "$2"
}
get_big compact -A kubectl/v1.32.0
check "a list past one etcd chunk and 128 KiB: 200" code_is 200
check "... streamed: no Content-Length" streamed
check "... application/json" test "$(header Content-Type)" == application/json
check "... the whole collection, in order, with the list's resourceVersion" big_ok "$OUT"
compact() { head -c 120 "$OUT" | grep -q '^{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"[0-9]*"},"items":\[{"apiVersion"'; }
check "... compact, the items as stored" compact
get_big compact-gz -A kubectl/v1.32.0 --compressed
check "with Accept-Encoding: gzip, streamed gzipped" gzipped
check "... the same document once inflated" same_but_rv "$KGATE_TEST_TMP/compact" "$OUT"
get_big pretty
check "curl's answer (pretty) streams too" streamed
check "... laid out as one pretty document (two spaces a level, no final newline)" python3 -c "
import json, sys
text = open(sys.argv[1]).read()
sys.exit(not text == json.dumps(json.loads(text), indent=2))" "$OUT"
check "... the same document" big_ok "$OUT"
get_big pretty-gz --compressed
check "... gzipped too" gzipped
check "... the same document once inflated" same_but_rv "$KGATE_TEST_TMP/pretty" "$OUT"
req GET "$B?labelSelector=even%3D1"
check "a selector over the large collection" jpy "[i['metadata']['name'] for i in d['items']] == \
['big%03d' % n for n in range(0, 600, 2)]"
req GET "$B?limit=550"
check "a limit answers a whole document with a length (its continue token comes last)" \
    jpy "len(d['items']) == 550 and d['metadata']['remainingItemCount'] == 50"
check "... not chunked" bash -c "grep -qi '^Content-Length' '$HDR'"
req GET $W
check "a small list keeps its Content-Length" bash -c "grep -qi '^Content-Length' '$HDR'"
fetch "$B?includeObject=None" "${ADMIN[@]}" -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io'
check "the large collection as a Table" jpy "d['kind'] == 'Table' and len(d['rows']) == 600"

kcurl "${ADMIN[@]}" --limit-rate 100k --max-time 2 -o /dev/null "$KGATE_URL$B"
check "a client that reads slowly and leaves mid-list (curl times out)" test $? -eq 28
req GET $B
check "... kgate goes on serving the list" big_ok "$OUT"
on b
check "b exits cleanly, no sanitizer report (leaks included)" clean_exit
on a
curl -s --cacert "$PKI/ca.crt" "${ADMIN[@]}" --limit-rate 100k --max-time 60 -o /dev/null \
    "$KGATE_URL$B" &
slow=$!
sleep 1
check "a exits cleanly with a large list still being read" clean_exit
kill $slow 2>/dev/null
wait $slow 2>/dev/null
tap_end
