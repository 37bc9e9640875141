/*
 * The namespace strategy and registry, as kube-apiserver's pkg/registry/core/namespace has
 * them. Create and update: the kubernetes.io/metadata.name label, status and spec.finalizers
 * (which change only through /status and /finalize), and the update that deletes once the
 * last finalizer went. DELETE: the first request marks the namespace terminating in one
 * guaranteed update and leaves the rest to the namespace controller; later requests change
 * nothing until the controller has removed its spec finalizer, and then delete as the generic
 * store does.
 */
#include "gw_strategy_namespace.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_objmeta.h"
#include "gw_registry_int.h"

/* ---- strategy ----------------------------------------------------------------------------- */

void
gw_namespace_prepare(json_t *ns)
{
    json_t *meta = json_object_get(ns, "metadata");
    json_t *name = json_object_get(meta, "name");

    if (!json_is_string(name))
        return;
    json_object_set_new(gw_json_child(meta, "labels"), GW_NAMESPACE_NAME_LABEL,
                        json_string(json_string_value(name)));
}

void
gw_namespace_prepare_create(json_t *ns)
{
    json_object_set_new(ns, "status", json_pack("{s:s}", "phase", "Active"));
    gw_json_strings_add_at(ns, "spec", "finalizers", GW_NAMESPACE_FINALIZER);
    gw_namespace_prepare(ns);
}

/* dst.<name> = a copy of src.<name>, or removed when src has none. */
static void
copy_member(json_t *dst, const json_t *src, const char *name)
{
    json_t *v = json_object_get(src, name);

    if (v != NULL)
        json_object_set_new(dst, name, json_deep_copy(v));
    else
        json_object_del(dst, name);
}

void
gw_namespace_prepare_update(json_t *ns, const json_t *old)
{
    copy_member(gw_json_child(ns, "spec"), json_object_get(old, "spec"), "finalizers");
    copy_member(ns, old, "status");
    gw_namespace_prepare(ns);
}

bool
gw_namespace_should_delete_on_update(const json_t *ns, const json_t *old)
{
    json_t *grace = json_object_get(json_object_get(old, "metadata"), "deletionGracePeriodSeconds");

    if (gw_json_strings_count_at(ns, "spec", "finalizers") > 0 ||
        gw_json_strings_count_at(ns, "metadata", "finalizers") > 0 || !gw_objmeta_deleting(old))
        return false;
    return grace == NULL || json_is_null(grace) || json_integer_value(grace) == 0;
}

/* ---- delete ------------------------------------------------------------------------------- */

/* What a guaranteed-update attempt decided, when it did not simply write. */
typedef enum {
    ACT_WRITE,    /* the new value was committed */
    ACT_KEEP,     /* nothing to change: answer with the current object */
    ACT_DRY,      /* dry run: answer with the value that would have been written */
    ACT_DELETE,   /* remove the object (generic delete) */
    ACT_CONFLICT, /* a precondition failed */
} act_t;

typedef struct {
    gw_store_t *s;
    char *key;
    json_t *options; /* our copy, or NULL */
    bool dry_run;
    gw_namespace_delete_cb cb;
    void *ctx;
    act_t act;
    gw_obj_t seen;      /* the object the last attempt saw (value owned here) */
    uint8_t *dry_value; /* ACT_DRY: what would have been written */
    size_t dry_len;
} del_t;

static void start_update(del_t *d);

static void
del_free(del_t *d)
{
    json_decref(d->options);
    free((uint8_t *)d->seen.value);
    free(d->dry_value);
    free(d->key);
    free(d);
}

static void
finish(del_t *d, int err, const gw_obj_t *obj, bool deleted)
{
    d->cb(err, obj, deleted, d->ctx);
    del_free(d);
}

static bool
dry_run(const json_t *options)
{
    return gw_json_strings_has(json_object_get(options, "dryRun"), "All");
}

/* A precondition of options that the namespace does not meet. */
static bool
precondition_fails(const json_t *options, const json_t *ns, const gw_obj_t *cur)
{
    const json_t *pre = json_object_get(options, "preconditions");
    const char *uid = json_string_value(json_object_get(pre, "uid"));
    const char *rv = json_string_value(json_object_get(pre, "resourceVersion"));
    const char *have = json_string_value(json_object_get(json_object_get(ns, "metadata"), "uid"));
    char cur_rv[24];

    snprintf(cur_rv, sizeof(cur_rv), "%lld", (long long)cur->mod_revision);
    if (uid != NULL && (have == NULL || strcmp(uid, have) != 0))
        return true;
    return rv != NULL && strcmp(rv, cur_rv) != 0;
}

/* kube's shouldHaveOrphanFinalizer / shouldHaveDeleteDependentsFinalizer: orphanDependents
 * wins over propagationPolicy; with neither, the finalizer stays as it is. */
static bool
wants(const json_t *options, const char *policy, bool orphan_value, bool have)
{
    const json_t *orphan = json_object_get(options, "orphanDependents");
    const char *prop = json_string_value(json_object_get(options, "propagationPolicy"));

    if (json_is_boolean(orphan))
        return json_is_true(orphan) == orphan_value;
    if (prop != NULL)
        return strcmp(prop, policy) == 0;
    return have;
}

/* Add or remove the garbage collector's finalizers as the options ask; whether any changed. */
static bool
apply_gc_finalizers(json_t *ns, const json_t *options)
{
    static const struct {
        const char *name, *policy;
        bool orphan_value;
    } gc[] = {{"orphan", "Orphan", true}, {"foregroundDeletion", "Foreground", false}};
    bool changed = false;

    for (size_t i = 0; i < sizeof(gc) / sizeof(gc[0]); i++) {
        bool have =
            gw_json_strings_has(gw_json_strings_at(ns, "metadata", "finalizers"), gc[i].name);
        bool want = wants(options, gc[i].policy, gc[i].orphan_value, have);
        if (want && !have)
            changed |= gw_json_strings_add_at(ns, "metadata", "finalizers", gc[i].name);
        else if (!want && have)
            changed |= gw_json_strings_remove_at(ns, "metadata", "finalizers", gc[i].name);
    }
    return changed;
}

/* The first DELETE: deletionTimestamp, phase Terminating, finalizers as the options ask. */
static void
mark_terminating(json_t *ns, const json_t *options)
{
    char now[21];

    gw_time_now(now);
    json_object_set_new(gw_json_child(ns, "metadata"), "deletionTimestamp", json_string(now));
    json_object_set_new(gw_json_child(ns, "status"), "phase", json_string("Terminating"));
    apply_gc_finalizers(ns, options);
}

/* Decide what to do with the namespace as it is now; ACT_WRITE means `ns` is to be written. */
static act_t
decide(json_t *ns, const json_t *options)
{
    if (!gw_objmeta_deleting(ns)) {
        mark_terminating(ns, options);
        return ACT_WRITE;
    }
    /* The controller is still emptying it: nothing to do until its finalizer is gone. */
    if (gw_json_strings_count_at(ns, "spec", "finalizers") > 0)
        return ACT_KEEP;
    /* The generic store's delete of an object already being deleted. */
    if (apply_gc_finalizers(ns, options))
        return gw_json_strings_count_at(ns, "metadata", "finalizers") > 0 ? ACT_WRITE : ACT_DELETE;
    return gw_json_strings_count_at(ns, "metadata", "finalizers") > 0 ? ACT_KEEP : ACT_DELETE;
}

static void
remember(del_t *d, const gw_obj_t *cur)
{
    free((uint8_t *)d->seen.value);
    d->seen = *cur;
    d->seen.key = d->key;
    d->seen.value = gw_memdup(cur->value, cur->value_len);
}

static void
mutate(gw_store_update_t *u, const gw_obj_t *cur, void *arg)
{
    del_t *d = arg;
    json_t *ns = cur != NULL
                     ? gw_registry__parse_stored((const char *)cur->value, cur->value_len, 0, NULL)
                     : NULL;
    int err = cur == NULL ? GW_ENOTFOUND : ns == NULL ? GW_EINTERNAL : 0;
    uint8_t *value;
    size_t len;

    d->act = ACT_WRITE;
    if (err == 0) {
        remember(d, cur);
        d->act = precondition_fails(d->options, ns, cur) ? ACT_CONFLICT : decide(ns, d->options);
    }
    if (err == 0 && d->act == ACT_WRITE) {
        value = (uint8_t *)gw_registry__encode(ns, &len);
        json_decref(ns);
        if (!d->dry_run) {
            gw_store_update_commit(u, value, len);
            return;
        }
        d->act = ACT_DRY;
        d->dry_value = value;
        d->dry_len = len;
    } else {
        json_decref(ns);
    }
    /* Decided without writing (the done callback looks at d->act), or failed. */
    gw_store_update_abort(u, err != 0 ? err : GW_ECANCELED);
}

static void
deleted(int err, const gw_obj_t *obj, void *arg)
{
    del_t *d = arg;

    if (err == GW_ECONFLICT) { /* changed since we looked: decide again */
        start_update(d);
        return;
    }
    finish(d, err, obj, err == 0);
}

static void
updated(int err, const gw_obj_t *obj, void *arg)
{
    del_t *d = arg;
    gw_obj_t dry;
    int rc;

    switch (d->act) {
    case ACT_WRITE:
        finish(d, err, obj, false);
        return;
    case ACT_KEEP:
        finish(d, 0, &d->seen, false);
        return;
    case ACT_CONFLICT:
        finish(d, GW_ECONFLICT, &d->seen, false);
        return;
    case ACT_DRY:
        dry = d->seen;
        dry.value = d->dry_value;
        dry.value_len = d->dry_len;
        finish(d, 0, &dry, false);
        return;
    case ACT_DELETE:
        if (d->dry_run) {
            finish(d, 0, &d->seen, true);
            return;
        }
        rc = gw_store_delete(d->s, d->key, d->seen.mod_revision, deleted, d);
        if (rc != 0)
            finish(d, rc, NULL, false);
        return;
    }
}

static void
start_update(del_t *d)
{
    int rc = gw_store_guaranteed_update(d->s, d->key, 0, mutate, updated, d);

    if (rc != 0)
        finish(d, rc, NULL, false);
}

int
gw_namespace_begin_delete(gw_store_t *s, const char *name, const json_t *options,
                          gw_namespace_delete_cb cb, void *ctx)
{
    char *key = gw_store_object_key(GW_NAMESPACE_RESOURCE, NULL, name);
    del_t *d;
    int rc;

    if (key == NULL || cb == NULL || (options != NULL && !json_is_object(options))) {
        free(key);
        return GW_EINVAL;
    }
    d = gw_calloc(1, sizeof(*d));
    d->s = s;
    d->key = key;
    d->options = options != NULL ? json_deep_copy(options) : NULL;
    d->dry_run = dry_run(options);
    d->cb = cb;
    d->ctx = ctx;
    rc = gw_store_guaranteed_update(s, key, 0, mutate, updated, d);
    if (rc != 0)
        del_free(d);
    return rc;
}

/* ---- the strategy ------------------------------------------------------------------------- */

static void
prepare_create(const gw_resource_t *res, const authn_user_t *user, json_t *obj)
{
    (void)res;
    (void)user;
    gw_namespace_prepare_create(obj);
}

static void
prepare_update(const gw_resource_t *res, json_t *obj, const json_t *old)
{
    (void)res;
    gw_namespace_prepare_update(obj, old);
}

/* namespaces/finalize changes spec.finalizers; status stays. */
static void
finalize_prepare_update(gw_upd_t *u, json_t *obj, const json_t *old)
{
    const json_t *status = json_object_get(old, "status");

    (void)u;
    if (status != NULL)
        json_object_set_new(obj, "status", json_deep_copy(status));
    gw_namespace_prepare(obj);
}

static const gw_subres_strategy_t ns_subresources[] = {
    {.name = "finalize", .form = GW_SUBRES_FINALIZE, .prepare_update = finalize_prepare_update},
};

const gw_strategy_t gw_strategy_namespace = {
    .name = "namespace",
    .name_rule = GW_NAME_LABEL,
    .prepare_create = prepare_create,
    .prepare_update = prepare_update,
    .delete_on_update = gw_namespace_should_delete_on_update,
    .on_delete = gw_namespace_begin_delete,
    .subresources = ns_subresources,
    .n_subresources = sizeof(ns_subresources) / sizeof(ns_subresources[0]),
};
