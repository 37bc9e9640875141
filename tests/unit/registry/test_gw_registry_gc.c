/* Unit tests for the generic store's part of garbage collection (gateway/registry/
 * gw_registry_gc.c): each kind's default policy by the version it is requested in, and the
 * finalizers a delete leaves, from its options, the object's own finalizers and that default,
 * as kube's deletionFinalizersForGarbageCollection decides. */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_registry_int.h"
#include "tap.h"

static gw_gc_policy_t
policy_of(const char *group, const char *version, const char *resource)
{
    gw_resource_t r = {.group = group, .version = version, .name = resource};

    return gw_registry__gc_policy(&r);
}

static void
test_policies(void)
{
    tap_ok(policy_of("", "v1", "replicationcontrollers") == GW_GC_ORPHAN,
           "ReplicationControllers orphan in v1");
    tap_ok(policy_of("batch", "v1", "jobs") == GW_GC_ORPHAN, "Jobs orphan in batch/v1");
    tap_ok(policy_of("apps", "v1beta2", "replicasets") == GW_GC_ORPHAN &&
               policy_of("extensions", "v1beta1", "deployments") == GW_GC_ORPHAN &&
               policy_of("apps", "v1beta1", "statefulsets") == GW_GC_ORPHAN,
           "the beta workload versions orphan");
    tap_ok(policy_of("apps", "v1", "deployments") == GW_GC_DELETE_DEPENDENTS &&
               policy_of("apps", "v1", "replicasets") == GW_GC_DELETE_DEPENDENTS &&
               policy_of("", "v1", "configmaps") == GW_GC_DELETE_DEPENDENTS &&
               policy_of("apps", "v1beta1", "daemonsets") == GW_GC_DELETE_DEPENDENTS,
           "apps/v1 workloads and everything else delete dependents");
    tap_ok(policy_of("", "v1", "events") == GW_GC_UNSUPPORTED &&
               policy_of("events.k8s.io", "v1", "events") == GW_GC_UNSUPPORTED,
           "events take no part, in either group");
}

/* The finalizers a delete leaves on metadata `meta_text`. */
static void
finalizers(gw_gc_policy_t policy, const char *propagation, int orphan, const char *meta_text,
           const char *want, const char *name)
{
    json_t *meta = json_loads(meta_text, 0, NULL);
    char *got;

    gw_registry__gc_finalizers(policy, propagation, orphan, meta);
    got = json_dumps(json_object_get(meta, "finalizers"), JSON_COMPACT | JSON_ENCODE_ANY);
    tap_is_str(got != NULL ? got : "null", want, name);
    free(got);
    json_decref(meta);
}

static void
test_finalizers(void)
{
    finalizers(GW_GC_ORPHAN, NULL, -1, "{}", "[\"orphan\"]", "the orphaning default");
    finalizers(GW_GC_DELETE_DEPENDENTS, NULL, -1, "{}", "null", "the background default");
    finalizers(GW_GC_ORPHAN, "Background", -1, "{\"finalizers\":[\"a\",\"orphan\"]}", "[\"a\"]",
               "Background drops the orphan finalizer");
    finalizers(GW_GC_DELETE_DEPENDENTS, "Foreground", -1, "{\"finalizers\":[\"a\"]}",
               "[\"a\",\"foregroundDeletion\"]", "Foreground adds foregroundDeletion last");
    finalizers(GW_GC_ORPHAN, "Foreground", 1, "{}", "[\"orphan\"]",
               "orphanDependents wins over the policy");
    finalizers(GW_GC_ORPHAN, NULL, 0, "{}", "null", "orphanDependents=false: nothing");
    finalizers(GW_GC_ORPHAN, NULL, -1, "{\"finalizers\":[\"foregroundDeletion\",\"b\"]}",
               "[\"b\",\"foregroundDeletion\"]",
               "the object's foregroundDeletion overrides the default");
    finalizers(GW_GC_DELETE_DEPENDENTS, NULL, -1, "{\"finalizers\":[\"orphan\"]}", "[\"orphan\"]",
               "the object's orphan finalizer overrides the default");
    finalizers(GW_GC_DELETE_DEPENDENTS, NULL, -1,
               "{\"finalizers\":[\"foregroundDeletion\",\"orphan\"]}", "[\"orphan\"]",
               "with both on the object, orphan wins (kube checks it first), wherever it is");
    finalizers(GW_GC_UNSUPPORTED, "Orphan", -1, "{\"finalizers\":[\"orphan\",\"c\"]}", "[\"c\"]",
               "an unsupported kind loses both, whatever is asked");
}

int
main(void)
{
    test_policies();
    test_finalizers();
    return tap_done();
}
