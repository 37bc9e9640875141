#!/usr/bin/env bash
# scripts/check-layers.py on small trees made here: two folders (low, high) and tests/, the
# verdicts it prints and its exit codes. Needs python3 only (no etcd, no kgate build).
set -uo pipefail
script=$(cd "$(dirname "$0")/../.." && pwd)/scripts/check-layers.py
tmp=$(mktemp -d /tmp/check_layers.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
# check DESC CMD...: one TAP line, "ok" when CMD succeeds; on failure the last output is shown.
check() {
    local desc=$1
    shift
    n=$((n + 1))
    if "$@"; then
        echo "ok $n - $desc"
    else
        echo "not ok $n - $desc"
        failed=$((failed + 1))
        sed 's/^/# /' "$tmp/out"
    fi
}

# run ARGS...: run the script on $tmp/tree with $tmp/layers.json; output in $tmp/out, exit
# status in $rc.
run() {
    python3 "$script" --root "$tmp/tree" --data "$tmp/layers.json" "$@" >"$tmp/out" 2>&1
    rc=$?
}
has() { grep -qxF -- "$1" "$tmp/out"; }
lacks() { ! grep -qF -- "$1" "$tmp/out"; }
rc_is() { [[ $rc -eq $1 ]]; }

# put FILE LINE...: write a file of the tree.
put() {
    local f=$tmp/tree/$1
    shift
    mkdir -p "$(dirname "$f")"
    printf '%s\n' "$@" >"$f"
}

# data EDGES: layers.json with folders low, high and tests (which may include anything);
# EDGES is the JSON of high's and low's may_include objects, e.g. '{"low": "why"}' '{}'.
data() {
    cat >"$tmp/layers.json" <<EOF
{"about": "test data",
 "folders": {
   "low": {"about": "the bottom", "may_include": $2},
   "high": {"about": "above low", "may_include": $1},
   "tests": {"about": "tests", "any": "tests include what they test"}}}
EOF
}

# A clean tree: high includes low (also a header generated from low's .proto), tests include
# both and a .c file by its path.
put low/low.h '#pragma once' '#include <stdio.h>'
put low/low.c '#include "low.h"'
put low/msg.proto 'syntax = "proto3";'
put high/high.h '#pragma once' '#include "low.h"'
put high/high.c '#include "high.h"' '#include "msg.pb-c.h"' '  #  include "low.h"'
put tests/test_high.c '#include "high.h"' '#include "../low/low.c"'
data '{"low": "high is built on low"}' '{}'
run
check "a tree that follows the data passes" rc_is 0
check "summary counts folders, edges and includes" \
    has "3 folders, 1 edges (0 debt), 7 includes checked: ok"

# --make: the include path of each folder's objects, as make rules.
run --make
check "--make exits 0" rc_is 0
check "--make: a folder sees its own headers first, then those it may include" \
    has '$(BUILD)/obj/high/%.o: private FOLDER_INCS := -Ihigh -Ilow -I$(GEN)'
check "--make: a folder owning .proto files sees the generated headers" \
    has '$(BUILD)/obj/low/%.o: private FOLDER_INCS := -Ilow -I$(GEN)'
check "--make: generated code compiles as its folder does" \
    has '$(BUILD)/obj/gen/%.o: private FOLDER_INCS := -Ilow -I$(GEN)'
check "--make: a folder that may include anything keeps the whole path" lacks 'obj/tests/'
# top may include high only, but high.h includes low.h: top sees low too, and nothing else.
put top/top.c '#include "high.h"'
put other/other.h '#pragma once'
cat >"$tmp/layers.json" <<EOF
{"folders": {
   "low": {"about": "the bottom"}, "other": {"about": "beside"},
   "high": {"about": "above low", "may_include": {"low": "built on low"}},
   "top": {"about": "above high", "may_include": {"high": "built on high"}},
   "tests": {"about": "tests", "any": "tests include what they test"}}}
EOF
run --make
check "--make: a folder sees what the headers it may include include" \
    has '$(BUILD)/obj/top/%.o: private FOLDER_INCS := -Ihigh -Ilow -I$(GEN)'
check "--make: a folder without edges sees only itself" \
    has '$(BUILD)/obj/other/%.o: private FOLDER_INCS := -Iother'
rm -r "$tmp/tree/top" "$tmp/tree/other"
data '{"low": "high is built on low"}' '{}'

# A forbidden include: low includes high's header.
put low/low_bad.c '#include "low.h"' '#include "high.h"'
run
check "a forbidden include fails" rc_is 1
check "it is reported with file, line, header and folders" \
    has "low/low_bad.c:2: includes high.h from high, which low may not include (add the edge to layers.json with a reason, or move the code)"
check "the summary counts the violation" \
    has "3 folders, 1 edges (0 debt), 9 includes checked: 1 violations"
run --graph
check "--graph exits 0 even with violations" rc_is 0
check "--graph counts an edge's includes" has "high -> low  3"
check "--graph marks an edge the data does not allow" has "low -> high  1  [not allowed]"
check "--graph lists edges from folders that may include anything" has "tests -> low  1"
check "--graph finds the cycle" has "high -> low -> high"
check "--graph counts the cycles" has "# cycles: 1"

# The same edge allowed: the allowed graph now has a cycle.
data '{"low": "high is built on low"}' '{"high": "low calls back up"}'
run
check "a cycle among allowed edges fails" rc_is 1
check "the cycle is reported" \
    has "$tmp/layers.json: cycle among allowed edges: high -> low -> high (remove an edge, or mark it \"debt\": true)"
check "the include itself is allowed now" lacks "low/low_bad.c:2"

# Marked debt: it passes, with warnings.
data '{"low": "high is built on low"}' '{"high": {"debt": true, "reason": "low calls back up"}}'
run
check "a cycle through a debt edge passes" rc_is 0
check "the debt edge is a warning, with its include count and reason" \
    has "warning: debt: low -> high (1 include): low calls back up"
check "the cycle it makes is a warning" has "warning: debt cycle: high -> low -> high"
check "the summary counts debt edges and warnings" \
    has "3 folders, 2 edges (1 debt), 9 includes checked: ok, 2 warnings"

# The debt paid: nothing crosses the edge any more.
rm "$tmp/tree/low/low_bad.c"
run
check "an unused edge still passes" rc_is 0
check "an unused edge is a warning" \
    has "warning: unused: low -> high is allowed but nothing includes across it (delete it from layers.json)"

# Includes of headers that do not exist fail, also in folders that may include anything.
data '{"low": "high is built on low"}' '{}'
put tests/test_gone.c '#include "low.h"' '#include "gone.h"' '#include <gone_too.h>'
run
check "an include of a missing header fails" rc_is 1
check "it is reported, even from tests/" \
    has "tests/test_gone.c:2: includes gone.h, which is no header of the tree (nor one the build generates)"
check "a system include is not ours to check" lacks "gone_too.h"
rm "$tmp/tree/tests/test_gone.c"

# A file in no folder, and one header name in two folders.
put misc/misc.c '#include "low.h"'
put high/low.h '#pragma once'
run
check "a file in no folder fails" rc_is 1
check "it is reported" has "misc/misc.c: in no folder of layers.json (add the folder)"
check "a header name in two folders is reported" \
    has "high/low.h, low/low.h: one header name in several folders (the flat include path needs each name once)"
rm -r "$tmp/tree/misc" "$tmp/tree/high/low.h"
run
check "the tree passes again" rc_is 0

# Bad data.
data '{"low": ""}' '{}'
run
check "an edge without a reason fails" rc_is 1
check "it is reported" has "$tmp/layers.json: high -> low: the edge needs a one-line reason"
data '{"nowhere": "why"}' '{}'
run
check "an edge to an unknown folder fails" rc_is 1
check "it is reported" has "$tmp/layers.json: high may include nowhere, which is no folder"
echo '{"folders": ' >"$tmp/layers.json"
run
check "data that is not JSON fails" rc_is 1

echo "1..$n"
[[ $failed -eq 0 ]]
