#ifndef GATEWAY_CONTROLLERS_GW_INFORMER_H
#define GATEWAY_CONTROLLERS_GW_INFORMER_H

/*
 * An informer, as client-go's: one per watched key prefix (a resource, or a namespace of one).
 * It lists the prefix at one revision (paged), keeps a cache of what it saw (every key with
 * its mod_revision, and with GW_INFORMER_JSON the objects' parsed JSON), watches from the
 * list's revision + 1, and reports every change to its handler as an event. When the watch
 * ends (history compacted, etcd refused it) it lists again after a pause and reports the
 * difference to its cache as events (added, changed, gone), then watches from that list.
 * With a resync period it also reports every cached key again as an unchanged update, as
 * client-go's resync does. Handlers usually add keys to a work queue (gw_workqueue.h).
 *
 * The informer has an etcd conn of its own on the loop it was started on: freeing it cancels
 * all of its calls at once. Objects in events and in the cache are views: copy (incref) what
 * is kept beyond the call.
 */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_informer gw_informer_t;

typedef enum {
    GW_INFORMER_ADDED,   /* a key appeared (in a list or from the watch) */
    GW_INFORMER_UPDATED, /* a key's object changed (or `resync`: it is reported again) */
    GW_INFORMER_DELETED, /* a key is gone */
    GW_INFORMER_SYNCED,  /* a list (the first, or a relist) is done and reported; no key */
} gw_informer_event_type_t;

typedef struct {
    gw_informer_event_type_t type;
    const char *key;      /* relative key ("namespaces/a"), NULL for SYNCED */
    const json_t *obj;    /* GW_INFORMER_JSON: the object (DELETED: its last known state);
                             NULL when the stored value is not a JSON object, or with keys */
    const json_t *old;    /* GW_INFORMER_JSON: UPDATED's previous state, else NULL */
    int64_t mod_revision; /* the object's (DELETED: the deletion's, when the watch told) */
    int64_t revision;     /* SYNCED: the list's revision */
    bool resync;          /* UPDATED from the resync period: nothing changed */
} gw_informer_event_t;

/** An event (views valid during the call). It must not free the informer. Thread: the
 *  informer's. */
typedef void (*gw_informer_fn)(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx);

typedef enum {
    GW_INFORMER_KEYS, /* cache keys and revisions only: events carry no objects */
    GW_INFORMER_JSON, /* cache and report the objects' parsed JSON */
} gw_informer_cache_t;

typedef struct {
    const char *name;                     /* for the log ("namespace controller") */
    const char *etcd_prefix;              /* --etcd-prefix */
    const gw_value_transformer_t *values; /* the store's (borrowed; NULL: values as stored) */
    const char *prefix;                   /* relative key prefix ("namespaces/"); copied */
    gw_informer_cache_t cache;
    int64_t resync_ms; /* report every cached key again this often; 0: never */
    int64_t page;      /* list page size; 0: 500 */
    gw_informer_fn handler;
    void *ctx;
} gw_informer_opts_t;

/** Start listing on `base` (its loop must keep running; `client` must outlive the informer).
 *  opts is copied. No event is reported from inside this call. Thread: base's. */
gw_informer_t *gw_informer_start(etcd_client_t *client, struct event_base *base,
                                 const gw_informer_opts_t *opts);

/** Whether a list has been completed and reported (the cache holds the prefix as of some
 *  revision). Thread: the informer's. */
bool gw_informer_synced(const gw_informer_t *inf);

/** The revision the cache is current to (0 before the first list). Thread: the informer's. */
int64_t gw_informer_revision(const gw_informer_t *inf);

/** The cached object under relative key `key` (NULL when absent, with GW_INFORMER_KEYS, or
 *  when not a JSON object); *mod_revision (may be NULL) gets its revision, 0 when absent.
 *  Borrowed until the next event. Thread: the informer's. */
const json_t *gw_informer_get(const gw_informer_t *inf, const char *key, int64_t *mod_revision);

/** Every cached JSON object, in key order (as a list of the prefix gives them): a new array
 *  (caller decrefs) holding references. Thread: the informer's. */
json_t *gw_informer_list(const gw_informer_t *inf);

/** Call fn(key, obj, mod_revision, ctx) for every cached key, in key order (obj as in
 *  gw_informer_get). Thread: the informer's. */
void gw_informer_each(const gw_informer_t *inf,
                      void (*fn)(const char *key, const json_t *obj, int64_t mod_revision,
                                 void *ctx),
                      void *ctx);

/** Stop and free: its calls are canceled, no event follows. NULL is fine. Thread: the
 *  informer's, not from inside its handler. */
void gw_informer_stop(gw_informer_t *inf);

#endif
