/*
 * bench_scaleout: what more kgate instances give. GETs of one ConfigMap of about 2 KiB and
 * creates of one of the same size (generateName, so each is new) by the admin over HTTPS
 * keep-alive, one connection per caller, closed-loop, through haproxy in TCP mode (TLS end to
 * end, connections spread round-robin) in front of 1, 2 and 3 instances that share one etcd.
 * Each row gives requests/s, p50 and p99, and each as a ratio to the 1-instance row of the
 * same run. Every process (etcd, haproxy, the instances, this client) shares the machine's
 * CPUs, which the header names with the load average it starts under: on a 2-CPU machine the
 * curve shows the cost of spreading, not the gain of more machines.
 *
 * Usage: bench_scaleout PKI_DIR https://IP:PORT(1 instance) https://IP:PORT(2) https://IP:PORT(3)
 *   PKI_DIR holds ca.crt (which signed the instances' serving certificate, which names the
 *   balancer's IP too) and admin.crt/admin.key (a system:masters client certificate). The
 *   objects go into namespace bench-scaleout, which must not exist yet; it is deleted at the
 *   end. BENCH_SECONDS as for every benchmark (bench.h). Any failed or unexpected answer ends
 *   the run with exit status 1.
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <openssl/ssl.h>

#include "bench.h"
#include "gw_alloc.h"

#define NAMESPACE "bench-scaleout"
#define NS_PATH "/api/v1/namespaces/" NAMESPACE
#define OBJECT NS_PATH "/configmaps/cm"
#define N_SIZES 3 /* 1, 2 and 3 instances */
#define CONC 48   /* callers: 16 connections per instance at 3 */

typedef enum { OP_GET, OP_CREATE, N_OPS } op_kind_t;

/* Phase op = kind * N_SIZES + (instances - 1). */
static const char *const op_names[] = {"get-1",    "get-2",    "get-3",
                                       "create-1", "create-2", "create-3"};
static const int want_status[N_OPS] = {[OP_GET] = 200, [OP_CREATE] = 201};

typedef struct {
    evdriver_t ev;
    kgate_addr_t lb[N_SIZES]; /* lb[].tls presents the admin certificate */
    char *request[N_OPS][N_SIZES];
    size_t ref_len[N_OPS];
    https_conn_t conns[MAX_CONC];
} bench_t;

/* One call through balancer `n` on connection 0 with nothing else in flight; dies unless
 * answered `want`. Returns the answer's length. */
static size_t
call(bench_t *b, int n, const char *method, const char *path, const char *body, int want)
{
    return https_call_admin(&b->conns[0], &b->lb[n], method, path, body, want);
}

static void
bench_start(driver_t *d, slot_t *s)
{
    bench_t *b = (bench_t *)d;
    op_kind_t kind = (op_kind_t)(s->phase->op / N_SIZES);
    int n = s->phase->op % N_SIZES;
    https_conn_t *c = &b->conns[s->id];

    c->k = &b->lb[n];
    c->tls = NULL;
    https_send(c, b->request[kind][n], want_status[kind], b->ref_len[kind], s);
}

/* Each row opens its connections afresh, so that haproxy spreads them over the row's
 * instances. */
static void
bench_run(driver_t *d, phase_t *p)
{
    evdriver_run(d, p);
    https_close_all(((bench_t *)d)->conns, p->conc);
}

/* The namespace and the ConfigMap the GETs read; the requests of every row; the answers'
 * lengths, the same through every balancer. */
static void
prepare(bench_t *b)
{
    char *cm = bench_configmap_json("cm", 0);
    char *gen = bench_configmap_json("x", 1);
    char *name = strstr(gen, "\"name\":\"x\"");

    /* The creates' body: generateName instead of the name, so that each creates a new one. */
    char *body = gw_sprintf("%.*s\"generateName\":\"c-\"%s", (int)(name - gen), gen,
                            name + strlen("\"name\":\"x\""));
    call(b, 0, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" NAMESPACE "\"}}", 201);
    call(b, 0, "POST", NS_PATH "/configmaps", cm, 201);
    for (int n = 0; n < N_SIZES; n++) {
        b->request[OP_GET][n] =
            https_request(&(https_req_t){.k = &b->lb[n], .method = "GET", .path = OBJECT});
        b->request[OP_CREATE][n] = https_request(&(https_req_t){
            .k = &b->lb[n], .method = "POST", .path = NS_PATH "/configmaps", .body = body});
    }
    b->ref_len[OP_GET] = call(b, 0, "GET", OBJECT, NULL, 200);
    for (int n = 1; n < N_SIZES; n++) {
        if (call(b, n, "GET", OBJECT, NULL, 200) != b->ref_len[OP_GET])
            die("the balancers answer one GET with different lengths");
    }
    b->ref_len[OP_CREATE] = call(b, 0, "POST", NS_PATH "/configmaps", body, 201);
    free(cm);
    free(gen);
    free(body);
}

static void
print_header(const bench_t *b, const timing_t *t)
{
    printf("scale-out: 1, 2 and 3 kgate instances on one etcd behind haproxy (TCP mode, "
           "round-robin per connection); GET of one ConfigMap (%zu bytes) and create of one "
           "(%zu bytes answered) by the admin over HTTPS keep-alive, %d callers with a "
           "connection each; %.1f s per row after %.1f s warm-up\n",
           b->ref_len[OP_GET], b->ref_len[OP_CREATE], CONC, t->seconds, t->warmup);
    double load[1] = {-1};
    getloadavg(load, 1);
    printf("this machine has %ld CPUs, shared by etcd, haproxy, every instance and this client "
           "(load average %.1f at the start): ratios below 1 are what spreading costs when no "
           "CPU is added\n",
           sysconf(_SC_NPROCESSORS_ONLN), load[0]);
    printf("%-6s %4s  %9s %7s %7s  %7s %7s %7s\n", "op", "inst", "req/s", "p50 ms", "p99 ms",
           "x req/s", "x p50", "x p99");
}

static double
ratio(double v, double base)
{
    return base > 0 ? v / base : 0.0;
}

static void
print_row(op_kind_t kind, int n, const result_t *r, const result_t *one)
{
    printf("%-6s %4d  %9.0f %7.3f %7.3f  %7.2f %7.2f %7.2f\n", kind == OP_GET ? "get" : "create",
           n + 1, r->ops_s, r->p50_ms, r->p99_ms, ratio(r->ops_s, one->ops_s),
           ratio(r->p50_ms, one->p50_ms), ratio(r->p99_ms, one->p99_ms));
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    bench_t *b = gw_calloc(1, sizeof *b);
    timing_t t;
    uint64_t errors = 0;

    if (argc != 2 + N_SIZES)
        die("usage: bench_scaleout PKI_DIR https://IP:PORT(1 instance) https://IP:PORT(2) "
            "https://IP:PORT(3)");
    signal(SIGPIPE, SIG_IGN); /* a connection closed is an error reported, not a kill */
    parse_timing(&t);
    b->ev = (evdriver_t){
        .d = {.name = "haproxy", .op_names = op_names, .start = bench_start, .run = bench_run},
        .base = event_base_new(),
    };
    for (int n = 0; n < N_SIZES; n++)
        kgate_addr_init(&b->lb[n], argv[2 + n], argv[1]);
    for (int i = 0; i < MAX_CONC; i++)
        https_conn_init(&b->conns[i], b->ev.base, &b->lb[0]);
    prepare(b);
    print_header(b, &t);
    for (op_kind_t kind = 0; kind < N_OPS; kind++) {
        result_t r[N_SIZES];
        for (int n = 0; n < N_SIZES; n++) {
            run_phase(&b->ev.d, (int)kind * N_SIZES + n, CONC, &t, &r[n]);
            errors += r[n].errors;
            print_row(kind, n, &r[n], &r[0]);
        }
    }
    call(b, 0, "DELETE", NS_PATH, NULL, 200);
    for (int n = 0; n < N_SIZES; n++) {
        for (op_kind_t kind = 0; kind < N_OPS; kind++)
            free(b->request[kind][n]);
        SSL_CTX_free(b->lb[n].tls);
    }
    event_base_free(b->ev.base);
    free(b);
    return errors == 0 ? 0 : 1;
}
