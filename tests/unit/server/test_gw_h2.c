/*
 * HTTP/2 connections end to end: a real nghttp2 client session on one end of a socketpair,
 * gw_h2 on the other, one event_base; the checks are on what the client receives.
 */
#include "gw_h2.h"

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <nghttp2/nghttp2.h>

#include "tap.h"

#define MAX_RESP 256
#define BIG (4 * 1024 * 1024)

static struct event_base *base;

/* ---- the client ---- */

typedef struct {
    int status;
    char headers[2048]; /* "name: value\n"... as received */
    struct evbuffer *body;
    bool done;
    bool closed;
    uint32_t rst; /* the stream's close code */
} resp_t;

typedef struct {
    nghttp2_session *s;
    struct bufferevent *bev;
    resp_t resp[MAX_RESP]; /* by (stream id - 1) / 2 */
    bool goaway;
    int32_t goaway_last;
    uint32_t goaway_code;
    bool no_send; /* a client that writes raw bytes itself */
    const char *upload;
    size_t upload_len, upload_off;
    bool upload_pause; /* the body's provider defers after its first piece */
} client_t;

static resp_t *
resp_of(client_t *cl, int32_t id)
{
    return id > 0 && (id - 1) / 2 < MAX_RESP ? &cl->resp[(id - 1) / 2] : NULL;
}

static int
cl_on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t namelen,
             const uint8_t *value, size_t valuelen, uint8_t flags, void *ud)
{
    resp_t *r = resp_of(ud, f->hd.stream_id);
    (void)s, (void)flags, (void)namelen, (void)valuelen;
    if (r == NULL)
        return 0;
    if (strcmp((const char *)name, ":status") == 0)
        r->status = atoi((const char *)value);
    else
        snprintf(r->headers + strlen(r->headers), sizeof(r->headers) - strlen(r->headers),
                 "%s: %s\n", name, value);
    return 0;
}

static int
cl_on_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *ud)
{
    resp_t *r = resp_of(ud, id);
    (void)s, (void)flags;
    if (r != NULL)
        evbuffer_add(r->body, data, len);
    return 0;
}

static int
cl_on_frame(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    client_t *cl = ud;
    resp_t *r = resp_of(cl, f->hd.stream_id);
    (void)s;
    if (f->hd.type == NGHTTP2_GOAWAY) {
        cl->goaway = true;
        cl->goaway_last = f->goaway.last_stream_id;
        cl->goaway_code = f->goaway.error_code;
    }
    if (r != NULL && (f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) &&
        (f->hd.flags & NGHTTP2_FLAG_END_STREAM))
        r->done = true;
    return 0;
}

static int
cl_on_close(nghttp2_session *s, int32_t id, uint32_t code, void *ud)
{
    resp_t *r = resp_of(ud, id);
    (void)s;
    if (r != NULL) {
        r->closed = true;
        r->rst = code;
    }
    return 0;
}

static void
cl_send(client_t *cl)
{
    const uint8_t *data;
    ssize_t n;
    if (cl->no_send)
        return;
    while ((n = nghttp2_session_mem_send(cl->s, &data)) > 0)
        bufferevent_write(cl->bev, data, (size_t)n);
}

static void
cl_read(struct bufferevent *bev, void *arg)
{
    client_t *cl = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    size_t len = evbuffer_get_length(in);
    ssize_t rv = nghttp2_session_mem_recv(cl->s, evbuffer_pullup(in, -1), len);
    if (rv < 0)
        tap_diag("client recv: %s", nghttp2_strerror((int)rv));
    evbuffer_drain(in, len);
    cl_send(cl);
}

static void
cl_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev, (void)what, (void)arg;
}

/* A client session; iv: its SETTINGS (NULL: none); manual: no automatic WINDOW_UPDATE. */
static void
client_init(client_t *cl, int fd, const nghttp2_settings_entry *iv, size_t niv, bool manual)
{
    nghttp2_session_callbacks *cbs;
    nghttp2_option *opt;

    memset(cl, 0, sizeof(*cl));
    for (int i = 0; i < MAX_RESP; i++)
        cl->resp[i].body = evbuffer_new();
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_on_header_callback(cbs, cl_on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, cl_on_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, cl_on_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, cl_on_close);
    nghttp2_option_new(&opt);
    nghttp2_option_set_no_auto_window_update(opt, manual);
    nghttp2_session_client_new2(&cl->s, cbs, cl, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cbs);
    nghttp2_submit_settings(cl->s, NGHTTP2_FLAG_NONE, iv, niv);
    cl->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(cl->bev, cl_read, NULL, cl_event, cl);
    bufferevent_enable(cl->bev, EV_READ | EV_WRITE);
}

static void
client_free(client_t *cl)
{
    nghttp2_session_del(cl->s);
    bufferevent_free(cl->bev);
    for (int i = 0; i < MAX_RESP; i++)
        evbuffer_free(cl->resp[i].body);
}

static ssize_t
upload_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length, uint32_t *flags,
            nghttp2_data_source *src, void *ud)
{
    client_t *cl = ud;
    size_t n = cl->upload_len - cl->upload_off;
    (void)s, (void)id, (void)src;
    if (cl->upload_pause && cl->upload_off > 0)
        return NGHTTP2_ERR_DEFERRED;
    if (n > length)
        n = length;
    memcpy(buf, cl->upload + cl->upload_off, n);
    cl->upload_off += n;
    if (cl->upload_off == cl->upload_len && !cl->upload_pause)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

#define NV(n, v)                                                                                   \
    {                                                                                              \
        (uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), NGHTTP2_NV_FLAG_NONE                 \
    }

/* Submit a request: method, path, extra fields (name, value pairs, NULL-ended), and the body
 * cl->upload when set. Returns the stream id. */
static int32_t
request(client_t *cl, const char *method, const char *path, ...)
{
    nghttp2_nv nva[64] = {NV(":method", method), NV(":scheme", "https"),
                          NV(":authority", "kgate.test"), NV(":path", path)};
    size_t n = 4;
    va_list ap;
    nghttp2_data_provider prd = {.read_callback = upload_read};

    va_start(ap, path);
    for (const char *k = va_arg(ap, const char *); k != NULL && n < 64;
         k = va_arg(ap, const char *)) {
        const char *v = va_arg(ap, const char *);
        nghttp2_nv nv = NV(k, v);
        nva[n++] = nv;
    }
    va_end(ap);
    return nghttp2_submit_request(cl->s, NULL, nva, n, cl->upload != NULL ? &prd : NULL, NULL);
}

/* ---- the server ---- */

enum { ECHO, HOLD };

typedef struct {
    struct bufferevent *bev;
    gw_h2_conn_t *c;
    int mode;
    bool closed;
    int dispatched;
    gw_exchange_t *held[MAX_RESP];
    int nheld;
} server_t;

static void
echo(gw_exchange_t *x)
{
    struct evkeyvalq *in = gw_exchange_input_headers(x), *out = gw_exchange_output_headers(x);
    struct evbuffer *b = evbuffer_new();
    const char *q = gw_exchange_query(x), *t = evhttp_find_header(in, "x-test");
    const char *cookie = evhttp_find_header(in, "cookie");

    evbuffer_add_printf(b, "%s %s %s\n", gw_exchange_method(x), gw_exchange_path(x),
                        q != NULL ? q : "-");
    evbuffer_add_buffer(b, gw_exchange_body(x));
    evhttp_add_header(out, "Content-Type", "text/plain");
    evhttp_add_header(out, "X-Host", evhttp_find_header(in, "Host"));
    evhttp_add_header(out, "X-Test", t != NULL ? t : "-");
    evhttp_add_header(out, "X-Cookie", cookie != NULL ? cookie : "-");
    /* "close" asks for a GOAWAY once the answer is sent (test_connection_close) */
    evhttp_add_header(out, "Connection",
                      strcmp(gw_exchange_path(x), "/close") == 0 ? "close" : "keep-alive");
    evhttp_add_header(out, "Transfer-Encoding", "chunked");
    if (strcmp(gw_exchange_method(x), "HEAD") == 0 && strcmp(gw_exchange_path(x), "/sized") == 0) {
        evhttp_add_header(out, "Content-Length", "1234");
        evbuffer_drain(b, evbuffer_get_length(b));
    }
    gw_exchange_reply(x, 200, b);
    evbuffer_free(b);
}

static void
on_dispatch(gw_exchange_t *x, void *arg)
{
    server_t *sv = arg;
    sv->dispatched++;
    if (sv->mode == ECHO)
        echo(x);
    else if (sv->nheld < MAX_RESP)
        sv->held[sv->nheld++] = x;
}

static void
on_closed(void *arg)
{
    server_t *sv = arg;
    sv->closed = true;
    bufferevent_free(sv->bev);
    sv->bev = NULL;
}

typedef struct {
    uint32_t max_streams;
    size_t max_header_list, max_body;
    int write_timeout_s, preface_timeout_s;
} limits_t;

static void
server_init(server_t *sv, int fd, int mode, const limits_t *l)
{
    gw_h2_config_t cfg = {
        .max_streams = l != NULL ? l->max_streams : 1000,
        .max_header_list = l != NULL ? l->max_header_list : 64 * 1024,
        .max_body = l != NULL ? l->max_body : 4 * 1024 * 1024,
        .write_timeout_s = l != NULL && l->write_timeout_s > 0 ? l->write_timeout_s : 60,
        .preface_timeout_s = l != NULL ? l->preface_timeout_s : 0,
        .dispatch = on_dispatch,
        .closed = on_closed,
        .arg = sv,
    };
    memset(sv, 0, sizeof(*sv));
    sv->mode = mode;
    sv->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
    sv->c = gw_h2_conn_new(sv->bev, &cfg);
}

static void
server_free(server_t *sv)
{
    if (sv->closed)
        return;
    gw_h2_conn_free(sv->c);
    bufferevent_free(sv->bev);
}

/* A connected pair: the server (mode) and the client with its SETTINGS. */
static void
pair(server_t *sv, int mode, const limits_t *l, client_t *cl, const nghttp2_settings_entry *iv,
     size_t niv, bool manual)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
        abort();
    evutil_make_socket_nonblocking(fds[0]);
    evutil_make_socket_nonblocking(fds[1]);
    server_init(sv, fds[0], mode, l);
    client_init(cl, fds[1], iv, niv, manual);
}

/* ---- the loop ---- */

static int64_t
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run the loop until cond holds (5 s at most); a 5 ms tick keeps each pass short. */
#define RUN_UNTIL(cond)                                                                            \
    do {                                                                                           \
        int64_t dl_ = now_ms() + 5000;                                                             \
        while (!(cond) && now_ms() < dl_)                                                          \
            event_base_loop(base, EVLOOP_ONCE);                                                    \
    } while (0)

static void
run_for(int ms)
{
    int64_t dl = now_ms() + ms;
    while (now_ms() < dl)
        event_base_loop(base, EVLOOP_ONCE);
}

static void
tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what, (void)arg;
}

static bool
has_header(const resp_t *r, const char *line)
{
    return strstr(r->headers, line) != NULL;
}

static char *
body_str(resp_t *r)
{
    size_t n = evbuffer_get_length(r->body);
    char *s = malloc(n + 1);
    evbuffer_copyout(r->body, s, n);
    s[n] = '\0';
    return s;
}

/* ---- the cases ---- */

static void
test_get(void)
{
    server_t sv;
    client_t cl;
    pair(&sv, ECHO, NULL, &cl, NULL, 0, false);
    int32_t id = request(&cl, "GET", "/api/v1/pods?limit=5", "x-test", "Hello", "cookie", "a=1",
                         "cookie", "b=2", (const char *)NULL);
    cl_send(&cl);
    resp_t *r = resp_of(&cl, id);
    RUN_UNTIL(r->done);
    char *body = body_str(r);
    tap_is_int(r->status, 200, "GET: status 200");
    tap_is_str(body, "GET /api/v1/pods limit=5\n", "GET: method, path and query as sent");
    tap_ok(has_header(r, "content-type: text/plain\n"), "GET: headers lowercased");
    tap_ok(has_header(r, "content-length: 25\n"), "GET: content-length of the body");
    tap_ok(has_header(r, "x-host: kgate.test\n"), "GET: :authority arrives as Host");
    tap_ok(has_header(r, "date: ") && has_header(r, " GMT\n"), "GET: a Date, as evhttp adds");
    tap_ok(has_header(r, "x-test: Hello\n"), "GET: a request header arrives");
    tap_ok(has_header(r, "x-cookie: a=1; b=2\n"), "GET: split cookies joined");
    tap_ok(!has_header(r, "connection:") && !has_header(r, "transfer-encoding:"),
           "GET: connection-specific headers left out");
    tap_is_int(gw_h2_conn_streams(sv.c), 0, "GET: no stream left open");
    free(body);
    client_free(&cl);
    server_free(&sv);
}

static void
test_head(void)
{
    server_t sv;
    client_t cl;
    pair(&sv, ECHO, NULL, &cl, NULL, 0, false);
    int32_t id = request(&cl, "HEAD", "/healthz", (const char *)NULL);
    cl_send(&cl);
    resp_t *r = resp_of(&cl, id);
    RUN_UNTIL(r->done);
    tap_is_int(r->status, 200, "HEAD: status 200");
    tap_ok(has_header(r, "content-length: 16\n"), "HEAD: the length the body would have");
    tap_is_int(evbuffer_get_length(r->body), 0, "HEAD: no body");
    id = request(&cl, "HEAD", "/sized", (const char *)NULL);
    cl_send(&cl);
    r = resp_of(&cl, id);
    RUN_UNTIL(r->done);
    tap_ok(has_header(r, "content-length: 1234\n"), "HEAD: the handler's length kept");
    client_free(&cl);
    server_free(&sv);
}

static void
test_post(void)
{
    server_t sv;
    client_t cl;
    size_t n = 3000000; /* past the 1 MiB receive windows: WINDOW_UPDATEs needed */
    char *up = malloc(n);
    for (size_t i = 0; i < n; i++)
        up[i] = (char)('a' + i % 26);
    pair(&sv, ECHO, NULL, &cl, NULL, 0, false);
    cl.upload = up;
    cl.upload_len = n;
    int32_t id = request(&cl, "POST", "/api/v1/namespaces", "content-type", "application/json",
                         (const char *)NULL);
    cl_send(&cl);
    resp_t *r = resp_of(&cl, id);
    RUN_UNTIL(r->done);
    tap_is_int(r->status, 200, "POST: status 200");
    size_t head = strlen("POST /api/v1/namespaces -\n");
    char *body = body_str(r);
    tap_ok(evbuffer_get_length(r->body) == head + n && memcmp(body + head, up, n) == 0,
           "POST: the body arrives whole");
    tap_is_int(sv.dispatched, 1, "POST: dispatched once");
    free(body);
    free(up);
    client_free(&cl);
    server_free(&sv);
}

static int
count_done(client_t *cl, const int32_t *ids, int n)
{
    int done = 0;
    for (int i = 0; i < n; i++)
        done += resp_of(cl, ids[i])->done;
    return done;
}

static void
test_reverse(void)
{
    server_t sv;
    client_t cl;
    int32_t ids[100];
    pair(&sv, HOLD, NULL, &cl, NULL, 0, false);
    for (int i = 0; i < 100; i++) {
        char path[32];
        snprintf(path, sizeof(path), "/r/%d", i);
        ids[i] = request(&cl, "GET", path, (const char *)NULL);
    }
    cl_send(&cl);
    RUN_UNTIL(sv.nheld == 100);
    tap_is_int(sv.nheld, 100, "100 streams: all dispatched before any answer");
    tap_is_int(gw_h2_conn_streams(sv.c), 100, "100 streams: all open");
    for (int i = 99; i >= 0; i--) {
        struct evbuffer *b = evbuffer_new();
        evbuffer_add_printf(b, "%s", gw_exchange_path(sv.held[i]));
        gw_exchange_reply(sv.held[i], 200, b);
        evbuffer_free(b);
    }
    RUN_UNTIL(count_done(&cl, ids, 100) == 100);
    int right = 0;
    for (int i = 0; i < 100; i++) {
        char want[32], *got = body_str(resp_of(&cl, ids[i]));
        snprintf(want, sizeof(want), "/r/%d", i);
        right += resp_of(&cl, ids[i])->status == 200 && strcmp(got, want) == 0;
        free(got);
    }
    tap_is_int(right, 100, "100 streams answered in reverse order: each its own answer");
    client_free(&cl);
    server_free(&sv);
}

/* A HOLD pair whose client has sent GET path, held by the server (sv->held[0]); the answer's
 * record, and the stream's id in *id when asked. */
static resp_t *
held_get(server_t *sv, client_t *cl, const char *path, int32_t *id)
{
    pair(sv, HOLD, NULL, cl, NULL, 0, false);
    int32_t sid = request(cl, "GET", path, (const char *)NULL);
    cl_send(cl);
    resp_t *r = resp_of(cl, sid);
    RUN_UNTIL(sv->nheld == 1);
    if (id != NULL)
        *id = sid;
    return r;
}

static void
test_streamed(void)
{
    server_t sv;
    client_t cl;
    resp_t *r = held_get(&sv, &cl, "/watch", NULL);
    gw_exchange_t *x = sv.held[0];
    evhttp_add_header(gw_exchange_output_headers(x), "Content-Type", "application/json");
    gw_exchange_reply_start(x, 200);
    gw_exchange_long_running(x);
    RUN_UNTIL(r->status != 0);
    tap_is_int(r->status, 200, "streamed: headers sent at start");
    tap_ok(!has_header(r, "content-length"), "streamed: no content-length");
    const char *pieces[] = {"a", "bb", "ccc"};
    size_t want = 0;
    for (int i = 0; i < 3; i++) {
        struct evbuffer *b = evbuffer_new();
        evbuffer_add(b, pieces[i], strlen(pieces[i]));
        gw_exchange_reply_chunk(x, b);
        tap_is_int(evbuffer_get_length(b), 0, "streamed: the chunk's bytes are taken");
        evbuffer_free(b);
        want += strlen(pieces[i]);
        RUN_UNTIL(evbuffer_get_length(r->body) == want);
        tap_is_int(evbuffer_get_length(r->body), want, "streamed: each chunk arrives on its own");
    }
    tap_ok(!r->done, "streamed: open until its end");
    gw_exchange_reply_end(x);
    RUN_UNTIL(r->done);
    char *body = body_str(r);
    tap_is_str(body, "abbccc", "streamed: ends after its chunks");
    free(body);
    RUN_UNTIL(gw_h2_conn_streams(sv.c) == 0);
    tap_is_int(gw_h2_conn_streams(sv.c), 0, "streamed: the stream is closed");
    client_free(&cl);
    server_free(&sv);
}

static int drained_count;
static void
count_drained(void *arg)
{
    (void)arg;
    drained_count++;
}

static void
test_slow_beside_fast(void)
{
    server_t sv;
    client_t cl;
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 0}};
    pair(&sv, HOLD, NULL, &cl, iv, 1, true);
    nghttp2_submit_window_update(cl.s, NGHTTP2_FLAG_NONE, 0, 1 << 24);
    int32_t slow = request(&cl, "GET", "/slow", (const char *)NULL);
    int32_t fast = request(&cl, "GET", "/fast", (const char *)NULL);
    cl_send(&cl);
    /* a stream's WINDOW_UPDATE is dropped by nghttp2 until its HEADERS are out */
    nghttp2_submit_window_update(cl.s, NGHTTP2_FLAG_NONE, fast, 1 << 20);
    cl_send(&cl);
    RUN_UNTIL(sv.nheld == 2);
    gw_exchange_t *xs = sv.held[0], *xf = sv.held[1];
    gw_exchange_reply_start(xs, 200);
    drained_count = 0;
    gw_exchange_on_drained(xs, count_drained, NULL);
    struct evbuffer *b = evbuffer_new();
    char chunk[10000];
    memset(chunk, 's', sizeof(chunk));
    evbuffer_add(b, chunk, sizeof(chunk));
    gw_exchange_reply_chunk(xs, b);
    memset(chunk, 'f', sizeof(chunk));
    evbuffer_add(b, chunk, sizeof(chunk));
    evbuffer_add(b, chunk, sizeof(chunk));
    gw_exchange_reply(xf, 200, b);
    resp_t *rs = resp_of(&cl, slow), *rf = resp_of(&cl, fast);
    RUN_UNTIL(rf->done);
    if (!tap_ok(rf->done && evbuffer_get_length(rf->body) == 20000,
                "slow beside fast: fast completes"))
        tap_diag("done %d, %zu bytes", rf->done, evbuffer_get_length(rf->body));
    run_for(20);
    tap_is_int(evbuffer_get_length(rs->body), 0, "slow beside fast: slow got nothing");
    tap_is_int(gw_exchange_queued(xs), 10000, "slow beside fast: slow's bytes are queued");
    tap_is_int(drained_count, 0, "slow beside fast: not drained");
    struct evbuffer *more = evbuffer_new();
    evbuffer_add(more, chunk, 5000);
    gw_exchange_reply_chunk(xs, more);
    evbuffer_free(more);
    tap_is_int(gw_exchange_queued(xs), 15000, "slow beside fast: queued grows");
    nghttp2_submit_window_update(cl.s, NGHTTP2_FLAG_NONE, slow, 1 << 20);
    cl_send(&cl);
    RUN_UNTIL(evbuffer_get_length(rs->body) == 15000);
    tap_is_int(evbuffer_get_length(rs->body), 15000, "slow beside fast: window opened, all sent");
    tap_is_int(gw_exchange_queued(xs), 0, "slow beside fast: nothing queued");
    tap_is_int(drained_count, 1, "slow beside fast: on_drained fired once");
    gw_exchange_reply_end(xs);
    RUN_UNTIL(rs->done);
    tap_ok(rs->done, "slow beside fast: slow ends");
    evbuffer_free(b);
    client_free(&cl);
    server_free(&sv);
}

static void
test_refused(void)
{
    server_t sv;
    client_t cl;
    limits_t l = {.max_streams = 4, .max_header_list = 65536, .max_body = 65536};
    int32_t ids[6];
    pair(&sv, HOLD, &l, &cl, NULL, 0, false);
    for (int i = 0; i < 6; i++)
        ids[i] = request(&cl, "GET", "/many", (const char *)NULL);
    cl_send(&cl); /* all six before the server's SETTINGS could be read */
    RUN_UNTIL(resp_of(&cl, ids[4])->closed && resp_of(&cl, ids[5])->closed && sv.nheld == 4);
    tap_is_int(sv.nheld, 4, "max_streams 4: four dispatched");
    tap_is_int(resp_of(&cl, ids[4])->rst, NGHTTP2_REFUSED_STREAM, "max_streams 4: 5th refused");
    tap_is_int(resp_of(&cl, ids[5])->rst, NGHTTP2_REFUSED_STREAM, "max_streams 4: 6th refused");
    for (int i = 0; i < 4; i++)
        gw_exchange_reply(sv.held[i], 204, NULL);
    RUN_UNTIL(resp_of(&cl, ids[3])->done);
    tap_is_int(resp_of(&cl, ids[3])->status, 204, "max_streams 4: the others answered");
    tap_ok(!has_header(resp_of(&cl, ids[3]), "content-length"), "204: no content-length");
    client_free(&cl);
    server_free(&sv);
}

static void
test_header_list(void)
{
    server_t sv;
    client_t cl;
    limits_t l = {.max_streams = 100, .max_header_list = 4096, .max_body = 65536};
    char big[1001];
    memset(big, 'v', 1000);
    big[1000] = '\0';
    pair(&sv, ECHO, &l, &cl, NULL, 0, false);
    int32_t id = request(&cl, "GET", "/big", "x-a", big, "x-b", big, "x-c", big, "x-d", big, "x-e",
                         big, (const char *)NULL);
    int32_t ok = request(&cl, "GET", "/small", "x-test", "fine", (const char *)NULL);
    cl_send(&cl);
    resp_t *r = resp_of(&cl, id), *rok = resp_of(&cl, ok);
    RUN_UNTIL(r->done && rok->done);
    tap_is_int(r->status, 431, "header list over the limit: 431");
    tap_ok(has_header(r, "content-type: text/plain"), "431: plain text");
    tap_is_int(sv.dispatched, 1, "header list over the limit: not dispatched");
    tap_is_int(rok->status, 200, "header list over the limit: the next stream is served");
    client_free(&cl);
    server_free(&sv);
}

static void
test_body_too_large(void)
{
    server_t sv;
    client_t cl;
    limits_t l = {.max_streams = 100, .max_header_list = 65536, .max_body = 1024};
    char up[4096];
    memset(up, 'x', sizeof(up));
    pair(&sv, ECHO, &l, &cl, NULL, 0, false);
    cl.upload = up;
    cl.upload_len = sizeof(up);
    int32_t id = request(&cl, "PUT", "/api/v1/namespaces/a", (const char *)NULL);
    cl_send(&cl);
    resp_t *r = resp_of(&cl, id);
    RUN_UNTIL(r->closed);
    char *body = body_str(r);
    tap_is_int(r->status, 413, "body over max_body: 413");
    tap_is_str(body, "Request Entity Too Large\n", "413: plain text body");
    tap_is_int(sv.dispatched, 0, "body over max_body: not dispatched");
    tap_is_int(gw_h2_conn_streams(sv.c), 0, "body over max_body: stream closed");
    free(body);
    client_free(&cl);
    server_free(&sv);
}

static void
test_reset_mid_body(void)
{
    server_t sv;
    client_t cl;
    char up[1000];
    memset(up, 'y', sizeof(up));
    pair(&sv, ECHO, NULL, &cl, NULL, 0, false);
    cl.upload = up;
    cl.upload_len = sizeof(up);
    cl.upload_pause = true;
    int32_t id = request(&cl, "POST", "/upload", (const char *)NULL);
    cl_send(&cl);
    RUN_UNTIL(gw_h2_conn_streams(sv.c) == 1);
    run_for(20);
    tap_is_int(gw_h2_conn_streams(sv.c), 1, "reset mid-body: the stream is open");
    nghttp2_submit_rst_stream(cl.s, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    cl_send(&cl);
    RUN_UNTIL(gw_h2_conn_streams(sv.c) == 0);
    tap_is_int(gw_h2_conn_streams(sv.c), 0, "reset mid-body: the stream is gone");
    tap_is_int(sv.dispatched, 0, "reset mid-body: never dispatched");
    client_free(&cl);
    server_free(&sv);
}

static int gone_count;
static void
count_gone(void *arg)
{
    (void)arg;
    gone_count++;
}

static void
chunk(gw_exchange_t *x, const char *s)
{
    struct evbuffer *b = evbuffer_new();
    evbuffer_add(b, s, strlen(s));
    gw_exchange_reply_chunk(x, b);
    evbuffer_free(b);
}

static void
test_reset_mid_answer(void)
{
    server_t sv;
    client_t cl;
    int32_t id;
    resp_t *r = held_get(&sv, &cl, "/watch", &id);
    gw_exchange_t *x = sv.held[0];
    gone_count = 0;
    gw_exchange_reply_start(x, 200);
    gw_exchange_on_gone(x, count_gone, NULL);
    chunk(x, "hello");
    RUN_UNTIL(evbuffer_get_length(r->body) == 5);
    tap_is_int(gone_count, 0, "reset mid-answer: not gone while served");
    tap_ok(gw_h2_conn_of(x) == sv.c, "reset mid-answer: the exchange's connection");
    nghttp2_submit_rst_stream(cl.s, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    cl_send(&cl);
    RUN_UNTIL(gone_count > 0);
    tap_is_int(gone_count, 1, "reset mid-answer: on_gone fired");
    tap_is_int(gw_exchange_queued(x), 0, "reset mid-answer: nothing queued once gone");
    tap_ok(gw_h2_conn_of(x) == NULL, "reset mid-answer: no connection once gone");
    gw_exchange_on_gone(x, count_gone, NULL);
    tap_is_int(gone_count, 2, "reset mid-answer: on_gone after the fact fires at once");
    chunk(x, "late");
    gw_exchange_reply_end(x); /* frees it, the stream long gone */
    tap_is_int(gw_h2_conn_streams(sv.c), 0, "reset mid-answer: no stream left");
    client_free(&cl);
    server_free(&sv);
}

static int released;
static size_t released_bytes;
static void
count_release(const void *data, size_t len, void *arg)
{
    (void)data, (void)arg;
    released++;
    released_bytes += len;
}

/* Bytes lent to a streamed answer (a watch event its watchers share) go out in their place
 * among copied chunks, across frames, and go back once sent or once the client left. Between
 * them the stream is idle, its data provider ended; the next bytes get a new one. */
static void
test_lent(void)
{
    static char big[40000]; /* more than a DATA frame */
    server_t sv;
    client_t cl;
    int32_t id;
    resp_t *r = held_get(&sv, &cl, "/watch", &id);
    gw_exchange_t *x = sv.held[0];
    memset(big, 'z', sizeof(big));
    released = 0;
    released_bytes = 0;
    gw_exchange_reply_start(x, 200);
    gw_exchange_reply_ref(x, "one,", 4, count_release, NULL);
    chunk(x, "two,");
    gw_exchange_reply_ref(x, "three,", 6, count_release, NULL);
    tap_is_int(gw_exchange_queued(x), 14, "lent: queued with the copied bytes");
    RUN_UNTIL(evbuffer_get_length(r->body) == 14);
    char *body = body_str(r);
    tap_is_str(body, "one,two,three,", "lent: in their place among copied chunks");
    free(body);
    tap_ok(released == 2 && released_bytes == 10, "lent: given back once sent");
    tap_is_int(gw_exchange_queued(x), 0, "lent: nothing queued once sent");
    gw_exchange_reply_ref(x, big, sizeof(big), count_release, NULL);
    RUN_UNTIL(evbuffer_get_length(r->body) == 14 + sizeof(big));
    tap_ok(released == 3 && released_bytes == 10 + sizeof(big) && !r->done,
           "lent: after an idle moment, a piece larger than a frame goes out whole");
    gw_exchange_reply_ref(x, "", 0, count_release, NULL);
    tap_is_int(released, 4, "lent: an empty piece goes back at once");
    gw_exchange_reply_ref(x, "four", 4, count_release, NULL);
    nghttp2_submit_rst_stream(cl.s, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    cl_send(&cl);
    RUN_UNTIL(gw_h2_conn_of(x) == NULL);
    tap_is_int(released, 5, "lent: given back when the client leaves, sent or not");
    gw_exchange_reply_ref(x, "late", 4, count_release, NULL);
    tap_is_int(released, 6, "lent: once the client left, given back at once");
    gw_exchange_reply_end(x);
    client_free(&cl);
    server_free(&sv);
}

/* An answer asking to close its connection (--goaway-chance) is sent whole, then GOAWAY NO_ERROR
 * naming its stream; the connection then ends. */
static void
test_connection_close(void)
{
    server_t sv;
    client_t cl;
    pair(&sv, ECHO, NULL, &cl, NULL, 0, false);
    int32_t id = request(&cl, "GET", "/close", (const char *)NULL);
    cl_send(&cl);
    resp_t *r = resp_of(&cl, id);
    RUN_UNTIL(r->done && cl.goaway && sv.closed);
    tap_ok(r->done && r->status == 200 && evbuffer_get_length(r->body) > 0,
           "Connection: close: the answer is sent whole");
    tap_ok(cl.goaway && cl.goaway_last == id && cl.goaway_code == NGHTTP2_NO_ERROR,
           "... then GOAWAY NO_ERROR naming its stream");
    tap_ok(sv.closed, "... and the connection ends");
    client_free(&cl);
    server_free(&sv);
}

static void
test_goaway(void)
{
    server_t sv;
    client_t cl;
    int32_t id;
    resp_t *r = held_get(&sv, &cl, "/inflight", &id);
    gw_h2_conn_goaway(sv.c);
    gw_h2_conn_goaway(sv.c);
    RUN_UNTIL(cl.goaway);
    tap_ok(cl.goaway, "goaway: the client sees GOAWAY");
    tap_is_int(cl.goaway_last, id, "goaway: with the last stream id");
    tap_is_int(cl.goaway_code, NGHTTP2_NO_ERROR, "goaway: NO_ERROR");
    tap_ok(!sv.closed, "goaway: open while a stream is in flight");
    struct evbuffer *b = evbuffer_new();
    evbuffer_add(b, "bye", 3);
    gw_exchange_reply(sv.held[0], 200, b);
    evbuffer_free(b);
    RUN_UNTIL(r->done && sv.closed);
    tap_ok(r->done && r->status == 200, "goaway: the stream in flight completes");
    tap_ok(sv.closed, "goaway: then closed is called");
    client_free(&cl);
    server_free(&sv);
}

static void
test_garbage(void)
{
    server_t sv;
    client_t cl;
    pair(&sv, ECHO, NULL, &cl, NULL, 0, false);
    cl.no_send = true;
    const char *h1 = "GET / HTTP/1.1\r\nHost: kgate\r\n\r\n";
    bufferevent_write(cl.bev, h1, strlen(h1));
    RUN_UNTIL(sv.closed);
    RUN_UNTIL(cl.goaway);
    tap_ok(cl.goaway, "garbage preface: GOAWAY");
    tap_is_int(cl.goaway_code, NGHTTP2_PROTOCOL_ERROR, "garbage preface: PROTOCOL_ERROR");
    tap_ok(sv.closed, "garbage preface: closed is called");
    tap_is_int(sv.dispatched, 0, "garbage preface: nothing dispatched");
    client_free(&cl);
    server_free(&sv);
}

static void
test_bounded_output(void)
{
    server_t sv;
    client_t cl;
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, (1u << 31) - 1}};
    pair(&sv, HOLD, NULL, &cl, iv, 1, false);
    nghttp2_submit_window_update(cl.s, NGHTTP2_FLAG_NONE, 0, 1 << 30);
    int32_t id = request(&cl, "GET", "/big", (const char *)NULL);
    cl_send(&cl);
    RUN_UNTIL(sv.nheld == 1);
    bufferevent_disable(cl.bev, EV_READ); /* reads nothing from now on */
    gw_exchange_t *x = sv.held[0];
    gw_exchange_reply_start(x, 200);
    drained_count = 0;
    gw_exchange_on_drained(x, count_drained, NULL);
    struct evbuffer *b = evbuffer_new();
    char *big = malloc(BIG);
    memset(big, 'z', BIG);
    evbuffer_add(b, big, BIG);
    gw_exchange_reply_chunk(x, b);
    run_for(200);
    size_t out = evbuffer_get_length(bufferevent_get_output(sv.bev));
    size_t queued = gw_exchange_queued(x);
    tap_ok(out <= GW_H2_OUTPUT_HIGH + 16384 + 9, "client reads nothing: output bounded (%zu)", out);
    tap_ok(queued > BIG / 2, "client reads nothing: the rest is queued (%zu)", queued);
    tap_is_int(drained_count, 0, "client reads nothing: not drained");
    bufferevent_enable(cl.bev, EV_READ);
    gw_exchange_reply_end(x);
    resp_t *r = resp_of(&cl, id);
    RUN_UNTIL(r->done);
    tap_is_int(evbuffer_get_length(r->body), BIG, "client reads again: everything arrives");
    evbuffer_free(b);
    free(big);
    client_free(&cl);
    server_free(&sv);
}

static void
test_owner_frees(void)
{
    server_t sv;
    client_t cl;
    held_get(&sv, &cl, "/held", NULL);
    gone_count = 0;
    gw_exchange_on_gone(sv.held[0], count_gone, NULL);
    gw_h2_conn_free(sv.c);
    bufferevent_free(sv.bev);
    sv.closed = true;
    tap_is_int(gone_count, 1, "owner frees the connection: the held exchange is gone");
    tap_ok(gw_h2_conn_of(sv.held[0]) == NULL, "owner frees the connection: no connection");
    gw_exchange_reply(sv.held[0], 200, NULL); /* frees it */
    client_free(&cl);
    server_free(&sv);
}

static void
test_client_leaves(void)
{
    server_t sv;
    client_t cl;
    held_get(&sv, &cl, "/held", NULL);
    gone_count = 0;
    gw_exchange_on_gone(sv.held[0], count_gone, NULL);
    client_free(&cl);
    RUN_UNTIL(sv.closed);
    tap_ok(sv.closed, "client leaves: closed is called");
    tap_is_int(gone_count, 1, "client leaves: the held exchange is gone");
    gw_exchange_reply_start(sv.held[0], 200);
    chunk(sv.held[0], "nobody");
    gw_exchange_reply_end(sv.held[0]);
    server_free(&sv);
}

static void
test_silent_client(void)
{
    server_t sv;
    client_t cl;
    limits_t l = {
        .max_streams = 100, .max_header_list = 65536, .max_body = 65536, .preface_timeout_s = 1};
    pair(&sv, ECHO, &l, &cl, NULL, 0, false);
    cl.no_send = true; /* not even its preface */
    int64_t t0 = now_ms();
    RUN_UNTIL(sv.closed);
    if (!tap_ok(sv.closed && now_ms() - t0 >= 900, "no preface within its timeout: dropped"))
        tap_diag("closed %d after %lld ms", sv.closed, (long long)(now_ms() - t0));
    client_free(&cl);
    server_free(&sv);
}

static void
test_write_timeout(void)
{
    server_t sv;
    client_t cl;
    limits_t l = {
        .max_streams = 100, .max_header_list = 65536, .max_body = 65536, .write_timeout_s = 1};
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, (1u << 31) - 1}};
    pair(&sv, HOLD, &l, &cl, iv, 1, false);
    nghttp2_submit_window_update(cl.s, NGHTTP2_FLAG_NONE, 0, 1 << 30);
    request(&cl, "GET", "/watch", (const char *)NULL);
    cl_send(&cl);
    RUN_UNTIL(sv.nheld == 1);
    bufferevent_disable(cl.bev, EV_READ);
    gw_exchange_t *x = sv.held[0];
    gone_count = 0;
    gw_exchange_reply_start(x, 200);
    gw_exchange_long_running(x);
    gw_exchange_on_gone(x, count_gone, NULL);
    struct evbuffer *b = evbuffer_new();
    char *big = calloc(1, BIG);
    evbuffer_add(b, big, BIG);
    gw_exchange_reply_chunk(x, b);
    RUN_UNTIL(sv.closed);
    tap_ok(sv.closed, "output that does not move: the connection is dropped");
    tap_is_int(gone_count, 1, "output that does not move: the stream is gone");
    gw_exchange_reply_end(x);
    evbuffer_free(b);
    free(big);
    client_free(&cl);
    server_free(&sv);
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN); /* as kgate: a peer that left is seen as EPIPE */
    base = event_base_new();
    struct event *t = event_new(base, -1, EV_PERSIST, tick, NULL);
    struct timeval tv = {0, 5000};
    event_add(t, &tv);
    test_get();
    test_head();
    test_post();
    test_reverse();
    test_streamed();
    test_slow_beside_fast();
    test_refused();
    test_header_list();
    test_body_too_large();
    test_reset_mid_body();
    test_reset_mid_answer();
    test_lent();
    test_goaway();
    test_connection_close();
    test_garbage();
    test_bounded_output();
    test_owner_frees();
    test_client_leaves();
    test_silent_client();
    test_write_timeout();
    event_free(t);
    event_base_free(base);
    return tap_done();
}
