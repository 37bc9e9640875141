/*
 * A worker's side of the watches: its mailbox from the hub thread, and its watchers.
 *
 * A watcher subscribes from the revision after which it wants events. When the hub's window
 * reaches that far back the hub attaches it (replaying the window's later events first);
 * otherwise it catches up on an etcd watch of its own over the whole collection, and as soon
 * as that watch delivers an event past the start of the hub's window it stops it (after the
 * batch in hand: a batch never splits a revision) and subscribes again from there. Events at
 * or below the revision a subscription started from are never delivered, so the hand-over
 * neither skips nor repeats anything.
 */
#include "gw_watch_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

typedef enum {
    W_SUBSCRIBING, /* a SUB is on its way to the hub thread */
    W_LIVE,        /* attached to hub */
    W_CATCHUP,     /* reading etcd on its own, aiming at hub's window */
} wstate_t;

struct gw_watcher {
    gw_watch_local_t *l;
    gw_watcher_cb cb;
    void *ctx;
    char *collection;
    char *key_prefix; /* or NULL */
    size_t key_prefix_len;
    const char *const *fields;
    gw_wev_encode_fn encode;
    wstate_t state;
    int64_t floor; /* events at or below it are not delivered */
    int64_t last;  /* the last revision of the collection delivered */
    gw_hub_t *hub; /* LIVE: the hub attached to; CATCHUP: the hub aimed at (a reference) */
    gw_store_watch_t *catchup;
    struct event *handoff; /* leaves the catch-up from the loop, after the batch in hand (made
                              by the first catch-up: most watchers never need one) */
    bool sub_pending;      /* a reply to a SUB is to come */
    bool stopped;          /* no more notes; freed once nothing is pending */
    bool in_cb;            /* inside its callback: freeing waits */
    gw_watcher_t *peer_prev, *peer_next; /* hub->by_worker[l->index], when LIVE */
    gw_watcher_t *all_prev, *all_next;   /* l->all */
    char strings[]; /* collection and key_prefix point here (one block: a watch may last long) */
};

/* ---- lifetime ------------------------------------------------------------------------------ */

static void
maybe_free(gw_watcher_t *w)
{
    gw_watch_local_t *l = w->l;

    if (!w->stopped || w->in_cb || w->sub_pending || w->catchup != NULL)
        return;
    if (w->all_prev != NULL)
        w->all_prev->all_next = w->all_next;
    else
        l->all = w->all_next;
    if (w->all_next != NULL)
        w->all_next->all_prev = w->all_prev;
    if (w->hub != NULL)
        gw_watch__hub_unref(w->hub);
    if (w->handoff != NULL)
        event_free(w->handoff);
    atomic_fetch_sub(&l->svc->n_watchers, 1);
    free(w);
}

/* Hand a note to the owner; false when the owner stopped the watcher meanwhile (then it may
 * be gone). */
static bool
notify(gw_watcher_t *w, const gw_watcher_note_t *n)
{
    w->in_cb = true;
    w->cb(n, w->ctx);
    w->in_cb = false;
    if (!w->stopped)
        return true;
    maybe_free(w);
    return false;
}

/* A terminal note: the watcher is gone afterwards. */
static void
end(gw_watcher_t *w, int err, int64_t rev)
{
    gw_watcher_note_t n = {.kind = GW_WATCHER_END, .err = err, .rev = rev};

    if (!w->stopped) {
        w->stopped = true;
        w->in_cb = true;
        w->cb(&n, w->ctx);
        w->in_cb = false;
    }
    maybe_free(w);
}

/* ---- attachment ---------------------------------------------------------------------------- */

static void
link_peer(gw_watcher_t *w)
{
    gw_watcher_t **head = &w->hub->by_worker[w->l->index];

    w->peer_prev = NULL;
    w->peer_next = *head;
    if (*head != NULL)
        (*head)->peer_prev = w;
    *head = w;
}

/* Off the hub's list; the hub reference stays in w->hub. */
static void
unlink_peer(gw_watcher_t *w)
{
    gw_watcher_t **head = &w->hub->by_worker[w->l->index];

    if (w->peer_prev != NULL)
        w->peer_prev->peer_next = w->peer_next;
    else
        *head = w->peer_next;
    if (w->peer_next != NULL)
        w->peer_next->peer_prev = w->peer_prev;
    w->peer_prev = w->peer_next = NULL;
}

/* Tell the hub thread that this worker has one watcher less on hub (reference passed on). */
static void
send_unsub(gw_watch_local_t *l, gw_hub_t *hub)
{
    gw_watch__msg_t *m = gw_watch__msg_new(MSG_UNSUB);

    m->hub = hub;
    m->worker = l->index;
    gw_watch__to_hubs(l->svc, m);
}

static void
send_sub(gw_watcher_t *w)
{
    gw_watch__msg_t *m = gw_watch__msg_new(MSG_SUB);

    w->state = W_SUBSCRIBING;
    w->sub_pending = true;
    w->floor = w->last;
    m->w = w;
    m->worker = w->l->index;
    m->rev = w->last;
    m->collection = gw_strdup(w->collection);
    m->fields = w->fields;
    m->encode = w->encode;
    gw_watch__to_hubs(w->l->svc, m);
}

/* ---- delivery ------------------------------------------------------------------------------ */

/* Deliver e if it is w's; false when the owner stopped the watcher. */
static bool
deliver_event(gw_watcher_t *w, const gw_wev_t *e)
{
    gw_watcher_note_t n = {.kind = GW_WATCHER_EVENT, .ev = e, .rev = e->rev};

    if (e->rev <= w->floor)
        return true;
    if (e->rev > w->last)
        w->last = e->rev;
    if (w->key_prefix != NULL && strncmp(e->key, w->key_prefix, w->key_prefix_len) != 0)
        return true;
    return notify(w, &n);
}

static void
on_attached(gw_watch_local_t *l, gw_watch__msg_t *m)
{
    gw_watcher_t *w = m->w;

    w->sub_pending = false;
    if (w->stopped) {
        send_unsub(l, m->hub);
        m->hub = NULL;
        maybe_free(w);
        return;
    }
    if (w->hub != NULL)
        gw_watch__hub_unref(w->hub);
    w->hub = m->hub;
    m->hub = NULL;
    w->state = W_LIVE;
    link_peer(w);
    for (size_t i = 0; i < m->n_evs; i++) {
        if (!deliver_event(w, m->evs[i]))
            return;
    }
}

/* The hub of a live watcher ended. When etcd compacted the revision the hub was at but not the
 * watcher's own position (a hub started for an older watcher), the watcher subscribes again;
 * otherwise it ends too. */
static void
hub_ended(gw_watcher_t *w, const gw_watch__msg_t *m)
{
    unlink_peer(w);
    if (m->err != GW_ECOMPACTED || w->last + 1 < m->rev || w->stopped) {
        end(w, m->err, m->rev);
        return;
    }
    gw_watch__hub_unref(w->hub);
    w->hub = NULL;
    send_sub(w);
}

/* Every watcher of m's hub on this worker, in turn (each may stop itself meanwhile). */
static void
on_broadcast(gw_watch_local_t *l, gw_watch__msg_t *m)
{
    gw_watcher_t *w = m->hub->by_worker[l->index], *next;
    gw_watcher_note_t n = {.kind = GW_WATCHER_PROGRESS, .rev = m->rev};

    for (; w != NULL; w = next) {
        next = w->peer_next;
        if (m->kind == MSG_EVENT) {
            deliver_event(w, m->ev);
        } else if (m->kind == MSG_PROGRESS) {
            if (m->rev > w->last && m->rev > w->floor)
                notify(w, &n);
        } else {
            hub_ended(w, m);
        }
    }
}

/* ---- catching up --------------------------------------------------------------------------- */

static void
on_catchup(int err, const gw_watch_event_t *ev, void *arg)
{
    gw_watcher_t *w = arg;
    gw_wev_t *e;

    if (err != 0) {
        w->catchup = NULL;
        atomic_fetch_sub(&w->l->svc->n_catchups, 1);
        if (err == GW_ECANCELED)
            maybe_free(w);
        else
            end(w, err, err == GW_ECOMPACTED && ev != NULL ? ev->revision : 0);
        return;
    }
    if (ev->type == GW_WATCH_PROGRESS)
        return; /* not trusted on etcd 3.4.23 while a watch catches up */
    e = gw_wev_new(ev, w->fields, w->encode);
    if (e == NULL) {
        gw_log_warn(NULL, "watch of %s: skipping an undecodable value at revision %lld",
                    w->collection, (long long)ev->revision);
        return;
    }
    /* Past the window's start, or the hub went away (a new one would start right here). */
    if (deliver_event(w, e) && (e->rev > atomic_load(&w->hub->start) || atomic_load(&w->hub->dead)))
        event_active(w->handoff, EV_TIMEOUT, 0);
    gw_wev_unref(e);
}

static void
on_handoff(evutil_socket_t fd, short what, void *arg)
{
    gw_watcher_t *w = arg;

    (void)fd;
    (void)what;
    if (w->state != W_CATCHUP || w->stopped || w->catchup == NULL)
        return;
    gw_store_watch_stop(w->catchup);
    send_sub(w);
}

static void
start_catchup(gw_watcher_t *w, gw_hub_t *hub)
{
    gw_watch_req_t q = {
        .key = w->collection, .is_prefix = true, .after_revision = w->last, .prev_values = true};

    if (w->handoff == NULL && (w->handoff = evtimer_new(w->l->base, on_handoff, w)) == NULL)
        abort();
    if (w->hub != NULL)
        gw_watch__hub_unref(w->hub);
    w->hub = hub;
    w->state = W_CATCHUP;
    w->catchup = gw_store_watch(w->l->store, &q, on_catchup, w);
    if (w->catchup == NULL) {
        end(w, GW_EINTERNAL, 0);
        return;
    }
    atomic_fetch_add(&w->l->svc->n_catchups, 1);
    atomic_fetch_add(&w->l->svc->n_catchups_total, 1);
}

/* ---- the mailbox --------------------------------------------------------------------------- */

static void
on_reply(gw_watch_local_t *l, gw_watch__msg_t *m)
{
    gw_watcher_t *w = m->w;

    (void)l;
    w->sub_pending = false;
    if (w->stopped) {
        maybe_free(w);
    } else if (m->kind == MSG_TOO_OLD) {
        start_catchup(w, m->hub);
        m->hub = NULL;
    } else {
        end(w, m->err, m->rev);
    }
}

void
gw_watch__local_deliver(gw_watch__msg_t *m, void *arg)
{
    gw_watch_local_t *l = arg;

    if (m->kind == MSG_ATTACHED)
        on_attached(l, m);
    else if (m->w != NULL)
        on_reply(l, m);
    else
        on_broadcast(l, m);
    gw_watch__msg_free(m);
}

/* ---- the interface ------------------------------------------------------------------------- */

gw_watch_local_t *
gw_watch_local_new(gw_watch_t *s, int index, struct event_base *base, gw_store_t *store)
{
    gw_watch_local_t *l = gw_calloc(1, sizeof(*l));

    *l = (gw_watch_local_t){.svc = s, .index = index, .base = base, .store = store};
    gw_watch__mailbox_open(&s->outbox[index], base, gw_watch__local_deliver, l);
    return l;
}

void
gw_watch_local_free(gw_watch_local_t *l)
{
    gw_watch__msg_t *m, *next;
    gw_watch__msg_t *close;

    if (l == NULL)
        return;
    for (m = gw_watch__mailbox_close(&l->svc->outbox[l->index]); m != NULL; m = next) {
        next = m->next;
        if (m->w != NULL)
            m->w->sub_pending = false; /* its reply will never come */
        gw_watch__msg_free(m);
    }
    while (l->all != NULL) {
        gw_watcher_t *w = l->all;
        assert(w->catchup == NULL); /* the worker's etcd conn is freed first */
        w->sub_pending = false;
        if (w->state == W_LIVE)
            unlink_peer(w);
        end(w, GW_ECANCELED, 0);
    }
    gw_watch__read_cache_free(l);
    close = gw_watch__msg_new(MSG_CLOSE);
    close->worker = l->index;
    gw_watch__to_hubs(l->svc, close);
    free(l);
}

gw_watcher_t *
gw_watcher_start(gw_watch_local_t *l, const gw_watcher_req_t *req, gw_watcher_cb cb, void *ctx)
{
    gw_watcher_t *w;

    if (req->collection == NULL || req->collection[0] == '\0' || req->after_rev < 1 ||
        req->encode == NULL || cb == NULL)
        return NULL;
    size_t clen = strlen(req->collection) + 1;
    size_t plen = req->key_prefix != NULL ? strlen(req->key_prefix) + 1 : 0;
    w = gw_calloc(1, sizeof(*w) + clen + plen);
    *w = (gw_watcher_t){.l = l,
                        .cb = cb,
                        .ctx = ctx,
                        .fields = req->fields,
                        .encode = req->encode,
                        .last = req->after_rev};
    w->collection = memcpy(w->strings, req->collection, clen);
    if (req->key_prefix != NULL) {
        w->key_prefix = memcpy(w->strings + clen, req->key_prefix, plen);
        w->key_prefix_len = plen - 1;
    }
    w->all_next = l->all;
    if (l->all != NULL)
        l->all->all_prev = w;
    l->all = w;
    atomic_fetch_add(&l->svc->n_watchers, 1);
    send_sub(w);
    return w;
}

void
gw_watcher_stop(gw_watcher_t *w)
{
    if (w->stopped)
        return;
    w->stopped = true;
    if (w->state == W_LIVE) {
        unlink_peer(w);
        send_unsub(w->l, w->hub);
        w->hub = NULL;
    } else if (w->state == W_CATCHUP && w->catchup != NULL) {
        gw_store_watch_stop(w->catchup);
    }
    maybe_free(w);
}
