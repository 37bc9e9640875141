/* RBAC: rule matching as data, subjects, snapshots and their bindings, escalation coverage. */
#include <stdlib.h>
#include <string.h>

#include "authz_rbac.h"
#include "authz_rbac_int.h"
#include "tap.h"

typedef struct {
    const char *rule;
    const char *verb, *group, *resource, *sub, *name, *path; /* path: non-resource */
    bool want;
} rule_case_t;

static const rule_case_t rule_cases[] = {
    {"{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}", "get", "", "pods", "",
     "", NULL, true},
    {"{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}", "list", "", "pods", "",
     "", NULL, false},
    {"{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}", "get", "apps", "pods",
     "", "", NULL, false},
    {"{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}", "get", "", "pods",
     "log", "", NULL, false},
    {"{\"apiGroups\":[\"\"],\"resources\":[\"pods/log\"],\"verbs\":[\"get\"]}", "get", "", "pods",
     "log", "", NULL, true},
    {"{\"apiGroups\":[\"\"],\"resources\":[\"*/log\"],\"verbs\":[\"get\"]}", "get", "", "nodes",
     "log", "", NULL, true},
    {"{\"apiGroups\":[\"\"],\"resources\":[\"*/log\"],\"verbs\":[\"get\"]}", "get", "", "pods", "",
     "", NULL, false},
    {"{\"apiGroups\":[\"*\"],\"resources\":[\"*\"],\"verbs\":[\"*\"]}", "escalate", "x.io",
     "things", "status", "n", NULL, true},
    {"{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\"resourceNames\":[\"a\"],\"verbs\":["
     "\"get\"]}",
     "get", "", "configmaps", "", "a", NULL, true},
    {"{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\"resourceNames\":[\"a\"],\"verbs\":["
     "\"get\"]}",
     "get", "", "configmaps", "", "b", NULL, false},
    {"{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\"resourceNames\":[\"a\"],\"verbs\":["
     "\"list\"]}",
     "list", "", "configmaps", "", "", NULL, false},
    {"{\"nonResourceURLs\":[\"/healthz\"],\"verbs\":[\"get\"]}", "get", NULL, NULL, NULL, NULL,
     "/healthz", true},
    {"{\"nonResourceURLs\":[\"/healthz\"],\"verbs\":[\"get\"]}", "get", NULL, NULL, NULL, NULL,
     "/healthz/etcd", false},
    {"{\"nonResourceURLs\":[\"/healthz/*\"],\"verbs\":[\"get\"]}", "get", NULL, NULL, NULL, NULL,
     "/healthz/etcd", true},
    {"{\"nonResourceURLs\":[\"*\"],\"verbs\":[\"post\"]}", "get", NULL, NULL, NULL, NULL, "/x",
     false},
    {"{\"nonResourceURLs\":[\"*\"],\"verbs\":[\"*\"]}", "get", "", "pods", "", "", NULL, false},
    {"{\"apiGroups\":[\"*\"],\"resources\":[\"*\"],\"verbs\":[\"*\"]}", "get", NULL, NULL, NULL,
     NULL, "/metrics", false},
};

static authz_attrs_t
attrs(const rule_case_t *c, const authn_user_t *u)
{
    if (c->path != NULL)
        return (authz_attrs_t){.user = u, .verb = c->verb, .path = c->path};
    return (authz_attrs_t){.user = u,
                           .verb = c->verb,
                           .resource_request = true,
                           .api_group = c->group,
                           .resource = c->resource,
                           .subresource = c->sub,
                           .namespace_ = "default",
                           .name = c->name};
}

static void
test_rules(void)
{
    for (size_t i = 0; i < sizeof(rule_cases) / sizeof(rule_cases[0]); i++) {
        const rule_case_t *c = &rule_cases[i];
        json_t *rule = json_loads(c->rule, 0, NULL);
        authz_attrs_t a = attrs(c, NULL);
        tap_ok(authz__rule_allows(rule, &a) == c->want, "rule %zu: %s %s%s%s -> %s", i, c->verb,
               c->path != NULL ? c->path : c->resource, c->sub != NULL && *c->sub ? "/" : "",
               c->sub != NULL ? c->sub : "", c->want ? "allowed" : "not allowed");
        json_decref(rule);
    }
}

/* writable strings: authn_user_t holds char * */
static char g_dev[] = "dev", g_authed[] = "system:authenticated",
            g_sas[] = "system:serviceaccounts", g_team[] = "system:serviceaccounts:team",
            n_alice[] = "alice", n_sa[] = "system:serviceaccount:team:builder";
static char *alice_groups[] = {g_dev, g_authed};
static authn_user_t alice = {.name = n_alice, .groups = alice_groups, .n_groups = 2};
static char *sa_groups[] = {g_sas, g_team};
static authn_user_t sa = {.name = n_sa, .groups = sa_groups, .n_groups = 2};

static void
test_subjects(void)
{
    struct {
        const char *subject, *ns;
        const authn_user_t *u;
        bool want;
    } cases[] = {
        {"{\"kind\":\"User\",\"name\":\"alice\"}", "", &alice, true},
        {"{\"kind\":\"User\",\"name\":\"bob\"}", "", &alice, false},
        {"{\"kind\":\"Group\",\"name\":\"dev\"}", "", &alice, true},
        {"{\"kind\":\"Group\",\"name\":\"ops\"}", "", &alice, false},
        {"{\"kind\":\"ServiceAccount\",\"name\":\"builder\",\"namespace\":\"team\"}", "", &sa,
         true},
        {"{\"kind\":\"ServiceAccount\",\"name\":\"builder\"}", "team", &sa, true},
        {"{\"kind\":\"ServiceAccount\",\"name\":\"builder\"}", "", &sa, false},
        {"{\"kind\":\"ServiceAccount\",\"name\":\"build\",\"namespace\":\"team\"}", "", &sa, false},
        {"{\"kind\":\"ServiceAccount\",\"name\":\"builder\",\"namespace\":\"tea\"}", "", &sa,
         false},
        {"{\"kind\":\"Group\",\"name\":\"system:serviceaccounts:team\"}", "", &sa, true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *s = json_loads(cases[i].subject, 0, NULL);
        tap_ok(authz__subject_applies(s, cases[i].u, cases[i].ns) == cases[i].want,
               "subject %s in \"%s\" %s %s", cases[i].subject, cases[i].ns,
               cases[i].want ? "names" : "does not name", cases[i].u->name);
        json_decref(s);
    }
}

static const char *const policy =
    "{\"roles\":[{\"metadata\":{\"name\":\"cm\",\"namespace\":\"default\"},"
    "\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\"verbs\":[\"get\"]}]}],"
    "\"clusterRoles\":[{\"metadata\":{\"name\":\"pods\"},"
    "\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\",\"list\"]}]},"
    "{\"metadata\":{\"name\":\"health\"},"
    "\"rules\":[{\"nonResourceURLs\":[\"/healthz\"],\"verbs\":[\"get\"]}]}],"
    "\"bindings\":[{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\"},"
    "\"roleRef\":{\"kind\":\"Role\",\"name\":\"cm\"},\"subjects\":[{\"kind\":\"User\",\"name\":"
    "\"alice\"}]},"
    "{\"metadata\":{\"name\":\"b\",\"namespace\":\"default\"},"
    "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"pods\"},\"subjects\":[{\"kind\":\"Group\","
    "\"name\":\"dev\"}]},"
    "{\"metadata\":{\"name\":\"c\",\"namespace\":\"other\"},"
    "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"gone\"},\"subjects\":[{\"kind\":\"User\","
    "\"name\":\"alice\"}]},"
    "{\"metadata\":{\"name\":\"s\",\"namespace\":\"team\"},"
    "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"pods\"},\"subjects\":[{\"kind\":\"User\","
    "\"name\":\"x\\\"y\"},{\"kind\":\"ServiceAccount\",\"name\":\"builder\"}]}],"
    "\"clusterBindings\":[{\"metadata\":{\"name\":\"h\"},"
    "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"health\"},\"subjects\":[{\"kind\":\"Group\","
    "\"name\":\"system:authenticated\"}]}]}";

static bool
allowed(const authz_rbac_snap_t *s, const char *verb, const char *resource, const char *ns,
        char *why)
{
    authz_attrs_t a = {.user = &alice,
                       .verb = verb,
                       .resource_request = true,
                       .api_group = "",
                       .resource = resource,
                       .subresource = "",
                       .namespace_ = ns,
                       .name = ""};
    return authz_rbac_allows(s, &a, why, 256);
}

/* kube's "RBAC: allowed by" reasons: a RoleBinding as "<name>/<namespace>", a service account
 * subject as "<name>/<namespace>" (its binding's when it names none). */
static void
test_allow_reasons(const authz_rbac_snap_t *s)
{
    char why[256];
    authz_attrs_t a = {.user = &sa,
                       .verb = "get",
                       .resource_request = true,
                       .api_group = "",
                       .resource = "pods",
                       .subresource = "",
                       .namespace_ = "team",
                       .name = ""};

    tap_ok(allowed(s, "get", "configmaps", "default", why), "alice may get configmaps");
    tap_is_str(why, "RBAC: allowed by RoleBinding \"a/default\" of Role \"cm\" to User \"alice\"",
               "... by the RoleBinding, named with its namespace");
    tap_ok(allowed(s, "get", "pods", "default", why), "alice may get pods");
    tap_is_str(
        why, "RBAC: allowed by RoleBinding \"b/default\" of ClusterRole \"pods\" to Group \"dev\"",
        "... through her group");
    tap_ok(authz_rbac_allows(s, &a, why, sizeof(why)), "the service account may get pods");
    tap_is_str(why,
               "RBAC: allowed by RoleBinding \"s/team\" of ClusterRole \"pods\" to ServiceAccount "
               "\"builder/team\"",
               "... named in the binding's namespace, the first subject naming it");
}

static void
count_rule(const json_t *rule, void *ctx)
{
    (void)rule;
    (*(int *)ctx)++;
}

static void
test_covers(const authz_rbac_snap_t *s)
{
    json_t *held = json_loads(
        "[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}]", 0, NULL);
    json_t *more = json_loads("[{\"apiGroups\":[\"\"],\"resources\":[\"pods\",\"secrets\"],"
                              "\"verbs\":[\"get\",\"list\",\"delete\"]}]",
                              0, NULL);
    char *missing = NULL;

    tap_ok(authz_rbac_covers(s, &alice, "default", held, &missing), "held rules are covered");
    tap_ok(missing == NULL, "nothing missing");
    tap_ok(!authz_rbac_covers(s, &alice, "default", more, &missing), "more than held is not");
    tap_is_str(missing,
               "user \"alice\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant "
               "RBAC permissions not currently held:\n"
               "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}\n"
               "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"list\" \"delete\"]}",
               "kube's message, compacted");
    free(missing);
    tap_ok(!authz_rbac_covers(s, &alice, "", held, NULL), "not held cluster-wide");
    tap_ok(authz_rbac_rules_cover(more, json_array_get(held, 0)), "rules_cover: subset");
    tap_ok(!authz_rbac_rules_cover(held, json_array_get(more, 0)), "rules_cover: superset");
    json_decref(held);
    json_decref(more);
}

static void
test_snapshot(void)
{
    json_t *p = json_loads(policy, 0, NULL);
    authz_rbac_snap_t *s =
        authz_rbac_snap_new(json_object_get(p, "roles"), json_object_get(p, "clusterRoles"),
                            json_object_get(p, "bindings"), json_object_get(p, "clusterBindings"));
    char why[256];
    authz_attrs_t health = {.user = &alice, .verb = "get", .path = "/healthz"};
    int n = 0;

    json_decref(p); /* the snapshot keeps what it needs */
    tap_ok(allowed(s, "get", "configmaps", "default", why), "Role through a RoleBinding");
    tap_ok(!allowed(s, "list", "configmaps", "default", why), "not a verb the Role grants");
    tap_is_str(why, "", "no reason when nothing applies");
    tap_ok(allowed(s, "list", "pods", "default", why), "ClusterRole through a RoleBinding (group)");
    tap_ok(!allowed(s, "list", "pods", "", why), "... but not cluster-wide");
    tap_ok(!allowed(s, "list", "pods", "kube-system", why), "... nor in another namespace");
    tap_ok(!allowed(s, "get", "secrets", "other", why), "a binding to a missing role");
    tap_is_str(why, "RBAC: clusterrole.rbac.authorization.k8s.io \"gone\" not found",
               "names the missing role, as kube does");
    tap_ok(authz_rbac_allows(s, &health, why, sizeof(why)), "non-resource URL via a group");
    tap_is_str(why,
               "RBAC: allowed by ClusterRoleBinding \"h\" of ClusterRole \"health\" to Group "
               "\"system:authenticated\"",
               "kube's allow reason: the ClusterRoleBinding and the group");
    test_allow_reasons(s);
    tap_is_int(authz_rbac_visit(s, &alice, "other", count_rule, &n), 1, "visit: one missing role");
    tap_is_int(n, 1, "visit: the cluster-wide rule only in \"other\"");
    n = 0;
    authz_rbac_visit(s, &alice, "default", count_rule, &n);
    tap_is_int(n, 3, "visit: three rules in \"default\"");
    tap_ok(authz_rbac_role_rules(s, "default", "Role", "cm") != NULL, "role_rules: Role");
    tap_ok(authz_rbac_role_rules(s, "other", "Role", "cm") == NULL, "role_rules: namespaced");

    authz_rbac_publish(authz_rbac_snap_ref(s));
    authz_rbac_snap_t *cur = authz_rbac_current();
    tap_ok(cur == s, "publish then current");
    authz_rbac_snap_unref(cur);
    authz_rbac_publish(NULL);
    tap_ok(authz_rbac_current() == NULL, "cleared");
    test_covers(s);
    authz_rbac_snap_unref(s);
}

int
main(void)
{
    test_rules();
    test_subjects();
    test_snapshot();
    return tap_done();
}
