#include "gw_clock.h"
#include "gw_health.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_query.h"
#include "gw_log.h"
#include "gw_metric.h"

#define PROBE_INTERVAL_MS 1000
#define ETCD_FRESH_MS 3000 /* a probe success older than this no longer counts */
#define NOT_PROBED 1       /* etcd_err before any result: not an error code */
#define HOOK_PREFIX "poststarthook/"
#define HOOK_NAME_MAX 96

/* A post-start hook's check: its name as listed, and whether its work is done. */
struct gw_health_hook {
    char name[HOOK_NAME_MAX];
    _Atomic bool done;
};

/* A named check of another layer's (gw_health_check_add). */
typedef struct {
    char name[HOOK_NAME_MAX];
    gw_health_check_fn fn;
    void *arg;
} named_t;

struct gw_health {
    int64_t started_ms;
    int64_t livez_grace_ms;
    _Atomic int64_t etcd_ok_ms; /* monotonic time of the last successful probe */
    _Atomic int etcd_err;       /* outcome of the last probe */
    _Atomic bool shutting_down;
    _Atomic bool synced; /* start-up state confirmed (gw_health_set_synced) */
    /* Post-start hooks in registration order: entries below n_hooks are complete. */
    gw_health_hook_t hooks[GW_HEALTH_MAX_HOOKS];
    _Atomic size_t n_hooks;
    pthread_mutex_t hooks_lock;          /* one registration at a time */
    named_t named[GW_HEALTH_MAX_CHECKS]; /* registered before serving */
    size_t n_named;
    /* The prober's, on its worker's thread only. */
    struct event *timer;
    etcd_conn_t *conn;
    char *endpoint; /* the deprecated size metric's label */
    bool in_flight;
    bool stopped;
};

/* ---- the database size, as kube's storage monitor reports it ------------------------------ */

static const char *const cluster_label[] = {"storage_cluster_id"};
static const char *const endpoint_label[] = {"endpoint"};

static const gw_metric_desc_t size_desc = {
    .name = "apiserver_storage_size_bytes",
    .help = "Size of the storage database file in bytes, as etcd allocated it.",
    .stability = "STABLE",
    .type = GW_METRIC_GAUGE,
    .labels = cluster_label,
    .n_labels = 1,
};

static const gw_metric_desc_t db_size_desc = {
    .name = "apiserver_storage_db_total_size_in_bytes",
    .help = "Size of the storage database file in bytes, by etcd endpoint.",
    .stability = "ALPHA",
    .type = GW_METRIC_GAUGE,
    .labels = endpoint_label,
    .n_labels = 1,
    .deprecated = "1.28",
};

static void
record_db_size(const gw_health_t *h, int64_t bytes)
{
    static gw_metric_t *_Atomic size, *_Atomic db_size;
    const char *cluster[] = {"etcd-0"}; /* kube's name of the one (default) etcd */
    const char *endpoint[] = {h->endpoint != NULL ? h->endpoint : ""};
    gw_metric_set(gw_metric_cached(&size, &size_desc), cluster, (double)bytes);
    gw_metric_set(gw_metric_cached(&db_size, &db_size_desc), endpoint, (double)bytes);
}

/* A check returns NULL when it passes, else why (for logs and the single-check reply). */
typedef const char *(*check_fn)(const gw_health_t *h, bool livez);

typedef struct {
    const char *name;
    check_fn run;
} check_t;

typedef struct {
    const char *path;
    const char *name;
    unsigned checks; /* bit i: checks[i] */
} endpoint_t;

static const char *
check_ok(const gw_health_t *h, bool livez)
{
    (void)h, (void)livez;
    return NULL;
}

static const char *
check_etcd(const gw_health_t *h, bool livez)
{
    int64_t now = gw_monotonic_ms();
    /* kube-apiserver's --livez-grace-period: liveness does not fail while starting up. */
    if (livez && now - h->started_ms < h->livez_grace_ms)
        return NULL;
    if (atomic_load(&h->etcd_err) != 0)
        return "etcd did not answer the last status probe";
    if (now - atomic_load(&h->etcd_ok_ms) > ETCD_FRESH_MS)
        return "etcd has not answered a status probe recently";
    return NULL;
}

/* kube-apiserver is not ready until its informers' caches are synced; kgate's start-up state
 * is what its controllers confirm in etcd (the initial namespaces), later also its caches. */
static const char *
check_synced(const gw_health_t *h, bool livez)
{
    (void)livez;
    return atomic_load(&h->synced) ? NULL : "start-up state not confirmed in etcd yet";
}

static const char *
check_shutdown(const gw_health_t *h, bool livez)
{
    (void)livez;
    return atomic_load(&h->shutting_down) ? "process is shutting down" : NULL;
}

static const check_t checks[] = {
    {"ping", check_ok},           {"log", check_ok},
    {"etcd", check_etcd},         {"informer-sync", check_synced},
    {"shutdown", check_shutdown},
};
#define N_CHECKS (sizeof(checks) / sizeof(checks[0]))

#define SHUTDOWN_CHECK (N_CHECKS - 1) /* listed after the post-start hooks, as in kube */

/* Every endpoint lists the post-start hooks too (kube's AddBootSequenceHealthChecks). */
static const endpoint_t endpoints[] = {
    {"/livez", "livez", 0x7},
    {"/readyz", "readyz", 0x1f},
    {"/healthz", "healthz", 0x7},
};

/* One check's outcome: its name and why it failed (NULL: it passed); a named check's reason
 * is written into text. */
typedef struct {
    const char *name;
    const char *why;
    char text[512];
} result_t;

#define MAX_RESULTS (N_CHECKS + GW_HEALTH_MAX_HOOKS + GW_HEALTH_MAX_CHECKS)
#define ETCD_CHECK 2 /* the named checks follow it, as kube adds KMS checks after etcd's */

static void
run_named(const named_t *c, result_t *r)
{
    r->name = c->name;
    r->why = c->fn(c->arg, r->text, sizeof(r->text)) ? NULL : r->text;
}

/* A hook fails until its work is done; /livez lets it pass during --livez-grace-period, as
 * kube's boot sequence checks. */
static const char *
check_hook(const gw_health_t *h, const gw_health_hook_t *hook, bool livez)
{
    if (atomic_load(&hook->done))
        return NULL;
    if (livez && gw_monotonic_ms() - h->started_ms < h->livez_grace_ms)
        return NULL;
    return "not finished";
}

/* Run the endpoint's checks in kube's order (the fixed ones, the hooks, shutdown) into out;
 * returns how many. */
static size_t
evaluate(const gw_health_t *h, const endpoint_t *ep, result_t *out)
{
    bool livez = ep == &endpoints[0];
    size_t n = 0, n_hooks = atomic_load(&h->n_hooks);

    for (size_t i = 0; i < N_CHECKS; i++) {
        if (i == SHUTDOWN_CHECK) {
            for (size_t j = 0; j < n_hooks; j++) {
                out[n].name = h->hooks[j].name;
                out[n++].why = check_hook(h, &h->hooks[j], livez);
            }
        }
        if (ep->checks & (1u << i)) {
            out[n].name = checks[i].name;
            out[n++].why = checks[i].run(h, livez);
        }
        for (size_t j = 0; i == ETCD_CHECK && j < h->n_named; j++)
            run_named(&h->named[j], &out[n++]);
    }
    return n;
}

gw_health_t *
gw_health_new(int64_t livez_grace_ms)
{
    gw_health_t *h = gw_calloc(1, sizeof(*h));
    h->started_ms = gw_monotonic_ms();
    h->livez_grace_ms = livez_grace_ms;
    atomic_init(&h->etcd_ok_ms, 0);
    atomic_init(&h->etcd_err, NOT_PROBED);
    atomic_init(&h->shutting_down, false);
    atomic_init(&h->synced, false);
    atomic_init(&h->n_hooks, 0);
    pthread_mutex_init(&h->hooks_lock, NULL);
    return h;
}

void
gw_health_free(gw_health_t *h)
{
    if (h == NULL)
        return;
    pthread_mutex_destroy(&h->hooks_lock);
    free(h->endpoint);
    free(h);
}

gw_health_hook_t *
gw_health_hook_add(gw_health_t *h, const char *name)
{
    gw_health_hook_t *hook;

    pthread_mutex_lock(&h->hooks_lock);
    size_t n = atomic_load(&h->n_hooks);
    if (n == GW_HEALTH_MAX_HOOKS || strlen(name) + sizeof(HOOK_PREFIX) > HOOK_NAME_MAX)
        abort(); /* a programming error: a bigger table or a shorter name */
    hook = &h->hooks[n];
    snprintf(hook->name, sizeof(hook->name), HOOK_PREFIX "%s", name);
    atomic_init(&hook->done, false);
    atomic_store(&h->n_hooks, n + 1); /* publishes the entry to the renderers */
    pthread_mutex_unlock(&h->hooks_lock);
    return hook;
}

void
gw_health_check_add(gw_health_t *h, const char *name, gw_health_check_fn fn, void *arg)
{
    if (h->n_named == GW_HEALTH_MAX_CHECKS || strlen(name) >= HOOK_NAME_MAX)
        abort(); /* a programming error: a bigger table or a shorter name */
    named_t *c = &h->named[h->n_named++];
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->fn = fn;
    c->arg = arg;
}

void
gw_health_hook_done(gw_health_hook_t *hook)
{
    if (!atomic_exchange(&hook->done, true))
        gw_log_info(NULL, "%s: done", hook->name);
}

bool
gw_health_ready(const gw_health_t *h)
{
    result_t res[MAX_RESULTS];
    size_t n = evaluate(h, &endpoints[1], res);

    for (size_t i = 0; i < n; i++) {
        if (res[i].why != NULL)
            return false;
    }
    return true;
}

void
gw_health_etcd_result(gw_health_t *h, int err)
{
    if (err == 0)
        atomic_store(&h->etcd_ok_ms, gw_monotonic_ms());
    int prev = atomic_exchange(&h->etcd_err, err);
    if (prev == 0 && err != 0)
        gw_log_warn(NULL, "etcd status probe failed: %s; not ready", gw_strerror(err));
    else if (prev != 0 && prev != NOT_PROBED && err == 0)
        gw_log_info(NULL, "etcd answers again; ready");
}

void
gw_health_set_synced(gw_health_t *h)
{
    atomic_store(&h->synced, true);
}

void
gw_health_set_shutting_down(gw_health_t *h)
{
    atomic_store(&h->shutting_down, true);
}

static void
probe_done(int err, const Etcdserverpb__StatusResponse *resp, void *ctx)
{
    gw_health_t *h = ctx;
    h->in_flight = false;
    if (err == 0 && !h->stopped)
        record_db_size(h, resp->dbsize);
    if (!h->stopped)
        gw_health_etcd_result(h, err);
}

/* One probe at a time: a probe still waiting shows up as a stale success time. */
static void
probe_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    gw_health_t *h = arg;
    if (!h->in_flight && etcd_status(h->conn, probe_done, h) == 0)
        h->in_flight = true;
}

void
gw_health_probe_start(gw_health_t *h, gw_worker_t *w, const char *endpoint)
{
    free(h->endpoint);
    h->endpoint = endpoint != NULL ? gw_strdup(endpoint) : NULL;
    struct timeval every = {PROBE_INTERVAL_MS / 1000, (PROBE_INTERVAL_MS % 1000) * 1000};
    h->conn = gw_worker_etcd(w);
    h->timer = event_new(gw_worker_base(w), -1, EV_PERSIST, probe_tick, h);
    if (h->timer == NULL)
        abort();
    event_add(h->timer, &every);
}

void
gw_health_probe_stop(gw_health_t *h)
{
    h->stopped = true;
    if (h->timer != NULL)
        event_free(h->timer);
    h->timer = NULL;
}

typedef struct {
    char **names;
    bool *used;
    size_t n;
} excludes_t;

static void
excludes_parse(excludes_t *x, const char *query)
{
    size_t pos = 0;
    char *v;
    memset(x, 0, sizeof(*x));
    while ((v = gw_query_next(NULL, query, "exclude", &pos)) != NULL) {
        x->names = gw_realloc(x->names, (x->n + 1) * sizeof(*x->names));
        x->used = gw_realloc(x->used, (x->n + 1) * sizeof(*x->used));
        x->names[x->n] = v;
        x->used[x->n++] = false;
    }
}

static bool
excludes_take(excludes_t *x, const char *name)
{
    bool hit = false;
    for (size_t i = 0; i < x->n; i++) {
        if (strcmp(x->names[i], name) == 0)
            hit = x->used[i] = true;
    }
    return hit;
}

/* A client-supplied name, quoted, with anything but printable ASCII escaped. */
static void
add_quoted(struct evbuffer *out, const char *s)
{
    evbuffer_add(out, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
            evbuffer_add_printf(out, "\\x%02x", *p);
        else
            evbuffer_add(out, p, 1);
    }
    evbuffer_add(out, "\"", 1);
}

/* Like kube-apiserver, name the exclusions that matched no check (each name once). */
static void
excludes_warn_unused(excludes_t *x, struct evbuffer *out)
{
    bool any = false;
    for (size_t i = 0; i < x->n; i++) {
        if (x->used[i])
            continue;
        evbuffer_add_printf(
            out, "%s", any ? "," : "warn: some health checks cannot be excluded: no matches for ");
        add_quoted(out, x->names[i]);
        any = true;
        excludes_take(x, x->names[i]);
    }
    if (any)
        evbuffer_add(out, "\n", 1);
}

static void
excludes_free(excludes_t *x)
{
    for (size_t i = 0; i < x->n; i++)
        free(x->names[i]);
    free(x->names);
    free(x->used);
}

/* Run the endpoint's checks into out; returns whether any failed. */
static bool
run_checks(const gw_health_t *h, const endpoint_t *ep, excludes_t *x, struct evbuffer *out,
           const char *audit_id)
{
    result_t res[MAX_RESULTS];
    size_t n = evaluate(h, ep, res);
    bool failed = false;

    for (size_t i = 0; i < n; i++) {
        if (excludes_take(x, res[i].name)) {
            evbuffer_add_printf(out, "[+]%s excluded: ok\n", res[i].name);
            continue;
        }
        if (res[i].why == NULL) {
            evbuffer_add_printf(out, "[+]%s ok\n", res[i].name);
            continue;
        }
        failed = true;
        evbuffer_add_printf(out, "[-]%s failed: reason withheld\n", res[i].name);
        gw_log_debug(audit_id, "%s check %s failed: %s", ep->name, res[i].name, res[i].why);
    }
    excludes_warn_unused(x, out);
    return failed;
}

/* Every check of an endpoint: the code, and the body into out. */
static int
render_all(const gw_health_t *h, const endpoint_t *ep, const char *query, const char *audit_id,
           struct evbuffer *out)
{
    size_t pos = 0;
    char *verbose = gw_query_next(NULL, query, "verbose", &pos);
    excludes_t x;
    excludes_parse(&x, query);
    struct evbuffer *list = evbuffer_new();
    if (list == NULL)
        abort();
    bool failed = run_checks(h, ep, &x, list, audit_id);
    if (failed)
        evbuffer_add_printf(list, "%s check failed\n", ep->name);
    else if (verbose != NULL)
        evbuffer_add_printf(list, "%s check passed\n", ep->name);
    /* Like kube-apiserver, a passing endpoint says only "ok" unless asked for the list. */
    if (failed || verbose != NULL)
        evbuffer_add_buffer(out, list);
    else
        evbuffer_add(out, "ok", 2);
    evbuffer_free(list);
    excludes_free(&x);
    free(verbose);
    return failed ? HTTP_INTERNAL : HTTP_OK;
}

static int
render_one(const gw_health_t *h, const endpoint_t *ep, const char *name, struct evbuffer *out)
{
    result_t res[MAX_RESULTS];
    size_t n = evaluate(h, ep, res);

    for (size_t i = 0; i < n; i++) {
        if (strcmp(res[i].name, name) != 0)
            continue;
        if (res[i].why == NULL) {
            evbuffer_add(out, "ok", 2);
            return HTTP_OK;
        }
        evbuffer_add_printf(out, "internal server error: %s\n", res[i].why);
        return HTTP_INTERNAL;
    }
    evbuffer_add_printf(out, "404 page not found\n");
    return HTTP_NOTFOUND;
}

int
gw_health_render(const gw_health_t *h, const char *path, const char *query, const char *audit_id,
                 struct evbuffer *out)
{
    for (size_t i = 0; i < sizeof(endpoints) / sizeof(endpoints[0]); i++) {
        size_t len = strlen(endpoints[i].path);
        if (strncmp(path, endpoints[i].path, len) != 0)
            continue;
        if (path[len] == '\0')
            return render_all(h, &endpoints[i], query, audit_id, out);
        if (path[len] == '/')
            return render_one(h, &endpoints[i], path + len + 1, out);
    }
    evbuffer_add_printf(out, "404 page not found\n");
    return HTTP_NOTFOUND;
}
