/* libFuzzer driver for HTTP/2 connections (gw_h2): the input is what a client sends, behind one
 * byte of options. Bit 0 puts the connection preface and an empty SETTINGS frame first, so the
 * rest is parsed as frames; bits 1-2 choose how each request is answered: whole at once,
 * streamed at once in a few chunks, held until the connection is over, or streamed with the
 * end held. The connection runs over an in-memory bufferevent pair on one event_base; whatever
 * the server writes is read and dropped. Besides not crashing or leaking, it checks that the
 * connection's output stays within its bound.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_h2.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>

#include "gw_alloc.c"
#include "gw_exchange.c"
#include "gw_h2.c"
#include "gw_h2_stream.c"
#include "gw_log.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_HELD 64

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
                              "\x00\x00\x00\x04\x00\x00\x00\x00\x00"; /* SETTINGS, empty */

typedef struct {
    struct event_base *base;
    struct bufferevent *pair[2]; /* [0] the server's, [1] the client's */
    gw_h2_conn_t *c;
    int mode;
    bool closed;
    gw_exchange_t *held[MAX_HELD];
    int nheld;
} run_t;

static void
chunk(gw_exchange_t *x, const char *s)
{
    struct evbuffer *b = evbuffer_new();
    evbuffer_add(b, s, strlen(s));
    gw_exchange_reply_chunk(x, b);
    evbuffer_free(b);
}

static void
answer_whole(gw_exchange_t *x)
{
    struct evbuffer *b = evbuffer_new();
    evbuffer_add_buffer(b, gw_exchange_body(x));
    evbuffer_add_printf(b, "%s %s", gw_exchange_method(x), gw_exchange_path(x));
    evhttp_add_header(gw_exchange_output_headers(x), "Content-Type", "text/plain");
    evhttp_add_header(gw_exchange_output_headers(x), "Connection", "close");
    gw_exchange_reply(x, 200, b);
    evbuffer_free(b);
}

static void
noop(void *arg)
{
    (void)arg;
}

static void
release(const void *data, size_t len, void *arg)
{
    (void)data, (void)len, (void)arg;
}

static void
on_dispatch(gw_exchange_t *x, void *arg)
{
    run_t *r = arg;

    if (r->mode == 0) {
        answer_whole(x);
        return;
    }
    if (r->mode == 1 || r->mode == 3) {
        gw_exchange_reply_start(x, 200);
        gw_exchange_on_drained(x, noop, NULL);
        chunk(x, "{\"type\":\"ADDED\"}\n");
        chunk(x, "{\"type\":\"MODIFIED\"}\n");
    }
    if (r->mode == 3) {
        static const char lent[] = "{\"type\":\"DELETED\"}\n";
        gw_exchange_reply_ref(x, lent, sizeof(lent) - 1, release, NULL);
    }
    if (r->mode == 1) {
        gw_exchange_reply_end(x);
        return;
    }
    if (r->nheld < MAX_HELD) {
        gw_exchange_on_gone(x, noop, NULL);
        r->held[r->nheld++] = x;
    } else if (r->mode == 3) {
        gw_exchange_reply_end(x);
    } else {
        gw_exchange_reply(x, 204, NULL);
    }
}

static void
on_closed(void *arg)
{
    run_t *r = arg;
    r->closed = true;
}

static void
drop_input(struct bufferevent *bev, void *arg)
{
    (void)arg;
    evbuffer_drain(bufferevent_get_input(bev), evbuffer_get_length(bufferevent_get_input(bev)));
}

static void
run_loop(run_t *r)
{
    for (int i = 0; i < 32 && !r->closed; i++) {
        event_base_loop(r->base, EVLOOP_NONBLOCK);
        if (evbuffer_get_length(bufferevent_get_output(r->pair[0])) > GW_H2_OUTPUT_HIGH + 16384 + 9)
            abort(); /* the output bound does not hold */
    }
}

static void
finish(run_t *r)
{
    if (!r->closed)
        gw_h2_conn_free(r->c);
    for (int i = 0; i < r->nheld; i++) {
        if (r->mode == 3)
            gw_exchange_reply_end(r->held[i]);
        else
            gw_exchange_reply(r->held[i], 200, NULL);
    }
    bufferevent_free(r->pair[0]);
    bufferevent_free(r->pair[1]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct event_base *base;
    run_t r = {0};
    gw_h2_config_t cfg = {
        .max_streams = 16,
        .max_header_list = 4096,
        .max_body = 8192,
        .write_timeout_s = 10,
        .dispatch = on_dispatch,
        .closed = on_closed,
        .arg = &r,
    };

    if (size < 1)
        return 0;
    if (base == NULL) {
        gw_log_set_level(GW_LOG_OFF);
        base = event_base_new();
    }
    r.base = base;
    r.mode = (data[0] >> 1) & 3;
    if (bufferevent_pair_new(base, 0, r.pair) != 0)
        abort();
    bufferevent_setcb(r.pair[1], drop_input, NULL, NULL, NULL);
    bufferevent_enable(r.pair[1], EV_READ | EV_WRITE);
    if (data[0] & 1)
        bufferevent_write(r.pair[1], preface, sizeof(preface) - 1);
    bufferevent_write(r.pair[1], data + 1, size - 1);
    r.c = gw_h2_conn_new(r.pair[0], &cfg);
    run_loop(&r);
    if (!r.closed && r.nheld > 0 && r.mode == 3) {
        for (int i = 0; i < r.nheld; i++)
            chunk(r.held[i], "{\"type\":\"DELETED\"}\n");
        run_loop(&r);
    }
    finish(&r);
    return 0;
}
