/* RBAC's index of bindings by subject: on a snapshot of many bindings (for the user by name,
 * by its groups, as a service account, for others, in other namespaces, to missing roles),
 * decisions, their reasons, the rules visited and escalation checks are those of a plain walk
 * of every binding, which this file keeps as the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authz_rbac.h"
#include "authz_rbac_int.h"
#include "gw_alloc.h"
#include "tap.h"

#define N_BINDINGS 600
#define N_CLUSTER_BINDINGS 200

static const char *const namespaces[] = {"default", "team", "other"};
static const char *const resources[] = {"pods", "configmaps", "secrets", "services"};
static const char *const verbs[] = {"get", "list", "delete"};
/* Roles that exist in every namespace and ClusterRoles that exist, then names of neither. */
static const char *const role_names[] = {"r0", "r1", "r2", "r3", "gone", "lost"};
#define N_ROLE_NAMES_STORED 4
static const char *const subjects[] = {
    "{\"kind\":\"User\",\"name\":\"alice\"}",
    "{\"kind\":\"User\",\"name\":\"bob\"}",
    "{\"kind\":\"User\",\"name\":\"carol\"}",
    "{\"kind\":\"Group\",\"name\":\"dev\"}",
    "{\"kind\":\"Group\",\"name\":\"ops\"}",
    "{\"kind\":\"Group\",\"name\":\"system:authenticated\"}",
    "{\"kind\":\"Group\",\"name\":\"system:serviceaccounts\"}",
    "{\"kind\":\"Group\",\"name\":\"system:serviceaccounts:team\"}",
    "{\"kind\":\"Group\",\"name\":\"g11\"}",
    "{\"kind\":\"ServiceAccount\",\"name\":\"builder\",\"namespace\":\"team\"}",
    "{\"kind\":\"ServiceAccount\",\"name\":\"builder\"}",
    "{\"kind\":\"ServiceAccount\",\"name\":\"builder\",\"namespace\":\"other\"}",
    "{\"kind\":\"User\",\"name\":\"system:serviceaccount:team:builder\"}",
    "{\"kind\":\"Robot\",\"name\":\"alice\"}",
    "{\"kind\":\"User\"}",
};
#define N_SUBJECTS (sizeof(subjects) / sizeof(subjects[0]))

/* A fixed pseudo-random sequence, so that a failure can be replayed. */
static unsigned rng = 12345;

static unsigned
next(unsigned n)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 16) % n;
}

/* Rules granting `verb` on the resource chosen by i, sometimes with a name or a URL. */
static json_t *
rules(unsigned i)
{
    json_t *r = json_pack("[{s:[s], s:[s], s:[s]}]", "apiGroups", "", "resources", resources[i % 4],
                          "verbs", verbs[(i / 4) % 3]);

    if (i % 5 == 0)
        json_object_set_new(json_array_get(r, 0), "resourceNames", json_pack("[s]", "x"));
    if (i % 7 == 0)
        json_array_append_new(
            r, json_pack("{s:[s], s:[s]}", "nonResourceURLs", "/healthz", "verbs", "get"));
    return r;
}

static void
add_roles(json_t *roles, json_t *cluster_roles)
{
    for (unsigned i = 0; i < N_ROLE_NAMES_STORED; i++) {
        json_array_append_new(cluster_roles, json_pack("{s:{s:s}, s:o}", "metadata", "name",
                                                       role_names[i], "rules", rules(i * 3)));
        for (unsigned n = 0; n < 3; n++)
            json_array_append_new(roles, json_pack("{s:{s:s, s:s}, s:o}", "metadata", "name",
                                                   role_names[i], "namespace", namespaces[n],
                                                   "rules", rules(i * 5 + n)));
    }
}

/* A binding named after i with one to three subjects (sometimes one twice). */
static json_t *
binding(unsigned i, const char *ns)
{
    json_t *subs = json_array();
    unsigned n = 1 + next(3);
    const char *kind = ns == NULL || next(2) ? "ClusterRole" : "Role";
    char name[32];

    for (unsigned k = 0; k < n; k++)
        json_array_append_new(subs, json_loads(subjects[next(N_SUBJECTS)], 0, NULL));
    if (next(10) == 0)
        json_array_append(subs, json_array_get(subs, 0));
    snprintf(name, sizeof(name), "b%u", i);
    json_t *b = json_pack("{s:{s:s}, s:{s:s, s:s}, s:o}", "metadata", "name", name, "roleRef",
                          "kind", kind, "name", role_names[next(6)], "subjects", subs);
    if (ns != NULL)
        json_object_set_new(json_object_get(b, "metadata"), "namespace", json_string(ns));
    return b;
}

/* ---- the reference: every binding, in order ------------------------------------------------ */

typedef struct {
    json_t *bindings, *cluster_bindings;
} policy_t;

typedef struct {
    const json_t **rules; /* the rules visited, in order */
    size_t n, cap;
} seen_t;

static void
seen_add(const json_t *rule, void *ctx)
{
    seen_t *s = ctx;

    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->rules = gw_realloc(s->rules, s->cap * sizeof(*s->rules));
    }
    s->rules[s->n++] = rule;
}

static const json_t *
first_subject(const json_t *b, const authn_user_t *u, const char *ns)
{
    size_t i;
    json_t *subject;

    json_array_foreach(json_object_get(b, "subjects"), i, subject)
    {
        if (authz__subject_applies(subject, u, ns))
            return subject;
    }
    return NULL;
}

static char *
expected_allow(const json_t *b, const json_t *subject, const char *ns)
{
    const json_t *ref = json_object_get(b, "roleRef");
    const char *name = json_string_value(json_object_get(json_object_get(b, "metadata"), "name"));
    const char *kind = json_string_value(json_object_get(subject, "kind"));
    const char *sname = json_string_value(json_object_get(subject, "name"));
    const char *sns = json_string_value(json_object_get(subject, "namespace"));
    char who[128];

    if (strcmp(kind, "ServiceAccount") == 0)
        snprintf(who, sizeof(who), "%s \"%s/%s\"", kind, sname, sns != NULL ? sns : ns);
    else
        snprintf(who, sizeof(who), "%s \"%s\"", kind, sname);
    return gw_sprintf("RBAC: allowed by %s \"%s%s%s\" of %s \"%s\" to %s",
                      *ns ? "RoleBinding" : "ClusterRoleBinding", name, *ns ? "/" : "", ns,
                      json_string_value(json_object_get(ref, "kind")),
                      json_string_value(json_object_get(ref, "name")), who);
}

typedef struct {
    const authz_attrs_t *a; /* NULL: collect the rules into seen */
    seen_t seen;
    char *errors;
    size_t missing;
    char *allowed; /* the reason, once allowed */
} ref_walk_t;

static void
ref_missing(ref_walk_t *w, const json_t *ref)
{
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    char *err = gw_sprintf("%s.rbac.authorization.k8s.io \"%s\" not found",
                           strcmp(kind, "Role") == 0 ? "role" : "clusterrole",
                           json_string_value(json_object_get(ref, "name")));
    char *joined = w->errors ? gw_sprintf("%s, %s", w->errors, err) : gw_strdup(err);

    free(w->errors);
    free(err);
    w->errors = joined;
    w->missing++;
}

/* One binding: false once it allowed the request. */
static bool
ref_binding(const authz_rbac_snap_t *s, const json_t *b, const authn_user_t *u, const char *ns,
            ref_walk_t *w)
{
    const json_t *ref = json_object_get(b, "roleRef"), *subject = first_subject(b, u, ns);
    size_t i;
    json_t *rule;

    if (subject == NULL)
        return true;
    const json_t *rs = authz_rbac_role_rules(s, ns, json_string_value(json_object_get(ref, "kind")),
                                             json_string_value(json_object_get(ref, "name")));
    if (rs == NULL)
        ref_missing(w, ref);
    json_array_foreach(rs, i, rule)
    {
        if (w->a == NULL) {
            seen_add(rule, &w->seen);
        } else if (authz__rule_allows(rule, w->a)) {
            w->allowed = expected_allow(b, subject, ns);
            return false;
        }
    }
    return true;
}

static void
ref_walk(const authz_rbac_snap_t *s, const policy_t *p, const authn_user_t *u, const char *ns,
         ref_walk_t *w)
{
    size_t i;
    json_t *b;

    json_array_foreach(p->cluster_bindings, i, b)
    {
        if (!ref_binding(s, b, u, "", w))
            return;
    }
    if (ns == NULL || *ns == '\0')
        return;
    json_array_foreach(p->bindings, i, b)
    {
        const char *bns =
            json_string_value(json_object_get(json_object_get(b, "metadata"), "namespace"));
        if (strcmp(bns, ns) == 0 && !ref_binding(s, b, u, ns, w))
            return;
    }
}

static void
ref_walk_free(ref_walk_t *w)
{
    free(w->seen.rules);
    free(w->errors);
    free(w->allowed);
}

/* ---- the users and the comparisons ------------------------------------------------------- */

static char n_alice[] = "alice", n_bob[] = "bob", n_sa[] = "system:serviceaccount:team:builder",
            n_many[] = "many", g_dev[] = "dev", g_authed[] = "system:authenticated",
            g_sas[] = "system:serviceaccounts", g_team[] = "system:serviceaccounts:team",
            g_ops[] = "ops", g_x[] = "x", g_11[] = "g11";
static char *alice_groups[] = {g_dev, g_authed};
static char *sa_groups[] = {g_sas, g_team, g_authed};
/* more groups than a decision keeps on its stack, some twice */
static char *many_groups[] = {g_x, g_x, g_x, g_ops, g_x, g_x, g_x, g_x, g_ops, g_x, g_11};
static const authn_user_t users[] = {
    {.name = n_alice, .groups = alice_groups, .n_groups = 2},
    {.name = n_bob},
    {.name = n_sa, .groups = sa_groups, .n_groups = 3},
    {.name = n_many, .groups = many_groups, .n_groups = 11},
};

/* Request r of the grid: verb v on resource r (r < 4; get by name), or on /healthz. */
static authz_attrs_t
request(const authn_user_t *u, size_t r, size_t v, const char *ns)
{
    if (r == 4)
        return (authz_attrs_t){.user = u, .verb = verbs[v], .namespace_ = ns, .path = "/healthz"};
    return (authz_attrs_t){.user = u,
                           .verb = verbs[v],
                           .resource_request = true,
                           .api_group = "",
                           .resource = resources[r],
                           .subresource = "",
                           .namespace_ = ns,
                           .name = v == 0 ? "x" : ""};
}

/* The reference's decision and reason for a: whether allowed, the reason into want. */
static bool
ref_decide(const authz_rbac_snap_t *s, const policy_t *p, const authz_attrs_t *a, char *want,
           size_t len)
{
    ref_walk_t w = {.a = a};
    bool allowed;

    ref_walk(s, p, a->user, a->namespace_, &w);
    allowed = w.allowed != NULL;
    if (allowed)
        snprintf(want, len, "%s", w.allowed);
    else if (w.errors != NULL)
        snprintf(want, len, w.missing > 1 ? "RBAC: [%s]" : "RBAC: %s", w.errors);
    else
        want[0] = '\0';
    ref_walk_free(&w);
    return allowed;
}

/* Every request of the grid in ns: the same decision and reason as the reference walk. */
static void
compare_decisions(const authz_rbac_snap_t *s, const policy_t *p, const authn_user_t *u,
                  const char *ns, int *allowed)
{
    int bad = 0, total = 0;

    for (size_t r = 0; r < 5; r++) {
        for (size_t v = 0; v < 3; v++) {
            authz_attrs_t a = request(u, r, v, ns);
            char why[1024], want[1024];
            bool got = authz_rbac_allows(s, &a, why, sizeof(why));
            bool ref = ref_decide(s, p, &a, want, sizeof(want));
            if ((got != ref || strcmp(why, want) != 0) && bad++ == 0)
                tap_diag("%s %s in \"%s\": got %d \"%s\", want %d \"%s\"", verbs[v],
                         r < 4 ? resources[r] : "/healthz", ns, got, why, ref, want);
            *allowed += got;
            total++;
        }
    }
    tap_ok(bad == 0, "%s in \"%s\": %d decisions and reasons as the full walk's", u->name, ns,
           total);
}

static void
compare_visit(const authz_rbac_snap_t *s, const policy_t *p, const authn_user_t *u, const char *ns)
{
    ref_walk_t w = {0};
    seen_t got = {0};
    size_t missing = authz_rbac_visit(s, u, ns, seen_add, &got);

    ref_walk(s, p, u, ns, &w);
    tap_ok(missing == w.missing && got.n == w.seen.n &&
               (got.n == 0 || memcmp(got.rules, w.seen.rules, got.n * sizeof(*got.rules)) == 0),
           "%s in \"%s\": the %zu rules (%zu roles missing) of the full walk, in its order",
           u->name, ns, w.seen.n, w.missing);
    free(got.rules);
    ref_walk_free(&w);
}

/* authz_rbac_covers against a check of each wanted rule over the reference's rules. */
static void
compare_covers(const authz_rbac_snap_t *s, const policy_t *p, const authn_user_t *u, const char *ns)
{
    int bad = 0;

    for (unsigned i = 0; i < 12; i++) {
        json_t *want = rules(i);
        ref_walk_t w = {0};
        json_t *held = json_array();
        ref_walk(s, p, u, ns, &w);
        for (size_t k = 0; k < w.seen.n; k++)
            json_array_append(held, (json_t *)w.seen.rules[k]);
        bool ref =
            authz_rbac_rules_cover(held, json_array_get(want, 0)) &&
            (json_array_size(want) == 1 || authz_rbac_rules_cover(held, json_array_get(want, 1)));
        bad += authz_rbac_covers(s, u, ns, want, NULL) != ref;
        json_decref(held);
        json_decref(want);
        ref_walk_free(&w);
    }
    tap_ok(bad == 0, "%s in \"%s\": escalation checks as over the full walk's rules", u->name, ns);
}

static void
test_index(void)
{
    json_t *roles = json_array(), *cluster_roles = json_array();
    policy_t p = {json_array(), json_array()};
    const char *scopes[] = {"", "default", "team", "other", "absent"};
    int allowed = 0;

    add_roles(roles, cluster_roles);
    for (unsigned i = 0; i < N_CLUSTER_BINDINGS; i++)
        json_array_append_new(p.cluster_bindings, binding(i, NULL));
    for (unsigned i = 0; i < N_BINDINGS; i++)
        json_array_append_new(p.bindings, binding(i, namespaces[next(3)]));
    authz_rbac_snap_t *s =
        authz_rbac_snap_new(roles, cluster_roles, p.bindings, p.cluster_bindings);
    json_decref(roles); /* the snapshot keeps what it needs */
    json_decref(cluster_roles);
    for (size_t u = 0; u < sizeof(users) / sizeof(users[0]); u++) {
        for (size_t n = 0; n < sizeof(scopes) / sizeof(scopes[0]); n++) {
            compare_decisions(s, &p, &users[u], scopes[n], &allowed);
            compare_visit(s, &p, &users[u], scopes[n]);
            compare_covers(s, &p, &users[u], scopes[n]);
        }
    }
    tap_ok(allowed > 0 && allowed < 4 * 5 * 15, "some requests allowed (%d), some not", allowed);
    authz_rbac_snap_unref(s);
    json_decref(p.bindings);
    json_decref(p.cluster_bindings);
}

/* A snapshot of nothing (as before the first bindings are read): no opinion, no rules. */
static void
test_empty(void)
{
    authz_rbac_snap_t *s = authz_rbac_snap_new(NULL, NULL, NULL, NULL);
    authz_attrs_t a = request(&users[0], 0, 0, "default");
    char why[64] = "x";
    seen_t seen = {0};

    tap_ok(!authz_rbac_allows(s, &a, why, sizeof(why)), "empty snapshot: not allowed");
    tap_is_str(why, "", "... without a reason");
    tap_is_int(authz_rbac_visit(s, &users[0], "default", seen_add, &seen), 0,
               "... no role missing");
    tap_is_int(seen.n, 0, "... no rules");
    authz_rbac_snap_unref(s);
}

int
main(void)
{
    test_empty();
    test_index();
    return tap_done();
}
