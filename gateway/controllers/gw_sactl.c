/*
 * The serviceaccount and root-ca-cert-publisher controllers (kube-controller-manager's
 * pkg/controller/serviceaccount and pkg/controller/certificates/rootcacertpublisher) on one
 * event loop: a queue of namespace names, one handled at a time, fed by informers on
 * namespaces (resynced every minute), ServiceAccounts and ConfigMaps.
 */
#include "gw_sactl.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_informer.h"
#include "gw_uuid.h"
#include "gw_log.h"
#include "gw_namespace.h"
#include "gw_store.h"
#include "gw_workqueue.h"

#define RESYNC_MS 60000
#define DEFAULT_SA "default"
#define ROOT_CA_CM "kube-root-ca.crt"
#define DESCRIPTION_KEY "kubernetes.io/description"
/* kube's rootcacertpublisher description annotation */
#define DESCRIPTION                                                                                \
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "      \
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "      \
    "guaranteed across distributions of Kubernetes clusters."

/* What is watched, and the object name whose changes send its namespace to the queue (NULL:
 * every namespace object). */
static const struct {
    const char *prefix, *name;
} WATCHED[] = {
    {GW_NAMESPACE_RESOURCE "/", NULL},
    {"serviceaccounts/", DEFAULT_SA},
    {"configmaps/", ROOT_CA_CM},
};
#define N_WATCHED (sizeof(WATCHED) / sizeof(WATCHED[0]))

struct gw_sactl {
    etcd_conn_t *conn;
    gw_store_t *store;
    char *root_ca; /* NULL: no ConfigMaps */
    gw_informer_t *informers[N_WATCHED];
    gw_workqueue_t *queue; /* namespace names */
    char *current;         /* the namespace being handled */
    bool stopping;
};

/* The namespace is handled (err: what failed, left to the next resync); on to the next. */
static void
done(gw_sactl_t *c, int err, const char *what)
{
    if (c->stopping)
        return;
    if (err != 0)
        gw_log_warn(NULL, "serviceaccount controller: %s in namespace %s failed: %s", what,
                    c->current, gw_strerror(err));
    char *ns = c->current;
    c->current = NULL;
    gw_workqueue_done(c->queue, ns);
    free(ns);
}

/* ---- one namespace ------------------------------------------------------------------------- */

/* A new object of kind with metadata for `name` in c->current. */
static json_t *
new_object(gw_sactl_t *c, const char *kind, const char *name)
{
    char now[32], uid[GW_UUID_LEN + 1];

    gw_time_now(now);
    gw_uuid_v4(uid);
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s}}", "kind", kind, "apiVersion", "v1", "metadata",
                     "name", name, "namespace", c->current, "uid", uid, "creationTimestamp", now);
}

static void
cm_written(int err, const gw_obj_t *obj, void *arg)
{
    (void)obj;
    done(arg, err == GW_EEXIST ? 0 : err, "publishing " ROOT_CA_CM);
}

/* kube's publisher: create the ConfigMap, or set its data and description when they differ
 * (GW_EEXIST: nothing to change). */
static void
cm_mutate(gw_store_update_t *u, const gw_obj_t *cur, void *arg)
{
    gw_sactl_t *c = arg;
    json_t *cm = cur != NULL ? gw_ctl__parse(cur) : new_object(c, "ConfigMap", ROOT_CA_CM);
    json_t *data, *notes;
    size_t len;

    if (cm == NULL) {
        gw_store_update_abort(u, GW_EINTERNAL);
        return;
    }
    data = json_pack("{s:s}", "ca.crt", c->root_ca);
    notes = gw_json_child(gw_json_child(cm, "metadata"), "annotations");
    if (cur != NULL && json_equal(json_object_get(cm, "data"), data) &&
        json_string_length(json_object_get(notes, DESCRIPTION_KEY)) > 0) {
        json_decref(data);
        json_decref(cm);
        gw_store_update_abort(u, GW_EEXIST);
        return;
    }
    json_object_set_new(notes, DESCRIPTION_KEY, json_string(DESCRIPTION));
    json_object_set_new(cm, "data", data);
    uint8_t *value = gw_ctl__dump(cm, &len); /* before len is read */
    gw_store_update_commit(u, value, len);
    json_decref(cm);
}

static void
publish_ca(gw_sactl_t *c)
{
    char *key = gw_store_object_key("configmaps", c->current, ROOT_CA_CM);
    int rc = key != NULL ? gw_store_guaranteed_update(c->store, key, 0, cm_mutate, cm_written, c)
                         : GW_EINVAL;

    free(key);
    if (rc != 0)
        done(c, rc, "publishing " ROOT_CA_CM);
}

static void
sa_created(int err, const gw_obj_t *obj, void *arg)
{
    gw_sactl_t *c = arg;

    (void)obj;
    if (c->stopping)
        return;
    if (err != 0 && err != GW_EEXIST) {
        done(c, err, "creating the default service account");
        return;
    }
    if (c->root_ca != NULL)
        publish_ca(c);
    else
        done(c, 0, NULL);
}

static void
ensure_sa(gw_sactl_t *c)
{
    json_t *sa = new_object(c, "ServiceAccount", DEFAULT_SA);
    char *key = gw_store_object_key("serviceaccounts", c->current, DEFAULT_SA);
    size_t len;
    uint8_t *value = gw_ctl__dump(sa, &len);
    int rc = key != NULL ? gw_store_create(c->store, key, value, len, 0, sa_created, c) : GW_EINVAL;

    json_decref(sa);
    free(value);
    free(key);
    if (rc != 0)
        done(c, rc, "creating the default service account");
}

/* Only a namespace that exists and is not being deleted gets anything (as kube's controllers
 * skip terminating namespaces). */
static void
got_namespace(int err, const gw_obj_t *obj, void *arg)
{
    gw_sactl_t *c = arg;
    json_t *ns;
    const char *phase;

    if (c->stopping)
        return;
    if (err != 0) {
        done(c, err == GW_ENOTFOUND ? 0 : err, "reading the namespace");
        return;
    }
    ns = gw_ctl__parse(obj);
    phase = json_string_value(json_object_get(json_object_get(ns, "status"), "phase"));
    if (ns == NULL || gw_objmeta_deleting(ns) ||
        (phase != NULL && strcmp(phase, "Terminating") == 0))
        done(c, 0, NULL);
    else
        ensure_sa(c);
    json_decref(ns);
}

static void
process(gw_workqueue_t *q, const char *ns, void *ctx)
{
    gw_sactl_t *c = ctx;
    (void)q;

    c->current = gw_strdup(ns);
    char *key = gw_store_object_key(GW_NAMESPACE_RESOURCE, NULL, c->current);
    int rc = key != NULL ? gw_store_get(c->store, key, 0, got_namespace, c) : GW_EINVAL;
    free(key);
    if (rc != 0)
        done(c, rc == GW_EINVAL ? 0 : rc, "reading the namespace");
}

/* ---- informers ----------------------------------------------------------------------------- */

/* The namespace of an event on WATCHED[i] that concerns the controllers, queued: any
 * namespace seen (and every one on resync), the named object's changes and deletions. */
static void
consider(gw_sactl_t *c, size_t i, const gw_informer_event_t *ev)
{
    const char *rel = ev->key + strlen(WATCHED[i].prefix);
    const char *slash = strchr(rel, '/');

    if (WATCHED[i].name == NULL) {
        if (ev->type == GW_INFORMER_ADDED || ev->type == GW_INFORMER_UPDATED)
            gw_workqueue_add(c->queue, rel);
        return;
    }
    if (slash != NULL && strcmp(slash + 1, WATCHED[i].name) == 0 &&
        (ev->type == GW_INFORMER_DELETED || ev->type == GW_INFORMER_UPDATED)) {
        char *ns = gw_strndup(rel, (size_t)(slash - rel));
        gw_workqueue_add(c->queue, ns);
        free(ns);
    }
}

static void
on_event(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_sactl_t *c = ctx;

    for (size_t i = 0; i < N_WATCHED; i++) {
        if (c->informers[i] == inf && ev->key != NULL)
            consider(c, i, ev);
    }
}

/* ---- start and stop ------------------------------------------------------------------------ */

gw_sactl_t *
gw_sactl_start(etcd_client_t *client, struct event_base *base, const gw_sactl_opts_t *opts)
{
    gw_sactl_t *c = gw_calloc(1, sizeof(*c));
    int64_t resync_ms = opts->resync_ms > 0 ? opts->resync_ms : RESYNC_MS;

    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, opts->etcd_prefix, opts->values);
    c->root_ca = opts->root_ca_pem != NULL && opts->root_ca_pem[0] != '\0'
                     ? gw_strdup(opts->root_ca_pem)
                     : NULL;
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = process, .ctx = c});
    for (size_t i = 0; i < N_WATCHED; i++) {
        if (i == 2 && c->root_ca == NULL)
            continue; /* no ConfigMaps to publish */
        c->informers[i] = gw_informer_start(
            client, base,
            &(gw_informer_opts_t){.name = "serviceaccount controller",
                                  .etcd_prefix = opts->etcd_prefix,
                                  .values = opts->values,
                                  .prefix = WATCHED[i].prefix,
                                  .cache = GW_INFORMER_KEYS,
                                  .resync_ms = WATCHED[i].name == NULL ? resync_ms : 0,
                                  .handler = on_event,
                                  .ctx = c});
    }
    return c;
}

void
gw_sactl_stop(gw_sactl_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    gw_workqueue_shutdown(c->queue);
    for (size_t i = 0; i < N_WATCHED; i++)
        gw_informer_stop(c->informers[i]);
    etcd_conn_free(c->conn); /* every callback fires now, and sees `stopping` */
    gw_store_free(c->store);
    free(c->current);
    gw_workqueue_free(c->queue);
    free(c->root_ca);
    free(c);
}
