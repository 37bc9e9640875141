/* OpenAPI documents of a snapshot with custom resources: the definitions, paths and operation
 * ids apiextensions-apiserver publishes, v2's removals, the v3 documents shared with the base,
 * hashes that follow the CRDs, the protobuf, and everything freed with the snapshot. */
#include "gw_openapi.h"

#include <stdarg.h>
#include <string.h>

#include <jansson.h>

#include "gw_alloc.h"
#include "gw_catalog_int.h"
#include "gw_err.h"
#include "gw_openapi_proto.h"
#include "tap.h"

#define KIND_DEF "com.example.stable.v1.CronTab"
#define LIST_DEF "com.example.stable.v1.CronTabList"
#define GV "/apis/stable.example.com/v1"
#define NS_COLL GV "/namespaces/{namespace}/crontabs"
#define NS_ITEM NS_COLL "/{name}"
#define OBJECT_META "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

/* A CRD as the API stores it; %s is the spec's description, so that tests can change it. */
static const char crontab_crd[] =
    "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
    "\"metadata\":{\"name\":\"crontabs.stable.example.com\",\"uid\":\"u-1\"},"
    "\"spec\":{\"group\":\"stable.example.com\",\"scope\":\"Namespaced\",\"names\":{"
    "\"plural\":\"crontabs\",\"singular\":\"crontab\",\"kind\":\"CronTab\","
    "\"listKind\":\"CronTabList\"},\"versions\":[{\"name\":\"v1\",\"served\":true,"
    "\"storage\":true,\"subresources\":{\"status\":{},\"scale\":{"
    "\"specReplicasPath\":\".spec.replicas\",\"statusReplicasPath\":\".status.replicas\"}},"
    "\"selectableFields\":[{\"jsonPath\":\".spec.cronSpec\"}],"
    "\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"description\":\"A cron tab.\","
    "\"example\":{\"x\":1},\"properties\":{"
    "\"metadata\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
    "\"maxLength\":20}}},"
    "\"status\":{\"type\":\"object\",\"properties\":{\"replicas\":{\"type\":\"integer\"}}},"
    "\"spec\":{\"type\":\"object\",\"description\":\"%s\",\"required\":[\"cronSpec\","
    "\"image\"],\"x-kubernetes-validations\":[{\"rule\":\"self.replicas <= 10\","
    "\"message\":\"too many\"}],\"properties\":{"
    "\"cronSpec\":{\"type\":\"string\",\"pattern\":\"^\\\\S+$\",\"description\":\"When.\"},"
    "\"image\":{\"type\":\"string\",\"nullable\":true},"
    "\"replicas\":{\"type\":\"integer\",\"format\":\"int32\",\"minimum\":1,\"maximum\":10,"
    "\"default\":1},"
    "\"port\":{\"x-kubernetes-int-or-string\":true},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"default\":\"\","
    "\"uniqueItems\":false,\"title\":\"\",\"minLength\":0},"
    "\"choice\":{\"type\":\"string\",\"oneOf\":[{\"pattern\":\"^a\"},{\"pattern\":\"^b\"}]},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"x-kubernetes-list-type\":\"set\"},"
    "\"extra\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true,"
    "\"properties\":{\"k\":{\"type\":\"string\"}}},"
    "\"template\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,"
    "\"properties\":{\"spec\":{\"type\":\"object\"}}},"
    "\"raw\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,"
    "\"x-kubernetes-preserve-unknown-fields\":true}"
    "}}}}}}]}}";

/* A cluster-scoped CRD without a schema. */
static const char widget_crd[] =
    "{\"metadata\":{\"name\":\"widgets.example.org\",\"uid\":\"u-2\"},\"spec\":{"
    "\"group\":\"example.org\",\"scope\":\"Cluster\",\"names\":{\"plural\":\"widgets\","
    "\"kind\":\"Widget\",\"listKind\":\"WidgetList\"},\"versions\":[{\"name\":\"v1alpha1\","
    "\"served\":true,\"storage\":true}]}}";

/* One custom resource, built by hand as apiext would (its schema may be any compiled one: the
   documents read the CRD's JSON). */
typedef struct {
    json_t *crd;
    gw_custom_t custom;
    gw_resource_t resource;
} fixture_t;

static int releases;

static void
release(void *ctx)
{
    fixture_t *f = ctx;

    releases++;
    for (int i = 0; i < 2; i++)
        json_decref(f[i].crd);
}

static void
fixture(fixture_t *f, const char *text, const char *version, bool namespaced)
{
    json_t *spec, *names, *v;

    f->crd = json_loads(text, 0, NULL);
    spec = json_object_get(f->crd, "spec");
    names = json_object_get(spec, "names");
    v = json_array_get(json_object_get(spec, "versions"), 0);
    f->custom = (gw_custom_t){
        .crd_name = json_string_value(json_object_get(json_object_get(f->crd, "metadata"), "name")),
        .crd = f->crd,
        .version = v,
        .schema_json = json_object_get(json_object_get(v, "schema"), "openAPIV3Schema"),
        .storage_version = version,
    };
    f->resource = (gw_resource_t){
        .group = json_string_value(json_object_get(spec, "group")),
        .version = version,
        .name = json_string_value(json_object_get(names, "plural")),
        .kind = json_string_value(json_object_get(names, "kind")),
        .list_kind = json_string_value(json_object_get(names, "listKind")),
        .namespaced = namespaced,
        .verbs = 0xff,
        .schema = gw_catalog_definition(gw_catalog_builtin(), "io.k8s.api.apps.v1.Deployment"),
        .custom = &f->custom,
    };
}

/* A snapshot of the default catalog with a CronTab (its spec described by `desc`) and a Widget. */
static const gw_catalog_t *
snapshot(const gw_catalog_t *base, fixture_t *f, const char *desc)
{
    char *text = gw_sprintf(crontab_crd, desc);
    const gw_resource_t *custom[2];

    fixture(&f[0], text, "v1", true);
    fixture(&f[1], widget_crd, "v1alpha1", false);
    free(text);
    custom[0] = &f[0].resource;
    custom[1] = &f[1].resource;
    return gw_catalog_extend(base, custom, 2, (gw_catalog_owner_t){release, f});
}

static json_t *
parse(const gw_openapi_doc_t *d)
{
    return json_loadb(d->data, d->len, 0, NULL);
}

/* The value at a path of keys, NULL-terminated. */
static json_t *
at(json_t *j, ...)
{
    va_list ap;
    const char *key;

    va_start(ap, j);
    while (j != NULL && (key = va_arg(ap, const char *)) != NULL)
        j = json_is_array(j) ? json_array_get(j, (size_t)atoi(key)) : json_object_get(j, key);
    va_end(ap);
    return j;
}

static const char *
str_at(json_t *j, const char *a, const char *b, const char *c, const char *d)
{
    return json_string_value(at(j, a, b, c, d, NULL));
}

/* Whether every "$ref" of j resolves under prefix in defs. */
static bool
refs_resolve(json_t *j, const char *prefix, json_t *defs)
{
    const char *key;
    json_t *v;
    size_t i;

    if (json_is_array(j)) {
        json_array_foreach(j, i, v) if (!refs_resolve(v, prefix, defs)) return false;
        return true;
    }
    json_object_foreach(j, key, v)
    {
        if (strcmp(key, "$ref") == 0 && json_is_string(v)) {
            const char *ref = json_string_value(v);
            if (strncmp(ref, prefix, strlen(prefix)) != 0 ||
                json_object_get(defs, ref + strlen(prefix)) == NULL)
                return false;
        } else if (!refs_resolve(v, prefix, defs)) {
            return false;
        }
    }
    return true;
}

static json_t *
op_at(json_t *doc, const char *path, const char *method)
{
    return at(doc, "paths", path, method, NULL);
}

static bool
has_param(json_t *op, const char *name)
{
    size_t i;
    json_t *p;

    json_array_foreach(json_object_get(op, "parameters"), i, p)
    {
        if (strcmp(json_string_value(json_object_get(p, "name")), name) == 0)
            return true;
    }
    return false;
}

static json_t *
body_param(json_t *op)
{
    size_t i;
    json_t *p;

    json_array_foreach(json_object_get(op, "parameters"), i, p)
    {
        if (strcmp(json_string_value(json_object_get(p, "in")), "body") == 0)
            return p;
    }
    return NULL;
}

static const char *
op_id(json_t *doc, const char *path, const char *method)
{
    return json_string_value(json_object_get(op_at(doc, path, method), "operationId"));
}

static bool
is_json(json_t *got, const char *want_text)
{
    json_t *want = json_loads(want_text, JSON_DECODE_ANY, NULL);
    bool eq = want != NULL && json_equal(got, want);

    if (!eq) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);
        tap_diag("  got  %s\n  want %s", g ? g : "(null)", want_text);
        free(g);
    }
    json_decref(want);
    return eq;
}

/* The kind definition in v2: kube's builder, ToStructuralOpenAPIV2 and the pruned defaults. */
static void
test_v2_definition(json_t *defs)
{
    json_t *k = json_object_get(defs, KIND_DEF), *spec = at(k, "properties", "spec", NULL);
    json_t *p = json_object_get(spec, "properties");

    tap_ok(is_json(json_object_get(k, "x-kubernetes-group-version-kind"),
                   "[{\"group\":\"stable.example.com\",\"kind\":\"CronTab\",\"version\":\"v1\"}]"),
           "v2: the kind's group-version-kind");
    tap_ok(is_json(json_object_get(k, "x-kubernetes-selectable-fields"),
                   "[{\"fieldPath\":\"spec.cronSpec\"}]"),
           "v2: selectable fields without the leading dot");
    tap_ok(is_json(at(k, "properties", "metadata", NULL),
                   "{\"$ref\":\"#/definitions/" OBJECT_META "\"}"),
           "v2: metadata is ObjectMeta, over the CRD's own");
    tap_ok(is_json(at(k, "properties", "apiVersion", NULL), "{\"type\":\"string\"}") &&
               is_json(at(k, "properties", "kind", NULL), "{\"type\":\"string\"}"),
           "v2: apiVersion and kind, without kube's prose");
    tap_is_str(str_at(k, "description", NULL, NULL, NULL), "A cron tab.",
               "the CRD's own descriptions are published");
    tap_ok(json_object_get(k, "example") == NULL, "example is not structural: dropped");
    tap_ok(is_json(json_object_get(spec, "required"), "[\"cronSpec\"]"),
           "v2: a nullable field leaves required");
    tap_ok(is_json(json_object_get(p, "image"), "{}"), "v2: a nullable field loses its type");
    tap_ok(is_json(json_object_get(p, "replicas"),
                   "{\"type\":\"integer\",\"format\":\"int32\",\"minimum\":1,\"maximum\":10}"),
           "v2: defaults pruned, value validation kept");
    tap_ok(is_json(json_object_get(p, "port"), "{\"x-kubernetes-int-or-string\":true}"),
           "v2: int-or-string without its anyOf");
    tap_ok(is_json(json_object_get(p, "choice"), "{\"type\":\"string\"}"), "v2: oneOf dropped");
    tap_ok(is_json(json_object_get(p, "extra"), "{\"x-kubernetes-preserve-unknown-fields\":true}"),
           "v2: preserve-unknown-fields loses its properties and object type");
    tap_ok(is_json(json_object_get(p, "raw"), "{\"x-kubernetes-embedded-resource\":true,"
                                              "\"x-kubernetes-preserve-unknown-fields\":true}"),
           "v2: an embedded resource with unknown fields gets no TypeMeta");
    tap_ok(is_json(json_object_get(p, "template"),
                   "{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,"
                   "\"required\":[\"kind\",\"apiVersion\"],\"properties\":{"
                   "\"apiVersion\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
                   "\"metadata\":{\"$ref\":\"#/definitions/" OBJECT_META "\"},"
                   "\"spec\":{\"type\":\"object\"}}}"),
           "v2: an embedded resource gets TypeMeta and ObjectMeta and requires kind, apiVersion");
    tap_ok(is_json(at(spec, "x-kubernetes-validations", NULL),
                   "[{\"rule\":\"self.replicas <= 10\",\"message\":\"too many\"}]"),
           "v2: x-kubernetes-validations kept");
    tap_ok(is_json(json_object_get(p, "tags"), "{\"type\":\"array\",\"items\":{\"type\":"
                                               "\"string\"},\"x-kubernetes-list-type\":\"set\"}"),
           "list type and items kept");
    tap_ok(is_json(json_object_get(defs, LIST_DEF),
                   "{\"type\":\"object\",\"required\":[\"items\"],\"properties\":{"
                   "\"apiVersion\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
                   "\"items\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/" KIND_DEF
                   "\"}},\"metadata\":{\"$ref\":\"#/definitions/io.k8s.apimachinery.pkg.apis.meta."
                   "v1.ListMeta\"}},\"x-kubernetes-group-version-kind\":[{\"group\":"
                   "\"stable.example.com\",\"kind\":\"CronTabList\",\"version\":\"v1\"}]}"),
           "v2: the list kind");
    tap_ok(is_json(json_object_get(defs, "org.example.v1alpha1.Widget"),
                   "{\"type\":\"object\",\"x-kubernetes-group-version-kind\":[{\"group\":"
                   "\"example.org\",\"kind\":\"Widget\",\"version\":\"v1alpha1\"}]}"),
           "no schema: a bare object with its group-version-kind");
}

/* The resource's paths and operations in v2, as the openapi builder's routes. */
static void
test_v2_paths(json_t *doc)
{
    json_t *del = op_at(doc, NS_ITEM, "delete"), *dc = op_at(doc, NS_COLL, "delete");
    json_t *scale = op_at(doc, NS_ITEM "/scale", "put");

    tap_is_str(op_id(doc, GV "/crontabs", "get"), "listStableExampleComV1CronTabForAllNamespaces",
               "list across namespaces");
    tap_is_str(op_id(doc, NS_COLL, "get"), "listStableExampleComV1NamespacedCronTab", "list");
    tap_is_str(op_id(doc, NS_COLL, "post"), "createStableExampleComV1NamespacedCronTab", "create");
    tap_is_str(op_id(doc, NS_COLL, "delete"), "deleteStableExampleComV1CollectionNamespacedCronTab",
               "deletecollection");
    tap_ok(has_param(dc, "labelSelector") && has_param(dc, "continue") && body_param(dc) == NULL &&
               !has_param(dc, "gracePeriodSeconds"),
           "deletecollection takes ListOptions and no body");
    tap_is_str(op_id(doc, NS_ITEM, "get"), "readStableExampleComV1NamespacedCronTab", "read");
    tap_ok(has_param(op_at(doc, NS_ITEM, "get"), "resourceVersion"), "read takes GetOptions");
    tap_is_str(op_id(doc, NS_ITEM, "put"), "replaceStableExampleComV1NamespacedCronTab", "replace");
    tap_is_str(op_id(doc, NS_ITEM, "patch"), "patchStableExampleComV1NamespacedCronTab", "patch");
    tap_ok(is_json(json_object_get(op_at(doc, NS_ITEM, "patch"), "consumes"),
                   "[\"application/json-patch+json\",\"application/merge-patch+json\","
                   "\"application/apply-patch+yaml\"]"),
           "patch: no strategic merge patch");
    tap_ok(is_json(json_object_get(op_at(doc, NS_COLL, "post"), "consumes"),
                   "[\"application/json\",\"application/yaml\"]"),
           "create consumes JSON and YAML");
    tap_ok(body_param(del) && json_object_get(body_param(del), "required") == NULL &&
               has_param(del, "propagationPolicy"),
           "delete: an optional DeleteOptions body");
    tap_ok(json_object_get(json_object_get(op_at(doc, NS_ITEM, "patch"), "responses"), "201") ==
               NULL,
           "patch answers 200 only");
    tap_is_str(op_id(doc, NS_ITEM "/status", "get"),
               "readStableExampleComV1NamespacedCronTabStatus", "status");
    tap_ok(op_at(doc, NS_ITEM "/status", "delete") == NULL, "status: get, put, patch");
    tap_is_str(json_string_value(json_object_get(scale, "operationId")),
               "replaceStableExampleComV1NamespacedCronTabScale", "scale");
    tap_is_str(str_at(body_param(scale), "schema", "$ref", NULL, NULL),
               "#/definitions/io.k8s.api.autoscaling.v1.Scale", "scale reads and writes Scale");
    tap_is_str(str_at(scale, "x-kubernetes-group-version-kind", "kind", NULL, NULL), "CronTab",
               "scale is marked with the custom kind, as kube's builder does");
    tap_is_str(str_at(op_at(doc, NS_COLL, "get"), "tags", "0", NULL, NULL), "stableExampleCom_v1",
               "tag");
    tap_ok(op_at(doc, GV "/watch/namespaces/{namespace}/crontabs", "get") == NULL,
           "no watch paths for custom resources");
    tap_is_str(op_id(doc, "/apis/example.org/v1alpha1/widgets", "delete"),
               "deleteExampleOrgV1alpha1CollectionWidget", "cluster scope: no Namespaced");
    tap_ok(op_at(doc, "/apis/example.org/v1alpha1/widgets/{name}/status", "get") == NULL,
           "no status path without the subresource");
}

static void
test_v2(const gw_catalog_t *snap)
{
    gw_openapi_doc_t d;
    json_t *doc, *defs;

    tap_is_int(gw_openapi_v2(snap, &d), 0, "v2 of a snapshot");
    doc = parse(&d);
    defs = json_object_get(doc, "definitions");
    tap_ok(json_object_get(defs, "io.k8s.api.apps.v1.Deployment") &&
               json_object_get(defs, KIND_DEF) && json_object_get(defs, LIST_DEF),
           "v2 holds built-in and custom definitions");
    tap_ok(refs_resolve(doc, "#/definitions/", defs), "every v2 $ref resolves");
    test_v2_definition(defs);
    test_v2_paths(doc);
    json_decref(doc);
}

/* The custom group/version's v3 document: the CRD's schema as v3 keeps it. */
static void
test_v3(const gw_catalog_t *snap)
{
    gw_openapi_doc_t d;
    json_t *doc, *schemas, *p, *index;

    tap_is_int(gw_openapi_v3(snap, "apis/stable.example.com/v1", &d), 0, "v3 of a custom gv");
    doc = parse(&d);
    schemas = at(doc, "components", "schemas", NULL);
    p = at(schemas, KIND_DEF, "properties", "spec", "properties", NULL);
    tap_ok(is_json(json_object_get(doc, "info"),
                   "{\"title\":\"Kubernetes CRD Swagger\",\"version\":\"v0.1.0\"}") &&
               json_object_get(doc, "security") == NULL,
           "v3: the merged CRD documents' info, no security");
    tap_ok(refs_resolve(doc, "#/components/schemas/", schemas), "every v3 $ref resolves");
    tap_ok(json_object_get(schemas, OBJECT_META) && json_object_get(schemas, LIST_DEF) &&
               json_object_get(schemas, "io.k8s.api.autoscaling.v1.Scale") &&
               json_object_get(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"),
           "v3: the kinds and the definitions they reach");
    tap_ok(json_object_get(schemas, "io.k8s.api.apps.v1.Deployment") == NULL &&
               json_object_get(schemas, "org.example.v1alpha1.Widget") == NULL,
           "v3: nothing of other group/versions");
    tap_ok(is_json(json_object_get(p, "image"), "{\"type\":\"string\",\"nullable\":true}"),
           "v3: nullable kept");
    tap_ok(is_json(at(schemas, KIND_DEF, "properties", "spec", "required", NULL),
                   "[\"cronSpec\",\"image\"]"),
           "v3: required untouched");
    tap_ok(is_json(json_object_get(p, "port"),
                   "{\"x-kubernetes-int-or-string\":true,\"anyOf\":[{\"type\":\"integer\"},"
                   "{\"type\":\"string\"}]}"),
           "v3: int-or-string unfolded to anyOf");
    tap_ok(is_json(at(p, "replicas", "default", NULL), "1"), "v3: defaults kept");
    tap_ok(is_json(json_object_get(p, "mode"),
                   "{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"default\":\"\","
                   "\"minLength\":0}"),
           "v3: an empty default and a zero bound are written, Go's empty values are not");
    tap_ok(is_json(at(p, "choice", "oneOf", NULL), "[{\"pattern\":\"^a\"},{\"pattern\":\"^b\"}]"),
           "v3: oneOf kept");
    tap_ok(is_json(at(p, "raw", "required", NULL), "[\"kind\",\"apiVersion\"]") &&
               is_json(at(p, "raw", "properties", "metadata", NULL),
                       "{\"$ref\":\"#/components/schemas/" OBJECT_META "\"}"),
           "v3: an embedded resource gets TypeMeta and ObjectMeta despite unknown fields");
    tap_ok(json_object_get(op_at(doc, NS_ITEM, "delete"), "requestBody") &&
               at(op_at(doc, NS_ITEM, "delete"), "requestBody", "required", NULL) == NULL,
           "v3: the delete body is optional");
    tap_ok(at(op_at(doc, NS_ITEM, "patch"), "requestBody", "content",
              "application/apply-patch+yaml", NULL) != NULL,
           "v3: patch takes apply patches");
    json_decref(doc);
    gw_openapi_v3_index(snap, &d);
    index = parse(&d);
    tap_ok(at(index, "paths", "apis/stable.example.com/v1", NULL) &&
               at(index, "paths", "apis/example.org/v1alpha1", NULL) &&
               at(index, "paths", "apis/apps/v1", NULL),
           "the v3 index lists the custom group/versions with the built-in ones");
    json_decref(index);
}

/* A snapshot's v3 documents of built-in group/versions are the base's, byte for byte. */
static void
test_reuse(const gw_catalog_t *base, const gw_catalog_t *snap)
{
    gw_openapi_doc_t b, s;

    gw_openapi_v3(snap, "apis/apps/v1", &s);
    gw_openapi_v3(base, "apis/apps/v1", &b);
    tap_ok(s.data == b.data && s.hash == b.hash, "apps/v1: the base's document, shared");
    gw_openapi_v3(snap, "api/v1", &s);
    gw_openapi_v3(base, "api/v1", &b);
    tap_ok(s.data == b.data && s.hash == b.hash, "core/v1: shared too");
    tap_is_int(gw_openapi_v3(base, "apis/stable.example.com/v1", &b), GW_ENOTFOUND,
               "the base does not serve the custom group/version");
}

/* Same CRDs, same hashes; a changed CRD changes its group/version's and v2's. */
static void
test_hashes(const gw_catalog_t *base, const gw_catalog_t *snap)
{
    static fixture_t same_f[2], changed_f[2];
    const gw_catalog_t *same = snapshot(base, same_f, "Spec.");
    const gw_catalog_t *changed = snapshot(base, changed_f, "The spec.");
    gw_openapi_doc_t a, b, c;

    gw_openapi_v3(snap, "apis/stable.example.com/v1", &a);
    gw_openapi_v3(same, "apis/stable.example.com/v1", &b);
    gw_openapi_v3(changed, "apis/stable.example.com/v1", &c);
    tap_ok(strcmp(a.hash, b.hash) == 0, "an identical CRD: the same v3 hash");
    tap_ok(strcmp(a.hash, c.hash) != 0, "a changed CRD: another v3 hash");
    gw_openapi_v3(snap, "apis/example.org/v1alpha1", &a);
    gw_openapi_v3(changed, "apis/example.org/v1alpha1", &c);
    tap_ok(strcmp(a.hash, c.hash) == 0, "an unchanged CRD's group/version keeps its hash");
    gw_openapi_v2(snap, &a);
    gw_openapi_v2(same, &b);
    gw_openapi_v2(changed, &c);
    tap_ok(strcmp(a.hash, b.hash) == 0 && strcmp(a.hash, c.hash) != 0,
           "v2's hash stays with the same CRDs and changes with a changed one");
    gw_openapi_v2(base, &b);
    tap_ok(strcmp(a.hash, b.hash) != 0, "v2 of a snapshot is not the base's");
    gw_catalog_unref(same);
    gw_catalog_unref(changed);
}

static bool
contains(const gw_openapi_doc_t *d, const char *s)
{
    return memmem(d->data, d->len, s, strlen(s)) != NULL;
}

/* The protobuf takes the custom definitions: nothing skipped, extensions kept. */
static void
test_proto(const gw_catalog_t *snap)
{
    gw_openapi_doc_t d, pb;
    json_t *doc;
    size_t len, skipped = 99;
    uint8_t *buf;

    gw_openapi_v2(snap, &d);
    tap_is_int(gw_openapi_v2_proto(snap, &pb), 0, "v2 protobuf of a snapshot");
    tap_ok(pb.hash == d.hash, "with the JSON's ETag");
    doc = parse(&d);
    buf = gw_openapi_proto_encode(doc, &len, &skipped);
    tap_is_int(skipped, 0, "nothing of the custom definitions is skipped");
    tap_ok(len == pb.len && memcmp(buf, pb.data, len) == 0, "the served bytes are that encoding");
    tap_ok(contains(&pb, KIND_DEF) && contains(&pb, "x-kubernetes-validations") &&
               contains(&pb, "x-kubernetes-selectable-fields") && contains(&pb, "self.replicas"),
           "the custom kind and its x- extensions are in the protobuf");
    free(buf);
    json_decref(doc);
}

/* What a CRD may state that the built-in definitions never do: any JSON as default, example
   and enum values, extensions of any shape, integral numbers written as reals. */
static void
test_proto_values(void)
{
    json_t *doc = json_loads(
        "{\"swagger\":\"2.0\",\"definitions\":{\"c.v1.K\":{\"type\":\"object\",\"properties\":{"
        "\"a\":{\"type\":\"string\",\"default\":{\"x\":[1,2.5,null,true,{\"y\":\"z\"}]},"
        "\"example\":[\"e\"],\"enum\":[null,{\"k\":1},[1]],\"maxLength\":5.0},"
        "\"b\":{\"x-kubernetes-validations\":[{\"rule\":\"self > 1\"}],"
        "\"x-kubernetes-list-map-keys\":[\"name\"],\"default\":null}}}}}",
        0, NULL);
    size_t len, skipped = 99;
    uint8_t *buf = gw_openapi_proto_encode(doc, &len, &skipped);

    tap_ok(doc != NULL && len > 0, "a document of custom-style schemas encodes");
    tap_is_int(skipped, 0, "arbitrary default, example, enum and extension values are taken");
    tap_ok(memmem(buf, len, "self > 1", 8) != NULL, "an extension's value is in its YAML");
    free(buf);
    json_decref(doc);
}

/* A schema kube cannot publish (an unknown type) and one that keeps unknown fields at its root
   (v2 only) come out as a bare object. */
static void
test_bare_objects(void)
{
    static const char crd[] =
        "{\"spec\":{\"group\":\"b.io\",\"names\":{\"kind\":\"B\",\"listKind\":\"BList\","
        "\"plural\":\"bs\"},\"versions\":[{\"name\":\"v1\",\"schema\":{\"openAPIV3Schema\":%s}}]}}";
    fixture_t f;
    char *text = gw_sprintf(crd, "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"bug\"}}}");
    json_t *defs = json_object();
    const char *bare = "{\"type\":\"object\",\"x-kubernetes-group-version-kind\":[{\"group\":"
                       "\"b.io\",\"kind\":\"B\",\"version\":\"v1\"}]}";

    fixture(&f, text, "v1", true);
    gw_openapi__custom_definitions(&f.resource, true, defs);
    tap_ok(is_json(json_object_get(defs, "io.b.v1.B"), bare), "an invalid type: a bare object");
    json_decref(f.crd);
    free(text);
    text = gw_sprintf(crd, "{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}");
    fixture(&f, text, "v1", true);
    gw_openapi__custom_definitions(&f.resource, false, defs);
    tap_ok(is_json(json_object_get(defs, "io.b.v1.B"), bare),
           "v2: unknown fields kept at the root: a bare object");
    gw_openapi__custom_definitions(&f.resource, true, defs);
    tap_ok(at(defs, "io.b.v1.B", "properties", "metadata", NULL) != NULL,
           "v3: the same schema with its metadata");
    json_decref(f.crd);
    free(text);
    json_decref(defs);
}

int
main(void)
{
    static fixture_t f[2];
    const gw_catalog_t *base = NULL, *snap;
    char err[256];

    if (gw_catalog_configure(gw_catalog_builtin(), NULL, &base, err, sizeof(err)) != 0)
        tap_diag("configure: %s", err);
    snap = snapshot(base, f, "Spec.");
    test_v2(snap);
    test_v3(snap);
    test_reuse(base, snap);
    test_hashes(base, snap);
    test_proto(snap);
    test_proto_values();
    test_bare_objects();
    tap_is_int(releases, 2, "the other snapshots were released when unreferenced");
    gw_catalog_unref(snap);
    tap_is_int(releases, 3, "the last reference frees the snapshot, documents and all");
    return tap_done();
}
