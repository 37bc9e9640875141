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
