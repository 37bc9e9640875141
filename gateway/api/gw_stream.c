/*
 * Streamed answers (watches, large lists): a 200 whose body is written piece by piece for as
 * long as the request lasts. The handlers hand over encoded bytes; this file alone compresses
 * them, hands them to the exchange's transport (chunks on HTTP/1.1, DATA frames on HTTP/2) and
 * tells a producer when to wait for its client.
 *
 * The transport reports a client that left, and an answer whose queued bytes drained, from
 * inside its own calls; neither is a place to run a handler that may end the request, so both
 * only mark what is due and queue the stream for its worker's one wake event, which runs the
 * handler's callbacks from the loop.
 *
 * A stream may outlive its request (gw_stream_detach): an idle watch among thousands then holds
 * this small struct and what its end records, not the request's arena.
 */
#include "gw_req.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_api_int.h"
#include "gw_apf.h"
#include "gw_gzip.h"
#include "gw_log.h"

/* What a detached stream's end records: its request's metrics series (the labels' strings
 * copied after the struct) and the catalog its handler serves from. */
typedef struct {
    gw_metrics_labels_t labels;
    bool counted; /* the request is a series */
    int64_t start_ns;
    const gw_catalog_t *catalog;    /* a reference */
    struct gw_apf_watch *apf_watch; /* the watch counted for priority and fairness, or NULL */
    char audit_id[];
} detached_t;

struct gw_stream {
    gw_req_t *r;   /* the request, until detached */
    detached_t *d; /* once detached */
    gw_api_t *api;
    gw_exchange_t *x;
    int worker;                 /* the worker's index */
    bool gone;                  /* the client left */
    bool started;               /* its status line went out */
    bool stop_due, drained_due; /* what the loop runs next for this stream */
    bool wake_queued;           /* on api->wakes[worker], which runs them */
    gw_stream_stop_fn stop;
    void *stop_arg;
    gw_stream_drained_fn drained;
    void *drained_arg;
    struct evbuffer *body;              /* added and not yet flushed (compressed when gzipped) */
    gw_gzip_t *gzip;                    /* the body's compressor, when gzipped */
    gw_stream_t *wake_prev, *wake_next; /* api->wakes[worker] */
    gw_stream_t *prev, *next;           /* api->streams[worker] */
};

/* The exchange while its client is there, else NULL: nothing more is sent. */
static gw_exchange_t *
live(const gw_stream_t *s)
{
    return s->gone ? NULL : s->x;
}

/* What is due for one stream, from the loop. */
static void
run_due(gw_stream_t *s)
{
    gw_stream_stop_fn stop = s->stop;
    gw_stream_drained_fn drained = s->drained;

    if (s->stop_due) {
        s->stop_due = s->drained_due = false;
        s->stop = NULL; /* once */
        s->drained = NULL;
        if (stop != NULL)
            stop(s->stop_arg);
    } else if (s->drained_due) {
        s->drained_due = false;
        s->drained = NULL;
        if (drained != NULL)
            drained(s->drained_arg);
    }
}

static void
unqueue(gw_api__wakes_t *q, gw_stream_t *s)
{
    if (s->wake_prev != NULL)
        s->wake_prev->wake_next = s->wake_next;
    else
        q->first = s->wake_next;
    if (s->wake_next != NULL)
        s->wake_next->wake_prev = s->wake_prev;
    else
        q->last = s->wake_prev;
    s->wake_queued = false;
}

/* The worker's streams with work due, one at a time (a stream's work may end others). */
static void
on_wakes(evutil_socket_t fd, short what, void *arg)
{
    gw_api__wakes_t *q = arg;

    (void)fd;
    (void)what;
    while (q->first != NULL) {
        gw_stream_t *s = q->first;
        unqueue(q, s);
        run_due(s);
    }
}

static void
wake(gw_stream_t *s)
{
    gw_api__wakes_t *q = &s->api->wakes[s->worker];

    if (!s->wake_queued) {
        s->wake_prev = q->last;
        s->wake_next = NULL;
        if (q->last != NULL)
            q->last->wake_next = s;
        else
            q->first = s;
        q->last = s;
        s->wake_queued = true;
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
    gw_stream_t *s = arg;

    s->gone = true;
    if (s->r != NULL)
        s->r->gone = true;
    s->stop_due = true;
    wake(s);
}

/* From the transport: the answer's queued bytes drained. */
static void
on_drained(void *arg)
{
    gw_stream_t *s = arg;

    if (s->drained != NULL) {
        s->drained_due = true;
        wake(s);
    }
}

static void
track(gw_stream_t *s)
{
    gw_stream_t **head = &s->api->streams[s->worker];

    s->prev = NULL;
    s->next = *head;
    if (*head != NULL)
        (*head)->prev = s;
    *head = s;
    atomic_fetch_add(&s->api->open_streams, 1);
}

static void
untrack(gw_stream_t *s)
{
    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        s->api->streams[s->worker] = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
    atomic_fetch_sub(&s->api->open_streams, 1);
}

/* apiserver_longrunning_requests counts r's streamed answer while it lasts, when r is
 * long-running (a watch; a streamed list is not). Detached streams are watches. */
static void
longrunning(gw_req_t *r, int delta)
{
    gw_metrics_labels_t l;
    if (r->long_running && gw_api__metrics_labels(r, &l))
        gw_metrics_longrunning(&l, delta);
}

gw_stream_t *
gw_stream_start(gw_req_t *r, const char *content_type, bool gzip, gw_stream_stop_fn stop, void *arg)
{
    gw_stream_t *s = gw_calloc(1, sizeof(*s));

    s->r = r;
    s->api = GW_API_REQ(r)->api;
    s->x = r->x;
    s->worker = gw_worker_index(r->worker);
    s->gone = r->gone;
    s->stop = stop;
    s->stop_arg = arg;
    track(s);
    if (gzip) {
        s->gzip = gw_gzip_new();
        gw_req_set_header(r, "Content-Encoding", "gzip");
        gw_req_set_header(r, "Vary", "Accept-Encoding");
    }
    gw_req_set_header(r, "Content-Type", content_type);
    gw_api__default_headers(r);
    gw_exchange_on_gone(r->x, on_gone, s); /* at once when the client already left */
    if (live(s) == NULL)
        return s;
    gw_api__audit_started(r, 200);
    gw_exchange_reply_start(r->x, 200);
    gw_exchange_long_running(r->x);
    longrunning(r, 1);
    s->started = true;
    gw_exchange_on_drained(r->x, on_drained, s);
    return s;
}

/* Copies of a series' label strings after d. */
static size_t
labels_size(const gw_metrics_labels_t *l)
{
    return strlen(l->verb) + strlen(l->group) + strlen(l->version) + strlen(l->resource) +
           strlen(l->subresource) + 5;
}

static const char *
copy_label(char **at, const char *v)
{
    size_t n = strlen(v) + 1;
    const char *out = memcpy(*at, v, n);
    *at += n;
    return out;
}

bool
gw_stream_detach(gw_stream_t *s)
{
    gw_req_t *r = s->r;
    gw_metrics_labels_t l = {0};
    bool counted;
    size_t id_len;
    char *at;

    if (r == NULL)
        return true;
    if (GW_API_REQ(r)->audit != NULL)
        return false;
    counted = gw_api__metrics_labels(r, &l);
    id_len = strlen(r->audit_id) + 1;
    s->d = gw_malloc(sizeof(*s->d) + id_len + (counted ? labels_size(&l) : 0));
    s->d->counted = counted;
    s->d->start_ns = r->start_ns;
    s->d->catalog = gw_catalog_ref(r->catalog);
    /* the watch stays counted for the mutating work estimator until the stream ends */
    s->d->apf_watch = GW_API_REQ(r)->apf_watch;
    GW_API_REQ(r)->apf_watch = NULL;
    memcpy(s->d->audit_id, r->audit_id, id_len);
    /* dryRun, scope and component are literals; the rest is the request's or its exchange's */
    s->d->labels = l;
    at = s->d->audit_id + id_len;
    if (counted) {
        s->d->labels.verb = copy_label(&at, l.verb);
        s->d->labels.group = copy_label(&at, l.group);
        s->d->labels.version = copy_label(&at, l.version);
        s->d->labels.resource = copy_label(&at, l.resource);
        s->d->labels.subresource = copy_label(&at, l.subresource);
    }
    s->r = NULL;
    gw_api__req_release(r, 200);
    gw_exchange_release_request(s->x);
    return true;
}

const gw_catalog_t *
gw_stream_catalog(const gw_stream_t *s)
{
    return s->r != NULL ? s->r->catalog : s->d->catalog;
}

const char *
gw_stream_audit_id(const gw_stream_t *s)
{
    return s->r != NULL ? s->r->audit_id : s->d->audit_id;
}

/* The buffer of bytes added and not yet flushed, made when first needed: an idle watch holds
 * none. */
static struct evbuffer *
body(gw_stream_t *s)
{
    if (s->body == NULL && (s->body = evbuffer_new()) == NULL)
        abort();
    return s->body;
}

static void
drop_body(gw_stream_t *s)
{
    if (s->body != NULL)
        evbuffer_free(s->body); /* lent bytes not sent are released */
    s->body = NULL;
}

bool
gw_stream_allowed(gw_req_t *r)
{
    return strcmp(gw_exchange_method(r->x), "GET") == 0;
}

void
gw_stream_add(gw_stream_t *s, const void *data, size_t len)
{
    if (live(s) == NULL)
        return;
    if (s->r != NULL)
        GW_API_REQ(s->r)->resp_bytes += len;
    if (s->gzip != NULL)
        gw_gzip_add(s->gzip, data, len, false, body(s));
    else
        evbuffer_add(body(s), data, len);
}

void
gw_stream_add_ref(gw_stream_t *s, const void *data, size_t len, gw_stream_cleanup_fn cleanup,
                  void *arg)
{
    /* Lent straight to the transport, after what was added before: an HTTP/2 stream keeps a
     * few words for them where a buffer would take a 1 KiB chain per watcher. */
    if (live(s) != NULL && s->gzip == NULL) {
        if (s->body != NULL && evbuffer_get_length(s->body) > 0)
            gw_exchange_reply_chunk(s->x, s->body);
        gw_exchange_reply_ref(s->x, data, len, cleanup, arg);
        return;
    }
    gw_stream_add(s, data, len);
    cleanup(data, len, arg);
}

bool
gw_stream_flush(gw_stream_t *s, size_t high_water, gw_stream_drained_fn resume, void *arg)
{
    if (live(s) == NULL) {
        drop_body(s);
        return false;
    }
    if (s->body != NULL && evbuffer_get_length(s->body) > 0)
        gw_exchange_reply_chunk(s->x, s->body);
    drop_body(s);
    if (resume == NULL || gw_stream_queued(s) <= high_water)
        return false;
    s->drained = resume;
    s->drained_arg = arg;
    return true;
}

size_t
gw_stream_queued(const gw_stream_t *s)
{
    return live(s) != NULL ? gw_exchange_queued(s->x) : 0;
}

/* The request's end: finished with it, or, once detached, its metrics recorded here. */
static void
finish(gw_stream_t *s)
{
    detached_t *d = s->d;

    if (s->r != NULL) {
        if (s->started)
            longrunning(s->r, -1);
        gw_api__req_finish(s->r, 200);
        return;
    }
    if (d->counted) {
        if (s->started)
            gw_metrics_longrunning(&d->labels, -1);
        gw_api__metrics_record(s->api, s->worker, &d->labels, 200, d->start_ns);
    }
    gw_catalog_unref(d->catalog);
    if (d->apf_watch != NULL)
        gw_apf_watch_forget(s->api->cfg.apf, d->apf_watch);
    free(d);
}

/* The end of the stream, `complete` or cut short. */
static void
stream_close(gw_stream_t *s, bool complete)
{
    gw_exchange_t *x = s->x;

    if (complete && s->gzip != NULL && live(s) != NULL)
        gw_gzip_add(s->gzip, NULL, 0, true, body(s));
    if (complete)
        gw_stream_flush(s, 0, NULL, NULL);
    gw_gzip_free(s->gzip);
    drop_body(s);
    untrack(s);
    if (s->wake_queued)
        unqueue(&s->api->wakes[s->worker], s);
    gw_exchange_on_gone(x, NULL, NULL);
    gw_exchange_on_drained(x, NULL, NULL);
    /* Recorded first: the end of the reply frees an exchange whose client left. */
    finish(s);
    free(s);
    gw_exchange_reply_end(x);
}

void
gw_stream_end(gw_stream_t *s)
{
    stream_close(s, true);
}

void
gw_stream_cut(gw_stream_t *s)
{
    stream_close(s, false);
}

void
gw_api__streams_stop(gw_api_t *api, int index)
{
    for (gw_stream_t *s = api->streams[index]; s != NULL; s = s->next) {
        s->stop_due = true;
        wake(s);
    }
}
