#ifndef GATEWAY_CONTROLLERS_GW_NSCTL_INT_H
#define GATEWAY_CONTROLLERS_GW_NSCTL_INT_H

/* Internals of the namespace controller, shared by gw_nsctl.c (the namespace informer and queue)
 * and gw_nsctl_pass.c (one pass over one namespace). */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "etcd.h"
#include "gw_catalog.h"
#include "gw_informer.h"
#include "gw_nsctl.h"
#include "gw_store.h"
#include "gw_workqueue.h"

typedef struct gw_nsctl_pass gw_nsctl_pass_t;

struct gw_nsctl {
    etcd_conn_t *conn; /* ours: freeing it cancels every call of a pass */
    gw_store_t *store;
    gw_nsctl_resource_t *base_res; /* the configured resources */
    size_t n_base;
    gw_nsctl_resource_t *res; /* the resources to empty, one per storage path: the configured
                                 ones and the current catalog's custom ones */
    size_t n_res;
    const gw_catalog_t *catalog; /* held: the custom resources' strings */
    int64_t recheck_ms;
    bool stopping;
    uint64_t removed;

    gw_informer_t *namespaces; /* queues the terminating ones */
    gw_workqueue_t *queue;     /* namespace names, one pass at a time */
    gw_nsctl_pass_t *pass;     /* the pass in progress, or NULL */
};

/** Queue namespace `name` to be processed in delay_ms (sooner if it is queued already). */
void gw_nsctl__enqueue(gw_nsctl_t *c, const char *name, int64_t delay_ms);

/** Take the resources a pass empties afresh (at each pass's start: custom resources come and
 *  go): the configured ones, then the current catalog's namespaced custom resources. */
void gw_nsctl__refresh_resources(gw_nsctl_t *c);

/** Start a pass over namespace `name` (c->pass must be NULL). */
void gw_nsctl__pass_start(gw_nsctl_t *c, const char *name);

/** A pass ended (c->pass is NULL again): queue `name` for a recheck if `again`, and go on. */
void gw_nsctl__pass_done(gw_nsctl_t *c, const char *name, bool again);

/**
 * kube's five namespace deletion conditions for what a pass found: objects left per resource
 * (`remaining`, indexed like c->res), objects held per finalizer name (an object of counts),
 * failures (an array of strings). A new array; lastTransitionTime is now. Thread: any.
 */
json_t *gw_nsctl__conditions(const gw_nsctl_t *c, const size_t *remaining, const json_t *finalizers,
                             const json_t *failures);

/** Merge conditions from gw_nsctl__conditions into ns.status.conditions, keeping a
 *  condition's lastTransitionTime while its status stays; whether anything changed. */
bool gw_nsctl__merge_conditions(json_t *ns, const json_t *want);

/** Free a pass cut short by gw_nsctl_stop (after every callback fired). NULL is fine. */
void gw_nsctl__pass_free(gw_nsctl_pass_t *p);

#endif
