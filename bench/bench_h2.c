/*
 * bench_h2: kgate's REST API over HTTP/2 beside HTTP/1.1. A GET of one ConfigMap of about
 * 2 KiB and a LIST of 500 of them in one namespace, closed-loop at 1 and 64 callers: over
 * HTTP/2 each caller is one stream at a time on ONE TLS connection (ALPN "h2"), over HTTP/1.1
 * each caller has its own keep-alive connection (bench_https.c's client), both for the same
 * duration in the same run. The ratio is what multiplexing on one connection gains or costs
 * against as many connections. Then the 64 callers' streams spread over 4 HTTP/2 connections,
 * beside the same HTTP/1.1 row: how much of the difference is one connection's serialization
 * (one TLS stream, one worker).
 *
 * Before those rows, on the kgate still fresh: memory per idle watch when 1,000 watches are
 * streams of one HTTP/2 connection (opened 32 at a time, as bench_watch opens its connections).
 * kgate's VmRSS before the connection is opened and once every watch is open and has delivered
 * one event (a ConfigMap of 2 KiB created through the API after they are open), over the
 * number of watches, in KiB; also the same once they are open, before the event, and after
 * EVENTS events (what the first event's fan-out left to malloc is reused by the next ones, so
 * it does not grow with each event). bench_watch
 * measures the first for HTTP/1.1, one connection per watch. The watches start from the
 * resourceVersion of a LIST, as an informer's do; that LIST and one watch, on a connection of
 * their own, are done before the baseline: what kgate starts for a collection's first read and
 * watch is not a cost per watch. Measured first because memory that the throughput rows
 * made kgate take and free stays in its heap, where it would hide what the watches cost.
 *
 * The client's receive windows are Go's HTTP/2 transport's (4 MiB per stream, 1 GiB for the
 * connection), so neither the LIST nor 1,000 watches wait for WINDOW_UPDATEs as nghttp2's
 * 64 KiB default would make them.
 *
 * Usage: bench_h2 https://IP:PORT PKI_DIR KGATE_PID
 *   PKI_DIR holds ca.crt (which signed kgate's serving certificate) and admin.crt/admin.key
 *   (a client certificate kgate accepts). The objects are created through the API first, in
 *   namespaces that must not exist yet; kgate should not publish kube-root-ca.crt
 *   (--controllers=*,-root-ca-cert-publisher), which would change the LIST's length during
 *   the rows. The memory per watch is only right for a kgate that served no watch before.
 *   Fewer than 1,000 watches are opened (and said so) when kgate announces fewer concurrent
 *   streams. BENCH_SECONDS as for every benchmark (bench.h).
 * Any failed or unexpected answer, a reset stream or a GOAWAY ends the run with exit status 1.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <jansson.h>
#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

#include "bench.h"
#include "gw_alloc.h"

#define NAMESPACE "bench-h2"
#define COLLECTION "/api/v1/namespaces/" NAMESPACE "/configmaps"
#define N_OBJECTS 500
#define OBJECT_NAME "cm-%03d"
#define GET_NAME "cm-000" /* the object the GET reads */

#define WATCH_NAMESPACE "bench-h2-watch"
#define WATCHED "/api/v1/namespaces/" WATCH_NAMESPACE "/configmaps"
#define WATCHED_NAME "watched"
#define EVENTS 5 /* created objects whose events every watch receives */
#define N_WATCHES 1000
#define WAIT_S 60 /* the longest the watches' opening or delivery may take */
/* Watches being opened at once, as bench_watch opens its connections: all 1,000 requests in
 * one burst would have kgate handle them side by side, and the heap that burst grows would
 * count as the open watches' memory. */
#define OPENING 32

#define SPREAD 4                 /* connections the spread row's streams go over */
#define STREAM_WINDOW (4u << 20) /* Go's transport: transportDefaultStreamFlow */
#define CONN_WINDOW (1 << 30)    /* and transportDefaultConnFlow */
#define PROTOCOL_H2 "\x02h2"     /* ALPN: h2 alone, so that a fallback is an error */

typedef enum { OP_GET, OP_LIST, N_OPS } op_t;

static const char *const op_names[] = {[OP_GET] = "get", [OP_LIST] = "list"};
static const char *const op_paths[] = {[OP_GET] = COLLECTION "/" GET_NAME, [OP_LIST] = COLLECTION};

/* ---- the HTTP/2 client: nghttp2's client session over an OpenSSL bufferevent ------------ */

typedef struct h2conn h2conn_t;
typedef struct h2req h2req_t;

/* One GET as one stream. The owner sets the fields from path to arg; the client the rest. */
struct h2req {
    h2conn_t *conn;
    const char *path;      /* kept by the owner until answered */
    int want;              /* the status it must be answered with */
    size_t ref_len;        /* the body length it must have (give or take); 0: any */
    slot_t *slot;          /* its caller in a phase; NULL otherwise */
    struct evbuffer *body; /* kept when set: set-up calls, watches, failures */
    /* A watch's: its head arrived with `want`; then after each piece of its body. */
    void (*on_open)(h2req_t *r);
    void (*on_body)(h2req_t *r);
    void *arg; /* the owner's */
    int status;
    size_t len; /* body bytes so far */
    bool done;
};

/* One TLS connection speaking h2, its answers delivered on base. */
struct h2conn {
    struct event_base *base;
    const kgate_addr_t *k;
    struct bufferevent *bev; /* NULL until opened, and once closed */
    nghttp2_session *session;
    bool in_recv;  /* inside nghttp2_session_mem_recv: frames wait for its end */
    bool settings; /* kgate's SETTINGS arrived */
};

static void
die_answer(const h2req_t *r, const char *why)
{
    size_t n = r->body != NULL ? evbuffer_get_length(r->body) : 0;
    const char *body = n > 0 ? (const char *)evbuffer_pullup(r->body, -1) : "";

    die("GET %s over h2: %s (status %d, %zu bytes): %.*s", r->path, why, r->status, r->len,
        (int)(n < 400 ? n : 400), body);
}

/* Serialize what the session has queued into the connection's output. Callbacks only queue
 * (nghttp2 allows no sending from inside them); the read callback writes once they are done. */
static void
h2_flush(h2conn_t *c)
{
    const uint8_t *data;
    ssize_t n;

    if (c->in_recv)
        return;
    while ((n = nghttp2_session_mem_send(c->session, &data)) > 0)
        evbuffer_add(bufferevent_get_output(c->bev), data, (size_t)n);
    if (n < 0)
        die("h2 send: %s", nghttp2_strerror((int)n));
}

static void
h2_read(struct bufferevent *bev, void *arg)
{
    h2conn_t *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    struct evbuffer_iovec v;
    ssize_t rv;

    c->in_recv = true;
    while (evbuffer_peek(in, -1, NULL, &v, 1) == 1 && v.iov_len > 0) {
        rv = nghttp2_session_mem_recv(c->session, v.iov_base, v.iov_len);
        if (rv < 0)
            die("h2 from kgate: %s", nghttp2_strerror((int)rv));
        evbuffer_drain(in, v.iov_len);
    }
    c->in_recv = false;
    h2_flush(c);
}

/* kgate must have chosen h2: an HTTP/1.1 answer would not be what this measures. */
static void
h2_event(struct bufferevent *bev, short what, void *arg)
{
    const uint8_t *proto = NULL;
    unsigned len = 0;

    (void)arg;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        die("h2 connection: %s", tls_bev_error(bev, what));
    if (!(what & BEV_EVENT_CONNECTED))
        return;
    SSL_get0_alpn_selected(bufferevent_openssl_get_ssl(bev), &proto, &len);
    if (len != 2 || memcmp(proto, "h2", 2) != 0)
        die("kgate did not choose h2 in the TLS handshake (ALPN '%.*s')", (int)len,
            proto != NULL ? (const char *)proto : "");
}

static h2req_t *
req_of(nghttp2_session *session, int32_t id)
{
    return nghttp2_session_get_stream_user_data(session, id);
}

static int
on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
          const uint8_t *value, size_t valuelen, uint8_t flags, void *user_data)
{
    h2req_t *r = req_of(session, frame->hd.stream_id);

    (void)valuelen, (void)flags, (void)user_data;
    /* nghttp2 ends names and values with a NUL */
    if (r != NULL && namelen == 7 && memcmp(name, ":status", 7) == 0)
        r->status = atoi((const char *)value);
    return 0;
}

/* The head is in: a watch is open, or an answer that failed keeps its body for the message. */
static void
head_done(h2req_t *r)
{
    if (r->status != r->want) {
        if (r->on_open != NULL)
            die_answer(r, "unexpected status");
        if (r->body == NULL)
            r->body = evbuffer_new();
    } else if (r->on_open != NULL) {
        r->on_open(r);
    }
}

static int
on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    h2conn_t *c = user_data;
    h2req_t *r;

    if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK))
        c->settings = true;
    if (frame->hd.type == NGHTTP2_GOAWAY)
        die("kgate sent GOAWAY (%s, last stream %d)",
            nghttp2_http2_strerror(frame->goaway.error_code), frame->goaway.last_stream_id);
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_RESPONSE)
        return 0;
    r = req_of(session, frame->hd.stream_id);
    if (r != NULL)
        head_done(r);
    return 0;
}

static int
on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data,
              size_t len, void *user_data)
{
    h2req_t *r = req_of(session, stream_id);

    (void)flags, (void)user_data;
    if (r == NULL)
        return 0;
    r->len += len;
    if (r->body != NULL)
        evbuffer_add(r->body, data, len);
    if (r->on_body != NULL && r->status == r->want)
        r->on_body(r);
    return 0;
}

/* The whole answer is in: check it, then hand the stream's request back to its caller. */
static void
answered(h2req_t *r)
{
    if (r->on_open != NULL)
        die_answer(r, "the watch ended");
    if (r->status != r->want)
        die_answer(r, "unexpected status");
    if (r->ref_len > 0 &&
        (r->len + HTTPS_LEN_SLACK < r->ref_len || r->len > r->ref_len + HTTPS_LEN_SLACK))
        die_answer(r, "not the length of the answer checked");
    r->done = true;
    if (r->slot != NULL)
        evdriver_done(r->slot, 0); /* may start the caller's next request in r */
}

static int
on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data)
{
    h2req_t *r = req_of(session, stream_id);

    (void)user_data;
    if (r == NULL)
        return 0;
    nghttp2_session_set_stream_user_data(session, stream_id, NULL);
    if (error_code != NGHTTP2_NO_ERROR)
        die_answer(r, nghttp2_http2_strerror(error_code));
    answered(r);
    return 0;
}

static nghttp2_session *
h2_session_new(h2conn_t *c)
{
    nghttp2_session_callbacks *cbs;
    nghttp2_session *session;
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW},
    };

    if (nghttp2_session_callbacks_new(&cbs) != 0)
        abort();
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    if (nghttp2_session_client_new(&session, cbs, c) != 0)
        abort();
    nghttp2_session_callbacks_del(cbs);
    if (nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]) != 0 ||
        nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, CONN_WINDOW) != 0)
        abort();
    return session;
}

/* Connect; the preface and SETTINGS wait in the output for the handshake's end. */
static void
h2_open(h2conn_t *c)
{
    SSL *ssl = kgate_ssl_new(c->k);
    int one = 1;

    if (SSL_set_alpn_protos(ssl, (const uint8_t *)PROTOCOL_H2, strlen(PROTOCOL_H2)) != 0)
        die("cannot offer h2");
    c->bev = bufferevent_openssl_socket_new(c->base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
                                            BEV_OPT_CLOSE_ON_FREE);
    c->session = h2_session_new(c);
    c->settings = false;
    bufferevent_setcb(c->bev, h2_read, NULL, h2_event, c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&c->k->addr, c->k->addr_len) != 0)
        die("cannot connect to %s", c->k->authority);
    /* Nagle plus delayed ACKs would hold back a lone request behind its TLS record. */
    setsockopt(bufferevent_getfd(c->bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    h2_flush(c);
}

/* Close c (a no-op when closed); its streams' requests are forgotten, their owners' again. */
static void
h2_close(h2conn_t *c)
{
    if (c->bev == NULL)
        return;
    bufferevent_free(c->bev);
    nghttp2_session_del(c->session); /* calls nothing back */
    c->bev = NULL;
    c->session = NULL;
}

#define NV(n, v)                                                                                   \
    {                                                                                              \
        (uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), NGHTTP2_NV_FLAG_NO_COPY_NAME         \
    }

/* Start r (its path, want, ref_len, slot, body and callbacks set) as a stream of c, opening c
 * first if need be. */
static void
h2_send(h2conn_t *c, h2req_t *r)
{
    const nghttp2_nv nva[] = {
        NV(":method", "GET"), NV(":scheme", "https"),       NV(":authority", c->k->authority),
        NV(":path", r->path), NV("user-agent", "bench_h2"), NV("accept", "application/json"),
    };
    int32_t id;

    if (c->bev == NULL)
        h2_open(c);
    r->conn = c;
    r->status = 0;
    r->len = 0;
    r->done = false;
    id = nghttp2_submit_request(c->session, NULL, nva, sizeof nva / sizeof nva[0], NULL, r);
    if (id < 0)
        die("GET %s over h2: %s", r->path, nghttp2_strerror(id));
    h2_flush(c);
}

/* One GET with nothing else in flight on c (set-up and checks): run c->base until answered
 * (dies unless 200). The body goes to *body; the caller frees it. */
static void
h2_call(h2conn_t *c, const char *path, struct evbuffer **body)
{
    h2req_t r = {.path = path, .want = 200, .body = evbuffer_new()};

    h2_send(c, &r);
    while (!r.done)
        event_base_loop(c->base, EVLOOP_ONCE);
    *body = r.body;
}

/* ---- the drivers: HTTP/2 streams and HTTP/1.1 connections ------------------------------- */

typedef struct {
    evdriver_t ev;
    int nconns; /* the callers' streams go over this many connections, caller i on i % n */
    h2conn_t conns[SPREAD];
    size_t ref_len[N_OPS];
    h2req_t reqs[MAX_CONC];
} h2drv_t;

static void
h2drv_start(driver_t *d, slot_t *s)
{
    h2drv_t *h = (h2drv_t *)d;
    op_t op = s->phase->op;

    h->reqs[s->id] =
        (h2req_t){.path = op_paths[op], .want = 200, .ref_len = h->ref_len[op], .slot = s};
    h2_send(&h->conns[s->id % h->nconns], &h->reqs[s->id]);
}

/* Each row opens its connections afresh (their handshakes fall in the warm-up), as the
 * HTTP/1.1 rows do. */
static void
h2drv_run(driver_t *d, phase_t *p)
{
    h2drv_t *h = (h2drv_t *)d;

    evdriver_run(d, p);
    for (int i = 0; i < SPREAD; i++)
        h2_close(&h->conns[i]);
}

typedef struct {
    evdriver_t ev;
    kgate_addr_t k;
    char *request[N_OPS]; /* formatted once */
    size_t ref_len[N_OPS];
    https_conn_t conns[MAX_CONC];
} h1drv_t;

static void
h1drv_start(driver_t *d, slot_t *s)
{
    h1drv_t *h = (h1drv_t *)d;
    op_t op = s->phase->op;

    https_send(&h->conns[s->id], h->request[op], 200, h->ref_len[op], s);
}

static void
h1drv_run(driver_t *d, phase_t *p)
{
    h1drv_t *h = (h1drv_t *)d;

    evdriver_run(d, p);
    for (int i = 0; i < p->conc; i++)
        https_close(&h->conns[i]);
}

typedef struct {
    struct event_base *base;
    h1drv_t h1;
    h2drv_t h2;
    pid_t kgate;
} bench_t;

static void
bench_init(bench_t *b, char **argv)
{
    b->base = event_base_new();
    kgate_addr_init(&b->h1.k, argv[1], argv[2]);
    b->kgate = parse_pid(argv[3]);
    b->h1.ev = (evdriver_t){
        .d = {.name = "http/1.1", .op_names = op_names, .start = h1drv_start, .run = h1drv_run},
        .base = b->base};
    b->h2.ev = (evdriver_t){
        .d = {.name = "h2", .op_names = op_names, .start = h2drv_start, .run = h2drv_run},
        .base = b->base};
    for (op_t op = 0; op < N_OPS; op++)
        b->h1.request[op] =
            https_request(&(https_req_t){.k = &b->h1.k, .method = "GET", .path = op_paths[op]});
    for (int i = 0; i < MAX_CONC; i++)
        https_conn_init(&b->h1.conns[i], b->base, &b->h1.k);
    for (int i = 0; i < SPREAD; i++)
        b->h2.conns[i] = (h2conn_t){.base = b->base, .k = &b->h1.k};
}

static void
bench_free(bench_t *b)
{
    for (int i = 0; i < MAX_CONC; i++)
        https_close(&b->h1.conns[i]);
    for (op_t op = 0; op < N_OPS; op++)
        free(b->h1.request[op]);
    SSL_CTX_free(b->h1.k.tls);
    event_base_free(b->base);
}

/* A POST through HTTP/1.1 on connection 0 (set-up); dies unless answered 201. */
static void
post(bench_t *b, const char *path, const char *body)
{
    char *req =
        https_request(&(https_req_t){.k = &b->h1.k, .method = "POST", .path = path, .body = body});

    https_call(&b->h1.conns[0], req, 201, NULL);
    free(req);
}

static void
post_namespace(bench_t *b, const char *name)
{
    char *ns = gw_sprintf(
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}", name);

    post(b, "/api/v1/namespaces", ns);
    free(ns);
}

static void
post_configmap(bench_t *b, const char *collection, const char *name, int i)
{
    char *obj = bench_configmap_json(name, i);

    post(b, collection, obj);
    free(obj);
}

/* ---- memory per watch: 1,000 watches as the streams of one connection ------------------- */

typedef struct {
    h2conn_t conn;
    char *path;           /* the watch request: from the primer's LIST's resourceVersion */
    h2conn_t primer_conn; /* the primer's: the first LIST and watch of ConfigMaps, not counted */
    h2req_t primer;
    int primed;    /* 1 once the primer is open */
    h2req_t *reqs; /* [n] */
    int n;
    int opened;    /* requests sent */
    int open;      /* answered 200 */
    int delivered; /* events of the created objects had, all watches together */
    const char *step;
    struct event *deadline;
} watches_t;

static void
on_deadline(evutil_socket_t fd, short what, void *arg)
{
    watches_t *w = arg;

    (void)fd, (void)what;
    die("%s: nothing after %d s (%d of %d watches open, %d delivered)", w->step, WAIT_S, w->open,
        w->n, w->delivered);
}

/* Run the loop until *count reaches `target`, for at most WAIT_S. */
static void
watches_wait(watches_t *w, const int *count, int target, const char *step)
{
    struct timeval tv = {WAIT_S, 0};

    w->step = step;
    evtimer_add(w->deadline, &tv);
    while (*count < target)
        event_base_loop(event_get_base(w->deadline), EVLOOP_ONCE);
    evtimer_del(w->deadline);
}

static void
open_next(watches_t *w)
{
    if (w->opened < w->n)
        h2_send(&w->conn, &w->reqs[w->opened++]);
}

static void
watch_open(h2req_t *r)
{
    watches_t *w = r->arg;

    w->open++;
    open_next(w);
}

/* Each whole event line: a created object's ADDED (or MODIFIED) is a delivery; another
 * object's event is let through, anything else ends the run. */
static void
watch_lines(h2req_t *r)
{
    static const char *const name = "\"name\":\"" WATCHED_NAME;
    struct evbuffer_ptr at;
    size_t eol, n;
    const char *line;

    while ((at = evbuffer_search_eol(r->body, NULL, &eol, EVBUFFER_EOL_LF)).pos >= 0) {
        n = (size_t)at.pos;
        line = (const char *)evbuffer_pullup(r->body, (ev_ssize_t)(n + eol));
        if (strncmp(line, "{\"type\":\"ADDED\"", 15) != 0 &&
            strncmp(line, "{\"type\":\"MODIFIED\"", 18) != 0)
            die("watch over h2: not a change: %.*s", (int)(n < 300 ? n : 300), line);
        if (memmem(line, n, name, strlen(name)) != NULL)
            ((watches_t *)r->arg)->delivered++;
        evbuffer_drain(r->body, n + eol);
    }
}

/* Open the connection and wait for kgate's SETTINGS: they say how many streams it takes. */
static int
watches_connect(watches_t *w, bench_t *b)
{
    uint32_t max;

    w->conn = (h2conn_t){.base = b->base, .k = &b->h1.k};
    h2_open(&w->conn);
    while (!w->conn.settings)
        event_base_loop(b->base, EVLOOP_ONCE);
    max = nghttp2_session_get_remote_settings(w->conn.session,
                                              NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    return max < N_WATCHES ? (int)max : N_WATCHES;
}

typedef struct {
    int n;
    long rss_fresh;                       /* KiB, before the primer; -1: unknown */
    long rss_before, rss_open, rss_after; /* KiB; -1: unknown */
    long rss_more;                        /* KiB after EVENTS events; -1: unknown */
    double open_s, deliver_ms;
} watch_row_t;

/* KiB per watch from kgate's VmRSS `before` to `after`, or -1 when either is unknown. */
static double
per_watch(const watch_row_t *row, long after)
{
    return row->rss_before >= 0 && after >= 0 ? (double)(after - row->rss_before) / row->n : -1;
}

static void
watches_open(watches_t *w)
{
    w->reqs = gw_calloc((size_t)w->n, sizeof *w->reqs);
    for (int i = 0; i < w->n; i++)
        w->reqs[i] = (h2req_t){.path = w->path,
                               .want = 200,
                               .body = evbuffer_new(),
                               .on_open = watch_open,
                               .on_body = watch_lines,
                               .arg = w};
    for (int i = 0; i < OPENING; i++)
        open_next(w);
    watches_wait(w, &w->open, w->n, "opening the watches");
}

static void
primer_open(h2req_t *r)
{
    ((watches_t *)r->arg)->primed = 1;
}

/* The resourceVersion of a LIST's answer; dies without one. */
static long long
list_rv(struct evbuffer *body)
{
    size_t len = evbuffer_get_length(body);
    json_t *doc = json_loadb((const char *)evbuffer_pullup(body, -1), len, 0, NULL);
    const char *rv =
        json_string_value(json_object_get(json_object_get(doc, "metadata"), "resourceVersion"));
    long long out = rv != NULL ? atoll(rv) : 0;

    if (out <= 0)
        die("GET " WATCHED " over h2: no resourceVersion in the answer");
    json_decref(doc);
    return out;
}

/* The watches start as an informer's do: from the resourceVersion of a LIST of the collection
 * (bench_watch's start from a revision too). The first LIST and watch of a collection make
 * kgate start what every later one shares (its read cache, the collection's hub and etcd
 * watch): a cost per collection, not per watch, paid before the baseline by the primer, a
 * watch on a connection of its own that stays open (what it receives is not kept). */
static void
watches_prime(watches_t *w, bench_t *b)
{
    struct evbuffer *list;

    w->primer_conn = (h2conn_t){.base = b->base, .k = &b->h1.k};
    h2_call(&w->primer_conn, WATCHED, &list);
    w->path = gw_sprintf(WATCHED "?watch=1&resourceVersion=%lld", list_rv(list));
    evbuffer_free(list);
    w->primer = (h2req_t){.path = w->path, .want = 200, .on_open = primer_open, .arg = w};
    h2_send(&w->primer_conn, &w->primer);
    watches_wait(w, &w->primed, 1, "opening the first watch");
}

static void
watches_free(watches_t *w)
{
    h2_close(&w->primer_conn);
    h2_close(&w->conn);
    free(w->path);
    for (int i = 0; i < w->n; i++)
        evbuffer_free(w->reqs[i].body);
    free(w->reqs);
    event_free(w->deadline);
}

static void
measure_watches(bench_t *b, watch_row_t *row)
{
    watches_t w = {0};
    long fresh = proc_status_kb(b->kgate, "VmRSS"), before, open, after;
    int64_t t0, t1;

    w.deadline = evtimer_new(b->base, on_deadline, &w);
    watches_prime(&w, b);
    before = proc_status_kb(b->kgate, "VmRSS");
    t0 = now_ns();
    w.n = watches_connect(&w, b);
    watches_open(&w);
    t1 = now_ns();
    open = proc_status_kb(b->kgate, "VmRSS");
    post_configmap(b, WATCHED, WATCHED_NAME, 0);
    watches_wait(&w, &w.delivered, w.n, "the created object's events");
    after = proc_status_kb(b->kgate, "VmRSS");
    for (int i = 2; i <= EVENTS; i++) {
        char name[32];
        snprintf(name, sizeof name, WATCHED_NAME "-%d", i);
        post_configmap(b, WATCHED, name, i);
        watches_wait(&w, &w.delivered, w.n * i, "the created objects' events");
    }
    *row = (watch_row_t){
        .n = w.n,
        .rss_fresh = fresh,
        .rss_before = before,
        .rss_open = open,
        .rss_after = after,
        .rss_more = proc_status_kb(b->kgate, "VmRSS"),
        .open_s = (double)(t1 - t0) / 1e9,
        .deliver_ms = (double)(now_ns() - t1) / 1e6,
    };
    watches_free(&w);
}

static void
print_watches(const watch_row_t *row)
{
    printf("\n%d watches of one namespace's ConfigMaps as the streams of ONE HTTP/2 connection, "
           "opened in %.2f s; a ConfigMap created through the API reached them all in %.1f ms\n",
           row->n, row->open_s, row->deliver_ms);
    if (row->n < N_WATCHES)
        printf("(kgate announces %d concurrent streams per connection: %d watches, not %d)\n",
               row->n, row->n, N_WATCHES);
    /* The idle watch's cost is the goal. After events, kgate's heap also keeps what their
     * fan-out took and freed (each stream's frames and queue entries at once), which the next
     * events reuse: the figure after EVENTS events shows it does not grow. The one after the
     * first event is bench_watch's measure (HTTP/1.1, one connection per watch). */
    printf("kgate memory/watch KiB, open, before any event        %8.2f   goal <= 2\n",
           per_watch(row, row->rss_open));
    printf("kgate memory/watch KiB, open and one event delivered  %8.2f   HTTP/1.1, one connection "
           "per watch: bench_watch's row\n",
           per_watch(row, row->rss_after));
    printf("kgate memory/watch KiB, open, after %d events           %8.2f\n", EVENTS,
           per_watch(row, row->rss_more));
    printf("(kgate's VmRSS: %ld KiB fresh, %ld once a first LIST and watch of ConfigMaps were "
           "done on a connection of their own (not counted), %ld with the watches open, %ld "
           "after the event, %ld after %d)\n",
           row->rss_fresh, row->rss_before, row->rss_open, row->rss_after, row->rss_more, EVENTS);
    fflush(stdout);
}

/* ---- the objects, and each answer's length in either protocol --------------------------- */

static void
seed(bench_t *b)
{
    post_namespace(b, NAMESPACE);
    for (int i = 0; i < N_OBJECTS; i++) {
        char name[32];
        snprintf(name, sizeof name, OBJECT_NAME, i);
        post_configmap(b, COLLECTION, name, i);
    }
}

static void
check_body(const char *proto, op_t op, struct evbuffer *body)
{
    size_t len = evbuffer_get_length(body);
    const char *p = (const char *)evbuffer_pullup(body, -1);
    json_t *doc = json_loadb(p, len, 0, NULL);

    if (doc == NULL || !bench_configmaps_ok(doc, op == OP_LIST, GET_NAME, N_OBJECTS))
        die("GET %s over %s: not the answer expected: %.*s", op_paths[op], proto,
            (int)(len < 400 ? len : 400), p);
    json_decref(doc);
}

/* Read op's answer in full over each protocol: it must be the same document (the same length,
 * give or take its resourceVersion), whose length every answer in the rows must then have
 * (parsing a 1 MiB LIST per request would cost the client more than it measures). */
static void
check(bench_t *b, op_t op)
{
    struct evbuffer *one, *two;

    https_call(&b->h1.conns[0], b->h1.request[op], 200, &one);
    h2_call(&b->h2.conns[0], op_paths[op], &two);
    check_body("http/1.1", op, one);
    check_body("h2", op, two);
    b->h1.ref_len[op] = evbuffer_get_length(one);
    b->h2.ref_len[op] = evbuffer_get_length(two);
    if (b->h2.ref_len[op] + HTTPS_LEN_SLACK < b->h1.ref_len[op] ||
        b->h2.ref_len[op] > b->h1.ref_len[op] + HTTPS_LEN_SLACK)
        die("GET %s: %zu bytes over h2, %zu over http/1.1", op_paths[op], b->h2.ref_len[op],
            b->h1.ref_len[op]);
    evbuffer_free(one);
    evbuffer_free(two);
}

/* ---- the rows --------------------------------------------------------------------------- */

static void
print_row(op_t op, int conc, int conns, const result_t *two, const result_t *one)
{
    printf("%-5s  %4d  %8d  %8.0f  %7.3f  %7.3f  %8.0f  %7.3f  %7.3f  %12.2f\n", op_names[op], conc,
           conns, two->ops_s, two->p50_ms, two->p99_ms, one->ops_s, one->p50_ms, one->p99_ms,
           one->ops_s > 0 ? two->ops_s / one->ops_s : 0.0);
    fflush(stdout);
}

/* op at 1 and 64 callers in both protocols, then the 64 streams over SPREAD connections beside
 * the same HTTP/1.1 figures. Returns the errors counted. */
static uint64_t
run_op(bench_t *b, op_t op, const timing_t *t)
{
    static const int concurrencies[] = {1, MAX_CONC};
    result_t two, one;
    uint64_t errors = 0;

    for (size_t i = 0; i < sizeof concurrencies / sizeof concurrencies[0]; i++) {
        b->h2.nconns = 1;
        run_phase(&b->h2.ev.d, op, concurrencies[i], t, &two);
        run_phase(&b->h1.ev.d, op, concurrencies[i], t, &one);
        print_row(op, concurrencies[i], 1, &two, &one);
        errors += two.errors + one.errors;
    }
    b->h2.nconns = SPREAD;
    run_phase(&b->h2.ev.d, op, MAX_CONC, t, &two);
    print_row(op, MAX_CONC, SPREAD, &two, &one);
    return errors + two.errors;
}

static void
print_setting(const bench_t *b, const char *url, const timing_t *t)
{
    printf("kgate at %s; %ld CPUs shared by etcd, kgate and this client\n", url,
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("ConfigMaps of %zu bytes (a GET's answer); LIST of %d of them: %zu bytes; h2: each "
           "caller one stream at a time on ONE TLS connection (or spread over %d); http/1.1: "
           "keep-alive, one connection per caller; %.1f s per row after %.1f s warm-up\n\n",
           b->h1.ref_len[OP_GET], N_OBJECTS, b->h1.ref_len[OP_LIST], SPREAD, t->seconds, t->warmup);
    printf("op     conc  h2 conns  h2 req/s   p50 ms   p99 ms  h1 req/s   p50 ms   p99 ms  "
           "ratio(h2/h1)\n");
}

int
main(int argc, char **argv)
{
    bench_t *b = gw_calloc(1, sizeof *b);
    watch_row_t watches;
    timing_t t;
    uint64_t errors = 0;

    if (argc != 4)
        die("usage: bench_h2 https://IP:PORT PKI_DIR KGATE_PID");
    signal(SIGPIPE, SIG_IGN); /* a connection kgate closes is an error reported, not a kill */
    parse_timing(&t);
    bench_init(b, argv);
    post_namespace(b, WATCH_NAMESPACE);
    https_close(&b->h1.conns[0]); /* kgate's side of it is not the watches' memory */
    measure_watches(b, &watches);
    seed(b);
    check(b, OP_GET);
    check(b, OP_LIST);
    https_close(&b->h1.conns[0]);
    h2_close(&b->h2.conns[0]);
    print_setting(b, argv[1], &t);
    for (op_t op = 0; op < N_OPS; op++)
        errors += run_op(b, op, &t);
    print_watches(&watches);
    bench_free(b);
    free(b);
    return errors == 0 ? 0 : 1;
}
