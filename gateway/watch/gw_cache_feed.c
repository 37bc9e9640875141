/*
 * Read caches, the hub thread's side: each cache is a copy of one collection as etcd holds it
 * (the stored bytes after the value transformer, not decoded objects), built from a paged list
 * at one revision and then kept current by an etcd watch from that revision on.
 *
 * What a reader may rely on: under the read lock, the items are etcd's state of the collection
 * at every revision in [changed, rev]; each event moves both to its revision. (Progress
 * notifications do not move rev: etcd 3.4.23 answers a progress request at once with its
 * current revision, ahead of events a watch still catching up has yet to send.)
 *
 * A cache whose list or watch fails is rebuilt (reads go to etcd meanwhile); one that outgrows
 * its limit is switched off for good and its memory freed.
 */
#include "gw_watch_int.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

/* Objects read from etcd per page while a cache is built. */
#define LIST_PAGE 1000
/* A list that failed is tried again after this long (reads go to etcd meanwhile). */
#define RETRY_MS 1000

static void build(gw_cache_t *c);

/* ---- items ---------------------------------------------------------------------------------- */

gw_cache_item_t *
gw_watch__item_ref(gw_cache_item_t *it)
{
    atomic_fetch_add_explicit(&it->refs, 1, memory_order_relaxed);
    return it;
}

void
gw_watch__item_unref(gw_cache_item_t *it)
{
    if (it != NULL && atomic_fetch_sub_explicit(&it->refs, 1, memory_order_acq_rel) == 1)
        free(it);
}

static gw_cache_item_t *
item_new(const gw_obj_t *o)
{
    size_t key_len = strlen(o->key) + 1;
    /* a value nobody can read keeps the reason, so a read from the cache answers as etcd's */
    size_t why_len = o->unreadable != NULL ? strlen(o->unreadable) + 1 : 0;
    gw_cache_item_t *it = gw_malloc(sizeof(*it) + key_len + o->value_len + 1 + why_len);
    char *key = (char *)(it + 1);
    uint8_t *value = (uint8_t *)key + key_len;
    char *why = (char *)value + o->value_len + 1;

    memcpy(key, o->key, key_len);
    memcpy(value, o->value, o->value_len);
    value[o->value_len] = '\0';
    if (why_len > 0)
        memcpy(why, o->unreadable, why_len);
    atomic_init(&it->refs, 1);
    it->obj = (gw_obj_t){.key = key,
                         .value = value,
                         .value_len = o->value_len,
                         .mod_revision = o->mod_revision,
                         .create_revision = o->create_revision,
                         .lease = o->lease,
                         .unreadable = why_len > 0 ? why : NULL,
                         .stale = o->stale};
    return it;
}

static size_t
item_bytes(const gw_cache_item_t *it)
{
    return it != NULL ? strlen(it->obj.key) + it->obj.value_len : 0;
}

static void
items_free(gw_cache_item_t **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gw_watch__item_unref(items[i]);
    free(items);
}

size_t
gw_watch__cache_index(const gw_cache_t *c, const char *key)
{
    size_t lo = 0, hi = c->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->items[mid]->obj.key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- what readers see ------------------------------------------------------------------------ */

/* Forget everything held (the cache is rebuilt or off); readers go to etcd meanwhile. */
static void
drop(gw_cache_t *c)
{
    gw_cache_item_t **items;
    size_t n;

    pthread_rwlock_wrlock(&c->lock);
    items = c->items;
    n = c->n;
    c->items = NULL;
    c->n = c->cap = c->bytes = 0;
    c->ready = false;
    atomic_store(&c->seen, 0);
    pthread_rwlock_unlock(&c->lock);
    items_free(items, n);
    items_free(c->building, c->n_building);
    c->building = NULL;
    c->n_building = c->cap_building = 0;
}

static bool
over_limit(gw_cache_t *c, size_t n)
{
    if (c->limit == 0 || n <= (size_t)c->limit)
        return false;
    gw_log_info(NULL, "read cache of %s: over its limit of %ld objects, reads go to etcd",
                c->collection, c->limit);
    atomic_store(&c->off, true);
    if (c->sw != NULL)
        gw_store_watch_stop(c->sw);
    drop(c);
    return true;
}

/* Apply one change (hub thread; the write lock is taken here). */
static void
apply(gw_cache_t *c, const gw_watch_event_t *ev)
{
    size_t i;
    bool found;
    gw_cache_item_t *old = NULL, *it = ev->type == GW_WATCH_DELETED ? NULL : item_new(ev->obj);

    pthread_rwlock_wrlock(&c->lock);
    i = gw_watch__cache_index(c, ev->obj->key);
    found = i < c->n && strcmp(c->items[i]->obj.key, ev->obj->key) == 0;
    if (found && it != NULL) {
        old = c->items[i];
        c->items[i] = it;
    } else if (found) {
        old = c->items[i];
        memmove(&c->items[i], &c->items[i + 1], (c->n - i - 1) * sizeof(*c->items));
        c->n--;
    } else if (it != NULL) {
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 64;
            c->items = gw_realloc(c->items, c->cap * sizeof(*c->items));
        }
        memmove(&c->items[i + 1], &c->items[i], (c->n - i) * sizeof(*c->items));
        c->items[i] = it;
        c->n++;
    }
    c->bytes = c->bytes + item_bytes(it) - item_bytes(old);
    c->changed = c->rev = ev->revision;
    atomic_store(&c->seen, c->rev);
    pthread_rwlock_unlock(&c->lock);
    gw_watch__item_unref(old);
}

/* ---- the watch ------------------------------------------------------------------------------- */

static void
on_event(int err, const gw_watch_event_t *ev, void *arg)
{
    gw_cache_t *c = arg;

    if (err == 0 && ev->type != GW_WATCH_PROGRESS && ev->obj != NULL) {
        apply(c, ev);
        over_limit(c, c->n);
        return;
    }
    if (err == 0)
        return; /* progress (never asked for), or a deletion without its key (never: prev
                   values are asked for) */
    c->sw = NULL;
    if (err == GW_ECANCELED || c->stopping || atomic_load(&c->off))
        return;
    gw_log_info(NULL, "read cache of %s: watch ended (%s), rebuilding", c->collection,
                gw_strerror(err));
    drop(c);
    build(c);
}

static void
watch_from(gw_cache_t *c, int64_t rev)
{
    gw_watch_req_t q = {
        .key = c->collection, .is_prefix = true, .after_revision = rev, .prev_values = true};

    c->sw = gw_store_watch(c->svc->store, &q, on_event, c);
    if (c->sw == NULL) {
        gw_log_warn(NULL, "read cache of %s: etcd refused the watch", c->collection);
        atomic_store(&c->off, true);
    }
}

/* ---- the list -------------------------------------------------------------------------------- */

static void list_page(gw_cache_t *c, const char *start);

/* The list is complete: publish it and follow etcd from its revision. */
static void
built(gw_cache_t *c)
{
    pthread_rwlock_wrlock(&c->lock);
    c->items = c->building;
    c->n = c->n_building;
    c->cap = c->cap_building;
    c->changed = c->rev = c->list_rev;
    c->ready = true;
    c->bytes = 0;
    for (size_t i = 0; i < c->n; i++)
        c->bytes += item_bytes(c->items[i]);
    atomic_store(&c->seen, c->rev);
    pthread_rwlock_unlock(&c->lock);
    c->building = NULL;
    c->n_building = c->cap_building = 0;
    watch_from(c, c->list_rev);
}

static void
retry(evutil_socket_t fd, short what, void *arg)
{
    gw_cache_t *c = arg;

    (void)fd;
    (void)what;
    if (!c->stopping)
        build(c);
}

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_cache_t *c = arg;
    struct timeval tv = {.tv_sec = RETRY_MS / 1000, .tv_usec = (RETRY_MS % 1000) * 1000};

    if (err != 0 || c->stopping) {
        drop(c);
        if (err == GW_ECANCELED || c->stopping)
            return;
        gw_log_warn(NULL, "read cache of %s: list failed (%s), reads go to etcd meanwhile",
                    c->collection, gw_strerror(err));
        if (event_base_once(c->svc->base, -1, EV_TIMEOUT, retry, c, &tv) != 0)
            abort();
        return;
    }
    if (over_limit(c, c->n_building + page->n_items))
        return;
    if (c->n_building + page->n_items > c->cap_building) {
        c->cap_building = c->n_building + page->n_items + (page->more ? LIST_PAGE : 0);
        c->building = gw_realloc(c->building, c->cap_building * sizeof(*c->building));
    }
    for (size_t i = 0; i < page->n_items; i++)
        c->building[c->n_building++] = item_new(&page->items[i]);
    c->list_rev = page->revision;
    if (page->more)
        list_page(c, page->next_key);
    else
        built(c);
}

static void
list_page(gw_cache_t *c, const char *start)
{
    gw_list_req_t q = {
        .prefix = c->collection, .start_key = start, .revision = c->list_rev, .limit = LIST_PAGE};

    if (gw_store_list(c->svc->store, &q, listed, c) != 0)
        listed(GW_EINTERNAL, NULL, c);
}

static void
build(gw_cache_t *c)
{
    c->list_rev = 0;
    list_page(c, NULL);
}

/* ---- the service's calls ----------------------------------------------------------------- */

void
gw_watch__cache_open(gw_cache_t *c)
{
    build(c);
}

void
gw_watch__caches_stop(gw_watch_t *s)
{
    for (gw_cache_t *c = atomic_load(&s->caches); c != NULL; c = c->next) {
        c->stopping = true;
        if (c->sw != NULL)
            gw_store_watch_stop(c->sw);
    }
}

void
gw_watch__caches_free(gw_watch_t *s)
{
    gw_cache_t *c = atomic_load(&s->caches), *next;

    for (; c != NULL; c = next) {
        next = c->next;
        items_free(c->items, c->n);
        items_free(c->building, c->n_building);
        pthread_rwlock_destroy(&c->lock);
        free(c->collection);
        free(c);
    }
}

gw_cache_t *
gw_watch__cache_find(gw_watch_t *s, const char *collection)
{
    for (gw_cache_t *c = atomic_load(&s->caches); c != NULL; c = c->next) {
        if (strcmp(c->collection, collection) == 0)
            return c;
    }
    return NULL;
}
