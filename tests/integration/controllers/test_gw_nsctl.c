/*
 * The namespace deletion controller against a real etcd, with the built-in catalog's
 * namespaced resources: a namespace holding objects of several kinds (more than a page of
 * them) is emptied and removed, other namespaces untouched; an object with a finalizer holds
 * the namespace until the finalizer goes; finalizers of others on the namespace are left to
 * them; a controller stopped mid-deletion is succeeded by another that finishes the job.
 */
#include <jansson.h>

#include "ctl_harness.h"
#include "gw_catalog.h"
#include "gw_controllers.h"
#include "gw_namespace.h"
#include "gw_strategy_namespace.h"
#include "gw_nsctl.h"

#define WAIT_MS 30000
#define MANY 250 /* configmaps in one namespace: more than one page */

static harness_t h;
static etcd_client_t *client;
static char prefix[64];
static gw_nsctl_resource_t *res;
static size_t n_res;

/* ---- helpers ------------------------------------------------------------------------------ */

static gw_nsctl_t *
start_ctl(void)
{
    gw_nsctl_opts_t o = {
        .etcd_prefix = prefix, .resources = res, .n_resources = n_res, .recheck_ms = 300};
    return gw_nsctl_start(client, h.base, &o);
}

static void
put(const char *key, const char *json)
{
    result_t r = {0};

    if (h_create(&h, key, json, &r) != 0)
        tap_diag("setup: create %s failed: %s", key, gw_strerror(r.err));
    result_clear(&r);
}

static void
put_ns(const char *name, const char *spec_finalizers)
{
    char key[128], *json;

    snprintf(key, sizeof(key), "namespaces/%s", name);
    json = gw_sprintf("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":"
                      "\"%s\",\"uid\":\"uid-%s\"},\"spec\":{\"finalizers\":%s},"
                      "\"status\":{\"phase\":\"Active\"}}",
                      name, name, spec_finalizers);
    put(key, json);
    free(json);
}

/* An object of kind `kind` at <path>/<ns>/<name>, with metadata.finalizers `fin` (or none). */
static void
put_obj(const char *path, const char *kind, const char *ns, const char *name, const char *fin)
{
    char key[256], *json;

    snprintf(key, sizeof(key), "%s/%s/%s", path, ns, name);
    json = gw_sprintf("{\"kind\":\"%s\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"%s%s}}",
                      kind, name, ns, fin ? ",\"finalizers\":" : "", fin ? fin : "");
    put(key, json);
    free(json);
}

typedef struct {
    bool done;
    size_t n;
} count_t;

static void
count_cb(int err, const gw_list_page_t *page, void *ctx)
{
    count_t *c = ctx;

    c->done = true;
    c->n = err == 0 ? page->n_items : (size_t)-1;
}

/* How many keys are under the relative prefix. */
static size_t
count(const char *rel_prefix)
{
    count_t c = {0};
    gw_list_req_t req = {.prefix = rel_prefix};

    if (gw_store_list(h.store, &req, count_cb, &c) != 0)
        return (size_t)-1;
    harness_wait(&h, &c.done);
    return c.n;
}

static bool
exists(const char *key)
{
    result_t r = {0};
    int err = h_get(&h, key, 0, &r);

    result_clear(&r);
    return err == 0;
}

static bool
gone(const char *key)
{
    return !exists(key);
}

/* Poll (with the loop running) until pred(key) holds; pred may do blocking store calls. */
static bool
eventually(bool (*pred)(const char *key), const char *key)
{
    for (int waited = 0; waited < WAIT_MS; waited += 50) {
        if (pred(key))
            return true;
        harness_run_for(&h, 50);
    }
    return pred(key);
}

static void
deleted_cb(int err, const gw_obj_t *obj, bool deleted, void *ctx)
{
    (void)deleted;
    result_set(ctx, err, obj);
}

/* DELETE the namespace as the registry would: it becomes Terminating. */
static int
begin_delete(const char *name)
{
    result_t r = {0};
    int err = gw_namespace_begin_delete(h.store, name, NULL, deleted_cb, &r);

    if (err == 0) {
        harness_wait(&h, &r.done);
        err = r.err;
    }
    result_clear(&r);
    return err;
}

/* Rewrite a stored object through `edit` (as a finalizer's owner would). */
static int
edit(const char *key, void (*fn)(json_t *o))
{
    result_t r = {0};
    json_t *o;
    char *text;
    int err = h_get(&h, key, 0, &r);

    if (err != 0)
        return err;
    o = json_loads(r.value, 0, NULL);
    fn(o);
    text = json_dumps(o, JSON_COMPACT);
    err = h_update(&h, key, text, r.mod, &r);
    free(text);
    json_decref(o);
    result_clear(&r);
    return err;
}

static void
drop_metadata_finalizers(json_t *o)
{
    json_object_del(json_object_get(o, "metadata"), "finalizers");
}

static void
drop_spec_finalizers(json_t *o)
{
    json_object_set_new(json_object_get(o, "spec"), "finalizers", json_array());
}

/* o.<a>.<b> of the stored object: a string's value, else compact JSON, or "" when missing
 * (static buffer). */
static const char *
field(const char *key, const char *a, const char *b)
{
    static char buf[256];
    result_t r = {0};
    json_t *o;

    buf[0] = '\0';
    o = h_get(&h, key, 0, &r) == 0 ? json_loads(r.value, 0, NULL) : NULL;
    if (o != NULL) {
        const json_t *v = json_object_get(json_object_get(o, a), b);
        char *text = v != NULL ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        if (json_is_string(v))
            snprintf(buf, sizeof(buf), "%s", json_string_value(v));
        else if (text != NULL)
            snprintf(buf, sizeof(buf), "%s", text);
        free(text);
        json_decref(o);
    }
    result_clear(&r);
    return buf;
}

/* "<status>|<reason>|<message>" of the stored namespace's condition `type`, or "" (static). */
static const char *
condition(const char *key, const char *type)
{
    static char buf[512];
    result_t r = {0};
    json_t *o, *list;

    buf[0] = '\0';
    o = h_get(&h, key, 0, &r) == 0 ? json_loads(r.value, 0, NULL) : NULL;
    list = json_object_get(json_object_get(o, "status"), "conditions");
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *c = json_array_get(list, i);
        if (strcmp(json_string_value(json_object_get(c, "type")), type) == 0)
            snprintf(buf, sizeof(buf), "%s|%s|%s", json_string_value(json_object_get(c, "status")),
                     json_string_value(json_object_get(c, "reason")),
                     json_string_value(json_object_get(c, "message")));
    }
    json_decref(o);
    result_clear(&r);
    return buf;
}

static bool
content_remains(const char *key)
{
    return strncmp(condition(key, "NamespaceContentRemaining"), "True|", 5) == 0;
}

static bool
is_marked(const char *key)
{
    return field(key, "metadata", "deletionTimestamp")[0] != '\0';
}

/* Fewer than MANY objects under the prefix (ctl_wait checks it after every loop turn). */
static bool
some_deleted(void *rel_prefix)
{
    return count(rel_prefix) < MANY;
}

/* ---- scenarios ---------------------------------------------------------------------------- */

static void
test_catalog_paths(void)
{
    bool cm = false, pods = false, deploy = false, nodes = false, ns = false;

    for (size_t i = 0; i < n_res; i++) {
        cm = cm || strcmp(res[i].path, "configmaps") == 0;
        pods = pods || strcmp(res[i].path, "pods") == 0;
        deploy = deploy ||
                 (strcmp(res[i].path, "deployments") == 0 && strcmp(res[i].group, "apps") == 0);
        nodes = nodes || strcmp(res[i].path, "minions") == 0;
        ns = ns || strcmp(res[i].path, "namespaces") == 0;
    }
    tap_ok(cm && pods && deploy, "the catalog gives configmaps, pods and deployments");
    tap_ok(!nodes && !ns, "and no cluster-scoped resource");
}

/* Objects of several kinds, more than a page of configmaps: all gone, then the namespace. */
static void
test_empty_and_remove(void)
{
    gw_nsctl_t *c;
    char name[32];

    put_ns("victim", "[\"kubernetes\"]");
    put_ns("bystander", "[\"kubernetes\"]");
    for (int i = 0; i < MANY; i++) {
        snprintf(name, sizeof(name), "cm-%03d", i);
        put_obj("configmaps", "ConfigMap", "victim", name, NULL);
    }
    put_obj("secrets", "Secret", "victim", "s", NULL);
    put_obj("deployments", "Deployment", "victim", "d", NULL);
    put_obj("pods", "Pod", "victim", "p1", NULL);
    put_obj("pods", "Pod", "victim", "p2", NULL);
    put_obj("configmaps", "ConfigMap", "bystander", "keep", NULL);
    put("configmaps/victimx/similar", "{}"); /* a namespace whose name starts the same */

    c = start_ctl();
    harness_run_for(&h, 500);
    tap_is_int(count("configmaps/victim/"), MANY, "nothing is deleted before the DELETE");
    tap_is_int(begin_delete("victim"), 0, "DELETE the namespace");
    tap_ok(eventually(gone, "namespaces/victim"), "the namespace is removed");
    tap_ok(count("configmaps/victim/") == 0 && count("secrets/victim/") == 0 &&
               count("deployments/victim/") == 0 && count("pods/victim/") == 0,
           "with every object in it");
    tap_ok(exists("configmaps/bystander/keep") && exists("namespaces/bystander") &&
               exists("configmaps/victimx/similar"),
           "other namespaces keep theirs");
    tap_is_int(gw_nsctl_removed(c), 1, "the controller counts one removal");
    gw_nsctl_stop(c);
}

/* An object with a finalizer holds the namespace (Terminating) until the finalizer goes. */
static void
test_finalizer_blocks(void)
{
    gw_nsctl_t *c = start_ctl();

    /* The content first: a pass that ran between the namespace's write and its content's
     * would find the namespace empty and remove it. */
    put_obj("configmaps", "ConfigMap", "held", "plain", NULL);
    put_obj("configmaps", "ConfigMap", "held", "fin", "[\"example.com/hold\"]");
    /* Deleted through another path: deletionTimestamp set, phase still Active. */
    put("namespaces/held", "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"held\","
                           "\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"},"
                           "\"spec\":{\"finalizers\":[\"kubernetes\"]},"
                           "\"status\":{\"phase\":\"Active\"}}");
    tap_ok(eventually(gone, "configmaps/held/plain"), "the plain object is deleted");
    tap_ok(eventually(is_marked, "configmaps/held/fin"),
           "the one with a finalizer gets a deletionTimestamp");
    harness_run_for(&h, 1000);
    tap_ok(exists("configmaps/held/fin") && exists("namespaces/held"),
           "it stays, and so does the namespace");
    tap_is_str(field("namespaces/held", "status", "phase"), "Terminating",
               "the namespace is Terminating meanwhile");
    eventually(content_remains, "namespaces/held");
    tap_is_str(condition("namespaces/held", "NamespaceContentRemaining"),
               "True|SomeResourcesRemain|Some resources are remaining: "
               "configmaps. has 1 resource instances",
               "its status says what is left");
    tap_is_str(condition("namespaces/held", "NamespaceFinalizersRemaining"),
               "True|SomeFinalizersRemain|Some content in the namespace has finalizers remaining: "
               "example.com/hold in 1 resource instances",
               "and which finalizer holds it");
    tap_is_str(condition("namespaces/held", "NamespaceDeletionContentFailure"),
               "False|ContentDeleted|All content successfully deleted, may be waiting on "
               "finalization",
               "and that deleting worked");
    tap_is_int(edit("configmaps/held/fin", drop_metadata_finalizers), 0,
               "its owner removes the finalizer");
    tap_ok(eventually(gone, "namespaces/held"), "then the namespace is removed");
    tap_ok(!exists("configmaps/held/fin"), "and the object with it");
    gw_nsctl_stop(c);
}

/* Another spec finalizer: the controller removes only its own and waits for the other. */
static void
test_other_finalizer(void)
{
    gw_nsctl_t *c = start_ctl();

    put_ns("shared", "[\"kubernetes\",\"example.com/other\"]");
    tap_is_int(begin_delete("shared"), 0, "DELETE a namespace with two spec finalizers");
    harness_run_for(&h, 1500);
    tap_ok(exists("namespaces/shared"), "it stays while another finalizer is left");
    tap_is_str(field("namespaces/shared", "spec", "finalizers"), "[\"example.com/other\"]",
               "with only the other finalizer in spec.finalizers");
    tap_is_str(condition("namespaces/shared", "NamespaceContentRemaining"),
               "False|ContentRemoved|All content successfully removed",
               "its status says the content is gone");
    tap_is_str(condition("namespaces/shared", "NamespaceDeletionDiscoveryFailure"),
               "False|ResourcesDiscovered|All resources successfully discovered",
               "with kube's five conditions");
    tap_is_int(edit("namespaces/shared", drop_spec_finalizers), 0,
               "the other finalizer's owner finalizes");
    tap_ok(eventually(gone, "namespaces/shared"), "the controller then removes the namespace");
    gw_nsctl_stop(c);
}

/* Stop the controller in the middle of a deletion; another one picks it up from its list. */
static void
test_handover(void)
{
    static char moving[] = "configmaps/moving/";
    gw_nsctl_t *a = start_ctl(), *b;
    char name[32];

    put_ns("moving", "[\"kubernetes\"]");
    for (int i = 0; i < MANY; i++) {
        snprintf(name, sizeof(name), "cm-%03d", i);
        put_obj("configmaps", "ConfigMap", "moving", name, NULL);
    }
    put_obj("secrets", "Secret", "moving", "held", "[\"example.com/hold\"]");
    tap_is_int(begin_delete("moving"), 0, "DELETE a big namespace");
    ctl_wait(&h, some_deleted, moving, WAIT_MS);
    gw_nsctl_stop(a);
    tap_ok(exists("namespaces/moving"), "the first controller stops before it is done");
    b = start_ctl();
    tap_ok(eventually(is_marked, "secrets/moving/held"), "the second one carries on");
    edit("secrets/moving/held", drop_metadata_finalizers);
    tap_ok(eventually(gone, "namespaces/moving"), "and removes the namespace");
    tap_ok(count("configmaps/moving/") == 0 && count("secrets/moving/") == 0,
           "with everything in it");
    gw_nsctl_stop(b);
}

int
main(void)
{
    client = harness_client();
    snprintf(prefix, sizeof(prefix), "/kgate-test/nsctl/%d", (int)getpid());
    harness_open(&h, client, prefix);
    res = gw_controllers_namespaced(gw_catalog_builtin(), &n_res);
    test_catalog_paths();
    test_empty_and_remove();
    test_finalizer_blocks();
    test_other_finalizer();
    test_handover();
    free(res);
    harness_close(&h);
    etcd_client_free(client);
    return tap_done();
}
