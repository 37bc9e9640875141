/*
 * Read caches, a worker's side: the store hooks (gw_read_cache_ops_t) that answer gets and
 * list pages from the collection's cache, as kube-apiserver's cacher does with consistent
 * reads from cache (KEP-2340).
 *
 * - A read of the latest state learns etcd's current revision first: one linearizable request
 *   per worker at a time, shared by every read that arrived before it was sent (a read that
 *   arrives while one is in flight waits for the next, which may have missed nothing it must
 *   see). The cache answers when its events have brought it to that revision; a cache behind it
 *   leaves the read to etcd. (Progress notifications cannot vouch for it: etcd 3.4.23 answers a
 *   progress request with its current revision at once, ahead of the events a watch that is
 *   still catching up, after its start or a stream's re-creation, has yet to send.)
 * - A relaxed read (resourceVersion "0", or not older than N) is answered at once when the cache
 *   is at least that new; a page pinned to revision R when the cache's items are etcd's state at
 *   R (nothing in the collection changed since).
 * - Everything else goes to etcd as before: a cache still being built, or switched off, or too
 *   far behind.
 *
 * No read is ever answered inside the call that started it: answers go out from the loop.
 */
#include "gw_watch_int.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_err.h"

typedef struct read {
    struct read *next;
    gw_cache_t *c;
    bool list;
    char *key;            /* a get's key; a list's prefix */
    char *start;          /* a list's start key, or NULL */
    int64_t limit;        /* a list's */
    int64_t at;           /* a page pinned to this revision (0: the cache's current) */
    int64_t want;         /* the cache must have reached this revision */
    bool confirm_missing; /* a get that finds nothing asks etcd */
    gw_store_get_cb get_cb;
    gw_store_list_cb list_cb;
    void *ctx;
} read_t;

typedef struct {
    read_t *head, **tail;
} queue_t;

struct gw_read_cache {
    gw_watch_local_t *l;
    queue_t ready; /* to be answered from the loop */
    queue_t batch; /* latest reads waiting for the next revision request */
    queue_t asked; /* those the request in flight is for */
    bool asking;
    struct event *run;
};

static void
push(queue_t *q, read_t *rd)
{
    rd->next = NULL;
    *q->tail = rd;
    q->tail = &rd->next;
}

static read_t *
take_all(queue_t *q)
{
    read_t *all = q->head;

    q->head = NULL;
    q->tail = &q->head;
    return all;
}

static void
read_free(read_t *rd)
{
    free(rd->key);
    free(rd->start);
    free(rd);
}

/* ---- answers ----------------------------------------------------------------------------- */

static void
fail(read_t *rd, int err)
{
    if (rd->list)
        rd->list_cb(err, NULL, rd->ctx);
    else
        rd->get_cb(err, NULL, rd->ctx);
}

/* The read as it would have gone without a cache. */
static void
to_etcd(gw_read_cache_t *rc, read_t *rd)
{
    gw_store_t *s = rc->l->store;
    int rc_;

    if (rd->list) {
        gw_list_req_t q = {
            .prefix = rd->key, .start_key = rd->start, .revision = rd->at, .limit = rd->limit};
        rc_ = gw_store_list(s, &q, rd->list_cb, rd->ctx);
    } else {
        rc_ = gw_store_get(s, rd->key, 0, rd->get_cb, rd->ctx);
    }
    if (rc_ != 0)
        fail(rd, rc_);
}

/* Under the read lock: the items are etcd's state at the revision rd needs. */
static bool
holds(const gw_cache_t *c, const read_t *rd)
{
    if (!c->ready || c->rev < rd->want)
        return false;
    return rd->at == 0 || (c->changed <= rd->at && rd->at <= c->rev);
}

/* The first index from lo whose key no longer starts with prefix (keys with a prefix are
 * contiguous in key order). */
static size_t
prefix_end(const gw_cache_t *c, size_t lo, const char *prefix)
{
    size_t len = strlen(prefix), hi = c->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strncmp(c->items[mid]->obj.key, prefix, len) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool
serve_get(read_t *rd)
{
    gw_cache_t *c = rd->c;
    gw_cache_item_t *it = NULL;
    gw_obj_t obj;
    int64_t rev;
    size_t i;

    pthread_rwlock_rdlock(&c->lock);
    if (!holds(c, rd)) {
        pthread_rwlock_unlock(&c->lock);
        return false;
    }
    i = gw_watch__cache_index(c, rd->key);
    if (i < c->n && strcmp(c->items[i]->obj.key, rd->key) == 0)
        it = gw_watch__item_ref(c->items[i]);
    rev = c->rev;
    pthread_rwlock_unlock(&c->lock);
    if (it == NULL && rd->confirm_missing)
        return false;
    if (it == NULL) {
        rd->get_cb(GW_ENOTFOUND, NULL, rd->ctx);
        return true;
    }
    obj = it->obj;
    obj.revision = rev;
    rd->get_cb(0, &obj, rd->ctx);
    gw_watch__item_unref(it);
    return true;
}

/* Under the read lock: the page's items as references, and what follows them. */
static gw_cache_item_t **
page_items(const gw_cache_t *c, const read_t *rd, gw_list_page_t *page, char **next)
{
    size_t lo = gw_watch__cache_index(c, rd->start != NULL ? rd->start : rd->key);
    size_t hi = prefix_end(c, lo, rd->key), n = hi - lo;
    gw_cache_item_t **refs;

    if (rd->limit > 0 && (size_t)rd->limit < n)
        n = (size_t)rd->limit;
    refs = gw_malloc((n ? n : 1) * sizeof(*refs));
    for (size_t i = 0; i < n; i++)
        refs[i] = gw_watch__item_ref(c->items[lo + i]);
    page->n_items = n;
    page->more = lo + n < hi;
    page->remaining = (int64_t)(hi - lo - n);
    page->revision = rd->at != 0 ? rd->at : c->rev;
    *next = page->more ? gw_strdup(c->items[lo + n]->obj.key) : NULL;
    return refs;
}

static bool
serve_list(read_t *rd)
{
    gw_cache_t *c = rd->c;
    gw_list_page_t page = {0};
    gw_cache_item_t **refs;
    gw_obj_t *objs;
    char *next;

    pthread_rwlock_rdlock(&c->lock);
    if (!holds(c, rd)) {
        pthread_rwlock_unlock(&c->lock);
        return false;
    }
    refs = page_items(c, rd, &page, &next);
    pthread_rwlock_unlock(&c->lock);
    objs = gw_malloc((page.n_items ? page.n_items : 1) * sizeof(*objs));
    for (size_t i = 0; i < page.n_items; i++)
        objs[i] = refs[i]->obj;
    page.items = objs;
    page.next_key = next;
    rd->list_cb(0, &page, rd->ctx);
    for (size_t i = 0; i < page.n_items; i++)
        gw_watch__item_unref(refs[i]);
    free(refs);
    free(objs);
    free(next);
    return true;
}

static void
serve(gw_read_cache_t *rc, read_t *rd)
{
    bool done = !atomic_load(&rd->c->off) && (rd->list ? serve_list(rd) : serve_get(rd));

    atomic_fetch_add(done ? &rc->l->svc->n_cache_reads : &rc->l->svc->n_cache_etcd, 1);
    if (!done)
        to_etcd(rc, rd);
    read_free(rd);
}

/* ---- the latest state ---------------------------------------------------------------------- */

/* The revision request answered: each read of the batch is served, by the cache when it has
 * reached that revision. */
static void
got_revision(int err, int64_t rev, void *arg)
{
    gw_read_cache_t *rc = arg;
    read_t *rd = take_all(&rc->asked), *next;

    rc->asking = false;
    for (; rd != NULL; rd = next) {
        next = rd->next;
        if (err != 0) {
            /* etcd's own answer to the read (the conn is gone when canceled) */
            if (err == GW_ECANCELED)
                fail(rd, err);
            else
                to_etcd(rc, rd);
            read_free(rd);
            continue;
        }
        rd->want = rev;
        serve(rc, rd); /* reads etcd when the cache is behind rev */
    }
    if (rc->batch.head != NULL)
        event_active(rc->run, EV_TIMEOUT, 0);
}

static void
ask(gw_read_cache_t *rc)
{
    int err;

    if (rc->asking || rc->batch.head == NULL)
        return;
    rc->asked = rc->batch; /* non-empty: its tail points into its own reads */
    take_all(&rc->batch);
    rc->asking = true;
    atomic_fetch_add(&rc->l->svc->n_cache_revisions, 1);
    err = gw_store_current_revision(rc->l->store, got_revision, rc);
    if (err != 0)
        got_revision(err, 0, rc);
}

/* Serve what is ready, then send the next revision request if reads wait for one. */
static void
on_run(evutil_socket_t fd, short what, void *arg)
{
    gw_read_cache_t *rc = arg;
    read_t *rd = take_all(&rc->ready), *next;

    (void)fd;
    (void)what;
    for (; rd != NULL; rd = next) {
        next = rd->next;
        serve(rc, rd);
    }
    ask(rc);
}

/* ---- the store hooks ------------------------------------------------------------------------ */

/* A read of collection `coll` the cache may take: NULL when etcd should answer it. */
static read_t *
read_new(gw_watch_local_t *l, const char *coll, bool relaxed, int64_t min_rev, int64_t at)
{
    gw_cache_t *c = gw_watch__cache_get(l->svc, coll);
    int64_t seen = c != NULL && !atomic_load(&c->off) ? atomic_load(&c->seen) : 0;
    read_t *rd;

    if (c != NULL && (seen == 0 || (at != 0 && seen < at) || (relaxed && seen < min_rev)))
        atomic_fetch_add(&l->svc->n_cache_etcd, 1);
    if (seen == 0 || (at != 0 && seen < at) || (relaxed && seen < min_rev))
        return NULL;
    rd = gw_calloc(1, sizeof(*rd));
    rd->c = c;
    rd->at = at;
    rd->want = at != 0 ? at : min_rev;
    return rd;
}

/* Queue a taken read: relaxed and pinned ones are served from the loop, latest ones after the
 * next revision request. */
static void
queue(gw_read_cache_t *rc, read_t *rd, bool latest)
{
    push(latest ? &rc->batch : &rc->ready, rd);
    event_active(rc->run, EV_TIMEOUT, 0);
}

static bool
hook_get(void *impl, const char *key, const gw_read_opts_t *o, gw_store_get_cb cb, void *ctx)
{
    gw_watch_local_t *l = impl;
    read_t *rd = read_new(l, o->collection, o->relaxed, o->min_revision, 0);

    if (rd == NULL)
        return false;
    rd->key = gw_strdup(key);
    rd->confirm_missing = o->confirm_missing;
    rd->get_cb = cb;
    rd->ctx = ctx;
    queue(l->reads, rd, !o->relaxed);
    return true;
}

static bool
hook_list(void *impl, const gw_list_req_t *req, gw_store_list_cb cb, void *ctx)
{
    gw_watch_local_t *l = impl;
    read_t *rd = read_new(l, req->collection, req->relaxed, req->min_revision, req->revision);

    if (rd == NULL)
        return false;
    rd->list = true;
    rd->key = gw_strdup(req->prefix);
    rd->start = req->start_key != NULL ? gw_strdup(req->start_key) : NULL;
    rd->limit = req->limit;
    rd->list_cb = cb;
    rd->ctx = ctx;
    queue(l->reads, rd, req->revision == 0 && !req->relaxed);
    return true;
}

static const gw_read_cache_ops_t ops = {.get = hook_get, .list = hook_list};

const gw_read_cache_ops_t *
gw_watch_local_read_cache(gw_watch_local_t *l)
{
    gw_read_cache_t *rc;

    if (!l->svc->cfg.read_cache)
        return NULL;
    if (l->reads != NULL)
        return &ops;
    rc = gw_calloc(1, sizeof(*rc));
    rc->l = l;
    rc->ready.tail = &rc->ready.head;
    rc->batch.tail = &rc->batch.head;
    rc->asked.tail = &rc->asked.head;
    rc->run = event_new(l->base, -1, 0, on_run, rc);
    if (rc->run == NULL)
        abort();
    l->reads = rc;
    return &ops;
}

void
gw_watch__read_cache_free(gw_watch_local_t *l)
{
    gw_read_cache_t *rc = l->reads;

    if (rc == NULL)
        return;
    queue_t *queues[] = {&rc->ready, &rc->batch, &rc->asked};
    for (size_t q = 0; q < sizeof(queues) / sizeof(queues[0]); q++) {
        read_t *rd = take_all(queues[q]), *next;
        for (; rd != NULL; rd = next) {
            next = rd->next;
            fail(rd, GW_ECANCELED);
            read_free(rd);
        }
    }
    event_free(rc->run);
    free(rc);
    l->reads = NULL;
}
