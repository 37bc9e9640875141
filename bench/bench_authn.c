/*
 * bench_authn: what authentication costs a request. GETs of one ConfigMap of about 2 KiB
 * through kgate over HTTPS keep-alive (one connection per caller), closed-loop at concurrency
 * 1 and 16, with three credentials in turn at the same concurrency:
 *  - anonymous: no client certificate, no token (the baseline);
 *  - a client certificate (the admin's: verified in the TLS handshake, read per request);
 *  - a service account token from a TokenRequest (signature checked on every request, then
 *    the ServiceAccount read from etcd, as kube's bound-token validator looks it up).
 * Each row gives requests/s, p50 and p99 and the ratio to the anonymous row.
 *
 * Usage: bench_authn https://IP:PORT PKI_DIR
 *   PKI_DIR holds ca.crt (which signed kgate's serving certificate) and admin.crt/admin.key
 *   (a client certificate kgate accepts). kgate must run with a service account issuer and
 *   signing key, anonymous requests allowed and an authorizer that lets the three users read
 *   (the default AlwaysAllow). The objects go into namespace bench-authn, which must not exist
 *   yet; it is deleted at the end. BENCH_SECONDS as for every benchmark (bench.h). Any failed
 *   or unexpected answer ends the run with exit status 1.
 */

#include <signal.h>
#include <stdbool.h>
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
#include <jansson.h>
#include <openssl/ssl.h>

#include "bench.h"
#include "gw_alloc.h"

#define NAMESPACE "bench-authn"
#define OBJECT "/api/v1/namespaces/" NAMESPACE "/configmaps/cm"
#define PAD_LEN 1800 /* data bytes that make the GET's answer about 2 KiB */
#define LEN_SLACK 4  /* the answer's resourceVersion may gain a digit */

typedef enum { CRED_ANON, CRED_CERT, CRED_TOKEN, N_CREDS } cred_t;

static const char *const cred_names[] = {
    [CRED_ANON] = "anonymous", [CRED_CERT] = "certificate", [CRED_TOKEN] = "token"};
static const int concurrencies[] = {1, 16};

typedef struct bench bench_t;

/* One keep-alive connection with one request in flight. */
typedef struct {
    bench_t *b;
    struct bufferevent *bev;
    const char *what; /* the request in flight; NULL when idle */
    int want;
    slot_t *slot; /* NULL for a set-up call */
    int status;
    bool in_body;
    size_t left, len;
    struct evbuffer *body; /* set-up calls keep the answer */
} conn_t;

struct bench {
    evdriver_t ev;
    kgate_addr_t k;    /* k.tls presents the admin certificate */
    SSL_CTX *anon_tls; /* trusts the CA, presents nothing */
    char *request[N_CREDS];
    size_t ref_len;
    conn_t conns[MAX_CONC];
};

/* ---- the HTTPS client ------------------------------------------------------------------- */

static void
conn_close(conn_t *c)
{
    if (c->bev != NULL)
        bufferevent_free(c->bev);
    c->bev = NULL;
}

static void
die_answer(conn_t *c, const char *why)
{
    size_t n = c->body != NULL ? evbuffer_get_length(c->body) : 0;
    const char *body = n > 0 ? (const char *)evbuffer_pullup(c->body, -1) : "";

    die("%.*s: %s (status %d, %zu bytes): %.*s", (int)strcspn(c->what, "\r"), c->what, why,
        c->status, c->len, (int)(n < 400 ? n : 400), body);
}

static void
conn_event(struct bufferevent *bev, short what, void *arg)
{
    conn_t *c = arg;

    if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
        return;
    if (c->what != NULL)
        die("%.*s: %s", (int)strcspn(c->what, "\r"), c->what, tls_bev_error(bev, what));
    conn_close(c); /* an idle connection the server closed: the next request reopens it */
}

static void
answered(conn_t *c)
{
    slot_t *s = c->slot;

    if (c->status != c->want)
        die_answer(c, "unexpected status");
    if (s != NULL && (c->len + LEN_SLACK < c->b->ref_len || c->len > c->b->ref_len + LEN_SLACK))
        die_answer(c, "not the length of the answer checked");
    c->what = NULL;
    if (s == NULL)
        event_base_loopbreak(c->b->ev.base);
    else
        evdriver_done(s, 0);
}

/* A header line (n == 0: the end of the head). */
static void
head_line(conn_t *c, const char *line, size_t n)
{
    if (c->status == 0) {
        if (sscanf(line, "HTTP/1.%*d %d", &c->status) != 1 || c->status <= 0)
            die_answer(c, "malformed status line");
    } else if (strncasecmp(line, "content-length:", 15) == 0) {
        c->left = strtoull(line + 15, NULL, 10);
    } else if (strncasecmp(line, "transfer-encoding:", 18) == 0) {
        die_answer(c, "a chunked answer (not expected for one object)");
    } else if (n == 0) {
        if (c->status != c->want && c->body == NULL)
            c->body = evbuffer_new(); /* for the message */
        c->in_body = true;
    }
}

static void
conn_read(struct bufferevent *bev, void *arg)
{
    conn_t *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);

    while (c->what != NULL && !c->in_body) {
        size_t n;
        char *line = evbuffer_readln(in, &n, EVBUFFER_EOL_CRLF_STRICT);
        if (line == NULL)
            return;
        head_line(c, line, n);
        free(line);
    }
    if (c->what == NULL)
        return;
    size_t n = evbuffer_get_length(in);
    n = n < c->left ? n : c->left;
    if (c->body != NULL)
        evbuffer_remove_buffer(in, c->body, n);
    else
        evbuffer_drain(in, n);
    c->left -= n;
    c->len += n;
    if (c->left == 0)
        answered(c);
}

static void
conn_open(conn_t *c, SSL_CTX *tls)
{
    bench_t *b = c->b;
    SSL_CTX *saved = b->k.tls;
    int one = 1;

    b->k.tls = tls; /* kgate_ssl_new's context for this connection */
    SSL *ssl = kgate_ssl_new(&b->k);
    b->k.tls = saved;
    c->bev = bufferevent_openssl_socket_new(b->ev.base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
                                            BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(c->bev, conn_read, NULL, conn_event, c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&b->k.addr, b->k.addr_len) != 0)
        die("cannot connect to %s", b->k.authority);
    /* Nagle plus delayed ACKs would hold back every request behind its TLS record. */
    setsockopt(bufferevent_getfd(c->bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void
conn_send(conn_t *c, SSL_CTX *tls, const char *req, int want, slot_t *slot)
{
    if (c->bev == NULL)
        conn_open(c, tls);
    *c = (conn_t){
        .b = c->b, .bev = c->bev, .what = req, .want = want, .slot = slot, .body = c->body};
    evbuffer_add(bufferevent_get_output(c->bev), req, strlen(req));
}

static char *
request(const bench_t *b, const char *method, const char *path, const char *token, const char *body)
{
    char *auth = token != NULL ? gw_sprintf("Authorization: Bearer %s\r\n", token) : gw_strdup("");
    char *req =
        gw_sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: bench_authn\r\n"
                   "Accept: application/json\r\n%sContent-Type: application/json\r\n"
                   "Content-Length: %zu\r\n\r\n%s",
                   method, path, b->k.authority, auth, body ? strlen(body) : 0, body ? body : "");
    free(auth);
    return req;
}

/* One call on connection 0 with nothing else in flight; dies unless answered `want`.
 * Returns the body as JSON (caller decrefs), or NULL for an empty one. */
static json_t *
call(bench_t *b, SSL_CTX *tls, const char *method, const char *path, const char *token,
     const char *body, int want)
{
    conn_t *c = &b->conns[0];
    char *req = request(b, method, path, token, body);

    c->body = evbuffer_new();
    conn_send(c, tls, req, want, NULL);
    event_base_loop(b->ev.base, EVLOOP_NO_EXIT_ON_EMPTY);
    size_t n = evbuffer_get_length(c->body);
    json_t *doc = n > 0 ? json_loadb((const char *)evbuffer_pullup(c->body, -1), n, 0, NULL) : NULL;
    b->ref_len = c->len;
    evbuffer_free(c->body);
    c->body = NULL;
    conn_close(c);
    free(req);
    return doc;
}

/* ---- the phases ---------------------------------------------------------------------------- */

static void
bench_start(driver_t *d, slot_t *s)
{
    bench_t *b = (bench_t *)d;
    cred_t cred = (cred_t)s->phase->op;

    conn_send(&b->conns[s->id], cred == CRED_CERT ? b->k.tls : b->anon_tls, b->request[cred], 200,
              s);
}

/* Each row opens its connections afresh, with the row's credential. */
static void
bench_run(driver_t *d, phase_t *p)
{
    bench_t *b = (bench_t *)d;

    evdriver_run(d, p);
    for (int i = 0; i < p->conc; i++)
        conn_close(&b->conns[i]);
}

static SSL_CTX *
anon_tls(const char *pki)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    char *ca = gw_sprintf("%s/ca.crt", pki);

    if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1)
        die("cannot load %s", ca);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    free(ca);
    return ctx;
}

/* The namespace, a ServiceAccount, the ConfigMap and a token for the account. */
static char *
seed(bench_t *b)
{
    char pad[PAD_LEN + 1];

    memset(pad, 'x', PAD_LEN);
    pad[PAD_LEN] = '\0';
    char *cm = gw_sprintf("{\"metadata\":{\"name\":\"cm\"},\"data\":{\"pad\":\"%s\"}}", pad);
    json_decref(call(b, b->k.tls, "POST", "/api/v1/namespaces", NULL,
                     "{\"metadata\":{\"name\":\"" NAMESPACE "\"}}", 201));
    json_decref(call(b, b->k.tls, "POST", "/api/v1/namespaces/" NAMESPACE "/serviceaccounts", NULL,
                     "{\"metadata\":{\"name\":\"bench\"}}", 201));
    json_decref(
        call(b, b->k.tls, "POST", "/api/v1/namespaces/" NAMESPACE "/configmaps", NULL, cm, 201));
    free(cm);
    json_t *tr =
        call(b, b->k.tls, "POST", "/api/v1/namespaces/" NAMESPACE "/serviceaccounts/bench/token",
             NULL, "{\"spec\":{}}", 201);
    const char *token = json_string_value(json_object_get(json_object_get(tr, "status"), "token"));
    if (token == NULL)
        die("the TokenRequest answered no token");
    char *out = gw_strdup(token);
    json_decref(tr);
    return out;
}

/* One GET with each credential: all answered 200 with the same length, which every answer in
 * the rows must then have. */
static void
check(bench_t *b, const char *token)
{
    size_t len[N_CREDS];

    json_decref(call(b, b->anon_tls, "GET", OBJECT, NULL, NULL, 200));
    len[CRED_ANON] = b->ref_len;
    json_decref(call(b, b->k.tls, "GET", OBJECT, NULL, NULL, 200));
    len[CRED_CERT] = b->ref_len;
    json_decref(call(b, b->anon_tls, "GET", OBJECT, token, NULL, 200));
    len[CRED_TOKEN] = b->ref_len;
    if (len[CRED_CERT] != len[CRED_ANON] || len[CRED_TOKEN] != len[CRED_ANON])
        die("answers of %zu, %zu and %zu bytes for one object", len[CRED_ANON], len[CRED_CERT],
            len[CRED_TOKEN]);
}

static void
print_header(const bench_t *b, const char *url, const timing_t *t)
{
    static const char *const rate[] = {"anon/s", "cert/s", "token/s"};

    printf("authentication: GET of one ConfigMap (%zu bytes) at %s over HTTPS keep-alive, one "
           "connection per caller; %.1f s per row after %.1f s warm-up\n",
           b->ref_len, url, t->seconds, t->warmup);
    printf("token: a service account JWT (RS256 signature, then the ServiceAccount read from "
           "etcd); ratios to anonymous\n");
    printf("%4s", "conc");
    for (cred_t c = 0; c < N_CREDS; c++) {
        printf("  %9s %7s %7s", rate[c], "p50 ms", "p99 ms");
        if (c != CRED_ANON)
            printf(" %5s", "ratio");
    }
    printf("\n");
}

static void
print_row(int conc, const result_t r[N_CREDS])
{
    printf("%4d", conc);
    for (cred_t c = 0; c < N_CREDS; c++) {
        printf("  %9.0f %7.3f %7.3f", r[c].ops_s, r[c].p50_ms, r[c].p99_ms);
        if (c != CRED_ANON)
            printf(" %5.2f", r[CRED_ANON].ops_s > 0 ? r[c].ops_s / r[CRED_ANON].ops_s : 0.0);
    }
    printf("\n");
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    bench_t *b = gw_calloc(1, sizeof *b);
    timing_t t;
    uint64_t errors = 0;

    if (argc != 3)
        die("usage: bench_authn https://IP:PORT PKI_DIR");
    signal(SIGPIPE, SIG_IGN); /* a connection kgate closes is an error reported, not a kill */
    parse_timing(&t);
    b->ev = (evdriver_t){
        .d = {.name = "kgate", .op_names = cred_names, .start = bench_start, .run = bench_run},
        .base = event_base_new(),
    };
    kgate_addr_init(&b->k, argv[1], argv[2]);
    b->anon_tls = anon_tls(argv[2]);
    for (int i = 0; i < MAX_CONC; i++)
        b->conns[i].b = b;
    char *token = seed(b);
    b->request[CRED_ANON] = request(b, "GET", OBJECT, NULL, NULL);
    b->request[CRED_CERT] = request(b, "GET", OBJECT, NULL, NULL);
    b->request[CRED_TOKEN] = request(b, "GET", OBJECT, token, NULL);
    check(b, token);
    print_header(b, argv[1], &t);
    for (size_t i = 0; i < sizeof concurrencies / sizeof concurrencies[0]; i++) {
        result_t r[N_CREDS];
        for (cred_t c = 0; c < N_CREDS; c++) {
            run_phase(&b->ev.d, (int)c, concurrencies[i], &t, &r[c]);
            errors += r[c].errors;
        }
        print_row(concurrencies[i], r);
    }
    json_decref(call(b, b->k.tls, "DELETE", "/api/v1/namespaces/" NAMESPACE, NULL, NULL, 200));
    for (cred_t c = 0; c < N_CREDS; c++)
        free(b->request[c]);
    free(token);
    SSL_CTX_free(b->anon_tls);
    SSL_CTX_free(b->k.tls);
    event_base_free(b->ev.base);
    free(b);
    return errors == 0 ? 0 : 1;
}
