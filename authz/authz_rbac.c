/* RBAC snapshots, the process's current one, and the authorizer deciding from it. */
#include "authz_rbac.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authz_rbac_int.h"
#include "gw_alloc.h"

/* A binding as decisions see it: the object, and its role's rules resolved when the snapshot
 * was built (NULL: the role does not exist). */
typedef struct {
    json_t *binding;
    const json_t *rules;
} entry_t;

/* One subject of one binding as a key. ServiceAccount subjects are keyed by the user name
 * they match (kube's system:serviceaccount:<ns>:<name>), so a user's bindings are those
 * under its name and under each of its groups. */
typedef struct {
    const char *ns;   /* the binding's namespace; "" for ClusterRoleBindings */
    const char *name; /* a user's or a group's; borrowed from the binding or from names */
    bool group;
    size_t pos; /* the binding's index in its scope's entries: the walk order */
} ref_t;

/* The bindings of one scope (ClusterRoleBindings, or the RoleBindings of all namespaces)
 * in the order a walk visits them, and their subjects sorted by key then position. */
typedef struct {
    entry_t *entries;
    size_t n_entries;
    ref_t *refs;
    size_t n_refs, cap_refs;
    json_t *names; /* the user names made for ServiceAccount subjects */
} scope_t;

struct authz_rbac_snap {
    atomic_int refs;
    json_t *roles;         /* "<ns>/<name>" -> rules array */
    json_t *cluster_roles; /* name -> rules array */
    scope_t cluster;       /* ClusterRoleBindings */
    scope_t local;         /* RoleBindings, keyed by namespace too */
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

/* ---- the bindings by subject -------------------------------------------------------------- */

static void
push_ref(scope_t *sc, const char *ns, const char *name, bool group, size_t pos)
{
    if (sc->n_refs == sc->cap_refs) {
        sc->cap_refs = sc->cap_refs != 0 ? sc->cap_refs * 2 : 16;
        sc->refs = gw_realloc(sc->refs, sc->cap_refs * sizeof(*sc->refs));
    }
    sc->refs[sc->n_refs++] = (ref_t){.ns = ns, .name = name, .group = group, .pos = pos};
}

/* Key subject of the binding at pos in ns as authz__subject_applies matches it; subjects
 * that can name no user are left out. */
static void
add_subject(scope_t *sc, const json_t *subject, const char *ns, size_t pos)
{
    const char *kind = json_string_value(json_object_get(subject, "kind"));
    const char *name = json_string_value(json_object_get(subject, "name"));
    const char *sa_ns = json_string_value(json_object_get(subject, "namespace"));

    if (kind == NULL || name == NULL)
        return;
    if (strcmp(kind, "User") == 0 || strcmp(kind, "Group") == 0) {
        push_ref(sc, ns, name, kind[0] == 'G', pos);
        return;
    }
    if (strcmp(kind, "ServiceAccount") != 0)
        return;
    if (sa_ns == NULL || *sa_ns == '\0')
        sa_ns = ns; /* kube's default: the binding's namespace */
    if (*sa_ns == '\0')
        return;
    char *user = gw_sprintf("system:serviceaccount:%s:%s", sa_ns, name);
    json_t *str = json_string_nocheck(user);
    json_array_append_new(sc->names, str);
    free(user);
    push_ref(sc, ns, json_string_value(str), false, pos);
}

static int
cmp_key(const ref_t *a, const ref_t *b)
{
    int c = strcmp(a->ns, b->ns);

    if (c == 0)
        c = (int)a->group - (int)b->group;
    return c != 0 ? c : strcmp(a->name, b->name);
}

static int
cmp_ref(const void *pa, const void *pb)
{
    const ref_t *a = pa, *b = pb;
    int c = cmp_key(a, b);

    if (c != 0)
        return c;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Bindings in the order of `bindings` (the walk's), with their roles resolved as a decision
 * in their namespace resolves them (cluster: in ""). */
static void
index_scope(const authz_rbac_snap_t *s, scope_t *sc, json_t *bindings, bool cluster)
{
    size_t i, j;
    json_t *b, *subject;

    sc->entries = gw_calloc(json_array_size(bindings), sizeof(*sc->entries));
    sc->names = json_array();
    json_array_foreach(bindings, i, b)
    {
        const char *ns = cluster ? "" : meta_str(b, "namespace");
        const json_t *ref = json_object_get(b, "roleRef");
        size_t pos = sc->n_entries++;

        sc->entries[pos] = (entry_t){
            .binding = json_incref(b),
            .rules = authz_rbac_role_rules(s, ns, json_string_value(json_object_get(ref, "kind")),
                                           json_string_value(json_object_get(ref, "name"))),
        };
        json_array_foreach(json_object_get(b, "subjects"), j, subject)
        {
            add_subject(sc, subject, ns, pos);
        }
    }
    if (sc->n_refs > 0) /* refs is NULL until the first */
        qsort(sc->refs, sc->n_refs, sizeof(*sc->refs), cmp_ref);
}

static void
scope_free(scope_t *sc)
{
    for (size_t i = 0; i < sc->n_entries; i++)
        json_decref(sc->entries[i].binding);
    free(sc->entries);
    free(sc->refs);
    json_decref(sc->names);
}

authz_rbac_snap_t *
authz_rbac_snap_new(json_t *roles, json_t *cluster_roles, json_t *bindings,
                    json_t *cluster_bindings)
{
    authz_rbac_snap_t *s = gw_calloc(1, sizeof(*s));

    atomic_init(&s->refs, 1);
    s->roles = json_object();
    s->cluster_roles = json_object();
    index_roles(s, roles, cluster_roles);
    index_scope(s, &s->cluster, cluster_bindings, true);
    index_scope(s, &s->local, bindings, false);
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
    scope_free(&s->cluster);
    scope_free(&s->local);
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
    char *errors;           /* kube's wording of the missing roles, joined by ", " */
    const entry_t *stopped; /* the binding whose rules stopped the walk */
    const char *stopped_ns; /* its scope: "" for a ClusterRoleBinding */
} walk_t;

static void
note_missing(walk_t *w, const json_t *binding)
{
    const json_t *ref = json_object_get(binding, "roleRef");
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    const char *name = json_string_value(json_object_get(ref, "name"));
    char *err = gw_sprintf("%s.rbac.authorization.k8s.io \"%s\" not found",
                           kind != NULL && strcmp(kind, "Role") == 0 ? "role" : "clusterrole",
                           name != NULL ? name : "");
    char *joined = w->errors == NULL ? err : gw_sprintf("%s, %s", w->errors, err);

    if (joined != err) {
        free(err);
        free(w->errors);
    }
    w->errors = joined;
    w->missing++;
}

/* A run of refs with one key: positions ascending. */
typedef struct {
    const ref_t *at, *end;
} run_t;

/* The refs of sc naming (ns, name, group). */
static run_t
find_run(const scope_t *sc, const char *ns, const char *name, bool group)
{
    ref_t key = {.ns = ns, .name = name, .group = group};
    size_t lo = 0, hi = sc->n_refs;

    if (sc->n_refs == 0)
        return (run_t){NULL, NULL};

    while (lo < hi) { /* the first ref not below key */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_key(&sc->refs[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    run_t r = {sc->refs + lo, sc->refs + lo};
    while (r.end < sc->refs + sc->n_refs && cmp_key(r.end, &key) == 0)
        r.end++;
    return r;
}

/* The lowest position left in the runs, taken from all of them: a binding naming the user
 * twice (by name and by a group, or one subject twice) is visited once, in walk order. */
static bool
next_pos(run_t *runs, size_t n, size_t *pos)
{
    size_t min = SIZE_MAX;

    for (size_t i = 0; i < n; i++) {
        if (runs[i].at < runs[i].end && runs[i].at->pos < min)
            min = runs[i].at->pos;
    }
    for (size_t i = 0; i < n; i++) {
        while (runs[i].at < runs[i].end && runs[i].at->pos == min)
            runs[i].at++;
    }
    *pos = min;
    return min != SIZE_MAX;
}

#define STACK_RUNS 8

/* The bindings of sc in ns naming u, in walk order; the one whose rules stopped fn, or NULL. */
static const entry_t *
walk_scope(const scope_t *sc, const char *ns, const authn_user_t *u, rules_fn fn, void *ctx,
           walk_t *w)
{
    run_t stack[STACK_RUNS];
    size_t n = 1 + u->n_groups, pos;
    run_t *runs = n <= STACK_RUNS ? stack : gw_calloc(n, sizeof(*runs));
    const entry_t *stopped = NULL;

    runs[0] = find_run(sc, ns, u->name != NULL ? u->name : "", false);
    for (size_t i = 0; i < u->n_groups; i++)
        runs[1 + i] = find_run(sc, ns, u->groups[i], true);
    while (stopped == NULL && next_pos(runs, n, &pos)) {
        const entry_t *e = &sc->entries[pos];
        if (e->rules == NULL)
            note_missing(w, e->binding);
        else if (!fn(e->rules, ctx))
            stopped = e;
    }
    if (runs != stack)
        free(runs);
    return stopped;
}

/* Cluster-wide bindings, then those of ns; false when fn stopped the walk (w->stopped). */
static bool
walk(const authz_rbac_snap_t *s, const authn_user_t *u, const char *ns, rules_fn fn, void *ctx,
     walk_t *w)
{
    if (u == NULL)
        return true;
    w->stopped_ns = "";
    w->stopped = walk_scope(&s->cluster, "", u, fn, ctx, w);
    if (w->stopped != NULL)
        return false;
    if (ns == NULL || *ns == '\0')
        return true;
    w->stopped_ns = ns;
    w->stopped = walk_scope(&s->local, ns, u, fn, ctx, w);
    return w->stopped == NULL;
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

/* Go's %q of an ASCII string: what kube's reasons quote names with. */
static char *
quoted(const char *s)
{
    size_t len = strlen(s), n = 0;
    char *out = gw_malloc(4 * len + 3);

    out[n++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\') {
            out[n++] = '\\';
            out[n++] = (char)*p;
        } else if (*p < 0x20 || *p == 0x7f) {
            n += (size_t)sprintf(out + n, "\\x%02x", *p);
        } else {
            out[n++] = (char)*p;
        }
    }
    out[n++] = '"';
    out[n] = '\0';
    return out;
}

/* kube's describeSubject: a ServiceAccount as "<name>/<namespace>". */
static char *
describe_subject(const json_t *subject, const char *ns)
{
    const char *kind = json_string_value(json_object_get(subject, "kind"));
    const char *name = json_string_value(json_object_get(subject, "name"));
    const char *sa_ns = json_string_value(json_object_get(subject, "namespace"));
    bool sa = strcmp(kind, "ServiceAccount") == 0;
    char *full =
        sa ? gw_sprintf("%s/%s", name, sa_ns != NULL && *sa_ns ? sa_ns : ns) : gw_strdup(name);
    char *q = quoted(full);
    char *out = gw_sprintf("%s %s", kind, q);

    free(q);
    free(full);
    return out;
}

/* kube's "RBAC: allowed by ..." naming the binding that allowed and the first of its
 * subjects naming u. */
static void
allow_reason(const walk_t *w, const authn_user_t *u, char *why, size_t why_len)
{
    const json_t *b = w->stopped->binding, *subject = NULL;
    const json_t *ref = json_object_get(b, "roleRef");
    const char *ns = w->stopped_ns;
    size_t i;

    json_array_foreach(json_object_get(b, "subjects"), i, subject)
    {
        if (authz__subject_applies(subject, u, ns))
            break;
    }
    char *name =
        *ns != '\0' ? gw_sprintf("%s/%s", meta_str(b, "name"), ns) : gw_strdup(meta_str(b, "name"));
    char *qname = quoted(name);
    const char *role = json_string_value(json_object_get(ref, "name"));
    char *qrole = quoted(role != NULL ? role : "");
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    char *who = describe_subject(subject, ns);

    snprintf(why, why_len, "RBAC: allowed by %s %s of %s %s to %s",
             *ns != '\0' ? "RoleBinding" : "ClusterRoleBinding", qname, kind != NULL ? kind : "",
             qrole, who);
    free(who);
    free(qrole);
    free(qname);
    free(name);
}

bool
authz_rbac_allows(const authz_rbac_snap_t *s, const authz_attrs_t *attrs, char *why, size_t why_len)
{
    walk_t w = {0};
    bool allowed = attrs->user != NULL &&
                   !walk(s, attrs->user, attrs->namespace_, check_rules, (void *)attrs, &w);

    if (why != NULL && why_len > 0) {
        if (allowed)
            allow_reason(&w, attrs->user, why, why_len);
        else if (w.errors == NULL)
            why[0] = '\0';
        else /* kube prints one error as itself and several as a bracketed list */
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
    char why[1024] = "";
    (void)self;

    if (s != NULL && authz_rbac_allows(s, attrs, why, sizeof(why)))
        cb(AUTHZ_ALLOW, why, NULL, ctx);
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
    .name = "RBAC", .label = "rbac", .authorize = rbac_authorize, .free = rbac_free};
