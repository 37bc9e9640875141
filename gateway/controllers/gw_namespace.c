/*
 * Namespace lifecycle around the generic store: initial namespaces, NamespaceLifecycle
 * admission, as kube-apiserver has them. The namespace strategy and DELETE are the registry's
 * (gateway/registry/gw_strategy_namespace.h).
 */
#include "gw_namespace.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_http.h"
#include "gw_log.h"

const char *const gw_namespace_initial[] = {"default", "kube-system", "kube-public",
                                            "kube-node-lease", NULL};

/* kube's immortal namespaces (NamespaceLifecycle's default set): kube-node-lease is not one. */
static const char *const immortal[] = {"default", "kube-system", "kube-public", NULL};

static bool
listed(const char *const *names, const char *name)
{
    for (; *names != NULL; names++) {
        if (strcmp(*names, name) == 0)
            return true;
    }
    return false;
}

/* ---- initial namespaces ----------------------------------------------------------------- */

typedef struct {
    int pending;
    int err; /* the first failure */
    gw_namespace_cb cb;
    void *ctx;
} ensure_t;

/* A namespace as kube-apiserver creates its own at start. */
static char *
initial_object(const char *name)
{
    char uid[GW_UUID_LEN + 1], now[32];
    json_t *o;
    char *text;

    gw_uuid_v4(uid);
    gw_ctl__now(now);
    o = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:{s:s}}, s:{s:[s]}, s:{s:s}}", "apiVersion", "v1",
                  "kind", "Namespace", "metadata", "name", name, "uid", uid, "creationTimestamp",
                  now, "labels", GW_NAMESPACE_NAME_LABEL, name, "spec", "finalizers",
                  GW_NAMESPACE_FINALIZER, "status", "phase", "Active");
    text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (text == NULL)
        abort(); /* only out of memory */
    return text;
}

static void
ensure_one_done(int err, const gw_obj_t *obj, void *arg)
{
    ensure_t *e = arg;

    if (err == 0)
        gw_log_info(NULL, "created the initial namespace %s", obj->key + strlen("namespaces/"));
    if (err != 0 && err != GW_EEXIST && e->err == 0)
        e->err = err;
    if (--e->pending > 0)
        return;
    e->cb(e->err, e->ctx);
    free(e);
}

int
gw_namespace_ensure_initial(gw_store_t *s, gw_namespace_cb cb, void *ctx)
{
    ensure_t *e = gw_calloc(1, sizeof(*e));

    e->cb = cb;
    e->ctx = ctx;
    e->pending = 1; /* held until every create is started */
    for (size_t i = 0; gw_namespace_initial[i] != NULL; i++) {
        char *key = gw_store_object_key(GW_NAMESPACE_RESOURCE, NULL, gw_namespace_initial[i]);
        char *value = initial_object(gw_namespace_initial[i]);
        int rc =
            gw_store_create(s, key, (const uint8_t *)value, strlen(value), 0, ensure_one_done, e);
        if (rc == 0)
            e->pending++;
        else if (e->err == 0)
            e->err = rc;
        free(key);
        free(value);
    }
    if (--e->pending == 0) { /* nothing was started: no callback can come */
        free(e);
        return GW_EINVAL;
    }
    return 0;
}

/* ---- admission -------------------------------------------------------------------------- */

bool
gw_namespace_admission_applies(const char *group, const char *resource, bool namespaced)
{
    if (!namespaced)
        return false;
    if (group[0] == '\0' && strcmp(resource, GW_NAMESPACE_RESOURCE) == 0)
        return false;
    return !(strcmp(group, "authorization.k8s.io") == 0 &&
             strcmp(resource, "localsubjectaccessreviews") == 0);
}

typedef struct {
    gw_namespace_cb cb;
    void *ctx;
} admit_t;

/* NamespaceLifecycle looks at the phase; the deletionTimestamp is set in the same write. */
static bool
terminating(const json_t *ns)
{
    const char *phase = json_string_value(json_object_get(json_object_get(ns, "status"), "phase"));

    return gw_ctl__deleting(ns) || (phase != NULL && strcmp(phase, "Terminating") == 0);
}

static void
admit_read(int err, const gw_obj_t *obj, void *arg)
{
    admit_t a = *(admit_t *)arg;
    json_t *ns;

    free(arg);
    if (err == 0) {
        ns = gw_ctl__parse(obj);
        if (ns == NULL)
            err = GW_EINTERNAL;
        else if (terminating(ns))
            err = GW_ECONFLICT;
        json_decref(ns);
    }
    a.cb(err, a.ctx);
}

int
gw_namespace_admit_create(gw_store_t *s, const char *ns, gw_namespace_cb cb, void *ctx)
{
    char *key =
        ns != NULL && ns[0] != '\0' ? gw_store_object_key(GW_NAMESPACE_RESOURCE, NULL, ns) : NULL;
    admit_t *a;
    int rc;

    if (key == NULL)
        return GW_EINVAL;
    a = gw_malloc(sizeof(*a));
    a->cb = cb;
    a->ctx = ctx;
    rc = gw_store_get(s, key, 0, admit_read, a);
    if (rc != 0)
        free(a);
    free(key);
    return rc;
}

int
gw_namespace_check_delete(const char *name)
{
    return listed(immortal, name) ? GW_EINVAL : 0;
}
