/* The CRD finalizer: the custom objects of a CRD being deleted go first, then its cleanup
 * finalizer. One round per CRD at a time; the waiting is the queue's delayed add. */
#include "gw_crd_finalizer.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_crd_int.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_workqueue.h"

#define NAME "crd-finalizer-controller"
#define WORKERS 5     /* kube runs five */
#define POLL_MS 1000  /* kube polls the instances every second ... */
#define WAIT_MS 60000 /* ... for a minute */
#define PAGE 500

struct gw_crd_finalizer {
    etcd_conn_t *conn; /* ours: freeing it cancels every call of a round */
    gw_store_t *store;
    gw_informer_t *crds;
    gw_workqueue_t *queue;
    bool stopping;
    json_t *deadlines; /* name -> when (monotonic ms) its round stops waiting for instances */
};

typedef enum { DONE, RETRY, POLL } end_t;

/* One round over one CRD. */
typedef struct round round_t;
typedef void (*then_fn)(round_t *r, const json_t *crd);

struct round {
    gw_crd_finalizer_t *c;
    char *name;
    char *prefix; /* "<group>/<plural>/": its objects */
    char *next;   /* the next page's first key */
    size_t pending;
    int failed; /* the first failed delete */
    /* the Terminating condition of the next write, and whether it removes the finalizer */
    const char *status, *reason;
    char *message;
    bool remove;
    then_fn then;
};

static void
end(round_t *r, end_t how)
{
    gw_crd_finalizer_t *c = r->c;

    if (!c->stopping) {
        if (how != POLL)
            json_object_del(c->deadlines, r->name);
        if (how == DONE)
            gw_workqueue_forget(c->queue, r->name);
        else if (how == RETRY)
            gw_workqueue_add_rate_limited(c->queue, r->name);
        else
            gw_workqueue_add_after(c->queue, r->name, POLL_MS);
        gw_workqueue_done(c->queue, r->name);
    }
    free(r->name);
    free(r->prefix);
    free(r->next);
    free(r->message);
    free(r);
}

static bool
finalizing(const json_t *crd)
{
    return crd != NULL && gw_objmeta_deleting(crd) &&
           gw_json_strings_has(gw_json_strings_at(crd, "metadata", "finalizers"),
                               GW_CRD_CLEANUP_FINALIZER);
}

/* ---- the CRD's writes --------------------------------------------------------------------- */

static int
edit(json_t *crd, void *arg)
{
    round_t *r = arg;
    char now[GW_TIME_LEN + 1];

    if (!finalizing(crd))
        return GW_ENOTFOUND; /* finalized meanwhile: nothing left to do */
    gw_crd__set_condition(crd, "Terminating", r->status, r->reason, r->message, gw_time_now(now));
    if (r->remove)
        gw_json_strings_remove_at(crd, "metadata", "finalizers", GW_CRD_CLEANUP_FINALIZER);
    return 0;
}

static void
written(int err, const json_t *crd, int64_t rev, void *arg)
{
    round_t *r = arg;
    (void)rev;

    if (r->c->stopping || err == GW_ENOTFOUND)
        end(r, DONE);
    else if (err != 0) {
        gw_log_warn(NULL, NAME ": status of %s: %s; retrying", r->name, gw_strerror(err));
        end(r, RETRY);
    } else
        r->then(r, crd);
}

/* Write Terminating (status, reason, message: taken), then go on with `then`. */
static void
terminating(round_t *r, const char *status, const char *reason, char *message, bool remove,
            then_fn then)
{
    free(r->message);
    r->status = status;
    r->reason = reason;
    r->message = message;
    r->remove = remove;
    r->then = then;
    int rc = gw_crd__write(r->c->store, r->name, edit, written, r);
    if (rc != 0)
        written(rc, NULL, 0, r);
}

static void
then_done(round_t *r, const json_t *crd)
{
    (void)crd;
    end(r, DONE);
}

static void
then_retry(round_t *r, const json_t *crd)
{
    (void)crd;
    end(r, RETRY);
}

/* The last write of a round: the condition, and the finalizer off. */
static void
finish(round_t *r, const char *reason, const char *message)
{
    terminating(r, "False", reason, gw_strdup(message), true, then_done);
}

/* ---- waiting for the instances to go ----------------------------------------------------- */

static void
counted(int err, const gw_list_page_t *page, void *arg)
{
    round_t *r = arg;
    gw_crd_finalizer_t *c = r->c;
    const json_t *deadline = json_object_get(c->deadlines, r->name);

    if (c->stopping) {
        end(r, DONE);
    } else if (err != 0) {
        terminating(
            r, "True", "InstanceDeletionCheck",
            gw_sprintf("could not confirm zero CustomResources remaining: %s", gw_strerror(err)),
            false, then_retry);
    } else if (page->n_items == 0) {
        finish(r, "InstanceDeletionCompleted", "removed all instances");
    } else if (deadline != NULL && gw_monotonic_ms() < json_integer_value(deadline)) {
        gw_log_debug(NULL, NAME ": %s waiting for %lld items to be removed", r->name,
                     (long long)(page->n_items + page->remaining));
        end(r, POLL);
    } else { /* kube's poll gives up after a minute; the next round deletes again */
        json_object_del(c->deadlines, r->name);
        terminating(r, "True", "InstanceDeletionCheck",
                    gw_strdup("could not confirm zero CustomResources remaining: "
                              "context deadline exceeded"),
                    false, then_retry);
    }
}

static void
count(round_t *r)
{
    gw_list_req_t req = {.prefix = r->prefix, .limit = 1};
    int rc = gw_store_list(r->c->store, &req, counted, r);

    if (rc != 0)
        terminating(
            r, "True", "InstanceDeletionCheck",
            gw_sprintf("could not confirm zero CustomResources remaining: %s", gw_strerror(rc)),
            false, then_retry);
}

/* ---- deleting the instances -------------------------------------------------------------- */

static void list_page(round_t *r);

static void
deleted_all(round_t *r)
{
    if (r->c->stopping) {
        end(r, DONE);
    } else if (r->failed != 0) {
        terminating(r, "True", "InstanceDeletionFailed",
                    gw_sprintf("could not issue all deletes: %s", gw_strerror(r->failed)), false,
                    then_retry);
    } else {
        json_object_set_new(r->c->deadlines, r->name, json_integer(gw_monotonic_ms() + WAIT_MS));
        count(r);
    }
}

static void
object_done(round_t *r, int err)
{
    if (err != 0 && err != GW_ENOTFOUND && err != GW_ECONFLICT && err != GW_EEXIST &&
        r->failed == 0)
        r->failed = err;
    if (--r->pending > 0)
        return;
    if (r->next != NULL && !r->c->stopping)
        list_page(r);
    else
        deleted_all(r);
}

static bool
marked(const json_t *o)
{
    const json_t *grace =
        json_object_get(json_object_get(o, "metadata"), "deletionGracePeriodSeconds");

    return gw_objmeta_deleting(o) && json_is_integer(grace) && json_integer_value(grace) == 0;
}

/* The generic store's delete of an object with finalizers (markAsDeleting): the next
 * generation, a deletionTimestamp and no grace; its finalizers' owners finish it. */
static void
mark_mutate(gw_store_update_t *u, const gw_obj_t *cur, void *arg)
{
    json_t *o = cur != NULL ? gw_ctl__parse(cur) : NULL;
    char now[GW_TIME_LEN + 1];
    (void)arg;

    if (o == NULL || marked(o) || gw_json_strings_count_at(o, "metadata", "finalizers") == 0) {
        gw_store_update_abort(u, o == NULL ? GW_ENOTFOUND : GW_EEXIST); /* gone, or changed */
        json_decref(o);
        return;
    }
    json_t *meta = gw_json_child(o, "metadata");
    json_int_t gen = json_integer_value(json_object_get(meta, "generation"));
    if (!gw_objmeta_deleting(o)) {
        if (gen > 0)
            json_object_set_new(meta, "generation", json_integer(gen + 1));
        json_object_set_new(meta, "deletionTimestamp", json_string(gw_time_now(now)));
    }
    json_object_set_new(meta, "deletionGracePeriodSeconds", json_integer(0));
    size_t len;
    uint8_t *value = gw_ctl__dump(o, &len);
    gw_store_update_commit(u, value, len);
    json_decref(o);
}

static void handle_object(round_t *r, const gw_obj_t *obj);

static void
object_written(int err, const gw_obj_t *obj, void *arg)
{
    round_t *r = arg;

    /* changed since it was listed (a finalizer came or went): judge it again as it is now */
    if (err == GW_ECONFLICT && obj != NULL && !r->c->stopping) {
        handle_object(r, obj);
        err = 0;
    }
    object_done(r, err);
}

static void
handle_object(round_t *r, const gw_obj_t *obj)
{
    json_t *o = gw_ctl__parse(obj);
    bool held = o != NULL && gw_json_strings_count_at(o, "metadata", "finalizers") > 0;
    bool done = held && marked(o);
    int rc = 0;

    json_decref(o);
    if (done)
        return; /* deleted already: its finalizers' owners finish it */
    if (held)
        rc = gw_store_guaranteed_update(r->c->store, obj->key, 0, mark_mutate, object_written, r);
    else
        rc = gw_store_delete(r->c->store, obj->key, obj->mod_revision, object_written, r);
    if (rc == 0)
        r->pending++;
    else if (r->failed == 0)
        r->failed = rc;
}

static void
page_listed(int err, const gw_list_page_t *page, void *arg)
{
    round_t *r = arg;

    free(r->next);
    r->next = NULL;
    if (err != 0 || r->c->stopping) {
        if (r->failed == 0)
            r->failed = err;
        deleted_all(r);
        return;
    }
    r->pending = 1; /* held until the page is handed out */
    for (size_t i = 0; i < page->n_items; i++)
        handle_object(r, &page->items[i]);
    if (page->more)
        r->next = gw_strdup(page->next_key);
    object_done(r, 0);
}

/* The next page of the instances, at the latest revision (they are deleted as we go). */
static void
list_page(round_t *r)
{
    gw_list_req_t req = {.prefix = r->prefix, .start_key = r->next, .limit = PAGE};
    int rc = gw_store_list(r->c->store, &req, page_listed, r);

    if (rc != 0) {
        r->failed = rc;
        deleted_all(r);
    }
}

/* ---- a round ------------------------------------------------------------------------------ */

static const char *
spec_str(const json_t *crd, const char *a, const char *b)
{
    const json_t *spec = json_object_get(crd, "spec");
    const char *s = json_string_value(
        json_object_get(b != NULL ? json_object_get(spec, a) : spec, b != NULL ? b : a));
    return s != NULL ? s : "";
}

/* kube's OverlappingBuiltInResources: built-in resources stored where a CRD of the same
 * group/plural would keep its objects, which are not the CRD's to delete. */
static bool
overlaps_builtin(const char *group, const char *plural)
{
    return (strcmp(group, "apiregistration.k8s.io") == 0 && strcmp(plural, "apiservices") == 0) ||
           (strcmp(group, "apiextensions.k8s.io") == 0 &&
            strcmp(plural, "customresourcedefinitions") == 0);
}

/* InstanceDeletionInProgress is written: delete what there is, unless there is nothing of it. */
static void
started(round_t *r, const json_t *crd)
{
    const char *group = spec_str(crd, "group", NULL);
    const char *plural = spec_str(crd, "names", "plural");

    if (overlaps_builtin(group, plural)) {
        finish(r, "OverlappingBuiltInResource",
               "instances overlap with built-in resources in storage");
        return;
    }
    if (!gw_crd__condition_true(crd, "Established")) {
        finish(r, "NeverEstablished", "resource was never established");
        return;
    }
    char *path = gw_store_resource_path(group, plural, true);
    r->prefix = gw_store_collection_prefix(path, NULL);
    free(path);
    if (r->prefix == NULL)
        finish(r, "NeverEstablished", "resource was never established"); /* no valid names */
    else
        list_page(r);
}

static void
process(gw_workqueue_t *q, const char *name, void *ctx)
{
    gw_crd_finalizer_t *c = ctx;
    char *rel = gw_sprintf(GW_CRD__PREFIX "%s", name);
    const json_t *crd = gw_informer_get(c->crds, rel, NULL);
    free(rel);

    if (!finalizing(crd)) {
        json_object_del(c->deadlines, name);
        gw_workqueue_done(q, name);
        return;
    }
    round_t *r = gw_calloc(1, sizeof(*r));
    r->c = c;
    r->name = gw_strdup(name);
    if (json_object_get(c->deadlines, name) == NULL) {
        terminating(r, "True", "InstanceDeletionInProgress",
                    gw_strdup("CustomResource deletion is in progress"), false, started);
        return;
    }
    /* waiting: look at the instances again (the prefix is the CRD's, as the round began) */
    char *path = gw_store_resource_path(spec_str(crd, "group", NULL),
                                        spec_str(crd, "names", "plural"), true);
    r->prefix = gw_store_collection_prefix(path, NULL);
    free(path);
    if (r->prefix == NULL)
        end(r, RETRY);
    else
        count(r);
}

/* Whether two states of a CRD differ in more than their Terminating condition (kube requeues
 * only then: the condition is this controller's own write). */
static bool
changed_beyond_terminating(const json_t *old, const json_t *new)
{
    if (old == NULL || new == NULL)
        return true;
    json_t *a = json_deep_copy(old), *b = json_deep_copy(new);
    gw_crd__remove_condition(a, "Terminating");
    gw_crd__remove_condition(b, "Terminating");
    bool differ = !json_equal(a, b);
    json_decref(a);
    json_decref(b);
    return differ;
}

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_crd_finalizer_t *c = ctx;
    (void)inf;

    if (ev->key == NULL || strncmp(ev->key, GW_CRD__PREFIX, strlen(GW_CRD__PREFIX)) != 0)
        return;
    const char *name = ev->key + strlen(GW_CRD__PREFIX);
    if (ev->type == GW_INFORMER_DELETED)
        json_object_del(c->deadlines, name);
    if (!finalizing(ev->obj))
        return;
    if (ev->type == GW_INFORMER_ADDED || ev->resync || changed_beyond_terminating(ev->old, ev->obj))
        gw_workqueue_add(c->queue, name);
}

gw_crd_finalizer_t *
gw_crd_finalizer_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                       const gw_value_transformer_t *values)
{
    gw_crd_finalizer_t *c = gw_calloc(1, sizeof(*c));

    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, etcd_prefix, values);
    c->deadlines = json_object();
    c->queue = gw_workqueue_new(
        base, &(gw_workqueue_opts_t){.process = process, .ctx = c, .max_active = WORKERS});
    c->crds = gw_informer_start(client, base,
                                &(gw_informer_opts_t){.name = NAME,
                                                      .etcd_prefix = etcd_prefix,
                                                      .values = values,
                                                      .prefix = GW_CRD__PREFIX,
                                                      .cache = GW_INFORMER_JSON,
                                                      .handler = changed,
                                                      .ctx = c});
    return c;
}

void
gw_crd_finalizer_stop(gw_crd_finalizer_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    gw_workqueue_shutdown(c->queue);
    gw_informer_stop(c->crds);
    etcd_conn_free(c->conn); /* every call of a round fires now, and sees `stopping` */
    gw_store_free(c->store);
    gw_workqueue_free(c->queue);
    json_decref(c->deadlines);
    free(c);
}
