/* The admission policy snapshots from etcd: informers on policies, bindings and param kinds,
 * for validating and (gw_map_cache_start) mutating policies alike. */
#include "gw_vap_cache.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_vap_snapshot.h"
#include "gw_workqueue.h"

#define SNAPSHOT_KEY "snapshot"

/* The informer of one param kind's resource, by its storage path. */
typedef struct {
    char *path;
    gw_informer_t *informer;
} param_informer_t;

struct gw_vap_cache {
    etcd_client_t *client;
    struct event_base *base;
    char *prefix;
    const gw_value_transformer_t *values;
    const gw_catalog_t *catalog;
    gw_informer_t *policies, *bindings;
    param_informer_t *params;
    size_t nparams;
    gw_workqueue_t *queue;
    gw_vap_snap_t *last; /* what was published last: the next rebuild reuses its compilations */
    bool mutating;       /* MutatingAdmissionPolicies (gw_map_cache_start) */
    gw_vap_cache_synced_fn on_synced; /* until the first publish */
    void *arg;
};

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_vap_cache_t *c = ctx;
    (void)inf, (void)ev;

    gw_workqueue_add(c->queue, SNAPSHOT_KEY);
}

static gw_informer_t *
start_informer(gw_vap_cache_t *c, const char *prefix)
{
    return gw_informer_start(c->client, c->base,
                             &(gw_informer_opts_t){.name = "admission policies",
                                                   .etcd_prefix = c->prefix,
                                                   .values = c->values,
                                                   .prefix = prefix,
                                                   .cache = GW_INFORMER_JSON,
                                                   .handler = changed,
                                                   .ctx = c});
}

/* Whether `path` is among the storage paths the policies name. */
static bool
wanted(const json_t *paths, const char *path)
{
    return json_object_get(paths, path) != NULL;
}

/* Start informers for the param kinds the policies name and stop the others; the paths
 * wanted are the members of the object returned (the caller decrefs). */
static json_t *
sync_param_informers(gw_vap_cache_t *c, const gw_catalog_t *cat, const json_t *policies)
{
    json_t *paths = json_object();
    size_t i, kept = 0;
    json_t *p;
    const char *path;

    json_array_foreach(policies, i, p)
    {
        bool named;
        const gw_resource_t *r = gw_vap_param_resource(cat, p, &named);
        if (r != NULL && r->storage_path != NULL && !r->virtual_only)
            json_object_set_new(paths, r->storage_path, json_true());
    }
    for (i = 0; i < c->nparams; i++) {
        if (wanted(paths, c->params[i].path)) {
            c->params[kept++] = c->params[i];
            continue;
        }
        gw_informer_stop(c->params[i].informer);
        free(c->params[i].path);
    }
    c->nparams = kept;
    json_object_foreach(paths, path, p)
    {
        bool have = false;
        for (i = 0; i < c->nparams && !have; i++)
            have = strcmp(c->params[i].path, path) == 0;
        if (have)
            continue;
        char *rel = gw_sprintf("%s/", path);
        c->params = gw_realloc(c->params, (c->nparams + 1) * sizeof(*c->params));
        c->params[c->nparams++] =
            (param_informer_t){.path = gw_strdup(path), .informer = start_informer(c, rel)};
        free(rel);
    }
    return paths;
}

/* Every param informer's objects by storage path, or NULL while one has not listed yet (its
 * first list queues the rebuild again). */
static json_t *
param_objects(gw_vap_cache_t *c)
{
    json_t *params = json_object();

    for (size_t i = 0; i < c->nparams; i++) {
        if (!gw_informer_synced(c->params[i].informer)) {
            json_decref(params);
            return NULL;
        }
        json_object_set_new(params, c->params[i].path, gw_informer_list(c->params[i].informer));
    }
    return params;
}

static void
rebuild(gw_workqueue_t *q, const char *key, void *ctx)
{
    gw_vap_cache_t *c = ctx;
    json_t *policies, *bindings, *params;
    const gw_catalog_t *cat;
    gw_vap_snap_t *s;

    if (!gw_informer_synced(c->policies) || !gw_informer_synced(c->bindings)) {
        gw_workqueue_done(q, key);
        return;
    }
    /* param kinds may be custom resources: the current catalog has them */
    cat = gw_catalog_current();
    if (cat == NULL)
        cat = c->catalog;
    policies = gw_informer_list(c->policies);
    json_decref(sync_param_informers(c, cat, policies));
    params = param_objects(c);
    if (params == NULL) {
        gw_catalog_unref(cat);
        json_decref(policies);
        gw_workqueue_done(q, key);
        return;
    }
    bindings = gw_informer_list(c->bindings);
    s = c->mutating ? gw_map_snap_new(cat, policies, bindings, params, c->last)
                    : gw_vap_snap_new(cat, policies, bindings, params, c->last);
    gw_catalog_unref(cat);
    json_decref(policies);
    json_decref(bindings);
    json_decref(params);
    gw_vap_snap_unref(c->last);
    c->last = gw_vap_snap_ref(s);
    gw_vap_snap_publish(s);
    gw_log_debug(NULL, "%s admission policies: %zu published, %zu reused compiled",
                 c->mutating ? "mutating" : "validating", gw_vap_snap_count(c->last),
                 gw_vap_snap_reused(c->last));
    gw_workqueue_done(q, key);
    if (c->on_synced != NULL) {
        gw_vap_cache_synced_fn fn = c->on_synced;
        c->on_synced = NULL;
        fn(c->arg);
    }
}

static gw_vap_cache_t *
cache_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
            const gw_value_transformer_t *values, const gw_catalog_t *catalog,
            gw_vap_cache_synced_fn synced, void *arg, bool mutating)
{
    gw_vap_cache_t *c = gw_calloc(1, sizeof(*c));

    c->client = client;
    c->base = base;
    c->prefix = gw_strdup(etcd_prefix);
    c->values = values;
    c->catalog = catalog;
    c->on_synced = synced;
    c->arg = arg;
    c->mutating = mutating;
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = rebuild, .ctx = c});
    c->policies =
        start_informer(c, mutating ? "mutatingadmissionpolicies/" : "validatingadmissionpolicies/");
    c->bindings = start_informer(c, mutating ? "mutatingadmissionpolicybindings/"
                                             : "validatingadmissionpolicybindings/");
    return c;
}

gw_vap_cache_t *
gw_vap_cache_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                   const gw_value_transformer_t *values, const gw_catalog_t *catalog,
                   gw_vap_cache_synced_fn synced, void *arg)
{
    return cache_start(client, base, etcd_prefix, values, catalog, synced, arg, false);
}

gw_vap_cache_t *
gw_map_cache_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                   const gw_value_transformer_t *values, const gw_catalog_t *catalog,
                   gw_vap_cache_synced_fn synced, void *arg)
{
    return cache_start(client, base, etcd_prefix, values, catalog, synced, arg, true);
}

void
gw_vap_cache_resync(gw_vap_cache_t *c)
{
    if (c != NULL)
        gw_workqueue_add(c->queue, SNAPSHOT_KEY);
}

void
gw_vap_cache_stop(gw_vap_cache_t *c)
{
    if (c == NULL)
        return;
    gw_workqueue_shutdown(c->queue);
    gw_informer_stop(c->policies);
    gw_informer_stop(c->bindings);
    for (size_t i = 0; i < c->nparams; i++) {
        gw_informer_stop(c->params[i].informer);
        free(c->params[i].path);
    }
    free(c->params);
    gw_workqueue_free(c->queue);
    gw_vap_snap_unref(c->last);
    free(c->prefix);
    free(c);
}
