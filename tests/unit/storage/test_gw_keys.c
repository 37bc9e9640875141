/* Key layout: kube-apiserver's resource paths, object keys, and rejection of bad segments. */
#include <stdlib.h>
#include <string.h>

#include "gw_store.h"
#include "gw_store_int.h"
#include "tap.h"

static void
is_path(const char *group, const char *resource, bool custom, const char *want)
{
    char *got = gw_store_resource_path(group, resource, custom);
    tap_is_str(got, want, want);
    free(got);
}

static void
test_resource_paths(void)
{
    is_path("", "pods", false, "pods");
    is_path(NULL, "configmaps", false, "configmaps");
    is_path("", "nodes", false, "minions");
    is_path("", "services", false, "services/specs");
    is_path("", "endpoints", false, "services/endpoints");
    is_path("", "replicationcontrollers", false, "controllers");
    is_path("networking.k8s.io", "ingresses", false, "ingress");
    is_path("extensions", "ingresses", false, "ingress");
    is_path("apps", "deployments", false, "deployments");
    is_path("rbac.authorization.k8s.io", "clusterroles", false, "clusterroles");
    is_path("networking.k8s.io", "ingressclasses", false, "ingressclasses");
    is_path("discovery.k8s.io", "endpointslices", false, "endpointslices");
    is_path("apiextensions.k8s.io", "customresourcedefinitions", false,
            "apiextensions.k8s.io/customresourcedefinitions");
    is_path("apiregistration.k8s.io", "apiservices", false, "apiregistration.k8s.io/apiservices");
    is_path("stable.example.com", "crontabs", true, "stable.example.com/crontabs");
    /* A custom resource that happens to share a special name keeps its group path. */
    is_path("example.com", "nodes", true, "example.com/nodes");
    /* The exceptions are per group: a "nodes" resource of another built-in group is plain. */
    is_path("metrics.k8s.io", "nodes", false, "nodes");
}

static void
is_key(const char *rp, const char *ns, const char *name, const char *want, const char *what)
{
    char *got = gw_store_object_key(rp, ns, name);
    tap_is_str(got, want, what);
    free(got);
}

static void
test_object_keys(void)
{
    is_key("pods", "default", "web-0", "pods/default/web-0", "namespaced key");
    is_key("minions", NULL, "node-1", "minions/node-1", "cluster-scoped key (NULL ns)");
    is_key("minions", "", "node-1", "minions/node-1", "cluster-scoped key (empty ns)");
    is_key("services/specs", "kube-system", "dns", "services/specs/kube-system/dns",
           "multi-segment resource path");
    is_key("example.com/widgets", "a", "b", "example.com/widgets/a/b", "custom resource key");
    is_key("pods", "default", "a.b..c", "pods/default/a.b..c", "dots inside a name are fine");

    is_key("pods", "default", "", NULL, "empty name rejected");
    is_key("pods", "default", NULL, NULL, "NULL name rejected");
    is_key("pods", "default", "a/b", NULL, "name with '/' rejected");
    is_key("pods", "default", ".", NULL, "name '.' rejected");
    is_key("pods", "default", "..", NULL, "name '..' rejected");
    is_key("pods", "..", "x", NULL, "namespace '..' rejected");
    is_key("pods", ".", "x", NULL, "namespace '.' rejected");
    is_key("pods", "a/b", "x", NULL, "namespace with '/' rejected");
    is_key("", "default", "x", NULL, "empty resource path rejected");
    is_key(NULL, "default", "x", NULL, "NULL resource path rejected");
    is_key("/pods", "default", "x", NULL, "resource path with a leading '/' rejected");
    is_key("pods/", "default", "x", NULL, "resource path with a trailing '/' rejected");
    is_key("a//b", "default", "x", NULL, "resource path with an empty segment rejected");
    is_key("a/../b", "default", "x", NULL, "resource path with '..' rejected");
}

static void
is_prefix(const char *rp, const char *ns, const char *want, const char *what)
{
    char *got = gw_store_collection_prefix(rp, ns);
    tap_is_str(got, want, what);
    free(got);
}

static void
test_collection_prefixes(void)
{
    is_prefix("pods", "default", "pods/default/", "namespace collection");
    is_prefix("pods", NULL, "pods/", "all namespaces (NULL)");
    is_prefix("pods", "", "pods/", "all namespaces (empty)");
    is_prefix("services/endpoints", "ns1", "services/endpoints/ns1/", "multi-segment path");
    is_prefix("pods", "..", NULL, "namespace '..' rejected");
    is_prefix("pods", "a/b", NULL, "namespace with '/' rejected");
    is_prefix("", NULL, NULL, "empty resource path rejected");
    is_prefix("x/./y", NULL, NULL, "resource path with '.' rejected");
}

static void
is_end(const char *key, const char *want, size_t want_len, const char *what)
{
    size_t len = 0;
    char *got = gw_store__prefix_end(key, &len);
    tap_ok(len == want_len && memcmp(got, want, len) == 0, "prefix end: %s", what);
    free(got);
}

/* The range end that bounds a collection: the prefix with its last byte incremented. */
static void
test_prefix_end(void)
{
    is_end("/registry/pods/", "/registry/pods0", 15, "last byte incremented ('/' -> '0')");
    is_end("a\xff", "b", 1, "trailing 0xff dropped, the byte before incremented");
    is_end("ab\xff\xff", "ac", 2, "several trailing 0xff dropped");
    is_end("\xff\xff", "\0", 1, "all 0xff: no upper bound");
}

int
main(void)
{
    test_resource_paths();
    test_object_keys();
    test_collection_prefixes();
    test_prefix_end();
    return tap_done();
}
