/*
 * Per-kind strategies: what kube-apiserver's pkg/registry/<group>/<kind>/strategy.go files
 * decide that the catalog does not say (name rules, create-on-update, status on create,
 * graceful deletion), as a table, plus the preparation steps the generic store runs.
 */
#include "gw_registry_int.h"

#include <string.h>

#include "gw_defaults.h"
#include "gw_gozero.h"
#include "gw_namespace.h"

typedef struct {
    const char *group, *resource;
    gw_strategy_t s;
} strategy_entry_t;

static const strategy_entry_t strategies[] = {
    {"", "namespaces", {.name_rule = GW_NAME_LABEL}},
    {"",
     "services",
     {.name_rule = GW_NAME_DNS1035,
      .create_on_update = true,
      .initial_status = "{\"loadBalancer\":{}}"}},
    {"", "endpoints", {.create_on_update = true}},
    {"", "events", {.create_on_update = true}},
    {"events.k8s.io", "events", {.create_on_update = true}},
    {"", "limitranges", {.create_on_update = true}},
    {"", "nodes", {.keep_status_on_create = true}},
    {"", "pods", {.graceful = true}},
    {"", "persistentvolumes", {.initial_status = "{\"phase\":\"Pending\"}"}},
    {"", "persistentvolumeclaims", {.initial_status = "{\"phase\":\"Pending\"}"}},
    {"coordination.k8s.io", "leases", {.create_on_update = true}},
    {"node.k8s.io", "runtimeclasses", {.create_on_update = true}},
    {"rbac.authorization.k8s.io",
     "roles",
     {.name_rule = GW_NAME_PATH_SEGMENT, .create_on_update = true}},
    {"rbac.authorization.k8s.io",
     "rolebindings",
     {.name_rule = GW_NAME_PATH_SEGMENT, .create_on_update = true}},
    {"rbac.authorization.k8s.io",
     "clusterroles",
     {.name_rule = GW_NAME_PATH_SEGMENT, .create_on_update = true}},
    {"rbac.authorization.k8s.io",
     "clusterrolebindings",
     {.name_rule = GW_NAME_PATH_SEGMENT, .create_on_update = true}},
    {"apps", "deployments", {.generation_on_annotations = true}},
    {"apiextensions.k8s.io", "customresourcedefinitions", {.conditional_update = true}},
    {"admissionregistration.k8s.io",
     "validatingwebhookconfigurations",
     {.conditional_update = true}},
    {"admissionregistration.k8s.io", "mutatingwebhookconfigurations", {.conditional_update = true}},
    {"admissionregistration.k8s.io", "validatingadmissionpolicies", {.conditional_update = true}},
    {"admissionregistration.k8s.io",
     "validatingadmissionpolicybindings",
     {.conditional_update = true}},
    {"admissionregistration.k8s.io", "mutatingadmissionpolicies", {.conditional_update = true}},
    {"admissionregistration.k8s.io",
     "mutatingadmissionpolicybindings",
     {.conditional_update = true}},
};

static const gw_strategy_t default_strategy = {.name_rule = GW_NAME_SUBDOMAIN};

const gw_strategy_t *
gw_registry__strategy(const gw_resource_t *res)
{
    for (size_t i = 0; i < sizeof(strategies) / sizeof(strategies[0]); i++) {
        if (strcmp(strategies[i].group, res->group) == 0 &&
            strcmp(strategies[i].resource, res->name) == 0)
            return &strategies[i].s;
    }
    return &default_strategy;
}

bool
gw_registry__has_status(const gw_resource_t *res)
{
    return gw_resource_subresource(res, "status") != NULL;
}

static bool
is_core(const gw_resource_t *res, const char *name)
{
    return res->group[0] == '\0' && strcmp(res->name, name) == 0;
}

/* ---- pods: status on create --------------------------------------------------------------- */

/* Whether every resource of `names` is set in `m` (a requests or limits map). */
static bool
has_all(const json_t *m, const char *const *names)
{
    for (size_t i = 0; names[i] != NULL; i++)
        if (json_object_get(m, names[i]) == NULL)
            return false;
    return true;
}

/* One container's part of kube's QoS class: 0 best effort, 1 guaranteed, 2 burstable. */
static int
container_qos(const json_t *c)
{
    static const char *const cm[] = {"cpu", "memory", NULL};
    const json_t *res = json_object_get(c, "resources");
    const json_t *req = json_object_get(res, "requests"), *lim = json_object_get(res, "limits");
    const char *k;
    json_t *v;

    if (json_object_size(req) == 0 && json_object_size(lim) == 0)
        return 0;
    if (!has_all(lim, cm))
        return 2;
    /* Requests default to limits; any that differs makes the pod burstable. */
    json_object_foreach((json_t *)req, k, v)
    {
        if (!json_equal(v, json_object_get(lim, k)))
            return 2;
    }
    return 1;
}

/* kube's QoS class (GetPodQOS), reading cpu and memory requests and limits. */
static const char *
pod_qos(const json_t *pod)
{
    static const char *const lists[] = {"containers", "initContainers"};
    const json_t *spec = json_object_get(pod, "spec");
    bool any = false, all_guaranteed = true;

    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(spec, lists[l]), i, c)
        {
            int q = container_qos(c);
            any = any || q != 0;
            all_guaranteed = all_guaranteed && q == 1;
        }
    }
    if (!any)
        return "BestEffort";
    return all_guaranteed ? "Guaranteed" : "Burstable";
}

/* ---- create ------------------------------------------------------------------------------- */

/* kube-apiserver defaults every object it decodes, so on every create and update (and patch);
 * `old` is the stored object an update replaces, NULL on create. */
static void
apply_defaults(const gw_resource_t *res, json_t *obj, const json_t *old)
{
    gw_defaults_apply(res->group, res->version, res->kind, obj, old);
}

static void
initial_status(const gw_resource_t *res, json_t *obj)
{
    const gw_strategy_t *st = gw_registry__strategy(res);
    json_t *status;

    if (!gw_registry__has_status(res) || st->keep_status_on_create)
        return;
    if (is_core(res, "pods"))
        status = json_pack("{s:s,s:s}", "phase", "Pending", "qosClass", pod_qos(obj));
    else if (st->initial_status != NULL)
        status = json_loads(st->initial_status, 0, NULL);
    else
        status = json_object();
    json_object_set_new(obj, "status", status);
}

void
gw_registry__prepare_create(const gw_resource_t *res, json_t *obj)
{
    /* Decoding defaults the object before the strategy sees it, and converting it to kube's
     * internal type merges a Secret's stringData. */
    apply_defaults(res, obj, NULL);
    if (is_core(res, "secrets"))
        gw_registry__secret_prepare(obj);
    if (is_core(res, "namespaces"))
        gw_namespace_prepare_create(obj);
    else
        initial_status(res, obj);
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
    bool annotations =
        gw_registry__strategy(res)->generation_on_annotations && !maps_equal(ann, old_ann);

    if (annotations || content_changed(obj, old))
        json_object_set_new(
            meta, "generation",
            json_integer(json_integer_value(json_object_get(meta, "generation")) + 1));
}

void
gw_registry__prepare_update(const gw_resource_t *res, json_t *obj, const json_t *old)
{
    const json_t *status = json_object_get(old, "status");

    apply_defaults(res, obj, old);
    if (is_core(res, "secrets"))
        gw_registry__secret_prepare(obj);
    else if (is_core(res, "services"))
        gw_registry__service_prepare_update(obj, old);
    if (is_core(res, "namespaces")) {
        gw_namespace_prepare_update(obj, old);
    } else if (gw_registry__has_status(res)) {
        if (status != NULL)
            json_object_set_new(obj, "status", json_deep_copy(status));
        else
            json_object_del(obj, "status");
    }
    if (res->keeps_generation)
        bump_generation(res, obj, old);
}

void
gw_registry__validate_kind(const gw_resource_t *res, const json_t *obj, const json_t *old,
                           gw_field_errors_t *errs)
{
    gw_field_errors_t own = {0};

    if (is_core(res, "secrets")) {
        gw_registry__secret_validate(obj, old, errs);
    } else if (is_core(res, "configmaps")) {
        gw_registry__configmap_validate(obj, old, errs);
    } else if (strcmp(res->name, "events") == 0 &&
               (res->group[0] == '\0' || strcmp(res->group, "events.k8s.io") == 0)) {
        gw_registry__event_validate(res, obj, old, errs);
    } else if (is_core(res, "services")) {
        if (gw_registry__service_validate(obj, old, &own)) {
            if (own.causes != NULL) {
                if (errs->causes == NULL)
                    errs->causes = json_array();
                json_array_extend(errs->causes, own.causes);
            }
        } else {
            gw_ferr_clear(errs);
            errs->causes = json_incref(own.causes);
        }
        gw_ferr_clear(&own);
    }
}

bool
gw_registry__delete_on_update(const gw_resource_t *res, const json_t *obj, const json_t *old)
{
    const json_t *om = json_object_get(old, "metadata");
    const json_t *grace = json_object_get(om, "deletionGracePeriodSeconds");

    if (is_core(res, "namespaces"))
        return gw_namespace_should_delete_on_update(obj, old);
    if (json_array_size(json_object_get(json_object_get(obj, "metadata"), "finalizers")) > 0)
        return false;
    if (json_object_get(om, "deletionTimestamp") == NULL)
        return false;
    return grace == NULL || json_integer_value(grace) == 0;
}
