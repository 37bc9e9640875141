/*
 * The bootstrap controller and the lease endpoint reconciler (gw_kubesvc.h). One pass is a
 * chain of asynchronous steps over one store: the Service, this instance's record, the list of
 * live records, the Endpoints, the EndpointSlice made from them. The pre-shutdown removal runs
 * the same chain from its own store on a private event_base.
 */
#include "gw_kubesvc.h"

#include <arpa/inet.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_json.h"
#include "gw_log.h"
#include "gw_uuid.h"

#define NAME "kubernetes"
#define NAMESPACE "default"
#define SERVICE_KEY "services/specs/" NAMESPACE "/" NAME
#define ENDPOINTS_KEY "services/endpoints/" NAMESPACE "/" NAME
#define SLICE_KEY "endpointslices/" NAMESPACE "/" NAME
#define LEASES_DIR "/masterleases/"
#define SKIP_MIRROR "endpointslice.kubernetes.io/skip-mirror"
#define SERVICE_NAME_LABEL "kubernetes.io/service-name"
#define READY_POLL_MS 100 /* kube polls its /readyz this often before the first pass */
#define MAX_ATTEMPTS 5
#define UNCHANGED GW_EEXIST /* a mutate that finds nothing to change gives up with this */

struct gw_kubesvc {
    char *prefix; /* --etcd-prefix without a trailing '/' */
    const gw_value_transformer_t *values;
    etcd_client_t *client;
    char *service_ip, *public_ip;
    int port;
    bool leases; /* --endpoint-reconciler-type=lease; else none: the Service only */
    bool (*ready)(void *arg);
    void *ready_arg;
    /* the loop's, on its thread */
    etcd_conn_t *conn;
    gw_store_t *store;
    struct event *timer;
    bool started; /* the instance was ready once: passes run */
    bool first;   /* the next pass is the first: ports and type are put back */
    /* shared with gw_kubesvc_pre_shutdown's thread */
    _Atomic bool stopping; /* no pass starts any more */
    _Atomic bool busy;     /* a pass (or the start-up removal) is in flight */
};

typedef struct sync sync_t;
typedef void (*sync_done_fn)(sync_t *s, int err);

/* One pass, on one store. */
struct sync {
    const gw_kubesvc_t *k;
    etcd_conn_t *conn;
    gw_store_t *store;
    bool first;        /* reconcile the Service's and the Endpoints' ports */
    bool stale_only;   /* a removal that ends when there was no record to remove */
    json_t *ips;       /* the live records' addresses, sorted */
    json_t *endpoints; /* the Endpoints after their step */
    sync_done_fn done;
    void *arg;
};

bool
gw_kubesvc_first_ip(const char *cidr, char *out, size_t out_len)
{
    unsigned char addr[16];
    char host[INET6_ADDRSTRLEN];
    const char *slash = strchr(cidr, '/');
    char *end;
    long bits;
    int family;
    size_t len, hlen;

    if (slash == NULL || (hlen = (size_t)(slash - cidr)) >= sizeof(host))
        return false;
    memcpy(host, cidr, hlen);
    host[hlen] = '\0';
    family = strchr(host, ':') != NULL ? AF_INET6 : AF_INET;
    len = family == AF_INET ? 4 : 16;
    bits = strtol(slash + 1, &end, 10);
    if (*end != '\0' || slash[1] == '\0' || bits < 0 || bits >= (long)len * 8 ||
        inet_pton(family, host, addr) != 1)
        return false;
    /* the network address (host bits cleared), plus one */
    for (size_t i = 0; i < len; i++) {
        long keep = bits - (long)i * 8;
        if (keep <= 0)
            addr[i] = 0;
        else if (keep < 8)
            addr[i] &= (unsigned char)(0xff << (8 - keep));
    }
    addr[len - 1] |= 1;
    return inet_ntop(family, addr, out, (socklen_t)out_len) != NULL;
}

/* metadata of an object this controller creates */
static json_t *
new_meta(json_t *labels)
{
    char uid[GW_UUID_LEN + 1], now[GW_TIME_LEN + 1];

    gw_uuid_v4(uid);
    gw_time_now(now);
    return json_pack("{s:s,s:s,s:s,s:s,s:o}", "name", NAME, "namespace", NAMESPACE, "uid", uid,
                     "creationTimestamp", now, "labels", labels);
}

/* ---- the Service ------------------------------------------------------------------------ */

static json_t *
service_ports(const gw_kubesvc_t *k)
{
    return json_pack("[{s:s,s:s,s:i,s:i}]", "name", "https", "protocol", "TCP", "port", 443,
                     "targetPort", k->port);
}

/* What kube's controller creates, with what its Service strategy defaults (single-stack, the
 * family of the service CIDR). */
static json_t *
service_object(const gw_kubesvc_t *k)
{
    json_t *labels = json_pack("{s:s,s:s}", "component", "apiserver", "provider", "kubernetes");

    return json_pack("{s:s,s:s,s:o,s:{s:o,s:s,s:[s],s:s,s:s,s:[s],s:s,s:s},s:{s:{}}}", "apiVersion",
                     "v1", "kind", "Service", "metadata", new_meta(labels), "spec", "ports",
                     service_ports(k), "clusterIP", k->service_ip, "clusterIPs", k->service_ip,
                     "type", "ClusterIP", "sessionAffinity", "None", "ipFamilies",
                     strchr(k->service_ip, ':') != NULL ? "IPv6" : "IPv4", "ipFamilyPolicy",
                     "SingleStack", "internalTrafficPolicy", "Cluster", "status", "loadBalancer");
}

/* kube's getMasterServiceUpdateIfNeeded: the ports and the type, put back if changed. */
static bool
service_fix(const gw_kubesvc_t *k, json_t *svc)
{
    json_t *spec = json_object_get(svc, "spec"), *want = service_ports(k);
    bool changed = false;

    if (!json_is_object(spec)) {
        json_decref(want);
        return false;
    }
    if (!json_equal(json_object_get(spec, "ports"), want)) {
        json_object_set(spec, "ports", want);
        changed = true;
    }
    if (!gw_ctl__str_is(json_object_get(spec, "type"), "ClusterIP")) {
        json_object_set_new(spec, "type", json_string("ClusterIP"));
        changed = true;
    }
    json_decref(want);
    return changed;
}

static void
commit_json(gw_store_update_t *u, json_t *o)
{
    size_t len;
    uint8_t *bytes = gw_ctl__dump(o, &len);

    gw_store_update_commit(u, bytes, len);
}

static void
service_mutate(gw_store_update_t *u, const gw_obj_t *current, void *arg)
{
    sync_t *s = arg;
    json_t *svc = current != NULL ? gw_ctl__parse(current) : service_object(s->k);

    if (current == NULL || (svc != NULL && s->first && service_fix(s->k, svc))) {
        if (current != NULL)
            gw_log_warn(NULL, "Resetting master service \"" NAME "\"");
        commit_json(u, svc);
    } else {
        gw_store_update_abort(u, UNCHANGED);
    }
    json_decref(svc);
}

static void step_renew(sync_t *s);

static void
service_done(int err, const gw_obj_t *obj, void *arg)
{
    sync_t *s = arg;
    (void)obj;

    if (err != 0 && err != UNCHANGED) {
        s->done(s, err);
        return;
    }
    if (s->k->leases)
        step_renew(s);
    else
        s->done(s, 0);
}

static void
step_service(sync_t *s)
{
    if (gw_store_guaranteed_update(s->store, SERVICE_KEY, MAX_ATTEMPTS, service_mutate,
                                   service_done, s) != 0)
        s->done(s, GW_EINVAL);
}

/* ---- this instance's record ------------------------------------------------------------- */

static char *
lease_key(const gw_kubesvc_t *k, const char *ip)
{
    return gw_sprintf("%s" LEASES_DIR "%s", k->prefix, ip != NULL ? ip : "");
}

/* full (a lease_key) as the value transformer sees it: the prefix with its '/', the rest. */
static gw_value_key_t
value_key(const gw_kubesvc_t *k, const char *full)
{
    size_t n = strlen(k->prefix) + 1;
    return (gw_value_key_t){.prefix = full, .prefix_len = n, .rel = full + n};
}

static void step_list(sync_t *s);

static void
put_done(int err, const Etcdserverpb__PutResponse *resp, void *arg)
{
    sync_t *s = arg;
    (void)resp;

    if (err != 0)
        s->done(s, err);
    else
        step_list(s);
}

/* kube's UpdateLease: an Endpoints naming the address, under a fresh TTL. */
static void
granted(int err, const Etcdserverpb__LeaseGrantResponse *resp, void *arg)
{
    sync_t *s = arg;
    char *key, *text, why[128];
    json_t *o;
    gw_value_t v = {0};
    int rc;

    if (err != 0) {
        s->done(s, err);
        return;
    }
    o = json_pack("{s:s,s:s,s:{s:n},s:[{s:[{s:s}]}]}", "kind", "Endpoints", "apiVersion", "v1",
                  "metadata", "creationTimestamp", "subsets", "addresses", "ip", s->k->public_ip);
    text = gw_json_dumps(o, JSON_COMPACT);
    json_decref(o);
    key = lease_key(s->k, s->k->public_ip);
    gw_value_key_t vk = value_key(s->k, key);
    rc = s->k->values->to_storage(s->k->values, &vk, (const uint8_t *)text, strlen(text), &v, why,
                                  sizeof(why));
    if (rc != 0) {
        gw_log_warn(NULL, "kubernetes service: cannot store the master lease: %s", why);
        free(key);
        free(text);
        s->done(s, rc);
        return;
    }
    /* v may be a view of text: both live until the put has taken the bytes */
    rc = etcd_put(s->conn, etcd_str(key), (etcd_bytes_t){v.data, v.len}, resp->id, false, put_done,
                  s);
    free(key);
    gw_value_clear(&v);
    free(text);
    if (rc != 0)
        s->done(s, rc);
}

static void
step_renew(sync_t *s)
{
    int rc = etcd_lease_grant(s->conn, GW_KUBESVC_LEASE_TTL_S, 0, granted, s);

    if (rc != 0)
        s->done(s, rc);
}

static void
deleted(int err, const Etcdserverpb__DeleteRangeResponse *resp, void *arg)
{
    sync_t *s = arg;

    if (err != 0) {
        s->done(s, err);
        return;
    }
    if (resp->deleted == 0 && s->stale_only) {
        s->done(s, GW_ENOTFOUND);
        return;
    }
    if (s->stale_only)
        gw_log_warn(NULL, "Found stale data, removed previous endpoints on kubernetes service, "
                          "apiserver didn't exit successfully previously");
    step_list(s);
}

/* kube's RemoveLease */
static void
step_remove(sync_t *s)
{
    char *key = lease_key(s->k, s->k->public_ip);
    int rc = etcd_delete(s->conn, etcd_str(key), (etcd_bytes_t){NULL, 0}, false, deleted, s);

    free(key);
    if (rc != 0)
        s->done(s, rc);
}

/* ---- the live records ------------------------------------------------------------------- */

/* The address a record names (kube's ListLeases: subsets[0].addresses[0].ip), or NULL. */
static json_t *
record_ip(const gw_kubesvc_t *k, const Mvccpb__KeyValue *kv)
{
    gw_value_t v = {0};
    char why[128];
    json_t *o, *ip = NULL;

    char *full = gw_strndup((const char *)kv->key.data, kv->key.len);
    gw_value_key_t vk = value_key(k, full);
    int rc = k->values->from_storage(k->values, &vk, kv->value.data, kv->value.len, &v, why,
                                     sizeof(why));
    free(full);
    if (rc != 0)
        return NULL;
    o = gw_json_loadb((const char *)v.data, v.len, 0, NULL);
    gw_value_clear(&v);
    ip = json_object_get(
        json_array_get(
            json_object_get(json_array_get(json_object_get(o, "subsets"), 0), "addresses"), 0),
        "ip");
    ip = json_string_length(ip) > 0 ? json_incref(ip) : NULL;
    json_decref(o);
    return ip;
}

static int
by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The addresses, sorted (kube lists them lexicographically), without repeats. */
static json_t *
sorted_ips(const gw_kubesvc_t *k, const Etcdserverpb__RangeResponse *resp)
{
    const char **ips = gw_calloc(resp->n_kvs + 1, sizeof(*ips));
    json_t *all = json_array(), *out = json_array();
    size_t n = 0;

    for (size_t i = 0; i < resp->n_kvs; i++) {
        json_t *ip = record_ip(k, resp->kvs[i]);
        if (ip != NULL) {
            json_array_append_new(all, ip);
            ips[n++] = json_string_value(ip);
        }
    }
    qsort(ips, n, sizeof(*ips), by_text);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(ips[i], ips[i - 1]) != 0)
            json_array_append_new(out, json_string(ips[i]));
    }
    json_decref(all);
    free(ips);
    return out;
}

static void step_endpoints(sync_t *s);

static void
listed(int err, const Etcdserverpb__RangeResponse *resp, void *arg)
{
    sync_t *s = arg;

    if (err != 0) {
        s->done(s, err);
        return;
    }
    s->ips = sorted_ips(s->k, resp);
    if (json_array_size(s->ips) == 0) {
        gw_log_warn(NULL, "no API server IP addresses were listed in storage, refusing to erase "
                          "all endpoints for the kubernetes Service");
        s->done(s, GW_ENOTFOUND);
        return;
    }
    step_endpoints(s);
}

static void
step_list(sync_t *s)
{
    char *key = lease_key(s->k, NULL), *end = gw_strdup(key);
    etcd_range_req_t req = {.key = etcd_str(key), .range_end = etcd_str(end)};
    int rc;

    end[strlen(end) - 1]++; /* every key under the directory */
    req.range_end = etcd_str(end);
    rc = etcd_range(s->conn, &req, listed, s);
    free(key);
    free(end);
    if (rc != 0)
        s->done(s, rc);
}

/* ---- the Endpoints ---------------------------------------------------------------------- */

static json_t *
endpoint_ports(const gw_kubesvc_t *k)
{
    return json_pack("[{s:s,s:i,s:s}]", "name", "https", "port", k->port, "protocol", "TCP");
}

/* The subset's addresses name exactly the live records (kube's ipCorrect). */
static bool
same_addresses(const json_t *subset, const json_t *ips)
{
    const json_t *addrs = json_object_get(subset, "addresses");
    size_t i;
    json_t *a;

    if (json_array_size(addrs) != json_array_size(ips))
        return false;
    json_array_foreach(addrs, i, a)
    {
        if (!json_equal(json_object_get(a, "ip"), json_array_get(ips, i)))
            return false;
    }
    return true;
}

static json_t *
addresses(const json_t *ips)
{
    json_t *out = json_array();
    size_t i;
    json_t *ip;

    json_array_foreach(ips, i, ip)
    {
        json_array_append_new(out, json_pack("{s:O}", "ip", ip));
    }
    return out;
}

/* kube's doReconcile on the Endpoints: the skip-mirror label, one subset, the addresses of
 * the live records, the ports when missing (or on the first pass, when changed). Returns
 * whether anything changed. */
static bool
endpoints_fix(const sync_t *s, json_t *ep)
{
    json_t *meta = json_object_get(ep, "metadata"), *labels, *subsets, *subset;
    json_t *want_ports = endpoint_ports(s->k);
    bool changed = false;

    labels = json_object_get(meta, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(meta, "labels", labels);
    }
    if (!gw_ctl__str_is(json_object_get(labels, SKIP_MIRROR), "true")) {
        json_object_set_new(labels, SKIP_MIRROR, json_string("true"));
        changed = true;
    }
    subsets = json_object_get(ep, "subsets");
    if (json_array_size(subsets) != 1) {
        json_object_set_new(ep, "subsets",
                            json_pack("[{s:[],s:O}]", "addresses", "ports", want_ports));
        subsets = json_object_get(ep, "subsets");
        changed = true;
    }
    subset = json_array_get(subsets, 0);
    if (!same_addresses(subset, s->ips)) {
        json_object_set_new(subset, "addresses", addresses(s->ips));
        changed = true;
    }
    if (json_array_size(json_object_get(subset, "ports")) == 0 ||
        (s->first && !json_equal(json_object_get(subset, "ports"), want_ports))) {
        json_object_set(subset, "ports", want_ports);
        changed = true;
    }
    json_decref(want_ports);
    return changed;
}

static void
endpoints_mutate(gw_store_update_t *u, const gw_obj_t *current, void *arg)
{
    sync_t *s = arg;
    json_t *ep = current != NULL ? gw_ctl__parse(current) : NULL;
    bool changed = current == NULL;

    if (current != NULL && ep == NULL) {
        gw_store_update_abort(u, GW_EINVAL);
        return;
    }
    if (ep == NULL)
        ep = json_pack("{s:s,s:s,s:o}", "kind", "Endpoints", "apiVersion", "v1", "metadata",
                       new_meta(json_object()));
    changed = endpoints_fix(s, ep) || changed;
    json_decref(s->endpoints);
    s->endpoints = ep;
    if (changed) {
        char *ips = gw_json_dumps(s->ips, JSON_COMPACT);
        gw_log_warn(NULL, "Resetting endpoints for master service \"" NAME "\" to %s", ips);
        free(ips);
        commit_json(u, ep);
    } else {
        gw_store_update_abort(u, UNCHANGED);
    }
}

static void step_slice(sync_t *s);

static void
endpoints_done(int err, const gw_obj_t *obj, void *arg)
{
    sync_t *s = arg;
    (void)obj;

    if (err != 0 && err != UNCHANGED)
        s->done(s, err);
    else
        step_slice(s);
}

static void
step_endpoints(sync_t *s)
{
    if (gw_store_guaranteed_update(s->store, ENDPOINTS_KEY, MAX_ATTEMPTS, endpoints_mutate,
                                   endpoints_done, s) != 0)
        s->done(s, GW_EINVAL);
}

/* ---- the EndpointSlice ------------------------------------------------------------------ */

/* kube's allAddressesIPv6: some addresses, none of them IPv4. */
static bool
all_ipv6(const json_t *subset)
{
    const json_t *addrs = json_object_get(subset, "addresses");
    size_t i;
    json_t *a;

    json_array_foreach(addrs, i, a)
    {
        const char *ip = json_string_value(json_object_get(a, "ip"));
        if (ip == NULL || strchr(ip, ':') == NULL)
            return false;
    }
    return json_array_size(addrs) > 0;
}

/* kube's endpointSliceFromEndpoints: one endpoint per address, ready, the ports converted. */
static void
slice_fill(json_t *slice, const json_t *ep)
{
    const json_t *subset = json_array_get(json_object_get(ep, "subsets"), 0);
    json_t *endpoints = json_array(), *ports = json_array(), *a, *p;
    size_t i;

    json_array_foreach(json_object_get(subset, "addresses"), i, a)
    {
        json_array_append_new(endpoints,
                              json_pack("{s:[O],s:{s:b}}", "addresses", json_object_get(a, "ip"),
                                        "conditions", "ready", 1));
    }
    json_array_foreach(json_object_get(subset, "ports"), i, p)
    {
        json_array_append_new(ports, json_pack("{s:O,s:O,s:O}", "name", json_object_get(p, "name"),
                                               "protocol", json_object_get(p, "protocol"), "port",
                                               json_object_get(p, "port")));
    }
    json_object_set_new(slice, "addressType", json_string(all_ipv6(subset) ? "IPv6" : "IPv4"));
    json_object_set_new(slice, "endpoints", endpoints);
    json_object_set_new(slice, "ports", ports);
}

/* kube's EnsureEndpointSliceFromEndpoints: written when its endpoints, ports or labels differ;
 * the EndpointSlice strategy moves the generation with them. */
static void
slice_mutate(gw_store_update_t *u, const gw_obj_t *current, void *arg)
{
    sync_t *s = arg;
    json_t *labels = json_pack("{s:s}", SERVICE_NAME_LABEL, NAME);
    json_t *want = json_pack("{s:s,s:s,s:o}", "kind", "EndpointSlice", "apiVersion",
                             "discovery.k8s.io/v1", "metadata", new_meta(labels));
    json_t *old = current != NULL ? gw_ctl__parse(current) : NULL;
    json_t *meta;
    json_int_t gen;

    slice_fill(want, s->endpoints);
    meta = json_object_get(old, "metadata");
    if (old != NULL &&
        json_equal(json_object_get(old, "endpoints"), json_object_get(want, "endpoints")) &&
        json_equal(json_object_get(old, "ports"), json_object_get(want, "ports")) &&
        json_equal(json_object_get(old, "addressType"), json_object_get(want, "addressType")) &&
        json_equal(json_object_get(meta, "labels"), labels)) {
        gw_store_update_abort(u, UNCHANGED);
    } else {
        if (json_is_object(meta)) { /* an update keeps the object's identity */
            json_object_set(meta, "labels", labels);
            json_object_set(want, "metadata", meta);
        }
        gen = json_integer_value(json_object_get(meta, "generation"));
        json_object_set_new(json_object_get(want, "metadata"), "generation", json_integer(gen + 1));
        commit_json(u, want);
    }
    json_decref(old);
    json_decref(want);
}

static void
slice_done(int err, const gw_obj_t *obj, void *arg)
{
    sync_t *s = arg;
    (void)obj;

    s->done(s, err == UNCHANGED ? 0 : err);
}

static void
step_slice(sync_t *s)
{
    if (gw_store_guaranteed_update(s->store, SLICE_KEY, MAX_ATTEMPTS, slice_mutate, slice_done,
                                   s) != 0)
        s->done(s, GW_EINVAL);
}

/* ---- passes ----------------------------------------------------------------------------- */

static sync_t *
sync_new(const gw_kubesvc_t *k, etcd_conn_t *conn, gw_store_t *store, sync_done_fn done, void *arg)
{
    sync_t *s = gw_calloc(1, sizeof(*s));

    *s = (sync_t){.k = k, .conn = conn, .store = store, .done = done, .arg = arg};
    return s;
}

static void
sync_free(sync_t *s)
{
    json_decref(s->ips);
    json_decref(s->endpoints);
    free(s);
}

static void
add_timer(gw_kubesvc_t *k, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(k->timer, &tv);
}

static void
pass_done(sync_t *s, int err)
{
    gw_kubesvc_t *k = s->arg;

    if (err != 0 && err != GW_ENOTFOUND && err != GW_ECANCELED)
        gw_log_warn(NULL, "unable to sync kubernetes service: %s", gw_strerror(err));
    if (err == 0)
        k->first = false;
    sync_free(s);
    atomic_store(&k->busy, false);
}

/* A pass every interval once the instance was ready the first time; none while the last one
 * is still running, or once the pre-shutdown hook stopped them. */
static void
tick(evutil_socket_t fd, short what, void *arg)
{
    gw_kubesvc_t *k = arg;
    sync_t *s;
    (void)fd, (void)what;

    if (atomic_load(&k->stopping))
        return;
    if (!k->started && !k->ready(k->ready_arg)) {
        add_timer(k, READY_POLL_MS);
        return;
    }
    if (atomic_load(&k->busy)) {
        add_timer(k, k->started ? GW_KUBESVC_INTERVAL_MS : READY_POLL_MS);
        return;
    }
    k->started = true;
    add_timer(k, GW_KUBESVC_INTERVAL_MS); /* kube's NonSlidingUntil: from the pass's start */
    atomic_store(&k->busy, true);
    if (atomic_load(&k->stopping)) { /* the pre-shutdown hook came in between */
        atomic_store(&k->busy, false);
        return;
    }
    s = sync_new(k, k->conn, k->store, pass_done, k);
    s->first = k->first;
    step_service(s);
}

static void
stale_done(sync_t *s, int err)
{
    gw_kubesvc_t *k = s->arg;

    if (err != 0 && err != GW_ENOTFOUND && err != GW_ECANCELED)
        gw_log_warn(NULL, "Error removing old endpoints from kubernetes service: %s",
                    gw_strerror(err));
    sync_free(s);
    atomic_store(&k->busy, false);
}

gw_kubesvc_t *
gw_kubesvc_start(etcd_client_t *client, struct event_base *base, const gw_kubesvc_opts_t *o)
{
    gw_kubesvc_t *k = gw_calloc(1, sizeof(*k));
    size_t len = strlen(o->etcd_prefix);
    sync_t *s;

    while (len > 0 && o->etcd_prefix[len - 1] == '/')
        len--;
    k->prefix = gw_strndup(o->etcd_prefix, len);
    k->client = client;
    k->values = o->values;
    k->service_ip = gw_strdup(o->service_ip);
    k->public_ip = gw_strdup(o->public_ip);
    k->port = o->public_port;
    k->leases = !o->no_endpoints;
    k->ready = o->ready;
    k->ready_arg = o->ready_arg;
    k->conn = etcd_conn_new(client, base);
    k->store = gw_store_new(k->conn, k->prefix, k->values);
    k->first = true;
    atomic_init(&k->stopping, false);
    atomic_init(&k->busy, k->leases);
    k->timer = evtimer_new(base, tick, k);
    if (k->timer == NULL)
        abort();
    if (k->leases) { /* kube's Start: a record left by a run that did not exit cleanly first */
        s = sync_new(k, k->conn, k->store, stale_done, k);
        s->stale_only = true;
        step_remove(s);
    }
    add_timer(k, 0);
    return k;
}

typedef struct {
    bool finished;
    int err;
} removal_t;

static void
removal_done(sync_t *s, int err)
{
    removal_t *r = s->arg;

    r->finished = true;
    r->err = err;
    sync_free(s);
}

static void
removal_deadline(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    ((removal_t *)arg)->finished = true;
}

/* Wait (bounded) for the pass in flight on k's loop: it could write the record again. */
static void
wait_idle(gw_kubesvc_t *k, int64_t until_ms)
{
    while (atomic_load(&k->busy) && gw_monotonic_ms() < until_ms)
        usleep(10000);
}

void
gw_kubesvc_pre_shutdown(gw_kubesvc_t *k)
{
    int64_t until = gw_monotonic_ms() + 2 * GW_KUBESVC_INTERVAL_MS;
    removal_t r = {0};
    struct event_base *base;
    struct event *deadline;
    etcd_conn_t *conn;
    gw_store_t *store;
    struct timeval tv;

    if (k == NULL || !k->leases)
        return;
    gw_log_info(NULL, "Shutting down kubernetes service endpoint reconciler");
    atomic_store(&k->stopping, true);
    wait_idle(k, until);
    base = event_base_new();
    if (base == NULL)
        abort();
    conn = etcd_conn_new(k->client, base);
    store = gw_store_new(conn, k->prefix, k->values);
    deadline = evtimer_new(base, removal_deadline, &r);
    tv = (struct timeval){(until - gw_monotonic_ms()) / 1000, 0};
    evtimer_add(deadline, &tv);
    step_remove(sync_new(k, conn, store, removal_done, &r));
    while (!r.finished)
        event_base_loop(base, EVLOOP_ONCE);
    if (r.err != 0)
        gw_log_warn(NULL, "Unable to remove endpoints from kubernetes service: %s",
                    gw_strerror(r.err));
    etcd_conn_free(conn); /* a removal still running is canceled: its callback fires here */
    gw_store_free(store);
    event_free(deadline);
    event_base_free(base);
}

void
gw_kubesvc_stop(gw_kubesvc_t *k)
{
    if (k == NULL)
        return;
    atomic_store(&k->stopping, true);
    event_free(k->timer);
    etcd_conn_free(k->conn); /* every callback in flight fires now, canceled */
    gw_store_free(k->store);
    free(k->prefix);
    free(k->service_ip);
    free(k->public_ip);
    free(k);
}
