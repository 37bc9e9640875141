/* Watches: etcd watch events mapped to ADDED / MODIFIED / DELETED / PROGRESS, as
 * kube-apiserver's etcd3 watcher does; objects and previous values through from_storage. */
#include "gw_store.h"

#include <stdlib.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_store_int.h"

struct gw_store_watch {
    gw_store_t *s;
    etcd_watch_t *w;
    gw_store_watch_cb cb;
    void *ctx;
    bool stopping;
};

static void
deliver_put(gw_store_watch_t *w, const Mvccpb__Event *e)
{
    gw_obj_t obj, prev;
    gw_watch_event_t ev = {.revision = e->kv->mod_revision, .obj = &obj};

    /* etcd's IsCreate: a put that (re)created the key. */
    ev.type = e->kv->create_revision == e->kv->mod_revision ? GW_WATCH_ADDED : GW_WATCH_MODIFIED;
    gw_store__obj_init(w->s, e->kv, &obj);
    if (e->prev_kv != NULL) {
        gw_store__obj_init(w->s, e->prev_kv, &prev);
        ev.prev = &prev;
    }
    w->cb(0, &ev, w->ctx);
    gw_store__obj_clear(&obj);
    if (ev.prev != NULL)
        gw_store__obj_clear(&prev);
}

static void
deliver_delete(gw_store_watch_t *w, const Mvccpb__Event *e)
{
    gw_obj_t obj, prev;
    gw_watch_event_t ev = {.type = GW_WATCH_DELETED, .revision = e->kv->mod_revision};

    /* The deleted object is its last value, stamped with the deletion's revision. */
    if (e->prev_kv != NULL) {
        gw_store__obj_init(w->s, e->prev_kv, &obj);
        prev = obj; /* the same value, decoded once: prev borrows obj's */
        prev.owned = NULL;
        obj.mod_revision = e->kv->mod_revision;
        ev.obj = &obj;
        ev.prev = &prev;
    }
    w->cb(0, &ev, w->ctx);
    if (ev.obj != NULL)
        gw_store__obj_clear(&obj);
}

static void
deliver_events(gw_store_watch_t *w, const Etcdserverpb__WatchResponse *resp)
{
    /* The caller may stop the watch from inside an event: deliver nothing after that. */
    for (size_t i = 0; i < resp->n_events && !w->stopping; i++) {
        const Mvccpb__Event *e = resp->events[i];

        if (e->kv == NULL)
            continue;
        if (e->type == MVCCPB__EVENT__EVENT_TYPE__DELETE)
            deliver_delete(w, e);
        else
            deliver_put(w, e);
    }
}

static void
terminal(gw_store_watch_t *w, int err, const Etcdserverpb__WatchResponse *resp)
{
    gw_watch_event_t ev = {.type = GW_WATCH_PROGRESS};

    if (w->stopping)
        err = GW_ECANCELED;
    if (err == GW_ECOMPACTED) {
        ev.revision = resp ? resp->compact_revision : 0;
        w->cb(err, &ev, w->ctx);
    } else {
        w->cb(err, NULL, w->ctx);
    }
    free(w);
}

static void
on_watch(int err, const Etcdserverpb__WatchResponse *resp, void *arg)
{
    gw_store_watch_t *w = arg;

    if (err != 0) {
        terminal(w, err, resp);
        return;
    }
    if (w->stopping)
        return;
    if (resp->n_events > 0) {
        deliver_events(w, resp);
        return;
    }
    gw_watch_event_t ev = {.type = GW_WATCH_PROGRESS, .revision = gw_store__rev(resp->header)};
    w->cb(0, &ev, w->ctx);
}

gw_store_watch_t *
gw_store_watch(gw_store_t *s, const gw_watch_req_t *req, gw_store_watch_cb cb, void *ctx)
{
    etcd_watch_req_t q = {.prev_kv = req->prev_values, .progress_notify = req->progress_notify};
    gw_store_watch_t *w;
    char *key, *end = NULL;
    size_t end_len = 0;

    /* a prefix watch of "" watches the whole store */
    bool key_ok = req->is_prefix ? req->key != NULL : gw_store__key_ok(req->key);

    if (!key_ok || req->after_revision < 0 || cb == NULL)
        return NULL;
    key = gw_store__full_key(s, req->key);
    q.key = etcd_str(key);
    if (req->is_prefix) {
        end = gw_store__prefix_end(key, &end_len);
        q.range_end = (etcd_bytes_t){(const uint8_t *)end, end_len};
    }
    q.start_revision = req->after_revision ? req->after_revision + 1 : 0;
    w = gw_calloc(1, sizeof(*w));
    *w = (gw_store_watch_t){.s = s, .cb = cb, .ctx = ctx};
    w->w = etcd_watch_start(s->conn, &q, on_watch, w);
    free(key);
    free(end);
    if (w->w == NULL) {
        free(w);
        return NULL;
    }
    return w;
}

void
gw_store_watch_request_progress(gw_store_watch_t *w)
{
    if (!w->stopping)
        etcd_watch_request_progress(w->w);
}

void
gw_store_watch_stop(gw_store_watch_t *w)
{
    if (w->stopping)
        return;
    w->stopping = true;
    etcd_watch_cancel(w->w);
}
