/*
 * Streamed answers (watches, large lists): a chunked 200 whose body is written piece by piece
 * for as long as the request lasts. The handlers hand over encoded bytes; this file alone
 * compresses them, frames them as chunks and tells a producer when to wait for its client.
 *
 * evhttp reports a client that left from inside its connection teardown, and a drained output
 * buffer from inside its write path; neither is a place to run a handler that may end the
 * request, so both only mark what is due and wake the request's own event, which runs the
 * handler's callbacks from the loop. Drains are watched on the output evbuffer itself, which
 * leaves evhttp's own connection callbacks alone.
 *
 * evhttp takes any call of the connection's write callback for "everything queued was sent".
 * With libevent 2.1.12's OpenSSL bufferevents that callback was seen to run late, after more
 * was queued (a chunk drained, then the last chunk queued before the late call ran): evhttp
 * then took the answer as complete with the last chunk unsent and went back to reading the
 * connection, its writes disabled, and the client waited forever. So while a stream is
 * answered its connection's write callback is guarded: a call with bytes still queued is
 * dropped; the real drain calls it again.
 */
#include "gw_req.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "gw_api_int.h"
#include "gw_gzip.h"
#include "gw_log.h"

static struct bufferevent *
conn_bev(gw_req_t *r)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(r->http);

    return evcon != NULL && !r->gone ? evhttp_connection_get_bufferevent(evcon) : NULL;
}

/* evhttp's write callback (the same function for every connection). */
static _Atomic(bufferevent_data_cb) evhttp_write_cb;

static void
guarded_write_cb(struct bufferevent *bev, void *arg)
{
    if (evbuffer_get_length(bufferevent_get_output(bev)) > 0)
        return; /* a late call: more was queued since */
    atomic_load (&evhttp_write_cb)(bev, arg);
}

/* Guard the write callback evhttp has just set (it sets it again with each write). */
static void
guard(struct bufferevent *bev)
{
    bufferevent_data_cb rcb, wcb;
    bufferevent_event_cb ecb;
    void *arg;

    bufferevent_getcb(bev, &rcb, &wcb, &ecb, &arg);
    if (wcb == NULL || wcb == guarded_write_cb)
        return;
    atomic_store(&evhttp_write_cb, wcb);
    bufferevent_setcb(bev, rcb, guarded_write_cb, ecb, arg);
}

static void
on_wake(evutil_socket_t fd, short what, void *arg)
{
    gw_req_t *r = arg;
    gw_api__req_t *p = GW_API_REQ(r);
    gw_stream_stop_fn stop = p->stream_stop;
    gw_stream_drained_fn drained = p->stream_drained;

    (void)fd;
    (void)what;
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

static void
wake(gw_api__req_t *p)
{
    event_active(p->stream_wake, EV_TIMEOUT, 0);
}

/* From evhttp's connection teardown: only note it. */
static void
on_gone(void *arg)
{
    gw_req_t *r = arg;
    gw_api__req_t *p = GW_API_REQ(r);

    r->gone = true;
    p->stop_due = true;
    wake(p);
}

/* The connection's output changed: a drain to empty is what a drained callback waits for. */
static void
on_output(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
    gw_api__req_t *p = arg;

    if (info->n_deleted > 0 && evbuffer_get_length(buf) == 0 && p->stream_drained != NULL) {
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

/* While the stream is open: no read timeout (a watch client sends nothing), the write timeout
 * kept (a client that reads nothing for that long is dropped), and input capped. */
static void
exempt(struct bufferevent *bev)
{
    struct timeval wt = {GW_SERVER_READ_TIMEOUT_S, 0};

    bufferevent_set_timeouts(bev, NULL, &wt);
    bufferevent_setwatermark(bev, EV_READ, 0, GW_SERVER_MAX_HEADERS);
}

/* Once the head is sent a stream reads no header again, yet evhttp keeps both lists for as long
 * as the answer lasts (an Authorization header alone may be a kilobyte): all go but Connection
 * (and a proxy's), which evhttp reads at the end to decide whether the connection stays. */
static void
shed_headers(struct evkeyvalq *h)
{
    struct evkeyval *kv = h->tqh_first, *next;

    for (; kv != NULL; kv = next) {
        next = kv->next.tqe_next;
        if (strcasecmp(kv->key, "Connection") != 0 && strcasecmp(kv->key, "Proxy-Connection") != 0)
            evhttp_remove_header(h, kv->key); /* the first of that name: this one */
    }
}

void
gw_stream_start(gw_req_t *r, const char *content_type, bool gzip, gw_stream_stop_fn stop, void *arg)
{
    gw_api__req_t *p = GW_API_REQ(r);
    struct bufferevent *bev;

    p->streaming = true;
    p->stream_stop = stop;
    p->stream_stop_arg = arg;
    p->stream_wake = event_new(gw_worker_base(r->worker), -1, 0, on_wake, r);
    p->stream_body = evbuffer_new();
    if (p->stream_wake == NULL || p->stream_body == NULL)
        abort();
    track(p, gw_worker_index(r->worker));
    if (gzip) {
        p->stream_gzip = gw_gzip_new();
        gw_req_set_header(r, "Content-Encoding", "gzip");
        gw_req_set_header(r, "Vary", "Accept-Encoding");
    }
    gw_req_set_header(r, "Content-Type", content_type);
    gw_api__default_headers(r);
    gw_server_on_gone(r->http, on_gone, r); /* at once when the client already left */
    bev = conn_bev(r);
    if (bev == NULL)
        return;
    gw_api__audit_started(r, 200);
    evhttp_send_reply_start(r->http, 200, "OK");
    guard(bev);
    p->stream_chunked =
        evhttp_find_header(evhttp_request_get_output_headers(r->http), "Transfer-Encoding") != NULL;
    exempt(bev);
    shed_headers(evhttp_request_get_input_headers(r->http));
    shed_headers(evhttp_request_get_output_headers(r->http));
    p->stream_out_cb = evbuffer_add_cb(bufferevent_get_output(bev), on_output, p);
}

bool
gw_stream_allowed(gw_req_t *r)
{
    return evhttp_request_get_command(r->http) == EVHTTP_REQ_GET;
}

void
gw_stream_add(gw_req_t *r, const void *data, size_t len)
{
    gw_api__req_t *p = GW_API_REQ(r);

    if (conn_bev(r) == NULL)
        return;
    if (p->stream_gzip != NULL)
        gw_gzip_add(p->stream_gzip, data, len, false, p->stream_body);
    else
        evbuffer_add(p->stream_body, data, len);
}

void
gw_stream_add_ref(gw_req_t *r, const void *data, size_t len, gw_stream_cleanup_fn cleanup,
                  void *arg)
{
    gw_api__req_t *p = GW_API_REQ(r);

    if (conn_bev(r) != NULL && p->stream_gzip == NULL) {
        evbuffer_add_reference(p->stream_body, data, len, cleanup, arg);
        return;
    }
    gw_stream_add(r, data, len);
    cleanup(data, len, arg);
}

bool
gw_stream_flush(gw_req_t *r, size_t high_water, gw_stream_drained_fn resume, void *arg)
{
    gw_api__req_t *p = GW_API_REQ(r);

    if (conn_bev(r) == NULL) {
        evbuffer_drain(p->stream_body, evbuffer_get_length(p->stream_body));
        return false;
    }
    if (evbuffer_get_length(p->stream_body) > 0) {
        evhttp_send_reply_chunk(r->http, p->stream_body);
        guard(conn_bev(r));
    }
    if (resume == NULL || gw_stream_queued(r) <= high_water)
        return false;
    p->stream_drained = resume;
    p->stream_drained_arg = arg;
    return true;
}

size_t
gw_stream_queued(gw_req_t *r)
{
    struct bufferevent *bev = conn_bev(r);

    return bev != NULL ? evbuffer_get_length(bufferevent_get_output(bev)) : 0;
}

/* The end of the stream, `complete` or cut short. */
static void
stream_close(gw_req_t *r, bool complete)
{
    gw_api__req_t *p = GW_API_REQ(r);
    struct bufferevent *bev;

    if (complete && p->stream_gzip != NULL && conn_bev(r) != NULL)
        gw_gzip_add(p->stream_gzip, NULL, 0, true, p->stream_body);
    if (complete)
        gw_stream_flush(r, 0, NULL, NULL);
    gw_gzip_free(p->stream_gzip);
    p->stream_gzip = NULL;
    evbuffer_free(p->stream_body); /* lent bytes not sent are released */
    p->stream_body = NULL;
    untrack(p, gw_worker_index(r->worker));
    event_free(p->stream_wake);
    gw_server_on_gone(r->http, NULL, NULL);
    bev = conn_bev(r);
    if (bev != NULL) {
        evbuffer_remove_cb_entry(bufferevent_get_output(bev), p->stream_out_cb);
        bufferevent_setwatermark(bev, EV_READ, 0, 0);
        evhttp_connection_set_timeout(evhttp_request_get_connection(r->http),
                                      GW_SERVER_READ_TIMEOUT_S);
    }
    struct evhttp_request *http = r->http;
    bool chunked = p->stream_chunked;
    gw_api__req_finish(r, 200);
    /* Queues the last chunk; a request whose client left is freed here. Without chunks
     * (HTTP/1.0) evhttp may be done at once, the connection gone: nothing to guard then. */
    evhttp_send_reply_end(http);
    if (bev != NULL && chunked)
        guard(bev);
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
