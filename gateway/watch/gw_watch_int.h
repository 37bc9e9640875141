#ifndef GATEWAY_WATCH_GW_WATCH_INT_H
#define GATEWAY_WATCH_GW_WATCH_INT_H

/*
 * Internals shared by the files of gateway/watch/.
 *
 * Threads: the hub thread owns the hub registry, every hub's etcd watch, window, counts and
 * timers. A worker owns its local, its watchers and, for each hub, the list of its watchers
 * attached to that hub (hub->attached[index]). The two sides talk only through mailboxes;
 * a hub's memory lives as long as a reference (a message, a watcher) points at it.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_watch.h"

struct event;
struct event_base;

typedef struct gw_hub gw_hub_t;
typedef struct gw_cache gw_cache_t;
typedef struct gw_read_cache gw_read_cache_t;

/* ---- mailboxes (gw_watch_mailbox.c) -------------------------------------------------------- */

typedef enum {
    /* to the hub thread */
    MSG_SUB,   /* w wants collection from rev */
    MSG_UNSUB, /* a watcher of worker `worker` left hub */
    MSG_CLOSE, /* worker `worker` is gone: forget its counts */
    MSG_STOP,  /* the service stops */
    /* to a worker */
    MSG_ATTACHED, /* w is attached to hub; evs are the window's events after its start */
    MSG_TOO_OLD,  /* w's start is older than hub's window: catch up from etcd first */
    MSG_EVENT,    /* ev, for every watcher of hub on that worker */
    MSG_PROGRESS, /* rev: every event of hub up to rev was sent */
    MSG_END,      /* hub ended with err (rev: the compacted revision) */
    /* read caches: to the hub thread */
    MSG_CACHE_OPEN, /* build cache */
} gw_watch__msg_kind_t;

typedef struct gw_watch__msg {
    struct gw_watch__msg *next;
    gw_watch__msg_kind_t kind;
    gw_hub_t *hub;     /* worker-bound messages hold a reference */
    gw_cache_t *cache; /* MSG_CACHE_*: lives as long as the service */
    gw_watcher_t *w;   /* SUB, ATTACHED, TOO_OLD */
    int worker;        /* SUB, UNSUB, CLOSE */
    gw_wev_t *ev;      /* EVENT (a reference) */
    gw_wev_t **evs;    /* ATTACHED (references) */
    size_t n_evs;
    int64_t rev;
    int err;
    /* SUB: what the hub is made of when it does not exist yet */
    char *collection;
    const char *const *fields;
    gw_wev_encode_fn encode;
} gw_watch__msg_t;

typedef struct {
    pthread_mutex_t lock;
    gw_watch__msg_t *head, *tail;
    struct event *wake; /* on the receiving loop */
    bool closed;        /* messages posted now are dropped */
} gw_watch__mailbox_t;

typedef void (*gw_watch__deliver_fn)(gw_watch__msg_t *m, void *arg);

/** Set up a closed mailbox (posts fail until it is opened). */
void gw_watch__mailbox_init(gw_watch__mailbox_t *mb);

/** Open it: its messages are handled by `deliver` on `base`'s loop, in order. Thread: that
 *  loop's. */
void gw_watch__mailbox_open(gw_watch__mailbox_t *mb, struct event_base *base,
                            gw_watch__deliver_fn deliver, void *arg);

/** Post m (ownership passes); false (m untouched) when the mailbox is closed. Thread: any. */
bool gw_watch__mailbox_post(gw_watch__mailbox_t *mb, gw_watch__msg_t *m);

/** Close it: later posts fail; returns what was queued (the caller disposes of it).
 *  Thread: the receiving loop's. */
gw_watch__msg_t *gw_watch__mailbox_close(gw_watch__mailbox_t *mb);

/** Close it, free what was queued, and the lock. */
void gw_watch__mailbox_cleanup(gw_watch__mailbox_t *mb);

gw_watch__msg_t *gw_watch__msg_new(gw_watch__msg_kind_t kind);

/** Free a message and what it holds (hub and event references, strings); never its watcher. */
void gw_watch__msg_free(gw_watch__msg_t *m);

/* ---- the service (gw_watch.c) -------------------------------------------------------------- */

struct gw_watch {
    gw_watch_config_t cfg;
    char *etcd_prefix;
    pthread_t thread;
    struct event_base *base; /* the hub thread's */
    etcd_conn_t *conn;
    gw_store_t *store;
    gw_watch__mailbox_t inbox;
    gw_watch__mailbox_t *outbox; /* per worker; outlive the locals */
    gw_hub_t *hubs;              /* the registry of live hubs (hub thread) */
    /* the read caches: appended under cache_lock, never removed before the service ends, so
     * workers walk the list without the lock */
    _Atomic(gw_cache_t *) caches;
    pthread_mutex_t cache_lock;
    pthread_mutex_t ready_lock;
    pthread_cond_t ready_cond;
    bool ready;
    _Atomic long n_hubs, n_catchups, n_catchups_total, n_watchers;
    _Atomic long n_cache_reads, n_cache_etcd, n_cache_revisions;
};

/** Send m to worker i; on a closed mailbox m is freed (and its watcher left alone). */
void gw_watch__to_worker(gw_watch_t *s, int i, gw_watch__msg_t *m);

/** Send m to the hub thread. */
void gw_watch__to_hubs(gw_watch_t *s, gw_watch__msg_t *m);

/* ---- hubs (gw_watch_hub.c, hub thread unless said) ------------------------------------------ */

struct gw_hub {
    _Atomic long refs;
    gw_watch_t *svc;
    char *collection;
    const char *const *fields;
    gw_wev_encode_fn encode;
    gw_store_watch_t *sw; /* NULL once stopped or ended */
    gw_wev_t **ring;      /* the window: n events from `first`, oldest first */
    size_t cap, first, n, bytes;
    _Atomic int64_t start; /* every event after it is in the window or yet to come */
    int64_t rev;           /* every event up to it was sent to the attached watchers */
    int *per_worker;       /* attached watchers per worker */
    long attached;
    struct event *linger;     /* stops a hub nobody watches */
    struct event *tick;       /* asks etcd for progress */
    int64_t candidate;        /* a progress revision waiting for confirmation (0: none) */
    bool spoiled;             /* an event at or below the candidate came after it */
    _Atomic bool dead;        /* unregistered: a new SUB makes a new hub */
    gw_watcher_t **by_worker; /* per worker: its attached watchers (that worker's thread) */
    gw_hub_t *next;           /* the registry */
};

/** Handle a SUB: attach, or tell the watcher to catch up; creates the hub when needed. */
void gw_watch__hub_sub(gw_watch_t *s, gw_watch__msg_t *m);

/** A watcher of worker i left h. */
void gw_watch__hub_unsub(gw_hub_t *h, int i);

/** Worker i is gone: drop its counts from every hub. */
void gw_watch__hub_forget_worker(gw_watch_t *s, int i);

/** Stop every hub (service shutdown). */
void gw_watch__hubs_stop(gw_watch_t *s);

gw_hub_t *gw_watch__hub_ref(gw_hub_t *h);

/** Thread: any. */
void gw_watch__hub_unref(gw_hub_t *h);

/* ---- read caches (gw_cache_feed.c on the hub thread, gw_read_cache.c on the workers) ----- */

/* One object as the cache holds it: one allocation (the key and value follow the struct),
 * immutable, shared by reference with the readers. */
typedef struct {
    _Atomic long refs;
    gw_obj_t obj; /* key and value point after the struct; owned is NULL */
} gw_cache_item_t;

struct gw_cache {
    gw_cache_t *next; /* the service's list */
    gw_watch_t *svc;
    char *collection;
    long limit; /* objects it may hold (0: no limit) */
    /* what readers see, under lock (the hub thread writes) */
    pthread_rwlock_t lock;
    gw_cache_item_t **items; /* sorted by key, as etcd orders them */
    size_t n, cap, bytes;
    int64_t changed, rev; /* the items are etcd's state at every revision in [changed, rev] */
    bool ready;           /* built and fed by its watch */
    _Atomic bool off;     /* over its limit: every read goes to etcd */
    _Atomic int64_t seen; /* rev, for a look without the lock */
    /* the hub thread's */
    gw_store_watch_t *sw;
    gw_cache_item_t **building; /* the list being read: its items, in order */
    size_t n_building, cap_building;
    int64_t list_rev; /* the list's revision (0 before its first page) */
    bool stopping;
};

/** The cache of `collection`, or NULL. Thread: any. */
gw_cache_t *gw_watch__cache_find(gw_watch_t *s, const char *collection);

/** The cache of `collection`, created (and its building started) when there is none yet;
 *  NULL when the collection is not to be cached (--watch-cache, --watch-cache-sizes).
 *  Thread: any. */
gw_cache_t *gw_watch__cache_get(gw_watch_t *s, const char *collection);

/** The index of c's first item whose key is not below `key` (c->n when none). Under c's
 *  lock. */
size_t gw_watch__cache_index(const gw_cache_t *c, const char *key);

/** Take a reference to an item. Thread: any. */
gw_cache_item_t *gw_watch__item_ref(gw_cache_item_t *it);

/** Drop one; the last frees the item. Thread: any. */
void gw_watch__item_unref(gw_cache_item_t *it);

/** Hub thread: start building c (a MSG_CACHE_OPEN). */
void gw_watch__cache_open(gw_cache_t *c);

/** Hub thread: stop every cache's watch (service shutdown). */
void gw_watch__caches_stop(gw_watch_t *s);

/** Main thread, after the hub thread ended: free every cache. */
void gw_watch__caches_free(gw_watch_t *s);

/** Worker: end the worker's pending cached reads (GW_ECANCELED) and free its side. */
void gw_watch__read_cache_free(gw_watch_local_t *l);

/* ---- a worker's side (gw_watch_local.c) ------------------------------------------------------ */

struct gw_watch_local {
    gw_watch_t *svc;
    int index;
    struct event_base *base;
    gw_store_t *store;
    gw_watcher_t *all;      /* every watcher not yet freed (zombies included) */
    gw_read_cache_t *reads; /* this worker's side of the read caches, or NULL */
};

/** Handle one message from the hub thread. Thread: the worker's. */
void gw_watch__local_deliver(gw_watch__msg_t *m, void *arg);

#endif
