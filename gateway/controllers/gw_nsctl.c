/*
 * The namespace deletion controller: kube-controller-manager's namespace controller
 * (pkg/controller/namespace/deletion) on one event loop.
 *
 * A namespace informer queues every namespace with a deletionTimestamp. One pass at a time
 * takes the next queued namespace: it sets phase Terminating, deletes the namespace's objects
 * resource by resource, page by page, and either queues the namespace again for a later look
 * (something is left) or finalizes it. Passes go through the controller's own conn, so
 * stopping cancels all of them at once.
 */
#include "gw_nsctl.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_namespace.h"
#include "gw_nsctl_int.h"

/* ---- the queue --------------------------------------------------------------------------- */

void
gw_nsctl__enqueue(gw_nsctl_t *c, const char *name, int64_t delay_ms)
{
    gw_workqueue_add_after(c->queue, name, delay_ms);
}

void
gw_nsctl__pass_done(gw_nsctl_t *c, const char *name, bool again)
{
    if (again)
        gw_nsctl__enqueue(c, name, c->recheck_ms);
    gw_workqueue_done(c->queue, name);
}

static void
process(gw_workqueue_t *q, const char *name, void *ctx)
{
    (void)q;
    gw_nsctl__pass_start(ctx, name);
}

/* A namespace seen (listed, added or changed): queued when it is being deleted. */
static void
on_namespace(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_nsctl_t *c = ctx;
    (void)inf;

    if ((ev->type == GW_INFORMER_ADDED || ev->type == GW_INFORMER_UPDATED) && ev->obj != NULL &&
        gw_objmeta_deleting(ev->obj))
        gw_nsctl__enqueue(c, ev->key + strlen(GW_NAMESPACE_RESOURCE "/"), 0);
}

/* ---- start and stop ----------------------------------------------------------------------- */

/* Add r unless its storage path is there already (several versions of one resource share
 * it); c->res has room. */
static void
add_resource(gw_nsctl_t *c, gw_nsctl_resource_t r)
{
    for (size_t j = 0; j < c->n_res; j++) {
        if (strcmp(c->res[j].path, r.path) == 0)
            return;
    }
    c->res[c->n_res++] = r;
}

void
gw_nsctl__refresh_resources(gw_nsctl_t *c)
{
    const gw_catalog_t *cat = gw_catalog_current();
    size_t n = cat ? gw_catalog_count(cat) : 0;

    free(c->res);
    c->res = gw_calloc(c->n_base + n + 1, sizeof(*c->res));
    c->n_res = 0;
    for (size_t i = 0; i < c->n_base; i++)
        add_resource(c, c->base_res[i]);
    for (size_t i = 0; i < n; i++) {
        const gw_resource_t *r = gw_catalog_at(cat, i);
        if (r->custom != NULL && r->namespaced)
            add_resource(c, (gw_nsctl_resource_t){r->storage_path, r->group, r->name});
    }
    gw_catalog_unref(c->catalog); /* the strings of the previous pass's custom resources */
    c->catalog = cat;
}

gw_nsctl_t *
gw_nsctl_start(etcd_client_t *client, struct event_base *base, const gw_nsctl_opts_t *opts)
{
    gw_nsctl_t *c;

    if (opts->etcd_prefix == NULL || opts->recheck_ms < 0 ||
        (opts->n_resources > 0 && opts->resources == NULL))
        return NULL;
    c = gw_calloc(1, sizeof(*c));
    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, opts->etcd_prefix, opts->values);
    c->recheck_ms = opts->recheck_ms > 0 ? opts->recheck_ms : GW_NSCTL_RECHECK_MS;
    c->base_res = gw_calloc(opts->n_resources + 1, sizeof(*c->base_res));
    if (opts->n_resources > 0)
        memcpy(c->base_res, opts->resources, opts->n_resources * sizeof(*c->base_res));
    c->n_base = opts->n_resources;
    gw_nsctl__refresh_resources(c);
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = process, .ctx = c});
    c->namespaces = gw_informer_start(client, base,
                                      &(gw_informer_opts_t){.name = "namespace controller",
                                                            .etcd_prefix = opts->etcd_prefix,
                                                            .values = opts->values,
                                                            .prefix = GW_NAMESPACE_RESOURCE "/",
                                                            .cache = GW_INFORMER_JSON,
                                                            .handler = on_namespace,
                                                            .ctx = c});
    return c;
}

uint64_t
gw_nsctl_removed(const gw_nsctl_t *c)
{
    return c->removed;
}

void
gw_nsctl_stop(gw_nsctl_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    gw_workqueue_shutdown(c->queue);
    gw_informer_stop(c->namespaces);
    etcd_conn_free(c->conn); /* every callback of a pass fires now, and sees `stopping` */
    gw_nsctl__pass_free(c->pass);
    gw_store_free(c->store);
    gw_workqueue_free(c->queue);
    free(c->res);
    free(c->base_res);
    gw_catalog_unref(c->catalog);
    free(c);
}
