/*
 * bench_list: a LIST of a large collection through kgate beside the etcd reads it stands for.
 * 10,000 ConfigMaps of 2 KiB each are written straight to etcd in the layout and JSON kgate
 * stores (the key <prefix>/configmaps/<namespace>/<name>, sorted compact JSON without a
 * resourceVersion), then read back:
 *  - paged: LIST ?limit=500 following continue to the end, over one HTTPS keep-alive
 *    connection, beside a paged etcd Range of the same prefix (500 keys a page, every page at
 *    the first one's revision) through etcdproto's client;
 *  - unpaged: one LIST without limit, beside one Range of the whole prefix.
 * Each row reports the median time of its rounds and the ratio, and kgate's peak resident
 * memory above its idle level, sampled from /proc/<pid>/status every 10 ms while the kgate
 * reads run (the first round of each row reads every item and checks it; the other rounds
 * check lengths, as bench_api does). The unpaged row runs first, so that its peak is its own
 * (glibc keeps what a row freed: the paged row's peak is at least the unpaged one's).
 * kgate's read cache of the collection is built before the rows (a first GET, then waiting
 * until /metrics shows every object cached): its memory is reported on a line of its own, and
 * the rows' growth is what the lists take beyond it.
 *
 * Usage: bench_list https://IP:PORT PKI_DIR ETCD_URL ETCD_PREFIX KGATE_PID
 *   PKI_DIR as for bench_api; ETCD_PREFIX is kgate's --etcd-prefix; KGATE_PID the process
 *   whose memory is sampled (a kgate that has served nothing else yet reports the clearest
 *   figure: freed memory that glibc keeps is not given back to the system). The namespace
 *   must be empty; its objects are deleted at the end. BENCH_SECONDS (default 5) is the number
 *   of rounds per row. Any failed or unexpected answer ends the run with exit status 1.
 */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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
#include <event2/util.h>
#include <jansson.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "bench.h"
#include "etcd.h"
#include "gw_alloc.h"
#include "gw_err.h"

#define NAMESPACE "bench-list"
#define COLLECTION "/api/v1/namespaces/" NAMESPACE "/configmaps"
#define N_OBJECTS 10000
#define PAGE 500
#define OBJECT_BYTES 2048 /* each stored value */
#define SEED_CONC 64      /* puts in flight while seeding */
#define MAX_ROUNDS 50
#define SAMPLE_NS 10000000 /* memory sampling period: 10 ms */
/* Bytes an answer may differ by from the one checked: its resourceVersion and continue tokens
 * move with kgate's own writes (leader-election renewals), a digit at a time. */
#define LEN_SLACK 64

/* ---- the objects ----------------------------------------------------------------------- */

/* The stored JSON of object i: kgate's canonical encoding (keys sorted), padded by its data
 * to OBJECT_BYTES. */
static char *
object_json(int i)
{
    const char *head = "{\"apiVersion\":\"v1\",\"data\":{\"config\":\"";
    char tail[256];
    int tail_len = snprintf(tail, sizeof tail,
                            "\"},\"kind\":\"ConfigMap\",\"metadata\":{\"creationTimestamp\":"
                            "\"2024-01-01T00:00:00Z\",\"labels\":{\"app\":\"bench\"},\"name\":"
                            "\"cm-%05d\",\"namespace\":\"" NAMESPACE "\",\"uid\":"
                            "\"00000000-0000-4000-8000-%012d\"}}",
                            i, i);
    size_t pad = OBJECT_BYTES - strlen(head) - (size_t)tail_len;
    char *out = gw_malloc(OBJECT_BYTES + 1);
    char *p = stpcpy(out, head);

    for (size_t k = 0; k < pad; k++)
        *p++ = (char)('a' + (i + k) % 26);
    strcpy(p, tail);
    return out;
}

typedef struct {
    econn_t *etcd;
    const char *prefix; /* <etcd prefix>/configmaps/<namespace>/ */
    int next, inflight;
    ecall_t *all; /* done when the last put is acknowledged */
} seeder_t;

static void seed_next(seeder_t *s);

static void
seed_done(int err, const Etcdserverpb__PutResponse *resp, void *ctx)
{
    seeder_t *s = ctx;

    (void)resp;
    s->inflight--;
    if (err != 0 && s->all->err == 0)
        s->all->err = err;
    seed_next(s);
}

static void
seed_next(seeder_t *s)
{
    while (s->all->err == 0 && s->next < N_OBJECTS && s->inflight < SEED_CONC) {
        char *key = gw_sprintf("%scm-%05d", s->prefix, s->next);
        char *value = object_json(s->next++);
        etcd_bytes_t v = {(const uint8_t *)value, strlen(value)};
        if (etcd_put(s->etcd->conn, etcd_str(key), v, 0, false, seed_done, s) != 0)
            die("etcd put %s: malformed", key);
        s->inflight++;
        free(key);
        free(value);
    }
    if (s->inflight == 0)
        s->all->done = true;
}

/* Write the objects straight to etcd, SEED_CONC at a time. */
static void
seed(econn_t *etcd, const char *prefix)
{
    ecall_t all = {0};
    seeder_t s = {.etcd = etcd, .prefix = prefix, .all = &all};

    if (econn_count_prefix(etcd, prefix) != 0)
        die("%s already holds keys: the namespace must be empty", prefix);
    seed_next(&s);
    econn_wait(etcd, &all, "put");
    if (econn_count_prefix(etcd, prefix) != N_OBJECTS)
        die("%s does not hold the %d objects written", prefix, N_OBJECTS);
}

/* ---- a blocking HTTPS client with one keep-alive connection ----------------------------- */

typedef struct {
    kgate_addr_t kgate;
    const char *authority; /* IP:PORT */
    int fd;                /* -1 while closed */
    SSL *ssl;
    char in[64 * 1024];
    size_t in_off, in_len; /* what `in` holds unread */
} hclient_t;

static void
hc_close(hclient_t *h)
{
    if (h->ssl != NULL)
        SSL_free(h->ssl);
    if (h->fd >= 0)
        close(h->fd);
    h->ssl = NULL;
    h->fd = -1;
    h->in_off = h->in_len = 0;
}

static void
hc_connect(hclient_t *h)
{
    const kgate_addr_t *k = &h->kgate;
    int one = 1;

    h->fd = socket(k->addr.ss_family, SOCK_STREAM, 0);
    if (h->fd < 0 || connect(h->fd, (const struct sockaddr *)&k->addr, (socklen_t)k->addr_len) != 0)
        die("cannot connect to %s: %s", h->authority, strerror(errno));
    /* Nagle plus delayed ACKs would hold back each request behind its TLS record. */
    setsockopt(h->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    h->ssl = kgate_ssl_new(k);
    SSL_set_fd(h->ssl, h->fd);
    if (SSL_connect(h->ssl) != 1)
        die("TLS with %s: %s", h->authority, ERR_error_string(ERR_get_error(), NULL));
}

/* Read more into `in` (which must have been consumed); dies at the end of the connection. */
static void
hc_fill(hclient_t *h)
{
    int n = SSL_read(h->ssl, h->in, (int)sizeof h->in);

    if (n <= 0)
        die("reading from %s: the connection ended (%d)", h->authority, SSL_get_error(h->ssl, n));
    h->in_off = 0;
    h->in_len = (size_t)n;
}

/* One CRLF-terminated line (without the CRLF) into line[cap]; dies if it does not fit. */
static void
hc_line(hclient_t *h, char *line, size_t cap)
{
    size_t n = 0;

    for (;;) {
        if (h->in_len == 0)
            hc_fill(h);
        char c = h->in[h->in_off++];
        h->in_len--;
        if (c == '\n')
            break;
        if (n + 1 >= cap)
            die("a line from %s is too long", h->authority);
        line[n++] = c;
    }
    if (n > 0 && line[n - 1] == '\r')
        n--;
    line[n] = '\0';
}

/* n bytes of the body into b. */
static void
hc_bytes(hclient_t *h, size_t n, struct evbuffer *b)
{
    while (n > 0) {
        if (h->in_len == 0)
            hc_fill(h);
        size_t k = n < h->in_len ? n : h->in_len;
        evbuffer_add(b, h->in + h->in_off, k);
        h->in_off += k;
        h->in_len -= k;
        n -= k;
    }
}

static void
hc_chunked(hclient_t *h, struct evbuffer *b)
{
    char line[256];
    size_t n;

    do {
        hc_line(h, line, sizeof line);
        n = strtoull(line, NULL, 16);
        hc_bytes(h, n, b);
        hc_line(h, line, sizeof line); /* the CRLF after the chunk, or the end of trailers */
    } while (n > 0);
}

/* GET path; the body into b (emptied first). Returns the status. */
static int
hc_get(hclient_t *h, const char *path, struct evbuffer *b)
{
    char *req = gw_sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: bench_list\r\n"
                           "Accept: application/json\r\n\r\n",
                           path, h->authority);
    char line[1024];
    int status = 0;
    long long length = -1;
    bool chunked = false;

    if (h->ssl == NULL)
        hc_connect(h);
    if (SSL_write(h->ssl, req, (int)strlen(req)) <= 0)
        die("writing to %s failed", h->authority);
    free(req);
    evbuffer_drain(b, evbuffer_get_length(b));
    hc_line(h, line, sizeof line);
    if (sscanf(line, "HTTP/1.%*d %d", &status) != 1)
        die("GET %s: malformed status line '%s'", path, line);
    for (hc_line(h, line, sizeof line); line[0] != '\0'; hc_line(h, line, sizeof line)) {
        if (strncasecmp(line, "content-length:", 15) == 0)
            length = strtoll(line + 15, NULL, 10);
        else if (strncasecmp(line, "transfer-encoding:", 18) == 0)
            chunked = strcasestr(line + 18, "chunked") != NULL;
    }
    if (chunked)
        hc_chunked(h, b);
    else if (length >= 0)
        hc_bytes(h, (size_t)length, b);
    else
        die("GET %s: an answer without a length", path);
    return status;
}

/* GET path and die unless it answers 200. */
static void
hc_get_ok(hclient_t *h, const char *path, struct evbuffer *b)
{
    int status = hc_get(h, path, b);
    size_t n = evbuffer_get_length(b);

    if (status != 200)
        die("GET %s: status %d: %.*s", path, status, (int)(n < 400 ? n : 400),
            (const char *)evbuffer_pullup(b, -1));
}

static void
hc_init(hclient_t *h, const char *url, const char *pki)
{
    kgate_addr_init(&h->kgate, url, pki);
    h->authority = h->kgate.authority;
    h->fd = -1;
}

/* The value of an unlabelled metric on kgate's /metrics (-1 when absent). */
static double
kgate_metric(hclient_t *h, struct evbuffer *b, const char *name)
{
    size_t len = strlen(name);

    hc_get_ok(h, "/metrics", b);
    evbuffer_add(b, "", 1);
    for (const char *l = (const char *)evbuffer_pullup(b, -1); l != NULL; l = strchr(l, '\n')) {
        l += *l == '\n';
        if (strncmp(l, name, len) == 0 && l[len] == ' ')
            return strtod(l + len + 1, NULL);
    }
    return -1;
}

/* Wait (up to 30 s) until kgate's read caches hold `n` objects; their bytes, or -1 when it
 * keeps no cache. */
static double
await_cache(hclient_t *h, struct evbuffer *b, long n)
{
    for (int i = 0; i < 300; i++) {
        double objects = kgate_metric(h, b, "kgate_read_cache_objects");
        if (objects >= (double)n)
            return kgate_metric(h, b, "kgate_read_cache_bytes");
        if (objects < 0 || (i >= 20 && kgate_metric(h, b, "kgate_read_caches") <= 0))
            return -1; /* no read cache (--watch-cache=false) */
        usleep(100000);
    }
    return -1;
}

/* ---- kgate's memory, sampled from a thread ---------------------------------------------- */

typedef struct {
    pid_t pid;
    atomic_bool on;     /* sampling while set */
    atomic_long max_kb; /* the highest VmRSS seen */
    pthread_t thread;
} sampler_t;

static void *
sample(void *arg)
{
    sampler_t *s = arg;
    struct timespec period = {0, SAMPLE_NS};

    while (atomic_load(&s->on)) {
        long kb = proc_status_kb(s->pid, "VmRSS");
        if (kb > atomic_load(&s->max_kb))
            atomic_store(&s->max_kb, kb);
        nanosleep(&period, NULL);
    }
    return NULL;
}

static void
sampler_start(sampler_t *s)
{
    atomic_store(&s->on, true);
    if (pthread_create(&s->thread, NULL, sample, s) != 0)
        die("cannot start the memory sampler");
}

static void
sampler_stop(sampler_t *s)
{
    atomic_store(&s->on, false);
    pthread_join(s->thread, NULL);
}

/* ---- one LIST through kgate ------------------------------------------------------------- */

typedef struct {
    hclient_t *h;
    struct evbuffer *body;
    size_t ref_len[2]; /* the bytes a checked paged / unpaged list came to */
} klist_t;

/* The list's metadata: the object after the first "metadata": (kube writes kind, apiVersion,
 * metadata, items, in that order), read without the items. */
static json_t *
list_meta(struct evbuffer *b)
{
    const char *key = "\"metadata\":";
    size_t len = evbuffer_get_length(b);
    const char *text = (const char *)evbuffer_pullup(b, -1);
    const char *at = text != NULL ? memmem(text, len, key, strlen(key)) : NULL;

    if (at == NULL)
        return NULL;
    at += strlen(key);
    return json_loadb(at, len - (size_t)(at - text), JSON_DISABLE_EOF_CHECK, NULL);
}

/* Every item of a page, checked against the objects in order from *next. */
static void
check_items(struct evbuffer *b, int *next)
{
    size_t len = evbuffer_get_length(b);
    const char *text = (const char *)evbuffer_pullup(b, -1);
    json_t *doc = json_loadb(text, len, 0, NULL);
    json_t *items = json_object_get(doc, "items");

    if (!json_is_array(items))
        die("a LIST answer that is not a list: %.*s", (int)(len < 200 ? len : 200), text);
    for (size_t i = 0; i < json_array_size(items); i++) {
        const json_t *meta = json_object_get(json_array_get(items, i), "metadata");
        const char *name = json_string_value(json_object_get(meta, "name"));
        const char *rv = json_string_value(json_object_get(meta, "resourceVersion"));
        char want[16];
        snprintf(want, sizeof want, "cm-%05d", (*next)++);
        if (name == NULL || strcmp(name, want) != 0 || rv == NULL)
            die("item %d of the LIST is not %s with a resourceVersion", *next - 1, want);
    }
    json_decref(doc);
}

/* One whole LIST (paged when limit > 0); with check, every item is verified, otherwise the
 * length must be the checked one's. Returns the seconds it took. */
static double
kgate_list(klist_t *k, int limit, bool check)
{
    char *cont = NULL;
    size_t total = 0;
    int next = 0;
    int64_t t0 = now_ns();

    do {
        char *path = cont != NULL ? gw_sprintf(COLLECTION "?limit=%d&continue=%s", limit, cont)
                     : limit > 0  ? gw_sprintf(COLLECTION "?limit=%d", limit)
                                  : gw_strdup(COLLECTION);
        hc_get_ok(k->h, path, k->body);
        json_t *meta = list_meta(k->body);
        const char *c = json_string_value(json_object_get(meta, "continue"));
        free(cont);
        cont = c != NULL ? gw_strdup(c) : NULL;
        json_decref(meta);
        free(path);
        total += evbuffer_get_length(k->body);
        if (check)
            check_items(k->body, &next);
    } while (cont != NULL);
    double s = (double)(now_ns() - t0) / 1e9;
    size_t *ref = &k->ref_len[limit > 0];
    if (check && next != N_OBJECTS)
        die("the LIST gave %d items, not %d", next, N_OBJECTS);
    if (check)
        *ref = total;
    else if (total + LEN_SLACK < *ref || total > *ref + LEN_SLACK)
        die("a LIST of %zu bytes, the checked one had %zu", total, *ref);
    return s;
}

/* ---- the same reads from etcd ----------------------------------------------------------- */

typedef struct {
    econn_t *etcd;
    const char *prefix;
    char *end;
    int64_t limit, revision, count;
    char *next; /* the key the next page starts at */
    ecall_t done;
} elist_t;

static void elist_page(elist_t *e);

static void
elist_got(int err, const Etcdserverpb__RangeResponse *resp, void *ctx)
{
    elist_t *e = ctx;

    if (err != 0) {
        e->done = (ecall_t){.done = true, .err = err};
        return;
    }
    e->revision = resp->header->revision;
    e->count += (int64_t)resp->n_kvs;
    free(e->next);
    e->next = NULL;
    if (!resp->more || resp->n_kvs == 0) {
        e->done.done = true;
        return;
    }
    /* The last key with a NUL appended: the first key after it. */
    const ProtobufCBinaryData *last = &resp->kvs[resp->n_kvs - 1]->key;
    e->next = gw_calloc(1, last->len + 2);
    memcpy(e->next, last->data, last->len);
    elist_page(e);
}

static void
elist_page(elist_t *e)
{
    const char *from = e->next != NULL ? e->next : e->prefix;
    size_t len = e->next != NULL ? strlen(from) + 1 : strlen(from);
    etcd_range_req_t q = {.key = {(const uint8_t *)from, len},
                          .range_end = etcd_str(e->end),
                          .revision = e->revision,
                          .limit = e->limit};

    if (etcd_range(e->etcd->conn, &q, elist_got, e) != 0)
        die("etcd range: malformed");
}

/* A whole Range of the prefix, in pages of `limit` keys at one revision (0: one page).
 * Returns the seconds it took. */
static double
etcd_list(econn_t *etcd, const char *prefix, int64_t limit)
{
    elist_t e = {.etcd = etcd, .prefix = prefix, .end = prefix_end(prefix), .limit = limit};
    int64_t t0 = now_ns();

    elist_page(&e);
    econn_wait(etcd, &e.done, "range");
    double s = (double)(now_ns() - t0) / 1e9;
    if (e.count != N_OBJECTS)
        die("the etcd Range gave %lld keys, not %d", (long long)e.count, N_OBJECTS);
    free(e.end);
    return s;
}

/* ---- main ------------------------------------------------------------------------------- */

typedef struct {
    double kgate_s, etcd_s;
    long peak_kb; /* kgate's VmRSS at its highest during the row */
} row_t;

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A checked round, then `rounds` timed rounds of kgate and of etcd, kgate's memory sampled. */
static row_t
run_row(klist_t *k, econn_t *etcd, const char *prefix, int limit, int rounds, pid_t pid)
{
    sampler_t s = {.pid = pid};
    double kt[MAX_ROUNDS], et[MAX_ROUNDS];

    atomic_init(&s.max_kb, -1);
    sampler_start(&s);
    kgate_list(k, limit, true);
    for (int i = 0; i < rounds; i++) {
        kt[i] = kgate_list(k, limit, false);
        et[i] = etcd_list(etcd, prefix, limit);
    }
    sampler_stop(&s);
    return (row_t){median(kt, rounds), median(et, rounds), atomic_load(&s.max_kb)};
}

static void
print_row(const char *name, const row_t *r, long idle_kb)
{
    printf("%-18s  %8.3f  %8.3f  %17.2f  %24.1f\n", name, r->kgate_s, r->etcd_s,
           r->etcd_s > 0 ? r->kgate_s / r->etcd_s : 0.0,
           r->peak_kb >= 0 && idle_kb >= 0 ? (double)(r->peak_kb - idle_kb) / 1024 : -1.0);
    fflush(stdout);
}

static void
print_table(const klist_t *k, const row_t *whole, const row_t *paged, long idle_kb,
            const char *prefix, int rounds, double cache_bytes, long cache_kb)
{
    printf("%d ConfigMaps of %d bytes as stored, written straight to etcd under %s; "
           "median of %d rounds\n",
           N_OBJECTS, OBJECT_BYTES, prefix, rounds);
    printf("kgate: LIST over HTTPS keep-alive, %.1f MB unpaged / in %d pages; etcd: Range through "
           "etcdproto's client, pages of %d keys at the first page's revision\n",
           (double)k->ref_len[0] / 1e6, N_OBJECTS / PAGE, PAGE);
    if (cache_bytes >= 0)
        printf("kgate's read cache of the collection: %.1f MB of keys and values, RSS %.1f MB\n",
               cache_bytes / 1e6, (double)cache_kb / 1024);
    printf("kgate's idle RSS %.1f MB (cache built), sampled every 10 ms during its lists\n\n",
           (double)idle_kb / 1024);
    printf("list                 kgate s    etcd s  ratio(kgate/etcd)  kgate peak RSS growth MB\n");
    print_row("unpaged", whole, idle_kb);
    print_row("paged (limit=500)", paged, idle_kb);
}

int
main(int argc, char **argv)
{
    econn_t etcd;
    hclient_t h = {0};
    klist_t k = {.h = &h, .body = evbuffer_new()};
    timing_t t;

    if (argc != 6)
        die("usage: bench_list https://IP:PORT PKI_DIR ETCD_URL ETCD_PREFIX KGATE_PID");
    signal(SIGPIPE, SIG_IGN); /* a connection kgate closes is an error reported, not a kill */
    parse_timing(&t);
    int rounds = (int)fmin(MAX_ROUNDS, fmax(1, round(t.seconds)));
    pid_t pid = parse_pid(argv[5]);
    char *prefix = gw_sprintf("%s/configmaps/" NAMESPACE "/", argv[4]);
    econn_open(&etcd, argv[3]);
    hc_init(&h, argv[1], argv[2]);
    seed(&etcd, prefix);
    long before_kb = proc_status_kb(pid, "VmRSS");
    hc_get_ok(&h, COLLECTION "/cm-00000", k.body); /* kgate reads what was written */
    double cache_bytes = await_cache(&h, k.body, N_OBJECTS);
    long idle_kb = proc_status_kb(pid, "VmRSS");

    row_t whole = run_row(&k, &etcd, prefix, 0, rounds, pid);
    row_t paged = run_row(&k, &etcd, prefix, PAGE, rounds, pid);
    print_table(&k, &whole, &paged, idle_kb, prefix, rounds, cache_bytes, idle_kb - before_kb);

    econn_delete_prefix(&etcd, prefix);
    hc_close(&h);
    SSL_CTX_free(h.kgate.tls);
    evbuffer_free(k.body);
    free(prefix);
    econn_close(&etcd);
    return 0;
}
