/* Discovery documents (legacy and aggregated) and /version, as kube-apiserver v1.32 writes them. */
#include "gw_discovery.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_catalog_int.h"

#ifndef KGATE_GIT_COMMIT
#define KGATE_GIT_COMMIT ""
#endif
#ifndef KGATE_GIT_TREE_STATE
#define KGATE_GIT_TREE_STATE ""
#endif
#ifndef KGATE_BUILD_DATE
#define KGATE_BUILD_DATE "1970-01-01T00:00:00Z"
#endif

#if defined(__clang__)
#define COMPILER "clang"
#else
#define COMPILER "gcc"
#endif

#if defined(__x86_64__)
#define PLATFORM "linux/amd64"
#elif defined(__aarch64__)
#define PLATFORM "linux/arm64"
#else
#define PLATFORM "linux/unknown"
#endif

/* Discovery lists verbs alphabetically. */
static const struct {
    unsigned bit;
    const char *name;
} verbs_sorted[] = {
    {GW_VERB_CREATE, "create"},
    {GW_VERB_DELETE, "delete"},
    {GW_VERB_DELETECOLLECTION, "deletecollection"},
    {GW_VERB_GET, "get"},
    {GW_VERB_LIST, "list"},
    {GW_VERB_PATCH, "patch"},
    {GW_VERB_UPDATE, "update"},
    {GW_VERB_WATCH, "watch"},
};

static json_t *
verbs_json(unsigned verbs)
{
    json_t *a = json_array();

    for (size_t i = 0; i < sizeof(verbs_sorted) / sizeof(verbs_sorted[0]); i++) {
        if (verbs & verbs_sorted[i].bit)
            json_array_append_new(a, json_string(verbs_sorted[i].name));
    }
    return a;
}

static json_t *
names_json(const char *const *names, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(names[i]));
    return a;
}

/* Optional lists are left out when empty (omitempty). */
static void
set_names(json_t *o, const char *key, const char *const *names, size_t n)
{
    if (n > 0)
        json_object_set_new(o, key, names_json(names, n));
}

static char *
group_version(const char *group, const char *version)
{
    return group[0] ? gw_sprintf("%s/%s", group, version) : gw_strdup(version);
}

static json_t *
gv_for_discovery(const char *group, const char *version)
{
    char *gv = group_version(group, version);
    json_t *o = json_pack("{s:s, s:s}", "groupVersion", gv, "version", version);

    free(gv);
    return o;
}

/* ---- /api, /apis, /apis/<group> ---------------------------------------------------------- */

json_t *
gw_discovery_api_versions(const gw_catalog_t *c, const char *server_address)
{
    const gw_group_t *core = gw_catalog_group(c, "");
    json_t *o = json_pack("{s:s, s:o}", "kind", "APIVersions", "versions",
                          core ? names_json(core->versions, core->n_versions) : json_array());

    if (server_address)
        json_object_set_new(
            o, "serverAddressByClientCIDRs",
            json_pack("[{s:s, s:s}]", "clientCIDR", "0.0.0.0/0", "serverAddress", server_address));
    return o;
}

static json_t *
group_json(const gw_group_t *g)
{
    json_t *versions = json_array();

    for (size_t i = 0; i < g->n_versions; i++)
        json_array_append_new(versions, gv_for_discovery(g->name, g->versions[i]));
    return json_pack("{s:s, s:o, s:o}", "name", g->name, "versions", versions, "preferredVersion",
                     gv_for_discovery(g->name, g->versions[0]));
}

json_t *
gw_discovery_group_list(const gw_catalog_t *c)
{
    json_t *groups = json_array();

    for (size_t i = 0; i < gw_catalog_group_count(c); i++) {
        const gw_group_t *g = gw_catalog_group_at(c, i);
        if (g->name[0] != '\0')
            json_array_append_new(groups, group_json(g));
    }
    return json_pack("{s:s, s:s, s:o}", "kind", "APIGroupList", "apiVersion", "v1", "groups",
                     groups);
}

json_t *
gw_discovery_group(const gw_catalog_t *c, const char *group)
{
    const gw_group_t *g = group[0] ? gw_catalog_group(c, group) : NULL;
    json_t *o, *body;

    if (g == NULL)
        return NULL;
    o = json_pack("{s:s, s:s}", "kind", "APIGroup", "apiVersion", "v1");
    body = group_json(g);
    json_object_update(o, body);
    json_decref(body);
    return o;
}

/* ---- APIResourceList --------------------------------------------------------------------- */

/* The resources of one group/version, in name order: a contiguous run of c->by_name. */
static size_t
gv_range(const gw_catalog_t *c, const char *group, const char *version, size_t *first)
{
    size_t n = 0;

    for (size_t i = 0; i < c->n_resources; i++) {
        const gw_resource_t *r = c->by_name[i];
        if (strcmp(r->group, group) != 0 || strcmp(r->version, version) != 0)
            continue;
        if (n++ == 0)
            *first = i;
    }
    return n;
}

static json_t *
legacy_resource(const gw_resource_t *r)
{
    json_t *o =
        json_pack("{s:s, s:s, s:b, s:s, s:o}", "name", r->name, "singularName", r->singular,
                  "namespaced", r->namespaced, "kind", r->kind, "verbs", verbs_json(r->verbs));

    set_names(o, "shortNames", r->short_names, r->n_short_names);
    set_names(o, "categories", r->categories, r->n_categories);
    if (r->storage_version_hash)
        json_object_set_new(o, "storageVersionHash", json_string(r->storage_version_hash));
    return o;
}

static json_t *
legacy_subresource(const gw_resource_t *r, const gw_subresource_t *s)
{
    char *name = gw_sprintf("%s/%s", r->name, s->name);
    json_t *o =
        json_pack("{s:s, s:s, s:b}", "name", name, "singularName", "", "namespaced", r->namespaced);

    if (strcmp(s->group, r->group) != 0 || strcmp(s->version, r->version) != 0) {
        json_object_set_new(o, "group", json_string(s->group));
        json_object_set_new(o, "version", json_string(s->version));
    }
    json_object_set_new(o, "kind", json_string(s->kind));
    json_object_set_new(o, "verbs", verbs_json(s->verbs));
    free(name);
    return o;
}

json_t *
gw_discovery_resource_list(const gw_catalog_t *c, const char *group, const char *version)
{
    size_t first = 0, n = gv_range(c, group, version, &first);
    char *gv;
    json_t *list, *resources;

    if (n == 0)
        return NULL;
    gv = group_version(group, version);
    resources = json_array();
    for (size_t i = first; i < first + n; i++) {
        const gw_resource_t *r = c->by_name[i];
        json_array_append_new(resources, legacy_resource(r));
        for (size_t k = 0; k < r->n_subresources; k++)
            json_array_append_new(resources, legacy_subresource(r, &r->subresources[k]));
    }
    /* kube-apiserver writes no apiVersion on the core list, and "v1" on the others. */
    list = group[0] ? json_pack("{s:s, s:s, s:s}", "kind", "APIResourceList", "apiVersion", "v1",
                                "groupVersion", gv)
                    : json_pack("{s:s, s:s}", "kind", "APIResourceList", "groupVersion", gv);
    json_object_set_new(list, "resources", resources);
    free(gv);
    return list;
}

/* ---- aggregated discovery ---------------------------------------------------------------- */

static json_t *
response_kind(const char *group, const char *version, const char *kind)
{
    return json_pack("{s:s, s:s, s:s}", "group", group, "version", version, "kind", kind);
}

static json_t *
aggregated_subresources(const gw_resource_t *r)
{
    json_t *subs = json_array();

    for (size_t i = 0; i < r->n_subresources; i++) {
        const gw_subresource_t *s = &r->subresources[i];
        json_array_append_new(subs,
                              json_pack("{s:s, s:o, s:o}", "subresource", s->name, "responseKind",
                                        response_kind(s->group, s->version, s->kind), "verbs",
                                        verbs_json(s->verbs)));
    }
    return subs;
}

static json_t *
aggregated_resource(const gw_resource_t *r)
{
    json_t *o = json_pack("{s:s, s:o, s:s, s:s, s:o}", "resource", r->name, "responseKind",
                          response_kind(r->group, r->version, r->kind), "scope",
                          r->namespaced ? "Namespaced" : "Cluster", "singularResource", r->singular,
                          "verbs", verbs_json(r->verbs));

    set_names(o, "shortNames", r->short_names, r->n_short_names);
    set_names(o, "categories", r->categories, r->n_categories);
    if (r->n_subresources > 0)
        json_object_set_new(o, "subresources", aggregated_subresources(r));
    return o;
}

static json_t *
aggregated_version(const gw_catalog_t *c, const char *group, const char *version)
{
    size_t first = 0, n = gv_range(c, group, version, &first);
    json_t *resources = json_array();

    for (size_t i = first; i < first + n; i++)
        json_array_append_new(resources, aggregated_resource(c->by_name[i]));
    return json_pack("{s:s, s:o, s:s}", "version", version, "resources", resources, "freshness",
                     "Current");
}

static json_t *
aggregated_group(const gw_catalog_t *c, const gw_group_t *g)
{
    json_t *meta = json_object(), *versions = json_array();

    if (g->name[0] != '\0')
        json_object_set_new(meta, "name", json_string(g->name));
    json_object_set_new(meta, "creationTimestamp", json_null());
    for (size_t i = 0; i < g->n_versions; i++)
        json_array_append_new(versions, aggregated_version(c, g->name, g->versions[i]));
    return json_pack("{s:o, s:o}", "metadata", meta, "versions", versions);
}

json_t *
gw_discovery_aggregated(const gw_catalog_t *c, bool core, const char *version)
{
    json_t *items;
    char *api_version;
    json_t *list;

    if (strcmp(version, "v2") != 0 && strcmp(version, "v2beta1") != 0)
        return NULL;
    items = json_array();
    for (size_t i = 0; i < gw_catalog_group_count(c); i++) {
        const gw_group_t *g = gw_catalog_group_at(c, i);
        if ((g->name[0] == '\0') == core)
            json_array_append_new(items, aggregated_group(c, g));
    }
    api_version = gw_sprintf("apidiscovery.k8s.io/%s", version);
    list = json_pack("{s:s, s:s, s:{}, s:o}", "kind", "APIGroupDiscoveryList", "apiVersion",
                     api_version, "metadata", "items", items);
    free(api_version);
    return list;
}

/* ---- /version ---------------------------------------------------------------------------- */

json_t *
gw_discovery_version(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "major", GW_KUBE_MAJOR,
                     "minor", GW_KUBE_MINOR, "gitVersion", GW_KUBE_GIT_VERSION, "gitCommit",
                     KGATE_GIT_COMMIT, "gitTreeState", KGATE_GIT_TREE_STATE, "buildDate",
                     KGATE_BUILD_DATE, "goVersion", "", "compiler", COMPILER, "platform", PLATFORM);
}
