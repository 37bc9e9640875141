/*
 * bench_rbac: what RBAC costs a request. GETs of one ConfigMap of about 2 KiB by a token-file
 * user through kgate over HTTPS keep-alive (one connection per caller), closed-loop at
 * concurrency 1 and 16, on two kgates sharing one etcd prefix:
 *  - one with --authorization-mode=AlwaysAllow (the baseline);
 *  - one with --authorization-mode=RBAC, with 1,000 Roles and 1,000 RoleBindings in the
 *    ConfigMap's namespace. Only the binding created last grants the user get on configmaps;
 *    the others name users of their own, which a decision should not have to look at (RBAC
 *    snapshots index bindings by subject).
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
#include <unistd.h>

#include <event2/event.h>
#include <openssl/ssl.h>

#include "bench.h"
#include "gw_alloc.h"

#define NAMESPACE "bench-rbac"
#define NS_PATH "/api/v1/namespaces/" NAMESPACE
#define OBJECT NS_PATH "/configmaps/cm"
#define RBAC_PATH "/apis/rbac.authorization.k8s.io/v1/namespaces/" NAMESPACE
#define N_ROLES 1000
#define PAD_LEN 1800 /* data bytes that make the GET's answer about 2 KiB */
#define CACHE_WAIT_S 60

typedef enum { MODE_ALLOW, MODE_RBAC, N_MODES } kgate_mode_t;

static const char *const mode_names[] = {[MODE_ALLOW] = "AlwaysAllow", [MODE_RBAC] = "RBAC"};
static const int concurrencies[] = {1, 16};

typedef struct {
    evdriver_t ev;
    kgate_addr_t k[N_MODES]; /* k[].tls presents the admin certificate */
    SSL_CTX *user_tls;       /* trusts the CA, presents nothing: the user sends a token */
    char *request[N_MODES];
    size_t ref_len;
    https_conn_t conns[MAX_CONC];
} bench_t;

static char *
request(const kgate_addr_t *k, const char *method, const char *path, const char *token,
        const char *body)
{
    return https_request(
        &(https_req_t){.k = k, .method = method, .path = path, .token = token, .body = body});
}

/* One call to kgate `m` on connection 0 with nothing else in flight, as the admin (token
 * NULL) or with a token; dies unless answered `want` (HTTPS_ANY_STATUS: any). Returns the
 * status. */
static int
call(bench_t *b, kgate_mode_t m, const char *method, const char *path, const char *token,
     const char *body, int want)
{
    https_conn_t *c = &b->conns[0];
    char *req = request(&b->k[m], method, path, token, body);

    c->k = &b->k[m];
    c->tls = token != NULL ? b->user_tls : NULL;
    int status = https_call(c, req, want, NULL);
    b->ref_len = c->len;
    https_close(c);
    free(req);
    return status;
}

/* ---- the phases ---------------------------------------------------------------------------- */

static void
bench_start(driver_t *d, slot_t *s)
{
    bench_t *b = (bench_t *)d;
    kgate_mode_t m = (kgate_mode_t)s->phase->op;
    https_conn_t *c = &b->conns[s->id];

    c->k = &b->k[m]; /* the row's kgate: its connections are opened afresh */
    c->tls = b->user_tls;
    https_send(c, b->request[m], 200, b->ref_len, s);
}

/* Each row opens its connections afresh, to the row's kgate. */
static void
bench_run(driver_t *d, phase_t *p)
{
    evdriver_run(d, p);
    https_close_all(((bench_t *)d)->conns, p->conc);
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
    if (call(b, MODE_RBAC, "GET", OBJECT, token, NULL, HTTPS_ANY_STATUS) != 403)
        die("%s may read the ConfigMap before any binding grants it", user);
    for (int i = 0; i < N_ROLES; i++)
        seed_role(b, i, user);
    for (int i = 0; i < CACHE_WAIT_S * 10; i++) {
        if (call(b, MODE_RBAC, "GET", OBJECT, token, NULL, HTTPS_ANY_STATUS) == 200)
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
    printf(" %5.2f\n", r[MODE_ALLOW].ops_s > 0 ? r[MODE_RBAC].ops_s / r[MODE_ALLOW].ops_s : 0.0);
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
    b->user_tls = tls_client_anon(argv[3]);
    for (int i = 0; i < MAX_CONC; i++)
        https_conn_init(&b->conns[i], b->ev.base, &b->k[MODE_RBAC]);
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
