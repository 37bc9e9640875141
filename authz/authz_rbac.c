/* RBAC snapshots, the process's current one, and the authorizer deciding from it. */
#include "authz_rbac.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authz_rbac_int.h"
#include "gw_alloc.h"

struct authz_rbac_snap {
    atomic_int refs;
    json_t *roles;            /* "<ns>/<name>" -> rules array */
    json_t *cluster_roles;    /* name -> rules array */
    json_t *bindings;         /* namespace -> array of RoleBindings */
    json_t *cluster_bindings; /* array of ClusterRoleBindings */
};

static pthread_mutex_t current_mu = PTHREAD_MUTEX_INITIALIZER;
static authz_rbac_snap_t *current;

static const char *
meta_str(const json_t *o, const char *member)
{
    const char *v = json_string_value(json_object_get(json_object_get(o, "metadata"), member));
    return v != NULL ? v : "";
}

/* A role's rules; a role without any has an empty array, so that it still exists. */
static json_t *
rules_of(const json_t *role)
{
    json_t *rules = json_object_get(role, "rules");
    return json_is_array(rules) ? json_incref(rules) : json_array();
}

static void
index_roles(authz_rbac_snap_t *s, json_t *roles, json_t *cluster_roles)
{
    size_t i;
    json_t *o;

    json_array_foreach(roles, i, o)
    {
        char *key = gw_sprintf("%s/%s", meta_str(o, "namespace"), meta_str(o, "name"));
        json_object_set_new(s->roles, key, rules_of(o));
        free(key);
    }
    json_array_foreach(cluster_roles, i, o)
    {
        json_object_set_new(s->cluster_roles, meta_str(o, "name"), rules_of(o));
    }
}

static void
index_bindings(authz_rbac_snap_t *s, json_t *bindings, json_t *cluster_bindings)
{
    size_t i;
    json_t *o;

    json_array_foreach(bindings, i, o)
    {
        const char *ns = meta_str(o, "namespace");
        json_t *in_ns = json_object_get(s->bindings, ns);
        if (in_ns == NULL) {
            in_ns = json_array();
            json_object_set_new(s->bindings, ns, in_ns);
        }
        json_array_append(in_ns, o);
    }
    json_array_foreach(cluster_bindings, i, o)
    {
        json_array_append(s->cluster_bindings, o);
    }
}

authz_rbac_snap_t *
authz_rbac_snap_new(json_t *roles, json_t *cluster_roles, json_t *bindings,
                    json_t *cluster_bindings)
{
    authz_rbac_snap_t *s = gw_calloc(1, sizeof(*s));

    atomic_init(&s->refs, 1);
    s->roles = json_object();
    s->cluster_roles = json_object();
    s->bindings = json_object();
    s->cluster_bindings = json_array();
    index_roles(s, roles, cluster_roles);
    index_bindings(s, bindings, cluster_bindings);
    return s;
}

authz_rbac_snap_t *
authz_rbac_snap_ref(authz_rbac_snap_t *s)
{
    if (s != NULL)
        atomic_fetch_add(&s->refs, 1);
    return s;
}

void
authz_rbac_snap_unref(authz_rbac_snap_t *s)
{
    if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    json_decref(s->roles);
    json_decref(s->cluster_roles);
    json_decref(s->bindings);
    json_decref(s->cluster_bindings);
    free(s);
}

void
authz_rbac_publish(authz_rbac_snap_t *s)
{
    pthread_mutex_lock(&current_mu);
    authz_rbac_snap_t *old = current;
    current = s;
    pthread_mutex_unlock(&current_mu);
    authz_rbac_snap_unref(old);
}

authz_rbac_snap_t *
authz_rbac_current(void)
{
    pthread_mutex_lock(&current_mu);
    authz_rbac_snap_t *s = authz_rbac_snap_ref(current);
    pthread_mutex_unlock(&current_mu);
    return s;
}

const json_t *
authz_rbac_role_rules(const authz_rbac_snap_t *s, const char *ns, const char *kind,
                      const char *name)
{
    if (kind == NULL || name == NULL)
        return NULL;
    if (strcmp(kind, "ClusterRole") == 0)
        return json_object_get(s->cluster_roles, name);
    if (strcmp(kind, "Role") != 0 || ns == NULL)
        return NULL;
    char *key = gw_sprintf("%s/%s", ns, name);
    const json_t *rules = json_object_get(s->roles, key);
    free(key);
    return rules;
}

/* ---- walking the bindings that name a user --------------------------------------------- */

/* Called with each bound role's rules; false stops the walk. */
typedef bool (*rules_fn)(const json_t *rules, void *ctx);

typedef struct {
    size_t missing;
    char *errors; /* kube's wording of the missing roles, joined by ", " */
} walk_t;

static bool
binding_applies(const json_t *b, const authn_user_t *u, const char *ns)
{
    size_t i;
    json_t *subject;

    json_array_foreach(json_object_get(b, "subjects"), i, subject)
    {
        if (authz__subject_applies(subject, u, ns))
            return true;
    }
    return false;
}

static void
note_missing(walk_t *w, const char *kind, const char *name)
{
    char *err = gw_sprintf("%s.rbac.authorization.k8s.io \"%s\" not found",
                           strcmp(kind, "Role") == 0 ? "role" : "clusterrole", name);
    char *joined = w->errors == NULL ? err : gw_sprintf("%s, %s", w->errors, err);

    if (joined != err) {
        free(err);
        free(w->errors);
    }
    w->errors = joined;
    w->missing++;
}

static bool
walk_bindings(const authz_rbac_snap_t *s, const json_t *bindings, const authn_user_t *u,
              const char *ns, rules_fn fn, void *ctx, walk_t *w)
{
    size_t i;
    json_t *b;

    json_array_foreach(bindings, i, b)
    {
        if (!binding_applies(b, u, ns))
            continue;
        const json_t *ref = json_object_get(b, "roleRef");
        const char *kind = json_string_value(json_object_get(ref, "kind"));
        const char *name = json_string_value(json_object_get(ref, "name"));
        const json_t *rules = authz_rbac_role_rules(s, ns, kind, name);
        if (rules == NULL)
            note_missing(w, kind != NULL ? kind : "", name != NULL ? name : "");
        else if (!fn(rules, ctx))
            return false;
    }
    return true;
}

/* Cluster-wide bindings, then those of ns; false when fn stopped the walk. */
static bool
walk(const authz_rbac_snap_t *s, const authn_user_t *u, const char *ns, rules_fn fn, void *ctx,
     walk_t *w)
{
    if (!walk_bindings(s, s->cluster_bindings, u, "", fn, ctx, w))
        return false;
    if (ns == NULL || *ns == '\0')
        return true;
    return walk_bindings(s, json_object_get(s->bindings, ns), u, ns, fn, ctx, w);
}

/* ---- deciding --------------------------------------------------------------------------- */

/* Stops at the first rule allowing the request. */
static bool
check_rules(const json_t *rules, void *ctx)
{
    const authz_attrs_t *a = ctx;
    size_t i;
    json_t *rule;

    json_array_foreach(rules, i, rule)
    {
        if (authz__rule_allows(rule, a))
            return false;
    }
    return true;
}

bool
authz_rbac_allows(const authz_rbac_snap_t *s, const authz_attrs_t *attrs, char *why, size_t why_len)
{
    walk_t w = {0};
    bool allowed = attrs->user != NULL &&
                   !walk(s, attrs->user, attrs->namespace_, check_rules, (void *)attrs, &w);

    if (!allowed && why != NULL && why_len > 0) {
        /* kube prints one error as itself and several as a bracketed list */
        if (w.errors == NULL)
            why[0] = '\0';
        else
            snprintf(why, why_len, w.missing > 1 ? "RBAC: [%s]" : "RBAC: %s", w.errors);
    }
    free(w.errors);
    return allowed;
}

typedef struct {
    authz_rbac_rule_fn fn;
    void *ctx;
} visit_t;

static bool
visit_rules(const json_t *rules, void *ctx)
{
    visit_t *v = ctx;
    size_t i;
    json_t *rule;

    json_array_foreach(rules, i, rule)
    {
        v->fn(rule, v->ctx);
    }
    return true;
}

size_t
authz_rbac_visit(const authz_rbac_snap_t *s, const authn_user_t *user, const char *ns,
                 authz_rbac_rule_fn fn, void *ctx)
{
    visit_t v = {fn, ctx};
    walk_t w = {0};

    walk(s, user, ns, visit_rules, &v, &w);
    free(w.errors);
    return w.missing;
}

static void
rbac_authorize(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb,
               void *ctx)
{
    authz_rbac_snap_t *s = authz_rbac_current();
    char why[512] = "";
    (void)self;

    if (s != NULL && authz_rbac_allows(s, attrs, why, sizeof(why)))
        cb(AUTHZ_ALLOW, "", NULL, ctx);
    else
        cb(AUTHZ_NO_OPINION, why, NULL, ctx);
    authz_rbac_snap_unref(s);
}

static void
rbac_free(authz_authorizer_t *self)
{
    (void)self;
}

authz_authorizer_t authz_rbac_authorizer = {
    .name = "RBAC", .authorize = rbac_authorize, .free = rbac_free};
