/*
 * Hubs: the shared etcd watch of one collection, on the hub thread. Each event is built once,
 * kept in a bounded window (kube-apiserver's watch cache, by count and by bytes) and sent to
 * every worker that has watchers of the collection. A watcher starting inside the window is
 * served from it; an older start is told to catch up from etcd on its own first.
 *
 * Bookmarks: etcd 3.4.23 may answer a progress request ahead of events it has yet to send
 * (fixed in 3.4.25), so a progress revision is only trusted one round later, when no event at
 * or below it arrived in between; it is published only when it moves past the last event.
 */
#include "gw_watch_int.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

static void hub_stop(gw_hub_t *h);

gw_hub_t *
gw_watch__hub_ref(gw_hub_t *h)
{
    atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
    return h;
}

void
gw_watch__hub_unref(gw_hub_t *h)
{
    if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1)
        return;
    free(h->collection);
    free(h->per_worker);
    free(h->by_worker);
    free(h->ring);
    free(h);
}

/* ---- fan-out ------------------------------------------------------------------------------- */

/* One message per worker with watchers of h. */
static void
broadcast(gw_hub_t *h, gw_watch__msg_kind_t kind, gw_wev_t *e, int64_t rev, int err)
{
    for (int i = 0; i < h->svc->cfg.workers; i++) {
        if (h->per_worker[i] == 0)
            continue;
        gw_watch__msg_t *m = gw_watch__msg_new(kind);
        m->hub = gw_watch__hub_ref(h);
        m->ev = e != NULL ? gw_wev_ref(e) : NULL;
        m->rev = rev;
        m->err = err;
        gw_watch__to_worker(h->svc, i, m);
    }
}

/* ---- the window ---------------------------------------------------------------------------- */

static gw_wev_t **
ring_at(gw_hub_t *h, size_t i)
{
    return &h->ring[(h->first + i) % h->cap];
}

static void
evict_oldest(gw_hub_t *h)
{
    gw_wev_t *e = *ring_at(h, 0);

    h->first = (h->first + 1) % h->cap;
    h->n--;
    h->bytes -= e->line_len + e->prev_len;
    atomic_store(&h->start, e->rev);
    gw_wev_unref(e);
}

static void
window_push(gw_hub_t *h, gw_wev_t *e)
{
    if (h->n == h->cap)
        evict_oldest(h);
    *ring_at(h, h->n) = gw_wev_ref(e);
    h->n++;
    h->bytes += e->line_len + e->prev_len;
    while (h->n > 1 && h->bytes > h->svc->cfg.window_bytes)
        evict_oldest(h);
}

/* The window's events after rev, as references (oldest first). */
static gw_wev_t **
window_after(gw_hub_t *h, int64_t rev, size_t *n)
{
    size_t from = h->n;
    gw_wev_t **out;

    while (from > 0 && (*ring_at(h, from - 1))->rev > rev)
        from--;
    *n = h->n - from;
    if (*n == 0)
        return NULL;
    out = gw_calloc(*n, sizeof(*out));
    for (size_t i = 0; i < *n; i++)
        out[i] = gw_wev_ref(*ring_at(h, from + i));
    return out;
}

/* ---- the etcd watch ------------------------------------------------------------------------ */

static void
on_progress(gw_hub_t *h, int64_t rev)
{
    if (h->candidate > h->rev && !h->spoiled) {
        h->rev = h->candidate;
        broadcast(h, MSG_PROGRESS, NULL, h->rev, 0);
    }
    h->candidate = rev;
    h->spoiled = false;
}

static void
on_change(gw_hub_t *h, const gw_watch_event_t *ev)
{
    gw_wev_t *e = gw_wev_new(ev, h->fields, h->encode);

    if (e == NULL) {
        gw_log_warn(NULL, "watch of %s: skipping the undecodable value of %s at revision %lld",
                    h->collection, ev->obj != NULL ? ev->obj->key : "a deleted key",
                    (long long)ev->revision);
        return;
    }
    if (h->candidate > 0 && e->rev <= h->candidate)
        h->spoiled = true;
    window_push(h, e);
    if (e->rev > h->rev)
        h->rev = e->rev;
    broadcast(h, MSG_EVENT, e, 0, 0);
    gw_wev_unref(e);
}

/* The hub's end on the hub thread: the window and timers go; the memory goes with the last
 * reference (messages and watchers may still hold some). */
static void
dispose(gw_hub_t *h)
{
    while (h->n > 0)
        evict_oldest(h);
    event_free(h->linger);
    event_free(h->tick);
    h->linger = h->tick = NULL;
    gw_watch__hub_unref(h);
}

static void
unregister(gw_hub_t *h)
{
    gw_hub_t **p = &h->svc->hubs;

    while (*p != NULL && *p != h)
        p = &(*p)->next;
    if (*p == NULL)
        return;
    *p = h->next;
    atomic_store(&h->dead, true);
    atomic_fetch_sub(&h->svc->n_hubs, 1);
}

static void
on_event(int err, const gw_watch_event_t *ev, void *arg)
{
    gw_hub_t *h = arg;

    if (err == 0 && ev->type == GW_WATCH_PROGRESS) {
        on_progress(h, ev->revision);
    } else if (err == 0) {
        on_change(h, ev);
    } else {
        h->sw = NULL;
        if (err != GW_ECANCELED) {
            GW_LOG_AT(err == GW_ECOMPACTED ? GW_LOG_INFO : GW_LOG_WARN, NULL,
                      "watch of %s ended: %s", h->collection, gw_strerror(err));
            unregister(h);
            broadcast(h, MSG_END, NULL, err == GW_ECOMPACTED ? ev->revision : 0, err);
        }
        dispose(h);
    }
}

static void
on_tick(evutil_socket_t fd, short what, void *arg)
{
    gw_hub_t *h = arg;

    (void)fd;
    (void)what;
    if (h->sw != NULL)
        gw_store_watch_request_progress(h->sw);
}

static void
on_linger(evutil_socket_t fd, short what, void *arg)
{
    gw_hub_t *h = arg;

    (void)fd;
    (void)what;
    if (h->attached == 0)
        hub_stop(h);
}

static struct timeval
ms_tv(int64_t ms)
{
    return (struct timeval){.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
}

static gw_hub_t *
hub_alloc(gw_watch_t *s, const gw_watch__msg_t *m)
{
    gw_hub_t *h = gw_calloc(1, sizeof(*h));
    size_t workers = (size_t)s->cfg.workers;

    atomic_init(&h->refs, 1); /* the etcd watch's, until its terminal callback */
    atomic_init(&h->start, m->rev);
    atomic_init(&h->dead, false);
    h->svc = s;
    h->collection = gw_strdup(m->collection);
    h->fields = m->fields;
    h->encode = m->encode;
    h->rev = m->rev;
    h->cap = s->cfg.window_events;
    h->ring = gw_calloc(h->cap, sizeof(*h->ring));
    h->per_worker = gw_calloc(workers, sizeof(*h->per_worker));
    h->by_worker = gw_calloc(workers, sizeof(*h->by_worker));
    h->linger = evtimer_new(s->base, on_linger, h);
    h->tick = event_new(s->base, -1, EV_PERSIST, on_tick, h);
    if (h->linger == NULL || h->tick == NULL)
        abort();
    return h;
}

/* A hub for m's collection, watching etcd from m's start; NULL when etcd refuses the request. */
static gw_hub_t *
hub_new(gw_watch_t *s, const gw_watch__msg_t *m)
{
    gw_hub_t *h = hub_alloc(s, m);
    gw_watch_req_t q = {
        .key = m->collection, .is_prefix = true, .after_revision = m->rev, .prev_values = true};
    struct timeval tv = ms_tv(s->cfg.progress_ms);

    h->sw = gw_store_watch(s->store, &q, on_event, h);
    if (h->sw == NULL) {
        dispose(h);
        return NULL;
    }
    evtimer_add(h->tick, &tv);
    h->next = s->hubs;
    s->hubs = h;
    atomic_fetch_add(&s->n_hubs, 1);
    return h;
}

static void
hub_stop(gw_hub_t *h)
{
    unregister(h);
    if (h->sw != NULL)
        gw_store_watch_stop(h->sw); /* the terminal callback disposes of it */
}

/* ---- subscriptions ------------------------------------------------------------------------- */

static gw_hub_t *
find(gw_watch_t *s, const gw_watch__msg_t *m)
{
    for (gw_hub_t *h = s->hubs; h != NULL; h = h->next) {
        if (h->fields == m->fields && h->encode == m->encode &&
            strcmp(h->collection, m->collection) == 0)
            return h;
    }
    return NULL;
}

static void
reply(gw_watch_t *s, gw_watch__msg_t *m, gw_watch__msg_kind_t kind, gw_hub_t *h)
{
    gw_watch__msg_t *r = gw_watch__msg_new(kind);

    r->w = m->w;
    r->hub = h != NULL ? gw_watch__hub_ref(h) : NULL;
    if (kind == MSG_ATTACHED)
        r->evs = window_after(h, m->rev, &r->n_evs);
    if (kind == MSG_END)
        r->err = GW_EINTERNAL;
    gw_watch__to_worker(s, m->worker, r);
}

void
gw_watch__hub_sub(gw_watch_t *s, gw_watch__msg_t *m)
{
    gw_hub_t *h = find(s, m);

    if (h == NULL)
        h = hub_new(s, m);
    if (h == NULL) {
        reply(s, m, MSG_END, NULL);
    } else if (m->rev < atomic_load(&h->start)) {
        reply(s, m, MSG_TOO_OLD, h);
    } else {
        h->per_worker[m->worker]++;
        h->attached++;
        evtimer_del(h->linger);
        reply(s, m, MSG_ATTACHED, h);
    }
    gw_watch__msg_free(m);
}

static void
detached(gw_hub_t *h)
{
    struct timeval tv = ms_tv(h->svc->cfg.linger_ms);

    if (h->attached == 0 && h->sw != NULL)
        evtimer_add(h->linger, &tv);
}

void
gw_watch__hub_unsub(gw_hub_t *h, int i)
{
    h->per_worker[i]--;
    h->attached--;
    detached(h);
}

void
gw_watch__hub_forget_worker(gw_watch_t *s, int i)
{
    for (gw_hub_t *h = s->hubs; h != NULL; h = h->next) {
        h->attached -= h->per_worker[i];
        h->per_worker[i] = 0;
        detached(h);
    }
}

void
gw_watch__hubs_stop(gw_watch_t *s)
{
    while (s->hubs != NULL)
        hub_stop(s->hubs);
}
