/* gw_fetch against TLS servers of its own on loopback (evhttp over OpenSSL bufferevents, on
 * the same loop): answers, bodies, bearer tokens, client certificates, chunked answers, and
 * every refusal (wrong CA, wrong name, oversized answer, silent peer, closed port, bad
 * input). The PKI comes from test_gw_fetch.t in $KGATE_TEST_PKI. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <openssl/ssl.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_fetch.h"
#include "tap.h"

static struct event_base *base;
static const char *pki;

typedef struct {
    int done, err, status;
    char *body;
} outcome_t;

static char *
pem(const char *name)
{
    char *path = gw_sprintf("%s/%s", pki, name);
    FILE *f = fopen(path, "rb");
    char *s = gw_calloc(1, 65536);
    if (f != NULL) {
        size_t n = fread(s, 1, 65535, f);
        s[n] = '\0';
        fclose(f);
    }
    free(path);
    return s;
}

static void
fetched(int err, int status, const char *body, size_t len, void *ctx)
{
    outcome_t *o = ctx;

    o->done++;
    o->err = err;
    o->status = status;
    o->body = body != NULL ? gw_strndup(body, len) : NULL;
    event_base_loopbreak(base);
}

/* Fetch and run the loop until the answer; the callback must not fire inside gw_fetch. */
static outcome_t
run(const gw_fetch_req_t *q)
{
    outcome_t o = {0};

    gw_fetch(base, q, fetched, &o);
    if (o.done != 0)
        tap_diag("callback fired inside gw_fetch");
    int early = o.done;
    event_base_dispatch(base);
    o.done += early * 100;
    return o;
}

/* ---- the servers ----------------------------------------------------------------------- */

static void
answer(struct evhttp_request *req, void *arg)
{
    const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
    struct evbuffer *out = evbuffer_new();

    (void)arg;
    if (strcmp(path, "/echo") == 0) {
        const char *auth =
            evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
        const char *type =
            evhttp_find_header(evhttp_request_get_input_headers(req), "Content-Type");
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        evbuffer_add_printf(out, "%s|%s|%s|%s|",
                            evhttp_request_get_command(req) == EVHTTP_REQ_POST ? "POST" : "GET",
                            auth ? auth : "-", type ? type : "-", evhttp_request_get_uri(req));
        evbuffer_add_buffer(out, in);
    } else if (strcmp(path, "/client") == 0) {
        SSL *ssl = bufferevent_openssl_get_ssl(
            evhttp_connection_get_bufferevent(evhttp_request_get_connection(req)));
        X509 *peer = SSL_get1_peer_certificate(ssl);
        char cn[64] = "none";
        if (peer != NULL)
            X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof(cn));
        X509_free(peer);
        evbuffer_add_printf(out, "%s", cn);
    } else if (strcmp(path, "/big") == 0) {
        for (int i = 0; i < 300; i++)
            evbuffer_add_printf(out, "0123456789");
    } else if (strcmp(path, "/chunked") == 0) {
        evhttp_send_reply_start(req, 200, "OK");
        for (int i = 0; i < 3; i++) {
            evbuffer_add_printf(out, "part%d;", i);
            evhttp_send_reply_chunk(req, out);
        }
        evhttp_send_reply_end(req);
        evbuffer_free(out);
        return;
    } else {
        evbuffer_add_printf(out, "no such page");
        evhttp_send_reply(req, 404, "Not Found", out);
        evbuffer_free(out);
        return;
    }
    evhttp_send_reply(req, 200, "OK", out);
    evbuffer_free(out);
}

static struct bufferevent *
tls_bev(struct event_base *b, void *arg)
{
    return bufferevent_openssl_socket_new(b, -1, SSL_new(arg), BUFFEREVENT_SSL_ACCEPTING,
                                          BEV_OPT_CLOSE_ON_FREE);
}

/* A TLS server with certificate `name` that asks for (but does not require) a client
 * certificate from `ca`; returns its port. */
static int
serve(const char *name, SSL_CTX **ctx_out, struct evhttp **http_out)
{
    char *crt = gw_sprintf("%s/%s.crt", pki, name), *key = gw_sprintf("%s/%s.key", pki, name);
    char *ca = gw_sprintf("%s/ca.crt", pki);
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate_chain_file(ctx, crt);
    SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM);
    SSL_CTX_load_verify_locations(ctx, ca, NULL);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    free(crt);
    free(key);
    free(ca);
    struct evhttp *http = evhttp_new(base);
    evhttp_set_bevcb(http, tls_bev, ctx);
    evhttp_set_gencb(http, answer, NULL);
    struct evhttp_bound_socket *s = evhttp_bind_socket_with_handle(http, "127.0.0.1", 0);
    struct sockaddr_in sin;
    socklen_t len = sizeof(sin);
    getsockname(evhttp_bound_socket_get_fd(s), (struct sockaddr *)&sin, &len);
    *ctx_out = ctx;
    *http_out = http;
    return ntohs(sin.sin_port);
}

/* A socket that listens and never accepts: the handshake never completes. */
static int
silent(int *fd_out)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sin);
    bind(fd, (struct sockaddr *)&sin, sizeof(sin));
    listen(fd, 4);
    getsockname(fd, (struct sockaddr *)&sin, &len);
    *fd_out = fd;
    return ntohs(sin.sin_port);
}

/* A port nothing listens on. */
static int
closed_port(void)
{
    int fd;
    int port = silent(&fd);
    close(fd);
    return port;
}

/* ---- the cases --------------------------------------------------------------------------- */

static void
check(outcome_t o, int err, int status, const char *body, const char *name)
{
    tap_is_int(o.done, 1, name);
    tap_is_str(gw_errname(o.err), gw_errname(err), name);
    tap_is_int(o.status, status, name);
    if (body != NULL)
        tap_is_str(o.body, body, name);
    free(o.body);
}

static void
answers(int port, const char *ca)
{
    char *url = gw_sprintf("https://127.0.0.1:%d/echo?x=1", port);
    gw_fetch_req_t q = {.method = "GET", .url = url, .ca_pem = ca};
    check(run(&q), 0, 200, "GET|-|-|/echo?x=1|", "GET by IP address, query kept");
    q.method = "POST";
    q.body = "{\"a\":1}";
    q.body_len = 7;
    q.bearer_token = "s3cret";
    check(run(&q), 0, 200, "POST|Bearer s3cret|application/json|/echo?x=1|{\"a\":1}",
          "POST with a JSON body and a bearer token");
    free(url);
    url = gw_sprintf("https://localhost:%d/nothing", port);
    q = (gw_fetch_req_t){.method = "GET", .url = url, .ca_pem = ca};
    check(run(&q), 0, 404, "no such page", "by DNS name; a 404 is an answer");
    free(url);
    url = gw_sprintf("https://127.0.0.1:%d/chunked", port);
    q.url = url;
    check(run(&q), 0, 200, "part0;part1;part2;", "a chunked answer");
    free(url);
}

static void
client_certs(int port, const char *ca)
{
    char *url = gw_sprintf("https://127.0.0.1:%d/client", port);
    char *cert = pem("client.crt"), *key = pem("client.key"), *other = pem("other.key");
    gw_fetch_req_t q = {.method = "GET", .url = url, .ca_pem = ca};

    check(run(&q), 0, 200, "none", "no client certificate by default");
    q.cert_pem = cert;
    q.key_pem = key;
    check(run(&q), 0, 200, "kgate-client", "the client certificate is presented");
    q.key_pem = other;
    check(run(&q), GW_EINVAL, 0, NULL, "a key that does not match the certificate");
    q.key_pem = NULL;
    check(run(&q), GW_EINVAL, 0, NULL, "a certificate without a key");
    free(url);
    free(cert);
    free(key);
    free(other);
}

static void
refusals(int port, int wrong_port, const char *ca)
{
    char *other_ca = pem("otherca.crt");
    char *url = gw_sprintf("https://127.0.0.1:%d/echo", port);
    gw_fetch_req_t q = {.method = "GET", .url = url, .ca_pem = other_ca};

    check(run(&q), GW_EUNAVAILABLE, 0, NULL, "a server signed by another CA");
    q.ca_pem = NULL;
    check(run(&q), GW_EUNAVAILABLE, 0, NULL, "the system's CAs do not know the test CA");
    q.ca_pem = "not a pem";
    check(run(&q), GW_EINVAL, 0, NULL, "an unreadable CA bundle");
    free(url);
    url = gw_sprintf("https://127.0.0.1:%d/echo", wrong_port);
    q.url = url;
    q.ca_pem = ca;
    check(run(&q), GW_EUNAVAILABLE, 0, NULL, "a certificate for another name");
    free(url);
    url = gw_sprintf("https://127.0.0.1:%d/big", port);
    q.url = url;
    q.max_body = 1000;
    check(run(&q), GW_ETOOLARGE, 0, NULL, "an answer over the cap");
    q.max_body = 0;
    check(run(&q), 0, 200, NULL, "the same answer under the default cap");
    free(url);
    free(other_ca);
}

static void
bad_input(const char *ca)
{
    static const char *const urls[] = {"http://127.0.0.1:1/", "not a url", "https:///x", "",
                                       "https://[::1"};
    for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
        gw_fetch_req_t q = {.method = "GET", .url = urls[i], .ca_pem = ca};
        check(run(&q), GW_EINVAL, 0, NULL, urls[i][0] ? urls[i] : "(empty URL)");
    }
    gw_fetch_req_t q = {.method = "DELETE", .url = "https://127.0.0.1:1/", .ca_pem = ca};
    check(run(&q), GW_EINVAL, 0, NULL, "a method other than GET or POST");
}

static void
unreachable(const char *ca)
{
    int fd;
    char *url = gw_sprintf("https://127.0.0.1:%d/", silent(&fd));
    gw_fetch_req_t q = {.method = "GET", .url = url, .ca_pem = ca, .timeout_ms = 300};

    check(run(&q), GW_ETIMEOUT, 0, NULL, "a peer that never answers times out");
    close(fd);
    free(url);
    url = gw_sprintf("https://127.0.0.1:%d/", closed_port());
    q.url = url;
    check(run(&q), GW_EUNAVAILABLE, 0, NULL, "a closed port");
    free(url);
}

int
main(void)
{
    pki = getenv("KGATE_TEST_PKI");
    if (pki == NULL)
        tap_skip_all("KGATE_TEST_PKI not set (run through test_gw_fetch.t)");
    base = event_base_new();
    SSL_CTX *good_ctx, *wrong_ctx;
    struct evhttp *good, *wrong;
    int port = serve("server", &good_ctx, &good);
    int wrong_port = serve("wrongname", &wrong_ctx, &wrong);
    char *ca = pem("ca.crt");

    answers(port, ca);
    client_certs(port, ca);
    refusals(port, wrong_port, ca);
    bad_input(ca);
    unreachable(ca);

    free(ca);
    event_base_loop(base, EVLOOP_NONBLOCK); /* the last exchange's connection goes */
    evhttp_free(good);
    evhttp_free(wrong);
    SSL_CTX_free(good_ctx);
    SSL_CTX_free(wrong_ctx);
    event_base_free(base);
    return tap_done();
}
