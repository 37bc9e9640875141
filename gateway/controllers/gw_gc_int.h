#ifndef GATEWAY_CONTROLLERS_GW_GC_INT_H
#define GATEWAY_CONTROLLERS_GW_GC_INT_H

/* Internals the garbage collector's files share (gw_gc*.c). */

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>
#include <jansson.h>

#include "gw_catalog.h"
#include "gw_gc.h"
#include "gw_gc_graph.h"
#include "gw_store.h"
#include "gw_workqueue.h"

#define GW_GC__NAME "garbage-collector-controller"

struct gw_gc {
    etcd_client_t *client;
    struct event_base *base;
    const gw_catalog_t *fallback; /* the configured catalog, before any snapshot */
    etcd_conn_t *conn;            /* ours: reads, writes and the watch; freeing it cancels all */
    gw_store_t *store;
    gw_gc_graph_t *graph;
    gw_workqueue_t *deletes, *orphans; /* node uids */
    bool stopping;
    /* the builder */
    gw_store_watch_t *watch;
    struct event *relist, *resync;
    int64_t gen;      /* the list in progress */
    int64_t revision; /* what the graph is current to */
    bool synced;      /* a list completed: the workers may trust the graph */
    /* the storage paths of the catalog last looked at: path -> flags (PATH_*) */
    const gw_catalog_t *paths_of;
    json_t *paths;
    json_t *reported; /* "<dependent uid>/<owner uid>" of OwnerRefInvalidNamespace events sent */
    json_t *absent;   /* kube's absentOwnerCache: owner coordinates confirmed absent */
};

/* What a storage path holds (gw_gc__path_flags). */
enum {
    GW_GC__NAMESPACED = 1 << 0,
    GW_GC__DELETABLE = 1 << 1, /* delete, list and watch, and not ignored */
};

/** The flags of the resource stored under relative key `key` ("<path>/<name>" or
 *  "<path>/<namespace>/<name>"), or -1 when no served resource is stored there. */
int gw_gc__key_flags(gw_gc_t *c, const char *key);

/** Where objects of apiVersion/kind live: *path (new string) and *namespaced. GW_ENOTFOUND
 *  when the current catalog serves no such stored kind (kube's restMappingError). */
int gw_gc__resolve(gw_gc_t *c, const char *api_version, const char *kind, char **path,
                   bool *namespaced);

/** The relative key of `name` of a kind stored under path (ns ignored when cluster-scoped). */
char *gw_gc__object_key(const char *path, bool namespaced, const char *ns, const char *name);

/** The absent-owner cache key of reference r looked for in namespace ns ("" for a
 *  cluster-scoped owner): a new string. */
char *gw_gc__absent_key(const gw_gc_ref_t *r, const char *ns);

/** Remember that the owner of `key` (gw_gc__absent_key) does not exist (uids never come
 *  back). The cache holds at most 500 keys, as kube's; past that it starts over. */
void gw_gc__absent_add(gw_gc_t *c, const char *key);

/** Whether reference r looked for in ns is known to be absent. */
bool gw_gc__absent_has(gw_gc_t *c, const gw_gc_ref_t *r, const char *ns);

/* ---- the builder (gw_gc_builder.c) ---- */

/** List the whole store into the graph, then watch it. Thread: c's. */
void gw_gc__builder_start(gw_gc_t *c);

/** Stop watching (before the conn goes). */
void gw_gc__builder_stop(gw_gc_t *c);

/* ---- the workers (gw_gc_delete.c, gw_gc_orphan.c) ---- */

/** kube's attemptToDeleteItem for the node of `uid` (a work queue's process function). */
void gw_gc__attempt_delete(gw_workqueue_t *q, const char *uid, void *ctx);

/** kube's attemptToOrphanWorker for the node of `uid`. */
void gw_gc__attempt_orphan(gw_workqueue_t *q, const char *uid, void *ctx);

/* ---- the writes (gw_gc_write.c) ---- */

/** The end of a write: 0, or a negative GW_E* code. */
typedef void (*gw_gc__done_fn)(int err, void *arg);

/** Edit the object in place (return 0 to write what it left, nothing when unchanged; or a
 *  negative GW_E* code to stop with it). */
typedef int (*gw_gc__edit_fn)(json_t *obj, void *arg);

/**
 * Read-modify-write the object under `key` whose uid must be `uid` (GW_ENOTFOUND when it is
 * gone or another object), under its mod revision as precondition, again on a conflict (up
 * to 10 times). As the generic store's update, a write that leaves the object with a
 * deletionTimestamp and no finalizer removes it. done fires once (GW_ECANCELED when the
 * collector stops), from inside only when the read cannot be issued.
 */
void gw_gc__edit(gw_gc_t *c, const char *key, const char *uid, gw_gc__edit_fn edit,
                 gw_gc__done_fn done, void *arg);

/**
 * The generic store's delete of the object under `key` with preconditions uid and (rev > 0)
 * mod revision, and propagation `policy`, as kube's deleteObject sends it: the collector's
 * finalizers set for the policy; with finalizers left the object is marked (deletionTimestamp,
 * deletionGracePeriodSeconds 0, the next generation), else removed. On a conflict the object
 * is looked at again: gone or replaced counts as deleted, unchanged ownerReferences (`owners`,
 * those seen at rev) retry without the revision, else GW_ECONFLICT. `current` (may be NULL)
 * is the object as read at rev, which spares the first read. done fires once (maybe from
 * inside).
 */
void gw_gc__delete(gw_gc_t *c, const char *key, const char *uid, const json_t *current, int64_t rev,
                   const json_t *owners, gw_gc_policy_t policy, gw_gc__done_fn done, void *arg);

/** Remove `finalizer` from the object (kube's removeFinalizer). */
void gw_gc__remove_finalizer(gw_gc_t *c, const char *key, const char *uid, const char *finalizer,
                             gw_gc__done_fn done, void *arg);

/** Record the OwnerRefInvalidNamespace warning Event on dependent `dep` for reference `owner`
 *  (core v1 Event, as client-go's recorder writes it; once per pair). */
void gw_gc__report_invalid_namespace(gw_gc_t *c, const gw_gc_node_t *dep, const gw_gc_ref_t *owner);

#endif
