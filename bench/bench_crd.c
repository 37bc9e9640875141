/*
 * bench_crd: what serving a custom resource costs beside a built-in one of the same size.
 *
 * A CRD (bench.example.com, kind BenchWidget) whose spec carries 5 x-kubernetes-validations
 * rules (bounds, a prefix, a map's size and its values' lengths, an optional field): objects of
 * about 2 KiB, beside ConfigMaps of the same size, through the same kgate over HTTPS with
 * keep-alive (one connection per caller), closed-loop:
 *  - GET of one object, at concurrency 1 and 16;
 *  - LIST of 500 of them in one namespace, at concurrency 1 and 16;
 *  - create (a name of its own each), at concurrency 1 and 16.
 * Each row gives the custom resource's and the ConfigMap's requests/s, p50 and p99, and the
 * custom/ConfigMap ratios of p50 and p99. A custom object violating a rule is refused (422)
 * where kgate enforces the rules; where it does not yet, the row is still measured and says so.
 *
 * Then how long a new CRD takes to be usable: a CRD created through instance A, the time until
 * A answers it with Established=True, and until the first create of one of its objects through
 * instance B succeeds (both polled with nothing else in flight). Over ROUNDS CRDs of their own;
 * the median and the worst round.
 *
 * Usage: bench_crd https://IP:PORT https://IP:PORT PKI_DIR
 *   Two kgate instances on one etcd prefix (A, then B). PKI_DIR holds ca.crt (which signed
 *   kgate's serving certificate) and admin.crt/admin.key (a system:masters client
 *   certificate). The objects go into namespace bench-crd, which must not exist yet; it and the
 *   CRDs are deleted at the end. BENCH_SECONDS as for every benchmark (bench.h). Any failed or
 *   unexpected answer ends the run with exit status 1.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <jansson.h>
#include <openssl/ssl.h>

#include "bench.h"
#include "gw_alloc.h"

#define NAMESPACE "bench-crd"
#define NS_PATH "/api/v1/namespaces/" NAMESPACE
#define CONFIGMAPS NS_PATH "/configmaps"
#define GROUP "bench.example.com"
#define WIDGETS "/apis/" GROUP "/v1/namespaces/" NAMESPACE "/benchwidgets"
#define CRDS "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
#define OBJECT_SIZE 2048 /* bytes of each object as sent */
#define N_OBJECTS 500
#define ROUNDS 5     /* CRDs created for the time to usable */
#define USABLE_S 30  /* how long a new CRD may take to be usable */
#define POLL_US 2000 /* between two polls of a new CRD */

typedef enum { OP_GET, OP_LIST, OP_CREATE, N_OPS } op_t;
typedef enum { KIND_CUSTOM, KIND_CM, N_KINDS } kind_t;

/* Phase op = op * N_KINDS + kind. */
static const char *const op_names[] = {"get-custom",     "get-configmap", "list-custom",
                                       "list-configmap", "create-custom", "create-configmap"};
static const int concurrencies[] = {1, 16};

/* ---- the documents ------------------------------------------------------------------------ */

/* The 5 rules, on spec: each reads the object. */
#define RULES                                                                                      \
    "[{\"rule\":\"self.replicas <= 100\",\"message\":\"at most 100 replicas\"},"                   \
    "{\"rule\":\"self.image.startsWith('registry.example.com/')\",\"message\":\"images come "      \
    "from the registry\"},"                                                                        \
    "{\"rule\":\"size(self.data) <= 32\",\"message\":\"at most 32 entries\"},"                     \
    "{\"rule\":\"self.data.all(k, size(self.data[k]) <= 2048)\",\"message\":\"values of at most "  \
    "2 KiB\"},"                                                                                    \
    "{\"rule\":\"!has(self.owner) || self.owner != ''\",\"message\":\"owner is not empty\"}]"

/* CRD `plural` (kind `kind`) of GROUP with the 5 rules. The caller frees it. */
static char *
crd_json(const char *plural, const char *kind)
{
    return gw_sprintf(
        "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
        "\"metadata\":{\"name\":\"%s." GROUP "\"},\"spec\":{\"group\":\"" GROUP "\","
        "\"scope\":\"Namespaced\",\"names\":{\"plural\":\"%s\",\"kind\":\"%s\"},"
        "\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,\"schema\":{"
        "\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\","
        "\"required\":[\"image\"],\"x-kubernetes-validations\":" RULES ",\"properties\":{"
        "\"replicas\":{\"type\":\"integer\",\"minimum\":0},\"image\":{\"type\":\"string\","
        "\"maxLength\":256},\"owner\":{\"type\":\"string\",\"maxLength\":64},\"data\":{\"type\":"
        "\"object\",\"maxProperties\":64,\"additionalProperties\":{\"type\":\"string\","
        "\"maxLength\":4096}}}}}}}}]}}",
        plural, plural, kind);
}

/* A custom object and a ConfigMap as clients send them; the pad value brings each to
 * OBJECT_SIZE bytes. */
static const char widget_fmt[] =
    "{\"apiVersion\":\"" GROUP "/v1\",\"kind\":\"%s\",\"metadata\":{\"name\":\"%s\","
    "\"labels\":{\"app\":\"checkout\",\"tier\":\"web\"}},\"spec\":{\"replicas\":%d,"
    "\"image\":\"registry.example.com/shop/checkout:2.14.1\",\"owner\":\"web-team\","
    "\"data\":{\"LOG_LEVEL\":\"info\",\"CHECKOUT_API\":\"http://checkout-api.shop.svc:8080\","
    "\"pad\":\"%s\"}}}";
static const char configmap_fmt[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
    "\"labels\":{\"app\":\"checkout\",\"tier\":\"web\"}},\"data\":{\"replicas\":\"%d\","
    "\"image\":\"registry.example.com/shop/checkout:2.14.1\",\"owner\":\"web-team\","
    "\"LOG_LEVEL\":\"info\",\"CHECKOUT_API\":\"http://checkout-api.shop.svc:8080\","
    "\"pad\":\"%s\"}}";

/* Object `name` of `kind` (a custom one of kind `custom_kind`) with `replicas`, OBJECT_SIZE
 * bytes long. The caller frees it. */
static char *
object_json(kind_t kind, const char *custom_kind, const char *name, int replicas)
{
    char *bare = kind == KIND_CUSTOM ? gw_sprintf(widget_fmt, custom_kind, name, replicas, "")
                                     : gw_sprintf(configmap_fmt, name, replicas, "");
    size_t n = strlen(bare), pad_len = n < OBJECT_SIZE ? OBJECT_SIZE - n : 0;
    char *pad = gw_malloc(pad_len + 1), *doc;

    memset(pad, 'p', pad_len);
    pad[pad_len] = '\0';
    doc = kind == KIND_CUSTOM ? gw_sprintf(widget_fmt, custom_kind, name, replicas, pad)
                              : gw_sprintf(configmap_fmt, name, replicas, pad);
    free(pad);
    free(bare);
    return doc;
}

static const char *const collections[N_KINDS] = {WIDGETS, CONFIGMAPS};

/* ---- kgate through the HTTPS client ------------------------------------------------------- */

typedef struct {
    evdriver_t ev;
    kgate_addr_t k, k_b;
    https_conn_t conns[MAX_CONC];
    https_conn_t conn_b;         /* to instance B, for the time to usable */
    char *request[2 * N_KINDS];  /* the GETs and LISTs, formatted once */
    size_t ref_len[2 * N_KINDS]; /* of the GETs' and LISTs' answers */
    char *owned[MAX_CONC];       /* each caller's create in flight */
    unsigned seq[MAX_CONC];
    bool enforced; /* a rule's violation is refused */
} http_t;

/* One request on c with nothing else in flight; dies unless answered `want` (or anything, for
 * HTTPS_ANY_STATUS). Returns the status; the answer, NUL-terminated, goes to *answer (the
 * caller frees it) unless answer is NULL. */
static int
call_on(https_conn_t *c, const char *method, const char *path, const char *body, int want,
        char **answer)
{
    char *req =
        https_request(&(https_req_t){.k = c->k, .method = method, .path = path, .body = body});
    struct evbuffer *out;
    int status = https_call(c, req, want, &out);
    size_t n = evbuffer_get_length(out);

    if (answer != NULL) {
        *answer = gw_malloc(n + 1);
        evbuffer_remove(out, *answer, n);
        (*answer)[n] = '\0';
    }
    evbuffer_free(out);
    free(req);
    return status;
}

static int
call(http_t *h, const char *method, const char *path, const char *body, int want, char **answer)
{
    return call_on(&h->conns[0], method, path, body, want, answer);
}

/* A create of `name` of kind (kept by the caller until answered); the caller frees it. */
static char *
create_request(const http_t *h, kind_t kind, const char *name, int replicas)
{
    char *body = object_json(kind, "BenchWidget", name, replicas);
    char *req = https_request(
        &(https_req_t){.k = &h->k, .method = "POST", .path = collections[kind], .body = body});

    free(body);
    return req;
}

static void
http_start(driver_t *d, slot_t *s)
{
    http_t *h = (http_t *)d;
    int op = s->phase->op;
    kind_t kind = (kind_t)(op % N_KINDS);
    char name[32];

    if (op < OP_CREATE * N_KINDS) {
        https_send(&h->conns[s->id], h->request[op], 200, h->ref_len[op], s);
        return;
    }
    snprintf(name, sizeof name, "w-%02d-%07u", s->id, h->seq[s->id]++ % 10000000u);
    free(h->owned[s->id]);
    h->owned[s->id] = create_request(h, kind, name, 3);
    https_send(&h->conns[s->id], h->owned[s->id], 201, 0, s);
}

/* Each row opens its connections afresh (their handshakes fall in the warm-up). */
static void
http_run(driver_t *d, phase_t *p)
{
    http_t *h = (http_t *)d;

    evdriver_run(d, p);
    for (int i = 0; i < p->conc; i++)
        https_close(&h->conns[i]);
}

/* Whether v is the string s. */
static bool
str_is(const json_t *v, const char *s)
{
    return json_is_string(v) && strcmp(json_string_value(v), s) == 0;
}

/* Poll GET `path` on c until condition `type` of the answer is True; dies after USABLE_S. */
static void
await_condition(https_conn_t *c, const char *path, const char *type)
{
    int64_t until = now_ns() + (int64_t)USABLE_S * 1000000000;

    while (now_ns() < until) {
        char *answer;
        json_t *doc, *cond;
        size_t i;
        bool ok = false;

        call_on(c, "GET", path, NULL, 200, &answer);
        doc = json_loads(answer, 0, NULL);
        json_array_foreach(json_object_get(json_object_get(doc, "status"), "conditions"), i, cond)
            ok |= str_is(json_object_get(cond, "type"), type) &&
                  str_is(json_object_get(cond, "status"), "True");
        json_decref(doc);
        free(answer);
        if (ok)
            return;
        usleep(POLL_US);
    }
    die("%s: not %s within %d s", path, type, USABLE_S);
}

/* Poll POST of `body` to `path` on c until it is created; dies after USABLE_S. */
static void
await_created(https_conn_t *c, const char *path, const char *body)
{
    int64_t until = now_ns() + (int64_t)USABLE_S * 1000000000;
    int status = 0;

    while (now_ns() < until) {
        status = call_on(c, "POST", path, body, HTTPS_ANY_STATUS, NULL);
        if (status == 201)
            return;
        usleep(POLL_US);
    }
    die("%s: no create within %d s (last answer %d)", path, USABLE_S, status);
}

/* Create CRD `plural` on A and wait until A serves it. */
static void
create_crd(http_t *h, const char *plural, const char *kind)
{
    char *crd = crd_json(plural, kind), *path = gw_sprintf(CRDS "/%s." GROUP, plural);

    call(h, "POST", CRDS, crd, 201, NULL);
    await_condition(&h->conns[0], path, "Established");
    free(crd);
    free(path);
}

static http_t *
http_new(const char *url, const char *url_b, const char *pki)
{
    http_t *h = gw_calloc(1, sizeof *h);

    h->ev = (evdriver_t){
        .d = {.name = "kgate", .op_names = op_names, .start = http_start, .run = http_run},
        .base = event_base_new(),
    };
    kgate_addr_init(&h->k, url, pki);
    kgate_addr_init(&h->k_b, url_b, pki);
    for (int i = 0; i < MAX_CONC; i++)
        https_conn_init(&h->conns[i], h->ev.base, &h->k);
    https_conn_init(&h->conn_b, h->ev.base, &h->k_b);
    return h;
}

/* The namespace, the CRD, N_OBJECTS of each kind; the requests read and the lengths of their
 * answers; whether the rules are enforced (a dry-run create over the replica bound). */
static void
populate(http_t *h)
{
    char *obj, *answer, *path;

    call(h, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" NAMESPACE "\"}}", 201, NULL);
    create_crd(h, "benchwidgets", "BenchWidget");
    obj = object_json(KIND_CUSTOM, "BenchWidget", "w-000", 3);
    await_created(&h->conns[0], WIDGETS, obj);
    free(obj);
    for (int kind = 0; kind < N_KINDS; kind++) {
        for (int i = kind == KIND_CUSTOM; i < N_OBJECTS; i++) {
            char name[16];
            snprintf(name, sizeof name, "w-%03d", i);
            obj = object_json((kind_t)kind, "BenchWidget", name, 3);
            call(h, "POST", collections[kind], obj, 201, NULL);
            free(obj);
        }
        path = gw_sprintf("%s/w-000", collections[kind]);
        h->request[OP_GET * N_KINDS + kind] =
            https_request(&(https_req_t){.k = &h->k, .method = "GET", .path = path});
        free(path);
        h->request[OP_LIST * N_KINDS + kind] =
            https_request(&(https_req_t){.k = &h->k, .method = "GET", .path = collections[kind]});
        for (int op = OP_GET; op <= OP_LIST; op++) {
            https_call(&h->conns[0], h->request[op * N_KINDS + kind], 200, NULL);
            h->ref_len[op * N_KINDS + kind] = h->conns[0].len;
        }
    }
    obj = object_json(KIND_CUSTOM, "BenchWidget", "over", 500);
    h->enforced = call(h, "POST", WIDGETS "?dryRun=All", obj, HTTPS_ANY_STATUS, &answer) == 422;
    if (h->enforced && strstr(answer, "at most 100 replicas") == NULL)
        die("the replica rule's violation is refused without its message: %.400s", answer);
    free(answer);
    free(obj);
}

/* ---- the rows ----------------------------------------------------------------------------- */

static double
ratio(double a, double b)
{
    return b > 0 ? a / b : 0.0;
}

/* The GET, LIST and create rows; returns the errors their phases met. */
static uint64_t
run_rows(http_t *h, const timing_t *t)
{
    uint64_t errors = 0;

    printf("custom resources through kgate: a CRD with 5 x-kubernetes-validations rules on spec "
           "(%s), objects of %d bytes as sent, beside ConfigMaps of the same size; GET of one "
           "(%zu / %zu bytes answered), LIST of %d, creates with a name of their own; HTTPS "
           "keep-alive, one connection per caller; %.1f s per row after %.1f s warm-up\n",
           h->enforced ? "enforced" : "NOT enforced by this kgate: the rows measure no rule",
           OBJECT_SIZE, h->ref_len[OP_GET * N_KINDS], h->ref_len[OP_GET * N_KINDS + 1], N_OBJECTS,
           t->seconds, t->warmup);
    printf("op      conc  custom req/s   p50 ms   p99 ms  configmap req/s   p50 ms   p99 ms  "
           "p50 x  p99 x\n");
    for (int op = 0; op < N_OPS; op++) {
        for (size_t i = 0; i < sizeof concurrencies / sizeof concurrencies[0]; i++) {
            result_t c, m;
            https_close(&h->conns[0]);
            run_phase(&h->ev.d, op * N_KINDS + KIND_CUSTOM, concurrencies[i], t, &c);
            run_phase(&h->ev.d, op * N_KINDS + KIND_CM, concurrencies[i], t, &m);
            errors += c.errors + m.errors;
            printf("%-6s  %4d  %12.0f  %7.3f  %7.3f  %15.0f  %7.3f  %7.3f  %5.2f  %5.2f\n",
                   (const char *[]){"get", "list", "create"}[op], concurrencies[i], c.ops_s,
                   c.p50_ms, c.p99_ms, m.ops_s, m.p50_ms, m.p99_ms, ratio(c.p50_ms, m.p50_ms),
                   ratio(c.p99_ms, m.p99_ms));
            fflush(stdout);
        }
    }
    return errors;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ROUNDS CRDs created through A: the time until A answers Established, and until the first
 * create through B succeeds, in ms. */
static void
run_usable(http_t *h)
{
    double established[ROUNDS], usable[ROUNDS];

    for (int r = 0; r < ROUNDS; r++) {
        char *plural = gw_sprintf("usable%d", r), *kind = gw_sprintf("Usable%d", r);
        char *crd = crd_json(plural, kind), *obj = object_json(KIND_CUSTOM, kind, "first", 3);
        char *path = gw_sprintf(CRDS "/%s." GROUP, plural);
        char *objects = gw_sprintf("/apis/" GROUP "/v1/namespaces/" NAMESPACE "/%s", plural);
        int64_t t0;

        https_close(&h->conns[0]);
        https_close(&h->conn_b);
        /* Both connections open and idle before the clock starts. */
        call(h, "GET", "/readyz", NULL, 200, NULL);
        call_on(&h->conn_b, "GET", "/readyz", NULL, 200, NULL);
        t0 = now_ns();
        call(h, "POST", CRDS, crd, 201, NULL);
        await_condition(&h->conns[0], path, "Established");
        established[r] = (double)(now_ns() - t0) / 1e6;
        await_created(&h->conn_b, objects, obj);
        usable[r] = (double)(now_ns() - t0) / 1e6;
        free(plural), free(kind), free(crd), free(obj), free(path), free(objects);
    }
    qsort(established, ROUNDS, sizeof established[0], cmp_double);
    qsort(usable, ROUNDS, sizeof usable[0], cmp_double);
    printf("\na new CRD (5 rules) created through instance A, polled every %d us with nothing "
           "else in flight; %d CRDs\n",
           POLL_US, ROUNDS);
    printf("%-44s %9s %9s\n", "from the CRD's create until", "median ms", "worst ms");
    printf("%-44s %9.1f %9.1f\n", "A answers it Established=True", established[ROUNDS / 2],
           established[ROUNDS - 1]);
    printf("%-44s %9.1f %9.1f\n", "a first custom object is created through B", usable[ROUNDS / 2],
           usable[ROUNDS - 1]);
    fflush(stdout);
}

static void
http_free(http_t *h)
{
    for (int r = 0; r < ROUNDS; r++) {
        char *path = gw_sprintf(CRDS "/usable%d." GROUP, r);
        call(h, "DELETE", path, NULL, 200, NULL);
        free(path);
    }
    call(h, "DELETE", CRDS "/benchwidgets." GROUP, NULL, 200, NULL);
    call(h, "DELETE", NS_PATH, NULL, 200, NULL);
    for (int i = 0; i < MAX_CONC; i++) {
        https_close(&h->conns[i]);
        free(h->owned[i]);
    }
    https_close(&h->conn_b);
    for (int i = 0; i < 2 * N_KINDS; i++)
        free(h->request[i]);
    SSL_CTX_free(h->k.tls);
    SSL_CTX_free(h->k_b.tls);
    event_base_free(h->ev.base);
    free(h);
}

int
main(int argc, char **argv)
{
    timing_t t;
    http_t *h;
    uint64_t errors;

    if (argc != 4)
        die("usage: bench_crd https://IP:PORT https://IP:PORT PKI_DIR");
    signal(SIGPIPE, SIG_IGN); /* a connection kgate closes is an error reported, not a kill */
    parse_timing(&t);
    h = http_new(argv[1], argv[2], argv[3]);
    populate(h);
    errors = run_rows(h, &t);
    run_usable(h);
    http_free(h);
    return errors == 0 ? 0 : 1;
}
