/*
 * The garbage collector's graph builder: one list of the whole store (paged, at one revision),
 * then one watch from the next revision, each object reduced to what the graph keeps as it
 * arrives (nothing else of it is kept). When the watch ends the store is listed again and
 * what that list did not see is gone, as an informer's relist reports it.
 */
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_gc_int.h"
#include "gw_log.h"

#define PAGE 500
#define RELIST_MS 1000
#define EVENTS_PREFIX "events/" /* both Event groups: kube's ignoredResources */

static void
add_timer(struct event *ev, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(ev, &tv);
}

/* One stored object into the graph (Events, and values that are no object with a uid, are
 * not the collector's). */
static void
observe(gw_gc_t *c, const gw_obj_t *obj)
{
    gw_gc_meta_t m;

    if (strncmp(obj->key, EVENTS_PREFIX, strlen(EVENTS_PREFIX)) == 0)
        return;
    json_t *o = gw_ctl__parse_meta(obj);
    bool ok = o != NULL && gw_gc_meta_parse(o, &m);
    json_decref(o);
    if (!ok) {
        gw_gc_graph_remove_key(c->graph, obj->key); /* was an object once, maybe */
        return;
    }
    gw_gc_graph_observe(c->graph, obj->key, &m, c->gen);
    gw_gc_meta_clear(&m);
}

static void
watched(int err, const gw_watch_event_t *ev, void *arg)
{
    gw_gc_t *c = arg;

    if (err == 0) {
        if (ev->type == GW_WATCH_DELETED && ev->obj != NULL)
            gw_gc_graph_remove_key(c->graph, ev->obj->key);
        else if (ev->type != GW_WATCH_PROGRESS && ev->obj != NULL)
            observe(c, ev->obj);
        c->revision = ev->revision > c->revision ? ev->revision : c->revision;
        return;
    }
    c->watch = NULL;
    if (c->stopping)
        return;
    gw_log_info(NULL, GW_GC__NAME ": watch ended (%s); listing again", gw_strerror(err));
    add_timer(c->relist, RELIST_MS);
}

static void list_page(gw_gc_t *c, const char *start, int64_t rev);

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_gc_t *c = arg;

    if (c->stopping)
        return;
    if (err != 0) {
        gw_log_warn(NULL, GW_GC__NAME ": listing failed: %s", gw_strerror(err));
        add_timer(c->relist, RELIST_MS);
        return;
    }
    for (size_t i = 0; i < page->n_items; i++)
        observe(c, &page->items[i]);
    if (page->more) {
        list_page(c, page->next_key, page->revision);
        return;
    }
    gw_gc_graph_sweep(c->graph, c->gen);
    c->revision = page->revision;
    if (!c->synced)
        gw_log_info(NULL, GW_GC__NAME ": graph built, %zu nodes", gw_gc_graph_count(c->graph));
    c->synced = true;
    gw_watch_req_t req = {
        .key = "", .is_prefix = true, .after_revision = c->revision, .prev_values = true};
    c->watch = gw_store_watch(c->store, &req, watched, c);
    if (c->watch == NULL)
        abort(); /* well-formed by construction */
}

static void
list_page(gw_gc_t *c, const char *start, int64_t rev)
{
    gw_list_req_t req = {.prefix = "", .start_key = start, .revision = rev, .limit = PAGE};

    if (gw_store_list(c->store, &req, listed, c) != 0)
        abort(); /* well-formed by construction */
}

static void
on_relist(evutil_socket_t fd, short what, void *arg)
{
    gw_gc_t *c = arg;
    (void)fd, (void)what;

    c->gen++;
    list_page(c, NULL, 0);
}

void
gw_gc__builder_start(gw_gc_t *c)
{
    c->relist = evtimer_new(c->base, on_relist, c);
    if (c->relist == NULL)
        abort();
    add_timer(c->relist, 0); /* the first list, from the loop */
}

void
gw_gc__builder_stop(gw_gc_t *c)
{
    if (c->watch != NULL)
        gw_store_watch_stop(c->watch);
    c->watch = NULL;
    if (c->relist != NULL)
        event_free(c->relist);
    c->relist = NULL;
}
