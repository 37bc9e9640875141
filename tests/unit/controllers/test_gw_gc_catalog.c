/* Where the garbage collector finds things in the catalog: a stored key back to its resource
 * (namespaced, deletable: Events and virtual resources are not), and an owner's apiVersion and
 * kind to the storage path its objects live under. */
#include <stdlib.h>
#include <string.h>

#include "gw_err.h"
#include "gw_gc_int.h"
#include "tap.h"

static void
flags_are(gw_gc_t *c, const char *key, int want, const char *name)
{
    tap_is_int(gw_gc__key_flags(c, key), want, name);
}

static void
resolves(gw_gc_t *c, const char *api_version, const char *kind, const char *path, bool namespaced)
{
    char *got = NULL;
    bool ns = !namespaced;
    int rc = gw_gc__resolve(c, api_version, kind, &got, &ns);

    tap_ok(rc == 0 && got != NULL && strcmp(got, path) == 0 && ns == namespaced,
           "%s %s lives under %s (%s)", api_version, kind, path,
           namespaced ? "namespaced" : "cluster-scoped");
    free(got);
}

int
main(void)
{
    const gw_catalog_t *served = NULL;
    char err[256];
    gw_gc_t c = {0};
    const int nd = GW_GC__NAMESPACED | GW_GC__DELETABLE;

    if (gw_catalog_configure(gw_catalog_builtin(), NULL, &served, err, sizeof err) != 0)
        return tap_ok(0, "catalog: %s", err), tap_done();
    c.fallback = served;
    flags_are(&c, "pods/default/p", nd, "a pod: namespaced, deletable");
    flags_are(&c, "apps/deployments/default/d", -1, "a built-in path is the resource alone");
    flags_are(&c, "deployments/default/d", nd, "a deployment");
    flags_are(&c, "services/specs/default/s", nd, "a service (kube's historical path)");
    flags_are(&c, "minions/node-1", GW_GC__DELETABLE, "a node: cluster-scoped");
    flags_are(&c, "clusterroles/admin", GW_GC__DELETABLE, "a ClusterRole");
    flags_are(&c, "events/default/e.1", GW_GC__NAMESPACED, "Events are ignored, as in kube");
    flags_are(&c, "pods/p", -1, "a namespaced path without namespace is nothing");
    flags_are(&c, "nosuch/default/x", -1, "an unknown path");
    flags_are(&c, "example.com/widgets/default/w", -1, "a custom resource nobody defined");

    resolves(&c, "apps/v1", "Deployment", "deployments", true);
    resolves(&c, "v1", "Node", "minions", false);
    resolves(&c, "rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", false);
    char *path = NULL;
    bool ns = false;
    tap_is_int(gw_gc__resolve(&c, "v1", "Nope", &path, &ns), GW_ENOTFOUND,
               "an unknown kind: kube's REST mapping error");
    tap_is_int(gw_gc__resolve(&c, "apps/v2", "Deployment", &path, &ns), GW_ENOTFOUND,
               "a version not served: the same");
    tap_is_int(gw_gc__resolve(&c, "authentication.k8s.io/v1", "TokenReview", &path, &ns),
               GW_ENOTFOUND, "a virtual kind stores nothing");
    char *key = gw_gc__object_key("deployments", true, "ns", "d");
    tap_is_str(key, "deployments/ns/d", "a namespaced object's key");
    free(key);
    key = gw_gc__object_key("minions", false, "ns", "n");
    tap_is_str(key, "minions/n", "a cluster-scoped one ignores the namespace");
    free(key);
    json_decref(c.paths);
    gw_catalog_unref(c.paths_of);
    return tap_done();
}
