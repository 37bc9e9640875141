/*
 * The serviceaccount and root-ca-cert-publisher controllers (kube-controller-manager's
 * pkg/controller/serviceaccount and pkg/controller/certificates/rootcacertpublisher) on one
 * event loop: a queue of namespace names, one handled at a time, fed by watches and a
 * periodic full list.
 */
#include "gw_sactl.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_uuid.h"
#include "gw_log.h"
#include "gw_namespace.h"
#include "gw_store.h"

#define RESYNC_MS 60000
#define LIST_PAGE 500
#define DEFAULT_SA "default"
#define ROOT_CA_CM "kube-root-ca.crt"
#define DESCRIPTION_KEY "kubernetes.io/description"
/* kube's rootcacertpublisher description annotation */
#define DESCRIPTION                                                                                \
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "      \
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "      \
    "guaranteed across distributions of Kubernetes clusters."

typedef struct item {
    char *ns;
    struct item *next;
} item_t;

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
    int64_t resync_ms;
    gw_store_watch_t *watch[N_WATCHED];
    struct watch_ctx {
        gw_sactl_t *c;
        size_t i;
    } watch_ctx[N_WATCHED];
    struct event *wake, *resync;
    item_t *head, *tail;
    char *current; /* the namespace being handled */
    bool stopping;
};

static void list_page(gw_sactl_t *c, const char *start, int64_t rev);

static void
add_timer(struct event *ev, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(ev, &tv);
}

/* ---- the queue ----------------------------------------------------------------------------- */

static void
enqueue(gw_sactl_t *c, const char *ns, size_t len)
{
    for (item_t *it = c->head; it != NULL; it = it->next) {
        if (strlen(it->ns) == len && strncmp(it->ns, ns, len) == 0)
            return;
    }
    item_t *it = gw_calloc(1, sizeof(*it));
    it->ns = gw_strndup(ns, len);
    if (c->tail != NULL)
        c->tail->next = it;
    else
        c->head = it;
    c->tail = it;
    if (c->current == NULL)
        event_active(c->wake, 0, 0);
}

/* The namespace is handled (err: what failed, left to the next resync); on to the next. */
static void
done(gw_sactl_t *c, int err, const char *what)
{
    if (c->stopping)
        return;
    if (err != 0)
        gw_log_warn(NULL, "serviceaccount controller: %s in namespace %s failed: %s", what,
                    c->current, gw_strerror(err));
    free(c->current);
    c->current = NULL;
    if (c->head != NULL)
        event_active(c->wake, 0, 0);
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
    notes = gw_ctl__child(gw_ctl__child(cm, "metadata"), "annotations");
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
    if (ns == NULL || gw_ctl__deleting(ns) || (phase != NULL && strcmp(phase, "Terminating") == 0))
        done(c, 0, NULL);
    else
        ensure_sa(c);
    json_decref(ns);
}

static void
on_wake(evutil_socket_t fd, short what, void *arg)
{
    gw_sactl_t *c = arg;
    item_t *it = c->head;

    (void)fd, (void)what;
    if (c->current != NULL || it == NULL)
        return;
    c->head = it->next;
    if (c->head == NULL)
        c->tail = NULL;
    c->current = it->ns;
    free(it);
    char *key = gw_store_object_key(GW_NAMESPACE_RESOURCE, NULL, c->current);
    int rc = key != NULL ? gw_store_get(c->store, key, 0, got_namespace, c) : GW_EINVAL;
    free(key);
    if (rc != 0)
        done(c, rc == GW_EINVAL ? 0 : rc, "reading the namespace");
}

/* ---- watches and lists --------------------------------------------------------------------- */

/* The namespace of an event on WATCHED[i] that concerns the controllers, queued. */
static void
consider(gw_sactl_t *c, size_t i, const gw_watch_event_t *ev)
{
    const char *rel = ev->obj->key + strlen(WATCHED[i].prefix);
    const char *slash = strchr(rel, '/');

    if (WATCHED[i].name == NULL) {
        if (ev->type != GW_WATCH_DELETED)
            enqueue(c, rel, strlen(rel));
        return;
    }
    if (slash != NULL && strcmp(slash + 1, WATCHED[i].name) == 0 &&
        (ev->type == GW_WATCH_DELETED || ev->type == GW_WATCH_MODIFIED))
        enqueue(c, rel, (size_t)(slash - rel));
}

static void
watched(int err, const gw_watch_event_t *ev, void *arg)
{
    struct watch_ctx *w = arg;
    gw_sactl_t *c = w->c;

    if (err == 0) {
        if (ev->obj != NULL)
            consider(c, w->i, ev);
        return;
    }
    c->watch[w->i] = NULL;
    if (c->stopping)
        return;
    gw_log_info(NULL, "serviceaccount controller: %s watch ended (%s); watching again",
                WATCHED[w->i].prefix, gw_strerror(err));
    event_del(c->resync);
    add_timer(c->resync, 1000); /* a fresh list and watch, as an informer restarts */
}

static void
start_watches(gw_sactl_t *c)
{
    for (size_t i = 0; i < N_WATCHED; i++) {
        if (c->watch[i] != NULL || (i == 2 && c->root_ca == NULL))
            continue;
        /* previous values: a deletion then names its key */
        gw_watch_req_t req = {.key = WATCHED[i].prefix, .is_prefix = true, .prev_values = true};
        c->watch_ctx[i] = (struct watch_ctx){.c = c, .i = i};
        c->watch[i] = gw_store_watch(c->store, &req, watched, &c->watch_ctx[i]);
        if (c->watch[i] == NULL)
            abort(); /* well-formed by construction */
    }
}

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_sactl_t *c = arg;
    size_t skip = strlen(GW_NAMESPACE_RESOURCE "/");

    if (c->stopping)
        return;
    if (err != 0) {
        gw_log_warn(NULL, "serviceaccount controller: listing namespaces failed: %s",
                    gw_strerror(err));
        return; /* the resync timer is armed: the next round lists again */
    }
    for (size_t i = 0; i < page->n_items; i++)
        enqueue(c, page->items[i].key + skip, strlen(page->items[i].key + skip));
    if (page->more)
        list_page(c, page->next_key, page->revision);
}

static void
list_page(gw_sactl_t *c, const char *start, int64_t rev)
{
    gw_list_req_t req = {.prefix = GW_NAMESPACE_RESOURCE "/",
                         .start_key = start,
                         .revision = rev,
                         .limit = LIST_PAGE};

    if (gw_store_list(c->store, &req, listed, c) != 0)
        abort(); /* well-formed by construction */
}

/* Watches first (anything after this moment is seen), then every namespace from a list. */
static void
on_resync(evutil_socket_t fd, short what, void *arg)
{
    gw_sactl_t *c = arg;

    (void)fd, (void)what;
    start_watches(c);
    list_page(c, NULL, 0);
    add_timer(c->resync, c->resync_ms);
}

/* ---- start and stop ------------------------------------------------------------------------ */

gw_sactl_t *
gw_sactl_start(etcd_client_t *client, struct event_base *base, const gw_sactl_opts_t *opts)
{
    gw_sactl_t *c = gw_calloc(1, sizeof(*c));

    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, opts->etcd_prefix, opts->values);
    c->root_ca = opts->root_ca_pem != NULL && opts->root_ca_pem[0] != '\0'
                     ? gw_strdup(opts->root_ca_pem)
                     : NULL;
    c->resync_ms = opts->resync_ms > 0 ? opts->resync_ms : RESYNC_MS;
    c->wake = event_new(base, -1, 0, on_wake, c);
    c->resync = evtimer_new(base, on_resync, c);
    if (c->wake == NULL || c->resync == NULL)
        abort();
    add_timer(c->resync, 0);
    return c;
}

void
gw_sactl_stop(gw_sactl_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    for (size_t i = 0; i < N_WATCHED; i++) {
        if (c->watch[i] != NULL)
            gw_store_watch_stop(c->watch[i]);
    }
    etcd_conn_free(c->conn); /* every callback fires now, and sees `stopping` */
    gw_store_free(c->store);
    while (c->head != NULL) {
        item_t *it = c->head;
        c->head = it->next;
        free(it->ns);
        free(it);
    }
    free(c->current);
    event_free(c->wake);
    event_free(c->resync);
    free(c->root_ca);
    free(c);
}
