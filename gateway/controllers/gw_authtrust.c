/* The cluster authentication trust controller (gw_authtrust.h): one sync at a time, a
 * guaranteed update of the ConfigMap that combines what is there with this instance's. */
#include "gw_authtrust.h"
#include "gw_authtrust_int.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_file.h"
#include "gw_informer.h"
#include "gw_json.h"
#include "gw_log.h"
#include "gw_uuid.h"

#define NAMESPACE "kube-system"
#define NAME "extension-apiserver-authentication"
#define KEY "configmaps/" NAMESPACE "/" NAME
#define RESYNC_MS 60000
#define SOON_MS 1000
#define MAX_CA_BYTES (4 << 20)
#define MAX_ATTEMPTS 5
#define UNCHANGED GW_EEXIST

enum { ALLOWED, USERNAME, GROUP, EXTRA };

struct gw_authtrust {
    etcd_conn_t *conn; /* ours: freeing it cancels the calls in flight */
    gw_store_t *store;
    gw_informer_t *informer;
    struct event *timer;
    char *client_ca_file, *rh_ca_file;
    json_t *lists[GW_AUTHTRUST_N_LISTS]; /* this instance's, as JSON arrays */
    bool busy, again;                    /* a sync is in flight; another is wanted after it */
    bool stopping;
    void (*synced)(void *arg);
    void *synced_arg;
};

static void
later(gw_authtrust_t *t, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(t->timer, &tv);
}

/* A CA file's PEM text (NULL when unset or unreadable: then only what is there counts). */
static gw_authtrust_pem_t
read_pem(const char *path)
{
    gw_authtrust_pem_t pem = {NULL, 0};

    if (path != NULL)
        pem.text = gw_file_read(path, MAX_CA_BYTES, &pem.len);
    return pem;
}

/* kube's getConfigMapDataFor(combinedClusterAuthenticationInfo(existing, ours)). */
static json_t *
data_for(const gw_authtrust_t *t, const json_t *old)
{
    gw_authtrust_pem_t client = read_pem(t->client_ca_file), rh = read_pem(t->rh_ca_file);
    json_t *data = gw_authtrust__data(old, &client, &rh, t->lists);

    free(client.text);
    free(rh.text);
    return data;
}

static void
mutate(gw_store_update_t *u, const gw_obj_t *current, void *arg)
{
    gw_authtrust_t *t = arg;
    json_t *cm = current != NULL ? gw_ctl__parse(current) : NULL;
    json_t *data;
    char uid[GW_UUID_LEN + 1], now[GW_TIME_LEN + 1];
    size_t len;

    if (current != NULL && cm == NULL) {
        gw_store_update_abort(u, GW_EINVAL);
        return;
    }
    data = data_for(t, json_object_get(cm, "data"));
    if (cm != NULL && json_equal(data, json_object_get(cm, "data"))) {
        json_decref(data);
        json_decref(cm);
        gw_store_update_abort(u, UNCHANGED);
        return;
    }
    if (cm == NULL) {
        gw_uuid_v4(uid);
        cm = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s}}", "kind", "ConfigMap", "apiVersion", "v1",
                       "metadata", "name", NAME, "namespace", NAMESPACE, "uid", uid,
                       "creationTimestamp", gw_time_now(now));
    }
    gw_log_info(NULL, "writing updated authentication info to " NAMESPACE " configmaps/" NAME);
    json_object_set_new(cm, "data", data);
    uint8_t *bytes = gw_ctl__dump(cm, &len);
    json_decref(cm);
    gw_store_update_commit(u, bytes, len);
}

static void sync_now(evutil_socket_t fd, short what, void *arg);

static void
synced(int err, const gw_obj_t *obj, void *arg)
{
    gw_authtrust_t *t = arg;
    (void)obj;

    if (t->stopping)
        return;
    t->busy = false;
    if (err != 0 && err != UNCHANGED) {
        gw_log_warn(NULL, "updating " NAMESPACE "/" NAME ": %s; retrying", gw_strerror(err));
        later(t, SOON_MS);
        return;
    }
    if (t->synced != NULL) {
        t->synced(t->synced_arg);
        t->synced = NULL;
    }
    if (t->again) {
        t->again = false;
        later(t, 0);
    }
}

static void
sync_now(evutil_socket_t fd, short what, void *arg)
{
    gw_authtrust_t *t = arg;
    (void)fd, (void)what;

    if (t->busy) { /* a change while a sync runs makes one more */
        t->again = true;
        return;
    }
    later(t, RESYNC_MS);
    t->busy = gw_store_guaranteed_update(t->store, KEY, MAX_ATTEMPTS, mutate, synced, t) == 0;
}

/* The ConfigMap changed (our own writes too: their sync finds nothing to do) or is gone. */
static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_authtrust_t *t = ctx;
    (void)inf;

    if (ev->key != NULL && strcmp(ev->key, KEY) == 0)
        later(t, SOON_MS);
}

static json_t *
list_json(const gw_authtrust_list_t *l)
{
    json_t *a = json_array();

    for (size_t i = 0; i < l->n; i++)
        json_array_append_new(a, json_string(l->items[i]));
    return a;
}

gw_authtrust_t *
gw_authtrust_start(etcd_client_t *client, struct event_base *base, const gw_authtrust_opts_t *o)
{
    gw_authtrust_t *t = gw_calloc(1, sizeof(*t));

    t->client_ca_file = o->client_ca_file != NULL ? gw_strdup(o->client_ca_file) : NULL;
    t->rh_ca_file =
        o->requestheader_client_ca_file != NULL ? gw_strdup(o->requestheader_client_ca_file) : NULL;
    t->lists[ALLOWED] = list_json(&o->allowed_names);
    t->lists[USERNAME] = list_json(&o->username_headers);
    t->lists[GROUP] = list_json(&o->group_headers);
    t->lists[EXTRA] = list_json(&o->extra_headers_prefix);
    t->synced = o->synced;
    t->synced_arg = o->synced_arg;
    t->conn = etcd_conn_new(client, base);
    t->store = gw_store_new(t->conn, o->etcd_prefix, o->values);
    t->timer = evtimer_new(base, sync_now, t);
    if (t->timer == NULL)
        abort();
    t->informer = gw_informer_start(client, base,
                                    &(gw_informer_opts_t){.name = "cluster authentication trust",
                                                          .etcd_prefix = o->etcd_prefix,
                                                          .values = o->values,
                                                          .prefix = KEY,
                                                          .cache = GW_INFORMER_KEYS,
                                                          .handler = changed,
                                                          .ctx = t});
    later(t, 0);
    return t;
}

void
gw_authtrust_stop(gw_authtrust_t *t)
{
    if (t == NULL)
        return;
    t->stopping = true;
    gw_informer_stop(t->informer);
    etcd_conn_free(t->conn); /* every callback in flight fires now, and sees `stopping` */
    gw_store_free(t->store);
    event_free(t->timer);
    for (int i = 0; i < GW_AUTHTRUST_N_LISTS; i++)
        json_decref(t->lists[i]);
    free(t->client_ca_file);
    free(t->rh_ca_file);
    free(t);
}
