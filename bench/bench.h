#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

/*
 * What every benchmark shares: a latency histogram, the closed-loop phase (`conc` callers,
 * each with one call in flight, for a warm-up then a measured duration), BENCH_SECONDS, and
 * etcdproto's client set up as the server uses it (an etcd_conn_t bound to an event_base that
 * the main thread runs, as a worker would). Header-only, like tests/lib/tap.h: each bench/X.c
 * is a program of its own; but the HTTPS client for kgate is bench_https.c, linked into each.
 * Single-threaded: everything here runs on the main thread.
 */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include <netinet/in.h>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <event2/util.h>
#include <jansson.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "etcd.h"
#include "gw_alloc.h"
#include "gw_err.h"

#define MAX_CONC 64
#define MAX_ERRORS 100 /* per row: beyond this the row stops early */

static inline void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/** Print "<program>: <message>" to stderr and exit 1. */
static inline void
die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program_invocation_short_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static inline int64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- latency histogram ------------------------------------------------------------------ */

/* Log-linear buckets: 64 linear steps per power of two, so any percentile is reported within
 * 1/64 of its true value, in fixed memory whatever the number of samples. */
#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

typedef struct {
    uint64_t count[HIST_BUCKETS];
    uint64_t n;
} hist_t;

static inline size_t
hist_bucket(uint64_t v)
{
    if (v < HIST_SUB)
        return (size_t)v;
    int shift = 63 - __builtin_clzll(v) - HIST_SUB_BITS;
    return (size_t)(shift + 1) * HIST_SUB + (size_t)((v >> shift) - HIST_SUB);
}

/* The middle of the values that fall into bucket b. */
static inline double
hist_value(size_t b)
{
    if (b < HIST_SUB)
        return (double)b;
    int shift = (int)(b / HIST_SUB) - 1;
    uint64_t low = (uint64_t)(b % HIST_SUB + HIST_SUB) << shift;
    return (double)low + (double)((1ull << shift) - 1) / 2;
}

static inline void
hist_add(hist_t *h, uint64_t v)
{
    h->count[hist_bucket(v)]++;
    h->n++;
}

static inline double
hist_quantile(const hist_t *h, double q)
{
    uint64_t rank = (uint64_t)ceil(q * (double)h->n), seen = 0;
    for (size_t b = 0; b < HIST_BUCKETS; b++) {
        seen += h->count[b];
        if (seen >= rank && seen > 0)
            return hist_value(b);
    }
    return 0;
}

/* ---- closed-loop phases ----------------------------------------------------------------- */

typedef struct driver driver_t;
typedef struct phase phase_t;

/* One of `conc` callers, each always with one call in flight. */
typedef struct {
    phase_t *phase;
    int id;          /* index into the phase's slots: picks the caller's key or connection */
    int64_t started; /* when the call in flight was started */
} slot_t;

/** A way of making calls: a client under test. */
struct driver {
    const char *name;
    const char *const *op_names; /* indexed by the ops its start takes */
    /* Start s->phase->op for slot s; its completion must call slot_done, on the thread that
     * runs `run`. */
    void (*start)(driver_t *d, slot_t *s);
    /* Deliver completions until the phase has no call in flight. */
    void (*run)(driver_t *d, phase_t *p);
};

struct phase {
    driver_t *driver;
    int op;
    int conc;
    int64_t measure_from, measure_until; /* completions in between are counted */
    int inflight;
    uint64_t errors;
    int first_err;
    hist_t hist;
    slot_t slots[MAX_CONC];
};

typedef struct {
    double seconds; /* measured duration of one row */
    double warmup;  /* unmeasured run before it: connections, caches, etcd's own warm-up */
} timing_t;

typedef struct {
    double ops_s, p50_ms, p99_ms;
    uint64_t errors;
} result_t;

static inline void
slot_start(slot_t *s)
{
    s->started = now_ns();
    s->phase->driver->start(s->phase->driver, s);
}

/** Account one completion (err: 0 or a gw_err code) and start the slot's next call unless
 *  the phase is over. */
static inline void
slot_done(slot_t *s, int err)
{
    phase_t *p = s->phase;
    int64_t now = now_ns();
    bool measured = now >= p->measure_from && now <= p->measure_until;

    if (err != 0) {
        if (p->errors++ == 0)
            p->first_err = err;
    } else if (measured) {
        hist_add(&p->hist, (uint64_t)(now - s->started));
    }
    if (now < p->measure_until && p->errors < MAX_ERRORS)
        slot_start(s);
    else
        p->inflight--;
}

/** Run op through d with conc callers for t's warm-up and duration; the figures into *out,
 *  errors (if any) reported on stderr. */
static inline void
run_phase(driver_t *d, int op, int conc, const timing_t *t, result_t *out)
{
    phase_t *p = gw_calloc(1, sizeof *p);

    p->driver = d;
    p->op = op;
    p->conc = conc;
    p->inflight = conc;
    p->measure_from = now_ns() + (int64_t)(t->warmup * 1e9);
    p->measure_until = p->measure_from + (int64_t)(t->seconds * 1e9);
    for (int i = 0; i < conc; i++) {
        p->slots[i] = (slot_t){.phase = p, .id = i};
        slot_start(&p->slots[i]);
    }
    d->run(d, p);
    *out = (result_t){
        .ops_s = (double)p->hist.n / t->seconds,
        .p50_ms = hist_quantile(&p->hist, 0.50) / 1e6,
        .p99_ms = hist_quantile(&p->hist, 0.99) / 1e6,
        .errors = p->errors,
    };
    if (p->errors > 0)
        fprintf(stderr, "%s %s x%d: %llu errors, first %s\n", d->name, d->op_names[op], conc,
                (unsigned long long)p->errors, gw_errname(p->first_err));
    free(p);
}

/** BENCH_SECONDS (default 5) and the warm-up that goes with it; dies on a bad value. */
static inline void
parse_timing(timing_t *t)
{
    const char *env = getenv("BENCH_SECONDS");
    char *end = NULL;

    t->seconds = env != NULL ? strtod(env, &end) : 5;
    if (env != NULL && (end == env || *end != '\0' || !(t->seconds > 0)))
        die("BENCH_SECONDS must be a positive number of seconds, not '%s'", env);
    t->warmup = fmin(1.0, t->seconds / 5);
}

/* ---- in-process calls, each timed alone -------------------------------------------------- */

/** What one in-process operation costs: calls per second of the measured duration, and the
 *  percentiles of one call in microseconds. */
typedef struct {
    double ops_s, p50_us, p99_us;
} figures_t;

/** Run op(ctx) over and over for t's warm-up, then for t's duration with each call timed on
 *  its own (one clock read included); the figures into *out. Not reentrant (its histogram is
 *  static): the main thread only. */
static inline void
time_calls(void (*op)(void *ctx), void *ctx, const timing_t *t, figures_t *out)
{
    static hist_t hist;
    hist_t *h = memset(&hist, 0, sizeof hist);
    int64_t from = now_ns() + (int64_t)(t->warmup * 1e9);
    int64_t until = from + (int64_t)(t->seconds * 1e9), now = 0;

    while (now < until) {
        int64_t start = now_ns();
        op(ctx);
        now = now_ns();
        if (start >= from)
            hist_add(h, (uint64_t)(now - start));
    }
    *out = (figures_t){(double)h->n / t->seconds, hist_quantile(h, 0.50) / 1e3,
                       hist_quantile(h, 0.99) / 1e3};
}

/* ---- drivers whose completions arrive on the main thread's event_base ------------------- */

typedef struct {
    driver_t d;
    struct event_base *base;
} evdriver_t;

/** slot_done for an evdriver_t, ending the loop of evdriver_run with the phase's last call. */
static inline void
evdriver_done(slot_t *s, int err)
{
    evdriver_t *e = (evdriver_t *)s->phase->driver;

    slot_done(s, err);
    if (s->phase->inflight == 0)
        event_base_loopbreak(e->base);
}

/** A driver_t run for an evdriver_t. */
static inline void
evdriver_run(driver_t *d, phase_t *p)
{
    (void)p;
    /* The etcd conn's hand-off may be the base's only event; an empty moment must not end
     * the loop. */
    event_base_loop(((evdriver_t *)d)->base, EVLOOP_NO_EXIT_ON_EMPTY);
}

/* ---- etcdproto's client, as the server uses it ------------------------------------------ */

typedef struct {
    etcd_client_t *client;
    struct event_base *base; /* run by the main thread, which plays the worker */
    etcd_conn_t *conn;
} econn_t;

/** Connect to the etcd at url (--etcd-servers syntax) and make the base; dies on error. */
static inline void
econn_open(econn_t *e, const char *url)
{
    etcd_config_t cfg = {.servers = url};
    char err[256];

    if (etcd_client_new(&cfg, &e->client, err, sizeof err) != 0)
        die("etcd client: %s", err);
    evthread_use_pthreads();
    e->base = event_base_new();
    e->conn = etcd_conn_new(e->client, e->base);
}

/** Free what econn_open made; every other user of the base must be gone. */
static inline void
econn_close(econn_t *e)
{
    etcd_conn_free(e->conn);
    event_base_free(e->base);
    etcd_client_free(e->client);
}

/* ---- one call at a time on that client (set-up, clean-up, sequential writes) ----------- */

typedef struct {
    bool done;
    int err;
    int64_t revision; /* the header's revision */
    int64_t n;        /* keys deleted or counted */
} ecall_t;

/** Run e's base until c->done; dies when the call failed (what: for the message). */
static inline void
econn_wait(econn_t *e, ecall_t *c, const char *what)
{
    while (!c->done)
        event_base_loop(e->base, EVLOOP_ONCE | EVLOOP_NO_EXIT_ON_EMPTY);
    if (c->err != 0)
        die("etcd %s: %s", what, gw_strerror(c->err));
}

static inline void
ecall_put_done(int err, const Etcdserverpb__PutResponse *resp, void *ctx)
{
    ecall_t *c = ctx;

    c->done = true;
    c->err = err;
    if (err == 0)
        c->revision = resp->header->revision;
}

/** Put key=value and wait for it; returns the write's revision (dies on error). */
static inline int64_t
econn_put(econn_t *e, const char *key, const void *value, size_t len)
{
    ecall_t c = {0};
    etcd_bytes_t v = {value, len};

    if (etcd_put(e->conn, etcd_str(key), v, 0, false, ecall_put_done, &c) != 0)
        die("etcd put %s: malformed", key);
    econn_wait(e, &c, "put");
    return c.revision;
}

/**
 * Start the transaction kgate's create sends (gw_store_create) on conn: put key=value (no
 * lease) only if the key was never created, `txn(create_revision(key) == 0) put`; cb sees
 * succeeded false when it was. Returns etcd_txn_if's code. Thread: conn's base's.
 */
static inline int
create_txn_start(etcd_conn_t *conn, const char *key, const void *value, size_t len, etcd_txn_cb cb,
                 void *ctx)
{
    etcd_cmp_t cmp = {.key = etcd_str(key), .target = ETCD_CMP_CREATE, .result = ETCD_CMP_EQUAL};
    etcd_op_t put = {.kind = ETCD_OP_PUT, .key = cmp.key, .value = {value, len}};

    return etcd_txn_if(conn, &cmp, &put, NULL, cb, ctx);
}

static inline void
ecall_delete_done(int err, const Etcdserverpb__DeleteRangeResponse *resp, void *ctx)
{
    ecall_t *c = ctx;

    c->done = true;
    c->err = err;
    if (err == 0)
        c->n = resp->deleted;
}

/** The first key past every key that starts with prefix (prefix must not end in 0xff). */
static inline char *
prefix_end(const char *prefix)
{
    char *end = gw_strdup(prefix);

    end[strlen(end) - 1]++;
    return end;
}

/** Delete every key under prefix and wait; returns how many there were (dies on error). */
static inline int64_t
econn_delete_prefix(econn_t *e, const char *prefix)
{
    ecall_t c = {0};
    char *end = prefix_end(prefix);

    if (etcd_delete(e->conn, etcd_str(prefix), etcd_str(end), false, ecall_delete_done, &c) != 0)
        die("etcd delete %s: malformed", prefix);
    econn_wait(e, &c, "delete");
    free(end);
    return c.n;
}

static inline void
ecall_count_done(int err, const Etcdserverpb__RangeResponse *resp, void *ctx)
{
    ecall_t *c = ctx;

    c->done = true;
    c->err = err;
    if (err == 0) {
        c->n = resp->count;
        c->revision = resp->header->revision;
    }
}

/** How many keys start with prefix (dies on error). */
static inline int64_t
econn_count_prefix(econn_t *e, const char *prefix)
{
    ecall_t c = {0};
    char *end = prefix_end(prefix);
    etcd_range_req_t q = {.key = etcd_str(prefix), .range_end = etcd_str(end), .count_only = true};

    if (etcd_range(e->conn, &q, ecall_count_done, &c) != 0)
        die("etcd range %s: malformed", prefix);
    econn_wait(e, &c, "range");
    free(end);
    return c.n;
}

/* ---- kgate as a process, and its HTTPS clients ------------------------------------------ */

/** A field of /proc/<pid>/status in KiB ("VmRSS", "VmHWM"); -1 for pid 0 or an unreadable
 *  file. Thread: any. */
static inline long
proc_status_kb(pid_t pid, const char *field)
{
    char path[64], line[256];
    size_t n = strlen(field);
    long kb = -1;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    f = pid > 0 ? fopen(path, "r") : NULL;
    if (f == NULL)
        return -1;
    while (kb < 0 && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            kb = strtol(line + n + 1, NULL, 10);
    }
    fclose(f);
    return kb;
}

/** A pid given on the command line: a positive number, or "-" (none: 0). Dies otherwise. */
static inline pid_t
parse_pid(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (strcmp(s, "-") == 0)
        return 0;
    if (end == s || *end != '\0' || v <= 0)
        die("not a process id: '%s'", s);
    return (pid_t)v;
}

/** A TLS client context for kgate: trusts PKI_DIR/ca.crt (which signed kgate's serving
 *  certificate, checked) and presents PKI_DIR/admin.crt with admin.key. Dies on error. */
static inline SSL_CTX *
tls_client_new(const char *pki)
{
    static const char *const files[] = {"ca.crt", "admin.crt", "admin.key"};
    char *path[3];
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

    for (int i = 0; i < 3; i++)
        path[i] = gw_sprintf("%s/%s", pki, files[i]);
    if (SSL_CTX_load_verify_locations(ctx, path[0], NULL) != 1 ||
        SSL_CTX_use_certificate_chain_file(ctx, path[1]) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, path[2], SSL_FILETYPE_PEM) != 1)
        die("cannot load the PKI in %s: %s", pki, ERR_error_string(ERR_get_error(), NULL));
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    for (int i = 0; i < 3; i++)
        free(path[i]);
    return ctx;
}

/** A kgate to connect to, as the admin. */
typedef struct {
    const char *authority; /* IP:PORT, inside the URL given */
    struct sockaddr_storage addr;
    int addr_len;
    SSL_CTX *tls; /* tls_client_new's */
} kgate_addr_t;

/** Parse an https://IP:PORT URL (kept by the caller) and load PKI_DIR; dies on error. */
static inline void
kgate_addr_init(kgate_addr_t *k, const char *url, const char *pki)
{
    const char *scheme = "https://";

    k->authority = url + strlen(scheme);
    k->addr_len = (int)sizeof k->addr;
    if (strncmp(url, scheme, strlen(scheme)) != 0 ||
        evutil_parse_sockaddr_port(k->authority, (struct sockaddr *)&k->addr, &k->addr_len) != 0)
        die("not an https://IP:PORT URL: %s", url);
    k->tls = tls_client_new(pki);
}

/** A TLS client context that trusts PKI_DIR/ca.crt and presents no certificate: for
 *  anonymous requests and bearer tokens. The caller frees it. Dies on error. */
static inline SSL_CTX *
tls_client_anon(const char *pki)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    char *ca = gw_sprintf("%s/ca.crt", pki);

    if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1)
        die("cannot load %s", ca);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    free(ca);
    return ctx;
}

/** A TLS connection's state for kgate from context tls: kgate's serving certificate must name
 *  the IP address connected to. The caller owns it (SSL_free, or a bufferevent that closes
 *  it). */
static inline SSL *
kgate_ssl_with(const kgate_addr_t *k, SSL_CTX *tls)
{
    SSL *ssl = SSL_new(tls);
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)&k->addr;
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&k->addr;

    if (k->addr.ss_family == AF_INET)
        X509_VERIFY_PARAM_set1_ip(SSL_get0_param(ssl), (const uint8_t *)&v4->sin_addr, 4);
    else
        X509_VERIFY_PARAM_set1_ip(SSL_get0_param(ssl), (const uint8_t *)&v6->sin6_addr, 16);
    return ssl;
}

/** kgate_ssl_with k's own context (the admin's certificate). */
static inline SSL *
kgate_ssl_new(const kgate_addr_t *k)
{
    return kgate_ssl_with(k, k->tls);
}

/** Why an OpenSSL bufferevent failed (`what` as its event callback got it), in a static
 *  buffer. Thread: the bufferevent's. */
static inline const char *
tls_bev_error(struct bufferevent *bev, short what)
{
    static char buf[256];
    unsigned long e = bufferevent_get_openssl_error(bev);

    /* libevent also queues bare SSL_get_error codes, which name no library. */
    if (e != 0 && ERR_GET_LIB(e) != 0)
        return ERR_error_string(e, buf);
    if (what & BEV_EVENT_EOF)
        return "connection closed by the server";
    return evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR());
}

/* ---- the HTTPS keep-alive client for kgate (bench_https.c) ------------------------------- */

#define HTTPS_ANY_STATUS (-1)
/* An answer's resourceVersion (or a LIST's, which kgate's own writes move on) may gain a
 * digit during a run: lengths checked are allowed this much either way. */
#define HTTPS_LEN_SLACK 4

typedef enum {
    HTTPS_HEAD,       /* status line and header lines */
    HTTPS_BODY,       /* `left` bytes of a Content-Length body */
    HTTPS_CHUNK_SIZE, /* the size line of the next chunk */
    HTTPS_CHUNK_DATA, /* `left` bytes of the current chunk */
    HTTPS_CHUNK_END,  /* the CRLF after a chunk */
    HTTPS_TRAILER,    /* trailer lines, up to the empty one */
} https_state_t;

/** One keep-alive connection to kgate with one request in flight. The owner sets k and tls
 *  (they apply when the connection opens, on the next send after https_close) and may read
 *  status, len and body once answered; the rest is the client's. */
typedef struct {
    struct event_base *base;
    const kgate_addr_t *k;   /* the kgate to connect to */
    SSL_CTX *tls;            /* the credential presented; NULL: k->tls (the admin's) */
    struct bufferevent *bev; /* NULL until used, and once closed */
    const char *what;        /* the request in flight, for messages; NULL when idle */
    int want;                /* the status it must be answered with, or HTTPS_ANY_STATUS */
    size_t ref_len;          /* the body length it must have (give or take); 0: any */
    slot_t *slot;            /* its caller in a phase; NULL for a set-up call */
    https_state_t state;
    bool chunked;
    int status;            /* 0 until the status line is read */
    size_t left;           /* bytes to come of the body or of the current chunk */
    size_t len;            /* body bytes so far */
    struct evbuffer *body; /* kept for set-up calls and failures; otherwise drained */
} https_conn_t;

/** An idle, closed connection to k whose answers are delivered on base. Thread: base's. */
void https_conn_init(https_conn_t *c, struct event_base *base, const kgate_addr_t *k);

/** Close c (an idle one; a no-op when closed); the next send reopens it. Thread: base's. */
void https_close(https_conn_t *c);

/**
 * Send `req` (kept by the caller until answered) on c, opening it first if need be. The
 * answer must have status `want` (or any) and, when ref_len > 0, about that body length;
 * anything else, or a broken connection, ends the program with a message. Once answered,
 * slot's caller is told (evdriver_done, for a phase), or for a NULL slot c->base's loop is
 * broken. Thread: base's.
 */
void https_send(https_conn_t *c, const char *req, int want, size_t ref_len, slot_t *slot);

/**
 * One request with nothing else in flight (set-up and checks): send it and run c->base until
 * it is answered (dies unless with `want`). Returns the status; the body goes to *body (the
 * caller frees it) unless body is NULL. Thread: base's, outside its loop.
 */
int https_call(https_conn_t *c, const char *req, int want, struct evbuffer **body);

/** Close conns[0..n) (idle ones): the next row of a phase opens its own afresh, to its own
 *  server or with its own credential. Thread: their base's. */
void https_close_all(https_conn_t *conns, int n);

/**
 * One request of the admin (k's own certificate) to k with https_call on c, which is closed
 * afterwards: for set-up and checks between phases. Dies unless answered `want`. Returns the
 * answer's body length. Thread: c->base's, outside its loop.
 */
size_t https_call_admin(https_conn_t *c, const kgate_addr_t *k, const char *method,
                        const char *path, const char *body, int want);

/** A request to kgate k. */
typedef struct {
    const kgate_addr_t *k;
    const char *method, *path;
    const char *token;  /* a bearer token, or NULL */
    const char *type;   /* the body's Content-Type; NULL: application/json */
    const char *body;   /* NULL: none */
    const char *accept; /* the Accept header; NULL: application/json */
} https_req_t;

/** The bytes of request r, formatted once so that a phase sends them as they are; the
 *  caller frees them. Thread: any. */
char *https_request(const https_req_t *r);

/* Data bytes that make a ConfigMap's GET answer 2 KiB (give or take its resourceVersion's
 * digits). */
#define BENCH_CM_PAD_LEN 1804

/** A ConfigMap named `name` of about 2 KiB, its data shifted by i, as JSON; the caller frees
 *  it. Thread: any. */
static inline char *
bench_configmap_json(const char *name, int i)
{
    char pad[BENCH_CM_PAD_LEN + 1];

    for (int k = 0; k < BENCH_CM_PAD_LEN; k++)
        pad[k] = (char)('a' + (i + k) % 26);
    pad[BENCH_CM_PAD_LEN] = '\0';
    return gw_sprintf("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
                      "\"%s\",\"labels\":{\"app\":\"bench\"}},\"data\":{\"config\":\"%s\"}}",
                      name, pad);
}

/** Whether doc answers a GET of the ConfigMap `get_name` (bench_configmap_json's, whole) or,
 *  with `list`, a LIST of the n of them (and the namespace's kube-root-ca.crt when published).
 *  Thread: any. */
static inline bool
bench_configmaps_ok(const json_t *doc, bool list, const char *get_name, size_t n)
{
    const json_t *items = json_object_get(doc, "items");
    const char *name = json_string_value(json_object_get(json_object_get(doc, "metadata"), "name"));
    const char *config = json_string_value(json_object_get(json_object_get(doc, "data"), "config"));

    if (list)
        return json_array_size(items) == n || json_array_size(items) == n + 1;
    return name != NULL && strcmp(name, get_name) == 0 && config != NULL &&
           strlen(config) == BENCH_CM_PAD_LEN;
}

#endif
