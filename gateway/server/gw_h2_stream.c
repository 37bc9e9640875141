/*
 * An HTTP/2 stream: the request it collects (pseudo-headers, header list, body) and the
 * exchange through which it is answered.
 *
 * An answer's bytes wait in the stream as a queue of pieces: bytes handed over in buffers (moved
 * into one buffer of the stream's) and bytes lent by the handler (a watch event that a thousand
 * streams share). nghttp2 asks for them through a data provider that says how much goes in the
 * next DATA frame (NO_COPY), and gw_h2__send_data then moves buffered bytes into the
 * connection's output and copies lent ones. A provider ends with the last bytes queued (without
 * END_STREAM while the answer goes on), so that an idle watch holds no buffer, no provider and
 * no piece: a few hundred bytes less for each of a connection's thousand watches.
 */
#include "gw_h2_int.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>

#include "gw_alloc.h"
#include "gw_log.h"

/* The methods the HTTP/1.1 side lets through (gw_worker.c); others get evhttp's 501. */
static const char *const allowed_methods[] = {"GET",   "HEAD",   "POST",   "PUT",
                                              "PATCH", "DELETE", "OPTIONS"};

/* Connection-specific fields HTTP/2 forbids in a message (RFC 9113 8.2.2), and the length we
 * set ourselves. */
static const char *const dropped_fields[] = {"connection",        "keep-alive", "proxy-connection",
                                             "transfer-encoding", "upgrade",    "te",
                                             "content-length"};

/* Streams open in the process, for metrics. */
static atomic_long open_streams;

long
gw_h2_open_streams(void)
{
    return atomic_load(&open_streams);
}

static void
link_stream(gw_h2_conn_t *c, gw_h2__stream_t *s)
{
    s->prev = NULL;
    s->next = c->streams;
    if (c->streams != NULL)
        c->streams->prev = s;
    c->streams = s;
    c->nstreams++;
    atomic_fetch_add(&open_streams, 1);
}

static void
unlink_stream(gw_h2_conn_t *c, gw_h2__stream_t *s)
{
    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        c->streams = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
    c->nstreams--;
    atomic_fetch_sub(&open_streams, 1);
}

gw_h2__stream_t *
gw_h2__stream_new(gw_h2_conn_t *c, int32_t id)
{
    gw_h2__stream_t *s = gw_calloc(1, sizeof(*s));

    s->conn = c;
    s->id = id;
    s->in.tqh_last = &s->in.tqh_first; /* an empty TAILQ (calloc zeroed tqh_first) */
    s->out.tqh_last = &s->out.tqh_first;
    s->x.ops = &gw_h2__ops;
    s->x.version = GW_HTTP_2;
    s->x.input_headers = &s->in;
    s->x.output_headers = &s->out;
    s->x.ssl = c->cfg.ssl;
    s->x.peer = c->cfg.peer;
    link_stream(c, s);
    return s;
}

/* ---- the answer's pieces ---- */

/* `len` bytes of the stream's `copied` buffer (data NULL), or bytes lent: `data` what is left of
 * them, `lent` and `lent_len` what release gets back. */
struct gw_h2__piece {
    gw_h2__piece_t *next;
    const char *data;
    size_t len;
    const void *lent;
    size_t lent_len;
    gw_exchange_release_fn release;
    void *arg;
};

static void
push_piece(gw_h2__stream_t *s, gw_h2__piece_t *p)
{
    p->next = NULL;
    if (s->pieces_tail != NULL)
        s->pieces_tail->next = p;
    else
        s->pieces = p;
    s->pieces_tail = p;
    s->pending += p->len;
}

/* The head piece is sent or dropped. */
static void
pop_piece(gw_h2__stream_t *s)
{
    gw_h2__piece_t *p = s->pieces;

    s->pieces = p->next;
    if (s->pieces == NULL)
        s->pieces_tail = NULL;
    if (p->release != NULL)
        p->release(p->lent, p->lent_len, p->arg);
    free(p);
}

/* The bytes of `data` (taken) after what is queued. */
static void
queue_copied(gw_h2__stream_t *s, struct evbuffer *data)
{
    size_t n = evbuffer_get_length(data);

    if (n == 0)
        return;
    if (s->copied == NULL && (s->copied = evbuffer_new()) == NULL)
        abort();
    evbuffer_add_buffer(s->copied, data);
    if (s->pieces_tail != NULL && s->pieces_tail->data == NULL) {
        s->pieces_tail->len += n; /* the same buffer's next bytes */
        s->pending += n;
        return;
    }
    gw_h2__piece_t *p = gw_calloc(1, sizeof(*p));
    p->len = n;
    push_piece(s, p);
}

static void
queue_lent(gw_h2__stream_t *s, const void *data, size_t len, gw_exchange_release_fn release,
           void *arg)
{
    gw_h2__piece_t *p = gw_malloc(sizeof(*p));

    *p = (gw_h2__piece_t){
        .data = data, .len = len, .lent = data, .lent_len = len, .release = release, .arg = arg};
    push_piece(s, p);
}

/* Up to `length` bytes from the head of the queue into `out`; the buffer goes once it is empty. */
static void
take(gw_h2__stream_t *s, struct evbuffer *out, size_t length)
{
    while (length > 0 && s->pieces != NULL) {
        gw_h2__piece_t *p = s->pieces;
        size_t n = p->len < length ? p->len : length;

        if (p->data != NULL) {
            evbuffer_add(out, p->data, n);
            p->data += n;
        } else {
            evbuffer_remove_buffer(s->copied, out, n);
        }
        p->len -= n;
        s->pending -= n;
        length -= n;
        if (p->len == 0)
            pop_piece(s);
    }
    if (s->pending == 0 && s->copied != NULL) {
        evbuffer_free(s->copied);
        s->copied = NULL;
    }
}

/* Drop what is queued (the client left, or the answer has no body); lent bytes go back. */
static void
drop_pending(gw_h2__stream_t *s)
{
    while (s->pieces != NULL)
        pop_piece(s);
    s->pending = 0;
    if (s->copied != NULL)
        evbuffer_free(s->copied);
    s->copied = NULL;
}

static void
stream_free(gw_h2__stream_t *s)
{
    evhttp_clear_headers(&s->in);
    evhttp_clear_headers(&s->out);
    if (s->body != NULL)
        evbuffer_free(s->body);
    drop_pending(s);
    free(s->method);
    free(s->target);
    free(s->authority);
    free(s->request_line);
    free(s);
}

void
gw_h2__stream_detach(gw_h2__stream_t *s)
{
    gw_exchange_fn gone = s->gone;

    unlink_stream(s->conn, s);
    s->conn = NULL;
    if (!s->dispatched || s->ended) {
        stream_free(s);
        return;
    }
    s->gone = NULL;
    s->drained = NULL;
    drop_pending(s);
    if (gone != NULL)
        gone(s->gone_arg);
}

/* ---- the request ---- */

static void
set_once(char **field, const uint8_t *value, size_t len)
{
    if (*field == NULL)
        *field = gw_strndup((const char *)value, len);
}

static void
pseudo_header(gw_h2__stream_t *s, const char *name, const uint8_t *value, size_t len)
{
    if (strcmp(name, ":method") == 0)
        set_once(&s->method, value, len);
    else if (strcmp(name, ":path") == 0)
        set_once(&s->target, value, len);
    else if (strcmp(name, ":authority") == 0)
        set_once(&s->authority, value, len);
    /* :scheme is checked by nghttp2 and of no use beyond; :protocol is refused by it. */
}

/* RFC 9113 8.2.3: a client may split Cookie into several fields; HTTP/1.1 readers expect one,
 * joined with "; " (as Go's server does). */
static void
add_cookie(gw_h2__stream_t *s, const char *value)
{
    const char *prev = evhttp_find_header(&s->in, "cookie");
    char *joined;

    if (prev == NULL) {
        evhttp_add_header(&s->in, "cookie", value);
        return;
    }
    joined = gw_sprintf("%s; %s", prev, value);
    evhttp_remove_header(&s->in, "cookie");
    evhttp_add_header(&s->in, "cookie", joined);
    free(joined);
}

void
gw_h2__stream_header(gw_h2__stream_t *s, const uint8_t *name, size_t namelen, const uint8_t *value,
                     size_t valuelen)
{
    const char *n = (const char *)name, *v = (const char *)value;

    if (s->headers_done)
        return; /* trailers are not kept (nor counted: a block of their own) */
    /* RFC 9113 6.5.2 counts 32 bytes of overhead per field. */
    s->header_bytes += namelen + valuelen + 32;
    if (s->header_bytes > s->conn->cfg.max_header_list)
        s->too_large = true;
    if (s->too_large)
        return;
    if (namelen > 0 && n[0] == ':') {
        pseudo_header(s, n, value, valuelen);
    } else if (strcmp(n, "cookie") == 0) {
        add_cookie(s, v);
    } else {
        if (strcmp(n, "host") == 0)
            s->has_host = true;
        evhttp_add_header(&s->in, n, v);
    }
}

/* An answer of the module's own (as evhttp answers what never reaches a handler): plain text,
 * never dispatched; the rest of the request is dropped. */
static void answer(gw_h2__stream_t *s, int code, bool whole, size_t length);

static void
refuse(gw_h2__stream_t *s, int code, const char *text)
{
    if (s->refused || s->dispatched)
        return;
    gw_log_debug(NULL, "h2: stream %d answered %d: %s", s->id, code, text);
    s->refused = true;
    s->ended = true;
    s->eof = true;
    if (s->body != NULL)
        evbuffer_drain(s->body, evbuffer_get_length(s->body));
    evhttp_clear_headers(&s->in);
    evhttp_add_header(&s->out, "Content-Type", "text/plain; charset=utf-8");
    struct evbuffer *b = evbuffer_new();
    if (b == NULL)
        abort();
    evbuffer_add_printf(b, "%s\n", text);
    queue_copied(s, b);
    evbuffer_free(b);
    answer(s, code, true, s->pending);
}

static bool
method_allowed(const char *method)
{
    for (size_t i = 0; i < sizeof(allowed_methods) / sizeof(allowed_methods[0]); i++) {
        if (strcmp(method, allowed_methods[i]) == 0)
            return true;
    }
    return false;
}

void
gw_h2__stream_headers_done(gw_h2__stream_t *s)
{
    s->headers_done = true;
    /* Go's server answers a header list past its limit 431 rather than resetting the stream. */
    if (s->too_large) {
        refuse(s, 431, "Request Header Fields Too Large");
        return;
    }
    /* nghttp2 has checked the pseudo-headers' presence, except for CONNECT's. */
    if (s->method == NULL || !method_allowed(s->method)) {
        refuse(s, 501, "Not Implemented");
        return;
    }
    if (s->target == NULL || s->target[0] != '/') {
        refuse(s, 400, "Bad Request");
        return;
    }
    s->head = strcmp(s->method, "HEAD") == 0;
}

void
gw_h2__stream_data(gw_h2__stream_t *s, const uint8_t *data, size_t len)
{
    if (s->refused || s->dispatched)
        return;
    if (s->body == NULL && (s->body = evbuffer_new()) == NULL)
        abort();
    if (evbuffer_get_length(s->body) + len > s->conn->cfg.max_body) {
        refuse(s, 413, "Request Entity Too Large");
        return;
    }
    evbuffer_add(s->body, data, len);
}

/* What the exchange shows of the request line: method, target and the target's path in one
 * block that lasts as long as the stream (a watch's hour), the pseudo-headers' copies freed. */
static void
split_target(gw_h2__stream_t *s)
{
    const char *q = strchr(s->target, '?');
    size_t m = strlen(s->method) + 1, t = strlen(s->target) + 1;
    size_t p = q != NULL ? (size_t)(q - s->target) : t - 1;
    char *line = gw_malloc(m + t + p + 1);

    memcpy(line, s->method, m);
    memcpy(line + m, s->target, t);
    memcpy(line + m + t, s->target, p);
    line[m + t + p] = '\0';
    s->request_line = line;
    s->x.method = line;
    s->x.target = line + m;
    s->x.path = line + m + t;
    s->x.query = q != NULL ? line + m + (size_t)(q - s->target) + 1 : NULL;
    free(s->method);
    free(s->target);
    free(s->authority);
    s->method = s->target = s->authority = NULL;
}

void
gw_h2__stream_request_done(gw_h2__stream_t *s)
{
    gw_h2_conn_t *c = s->conn;

    s->request_done = true;
    if (s->refused || s->dispatched)
        return;
    if (!s->has_host && s->authority != NULL)
        evhttp_add_header(&s->in, "Host", s->authority);
    if (s->body == NULL && (s->body = evbuffer_new()) == NULL)
        abort();
    s->x.body = s->body;
    split_target(s);
    s->dispatched = true;
    c->cfg.dispatch(&s->x, c->cfg.arg);
}

/* ---- the answer ---- */

static bool
dropped_field(const char *name)
{
    for (size_t i = 0; i < sizeof(dropped_fields) / sizeof(dropped_fields[0]); i++) {
        if (strcasecmp(name, dropped_fields[i]) == 0)
            return true;
    }
    return false;
}

static nghttp2_nv
make_nv(char *name, const char *value)
{
    nghttp2_nv nv = {(uint8_t *)name, (uint8_t *)value, strlen(name), strlen(value),
                     NGHTTP2_NV_FLAG_NONE};
    return nv;
}

/* HTTP/2 field names are lowercase (RFC 9113 8.2.1); nghttp2 copies names and values. */
static size_t
output_fields(gw_h2__stream_t *s, nghttp2_nv *nva, size_t n, bool whole)
{
    for (struct evkeyval *kv = s->out.tqh_first; kv != NULL; kv = kv->next.tqe_next) {
        bool keep_length = whole && s->head && strcasecmp(kv->key, "content-length") == 0;
        if (dropped_field(kv->key) && !keep_length)
            continue;
        char *name = gw_strdup(kv->key);
        for (char *p = name; *p != '\0'; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        nva[n++] = make_nv(name, kv->value);
    }
    return n;
}

static ssize_t
read_pending(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
             uint32_t *data_flags, nghttp2_data_source *source, void *user_data)
{
    gw_h2__stream_t *s = source->ptr;
    size_t n = s->pending < length ? s->pending : length;

    (void)session, (void)stream_id, (void)buf, (void)user_data;
    if (s->pending == 0 && !s->eof)
        return NGHTTP2_ERR_DEFERRED; /* not expected: a provider is given bytes or the end */
    *data_flags |= NGHTTP2_DATA_FLAG_NO_COPY;
    if (n == s->pending) {
        /* The last bytes queued: the provider ends with them, the stream too if the answer is
         * over; else more bytes get a new provider once this frame is out (frame_sent). */
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
        if (!s->eof) {
            *data_flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
            s->last_piece = true;
        }
    }
    return (ssize_t)n;
}

static void
stream_drained(gw_h2__stream_t *s)
{
    if (s->drained != NULL)
        s->drained(s->drained_arg);
}

int
gw_h2__send_data(nghttp2_session *session, nghttp2_frame *frame, const uint8_t *framehd,
                 size_t length, nghttp2_data_source *source, void *user_data)
{
    gw_h2_conn_t *c = user_data;
    gw_h2__stream_t *s = source->ptr;
    struct evbuffer *out = bufferevent_get_output(c->bev);

    (void)session, (void)frame;
    if (evbuffer_get_length(out) >= GW_H2_OUTPUT_HIGH)
        return NGHTTP2_ERR_WOULDBLOCK; /* asked again once the output drains */
    evbuffer_add(out, framehd, 9);
    take(s, out, length); /* no padding: we never ask for any */
    if (length > 0 && s->pending == 0)
        stream_drained(s);
    return 0;
}

/* Have nghttp2 frame what is queued: a new provider when the last one ended (nghttp2 holds
 * none), else the one it holds, which may be waiting. */
static void
provide(gw_h2__stream_t *s)
{
    nghttp2_data_provider prd = {.source.ptr = s, .read_callback = read_pending};
    int rv;

    if (s->providing) {
        nghttp2_session_resume_data(s->conn->session, s->id); /* not deferred: nothing to do */
    } else if ((rv = nghttp2_submit_data(s->conn->session, NGHTTP2_FLAG_END_STREAM, s->id, &prd)) ==
               0) {
        s->providing = true;
    } else {
        gw_log_debug(NULL, "h2: stream %d: data not queued: %s", s->id, nghttp2_strerror(rv));
    }
    gw_h2__kick(s->conn);
}

void
gw_h2__stream_frame_sent(gw_h2__stream_t *s)
{
    if (!s->last_piece)
        return;
    s->last_piece = false;
    s->providing = false; /* nghttp2 let go of it before calling us */
    if (s->pending > 0 || s->eof)
        provide(s);
}

/* Statuses whose answers carry no content and no length (RFC 9110 6.4.1, 8.6). */
static bool
bodiless(int code)
{
    return code < 200 || code == 204 || code == 304;
}

/* The fields we add: the length of a whole answer (a HEAD's as its handler gave it, when it
 * did), and Date when the handler set none, as evhttp adds it. */
static size_t
own_fields(gw_h2__stream_t *s, nghttp2_nv *nva, size_t n, int code, bool whole, char *clen,
           char *date)
{
    const char *given = evhttp_find_header(&s->out, "Content-Length");
    time_t now = time(NULL);
    struct tm tm;

    if (whole && !bodiless(code) && !(s->head && given != NULL))
        nva[n++] = make_nv((char *)"content-length", clen);
    if (evhttp_find_header(&s->out, "Date") == NULL &&
        strftime(date, 64, "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&now, &tm)) > 0)
        nva[n++] = make_nv((char *)"date", date);
    return n;
}

/* Queue the answer's HEADERS; a whole answer's DATA come from its provider, unless it has none
 * to send; a streamed answer's as they are queued (provide). */
static void
answer(gw_h2__stream_t *s, int code, bool whole, size_t length)
{
    size_t max = 3;
    char status[16], clen[32], date[64];
    nghttp2_data_provider prd = {.source.ptr = s, .read_callback = read_pending};
    bool data = whole && length > 0 && !s->head && !bodiless(code);
    int rv;

    for (struct evkeyval *kv = s->out.tqh_first; kv != NULL; kv = kv->next.tqe_next)
        max++;
    nghttp2_nv *nva = gw_calloc(max, sizeof(*nva));
    snprintf(status, sizeof(status), "%d", code >= 100 && code <= 999 ? code : 500);
    snprintf(clen, sizeof(clen), "%zu", length);
    nva[0] = make_nv((char *)":status", status);
    size_t named = output_fields(s, nva, 1, whole);
    size_t n = own_fields(s, nva, named, code, whole, clen, date);
    if (whole && !data)
        drop_pending(s);
    s->submitted = true;
    if (whole)
        rv = nghttp2_submit_response(s->conn->session, s->id, nva, n, data ? &prd : NULL);
    else
        rv = nghttp2_submit_headers(s->conn->session, NGHTTP2_FLAG_NONE, s->id, NULL, nva, n, NULL);
    s->providing = rv == 0 && data;
    if (rv != 0)
        gw_log_debug(NULL, "h2: stream %d: answer not queued: %s", s->id, nghttp2_strerror(rv));
    for (size_t i = 1; i < named; i++)
        free(nva[i].name);
    free(nva);
    /* As Go's server: an answer that asks to close its connection (--goaway-chance) ends the
     * connection gracefully once it is sent (gw_h2.c), the other streams finishing first. */
    const char *conn_hdr = evhttp_find_header(&s->out, "Connection");
    s->close_conn = conn_hdr != NULL && strcasecmp(conn_hdr, "close") == 0;
    gw_h2__kick(s->conn);
}

static gw_h2__stream_t *
stream_of_x(gw_exchange_t *x)
{
    return (gw_h2__stream_t *)x;
}

/* The handler's answer ended: the stream is freed now if the client already left, else when the
 * session closes it (after its last bytes). */
static void
end(gw_h2__stream_t *s)
{
    s->ended = true;
    s->drained = NULL;
    s->gone = NULL;
    if (s->conn == NULL)
        stream_free(s);
}

static void
x_reply(gw_exchange_t *x, int code, struct evbuffer *body)
{
    gw_h2__stream_t *s = stream_of_x(x);
    size_t length = body != NULL ? evbuffer_get_length(body) : 0;

    if (s->conn != NULL && body != NULL)
        queue_copied(s, body);
    else if (body != NULL)
        evbuffer_drain(body, length);
    if (s->conn != NULL) {
        s->eof = true;
        answer(s, code, true, length);
    }
    end(s);
}

static void
x_reply_start(gw_exchange_t *x, int code)
{
    gw_h2__stream_t *s = stream_of_x(x);

    if (s->conn != NULL)
        answer(s, code, false, 0);
    if (s->conn != NULL && s->pending > 0)
        provide(s);
    /* A streamed answer may last an hour: the header lists and the request body go now that the
     * HEADERS frame holds its own copy (as HTTP/1.1's do, gw_http1.c). */
    evhttp_clear_headers(&s->in);
    evhttp_clear_headers(&s->out);
    if (s->body != NULL)
        evbuffer_free(s->body);
    s->body = NULL;
    s->x.body = NULL;
}

static void
x_reply_chunk(gw_exchange_t *x, struct evbuffer *data)
{
    gw_h2__stream_t *s = stream_of_x(x);

    if (s->conn == NULL || s->head) {
        evbuffer_drain(data, evbuffer_get_length(data));
        return;
    }
    queue_copied(s, data);
    provide(s);
}

static void
x_reply_ref(gw_exchange_t *x, const void *data, size_t len, gw_exchange_release_fn release,
            void *arg)
{
    gw_h2__stream_t *s = stream_of_x(x);

    if (s->conn == NULL || s->head || len == 0) {
        release(data, len, arg);
        return;
    }
    queue_lent(s, data, len, release, arg);
    provide(s);
}

static void
x_reply_end(gw_exchange_t *x)
{
    gw_h2__stream_t *s = stream_of_x(x);

    if (s->conn != NULL) {
        s->eof = true;
        provide(s);
    }
    end(s);
}

static size_t
x_queued(gw_exchange_t *x)
{
    gw_h2__stream_t *s = stream_of_x(x);

    return s->conn != NULL ? s->pending : 0;
}

static void
x_on_drained(gw_exchange_t *x, gw_exchange_fn fn, void *arg)
{
    gw_h2__stream_t *s = stream_of_x(x);

    s->drained = s->conn != NULL ? fn : NULL;
    s->drained_arg = arg;
}

static void
x_on_gone(gw_exchange_t *x, gw_exchange_fn fn, void *arg)
{
    gw_h2__stream_t *s = stream_of_x(x);

    if (s->conn == NULL) {
        s->gone = NULL;
        if (fn != NULL)
            fn(arg);
        return;
    }
    s->gone = fn;
    s->gone_arg = arg;
}

/* The connection has no read timeout once its preface is in, and its write timeout applies to
 * every stream alike: nothing is left to change for one stream. */
static void
x_long_running(gw_exchange_t *x)
{
    (void)x;
}

/* An idle watch of many on the connection keeps no copy of its request line. */
static void
x_release_request(gw_exchange_t *x)
{
    gw_h2__stream_t *s = stream_of_x(x);

    free(s->request_line);
    s->request_line = NULL;
}

const gw_exchange_ops_t gw_h2__ops = {
    .reply = x_reply,
    .reply_start = x_reply_start,
    .reply_chunk = x_reply_chunk,
    .reply_ref = x_reply_ref,
    .reply_end = x_reply_end,
    .queued = x_queued,
    .on_drained = x_on_drained,
    .on_gone = x_on_gone,
    .long_running = x_long_running,
    .release_request = x_release_request,
};
