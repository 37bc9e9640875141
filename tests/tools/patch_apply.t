#!/usr/bin/env bash
# build/patch-apply: one JSON request per line in, one JSON reply per line out. Each pair below
# is a request and the exact reply expected; all requests go through one process, so a
# malformed line must not stop the ones after it. Applies pass "now" so entry times are fixed.
set -uo pipefail
tool=${KGATE_BUILD:-build/san}/patch-apply
if [[ ! -x $tool ]]; then
    echo "1..0 # SKIP $tool not built"
    exit 0
fi

pairs=(
# RFC 6902 (JSON Patch): Appendix A's examples, then edge cases
'{"type":"json","doc":{"foo":"bar"},"patch":[{"op":"add","path":"/baz","value":"qux"}]}'
'{"doc":{"foo":"bar","baz":"qux"}}'
'{"type":"json","doc":{"foo":["bar","baz"]},"patch":[{"op":"add","path":"/foo/1","value":"qux"}]}'
'{"doc":{"foo":["bar","qux","baz"]}}'
'{"type":"json","doc":{"baz":"qux","foo":"bar"},"patch":[{"op":"remove","path":"/baz"}]}'
'{"doc":{"foo":"bar"}}'
'{"type":"json","doc":{"foo":["bar","qux","baz"]},"patch":[{"op":"remove","path":"/foo/1"}]}'
'{"doc":{"foo":["bar","baz"]}}'
'{"type":"json","doc":{"baz":"qux","foo":"bar"},"patch":[{"op":"replace","path":"/baz","value":"boo"}]}'
'{"doc":{"baz":"boo","foo":"bar"}}'
'{"type":"json","doc":{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}},"patch":[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]}'
'{"doc":{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}}'
'{"type":"json","doc":{"foo":["all","grass","cows","eat"]},"patch":[{"op":"move","from":"/foo/1","path":"/foo/3"}]}'
'{"doc":{"foo":["all","cows","eat","grass"]}}'
'{"type":"json","doc":{"baz":"qux","foo":["a",2,"c"]},"patch":[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]}'
'{"doc":{"baz":"qux","foo":["a",2,"c"]}}'
'{"type":"json","doc":{"baz":"qux"},"patch":[{"op":"test","path":"/baz","value":"bar"}]}'
'{"error":"testing value /baz failed: test failed"}'
'{"type":"json","doc":{"foo":"bar"},"patch":[{"op":"add","path":"/child","value":{"grandchild":{}}}]}'
'{"doc":{"foo":"bar","child":{"grandchild":{}}}}'
'{"type":"json","doc":{"foo":"bar"},"patch":[{"op":"add","path":"/baz","value":"qux","xyz":123}]}'
'{"doc":{"foo":"bar","baz":"qux"}}'
'{"type":"json","doc":{"foo":"bar"},"patch":[{"op":"add","path":"/baz/bat","value":"qux"}]}'
'{"error":"add operation does not apply: doc is missing path: \"/baz/bat\": missing value"}'
'{"type":"json","doc":{"/":9,"~1":10},"patch":[{"op":"test","path":"/~01","value":10}]}'
'{"doc":{"/":9,"~1":10}}'
'{"type":"json","doc":{"/":9,"~1":10},"patch":[{"op":"test","path":"/~01","value":"10"}]}'
'{"error":"testing value /~01 failed: test failed"}'
'{"type":"json","doc":{"foo":["bar"]},"patch":[{"op":"add","path":"/foo/-","value":["abc","def"]}]}'
'{"doc":{"foo":["bar",["abc","def"]]}}'
'{"type":"json","doc":{"a":{"b":1}},"patch":[{"op":"move","from":"/a","path":"/a/b/c"}]}'
'{"error":"move operation does not apply: cannot move /a into its own child /a/b/c"}'
'{"type":"json","doc":{"a":[1]},"patch":[{"op":"add","path":"/a/5","value":2}]}'
'{"error":"error in add for path: '"'"'/a/5'"'"': Unable to access invalid index: 5: invalid index referenced"}'
'{"type":"json","doc":{"a":1},"patch":[{"op":"copy","from":"/a","path":"/b"}]}'
'{"doc":{"a":1,"b":1}}'
'{"type":"json","doc":{"a":1},"patch":{"op":"add"}}'
'{"error":"json: cannot unmarshal object into Go value of type jsonpatch.Patch"}'
# RFC 7386 (JSON Merge Patch): Appendix A's examples
'{"type":"merge","doc":{"a":"b"},"patch":{"a":"c"}}'
'{"doc":{"a":"c"}}'
'{"type":"merge","doc":{"a":"b"},"patch":{"b":"c"}}'
'{"doc":{"a":"b","b":"c"}}'
'{"type":"merge","doc":{"a":"b"},"patch":{"a":null}}'
'{"doc":{}}'
'{"type":"merge","doc":{"a":"b","b":"c"},"patch":{"a":null}}'
'{"doc":{"b":"c"}}'
'{"type":"merge","doc":{"a":["b"]},"patch":{"a":"c"}}'
'{"doc":{"a":"c"}}'
'{"type":"merge","doc":{"a":"c"},"patch":{"a":["b"]}}'
'{"doc":{"a":["b"]}}'
'{"type":"merge","doc":{"a":{"b":"c"}},"patch":{"a":{"b":"d","c":null}}}'
'{"doc":{"a":{"b":"d"}}}'
'{"type":"merge","doc":{"a":[{"b":"c"}]},"patch":{"a":[1]}}'
'{"doc":{"a":[1]}}'
'{"type":"merge","doc":["a","b"],"patch":["c","d"]}'
'{"doc":["c","d"]}'
'{"type":"merge","doc":{"a":"b"},"patch":["c"]}'
'{"doc":["c"]}'
'{"type":"merge","doc":{"a":"foo"},"patch":null}'
'{"doc":null}'
'{"type":"merge","doc":{"a":"foo"},"patch":"bar"}'
'{"doc":"bar"}'
'{"type":"merge","doc":{"e":null},"patch":{"a":1}}'
'{"doc":{"e":null,"a":1}}'
'{"type":"merge","doc":[1,2],"patch":{"a":"b","c":null}}'
'{"doc":{"a":"b"}}'
'{"type":"merge","doc":{},"patch":{"a":{"bb":{"ccc":null}}}}'
'{"doc":{"a":{"bb":{}}}}'
# Strategic merge patch: merge keys, directives, primitive lists, replace strategies
'{"type":"strategic","kind":"/v1/Pod","doc":{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}},"patch":{"spec":{"containers":[{"name":"b","image":"3"},{"name":"c","image":"4"}]}}}'
'{"doc":{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"3"},{"name":"c","image":"4"}]}}}'
'{"type":"strategic","kind":"/v1/Pod","doc":{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}},"patch":{"spec":{"containers":[{"name":"a","$patch":"delete"}]}}}'
'{"doc":{"spec":{"containers":[{"name":"b","image":"2"}]}}}'
'{"type":"strategic","kind":"/v1/Pod","doc":{"metadata":{"finalizers":["x"]}},"patch":{"metadata":{"finalizers":["y"]}}}'
'{"doc":{"metadata":{"finalizers":["y","x"]}}}'
'{"type":"strategic","kind":"/v1/Pod","doc":{"metadata":{"finalizers":["x","y"]}},"patch":{"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}}}'
'{"doc":{"metadata":{"finalizers":["y"]}}}'
'{"type":"strategic","kind":"/v1/Pod","doc":{"spec":{"containers":[{"name":"a","image":"1"}]}},"patch":{"spec":{"containers":[{"name":"a","image":"2"}],"$setElementOrder/containers":[{"name":"a"}]}}}'
'{"doc":{"spec":{"containers":[{"name":"a","image":"2"}]}}}'
'{"type":"strategic","kind":"/v1/Pod","doc":{"spec":{"tolerations":[{"key":"a"}]}},"patch":{"spec":{"tolerations":[{"key":"b"}]}}}'
'{"doc":{"spec":{"tolerations":[{"key":"b"}]}}}'
'{"type":"strategic","kind":"/v1/Pod","doc":{"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"}]}]}},"patch":{"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"2"}]}]}}}'
'{"doc":{"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"2"},{"name":"X","value":"1"}]}]}}}'
'{"type":"strategic","kind":"apps/v1/Deployment","doc":{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}},"patch":{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}}'
'{"doc":{"spec":{"strategy":{"type":"Recreate"}}}}'
'{"type":"strategic","kind":"/v1/Pod","doc":{"metadata":{"labels":{"a":"1"}}},"patch":{"metadata":{"labels":{"$patch":"replace","b":"2"}}}}'
'{"doc":{"metadata":{"labels":{"b":"2"}}}}'
'{"type":"strategic","kind":"/v1/Nope","doc":{},"patch":{}}'
'{"error":"malformed request: kind must name a built-in kind"}'
'{"type":"strategic","kind":"/v1/Pod","doc":{"spec":{"containers":[{"name":"a"}]}},"patch":{"spec":{"containers":[{"image":"x"}]}}}'
'{"error":"map: map[image:x] does not contain declared merge key: name"}'
# Server-side apply: create, conflicts, force, shared values, giving up fields, a bad configuration, status; malformed requests
'{"type":"apply","kind":"/v1/ConfigMap","live":null,"config":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}},"manager":"alice","now":"2024-01-01T00:00:00Z"}'
'{"doc":{"metadata":{"creationTimestamp":null,"name":"cm","managedFields":[{"manager":"alice","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}}'
'{"type":"apply","kind":"/v1/ConfigMap","live":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"alice","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"1"}},"config":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"2"}},"manager":"bob","now":"2024-01-02T00:00:00Z"}'
'{"error":"Apply failed with 1 conflict: conflict with \"alice\": .data.a","conflicts":[{"field":".data.a","manager":"\"alice\""}]}'
'{"type":"apply","kind":"/v1/ConfigMap","live":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"alice","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"1"}},"config":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"2"}},"manager":"bob","force":true,"now":"2024-01-02T00:00:00Z"}'
'{"doc":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"bob","operation":"Apply","apiVersion":"v1","time":"2024-01-02T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"2"}}}'
'{"type":"apply","kind":"/v1/ConfigMap","live":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"alice","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"1"}},"config":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}},"manager":"bob","now":"2024-01-02T00:00:00Z"}'
'{"doc":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"bob","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}},{"manager":"alice","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"1"}}}'
'{"type":"apply","kind":"/v1/ConfigMap","live":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"alice","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{},"f:b":{}}}},{"manager":"ed","operation":"Update","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:c":{}}}}]},"data":{"a":"1","b":"2","c":"3"}},"config":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"x","b":"y","c":"z"}},"manager":"bob","now":"2024-01-02T00:00:00Z"}'
'{"error":"Apply failed with 3 conflicts: conflicts with \"alice\":\n- .data.a\n- .data.b\nconflicts with \"ed\" using v1:\n- .data.c","conflicts":[{"field":".data.a","manager":"\"alice\""},{"field":".data.b","manager":"\"alice\""},{"field":".data.c","manager":"\"ed\" using v1"}]}'
'{"type":"apply","kind":"/v1/ConfigMap","live":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"alice","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{},"f:b":{}}}}]},"data":{"a":"1","b":"2"}},"config":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}},"manager":"alice","now":"2024-01-02T00:00:00Z"}'
'{"doc":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"alice","operation":"Apply","apiVersion":"v1","time":"2024-01-02T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"1"}}}'
'{"type":"apply","kind":"apps/v1/Deployment","live":null,"config":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"},"spec":{"replicas":"three"}},"manager":"alice"}'
'{"error":"failed to create typed patch object (ns/d; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string"}'
'{"type":"apply","kind":"apps/v1/Deployment","live":null,"config":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80},{"containerPort":80,"protocol":"UDP"}]}]}}}},"manager":"alice","now":"2024-01-01T00:00:00Z"}'
'{"doc":{"metadata":{"creationTimestamp":null,"name":"d","managedFields":[{"manager":"alice","operation":"Apply","apiVersion":"apps/v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}},"k:{\"containerPort\":80,\"protocol\":\"UDP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}}}}]},"spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80},{"containerPort":80,"protocol":"UDP"}]}]}},"strategy":{},"replicas":1},"status":{},"apiVersion":"apps/v1","kind":"Deployment"}}'
'{"type":"apply","kind":"apps/v1/Deployment","live":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","managedFields":[{"manager":"ctrl","operation":"Update","apiVersion":"apps/v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:replicas":{}}},"subresource":"status"}]},"status":{"replicas":1}},"config":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"status":{"replicas":2}},"manager":"alice","subresource":"status"}'
'{"error":"Apply failed with 1 conflict: conflict with \"ctrl\" with subresource \"status\" using apps/v1: .status.replicas","conflicts":[{"field":".status.replicas","manager":"\"ctrl\" with subresource \"status\" using apps/v1"}]}'
'{"type":"apply","kind":"/v1/ConfigMap","config":{"apiVersion":"v1"},"manager":7}'
'{"error":"malformed request: manager must be a string, force a boolean"}'
'{"type":"apply","kind":"/v1/ConfigMap","config":[]}'
'{"error":"malformed request: config must be an object, live one or null"}'
'{"type":"unknown"}'
'{"error":"malformed request: type must be json, merge, strategic or apply"}'
'[1,2]'
'{"error":"malformed request: type must be json, merge, strategic or apply"}'
)

n=$((${#pairs[@]} / 2))
echo "1..$((n + 1))"
requests=$(for ((i = 0; i < ${#pairs[@]}; i += 2)); do printf '%s\n' "${pairs[i]}"; done)
mapfile -t replies < <(printf '%s\n' "$requests" | "$tool")
for ((i = 0; i < n; i++)); do
    want=${pairs[2 * i + 1]}
    got=${replies[i]-}
    if [[ $got == "$want" ]]; then
        echo "ok $((i + 1)) - ${pairs[2 * i]:0:120}"
    else
        echo "not ok $((i + 1)) - ${pairs[2 * i]:0:120}"
        echo "#   got:  $got"
        echo "#   want: $want"
    fi
done
if [[ ${#replies[@]} -eq $n ]]; then
    echo "ok $((n + 1)) - one reply per request"
else
    echo "not ok $((n + 1)) - one reply per request (got ${#replies[@]}, want $n)"
fi
