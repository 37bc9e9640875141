#ifndef GATEWAY_STORAGE_GW_STORE_H
#define GATEWAY_STORAGE_GW_STORE_H

/*
 * The storage interface: what the REST layer asks of etcd, and nothing about HTTP.
 *
 * Layout (kube-apiserver compatible): every key is `<prefix>/<relative key>`, where the
 * relative key is `<resource path>/<namespace>/<name>` or, cluster-scoped,
 * `<resource path>/<name>`. An object's resourceVersion is its etcd mod_revision.
 *
 * Values: callers give and get the objects' JSON bytes, opaque here. What etcd holds is what
 * the store's value transformer (gw_transformer.h) makes of them: every value read (gets, list
 * items, the current object of a failed transaction or a guaranteed update, deletions' last
 * values, watch events and their previous values) goes through from_storage, every value
 * written through to_storage. A value from_storage refuses (a corrupt one, or one no
 * configured encryption provider can decrypt) is handed up as stored with the transformer's
 * reason in gw_obj_t.unreadable, so the layers above treat it as the corrupt object it is (as
 * kube-apiserver's corrupt-object errors) and can answer with kube's words.
 *
 * A gw_store_t belongs to one worker thread (it wraps that worker's etcd_conn_t). Every
 * operation is asynchronous: it returns 0 when started (its callback fires exactly once, on
 * the worker's thread, never from inside the starting call) or GW_EINVAL for a malformed
 * request (no callback). Objects passed to callbacks are views valid only during the callback.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;

#include "etcd.h"
#include "gw_transformer.h"

typedef struct gw_store gw_store_t;

/** A stored object as a view: bytes owned by the store, valid during the callback. `value` is
 *  never NULL (an empty value points at an empty string). */
typedef struct {
    const char *key; /* relative key, NUL-terminated */
    const uint8_t *value;
    size_t value_len;
    int64_t mod_revision; /* the resourceVersion */
    int64_t create_revision;
    int64_t lease;
    uint8_t *owned;         /* the store's: a transcoded value it frees after the callback */
    int64_t revision;       /* gets: the store's revision the read saw (0 elsewhere) */
    const char *unreadable; /* NULL, or why from_storage refused the value (then value is the
                               bytes as stored): the transformer's words */
    bool stale;             /* read through an older key or provider (gw_value_t.stale) */
} gw_obj_t;

/**
 * The relative etcd path of a resource, as kube-apiserver lays it out: built-in resources
 * use the resource name alone, with kube-apiserver's historical exceptions (nodes ->
 * "minions", services -> "services/specs", endpoints -> "services/endpoints",
 * replicationcontrollers -> "controllers", ingresses -> "ingress"); custom resources (any
 * group not built in, flagged by the caller) use "<group>/<resource>". Returns a new string;
 * the caller frees it. Thread: any.
 */
char *gw_store_resource_path(const char *group, const char *resource, bool custom);

/**
 * Name the group resource stored under resource_path ("deployments.apps" for "deployments"),
 * for the etcd metrics' `type` label, as kube labels them; the first naming of a path stays.
 * Custom resources need none. Thread: any (start-up, before requests).
 */
void gw_store_name_resource(const char *resource_path, const char *group_resource);

/**
 * The objects stored under resource_path at the last count (a named resource's: see
 * gw_store_name_resource), or -1 when not counted yet or the count failed. Thread: any.
 */
int64_t gw_store_object_count(const char *resource_path);

typedef struct gw_store_counter gw_store_counter_t;

/**
 * Count the objects of every named resource now and every period_ms (--etcd-count-metric-
 * poll-period), one etcd count at a time, into apiserver_storage_objects{resource} and
 * gw_store_object_count. The timer runs on `base`, conn's event_base. period_ms <= 0: no
 * counting (NULL). Thread: conn's.
 */
gw_store_counter_t *gw_store_counter_start(etcd_conn_t *conn, struct event_base *base,
                                           const char *prefix, int64_t period_ms);

/** Stop counting; a count in flight is let go. NULL is fine. Thread: conn's. */
void gw_store_counter_stop(gw_store_counter_t *c);

/**
 * Relative key of one object: "<resource path>/<ns>/<name>", or "<resource path>/<name>" when
 * ns is NULL or empty. Returns NULL when a segment is empty or contains '/' (or is "." or
 * ".."), so user input can never escape its collection. Caller frees. Thread: any.
 */
char *gw_store_object_key(const char *resource_path, const char *ns, const char *name);

/**
 * Relative prefix of a collection, ending in '/': "<resource path>/<ns>/" or
 * "<resource path>/" (all namespaces). NULL on a bad segment, as above. Caller frees.
 */
char *gw_store_collection_prefix(const char *resource_path, const char *ns);

/** The store's key prefix, with its trailing '/' ("/registry/"): a relative key after it is the
 *  etcd key, as kube's messages name it. Valid as long as s. Thread: any. */
const char *gw_store_prefix(const gw_store_t *s);

/**
 * A store over `conn` under `prefix` (--etcd-prefix, e.g. "/registry"; a trailing '/' is
 * ignored), its values through `values` (borrowed; it must outlive the store). NULL: values
 * are stored and read as they are (tests). The store does not own conn. Free with gw_store_free on
 * the same thread after every callback has fired (etcd_conn_free cancels outstanding ones) and
 * every guaranteed update is done (asserted). NULL is fine for gw_store_free.
 */
gw_store_t *gw_store_new(etcd_conn_t *conn, const char *prefix,
                         const gw_value_transformer_t *values);
void gw_store_free(gw_store_t *s);

/* ---- reads ------------------------------------------------------------------------------ */

typedef void (*gw_store_rev_cb)(int err, int64_t revision, void *ctx);
/** The store's current revision, read linearizably (what a consistent read pins to). */
int gw_store_current_revision(gw_store_t *s, gw_store_rev_cb cb, void *ctx);

typedef void (*gw_store_get_cb)(int err, const gw_obj_t *obj, void *ctx);
/**
 * Read one object, latest (revision 0, linearizable) or as it was at `revision`, from etcd.
 * Errors: GW_ENOTFOUND, GW_ECOMPACTED, GW_EFUTUREREV, and the transport ones.
 */
int gw_store_get(gw_store_t *s, const char *key, int64_t revision, gw_store_get_cb cb, void *ctx);

/** How fresh a read must be, and which read cache may answer it. */
typedef struct {
    const char *collection; /* the key's collection over all namespaces, as
                               gw_store_collection_prefix(path, NULL) makes it: that
                               collection's read cache may answer; NULL: etcd alone */
    bool relaxed;           /* any state at least min_revision new will do (resourceVersion "0"
                               or a NotOlderThan one); false: the latest (linearizable) */
    int64_t min_revision;
    bool confirm_missing; /* a relaxed read the cache finds nothing for asks etcd (kube's
                             listers with a live lookup behind them) */
} gw_read_opts_t;

/**
 * Read one object as `o` allows: from the read cache of its collection when the store has one
 * that can answer (gw_store_set_read_cache), else the latest from etcd. obj->revision is the
 * revision the answer is valid at (a relaxed read from the cache may be older than etcd's
 * latest, never older than min_revision). Errors as gw_store_get's.
 */
int gw_store_read(gw_store_t *s, const char *key, const gw_read_opts_t *o, gw_store_get_cb cb,
                  void *ctx);

typedef struct {
    const char *prefix;    /* relative collection prefix, from gw_store_collection_prefix;
                              "" lists the whole store */
    const char *start_key; /* relative key to start at (inclusive); NULL = start of prefix */
    int64_t revision;      /* 0 = latest (linearizable); else the pinned revision */
    int64_t limit;         /* items in this page; 0 = all (the caller bounds it) */
    /* what a read cache may answer (gw_read_opts_t's meaning; relaxed applies to revision 0):
     * without a collection the page comes from etcd */
    const char *collection;
    bool relaxed;
    int64_t min_revision;
} gw_list_req_t;

typedef struct {
    const gw_obj_t *items;
    size_t n_items;
    int64_t revision;     /* the revision this page was read at (pin the next pages to it) */
    bool more;            /* more items exist after this page at that revision */
    int64_t remaining;    /* how many items come after this page, at that revision */
    const char *next_key; /* relative start_key of the next page, or NULL when !more: the
                             key of the first item after this page (the store reads one
                             item past the limit), so pages at one revision neither skip
                             nor repeat a key */
} gw_list_page_t;

typedef void (*gw_store_list_cb)(int err, const gw_list_page_t *page, void *ctx);
/** Read one page of a collection, from its read cache when the request names a collection
 *  whose cache holds the state asked for, else from etcd. Errors: GW_ECOMPACTED,
 *  GW_EFUTUREREV, transport ones. GW_EINVAL when start_key does not begin with prefix, or
 *  limit < 0. */
int gw_store_list(gw_store_t *s, const gw_list_req_t *req, gw_store_list_cb cb, void *ctx);

/**
 * A read cache in front of etcd (gateway/watch/gw_read_cache.h implements one). Each hook
 * returns true when it takes the read (its callback then fires exactly once, later, on the
 * store's thread) and false to leave it to etcd. A taken read may still go to etcd in the end
 * (through gw_store_get or a gw_store_list without a collection).
 */
typedef struct {
    bool (*get)(void *impl, const char *key, const gw_read_opts_t *o, gw_store_get_cb cb,
                void *ctx);
    bool (*list)(void *impl, const gw_list_req_t *req, gw_store_list_cb cb, void *ctx);
} gw_read_cache_ops_t;

/** Put a read cache in front of the store's reads (ops and impl are borrowed and must outlive
 *  the store; NULL ops: none). Thread: the store's. */
void gw_store_set_read_cache(gw_store_t *s, const gw_read_cache_ops_t *ops, void *impl);

/* ---- writes ----------------------------------------------------------------------------- */

/**
 * Result of a write. On success `obj` is the object as stored now (for delete: the last
 * stored value, with mod_revision set to the deletion's revision, as kube-apiserver returns
 * it). On GW_ECONFLICT from update/delete, `obj` is the current object (so a caller can
 * report or retry); on other errors it is NULL.
 */
typedef void (*gw_store_write_cb)(int err, const gw_obj_t *obj, void *ctx);

/** Create key=value (optionally under a lease; 0 = none). GW_EEXIST if the key exists. A value
 *  the transformer cannot store is refused at once with its error (no callback), as is
 *  GW_EINVAL; the same holds for gw_store_update. */
/**
 * Why the last value this thread encoded for a write was refused by the value transformer
 * (encryption's words, e.g. a KMS provider without a seed), or NULL when the last one was not:
 * a write that failed with GW_EINTERNAL answers kube's "Internal error occurred: <why>" with
 * it. Valid until the thread's next write. Thread: the writing thread.
 */
const char *gw_store_value_error(void);

int gw_store_create(gw_store_t *s, const char *key, const uint8_t *value, size_t len, int64_t lease,
                    gw_store_write_cb cb, void *ctx);

/**
 * gw_store_create, only while the object at guard_key is still at mod_revision guard_revision
 * (> 0), both checked in the one transaction: a check made earlier against a copy of that
 * object (a read cache's) holds when the object is written. Errors: GW_ECONFLICT (obj NULL)
 * when the guard moved or is gone (it wins over the key existing), GW_EEXIST, and
 * gw_store_create's.
 */
int gw_store_create_guarded(gw_store_t *s, const char *key, const uint8_t *value, size_t len,
                            const char *guard_key, int64_t guard_revision, gw_store_write_cb cb,
                            void *ctx);

/**
 * Replace the value if the object's mod_revision is still `expected_revision` (> 0, else
 * GW_EINVAL: 0 would match a missing key). The value is written without a lease.
 * Errors: GW_ECONFLICT (someone wrote in between; obj = current), GW_ENOTFOUND.
 */
int gw_store_update(gw_store_t *s, const char *key, const uint8_t *value, size_t len,
                    int64_t expected_revision, gw_store_write_cb cb, void *ctx);

/**
 * Delete the object, if `expected_revision` is 0 or equals its mod_revision.
 * Errors: GW_ENOTFOUND, GW_ECONFLICT (obj = current).
 */
int gw_store_delete(gw_store_t *s, const char *key, int64_t expected_revision, gw_store_write_cb cb,
                    void *ctx);

/* Guaranteed update: read, let the caller compute the new value (possibly asynchronously),
 * write with a mod_revision precondition, and on conflict start over from the value the
 * failed transaction returned. Like kube-apiserver's GuaranteedUpdate. */

typedef struct gw_store_update gw_store_update_t;

/**
 * Called with the current object (NULL when the key does not exist) for each attempt. The
 * callee must eventually call exactly one of gw_store_update_commit or
 * gw_store_update_abort on `u`, from inside the callback or later on the same thread.
 * `current` stays valid until then. The done callback may fire from inside commit or abort,
 * and `u` is gone once either returns. Calling both, or one twice, is a bug caught by an
 * assert; never calling either leaves the update pending, which gw_store_free asserts against.
 */
typedef void (*gw_store_mutate_fn)(gw_store_update_t *u, const gw_obj_t *current, void *ctx);

/** Write `value` (the store takes ownership of the malloc'd buffer). When the bytes equal the
 *  current value's JSON (after from_storage) nothing is written and the done callback gets the
 *  current object. An existing key keeps its lease; a new one gets none. A value the
 *  transformer cannot store ends the update with the transformer's error. */
void gw_store_update_commit(gw_store_update_t *u, uint8_t *value, size_t len);

/** Give up with `err` (a negative gw_err code); the done callback gets it. */
void gw_store_update_abort(gw_store_update_t *u, int err);

/**
 * Run a guaranteed update of `key`. mutate runs once per attempt; done fires once at the end
 * (0 and the stored object, or an error: the mutate's abort code, GW_ECONFLICT after
 * max_attempts conflicts (0 = unlimited), or a transport error).
 */
int gw_store_guaranteed_update(gw_store_t *s, const char *key, int max_attempts,
                               gw_store_mutate_fn mutate, gw_store_write_cb done, void *ctx);

/* ---- watch ------------------------------------------------------------------------------ */

typedef enum {
    GW_WATCH_ADDED,    /* a key was created */
    GW_WATCH_MODIFIED, /* a key was overwritten */
    GW_WATCH_DELETED,  /* obj is the last value, mod_revision = the deletion's revision */
    GW_WATCH_PROGRESS, /* no object: every change up to `revision` has been delivered */
} gw_watch_type_t;

typedef struct {
    gw_watch_type_t type;
    int64_t revision;     /* revision of this event */
    const gw_obj_t *obj;  /* NULL for PROGRESS; for DELETED, NULL if prev values were off */
    const gw_obj_t *prev; /* the previous value when requested and existing, else NULL */
} gw_watch_event_t;

typedef struct gw_store_watch gw_store_watch_t;

/**
 * Watch callback. err == 0: one event. Terminal (the watch is over, the handle is gone
 * after the callback): GW_ECOMPACTED (revision = the compacted revision, via ev->revision),
 * GW_ECANCELED after gw_store_watch_stop, or GW_EINTERNAL; ev is NULL for the last two.
 * Once gw_store_watch_stop was called no further event is delivered and the terminal error
 * is always GW_ECANCELED.
 */
typedef void (*gw_store_watch_cb)(int err, const gw_watch_event_t *ev, void *ctx);

typedef struct {
    const char *key;        /* relative key or collection prefix ("" with is_prefix: the whole
                               store) */
    bool is_prefix;         /* watch every key under `key` */
    int64_t after_revision; /* deliver events with revision > this; 0 = from now */
    bool prev_values;       /* deliver previous values (and the last value of deletions) */
    bool progress_notify;   /* ask etcd for periodic progress events */
} gw_watch_req_t;

/** Start a watch; NULL for a malformed request. */
gw_store_watch_t *gw_store_watch(gw_store_t *s, const gw_watch_req_t *req, gw_store_watch_cb cb,
                                 void *ctx);

/** Ask for a progress event on this watch. */
void gw_store_watch_request_progress(gw_store_watch_t *w);

/** Stop; the callback fires once more with GW_ECANCELED (not from inside this call). */
void gw_store_watch_stop(gw_store_watch_t *w);

#endif
