/*
 * One pass of the namespace controller over one namespace:
 *   read it -> phase Terminating -> for each resource, page by page: delete every object
 *   (objects with finalizers: mark them deleted and count them as left) -> if nothing is left,
 *   finalize: drop "kubernetes" from spec.finalizers and remove the namespace when no
 *   finalizer at all is left.
 * kube's namespace controller deletes through the API (deletecollection per resource) and
 * removes its finalizer through /finalize; here both go straight to etcd, each write guarded
 * by the revision it read, so nothing written meanwhile by anyone else is overwritten.
 */
#include "gw_nsctl_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_namespace.h"

#define CONTENT_PAGE 100    /* objects listed (and deleted concurrently) at a time */
#define NO_CHANGE GW_EEXIST /* an edit found nothing to change: the update writes nothing */

struct gw_nsctl_pass {
    gw_nsctl_t *c;
    char *name;
    char *key;          /* namespaces/<name> */
    size_t path;        /* the next resource to empty */
    size_t cur;         /* the one being emptied */
    char *prefix;       /* the collection being emptied: <path>/<name>/ */
    char *next;         /* start key of its next page, or NULL */
    int pending;        /* object writes of this page in flight */
    size_t left;        /* objects still there (finalizers, concurrent changes) */
    size_t *remaining;  /* ... per resource */
    json_t *finalizers; /* finalizer name -> objects it holds */
    json_t *failures;   /* "<resource>.<group>: <error>" per resource that failed */
    bool cur_failed;    /* the current resource has its failure recorded */
    size_t deleted;     /* objects this pass deleted */
    bool failed;        /* some call failed: look again later */
    bool remove;        /* finalize decided to remove the namespace object */
    int64_t ns_rev;     /* ... at this revision */
};

static void next_resource(gw_nsctl_pass_t *p);

void
gw_nsctl__pass_free(gw_nsctl_pass_t *p)
{
    if (p == NULL)
        return;
    free(p->name);
    free(p->key);
    free(p->prefix);
    free(p->next);
    free(p->remaining);
    json_decref(p->finalizers);
    json_decref(p->failures);
    free(p);
}

/* The pass is over: let the controller go on (and look again later if `again`). */
static void
end(gw_nsctl_pass_t *p, bool again)
{
    gw_nsctl_t *c = p->c;

    c->pass = NULL;
    gw_nsctl__pass_done(c, p->name, again);
    gw_nsctl__pass_free(p);
}

/* An update whose mutate needs nothing but the parsed current object. */
typedef int (*edit_fn)(json_t *o, gw_nsctl_pass_t *p, const gw_obj_t *cur);

static void
run_edit(gw_store_update_t *u, const gw_obj_t *cur, gw_nsctl_pass_t *p, edit_fn edit)
{
    json_t *o = cur != NULL ? gw_ctl__parse(cur) : NULL;
    int err = cur == NULL ? GW_ENOTFOUND : o == NULL ? GW_EINTERNAL : edit(o, p, cur);
    uint8_t *value;
    size_t len;

    if (err == 0) {
        value = gw_ctl__dump(o, &len);
        gw_store_update_commit(u, value, len);
    } else {
        gw_store_update_abort(u, err);
    }
    json_decref(o);
}

/* Something failed for the current resource: look again later, and say so in the status. */
static void
fail(gw_nsctl_pass_t *p, int err)
{
    const gw_nsctl_resource_t *r = &p->c->res[p->cur];

    p->failed = true;
    if (p->cur_failed)
        return;
    p->cur_failed = true;
    json_array_append_new(p->failures,
                          json_sprintf("%s.%s: %s", r->resource, r->group, gw_strerror(err)));
}

/* ---- finalize ----------------------------------------------------------------------------- */

static void
removed(int err, const gw_obj_t *obj, void *arg)
{
    gw_nsctl_pass_t *p = arg;
    (void)obj;

    if (p->c->stopping)
        return;
    if (err == 0) {
        p->c->removed++;
        gw_log_info(NULL, "namespace controller: namespace %s removed", p->name);
    }
    if (err == GW_ECONFLICT) /* changed since finalize read it: look again at once */
        gw_nsctl__enqueue(p->c, p->name, 0);
    end(p, err != 0 && err != GW_ENOTFOUND && err != GW_ECONFLICT);
}

static int
edit_finalize(json_t *ns, gw_nsctl_pass_t *p, const gw_obj_t *cur)
{
    bool ours;

    if (!gw_objmeta_deleting(ns))
        return GW_ENOTFOUND; /* nothing to finalize */
    ours = gw_json_strings_remove_at(ns, "spec", "finalizers", GW_NAMESPACE_FINALIZER);
    if (gw_json_strings_count_at(ns, "spec", "finalizers") == 0 &&
        gw_json_strings_count_at(ns, "metadata", "finalizers") == 0) {
        /* Nothing holds it any more: delete it instead (ShouldDeleteNamespaceDuringUpdate). */
        p->remove = true;
        p->ns_rev = cur->mod_revision;
        return GW_ECANCELED;
    }
    return ours ? 0 : GW_ENOTFOUND; /* finalized before: the others' finalizers hold it */
}

static void
finalize_mutate(gw_store_update_t *u, const gw_obj_t *cur, void *arg)
{
    gw_nsctl_pass_t *p = arg;

    p->remove = false;
    run_edit(u, cur, p, edit_finalize);
}

static void
finalized(int err, const gw_obj_t *obj, void *arg)
{
    gw_nsctl_pass_t *p = arg;
    (void)obj;

    if (p->c->stopping)
        return;
    if (p->remove) {
        if (gw_store_delete(p->c->store, p->key, p->ns_rev, removed, p) != 0)
            end(p, true);
        return;
    }
    if (err == 0)
        gw_log_info(NULL, "namespace controller: namespace %s is empty; other finalizers hold it",
                    p->name);
    end(p, err != 0 && err != GW_ENOTFOUND);
}

static int
edit_status(json_t *ns, gw_nsctl_pass_t *p, const gw_obj_t *cur)
{
    json_t *want = gw_nsctl__conditions(p->c, p->remaining, p->finalizers, p->failures);
    bool changed = gw_nsctl__merge_conditions(ns, want);
    (void)cur;

    json_decref(want);
    return changed ? 0 : NO_CHANGE;
}

static void
status_mutate(gw_store_update_t *u, const gw_obj_t *cur, void *arg)
{
    run_edit(u, cur, arg, edit_status);
}

/* The conditions are written: look again later while anything is left, else finalize. */
static void
status_set(int err, const gw_obj_t *obj, void *arg)
{
    gw_nsctl_pass_t *p = arg;
    (void)obj;

    if (p->c->stopping)
        return;
    if (err == GW_ENOTFOUND || p->failed || p->left > 0 || (err != 0 && err != NO_CHANGE)) {
        end(p, err != GW_ENOTFOUND);
        return;
    }
    if (gw_store_guaranteed_update(p->c->store, p->key, 0, finalize_mutate, finalized, p) != 0)
        end(p, true);
}

static void
content_done(gw_nsctl_pass_t *p)
{
    gw_log_debug(NULL, "namespace controller: %s: %zu objects deleted, %zu left%s", p->name,
                 p->deleted, p->left, p->failed ? ", some calls failed" : "");
    if (gw_store_guaranteed_update(p->c->store, p->key, 0, status_mutate, status_set, p) != 0)
        end(p, true);
}

/* ---- content ------------------------------------------------------------------------------ */

static void list_content(gw_nsctl_pass_t *p);

static void
page_done(gw_nsctl_pass_t *p)
{
    if (p->next != NULL)
        list_content(p);
    else
        next_resource(p);
}

/* One object write of the page answered. */
static void
object_done(gw_nsctl_pass_t *p, int err)
{
    if (err != 0 && err != GW_ENOTFOUND && err != GW_ECONFLICT)
        fail(p, err);
    if (--p->pending == 0)
        page_done(p);
}

static void
object_deleted(int err, const gw_obj_t *obj, void *arg)
{
    gw_nsctl_pass_t *p = arg;
    (void)obj;

    if (p->c->stopping)
        return;
    if (err == 0)
        p->deleted++;
    if (err == GW_ECONFLICT) { /* written meanwhile: the next pass looks at it again */
        p->left++;
        p->remaining[p->cur]++;
    }
    object_done(p, err);
}

/* An object held by finalizers: deleted the way the generic store does it (deletionTimestamp,
 * no grace), then left to its finalizers' owners. */
static int
edit_mark(json_t *o, gw_nsctl_pass_t *p, const gw_obj_t *cur)
{
    json_t *meta = gw_json_child(o, "metadata");
    char now[32];
    (void)p, (void)cur;

    if (gw_objmeta_deleting(o) || gw_json_strings_count_at(o, "metadata", "finalizers") == 0)
        return GW_ECONFLICT; /* changed since it was listed: the next pass sees it */
    gw_time_now(now);
    json_object_set_new(meta, "deletionTimestamp", json_string(now));
    json_object_set_new(meta, "deletionGracePeriodSeconds", json_integer(0));
    return 0;
}

static void
mark_mutate(gw_store_update_t *u, const gw_obj_t *cur, void *arg)
{
    run_edit(u, cur, arg, edit_mark);
}

static void
marked_cb(int err, const gw_obj_t *obj, void *arg)
{
    gw_nsctl_pass_t *p = arg;
    (void)obj;

    if (!p->c->stopping)
        object_done(p, err);
}

/* An object its finalizers hold: counted as left, and for each of its finalizers. */
static void
count_held(gw_nsctl_pass_t *p, const json_t *finalizers)
{
    p->left++;
    p->remaining[p->cur]++;
    for (size_t i = 0; i < json_array_size(finalizers); i++) {
        const char *name = json_string_value(json_array_get(finalizers, i));
        json_t *n = name != NULL ? json_object_get(p->finalizers, name) : NULL;
        if (name != NULL)
            json_object_set_new(p->finalizers, name, json_integer(json_integer_value(n) + 1));
    }
}

static void
handle_object(gw_nsctl_pass_t *p, const gw_obj_t *obj)
{
    json_t *o = gw_ctl__parse(obj);
    bool held = o != NULL && gw_json_strings_count_at(o, "metadata", "finalizers") > 0;
    bool marked = held && gw_objmeta_deleting(o);
    int rc;

    if (held)
        count_held(p, gw_json_strings_at(o, "metadata", "finalizers"));
    json_decref(o);
    if (marked) /* deleted already: its finalizers' owners finish it */
        return;
    if (held)
        rc = gw_store_guaranteed_update(p->c->store, obj->key, 0, mark_mutate, marked_cb, p);
    else
        rc = gw_store_delete(p->c->store, obj->key, obj->mod_revision, object_deleted, p);
    if (rc == 0)
        p->pending++;
    else
        fail(p, rc);
}

static void
content_listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_nsctl_pass_t *p = arg;

    if (p->c->stopping)
        return;
    free(p->next);
    p->next = NULL;
    if (err != 0) {
        fail(p, err);
        next_resource(p);
        return;
    }
    for (size_t i = 0; i < page->n_items; i++)
        handle_object(p, &page->items[i]);
    if (page->more)
        p->next = gw_strdup(page->next_key);
    if (p->pending == 0)
        page_done(p);
}

/* The next page of the current collection, at the latest revision (we delete as we go). */
static void
list_content(gw_nsctl_pass_t *p)
{
    gw_list_req_t req = {.prefix = p->prefix, .start_key = p->next, .limit = CONTENT_PAGE};

    int rc = gw_store_list(p->c->store, &req, content_listed, p);

    if (rc != 0) {
        fail(p, rc);
        next_resource(p);
    }
}

static void
next_resource(gw_nsctl_pass_t *p)
{
    gw_nsctl_t *c = p->c;

    free(p->prefix);
    free(p->next);
    p->prefix = p->next = NULL;
    p->cur_failed = false;
    while (p->prefix == NULL && p->path < c->n_res) {
        p->cur = p->path++;
        p->prefix = gw_store_collection_prefix(c->res[p->cur].path, p->name);
    }
    if (p->prefix == NULL)
        content_done(p);
    else
        list_content(p);
}

/* ---- start -------------------------------------------------------------------------------- */

static int
edit_phase(json_t *ns, gw_nsctl_pass_t *p, const gw_obj_t *cur)
{
    (void)p, (void)cur;
    json_object_set_new(gw_json_child(ns, "status"), "phase", json_string("Terminating"));
    return 0;
}

static void
phase_mutate(gw_store_update_t *u, const gw_obj_t *cur, void *arg)
{
    run_edit(u, cur, arg, edit_phase);
}

static void
phase_set(int err, const gw_obj_t *obj, void *arg)
{
    gw_nsctl_pass_t *p = arg;
    (void)obj;

    if (p->c->stopping)
        return;
    if (err != 0)
        end(p, err != GW_ENOTFOUND);
    else
        next_resource(p);
}

static bool
phase_is_terminating(const json_t *ns)
{
    const char *phase = json_string_value(json_object_get(json_object_get(ns, "status"), "phase"));

    return phase != NULL && strcmp(phase, "Terminating") == 0;
}

static void
ns_read(int err, const gw_obj_t *obj, void *arg)
{
    gw_nsctl_pass_t *p = arg;
    json_t *ns;

    if (p->c->stopping)
        return;
    ns = err == 0 ? gw_ctl__parse(obj) : NULL;
    if (ns == NULL || !gw_objmeta_deleting(ns)) /* gone, or not being deleted: nothing to do */
        end(p, err != 0 && err != GW_ENOTFOUND);
    else if (phase_is_terminating(ns))
        next_resource(p);
    else if (gw_store_guaranteed_update(p->c->store, p->key, 0, phase_mutate, phase_set, p) != 0)
        next_resource(p);
    json_decref(ns);
}

void
gw_nsctl__pass_start(gw_nsctl_t *c, const char *name)
{
    gw_nsctl_pass_t *p = gw_calloc(1, sizeof(*p));

    gw_nsctl__refresh_resources(c);
    p->c = c;
    p->name = gw_strdup(name);
    p->key = gw_store_object_key(GW_NAMESPACE_RESOURCE, NULL, name);
    p->remaining = gw_calloc(c->n_res > 0 ? c->n_res : 1, sizeof(*p->remaining));
    p->finalizers = json_object();
    p->failures = json_array();
    c->pass = p;
    if (p->key == NULL || gw_store_get(c->store, p->key, 0, ns_read, p) != 0)
        end(p, false);
}
