/* The post-start hooks' work (gw_poststart.h): each a round that is tried again a second after
 * it failed. */
#include "gw_poststart.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_json.h"
#include "gw_log.h"
#include "gw_rbac_bootstrap.h"
#include "gw_uuid.h"

#define RETRY_MS 1000
#define N_CLASSES 2

/* kube's SystemPriorityClasses (pkg/apis/scheduling/v1): SystemCriticalPriority is twice the
 * highest user-definable priority. */
static const struct {
    const char *name;
    long long value;
    const char *description;
} classes[N_CLASSES] = {
    {"system-node-critical", 2000001000,
     "Used for system critical pods that must not be moved from their current node."},
    {"system-cluster-critical", 2000000000,
     "Used for system critical pods that must run in the cluster, but can be moved to another "
     "node if necessary."},
};

struct gw_poststart {
    etcd_conn_t *conn; /* ours: freeing it cancels the work in flight */
    gw_store_t *store;
    gw_poststart_opts_t opts;
    struct event *rbac_retry, *priority_retry;
    int pending; /* PriorityClass creates of the current round */
    int failed;  /* the first failure of the current round */
    bool stopping;
};

static void
later(struct event *ev)
{
    struct timeval tv = {RETRY_MS / 1000, (RETRY_MS % 1000) * 1000};

    evtimer_add(ev, &tv);
}

static void
rbac_done(int err, void *arg)
{
    gw_poststart_t *p = arg;

    if (p->stopping)
        return;
    if (err != 0) {
        gw_log_warn(NULL, "rbac/bootstrap-roles: %s; retrying", gw_strerror(err));
        later(p->rbac_retry);
        return;
    }
    if (p->opts.rbac_done != NULL)
        p->opts.rbac_done(p->opts.rbac_arg);
}

static void
rbac_round(evutil_socket_t fd, short what, void *arg)
{
    gw_poststart_t *p = arg;
    (void)fd, (void)what;

    gw_rbac_bootstrap_reconcile(p->store, rbac_done, p);
}

/* A PriorityClass as the API stores kube's after defaulting (preemptionPolicy). */
static char *
priority_class(size_t i)
{
    char uid[GW_UUID_LEN + 1], now[GW_TIME_LEN + 1];
    json_t *o;
    char *text;

    gw_uuid_v4(uid);
    gw_time_now(now);
    o = json_pack("{s:s,s:s,s:{s:s,s:s,s:s},s:I,s:s,s:s}", "kind", "PriorityClass", "apiVersion",
                  "scheduling.k8s.io/v1", "metadata", "name", classes[i].name, "uid", uid,
                  "creationTimestamp", now, "value", (json_int_t)classes[i].value, "description",
                  classes[i].description, "preemptionPolicy", "PreemptLowerPriority");
    text = gw_json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

static void
class_done(int err, const gw_obj_t *obj, void *arg)
{
    gw_poststart_t *p = arg;

    if (err == 0)
        gw_log_info(NULL, "created PriorityClass %s", obj->key + strlen("priorityclasses/"));
    if (err != 0 && err != GW_EEXIST && p->failed == 0)
        p->failed = err;
    if (--p->pending > 0 || p->stopping)
        return;
    if (p->failed != 0) {
        gw_log_warn(NULL, "scheduling/bootstrap-system-priority-classes: %s; retrying",
                    gw_strerror(p->failed));
        later(p->priority_retry);
        return;
    }
    gw_log_info(NULL, "all system priority classes are created successfully or already exist.");
    if (p->opts.priority_done != NULL)
        p->opts.priority_done(p->opts.priority_arg);
}

static void
priority_round(evutil_socket_t fd, short what, void *arg)
{
    gw_poststart_t *p = arg;
    (void)fd, (void)what;

    p->failed = 0;
    p->pending = 1; /* held while the creates start */
    for (size_t i = 0; i < N_CLASSES; i++) {
        char *key = gw_store_object_key("priorityclasses", NULL, classes[i].name);
        char *value = priority_class(i);
        if (gw_store_create(p->store, key, (const uint8_t *)value, strlen(value), 0, class_done,
                            p) == 0)
            p->pending++;
        free(key);
        free(value);
    }
    p->pending--;
    if (p->pending == 0) /* nothing could start */
        later(p->priority_retry);
}

gw_poststart_t *
gw_poststart_start(etcd_client_t *client, struct event_base *base, const gw_poststart_opts_t *o)
{
    gw_poststart_t *p = gw_calloc(1, sizeof(*p));

    p->opts = *o;
    p->conn = etcd_conn_new(client, base);
    p->store = gw_store_new(p->conn, o->etcd_prefix, o->values);
    p->rbac_retry = evtimer_new(base, rbac_round, p);
    p->priority_retry = evtimer_new(base, priority_round, p);
    if (p->rbac_retry == NULL || p->priority_retry == NULL)
        abort();
    rbac_round(-1, 0, p);
    priority_round(-1, 0, p);
    return p;
}

void
gw_poststart_stop(gw_poststart_t *p)
{
    if (p == NULL)
        return;
    p->stopping = true;
    etcd_conn_free(p->conn); /* every callback in flight fires now, and sees `stopping` */
    gw_store_free(p->store);
    event_free(p->rbac_retry);
    event_free(p->priority_retry);
    free(p);
}
