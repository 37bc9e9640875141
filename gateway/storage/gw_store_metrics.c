/* etcd_request_duration_seconds and etcd_requests_total as kube 1.32 labels them: the
 * operation, and as `type` the group resource a key belongs to ("pods", "deployments.apps"). */
#include "gw_store.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_metric.h"
#include "gw_store_int.h"

#define SLOTS 512 /* a power of two, well above the built-in resources */

typedef struct {
    char *path; /* a resource path: "pods", "services/specs" */
    char *group_resource;
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
