/*
 * An HTTP/2 connection: its nghttp2 server session fed from the bufferevent's input and
 * serialized into its output, and the connection's end.
 *
 * Reentrancy: the session's callbacks run inside nghttp2_session_mem_recv and _mem_send, and a
 * handler may answer from inside dispatch; nghttp2 allows queueing frames there but not sending.
 * So the exchange operations only queue and kick: the session is driven (input read, frames
 * written, the end decided) only from the bufferevent's callbacks and the kick event, never
 * from inside a call the API layer made, and `closed` runs from the loop alone.
 */
#include "gw_h2_int.h"

#include <stdlib.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_log.h"
#include "gw_server.h"

/* nghttp2 allocates through ours, so running out of memory aborts as everywhere else. */
static void *
mem_malloc(size_t size, void *ud)
{
    (void)ud;
    return gw_malloc(size);
}

static void
mem_free(void *ptr, void *ud)
{
    (void)ud;
    free(ptr);
}

static void *
mem_calloc(size_t n, size_t size, void *ud)
{
    (void)ud;
    return gw_calloc(n, size);
}

static void *
mem_realloc(void *ptr, size_t size, void *ud)
{
    (void)ud;
    return gw_realloc(ptr, size);
}

static nghttp2_mem h2_mem = {NULL, mem_malloc, mem_free, mem_calloc, mem_realloc};

static gw_h2__stream_t *
stream_of(nghttp2_session *session, int32_t id)
{
    return nghttp2_session_get_stream_user_data(session, id);
}

static int
on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    gw_h2__stream_t *s;

    (void)session;
    if (frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    if (frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0; /* trailers */
    s = gw_h2__stream_new(user_data, frame->hd.stream_id);
    nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, s);
    return 0;
}

static int
on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
          const uint8_t *value, size_t valuelen, uint8_t flags, void *user_data)
{
    gw_h2__stream_t *s = stream_of(session, frame->hd.stream_id);

    (void)flags, (void)user_data;
    if (s != NULL && frame->hd.type == NGHTTP2_HEADERS)
        gw_h2__stream_header(s, name, namelen, value, valuelen);
    return 0;
}

static int
on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data,
              size_t len, void *user_data)
{
    gw_h2__stream_t *s = stream_of(session, stream_id);

    (void)flags, (void)user_data;
    if (s != NULL)
        gw_h2__stream_data(s, data, len);
    return 0;
}

/* The client has said hello: from now on it may stay silent for as long as it likes (kube's
 * Go server keeps idle HTTP/2 connections), only our output must move. */
static void
preface_done(gw_h2_conn_t *c)
{
    struct timeval wt = {c->cfg.write_timeout_s, 0};

    c->preface_seen = true;
    bufferevent_set_timeouts(c->bev, NULL, c->cfg.write_timeout_s > 0 ? &wt : NULL);
}

static int
on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    gw_h2_conn_t *c = user_data;
    gw_h2__stream_t *s;

    if (frame->hd.type == NGHTTP2_SETTINGS && !c->preface_seen)
        preface_done(c);
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    s = stream_of(session, frame->hd.stream_id);
    if (s == NULL)
        return 0;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST)
        gw_h2__stream_headers_done(s);
    if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)
        gw_h2__stream_request_done(s);
    return 0;
}

/* A DATA frame may have ended its stream's provider (gw_h2_stream.c). RFC 9113 8.1: an answer
 * complete before its request may ask the client, with RST_STREAM NO_ERROR, to stop sending the
 * rest (a body refused for its size, say). */
static int
on_frame_send(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    gw_h2__stream_t *s;

    (void)user_data;
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    s = stream_of(session, frame->hd.stream_id);
    if (s != NULL && frame->hd.type == NGHTTP2_DATA)
        gw_h2__stream_frame_sent(s);
    if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    if (s != NULL && s->refused && !s->request_done)
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_NO_ERROR);
    return 0;
}

static int
on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data)
{
    gw_h2__stream_t *s = stream_of(session, stream_id);

    (void)user_data;
    if (s == NULL)
        return 0;
    if (error_code != NGHTTP2_NO_ERROR)
        gw_log_debug(NULL, "h2: stream %d closed: %s", stream_id,
                     nghttp2_http2_strerror(error_code));
    nghttp2_session_set_stream_user_data(session, stream_id, NULL);
    /* After the answer's last frame, so that the client has it whole before the GOAWAY. */
    if (s->close_conn && error_code == NGHTTP2_NO_ERROR)
        gw_h2_conn_goaway(s->conn);
    gw_h2__stream_detach(s);
    return 0;
}

static nghttp2_session_callbacks *
new_callbacks(void)
{
    nghttp2_session_callbacks *cbs;

    if (nghttp2_session_callbacks_new(&cbs) != 0)
        abort();
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs, on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    nghttp2_session_callbacks_set_send_data_callback(cbs, gw_h2__send_data);
    return cbs;
}

/* A connection error of ours (the input made no sense): GOAWAY with its code, then the end. */
static void
conn_fail(gw_h2_conn_t *c, int rv)
{
    gw_log_debug(NULL, "h2: connection error: %s", nghttp2_strerror(rv));
    if (nghttp2_is_fatal(rv) && rv != NGHTTP2_ERR_BAD_CLIENT_MAGIC) {
        c->closing = true;
        return;
    }
    /* nghttp2 has queued its own GOAWAY for most errors; this one then changes nothing. */
    nghttp2_session_terminate_session(c->session, NGHTTP2_PROTOCOL_ERROR);
}

/* Feed the input to the session where it lies (no copy). */
static void
conn_recv(gw_h2_conn_t *c)
{
    struct evbuffer *in = bufferevent_get_input(c->bev);
    struct evbuffer_iovec v;
    ssize_t rv;

    while (!c->closing && evbuffer_peek(in, -1, NULL, &v, 1) == 1 && v.iov_len > 0) {
        rv = nghttp2_session_mem_recv(c->session, v.iov_base, v.iov_len);
        if (rv < 0) {
            conn_fail(c, (int)rv);
            evbuffer_drain(in, evbuffer_get_length(in));
            return;
        }
        evbuffer_drain(in, v.iov_len);
    }
    if (c->closing || !nghttp2_session_want_read(c->session))
        evbuffer_drain(in, evbuffer_get_length(in)); /* nobody will read it */
}

/* Serialize what the session has to say while the output holds less than its bound; the write
 * callback brings us back once it has drained. */
static void
conn_flush(gw_h2_conn_t *c)
{
    struct evbuffer *out = bufferevent_get_output(c->bev);
    const uint8_t *data;
    ssize_t n;

    while (!c->closing && evbuffer_get_length(out) < GW_H2_OUTPUT_HIGH) {
        n = nghttp2_session_mem_send(c->session, &data);
        if (n < 0) {
            gw_log_debug(NULL, "h2: send: %s", nghttp2_strerror((int)n));
            c->closing = true;
        } else if (n == 0) {
            break;
        } else {
            evbuffer_add(out, data, (size_t)n);
        }
    }
}

/* Free c and let go of bev; exchanges still held by their handlers see their client gone. */
static void
conn_teardown(gw_h2_conn_t *c, bool notify)
{
    void (*closed)(void *) = c->cfg.closed;
    void *arg = c->cfg.arg;
    gw_h2__stream_t *s, *next;

    bufferevent_setcb(c->bev, NULL, NULL, NULL, NULL);
    for (s = c->streams; s != NULL; s = next) {
        next = s->next;
        nghttp2_session_set_stream_user_data(c->session, s->id, NULL);
        gw_h2__stream_detach(s);
    }
    nghttp2_session_del(c->session);
    event_free(c->kick);
    free(c);
    if (notify && closed != NULL)
        closed(arg);
}

/* The session has nothing left to read or write (GOAWAY exchanged, streams done; or a
 * connection error's GOAWAY sent): close once the output is on its way. */
static bool
conn_check_done(gw_h2_conn_t *c)
{
    if (!c->closing &&
        (nghttp2_session_want_read(c->session) || nghttp2_session_want_write(c->session)))
        return false;
    if (!c->closing)
        bufferevent_disable(c->bev, EV_READ);
    c->closing = true;
    if (evbuffer_get_length(bufferevent_get_output(c->bev)) > 0) {
        bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0); /* called back once empty */
        return false;
    }
    conn_teardown(c, true);
    return true;
}

/* Read what came, write what is due, and see whether the connection is over. A bufferevent may
 * call back synchronously from inside our own writes (a pair's write callback does): such a
 * nested call is dropped (the outer pass goes on writing) and an error it reports is acted on
 * by the outer pass, so c is never freed under our own feet. */
static void
conn_drive(gw_h2_conn_t *c, bool read)
{
    struct evbuffer *in = bufferevent_get_input(c->bev);

    if (c->busy)
        return;
    c->busy = true;
    do {
        if (read)
            conn_recv(c);
        conn_flush(c);
    } while (read && !c->closing && !c->lost && evbuffer_get_length(in) > 0);
    c->busy = false;
    if (c->lost)
        conn_teardown(c, true);
    else
        conn_check_done(c);
}

static void
on_read(struct bufferevent *bev, void *arg)
{
    (void)bev;
    conn_drive(arg, true);
}

static void
on_write(struct bufferevent *bev, void *arg)
{
    (void)bev;
    conn_drive(arg, false);
}

static void
on_event(struct bufferevent *bev, short what, void *arg)
{
    gw_h2_conn_t *c = arg;

    (void)bev;
    if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT)))
        return;
    if (what & BEV_EVENT_TIMEOUT)
        gw_log_debug(NULL, "h2: connection timed out %s",
                     (what & BEV_EVENT_READING) ? "waiting for the preface" : "writing");
    if (c->busy)
        c->lost = true;
    else
        conn_teardown(c, true);
}

static void
on_kick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    conn_drive(arg, true);
}

void
gw_h2__kick(gw_h2_conn_t *c)
{
    event_active(c->kick, EV_TIMEOUT, 0);
}

/* Receive windows of 1 MiB for each stream and for the connection, as Go's server opens them
 * (nghttp2's 64 KiB would hold a large upload to a round trip per 64 KiB). */
#define RECV_WINDOW (1 << 20)

static void
new_session(gw_h2_conn_t *c)
{
    nghttp2_session_callbacks *cbs = new_callbacks();
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, c->cfg.max_streams},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, (uint32_t)c->cfg.max_header_list},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, RECV_WINDOW},
    };

    if (nghttp2_session_server_new3(&c->session, cbs, c, NULL, &h2_mem) != 0)
        abort();
    nghttp2_session_callbacks_del(cbs);
    if (nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, sizeof(iv) / sizeof(iv[0])) ||
        nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, RECV_WINDOW))
        abort();
}

gw_h2_conn_t *
gw_h2_conn_new(struct bufferevent *bev, const gw_h2_config_t *cfg)
{
    gw_h2_conn_t *c = gw_calloc(1, sizeof(*c));
    int preface_s = cfg->preface_timeout_s > 0 ? cfg->preface_timeout_s : GW_SERVER_READ_TIMEOUT_S;
    struct timeval rt = {preface_s, 0}, wt = {cfg->write_timeout_s, 0};

    c->bev = bev;
    c->cfg = *cfg;
    if (c->cfg.max_header_list > UINT32_MAX)
        c->cfg.max_header_list = UINT32_MAX;
    c->kick = event_new(bufferevent_get_base(bev), -1, 0, on_kick, c);
    if (c->kick == NULL)
        abort();
    new_session(c);
    bufferevent_setcb(bev, on_read, on_write, on_event, c);
    bufferevent_setwatermark(bev, EV_READ, 0, 0);
    bufferevent_setwatermark(bev, EV_WRITE, GW_H2_OUTPUT_HIGH / 2, 0);
    bufferevent_set_timeouts(bev, &rt, cfg->write_timeout_s > 0 ? &wt : NULL);
    bufferevent_enable(bev, EV_READ | EV_WRITE);
    gw_h2__kick(c); /* our SETTINGS, and whatever the client already sent */
    return c;
}

void
gw_h2_conn_goaway(gw_h2_conn_t *c)
{
    if (c->goaway || c->closing)
        return;
    c->goaway = true;
    nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE,
                          nghttp2_session_get_last_proc_stream_id(c->session), NGHTTP2_NO_ERROR,
                          NULL, 0);
    gw_h2__kick(c);
}

gw_h2_conn_t *
gw_h2_conn_of(gw_exchange_t *x)
{
    return x->ops == &gw_h2__ops ? ((gw_h2__stream_t *)x)->conn : NULL;
}

size_t
gw_h2_conn_streams(const gw_h2_conn_t *c)
{
    return c->nstreams;
}

void
gw_h2_conn_free(gw_h2_conn_t *c)
{
    conn_teardown(c, false);
}
