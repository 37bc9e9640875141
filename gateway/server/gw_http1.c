/*
 * HTTP/1.1 exchanges: an evhttp request seen through gw_exchange.h. The request's parts are
 * evhttp's own (parsed once by evhttp); the wrapper is freed when the answer ends it.
 *
 * evhttp takes any call of the connection's write callback for "everything queued was sent".
 * With libevent 2.1.12's OpenSSL bufferevents that callback was seen to run late, after more
 * was queued (a chunk drained, then the last chunk queued before the late call ran): evhttp
 * then took the answer as complete with the last chunk unsent and went back to reading the
 * connection, its writes disabled, and the client waited forever. So while a streamed answer is
 * written its connection's write callback is guarded: a call with bytes still queued is
 * dropped; the real drain calls it again.
 */
#include "gw_exchange_int.h"
#include "gw_server_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "gw_alloc.h"

typedef struct {
    gw_exchange_t x;
    struct evhttp_request *req;
    gw_exchange_fn drained;
    void *drained_arg;
    struct evbuffer_cb_entry *out_cb; /* watches the connection's output while streaming */
    bool chunked;                     /* a streamed answer's end is a last chunk */
} http1_t;

#define HTTP1(x) ((http1_t *)(x))

static struct bufferevent *
conn_bev(struct evhttp_request *req)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(req);

    return evcon != NULL ? evhttp_connection_get_bufferevent(evcon) : NULL;
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

    if (bev == NULL)
        return;
    bufferevent_getcb(bev, &rcb, &wcb, &ecb, &arg);
    if (wcb == NULL || wcb == guarded_write_cb)
        return;
    atomic_store(&evhttp_write_cb, wcb);
    bufferevent_setcb(bev, rcb, guarded_write_cb, ecb, arg);
}

static void
reply(gw_exchange_t *x, int code, struct evbuffer *body)
{
    struct evhttp_request *req = HTTP1(x)->req;

    free(x);
    gw_server__on_gone(req, NULL, NULL);
    evhttp_send_reply(req, code, NULL, body);
}

/* Once the head is sent the request's headers are read no more, yet evhttp keeps both lists for
 * as long as the answer lasts (an Authorization header alone may be a kilobyte): all go but
 * Connection (and a proxy's), which evhttp reads at the end to decide whether the connection
 * stays. */
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

static void
reply_start(gw_exchange_t *x, int code)
{
    http1_t *h = HTTP1(x);

    evhttp_send_reply_start(h->req, code, NULL);
    guard(conn_bev(h->req));
    h->chunked = evhttp_find_header(x->output_headers, "Transfer-Encoding") != NULL;
    shed_headers(x->input_headers);
    shed_headers(x->output_headers);
}

static void
reply_chunk(gw_exchange_t *x, struct evbuffer *data)
{
    struct evhttp_request *req = HTTP1(x)->req;

    evhttp_send_reply_chunk(req, data);
    guard(conn_bev(req));
}

/* evhttp frames buffers: the lent bytes go in one of their own (a 1 KiB chain of libevent's
 * until they are written; one connection's output holds few). */
static void
reply_ref(gw_exchange_t *x, const void *data, size_t len, gw_exchange_release_fn release, void *arg)
{
    struct evbuffer *b = evbuffer_new();

    if (b == NULL || evbuffer_add_reference(b, data, len, release, arg) != 0)
        abort();
    reply_chunk(x, b);
    evbuffer_free(b); /* releases the bytes now if evhttp did not take them */
}

static void
reply_end(gw_exchange_t *x)
{
    http1_t *h = HTTP1(x);
    struct evhttp_request *req = h->req;
    struct bufferevent *bev = conn_bev(req);
    bool chunked = h->chunked;

    if (bev != NULL && h->out_cb != NULL)
        evbuffer_remove_cb_entry(bufferevent_get_output(bev), h->out_cb);
    if (bev != NULL) {
        bufferevent_setwatermark(bev, EV_READ, 0, 0);
        evhttp_connection_set_timeout(evhttp_request_get_connection(req), GW_SERVER_READ_TIMEOUT_S);
    }
    free(h);
    gw_server__on_gone(req, NULL, NULL);
    /* Queues the last chunk; a request whose client left is freed here. Without chunks
     * (HTTP/1.0) evhttp may be done at once, the connection gone: nothing to guard then. */
    evhttp_send_reply_end(req);
    if (chunked)
        guard(bev);
}

static size_t
queued(gw_exchange_t *x)
{
    struct bufferevent *bev = conn_bev(HTTP1(x)->req);

    return bev != NULL ? evbuffer_get_length(bufferevent_get_output(bev)) : 0;
}

/* The connection's output changed: a drain to empty is what a drained callback waits for. */
static void
on_output(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
    http1_t *h = arg;

    if (info->n_deleted > 0 && evbuffer_get_length(buf) == 0 && h->drained != NULL)
        h->drained(h->drained_arg);
}

static void
on_drained(gw_exchange_t *x, gw_exchange_fn fn, void *arg)
{
    http1_t *h = HTTP1(x);
    struct bufferevent *bev = conn_bev(h->req);

    h->drained = fn;
    h->drained_arg = arg;
    if (fn != NULL && h->out_cb == NULL && bev != NULL)
        h->out_cb = evbuffer_add_cb(bufferevent_get_output(bev), on_output, h);
}

static void
on_gone(gw_exchange_t *x, gw_exchange_fn fn, void *arg)
{
    gw_server__on_gone(HTTP1(x)->req, fn, arg);
}

/* No read timeout (a watch client sends nothing), the write timeout kept (a client that reads
 * nothing for that long is dropped), and input capped. */
static void
long_running(gw_exchange_t *x)
{
    struct bufferevent *bev = conn_bev(HTTP1(x)->req);
    struct timeval wt = {GW_SERVER_READ_TIMEOUT_S, 0};

    if (bev == NULL)
        return;
    bufferevent_set_timeouts(bev, NULL, &wt);
    bufferevent_setwatermark(bev, EV_READ, 0, GW_SERVER_MAX_HEADERS);
}

static const gw_exchange_ops_t http1_ops = {
    .reply = reply,
    .reply_start = reply_start,
    .reply_chunk = reply_chunk,
    .reply_ref = reply_ref,
    .reply_end = reply_end,
    .queued = queued,
    .on_drained = on_drained,
    .on_gone = on_gone,
    .long_running = long_running,
};

static const char *
method_name(enum evhttp_cmd_type cmd)
{
    static const struct {
        enum evhttp_cmd_type cmd;
        const char *name;
    } methods[] = {
        {EVHTTP_REQ_GET, "GET"},         {EVHTTP_REQ_POST, "POST"},
        {EVHTTP_REQ_HEAD, "HEAD"},       {EVHTTP_REQ_PUT, "PUT"},
        {EVHTTP_REQ_DELETE, "DELETE"},   {EVHTTP_REQ_PATCH, "PATCH"},
        {EVHTTP_REQ_OPTIONS, "OPTIONS"}, {EVHTTP_REQ_TRACE, "TRACE"},
        {EVHTTP_REQ_CONNECT, "CONNECT"},
    };
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        if (methods[i].cmd == cmd)
            return methods[i].name;
    }
    return "UNKNOWN";
}

gw_exchange_t *
gw_server__http1_exchange(struct evhttp_request *req)
{
    http1_t *h = gw_calloc(1, sizeof(*h));
    gw_exchange_t *x = &h->x;
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    struct evhttp_connection *evcon = evhttp_request_get_connection(req);
    struct bufferevent *bev = conn_bev(req);
    const char *path = uri != NULL ? evhttp_uri_get_path(uri) : NULL;

    h->req = req;
    x->ops = &http1_ops;
    x->version = GW_HTTP_1_1;
    x->method = method_name(evhttp_request_get_command(req));
    x->target = evhttp_request_get_uri(req);
    x->path = path != NULL ? path : "/";
    x->query = uri != NULL ? evhttp_uri_get_query(uri) : NULL;
    x->input_headers = evhttp_request_get_input_headers(req);
    x->output_headers = evhttp_request_get_output_headers(req);
    x->body = evhttp_request_get_input_buffer(req);
    x->ssl = bev != NULL ? bufferevent_openssl_get_ssl(bev) : NULL;
    x->peer = evcon != NULL ? evhttp_connection_get_addr(evcon) : NULL;
    return x;
}
