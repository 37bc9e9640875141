/* One worker thread: its event_base, evhttp, TLS connections (HTTP/1.1, or HTTP/2 taken from
 * evhttp once ALPN chose it) and request dispatch. */
#include "gw_clock.h"
#include "gw_server_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <openssl/ssl.h>

#include "gw_alloc.h"
#include "gw_h2.h"
#include "gw_uuid.h"
#include "gw_log.h"

#define DRAIN_POLL_US 50000

/*
 * Per-connection state, hung on the connection's SSL object so that it is freed with the
 * connection, whichever way the connection ends. It tells a drain whether a request is still
 * in progress: evhttp serves one request at a time per connection, and a connection that dies
 * mid-request never reports that request complete. An HTTP/2 connection stays evhttp's
 * connection object (evhttp frees it, and its bufferevent, at the end), but its bufferevent's
 * callbacks are the HTTP/2 session's.
 */
typedef struct h2_link {
    gw_worker_t *worker;
    bool busy;
    bool closecb_set;
    void (*gone)(void *arg); /* the request in progress wants to know if the peer leaves */
    void *gone_arg;
    struct bufferevent *bev;
    struct evhttp_connection *evcon; /* HTTP/2: evhttp's object of this connection */
    gw_h2_conn_t *h2;                /* HTTP/2: the session, once the handshake is done */
    struct h2_link *prev, *next;     /* in worker->h2_conns while h2 is set */
} conn_state_t;

static atomic_long requests_http1, requests_http2, h2_connections;

static int conn_index = -1;
static pthread_once_t conn_index_once = PTHREAD_ONCE_INIT;

static void
conn_state_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    (void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
    conn_state_t *cs = ptr;
    if (cs == NULL)
        return;
    if (cs->busy)
        cs->worker->active--;
    free(cs);
}

static void
conn_index_init(void)
{
    conn_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, conn_state_free);
    if (conn_index < 0)
        abort();
}

static struct bufferevent *
new_tls_bev(struct event_base *base, void *arg)
{
    gw_worker_t *w = arg;
    SSL *ssl = SSL_new(w->srv->opts.tls);
    conn_state_t *cs = gw_calloc(1, sizeof(*cs));
    cs->worker = w;
    if (ssl == NULL || SSL_set_ex_data(ssl, conn_index, cs) != 1)
        abort(); /* only out of memory */
    struct bufferevent *bev = bufferevent_openssl_socket_new(
        base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
    if (bev == NULL)
        abort();
    cs->bev = bev;
    /* Most HTTP clients close without a TLS close_notify; that is not an error here. */
    bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    return bev;
}

static conn_state_t *
conn_state(struct evhttp_connection *evcon)
{
    SSL *ssl = bufferevent_openssl_get_ssl(evhttp_connection_get_bufferevent(evcon));
    return SSL_get_ex_data(ssl, conn_index);
}

static void
request_done(struct evhttp_request *req, void *arg)
{
    (void)req;
    conn_state_t *cs = arg;
    cs->busy = false;
    cs->gone = NULL;
    cs->worker->active--;
}

static void h2_unlink(conn_state_t *cs);

/* The connection is being freed: a request still in progress has lost its client; an HTTP/2
 * session lets go of it (the worker is going away: evhttp frees its connections). */
static void
conn_closed(struct evhttp_connection *evcon, void *arg)
{
    (void)evcon;
    conn_state_t *cs = arg;
    void (*gone)(void *) = cs->gone;
    cs->gone = NULL;
    if (cs->busy && gone != NULL)
        gone(cs->gone_arg);
    if (cs->h2 != NULL) {
        gw_h2_conn_t *c = cs->h2;
        h2_unlink(cs);
        gw_h2_conn_free(c);
    }
}

static void
track_request(gw_worker_t *w, struct evhttp_request *req)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(req);
    conn_state_t *cs = conn_state(evcon);
    cs->busy = true;
    cs->gone = NULL;
    w->active++;
    evhttp_request_set_on_complete_cb(req, request_done, cs);
    if (!cs->closecb_set)
        evhttp_connection_set_closecb(evcon, conn_closed, cs);
    cs->closecb_set = true;
}

void
gw_server__on_gone(struct evhttp_request *req, void (*gone)(void *arg), void *arg)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(req);
    if (evcon == NULL) {
        if (gone != NULL)
            gone(arg); /* already detached from its connection */
        return;
    }
    conn_state_t *cs = conn_state(evcon);
    cs->gone = gone;
    cs->gone_arg = arg;
}

/* kube-apiserver keeps an Audit-ID the client sent (and echoes it); ours must also be a
 * sane header value and a sane log field. */
static bool
usable_audit_id(const char *id)
{
    size_t len = id != NULL ? strlen(id) : 0;
    if (len == 0 || len > GW_AUDIT_ID_MAX)
        return false;
    for (const char *p = id; *p != '\0'; p++) {
        if (*p <= ' ' || *p >= 0x7f)
            return false;
    }
    return true;
}

/* Hand x to the handler with its Audit-ID. */
static void
serve(gw_worker_t *w, gw_exchange_t *x)
{
    char fresh[GW_UUID_LEN + 1];
    const char *id = evhttp_find_header(gw_exchange_input_headers(x), "Audit-ID");
    if (!usable_audit_id(id)) {
        gw_uuid_v4(fresh);
        id = fresh;
    }
    evhttp_add_header(gw_exchange_output_headers(x), "Audit-ID", id);
    w->srv->opts.handler(x, id, w, w->srv->opts.handler_data);
}

static void
dispatch(struct evhttp_request *req, void *arg)
{
    gw_worker_t *w = arg;
    if (w->draining)
        evhttp_add_header(evhttp_request_get_output_headers(req), "Connection", "close");
    track_request(w, req);
    atomic_fetch_add(&requests_http1, 1);
    serve(w, gw_server__http1_exchange(req));
}

/* ---- HTTP/2 ------------------------------------------------------------------------------ */

static const unsigned char alpn_protocols[] = "\x02h2\x08http/1.1";

static void
h2_unlink(conn_state_t *cs)
{
    if (cs->prev != NULL)
        cs->prev->next = cs->next;
    else
        cs->worker->h2_conns = cs->next;
    if (cs->next != NULL)
        cs->next->prev = cs->prev;
    cs->prev = cs->next = NULL;
    cs->h2 = NULL;
    atomic_fetch_sub(&h2_connections, 1);
}

static void
h2_dispatch(gw_exchange_t *x, void *arg)
{
    conn_state_t *cs = arg;
    atomic_fetch_add(&requests_http2, 1);
    serve(cs->worker, x);
}

/* The session is over: evhttp's connection goes, with the bufferevent and cs. */
static void
h2_closed(void *arg)
{
    conn_state_t *cs = arg;
    h2_unlink(cs);
    evhttp_connection_free(cs->evcon);
}

static void
h2_start(conn_state_t *cs)
{
    gw_worker_t *w = cs->worker;
    uint32_t streams = w->srv->opts.http2_max_streams;
    gw_h2_config_t cfg = {
        .max_streams = streams > 0 ? streams : 250,
        .max_header_list = GW_SERVER_MAX_HEADERS,
        .max_body = GW_SERVER_HARD_MAX_BODY,
        .write_timeout_s = GW_SERVER_READ_TIMEOUT_S,
        .dispatch = h2_dispatch,
        .closed = h2_closed,
        .arg = cs,
        .ssl = bufferevent_openssl_get_ssl(cs->bev),
        .peer = evhttp_connection_get_addr(cs->evcon),
    };
    cs->h2 = gw_h2_conn_new(cs->bev, &cfg);
    cs->next = w->h2_conns;
    if (cs->next != NULL)
        cs->next->prev = cs;
    w->h2_conns = cs;
    atomic_fetch_add(&h2_connections, 1);
    if (w->draining)
        gw_h2_conn_goaway(cs->h2);
}

/* Between the ALPN choice and the handshake's end: the session starts once TLS is up. */
static void
h2_wait_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    conn_state_t *cs = arg;
    if (what & BEV_EVENT_CONNECTED)
        h2_start(cs);
    else
        evhttp_connection_free(cs->evcon);
}

static void
h2_wait_read(struct bufferevent *bev, void *arg)
{
    (void)bev;
    conn_state_t *cs = arg;
    if (cs->h2 == NULL)
        h2_start(cs);
}

/* ALPN during the handshake: h2 takes the connection from evhttp before evhttp reads a byte of
 * it (evhttp's callbacks on the bufferevent carry its connection object). */
static int
alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
            unsigned int inlen, void *arg)
{
    (void)arg;
    unsigned char *chosen;
    conn_state_t *cs = SSL_get_ex_data(ssl, conn_index);
    if (SSL_select_next_proto(&chosen, outlen, alpn_protocols, sizeof(alpn_protocols) - 1, in,
                              inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK; /* HTTP/1.1 without ALPN */
    *out = chosen;
    if (cs == NULL || *outlen != 2 || memcmp(chosen, "h2", 2) != 0)
        return SSL_TLSEXT_ERR_OK;
    void *evcon;
    bufferevent_getcb(cs->bev, NULL, NULL, NULL, &evcon);
    cs->evcon = evcon;
    evhttp_connection_set_closecb(cs->evcon, conn_closed, cs);
    cs->closecb_set = true;
    bufferevent_setcb(cs->bev, h2_wait_read, NULL, h2_wait_event, cs);
    return SSL_TLSEXT_ERR_OK;
}

void
gw_server_http_stats(gw_server_http_stats_t *out)
{
    out->http1_requests = atomic_load(&requests_http1);
    out->http2_requests = atomic_load(&requests_http2);
    out->http2_connections = atomic_load(&h2_connections);
    out->http2_streams = gw_h2_open_streams();
}

void
gw_server__alpn_setup(SSL_CTX *ctx)
{
    pthread_once(&conn_index_once, conn_index_init);
    SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
}

/* Requests still to answer on this worker, over both protocols. */
static size_t
in_progress(const gw_worker_t *w)
{
    size_t n = (size_t)w->active;
    for (const conn_state_t *cs = w->h2_conns; cs != NULL; cs = cs->next)
        n += gw_h2_conn_streams(cs->h2);
    return n;
}

/* Cancel the etcd calls first: their callbacks may still reply to live requests. */
static void
finish(gw_worker_t *w)
{
    event_del(w->drain_ev);
    if (w->srv->opts.on_stop != NULL)
        w->srv->opts.on_stop(w, w->srv->opts.hook_arg);
    etcd_conn_free(w->etcd);
    w->etcd = NULL;
    if (w->srv->opts.on_exit != NULL)
        w->srv->opts.on_exit(w, w->srv->opts.hook_arg);
    evhttp_free(w->http);
    w->http = NULL;
    event_base_loopbreak(w->base);
}

static void
on_drain_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    gw_worker_t *w = arg;
    size_t n = in_progress(w);
    if (n > 0 && gw_monotonic_ms() < w->drain_deadline_ms)
        return;
    if (n > 0)
        gw_log_warn(NULL, "worker %d: closing %zu requests still in progress", w->index, n);
    finish(w);
}

static void
on_stop(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    gw_worker_t *w = arg;
    struct timeval poll = {0, DRAIN_POLL_US};
    w->draining = true;
    evhttp_del_accept_socket(w->http, w->bound);
    w->bound = NULL;
    w->drain_deadline_ms = gw_monotonic_ms() + w->drain_ms;
    for (conn_state_t *cs = w->h2_conns; cs != NULL; cs = cs->next)
        gw_h2_conn_goaway(cs->h2);
    if (w->srv->opts.on_drain != NULL)
        w->srv->opts.on_drain(w, w->srv->opts.hook_arg);
    event_add(w->drain_ev, &poll);
    on_drain_tick(-1, 0, w);
}

static void
setup_http(gw_worker_t *w)
{
    w->http = evhttp_new(w->base);
    if (w->http == NULL)
        abort();
    evhttp_set_bevcb(w->http, new_tls_bev, w);
    evhttp_set_gencb(w->http, dispatch, w);
    evhttp_set_max_headers_size(w->http, GW_SERVER_MAX_HEADERS);
    evhttp_set_max_body_size(w->http, GW_SERVER_HARD_MAX_BODY);
    evhttp_set_timeout(w->http, GW_SERVER_READ_TIMEOUT_S);
    /* evhttp answers 501 to PATCH and OPTIONS unless told they are allowed. */
    evhttp_set_allowed_methods(w->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
                                            EVHTTP_REQ_PUT | EVHTTP_REQ_PATCH | EVHTTP_REQ_DELETE |
                                            EVHTTP_REQ_OPTIONS);
    w->bound = evhttp_accept_socket_with_handle(w->http, w->listen_fd);
    if (w->bound == NULL)
        abort();
}

static void
setup(gw_worker_t *w)
{
    pthread_once(&conn_index_once, conn_index_init);
    w->base = event_base_new();
    if (w->base == NULL)
        abort();
    w->timers = gw_timers_new(w->base);
    setup_http(w);
    w->etcd = etcd_conn_new(w->srv->opts.etcd, w->base);
    w->stop_ev = event_new(w->base, -1, 0, on_stop, w);
    w->drain_ev = event_new(w->base, -1, EV_PERSIST, on_drain_tick, w);
    if (w->stop_ev == NULL || w->drain_ev == NULL)
        abort();
}

void *
gw_server__worker_main(void *arg)
{
    gw_worker_t *w = arg;
    gw_server_t *s = w->srv;
    setup(w);
    if (s->opts.on_start != NULL)
        s->opts.on_start(w, s->opts.hook_arg);
    pthread_mutex_lock(&s->lock);
    s->ready++;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);

    event_base_loop(w->base, EVLOOP_NO_EXIT_ON_EMPTY);
    /* Connections evhttp freed as the loop stopped (an HTTP/2 one still open at the end) leave
     * queued callbacks that hold their bufferevents' last references: one more pass runs them,
     * so that every connection is given back before the base goes. */
    event_base_loop(w->base, EVLOOP_NONBLOCK);

    event_free(w->stop_ev);
    event_free(w->drain_ev);
    gw_timers_free(w->timers);
    event_base_free(w->base);
    return NULL;
}
