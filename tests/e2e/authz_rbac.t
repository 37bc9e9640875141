#!/usr/bin/env bash
# RBAC end to end, two kgate instances on one etcd prefix with --authorization-mode=RBAC and
# token-file users (alice in dev, bob): the bootstrap policy in place and reconciled after it
# was damaged (autoupdate=false respected), Roles and ClusterRoles through RoleBindings,
# resourceNames, subresources and non-resource URLs, a change in force on the other instance,
# aggregation into view/edit/admin, escalation refused then allowed with escalate and bind,
# roleRef immutable, kube's 403 wording, the access reviews and kubectl auth can-i.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
e2e_require authz_rbac

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
BOB=(-H "Authorization: Bearer bob-token")
trap stop_all EXIT
PREFIX=/registry-rbac-$$
RBAC=/apis/rbac.authorization.k8s.io/v1
AUTHZ=/apis/authorization.k8s.io/v1

# rbac_start NAME: kgate with RBAC on the shared prefix, waited for until ready; sets URL_<NAME>.
rbac_start() {
    kgate_start "$1" --etcd-servers="$KGATE_TEST_ETCD" --etcd-prefix="$PREFIX" \
        --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" \
        --client-ca-file="$PKI/ca.crt" --token-auth-file="$PKI/tokens.csv" \
        --authorization-mode=RBAC
    for _ in $(seq 300); do
        [[ $(http_code /readyz "${ADMIN[@]}") == 200 ]] && return 0
        alive "$KGATE_PID" || break
        sleep 0.1
    done
    diag "$(tail -20 "$KGATE_LOG")"
    return 1
}

# until_code CODE PATH CURL-ARGS...: poll a GET for up to 10 s (bounded, not a timing claim).
until_code() {
    local want=$1 path=$2; shift 2
    for _ in $(seq 100); do
        fetch "$path" "$@"
        [[ $CODE == "$want" ]] && return 0
        sleep 0.1
    done
    return 1
}

# until_py EXPR PATH: poll an admin GET until the Python expression over d holds (10 s).
until_py() {
    for _ in $(seq 100); do
        fetch "$2" "${ADMIN[@]}"
        [[ $CODE == 200 ]] && jpy "$1" >/dev/null && return 0
        sleep 0.1
    done
    jpy "$1"
}

role() { # NAME NS RULES-JSON
    printf '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"%s","namespace":"%s"},"rules":%s}' "$1" "$2" "$3"
}
binding() { # NAME NS ROLE-KIND ROLE USER
    printf '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"%s","namespace":"%s"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"%s","name":"%s"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"%s"}]}' "$@"
}

check "kgate A starts with RBAC" rbac_start a
A_URL=$KGATE_URL A_PID=$KGATE_PID A_LOG=$KGATE_LOG
check "kgate B starts on the same prefix" rbac_start b
B_URL=$KGATE_URL B_PID=$KGATE_PID B_LOG=$KGATE_LOG
KGATE_URL=$A_URL

# ---- the bootstrap policy
check "the admin role is aggregated" until_py "len(d.get('rules') or []) > 0" "$RBAC/clusterroles/admin"
for r in cluster-admin admin edit view system:basic-user system:discovery \
    system:public-info-viewer system:monitoring system:node system:node-proxier \
    system:kube-scheduler system:kube-controller-manager \
    system:certificates.k8s.io:certificatesigningrequests:nodeclient \
    system:controller:namespace-controller; do
    fetch "$RBAC/clusterroles/$r" "${ADMIN[@]}"
    check "bootstrap ClusterRole $r, labelled and annotated" jpy \
        "d['metadata']['labels']['kubernetes.io/bootstrapping'] == 'rbac-defaults' and d['metadata']['annotations']['rbac.authorization.kubernetes.io/autoupdate'] == 'true'"
done
fetch "$RBAC/namespaces/kube-system/roles/extension-apiserver-authentication-reader" "${ADMIN[@]}"
check "a bootstrap Role in kube-system" jpy \
    "d['metadata']['labels']['kubernetes.io/bootstrapping'] == 'rbac-defaults' and d['rules'][0]['resourceNames'] == ['extension-apiserver-authentication']"
fetch "$RBAC/namespaces/kube-public/rolebindings/system:controller:bootstrap-signer" "${ADMIN[@]}"
check "a bootstrap RoleBinding in kube-public" jpy \
    "d['roleRef']['kind'] == 'Role' and d['subjects'][0]['namespace'] == 'kube-system'"
fetch "$RBAC/clusterrolebindings/cluster-admin" "${ADMIN[@]}"
check "cluster-admin is bound to the group system:masters" jpy \
    "d['roleRef']['name'] == 'cluster-admin' and d['subjects'] == [{'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Group', 'name': 'system:masters'}]"
fetch "$RBAC/clusterroles/edit" "${ADMIN[@]}"
check "edit is labelled for aggregation into admin" jpy \
    "d['metadata']['labels']['rbac.authorization.k8s.io/aggregate-to-admin'] == 'true'"

# ---- denials, in kube's words
fetch /api/v1/namespaces/default/pods "${ALICE[@]}"
check "alice may not list pods yet: 403" is_status 403 Forbidden \
    'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"'
fetch /metrics "${ALICE[@]}"
check "non-resource URL refused in kube's words" is_status 403 Forbidden \
    'forbidden: User "alice" cannot get path "/metrics"'
fetch /version "${ALICE[@]}"
check "system:public-info-viewer lets alice read /version" test "$CODE" = 200
fetch /version
check "... and anonymous too" test "$CODE" = 200
fetch /api "${BOB[@]}"
check "system:discovery lets bob read /api" test "$CODE" = 200

# ---- Role through a RoleBinding, in force on the other instance
send POST "$RBAC/namespaces/default/roles" \
    "$(role pod-reader default '[{"apiGroups":[""],"resources":["pods","pods/log"],"verbs":["get","list"]}]')" "${ADMIN[@]}"
check "admin creates a Role" test "$CODE" = 201
send POST "$RBAC/namespaces/default/rolebindings" "$(binding alice-pods default Role pod-reader alice)" "${ADMIN[@]}"
check "... and binds alice to it" test "$CODE" = 201
KGATE_URL=$B_URL
check "on instance B alice may list pods in default" until_code 200 /api/v1/namespaces/default/pods "${ALICE[@]}"
fetch /api/v1/namespaces/kube-system/pods "${ALICE[@]}"
check "... not in kube-system" test "$CODE" = 403
fetch /api/v1/namespaces/default/secrets "${ALICE[@]}"
check "... nor secrets" test "$CODE" = 403
send DELETE /api/v1/namespaces/default/pods/x '' "${ALICE[@]}"
check "... nor delete" test "$CODE" = 403
KGATE_URL=$A_URL

# ---- ClusterRole through a RoleBinding, resourceNames
send POST /api/v1/namespaces "{\"metadata\":{\"name\":\"team\"}}" "${ADMIN[@]}"
check "a namespace team" test "$CODE" = 201
send POST "$RBAC/namespaces/team/rolebindings" "$(binding bob-view team ClusterRole view bob)" "${ADMIN[@]}"
check "bob is bound to ClusterRole view in team" test "$CODE" = 201
check "bob may list configmaps in team" until_code 200 /api/v1/namespaces/team/configmaps "${BOB[@]}"
fetch /api/v1/namespaces/default/configmaps "${BOB[@]}"
check "... the ClusterRole applies in the binding's namespace only" test "$CODE" = 403
fetch /api/v1/namespaces/team/secrets "${BOB[@]}"
check "... view grants no secrets" test "$CODE" = 403
for n in cm-a cm-b; do
    send POST /api/v1/namespaces/default/configmaps "{\"metadata\":{\"name\":\"$n\"}}" "${ADMIN[@]}"
done
send POST "$RBAC/namespaces/default/roles" \
    "$(role cm-a default '[{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["cm-a"],"verbs":["get"]}]')" "${ADMIN[@]}"
send POST "$RBAC/namespaces/default/rolebindings" "$(binding alice-cm-a default Role cm-a alice)" "${ADMIN[@]}"
check "resourceNames: alice may get cm-a" until_code 200 /api/v1/namespaces/default/configmaps/cm-a "${ALICE[@]}"
fetch /api/v1/namespaces/default/configmaps/cm-b "${ALICE[@]}"
check "... but not cm-b" is_status 403 Forbidden \
    'configmaps "cm-b" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "default"'
fetch /api/v1/namespaces/default/configmaps "${ALICE[@]}"
check "... nor list them" test "$CODE" = 403

# ---- aggregation
send POST "$RBAC/clusterroles" '{"metadata":{"name":"widget-viewer","labels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},"rules":[{"apiGroups":["example.io"],"resources":["widgets"],"verbs":["get"]}]}' "${ADMIN[@]}"
check "a ClusterRole labelled aggregate-to-view" test "$CODE" = 201
W="{'apiGroups': ['example.io'], 'resources': ['widgets'], 'verbs': ['get']}"
check "its rule is aggregated into view" until_py "$W in (d.get('rules') or [])" "$RBAC/clusterroles/view"
check "... then into edit" until_py "$W in (d.get('rules') or [])" "$RBAC/clusterroles/edit"
check "... and admin" until_py "$W in (d.get('rules') or [])" "$RBAC/clusterroles/admin"
send DELETE "$RBAC/clusterroles/widget-viewer" '' "${ADMIN[@]}"
check "deleted, the rule leaves view" until_py "$W not in (d.get('rules') or [])" "$RBAC/clusterroles/view"

# ---- escalation
send POST "$RBAC/namespaces/default/roles" \
    "$(role rbac-editor default '[{"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles","rolebindings"],"verbs":["create","get","list","update","patch","delete"]}]')" "${ADMIN[@]}"
send POST "$RBAC/namespaces/default/rolebindings" "$(binding alice-rbac default Role rbac-editor alice)" "${ADMIN[@]}"
check "alice may manage roles in default" until_code 200 "$RBAC/namespaces/default/roles" "${ALICE[@]}"
send POST "$RBAC/namespaces/default/roles" \
    "$(role pods-too default '[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]')" "${ALICE[@]}"
check "a Role within alice's own permissions is created" test "$CODE" = 201
send POST "$RBAC/namespaces/default/roles" \
    "$(role secrets default '[{"apiGroups":[""],"resources":["secrets"],"verbs":["get","list"]}]')" "${ALICE[@]}"
check "a Role granting more is refused" is_status 403 Forbidden \
    "$(printf 'roles.rbac.authorization.k8s.io "secrets" is forbidden: user "alice" (groups=["dev" "ops" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}')"
send POST "$RBAC/namespaces/default/rolebindings" "$(binding bob-edit default ClusterRole edit bob)" "${ALICE[@]}"
check "binding bob to edit is refused" test "$CODE" = 403
check "... the message names what alice lacks" grep -q 'attempting to grant RBAC permissions not currently held' "$OUT"
send POST "$RBAC/namespaces/default/roles" \
    "$(role escalator default '[{"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles"],"verbs":["escalate"]},{"apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],"resourceNames":["edit"],"verbs":["bind"]}]')" "${ADMIN[@]}"
send POST "$RBAC/namespaces/default/rolebindings" "$(binding alice-esc default Role escalator alice)" "${ADMIN[@]}"
ok=1
for _ in $(seq 100); do
    send POST "$RBAC/namespaces/default/roles" \
        "$(role secrets default '[{"apiGroups":[""],"resources":["secrets"],"verbs":["get","list"]}]')" "${ALICE[@]}"
    [[ $CODE == 201 ]] && ok=0 && break
    sleep 0.1
done
check "with escalate on roles, the same Role is created" test "$ok" = 0
send POST "$RBAC/namespaces/default/rolebindings" "$(binding bob-edit default ClusterRole edit bob)" "${ALICE[@]}"
check "with bind on ClusterRole edit, the binding is created" test "$CODE" = 201
send POST "$RBAC/namespaces/default/rolebindings" "$(binding bob-admin default ClusterRole admin bob)" "${ALICE[@]}"
check "... but not one to admin" test "$CODE" = 403

# ---- roleRef immutable, names path segments
send PATCH "$RBAC/namespaces/default/rolebindings/alice-pods" '{"roleRef":{"name":"cm-a"}}' \
    "${ADMIN[@]}"
check "roleRef cannot change: 422" is_status 422 Invalid \
    'RoleBinding.rbac.authorization.k8s.io "alice-pods" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"cm-a"}: cannot change roleRef'
send POST "$RBAC/clusterrolebindings" '{"metadata":{"name":"crb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"x"},"subjects":[{"kind":"ServiceAccount","name":"sa"}]}' "${ADMIN[@]}"
check "a ClusterRoleBinding to a Role, with a service account without namespace: 422" is_status 422 Invalid \
    'ClusterRoleBinding.rbac.authorization.k8s.io "crb" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].namespace: Required value]'
send POST "$RBAC/namespaces/default/rolebindings" '{"metadata":{"name":"rb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"x"},"subjects":[{"kind":"Robot","name":"r2"}]}' "${ADMIN[@]}"
check "a subject of an unknown kind: 422" is_status 422 Invalid \
    'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'
send POST "$RBAC/clusterroles" '{"metadata":{"name":"a:b.c_D"},"rules":[]}' "${ADMIN[@]}"
check "a ClusterRole name need only be a path segment" test "$CODE" = 201

# ---- access reviews
send POST "$AUTHZ/selfsubjectaccessreviews" \
    '{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}}}' "${ALICE[@]}"
check "SelfSubjectAccessReview: 201" test "$CODE" = 201
check "... allowed" jpy "d['status']['allowed'] is True and d['kind'] == 'SelfSubjectAccessReview'"
send POST "$AUTHZ/selfsubjectaccessreviews" \
    '{"spec":{"resourceAttributes":{"namespace":"default","verb":"delete","resource":"pods"}}}' "${ALICE[@]}"
check "... and not allowed to delete" jpy "d['status']['allowed'] is False"
send POST "$AUTHZ/selfsubjectaccessreviews" '{"spec":{}}' "${ALICE[@]}"
check "... without attributes: 422" test "$CODE" = 422
send POST "$AUTHZ/subjectaccessreviews" \
    '{"spec":{"user":"bob","resourceAttributes":{"namespace":"team","verb":"get","resource":"configmaps"}}}' "${ADMIN[@]}"
check "SubjectAccessReview for bob: allowed" jpy "d['status']['allowed'] is True"
send POST "$AUTHZ/subjectaccessreviews" \
    '{"spec":{"user":"bob","nonResourceAttributes":{"verb":"get","path":"/metrics"}}}' "${ADMIN[@]}"
check "... not /metrics" jpy "d['status']['allowed'] is False"
send POST "$AUTHZ/subjectaccessreviews" \
    '{"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}' "${ADMIN[@]}"
check "... without user or groups: 422" test "$CODE" = 422
send POST "$AUTHZ/subjectaccessreviews" \
    '{"spec":{"user":"x","resourceAttributes":{"verb":"get","resource":"pods"}}}' "${BOB[@]}"
check "bob may not create SubjectAccessReviews" test "$CODE" = 403
send POST "$AUTHZ/namespaces/team/localsubjectaccessreviews" \
    '{"spec":{"user":"bob","resourceAttributes":{"namespace":"team","verb":"list","resource":"pods"}}}' "${ADMIN[@]}"
check "LocalSubjectAccessReview: allowed" jpy "d['status']['allowed'] is True and d['metadata']['namespace'] == 'team'"
send POST "$AUTHZ/namespaces/team/localsubjectaccessreviews" \
    '{"spec":{"user":"bob","resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}}}' "${ADMIN[@]}"
check "... for another namespace: 422" test "$CODE" = 422
send POST "$AUTHZ/selfsubjectrulesreviews" '{"spec":{"namespace":"team"}}' "${BOB[@]}"
check "SelfSubjectRulesReview lists bob's rules in team" jpy \
    "any('configmaps' in r.get('resources', []) for r in d['status']['resourceRules']) and '/api' in sum([r['nonResourceURLs'] for r in d['status']['nonResourceRules']], []) and d['status']['incomplete'] is False"
send POST "$AUTHZ/selfsubjectrulesreviews" '{"spec":{"namespace":"kube-system"}}' "${BOB[@]}"
check "... and not in kube-system" jpy \
    "not any('configmaps' in r.get('resources', []) for r in d['status']['resourceRules'])"

# ---- kubectl auth can-i
if kubectl_ok; then
    KC=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KC"
    kubectl --kubeconfig "$KC" config set-credentials alice --token=alice-token >/dev/null
    kubectl --kubeconfig "$KC" config set-context alice --cluster=kgate --user=alice >/dev/null
    check "kubectl auth can-i list pods (alice): yes" \
        test "$(kubectl --kubeconfig "$KC" --context alice auth can-i list pods -n default)" = yes
    check "kubectl auth can-i delete pods (alice): no" \
        test "$(kubectl --kubeconfig "$KC" --context alice auth can-i delete pods -n default 2>/dev/null)" = no
    check "kubectl auth can-i --as bob get configmaps -n team: yes" \
        test "$(kubectl --kubeconfig "$KC" auth can-i --as bob get configmaps -n team)" = yes
    check "kubectl auth can-i --as bob get secrets -n team: no" \
        test "$(kubectl --kubeconfig "$KC" auth can-i --as bob get secrets -n team 2>/dev/null)" = no
    kubectl --kubeconfig "$KC" --context alice auth can-i --list -n default >"$KGATE_TEST_TMP/list" 2>&1
    check "kubectl auth can-i --list shows alice's pods" grep -qE '^pods +\[\] +\[\] +\[get list\]' "$KGATE_TEST_TMP/list"
    check "... and configmaps by name" grep -qE '^configmaps +\[\] +\[cm-a\] +\[get\]' "$KGATE_TEST_TMP/list"
else
    diag "kubectl 1.32 not found: kubectl auth can-i not exercised"
fi

# ---- bootstrap reconciliation after damage
send PATCH "$RBAC/clusterroles/system:basic-user" '{"rules":[]}' \
    "${ADMIN[@]}"
check "system:basic-user loses its rules" test "$CODE" = 200
send PATCH "$RBAC/clusterrolebindings/system:discovery" '{"subjects":[]}' \
    "${ADMIN[@]}"
check "system:discovery loses its subjects" test "$CODE" = 200
send PATCH "$RBAC/clusterroles/system:monitoring" \
    '{"metadata":{"annotations":{"rbac.authorization.kubernetes.io/autoupdate":"false"}},"rules":[]}' \
    "${ADMIN[@]}"
check "system:monitoring emptied with autoupdate=false" test "$CODE" = 200
kill -TERM "$A_PID" "$B_PID"
wait_exit "$A_PID"
wait_exit "$B_PID"
check "no sanitizer report from A" no_sanitizer_report "$A_LOG"
check "no sanitizer report from B" no_sanitizer_report "$B_LOG"
check "kgate C starts and leads" rbac_start c
check "system:basic-user has its rules again" until_py \
    "any('selfsubjectaccessreviews' in r.get('resources', []) for r in d.get('rules') or [])" \
    "$RBAC/clusterroles/system:basic-user"
check "system:discovery has its subject again" until_py \
    "{'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Group', 'name': 'system:authenticated'} in (d.get('subjects') or [])" \
    "$RBAC/clusterrolebindings/system:discovery"
fetch "$RBAC/clusterroles/system:monitoring" "${ADMIN[@]}"
check "system:monitoring (autoupdate=false) stays as it was" jpy "not d.get('rules')"
fetch "$RBAC/clusterroles/a:b.c_D" "${ADMIN[@]}"
check "objects that are not defaults are left alone" test "$CODE" = 200
kill -TERM "$KGATE_PID"
wait_exit "$KGATE_PID"
check "no sanitizer report from C" no_sanitizer_report "$KGATE_LOG"
tap_end
