/*
 * The pod strategy (pkg/registry/core/pod/strategy.go): status on create (phase Pending and the
 * QoS class), graceful deletion, and the pod subresources beyond status: ephemeralcontainers
 * (gw_registry_ephemeral.c), eviction (gw_registry_eviction.c) and binding
 * (gw_registry_binding.c).
 */
#include "gw_registry_int.h"

#include <string.h>

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

/* ---- the strategy ------------------------------------------------------------------------- */

static void
prepare_create(const gw_resource_t *res, const authn_user_t *user, json_t *obj)
{
    (void)res;
    (void)user;
    json_object_set_new(obj, "status",
                        json_pack("{s:s,s:s}", "phase", "Pending", "qosClass", pod_qos(obj)));
}

/* pods/eviction and pods/binding are POSTs; any other verb is not served. */
static void
post_eviction(gw_req_t *r)
{
    if (strcmp(r->info.verb, "create") == 0)
        gw_registry__eviction(r);
    else
        gw_registry__reply_not_allowed(r);
}

static void
post_binding(gw_req_t *r)
{
    if (strcmp(r->info.verb, "create") == 0)
        gw_registry__binding(r);
    else
        gw_registry__reply_not_allowed(r);
}

static const gw_subres_strategy_t pod_subresources[] = {
    {.name = "ephemeralcontainers",
     .form = GW_SUBRES_EPHEMERAL,
     .validate_update = gw_registry__ephemeral_validate},
    {.name = "eviction", .form = GW_SUBRES_HANDLER, .handle = post_eviction},
    {.name = "binding", .form = GW_SUBRES_HANDLER, .handle = post_binding},
};

const gw_strategy_t gw_strategy_pod = {
    .name = "pod",
    .graceful = true,
    .prepare_create = prepare_create,
    .subresources = pod_subresources,
    .n_subresources = sizeof(pod_subresources) / sizeof(pod_subresources[0]),
};
