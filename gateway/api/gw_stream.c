/*
 * Streamed answers (watches, large lists): a 200 whose body is written piece by piece for as
 * long as the request lasts. The handlers hand over encoded bytes; this file alone compresses
 * them, hands them to the exchange's transport (chunks on HTTP/1.1, DATA frames on HTTP/2) and
 * tells a producer when to wait for its client.
 *
 * The transport reports a client that left, and an answer whose queued bytes drained, from
 * inside its own calls; neither is a place to run a handler that may end the request, so both
 * only mark what is due and queue the request for its worker's one wake event, which runs the
 * handler's callbacks from the loop.
 */
#include "gw_req.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "gw_api_int.h"
#include "gw_gzip.h"
#include "gw_log.h"

/* The exchange while its client is there, else NULL: nothing more is sent. */
static gw_exchange_t *
live(gw_req_t *r)
{
    return r->gone ? NULL : r->x;
}

/* What is due for one stream, from the loop. */
static void
run_due(gw_api__req_t *p)
{
    gw_req_t *r = &p->r;
    gw_stream_stop_fn stop = p->stream_stop;
    gw_stream_drained_fn drained = p->stream_drained;

    if (p->stop_due) {
        p->stop_due = p->drained_due = false;
        p->stream_stop = NULL; /* once */
        p->stream_drained = NULL;
        if (stop != NULL)
            stop(r, p->stream_stop_arg);
    } else if (p->drained_due) {
        p->drained_due = false;
        p->stream_drained = NULL;
        if (drained != NULL)
            drained(r, p->stream_drained_arg);
    }
}

static gw_api__wakes_t *
wakes_of(gw_api__req_t *p)
{
    return &p->api->wakes[gw_worker_index(p->r.worker)];
}

static void
unqueue(gw_api__wakes_t *q, gw_api__req_t *p)
{
    if (p->wake_prev != NULL)
        p->wake_prev->wake_next = p->wake_next;
    else
        q->first = p->wake_next;
    if (p->wake_next != NULL)
        p->wake_next->wake_prev = p->wake_prev;
    else
        q->last = p->wake_prev;
    p->wake_queued = false;
}

/* The worker's streams with work due, one at a time (a stream's work may end others). */
static void
on_wakes(evutil_socket_t fd, short what, void *arg)
{
    gw_api__wakes_t *q = arg;

    (void)fd;
    (void)what;
    while (q->first != NULL) {
        gw_api__req_t *p = q->first;
        unqueue(q, p);
        run_due(p);
    }
}

static void
wake(gw_api__req_t *p)
{
    gw_api__wakes_t *q = wakes_of(p);

    if (!p->wake_queued) {
        p->wake_prev = q->last;
        p->wake_next = NULL;
        if (q->last != NULL)
            q->last->wake_next = p;
        else
            q->first = p;
        q->last = p;
        p->wake_queued = true;
    }
    if (q->ev != NULL) /* NULL once the worker ended: evhttp_free may still report clients gone */
        event_active(q->ev, EV_TIMEOUT, 0);
}

void
gw_api__wakes_start(gw_api_t *api, int index, struct event_base *base)
{
    gw_api__wakes_t *q = &api->wakes[index];

    q->ev = event_new(base, -1, 0, on_wakes, q);
    if (q->ev == NULL)
        abort();
}

void
gw_api__wakes_exit(gw_api_t *api, int index)
{
    gw_api__wakes_t *q = &api->wakes[index];

    if (q->ev != NULL)
        event_free(q->ev);
    q->ev = NULL;
}

/* From the transport: only note it. */
static void
on_gone(void *arg)
{
    gw_req_t *r = arg;
    gw_api__req_t *p = GW_API_REQ(r);

    r->gone = true;
    p->stop_due = true;
    wake(p);
}

/* From the transport: the answer's queued bytes drained. */
static void
on_drained(void *arg)
{
    gw_api__req_t *p = arg;

    if (p->stream_drained != NULL) {
        p->drained_due = true;
        wake(p);
    }
}

static void
track(gw_api__req_t *p, int index)
{
    gw_api__req_t **head = &p->api->streams[index];

    p->stream_prev = NULL;
    p->stream_next = *head;
    if (*head != NULL)
        (*head)->stream_prev = p;
    *head = p;
    atomic_fetch_add(&p->api->open_streams, 1);
}

static void
untrack(gw_api__req_t *p, int index)
{
    if (p->stream_prev != NULL)
        p->stream_prev->stream_next = p->stream_next;
    else
        p->api->streams[index] = p->stream_next;
    if (p->stream_next != NULL)
        p->stream_next->stream_prev = p->stream_prev;
    atomic_fetch_sub(&p->api->open_streams, 1);
}

void
gw_stream_start(gw_req_t *r, const char *content_type, bool gzip, gw_stream_stop_fn stop, void *arg)
{
    gw_api__req_t *p = GW_API_REQ(r);

    p->streaming = true;
    p->stream_stop = stop;
    p->stream_stop_arg = arg;
    track(p, gw_worker_index(r->worker));
    if (gzip) {
        p->stream_gzip = gw_gzip_new();
        gw_req_set_header(r, "Content-Encoding", "gzip");
        gw_req_set_header(r, "Vary", "Accept-Encoding");
    }
    gw_req_set_header(r, "Content-Type", content_type);
    gw_api__default_headers(r);
    gw_exchange_on_gone(r->x, on_gone, r); /* at once when the client already left */
    if (live(r) == NULL)
        return;
    gw_api__audit_started(r, 200);
    gw_exchange_reply_start(r->x, 200);
    gw_exchange_long_running(r->x);
    gw_exchange_on_drained(r->x, on_drained, p);
}

/* The buffer of bytes added and not yet flushed, made when first needed: an idle watch holds
 * none. */
static struct evbuffer *
body(gw_api__req_t *p)
{
    if (p->stream_body == NULL && (p->stream_body = evbuffer_new()) == NULL)
        abort();
    return p->stream_body;
}

static void
drop_body(gw_api__req_t *p)
{
    if (p->stream_body != NULL)
        evbuffer_free(p->stream_body); /* lent bytes not sent are released */
    p->stream_body = NULL;
}

bool
gw_stream_allowed(gw_req_t *r)
{
    return strcmp(gw_exchange_method(r->x), "GET") == 0;
}

void
gw_stream_add(gw_req_t *r, const void *data, size_t len)
{
    gw_api__req_t *p = GW_API_REQ(r);

    if (live(r) == NULL)
        return;
    if (p->stream_gzip != NULL)
        gw_gzip_add(p->stream_gzip, data, len, false, body(p));
    else
        evbuffer_add(body(p), data, len);
}

void
gw_stream_add_ref(gw_req_t *r, const void *data, size_t len, gw_stream_cleanup_fn cleanup,
                  void *arg)
{
    gw_api__req_t *p = GW_API_REQ(r);

    /* Lent straight to the transport, after what was added before: an HTTP/2 stream keeps a
     * few words for them where a buffer would take a 1 KiB chain per watcher. */
    if (live(r) != NULL && p->stream_gzip == NULL) {
        if (p->stream_body != NULL && evbuffer_get_length(p->stream_body) > 0)
            gw_exchange_reply_chunk(r->x, p->stream_body);
        gw_exchange_reply_ref(r->x, data, len, cleanup, arg);
        return;
    }
    gw_stream_add(r, data, len);
    cleanup(data, len, arg);
}

bool
gw_stream_flush(gw_req_t *r, size_t high_water, gw_stream_drained_fn resume, void *arg)
{
    gw_api__req_t *p = GW_API_REQ(r);

    if (live(r) == NULL) {
        drop_body(p);
        return false;
    }
    if (p->stream_body != NULL && evbuffer_get_length(p->stream_body) > 0)
        gw_exchange_reply_chunk(r->x, p->stream_body);
    drop_body(p);
    if (resume == NULL || gw_stream_queued(r) <= high_water)
        return false;
    p->stream_drained = resume;
    p->stream_drained_arg = arg;
    return true;
}

size_t
gw_stream_queued(gw_req_t *r)
{
    return live(r) != NULL ? gw_exchange_queued(r->x) : 0;
}

/* The end of the stream, `complete` or cut short. */
static void
stream_close(gw_req_t *r, bool complete)
{
    gw_api__req_t *p = GW_API_REQ(r);
    gw_exchange_t *x = r->x;

    if (complete && p->stream_gzip != NULL && live(r) != NULL)
        gw_gzip_add(p->stream_gzip, NULL, 0, true, body(p));
    if (complete)
        gw_stream_flush(r, 0, NULL, NULL);
    gw_gzip_free(p->stream_gzip);
    p->stream_gzip = NULL;
    drop_body(p);
    untrack(p, gw_worker_index(r->worker));
    if (p->wake_queued)
        unqueue(wakes_of(p), p);
    gw_exchange_on_gone(x, NULL, NULL);
    gw_exchange_on_drained(x, NULL, NULL);
    gw_api__req_finish(r, 200);
    gw_exchange_reply_end(x);
}

void
gw_stream_end(gw_req_t *r)
{
    stream_close(r, true);
}

void
gw_stream_cut(gw_req_t *r)
{
    stream_close(r, false);
}

void
gw_api__streams_stop(gw_api_t *api, int index)
{
    for (gw_api__req_t *p = api->streams[index]; p != NULL; p = p->stream_next) {
        p->stop_due = true;
        wake(p);
    }
}
