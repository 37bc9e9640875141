/*
 * Watches, each on its own Watch stream. The caller sees a single unbroken sequence of events:
 * when the stream breaks (a member restarts or goes away) the watch is created again, on
 * whichever endpoint is current, from the revision after the last event delivered. That
 * position only ever moves with delivered events (or the first `created` of a watch from
 * "now"), never with progress notifications, which etcd 3.4.23 may send ahead of events
 * still being caught up.
 */
#include "etcd.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "etcd_int.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

struct etcd_watch {
    etcd__live_t live;
    etcd__stream_t stream;
    etcd_watch_cb cb;
    void *ctx;
    uint8_t *key; /* the request, kept for re-creating the watch */
    size_t key_len;
    uint8_t *range_end;
    size_t range_end_len;
    bool prev_kv;
    bool progress_notify;
    Etcdserverpb__WatchCreateRequest__FilterType filters[2];
    size_t n_filters;
    int64_t next_rev;    /* where a new stream starts; 0: from now */
    bool created;        /* the current stream's watch exists */
    bool want_progress;  /* asked for before the watch existed */
    bool cancelled;      /* etcd_watch_cancel or etcd_conn_free */
    bool ended;          /* a terminal callback was delivered */
    unsigned attempt;    /* reopens since the last `created` */
    struct event *timer; /* backoff before reopening */
};

static const char watch_path[] = "/etcdserverpb.Watch/Watch";

static void
open_stream(etcd_watch_t *w)
{
    Etcdserverpb__WatchCreateRequest create = ETCDSERVERPB__WATCH_CREATE_REQUEST__INIT;
    create.key = (ProtobufCBinaryData){w->key_len, w->key};
    create.range_end = (ProtobufCBinaryData){w->range_end_len, w->range_end};
    create.start_revision = w->next_rev;
    create.prev_kv = w->prev_kv;
    create.progress_notify = w->progress_notify;
    create.n_filters = w->n_filters;
    create.filters = w->filters;
    Etcdserverpb__WatchRequest req = ETCDSERVERPB__WATCH_REQUEST__INIT;
    req.request_union_case = ETCDSERVERPB__WATCH_REQUEST__REQUEST_UNION_CREATE_REQUEST;
    req.create_request = &create;
    w->created = false;
    w->stream.quiet = w->attempt > 0;
    etcd__stream_open(&w->stream, &req.base);
}

static void
send_progress(etcd_watch_t *w)
{
    Etcdserverpb__WatchProgressRequest progress = ETCDSERVERPB__WATCH_PROGRESS_REQUEST__INIT;
    Etcdserverpb__WatchRequest req = ETCDSERVERPB__WATCH_REQUEST__INIT;
    req.request_union_case = ETCDSERVERPB__WATCH_REQUEST__REQUEST_UNION_PROGRESS_REQUEST;
    req.progress_request = &progress;
    w->want_progress = false;
    etcd__stream_send(&w->stream, &req.base);
}

static void
destroy(etcd_watch_t *w)
{
    event_free(w->timer);
    etcd__stream_cleanup(&w->stream);
    free(w->key);
    free(w->range_end);
    free(w);
}

/* Deliver a terminal callback now; the memory goes when the stream is closed. */
static void
end(etcd_watch_t *w, int err, const Etcdserverpb__WatchResponse *resp)
{
    w->ended = true;
    etcd__stream_cancel(&w->stream);
    w->cb(err, resp, w->ctx);
}

/* Terminal callback and free, when no stream is open. */
static void
finish(etcd_watch_t *w, int err)
{
    etcd__conn_untrack(&w->live);
    if (!w->ended)
        w->cb(err, NULL, w->ctx);
    destroy(w);
}

static void
on_canceled(etcd_watch_t *w, const Etcdserverpb__WatchResponse *r)
{
    if (r->compact_revision > 0) {
        end(w, GW_ECOMPACTED, r);
        return;
    }
    gw_log_warn(NULL, "etcd watch canceled by etcd: %s",
                r->cancel_reason && r->cancel_reason[0] ? r->cancel_reason : "no reason given");
    end(w, GW_EINTERNAL, r);
}

static void
on_created(etcd_watch_t *w, const Etcdserverpb__WatchResponse *r)
{
    w->created = true;
    w->attempt = 0;
    if (w->next_rev == 0 && r->header != NULL)
        w->next_rev = r->header->revision + 1; /* "from now" is now a revision */
    if (w->want_progress)
        send_progress(w);
}

static void
on_message(etcd__stream_t *s, const ProtobufCMessage *msg)
{
    etcd_watch_t *w = ETCD__CONTAINER_OF(s, etcd_watch_t, stream);
    const Etcdserverpb__WatchResponse *r = (const Etcdserverpb__WatchResponse *)msg;
    if (w->ended || w->cancelled)
        return;
    if (r->canceled) {
        on_canceled(w, r);
        return;
    }
    if (r->created) {
        on_created(w, r);
        return;
    }
    if (r->n_events > 0 && r->events[r->n_events - 1]->kv != NULL)
        w->next_rev = r->events[r->n_events - 1]->kv->mod_revision + 1;
    w->cb(0, r, w->ctx);
}

static void
on_closed(etcd__stream_t *s, int err)
{
    etcd_watch_t *w = ETCD__CONTAINER_OF(s, etcd_watch_t, stream);
    if (w->ended || w->cancelled) {
        finish(w, GW_ECANCELED);
        return;
    }
    if (etcd__status_permanent(s->status)) {
        finish(w, GW_EINTERNAL);
        return;
    }
    GW_LOG_AT(w->attempt > 0 ? GW_LOG_DEBUG : GW_LOG_INFO, NULL,
              "etcd watch stream ended (%s); re-creating it from revision %lld", gw_errname(err),
              (long long)w->next_rev);
    struct timeval tv = etcd__backoff(w->attempt++);
    evtimer_add(w->timer, &tv);
}

static const etcd__stream_ops_t watch_ops = {.on_message = on_message, .on_closed = on_closed};

static void
reopen(evutil_socket_t fd, short what, void *arg)
{
    etcd_watch_t *w = arg;
    (void)fd;
    (void)what;
    if (w->cancelled)
        finish(w, GW_ECANCELED);
    else
        open_stream(w);
}

/* etcd_conn_free: end now if nothing is open, else once the stream is closed. */
static void
live_cancel(etcd__live_t *live)
{
    etcd_watch_t *w = ETCD__CONTAINER_OF(live, etcd_watch_t, live);
    w->cancelled = true;
    if (etcd__stream_is_open(&w->stream))
        etcd__stream_cancel(&w->stream);
    else
        finish(w, GW_ECANCELED);
}

static bool
bad_request(const etcd_watch_req_t *req)
{
    return req->key.len == 0 || req->key.data == NULL ||
           (req->range_end.len > 0 && req->range_end.data == NULL) || req->start_revision < 0;
}

static void
copy_request(etcd_watch_t *w, const etcd_watch_req_t *req)
{
    w->key = gw_memdup(req->key.data, req->key.len);
    w->key_len = req->key.len;
    if (req->range_end.len > 0)
        w->range_end = gw_memdup(req->range_end.data, req->range_end.len);
    w->range_end_len = req->range_end.len;
    w->next_rev = req->start_revision;
    w->prev_kv = req->prev_kv;
    w->progress_notify = req->progress_notify;
    if (req->filter_noput)
        w->filters[w->n_filters++] = ETCDSERVERPB__WATCH_CREATE_REQUEST__FILTER_TYPE__NOPUT;
    if (req->filter_nodelete)
        w->filters[w->n_filters++] = ETCDSERVERPB__WATCH_CREATE_REQUEST__FILTER_TYPE__NODELETE;
}

etcd_watch_t *
etcd_watch_start(etcd_conn_t *conn, const etcd_watch_req_t *req, etcd_watch_cb cb, void *ctx)
{
    if (bad_request(req) || cb == NULL)
        return NULL;
    etcd_watch_t *w = gw_calloc(1, sizeof(*w));
    w->cb = cb;
    w->ctx = ctx;
    copy_request(w, req);
    w->timer = evtimer_new(conn->base, reopen, w);
    etcd__stream_init(&w->stream, conn, watch_path, &etcdserverpb__watch_response__descriptor,
                      &watch_ops);
    etcd__conn_track(conn, &w->live, live_cancel);
    open_stream(w);
    return w;
}

void
etcd_watch_request_progress(etcd_watch_t *w)
{
    if (w->ended || w->cancelled)
        return;
    if (w->created && etcd__stream_is_open(&w->stream))
        send_progress(w);
    else
        w->want_progress = true;
}

void
etcd_watch_cancel(etcd_watch_t *w)
{
    if (w->ended || w->cancelled)
        return;
    w->cancelled = true;
    if (etcd__stream_is_open(&w->stream))
        etcd__stream_cancel(&w->stream);
    else
        event_active(w->timer, EV_TIMEOUT, 0); /* waiting to reopen: end from the loop */
}
