/* Discovery documents: /api, /apis, group and resource lists, aggregated v2, /version. */
#include "gw_discovery.h"

#include <string.h>

#include "tap.h"

static const gw_catalog_t *served;

static const gw_catalog_t *
configured(const char *runtime_config)
{
    const gw_catalog_t *c = NULL;
    char err[256];

    if (gw_catalog_configure(gw_catalog_builtin(), runtime_config, &c, err, sizeof(err)) != 0)
        tap_diag("runtime-config %s: %s", runtime_config, err);
    return c;
}

static const char *
str_at(json_t *o, const char *path)
{
    json_t *v = json_object_get(o, path);

    return json_string_value(v);
}

/* The element of array a whose `key` is `value`. */
static json_t *
find_by(json_t *a, const char *key, const char *value)
{
    size_t i;
    json_t *v;

    json_array_foreach(a, i, v)
    {
        if (json_string_value(json_object_get(v, key)) &&
            strcmp(json_string_value(json_object_get(v, key)), value) == 0)
            return v;
    }
    return NULL;
}

/* Compare a value with expected JSON text. */
static void
is_json(json_t *got, const char *want_text, const char *name)
{
    json_t *want = json_loads(want_text, 0, NULL);
    char *dump = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

    if (!tap_ok(want && got && json_equal(got, want), "%s", name))
        tap_diag("  got %s\n#  want %s", dump ? dump : "(null)", want_text);
    free(dump);
    json_decref(want);
}

static void
test_api_versions(void)
{
    json_t *api = gw_discovery_api_versions(served, "10.0.0.1:6443");
    json_t *bare = gw_discovery_api_versions(served, NULL);

    is_json(api,
            "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":"
            "[{\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":\"10.0.0.1:6443\"}]}",
            "/api");
    is_json(bare, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"]}", "/api without an address");
    json_decref(api);
    json_decref(bare);
}

static void
test_group_list(void)
{
    json_t *list = gw_discovery_group_list(served);
    json_t *groups = json_object_get(list, "groups");
    json_t *apps = gw_discovery_group(served, "apps");

    tap_is_str(str_at(list, "kind"), "APIGroupList", "kind");
    tap_is_str(str_at(list, "apiVersion"), "v1", "apiVersion");
    tap_is_str(str_at(json_array_get(groups, 0), "name"), "apiregistration.k8s.io",
               "the aggregator's group first");
    tap_is_str(str_at(json_array_get(groups, 1), "name"), "apps", "apps second");
    tap_ok(find_by(groups, "name", "") == NULL, "no core group in /apis");
    is_json(find_by(groups, "name", "autoscaling"),
            "{\"name\":\"autoscaling\",\"versions\":[{\"groupVersion\":\"autoscaling/v2\","
            "\"version\":\"v2\"},{\"groupVersion\":\"autoscaling/v1\",\"version\":\"v1\"}],"
            "\"preferredVersion\":{\"groupVersion\":\"autoscaling/v2\",\"version\":\"v2\"}}",
            "autoscaling: two versions, v2 preferred");
    tap_ok(find_by(groups, "name", "resource.k8s.io") == NULL, "alpha/beta-only group absent");
    is_json(apps,
            "{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\",\"name\":\"apps\",\"versions\":"
            "[{\"groupVersion\":\"apps/v1\",\"version\":\"v1\"}],\"preferredVersion\":"
            "{\"groupVersion\":\"apps/v1\",\"version\":\"v1\"}}",
            "/apis/apps");
    tap_ok(gw_discovery_group(served, "nope.example.com") == NULL, "unknown group: NULL");
    tap_ok(gw_discovery_group(served, "") == NULL, "core is not a named group");
    json_decref(list);
    json_decref(apps);
}

static bool
sorted_by_name(json_t *resources)
{
    for (size_t i = 1; i < json_array_size(resources); i++) {
        if (strcmp(str_at(json_array_get(resources, i - 1), "name"),
                   str_at(json_array_get(resources, i), "name")) >= 0)
            return false;
    }
    return true;
}

static void
test_core_resource_list(void)
{
    json_t *list = gw_discovery_resource_list(served, "", "v1");
    json_t *res = json_object_get(list, "resources");

    tap_is_str(str_at(list, "groupVersion"), "v1", "core groupVersion");
    tap_ok(json_object_get(list, "apiVersion") == NULL, "no apiVersion on the core list");
    tap_ok(sorted_by_name(res), "resources sorted by name");
    is_json(find_by(res, "name", "pods"),
            "{\"name\":\"pods\",\"singularName\":\"pod\",\"namespaced\":true,\"kind\":\"Pod\","
            "\"verbs\":[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\","
            "\"update\",\"watch\"],\"shortNames\":[\"po\"],\"categories\":[\"all\"],"
            "\"storageVersionHash\":\"xPOwRZ+Yhw8=\"}",
            "pods");
    is_json(find_by(res, "name", "pods/eviction"),
            "{\"name\":\"pods/eviction\",\"singularName\":\"\",\"namespaced\":true,\"group\":"
            "\"policy\",\"version\":\"v1\",\"kind\":\"Eviction\",\"verbs\":[\"create\"]}",
            "pods/eviction names its group");
    is_json(find_by(res, "name", "pods/exec"),
            "{\"name\":\"pods/exec\",\"singularName\":\"\",\"namespaced\":true,\"kind\":"
            "\"PodExecOptions\",\"verbs\":[\"create\",\"get\"]}",
            "pods/exec");
    is_json(find_by(res, "name", "namespaces/finalize"),
            "{\"name\":\"namespaces/finalize\",\"singularName\":\"\",\"namespaced\":false,"
            "\"kind\":\"Namespace\",\"verbs\":[\"update\"]}",
            "namespaces/finalize");
    is_json(find_by(res, "name", "bindings"),
            "{\"name\":\"bindings\",\"singularName\":\"binding\",\"namespaced\":true,\"kind\":"
            "\"Binding\",\"verbs\":[\"create\"]}",
            "bindings: virtual, no hash");
    tap_ok(find_by(res, "name", "pods/resize") == NULL, "no pods/resize");
    json_decref(list);
}

static void
test_apps_resource_list(void)
{
    json_t *list = gw_discovery_resource_list(served, "apps", "v1");
    json_t *res = json_object_get(list, "resources");

    tap_is_str(str_at(list, "apiVersion"), "v1", "apiVersion v1");
    tap_is_str(str_at(list, "groupVersion"), "apps/v1", "groupVersion");
    is_json(find_by(res, "name", "deployments/scale"),
            "{\"name\":\"deployments/scale\",\"singularName\":\"\",\"namespaced\":true,"
            "\"group\":\"autoscaling\",\"version\":\"v1\",\"kind\":\"Scale\",\"verbs\":[\"get\","
            "\"patch\",\"update\"]}",
            "deployments/scale: autoscaling/v1 Scale");
    is_json(find_by(res, "name", "deployments/status"),
            "{\"name\":\"deployments/status\",\"singularName\":\"\",\"namespaced\":true,"
            "\"kind\":\"Deployment\",\"verbs\":[\"get\",\"patch\",\"update\"]}",
            "deployments/status");
    tap_is_int(json_array_size(res), 12, "5 resources and 7 subresources");
    tap_ok(gw_discovery_resource_list(served, "apps", "v1beta1") == NULL, "unknown version");
    tap_ok(gw_discovery_resource_list(served, "resource.k8s.io", "v1beta1") == NULL,
           "version off by default");
    json_decref(list);
}

static json_t *
aggregated_item(json_t *list, const char *group)
{
    size_t i;
    json_t *item;

    json_array_foreach(json_object_get(list, "items"), i, item)
    {
        const char *name = str_at(json_object_get(item, "metadata"), "name");
        if (strcmp(name ? name : "", group) == 0)
            return item;
    }
    return NULL;
}

static void
test_aggregated_apis(void)
{
    json_t *list = gw_discovery_aggregated(served, false, "v2");
    json_t *apps = aggregated_item(list, "apps");
    json_t *v1 = json_array_get(json_object_get(apps, "versions"), 0);
    json_t *deploy = find_by(json_object_get(v1, "resources"), "resource", "deployments");
    json_t *beta = gw_discovery_aggregated(served, false, "v2beta1");

    tap_is_str(str_at(list, "kind"), "APIGroupDiscoveryList", "kind");
    tap_is_str(str_at(list, "apiVersion"), "apidiscovery.k8s.io/v2", "apiVersion v2");
    tap_is_str(str_at(beta, "apiVersion"), "apidiscovery.k8s.io/v2beta1", "apiVersion v2beta1");
    tap_ok(aggregated_item(list, "") == NULL, "no core group under /apis");
    is_json(json_object_get(apps, "metadata"), "{\"name\":\"apps\",\"creationTimestamp\":null}",
            "group metadata");
    tap_is_str(str_at(v1, "freshness"), "Current", "freshness");
    is_json(deploy,
            "{\"resource\":\"deployments\",\"responseKind\":{\"group\":\"apps\",\"version\":"
            "\"v1\",\"kind\":\"Deployment\"},\"scope\":\"Namespaced\",\"singularResource\":"
            "\"deployment\",\"verbs\":[\"create\",\"delete\",\"deletecollection\",\"get\","
            "\"list\",\"patch\",\"update\",\"watch\"],\"shortNames\":[\"deploy\"],"
            "\"categories\":[\"all\"],\"subresources\":[{\"subresource\":\"scale\","
            "\"responseKind\":{\"group\":\"autoscaling\",\"version\":\"v1\",\"kind\":\"Scale\"},"
            "\"verbs\":[\"get\",\"patch\",\"update\"]},{\"subresource\":\"status\","
            "\"responseKind\":{\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"Deployment\"},"
            "\"verbs\":[\"get\",\"patch\",\"update\"]}]}",
            "deployments in aggregated discovery");
    tap_ok(gw_discovery_aggregated(served, false, "v3") == NULL, "unknown version: NULL");
    json_decref(list);
    json_decref(beta);
}

static void
test_aggregated_core(void)
{
    json_t *list = gw_discovery_aggregated(served, true, "v2");
    json_t *core = aggregated_item(list, "");
    json_t *v1 = json_array_get(json_object_get(core, "versions"), 0);
    json_t *nodes = find_by(json_object_get(v1, "resources"), "resource", "nodes");

    tap_is_int(json_array_size(json_object_get(list, "items")), 1, "one item for /api");
    is_json(json_object_get(core, "metadata"), "{\"creationTimestamp\":null}", "no name");
    tap_is_str(str_at(v1, "version"), "v1", "v1");
    tap_is_str(str_at(nodes, "scope"), "Cluster", "nodes are cluster-scoped");
    is_json(json_object_get(nodes, "responseKind"),
            "{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Node\"}", "core responseKind");
    json_decref(list);
}

static void
test_runtime_config_shapes(void)
{
    const gw_catalog_t *c = configured("apps/v1=false,resource.k8s.io/v1beta1=true");
    json_t *list = gw_discovery_group_list(c);
    json_t *groups = json_object_get(list, "groups");
    json_t *agg = gw_discovery_aggregated(c, false, "v2");

    tap_ok(find_by(groups, "name", "apps") == NULL, "apps gone from /apis");
    tap_ok(gw_discovery_group(c, "apps") == NULL, "and /apis/apps");
    tap_ok(find_by(groups, "name", "resource.k8s.io") != NULL, "resource.k8s.io listed");
    tap_ok(aggregated_item(agg, "apps") == NULL && aggregated_item(agg, "resource.k8s.io"),
           "aggregated follows");
    json_decref(list);
    json_decref(agg);
}

static void
test_version(void)
{
    json_t *v = gw_discovery_version();
    const gw_schema_t *info = gw_catalog_definition(served, "io.k8s.apimachinery.pkg.version.Info");
    size_t missing = 0;

    tap_is_str(str_at(v, "major"), "1", "major");
    tap_is_str(str_at(v, "minor"), "32", "minor");
    tap_ok(strncmp(str_at(v, "gitVersion"), "v1.32.", 6) == 0, "gitVersion v1.32.x (%s)",
           str_at(v, "gitVersion"));
    tap_is_str(str_at(v, "platform"), "linux/amd64", "platform");
    for (size_t i = 0; i < info->n_required; i++)
        missing += json_object_get(v, info->required[i]) == NULL;
    tap_ok(info->n_required == 9 && missing == 0, "every required version.Info field is there");
    json_decref(v);
}

int
main(void)
{
    served = configured(NULL);
    test_api_versions();
    test_group_list();
    test_core_resource_list();
    test_apps_resource_list();
    test_aggregated_apis();
    test_aggregated_core();
    test_runtime_config_shapes();
    test_version();
    return tap_done();
}
