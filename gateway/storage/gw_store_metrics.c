/* etcd_request_duration_seconds and etcd_requests_total as kube 1.32 labels them: the
 * operation, and as `type` the group resource a key belongs to ("pods", "deployments.apps"). */
#include "gw_store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_metric.h"
#include "gw_store_int.h"

#define SLOTS 512 /* a power of two, well above the built-in resources */

typedef struct {
    char *path; /* a resource path: "pods", "services/specs" */
    char *group_resource;
    _Atomic int64_t count; /* objects at the last count; -1: not counted (yet) */
} name_t;

static struct {
    pthread_rwlock_t lock;
    name_t slots[SLOTS];
    size_t n;
} names = {.lock = PTHREAD_RWLOCK_INITIALIZER};

static const char *const labels[] = {"operation", "type"};

/* kube's buckets: those of apiserver_request_duration_seconds */
static const double buckets[] = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
                                 3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60};

static const gw_metric_desc_t duration_desc = {
    .name = "etcd_request_duration_seconds",
    .help = "etcd requests' latency in seconds, by operation and resource.",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = labels,
    .n_labels = 2,
    .buckets = buckets,
    .n_buckets = sizeof(buckets) / sizeof(buckets[0]),
};

static const gw_metric_desc_t count_desc = {
    .name = "etcd_requests_total",
    .help = "etcd requests, by operation and resource.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = labels,
    .n_labels = 2,
};

static size_t
slot_of(const char *path, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)path[i]) * 1099511628211ULL;
    return (size_t)h & (SLOTS - 1);
}

void
gw_store_name_resource(const char *resource_path, const char *group_resource)
{
    size_t len = strlen(resource_path);
    pthread_rwlock_wrlock(&names.lock);
    size_t i = slot_of(resource_path, len);
    while (names.slots[i].path != NULL && strcmp(names.slots[i].path, resource_path) != 0)
        i = (i + 1) & (SLOTS - 1);
    if (names.slots[i].path == NULL && names.n + 1 < SLOTS / 2) {
        names.slots[i].path = gw_strdup(resource_path);
        names.slots[i].group_resource = gw_strdup(group_resource);
        atomic_init(&names.slots[i].count, -1);
        names.n++;
    }
    pthread_rwlock_unlock(&names.lock);
}

/* The named group resource of the first len bytes of a key, into out; false if none. */
static bool
lookup(const char *rel, size_t len, char *out, size_t out_len)
{
    bool found = false;
    pthread_rwlock_rdlock(&names.lock);
    for (size_t i = slot_of(rel, len); names.slots[i].path != NULL; i = (i + 1) & (SLOTS - 1)) {
        if (strncmp(names.slots[i].path, rel, len) == 0 && names.slots[i].path[len] == '\0') {
            snprintf(out, out_len, "%s", names.slots[i].group_resource);
            found = true;
            break;
        }
    }
    pthread_rwlock_unlock(&names.lock);
    return found;
}

/* kube's type label of a relative key: a named resource path of one or two segments, else a
 * custom resource's "<group>/<resource>" as "<resource>.<group>", else the first segment. */
void
gw_store__etcd_type(const char *rel, char *out, size_t out_len)
{
    size_t one = strcspn(rel, "/");
    size_t two = rel[one] == '/' ? one + 1 + strcspn(rel + one + 1, "/") : one;
    if (lookup(rel, two, out, out_len) || lookup(rel, one, out, out_len))
        return;
    if (two > one && memchr(rel, '.', one) != NULL) /* a group has a dot: "<group>/<resource>" */
        snprintf(out, out_len, "%.*s.%.*s", (int)(two - one - 1), rel + one + 1, (int)one, rel);
    else
        snprintf(out, out_len, "%.*s", (int)one, rel);
}

void
gw_store__etcd_observe(const char *operation, const char *type, int64_t start_ns)
{
    static gw_metric_t *_Atomic duration, *_Atomic count;
    const char *v[] = {operation, type};
    gw_metric_observe(gw_metric_cached(&duration, &duration_desc), v,
                      (double)(gw_monotonic_ns() - start_ns) / 1e9);
    gw_metric_add(gw_metric_cached(&count, &count_desc), v, 1);
}

/* ---- apiserver_storage_objects ------------------------------------------------------------ */

static const char *const resource_label[] = {"resource"};

static const gw_metric_desc_t objects_desc = {
    .name = "apiserver_storage_objects",
    .help = "Objects stored at the last count, by resource; -1 when the count failed.",
    .stability = "STABLE",
    .type = GW_METRIC_GAUGE,
    .labels = resource_label,
    .n_labels = 1,
};

typedef struct count_call count_call_t;

struct gw_store_counter {
    etcd_conn_t *conn;
    struct event *timer;
    char *prefix; /* --etcd-prefix with its '/' */
    size_t next;  /* the slot counted next in this round */
    count_call_t *in_flight;
};

/* One count in flight; orphaned (c NULL) when the counter stops first, as etcd calls cannot be
 * recalled. */
struct count_call {
    gw_store_counter_t *c;
    size_t slot;
};

int64_t
gw_store_object_count(const char *resource_path)
{
    int64_t n = -1;
    size_t len = strlen(resource_path);
    pthread_rwlock_rdlock(&names.lock);
    for (size_t i = slot_of(resource_path, len); names.slots[i].path != NULL;
         i = (i + 1) & (SLOTS - 1)) {
        if (strcmp(names.slots[i].path, resource_path) == 0) {
            n = atomic_load(&names.slots[i].count);
            break;
        }
    }
    pthread_rwlock_unlock(&names.lock);
    return n;
}

static void count_next(gw_store_counter_t *c);

static void
counted(int err, const Etcdserverpb__RangeResponse *resp, void *arg)
{
    static gw_metric_t *_Atomic family;
    count_call_t *call = arg;
    gw_store_counter_t *c = call->c;
    int64_t n = err == 0 ? resp->count : -1;
    if (c != NULL && err != GW_ECANCELED) {
        pthread_rwlock_rdlock(&names.lock);
        name_t *e = &names.slots[call->slot];
        atomic_store(&e->count, n);
        const char *v[] = {e->group_resource};
        gw_metric_set(gw_metric_cached(&family, &objects_desc), v, (double)n);
        pthread_rwlock_unlock(&names.lock);
    }
    free(call);
    if (c == NULL)
        return;
    c->in_flight = NULL;
    if (err != GW_ECANCELED)
        count_next(c);
}

/* Count the next named resource of the round, one at a time so that a round costs etcd no
 * more than one small read at once. */
static void
count_next(gw_store_counter_t *c)
{
    char *from = NULL;
    pthread_rwlock_rdlock(&names.lock);
    while (c->next < SLOTS && names.slots[c->next].path == NULL)
        c->next++;
    if (c->next < SLOTS)
        from = gw_sprintf("%s%s/", c->prefix, names.slots[c->next].path);
    pthread_rwlock_unlock(&names.lock);
    if (from == NULL)
        return; /* the round is over */
    size_t end_len;
    char *end = gw_store__prefix_end(from, &end_len);
    etcd_range_req_t q = {
        .key = etcd_str(from), .range_end = {(const uint8_t *)end, end_len}, .count_only = true};
    count_call_t *call = gw_calloc(1, sizeof(*call));
    *call = (count_call_t){.c = c, .slot = c->next++};
    if (etcd_range(c->conn, &q, counted, call) == 0) {
        c->in_flight = call;
    } else {
        gw_log_warn(NULL, "could not count the objects under %s", from);
        free(call);
    }
    free(end);
    free(from);
}

static void
on_round(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    gw_store_counter_t *c = arg;
    if (c->in_flight != NULL)
        return; /* the last round is still going */
    c->next = 0;
    count_next(c);
}

gw_store_counter_t *
gw_store_counter_start(etcd_conn_t *conn, struct event_base *base, const char *prefix,
                       int64_t period_ms)
{
    if (period_ms <= 0)
        return NULL;
    gw_store_counter_t *c = gw_calloc(1, sizeof(*c));
    size_t len = strlen(prefix);
    c->conn = conn;
    c->prefix =
        gw_sprintf("%.*s/", (int)(len > 0 && prefix[len - 1] == '/' ? len - 1 : len), prefix);
    c->timer = event_new(base, -1, EV_PERSIST, on_round, c);
    struct timeval tv = {period_ms / 1000, (period_ms % 1000) * 1000};
    event_add(c->timer, &tv);
    on_round(-1, 0, c); /* the first round now, as kube's */
    return c;
}

void
gw_store_counter_stop(gw_store_counter_t *c)
{
    if (c == NULL)
        return;
    event_free(c->timer);
    if (c->in_flight != NULL)
        c->in_flight->c = NULL;
    free(c->prefix);
    free(c);
}
