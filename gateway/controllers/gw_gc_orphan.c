/*
 * The garbage collector's attempt-to-orphan worker (kube's attemptToOrphanWorker): an owner
 * being deleted with the orphan finalizer is removed from the ownerReferences of every
 * dependent the graph knows (all at once; a dependent gone meanwhile is fine), then loses the
 * finalizer (and, with the last finalizer, is removed). Any failure retries the whole owner.
 */
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_gc_int.h"
#include "gw_log.h"

typedef struct {
    gw_gc_t *c;
    char *uid, *key;
    size_t pending;
    int failed; /* the first failure */
} owner_t;

static void
end(owner_t *o, bool requeue)
{
    gw_gc_t *c = o->c;

    if (!c->stopping) {
        if (requeue)
            gw_workqueue_add_rate_limited(c->orphans, o->uid);
        else
            gw_workqueue_forget(c->orphans, o->uid);
        gw_workqueue_done(c->orphans, o->uid);
    }
    free(o->uid);
    free(o->key);
    free(o);
}

static void
finalized(int err, void *arg)
{
    owner_t *o = arg;

    if (err != 0 && err != GW_ENOTFOUND && !o->c->stopping)
        gw_log_warn(NULL, GW_GC__NAME ": removing the orphan finalizer of %s: %s; retrying", o->key,
                    gw_strerror(err));
    end(o, err != 0 && err != GW_ENOTFOUND && !o->c->stopping);
}

static int
drop_ref(json_t *obj, void *arg)
{
    owner_t *o = arg;
    const char *uids[1] = {o->uid};

    gw_gc_remove_refs(obj, uids, 1);
    return 0;
}

static void
orphaned(int err, void *arg)
{
    owner_t *o = arg;

    if (err != 0 && err != GW_ENOTFOUND && o->failed == 0)
        o->failed = err;
    if (--o->pending > 0)
        return;
    if (o->c->stopping) {
        end(o, false);
    } else if (o->failed != 0) {
        gw_log_warn(NULL, GW_GC__NAME ": failed to orphan dependents of %s: %s; retrying", o->key,
                    gw_strerror(o->failed));
        end(o, true);
    } else {
        gw_gc__remove_finalizer(o->c, o->key, o->uid, GW_GC_FINALIZER_ORPHAN, finalized, o);
    }
}

void
gw_gc__attempt_orphan(gw_workqueue_t *q, const char *uid, void *ctx)
{
    gw_gc_t *c = ctx;
    gw_gc_node_t *n = gw_gc_graph_get(c->graph, uid);

    if (!c->synced) { /* the dependents are known once the graph is */
        gw_workqueue_add_after(q, uid, 1000);
        gw_workqueue_done(q, uid);
        return;
    }
    if (n == NULL || n->key == NULL) {
        gw_workqueue_forget(q, uid);
        gw_workqueue_done(q, uid);
        return;
    }
    owner_t *o = gw_calloc(1, sizeof(*o));
    *o = (owner_t){.c = c, .uid = gw_strdup(uid), .key = gw_strdup(n->key), .pending = 1};
    /* the dependents as the graph has them now (copied: the edits finish later) */
    json_t *deps = json_array();
    for (size_t i = 0; i < n->n_deps; i++)
        json_array_append_new(deps, json_pack("[s,s]", n->deps[i]->key, n->deps[i]->uid));
    size_t i;
    json_t *d;
    json_array_foreach(deps, i, d)
    {
        o->pending++;
        gw_gc__edit(c, json_string_value(json_array_get(d, 0)),
                    json_string_value(json_array_get(d, 1)), drop_ref, orphaned, o);
    }
    json_decref(deps);
    orphaned(0, o); /* the hold of the loop above */
}
