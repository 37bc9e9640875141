/* OpenAPI documents: v2, the v3 index and per-group-version v3, their refs, params and hashes. */
#include "gw_openapi.h"

#include <pthread.h>
#include <string.h>

#include <jansson.h>
#include <openssl/sha.h>

#include "gw_err.h"
#include "tap.h"

#define DEPLOYMENT "io.k8s.api.apps.v1.Deployment"
#define DEPLOYMENT_PATH "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"

static const gw_catalog_t *
configured(const char *runtime_config)
{
    const gw_catalog_t *c = NULL;
    char err[256];

    if (gw_catalog_configure(gw_catalog_builtin(), runtime_config, &c, err, sizeof(err)) != 0)
        tap_diag("runtime-config %s: %s", runtime_config, err);
    return c;
}

static json_t *
parse(const gw_openapi_doc_t *d)
{
    return json_loadb(d->data, d->len, 0, NULL);
}

static bool
hash_ok(const gw_openapi_doc_t *d)
{
    static const char digits[] = "0123456789ABCDEF";
    unsigned char md[SHA512_DIGEST_LENGTH];
    char want[2 * SHA512_DIGEST_LENGTH + 1];

    SHA512((const unsigned char *)d->data, d->len, md);
    for (size_t i = 0; i < sizeof(md); i++) {
        want[2 * i] = digits[md[i] >> 4];
        want[2 * i + 1] = digits[md[i] & 15];
    }
    want[sizeof(want) - 1] = '\0';
    return strcmp(want, d->hash) == 0 && strlen(d->data) == d->len;
}

/* Count "$ref"s, and those not resolving under `prefix` in `defs`. */
static void
check_refs(json_t *j, const char *prefix, json_t *defs, size_t *n, size_t *bad)
{
    const char *key;
    json_t *v;
    size_t i;

    if (json_is_array(j)) {
        json_array_foreach(j, i, v) check_refs(v, prefix, defs, n, bad);
        return;
    }
    json_object_foreach(j, key, v)
    {
        if (strcmp(key, "$ref") == 0 && json_is_string(v)) {
            const char *ref = json_string_value(v);
            (*n)++;
            if (strncmp(ref, prefix, strlen(prefix)) != 0 ||
                json_object_get(defs, ref + strlen(prefix)) == NULL)
                (*bad)++;
        } else
            check_refs(v, prefix, defs, n, bad);
    }
}

/* Prose keys in schemas: "description" or "title" outside a properties map. */
static size_t
prose(json_t *schema)
{
    const char *key, *name;
    json_t *v, *field;
    size_t n = 0;

    json_object_foreach(schema, key, v)
    {
        if (strcmp(key, "description") == 0 || strcmp(key, "title") == 0)
            n++;
        else if (strcmp(key, "properties") == 0) {
            json_object_foreach(v, name, field) n += prose(field);
        } else if (json_is_object(v))
            n += prose(v);
    }
    return n;
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
op_at(json_t *doc, const char *path, const char *method)
{
    return json_object_get(json_object_get(json_object_get(doc, "paths"), path), method);
}

static void
test_v2(const gw_catalog_t *c)
{
    gw_openapi_doc_t d, again;
    json_t *doc, *defs, *deploy, *patch, *list, *gvk;
    size_t refs = 0, bad = 0, wordy = 0;
    const char *name;
    json_t *v;

    tap_is_int(gw_openapi_v2(c, &d), 0, "v2 builds");
    gw_openapi_v2(c, &again);
    tap_ok(again.data == d.data, "second call returns the cached bytes");
    tap_ok(hash_ok(&d), "hash is the upper-case hex SHA-512 of the bytes");
    doc = parse(&d);
    defs = json_object_get(doc, "definitions");
    deploy = json_object_get(defs, DEPLOYMENT);
    tap_is_str(json_string_value(json_object_get(doc, "swagger")), "2.0", "swagger 2.0");
    gvk = json_pack("[{s:s, s:s, s:s}]", "group", "apps", "kind", "Deployment", "version", "v1");
    tap_ok(json_equal(json_object_get(deploy, "x-kubernetes-group-version-kind"), gvk),
           "Deployment carries its group/version/kind");
    json_decref(gvk);
    json_object_foreach(defs, name, v) wordy += prose(v);
    tap_is_int(wordy, 0, "no description in any definition");
    check_refs(doc, "#/definitions/", defs, &refs, &bad);
    tap_ok(refs > 1000 && bad == 0, "all %zu refs resolve (%zu do not)", refs, bad);
    patch = op_at(doc, DEPLOYMENT_PATH, "patch");
    tap_ok(has_param(patch, "fieldValidation") && has_param(patch, "force") &&
               has_param(patch, "dryRun") && has_param(patch, "fieldManager"),
           "patch lists fieldValidation, force, dryRun, fieldManager");
    tap_is_str(json_string_value(json_object_get(patch, "x-kubernetes-action")), "patch",
               "x-kubernetes-action");
    tap_is_str(json_string_value(json_object_get(patch, "operationId")),
               "patchAppsV1NamespacedDeployment", "kube's operationId");
    list = op_at(doc, "/apis/apps/v1/namespaces/{namespace}/deployments", "get");
    tap_ok(has_param(list, "labelSelector") && has_param(list, "watch") &&
               has_param(list, "resourceVersionMatch") && has_param(list, "sendInitialEvents"),
           "list lists its parameters");
    tap_ok(op_at(doc, "/api/v1/namespaces/{namespace}/pods/{name}/exec", "post") != NULL,
           "connect paths");
    tap_ok(op_at(doc, "/api/v1/pods", "get") != NULL, "list across namespaces");
    json_decref(doc);
}

static const char *
index_url(json_t *index, const char *path)
{
    return json_string_value(json_object_get(json_object_get(json_object_get(index, "paths"), path),
                                             "serverRelativeURL"));
}

static void
test_v3_index(const gw_catalog_t *c)
{
    gw_openapi_doc_t d, core;
    json_t *index;
    char want[256];

    tap_is_int(gw_openapi_v3_index(c, &d), 0, "v3 index builds");
    index = parse(&d);
    tap_is_int(gw_openapi_v3(c, "api/v1", &core), 0, "api/v1 document");
    snprintf(want, sizeof(want), "/openapi/v3/api/v1?hash=%s", core.hash);
    tap_is_str(index_url(index, "api/v1"), want, "index links api/v1 with its hash");
    tap_ok(index_url(index, "apis/apps/v1") != NULL, "index lists apis/apps/v1");
    tap_ok(index_url(index, "apis/resource.k8s.io/v1beta1") == NULL, "not versions switched off");
    tap_is_int(json_object_size(json_object_get(index, "paths")), 21,
               "one entry per served group/version");
    tap_is_int(gw_openapi_v3(c, "apis/nope.example.com/v1", &core), GW_ENOTFOUND,
               "unknown group/version: GW_ENOTFOUND");
    json_decref(index);
}

static void
test_v3_apps(const gw_catalog_t *c)
{
    gw_openapi_doc_t d;
    json_t *doc, *schemas, *create, *strategy;
    size_t refs = 0, bad = 0;

    tap_is_int(gw_openapi_v3(c, "apis/apps/v1", &d), 0, "apps/v1 document");
    tap_ok(hash_ok(&d), "its hash");
    doc = parse(&d);
    schemas = json_object_get(json_object_get(doc, "components"), "schemas");
    tap_is_str(json_string_value(json_object_get(doc, "openapi")), "3.0.0", "openapi 3.0.0");
    check_refs(doc, "#/components/schemas/", schemas, &refs, &bad);
    tap_ok(refs > 100 && bad == 0, "all %zu refs resolve within the document (%zu do not)", refs,
           bad);
    tap_ok(json_object_get(schemas, DEPLOYMENT) &&
               json_object_get(schemas, "io.k8s.api.core.v1.PodSpec") &&
               json_object_get(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions") &&
               json_object_get(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.Status") &&
               json_object_get(schemas, "io.k8s.api.autoscaling.v1.Scale"),
           "kinds, their parts and the meta types");
    tap_ok(json_object_get(schemas, "io.k8s.api.batch.v1.Job") == NULL,
           "no definitions of other groups' kinds");
    create = op_at(doc, "/apis/apps/v1/namespaces/{namespace}/deployments", "post");
    tap_ok(has_param(create, "fieldValidation"), "create has fieldValidation");
    tap_ok(has_param(op_at(doc, DEPLOYMENT_PATH, "patch"), "fieldValidation"),
           "patch has fieldValidation");
    tap_ok(json_object_get(json_object_get(create, "requestBody"), "content") != NULL,
           "request bodies are requestBody");
    tap_ok(op_at(doc, "/api/v1/pods", "get") == NULL, "only this group/version's paths");
    strategy = json_object_get(
        json_object_get(json_object_get(schemas, "io.k8s.api.apps.v1.DeploymentSpec"),
                        "properties"),
        "strategy");
    tap_ok(json_object_get(strategy, "allOf") && json_object_get(strategy, "$ref") == NULL,
           "a decorated $ref becomes allOf");
    json_decref(doc);
}

static void
test_runtime_config(void)
{
    const gw_catalog_t *c = configured("apps/v1=false");
    gw_openapi_doc_t d;
    json_t *index, *v2;

    gw_openapi_v3_index(c, &d);
    index = parse(&d);
    tap_ok(index_url(index, "apis/apps/v1") == NULL && index_url(index, "apis/batch/v1"),
           "v3 index follows --runtime-config");
    gw_openapi_v2(c, &d);
    v2 = parse(&d);
    tap_ok(op_at(v2, DEPLOYMENT_PATH, "get") == NULL, "and so does v2");
    tap_ok(json_object_get(json_object_get(v2, "definitions"), DEPLOYMENT) == NULL,
           "without the switched-off kinds");
    json_decref(index);
    json_decref(v2);
}

static void *
fetch_index(void *arg)
{
    static gw_openapi_doc_t docs[4];
    static int next;
    int slot = __atomic_fetch_add(&next, 1, __ATOMIC_SEQ_CST);

    gw_openapi_v3_index(arg, &docs[slot]);
    return (void *)docs[slot].data;
}

/* Concurrent first requests build the documents once. */
static void
test_concurrent_first_use(void)
{
    const gw_catalog_t *c = configured("batch/v1=false");
    pthread_t t[4];
    void *data[4];

    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, fetch_index, (void *)c);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], &data[i]);
    tap_ok(data[0] && data[0] == data[1] && data[1] == data[2] && data[2] == data[3],
           "four threads get the same bytes");
}

int
main(void)
{
    const gw_catalog_t *c = configured(NULL);

    test_v2(c);
    test_v3_index(c);
    test_v3_apps(c);
    test_runtime_config();
    test_concurrent_first_use();
    return tap_done();
}
