/*
 * NamespaceLifecycle (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle), a mutating
 * plugin: nothing is created in a namespace that does not exist or is being terminated, and
 * the namespaces default, kube-system and kube-public may not be deleted. kube asks its
 * informer and falls back to a live read; kgate reads etcd, which is always live.
 */
#include "gw_admission.h"

#include <stdlib.h>
#include <string.h>

#include "gw_admission_int.h"
#include "gw_err.h"
#include "gw_store.h"
#include "gw_json.h"

/* kube's immortal namespaces (the plugin's default set): kube-node-lease is not one. */
static const char *const immortal[] = {"default", "kube-system", "kube-public"};

static bool
is_namespaces(const gw_resource_t *res)
{
    return res->group[0] == '\0' && strcmp(res->name, "namespaces") == 0;
}

static bool
is_immortal(const char *name)
{
    for (size_t i = 0; i < sizeof(immortal) / sizeof(immortal[0]); i++)
        if (strcmp(immortal[i], name) == 0)
            return true;
    return false;
}

/* Asking about access in a namespace must not tell whether it exists. */
static bool
is_access_review(const gw_resource_t *res)
{
    return strcmp(res->group, "authorization.k8s.io") == 0 &&
           strcmp(res->name, "localsubjectaccessreviews") == 0;
}

static bool
handles(gw_admission_op_t op)
{
    /* kube's plugin also handles updates, which it only checks against a cache; kgate's
     * reads are live, so it checks the writes that put new content into a namespace. */
    return op == GW_ADMISSION_CREATE || op == GW_ADMISSION_DELETE;
}

typedef struct {
    const gw_admission_attrs_t *a;
    gw_admission_done_fn done;
    void *arg;
} read_t;

/* kube looks at the phase; kgate also at the deletionTimestamp, set in the same write. */
static bool
terminating(const json_t *ns)
{
    const json_t *meta = json_object_get(ns, "metadata");
    const json_t *ts = json_object_get(meta, "deletionTimestamp");
    const char *phase = json_string_value(json_object_get(json_object_get(ns, "status"), "phase"));

    return (ts != NULL && !json_is_null(ts)) ||
           (phase != NULL && strcmp(phase, "Terminating") == 0);
}

static gw_admission_err_t *
terminating_error(const gw_admission_attrs_t *a)
{
    gw_admission_err_t *e = gw_admission_forbidden(
        a, "unable to create new content in namespace %s because it is being terminated",
        a->namespace_);
    json_t *cause = json_pack(
        "{s:s,s:s,s:s}", "reason", "NamespaceTerminating", "message",
        gw_arena_sprintf(a->req->arena, "namespace %s is being terminated", a->namespace_), "field",
        "metadata.namespace");

    json_object_set_new(e->details, "causes", json_pack("[o]", cause));
    return e;
}

static gw_admission_err_t *
not_found(const gw_admission_attrs_t *a)
{
    return gw_admission_error(a, 404, "NotFound",
                              json_pack("{s:s,s:s}", "name", a->namespace_, "kind", "namespaces"),
                              "namespaces \"%s\" not found", a->namespace_);
}

static void
namespace_read(int err, const gw_obj_t *obj, void *arg)
{
    read_t *rd = arg;
    gw_admission_err_t *e = NULL;
    json_t *ns;

    if (err == GW_ENOTFOUND) {
        e = not_found(rd->a);
    } else if (err != 0) {
        e = gw_admission_error(rd->a, 0, NULL, NULL, "%s", rd->a->name);
        e->err = err;
    } else {
        ns = gw_json_loadb((const char *)obj->value, obj->value_len, 0, NULL);
        if (!json_is_object(ns))
            e = gw_admission_error(rd->a, 500, "InternalError", NULL,
                                   "the namespace %s cannot "
                                   "be decoded",
                                   rd->a->namespace_);
        else if (terminating(ns))
            e = terminating_error(rd->a);
        json_decref(ns);
    }
    rd->done(e, rd->arg);
}

static void
admit(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    read_t *rd;
    char *key;
    int rc;

    if (a->op == GW_ADMISSION_DELETE) {
        if (is_namespaces(a->resource) && a->subresource[0] == '\0' && is_immortal(a->name))
            done(gw_admission_forbidden(a, "this namespace may not be deleted"), arg);
        else
            done(NULL, arg);
        return;
    }
    if (!a->resource->namespaced || is_access_review(a->resource)) {
        done(NULL, arg);
        return;
    }
    key = a->namespace_[0] ? gw_store_object_key("namespaces", NULL, a->namespace_) : NULL;
    if (key == NULL) {
        done(not_found(a), arg);
        return;
    }
    rd = gw_arena_calloc(a->req->arena, sizeof(*rd));
    *rd = (read_t){.a = a, .done = done, .arg = arg};
    gw_arena_defer(a->req->arena, free, key);
    rc = gw_admission__read_namespace(a->req->store, key, namespace_read, rd);
    if (rc != 0)
        namespace_read(rc, NULL, rd);
}

const gw_admission_plugin_t gw_admission_namespace_lifecycle = {
    .name = "NamespaceLifecycle", .handles = handles, .admit = admit};

int
gw_admission__read_namespace(gw_store_t *s, const char *key, gw_store_get_cb cb, void *ctx)
{
    static const gw_read_opts_t latest = {.collection = "namespaces/"};

    return gw_store_read(s, key, &latest, cb, ctx);
}
