#!/usr/bin/env bash
# Authentication and authorization in the chain, as kube-apiserver answers them: token-file
# users, client-certificate users, anonymous requests (allowed, or refused with
# --anonymous-auth=false), 401 Unauthorized and 403 Forbidden Status bodies naming the user,
# the system:masters bypass, and start-up refusals of bad modes, files and runtime config.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require api_auth

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
NS=/api/v1/namespaces/default

# AlwaysAllow (the default): kube turns anonymous authentication off, saying so at start-up
check "kgate starts" api_start allow
check "... warning, in kube's words, that anonymous is turned off" grep -q \
    'AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer' \
    "$KGATE_LOG"
fetch "$NS"
check "anonymous is refused under AlwaysAllow: 401" is_status 401 Unauthorized Unauthorized
fetch "$NS" -u bad:wrong
check "... a Basic credential (not read) too" test "$CODE" = 401
check "/readyz without credentials: 401" test "$(http_code /readyz)" = 401
fetch "$NS" -H "Authorization: Bearer nope"
check "an unknown bearer token is 401" test "$CODE" = 401
check "... an Unauthorized Status" is_status 401 Unauthorized Unauthorized
check "... with no details, as kube's" jpy "'details' not in d"
check "... and an Audit-ID" grep -qi '^Audit-ID: ' "$HDR"
fetch "$NS" "${ALICE[@]}"
check "a token from the file is accepted" test "$CODE" = 200
fetch "$NS" -H "Authorization: bearer bob-token"
check "the Bearer scheme is case-insensitive" test "$CODE" = 200
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

check "RBAC,AlwaysAllow: kgate starts" api_start rbacallow --authorization-mode=RBAC,AlwaysAllow
fetch "$NS" -u bad:wrong
check "... AlwaysAllow anywhere in the list turns anonymous off" test "$CODE" = 401
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"

# kube looks at --authorization-mode only: AlwaysAllow from --authorization-config keeps it on
cat >"$KGATE_TEST_TMP/authz.yaml" <<'EOF'
apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- {type: AlwaysAllow, name: alwaysallow}
EOF
check "kgate starts with an AuthorizationConfiguration of AlwaysAllow" \
    api_start cfgallow --authorization-config="$KGATE_TEST_TMP/authz.yaml"
fetch "$NS"
check "... anonymous may read" test "$CODE" = 200
fetch "$NS" -H "Authorization: Basic YWxpY2U6eA=="
check "... a Basic credential is not read: anonymous" test "$CODE" = 200
check "... and nothing is said about it" bash -c "! grep -q AnonymousAuth '$KGATE_LOG'"
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

# anonymous disabled
check "kgate starts with --anonymous-auth=false" api_start noanon --anonymous-auth=false
fetch "$NS"
check "no credentials: 401" test "$CODE" = 401
check "... an Unauthorized Status" is_status 401 Unauthorized Unauthorized
check "/readyz without credentials: 401 too" test "$(http_code /readyz)" = 401
check "a token still works" test "$(http_code "$NS" "${ALICE[@]}")" = 200
check "a client certificate still works" test "$(http_code "$NS" "${JANE[@]}")" = 200
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

# AlwaysDeny: every user is named in kube's Forbidden message
check "kgate starts with AlwaysDeny" api_start deny --authorization-mode=AlwaysDeny
fetch "$NS" "${ALICE[@]}"
check "the token user is forbidden" test "$CODE" = 403
check "... in kube's words, naming alice" is_status 403 Forbidden \
    'namespaces "default" is forbidden: User "alice" cannot get resource "namespaces" in API group "" in the namespace "default": Everything is forbidden.'
check "... details name the object" jpy "d['details'] == {'name': 'default', 'kind': 'namespaces'}"
fetch /apis/apps/v1/namespaces/web/deployments/d/scale "${JANE[@]}" -X PUT -d '{}'
check "the certificate user is forbidden, named with the subresource and group" is_status 403 \
    Forbidden 'deployments.apps "d" is forbidden: User "jane" cannot update resource "deployments/scale" in API group "apps" in the namespace "web": Everything is forbidden.'
check "... details carry the group" jpy "d['details'] == {'name': 'd', 'group': 'apps', \
'kind': 'deployments'}"
fetch /api/v1/nodes "${JANE[@]}"
check "a cluster-scoped list says so" is_status 403 Forbidden \
    'nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope: Everything is forbidden.'
fetch /api/v1/namespaces
check "anonymous is named system:anonymous" is_status 403 Forbidden \
    'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.'
fetch /version "${ALICE[@]}"
check "a non-resource path is forbidden by path" is_status 403 Forbidden \
    'forbidden: User "alice" cannot get path "/version": Everything is forbidden.'
check "... with empty details" jpy "d['details'] == {}"
fetch "$NS" "${ADMIN[@]}"
check "system:masters is allowed before any mode" test "$CODE" = 200
check "... and reads the object" jpy "d['metadata']['name'] == 'default'"
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report" no_sanitizer_report "$KGATE_LOG"

check "AlwaysDeny,AlwaysAllow: the later mode allows" \
    api_start denyallow --authorization-mode=AlwaysDeny,AlwaysAllow
check "... alice reads" test "$(http_code "$NS" "${ALICE[@]}")" = 200
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"

# start-up refusals: one line, exit 2 for flag values, 1 for unusable files
ERR=$KGATE_TEST_TMP/stderr
refused() {
    local want=$1 pattern=$2 desc=$3; shift 3
    timeout 30 "$KGATE" --bind-address=127.0.0.1 --secure-port="$(free_port)" \
        --etcd-servers="$KGATE_TEST_ETCD" --tls-cert-file="$PKI/server.crt" \
        --tls-private-key-file="$PKI/server.key" "$@" >/dev/null 2>"$ERR"
    local rc=$?
    check "$desc: exit $want (got $rc)" test "$rc" = "$want"
    check "$desc: one line saying why" grep -qxE "kgate: $pattern" "$ERR" || diag "$(cat "$ERR")"
    check "$desc: nothing else" test "$(wc -l <"$ERR")" = 1
}
refused 2 'invalid value "Bogus" for --authorization-mode: unknown authorization mode \(want AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC or Node\)' \
    "an unknown mode" --authorization-mode=Bogus
refused 2 'authorization-mode "AlwaysDeny" is specified more than once' "a repeated mode" \
    --authorization-mode=AlwaysDeny,AlwaysDeny
printf 'tok,onlyuser\n' >"$KGATE_TEST_TMP/bad-tokens.csv"
refused 1 'token file .*/bad-tokens.csv line 1 must have at least 3 columns \(token, user name, user uid\), found 2' \
    "a token file with two columns" --token-auth-file="$KGATE_TEST_TMP/bad-tokens.csv"
printf 'tok,"user,u1\n' >"$KGATE_TEST_TMP/quote-tokens.csv"
refused 1 'token file .*/quote-tokens.csv line 2: bad quoting' "an unterminated quote" \
    --token-auth-file="$KGATE_TEST_TMP/quote-tokens.csv"
refused 2 'unknown API group "nosuch.example.com" in --runtime-config key nosuch.example.com/v1' \
    "an unknown --runtime-config group" \
    --runtime-config=nosuch.example.com/v1=true
tap_end
