/* The benchmarks' HTTPS client for kgate: keep-alive connections, each with one request in
 * flight, answers read as they arrive (Content-Length or chunked) and checked against the
 * status and length expected. Linked into every bench binary. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <openssl/ssl.h>

#include "gw_alloc.h"

void
https_conn_init(https_conn_t *c, struct event_base *base, const kgate_addr_t *k)
{
    *c = (https_conn_t){.base = base, .k = k};
}

void
https_close(https_conn_t *c)
{
    if (c->bev != NULL)
        bufferevent_free(c->bev);
    c->bev = NULL;
}

static void
die_answer(const https_conn_t *c, const char *why)
{
    size_t n = c->body != NULL ? evbuffer_get_length(c->body) : 0;
    const char *body = n > 0 ? (const char *)evbuffer_pullup(c->body, -1) : "";

    die("%.*s: %s (status %d, %zu bytes): %.*s", (int)strcspn(c->what, "\r"), c->what, why,
        c->status, c->len, (int)(n < 400 ? n : 400), body);
}

static void
conn_event(struct bufferevent *bev, short what, void *arg)
{
    https_conn_t *c = arg;

    if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
        return;
    if (c->what != NULL)
        die("%.*s: %s", (int)strcspn(c->what, "\r"), c->what, tls_bev_error(bev, what));
    https_close(c); /* the server closed an idle connection: the next request reopens it */
}

/* The whole answer is in: check it, then hand the connection back to its caller. */
static void
answered(https_conn_t *c)
{
    slot_t *s = c->slot;

    if (c->want != HTTPS_ANY_STATUS && c->status != c->want)
        die_answer(c, "unexpected status");
    if (c->ref_len > 0 &&
        (c->len + HTTPS_LEN_SLACK < c->ref_len || c->len > c->ref_len + HTTPS_LEN_SLACK))
        die_answer(c, "not the length of the answer checked");
    c->what = NULL;
    if (s == NULL)
        event_base_loopbreak(c->base);
    else
        evdriver_done(s, 0);
}

static void
head_line(https_conn_t *c, const char *line, size_t n)
{
    if (c->status == 0) {
        if (sscanf(line, "HTTP/1.%*d %d", &c->status) != 1 || c->status <= 0)
            die_answer(c, "malformed status line");
    } else if (strncasecmp(line, "content-length:", 15) == 0) {
        c->left = strtoull(line + 15, NULL, 10);
    } else if (strncasecmp(line, "transfer-encoding:", 18) == 0) {
        c->chunked = strcasestr(line + 18, "chunked") != NULL;
    } else if (n == 0) {
        if (c->want != HTTPS_ANY_STATUS && c->status != c->want && c->body == NULL)
            c->body = evbuffer_new(); /* for the message */
        if (c->chunked)
            c->state = HTTPS_CHUNK_SIZE;
        else if (c->left > 0)
            c->state = HTTPS_BODY;
        else
            answered(c);
    }
}

static void
read_line(https_conn_t *c, const char *line, size_t n)
{
    switch (c->state) {
    case HTTPS_HEAD:
        head_line(c, line, n);
        break;
    case HTTPS_CHUNK_SIZE:
        c->left = strtoull(line, NULL, 16);
        c->state = c->left > 0 ? HTTPS_CHUNK_DATA : HTTPS_TRAILER;
        break;
    case HTTPS_CHUNK_END:
        c->state = HTTPS_CHUNK_SIZE;
        break;
    case HTTPS_TRAILER:
        if (n == 0)
            answered(c);
        break;
    default:
        abort();
    }
}

/* Take what `in` holds of the body or chunk being read; false when it holds nothing. */
static bool
read_data(https_conn_t *c, struct evbuffer *in)
{
    size_t n = evbuffer_get_length(in);

    if (n == 0)
        return false;
    if (n > c->left)
        n = c->left;
    if (c->body != NULL)
        evbuffer_remove_buffer(in, c->body, n);
    else
        evbuffer_drain(in, n);
    c->left -= n;
    c->len += n;
    if (c->left == 0 && c->state == HTTPS_CHUNK_DATA)
        c->state = HTTPS_CHUNK_END;
    else if (c->left == 0)
        answered(c);
    return true;
}

static void
conn_read(struct bufferevent *bev, void *arg)
{
    https_conn_t *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);

    while (c->what != NULL) {
        if (c->state == HTTPS_BODY || c->state == HTTPS_CHUNK_DATA) {
            if (!read_data(c, in))
                return;
            continue;
        }
        size_t n;
        char *line = evbuffer_readln(in, &n, EVBUFFER_EOL_CRLF_STRICT);
        if (line == NULL)
            return;
        read_line(c, line, n);
        free(line);
    }
}

static void
conn_open(https_conn_t *c)
{
    const kgate_addr_t *k = c->k;
    SSL *ssl = kgate_ssl_with(k, c->tls != NULL ? c->tls : k->tls);
    int one = 1;

    c->bev = bufferevent_openssl_socket_new(c->base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
                                            BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(c->bev, conn_read, NULL, conn_event, c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&k->addr, k->addr_len) != 0)
        die("cannot connect to %s", k->authority);
    /* Nagle plus delayed ACKs would hold back every request behind its TLS record. */
    setsockopt(bufferevent_getfd(c->bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void
https_send(https_conn_t *c, const char *req, int want, size_t ref_len, slot_t *slot)
{
    if (c->bev == NULL)
        conn_open(c);
    c->what = req;
    c->want = want;
    c->ref_len = ref_len;
    c->slot = slot;
    c->state = HTTPS_HEAD;
    c->chunked = false;
    c->status = 0;
    c->left = c->len = 0;
    evbuffer_add(bufferevent_get_output(c->bev), req, strlen(req));
}

void
https_close_all(https_conn_t *conns, int n)
{
    for (int i = 0; i < n; i++)
        https_close(&conns[i]);
}

int
https_call(https_conn_t *c, const char *req, int want, struct evbuffer **body)
{
    c->body = evbuffer_new();
    https_send(c, req, want, 0, NULL);
    event_base_loop(c->base, EVLOOP_NO_EXIT_ON_EMPTY);
    if (body != NULL)
        *body = c->body;
    else
        evbuffer_free(c->body);
    c->body = NULL;
    return c->status;
}

char *
https_request(const https_req_t *r)
{
    char *auth =
        r->token != NULL ? gw_sprintf("Authorization: Bearer %s\r\n", r->token) : gw_strdup("");
    char *body = r->body == NULL
                     ? gw_strdup("")
                     : gw_sprintf("Content-Type: %s\r\nContent-Length: %zu\r\n",
                                  r->type != NULL ? r->type : "application/json", strlen(r->body));
    char *req = gw_sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\nAccept: "
                           "%s\r\n%s%s\r\n%s",
                           r->method, r->path, r->k->authority, program_invocation_short_name,
                           r->accept != NULL ? r->accept : "application/json", auth, body,
                           r->body != NULL ? r->body : "");

    free(auth);
    free(body);
    return req;
}

size_t
https_call_admin(https_conn_t *c, const kgate_addr_t *k, const char *method, const char *path,
                 const char *body, int want)
{
    char *req = https_request(&(https_req_t){.k = k, .method = method, .path = path, .body = body});

    c->k = k;
    c->tls = NULL;
    https_call(c, req, want, NULL);
    https_close(c);
    free(req);
    return c->len;
}
