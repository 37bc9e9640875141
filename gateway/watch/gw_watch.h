#ifndef GATEWAY_WATCH_GW_WATCH_H
#define GATEWAY_WATCH_GW_WATCH_H

/*
 * Shared watches: one etcd watch per resource collection per kgate process, fanned out to
 * every watcher of that collection on every worker (kube-apiserver's watch cache idea, kept
 * bounded).
 *
 * Three objects:
 *  - gw_watch_t: the process-wide service. It owns a thread of its own (event_base, etcd
 *    conn, store) on which the hubs live. A hub is the shared etcd watch of one collection
 *    (from its relative prefix, all namespaces) with a bounded window of its latest events.
 *    A hub starts with the first watcher of its collection and stops a while (the linger) after
 *    the last one left.
 *  - gw_watch_local_t: a worker's side. Events reach it from the hub thread through a mailbox
 *    (a locked list plus event_active), one message per event per worker, never per watcher.
 *  - gw_watcher_t: one subscription, on one worker. It gets every event of its collection with
 *    a revision above its start, in order, each once: from the hub's window and then live when
 *    the start is recent enough, else first from a catch-up etcd watch of its own, which hands
 *    over to the hub once it reaches the hub's window.
 *
 * Events (gw_wev_t) are built once per process (or once per catch-up), already encoded as a
 * JSON watch line, and shared by reference count across threads: a worker can queue the line
 * on many connections without copying it.
 *
 * Test knobs (environment, read by gw_watch_new; for tests and benchmarks, not for operators):
 * KGATE_WATCH_WINDOW (events per hub window), KGATE_WATCH_WINDOW_BYTES, KGATE_WATCH_LINGER_MS,
 * KGATE_WATCH_PROGRESS_MS (how often hubs ask etcd for progress and watchers get bookmarks),
 * KGATE_WATCH_QUEUE_BYTES (a watch connection's output limit, see gw_watch_queue_limit).
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "etcd.h"
#include "gw_store.h"

struct event_base;

typedef struct gw_watch gw_watch_t;
typedef struct gw_watch_local gw_watch_local_t;
typedef struct gw_watcher gw_watcher_t;

/* ---- events ------------------------------------------------------------------------------- */

/**
 * Stores an object's bytes with its resourceVersion set: the registry's splice. Returns new
 * malloc'd bytes of *out_len, or NULL when `json` is not a JSON object. Thread: any.
 */
typedef char *(*gw_wev_encode_fn)(const char *json, size_t len, int64_t rev, size_t *out_len);

/** What selectors look at in one state of an object. */
typedef struct {
    json_t *labels;      /* metadata.labels (an object), or NULL */
    const char **values; /* the hub's fields, in order: each value (as a field selector reads
                            it: strings, numbers and booleans as text) or NULL when absent */
    size_t n_values;
} gw_wev_attrs_t;

/* How many other encodings an event can keep. */
#define GW_WEV_FORMS 4

/**
 * One change of one object, immutable once built and shared by reference (any thread may
 * ref, unref and read it).
 */
typedef struct {
    gw_watch_type_t type; /* GW_WATCH_ADDED, GW_WATCH_MODIFIED or GW_WATCH_DELETED */
    int64_t rev;          /* the change's revision (the object's new resourceVersion) */
    const char *key;      /* relative etcd key */
    /* `{"type":"<TYPE>","object":<object>}\n`: the object with its resourceVersion (for
     * DELETED: the last state, at the deletion's revision) */
    const char *line;
    size_t line_len;
    const char *obj; /* inside line */
    size_t obj_len;
    const char *prev; /* the previous state as stored (no resourceVersion), or NULL */
    size_t prev_len;
    gw_wev_attrs_t cur; /* of the new state (ADDED, MODIFIED) */
    gw_wev_attrs_t old; /* of the previous state (MODIFIED, DELETED) */
    _Atomic long refs;
    /* other encodings of the same event (gw_wev_form), made on first use */
    struct gw_wev_form *_Atomic forms[GW_WEV_FORMS];
} gw_wev_t;

/** Makes one form of an event: new malloc'd bytes and their length, or NULL on failure. */
typedef char *(*gw_wev_form_fn)(const gw_wev_t *e, void *ctx, size_t *len);

/**
 * The event in another encoding than its JSON line (protobuf, a metadata-only view, ...),
 * `slot` (< GW_WEV_FORMS) naming the encoding by the caller's own numbering. The first caller
 * for a slot makes it with make(e, ctx); it is kept with the event, so every watcher of every
 * worker shares one copy, valid while the caller holds a reference. NULL (nothing kept) when
 * make fails. Thread: any.
 */
const char *gw_wev_form(gw_wev_t *e, int slot, gw_wev_form_fn make, void *ctx, size_t *len);

/**
 * Build an event from a storage event (not PROGRESS) with the attributes of `fields` (a
 * NULL-terminated list of dotted field paths, e.g. "metadata.name"). NULL when the event has
 * no object (a deletion without its previous value) or the bytes are not a JSON object. The
 * caller holds the one reference. Thread: any.
 */
gw_wev_t *gw_wev_new(const gw_watch_event_t *ev, const char *const *fields,
                     gw_wev_encode_fn encode);

/** How an event's field values are read: the value field selector `field` (one of `fields`,
 *  the hub's list) reads in the stored state `doc`, malloc'd, or NULL when absent. */
typedef char *(*gw_wev_field_fn)(const char *const *fields, const char *field, const json_t *doc);

/** Use fn for every event built from now on (NULL: each field's dotted path, scalars as text).
 *  Thread: the main thread, before any watch starts. */
void gw_wev_set_field_fn(gw_wev_field_fn fn);

/** Take a reference. Thread: any. */
gw_wev_t *gw_wev_ref(gw_wev_t *e);

/** Drop a reference; the last one frees the event. NULL is fine. Thread: any. */
void gw_wev_unref(gw_wev_t *e);

/** Deallocator for evbuffer_add_reference: drops the reference `arg` (a gw_wev_t). */
void gw_wev_unref_cleanup(const void *data, size_t len, void *arg);

/* ---- the service ------------------------------------------------------------------------- */

/** --watch-cache-sizes, per collection: how many objects its read cache may hold (0: none). */
typedef struct {
    const char *collection; /* relative collection prefix over all namespaces */
    long limit;
} gw_cache_limit_t;

typedef struct {
    etcd_client_t *etcd;                  /* borrowed; outlives the service */
    const char *etcd_prefix;              /* --etcd-prefix */
    const gw_value_transformer_t *values; /* borrowed: the store's (NULL: values as stored) */
    int workers;                          /* how many locals there will be (indices 0..workers-1) */
    size_t window_events;                 /* 0: 4096, or KGATE_WATCH_WINDOW */
    size_t window_bytes;                  /* 0: 32 MiB, or KGATE_WATCH_WINDOW_BYTES */
    int64_t linger_ms;                    /* 0: 30 s, or KGATE_WATCH_LINGER_MS */
    int64_t progress_ms;                  /* 0: 60 s, or KGATE_WATCH_PROGRESS_MS */
    size_t queue_bytes;                   /* 0: 4 MiB, or KGATE_WATCH_QUEUE_BYTES */
    bool read_cache;                      /* --watch-cache: keep read caches (gw_read_cache.h) */
    const gw_cache_limit_t *cache_limits; /* copied */
    size_t n_cache_limits;
} gw_watch_config_t;

/**
 * Start the service and its thread. Values left 0 in cfg take the environment's knob or the
 * default. evthread_use_pthreads() must have been called. Thread: main.
 */
gw_watch_t *gw_watch_new(const gw_watch_config_t *cfg);

/** Stop the thread (every hub's etcd watch is cancelled) and free. Every local must have been
 *  freed first. NULL is fine. Thread: main. */
void gw_watch_free(gw_watch_t *w);

/** Counts for /metrics and tests. Thread: any (a snapshot). */
typedef struct {
    long hubs;            /* shared etcd watches open */
    long catchups;        /* dedicated catch-up etcd watches open */
    long catchups_total;  /* catch-up etcd watches ever started */
    long watchers;        /* subscriptions (all states) */
    long caches;          /* read caches built and current */
    long cache_objects;   /* objects they hold */
    long cache_bytes;     /* their keys and values */
    long cache_reads;     /* reads the caches answered */
    long cache_etcd;      /* reads of cached collections that went to etcd */
    long cache_revisions; /* etcd revision requests made for consistent reads */
} gw_watch_stats_t;

void gw_watch_stats(gw_watch_t *w, gw_watch_stats_t *out);

/* ---- a worker's side ---------------------------------------------------------------------- */

/**
 * Attach worker `index` (0..workers-1), whose loop is `base` and whose store (for catch-up
 * watches) is `store`. Thread: that worker's.
 */
gw_watch_local_t *gw_watch_local_new(gw_watch_t *w, int index, struct event_base *base,
                                     gw_store_t *store);

/**
 * Detach the worker: every watcher still running ends with a GW_ECANCELED note first. Call
 * after the worker's etcd conn was freed (so that no catch-up callback is left). NULL is fine.
 * Thread: the worker's.
 */
void gw_watch_local_free(gw_watch_local_t *l);

/**
 * The store hooks that answer worker l's reads from the read caches (pass them to
 * gw_store_set_read_cache with l as impl): a collection's cache is built on its first read and
 * kept current by its own etcd watch on the hub thread; see gw_read_cache.c for which reads it
 * answers. NULL when the service keeps no read caches (--watch-cache=false). Thread: the
 * local's worker.
 */
const gw_read_cache_ops_t *gw_watch_local_read_cache(gw_watch_local_t *l);

/** The output a watch connection may queue before it is ended as too slow. Thread: the
 *  local's worker. */
size_t gw_watch_queue_limit(const gw_watch_local_t *l);

/** How often a watcher that asked for bookmarks gets one (kube's minute; the progress period
 *  knob in tests). Thread: the local's worker. */
int64_t gw_watch_bookmark_ms(const gw_watch_local_t *l);

/* ---- watchers ----------------------------------------------------------------------------- */

typedef enum {
    GW_WATCHER_EVENT,    /* ev: the next change */
    GW_WATCHER_PROGRESS, /* rev: every change up to rev has been delivered (a bookmark) */
    GW_WATCHER_END,      /* terminal: err (GW_ECOMPACTED with rev = etcd's compacted
                            revision, GW_EINTERNAL, GW_ECANCELED); the watcher is gone after */
} gw_watcher_note_kind_t;

typedef struct {
    gw_watcher_note_kind_t kind;
    const gw_wev_t *ev; /* EVENT: valid during the call; gw_wev_ref it to keep it */
    int64_t rev;
    int err;
} gw_watcher_note_t;

typedef void (*gw_watcher_cb)(const gw_watcher_note_t *n, void *ctx);

typedef struct {
    const char *collection;    /* the hub: relative collection prefix over all namespaces */
    const char *key_prefix;    /* only events of keys under it (a namespace); NULL: all */
    int64_t after_rev;         /* deliver changes with revision > after_rev (>= 1) */
    const char *const *fields; /* the collection's selectable fields (NULL-terminated, static) */
    gw_wev_encode_fn encode;   /* how stored bytes get their resourceVersion */
} gw_watcher_req_t;

/**
 * Subscribe. Notes arrive on the local's worker, never from inside this call. Strings in req
 * are copied; fields and encode must outlive the service. Returns NULL for a malformed request.
 * Thread: the local's worker.
 */
gw_watcher_t *gw_watcher_start(gw_watch_local_t *l, const gw_watcher_req_t *req, gw_watcher_cb cb,
                               void *ctx);

/** Unsubscribe: no note is delivered after this returns (not even END). Thread: the worker's. */
void gw_watcher_stop(gw_watcher_t *w);

#endif
