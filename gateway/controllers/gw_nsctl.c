/*
 * The namespace deletion controller: kube-controller-manager's namespace controller
 * (pkg/controller/namespace/deletion) on one event loop.
 *
 * Namespaces are listed and then watched; every one with a deletionTimestamp is queued. One
 * pass at a time takes the next due namespace: it sets phase Terminating, deletes the
 * namespace's objects resource by resource, page by page, and either queues the namespace
 * again for a later look (something is left) or finalizes it. The queue holds each name once.
 * Everything goes through the controller's own conn, so stopping cancels all of it at once.
 */
#include "gw_clock.h"
#include "gw_nsctl.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_namespace.h"
#include "gw_nsctl_int.h"

#define LIST_PAGE 500  /* namespaces per list page */
#define RELIST_MS 1000 /* pause before listing again after a watch ended */

static void
add_timer(struct event *ev, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(ev, &tv);
}

/* ---- the queue --------------------------------------------------------------------------- */

void
gw_nsctl__enqueue(gw_nsctl_t *c, const char *name, int64_t delay_ms)
{
    int64_t due = gw_monotonic_ms() + delay_ms;
    gw_nsctl_item_t *it;

    for (it = c->queue; it != NULL; it = it->next) {
        if (strcmp(it->name, name) == 0)
            break;
    }
    if (it == NULL) {
        it = gw_calloc(1, sizeof(*it));
        it->name = gw_strdup(name);
        it->due_ms = due;
        it->next = c->queue;
        c->queue = it;
    } else if (due < it->due_ms) {
        it->due_ms = due;
    }
    gw_nsctl__schedule(c);
}

/* The queued item due first, and the link that points at it. */
static gw_nsctl_item_t **
earliest(gw_nsctl_t *c)
{
    gw_nsctl_item_t **best = NULL;

    for (gw_nsctl_item_t **p = &c->queue; *p != NULL; p = &(*p)->next) {
        if (best == NULL || (*p)->due_ms < (*best)->due_ms)
            best = p;
    }
    return best;
}

void
gw_nsctl__schedule(gw_nsctl_t *c)
{
    gw_nsctl_item_t **first = earliest(c);
    int64_t wait;

    if (c->stopping || c->pass != NULL || first == NULL)
        return;
    wait = (*first)->due_ms - gw_monotonic_ms();
    add_timer(c->wake, wait > 0 ? wait : 0);
}

/* The wake timer: start a pass over the namespace due first (if it is due). */
static void
on_wake(evutil_socket_t fd, short what, void *arg)
{
    gw_nsctl_t *c = arg;
    gw_nsctl_item_t **first = earliest(c);
    gw_nsctl_item_t *it;
    (void)fd, (void)what;

    if (c->pass != NULL || first == NULL)
        return;
    if ((*first)->due_ms > gw_monotonic_ms()) {
        gw_nsctl__schedule(c);
        return;
    }
    it = *first;
    *first = it->next;
    gw_nsctl__pass_start(c, it->name);
    free(it->name);
    free(it);
}

void
gw_nsctl__pass_done(gw_nsctl_t *c, const char *name, bool again)
{
    if (again)
        gw_nsctl__enqueue(c, name, c->recheck_ms);
    gw_nsctl__schedule(c);
}

/* ---- namespaces: list, then watch --------------------------------------------------------- */

static void list_page(gw_nsctl_t *c, const char *start, int64_t rev);

/* Queue the namespace in a stored object if it is being deleted. */
static void
consider(gw_nsctl_t *c, const gw_obj_t *obj)
{
    json_t *ns = gw_ctl__parse(obj);
    const char *name = obj->key + strlen(GW_NAMESPACE_RESOURCE "/");

    if (ns != NULL && gw_ctl__deleting(ns))
        gw_nsctl__enqueue(c, name, 0);
    json_decref(ns);
}

static void
on_relist(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    list_page(arg, NULL, 0);
}

static void
watched(int err, const gw_watch_event_t *ev, void *arg)
{
    gw_nsctl_t *c = arg;

    if (err == 0) {
        if (ev->type == GW_WATCH_ADDED || ev->type == GW_WATCH_MODIFIED)
            consider(c, ev->obj);
        return;
    }
    c->watch = NULL;
    if (c->stopping)
        return;
    /* Compacted away or refused: start over from a fresh list, as an informer does. */
    gw_log_info(NULL, "namespace controller: namespace watch ended (%s); listing again",
                gw_strerror(err));
    add_timer(c->relist, RELIST_MS);
}

static void
watch_from(gw_nsctl_t *c, int64_t rev)
{
    gw_watch_req_t req = {
        .key = GW_NAMESPACE_RESOURCE "/", .is_prefix = true, .after_revision = rev};

    c->watch = gw_store_watch(c->store, &req, watched, c);
    if (c->watch == NULL)
        abort(); /* well-formed by construction */
}

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_nsctl_t *c = arg;

    if (c->stopping)
        return;
    if (err != 0) {
        gw_log_warn(NULL, "namespace controller: listing namespaces failed: %s", gw_strerror(err));
        add_timer(c->relist, RELIST_MS);
        return;
    }
    for (size_t i = 0; i < page->n_items; i++)
        consider(c, &page->items[i]);
    if (page->more)
        list_page(c, page->next_key, page->revision);
    else
        watch_from(c, page->revision);
}

/* One page of namespaces; the first at the latest revision, the others pinned to it. */
static void
list_page(gw_nsctl_t *c, const char *start, int64_t rev)
{
    gw_list_req_t req = {.prefix = GW_NAMESPACE_RESOURCE "/",
                         .start_key = start,
                         .revision = rev,
                         .limit = LIST_PAGE};

    if (gw_store_list(c->store, &req, listed, c) != 0)
        abort(); /* well-formed by construction */
}

/* ---- start and stop ----------------------------------------------------------------------- */

/* The resources, one per storage path (several versions of one resource share it). */
static void
set_resources(gw_nsctl_t *c, const gw_nsctl_resource_t *res, size_t n)
{
    c->res = gw_calloc(n > 0 ? n : 1, sizeof(*c->res));
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < c->n_res && !seen; j++)
            seen = strcmp(c->res[j].path, res[i].path) == 0;
        if (!seen)
            c->res[c->n_res++] = res[i];
    }
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
    set_resources(c, opts->resources, opts->n_resources);
    c->wake = evtimer_new(base, on_wake, c);
    c->relist = evtimer_new(base, on_relist, c);
    if (c->wake == NULL || c->relist == NULL)
        abort();
    list_page(c, NULL, 0);
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
    if (c->watch != NULL)
        gw_store_watch_stop(c->watch);
    etcd_conn_free(c->conn); /* every callback fires now, and sees `stopping` */
    gw_nsctl__pass_free(c->pass);
    gw_store_free(c->store);
    while (c->queue != NULL) {
        gw_nsctl_item_t *it = c->queue;
        c->queue = it->next;
        free(it->name);
        free(it);
    }
    event_free(c->wake);
    event_free(c->relist);
    free(c->res);
    free(c);
}
