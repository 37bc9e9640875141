#ifndef GATEWAY_CONTROLLERS_GW_GC_GRAPH_H
#define GATEWAY_CONTROLLERS_GW_GC_GRAPH_H

/*
 * The garbage collector's dependency graph (kube's uidToNode, graph.go and the graph half of
 * graph_builder.go): one node per object uid with only what the collector decides on (where
 * the object is stored, its identity, ownerReferences, whether it is being deleted and with
 * which of the two collector finalizers), and per node the nodes that name it as owner. An
 * owner named by some dependent but not (yet) seen is a "virtual" node, as in kube: the
 * attempt-to-delete worker confirms it exists or removes it.
 *
 * The graph does no I/O: what kube's graph builder enqueues (attempt to delete, attempt to
 * orphan) and the OwnerRefInvalidNamespace report are calls into a sink. The decisions of
 * kube's attemptToDeleteItem over classified references are pure functions here too.
 * Thread: one (the controller's loop).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The finalizers the collector acts on (metav1.FinalizerOrphanDependents and
 * metav1.FinalizerDeleteDependents). */
#define GW_GC_FINALIZER_ORPHAN "orphan"
#define GW_GC_FINALIZER_FOREGROUND "foregroundDeletion"

/* An ownerReference as the collector reads it. */
typedef struct {
    char *api_version, *kind, *name, *uid;
    bool block; /* blockOwnerDeletion: true */
} gw_gc_ref_t;

typedef struct gw_gc_node gw_gc_node_t;
struct gw_gc_node {
    char *uid;
    char *key;                /* relative storage key; NULL for a virtual node */
    char *ns, *name;          /* "" namespace: cluster-scoped (or unknown, virtual) */
    char *api_version, *kind; /* as stored, or as the first dependent named it (virtual) */
    gw_gc_ref_t *owners;      /* its ownerReferences */
    size_t n_owners;
    gw_gc_node_t **deps; /* the nodes naming it as owner */
    size_t n_deps, cap_deps;
    bool being_deleted;      /* deletionTimestamp seen (one way) */
    bool deleting_deps;      /* being deleted with foregroundDeletion: waits for dependents */
    bool fin_orphan, fin_fg; /* the finalizers of the last state seen */
    int64_t gen;             /* the list that last saw it */
};

/* An object's state as parsed from its stored JSON (gw_gc_meta_parse). */
typedef struct {
    char *uid, *ns, *name, *api_version, *kind;
    gw_gc_ref_t *owners;
    size_t n_owners;
    bool deleting, fin_orphan, fin_fg;
} gw_gc_meta_t;

typedef struct {
    void (*attempt_delete)(const gw_gc_node_t *n, void *ctx);
    void (*attempt_orphan)(const gw_gc_node_t *n, void *ctx);
    /* dependent `dep` names `owner`, observed in another namespace than dep's */
    void (*invalid_namespace)(const gw_gc_node_t *dep, const gw_gc_ref_t *owner, void *ctx);
    void *ctx;
} gw_gc_sink_t;

typedef struct gw_gc_graph gw_gc_graph_t;

/** Parse what the collector needs from a stored object (metadata.uid required). Returns
 *  false (and leaves *m empty) when o is not such an object. Free with gw_gc_meta_clear. */
bool gw_gc_meta_parse(const json_t *o, gw_gc_meta_t *m);

/** Free what gw_gc_meta_parse allocated. */
void gw_gc_meta_clear(gw_gc_meta_t *m);

/** Parse an ownerReferences array (missing or malformed entries are skipped): a new array of
 *  *n refs, free with gw_gc_refs_free. */
gw_gc_ref_t *gw_gc_refs_parse(const json_t *refs, size_t *n);

/** Free n refs and the array. */
void gw_gc_refs_free(gw_gc_ref_t *refs, size_t n);

/** A new empty graph reporting to `sink` (copied). */
gw_gc_graph_t *gw_gc_graph_new(const gw_gc_sink_t *sink);

/** Free the graph and every node. NULL is fine. */
void gw_gc_graph_free(gw_gc_graph_t *g);

/** The node of `uid`, or NULL. Borrowed until the graph changes. */
gw_gc_node_t *gw_gc_graph_get(const gw_gc_graph_t *g, const char *uid);

/** The observed node stored under `key`, or NULL. Borrowed until the graph changes. */
gw_gc_node_t *gw_gc_graph_by_key(const gw_gc_graph_t *g, const char *key);

/** Number of nodes (virtual ones included). */
size_t gw_gc_graph_count(const gw_gc_graph_t *g);

/**
 * An object under `key` was seen (added, updated, listed) in state m, by list generation
 * `gen`: kube's processGraphChanges for add and update events, with the transitions to
 * orphaning and to foreground deletion judged against the node's previous state.
 */
void gw_gc_graph_observe(gw_gc_graph_t *g, const char *key, const gw_gc_meta_t *m, int64_t gen);

/** The object under `key` is gone: its node goes, its dependents and its owners waiting for
 *  their dependents are attempted. */
void gw_gc_graph_remove_key(gw_gc_graph_t *g, const char *key);

/** kube's virtual delete event: the worker confirmed that `uid` does not exist; a virtual
 *  node of it goes and its dependents are attempted (an observed node stays: the watch
 *  reports its deletion). */
void gw_gc_graph_virtual_delete(gw_gc_graph_t *g, const char *uid);

/** After a complete list of generation `gen`: observed nodes it did not see are gone. */
void gw_gc_graph_sweep(gw_gc_graph_t *g, int64_t gen);

/** Call fn for every node (the graph must not change during the walk). */
void gw_gc_graph_each(const gw_gc_graph_t *g, void (*fn)(const gw_gc_node_t *n, void *ctx),
                      void *ctx);

/** Whether dependent `dep` names `owner_uid` with blockOwnerDeletion. */
bool gw_gc_blocks(const gw_gc_node_t *dep, const char *owner_uid);

/** kube's blockingDependents: the dependents of n that block its deletion, into a new array
 *  of *count borrowed nodes (free the array). */
gw_gc_node_t **gw_gc_blocking_dependents(const gw_gc_node_t *n, size_t *count);

/* How a reference of an object being judged turned out (kube's classifyReferences). */
typedef enum {
    GW_GC_SOLID,    /* the owner exists and does not wait for its dependents */
    GW_GC_DANGLING, /* no object with that uid where the reference points */
    GW_GC_WAITING,  /* the owner is being deleted in the foreground */
} gw_gc_class_t;

typedef enum {
    GW_GC_KEEP,               /* a solid owner and nothing to fix: nothing to do */
    GW_GC_REMOVE_REFS,        /* a solid owner: drop the dangling and waiting references */
    GW_GC_UNBLOCK_FOREGROUND, /* unblock its own references, then delete it in the foreground */
    GW_GC_DELETE_FOREGROUND,  /* an owner waits for it and it has dependents itself */
    GW_GC_DELETE,             /* no solid owner: delete it with the policy its finalizers say */
} gw_gc_action_t;

/**
 * kube's attemptToDeleteItem after classifyReferences: the action for node `item` whose live
 * references classified as cls[0..n).
 */
gw_gc_action_t gw_gc_decide(const gw_gc_node_t *item, const gw_gc_class_t *cls, size_t n);

typedef enum { GW_GC_BACKGROUND, GW_GC_FOREGROUND, GW_GC_ORPHAN } gw_gc_policy_t;

/** The propagation policy of the final delete (GW_GC_DELETE): an orphan finalizer already
 *  on the live object wins, then a foregroundDeletion one, else background. */
gw_gc_policy_t gw_gc_delete_policy(const json_t *live);

/**
 * The generic store's deletion finalizers for `policy` (deletionFinalizersForGarbageCollection
 * with an explicit policy): orphan and foregroundDeletion are removed from metadata.finalizers,
 * then the one the policy asks for is appended; an empty list is dropped.
 */
void gw_gc_policy_finalizers(json_t *obj, gw_gc_policy_t policy);

/** The grace period of a pod's delete without options (the pod strategy's CheckGracefulDelete):
 *  0 when it was never scheduled (no spec.nodeName) or has finished (phase Failed or
 *  Succeeded), else spec.terminationGracePeriodSeconds (default 30; negative: 1). */
int64_t gw_gc_pod_grace(const json_t *pod);

/** Remove from obj's metadata.ownerReferences the entries whose uid is among uids[0..n) (an
 *  emptied list is dropped). Returns whether something was removed. */
bool gw_gc_remove_refs(json_t *obj, const char *const *uids, size_t n);

/** Set blockOwnerDeletion false on obj's references that have it true (kube's
 *  unblockOwnerReferences). Returns whether something changed. */
bool gw_gc_unblock_refs(json_t *obj);

#endif
