/* Unit tests for gateway/registry/gw_registry_strategy.c against the built-in catalog: what
 * each kind starts with on create, what an update keeps, when generation moves, when an update
 * deletes. */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_defaults.h"
#include "gw_registry_int.h"
#include "tap.h"

static const gw_catalog_t *cat;

static const gw_resource_t *
res(const char *group, const char *version, const char *name)
{
    const gw_resource_t *r = gw_catalog_find(cat, group, version, name);

    if (r == NULL) {
        printf("Bail out! %s/%s %s is not in the catalog\n", group, version, name);
        exit(1);
    }
    return r;
}

static json_t *
doc(const char *text)
{
    json_t *d = json_loads(text, 0, NULL);

    if (d == NULL) {
        printf("Bail out! bad test JSON: %s\n", text);
        exit(1);
    }
    return d;
}

/* prepare_create on `text`, then the Python-free check: the member's JSON equals `want`. */
static void
created_member(const gw_resource_t *r, const char *text, const char *path, const char *want,
               const char *name)
{
    json_t *d = doc(text), *v = d, *w = json_loads(want, JSON_DECODE_ANY, NULL);
    char part[64];

    gw_registry__default(r, d);
    gw_registry__prepare_create(r, NULL, d);
    for (const char *p = path; v != NULL && *p != '\0';) {
        size_t n = strcspn(p, ".");
        snprintf(part, sizeof(part), "%.*s", (int)n, p);
        v = json_object_get(v, part);
        p += n + (p[n] == '.');
    }
    tap_ok(v != NULL && w != NULL && json_equal(v, w), "%s", name);
    json_decref(d);
    json_decref(w);
}

static void
test_create(void)
{
    const gw_resource_t *deploy = res("apps", "v1", "deployments"), *pods = res("", "v1", "pods");
    const char *pod_burst = "{\"spec\":{\"containers\":[{\"resources\":{\"requests\":"
                            "{\"cpu\":\"1\"}}}]}}";
    const char *pod_guar = "{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\","
                           "\"memory\":\"1Gi\"},\"requests\":{\"cpu\":\"1\"}}}]}}";

    created_member(deploy, "{\"spec\":{},\"status\":{\"replicas\":3}}", "status", "{}",
                   "deployments: status reset");
    created_member(deploy, "{\"spec\":{}}", "metadata.generation", "1",
                   "deployments: generation 1");
    created_member(deploy, "{\"spec\":{}}", "spec.replicas", "1",
                   "deployments: replicas default 1");
    created_member(deploy, "{\"spec\":{\"replicas\":0}}", "spec.replicas", "0",
                   "deployments: replicas 0 stays");
    created_member(pods, "{\"spec\":{\"containers\":[{}]},\"status\":{\"phase\":\"Running\"}}",
                   "status", "{\"phase\":\"Pending\",\"qosClass\":\"BestEffort\"}",
                   "pods: Pending, BestEffort");
    created_member(pods, pod_burst, "status.qosClass", "\"Burstable\"", "pods: Burstable");
    created_member(pods, pod_guar, "status.qosClass", "\"Guaranteed\"",
                   "pods: Guaranteed (requests equal to limits)");
    created_member(res("", "v1", "services"), "{\"status\":{\"x\":1}}", "status",
                   "{\"loadBalancer\":{}}", "services: empty load balancer");
    created_member(res("", "v1", "persistentvolumeclaims"), "{}", "status",
                   "{\"phase\":\"Pending\"}", "claims: Pending");
    created_member(res("", "v1", "nodes"), "{\"status\":{\"capacity\":{\"cpu\":\"2\"}}}", "status",
                   "{\"capacity\":{\"cpu\":\"2\"},\"allocatable\":{\"cpu\":\"2\"},"
                   "\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":0}},\"nodeInfo\":{"
                   "\"machineID\":\"\",\"systemUUID\":\"\",\"bootID\":\"\",\"kernelVersion\":\"\","
                   "\"osImage\":\"\",\"containerRuntimeVersion\":\"\",\"kubeletVersion\":\"\","
                   "\"kubeProxyVersion\":\"\",\"operatingSystem\":\"\",\"architecture\":\"\"}}",
                   "nodes: status as given (allocatable defaults to capacity), with the zero "
                   "values Go's JSON shows");
    created_member(res("", "v1", "namespaces"), "{\"metadata\":{\"name\":\"n\"}}", "status",
                   "{\"phase\":\"Active\"}", "namespaces: Active");
    created_member(res("", "v1", "configmaps"), "{\"data\":{},\"metadata\":{\"generation\":4}}",
                   "metadata.generation", "4", "configmaps keep no generation of their own");
}

/* prepare_update(new, old) and the resulting generation; `older` is defaulted first, as a
 * stored object was when it was written. */
static json_int_t
generation_after(const gw_resource_t *r, const char *newer, const char *older)
{
    json_t *n = doc(newer), *o = doc(older);
    json_int_t g;

    gw_defaults_apply(r->group, r->version, r->kind, o);
    gw_registry__default(r, n);
    gw_registry__prepare_update(r, n, o);
    g = json_integer_value(json_object_get(json_object_get(n, "metadata"), "generation"));
    json_decref(n);
    json_decref(o);
    return g;
}

static void
test_update(void)
{
    const gw_resource_t *deploy = res("apps", "v1", "deployments");
    const gw_resource_t *rs = res("apps", "v1", "replicasets");
    const char *old = "{\"metadata\":{\"generation\":4,\"annotations\":{\"a\":\"1\"}},"
                      "\"spec\":{\"replicas\":1},\"status\":{\"replicas\":1}}";
    json_t *n, *o;

    tap_is_int(generation_after(deploy,
                                "{\"metadata\":{\"generation\":4,\"annotations\":"
                                "{\"a\":\"1\"}},\"spec\":{\"replicas\":1}}",
                                old),
               4, "same spec, same annotations: generation stays");
    tap_is_int(generation_after(deploy,
                                "{\"metadata\":{\"generation\":4,\"annotations\":"
                                "{\"a\":\"1\"}},\"spec\":{\"replicas\":2}}",
                                old),
               5, "a spec change: generation + 1");
    tap_is_int(generation_after(deploy,
                                "{\"metadata\":{\"generation\":4},\"spec\":"
                                "{\"replicas\":1}}",
                                old),
               5, "deployments: an annotation change too");
    tap_is_int(
        generation_after(rs, "{\"metadata\":{\"generation\":4},\"spec\":{\"replicas\":1}}", old), 4,
        "replicasets: annotations do not count");
    tap_is_int(generation_after(deploy,
                                "{\"metadata\":{\"generation\":4,\"annotations\":"
                                "{\"a\":\"1\"}},\"spec\":{\"replicas\":1},"
                                "\"status\":{\"replicas\":9}}",
                                old),
               4, "a status change does not count");

    n = doc("{\"spec\":{},\"status\":{\"replicas\":9}}");
    o = doc("{\"spec\":{},\"status\":{\"replicas\":1}}");
    gw_registry__default(deploy, n);
    gw_registry__prepare_update(deploy, n, o);
    tap_ok(json_integer_value(json_object_get(json_object_get(n, "status"), "replicas")) == 1,
           "the main resource keeps the stored status");
    json_decref(n);
    json_decref(o);
    n = doc("{\"data\":{\"a\":\"1\"},\"status\":{\"x\":1}}");
    o = doc("{\"data\":{}}");
    gw_registry__prepare_update(res("", "v1", "configmaps"), n, o);
    tap_ok(json_object_get(n, "status") != NULL, "a kind without /status keeps what it is sent");
    json_decref(n);
    json_decref(o);
}

static bool
deletes(const gw_resource_t *r, const char *newer, const char *older)
{
    json_t *n = doc(newer), *o = doc(older);
    bool yes = gw_registry__delete_on_update(r, n, o);

    json_decref(n);
    json_decref(o);
    return yes;
}

static void
test_delete_on_update(void)
{
    const gw_resource_t *cm = res("", "v1", "configmaps"), *ns = res("", "v1", "namespaces");
    const char *dying = "{\"metadata\":{\"deletionTimestamp\":\"t\","
                        "\"deletionGracePeriodSeconds\":0,\"finalizers\":[\"a/b\"]}}";

    tap_ok(deletes(cm, "{\"metadata\":{}}", dying), "last finalizer gone while deleting: delete");
    tap_ok(!deletes(cm, "{\"metadata\":{\"finalizers\":[\"a/b\"]}}", dying),
           "a finalizer left: keep");
    tap_ok(!deletes(cm, "{\"metadata\":{}}", "{\"metadata\":{\"finalizers\":[\"a/b\"]}}"),
           "not being deleted: keep");
    tap_ok(!deletes(cm, "{\"metadata\":{}}",
                    "{\"metadata\":{\"deletionTimestamp\":\"t\",\"deletionGracePeriodSeconds\":"
                    "30}}"),
           "a grace period running: keep");
    tap_ok(!deletes(ns, "{\"metadata\":{},\"spec\":{\"finalizers\":[\"kubernetes\"]}}", dying),
           "namespaces wait for spec.finalizers too");
    tap_ok(deletes(ns, "{\"metadata\":{},\"spec\":{}}", dying), "... and go when both are empty");
}

static void
test_table(void)
{
    tap_ok(gw_registry__strategy(res("", "v1", "namespaces"))->name_rule == GW_NAME_LABEL,
           "namespaces: label names");
    tap_ok(gw_registry__strategy(res("", "v1", "services"))->name_rule == GW_NAME_DNS1035,
           "services: DNS-1035 names");
    tap_ok(gw_registry__strategy(res("rbac.authorization.k8s.io", "v1", "roles"))->name_rule ==
               GW_NAME_PATH_SEGMENT,
           "roles: path segment names");
    tap_ok(gw_registry__strategy(res("rbac.authorization.k8s.io", "v1", "roles"))->create_on_update,
           "roles: create on update");
    tap_ok(!gw_registry__strategy(res("", "v1", "configmaps"))->create_on_update,
           "configmaps: no create on update");
    tap_ok(gw_registry__strategy(res("", "v1", "pods"))->graceful, "pods: graceful deletion");
    tap_ok(gw_registry__has_status(res("apps", "v1", "deployments")) &&
               !gw_registry__has_status(res("", "v1", "configmaps")),
           "status subresources from the catalog");
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_create();
    test_update();
    test_delete_on_update();
    test_table();
    return tap_done();
}
