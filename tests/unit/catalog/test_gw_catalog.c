/* The built-in catalog: resources, names, schemas, storage facts and --runtime-config. */
#include "gw_catalog.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_err.h"
#include "gw_store.h"
#include "tap.h"

extern const char gw_catalog_blob_start[];
extern const char gw_catalog_blob_end[];

static const gw_catalog_t *served; /* kube-apiserver's default set */

static bool
has_name(const char *const *names, size_t n, const char *want)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], want) == 0)
            return true;
    }
    return false;
}

static void
test_ga_resources(void)
{
    static const struct {
        const char *group, *version, *name, *kind;
        bool namespaced;
    } want[] = {
        {"", "v1", "pods", "Pod", true},
        {"", "v1", "nodes", "Node", false},
        {"", "v1", "namespaces", "Namespace", false},
        {"", "v1", "configmaps", "ConfigMap", true},
        {"apps", "v1", "deployments", "Deployment", true},
        {"batch", "v1", "cronjobs", "CronJob", true},
        {"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false},
        {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
         false},
        {"autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true},
        {"authentication.k8s.io", "v1", "tokenreviews", "TokenReview", false},
    };

    /* kube-apiserver v1.32's GA resources: 58, plus HorizontalPodAutoscaler in v1 and v2. */
    tap_is_int(gw_catalog_count(served), 59, "the GA set is served by default");
    tap_ok(gw_catalog_count(gw_catalog_builtin()) > gw_catalog_count(served),
           "the universe has more (%zu)", gw_catalog_count(gw_catalog_builtin()));
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const gw_resource_t *r =
            gw_catalog_find(served, want[i].group, want[i].version, want[i].name);
        tap_ok(r != NULL, "%s/%s %s served", want[i].group, want[i].version, want[i].name);
        if (r == NULL)
            continue;
        tap_is_str(r->kind, want[i].kind, "kind");
        tap_is_int(r->namespaced, want[i].namespaced, "scope");
        tap_ok(gw_catalog_find_kind(served, want[i].group, want[i].version, want[i].kind) == r,
               "found again by kind %s", want[i].kind);
    }
    tap_ok(gw_catalog_find(served, "", "v1", "widgets") == NULL, "unknown resource: NULL");
    tap_ok(gw_catalog_find(served, "apps", "v1beta1", "deployments") == NULL,
           "removed version: NULL");
}

static void
test_resource_facts(void)
{
    const gw_resource_t *pods = gw_catalog_find(served, "", "v1", "pods");
    const gw_resource_t *deploy = gw_catalog_find(served, "apps", "v1", "deployments");
    const gw_resource_t *ns = gw_catalog_find(served, "", "v1", "namespaces");
    const gw_resource_t *review =
        gw_catalog_find(served, "authentication.k8s.io", "v1", "tokenreviews");
    unsigned all = GW_VERB_GET | GW_VERB_LIST | GW_VERB_WATCH | GW_VERB_CREATE | GW_VERB_UPDATE |
                   GW_VERB_PATCH | GW_VERB_DELETE | GW_VERB_DELETECOLLECTION;
    char *api_version = gw_resource_api_version(deploy);

    tap_is_int(pods->verbs, all, "pods: every verb");
    tap_is_int(ns->verbs, all & ~GW_VERB_DELETECOLLECTION, "namespaces: no deletecollection");
    tap_is_int(review->verbs, GW_VERB_CREATE, "tokenreviews: create only");
    tap_ok(review->virtual_only && review->list_kind == NULL && review->list_schema == NULL,
           "tokenreviews: virtual, no list");
    tap_ok(!pods->virtual_only, "pods are stored");
    tap_is_str(pods->singular, "pod", "singular");
    tap_is_str(pods->list_kind, "PodList", "list kind");
    tap_is_str(pods->list_schema ? pods->list_schema->ref : NULL, "io.k8s.api.core.v1.PodList",
               "list schema");
    tap_is_str(deploy->schema->ref, "io.k8s.api.apps.v1.Deployment", "deployment schema");
    tap_is_str(api_version, "apps/v1", "api version");
    tap_is_str(pods->storage_version_hash, "xPOwRZ+Yhw8=", "pods storage version hash");
    tap_is_str(deploy->storage_version_hash, "8aSe+NMegvE=", "deployments storage version hash");
    tap_ok(review->storage_version_hash == NULL, "virtual: no storage version hash");
    tap_ok(pods->delete_returns_object, "deleting a pod answers with the pod");
    tap_ok(!deploy->delete_returns_object, "deleting a deployment answers with a Status");
    tap_is_int(gw_verb_bit("deletecollection"), GW_VERB_DELETECOLLECTION, "verb bit");
    tap_is_int(gw_verb_bit("connect"), 0, "unknown verb: 0");
    free(api_version);
}

static void
check_sub(const char *group, const char *name, const char *sub, const char *sgroup,
          const char *kind, unsigned verbs)
{
    const gw_resource_t *r = gw_catalog_find(served, group, "v1", name);
    const gw_subresource_t *s = r ? gw_resource_subresource(r, sub) : NULL;

    tap_ok(s != NULL, "%s/%s present", name, sub);
    if (s == NULL)
        return;
    tap_is_str(s->group, sgroup, "subresource group");
    tap_is_str(s->kind, kind, "subresource kind");
    tap_is_int(s->verbs, verbs, "subresource verbs");
}

static void
test_subresources(void)
{
    unsigned gpu = GW_VERB_GET | GW_VERB_PATCH | GW_VERB_UPDATE;
    const gw_resource_t *pods = gw_catalog_find(served, "", "v1", "pods");
    const gw_subresource_t *exec = gw_resource_subresource(pods, "exec");

    check_sub("apps", "deployments", "scale", "autoscaling", "Scale", gpu);
    check_sub("apps", "deployments", "status", "apps", "Deployment", gpu);
    check_sub("", "services", "status", "", "Service", gpu);
    check_sub("", "namespaces", "finalize", "", "Namespace", GW_VERB_UPDATE);
    check_sub("", "serviceaccounts", "token", "authentication.k8s.io", "TokenRequest",
              GW_VERB_CREATE);
    check_sub("", "pods", "eviction", "policy", "Eviction", GW_VERB_CREATE);
    check_sub("", "pods", "log", "", "Pod", GW_VERB_GET);
    check_sub("", "pods", "exec", "", "PodExecOptions", GW_VERB_GET | GW_VERB_CREATE);
    tap_ok(exec && exec->connect && exec->schema == NULL, "exec is a connect subresource");
    tap_ok(gw_resource_subresource(pods, "resize") == NULL,
           "pods/resize is gated off in v1.32 (InPlacePodVerticalScaling)");
    tap_ok(gw_resource_subresource(pods, "scale") == NULL, "pods have no scale");
}

static void
test_names_and_categories(void)
{
    static const struct {
        const char *group, *name, *short_name, *category;
    } want[] = {
        {"", "pods", "po", "all"},
        {"", "services", "svc", "all"},
        {"", "namespaces", "ns", NULL},
        {"", "nodes", "no", NULL},
        {"", "configmaps", "cm", NULL},
        {"", "persistentvolumeclaims", "pvc", NULL},
        {"", "resourcequotas", "quota", NULL},
        {"", "limitranges", "limits", NULL},
        {"", "replicationcontrollers", "rc", "all"},
        {"apps", "deployments", "deploy", "all"},
        {"apps", "daemonsets", "ds", "all"},
        {"apps", "statefulsets", "sts", "all"},
        {"batch", "cronjobs", "cj", "all"},
        {"batch", "jobs", NULL, "all"},
        {"networking.k8s.io", "networkpolicies", "netpol", NULL},
        {"policy", "poddisruptionbudgets", "pdb", NULL},
        {"apiextensions.k8s.io", "customresourcedefinitions", "crds", "api-extensions"},
        {"admissionregistration.k8s.io", "validatingwebhookconfigurations", NULL, "api-extensions"},
    };

    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const gw_resource_t *r = gw_catalog_find(served, want[i].group, "v1", want[i].name);
        if (!tap_ok(r != NULL, "%s found", want[i].name))
            continue;
        if (want[i].short_name)
            tap_ok(has_name(r->short_names, r->n_short_names, want[i].short_name),
                   "%s has short name %s", want[i].name, want[i].short_name);
        else
            tap_is_int(r->n_short_names, 0, "no short names");
        if (want[i].category)
            tap_ok(has_name(r->categories, r->n_categories, want[i].category),
                   "%s is in category %s", want[i].name, want[i].category);
        else
            tap_is_int(r->n_categories, 0, "no categories");
    }
}

/* Every resource's storage path is what the storage layer computes for it. */
static void
test_storage_paths(void)
{
    const gw_catalog_t *all = gw_catalog_builtin();
    size_t bad = 0;

    for (size_t i = 0; i < gw_catalog_count(all); i++) {
        const gw_resource_t *r = gw_catalog_at(all, i);
        char *want = gw_store_resource_path(r->group, r->name, false);
        if (strcmp(want, r->storage_path) != 0) {
            tap_diag("%s/%s: catalog %s, storage %s", r->group, r->name, r->storage_path, want);
            bad++;
        }
        free(want);
    }
    tap_is_int(bad, 0, "storage paths agree with gw_store_resource_path");
    tap_is_str(gw_catalog_find(all, "", "v1", "nodes")->storage_path, "minions", "nodes");
}

static void
test_generation(void)
{
    static const struct {
        const char *group, *version, *name;
        bool keeps;
    } want[] = {
        {"apps", "v1", "deployments", true},
        {"batch", "v1", "jobs", true},
        {"", "v1", "replicationcontrollers", true},
        {"networking.k8s.io", "v1", "networkpolicies", true},
        {"apiextensions.k8s.io", "v1", "customresourcedefinitions", true},
        {"", "v1", "pods", false},
        {"", "v1", "configmaps", false},
        {"autoscaling", "v2", "horizontalpodautoscalers", false},
    };

    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const gw_resource_t *r =
            gw_catalog_find(served, want[i].group, want[i].version, want[i].name);
        tap_ok(r && r->keeps_generation == want[i].keeps, "%s %s metadata.generation", want[i].name,
               want[i].keeps ? "keeps" : "does not keep");
    }
}

static const gw_schema_t *
field(const gw_schema_t *s, const char *name)
{
    const gw_schema_field_t *f = s ? gw_schema_field(s, name) : NULL;

    return f ? f->schema : NULL;
}

static void
test_pod_schema(void)
{
    const gw_schema_t *pod = gw_catalog_find(served, "", "v1", "pods")->schema;
    const gw_schema_t *containers = field(field(pod, "spec"), "containers");
    const gw_schema_t *container = containers ? containers->items : NULL;
    const gw_schema_t *labels = field(field(pod, "metadata"), "labels");

    tap_ok(pod->type == GW_SCHEMA_OBJECT && field(pod, "apiVersion") && field(pod, "kind"),
           "Pod is an object with apiVersion and kind");
    tap_ok(field(pod, "nosuchfield") == NULL, "unknown field: NULL");
    tap_ok(containers && containers->type == GW_SCHEMA_ARRAY, "spec.containers is an array");
    tap_is_str(containers ? containers->list_type : NULL, "map", "containers: list-type map");
    tap_ok(containers && containers->n_list_map_keys == 1 &&
               strcmp(containers->list_map_keys[0], "name") == 0,
           "containers: keyed by name");
    tap_is_str(containers ? containers->patch_merge_key : NULL, "name", "patch merge key");
    tap_is_str(containers ? containers->patch_strategy : NULL, "merge", "patch strategy");
    tap_is_str(container ? container->ref : NULL, "io.k8s.api.core.v1.Container",
               "items are Container");
    tap_ok(container && gw_schema_required(container, "name"), "Container requires name");
    tap_ok(container && !gw_schema_required(container, "image"), "image is optional");
    tap_ok(labels && labels->type == GW_SCHEMA_MAP && labels->values &&
               labels->values->type == GW_SCHEMA_STRING,
           "metadata.labels is a map of strings");
    tap_is_int(field(field(pod, "metadata"), "creationTimestamp")->type, GW_SCHEMA_TIME,
               "creationTimestamp is a time");
    tap_is_int(field(field(pod, "metadata"), "generation")->type, GW_SCHEMA_INTEGER,
               "generation is an integer");
    tap_is_str(field(field(pod, "metadata"), "generation")->format, "int64", "int64");
}

static void
test_special_types(void)
{
    const gw_schema_t *pod = gw_catalog_find(served, "", "v1", "pods")->schema;
    const gw_schema_t *container = field(field(pod, "spec"), "containers")->items;
    const gw_schema_t *probe = field(container, "livenessProbe");
    const gw_schema_t *port = field(field(probe, "httpGet"), "port");
    const gw_schema_t *limits = field(field(container, "resources"), "limits");
    const gw_schema_t *deploy = gw_catalog_find(served, "apps", "v1", "deployments")->schema;
    const gw_schema_t *strategy = field(field(deploy, "spec"), "strategy");
    const gw_schema_t *crd =
        gw_catalog_find(served, "apiextensions.k8s.io", "v1", "customresourcedefinitions")->schema;
    const gw_schema_t *props = gw_catalog_definition(
        served, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps");

    tap_ok(port && port->type == GW_SCHEMA_INT_OR_STRING, "httpGet.port is int-or-string");
    tap_ok(limits && limits->type == GW_SCHEMA_MAP && limits->values->type == GW_SCHEMA_QUANTITY,
           "resources.limits is a map of quantities");
    tap_is_int(field(field(pod, "metadata"), "managedFields")->items->type, GW_SCHEMA_OBJECT,
               "managedFields items are objects");
    tap_is_int(field(field(field(pod, "metadata"), "managedFields")->items, "fieldsV1")->type,
               GW_SCHEMA_ANY, "fieldsV1 is anything");
    tap_is_str(strategy ? strategy->patch_strategy : NULL, "retainKeys",
               "a decorated $ref keeps its marker");
    tap_is_str(strategy ? strategy->ref : NULL, "io.k8s.api.apps.v1.DeploymentStrategy",
               "and its definition");
    tap_ok(strategy && field(strategy, "rollingUpdate") != NULL, "and its fields");
    tap_ok(crd != NULL && props != NULL, "CRD and JSONSchemaProps present");
    tap_ok(field(field(props, "properties"), "") == NULL, "JSONSchemaProps.properties is a map");
    tap_ok(field(props, "properties") && field(props, "properties")->values == props,
           "recursive definitions share their schema");
    tap_ok(gw_catalog_definition(served, "io.k8s.nope") == NULL, "missing definition: NULL");
}

/* No schema in the embedded catalog carries prose: "description" occurs only as a field name. */
static size_t
count_descriptions(json_t *j)
{
    const char *key;
    json_t *v;
    size_t i, n = 0;

    if (json_is_array(j)) {
        json_array_foreach(j, i, v) n += count_descriptions(v);
        return n;
    }
    json_object_foreach(j, key, v)
    {
        if (strcmp(key, "description") == 0 || strcmp(key, "title") == 0)
            n++;
        if (strcmp(key, "properties") == 0) {
            const char *fname;
            json_t *fs;
            json_object_foreach(v, fname, fs) n += count_descriptions(fs);
        } else
            n += count_descriptions(v);
    }
    return n;
}

static void
test_no_prose(void)
{
    size_t len = (size_t)(gw_catalog_blob_end - gw_catalog_blob_start);
    json_t *doc = json_loadb(gw_catalog_blob_start, len, 0, NULL);

    tap_ok(doc != NULL, "embedded catalog is JSON (%zu bytes)", len);
    tap_is_int(count_descriptions(doc), 0, "no description or title anywhere");
    tap_is_int(gw_catalog_blob_end[0], 0, "NUL after the bytes");
    json_decref(doc);
}

static const gw_catalog_t *
configure(const char *rc, const char *name)
{
    const gw_catalog_t *c = NULL;
    char err[256] = "";
    int ret = gw_catalog_configure(gw_catalog_builtin(), rc, &c, err, sizeof(err));

    tap_is_int(ret, 0, name);
    if (ret != 0)
        tap_diag("%s", err);
    return c;
}

static void
expect_reject(const char *rc, const char *want)
{
    const gw_catalog_t *c = NULL;
    char err[256] = "";

    tap_is_int(gw_catalog_configure(gw_catalog_builtin(), rc, &c, err, sizeof(err)), GW_EINVAL, rc);
    tap_is_str(err, want, "its reason");
    tap_ok(c == NULL, "no catalog");
}

static bool
group_has_version(const gw_catalog_t *c, const char *group, const char *version)
{
    const gw_group_t *g = gw_catalog_group(c, group);

    return g && has_name(g->versions, g->n_versions, version);
}

static void
test_runtime_config(void)
{
    const gw_catalog_t *c;

    tap_ok(gw_catalog_find(served, "admissionregistration.k8s.io", "v1beta1",
                           "validatingadmissionpolicies") == NULL,
           "betas are off by default");
    tap_ok(gw_catalog_find(served, "resource.k8s.io", "v1alpha3", "deviceclasses") == NULL,
           "alphas are off by default");
    tap_ok(gw_catalog_find(gw_catalog_builtin(), "resource.k8s.io", "v1alpha3", "deviceclasses") !=
               NULL,
           "but present in the built-in universe");

    c = configure("apps/v1=false", "disable apps/v1");
    tap_ok(gw_catalog_find(c, "apps", "v1", "deployments") == NULL, "no deployments");
    tap_ok(gw_catalog_group(c, "apps") == NULL, "no apps group");
    tap_ok(gw_catalog_find(c, "", "v1", "pods") != NULL, "pods stay");

    c = configure("batch/v1/cronjobs=false", "disable one resource");
    tap_ok(gw_catalog_find(c, "batch", "v1", "cronjobs") == NULL, "no cronjobs");
    tap_ok(gw_catalog_find(c, "batch", "v1", "jobs") != NULL, "jobs stay");

    c = configure("resource.k8s.io/v1alpha3=true", "enable an alpha version");
    tap_ok(gw_catalog_find(c, "resource.k8s.io", "v1alpha3", "resourceclaims") != NULL,
           "alpha resourceclaims served");
    tap_ok(group_has_version(c, "resource.k8s.io", "v1alpha3") &&
               !group_has_version(c, "resource.k8s.io", "v1beta1"),
           "only that version of its group");

    c = configure("api/all=false, apps/v1=true ,/v1", "api/all=false then enable two");
    tap_is_int(gw_catalog_group_count(c), 2, "core and apps only");
    tap_ok(gw_catalog_find(c, "", "v1", "pods") && gw_catalog_find(c, "apps", "v1", "deployments"),
           "pods and deployments");

    c = configure("api/beta=true,storage.k8s.io/v1beta1/volumeattributesclasses=false",
                  "api/beta then a resource off");
    tap_ok(gw_catalog_find(c, "networking.k8s.io", "v1beta1", "ipaddresses") != NULL,
           "beta ipaddresses on");
    tap_ok(!group_has_version(c, "storage.k8s.io", "v1beta1"),
           "a version with no resource left is not served");
}

static void
test_runtime_config_errors(void)
{
    const gw_catalog_t *c;

    expect_reject("apps/v1=maybe", "invalid value of apps/v1: maybe");
    expect_reject("apps/v9", "group version apps/v9 that has not been registered");
    expect_reject("example.com/v1", "unknown API group \"example.com\" in --runtime-config key "
                                    "example.com/v1");
    expect_reject("apps/v1/widgets", "unknown resource in --runtime-config key apps/v1/widgets");
    expect_reject("apps/v1/Deployments", "invalid key apps/v1/Deployments: group/version/resource "
                                         "and resource is always lowercase plural, not "
                                         "\"Deployments\"");
    expect_reject("a/b/c/d", "invalid --runtime-config key a/b/c/d");
    expect_reject("v1/pods", "unknown API group \"v1\" in --runtime-config key v1/pods");
    c = configure(NULL, "NULL runtime-config");
    tap_is_int(gw_catalog_count(c), gw_catalog_count(served), "NULL gives the defaults");
    c = configure("apps/v1=False,apps/v1=1", "later duplicates win");
    tap_ok(gw_catalog_find(c, "apps", "v1", "deployments") != NULL, "apps/v1 back on");
}

static void
test_groups(void)
{
    const gw_group_t *core = gw_catalog_group_at(served, 0);
    const gw_group_t *second = gw_catalog_group_at(served, 1);
    const gw_group_t *autoscaling = gw_catalog_group(served, "autoscaling");

    tap_is_str(core->name, "", "core first");
    tap_is_str(second->name, "apiregistration.k8s.io", "the aggregator's group next");
    tap_is_str(gw_catalog_group_at(served, 2)->name, "apps", "then apps");
    tap_ok(autoscaling && autoscaling->n_versions == 2 &&
               strcmp(autoscaling->versions[0], "v2") == 0,
           "autoscaling prefers v2");
    tap_ok(gw_catalog_group_at(served, gw_catalog_group_count(served)) == NULL, "past the end");
}

int
main(void)
{
    const gw_catalog_t *c = NULL;
    char err[128];

    tap_ok(gw_catalog_builtin() == gw_catalog_builtin(), "built-in catalog loads once");
    tap_is_int(gw_catalog_configure(gw_catalog_builtin(), "", &c, err, sizeof(err)), 0,
               "default configuration");
    served = c;
    test_ga_resources();
    test_resource_facts();
    test_subresources();
    test_names_and_categories();
    test_storage_paths();
    test_generation();
    test_pod_schema();
    test_special_types();
    test_no_prose();
    test_groups();
    test_runtime_config();
    test_runtime_config_errors();
    return tap_done();
}
