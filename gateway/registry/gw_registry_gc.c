/*
 * The generic store's part of garbage collection: each kind's DefaultGarbageCollectionPolicy
 * (pkg/registry/<group>/<kind>/strategy.go), which depends on the version a DELETE is made
 * through, and deletionFinalizersForGarbageCollection (store.go: shouldOrphanDependents,
 * shouldDeleteDependents), which turns the options, the object's finalizers and that default
 * into the `orphan` and `foregroundDeletion` finalizers the garbage collector honours; and
 * the Job registry's warning when a DELETE leaves batch/v1's orphaning default in place.
 */
#include "gw_registry_int.h"

#include <string.h>

#define ORPHAN "orphan"
#define FOREGROUND "foregroundDeletion"

/* The kinds and versions whose strategies orphan by default, kept for the clients that relied
 * on it before the garbage collector existed. */
static const struct {
    const char *group, *version, *resource;
} orphaning[] = {
    {"", "v1", "replicationcontrollers"},     {"batch", "v1", "jobs"},
    {"apps", "v1beta1", "deployments"},       {"apps", "v1beta1", "statefulsets"},
    {"apps", "v1beta2", "daemonsets"},        {"apps", "v1beta2", "deployments"},
    {"apps", "v1beta2", "replicasets"},       {"apps", "v1beta2", "statefulsets"},
    {"extensions", "v1beta1", "daemonsets"},  {"extensions", "v1beta1", "deployments"},
    {"extensions", "v1beta1", "replicasets"},
};

gw_gc_policy_t
gw_registry__gc_policy(const gw_resource_t *res)
{
    /* eventStrategy: events take no part in garbage collection, in either group */
    if (strcmp(res->name, "events") == 0 &&
        (res->group[0] == '\0' || strcmp(res->group, "events.k8s.io") == 0))
        return GW_GC_UNSUPPORTED;
    for (size_t i = 0; i < sizeof(orphaning) / sizeof(orphaning[0]); i++) {
        if (strcmp(orphaning[i].group, res->group) == 0 &&
            strcmp(orphaning[i].version, res->version) == 0 &&
            strcmp(orphaning[i].resource, res->name) == 0)
            return GW_GC_ORPHAN;
    }
    return GW_GC_DELETE_DEPENDENTS;
}

static bool
has(const json_t *list, const char *name)
{
    size_t i;
    const json_t *f;

    json_array_foreach(list, i, f)
    {
        const char *s = json_string_value(f);
        if (s != NULL && strcmp(s, name) == 0)
            return true;
    }
    return false;
}

/* shouldOrphanDependents and shouldDeleteDependents together. */
static void
decide(gw_gc_policy_t policy, const char *propagation, int orphan_dependents,
       const json_t *finalizers, bool *orphan, bool *foreground)
{
    *orphan = *foreground = false;
    if (policy == GW_GC_UNSUPPORTED)
        return;
    if (orphan_dependents >= 0) {
        *orphan = orphan_dependents == 1;
    } else if (propagation != NULL) {
        *orphan = strcmp(propagation, "Orphan") == 0;
        *foreground = strcmp(propagation, "Foreground") == 0;
    } else if (has(finalizers, ORPHAN) || has(finalizers, FOREGROUND)) {
        /* both checks look for the orphan finalizer first: with both, dependents are orphaned */
        *orphan = has(finalizers, ORPHAN);
        *foreground = !*orphan;
    } else {
        *orphan = policy == GW_GC_ORPHAN;
    }
}

void
gw_registry__gc_finalizers(gw_gc_policy_t policy, const char *propagation, int orphan_dependents,
                           json_t *meta)
{
    json_t *old = json_object_get(meta, "finalizers"), *out = json_array(), *f;
    bool orphan, fg;
    size_t i;

    decide(policy, propagation, orphan_dependents, old, &orphan, &fg);
    json_array_foreach(old, i, f)
    {
        const char *s = json_string_value(f);
        if (s == NULL || (strcmp(s, ORPHAN) != 0 && strcmp(s, FOREGROUND) != 0))
            json_array_append(out, f);
    }
    if (orphan)
        json_array_append_new(out, json_string(ORPHAN));
    if (fg)
        json_array_append_new(out, json_string(FOREGROUND));
    if (json_array_size(out) > 0)
        json_object_set_new(meta, "finalizers", out);
    else {
        json_decref(out);
        json_object_del(meta, "finalizers");
    }
}

void
gw_registry__gc_warn(gw_req_t *r, const char *propagation, int orphan_dependents)
{
    if (propagation == NULL && orphan_dependents < 0 && strcmp(r->resource->group, "batch") == 0 &&
        strcmp(r->resource->name, "jobs") == 0 &&
        gw_registry__gc_policy(r->resource) == GW_GC_ORPHAN)
        gw_req_warning(r, "%s",
                       "child pods are preserved by default when jobs are deleted; set "
                       "propagationPolicy=Background to remove them or set "
                       "propagationPolicy=Orphan to suppress this warning");
}
