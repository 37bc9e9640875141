/*
 * bench_rbac: what RBAC costs a request. GETs of one ConfigMap of about 2 KiB by a token-file
 * user through kgate over HTTPS keep-alive (one connection per caller), closed-loop at
 * concurrency 1 and 16, on two kgates sharing one etcd prefix:
 *  - one with --authorization-mode=AlwaysAllow (the baseline);
 *  - one with --authorization-mode=RBAC, with 1,000 Roles and 1,000 RoleBindings in the
 *    ConfigMap's namespace. Only the binding created last grants the user get on configmaps,
 *    so each decision looks through every binding of the namespace before it finds it.
 * Both authenticate the same bearer token, so the ratio RBAC/AlwaysAllow is what authorizing
 * costs. Each row gives requests/s, p50 and p99.
 *
 * Usage: bench_rbac https://IP:PORT(RBAC) https://IP:PORT(AlwaysAllow) PKI_DIR TOKEN USER
 *   PKI_DIR holds ca.crt (which signed both kgates' serving certificates) and
 *   admin.crt/admin.key (a system:masters client certificate). Both kgates take TOKEN for USER
 *   (--token-auth-file). The objects go into namespace bench-rbac, which must not exist yet;
 *   it is deleted at the end. BENCH_SECONDS as for every benchmark (bench.h). Any failed or
 *   unexpected answer ends the run with exit status 1.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

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

#define NAMESPACE "bench-rbac"
#define NS_PATH "/api/v1/namespaces/" NAMESPACE
#define OBJECT NS_PATH "/configmaps/cm"
#define RBAC_PATH "/apis/rbac.authorization.k8s.io/v1/namespaces/" NAMESPACE
#define N_ROLES 1000
#define PAD_LEN 1800 /* data bytes that make the GET's answer about 2 KiB */
#define LEN_SLACK 4  /* the answer's resourceVersion may gain a digit */
#define CACHE_WAIT_S 60

typedef enum { MODE_ALLOW, MODE_RBAC, N_MODES } kgate_mode_t;

static const char *const mode_names[] = {[MODE_ALLOW] = "AlwaysAllow", [MODE_RBAC] = "RBAC"};
static const int concurrencies[] = {1, 16};

typedef struct bench bench_t;

/* One keep-alive connection with one request in flight. */
typedef struct {
    bench_t *b;
    struct bufferevent *bev;
    const char *what; /* the request in flight; NULL when idle */
    int want;         /* the status expected; 0: any (set-up polls) */
    slot_t *slot;     /* NULL for a set-up call */
    int status;
    bool in_body;
    size_t left, len;
    struct evbuffer *body; /* set-up calls keep the answer */
} conn_t;

struct bench {
    evdriver_t ev;
    kgate_addr_t k[N_MODES]; /* k[].tls presents the admin certificate */
    SSL_CTX *user_tls;       /* trusts the CA, presents nothing: the user sends a token */
    char *request[N_MODES];
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

    if (c->want != 0 && c->status != c->want)
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
        if (c->want != 0 && c->status != c->want && c->body == NULL)
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

/* Connect to k, presenting what tls presents (k->tls: the admin certificate). */
static void
conn_open(conn_t *c, kgate_addr_t *k, SSL_CTX *tls)
{
    bench_t *b = c->b;
    SSL_CTX *saved = k->tls;
    int one = 1;

    k->tls = tls; /* kgate_ssl_new's context for this connection */
    SSL *ssl = kgate_ssl_new(k);
    k->tls = saved;
    c->bev = bufferevent_openssl_socket_new(b->ev.base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
                                            BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(c->bev, conn_read, NULL, conn_event, c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&k->addr, k->addr_len) != 0)
        die("cannot connect to %s", k->authority);
    /* Nagle plus delayed ACKs would hold back every request behind its TLS record. */
    setsockopt(bufferevent_getfd(c->bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void
conn_send(conn_t *c, kgate_addr_t *k, SSL_CTX *tls, const char *req, int want, slot_t *slot)
{
    if (c->bev == NULL)
        conn_open(c, k, tls);
    *c = (conn_t){
        .b = c->b, .bev = c->bev, .what = req, .want = want, .slot = slot, .body = c->body};
    evbuffer_add(bufferevent_get_output(c->bev), req, strlen(req));
}

static char *
request(const kgate_addr_t *k, const char *method, const char *path, const char *token,
        const char *body)
{
    char *auth = token != NULL ? gw_sprintf("Authorization: Bearer %s\r\n", token) : gw_strdup("");
    char *req =
        gw_sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: bench_rbac\r\n"
                   "Accept: application/json\r\n%sContent-Type: application/json\r\n"
                   "Content-Length: %zu\r\n\r\n%s",
                   method, path, k->authority, auth, body ? strlen(body) : 0, body ? body : "");
    free(auth);
    return req;
}

/* One call to kgate `m` on connection 0 with nothing else in flight, as the admin (token
 * NULL) or with a token; dies unless answered `want` (0: any). Returns the status. */
static int
call(bench_t *b, kgate_mode_t m, const char *method, const char *path, const char *token,
     const char *body, int want)
{
    conn_t *c = &b->conns[0];
    char *req = request(&b->k[m], method, path, token, body);

    c->body = evbuffer_new();
    conn_send(c, &b->k[m], token != NULL ? b->user_tls : b->k[m].tls, req, want, NULL);
    event_base_loop(b->ev.base, EVLOOP_NO_EXIT_ON_EMPTY);
    int status = c->status;
    b->ref_len = c->len;
    evbuffer_free(c->body);
    c->body = NULL;
    conn_close(c);
    free(req);
    return status;
}

/* ---- the phases ---------------------------------------------------------------------------- */

static void
bench_start(driver_t *d, slot_t *s)
{
    bench_t *b = (bench_t *)d;
    kgate_mode_t m = (kgate_mode_t)s->phase->op;

    conn_send(&b->conns[s->id], &b->k[m], b->user_tls, b->request[m], 200, s);
}

/* Each row opens its connections afresh, to the row's kgate. */
static void
bench_run(driver_t *d, phase_t *p)
{
    bench_t *b = (bench_t *)d;

    evdriver_run(d, p);
    for (int i = 0; i < p->conc; i++)
        conn_close(&b->conns[i]);
}

static SSL_CTX *
user_tls(const char *pki)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    char *ca = gw_sprintf("%s/ca.crt", pki);

    if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1)
        die("cannot load %s", ca);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    free(ca);
    return ctx;
}

/* Role i (get on a resource of its own) bound to a user of its own; the last one instead
 * grants get on configmaps and is bound to `user`. */
static void
seed_role(bench_t *b, int i, const char *user)
{
    bool last = i == N_ROLES - 1;
    char *resource = last ? gw_strdup("configmaps") : gw_sprintf("things-%d", i);
    char *subject = last ? gw_strdup(user) : gw_sprintf("user-%d", i);
    char *role = gw_sprintf("{\"metadata\":{\"name\":\"role-%d\"},\"rules\":[{\"apiGroups\":[\"\"],"
                            "\"resources\":[\"%s\"],\"verbs\":[\"get\"]}]}",
                            i, resource);
    char *binding = gw_sprintf(
        "{\"metadata\":{\"name\":\"binding-%d\"},\"roleRef\":{\"apiGroup\":"
        "\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"role-%d\"},\"subjects\":"
        "[{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"User\",\"name\":\"%s\"}]}",
        i, i, subject);
    call(b, MODE_RBAC, "POST", RBAC_PATH "/roles", NULL, role, 201);
    call(b, MODE_RBAC, "POST", RBAC_PATH "/rolebindings", NULL, binding, 201);
    free(resource);
    free(subject);
    free(role);
    free(binding);
}

/* The namespace, the ConfigMap, the Roles and RoleBindings; then wait until the RBAC kgate's
 * cache holds the last binding (it follows etcd's order, so it holds them all). */
static void
seed(bench_t *b, const char *token, const char *user)
{
    char pad[PAD_LEN + 1];

    memset(pad, 'x', PAD_LEN);
    pad[PAD_LEN] = '\0';
    char *cm = gw_sprintf("{\"metadata\":{\"name\":\"cm\"},\"data\":{\"pad\":\"%s\"}}", pad);
    call(b, MODE_RBAC, "POST", "/api/v1/namespaces", NULL,
         "{\"metadata\":{\"name\":\"" NAMESPACE "\"}}", 201);
    call(b, MODE_RBAC, "POST", NS_PATH "/configmaps", NULL, cm, 201);
    free(cm);
    if (call(b, MODE_RBAC, "GET", OBJECT, token, NULL, 0) != 403)
        die("%s may read the ConfigMap before any binding grants it", user);
    for (int i = 0; i < N_ROLES; i++)
        seed_role(b, i, user);
    for (int i = 0; i < CACHE_WAIT_S * 10; i++) {
        if (call(b, MODE_RBAC, "GET", OBJECT, token, NULL, 0) == 200)
            return;
        usleep(100 * 1000);
    }
    die("the RBAC kgate did not let %s read the ConfigMap within %d s", user, CACHE_WAIT_S);
}

/* One GET through each kgate: both answered 200 with the same length, which every answer in
 * the rows must then have. */
static void
check(bench_t *b, const char *token)
{
    call(b, MODE_ALLOW, "GET", OBJECT, token, NULL, 200);
    size_t allow_len = b->ref_len;
    call(b, MODE_RBAC, "GET", OBJECT, token, NULL, 200);
    if (b->ref_len != allow_len)
        die("answers of %zu and %zu bytes for one object", allow_len, b->ref_len);
}

static void
print_header(const bench_t *b, const timing_t *t)
{
    printf("authorization: GET of one ConfigMap (%zu bytes) by a token user over HTTPS "
           "keep-alive, one connection per caller; %.1f s per row after %.1f s warm-up\n",
           b->ref_len, t->seconds, t->warmup);
    printf("RBAC: %d Roles and %d RoleBindings in the namespace, the granting binding created "
           "last\n",
           N_ROLES, N_ROLES);
    printf("%4s  %9s %7s %7s  %9s %7s %7s %5s\n", "conc", "allow/s", "p50 ms", "p99 ms", "rbac/s",
           "p50 ms", "p99 ms", "ratio");
}

static void
print_row(int conc, const result_t r[N_MODES])
{
    printf("%4d", conc);
    for (kgate_mode_t m = 0; m < N_MODES; m++)
        printf("  %9.0f %7.3f %7.3f", r[m].ops_s, r[m].p50_ms, r[m].p99_ms);
    printf(" %5.2f\n",
           r[MODE_ALLOW].ops_s > 0 ? r[MODE_RBAC].ops_s / r[MODE_ALLOW].ops_s : 0.0);
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    bench_t *b = gw_calloc(1, sizeof *b);
    timing_t t;
    uint64_t errors = 0;

    if (argc != 6)
        die("usage: bench_rbac https://IP:PORT(RBAC) https://IP:PORT(AlwaysAllow) PKI_DIR TOKEN "
            "USER");
    signal(SIGPIPE, SIG_IGN); /* a connection kgate closes is an error reported, not a kill */
    parse_timing(&t);
    b->ev = (evdriver_t){
        .d = {.name = "kgate", .op_names = mode_names, .start = bench_start, .run = bench_run},
        .base = event_base_new(),
    };
    kgate_addr_init(&b->k[MODE_RBAC], argv[1], argv[3]);
    kgate_addr_init(&b->k[MODE_ALLOW], argv[2], argv[3]);
    b->user_tls = user_tls(argv[3]);
    for (int i = 0; i < MAX_CONC; i++)
        b->conns[i].b = b;
    seed(b, argv[4], argv[5]);
    for (kgate_mode_t m = 0; m < N_MODES; m++)
        b->request[m] = request(&b->k[m], "GET", OBJECT, argv[4], NULL);
    check(b, argv[4]);
    print_header(b, &t);
    for (size_t i = 0; i < sizeof concurrencies / sizeof concurrencies[0]; i++) {
        result_t r[N_MODES];
        for (kgate_mode_t m = 0; m < N_MODES; m++) {
            run_phase(&b->ev.d, (int)m, concurrencies[i], &t, &r[m]);
            errors += r[m].errors;
        }
        print_row(concurrencies[i], r);
    }
    call(b, MODE_RBAC, "DELETE", NS_PATH, NULL, NULL, 200);
    for (kgate_mode_t m = 0; m < N_MODES; m++) {
        free(b->request[m]);
        SSL_CTX_free(b->k[m].tls);
    }
    SSL_CTX_free(b->user_tls);
    event_base_free(b->ev.base);
    free(b);
    return errors == 0 ? 0 : 1;
}
