/*
 * The strategy table: which kinds have rules of their own (kube-apiserver's
 * pkg/registry/<group>/<kind>/strategy.go), the generic strategy for the others, the kinds
 * whose rules are only data, and the generic status and scale subresources. Strategies are
 * looked up here once per resource, at start-up (gw_strategy_resolve).
 */
#include "gw_strategy.h"

#include <string.h>

/* ---- the generic strategy and the kinds whose rules are data ------------------------------ */

const gw_strategy_t gw_strategy_generic = {.name = "generic"};

/* AllowCreateOnUpdate alone (endpoints, limit ranges, leases, runtime classes). */
static const gw_strategy_t create_on_update = {.name = "create-on-update",
                                               .create_on_update = true};

/* A node's status may be set on create (the kubelet registers itself with it). */
static const gw_strategy_t node = {.name = "node", .keep_status_on_create = true};

/* PersistentVolumes and their claims start Pending. */
static const gw_strategy_t pending = {.name = "pending",
                                      .initial_status = "{\"phase\":\"Pending\"}"};

/* A Deployment's generation moves with its annotations too (the rollback annotation). */
static const gw_strategy_t deployment = {.name = "deployment", .generation_on_annotations = true};

#define ADMREG "admissionregistration.k8s.io"
#define RBAC "rbac.authorization.k8s.io"

static const struct {
    const char *group, *resource;
    const gw_strategy_t *strategy;
} table[] = {
    {"", "configmaps", &gw_strategy_configmap},
    {"", "endpoints", &create_on_update},
    {"", "events", &gw_strategy_event},
    {"", "limitranges", &create_on_update},
    {"", "namespaces", &gw_strategy_namespace},
    {"", "nodes", &node},
    {"", "persistentvolumeclaims", &pending},
    {"", "persistentvolumes", &pending},
    {"", "pods", &gw_strategy_pod},
    {"", "secrets", &gw_strategy_secret},
    {"", "serviceaccounts", &gw_strategy_serviceaccount},
    {"", "services", &gw_strategy_service},
    {ADMREG, "mutatingadmissionpolicies", &gw_strategy_mutating_admission_policy},
    {ADMREG, "mutatingadmissionpolicybindings", &gw_strategy_mutating_admission_policy_binding},
    {ADMREG, "mutatingwebhookconfigurations", &gw_strategy_mutating_webhook_configuration},
    {ADMREG, "validatingadmissionpolicies", &gw_strategy_validating_admission_policy},
    {ADMREG, "validatingadmissionpolicybindings", &gw_strategy_validating_admission_policy_binding},
    {ADMREG, "validatingwebhookconfigurations", &gw_strategy_validating_webhook_configuration},
    {"apiextensions.k8s.io", "customresourcedefinitions", &gw_strategy_crd},
    {"apps", "deployments", &deployment},
    {"certificates.k8s.io", "certificatesigningrequests", &gw_strategy_csr},
    {"coordination.k8s.io", "leases", &create_on_update},
    {"events.k8s.io", "events", &gw_strategy_event},
    {"flowcontrol.apiserver.k8s.io", "flowschemas", &gw_strategy_flowschema},
    {"flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", &gw_strategy_prioritylevel},
    {"node.k8s.io", "runtimeclasses", &create_on_update},
    {RBAC, "clusterrolebindings", &gw_strategy_clusterrolebinding},
    {RBAC, "clusterroles", &gw_strategy_clusterrole},
    {RBAC, "rolebindings", &gw_strategy_rolebinding},
    {RBAC, "roles", &gw_strategy_role},
};

const gw_strategy_t *
gw_strategy_lookup(const char *group, const char *resource)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (strcmp(table[i].group, group) == 0 && strcmp(table[i].resource, resource) == 0)
            return table[i].strategy;
    }
    return &gw_strategy_generic;
}

/* ---- resolution --------------------------------------------------------------------------- */

static const struct gw_strategy *
resolve(const gw_resource_t *r)
{
    return gw_strategy_lookup(r->group, r->name);
}

void
gw_strategy_resolve(const gw_catalog_t *c)
{
    gw_catalog_bind_strategies(c, resolve);
}

const gw_strategy_t *
gw_strategy_of(const gw_resource_t *res)
{
    /* Resources of the catalogs the registry serves were resolved at start-up; custom
     * resources all share one; a resource built elsewhere (a test's) is looked up. */
    if (res->strategy != NULL)
        return res->strategy;
    return res->custom != NULL ? &gw_strategy_custom : gw_strategy_lookup(res->group, res->name);
}

/* ---- subresources ------------------------------------------------------------------------- */

/* What every kind with these subresources has: status writes change .status (and own no
 * spec), scale writes spec.replicas through the main strategy. */
static const gw_subres_strategy_t generic_subresources[] = {
    {.name = "status", .form = GW_SUBRES_STATUS, .status_write = true},
    {.name = "scale", .form = GW_SUBRES_SCALE, .main_prepare = true},
};

static const gw_subres_strategy_t *
find_sub(const gw_subres_strategy_t *subs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(subs[i].name, name) == 0)
            return &subs[i];
    }
    return NULL;
}

const gw_subres_strategy_t *
gw_strategy_subresource(const gw_resource_t *res, const char *name)
{
    const gw_strategy_t *st = gw_strategy_of(res);
    const gw_subres_strategy_t *s = find_sub(st->subresources, st->n_subresources, name);

    if (s != NULL)
        return s;
    return find_sub(generic_subresources,
                    sizeof(generic_subresources) / sizeof(generic_subresources[0]), name);
}
