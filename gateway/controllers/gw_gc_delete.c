/*
 * The garbage collector's attempt-to-delete worker (kube's attemptToDeleteItem): the item is
 * read from etcd (gone or replaced: a virtual node of it leaves the graph), each of its live
 * ownerReferences is checked against etcd where it points (the dependent's namespace for a
 * namespaced owner), and the graph's decision is carried out: nothing, the dangling and
 * waiting references removed, or a delete with the propagation policy kube picks. An item
 * waiting for its own dependents (foreground) loses the finalizer once none blocks it.
 */
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_gc_int.h"
#include "gw_log.h"

#define NOT_SYNCED_MS 1000

typedef enum { FORGET, REQUEUE } end_t;

typedef struct {
    gw_gc_t *c;
    char *uid, *key, *ns;
    json_t *latest; /* the item as read */
    int64_t rev;
    gw_gc_ref_t *refs; /* latest's ownerReferences */
    size_t n_refs, next;
    gw_gc_class_t *cls;
    char *owner_uid;  /* the reference being checked */
    char *absent_key; /* ... and its absent-owner cache key */
} item_t;

static void
end(item_t *it, end_t how)
{
    gw_gc_t *c = it->c;

    if (!c->stopping) {
        if (how == REQUEUE)
            gw_workqueue_add_rate_limited(c->deletes, it->uid);
        else
            gw_workqueue_forget(c->deletes, it->uid);
        gw_workqueue_done(c->deletes, it->uid);
    }
    free(it->uid);
    free(it->key);
    free(it->ns);
    free(it->owner_uid);
    free(it->absent_key);
    json_decref(it->latest);
    gw_gc_refs_free(it->refs, it->n_refs);
    free(it->cls);
    free(it);
}

/* kube's virtual delete event: the item does not exist (as the graph knew it). */
static void
absent(item_t *it)
{
    gw_gc_graph_virtual_delete(it->c->graph, it->uid);
    end(it, FORGET);
}

/* A write for the item is over. */
static void
acted(int err, void *arg)
{
    item_t *it = arg;
    gw_gc_node_t *n;

    if (it->c->stopping) {
        end(it, FORGET);
    } else if (err == GW_ENOTFOUND) {
        absent(it);
    } else if (err != 0) {
        gw_log_warn(NULL, GW_GC__NAME ": %s: %s; retrying", it->key, gw_strerror(err));
        end(it, REQUEUE);
    } else {
        /* an item not yet seen by the watch comes again (kube: issue 56121) */
        n = gw_gc_graph_get(it->c->graph, it->uid);
        end(it, n != NULL && n->key == NULL ? REQUEUE : FORGET);
    }
}

/* kube's restMappingError, as its worker logs it. */
static void
unmapped(const item_t *it, const char *api_version, const char *kind)
{
    gw_log_info(NULL, GW_GC__NAME ": error syncing item %s: unable to get REST mapping for %s/%s.",
                it->key != NULL ? it->key : it->uid, api_version, kind);
}

/* ---- carrying out the decision --------------------------------------------------------------- */

static int
remove_refs(json_t *obj, void *arg)
{
    item_t *it = arg;
    const char **uids = gw_calloc(it->n_refs + 1, sizeof(*uids));
    size_t n = 0;

    for (size_t i = 0; i < it->n_refs; i++)
        if (it->cls[i] != GW_GC_SOLID)
            uids[n++] = it->refs[i].uid;
    gw_gc_remove_refs(obj, uids, n);
    free(uids);
    return 0;
}

static int
unblock(json_t *obj, void *arg)
{
    (void)arg;
    gw_gc_unblock_refs(obj);
    return 0;
}

static void
unblocked(int err, void *arg)
{
    item_t *it = arg;

    if (err != 0 || it->c->stopping)
        acted(err, it);
    else
        gw_gc__delete(it->c, it->key, it->uid, NULL, 0, NULL, GW_GC_FOREGROUND, acted, it);
}

static void
decide(item_t *it)
{
    gw_gc_t *c = it->c;
    gw_gc_node_t *n = gw_gc_graph_get(c->graph, it->uid);
    const json_t *owners =
        json_object_get(json_object_get(it->latest, "metadata"), "ownerReferences");

    if (n == NULL) {
        end(it, FORGET);
        return;
    }
    switch (gw_gc_decide(n, it->cls, it->n_refs)) {
    case GW_GC_KEEP:
        end(it, FORGET);
        break;
    case GW_GC_REMOVE_REFS:
        gw_gc__edit(c, it->key, it->uid, remove_refs, acted, it);
        break;
    case GW_GC_UNBLOCK_FOREGROUND:
        gw_gc__edit(c, it->key, it->uid, unblock, unblocked, it);
        break;
    case GW_GC_DELETE_FOREGROUND:
        gw_gc__delete(c, it->key, it->uid, it->latest, it->rev, owners, GW_GC_FOREGROUND, acted,
                      it);
        break;
    case GW_GC_DELETE:
        gw_log_debug(NULL, GW_GC__NAME ": deleting %s", it->key);
        gw_gc__delete(c, it->key, it->uid, it->latest, it->rev, owners,
                      gw_gc_delete_policy(it->latest), acted, it);
        break;
    }
}

/* ---- classifying the references -------------------------------------------------------------- */

static void classify_next(item_t *it);

static void
owner_read(int err, const gw_obj_t *obj, void *arg)
{
    item_t *it = arg;
    json_t *o = err == 0 ? gw_ctl__parse(obj) : NULL;
    const char *uid = json_string_value(json_object_get(json_object_get(o, "metadata"), "uid"));
    gw_gc_class_t cls = GW_GC_SOLID;

    if (it->c->stopping) {
        json_decref(o);
        end(it, FORGET);
        return;
    }
    if (err != 0 && err != GW_ENOTFOUND) {
        gw_log_warn(NULL, GW_GC__NAME ": owner of %s: %s; retrying", it->key, gw_strerror(err));
        json_decref(o);
        end(it, REQUEUE);
        return;
    }
    if (err == GW_ENOTFOUND || uid == NULL || strcmp(uid, it->owner_uid) != 0) {
        cls = GW_GC_DANGLING;
        gw_gc__absent_add(it->c, it->absent_key);
    } else if (gw_objmeta_deleting(o) &&
               gw_json_strings_has(gw_json_strings_at(o, "metadata", "finalizers"),
                                   GW_GC_FINALIZER_FOREGROUND))
        cls = GW_GC_WAITING;
    json_decref(o);
    it->cls[it->next++] = cls;
    classify_next(it);
}

/* kube's isDangling for the next reference, then the decision once all are classified. */
static void
classify_next(item_t *it)
{
    if (it->next == it->n_refs) {
        decide(it);
        return;
    }
    const gw_gc_ref_t *r = &it->refs[it->next];
    char *path = NULL;
    bool namespaced = false;
    if (gw_gc__absent_has(it->c, r, "") || gw_gc__absent_has(it->c, r, it->ns)) {
        it->cls[it->next++] = GW_GC_DANGLING; /* known absent: no read */
        classify_next(it);
        return;
    }
    if (gw_gc__resolve(it->c, r->api_version, r->kind, &path, &namespaced) != 0) {
        /* kube's restMappingError: maybe a kind not served yet; retried */
        unmapped(it, r->api_version, r->kind);
        end(it, REQUEUE);
        return;
    }
    if (namespaced && it->ns[0] == '\0') {
        /* kube's namespacedOwnerOfClusterScopedObjectErr: never resolves, not retried */
        free(path);
        end(it, FORGET);
        return;
    }
    char *key = gw_gc__object_key(path, namespaced, it->ns, r->name);
    free(path);
    free(it->owner_uid);
    it->owner_uid = gw_strdup(r->uid);
    free(it->absent_key);
    it->absent_key = gw_gc__absent_key(r, namespaced ? it->ns : "");
    int rc = gw_store_get(it->c->store, key, 0, owner_read, it);
    free(key);
    if (rc != 0)
        end(it, REQUEUE);
}

/* ---- the item -------------------------------------------------------------------------------- */

/* kube's processDeletingDependentsItem. */
static void
deleting_dependents(item_t *it, const gw_gc_node_t *n)
{
    size_t count;
    gw_gc_node_t **blocking = gw_gc_blocking_dependents(n, &count);

    if (count == 0) {
        gw_gc__remove_finalizer(it->c, it->key, it->uid, GW_GC_FINALIZER_FOREGROUND, acted, it);
    } else {
        for (size_t i = 0; i < count; i++)
            if (!blocking[i]->deleting_deps)
                gw_workqueue_add(it->c->deletes, blocking[i]->uid);
        end(it, FORGET);
    }
    free(blocking);
}

static void
item_read(int err, const gw_obj_t *obj, void *arg)
{
    item_t *it = arg;
    gw_gc_t *c = it->c;

    if (c->stopping) {
        end(it, FORGET);
        return;
    }
    if (err == GW_ENOTFOUND) {
        absent(it);
        return;
    }
    if (err != 0) {
        end(it, REQUEUE);
        return;
    }
    it->latest = gw_ctl__parse(obj);
    it->rev = obj->mod_revision;
    const json_t *meta = json_object_get(it->latest, "metadata");
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    gw_gc_node_t *n = gw_gc_graph_get(c->graph, it->uid);
    if (uid == NULL || strcmp(uid, it->uid) != 0) {
        absent(it);
    } else if (n == NULL) {
        end(it, FORGET);
    } else if (n->deleting_deps) {
        deleting_dependents(it, n);
    } else {
        it->refs = gw_gc_refs_parse(json_object_get(meta, "ownerReferences"), &it->n_refs);
        it->cls = gw_calloc(it->n_refs + 1, sizeof(*it->cls));
        if (it->n_refs == 0)
            end(it, FORGET);
        else
            classify_next(it);
    }
}

typedef enum { FOUND, NOT_OURS, UNMAPPED, NO_SUCH } where_t;

/* Where the item is: its key, or for a virtual node where its kind keeps `name` (*key: new). */
static where_t
item_key(gw_gc_t *c, const gw_gc_node_t *n, char **key)
{
    char *path = NULL;
    bool namespaced = false;

    *key = NULL;
    if (n->key != NULL) {
        int flags = gw_gc__key_flags(c, n->key);
        if (flags < 0 || !(flags & GW_GC__DELETABLE))
            return NOT_OURS;
        *key = gw_strdup(n->key);
        return FOUND;
    }
    if (gw_gc__resolve(c, n->api_version, n->kind, &path, &namespaced) != 0)
        return UNMAPPED;
    if (namespaced && n->ns[0] == '\0') {
        free(path);
        return NO_SUCH; /* a namespaced kind without a namespace: no such object */
    }
    *key = gw_gc__object_key(path, namespaced, n->ns, n->name);
    free(path);
    return FOUND;
}

void
gw_gc__attempt_delete(gw_workqueue_t *q, const char *uid, void *ctx)
{
    gw_gc_t *c = ctx;
    gw_gc_node_t *n = gw_gc_graph_get(c->graph, uid);

    if (!c->synced) { /* kube's workers start once the graph is synced */
        gw_workqueue_add_after(q, uid, NOT_SYNCED_MS);
        gw_workqueue_done(q, uid);
        return;
    }
    if (n == NULL || (n->being_deleted && !n->deleting_deps)) {
        gw_workqueue_forget(q, uid);
        gw_workqueue_done(q, uid);
        return;
    }
    item_t *it = gw_calloc(1, sizeof(*it));
    *it = (item_t){.c = c, .uid = gw_strdup(uid), .ns = gw_strdup(n->ns)};
    switch (item_key(c, n, &it->key)) {
    case NOT_OURS:
        end(it, FORGET); /* not a resource the collector deletes */
        return;
    case UNMAPPED:
        unmapped(it, n->api_version, n->kind); /* maybe a kind not served yet: retried */
        end(it, REQUEUE);
        return;
    case NO_SUCH:
        absent(it);
        return;
    case FOUND:
        break;
    }
    if (gw_store_get(c->store, it->key, 0, item_read, it) != 0)
        end(it, REQUEUE);
}
