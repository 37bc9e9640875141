/*
 * Namespace lifecycle against a real etcd: the initial namespaces created exactly once by two
 * instances racing, the NamespaceLifecycle admission plugin's answers for missing / active /
 * terminating namespaces, and the namespace registry's DELETE (first mark, repeats, preconditions,
 * dry run, garbage-collector finalizers, the final removal).
 */
#include <jansson.h>

#include "ctl_harness.h"
#include "gw_admission.h"
#include "gw_arena.h"
#include "gw_namespace.h"
#include "gw_strategy_namespace.h"

static char prefix[64];

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct {
    bool done;
    int err;
} done_t;

static void
done_cb(int err, void *ctx)
{
    done_t *d = ctx;

    d->done = true;
    d->err = err;
}

static bool
is_done(void *arg)
{
    return ((done_t *)arg)->done;
}

typedef struct {
    bool done;
    int code; /* the refusal's status code, 0 when admitted */
    char message[256];
} verdict_t;

static void
verdict_cb(gw_admission_err_t *e, void *arg)
{
    verdict_t *v = arg;

    v->done = true;
    v->code = e == NULL ? 0 : e->err != 0 ? e->err : e->code;
    snprintf(v->message, sizeof(v->message), "%s", e && e->message ? e->message : "");
    json_decref(e ? e->details : NULL);
}

static const gw_resource_t configmaps = {.group = "", .name = "configmaps", .namespaced = true};
static const gw_resource_t namespaces = {.group = "", .name = "namespaces"};
static const gw_resource_t lsars = {
    .group = "authorization.k8s.io", .name = "localsubjectaccessreviews", .namespaced = true};

/* NamespaceLifecycle's verdict on `op` of object `name` of `res` in namespace `ns`. */
static verdict_t
admit(harness_t *h, gw_admission_op_t op, const gw_resource_t *res, const char *ns,
      const char *name)
{
    gw_req_t r = {.arena = gw_arena_new(), .store = h->store};
    gw_admission_attrs_t a = {
        .op = op, .req = &r, .resource = res, .subresource = "", .namespace_ = ns, .name = name};
    verdict_t v = {0};

    gw_admission_namespace_lifecycle.admit(&a, verdict_cb, &v);
    harness_wait(h, &v.done);
    gw_arena_free(r.arena);
    return v;
}

typedef struct {
    result_t r;
    bool deleted;
} del_result_t;

static void
del_cb(int err, const gw_obj_t *obj, bool deleted, void *ctx)
{
    del_result_t *d = ctx;

    result_set(&d->r, err, obj);
    d->deleted = deleted;
}

/* DELETE with options given as JSON text (NULL: none). */
static int
begin_delete(harness_t *h, const char *name, const char *options, del_result_t *d)
{
    json_t *o = options != NULL ? json_loads(options, 0, NULL) : NULL;
    int rc;

    result_clear(&d->r);
    d->deleted = false;
    rc = gw_namespace_begin_delete(h->store, name, o, del_cb, d);
    json_decref(o);
    if (rc != 0)
        return rc;
    harness_wait(h, &d->r.done);
    return d->r.err;
}

static json_t *
parse(const char *value)
{
    return value != NULL ? json_loads(value, 0, NULL) : NULL;
}

/* A string at o.<a>.<b>, or "". */
static const char *
str_at(const json_t *o, const char *a, const char *b)
{
    const char *s = json_string_value(json_object_get(json_object_get(o, a), b));
    return s != NULL ? s : "";
}

/* Whether the string array at o.<a>.finalizers equals `want` (JSON text). */
static bool
finalizers_are(const json_t *o, const char *a, const char *want)
{
    json_t *w = json_loads(want, 0, NULL);
    bool eq = json_equal(json_object_get(json_object_get(o, a), "finalizers"), w);

    json_decref(w);
    return eq;
}

/* Store a namespace object given as JSON text under namespaces/<name>. */
static int64_t
put_ns(harness_t *h, const char *name, const char *json)
{
    result_t r = {0};
    char key[128];
    int64_t mod;

    snprintf(key, sizeof(key), "namespaces/%s", name);
    h_create(h, key, json, &r);
    mod = r.err == 0 ? r.mod : -1;
    result_clear(&r);
    return mod;
}

static void
get_ns(harness_t *h, const char *name, result_t *r)
{
    char key[128];

    snprintf(key, sizeof(key), "namespaces/%s", name);
    h_get(h, key, 0, r);
}

/* ---- initial namespaces ------------------------------------------------------------------- */

static void
check_initial_shape(harness_t *h, const char *name)
{
    result_t r = {0};
    json_t *o;
    const char *labels;

    get_ns(h, name, &r);
    o = parse(r.value);
    labels = str_at(json_object_get(o, "metadata"), "labels", "kubernetes.io/metadata.name");
    tap_ok(r.err == 0 && r.create == r.mod, "%s exists, written once", name);
    tap_ok(strcmp(str_at(o, "metadata", "name"), name) == 0 &&
               strcmp(json_string_value(json_object_get(o, "kind")), "Namespace") == 0 &&
               strcmp(json_string_value(json_object_get(o, "apiVersion")), "v1") == 0,
           "%s: kind, apiVersion and name", name);
    tap_ok(strlen(str_at(o, "metadata", "uid")) == 36 &&
               strlen(str_at(o, "metadata", "creationTimestamp")) == 20,
           "%s: uid and creationTimestamp", name);
    tap_is_str(labels, name, "the metadata.name label");
    tap_ok(finalizers_are(o, "spec", "[\"kubernetes\"]"), "%s: spec.finalizers [kubernetes]", name);
    tap_is_str(str_at(o, "status", "phase"), "Active", "phase Active");
    tap_ok(json_object_get(json_object_get(o, "metadata"), "resourceVersion") == NULL,
           "%s: stored without resourceVersion", name);
    json_decref(o);
    result_clear(&r);
}

static void
test_initial(harness_t *a, harness_t *b)
{
    done_t da = {0}, db = {0};
    result_t before = {0}, after = {0};

    tap_is_int(gw_namespace_ensure_initial(a->store, done_cb, &da), 0, "instance A ensures");
    tap_is_int(gw_namespace_ensure_initial(b->store, done_cb, &db), 0, "instance B races it");
    tap_ok(ctl_wait(a, is_done, &da, 20000) && ctl_wait(b, is_done, &db, 20000), "both finish");
    tap_ok(da.err == 0 && db.err == 0, "both succeed (an existing namespace is no error)");
    for (size_t i = 0; gw_namespace_initial[i] != NULL; i++)
        check_initial_shape(a, gw_namespace_initial[i]);
    get_ns(a, "kube-system", &before);
    da.done = false;
    gw_namespace_ensure_initial(a->store, done_cb, &da);
    harness_wait(a, &da.done);
    get_ns(a, "kube-system", &after);
    tap_ok(da.err == 0 && after.mod == before.mod, "ensuring again changes nothing");
    result_clear(&before);
    result_clear(&after);
}

/* ---- admission ---------------------------------------------------------------------------- */

static void
test_admission(harness_t *h)
{
    del_result_t d = {0};
    verdict_t v;

    tap_is_int(admit(h, GW_ADMISSION_CREATE, &configmaps, "default", "c").code, 0,
               "create into an active namespace: admitted");
    v = admit(h, GW_ADMISSION_CREATE, &configmaps, "nowhere", "c");
    tap_is_int(v.code, 404, "into a missing one: 404");
    tap_is_str(v.message, "namespaces \"nowhere\" not found", "... in kube's words");
    put_ns(h, "doomed",
           "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"doomed\","
           "\"uid\":\"u-doomed\"},\"spec\":{\"finalizers\":[\"kubernetes\"]},"
           "\"status\":{\"phase\":\"Active\"}}");
    tap_is_int(admit(h, GW_ADMISSION_CREATE, &configmaps, "doomed", "c").code, 0,
               "doomed is active at first");
    begin_delete(h, "doomed", NULL, &d);
    v = admit(h, GW_ADMISSION_CREATE, &configmaps, "doomed", "late");
    tap_is_int(v.code, 403, "into a terminating one: 403");
    tap_is_str(v.message,
               "configmaps \"late\" is forbidden: unable to create new content in namespace "
               "doomed because it is being terminated",
               "... in kube's words");
    tap_is_int(admit(h, GW_ADMISSION_CREATE, &configmaps, "a/b", "c").code, 404,
               "a namespace that cannot be a name: 404");
    tap_is_int(admit(h, GW_ADMISSION_CREATE, &lsars, "nowhere", "").code, 0,
               "an access review never tells whether a namespace exists");
    tap_is_int(admit(h, GW_ADMISSION_CREATE, &namespaces, "", "doomed").code, 0,
               "a namespace's own create is not checked");
    tap_ok(admit(h, GW_ADMISSION_DELETE, &namespaces, "", "default").code == 403 &&
               admit(h, GW_ADMISSION_DELETE, &namespaces, "", "kube-system").code == 403 &&
               admit(h, GW_ADMISSION_DELETE, &namespaces, "", "kube-public").code == 403,
           "default, kube-system and kube-public may not be deleted");
    tap_ok(admit(h, GW_ADMISSION_DELETE, &namespaces, "", "kube-node-lease").code == 0 &&
               admit(h, GW_ADMISSION_DELETE, &configmaps, "doomed", "c").code == 0,
           "other namespaces may, and deletes in a terminating one go on");
    result_clear(&d.r);
}

/* ---- delete ------------------------------------------------------------------------------- */

#define NS_JSON(name, extra_meta, spec_fin)                                                        \
    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" name "\","           \
    "\"uid\":\"uid-" name "\"" extra_meta "},\"spec\":{\"finalizers\":" spec_fin "},"              \
    "\"status\":{\"phase\":\"Active\"}}"

static void
test_first_delete(harness_t *h)
{
    del_result_t d = {0};
    result_t r = {0};
    json_t *o;
    int64_t mod = put_ns(h, "first", NS_JSON("first", "", "[\"kubernetes\"]"));

    tap_is_int(begin_delete(h, "missing", NULL, &d), GW_ENOTFOUND, "DELETE of a missing one");
    tap_is_int(begin_delete(h, "first", NULL, &d), 0, "first DELETE succeeds");
    o = parse(d.r.value);
    tap_ok(!d.deleted && d.r.mod > mod, "it updates the namespace, not removes it");
    tap_ok(str_at(o, "metadata", "deletionTimestamp")[0] != '\0', "deletionTimestamp is set");
    tap_is_str(str_at(o, "status", "phase"), "Terminating", "phase Terminating");
    tap_ok(finalizers_are(o, "spec", "[\"kubernetes\"]"), "spec.finalizers kept");
    get_ns(h, "first", &r);
    tap_ok(r.mod == d.r.mod && strcmp(r.value, d.r.value) == 0, "the answer is what is stored");
    json_decref(o);

    tap_is_int(begin_delete(h, "first", NULL, &d), 0, "a second DELETE succeeds");
    tap_ok(!d.deleted && d.r.mod == r.mod, "and changes nothing while spec.finalizers remain");
    result_clear(&d.r);
    result_clear(&r);
}

static void
test_preconditions(harness_t *h)
{
    del_result_t d = {0};
    result_t r = {0};
    char opts[128];
    int64_t mod = put_ns(h, "pre", NS_JSON("pre", "", "[\"kubernetes\"]"));

    tap_is_int(begin_delete(h, "pre", "{\"preconditions\":{\"uid\":\"other\"}}", &d), GW_ECONFLICT,
               "a wrong uid precondition: ECONFLICT");
    tap_ok(d.r.has_obj && d.r.mod == mod, "with the current object");
    snprintf(opts, sizeof(opts), "{\"preconditions\":{\"resourceVersion\":\"%lld\"}}",
             (long long)(mod + 1000));
    tap_is_int(begin_delete(h, "pre", opts, &d), GW_ECONFLICT,
               "a wrong resourceVersion precondition: ECONFLICT");
    get_ns(h, "pre", &r);
    tap_is_int(r.mod, mod, "nothing was written");
    snprintf(opts, sizeof(opts),
             "{\"preconditions\":{\"uid\":\"uid-pre\",\"resourceVersion\":\"%lld\"}}",
             (long long)mod);
    tap_is_int(begin_delete(h, "pre", opts, &d), 0, "matching preconditions: marked");
    result_clear(&d.r);
    result_clear(&r);
}

static void
test_dry_run_and_gc(harness_t *h)
{
    del_result_t d = {0};
    result_t r = {0};
    json_t *o;
    int64_t mod = put_ns(h, "dry", NS_JSON("dry", "", "[\"kubernetes\"]"));

    tap_is_int(begin_delete(h, "dry", "{\"dryRun\":[\"All\"]}", &d), 0, "dry-run DELETE");
    o = parse(d.r.value);
    tap_is_str(str_at(o, "status", "phase"), "Terminating", "answers the marked object");
    get_ns(h, "dry", &r);
    tap_ok(r.mod == mod && strstr(r.value, "Terminating") == NULL, "but stores nothing");
    json_decref(o);

    put_ns(h, "orphan", NS_JSON("orphan", "", "[\"kubernetes\"]"));
    begin_delete(h, "orphan", "{\"propagationPolicy\":\"Orphan\"}", &d);
    o = parse(d.r.value);
    tap_ok(finalizers_are(o, "metadata", "[\"orphan\"]"), "Orphan adds the orphan finalizer");
    json_decref(o);
    put_ns(h, "fg", NS_JSON("fg", ",\"finalizers\":[\"orphan\"]", "[\"kubernetes\"]"));
    begin_delete(h, "fg", "{\"orphanDependents\":false}", &d);
    o = parse(d.r.value);
    tap_ok(finalizers_are(o, "metadata", "[\"foregroundDeletion\"]"),
           "orphanDependents=false: foregroundDeletion instead of orphan");
    json_decref(o);
    result_clear(&d.r);
    result_clear(&r);
}

/* The controller removed its finalizer: DELETE now removes the namespace, unless metadata
 * finalizers are left. */
static void
test_final_delete(harness_t *h)
{
    del_result_t d = {0};
    result_t r = {0};
    const char *gone = NS_JSON("gone", ",\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"", "[]");
    const char *held = NS_JSON(
        "held", ",\"deletionTimestamp\":\"2024-01-01T00:00:00Z\",\"finalizers\":[\"x.io/y\"]",
        "[]");
    int64_t mod;

    put_ns(h, "gone", gone);
    tap_is_int(begin_delete(h, "gone", "{\"dryRun\":[\"All\"]}", &d), 0, "dry-run final DELETE");
    get_ns(h, "gone", &r);
    tap_ok(d.deleted && r.err == 0, "reports the removal, keeps the object");
    tap_is_int(begin_delete(h, "gone", NULL, &d), 0, "final DELETE");
    tap_ok(d.deleted && d.r.has_obj, "removes the namespace and returns its last value");
    tap_is_int(h_get(h, "namespaces/gone", 0, &r), GW_ENOTFOUND, "it is gone");

    mod = put_ns(h, "held", held);
    tap_is_int(begin_delete(h, "held", NULL, &d), 0, "DELETE with metadata.finalizers left");
    tap_ok(!d.deleted && d.r.mod == mod, "keeps the object unchanged");
    result_clear(&d.r);
    result_clear(&r);
}

int
main(void)
{
    etcd_client_t *client = harness_client();
    harness_t a, b;

    snprintf(prefix, sizeof(prefix), "/kgate-test/namespace/%d", (int)getpid());
    harness_open(&a, client, prefix);
    harness_open(&b, client, prefix);
    test_initial(&a, &b);
    test_admission(&a);
    test_first_delete(&a);
    test_preconditions(&a);
    test_dry_run_and_gc(&a);
    test_final_delete(&a);
    harness_close(&a);
    harness_close(&b);
    etcd_client_free(client);
    return tap_done();
}
