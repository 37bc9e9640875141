/* The garbage collector's dependency graph and its decisions (no I/O; see gw_gc_graph.h). */
#include "gw_gc_graph.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_json_strings.h"

/* ---- a string-keyed table of nodes ---------------------------------------------------------- */

typedef struct entry {
    const char *key; /* the node's own string */
    gw_gc_node_t *node;
    struct entry *next;
} entry_t;

typedef struct {
    entry_t **buckets;
    size_t n_buckets, count;
} table_t;

static size_t
hash(const char *s)
{
    size_t h = 14695981039346656037u; /* FNV-1a */

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static entry_t **
slot(const table_t *t, const char *key)
{
    entry_t **e = &t->buckets[hash(key) & (t->n_buckets - 1)];

    while (*e != NULL && strcmp((*e)->key, key) != 0)
        e = &(*e)->next;
    return e;
}

static gw_gc_node_t *
table_get(const table_t *t, const char *key)
{
    entry_t *e = t->n_buckets > 0 ? *slot(t, key) : NULL;

    return e != NULL ? e->node : NULL;
}

static void
table_grow(table_t *t)
{
    size_t n = t->n_buckets > 0 ? t->n_buckets * 2 : 64;
    entry_t **b = gw_calloc(n, sizeof(*b));

    for (size_t i = 0; i < t->n_buckets; i++) {
        for (entry_t *e = t->buckets[i], *next; e != NULL; e = next) {
            next = e->next;
            size_t h = hash(e->key) & (n - 1);
            e->next = b[h];
            b[h] = e;
        }
    }
    free(t->buckets);
    t->buckets = b;
    t->n_buckets = n;
}

/* Map key (borrowed from node) to node, replacing what it mapped to. */
static void
table_put(table_t *t, const char *key, gw_gc_node_t *node)
{
    if (t->count + 1 > t->n_buckets)
        table_grow(t);
    entry_t **e = slot(t, key);
    if (*e != NULL) {
        (*e)->key = key;
        (*e)->node = node;
        return;
    }
    *e = gw_calloc(1, sizeof(**e));
    **e = (entry_t){.key = key, .node = node};
    t->count++;
}

static void
table_del(table_t *t, const char *key)
{
    entry_t **e = t->n_buckets > 0 ? slot(t, key) : NULL;

    if (e == NULL || *e == NULL)
        return;
    entry_t *gone = *e;
    *e = gone->next;
    free(gone);
    t->count--;
}

static void
table_free(table_t *t)
{
    for (size_t i = 0; i < t->n_buckets; i++) {
        for (entry_t *e = t->buckets[i], *next; e != NULL; e = next) {
            next = e->next;
            free(e);
        }
    }
    free(t->buckets);
}

struct gw_gc_graph {
    gw_gc_sink_t sink;
    table_t by_uid, by_key;
};

/* ---- parsing ------------------------------------------------------------------------------- */

static char *
dup_str(const json_t *o, const char *member)
{
    const char *s = json_string_value(json_object_get(o, member));
    return gw_strdup(s != NULL ? s : "");
}

gw_gc_ref_t *
gw_gc_refs_parse(const json_t *refs, size_t *n)
{
    size_t size = json_array_size(refs), i;
    gw_gc_ref_t *out = gw_calloc(size > 0 ? size : 1, sizeof(*out));
    const json_t *r;

    *n = 0;
    json_array_foreach(refs, i, r)
    {
        const char *uid = json_string_value(json_object_get(r, "uid"));
        if (uid == NULL || uid[0] == '\0')
            continue;
        out[(*n)++] =
            (gw_gc_ref_t){.api_version = dup_str(r, "apiVersion"),
                          .kind = dup_str(r, "kind"),
                          .name = dup_str(r, "name"),
                          .uid = gw_strdup(uid),
                          .block = json_is_true(json_object_get(r, "blockOwnerDeletion"))};
    }
    return out;
}

void
gw_gc_refs_free(gw_gc_ref_t *refs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(refs[i].api_version);
        free(refs[i].kind);
        free(refs[i].name);
        free(refs[i].uid);
    }
    free(refs);
}

bool
gw_gc_meta_parse(const json_t *o, gw_gc_meta_t *m)
{
    const json_t *meta = json_object_get(o, "metadata");
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    const json_t *fins = json_object_get(meta, "finalizers");

    memset(m, 0, sizeof(*m));
    if (uid == NULL || uid[0] == '\0')
        return false;
    m->uid = gw_strdup(uid);
    m->ns = dup_str(meta, "namespace");
    m->name = dup_str(meta, "name");
    m->api_version = dup_str(o, "apiVersion");
    m->kind = dup_str(o, "kind");
    m->owners = gw_gc_refs_parse(json_object_get(meta, "ownerReferences"), &m->n_owners);
    m->deleting = json_is_string(json_object_get(meta, "deletionTimestamp"));
    m->fin_orphan = gw_json_strings_has(fins, GW_GC_FINALIZER_ORPHAN);
    m->fin_fg = gw_json_strings_has(fins, GW_GC_FINALIZER_FOREGROUND);
    return true;
}

void
gw_gc_meta_clear(gw_gc_meta_t *m)
{
    free(m->uid);
    free(m->ns);
    free(m->name);
    free(m->api_version);
    free(m->kind);
    gw_gc_refs_free(m->owners, m->n_owners);
    memset(m, 0, sizeof(*m));
}

/* ---- nodes --------------------------------------------------------------------------------- */

static gw_gc_ref_t *
refs_copy(const gw_gc_ref_t *refs, size_t n)
{
    gw_gc_ref_t *out = gw_calloc(n > 0 ? n : 1, sizeof(*out));

    for (size_t i = 0; i < n; i++)
        out[i] = (gw_gc_ref_t){gw_strdup(refs[i].api_version), gw_strdup(refs[i].kind),
                               gw_strdup(refs[i].name), gw_strdup(refs[i].uid), refs[i].block};
    return out;
}

static void
node_free(gw_gc_node_t *n)
{
    free(n->uid);
    free(n->key);
    free(n->ns);
    free(n->name);
    free(n->api_version);
    free(n->kind);
    gw_gc_refs_free(n->owners, n->n_owners);
    free(n->deps);
    free(n);
}

static void
add_dep(gw_gc_node_t *owner, gw_gc_node_t *dep)
{
    for (size_t i = 0; i < owner->n_deps; i++)
        if (owner->deps[i] == dep)
            return;
    if (owner->n_deps == owner->cap_deps) {
        owner->cap_deps = owner->cap_deps > 0 ? owner->cap_deps * 2 : 4;
        owner->deps = gw_realloc(owner->deps, owner->cap_deps * sizeof(*owner->deps));
    }
    owner->deps[owner->n_deps++] = dep;
}

static void
del_dep(gw_gc_node_t *owner, const gw_gc_node_t *dep)
{
    for (size_t i = 0; i < owner->n_deps; i++) {
        if (owner->deps[i] == dep) {
            owner->deps[i] = owner->deps[--owner->n_deps];
            return;
        }
    }
}

static void
set_identity(gw_gc_node_t *n, const char *ns, const char *name, const char *api_version,
             const char *kind)
{
    free(n->ns);
    free(n->name);
    free(n->api_version);
    free(n->kind);
    n->ns = gw_strdup(ns);
    n->name = gw_strdup(name);
    n->api_version = gw_strdup(api_version);
    n->kind = gw_strdup(kind);
}

static void
attempt_delete(gw_gc_graph_t *g, const gw_gc_node_t *n)
{
    if (g->sink.attempt_delete != NULL)
        g->sink.attempt_delete(n, g->sink.ctx);
}

static const gw_gc_ref_t *
ref_to(const gw_gc_node_t *dep, const char *uid)
{
    for (size_t i = 0; i < dep->n_owners; i++)
        if (strcmp(dep->owners[i].uid, uid) == 0)
            return &dep->owners[i];
    return NULL;
}

static void
report_invalid(gw_gc_graph_t *g, const gw_gc_node_t *dep, const char *owner_uid)
{
    const gw_gc_ref_t *ref = ref_to(dep, owner_uid);

    if (ref != NULL && g->sink.invalid_namespace != NULL)
        g->sink.invalid_namespace(dep, ref, g->sink.ctx);
}

static bool
coordinates_match(const gw_gc_ref_t *r, const gw_gc_node_t *n)
{
    return strcmp(r->name, n->name) == 0 && strcmp(r->kind, n->kind) == 0 &&
           strcmp(r->api_version, n->api_version) == 0;
}

/* kube's addDependentToOwners: owners not in the graph become virtual nodes to verify; an
 * owner whose observed place does not fit the reference gets the dependent verified. */
static void
add_to_owners(gw_gc_graph_t *g, gw_gc_node_t *n, const gw_gc_ref_t *owners, size_t count)
{
    bool suspect = false;

    for (size_t i = 0; i < count; i++) {
        const gw_gc_ref_t *r = &owners[i];
        gw_gc_node_t *o = table_get(&g->by_uid, r->uid);
        if (o == NULL) {
            o = gw_calloc(1, sizeof(*o));
            o->uid = gw_strdup(r->uid);
            set_identity(o, n->ns, r->name, r->api_version, r->kind);
            table_put(&g->by_uid, o->uid, o);
            add_dep(o, n);
            attempt_delete(g, o);
            continue;
        }
        add_dep(o, n);
        if (suspect)
            continue;
        bool namespaced = o->ns[0] != '\0';
        if (namespaced && strcmp(o->ns, n->ns) != 0) {
            if (o->key != NULL)
                report_invalid(g, n, r->uid);
            suspect = true;
        } else if (!coordinates_match(r, o)) {
            suspect = true;
        } else if (!namespaced && strcmp(o->ns, n->ns) != 0 && o->key == NULL) {
            suspect = true;
        }
    }
    if (suspect)
        attempt_delete(g, n);
}

static void
remove_from_owners(gw_gc_graph_t *g, gw_gc_node_t *n, const gw_gc_ref_t *owners, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        gw_gc_node_t *o = table_get(&g->by_uid, owners[i].uid);
        if (o == NULL)
            continue;
        del_dep(o, n);
        if (o->key == NULL && o->n_deps == 0) { /* a virtual owner nobody names any more */
            table_del(&g->by_uid, o->uid);
            node_free(o);
        }
    }
}

/* ---- observing ------------------------------------------------------------------------------ */

/* kube's processTransitions, against the previous state (none for a new node). */
static void
transitions(gw_gc_graph_t *g, gw_gc_node_t *n, bool was_deleting, bool had_orphan, bool had_fg,
            const gw_gc_meta_t *m)
{
    if (m->deleting && m->fin_orphan && (!was_deleting || !had_orphan)) {
        if (g->sink.attempt_orphan != NULL)
            g->sink.attempt_orphan(n, g->sink.ctx);
        return;
    }
    if (m->deleting && m->fin_fg && (!was_deleting || !had_fg)) {
        n->deleting_deps = true;
        for (size_t i = 0; i < n->n_deps; i++)
            attempt_delete(g, n->deps[i]);
        attempt_delete(g, n);
    }
}

/* A virtual node is observed: dependents that named it elsewhere are verified (and reported
 * when its namespace is not theirs); then it takes the observed identity. */
static void
observe_virtual(gw_gc_graph_t *g, gw_gc_node_t *n, const gw_gc_meta_t *m)
{
    bool same = strcmp(n->ns, m->ns) == 0 && strcmp(n->name, m->name) == 0 &&
                strcmp(n->api_version, m->api_version) == 0 && strcmp(n->kind, m->kind) == 0;

    set_identity(n, m->ns, m->name, m->api_version, m->kind);
    for (size_t i = 0; i < n->n_deps && !same; i++) {
        gw_gc_node_t *dep = n->deps[i];
        const gw_gc_ref_t *r = ref_to(dep, n->uid);
        if (r != NULL && coordinates_match(r, n) && strcmp(dep->ns, m->ns) == 0)
            continue;
        if (m->ns[0] != '\0' && strcmp(dep->ns, m->ns) != 0)
            report_invalid(g, dep, n->uid);
        attempt_delete(g, dep);
    }
}

static bool
ref_equal(const gw_gc_ref_t *a, const gw_gc_ref_t *b)
{
    return a->block == b->block && strcmp(a->name, b->name) == 0 && strcmp(a->kind, b->kind) == 0 &&
           strcmp(a->api_version, b->api_version) == 0;
}

static const gw_gc_ref_t *
find_ref(const gw_gc_ref_t *refs, size_t n, const char *uid)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(refs[i].uid, uid) == 0)
            return &refs[i];
    return NULL;
}

/* kube's referencesDiffs and addUnblockedOwnersToDeleteQueue, then the new owners. */
static void
update_owners(gw_gc_graph_t *g, gw_gc_node_t *n, const gw_gc_meta_t *m)
{
    gw_gc_ref_t *old = n->owners, *added = gw_calloc(m->n_owners + 1, sizeof(*added));
    gw_gc_ref_t *removed = gw_calloc(n->n_owners + 1, sizeof(*removed));
    size_t n_old = n->n_owners, n_added = 0, n_removed = 0;
    bool changed = false;

    for (size_t i = 0; i < m->n_owners; i++) {
        const gw_gc_ref_t *was = find_ref(old, n_old, m->owners[i].uid);
        if (was == NULL)
            added[n_added++] = m->owners[i];
        else if (!ref_equal(was, &m->owners[i])) {
            changed = true;
            gw_gc_node_t *o = table_get(&g->by_uid, was->uid);
            if (was->block && !m->owners[i].block && o != NULL)
                attempt_delete(g, o);
        }
    }
    for (size_t i = 0; i < n_old; i++) {
        if (find_ref(m->owners, m->n_owners, old[i].uid) != NULL)
            continue;
        removed[n_removed++] = old[i];
        gw_gc_node_t *o = table_get(&g->by_uid, old[i].uid);
        if (old[i].block && o != NULL)
            attempt_delete(g, o);
    }
    if (n_added > 0 || n_removed > 0 || changed) {
        n->owners = refs_copy(m->owners, m->n_owners);
        n->n_owners = m->n_owners;
        add_to_owners(g, n, added, n_added);
        remove_from_owners(g, n, removed, n_removed);
        gw_gc_refs_free(old, n_old);
    }
    free(added);
    free(removed);
}

void
gw_gc_graph_observe(gw_gc_graph_t *g, const char *key, const gw_gc_meta_t *m, int64_t gen)
{
    gw_gc_node_t *n = table_get(&g->by_uid, m->uid);
    bool was_deleting = false, had_orphan = false, had_fg = false;

    if (n == NULL) {
        n = gw_calloc(1, sizeof(*n));
        n->uid = gw_strdup(m->uid);
        n->key = gw_strdup(key);
        set_identity(n, m->ns, m->name, m->api_version, m->kind);
        n->owners = refs_copy(m->owners, m->n_owners);
        n->n_owners = m->n_owners;
        n->being_deleted = m->deleting;
        n->deleting_deps = m->deleting && m->fin_fg;
        table_put(&g->by_uid, n->uid, n);
        table_put(&g->by_key, n->key, n);
        add_to_owners(g, n, n->owners, n->n_owners);
    } else {
        if (n->key == NULL) {
            observe_virtual(g, n, m);
        } else {
            was_deleting = n->being_deleted;
            had_orphan = n->fin_orphan;
            had_fg = n->fin_fg;
        }
        if (n->key == NULL || strcmp(n->key, key) != 0) {
            if (n->key != NULL)
                table_del(&g->by_key, n->key);
            free(n->key);
            n->key = gw_strdup(key);
            table_put(&g->by_key, n->key, n);
        }
        update_owners(g, n, m);
        n->being_deleted = n->being_deleted || m->deleting;
    }
    n->fin_orphan = m->fin_orphan;
    n->fin_fg = m->fin_fg;
    n->gen = gen;
    transitions(g, n, was_deleting, had_orphan, had_fg, m);
}

/* kube's removeNode plus what the delete event enqueues. */
static void
remove_node(gw_gc_graph_t *g, gw_gc_node_t *n)
{
    table_del(&g->by_uid, n->uid);
    if (n->key != NULL && table_get(&g->by_key, n->key) == n)
        table_del(&g->by_key, n->key);
    for (size_t i = 0; i < n->n_deps; i++)
        attempt_delete(g, n->deps[i]);
    for (size_t i = 0; i < n->n_owners; i++) {
        gw_gc_node_t *o = table_get(&g->by_uid, n->owners[i].uid);
        if (o != NULL && o->deleting_deps)
            attempt_delete(g, o);
    }
    remove_from_owners(g, n, n->owners, n->n_owners);
    node_free(n);
}

void
gw_gc_graph_remove_key(gw_gc_graph_t *g, const char *key)
{
    gw_gc_node_t *n = table_get(&g->by_key, key);

    if (n != NULL)
        remove_node(g, n);
}

void
gw_gc_graph_virtual_delete(gw_gc_graph_t *g, const char *uid)
{
    gw_gc_node_t *n = table_get(&g->by_uid, uid);

    if (n != NULL && n->key == NULL)
        remove_node(g, n);
}

typedef struct {
    json_t *uids;
    int64_t gen;
} stale_t;

static void
collect_stale(const gw_gc_node_t *n, void *ctx)
{
    stale_t *st = ctx;

    if (n->key != NULL && n->gen != st->gen)
        json_array_append_new(st->uids, json_string(n->uid));
}

/* By uid, not by key: a key the list saw again may hold another object (a new uid) now. */
void
gw_gc_graph_sweep(gw_gc_graph_t *g, int64_t gen)
{
    stale_t st = {json_array(), gen};
    size_t i;
    json_t *uid;

    gw_gc_graph_each(g, collect_stale, &st);
    json_array_foreach(st.uids, i, uid)
    {
        gw_gc_node_t *n = table_get(&g->by_uid, json_string_value(uid));
        if (n != NULL && n->key != NULL && n->gen != gen)
            remove_node(g, n);
    }
    json_decref(st.uids);
}

void
gw_gc_graph_each(const gw_gc_graph_t *g, void (*fn)(const gw_gc_node_t *n, void *ctx), void *ctx)
{
    for (size_t i = 0; i < g->by_uid.n_buckets; i++)
        for (entry_t *e = g->by_uid.buckets[i]; e != NULL; e = e->next)
            fn(e->node, ctx);
}

gw_gc_graph_t *
gw_gc_graph_new(const gw_gc_sink_t *sink)
{
    gw_gc_graph_t *g = gw_calloc(1, sizeof(*g));

    g->sink = *sink;
    return g;
}

void
gw_gc_graph_free(gw_gc_graph_t *g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->by_uid.n_buckets; i++)
        for (entry_t *e = g->by_uid.buckets[i]; e != NULL; e = e->next)
            node_free(e->node);
    table_free(&g->by_uid);
    table_free(&g->by_key);
    free(g);
}

gw_gc_node_t *
gw_gc_graph_get(const gw_gc_graph_t *g, const char *uid)
{
    return table_get(&g->by_uid, uid);
}

gw_gc_node_t *
gw_gc_graph_by_key(const gw_gc_graph_t *g, const char *key)
{
    return table_get(&g->by_key, key);
}

size_t
gw_gc_graph_count(const gw_gc_graph_t *g)
{
    return g->by_uid.count;
}

/* ---- decisions ------------------------------------------------------------------------------ */

bool
gw_gc_blocks(const gw_gc_node_t *dep, const char *owner_uid)
{
    const gw_gc_ref_t *r = ref_to(dep, owner_uid);
    return r != NULL && r->block;
}

gw_gc_node_t **
gw_gc_blocking_dependents(const gw_gc_node_t *n, size_t *count)
{
    gw_gc_node_t **out = gw_calloc(n->n_deps + 1, sizeof(*out));

    *count = 0;
    for (size_t i = 0; i < n->n_deps; i++)
        if (gw_gc_blocks(n->deps[i], n->uid))
            out[(*count)++] = n->deps[i];
    return out;
}

gw_gc_action_t
gw_gc_decide(const gw_gc_node_t *item, const gw_gc_class_t *cls, size_t n)
{
    size_t solid = 0, dangling = 0, waiting = 0;

    for (size_t i = 0; i < n; i++) {
        solid += cls[i] == GW_GC_SOLID;
        dangling += cls[i] == GW_GC_DANGLING;
        waiting += cls[i] == GW_GC_WAITING;
    }
    if (solid > 0)
        return dangling + waiting == 0 ? GW_GC_KEEP : GW_GC_REMOVE_REFS;
    if (waiting > 0 && item->n_deps > 0) {
        for (size_t i = 0; i < item->n_deps; i++)
            if (item->deps[i]->deleting_deps)
                return GW_GC_UNBLOCK_FOREGROUND; /* kube's cycle guard */
        return GW_GC_DELETE_FOREGROUND;
    }
    return GW_GC_DELETE;
}

gw_gc_policy_t
gw_gc_delete_policy(const json_t *live)
{
    const json_t *fins = gw_json_strings_at(live, "metadata", "finalizers");

    if (gw_json_strings_has(fins, GW_GC_FINALIZER_ORPHAN))
        return GW_GC_ORPHAN;
    if (gw_json_strings_has(fins, GW_GC_FINALIZER_FOREGROUND))
        return GW_GC_FOREGROUND;
    return GW_GC_BACKGROUND;
}

void
gw_gc_policy_finalizers(json_t *obj, gw_gc_policy_t policy)
{
    json_t *meta = gw_json_child(obj, "metadata");
    json_t *old = json_object_get(meta, "finalizers"), *out = json_array(), *f;
    size_t i;

    json_array_foreach(old, i, f)
    {
        const char *s = json_string_value(f);
        if (s == NULL ||
            (strcmp(s, GW_GC_FINALIZER_ORPHAN) != 0 && strcmp(s, GW_GC_FINALIZER_FOREGROUND) != 0))
            json_array_append(out, f);
    }
    if (policy == GW_GC_ORPHAN)
        json_array_append_new(out, json_string(GW_GC_FINALIZER_ORPHAN));
    if (policy == GW_GC_FOREGROUND)
        json_array_append_new(out, json_string(GW_GC_FINALIZER_FOREGROUND));
    if (json_array_size(out) > 0)
        json_object_set_new(meta, "finalizers", out);
    else {
        json_decref(out);
        json_object_del(meta, "finalizers");
    }
}

int64_t
gw_gc_pod_grace(const json_t *pod)
{
    const json_t *spec = json_object_get(pod, "spec");
    const json_t *tgps = json_object_get(spec, "terminationGracePeriodSeconds");
    const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    int64_t period = json_is_integer(tgps) ? json_integer_value(tgps) : 30;

    if (json_string_length(json_object_get(spec, "nodeName")) == 0)
        return 0;
    if (phase != NULL && (strcmp(phase, "Failed") == 0 || strcmp(phase, "Succeeded") == 0))
        return 0;
    return period < 0 ? 1 : period;
}

bool
gw_gc_remove_refs(json_t *obj, const char *const *uids, size_t n)
{
    json_t *meta = json_object_get(obj, "metadata");
    json_t *refs = json_object_get(meta, "ownerReferences");
    bool removed = false;
    size_t i = 0;

    while (i < json_array_size(refs)) {
        const char *uid = json_string_value(json_object_get(json_array_get(refs, i), "uid"));
        bool drop = false;
        for (size_t j = 0; uid != NULL && j < n && !drop; j++)
            drop = strcmp(uid, uids[j]) == 0;
        if (drop) {
            json_array_remove(refs, i);
            removed = true;
        } else {
            i++;
        }
    }
    if (refs != NULL && json_array_size(refs) == 0)
        json_object_del(meta, "ownerReferences");
    return removed;
}

bool
gw_gc_unblock_refs(json_t *obj)
{
    json_t *refs = json_object_get(json_object_get(obj, "metadata"), "ownerReferences");
    bool changed = false;
    size_t i;
    json_t *r;

    json_array_foreach(refs, i, r)
    {
        if (json_is_true(json_object_get(r, "blockOwnerDeletion"))) {
            json_object_set_new(r, "blockOwnerDeletion", json_false());
            changed = true;
        }
    }
    return changed;
}
