/*
 * The status, scale and finalize subresources. status: GET answers the object, PUT and PATCH
 * change only .status (and go through the update engine without the main endpoint's status
 * reset). scale: the autoscaling/v1 Scale view of the workload kinds; a PUT or PATCH of it sets
 * spec.replicas through the main strategy (so generation moves as for any spec change).
 * finalize: namespaces' PUT that may change spec.finalizers. approval (CertificateSigningRequests)
 * goes as status does, its own rules being gw_registry_csr.c's; ephemeralcontainers (pods) takes
 * spec.ephemeralContainers (gw_registry_ephemeral.c). pods/eviction and pods/binding are POSTs
 * handled by gw_registry_eviction.c and gw_registry_binding.c. Which of these a subresource is
 * comes from the kind's strategy (gw_strategy_subresource). The connect subresources (logs,
 * exec, attach, port-forward, proxy) are not served yet.
 */
#include "gw_registry_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd.h"
#include "gw_err.h"
#include "gw_selector.h"

/* ---- conversions -------------------------------------------------------------------------- */

static void
copy_member(json_t *to, const json_t *from, const char *m)
{
    json_t *v = json_object_get(from, m);

    if (v != NULL)
        json_object_set_new(to, m, json_deep_copy(v));
}

/* A custom resource's Scale: replicas and selector where its CRD's scale paths say (kube's
 * scaleFromCustomResource; the selector is a string there). */
static json_t *
custom_scale(const gw_crd_version_t *cv, const json_t *obj, json_int_t *replicas, char **selector)
{
    const json_t *sel =
        cv->label_selector ? gw_registry__custom_path(obj, cv->label_selector) : NULL;

    *replicas = json_integer_value(gw_registry__custom_path(obj, cv->spec_replicas));
    *selector = json_is_string(sel) ? gw_strdup(json_string_value(sel)) : NULL;
    return json_pack("{s:s,s:s,s:{},s:{},s:{s:I}}", "kind", "Scale", "apiVersion", "autoscaling/v1",
                     "metadata", "spec", "status", "replicas",
                     json_integer_value(gw_registry__custom_path(obj, cv->status_replicas)));
}

json_t *
gw_registry__scale_of(gw_upd_t *u, const json_t *obj)
{
    static const char *const meta_members[] = {"name", "namespace", "uid", "resourceVersion",
                                               "creationTimestamp"};
    const json_t *spec = json_object_get(obj, "spec"), *meta = json_object_get(obj, "metadata");
    const gw_crd_version_t *cv = gw_crd_version_of(u->r->resource);
    json_int_t replicas;
    char *selector;
    json_t *scale;

    if (cv != NULL && cv->has_scale) {
        scale = custom_scale(cv, obj, &replicas, &selector);
    } else {
        scale = json_pack(
            "{s:s,s:s,s:{},s:{},s:{s:I}}", "kind", "Scale", "apiVersion", "autoscaling/v1",
            "metadata", "spec", "status", "replicas",
            json_integer_value(json_object_get(json_object_get(obj, "status"), "replicas")));
        replicas = json_integer_value(json_object_get(spec, "replicas"));
        selector = gw_label_selector_string(json_object_get(spec, "selector"));
    }
    for (size_t i = 0; i < sizeof(meta_members) / sizeof(meta_members[0]); i++)
        copy_member(json_object_get(scale, "metadata"), meta, meta_members[i]);
    /* omitempty, as kube's Scale type writes them */
    if (replicas != 0)
        json_object_set_new(json_object_get(scale, "spec"), "replicas", json_integer(replicas));
    if (selector != NULL && selector[0] != '\0')
        json_object_set_new(json_object_get(scale, "status"), "selector", json_string(selector));
    free(selector);
    return scale;
}

/* Set the field at a simple path (".spec.replicas") of obj to v (consumed), making the objects
 * on the way, as unstructured.SetNestedField. */
static void
set_path(json_t *obj, const char *path, json_t *v)
{
    char *copy = gw_strdup(path[0] == '.' ? path + 1 : path), *save = NULL;
    char *seg = strtok_r(copy, ".", &save), *next;

    while (seg != NULL && (next = strtok_r(NULL, ".", &save)) != NULL) {
        json_t *child = json_object_get(obj, seg);
        if (!json_is_object(child)) {
            child = json_object();
            json_object_set_new(obj, seg, child);
        }
        obj = child;
        seg = next;
    }
    if (seg != NULL)
        json_object_set_new(obj, seg, v);
    else
        json_decref(v);
    free(copy);
}

/* metadata.resourceVersion of `to` taken from `from` (removed when `from` has none). */
static void
take_rv(json_t *to, const json_t *from)
{
    const json_t *rv = json_object_get(json_object_get(from, "metadata"), "resourceVersion");

    if (rv != NULL)
        json_object_set_new(gw_objmeta_get(to), "resourceVersion", json_deep_copy(rv));
    else
        json_object_del(gw_objmeta_get(to), "resourceVersion");
}

bool
gw_registry__scale_into(gw_upd_t *u, const json_t *cur, const json_t *scale, json_t **out)
{
    const json_t *replicas = json_object_get(json_object_get(scale, "spec"), "replicas");
    const char *uid = gw_objmeta_str(scale, "uid"), *cur_uid = gw_objmeta_str(cur, "uid");
    gw_field_errors_t errs = {0};
    const gw_crd_version_t *cv;
    json_t *spec;

    if (json_integer_value(replicas) < 0) {
        gw_ferr_invalid(&errs, "spec.replicas", replicas, "must be greater than or equal to 0");
        gw_registry__fail_invalid(u->r, &u->fail, "autoscaling", "Scale", u->name, &errs);
        return false;
    }
    if (uid != NULL && uid[0] != '\0' && (cur_uid == NULL || strcmp(uid, cur_uid) != 0)) {
        gw_registry__fail(u->r, &u->fail, 409, "Conflict", gw_registry__details(u->r, u->name),
                          "Operation cannot be fulfilled on %s/scale%s%s \"%s\": Precondition "
                          "failed: UID in precondition: %s, UID in object meta: %s",
                          u->r->resource->name, u->r->resource->group[0] ? "." : "",
                          u->r->resource->group, u->name, uid, cur_uid ? cur_uid : "");
        return false;
    }
    *out = json_deep_copy(cur);
    cv = gw_crd_version_of(u->r->resource);
    if (cv != NULL && cv->has_scale) {
        set_path(*out, cv->spec_replicas, json_integer(json_integer_value(replicas)));
    } else {
        spec = json_object_get(*out, "spec");
        if (!json_is_object(spec)) {
            spec = json_object();
            json_object_set_new(*out, "spec", spec);
        }
        json_object_set_new(spec, "replicas", json_integer(json_integer_value(replicas)));
    }
    take_rv(*out, scale);
    return true;
}

json_t *
gw_registry__status_into(const json_t *cur, const json_t *src)
{
    json_t *out = json_deep_copy(cur);
    const json_t *status = json_object_get(src, "status");

    if (status != NULL)
        json_object_set_new(out, "status", json_deep_copy(status));
    else
        json_object_del(out, "status");
    take_rv(out, src);
    return out;
}

/* ---- PUT ---------------------------------------------------------------------------------- */

static bool
derive_status(gw_upd_t *u, const json_t *cur, json_t **out)
{
    *out = gw_registry__status_into(cur, u->arg);
    return true;
}

static bool
derive_ephemeral(gw_upd_t *u, const json_t *cur, json_t **out)
{
    *out = gw_registry__ephemeral_into(cur, u->arg);
    return true;
}

static bool
derive_scale(gw_upd_t *u, const json_t *cur, json_t **out)
{
    return gw_registry__scale_into(u, cur, u->arg, out);
}

static bool
derive_finalize(gw_upd_t *u, const json_t *cur, json_t **out)
{
    (void)cur;
    *out = json_deep_copy(u->arg);
    return true;
}

static void
put(gw_req_t *r, const gw_subres_strategy_t *sub)
{
    gw_upd_t *u = gw_registry__upd_new(r);
    bool scale = sub->form == GW_SUBRES_SCALE;
    const char *raw;
    json_t *body;
    size_t len;

    if (!gw_registry__write_opts(r, "UpdateOptions", &u->opts, &u->fail)) {
        gw_registry__reply_fail(r, &u->fail);
        return;
    }
    body = gw_req_body_object(r, false, NULL);
    if (body == NULL)
        return;
    raw = gw_req_body(r, &len);
    if (!gw_registry__check_object(r, body, scale ? "autoscaling/v1" : NULL, scale ? "Scale" : NULL,
                                   r->subresource->schema, raw, len, u->opts.field_validation, true,
                                   &u->req_errs, &u->fail) ||
        !gw_registry__check_name(u, body)) {
        gw_registry__reply_fail(r, &u->fail);
        return;
    }
    gw_ferr_clear(&u->req_errs);
    u->arg = body;
    u->sub = sub->name;
    u->subres = sub;
    u->derive = scale                              ? derive_scale
                : sub->form == GW_SUBRES_FINALIZE  ? derive_finalize
                : sub->form == GW_SUBRES_EPHEMERAL ? derive_ephemeral
                                                   : derive_status;
    u->present = scale ? gw_registry__scale_of : NULL;
    gw_registry__upd_run(u);
}

/* ---- GET of a Scale ----------------------------------------------------------------------- */

static void
got_scale(int err, const gw_obj_t *obj, void *arg)
{
    gw_upd_t *u = arg;
    json_t *doc, *scale;

    if (err != 0) {
        gw_reply_error(u->r, err, u->name);
        return;
    }
    doc = gw_registry__parse_stored((const char *)obj->value, obj->value_len, obj->mod_revision,
                                    u->r->resource);
    if (doc == NULL) {
        gw_reply_error(u->r, GW_EINTERNAL, u->name);
        return;
    }
    scale = gw_registry__scale_of(u, doc);
    json_decref(doc);
    gw_reply_json(u->r, 200, scale);
}

static void
get_scale(gw_req_t *r)
{
    gw_upd_t *u = gw_registry__upd_new(r);
    int rc = u->key ? gw_store_get(r->store, u->key, 0, got_scale, u) : GW_EINVAL;

    if (rc != 0)
        gw_reply_error(r, rc == GW_EINVAL ? GW_ENOTFOUND : rc, u->name);
}

void
gw_registry__subresource(gw_req_t *r)
{
    const char *verb = r->info.verb;
    const gw_subres_strategy_t *sub = gw_strategy_subresource(r->resource, r->subresource->name);
    /* GET answers the object itself; writes go through the update engine with the
     * subresource's rules (gw_registry_csr.c, gw_registry_ephemeral.c, ...). */
    bool object =
        sub != NULL && (sub->form == GW_SUBRES_STATUS || sub->form == GW_SUBRES_EPHEMERAL);
    bool scale = sub != NULL && sub->form == GW_SUBRES_SCALE;
    bool finalize = sub != NULL && sub->form == GW_SUBRES_FINALIZE;

    if (sub != NULL && sub->form == GW_SUBRES_HANDLER) {
        sub->handle(r);
        return;
    }
    if ((r->subresource->verbs & gw_verb_bit(verb)) == 0 || sub == NULL) {
        gw_registry__reply_not_allowed(r);
        return;
    }
    if (strcmp(verb, "get") == 0 && object)
        gw_registry__get(r);
    else if (strcmp(verb, "get") == 0 && scale)
        get_scale(r);
    else if (strcmp(verb, "update") == 0)
        put(r, sub);
    else if (strcmp(verb, "patch") == 0 && !finalize)
        gw_registry__patch_target(r, sub);
    else
        gw_registry__reply_not_allowed(r);
}
