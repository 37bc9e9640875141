/*
 * bench_api: kgate's REST API beside the etcd reads that serve it. A GET of one ConfigMap of
 * about 2 KiB and a LIST of 500 of them in one namespace, through kgate over HTTPS with
 * keep-alive (one connection per caller), closed-loop at concurrency 1 and 64; beside each row,
 * in the same run and at the same concurrency, etcd read directly through etcdproto's client as
 * bench_etcd's kgate driver reads it: a linearizable Range of the object's key, of the
 * collection's prefix. The ratio is what TLS, HTTP, the filter chain and the registry cost on
 * top of the etcd read.
 *
 * Then the same LIST answered in protobuf (application/vnd.kubernetes.protobuf) beside the JSON
 * LIST, at the same concurrencies: the ratio is what transcoding the stored JSON costs.
 *
 * Then writes: a server-side apply of a 2 KiB Deployment (fieldManager=bench) beside a plain
 * PUT of the same object, each call flipping one label so that every call writes; each caller
 * has its own Deployment. The ratio is what field ownership and the schema-driven merge cost
 * over a whole-object replace.
 *
 * Then creates: a POST of a 2 KiB ConfigMap under a fresh name per call, at concurrency 16 and
 * 64, beside the etcd writes that serve it, direct through etcdproto's client at the same
 * concurrency: a Put of a value of the stored object's size (one key per caller) and the
 * transaction kgate sends for a create (`txn(create_revision(key) == 0) put`, a fresh key per
 * call). The ratios are what a create costs over the bare write and over kgate's own Txn.
 *
 * Usage: bench_api https://IP:PORT PKI_DIR ETCD_URL ETCD_PREFIX WORKERS
 *   PKI_DIR holds ca.crt (which signed kgate's serving certificate) and admin.crt/admin.key
 *   (a client certificate kgate accepts); ETCD_PREFIX is kgate's --etcd-prefix and WORKERS
 *   its --workers, for the report. The objects are created through the API first, in a
 *   namespace that must not exist yet (and the creates in CREATE_NAMESPACE, deleted from etcd
 *   with the direct writes' keys at the end). BENCH_SECONDS as for every benchmark (bench.h).
 * Any failed or unexpected answer ends the run with exit status 1.
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
#include "etcd.h"
#include "gw_alloc.h"
#include "gw_err.h"

#define NAMESPACE "bench"
#define COLLECTION "/api/v1/namespaces/" NAMESPACE "/configmaps"
#define N_OBJECTS 500
#define OBJECT_NAME "cm-%03d"
#define GET_NAME "cm-000" /* the object the GET reads */

#define DEPLOYMENTS "/apis/apps/v1/namespaces/" NAMESPACE "/deployments"
/* Annotation bytes that make the Deployment about 2 KiB. */
#define DEPLOY_PAD_LEN 1200

#define CREATE_NAMESPACE "bench-create"
#define CREATES "/api/v1/namespaces/" CREATE_NAMESPACE "/configmaps"
#define DIRECT_KEYS "/bench-direct/" /* under the etcd prefix: the direct writes' keys */

typedef enum {
    OP_GET,
    OP_LIST,
    OP_LIST_PB,
    OP_PUT,
    OP_APPLY,
    OP_CREATE,
    OP_ETCD_PUT, /* direct etcd writes beside the creates */
    OP_ETCD_TXN,
    N_OPS
} op_t;

static const char *const op_names[] = {
    [OP_GET] = "get",           [OP_LIST] = "list",        [OP_LIST_PB] = "list-pb",
    [OP_PUT] = "put",           [OP_APPLY] = "apply",      [OP_CREATE] = "create",
    [OP_ETCD_PUT] = "etcd-put", [OP_ETCD_TXN] = "etcd-txn"};
#define PROTOBUF "application/vnd.kubernetes.protobuf"
static const int concurrencies[] = {1, 64};
static const int write_concurrencies[] = {1, 16};
static const int create_concurrencies[] = {16, 64};

/* ---- kgate through the HTTPS client, one keep-alive connection per caller ---------------- */

typedef struct {
    evdriver_t ev;
    kgate_addr_t k;
    const char *path[N_OPS];
    char *request[N_OPS];  /* formatted once */
    size_t ref_len[N_OPS]; /* body length of the answer checked in full */
    https_conn_t conns[MAX_CONC];
    char *owned[MAX_CONC];      /* each caller's write in flight, formatted for its call */
    unsigned flips[MAX_CONC];   /* each caller's writes made: their parity picks the label */
    unsigned creates[MAX_CONC]; /* each caller's creates made: their count names the next */
} http_t;

static char *
http_request(const http_t *h, const char *method, const char *path, const char *body)
{
    return https_request(&(https_req_t){.k = &h->k, .method = method, .path = path, .body = body});
}

/* One request on connection 0 with nothing else in flight (set-up and checks); dies unless
 * it is answered `want`. Returns the body (the caller frees it). */
static struct evbuffer *
http_call(http_t *h, const char *method, const char *path, const char *body, int want)
{
    char *req = http_request(h, method, path, body);
    struct evbuffer *out;

    https_call(&h->conns[0], req, want, &out);
    free(req);
    return out;
}

static char *deployment_json(const char *name, unsigned flip);
static char *write_request(const http_t *h, op_t op, int id, unsigned flip);
static char *create_request(const http_t *h, int id, unsigned n);

static void
http_start(driver_t *d, slot_t *s)
{
    http_t *h = (http_t *)d;
    https_conn_t *c = &h->conns[s->id];
    op_t op = s->phase->op;

    if (op <= OP_LIST_PB) {
        https_send(c, h->request[op], 200, h->ref_len[op], s);
        return;
    }
    free(h->owned[s->id]);
    if (op == OP_CREATE) {
        h->owned[s->id] = create_request(h, s->id, h->creates[s->id]++);
        https_send(c, h->owned[s->id], 201, 0, s);
        return;
    }
    h->owned[s->id] = write_request(h, op, s->id, h->flips[s->id]++);
    https_send(c, h->owned[s->id], 200, 0, s);
}

/* Each row opens its connections afresh (their TLS handshakes fall in the warm-up), so none
 * sits idle into kgate's read timeout between rows. */
static void
http_run(driver_t *d, phase_t *p)
{
    http_t *h = (http_t *)d;

    evdriver_run(d, p);
    for (int i = 0; i < p->conc; i++)
        https_close(&h->conns[i]);
}

static http_t *
http_new(const char *url, const char *pki, struct event_base *base)
{
    http_t *h = gw_calloc(1, sizeof *h);

    h->ev = (evdriver_t){
        .d = {.name = "kgate", .op_names = op_names, .start = http_start, .run = http_run},
        .base = base,
    };
    kgate_addr_init(&h->k, url, pki);
    h->path[OP_GET] = COLLECTION "/" GET_NAME;
    h->path[OP_LIST] = h->path[OP_LIST_PB] = COLLECTION;
    for (op_t op = 0; op <= OP_LIST; op++)
        h->request[op] = http_request(h, "GET", h->path[op], NULL);
    h->request[OP_LIST_PB] = https_request(
        &(https_req_t){.k = &h->k, .method = "GET", .path = COLLECTION, .accept = PROTOBUF});
    for (int i = 0; i < MAX_CONC; i++)
        https_conn_init(&h->conns[i], base, &h->k);
    return h;
}

static void
http_free(http_t *h)
{
    for (int i = 0; i < MAX_CONC; i++) {
        https_close(&h->conns[i]);
        free(h->owned[i]);
    }
    for (op_t op = 0; op <= OP_LIST_PB; op++)
        free(h->request[op]);
    SSL_CTX_free(h->k.tls);
    free(h);
}

/* ---- the objects, created and checked through the API ---------------------------------- */

static char *
object_json(int i)
{
    char name[32];

    snprintf(name, sizeof name, OBJECT_NAME, i);
    return bench_configmap_json(name, i);
}

/* Caller id's n-th create: a POST of a ConfigMap no call has named yet. */
static char *
create_request(const http_t *h, int id, unsigned n)
{
    char name[48], *body, *req;

    snprintf(name, sizeof name, "new-%02d-%07u", id, n);
    body = bench_configmap_json(name, id);
    req =
        https_request(&(https_req_t){.k = &h->k, .method = "POST", .path = CREATES, .body = body});
    free(body);
    return req;
}

/* A Deployment of about 2 KiB whose label `flip` is "a" or "b". */
static char *
deployment_json(const char *name, unsigned flip)
{
    char pad[DEPLOY_PAD_LEN + 1];

    memset(pad, 'p', DEPLOY_PAD_LEN);
    pad[DEPLOY_PAD_LEN] = '\0';
    return gw_sprintf(
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"%s\","
        "\"labels\":{\"app\":\"bench\",\"flip\":\"%c\"},\"annotations\":{\"bench/pad\":\"%s\"}},"
        "\"spec\":{\"replicas\":1,\"selector\":{\"matchLabels\":{\"app\":\"bench\"}},"
        "\"template\":{\"metadata\":{\"labels\":{\"app\":\"bench\"}},\"spec\":{\"containers\":"
        "[{\"name\":\"web\",\"image\":\"nginx:1.27\",\"ports\":[{\"containerPort\":80}],"
        "\"env\":[{\"name\":\"MODE\",\"value\":\"bench\"}]}]}}}}",
        name, flip % 2 ? 'b' : 'a', pad);
}

/* Caller id's write: a PUT of put-<id> or an apply of apply-<id>, the label at `flip`. */
static char *
write_request(const http_t *h, op_t op, int id, unsigned flip)
{
    char name[32], *path, *body, *req;

    snprintf(name, sizeof name, "%s-%02d", op == OP_PUT ? "put" : "apply", id);
    body = deployment_json(name, flip);
    path = gw_sprintf(DEPLOYMENTS "/%s%s", name, op == OP_APPLY ? "?fieldManager=bench" : "");
    req = https_request(
        &(https_req_t){.k = &h->k,
                       .method = op == OP_PUT ? "PUT" : "PATCH",
                       .path = path,
                       .type = op == OP_PUT ? "application/json" : "application/apply-patch+yaml",
                       .body = body});
    free(path);
    free(body);
    return req;
}

/* One Deployment per write caller: put-NN created by POST, apply-NN by a first apply. */
static void
seed_writes(http_t *h)
{
    for (int i = 0; i < MAX_CONC; i++) {
        char name[32], *obj, *apply;
        snprintf(name, sizeof name, "put-%02d", i);
        obj = deployment_json(name, 0);
        evbuffer_free(http_call(h, "POST", DEPLOYMENTS, obj, 201));
        free(obj);
        apply = write_request(h, OP_APPLY, i, 0);
        https_call(&h->conns[0], apply, 201, NULL);
        free(apply);
    }
}

/* kgate publishes the kube-root-ca.crt ConfigMap in every namespace: let it arrive (for up to
 * 5 s) before the collection's answers are measured, so that they keep one length. */
static void
await_root_ca(http_t *h)
{
    for (int i = 0; i < 50; i++) {
        char *req = http_request(h, "GET", COLLECTION "/kube-root-ca.crt", NULL);
        int status = https_call(&h->conns[0], req, HTTPS_ANY_STATUS, NULL);
        free(req);
        if (status == 200)
            return;
        usleep(100000);
    }
}

static void
seed(http_t *h)
{
    evbuffer_free(http_call(h, "POST", "/api/v1/namespaces",
                            "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                            "\"metadata\":{\"name\":\"" NAMESPACE "\"}}",
                            201));
    evbuffer_free(http_call(h, "POST", "/api/v1/namespaces",
                            "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                            "\"metadata\":{\"name\":\"" CREATE_NAMESPACE "\"}}",
                            201));
    await_root_ca(h);
    for (int i = 0; i < N_OBJECTS; i++) {
        char *obj = object_json(i);
        evbuffer_free(http_call(h, "POST", COLLECTION, obj, 201));
        free(obj);
    }
    seed_writes(h);
}

/* Read one answer to op in full; its length becomes the one every answer in the rows must
 * have (parsing a 1 MiB LIST per request would cost the client more than it measures). */
static void
check(http_t *h, op_t op)
{
    struct evbuffer *b = http_call(h, "GET", h->path[op], NULL, 200);
    size_t len = evbuffer_get_length(b);
    json_t *doc = json_loadb((const char *)evbuffer_pullup(b, -1), len, 0, NULL);

    if (doc == NULL || !bench_configmaps_ok(doc, op == OP_LIST, GET_NAME, N_OBJECTS))
        die("GET %s: not the answer expected: %.*s", h->path[op], (int)(len < 400 ? len : 400),
            (const char *)evbuffer_pullup(b, -1));
    h->ref_len[op] = len;
    json_decref(doc);
    evbuffer_free(b);
}

/* The protobuf LIST: kube's envelope around a ConfigMapList; its length is every answer's. */
static void
check_protobuf(http_t *h)
{
    struct evbuffer *b;
    size_t len;
    const char *p;

    https_call(&h->conns[0], h->request[OP_LIST_PB], 200, &b);
    len = evbuffer_get_length(b);
    p = (const char *)evbuffer_pullup(b, -1);
    if (len < 32 || memcmp(p, "k8s\0", 4) != 0 || memmem(p, 64, "ConfigMapList", 13) == NULL)
        die("GET %s as protobuf: not a ConfigMapList envelope", COLLECTION);
    h->ref_len[OP_LIST_PB] = len;
    evbuffer_free(b);
}

/* The protobuf LIST beside the JSON LIST, both through kgate. */
static uint64_t
run_protobuf(http_t *h, const timing_t *t)
{
    uint64_t errors = 0;

    printf("\nLIST of %d as protobuf (%zu bytes) beside the JSON LIST (%zu bytes)\n", N_OBJECTS,
           h->ref_len[OP_LIST_PB], h->ref_len[OP_LIST]);
    printf("conc  protobuf req/s   p50 ms   p99 ms  json req/s   p50 ms   p99 ms  "
           "ratio(protobuf/json)\n");
    for (size_t i = 0; i < sizeof concurrencies / sizeof concurrencies[0]; i++) {
        result_t pb, js;
        run_phase(&h->ev.d, OP_LIST_PB, concurrencies[i], t, &pb);
        run_phase(&h->ev.d, OP_LIST, concurrencies[i], t, &js);
        printf("%4d  %14.0f  %7.3f  %7.3f  %10.0f  %7.3f  %7.3f  %20.2f\n", concurrencies[i],
               pb.ops_s, pb.p50_ms, pb.p99_ms, js.ops_s, js.p50_ms, js.p99_ms,
               js.ops_s > 0 ? pb.ops_s / js.ops_s : 0.0);
        errors += pb.errors + js.errors;
    }
    fflush(stdout);
    return errors;
}

/* ---- etcd direct: the reads that serve those requests ----------------------------------- */

typedef struct {
    evdriver_t ev;
    etcd_conn_t *conn;
    char *key, *prefix, *prefix_end; /* the object's key; the collection's range */
    etcd_range_req_t range[N_OPS];
    char *writes; /* where the direct writes' keys go: ETCD_PREFIX DIRECT_KEYS */
    char *value;  /* what they write: as many bytes as kgate stores for a created object */
    size_t len;
    unsigned txns; /* creates made: their count names the next key */
    char key_buf[MAX_CONC][128];
} direct_t;

static const size_t want_kvs[N_OPS] = {[OP_GET] = 1, [OP_LIST] = N_OBJECTS};

static void
direct_done(int err, const Etcdserverpb__RangeResponse *resp, void *ctx)
{
    slot_t *s = ctx;

    /* at least: the namespace may also hold the kube-root-ca.crt ConfigMap kgate publishes */
    if (err == 0 && resp->n_kvs < want_kvs[s->phase->op])
        err = GW_EINTERNAL;
    evdriver_done(s, err);
}

static void
direct_put_done(int err, const Etcdserverpb__PutResponse *resp, void *ctx)
{
    (void)resp;
    evdriver_done(ctx, err);
}

/* A create whose key existed measured nothing: an error. */
static void
direct_txn_done(int err, const Etcdserverpb__TxnResponse *resp, void *ctx)
{
    evdriver_done(ctx, err == 0 && !resp->succeeded ? GW_EEXIST : err);
}

/* The Put (one key per caller) or the create's Txn (a fresh key per call) of slot s. */
static int
direct_write(direct_t *e, slot_t *s)
{
    char *key = e->key_buf[s->id];
    etcd_bytes_t value = {(const uint8_t *)e->value, e->len};

    if (s->phase->op == OP_ETCD_PUT) {
        snprintf(key, sizeof e->key_buf[0], "%sput/%02d", e->writes, s->id);
        return etcd_put(e->conn, etcd_str(key), value, 0, false, direct_put_done, s);
    }
    snprintf(key, sizeof e->key_buf[0], "%stxn/%08u", e->writes, e->txns++);
    return create_txn_start(e->conn, key, e->value, e->len, direct_txn_done, s);
}

static void
direct_start(driver_t *d, slot_t *s)
{
    direct_t *e = (direct_t *)d;
    int rc = s->phase->op >= OP_ETCD_PUT
                 ? direct_write(e, s)
                 : etcd_range(e->conn, &e->range[s->phase->op], direct_done, s);

    if (rc != 0)
        die("etcd: cannot start %s: %s", op_names[s->phase->op], gw_strerror(rc));
}

static direct_t *
direct_new(const econn_t *etcd, const char *etcd_prefix)
{
    direct_t *e = gw_calloc(1, sizeof *e);

    e->ev = (evdriver_t){
        .d = {.name = "etcd", .op_names = op_names, .start = direct_start, .run = evdriver_run},
        .base = etcd->base,
    };
    e->conn = etcd->conn;
    e->key = gw_sprintf("%s/configmaps/" NAMESPACE "/" GET_NAME, etcd_prefix);
    e->prefix = gw_sprintf("%s/configmaps/" NAMESPACE "/", etcd_prefix);
    e->prefix_end = gw_strdup(e->prefix);
    e->prefix_end[strlen(e->prefix_end) - 1]++; /* '/' + 1: the first key past the prefix */
    e->range[OP_GET] = (etcd_range_req_t){.key = etcd_str(e->key)};
    e->range[OP_LIST] =
        (etcd_range_req_t){.key = etcd_str(e->prefix), .range_end = etcd_str(e->prefix_end)};
    e->writes = gw_sprintf("%s" DIRECT_KEYS, etcd_prefix);
    return e;
}

static void
direct_free(direct_t *e)
{
    free(e->key);
    free(e->prefix);
    free(e->prefix_end);
    free(e->writes);
    free(e->value);
    free(e);
}

/* ---- main ------------------------------------------------------------------------------- */

static void
print_setting(const http_t *h, const char *url, const char *etcd_url, const char *workers,
              const timing_t *t)
{
    printf("kgate at %s with --workers=%s, etcd at %s; %ld CPUs shared by etcd, kgate and "
           "this client\n",
           url, workers, etcd_url, sysconf(_SC_NPROCESSORS_ONLN));
    printf("ConfigMaps of %zu bytes (a GET's answer); LIST of %d of them: %zu bytes; HTTPS "
           "keep-alive, one connection per caller\n",
           h->ref_len[OP_GET], N_OBJECTS, h->ref_len[OP_LIST]);
    printf("etcd direct: linearizable Range of the object's key / of the collection's prefix "
           "through etcdproto's client; %.1f s per row after %.1f s warm-up\n\n",
           t->seconds, t->warmup);
}

static void
print_write_row(int conc, const result_t *apply, const result_t *put)
{
    printf("%4d  %11.0f  %7.3f  %7.3f  %9.0f  %7.3f  %7.3f  %16.2f\n", conc, apply->ops_s,
           apply->p50_ms, apply->p99_ms, put->ops_s, put->p50_ms, put->p99_ms,
           put->ops_s > 0 ? apply->ops_s / put->ops_s : 0.0);
    fflush(stdout);
}

/* Server-side applies beside PUTs of the same Deployment, each caller on its own object. */
static uint64_t
run_writes(http_t *h, const timing_t *t)
{
    uint64_t errors = 0;

    printf("\nwrites of a 2 KiB Deployment (one per caller, a label flipped by every call)\n");
    printf("conc  apply req/s   p50 ms   p99 ms  put req/s   p50 ms   p99 ms  "
           "ratio(apply/put)\n");
    for (size_t i = 0; i < sizeof write_concurrencies / sizeof write_concurrencies[0]; i++) {
        result_t a, p;
        run_phase(&h->ev.d, OP_APPLY, write_concurrencies[i], t, &a);
        run_phase(&h->ev.d, OP_PUT, write_concurrencies[i], t, &p);
        print_write_row(write_concurrencies[i], &a, &p);
        errors += a.errors + p.errors;
    }
    return errors;
}

static void
print_create_row(int conc, const result_t *k, const result_t *p, const result_t *x)
{
    printf("%4d  %12.0f  %7.3f  %7.3f  %9.0f  %7.3f  %7.3f  %9.0f  %7.3f  %7.3f  %9.2f  %9.2f\n",
           conc, k->ops_s, k->p50_ms, k->p99_ms, p->ops_s, p->p50_ms, p->p99_ms, x->ops_s,
           x->p50_ms, x->p99_ms, p->ops_s > 0 ? k->ops_s / p->ops_s : 0.0,
           x->ops_s > 0 ? k->ops_s / x->ops_s : 0.0);
    fflush(stdout);
}

/* Creates through kgate beside the direct Put and Txn at each concurrency; then the created
 * objects and the direct writes' keys are deleted from etcd, so that the later benchmarks on
 * this prefix do not list them. */
static uint64_t
run_creates(http_t *h, direct_t *direct, econn_t *etcd, const char *etcd_prefix, const timing_t *t)
{
    char *created = gw_sprintf("%s/configmaps/" CREATE_NAMESPACE "/", etcd_prefix);
    uint64_t errors = 0;

    direct->len = h->ref_len[OP_GET]; /* the GET's answer: what kgate stores, give or take */
    direct->value = gw_malloc(direct->len);
    memset(direct->value, 'v', direct->len);
    printf("\ncreates of a 2 KiB ConfigMap (POST, a fresh name per call) beside etcd direct: Put "
           "of %zu bytes (one key per caller), and the Txn of kgate's create (a fresh key per "
           "call)\n",
           direct->len);
    printf("conc  create req/s   p50 ms   p99 ms  put ops/s   p50 ms   p99 ms  txn ops/s   "
           "p50 ms   p99 ms  kgate/put  kgate/txn\n");
    for (size_t i = 0; i < sizeof create_concurrencies / sizeof create_concurrencies[0]; i++) {
        result_t k, p, x;
        run_phase(&h->ev.d, OP_CREATE, create_concurrencies[i], t, &k);
        run_phase(&direct->ev.d, OP_ETCD_PUT, create_concurrencies[i], t, &p);
        run_phase(&direct->ev.d, OP_ETCD_TXN, create_concurrencies[i], t, &x);
        print_create_row(create_concurrencies[i], &k, &p, &x);
        errors += k.errors + p.errors + x.errors;
    }
    econn_delete_prefix(etcd, created);
    econn_delete_prefix(etcd, direct->writes);
    free(created);
    return errors;
}

static void
print_row(op_t op, int conc, const result_t *k, const result_t *e)
{
    printf("%-5s  %4d  %11.0f  %7.3f  %7.3f  %10.0f  %7.3f  %7.3f  %17.2f\n", op_names[op], conc,
           k->ops_s, k->p50_ms, k->p99_ms, e->ops_s, e->p50_ms, e->p99_ms,
           e->ops_s > 0 ? k->ops_s / e->ops_s : 0.0);
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    econn_t etcd;
    timing_t t;
    uint64_t errors = 0;

    if (argc != 6)
        die("usage: bench_api https://IP:PORT PKI_DIR ETCD_URL ETCD_PREFIX WORKERS");
    signal(SIGPIPE, SIG_IGN); /* a connection kgate closes is an error reported, not a kill */
    parse_timing(&t);
    econn_open(&etcd, argv[3]);
    http_t *h = http_new(argv[1], argv[2], etcd.base);
    direct_t *direct = direct_new(&etcd, argv[4]);
    seed(h);
    check(h, OP_GET);
    check(h, OP_LIST);
    check_protobuf(h);
    https_close(&h->conns[0]);
    print_setting(h, argv[1], argv[3], argv[5], &t);
    printf("op     conc  kgate req/s   p50 ms   p99 ms  etcd ops/s   p50 ms   p99 ms  "
           "ratio(kgate/etcd)\n");
    for (op_t op = 0; op <= OP_LIST; op++) {
        for (size_t i = 0; i < sizeof concurrencies / sizeof concurrencies[0]; i++) {
            result_t k, e;
            run_phase(&h->ev.d, op, concurrencies[i], &t, &k);
            run_phase(&direct->ev.d, op, concurrencies[i], &t, &e);
            print_row(op, concurrencies[i], &k, &e);
            errors += k.errors + e.errors;
        }
    }
    errors += run_protobuf(h, &t);
    errors += run_writes(h, &t);
    errors += run_creates(h, direct, &etcd, argv[4], &t);
    http_free(h);
    direct_free(direct);
    econn_close(&etcd);
    return errors == 0 ? 0 : 1;
}
