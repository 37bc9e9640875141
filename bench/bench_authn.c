/*
 * bench_authn: what authentication costs a request. GETs of one ConfigMap of about 2 KiB
 * through kgate over HTTPS keep-alive (one connection per caller), closed-loop at concurrency
 * 1 and 16, with three credentials in turn at the same concurrency:
 *  - anonymous: no client certificate, no token (the baseline);
 *  - a client certificate (the admin's: verified in the TLS handshake, read per request);
 *  - a service account token from a TokenRequest: its signature checked and the
 *    ServiceAccount read from etcd (kube's bound-token validator) once every 10 s, in between
 *    answered from the cache of accepted tokens, as kube-apiserver's token cache does.
 * Each row gives requests/s, p50 and p99 and the ratio to the anonymous row.
 *
 * Usage: bench_authn https://IP:PORT PKI_DIR
 *   PKI_DIR holds ca.crt (which signed kgate's serving certificate) and admin.crt/admin.key
 *   (a client certificate kgate accepts). kgate must run with a service account issuer and
 *   signing key, anonymous requests allowed and an authorizer that lets the three users read
 *   (AlwaysAllow turns anonymous requests off: bench/run.sh gives an ABAC policy that lets
 *   everyone in). The objects go into namespace bench-authn, which must not exist
 *   yet; it is deleted at the end. BENCH_SECONDS as for every benchmark (bench.h). Any failed
 *   or unexpected answer ends the run with exit status 1.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <jansson.h>
#include <openssl/ssl.h>

#include "bench.h"
#include "gw_alloc.h"

#define NAMESPACE "bench-authn"
#define OBJECT "/api/v1/namespaces/" NAMESPACE "/configmaps/cm"
#define PAD_LEN 1800 /* data bytes that make the GET's answer about 2 KiB */

typedef enum { CRED_ANON, CRED_CERT, CRED_TOKEN, N_CREDS } cred_t;

static const char *const cred_names[] = {
    [CRED_ANON] = "anonymous", [CRED_CERT] = "certificate", [CRED_TOKEN] = "token"};
static const int concurrencies[] = {1, 16};

typedef struct {
    evdriver_t ev;
    kgate_addr_t k;    /* k.tls presents the admin certificate */
    SSL_CTX *anon_tls; /* trusts the CA, presents nothing */
    char *request[N_CREDS];
    size_t ref_len;
    https_conn_t conns[MAX_CONC];
} bench_t;

static char *
request(const bench_t *b, const char *method, const char *path, const char *token, const char *body)
{
    return https_request(
        &(https_req_t){.k = &b->k, .method = method, .path = path, .token = token, .body = body});
}

/* One call on connection 0 with nothing else in flight, presenting what tls presents; dies
 * unless answered `want`. Returns the body as JSON (caller decrefs), or NULL for an empty
 * one. */
static json_t *
call(bench_t *b, SSL_CTX *tls, const char *method, const char *path, const char *token,
     const char *body, int want)
{
    https_conn_t *c = &b->conns[0];
    char *req = request(b, method, path, token, body);
    struct evbuffer *out;

    c->tls = tls;
    https_call(c, req, want, &out);
    size_t n = evbuffer_get_length(out);
    json_t *doc = n > 0 ? json_loadb((const char *)evbuffer_pullup(out, -1), n, 0, NULL) : NULL;
    b->ref_len = c->len;
    evbuffer_free(out);
    https_close(c);
    free(req);
    return doc;
}

/* ---- the phases ---------------------------------------------------------------------------- */

static void
bench_start(driver_t *d, slot_t *s)
{
    bench_t *b = (bench_t *)d;
    cred_t cred = (cred_t)s->phase->op;
    https_conn_t *c = &b->conns[s->id];

    c->tls = cred == CRED_CERT ? b->k.tls : b->anon_tls; /* the row's: opened afresh */
    https_send(c, b->request[cred], 200, b->ref_len, s);
}

/* Each row opens its connections afresh, with the row's credential. */
static void
bench_run(driver_t *d, phase_t *p)
{
    evdriver_run(d, p);
    https_close_all(((bench_t *)d)->conns, p->conc);
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
    printf("token: a service account JWT (RS256 signature and the ServiceAccount read from etcd "
           "once per 10 s, else kube's token cache); ratios to anonymous\n");
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
    b->anon_tls = tls_client_anon(argv[2]);
    for (int i = 0; i < MAX_CONC; i++)
        https_conn_init(&b->conns[i], b->ev.base, &b->k);
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
