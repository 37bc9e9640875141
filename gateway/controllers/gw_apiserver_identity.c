/* The apiserver identity Lease and its garbage collector (gw_apiserver_identity.h). */
#include "gw_apiserver_identity.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <openssl/sha.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_json.h"
#include "gw_log.h"
#include "gw_uuid.h"

#define NAMESPACE "kube-system"
#define IDENTITY_LABEL "apiserver.kubernetes.io/identity"
#define COMPONENT "kube-apiserver"
#define HOSTNAME_LABEL "kubernetes.io/hostname"
#define RETRY_MS 1000
#define MAX_ATTEMPTS 5
#define NAME_MAX_LEN 64

struct gw_apiserver_identity {
    etcd_conn_t *conn; /* ours: freeing it cancels the calls in flight */
    gw_store_t *store;
    char host[256];
    char name[NAME_MAX_LEN];
    char *holder;
    char *key;
    struct event *renew, *gc;
    void (*renewed)(void *arg);
    void *renewed_arg;
    bool stopping;
};

void
gw_apiserver_identity_name(const char *hostname, char *out, size_t out_len)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    size_t hlen = strlen(hostname), clen = strlen(COMPONENT), n = 0;
    unsigned char *data = gw_calloc(hlen + clen + 4, 1), sum[SHA256_DIGEST_LENGTH];
    char enc[32];
    unsigned int acc = 0, bits = 0;

    /* cryptobyte's AddUint16LengthPrefixed, twice */
    data[0] = (unsigned char)(hlen >> 8), data[1] = (unsigned char)hlen;
    memcpy(data + 2, hostname, hlen);
    data[2 + hlen] = (unsigned char)(clen >> 8), data[3 + hlen] = (unsigned char)clen;
    memcpy(data + 4 + hlen, COMPONENT, clen);
    SHA256(data, hlen + clen + 4, sum);
    free(data);
    for (size_t i = 0; i < 16; i++) { /* base32 without padding: 26 characters */
        acc = (acc << 8) | sum[i];
        bits += 8;
        while (bits >= 5) {
            enc[n++] = alphabet[(acc >> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    if (bits > 0)
        enc[n++] = alphabet[(acc << (5 - bits)) & 31];
    snprintf(out, out_len, "apiserver-%.*s", (int)n, enc);
}

/* metav1.MicroTime: "2006-01-02T15:04:05.000000Z" */
static void
micro_now(char out[64])
{
    struct timespec ts;
    struct tm tm;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000);
}

static void
later(struct event *ev, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(ev, &tv);
}

/* kube's lease controller's newLease plus the identity labels (labelAPIServerHeartbeatFunc). */
static void
renew_mutate(gw_store_update_t *u, const gw_obj_t *current, void *arg)
{
    gw_apiserver_identity_t *a = arg;
    json_t *o = current != NULL ? gw_ctl__parse(current) : NULL, *meta, *labels, *spec;
    char now[64], uid[GW_UUID_LEN + 1], created[GW_TIME_LEN + 1];
    size_t len;

    if (o == NULL) {
        gw_uuid_v4(uid);
        o = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s},s:{}}", "kind", "Lease", "apiVersion",
                      "coordination.k8s.io/v1", "metadata", "name", a->name, "namespace", NAMESPACE,
                      "uid", uid, "creationTimestamp", gw_time_now(created), "spec");
    }
    meta = json_object_get(o, "metadata");
    labels = json_object_get(meta, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(meta, "labels", labels);
    }
    json_object_set_new(labels, IDENTITY_LABEL, json_string(COMPONENT));
    json_object_set_new(labels, HOSTNAME_LABEL, json_string(a->host));
    spec = json_object_get(o, "spec");
    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(o, "spec", spec);
    }
    micro_now(now);
    json_object_set_new(spec, "holderIdentity", json_string(a->holder));
    json_object_set_new(spec, "leaseDurationSeconds", json_integer(GW_IDENTITY_LEASE_DURATION_S));
    json_object_set_new(spec, "renewTime", json_string(now));
    uint8_t *bytes = gw_ctl__dump(o, &len);
    json_decref(o);
    gw_store_update_commit(u, bytes, len);
}

static void
renew_done(int err, const gw_obj_t *obj, void *arg)
{
    gw_apiserver_identity_t *a = arg;
    (void)obj;

    if (a->stopping)
        return;
    if (err != 0) {
        gw_log_warn(NULL, "failed to update lease %s/%s: %s", NAMESPACE, a->name, gw_strerror(err));
        later(a->renew, RETRY_MS);
        return;
    }
    if (a->renewed != NULL) {
        a->renewed(a->renewed_arg);
        a->renewed = NULL;
    }
    later(a->renew, GW_IDENTITY_RENEW_MS);
}

static void
renew(evutil_socket_t fd, short what, void *arg)
{
    gw_apiserver_identity_t *a = arg;
    (void)fd, (void)what;

    if (gw_store_guaranteed_update(a->store, a->key, MAX_ATTEMPTS, renew_mutate, renew_done, a) !=
        0)
        later(a->renew, RETRY_MS);
}

/* kube's isLeaseExpired: no renewTime or duration, or renewTime + duration in the past. */
static bool
expired(const json_t *lease, time_t now)
{
    const json_t *spec = json_object_get(lease, "spec");
    const char *renewed = json_string_value(json_object_get(spec, "renewTime"));
    const json_t *dur = json_object_get(spec, "leaseDurationSeconds");
    long long t;

    if (renewed == NULL || !json_is_integer(dur) || !gw_time_parse(renewed, &t))
        return true;
    return t + json_integer_value(dur) < (long long)now;
}

static void
deleted(int err, const gw_obj_t *obj, void *arg)
{
    (void)arg;
    if (err == 0)
        gw_log_info(NULL, "garbage collected expired identity lease %s", obj->key);
}

static void
gc_listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_apiserver_identity_t *a = arg;
    time_t now = time(NULL);

    if (a->stopping)
        return;
    later(a->gc, err != 0 ? RETRY_MS : GW_IDENTITY_GC_MS);
    for (size_t i = 0; err == 0 && i < page->n_items; i++) {
        json_t *lease = gw_ctl__parse(&page->items[i]);
        const json_t *labels = json_object_get(json_object_get(lease, "metadata"), "labels");
        if (lease != NULL && gw_ctl__str_is(json_object_get(labels, IDENTITY_LABEL), COMPONENT) &&
            expired(lease, now))
            /* under its revision: a lease renewed meanwhile stays (kube reads it again) */
            gw_store_delete(a->store, page->items[i].key, page->items[i].mod_revision, deleted, a);
        json_decref(lease);
    }
}

static void
gc(evutil_socket_t fd, short what, void *arg)
{
    gw_apiserver_identity_t *a = arg;
    gw_list_req_t req = {.prefix = "leases/" NAMESPACE "/"};
    (void)fd, (void)what;

    if (gw_store_list(a->store, &req, gc_listed, a) != 0)
        later(a->gc, RETRY_MS);
}

gw_apiserver_identity_t *
gw_apiserver_identity_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                            const gw_value_transformer_t *values, void (*renewed)(void *arg),
                            void *arg)
{
    gw_apiserver_identity_t *a = gw_calloc(1, sizeof(*a));
    char uid[GW_UUID_LEN + 1];

    gethostname(a->host, sizeof(a->host) - 1);
    gw_apiserver_identity_name(a->host, a->name, sizeof(a->name));
    gw_uuid_v4(uid);
    a->holder = gw_sprintf("%s_%s", a->name, uid);
    a->key = gw_store_object_key("leases", NAMESPACE, a->name);
    a->renewed = renewed;
    a->renewed_arg = arg;
    a->conn = etcd_conn_new(client, base);
    a->store = gw_store_new(a->conn, etcd_prefix, values);
    a->renew = evtimer_new(base, renew, a);
    a->gc = evtimer_new(base, gc, a);
    if (a->renew == NULL || a->gc == NULL)
        abort();
    later(a->renew, 0);
    later(a->gc, 0);
    return a;
}

void
gw_apiserver_identity_stop(gw_apiserver_identity_t *a)
{
    if (a == NULL)
        return;
    a->stopping = true;
    etcd_conn_free(a->conn); /* every callback in flight fires now, and sees `stopping` */
    gw_store_free(a->store);
    event_free(a->renew);
    event_free(a->gc);
    free(a->holder);
    free(a->key);
    free(a);
}
