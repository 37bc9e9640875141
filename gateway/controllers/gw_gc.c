/* The garbage collector: its queues, the graph's sink, and where kinds live in the catalog. */
#include "gw_gc.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_gc_int.h"
#include "gw_err.h"
#include "gw_log.h"

#define WORKERS 20 /* kube-controller-manager's --concurrent-gc-syncs */
#define RESYNC_MS (5 * 60 * 1000)

/* ---- the catalog ---------------------------------------------------------------------------- */

/* kube's ignoredResources: Events of both groups (they share the storage path). */
static bool
ignored(const gw_resource_t *r)
{
    return strcmp(r->name, "events") == 0 &&
           (strcmp(r->group, "") == 0 || strcmp(r->group, "events.k8s.io") == 0);
}

static json_t *
build_paths(const gw_catalog_t *cat)
{
    json_t *paths = json_object();
    const unsigned need = GW_VERB_DELETE | GW_VERB_LIST | GW_VERB_WATCH;

    for (size_t i = 0; i < gw_catalog_count(cat); i++) {
        const gw_resource_t *r = gw_catalog_at(cat, i);
        if (r->storage_path == NULL || r->virtual_only)
            continue;
        json_int_t flags = json_integer_value(json_object_get(paths, r->storage_path));
        if (r->namespaced)
            flags |= GW_GC__NAMESPACED;
        if ((r->verbs & need) == need && !ignored(r))
            flags |= GW_GC__DELETABLE;
        json_object_set_new(paths, r->storage_path, json_integer(flags));
    }
    return paths;
}

/* The current catalog (a new reference), and the path table made current with it. */
static const gw_catalog_t *
current(gw_gc_t *c)
{
    const gw_catalog_t *cat = gw_catalog_current();

    if (cat == NULL)
        cat = gw_catalog_ref(c->fallback);
    if (cat != c->paths_of) {
        json_decref(c->paths);
        c->paths = build_paths(cat);
        gw_catalog_unref(c->paths_of);
        c->paths_of = gw_catalog_ref(cat);
    }
    return cat;
}

int
gw_gc__key_flags(gw_gc_t *c, const char *key)
{
    gw_catalog_unref(current(c));
    /* "<path>/<name>" cluster-scoped, "<path>/<ns>/<name>" namespaced; names hold no '/' */
    const char *last = strrchr(key, '/');
    for (int cut = 0; cut < 2 && last != NULL; cut++) {
        char *path = gw_strndup(key, (size_t)(last - key));
        const json_t *f = json_object_get(c->paths, path);
        bool namespaced = (json_integer_value(f) & GW_GC__NAMESPACED) != 0;
        if (f != NULL && namespaced == (cut == 1)) {
            free(path);
            return (int)json_integer_value(f);
        }
        last = cut == 0 ? memrchr(key, '/', (size_t)(last - key)) : NULL;
        free(path);
    }
    return -1;
}

int
gw_gc__resolve(gw_gc_t *c, const char *api_version, const char *kind, char **path, bool *namespaced)
{
    const char *slash = strchr(api_version, '/');
    char *group =
        slash != NULL ? gw_strndup(api_version, (size_t)(slash - api_version)) : gw_strdup("");
    const gw_catalog_t *cat = current(c);
    const gw_resource_t *r =
        gw_catalog_find_kind(cat, group, slash != NULL ? slash + 1 : api_version, kind);
    int rc = GW_ENOTFOUND;

    if (r != NULL && r->storage_path != NULL && !r->virtual_only) {
        *path = gw_strdup(r->storage_path);
        *namespaced = r->namespaced;
        rc = 0;
    }
    gw_catalog_unref(cat);
    free(group);
    return rc;
}

char *
gw_gc__object_key(const char *path, bool namespaced, const char *ns, const char *name)
{
    return namespaced ? gw_sprintf("%s/%s/%s", path, ns, name) : gw_sprintf("%s/%s", path, name);
}

/* ---- kube's absentOwnerCache ------------------------------------------------------------- */

#define ABSENT_MAX 500

char *
gw_gc__absent_key(const gw_gc_ref_t *r, const char *ns)
{
    return gw_sprintf("%s|%s|%s|%s|%s", ns, r->api_version, r->kind, r->name, r->uid);
}

void
gw_gc__absent_add(gw_gc_t *c, const char *key)
{
    if (key == NULL)
        return;
    if (json_object_size(c->absent) >= ABSENT_MAX)
        json_object_clear(c->absent);
    json_object_set_new(c->absent, key, json_true());
}

bool
gw_gc__absent_has(gw_gc_t *c, const gw_gc_ref_t *r, const char *ns)
{
    char *key = gw_gc__absent_key(r, ns);
    bool has = json_object_get(c->absent, key) != NULL;

    free(key);
    return has;
}

/* ---- the graph's sink ----------------------------------------------------------------------- */

static void
sink_delete(const gw_gc_node_t *n, void *ctx)
{
    gw_gc_t *c = ctx;
    gw_workqueue_add(c->deletes, n->uid);
}

static void
sink_orphan(const gw_gc_node_t *n, void *ctx)
{
    gw_gc_t *c = ctx;
    gw_workqueue_add(c->orphans, n->uid);
}

static void
sink_invalid(const gw_gc_node_t *dep, const gw_gc_ref_t *owner, void *ctx)
{
    gw_gc__report_invalid_namespace(ctx, dep, owner);
}

/* ---- resync --------------------------------------------------------------------------------- */

static void
resync_node(const gw_gc_node_t *n, void *ctx)
{
    gw_gc_t *c = ctx;

    if (n->key == NULL || n->n_owners > 0 || n->deleting_deps)
        gw_workqueue_add(c->deletes, n->uid);
    if (n->being_deleted && n->fin_orphan)
        gw_workqueue_add(c->orphans, n->uid);
}

/* Every node that may have work is looked at again now and then, so that nothing a failed
 * round or a missed transition left behind is forgotten. */
static void
on_resync(evutil_socket_t fd, short what, void *arg)
{
    gw_gc_t *c = arg;
    struct timeval tv = {RESYNC_MS / 1000, 0};
    (void)fd, (void)what;

    if (c->synced)
        gw_gc_graph_each(c->graph, resync_node, c);
    evtimer_add(c->resync, &tv);
}

gw_gc_t *
gw_gc_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
            const gw_value_transformer_t *values, const gw_catalog_t *catalog)
{
    gw_gc_t *c = gw_calloc(1, sizeof(*c));
    struct timeval tv = {RESYNC_MS / 1000, 0};

    c->client = client;
    c->base = base;
    c->fallback = catalog;
    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, etcd_prefix, values);
    c->reported = json_object();
    c->absent = json_object();
    c->graph = gw_gc_graph_new(&(gw_gc_sink_t){.attempt_delete = sink_delete,
                                               .attempt_orphan = sink_orphan,
                                               .invalid_namespace = sink_invalid,
                                               .ctx = c});
    c->deletes = gw_workqueue_new(
        base,
        &(gw_workqueue_opts_t){.process = gw_gc__attempt_delete, .ctx = c, .max_active = WORKERS});
    c->orphans = gw_workqueue_new(
        base,
        &(gw_workqueue_opts_t){.process = gw_gc__attempt_orphan, .ctx = c, .max_active = WORKERS});
    c->resync = evtimer_new(base, on_resync, c);
    if (c->resync == NULL)
        abort();
    evtimer_add(c->resync, &tv);
    gw_gc__builder_start(c);
    return c;
}

void
gw_gc_stop(gw_gc_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    gw_workqueue_shutdown(c->deletes);
    gw_workqueue_shutdown(c->orphans);
    gw_gc__builder_stop(c);
    etcd_conn_free(c->conn); /* every call in flight fires now, and sees `stopping` */
    gw_store_free(c->store);
    gw_workqueue_free(c->deletes);
    gw_workqueue_free(c->orphans);
    event_free(c->resync);
    gw_gc_graph_free(c->graph);
    gw_catalog_unref(c->paths_of);
    json_decref(c->paths);
    json_decref(c->reported);
    json_decref(c->absent);
    free(c);
}
