/*
 * The watch service: the hub thread (its loop, etcd conn and store), the mailboxes to and from
 * the workers, and the knobs.
 */
#include "gw_watch.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_log.h"
#include "gw_watch_int.h"

#define DEFAULT_WINDOW 4096
#define DEFAULT_WINDOW_BYTES (32u << 20)
#define DEFAULT_LINGER_MS 30000
#define DEFAULT_PROGRESS_MS 60000 /* kube-apiserver bookmarks each watcher about once a minute */
#define DEFAULT_QUEUE_BYTES (4u << 20)

/* A knob: the configured value, else the environment's (a positive integer), else dflt. */
static long long
knob(long long configured, const char *env, long long dflt)
{
    const char *v = getenv(env);
    char *end;
    long long n;

    if (configured > 0)
        return configured;
    if (v == NULL || *v == '\0')
        return dflt;
    n = strtoll(v, &end, 10);
    if (*end != '\0' || n <= 0) {
        gw_log_warn(NULL, "ignoring %s=%s: not a positive integer", env, v);
        return dflt;
    }
    return n;
}

static void
deliver(gw_watch__msg_t *m, void *arg)
{
    gw_watch_t *s = arg;

    switch (m->kind) {
    case MSG_SUB:
        gw_watch__hub_sub(s, m); /* consumes m */
        return;
    case MSG_UNSUB:
        gw_watch__hub_unsub(m->hub, m->worker);
        break;
    case MSG_CLOSE:
        gw_watch__hub_forget_worker(s, m->worker);
        break;
    case MSG_CACHE_OPEN:
        gw_watch__cache_open(m->cache);
        break;
    case MSG_STOP:
        gw_watch__hubs_stop(s);
        gw_watch__caches_stop(s);
        /* Fires the hubs' terminal callbacks now, which drop their last references. */
        etcd_conn_free(s->conn);
        s->conn = NULL;
        event_base_loopbreak(s->base);
        break;
    default:
        break;
    }
    gw_watch__msg_free(m);
}

static void *
hub_thread(void *arg)
{
    gw_watch_t *s = arg;

    s->base = event_base_new();
    if (s->base == NULL)
        abort();
    s->conn = etcd_conn_new(s->cfg.etcd, s->base);
    s->store = gw_store_new(s->conn, s->etcd_prefix, s->cfg.values);
    gw_watch__mailbox_open(&s->inbox, s->base, deliver, s);
    pthread_mutex_lock(&s->ready_lock);
    s->ready = true;
    pthread_cond_signal(&s->ready_cond);
    pthread_mutex_unlock(&s->ready_lock);

    event_base_loop(s->base, EVLOOP_NO_EXIT_ON_EMPTY);

    gw_watch__mailbox_cleanup(&s->inbox);
    gw_store_free(s->store);
    event_base_free(s->base);
    return NULL;
}

static void
configure(gw_watch_t *s, const gw_watch_config_t *cfg)
{
    s->cfg = *cfg;
    s->cfg.window_events =
        (size_t)knob((long long)cfg->window_events, "KGATE_WATCH_WINDOW", DEFAULT_WINDOW);
    s->cfg.window_bytes = (size_t)knob((long long)cfg->window_bytes, "KGATE_WATCH_WINDOW_BYTES",
                                       DEFAULT_WINDOW_BYTES);
    s->cfg.linger_ms = knob(cfg->linger_ms, "KGATE_WATCH_LINGER_MS", DEFAULT_LINGER_MS);
    s->cfg.progress_ms = knob(cfg->progress_ms, "KGATE_WATCH_PROGRESS_MS", DEFAULT_PROGRESS_MS);
    s->cfg.queue_bytes =
        (size_t)knob((long long)cfg->queue_bytes, "KGATE_WATCH_QUEUE_BYTES", DEFAULT_QUEUE_BYTES);
    s->etcd_prefix = gw_strdup(cfg->etcd_prefix);
    s->cfg.etcd_prefix = s->etcd_prefix;
    gw_cache_limit_t *limits = gw_calloc(cfg->n_cache_limits + 1, sizeof(*limits));
    for (size_t i = 0; i < cfg->n_cache_limits; i++)
        limits[i] = (gw_cache_limit_t){.collection = gw_strdup(cfg->cache_limits[i].collection),
                                       .limit = cfg->cache_limits[i].limit};
    s->cfg.cache_limits = limits;
}

/* The configured limit of a collection's cache: -1 when it keeps none. */
static long
cache_limit(const gw_watch_t *s, const char *collection)
{
    if (!s->cfg.read_cache)
        return -1;
    for (size_t i = 0; i < s->cfg.n_cache_limits; i++) {
        if (strcmp(s->cfg.cache_limits[i].collection, collection) == 0)
            return s->cfg.cache_limits[i].limit > 0 ? s->cfg.cache_limits[i].limit : -1;
    }
    return 0;
}

gw_cache_t *
gw_watch__cache_get(gw_watch_t *s, const char *collection)
{
    gw_cache_t *c = gw_watch__cache_find(s, collection);
    long limit;

    if (c != NULL)
        return c;
    limit = cache_limit(s, collection);
    if (limit < 0)
        return NULL;
    pthread_mutex_lock(&s->cache_lock);
    c = gw_watch__cache_find(s, collection); /* another worker may have been quicker */
    if (c == NULL) {
        c = gw_calloc(1, sizeof(*c));
        c->svc = s;
        c->collection = gw_strdup(collection);
        c->limit = limit;
        atomic_init(&c->off, false);
        atomic_init(&c->seen, 0);
        pthread_rwlock_init(&c->lock, NULL);
        c->next = atomic_load(&s->caches);
        atomic_store(&s->caches, c);
        gw_watch__msg_t *m = gw_watch__msg_new(MSG_CACHE_OPEN);
        m->cache = c;
        gw_watch__to_hubs(s, m);
    }
    pthread_mutex_unlock(&s->cache_lock);
    return c;
}

gw_watch_t *
gw_watch_new(const gw_watch_config_t *cfg)
{
    gw_watch_t *s = gw_calloc(1, sizeof(*s));

    configure(s, cfg);
    atomic_init(&s->n_hubs, 0);
    atomic_init(&s->n_catchups, 0);
    atomic_init(&s->n_catchups_total, 0);
    atomic_init(&s->n_watchers, 0);
    atomic_init(&s->n_cache_reads, 0);
    atomic_init(&s->n_cache_etcd, 0);
    atomic_init(&s->n_cache_revisions, 0);
    gw_watch__mailbox_init(&s->inbox);
    s->outbox = gw_calloc((size_t)cfg->workers, sizeof(*s->outbox));
    for (int i = 0; i < cfg->workers; i++)
        gw_watch__mailbox_init(&s->outbox[i]);
    atomic_init(&s->caches, NULL);
    pthread_mutex_init(&s->cache_lock, NULL);
    pthread_mutex_init(&s->ready_lock, NULL);
    pthread_cond_init(&s->ready_cond, NULL);
    if (pthread_create(&s->thread, NULL, hub_thread, s) != 0)
        abort();
    pthread_mutex_lock(&s->ready_lock);
    while (!s->ready)
        pthread_cond_wait(&s->ready_cond, &s->ready_lock);
    pthread_mutex_unlock(&s->ready_lock);
    return s;
}

void
gw_watch_free(gw_watch_t *s)
{
    if (s == NULL)
        return;
    gw_watch__to_hubs(s, gw_watch__msg_new(MSG_STOP));
    pthread_join(s->thread, NULL);
    for (int i = 0; i < s->cfg.workers; i++)
        gw_watch__mailbox_cleanup(&s->outbox[i]);
    free(s->outbox);
    gw_watch__caches_free(s);
    for (size_t i = 0; i < s->cfg.n_cache_limits; i++)
        free((char *)s->cfg.cache_limits[i].collection);
    free((gw_cache_limit_t *)s->cfg.cache_limits);
    pthread_mutex_destroy(&s->cache_lock);
    pthread_mutex_destroy(&s->ready_lock);
    pthread_cond_destroy(&s->ready_cond);
    free(s->etcd_prefix);
    free(s);
}

void
gw_watch_stats(gw_watch_t *s, gw_watch_stats_t *out)
{
    out->hubs = atomic_load(&s->n_hubs);
    out->catchups = atomic_load(&s->n_catchups);
    out->catchups_total = atomic_load(&s->n_catchups_total);
    out->watchers = atomic_load(&s->n_watchers);
    out->cache_reads = atomic_load(&s->n_cache_reads);
    out->cache_etcd = atomic_load(&s->n_cache_etcd);
    out->cache_revisions = atomic_load(&s->n_cache_revisions);
    for (gw_cache_t *c = atomic_load(&s->caches); c != NULL; c = c->next) {
        pthread_rwlock_rdlock(&c->lock);
        out->caches += c->ready;
        out->cache_objects += (long)c->n;
        out->cache_bytes += (long)c->bytes;
        pthread_rwlock_unlock(&c->lock);
    }
}

size_t
gw_watch_queue_limit(const gw_watch_local_t *l)
{
    return l->svc->cfg.queue_bytes;
}

int64_t
gw_watch_bookmark_ms(const gw_watch_local_t *l)
{
    return l->svc->cfg.progress_ms;
}

void
gw_watch__to_worker(gw_watch_t *s, int i, gw_watch__msg_t *m)
{
    if (!gw_watch__mailbox_post(&s->outbox[i], m))
        gw_watch__msg_free(m);
}

void
gw_watch__to_hubs(gw_watch_t *s, gw_watch__msg_t *m)
{
    if (!gw_watch__mailbox_post(&s->inbox, m))
        gw_watch__msg_free(m);
}
