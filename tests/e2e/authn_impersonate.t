#!/usr/bin/env bash
# Impersonation (Impersonate-User, -Group, -Uid, -Extra-<key>), as kube-apiserver's filter:
# the user each request goes on as (all-users groups, service accounts' groups, extra keys
# unescaped), every part authorized with the verb impersonate (403 in kube's words naming the
# real user), groups without a user refused as kube does (500), and kubectl --as.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require authn_impersonate

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
REVIEW=/apis/authentication.k8s.io/v1/selfsubjectreviews

# whoami CURL-ARGS...: a SelfSubjectReview with those credentials and headers.
whoami() {
    OUT=$KGATE_TEST_TMP/body HDR=$KGATE_TEST_TMP/headers
    CODE=$(kcurl -o "$OUT" -D "$HDR" -w '%{http_code}' -X POST "$@" \
        -H 'Content-Type: application/json' \
        --data '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
        "$KGATE_URL$REVIEW")
}
user_is() { code_is 201 && jpy "d['status']['userInfo'] == $1"; }

check "kgate starts (AlwaysAllow)" api_start imp
whoami "${ADMIN[@]}" -H "Impersonate-User: alice"
check "the admin acts as alice, who is in system:authenticated only" user_is \
    "{'username': 'alice', 'groups': ['system:authenticated']}"
whoami "${JANE[@]}" -H "Impersonate-User: alice" -H "Impersonate-Group: dev" \
    -H "Impersonate-Group: ops"
check "groups asked for, then system:authenticated" user_is \
    "{'username': 'alice', 'groups': ['dev', 'ops', 'system:authenticated']}"
whoami "${ALICE[@]}" -H "Impersonate-User: bob" -H "Impersonate-Group: system:unauthenticated"
check "system:unauthenticated asked for: no system:authenticated" user_is \
    "{'username': 'bob', 'groups': ['system:unauthenticated']}"
whoami "${ALICE[@]}" -H "Impersonate-User: system:anonymous"
check "system:anonymous is in system:unauthenticated" user_is \
    "{'username': 'system:anonymous', 'groups': ['system:unauthenticated']}"
whoami "${ALICE[@]}" -H "Impersonate-User: system:serviceaccount:web:builder"
check "a service account gets its groups" user_is \
    "{'username': 'system:serviceaccount:web:builder', 'groups': ['system:serviceaccounts', \
'system:serviceaccounts:web', 'system:authenticated']}"
whoami "${ALICE[@]}" -H "Impersonate-User: system:serviceaccount:web:builder" \
    -H "Impersonate-Group: dev"
check "... but not when groups are asked for" user_is \
    "{'username': 'system:serviceaccount:web:builder', 'groups': ['dev', \
'system:authenticated']}"
whoami "${ALICE[@]}" -H "Impersonate-User: carol" -H "Impersonate-Uid: 1234" \
    -H "Impersonate-Extra-Scopes: read" -H "Impersonate-Extra-Scopes: write" \
    -H "Impersonate-Extra-Example.com%2FTeam: blue" -H "Impersonate-Extra-Odd%zz%00: x"
check "uid and extra (keys lowercased and unescaped; kept as given when malformed)" user_is \
    "{'username': 'carol', 'uid': '1234', 'groups': ['system:authenticated'], \
'extra': {'scopes': ['read', 'write'], 'example.com/team': ['blue'], 'odd%zz%00': ['x']}}"
whoami "${ALICE[@]}" -H "Impersonate-Group: dev"
check "a group without a user: 500, as kube" code_is 500
check "... in kube's plain words" test "$(cat "$OUT")" = \
    'Internal Server Error: "/apis/authentication.k8s.io/v1/selfsubjectreviews": requested [{Group  dev    }] without impersonating a user'
check "... as text" bash -c "grep -qi '^Content-Type: text/plain; charset=utf-8' '$HDR'"
whoami "${ALICE[@]}" -H "Impersonate-Uid: 9" -H "Impersonate-Extra-K: v"
check "extra and uid without a user: 500 listing them" test "$(cat "$OUT")" = \
    'Internal Server Error: "/apis/authentication.k8s.io/v1/selfsubjectreviews": requested [{UserExtra  v  authentication.k8s.io/v1  k} {UID  9  authentication.k8s.io/v1  }] without impersonating a user'
if kubectl_ok; then
    kubeconfig "$KGATE_TEST_TMP/admin.kubeconfig"
    check "kubectl --as alice --as-group dev auth whoami" bash -c \
        "kubectl --kubeconfig '$KGATE_TEST_TMP/admin.kubeconfig' --as alice --as-group dev auth whoami -o json | python3 -c 'import json,sys; u=json.load(sys.stdin)[\"status\"][\"userInfo\"]; sys.exit(0 if u == {\"username\": \"alice\", \"groups\": [\"dev\", \"system:authenticated\"]} else 1)'"
else
    check "kubectl --as # SKIP no kubectl 1.32" true
fi
check "kgate exits cleanly" clean_exit

check "kgate starts (AlwaysDeny)" api_start impdeny --authorization-mode=AlwaysDeny
whoami "${ALICE[@]}" -H "Impersonate-User: bob"
check "alice may not impersonate bob: 403" code_is 403
check "... in kube's words" is_status 403 Forbidden \
    'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.'
check "... details name the user" jpy "d['details'] == {'name': 'bob', 'kind': 'users'}"
whoami "${JANE[@]}" -H "Impersonate-User: system:serviceaccount:web:builder"
check "a service account is authorized in its namespace" is_status 403 Forbidden \
    'serviceaccounts "builder" is forbidden: User "jane" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "web": Everything is forbidden.'
whoami "${ADMIN[@]}" -H "Impersonate-User: bob"
check "system:masters may impersonate; bob himself is then forbidden" is_status 403 Forbidden \
    'selfsubjectreviews.authentication.k8s.io is forbidden: User "bob" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope: Everything is forbidden.'
whoami "${ADMIN[@]}" -H "Impersonate-User: bob" -H "Impersonate-Group: system:masters"
check "... and bob in system:masters is allowed" user_is \
    "{'username': 'bob', 'groups': ['system:masters', 'system:authenticated']}"
check "kgate exits cleanly" clean_exit
tap_end
