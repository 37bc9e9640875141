/*
 * bench_watch: many watchers of one collection on one kgate, beside as many watches directly
 * on etcd. N clients (1000 unless told) watch one namespace's ConfigMaps through kgate (GET
 * ?watch=1 from a
 * resourceVersion, each on its own HTTPS connection with the admin's client certificate,
 * newline-delimited JSON events over chunked transfer), all driven by this program's one
 * libevent thread; then N etcd watches of the same keys through etcdproto's client (each
 * its own gRPC stream, multiplexed on one connection as kube-apiserver's are).
 *
 * A ConfigMap of 2 KiB (kgate's stored JSON) is written straight to etcd, one write at a
 * time, the next once every watcher has the last: kgate and etcd are fed by the same writer,
 * so the difference is the delivery. Per row:
 *  - memory per watcher: the server's VmRSS once every watch is open and has delivered one
 *    event, minus its VmRSS before they were opened, over the number of watchers (kgate: its
 *    process; etcd: its process, when its pid is known);
 *  - per delivery: from a write's start to one watcher having its event (p50, p99 of all);
 *  - to all: from a write's start to the last watcher having it (p50, p99 of all writes).
 * The client is one thread on the same CPUs as the servers, so a write's deliveries are read
 * one after the other: the spread is partly the client's.
 *
 * With 1000 watchers, the same watchers then ask for protobuf (application/vnd.kubernetes.protobuf:
 * length-prefixed WatchEvent frames, each event encoded once and shared): the ratios are
 * protobuf over JSON, both through kgate.
 *
 * Usage: bench_watch https://IP:PORT PKI_DIR ETCD_URL ETCD_PREFIX KGATE_PID ETCD_PID [N]
 *   PKI_DIR as for bench_api; ETCD_PREFIX is kgate's --etcd-prefix; ETCD_PID may be "-"
 *   (etcd's memory is then not reported). The memory per watcher is only right for a kgate and
 *   an etcd that served no watchers before. BENCH_SECONDS (default 5) sets the writes per row:
 *   40 per second of it for 1000 watchers, a tenth of that for more (each write reaches them
 *   all before the next). The object is deleted at the end. Any failed or unexpected answer
 *   ends the run with exit status 1.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/util.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "bench.h"
#include "etcd.h"
#include "gw_alloc.h"
#include "gw_err.h"

#define NAMESPACE "bench-watch"
#define COLLECTION "/api/v1/namespaces/" NAMESPACE "/configmaps"
#define OBJECT_NAME "watched"
#define N_DEFAULT 1000 /* watchers unless told; the protobuf row is measured at this count */
#define N_MAX 100000
#define OPENING 32       /* watches being opened at once (TLS handshakes in flight) */
#define VALUE_BYTES 2048 /* the object as stored */
#define WRITES_PER_S 40  /* writes per second of BENCH_SECONDS */
#define WAIT_S 60        /* the longest any step may take, plus 10 ms per watcher */
#define RV_FIELD "\"resourceVersion\":\""

typedef struct bench bench_t;

/* ---- watchers through kgate: HTTPS, chunked, one JSON event per line ------------------- */

typedef enum {
    READ_HEAD,       /* status line and headers */
    READ_CHUNK_SIZE, /* the size line of the next chunk */
    READ_CHUNK_DATA, /* `left` bytes of it */
    READ_CHUNK_END,  /* the CRLF after it */
} rstate_t;

typedef struct {
    bench_t *b;
    int id;
    struct bufferevent *bev;
    rstate_t state;
    int status;
    bool chunked;
    size_t left;
    struct evbuffer *lines; /* the body, de-chunked, up to its last whole line or frame */
} hwatch_t;

/* A watch directly on etcd. */
typedef struct {
    bench_t *b;
    int id;
    etcd_watch_t *w; /* NULL once its cancellation was confirmed */
} ewatch_t;

struct bench {
    econn_t etcd;
    kgate_addr_t kgate;
    char *key, *prefix; /* the object's etcd key; the collection's, in its namespace */
    char *request;      /* the watch request, from `from_rev` */
    bool protobuf;      /* the kgate watches ask for protobuf frames */
    int64_t from_rev;   /* the revision the watches start after: the last write's */
    int n;              /* watchers */
    int wait_s;         /* the longest a step may take */
    hwatch_t *hw;       /* [n] */
    ewatch_t *ew;       /* [n] */
    int opened, open;   /* watches started; watches answered 200 */
    int64_t *got_seq;   /* [n]: the write each watcher last got */
    int64_t *last_rv;   /* [n] */
    /* the write in flight */
    int64_t seq;     /* writes so far */
    int64_t sent_at; /* when the write started */
    int64_t rev;     /* its revision, once etcd answered */
    bool put_done;
    int pending; /* watchers yet to get it */
    bool measured;
    hist_t per_delivery, to_all;
    int ended; /* etcd watches whose cancellation was confirmed */
    struct event *deadline;
    const char *step; /* what the deadline is for, for its message */
};

/* The wait for `step` ran past WAIT_S. */
static void
on_deadline(evutil_socket_t fd, short what, void *arg)
{
    bench_t *b = arg;

    (void)fd;
    (void)what;
    die("%s: nothing after %d s (%d of %d watches open, %d deliveries pending)", b->step, b->wait_s,
        b->open, b->n, b->pending);
}

/* Run the loop until done(b), for at most b->wait_s. */
static void
wait_until(bench_t *b, bool (*done)(const bench_t *b), const char *step)
{
    struct timeval tv = {b->wait_s, 0};

    b->step = step;
    evtimer_add(b->deadline, &tv);
    while (!done(b))
        event_base_loop(b->etcd.base, EVLOOP_ONCE | EVLOOP_NO_EXIT_ON_EMPTY);
    evtimer_del(b->deadline);
}

static bool
all_open(const bench_t *b)
{
    return b->open == b->n;
}

static bool
all_delivered(const bench_t *b)
{
    return b->put_done && b->pending == 0;
}

static bool
all_ended(const bench_t *b)
{
    return b->ended == b->n;
}

/* Watcher i has the event of revision rv. */
static void
delivered(bench_t *b, int i, int64_t rv)
{
    int64_t now = now_ns();

    if (b->pending == 0 || b->got_seq[i] == b->seq)
        die("watcher %d: an event nobody wrote (revision %lld)", i, (long long)rv);
    b->got_seq[i] = b->seq;
    b->last_rv[i] = rv;
    if (b->measured)
        hist_add(&b->per_delivery, (uint64_t)(now - b->sent_at));
    if (--b->pending == 0 && b->measured)
        hist_add(&b->to_all, (uint64_t)(now - b->sent_at));
}

static void
hw_event(struct bufferevent *bev, short what, void *arg)
{
    hwatch_t *w = arg;

    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        die("watch %d: %s", w->id, tls_bev_error(bev, what));
}

static void open_next(bench_t *b);

/* One header line; the empty one ends the head. */
static void
hw_head_line(hwatch_t *w, const char *line)
{
    if (w->status == 0) {
        if (sscanf(line, "HTTP/1.%*d %d", &w->status) != 1 || w->status != 200)
            die("watch %d: answered '%s'", w->id, line);
    } else if (strncasecmp(line, "transfer-encoding:", 18) == 0) {
        w->chunked = strcasestr(line + 18, "chunked") != NULL;
    } else if (line[0] == '\0') {
        if (!w->chunked)
            die("watch %d: not a chunked stream", w->id);
        w->state = READ_CHUNK_SIZE;
        w->b->open++;
        open_next(w->b);
    }
}

/* Each whole event line: its object's resourceVersion is the delivery. */
static void
hw_lines(hwatch_t *w)
{
    size_t eol;
    struct evbuffer_ptr at;

    for (;;) {
        at = evbuffer_search_eol(w->lines, NULL, &eol, EVBUFFER_EOL_LF);
        if (at.pos < 0)
            return;
        size_t n = (size_t)at.pos;
        const char *line = (const char *)evbuffer_pullup(w->lines, (ev_ssize_t)(n + eol));
        const char *rv = memmem(line, n, RV_FIELD, strlen(RV_FIELD));
        if (strncmp(line, "{\"type\":\"MODIFIED\"", 18) != 0 || rv == NULL)
            die("watch %d: not a change: %.*s", w->id, (int)(n < 300 ? n : 300), line);
        delivered(w->b, w->id, strtoll(rv + strlen(RV_FIELD), NULL, 10));
        evbuffer_drain(w->lines, n + eol);
    }
}

/* A protobuf varint at *p (below end); false when it runs past end. */
static bool
pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t c = *(*p)++;
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (c < 0x80)
            return true;
    }
    return false;
}

/* The length-delimited field `number` of the message [p, end), or false. */
static bool
pb_field(const uint8_t *p, const uint8_t *end, uint64_t number, const uint8_t **out, size_t *len)
{
    uint64_t key, n;

    while (p < end && pb_varint(&p, end, &key)) {
        if ((key & 7) == 0) {
            if (!pb_varint(&p, end, &n))
                return false;
            continue;
        }
        if ((key & 7) != 2 || !pb_varint(&p, end, &n) || n > (uint64_t)(end - p))
            return false;
        if (key >> 3 == number) {
            *out = p;
            *len = (size_t)n;
            return true;
        }
        p += n;
    }
    return false;
}

/* The resourceVersion of a MODIFIED frame (WatchEvent {type=1, object=2 {raw=1: the k8s
 * envelope {raw=2: ConfigMap {metadata=1 {resourceVersion=6}}}}}), or -1. */
static int64_t
frame_rv(const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n, *f;
    size_t len;
    char rv[32];

    if (!pb_field(p, end, 1, &f, &len) || len != 8 || memcmp(f, "MODIFIED", 8) != 0 ||
        !pb_field(p, end, 2, &p, &len) || !pb_field(p, p + len, 1, &p, &len) || len < 4 ||
        memcmp(p, "k8s\0", 4) != 0 || !pb_field(p + 4, p + len, 2, &p, &len) ||
        !pb_field(p, p + len, 1, &p, &len) || !pb_field(p, p + len, 6, &f, &len) ||
        len >= sizeof rv)
        return -1;
    memcpy(rv, f, len);
    rv[len] = '\0';
    return strtoll(rv, NULL, 10);
}

/* Each whole protobuf frame (a 4-byte big-endian length, then a WatchEvent). */
static void
hw_frames(hwatch_t *w)
{
    for (;;) {
        size_t have = evbuffer_get_length(w->lines), n;
        const uint8_t *p;
        int64_t rv;

        if (have < 4)
            return;
        p = evbuffer_pullup(w->lines, 4);
        n = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
        if (have < 4 + n)
            return;
        p = evbuffer_pullup(w->lines, (ev_ssize_t)(4 + n));
        rv = frame_rv(p + 4, n);
        if (rv < 0)
            die("watch %d: a frame that is not a change", w->id);
        delivered(w->b, w->id, rv);
        evbuffer_drain(w->lines, 4 + n);
    }
}

/* One step of reading the stream; false when `in` has nothing more for it. */
static bool
hw_step(hwatch_t *w, struct evbuffer *in)
{
    char *line;
    size_t n;

    if (w->state == READ_CHUNK_DATA) {
        n = evbuffer_get_length(in);
        if (n == 0)
            return false;
        n = n < w->left ? n : w->left;
        evbuffer_remove_buffer(in, w->lines, n);
        w->left -= n;
        if (w->left == 0)
            w->state = READ_CHUNK_END;
        if (w->b->protobuf)
            hw_frames(w);
        else
            hw_lines(w);
        return true;
    }
    line = evbuffer_readln(in, &n, EVBUFFER_EOL_CRLF_STRICT);
    if (line == NULL)
        return false;
    if (w->state == READ_HEAD) {
        hw_head_line(w, line);
    } else if (w->state == READ_CHUNK_SIZE) {
        w->left = strtoull(line, NULL, 16);
        if (w->left == 0)
            die("watch %d: the stream ended", w->id);
        w->state = READ_CHUNK_DATA;
    } else {
        w->state = READ_CHUNK_SIZE;
    }
    free(line);
    return true;
}

static void
hw_read(struct bufferevent *bev, void *arg)
{
    hwatch_t *w = arg;
    struct evbuffer *in = bufferevent_get_input(bev);

    while (hw_step(w, in))
        ;
}

static void
hw_open(bench_t *b, hwatch_t *w)
{
    const kgate_addr_t *k = &b->kgate;
    int one = 1;

    w->bev = bufferevent_openssl_socket_new(b->etcd.base, -1, kgate_ssl_new(k),
                                            BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
    w->lines = evbuffer_new();
    bufferevent_setcb(w->bev, hw_read, NULL, hw_event, w);
    bufferevent_enable(w->bev, EV_READ | EV_WRITE);
    if (bufferevent_socket_connect(w->bev, (struct sockaddr *)&k->addr, k->addr_len) != 0)
        die("cannot connect to %s", k->authority);
    /* Nagle plus delayed ACKs would hold back the request behind its TLS record. */
    setsockopt(bufferevent_getfd(w->bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    evbuffer_add(bufferevent_get_output(w->bev), b->request, strlen(b->request));
}

/* Start the next watch, if any are left to open. */
static void
open_next(bench_t *b)
{
    if (b->opened == b->n)
        return;
    hwatch_t *w = &b->hw[b->opened];
    *w = (hwatch_t){.b = b, .id = b->opened++};
    hw_open(b, w);
}

static void
hw_close_all(bench_t *b)
{
    for (int i = 0; i < b->n; i++) {
        if (b->hw[i].bev != NULL)
            bufferevent_free(b->hw[i].bev);
        if (b->hw[i].lines != NULL)
            evbuffer_free(b->hw[i].lines);
        b->hw[i] = (hwatch_t){0};
    }
}

/* ---- watchers directly on etcd ---------------------------------------------------------- */

static void
ew_event(int err, const Etcdserverpb__WatchResponse *resp, void *ctx)
{
    ewatch_t *w = ctx;
    bench_t *b = w->b;

    if (err == GW_ECANCELED) {
        w->w = NULL;
        b->ended++;
        return;
    }
    if (err != 0)
        die("etcd watch %d: %s", w->id, gw_strerror(err));
    if (resp->n_events == 0)
        return; /* a progress notification */
    if (resp->n_events != 1)
        die("etcd watch %d: %zu events for one write", w->id, resp->n_events);
    delivered(b, w->id, resp->events[0]->kv->mod_revision);
}

static void
ew_open_all(bench_t *b)
{
    char *end = prefix_end(b->prefix);
    etcd_watch_req_t q = {
        .key = etcd_str(b->prefix), .range_end = etcd_str(end), .start_revision = b->from_rev + 1};

    for (int i = 0; i < b->n; i++) {
        ewatch_t *w = &b->ew[i];
        *w = (ewatch_t){.b = b, .id = i};
        w->w = etcd_watch_start(b->etcd.conn, &q, ew_event, w);
        if (w->w == NULL)
            die("etcd watch: malformed request");
    }
    free(end);
}

static void
ew_cancel_all(bench_t *b)
{
    b->ended = 0;
    for (int i = 0; i < b->n; i++)
        etcd_watch_cancel(b->ew[i].w);
    wait_until(b, all_ended, "cancelling the etcd watches");
}

/* ---- the writer ------------------------------------------------------------------------- */

/* The object as kgate stores it, its data telling writes apart. */
static char *
object_json(int64_t seq)
{
    const char *head = "{\"apiVersion\":\"v1\",\"data\":{\"config\":\"";
    const char *tail = "\"},\"kind\":\"ConfigMap\",\"metadata\":{\"creationTimestamp\":"
                       "\"2024-01-01T00:00:00Z\",\"name\":\"" OBJECT_NAME "\",\"namespace\":"
                       "\"" NAMESPACE "\",\"uid\":\"00000000-0000-4000-8000-000000000001\"}}";
    char *out = gw_malloc(VALUE_BYTES + 1);
    int n = snprintf(out, VALUE_BYTES + 1, "%s%020lld", head, (long long)seq);
    size_t pad = VALUE_BYTES - (size_t)n - strlen(tail);

    memset(out + n, 'x', pad);
    strcpy(out + n + pad, tail);
    return out;
}

static void
put_done(int err, const Etcdserverpb__PutResponse *resp, void *ctx)
{
    bench_t *b = ctx;

    if (err != 0)
        die("etcd put: %s", gw_strerror(err));
    b->rev = resp->header->revision;
    b->put_done = true;
}

/* One write, waited for until every watcher has it. */
static void
write_one(bench_t *b, bool measured)
{
    char *value = object_json(++b->seq);
    etcd_bytes_t v = {(const uint8_t *)value, strlen(value)};

    b->measured = measured;
    b->pending = b->n;
    b->put_done = false;
    b->sent_at = now_ns();
    if (etcd_put(b->etcd.conn, etcd_str(b->key), v, 0, false, put_done, b) != 0)
        die("etcd put: malformed");
    free(value);
    wait_until(b, all_delivered, "a write's deliveries");
    for (int i = 0; i < b->n; i++) {
        if (b->last_rv[i] != b->rev)
            die("watcher %d got revision %lld for the write of %lld", i, (long long)b->last_rv[i],
                (long long)b->rev);
    }
}

/* ---- the rows --------------------------------------------------------------------------- */

typedef struct {
    double kib_per_watcher; /* < 0: unknown */
    double open_s;
    double p50, p99, all50, all99; /* ms */
} row_t;

static double
rss_delta_kib(const bench_t *b, pid_t pid, long before)
{
    long after = proc_status_kb(pid, "VmRSS");

    return before >= 0 && after >= 0 ? (double)(after - before) / b->n : -1;
}

/* The warm-up write (every watch delivers once), the memory, then the measured writes. */
static void
measure(bench_t *b, pid_t pid, long rss_before, int writes, row_t *row)
{
    write_one(b, false);
    row->kib_per_watcher = rss_delta_kib(b, pid, rss_before);
    b->per_delivery = (hist_t){0};
    b->to_all = (hist_t){0};
    for (int k = 0; k < writes; k++)
        write_one(b, true);
    row->p50 = hist_quantile(&b->per_delivery, 0.50) / 1e6;
    row->p99 = hist_quantile(&b->per_delivery, 0.99) / 1e6;
    row->all50 = hist_quantile(&b->to_all, 0.50) / 1e6;
    row->all99 = hist_quantile(&b->to_all, 0.99) / 1e6;
    b->from_rev = b->rev;
}

static void
run_kgate(bench_t *b, pid_t pid, int writes, row_t *row)
{
    long before = proc_status_kb(pid, "VmRSS");
    int64_t t0 = now_ns();

    b->request =
        gw_sprintf("GET " COLLECTION "?watch=1&resourceVersion=%lld HTTP/1.1\r\n"
                   "Host: %s\r\nUser-Agent: bench_watch\r\nAccept: %s\r\n\r\n",
                   (long long)b->from_rev, b->kgate.authority,
                   b->protobuf ? "application/vnd.kubernetes.protobuf" : "application/json");
    b->opened = b->open = 0;
    for (int i = 0; i < OPENING; i++)
        open_next(b);
    wait_until(b, all_open, "opening the watches");
    row->open_s = (double)(now_ns() - t0) / 1e9;
    measure(b, pid, before, writes, row);
    hw_close_all(b);
    free(b->request);
}

static void
run_etcd(bench_t *b, pid_t pid, int writes, row_t *row)
{
    long before = proc_status_kb(pid, "VmRSS");
    int64_t t0 = now_ns();

    ew_open_all(b);
    measure(b, pid, before, writes, row);
    row->open_s = (double)(now_ns() - t0) / 1e9; /* includes the first delivery */
    ew_cancel_all(b);
}

/* ---- main ------------------------------------------------------------------------------- */

/* A descriptor per kgate watch, and some to spare. */
static void
raise_fd_limit(int n)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)n + 100;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        die("getrlimit: %s", strerror(errno));
    if (rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max;
        if (rl.rlim_cur < need || setrlimit(RLIMIT_NOFILE, &rl) != 0)
            die("cannot open %llu files (the hard limit is %llu)", (unsigned long long)need,
                (unsigned long long)rl.rlim_max);
    }
}

static void
bench_init(bench_t *b, char **argv, int n)
{
    b->n = n;
    b->wait_s = WAIT_S + n / 100;
    b->hw = gw_calloc((size_t)n, sizeof(*b->hw));
    b->ew = gw_calloc((size_t)n, sizeof(*b->ew));
    b->got_seq = gw_calloc((size_t)n, sizeof(*b->got_seq));
    b->last_rv = gw_calloc((size_t)n, sizeof(*b->last_rv));
    kgate_addr_init(&b->kgate, argv[1], argv[2]);
    econn_open(&b->etcd, argv[3]);
    b->deadline = evtimer_new(b->etcd.base, on_deadline, b);
    b->prefix = gw_sprintf("%s/configmaps/" NAMESPACE "/", argv[4]);
    b->key = gw_sprintf("%s" OBJECT_NAME, b->prefix);
    if (econn_count_prefix(&b->etcd, b->prefix) != 0)
        die("%s already holds keys: the namespace must be empty", b->prefix);
}

static void
print_ms(const char *what, double k, double e)
{
    printf("%-26s  %10.3f  %10.3f  %17.2f\n", what, k, e, e > 0 ? k / e : 0.0);
}

/* The protobuf watchers' row beside the JSON one, both through kgate. */
static void
print_protobuf(const bench_t *b, const row_t *pb, const row_t *js)
{
    printf("\nthe same %d kgate watchers asking for protobuf, beside them asking for JSON\n", b->n);
    printf("                              protobuf        json  ratio(protobuf/json)\n");
    /* No memory row: the JSON watchers' heap, freed, is still kgate's when these open. */
    print_ms("delivery p50 ms", pb->p50, js->p50);
    print_ms("delivery p99 ms", pb->p99, js->p99);
    print_ms("write to all p50 ms", pb->all50, js->all50);
    print_ms("write to all p99 ms", pb->all99, js->all99);
    fflush(stdout);
}

static void
print_rows(const bench_t *b, const row_t *k, const row_t *e, int writes)
{
    printf("%d watchers of one namespace's ConfigMaps; %d writes of a %d-byte ConfigMap "
           "straight to etcd, one at a time, each once every watcher had the last; %ld CPUs "
           "shared by etcd, kgate and this one-thread client\n",
           b->n, writes, VALUE_BYTES, sysconf(_SC_NPROCESSORS_ONLN));
    printf("kgate: HTTPS watches, one connection each, opened in %.1f s; etcd: etcdproto "
           "watch streams on one connection, opened and first delivered in %.1f s\n\n",
           k->open_s, e->open_s);
    printf("                                 kgate        etcd  ratio(kgate/etcd)\n");
    if (e->kib_per_watcher >= 0)
        print_ms("server memory/watcher KiB", k->kib_per_watcher, e->kib_per_watcher);
    else
        printf("%-26s  %10.1f  %10s\n", "server memory/watcher KiB", k->kib_per_watcher, "-");
    print_ms("delivery p50 ms", k->p50, e->p50);
    print_ms("delivery p99 ms", k->p99, e->p99);
    print_ms("write to all p50 ms", k->all50, e->all50);
    print_ms("write to all p99 ms", k->all99, e->all99);
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    bench_t *b = gw_calloc(1, sizeof *b);
    timing_t t;
    row_t k, e, pb;

    if (argc != 7 && argc != 8)
        die("usage: bench_watch https://IP:PORT PKI_DIR ETCD_URL ETCD_PREFIX KGATE_PID "
            "ETCD_PID|- [N]");
    int n = argc == 8 ? atoi(argv[7]) : N_DEFAULT;
    if (n < 1 || n > N_MAX)
        die("N must be 1 to %d watchers", N_MAX);
    signal(SIGPIPE, SIG_IGN); /* a connection kgate closes is an error reported, not a kill */
    parse_timing(&t);
    /* Each write reaches every watcher before the next: fewer writes when there are more. */
    double per_s = n > N_DEFAULT ? WRITES_PER_S / 10.0 : WRITES_PER_S;
    int writes = (int)fmax(1, round(t.seconds * per_s));
    pid_t kgate = parse_pid(argv[5]), etcd = parse_pid(argv[6]);
    raise_fd_limit(n);
    bench_init(b, argv, n);
    char *first = object_json(0);
    b->from_rev = econn_put(&b->etcd, b->key, first, strlen(first));
    free(first);

    run_kgate(b, kgate, writes, &k);
    run_etcd(b, etcd, writes, &e);
    print_rows(b, &k, &e, writes);
    if (n == N_DEFAULT) {
        b->protobuf = true;
        run_kgate(b, kgate, writes, &pb);
        print_protobuf(b, &pb, &k);
    }

    econn_delete_prefix(&b->etcd, b->prefix);
    event_free(b->deadline);
    econn_close(&b->etcd);
    SSL_CTX_free(b->kgate.tls);
    free(b->key);
    free(b->prefix);
    free(b->hw);
    free(b->ew);
    free(b->got_seq);
    free(b->last_rv);
    free(b);
    return 0;
}
