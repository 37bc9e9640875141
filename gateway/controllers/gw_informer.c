/*
 * The informer (see gw_informer.h): list at one revision, watch from the next, list again
 * when the watch ends. The cache maps each key to {"r": mod_revision, "g": the list that last
 * saw it, "o": the parsed object}; a list marks what it sees with its generation, and the keys
 * it did not see are reported gone when it ends.
 */
#include "gw_informer.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_store.h"

#define DEFAULT_PAGE 500
#define RELIST_MS 1000 /* pause before listing again after a watch or a list failed */

struct gw_informer {
    gw_informer_opts_t o; /* name and prefix copied */
    etcd_conn_t *conn;    /* ours: freeing it cancels every call */
    gw_store_t *store;
    json_t *items;    /* key -> {"r", "g", "o"} */
    json_int_t gen;   /* the list in progress */
    int64_t revision; /* what the cache is current to */
    bool synced, stopping;
    gw_store_watch_t *watch;
    struct event *relist, *resync;
};

static void
add_timer(struct event *ev, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(ev, &tv);
}

static void
emit(gw_informer_t *inf, gw_informer_event_t ev)
{
    inf->o.handler(inf, &ev, inf->o.ctx);
}

static const json_t *
obj_of(const json_t *entry)
{
    const json_t *o = json_object_get(entry, "o");
    return json_is_object(o) ? o : NULL;
}

/* Cache what the store holds under obj->key, marked with generation `gen`, and report it:
 * added when the key is new, updated when its revision moved. */
static void
store_obj(gw_informer_t *inf, const gw_obj_t *obj, json_int_t gen)
{
    json_t *old = json_incref(json_object_get(inf->items, obj->key));
    json_int_t was = json_integer_value(json_object_get(old, "r"));
    json_t *o = inf->o.cache == GW_INFORMER_JSON ? gw_ctl__parse(obj) : NULL;
    json_t *entry =
        json_pack("{s:I,s:I,s:o?}", "r", (json_int_t)obj->mod_revision, "g", gen, "o", o);

    json_object_set_new(inf->items, obj->key, entry);
    if (old == NULL)
        emit(inf, (gw_informer_event_t){.type = GW_INFORMER_ADDED,
                                        .key = obj->key,
                                        .obj = obj_of(entry),
                                        .mod_revision = obj->mod_revision});
    else if (was != obj->mod_revision)
        emit(inf, (gw_informer_event_t){.type = GW_INFORMER_UPDATED,
                                        .key = obj->key,
                                        .obj = obj_of(entry),
                                        .old = obj_of(old),
                                        .mod_revision = obj->mod_revision});
    json_decref(old);
}

/* Forget `key` and report it gone (rev: the deletion's revision, 0 when not known). */
static void
drop(gw_informer_t *inf, const char *key, int64_t rev)
{
    json_t *old = json_incref(json_object_get(inf->items, key));
    char *k = gw_strdup(key); /* key may be the cache's own */

    if (old == NULL) {
        free(k);
        return;
    }
    json_object_del(inf->items, k);
    emit(inf, (gw_informer_event_t){
                  .type = GW_INFORMER_DELETED, .key = k, .obj = obj_of(old), .mod_revision = rev});
    json_decref(old);
    free(k);
}

/* ---- watch --------------------------------------------------------------------------------- */

static void
watched(int err, const gw_watch_event_t *ev, void *arg)
{
    gw_informer_t *inf = arg;

    if (err == 0) {
        if (ev->type == GW_WATCH_DELETED && ev->obj != NULL)
            drop(inf, ev->obj->key, ev->revision);
        else if (ev->type != GW_WATCH_PROGRESS && ev->obj != NULL)
            store_obj(inf, ev->obj, inf->gen);
        inf->revision = ev->revision > inf->revision ? ev->revision : inf->revision;
        return;
    }
    inf->watch = NULL;
    if (inf->stopping)
        return;
    /* Compacted away or refused: list again and report the difference, as an informer does. */
    gw_log_info(NULL, "%s: %s watch ended (%s); listing again", inf->o.name, inf->o.prefix,
                gw_strerror(err));
    add_timer(inf->relist, RELIST_MS);
}

static void
watch_from(gw_informer_t *inf, int64_t rev)
{
    /* previous values: a deletion then names its key */
    gw_watch_req_t req = {
        .key = inf->o.prefix, .is_prefix = true, .after_revision = rev, .prev_values = true};

    inf->watch = gw_store_watch(inf->store, &req, watched, inf);
    if (inf->watch == NULL)
        abort(); /* well-formed by construction */
}

/* ---- list ---------------------------------------------------------------------------------- */

static void list_page(gw_informer_t *inf, const char *start, int64_t rev);

/* The list at `rev` is complete: what it did not see is gone; then watch from it. */
static void
list_done(gw_informer_t *inf, int64_t rev)
{
    json_t *gone = json_array();
    const char *key;
    json_t *entry;
    size_t i;

    json_object_foreach(inf->items, key, entry)
    {
        if (json_integer_value(json_object_get(entry, "g")) != inf->gen)
            json_array_append_new(gone, json_string(key));
    }
    json_array_foreach(gone, i, entry)
    {
        drop(inf, json_string_value(entry), 0);
    }
    json_decref(gone);
    inf->revision = rev;
    inf->synced = true;
    emit(inf, (gw_informer_event_t){.type = GW_INFORMER_SYNCED, .revision = rev});
    watch_from(inf, rev);
}

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_informer_t *inf = arg;

    if (inf->stopping)
        return;
    if (err != 0) {
        gw_log_warn(NULL, "%s: listing %s failed: %s", inf->o.name, inf->o.prefix,
                    gw_strerror(err));
        add_timer(inf->relist, RELIST_MS);
        return;
    }
    for (size_t i = 0; i < page->n_items; i++)
        store_obj(inf, &page->items[i], inf->gen);
    if (page->more)
        list_page(inf, page->next_key, page->revision);
    else
        list_done(inf, page->revision);
}

/* One page; the first at the latest revision, the others pinned to it. */
static void
list_page(gw_informer_t *inf, const char *start, int64_t rev)
{
    gw_list_req_t req = {
        .prefix = inf->o.prefix, .start_key = start, .revision = rev, .limit = inf->o.page};

    if (gw_store_list(inf->store, &req, listed, inf) != 0)
        abort(); /* well-formed by construction */
}

static void
on_relist(evutil_socket_t fd, short what, void *arg)
{
    gw_informer_t *inf = arg;
    (void)fd, (void)what;

    inf->gen++;
    list_page(inf, NULL, 0);
}

/* ---- the cache ----------------------------------------------------------------------------- */

typedef struct {
    char *key;
    json_t *entry;
} pair_t;

static int
cmp_pair(const void *a, const void *b)
{
    return strcmp(((const pair_t *)a)->key, ((const pair_t *)b)->key);
}

void
gw_informer_each(const gw_informer_t *inf,
                 void (*fn)(const char *key, const json_t *obj, int64_t mod_revision, void *ctx),
                 void *ctx)
{
    size_t n = json_object_size(inf->items), i = 0;
    pair_t *all = gw_calloc(n > 0 ? n : 1, sizeof(*all));
    const char *key;
    json_t *entry;

    /* references and copies: fn may report events whose handlers change the cache */
    json_object_foreach(inf->items, key, entry)
    {
        all[i++] = (pair_t){gw_strdup(key), json_incref(entry)};
    }
    qsort(all, n, sizeof(*all), cmp_pair);
    for (i = 0; i < n; i++) {
        fn(all[i].key, obj_of(all[i].entry), json_integer_value(json_object_get(all[i].entry, "r")),
           ctx);
        free(all[i].key);
        json_decref(all[i].entry);
    }
    free(all);
}

static void
append_obj(const char *key, const json_t *obj, int64_t mod_revision, void *ctx)
{
    (void)key, (void)mod_revision;
    if (obj != NULL)
        json_array_append(ctx, (json_t *)obj);
}

json_t *
gw_informer_list(const gw_informer_t *inf)
{
    json_t *out = json_array();

    gw_informer_each(inf, append_obj, out);
    return out;
}

const json_t *
gw_informer_get(const gw_informer_t *inf, const char *key, int64_t *mod_revision)
{
    const json_t *entry = json_object_get(inf->items, key);

    if (mod_revision != NULL)
        *mod_revision = json_integer_value(json_object_get(entry, "r"));
    return obj_of(entry);
}

bool
gw_informer_synced(const gw_informer_t *inf)
{
    return inf->synced;
}

int64_t
gw_informer_revision(const gw_informer_t *inf)
{
    return inf->revision;
}

/* ---- resync, start and stop ------------------------------------------------------------------ */

static void
resync_one(const char *key, const json_t *obj, int64_t mod_revision, void *ctx)
{
    gw_informer_t *inf = ctx;

    emit(inf, (gw_informer_event_t){.type = GW_INFORMER_UPDATED,
                                    .key = key,
                                    .obj = obj,
                                    .old = obj,
                                    .mod_revision = mod_revision,
                                    .resync = true});
}

static void
on_resync(evutil_socket_t fd, short what, void *arg)
{
    gw_informer_t *inf = arg;
    (void)fd, (void)what;

    if (inf->synced)
        gw_informer_each(inf, resync_one, inf);
    add_timer(inf->resync, inf->o.resync_ms);
}

gw_informer_t *
gw_informer_start(etcd_client_t *client, struct event_base *base, const gw_informer_opts_t *opts)
{
    gw_informer_t *inf = gw_calloc(1, sizeof(*inf));

    inf->o = *opts;
    inf->o.name = gw_strdup(opts->name != NULL ? opts->name : "informer");
    inf->o.prefix = gw_strdup(opts->prefix);
    inf->o.page = opts->page > 0 ? opts->page : DEFAULT_PAGE;
    inf->conn = etcd_conn_new(client, base);
    inf->store = gw_store_new(inf->conn, opts->etcd_prefix, opts->values);
    inf->items = json_object();
    inf->relist = evtimer_new(base, on_relist, inf);
    inf->resync = evtimer_new(base, on_resync, inf);
    if (inf->relist == NULL || inf->resync == NULL)
        abort();
    if (inf->o.resync_ms > 0)
        add_timer(inf->resync, inf->o.resync_ms);
    add_timer(inf->relist, 0); /* the first list, from the loop */
    return inf;
}

void
gw_informer_stop(gw_informer_t *inf)
{
    if (inf == NULL)
        return;
    inf->stopping = true;
    if (inf->watch != NULL)
        gw_store_watch_stop(inf->watch);
    etcd_conn_free(inf->conn); /* every callback fires now, and sees `stopping` */
    gw_store_free(inf->store);
    event_free(inf->relist);
    event_free(inf->resync);
    json_decref(inf->items);
    free((char *)inf->o.name);
    free((char *)inf->o.prefix);
    free(inf);
}
