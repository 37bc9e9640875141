#!/usr/bin/env bash
# build/cel-eval: one JSON request per line in, one JSON reply per line out. Each pair below
# is a request and the exact reply expected; all requests go through one process, so a
# malformed line must not stop the ones after it.
set -uo pipefail
tool=${KGATE_BUILD:-build/san}/cel-eval
if [[ ! -x $tool ]]; then
    echo "1..0 # SKIP $tool not built"
    exit 0
fi

pairs=(
'{"expr": "1+1"}'
'{"value": {"int64Value": "2"}}'
'{"expr": "18446744073709551615u"}'
'{"value": {"uint64Value": "18446744073709551615"}}'
'{"expr": "1.5"}'
'{"value": {"doubleValue": 1.5}}'
'{"expr": "0.0/0.0"}'
'{"value": {"doubleValue": "NaN"}}'
'{"expr": "-1.0/0.0"}'
'{"value": {"doubleValue": "-Infinity"}}'
'{"expr": "1.0/0.0"}'
'{"value": {"doubleValue": "Infinity"}}'
'{"expr": "\"h\\u00e9\" + \"!\""}'
'{"value": {"stringValue": "hé!"}}'
'{"expr": "b\"\\xff\\x00a\""}'
'{"value": {"bytesValue": "/wBh"}}'
'{"expr": "true"}'
'{"value": {"boolValue": true}}'
'{"expr": "null"}'
'{"value": {"nullValue": null}}'
'{"expr": "[1, [\"a\"], []]"}'
'{"value": {"listValue": {"values": [{"int64Value": "1"}, {"listValue": {"values": [{"stringValue": "a"}]}}, {"listValue": {"values": []}}]}}}'
'{"expr": "{\"k\": 1u, 2: false}"}'
'{"value": {"mapValue": {"entries": [{"key": {"stringValue": "k"}, "value": {"uint64Value": "1"}}, {"key": {"int64Value": "2"}, "value": {"boolValue": false}}]}}}'
'{"expr": "type(1)"}'
'{"value": {"typeValue": "int"}}'
'{"expr": "timestamp(\"2009-02-13T23:31:30Z\")"}'
'{"value": {"objectValue": {"@type": "type.googleapis.com/google.protobuf.Timestamp", "value": "2009-02-13T23:31:30Z"}}}'
'{"expr": "duration(\"1.5s\")"}'
'{"value": {"objectValue": {"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1.5s"}}}'
'{"expr": "x + y", "bindings": {"x": {"int64Value": "40"}, "y": {"int64Value": 2}}}'
'{"value": {"int64Value": "42"}}'
'{"expr": "x", "bindings": {"x": {"uint64Value": "7"}}}'
'{"value": {"uint64Value": "7"}}'
'{"expr": "[x, y, z]", "bindings": {"x": {"doubleValue": "NaN"}, "y": {"doubleValue": -2.5}, "z": {"doubleValue": "Infinity"}}}'
'{"value": {"listValue": {"values": [{"doubleValue": "NaN"}, {"doubleValue": -2.5}, {"doubleValue": "Infinity"}]}}}'
'{"expr": "x.size()", "bindings": {"x": {"bytesValue": "/wBh"}}}'
'{"value": {"int64Value": "3"}}'
'{"expr": "x[1] + m.k", "bindings": {"x": {"listValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}}, "m": {"mapValue": {"entries": [{"key": {"stringValue": "k"}, "value": {"stringValue": "c"}}]}}}}'
'{"value": {"stringValue": "bc"}}'
'{"expr": "t + d", "bindings": {"t": {"objectValue": {"@type": "type.googleapis.com/google.protobuf.Timestamp", "value": "2009-02-13T23:31:30Z"}}, "d": {"objectValue": {"@type": "type.googleapis.com/google.protobuf.Duration", "value": "30s"}}}}'
'{"value": {"objectValue": {"@type": "type.googleapis.com/google.protobuf.Timestamp", "value": "2009-02-13T23:32:00Z"}}}'
'{"expr": "t == int && !b && n == null", "bindings": {"t": {"typeValue": "int"}, "b": {"boolValue": false}, "n": {"nullValue": null}}}'
'{"value": {"boolValue": true}}'
'{"expr": "x", "container": "a.b", "bindings": {"a.x": {"stringValue": "from a"}, "x": {"stringValue": "root"}}}'
'{"value": {"stringValue": "from a"}}'
'{"expr": "[1].all(x, x > 0)", "disable_macros": true}'
'{"error": "ERROR: <input>:1:4: undeclared reference to '"'"'all'"'"'\n | [1].all(x, x > 0)\n | ...^"}'
'{"expr": "[1].all(x, x > 0)", "disable_macros": false}'
'{"value": {"boolValue": true}}'
'this is not json'
'{"error": "malformed request: '"'"'['"'"' or '"'"'{'"'"' expected near '"'"'this'"'"'"}'
'{"exp": "1"}'
'{"error": "malformed request: expr must be a string"}'
'{"expr": "1", "bindings": []}'
'{"error": "malformed request: bindings must be an object"}'
'{"expr": "x", "bindings": {"x": {"int64Value": "nope"}}}'
'{"error": "malformed binding: x"}'
'{"expr": "1", "container": "a..b"}'
'{"error": "malformed request: invalid container"}'
'{"expr": "1 +"}'
'{"error": "ERROR: <input>:1:4: Syntax error: unexpected end of input\n | 1 +\n | ...^"}'
'{"expr": "1 / 0"}'
'{"error": "division by zero"}'
'{"expr": "{\"a\": 1}.b"}'
'{"error": "no such key: b"}'
'{"expr": "optional.of(1)"}'
'{"error": "a value of type optional_type has no cel.expr.Value form"}'
'{"expr": "y"}'
'{"error": "undeclared reference to '"'"'y'"'"'"}'
# Declarations: the expression is type checked first; type errors fail it with positions.
'{"expr": "x + 1", "declarations": {"x": "int"}, "bindings": {"x": {"int64Value": "41"}}}'
'{"value": {"int64Value": "42"}}'
'{"expr": "x + '"'"'a'"'"'", "declarations": {"x": "int"}}'
'{"error": "ERROR: <input>:1:3: found no matching overload for '"'"'_+_'"'"' applied to '"'"'(int, string)'"'"'\n | x + '"'"'a'"'"'\n | ..^"}'
'{"expr": "x.size() > 0 &&\n  y", "declarations": {"x": "list(string)", "y": "int"}}'
'{"error": "ERROR: <input>:2:3: expected type '"'"'bool'"'"' but found '"'"'int'"'"'\n |   y\n | ..^"}'
'{"expr": "z", "declarations": {"x": "int"}}'
'{"error": "ERROR: <input>:1:1: undeclared reference to '"'"'z'"'"' (in container '"'"''"'"')\n | z\n | ^"}'
'{"expr": "duration('"'"'1d'"'"')", "declarations": {}}'
'{"error": "ERROR: <input>:1:10: invalid duration argument\n | duration('"'"'1d'"'"')\n | .........^"}'
'{"expr": "'"'"'abc'"'"'.matches('"'"'x++'"'"')", "declarations": {}}'
'{"error": "ERROR: <input>:1:15: invalid matches argument\n | '"'"'abc'"'"'.matches('"'"'x++'"'"')\n | ..............^"}'
# check: only type checked, with the static cost estimate, or every issue.
'{"expr": "x.size() > 2", "declarations": {"x": "list(string)"}, "check": true}'
'{"type": "bool", "cost": {"min": "3", "max": "3"}}'
'{"expr": "m.filter(k, m[k] > 1)", "declarations": {"m": "map(string, int)"}, "check": true}'
'{"type": "list(string)", "cost": {"min": "12", "max": "18446744073709551615"}}'
'{"expr": "a + 1 == b.c", "declarations": {"a": "string", "b": "int"}, "check": true}'
'{"error": "ERROR: <input>:1:3: found no matching overload for '"'"'_+_'"'"' applied to '"'"'(string, int)'"'"'\n | a + 1 == b.c\n | ..^\nERROR: <input>:1:11: type '"'"'int'"'"' does not support field selection\n | a + 1 == b.c\n | ..........^"}'
'{"expr": "[1, 2].map(x, x * 2)", "check": true}'
'{"type": "list(int)", "cost": {"min": "49", "max": "49"}}'
'{"expr": "q.isLessThan(quantity('"'"'1Gi'"'"')) ? t + duration('"'"'1h'"'"') : t", "declarations": {"q": "kubernetes.Quantity", "t": "google.protobuf.Timestamp"}, "check": true}'
'{"type": "timestamp", "cost": {"min": "4", "max": "6"}}'
'{"expr": "1 +", "check": true}'
'{"error": "ERROR: <input>:1:4: Syntax error: unexpected end of input\n | 1 +\n | ...^"}'
# track_cost and cost_limit: what an evaluation charged, and where it is stopped.
'{"expr": "[1, 2, 3].map(x, x * 2)", "track_cost": true}'
'{"value": {"listValue": {"values": [{"int64Value": "2"}, {"int64Value": "4"}, {"int64Value": "6"}]}}, "cost": "43"}'
'{"expr": "[1, 2, 3].map(x, x * 2)", "track_cost": true, "optimize": false}'
'{"value": {"listValue": {"values": [{"int64Value": "2"}, {"int64Value": "4"}, {"int64Value": "6"}]}}, "cost": "63"}'
'{"expr": "1 / 0", "track_cost": true}'
'{"error": "division by zero", "cost": "1"}'
'{"expr": "[1, 2, 3].map(x, x * 2)", "cost_limit": 10}'
'{"error": "operation cancelled: actual cost limit exceeded"}'
'{"expr": "[1, 2, 3].map(x, x * 2)", "cost_limit": 10, "track_cost": true}'
'{"error": "operation cancelled: actual cost limit exceeded", "cost": "11"}'
'{"expr": "[1, 2, 3].map(x, x * 2)", "cost_limit": 43, "track_cost": true}'
'{"value": {"listValue": {"values": [{"int64Value": "2"}, {"int64Value": "4"}, {"int64Value": "6"}]}}, "cost": "43"}'
'{"expr": "[1, 2, 3].map(x, x * 2)", "cost_limit": "18446744073709551615", "track_cost": true}'
'{"value": {"listValue": {"values": [{"int64Value": "2"}, {"int64Value": "4"}, {"int64Value": "6"}]}}, "cost": "43"}'
'{"expr": "false && [1, 2, 3].map(x, x * 2).size() > 0", "cost_limit": 1, "track_cost": true}'
'{"value": {"boolValue": false}, "cost": "0"}'
'{"expr": "cel.bind(a, 1 / 0, true)", "track_cost": true}'
'{"value": {"boolValue": true}, "cost": "0"}'
# Malformed declarations and options get an error reply; the requests after them run.
'{"expr": "1", "declarations": []}'
'{"error": "malformed request: declarations must be an object"}'
'{"expr": "1", "declarations": {"x": "list("}}'
'{"error": "malformed declaration: x"}'
'{"expr": "1", "declarations": {"x": 5}}'
'{"error": "malformed declaration: x"}'
'{"expr": "1", "check": "yes"}'
'{"error": "malformed request: check must be a boolean"}'
'{"expr": "1", "track_cost": 1}'
'{"error": "malformed request: track_cost must be a boolean"}'
'{"expr": "1", "optimize": null}'
'{"error": "malformed request: optimize must be a boolean"}'
'{"expr": "1", "disable_macros": "no"}'
'{"error": "malformed request: disable_macros must be a boolean"}'
'{"expr": "1", "cost_limit": 0}'
'{"error": "malformed request: cost_limit must be a positive integer"}'
'{"expr": "1", "cost_limit": -5}'
'{"error": "malformed request: cost_limit must be a positive integer"}'
'{"expr": "1", "cost_limit": "ten"}'
'{"error": "malformed request: cost_limit must be a positive integer"}'
'{"expr": "1", "cost_limit": 1.5}'
'{"error": "malformed request: cost_limit must be a positive integer"}'
'{"expr": "2 * 21"}'
'{"value": {"int64Value": "42"}}'
)

n=$((${#pairs[@]} / 2))
echo "1..$((n + 1))"
requests=$(for ((i = 0; i < ${#pairs[@]}; i += 2)); do printf '%s\n' "${pairs[i]}"; done)
mapfile -t replies < <(printf '%s\n' "$requests" | "$tool")
for ((i = 0; i < n; i++)); do
    want=${pairs[2 * i + 1]}
    got=${replies[i]-}
    if [[ $got == "$want" ]]; then
        echo "ok $((i + 1)) - ${pairs[2 * i]}"
    else
        echo "not ok $((i + 1)) - ${pairs[2 * i]}"
        echo "#   got:  $got"
        echo "#   want: $want"
    fi
done
if [[ ${#replies[@]} -eq $n ]]; then
    echo "ok $((n + 1)) - one reply per request"
else
    echo "not ok $((n + 1)) - one reply per request (got ${#replies[@]}, want $n)"
fi
