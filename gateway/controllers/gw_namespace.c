/*
 * The initial namespaces, created as kube-apiserver creates its own. NamespaceLifecycle is an
 * admission plugin (gateway/admission/); the namespace strategy and DELETE are the registry's
 * (gateway/registry/gw_strategy_namespace.h).
 */
#include "gw_namespace.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_uuid.h"
#include "gw_log.h"
#include "gw_json.h"

const char *const gw_namespace_initial[] = {"default", "kube-system", "kube-public",
                                            "kube-node-lease", NULL};

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
    gw_time_now(now);
    o = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:{s:s}}, s:{s:[s]}, s:{s:s}}", "apiVersion", "v1",
                  "kind", "Namespace", "metadata", "name", name, "uid", uid, "creationTimestamp",
                  now, "labels", GW_NAMESPACE_NAME_LABEL, name, "spec", "finalizers",
                  GW_NAMESPACE_FINALIZER, "status", "phase", "Active");
    text = gw_json_dumps(o, JSON_COMPACT);
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
