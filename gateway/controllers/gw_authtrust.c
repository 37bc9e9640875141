/* The cluster authentication trust controller (gw_authtrust.h): one sync at a time, a
 * guaranteed update of the ConfigMap that combines what is there with this instance's. */
#include "gw_authtrust.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

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

/* the request-header lists, in kube's data keys */
enum { ALLOWED, USERNAME, GROUP, EXTRA, N_LISTS };
static const char *const list_keys[N_LISTS] = {
    "requestheader-allowed-names", "requestheader-username-headers", "requestheader-group-headers",
    "requestheader-extra-headers-prefix"};

struct gw_authtrust {
    etcd_conn_t *conn; /* ours: freeing it cancels the calls in flight */
    gw_store_t *store;
    gw_informer_t *informer;
    struct event *timer;
    char *client_ca_file, *rh_ca_file;
    json_t *lists[N_LISTS]; /* this instance's, as JSON arrays */
    bool busy, again;       /* a sync is in flight; another is wanted after it */
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

/* Add the certificates of PEM text to certs: each once (by DER), none expired (kube's
 * combineCertLists and filterExpiredCerts). */
static void
add_certs(STACK_OF(X509) * certs, const char *pem, size_t len)
{
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    X509 *x;

    if (bio == NULL)
        abort();
    while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        bool keep = X509_cmp_current_time(X509_get0_notAfter(x)) > 0;
        for (int i = 0; keep && i < sk_X509_num(certs); i++)
            keep = X509_cmp(sk_X509_value(certs, i), x) != 0;
        if (keep)
            sk_X509_push(certs, x);
        else
            X509_free(x);
    }
    ERR_clear_error(); /* the end of the bundle reads as an error */
    BIO_free(bio);
}

static void
add_file(STACK_OF(X509) * certs, const char *path)
{
    size_t len;
    char *text = path != NULL ? gw_file_read(path, MAX_CA_BYTES, &len) : NULL;

    if (text != NULL)
        add_certs(certs, text, len);
    free(text);
}

/* The bundle as PEM (Go's pem.Encode writes the same 64-column blocks), or NULL when empty. */
static json_t *
encode_certs(STACK_OF(X509) * certs)
{
    BIO *bio = BIO_new(BIO_s_mem());
    char *data;
    long len;
    json_t *out = NULL;

    if (bio == NULL)
        abort();
    for (int i = 0; i < sk_X509_num(certs); i++)
        PEM_write_bio_X509(bio, sk_X509_value(certs, i));
    len = BIO_get_mem_data(bio, &data);
    if (len > 0)
        out = json_stringn(data, (size_t)len);
    BIO_free(bio);
    return out;
}

/* A bundle of the existing data's `key` combined with the file's. */
static json_t *
bundle(const json_t *data, const char *key, const char *path)
{
    STACK_OF(X509) *certs = sk_X509_new_null();
    const json_t *old = json_object_get(data, key);
    json_t *out;

    if (certs == NULL)
        abort();
    if (json_is_string(old))
        add_certs(certs, json_string_value(old), json_string_length(old));
    add_file(certs, path);
    out = encode_certs(certs);
    sk_X509_pop_free(certs, X509_free);
    return out;
}

/* kube's combineUniqueStringSlices over the existing JSON text and ours, written back as
 * JSON text. */
static char *
combined_list(const json_t *data, const char *key, json_t *ours)
{
    const json_t *text_old = json_object_get(data, key);
    json_t *old = json_is_string(text_old) ? gw_json_loadb(json_string_value(text_old),
                                                           json_string_length(text_old), 0, NULL)
                                           : NULL;
    json_t *all = json_array(), *v;
    size_t i, j;
    char *text;

    json_array_extend(all, json_is_array(old) ? old : NULL);
    json_array_extend(all, ours);
    json_t *out = json_array();
    json_array_foreach(all, i, v)
    {
        bool seen = !json_is_string(v);
        for (j = 0; !seen && j < json_array_size(out); j++)
            seen = json_equal(json_array_get(out, j), v);
        if (!seen)
            json_array_append(out, v);
    }
    text = gw_json_dumps(out, JSON_COMPACT);
    json_decref(old);
    json_decref(all);
    json_decref(out);
    return text;
}

/* kube's getConfigMapDataFor(combinedClusterAuthenticationInfo(existing, ours)). */
static json_t *
data_for(const gw_authtrust_t *t, const json_t *old)
{
    json_t *data = json_object(), *client = bundle(old, "client-ca-file", t->client_ca_file);
    json_t *rh = bundle(old, "requestheader-client-ca-file", t->rh_ca_file);

    if (client != NULL)
        json_object_set_new(data, "client-ca-file", client);
    if (rh == NULL)
        return data;
    for (int i = 0; i < N_LISTS; i++) {
        char *text = combined_list(old, list_keys[i], t->lists[i]);
        json_object_set_new(data, list_keys[i], json_string(text));
        free(text);
    }
    json_object_set_new(data, "requestheader-client-ca-file", rh);
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
    for (int i = 0; i < N_LISTS; i++)
        json_decref(t->lists[i]);
    free(t->client_ca_file);
    free(t->rh_ca_file);
    free(t);
}
