/*
 * The generic store's strategy steps (PrepareForCreate, PrepareForUpdate, validation, the
 * delete-on-update decision), each calling the kind's own hook from its strategy
 * (gw_strategy.h) where it has one.
 */
#include "gw_registry_int.h"

#include <string.h>

#include "gw_crd_schema.h"
#include "gw_defaults.h"
#include "gw_gozero.h"

const gw_strategy_t *
gw_registry__strategy(const gw_resource_t *res)
{
    return gw_strategy_of(res);
}

bool
gw_registry__has_status(const gw_resource_t *res)
{
    return gw_resource_subresource(res, "status") != NULL;
}

/* ---- create ------------------------------------------------------------------------------- */

void
gw_registry__default(const gw_resource_t *res, json_t *obj)
{
    if (res->custom != NULL)
        gw_crd_default(res->schema, obj);
    else
        gw_defaults_apply(res->group, res->version, res->kind, obj);
}

/* What a client sent as status is dropped on create (kube's status reset), for the kind's
 * initial status. */
static void
initial_status(const gw_resource_t *res, const gw_strategy_t *st, json_t *obj)
{
    json_t *status;

    if (!gw_registry__has_status(res) || st->keep_status_on_create)
        return;
    if (st->initial_status != NULL)
        status = json_loads(st->initial_status, 0, NULL);
    else
        status = json_object();
    json_object_set_new(obj, "status", status);
}

void
gw_registry__prepare_create(const gw_resource_t *res, const authn_user_t *user, json_t *obj)
{
    const gw_strategy_t *st = gw_registry__strategy(res);

    initial_status(res, st, obj);
    if (st->prepare_create != NULL)
        st->prepare_create(res, user, obj);
    if (res->keeps_generation)
        json_object_set_new(gw_objmeta_get(obj), "generation", json_integer(1));
    gw_registry__complete(res, obj);
}

void
gw_registry__complete(const gw_resource_t *res, json_t *obj)
{
    gw_gozero_complete(res->schema, obj);
}

/* ---- update ------------------------------------------------------------------------------- */

static bool
skipped_member(const char *k)
{
    static const char *const skip[] = {"metadata", "status", "apiVersion", "kind"};

    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (strcmp(k, skip[i]) == 0)
            return true;
    return false;
}

/* Whether a has a member outside metadata and status that b lacks or holds differently. */
static bool
differs_from(const json_t *a, const json_t *b)
{
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)a, k, v)
    {
        const json_t *w = json_object_get(b, k);
        if (!skipped_member(k) && (w == NULL || !json_equal(v, w)))
            return true;
    }
    return false;
}

/* Whether anything outside metadata and status changed (kube compares the spec; for kinds
 * whose content is not under spec, such as webhook configurations, their other fields). */
static bool
content_changed(const json_t *a, const json_t *b)
{
    return differs_from(a, b) || differs_from(b, a);
}

/* Equal maps, an absent one being empty. */
static bool
maps_equal(const json_t *a, const json_t *b)
{
    if (json_object_size(a) == 0 && json_object_size(b) == 0)
        return true;
    return a != NULL && b != NULL && json_equal(a, b);
}

static void
bump_generation(const gw_resource_t *res, json_t *obj, const json_t *old)
{
    const json_t *ann = json_object_get(json_object_get(obj, "metadata"), "annotations");
    const json_t *old_ann = json_object_get(json_object_get(old, "metadata"), "annotations");
    json_t *meta = gw_objmeta_get(obj);
    const gw_strategy_t *st = gw_registry__strategy(res);
    bool annotations = st->generation_on_annotations && !maps_equal(ann, old_ann);
    const json_t *st_new = json_object_get(obj, "status"), *st_old = json_object_get(old, "status");
    bool status = st->generation_on_status && !gw_registry__has_status(res) && (st_new || st_old) &&
                  !json_equal(st_new, st_old);

    if (annotations || status || content_changed(obj, old))
        json_object_set_new(
            meta, "generation",
            json_integer(json_integer_value(json_object_get(meta, "generation")) + 1));
}

void
gw_registry__prepare_update(const gw_resource_t *res, json_t *obj, const json_t *old)
{
    const gw_strategy_t *st = gw_registry__strategy(res);
    const json_t *status = json_object_get(old, "status");

    if (st->prepare_update != NULL)
        st->prepare_update(res, obj, old);
    /* The main resource never changes status where a status subresource does, whatever the
     * kind's preparation did to it. */
    if (gw_registry__has_status(res)) {
        if (status != NULL)
            json_object_set_new(obj, "status", json_deep_copy(status));
        else
            json_object_del(obj, "status");
    }
    if (st->prepare_update_status != NULL)
        st->prepare_update_status(res, obj, old);
    if (res->keeps_generation)
        bump_generation(res, obj, old);
}

void
gw_registry__validate_kind(const gw_resource_t *res, const json_t *obj, const json_t *old,
                           gw_field_errors_t *errs)
{
    const gw_strategy_t *st = gw_registry__strategy(res);

    if (st->validate != NULL)
        st->validate(res, obj, old, errs);
}

bool
gw_registry__delete_on_update(const gw_resource_t *res, const json_t *obj, const json_t *old)
{
    const json_t *om = json_object_get(old, "metadata");
    const json_t *grace = json_object_get(om, "deletionGracePeriodSeconds");
    const gw_strategy_t *st = gw_registry__strategy(res);

    if (st->delete_on_update != NULL)
        return st->delete_on_update(obj, old);
    if (json_array_size(json_object_get(json_object_get(obj, "metadata"), "finalizers")) > 0)
        return false;
    if (json_object_get(om, "deletionTimestamp") == NULL)
        return false;
    return grace == NULL || json_integer_value(grace) == 0;
}

void
gw_registry__warnings(gw_req_t *r, const json_t *obj, const json_t *old)
{
    const gw_strategy_t *st = gw_registry__strategy(r->resource);

    gw_registry__meta_warnings(r, obj);
    if (st->warnings != NULL)
        st->warnings(r, obj, old);
}

void
gw_registry__canonicalize(const gw_resource_t *res, json_t *obj)
{
    const gw_strategy_t *st = gw_registry__strategy(res);

    if (st->canonicalize != NULL)
        st->canonicalize(res, obj);
}
