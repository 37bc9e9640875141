/* Key layout: resource paths and relative object keys, kube-apiserver compatible. */
#include "gw_store.h"

#include <string.h>

#include "gw_alloc.h"

/*
 * Built-in resources whose etcd path is not just the resource name. The first six are
 * kube-apiserver's specialDefaultResourcePrefixes; CRDs and APIServices are served by its
 * apiextensions and aggregator servers, whose storage uses "<group>/<resource>".
 */
static const struct {
    const char *group;
    const char *resource;
    const char *path;
} special_paths[] = {
    {"", "nodes", "minions"},
    {"", "services", "services/specs"},
    {"", "endpoints", "services/endpoints"},
    {"", "replicationcontrollers", "controllers"},
    {"extensions", "ingresses", "ingress"},
    {"networking.k8s.io", "ingresses", "ingress"},
    {"apiextensions.k8s.io", "customresourcedefinitions",
     "apiextensions.k8s.io/customresourcedefinitions"},
    {"apiregistration.k8s.io", "apiservices", "apiregistration.k8s.io/apiservices"},
};

char *
gw_store_resource_path(const char *group, const char *resource, bool custom)
{
    const char *g = group ? group : "";

    if (custom)
        return gw_sprintf("%s/%s", g, resource);
    for (size_t i = 0; i < sizeof(special_paths) / sizeof(special_paths[0]); i++) {
        if (strcmp(special_paths[i].group, g) == 0 &&
            strcmp(special_paths[i].resource, resource) == 0)
            return gw_strdup(special_paths[i].path);
    }
    return gw_strdup(resource);
}

/* One path segment that cannot climb out of or spill over its collection. */
static bool
segment_ok(const char *s, size_t len)
{
    if (len == 0 || memchr(s, '/', len) != NULL)
        return false;
    if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    return true;
}

static bool
name_ok(const char *s)
{
    return s != NULL && segment_ok(s, strlen(s));
}

/* A resource path is one or more good segments joined by '/' ("services/specs"). */
static bool
resource_path_ok(const char *rp)
{
    const char *p = rp;

    if (rp == NULL)
        return false;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);

        if (!segment_ok(p, len))
            return false;
        if (slash == NULL)
            return true;
        p = slash + 1;
    }
}

static bool
has_ns(const char *ns)
{
    return ns != NULL && ns[0] != '\0';
}

char *
gw_store_object_key(const char *resource_path, const char *ns, const char *name)
{
    if (!resource_path_ok(resource_path) || !name_ok(name))
        return NULL;
    if (!has_ns(ns))
        return gw_sprintf("%s/%s", resource_path, name);
    if (!name_ok(ns))
        return NULL;
    return gw_sprintf("%s/%s/%s", resource_path, ns, name);
}

char *
gw_store_collection_prefix(const char *resource_path, const char *ns)
{
    if (!resource_path_ok(resource_path))
        return NULL;
    if (!has_ns(ns))
        return gw_sprintf("%s/", resource_path);
    if (!name_ok(ns))
        return NULL;
    return gw_sprintf("%s/%s/", resource_path, ns);
}
