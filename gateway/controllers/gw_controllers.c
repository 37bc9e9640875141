/*
 * The controllers of one instance: the initial namespaces (every instance, every minute), the
 * namespace deletion controller (the "namespace-controller" election's leader only), and the
 * serviceaccount and root-ca-cert-publisher controllers when service account tokens are
 * issued (the "serviceaccount-controller" election's leader only); the RBAC snapshot (every
 * instance) and the RBAC controllers (the "rbac-controllers" election's leader only); the Node
 * authorizer's graph (every instance, when that mode is on); the admission policy snapshot
 * (every instance) and the policies' status controller (the
 * "validatingadmissionpolicy-status-controller" election's leader only); the CRD status
 * controllers: names, establishing and NonStructuralSchema (the "crd-naming-controller"
 * election's leader only) and the CRD finalizer (the "crd-finalizer-controller" election's);
 * the garbage collector (the "garbage-collector-controller" election's leader only).
 */
#include "gw_controllers.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_bootstrapsigner.h"
#include "gw_crd_finalizer.h"
#include "gw_crd_naming.h"
#include "gw_err.h"
#include "gw_gc.h"
#include "gw_uuid.h"
#include "gw_leader.h"
#include "gw_log.h"
#include "gw_namespace.h"
#include "gw_nsctl.h"
#include "gw_node_graph.h"
#include "gw_rbac_cache.h"
#include "gw_rbac_ctl.h"
#include "gw_vap_status.h"
#include "gw_sactl.h"
#include "gw_store.h"
#include "gw_tokencleaner.h"
#include "gw_crd_feed.h"
#include "gw_vap_cache.h"
#include "gw_webhook_cache.h"
#include "gw_apf_ctl.h"

#define ENSURE_EVERY_MS 60000 /* kube's system namespaces controller: once a minute */
#define ENSURE_RETRY_MS 5000
#define NSCTL_ELECTION "namespace-controller"
#define BOOT_ELECTION "bootstrap-token-controllers"
#define SACTL_ELECTION "serviceaccount-controller"
#define RBAC_ELECTION "rbac-controllers"
#define VAP_STATUS_ELECTION "validatingadmissionpolicy-status-controller"
#define CRD_NAMING_ELECTION "crd-naming-controller"
#define CRD_FINALIZER_ELECTION "crd-finalizer-controller"
#define GC_ELECTION "garbage-collector-controller"
#define APF_ELECTION "priority-and-fairness-config-producer"
#define MAX_ELECTIONS 10

/* An election asked for before this instance was ready (see elect). */
typedef struct {
    const char *name;
    gw_leader_fn elected, lost;
    gw_leader_t **slot; /* where its gw_leader_t goes once it starts */
} election_t;

struct gw_controllers {
    etcd_client_t *client;
    struct event_base *base;
    char *prefix;
    const gw_value_transformer_t *values; /* every store's */
    etcd_conn_t *conn;                    /* the initial namespaces' */
    gw_store_t *store;
    struct event *ensure; /* the next initial-namespaces round */
    bool stopping;
    gw_nsctl_resource_t *res; /* what the namespace controller empties */
    size_t n_res;
    gw_leader_t *leader;
    gw_nsctl_t *nsctl;        /* while leading */
    gw_leader_t *boot_leader; /* the bootstrap token controllers' election, when enabled */
    bool cleaner_on, signer_on;
    gw_tokencleaner_t *cleaner; /* while leading that election */
    gw_bootstrapsigner_t *signer;
    gw_leader_t *sa_leader;
    gw_sactl_t *sactl;     /* while leading the service account election */
    bool sa_asked;         /* gw_controllers_start_service_accounts was called */
    char *root_ca;         /* what kube-root-ca.crt publishes (NULL: nothing) */
    bool synced;           /* the initial namespaces were confirmed once */
    gw_rbac_cache_t *rbac; /* the process's RBAC snapshot */
    bool rbac_synced;      /* its first snapshot is published */
    gw_leader_t *rbac_leader;
    gw_rbac_ctl_t *rbac_ctl;      /* while leading the RBAC election */
    gw_node_graph_t *node_graph;  /* the Node authorizer's graph, when that mode is on */
    gw_vap_cache_t *vap;          /* the process's admission policy snapshot */
    gw_vap_cache_t *map;          /* the mutating policies' snapshot, when they are served */
    bool map_synced;              /* its first snapshot is published, or none is fed */
    bool vap_synced;              /* its first snapshot is published */
    gw_webhook_cache_t *webhooks; /* the process's admission webhook snapshot */
    bool webhooks_synced;         /* its first snapshot is published */
    gw_crd_feed_t *crds;          /* the process's catalog of custom resources */
    bool crds_synced;             /* its first snapshot is published */
    const gw_catalog_t *catalog;  /* the served one */
    gw_leader_t *vap_status_leader;
    gw_vap_status_t *vap_status; /* while leading the policy status election */
    gw_leader_t *crd_naming_leader;
    gw_crd_naming_t *crd_naming; /* while leading the CRD naming election */
    gw_leader_t *crd_finalizer_leader;
    gw_crd_finalizer_t *crd_finalizer; /* while leading the CRD finalizer election */
    gw_leader_t *gc_leader;
    gw_gc_t *gc;           /* while leading the garbage collector election */
    gw_apf_ctl_t *apf_ctl; /* priority and fairness' configuration, when it is on */
    gw_leader_t *apf_leader;
    void (*on_synced)(void *arg);
    void *on_synced_arg;
    bool elections_open; /* synced once: elections start when asked */
    election_t waiting[MAX_ELECTIONS];
    size_t n_waiting;
};

gw_nsctl_resource_t *
gw_controllers_namespaced(const gw_catalog_t *catalog, size_t *n)
{
    size_t count = gw_catalog_count(catalog);
    gw_nsctl_resource_t *res = gw_calloc(count > 0 ? count : 1, sizeof(*res));

    *n = 0;
    for (size_t i = 0; i < count; i++) {
        const gw_resource_t *r = gw_catalog_at(catalog, i);
        bool seen = false;
        if (!r->namespaced || r->virtual_only || r->storage_path == NULL)
            continue;
        for (size_t j = 0; j < *n && !seen; j++)
            seen = strcmp(res[j].path, r->storage_path) == 0;
        if (!seen)
            res[(*n)++] = (gw_nsctl_resource_t){r->storage_path, r->group, r->name};
    }
    return res;
}

static void
add_timer(struct event *ev, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(ev, &tv);
}

/* Ready once the initial namespaces are confirmed and the first RBAC, admission policy (both
 * kinds), admission webhook and custom resource snapshots are in (kube's policy and webhook
 * plugins also wait for their informers before admitting). */
static void open_elections(gw_controllers_t *c);

static void
maybe_synced(gw_controllers_t *c)
{
    if (!c->synced || !c->rbac_synced || !c->vap_synced || !c->map_synced || !c->webhooks_synced ||
        !c->crds_synced)
        return;
    if (c->on_synced != NULL)
        c->on_synced(c->on_synced_arg);
    open_elections(c);
}

static void
vap_synced(void *arg)
{
    gw_controllers_t *c = arg;

    c->vap_synced = true;
    maybe_synced(c);
}

static void
map_synced(void *arg)
{
    gw_controllers_t *c = arg;

    c->map_synced = true;
    maybe_synced(c);
}

static void
webhooks_synced(void *arg)
{
    gw_controllers_t *c = arg;

    c->webhooks_synced = true;
    maybe_synced(c);
}

/* A new catalog: ready after the first; param kinds of admission policies may have changed. */
static void
crds_published(void *arg)
{
    gw_controllers_t *c = arg;

    gw_vap_cache_resync(c->vap);
    gw_vap_cache_resync(c->map);
    if (c->crds_synced)
        return;
    c->crds_synced = true;
    maybe_synced(c);
}

static void
rbac_synced(void *arg)
{
    gw_controllers_t *c = arg;

    c->rbac_synced = true;
    maybe_synced(c);
}

static void
ensured(int err, void *arg)
{
    gw_controllers_t *c = arg;

    if (c->stopping)
        return;
    if (err != 0)
        gw_log_warn(NULL, "creating the initial namespaces failed: %s; retrying", gw_strerror(err));
    add_timer(c->ensure, err != 0 ? ENSURE_RETRY_MS : ENSURE_EVERY_MS);
    if (err == 0 && !c->synced) {
        c->synced = true;
        maybe_synced(c);
    }
}

void
gw_controllers_on_synced(gw_controllers_t *c, void (*cb)(void *arg), void *arg)
{
    c->on_synced = cb;
    c->on_synced_arg = arg;
    maybe_synced(c);
}

static void
on_ensure(evutil_socket_t fd, short what, void *arg)
{
    gw_controllers_t *c = arg;
    (void)fd, (void)what;

    if (gw_namespace_ensure_initial(c->store, ensured, c) != 0)
        add_timer(c->ensure, ENSURE_RETRY_MS);
}

static void
on_elected(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    gw_nsctl_opts_t opts = {.etcd_prefix = c->prefix,
                            .values = c->values,
                            .resources = c->res,
                            .n_resources = c->n_res};
    (void)l;

    c->nsctl = gw_nsctl_start(c->client, c->base, &opts);
    gw_log_info(NULL, "namespace controller started");
}

static void
on_lost(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_nsctl_stop(c->nsctl);
    c->nsctl = NULL;
    gw_log_info(NULL, "namespace controller stopped");
}

static void
on_sa_elected(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    gw_sactl_opts_t opts = {
        .etcd_prefix = c->prefix, .values = c->values, .root_ca_pem = c->root_ca};
    (void)l;

    c->sactl = gw_sactl_start(c->client, c->base, &opts);
    gw_log_info(NULL, "serviceaccount controller started");
}

static void
on_sa_lost(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_sactl_stop(c->sactl);
    c->sactl = NULL;
    gw_log_info(NULL, "serviceaccount controller stopped");
}

static void
on_rbac_elected(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    c->rbac_ctl = gw_rbac_ctl_start(c->client, c->base, c->prefix, c->values);
    gw_log_info(NULL, "rbac controllers started");
}

static void
on_rbac_lost(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_rbac_ctl_stop(c->rbac_ctl);
    c->rbac_ctl = NULL;
    gw_log_info(NULL, "rbac controllers stopped");
}

static void
on_vap_status_elected(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    c->vap_status = gw_vap_status_start(c->client, c->base, c->prefix, c->values, c->catalog);
    gw_log_info(NULL, VAP_STATUS_ELECTION " started");
}

static void
on_vap_status_lost(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_vap_status_stop(c->vap_status);
    c->vap_status = NULL;
    gw_log_info(NULL, VAP_STATUS_ELECTION " stopped");
}

static void
on_crd_naming_elected(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    c->crd_naming = gw_crd_naming_start(c->client, c->base, c->prefix, c->values, c->catalog);
    gw_log_info(NULL, CRD_NAMING_ELECTION " started");
}

static void
on_crd_naming_lost(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_crd_naming_stop(c->crd_naming);
    c->crd_naming = NULL;
    gw_log_info(NULL, CRD_NAMING_ELECTION " stopped");
}

static void
on_crd_finalizer_elected(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    c->crd_finalizer = gw_crd_finalizer_start(c->client, c->base, c->prefix, c->values);
    gw_log_info(NULL, CRD_FINALIZER_ELECTION " started");
}

static void
on_crd_finalizer_lost(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_crd_finalizer_stop(c->crd_finalizer);
    c->crd_finalizer = NULL;
    gw_log_info(NULL, CRD_FINALIZER_ELECTION " stopped");
}

static void
on_gc_elected(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    c->gc = gw_gc_start(c->client, c->base, c->prefix, c->values, c->catalog);
    gw_log_info(NULL, GC_ELECTION " started");
}

/* The graph goes with the leadership: the next leader builds its own from a fresh list. */
static void
on_gc_lost(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_gc_stop(c->gc);
    c->gc = NULL;
    gw_log_info(NULL, GC_ELECTION " stopped");
}

/* "<host>_<uuid>", as kube's components name themselves in leader elections. */
static char *
identity(void)
{
    char host[256] = "kgate";
    char uid[GW_UUID_LEN + 1];

    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    gw_uuid_v4(uid);
    return gw_sprintf("%s_%s", host, uid);
}

static gw_leader_t *
start_election(gw_controllers_t *c, const char *name, gw_leader_fn elected, gw_leader_fn lost)
{
    char *key = gw_leader_key(c->prefix, name);
    char *id = identity();
    gw_leader_t *l = gw_leader_start(
        c->client, c->base,
        &(gw_leader_opts_t){
            .key = key, .identity = id, .on_elected = elected, .on_lost = lost, .ctx = c});

    free(key);
    free(id);
    return l;
}

/* Start election `name` into *slot, or once this instance is ready: what the leaders run
 * (garbage collection's lists of every resource, the RBAC bootstrap's writes, ...) would
 * otherwise share etcd and this loop with what readiness waits for. Asking twice for one
 * slot starts one election. */
static void
elect(gw_controllers_t *c, gw_leader_t **slot, const char *name, gw_leader_fn elected,
      gw_leader_fn lost)
{
    if (c->elections_open) {
        if (*slot == NULL)
            *slot = start_election(c, name, elected, lost);
        return;
    }
    for (size_t i = 0; i < c->n_waiting; i++) {
        if (c->waiting[i].slot == slot)
            return;
    }
    if (c->n_waiting == MAX_ELECTIONS)
        abort(); /* a new election needs a bigger table */
    c->waiting[c->n_waiting++] = (election_t){name, elected, lost, slot};
}

static void
open_elections(gw_controllers_t *c)
{
    if (c->elections_open)
        return;
    c->elections_open = true;
    for (size_t i = 0; i < c->n_waiting; i++) {
        election_t *e = &c->waiting[i];
        *e->slot = start_election(c, e->name, e->elected, e->lost);
    }
    c->n_waiting = 0;
}

/* Whether the --controllers list runs controller `name` (kube-controller-manager's rule: the
 * first mention decides, "-name" turns it off, "*" runs the controllers on by default). */
bool
gw_controllers_wanted(const char *const *names, size_t n, const char *name, bool by_default)
{
    bool star = false;

    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], name) == 0)
            return true;
        if (names[i][0] == '-' && strcmp(names[i] + 1, name) == 0)
            return false;
        star = star || strcmp(names[i], "*") == 0;
    }
    return star && by_default;
}

static void
on_boot_elected(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    if (c->cleaner_on)
        c->cleaner = gw_tokencleaner_start(c->client, c->base, c->prefix, c->values);
    if (c->signer_on)
        c->signer = gw_bootstrapsigner_start(c->client, c->base, c->prefix, c->values);
    gw_log_info(NULL, "bootstrap token controllers started");
}

static void
on_boot_lost(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_tokencleaner_stop(c->cleaner);
    c->cleaner = NULL;
    gw_bootstrapsigner_stop(c->signer);
    c->signer = NULL;
    gw_log_info(NULL, "bootstrap token controllers stopped");
}

/* kube-controller-manager's garbage collector answers to its name and its older alias; the
 * first mention of either decides. */
static bool
gc_wanted(const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = names[i][0] == '-' ? names[i] + 1 : names[i];
        if (strcmp(s, GC_ELECTION) == 0 || strcmp(s, "garbagecollector") == 0)
            return names[i][0] != '-';
    }
    return gw_controllers_wanted(names, n, GC_ELECTION, true);
}

void
gw_controllers_enable(gw_controllers_t *c, const char *const *names, size_t n)
{
    if (gc_wanted(names, n))
        elect(c, &c->gc_leader, GC_ELECTION, on_gc_elected, on_gc_lost);
    c->cleaner_on = gw_controllers_wanted(names, n, "tokencleaner", false);
    c->signer_on = gw_controllers_wanted(names, n, "bootstrapsigner", false);
    if (c->cleaner_on || c->signer_on)
        elect(c, &c->boot_leader, BOOT_ELECTION, on_boot_elected, on_boot_lost);
}

gw_controllers_t *
gw_controllers_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                     const gw_value_transformer_t *values, const gw_catalog_t *catalog)
{
    gw_controllers_t *c = gw_calloc(1, sizeof(*c));

    c->client = client;
    c->base = base;
    c->prefix = gw_strdup(etcd_prefix);
    c->conn = etcd_conn_new(client, base);
    c->values = values;
    c->store = gw_store_new(c->conn, etcd_prefix, values);
    c->res = gw_controllers_namespaced(catalog, &c->n_res);
    c->ensure = evtimer_new(base, on_ensure, c);
    if (c->ensure == NULL)
        abort();
    /* Readiness waits for these creates: they go to etcd before the elections' and the
     * informers' calls. */
    on_ensure(-1, 0, c);
    elect(c, &c->leader, NSCTL_ELECTION, on_elected, on_lost);
    c->rbac = gw_rbac_cache_start(client, base, etcd_prefix, values, rbac_synced, c);
    elect(c, &c->rbac_leader, RBAC_ELECTION, on_rbac_elected, on_rbac_lost);
    c->vap = gw_vap_cache_start(client, base, etcd_prefix, values, catalog, vap_synced, c);
    /* MutatingAdmissionPolicy is alpha: fed only when its feature gate lets the catalog serve
     * it */
    if (gw_catalog_find(catalog, "admissionregistration.k8s.io", "v1alpha1",
                        "mutatingadmissionpolicies") != NULL)
        c->map = gw_map_cache_start(client, base, etcd_prefix, values, catalog, map_synced, c);
    else
        c->map_synced = true;
    c->webhooks = gw_webhook_cache_start(client, base, etcd_prefix, values, webhooks_synced, c);
    c->crds = gw_crd_feed_start(client, base, etcd_prefix, values, catalog, crds_published, c);
    c->catalog = catalog;
    elect(c, &c->vap_status_leader, VAP_STATUS_ELECTION, on_vap_status_elected, on_vap_status_lost);
    elect(c, &c->crd_naming_leader, CRD_NAMING_ELECTION, on_crd_naming_elected, on_crd_naming_lost);
    elect(c, &c->crd_finalizer_leader, CRD_FINALIZER_ELECTION, on_crd_finalizer_elected,
          on_crd_finalizer_lost);
    return c;
}

void
gw_controllers_start_service_accounts(gw_controllers_t *c, const char *root_ca_pem)
{
    if (c->sa_asked)
        return;
    c->sa_asked = true;
    c->root_ca = root_ca_pem != NULL ? gw_strdup(root_ca_pem) : NULL;
    elect(c, &c->sa_leader, SACTL_ELECTION, on_sa_elected, on_sa_lost);
}

void
gw_controllers_start_node_graph(gw_controllers_t *c)
{
    if (c->node_graph == NULL)
        c->node_graph = gw_node_graph_start(c->client, c->base, c->prefix, c->values);
}

static void
on_apf_elected(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_apf_ctl_lead(c->apf_ctl, true);
    gw_log_info(NULL, APF_ELECTION " started");
}

static void
on_apf_lost(gw_leader_t *l, void *arg)
{
    gw_controllers_t *c = arg;
    (void)l;

    gw_apf_ctl_lead(c->apf_ctl, false);
    gw_log_info(NULL, APF_ELECTION " stopped");
}

void
gw_controllers_start_apf(gw_controllers_t *c, struct gw_apf *apf, const gw_apf_ctl_hooks_t *hooks)
{
    if (c->apf_ctl != NULL)
        return;
    c->apf_ctl = gw_apf_ctl_start(c->client, c->base, c->prefix, c->values, apf, hooks);
    elect(c, &c->apf_leader, APF_ELECTION, on_apf_elected, on_apf_lost);
}

bool
gw_controllers_leading(const gw_controllers_t *c)
{
    return c->nsctl != NULL;
}

void
gw_controllers_stop(gw_controllers_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    gw_nsctl_stop(c->nsctl);
    gw_tokencleaner_stop(c->cleaner);
    gw_bootstrapsigner_stop(c->signer);
    gw_leader_stop(c->boot_leader);
    gw_sactl_stop(c->sactl);
    gw_rbac_ctl_stop(c->rbac_ctl);
    gw_vap_status_stop(c->vap_status);
    gw_crd_naming_stop(c->crd_naming);
    gw_crd_finalizer_stop(c->crd_finalizer);
    gw_gc_stop(c->gc);
    gw_apf_ctl_stop(c->apf_ctl);
    gw_rbac_cache_stop(c->rbac);
    gw_vap_cache_stop(c->vap);
    gw_vap_cache_stop(c->map);
    gw_webhook_cache_stop(c->webhooks);
    gw_crd_feed_stop(c->crds);
    gw_node_graph_stop(c->node_graph);
    gw_leader_stop(c->rbac_leader);
    gw_leader_stop(c->vap_status_leader);
    gw_leader_stop(c->crd_naming_leader);
    gw_leader_stop(c->crd_finalizer_leader);
    gw_leader_stop(c->gc_leader);
    gw_leader_stop(c->apf_leader);
    gw_leader_stop(c->leader); /* releases the elections at once */
    gw_leader_stop(c->sa_leader);
    etcd_conn_free(c->conn);
    gw_store_free(c->store);
    event_free(c->ensure);
    free(c->res);
    free(c->root_ca);
    free(c->prefix);
    free(c);
}
