/*
 * bench_audit: what the audit log costs a request. GETs of one ConfigMap of about 2 KiB, and
 * creates of a ConfigMap of the same size (generateName, so each is new), by the admin through
 * kgate over HTTPS keep-alive (one connection per caller), closed-loop at concurrency 1 and
 * 16, on two kgates sharing one etcd prefix:
 *  - one without auditing (the baseline);
 *  - one with an audit policy logging every request at RequestResponse into a file (three
 *    events for a request: RequestReceived and ResponseComplete, each with the request and
 *    response objects where there are some).
 * The ratio audit/none is what auditing costs; each row gives requests/s, p50 and p99.
 *
 * Usage: bench_audit https://IP:PORT(audit) https://IP:PORT(none) PKI_DIR
 *   PKI_DIR holds ca.crt (which signed both kgates' serving certificates) and
 *   admin.crt/admin.key (a system:masters client certificate). The objects go into namespace
 *   bench-audit, which must not exist yet; it is deleted at the end. BENCH_SECONDS as for every
 *   benchmark (bench.h). Any failed or unexpected answer ends the run with exit status 1.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <openssl/ssl.h>

#include "bench.h"
#include "gw_alloc.h"

#define NAMESPACE "bench-audit"
#define NS_PATH "/api/v1/namespaces/" NAMESPACE
#define OBJECT NS_PATH "/configmaps/cm"
#define PAD_LEN 1800 /* data bytes that make the GET's answer about 2 KiB */

typedef enum { MODE_NONE, MODE_AUDIT, N_MODES } kgate_mode_t;
typedef enum { OP_GET, OP_CREATE, N_OPS } op_kind_t;

/* Phase op = kind * N_MODES + mode. */
static const char *const op_names[] = {"get-none", "get-audit", "create-none", "create-audit"};
static const int concurrencies[] = {1, 16};

typedef struct {
    evdriver_t ev;
    kgate_addr_t k[N_MODES]; /* k[].tls presents the admin certificate */
    char *request[N_OPS][N_MODES];
    size_t ref_len[N_OPS];
    https_conn_t conns[MAX_CONC];
} bench_t;

static const int want_status[N_OPS] = {[OP_GET] = 200, [OP_CREATE] = 201};

/* One call to kgate `m` on connection 0 with nothing else in flight; dies unless answered
 * `want`. Returns the answer's length. */
static size_t
call(bench_t *b, kgate_mode_t m, const char *method, const char *path, const char *body, int want)
{
    return https_call_admin(&b->conns[0], &b->k[m], method, path, body, want);
}

static void
bench_start(driver_t *d, slot_t *s)
{
    bench_t *b = (bench_t *)d;
    int op = s->phase->op;
    op_kind_t kind = (op_kind_t)(op / N_MODES);
    kgate_mode_t m = (kgate_mode_t)(op % N_MODES);
    https_conn_t *c = &b->conns[s->id];

    c->k = &b->k[m];
    c->tls = NULL;
    https_send(c, b->request[kind][m], want_status[kind], b->ref_len[kind], s);
}

/* Each row opens its connections afresh, to the row's kgate. */
static void
bench_run(driver_t *d, phase_t *p)
{
    evdriver_run(d, p);
    https_close_all(((bench_t *)d)->conns, p->conc);
}

/* The namespace and the ConfigMap the GETs read; the requests of every row; the answers'
 * lengths, the same through both kgates. */
static void
prepare(bench_t *b)
{
    char pad[PAD_LEN + 1];
    memset(pad, 'x', PAD_LEN);
    pad[PAD_LEN] = '\0';
    char *cm = gw_sprintf("{\"metadata\":{\"name\":\"cm\"},\"data\":{\"pad\":\"%s\"}}", pad);
    char *gen =
        gw_sprintf("{\"metadata\":{\"generateName\":\"c-\"},\"data\":{\"pad\":\"%s\"}}", pad);
    call(b, MODE_NONE, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" NAMESPACE "\"}}",
         201);
    call(b, MODE_NONE, "POST", NS_PATH "/configmaps", cm, 201);
    for (kgate_mode_t m = 0; m < N_MODES; m++) {
        b->request[OP_GET][m] =
            https_request(&(https_req_t){.k = &b->k[m], .method = "GET", .path = OBJECT});
        b->request[OP_CREATE][m] = https_request(&(https_req_t){
            .k = &b->k[m], .method = "POST", .path = NS_PATH "/configmaps", .body = gen});
    }
    b->ref_len[OP_GET] = call(b, MODE_NONE, "GET", OBJECT, NULL, 200);
    if (call(b, MODE_AUDIT, "GET", OBJECT, NULL, 200) != b->ref_len[OP_GET])
        die("the two kgates answer one GET with different lengths");
    b->ref_len[OP_CREATE] = call(b, MODE_NONE, "POST", NS_PATH "/configmaps", gen, 201);
    free(cm);
    free(gen);
}

static void
print_header(const bench_t *b, const timing_t *t)
{
    printf("audit log: GET of one ConfigMap (%zu bytes) and create of one (%zu bytes answered) "
           "by the admin over HTTPS keep-alive, one connection per caller; %.1f s per row after "
           "%.1f s warm-up\n",
           b->ref_len[OP_GET], b->ref_len[OP_CREATE], t->seconds, t->warmup);
    printf("audit: every request at RequestResponse into a file; none: no --audit-policy-file\n");
    printf("%-6s %4s  %9s %7s %7s  %9s %7s %7s %5s\n", "op", "conc", "none/s", "p50 ms", "p99 ms",
           "audit/s", "p50 ms", "p99 ms", "ratio");
}

static void
print_row(op_kind_t kind, int conc, const result_t r[N_MODES])
{
    printf("%-6s %4d", kind == OP_GET ? "get" : "create", conc);
    for (kgate_mode_t m = 0; m < N_MODES; m++)
        printf("  %9.0f %7.3f %7.3f", r[m].ops_s, r[m].p50_ms, r[m].p99_ms);
    printf(" %5.2f\n", r[MODE_NONE].ops_s > 0 ? r[MODE_AUDIT].ops_s / r[MODE_NONE].ops_s : 0.0);
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    bench_t *b = gw_calloc(1, sizeof *b);
    timing_t t;
    uint64_t errors = 0;

    if (argc != 4)
        die("usage: bench_audit https://IP:PORT(audit) https://IP:PORT(none) PKI_DIR");
    signal(SIGPIPE, SIG_IGN); /* a connection kgate closes is an error reported, not a kill */
    parse_timing(&t);
    b->ev = (evdriver_t){
        .d = {.name = "kgate", .op_names = op_names, .start = bench_start, .run = bench_run},
        .base = event_base_new(),
    };
    kgate_addr_init(&b->k[MODE_AUDIT], argv[1], argv[3]);
    kgate_addr_init(&b->k[MODE_NONE], argv[2], argv[3]);
    for (int i = 0; i < MAX_CONC; i++)
        https_conn_init(&b->conns[i], b->ev.base, &b->k[MODE_NONE]);
    prepare(b);
    print_header(b, &t);
    for (op_kind_t kind = 0; kind < N_OPS; kind++) {
        for (size_t i = 0; i < sizeof concurrencies / sizeof concurrencies[0]; i++) {
            result_t r[N_MODES];
            for (kgate_mode_t m = 0; m < N_MODES; m++) {
                run_phase(&b->ev.d, (int)(kind * N_MODES + m), concurrencies[i], &t, &r[m]);
                errors += r[m].errors;
            }
            print_row(kind, concurrencies[i], r);
        }
    }
    call(b, MODE_NONE, "DELETE", NS_PATH, NULL, 200);
    for (kgate_mode_t m = 0; m < N_MODES; m++) {
        for (op_kind_t kind = 0; kind < N_OPS; kind++)
            free(b->request[kind][m]);
        SSL_CTX_free(b->k[m].tls);
    }
    event_base_free(b->ev.base);
    free(b);
    return errors == 0 ? 0 : 1;
}
