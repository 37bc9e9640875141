/*
 * Core (v1) kinds whose defaults are more than a table of fields: kube's SetDefaults_Pod,
 * _ReplicationController, _Service, _PersistentVolume(Claim), _LimitRangeItem, _NodeStatus,
 * and the Service fields kube's service storage fills in before it allocates addresses
 * (pkg/registry/core/service/storage: normalizeClusterIPs, patchAllocatedValues,
 * initIPFamilyFields) on a single-stack IPv4 cluster.
 */
#include "gw_defaults_int.h"

#include <string.h>

#include "gw_defaults.h"

/* ---- pods, replication controllers -------------------------------------------------------- */

void
gw_defaults__pod(json_t *pod)
{
    json_t *spec = gw_defaults__member(pod, "spec");

    gw_defaults__pod_only(spec);
    gw_defaults__pod_spec(spec);
}

void
gw_defaults__replication_controller(json_t *rc)
{
    json_t *spec = gw_defaults__member(rc, "spec");
    const json_t *labels =
        json_object_get(json_object_get(json_object_get(spec, "template"), "metadata"), "labels");

    gw_defaults__copy_if_empty(spec, "selector", labels);
    if (json_object_size(labels) > 0)
        gw_defaults__copy_if_empty(gw_defaults__member(rc, "metadata"), "labels", labels);
    gw_defaults__set_nil(spec, "replicas", json_integer(1));
}

/* ---- services ----------------------------------------------------------------------------- */

static const gw_def_t service_spec[] = {
    GW_ZERO_STR("sessionAffinity", "None"),
    GW_ZERO_STR("type", "ClusterIP"),
    GW_DEF_END,
};

/* None drops any sessionAffinityConfig; ClientIP gets kube's 3 hours unless a timeout is set. */
static void
session_affinity(json_t *spec)
{
    const json_t *config = json_object_get(spec, "sessionAffinityConfig");

    if (gw_defaults__is(spec, "sessionAffinity", "None"))
        json_object_del(spec, "sessionAffinityConfig");
    else if (gw_defaults__is(spec, "sessionAffinity", "ClientIP") &&
             gw_defaults__nil(json_object_get(config, "clientIP"), "timeoutSeconds"))
        json_object_set_new(spec, "sessionAffinityConfig",
                            json_pack("{s:{s:i}}", "clientIP", "timeoutSeconds", 10800));
}

/* Protocol TCP, and the target port is the port when unset (0 or ""). */
static void
service_port(json_t *port, const void *arg)
{
    json_t *number = json_object_get(port, "port");

    (void)arg;
    if (gw_defaults__zero(port, "protocol"))
        json_object_set_new(port, "protocol", json_string("TCP"));
    if (gw_defaults__zero(port, "targetPort") && json_is_integer(number))
        json_object_set_new(port, "targetPort", json_integer(json_integer_value(number)));
}

static void
traffic_policies(json_t *spec, const char *type)
{
    bool cluster_ip = strcmp(type, "ClusterIP") == 0;
    bool exposed = strcmp(type, "NodePort") == 0 || strcmp(type, "LoadBalancer") == 0;

    /* kube's ExternallyAccessible: node ports, load balancers, and external IPs. */
    if ((exposed || (cluster_ip && json_array_size(json_object_get(spec, "externalIPs")) > 0)) &&
        gw_defaults__zero(spec, "externalTrafficPolicy"))
        json_object_set_new(spec, "externalTrafficPolicy", json_string("Cluster"));
    if (exposed || cluster_ip)
        gw_defaults__set_nil(spec, "internalTrafficPolicy", json_string("Cluster"));
}

static void
load_balancer_ingress(json_t *ingress, const void *arg)
{
    (void)arg;
    if (!gw_defaults__zero(ingress, "ip"))
        gw_defaults__set_nil(ingress, "ipMode", json_string("VIP"));
}

static bool
is_headless_without_selector(const json_t *spec)
{
    return gw_defaults__is(spec, "clusterIP", "None") &&
           json_object_size(json_object_get(spec, "selector")) == 0;
}

static const char *
str_of(const json_t *spec, const char *key)
{
    const char *s = json_string_value(json_object_get(spec, key));
    return s != NULL ? s : "";
}

/* The clusterIPs lists of two specs are equal (absent and empty alike): the service storage's
 * sameClusterIPs, which looks at the plural only. */
static bool
same_ips(const json_t *a, const json_t *b)
{
    const json_t *x = json_object_get(a, "clusterIPs"), *y = json_object_get(b, "clusterIPs");

    if (json_array_size(x) == 0 && json_array_size(y) == 0)
        return true;
    return json_equal(x, y);
}

static void
set_ips(json_t *spec, const json_t *ips)
{
    json_object_set_new(spec, "clusterIPs", json_deep_copy(ips));
}

/* patchAllocatedValues: an update keeps the addresses the stored Service has when the new one
 * leaves them out (both sides need a cluster IP). */
static void
patch_allocated(json_t *spec, const json_t *old)
{
    if (gw_defaults__is(old, "type", "ExternalName"))
        return;
    if (str_of(spec, "clusterIP")[0] == '\0' && !gw_defaults__nil(old, "clusterIP"))
        json_object_set_new(spec, "clusterIP", json_deep_copy(json_object_get(old, "clusterIP")));
    if (json_array_size(json_object_get(spec, "clusterIPs")) == 0 &&
        json_array_size(json_object_get(old, "clusterIPs")) > 0)
        set_ips(spec, json_object_get(old, "clusterIPs"));
}

static bool
needs_node_port(const json_t *spec)
{
    return gw_defaults__is(spec, "type", "NodePort") ||
           gw_defaults__is(spec, "type", "LoadBalancer");
}

static bool
needs_hc_node_port(const json_t *spec)
{
    return gw_defaults__is(spec, "type", "LoadBalancer") &&
           gw_defaults__is(spec, "externalTrafficPolicy", "Local");
}

/* Whether `ports` holds a port whose nodePort is np. */
static bool
uses_node_port(const json_t *ports, json_int_t np)
{
    size_t i;
    json_t *p;

    json_array_foreach(ports, i, p)
    {
        if (json_integer_value(json_object_get(p, "nodePort")) == np)
            return true;
    }
    return false;
}

/* patchAllocatedValues' node ports: a port that leaves its nodePort out gets the one the stored
 * port of the same name had, unless another port of both kept it; likewise the health check's. */
static void
patch_node_ports(json_t *spec, const json_t *old)
{
    const json_t *old_ports = json_object_get(old, "ports");
    json_t *ports = json_object_get(spec, "ports"), *p, *q;
    size_t i, j;

    if (!needs_node_port(old) || !needs_node_port(spec))
        return;
    json_array_foreach(ports, i, p)
    {
        json_int_t was = 0;
        if (json_integer_value(json_object_get(p, "nodePort")) != 0)
            continue;
        json_array_foreach(old_ports, j, q)
        {
            if (strcmp(str_of(q, "name"), str_of(p, "name")) == 0)
                was = json_integer_value(json_object_get(q, "nodePort"));
        }
        if (was != 0 && !uses_node_port(ports, was))
            json_object_set_new(p, "nodePort", json_integer(was));
    }
    if (needs_hc_node_port(old) && needs_hc_node_port(spec) &&
        json_integer_value(json_object_get(spec, "healthCheckNodePort")) == 0 &&
        json_integer_value(json_object_get(old, "healthCheckNodePort")) != 0)
        json_object_set_new(spec, "healthCheckNodePort",
                            json_deep_copy(json_object_get(old, "healthCheckNodePort")));
}

/* normalizeClusterIPs on an update: clusterIPs follows what the client did to clusterIP. */
static void
normalize_update(json_t *spec, const json_t *old)
{
    const char *ip = str_of(spec, "clusterIP"), *old_ip = str_of(old, "clusterIP");

    /* an old client that left clusterIPs out */
    if (json_array_size(json_object_get(old, "clusterIPs")) > 0 &&
        json_array_size(json_object_get(spec, "clusterIPs")) == 0 && strcmp(old_ip, ip) == 0)
        set_ips(spec, json_object_get(old, "clusterIPs"));
    if (strcmp(old_ip, ip) == 0)
        return;
    if (old_ip[0] != '\0' && ip[0] == '\0') {
        /* clearing clusterIP clears an unchanged clusterIPs with it */
        if (same_ips(old, spec))
            json_object_del(spec, "clusterIPs");
    } else if (same_ips(old, spec)) {
        json_object_set_new(spec, "clusterIPs", json_pack("[s]", ip));
    }
}

/* The addresses of a Service that needs a cluster IP: on an update kube's patchAllocatedValues
 * and normalizeClusterIPs; on a create (and, as kgate allocates nothing, on an update of a
 * Service that never had one) clusterIPs starts from a lone clusterIP. */
static void
cluster_ips(json_t *spec, const json_t *old)
{
    const char *ip;

    if (old != NULL) {
        patch_allocated(spec, old);
        normalize_update(spec, old);
        if (json_array_size(json_object_get(old, "clusterIPs")) > 0)
            return;
    }
    ip = str_of(spec, "clusterIP");
    if (ip[0] != '\0' && json_array_size(json_object_get(spec, "clusterIPs")) == 0)
        json_object_set_new(spec, "clusterIPs", json_pack("[s]", ip));
}

/* The family of each given cluster IP missing from ipFamilies, in order. */
static void
families_from_ips(json_t *families, const json_t *ips)
{
    size_t i;
    json_t *ip;

    json_array_foreach(ips, i, ip)
    {
        const char *s = json_string_value(ip);
        if (s == NULL || strcmp(s, "None") == 0)
            break;
        if (i >= json_array_size(families))
            json_array_append_new(families, json_string(strchr(s, ':') ? "IPv6" : "IPv4"));
    }
}

/* initIPFamilyFields on a single-stack IPv4 cluster: the policy is the stored one, else
 * RequireDualStack for a headless Service without selector (it may list both families), else
 * SingleStack; the families come from the cluster IPs, else the cluster's IPv4. */
static void
ip_families(json_t *spec, const json_t *old)
{
    bool headless = is_headless_without_selector(spec);
    json_t *families;
    const char *first;

    if (gw_defaults__nil(spec, "ipFamilyPolicy") && !gw_defaults__nil(old, "ipFamilyPolicy"))
        json_object_set_new(spec, "ipFamilyPolicy",
                            json_deep_copy(json_object_get(old, "ipFamilyPolicy")));
    gw_defaults__set_nil(spec, "ipFamilyPolicy",
                         json_string(headless ? "RequireDualStack" : "SingleStack"));
    gw_defaults__set_nil(spec, "ipFamilies", json_array());
    families = json_object_get(spec, "ipFamilies");
    if (!json_is_array(families))
        return;
    families_from_ips(families, json_object_get(spec, "clusterIPs"));
    if (json_array_size(families) == 0)
        json_array_append_new(families, json_string("IPv4"));
    first = json_string_value(json_array_get(families, 0));
    if (headless && json_array_size(families) == 1 &&
        !gw_defaults__is(spec, "ipFamilyPolicy", "SingleStack"))
        json_array_append_new(
            families, json_string(first != NULL && strcmp(first, "IPv6") == 0 ? "IPv4" : "IPv6"));
}

void
gw_defaults__service(json_t *svc)
{
    json_t *spec = gw_defaults__member(svc, "spec");
    const char *type;

    if (spec == NULL)
        return;
    gw_defaults__fill(spec, service_spec);
    session_affinity(spec);
    gw_defaults__each(spec, "ports[]", service_port, NULL);
    type = json_string_value(json_object_get(spec, "type"));
    if (type == NULL)
        return;
    traffic_policies(spec, type);
    if (strcmp(type, "LoadBalancer") == 0) {
        gw_defaults__set_nil(spec, "allocateLoadBalancerNodePorts", json_true());
        gw_defaults__each(svc, "status.loadBalancer.ingress[]", load_balancer_ingress, NULL);
    }
}

void
gw_defaults_service_addresses(json_t *svc, const json_t *old)
{
    json_t *spec = json_object_get(svc, "spec");
    const json_t *old_spec = json_object_get(old, "spec");
    const char *type = json_string_value(json_object_get(spec, "type"));

    if (type == NULL || strcmp(type, "ExternalName") == 0)
        return;
    if (old_spec != NULL)
        patch_node_ports(spec, old_spec);
    cluster_ips(spec, old_spec);
    ip_families(spec, old_spec);
}

/* ---- volumes and claims ------------------------------------------------------------------- */

static const gw_def_t volume_spec[] = {
    GW_ZERO_STR("persistentVolumeReclaimPolicy", "Retain"),
    GW_NIL_STR("volumeMode", "Filesystem"),
    GW_DEF_END,
};

static const gw_def_t volume_status[] = {GW_ZERO_STR("phase", "Pending"), GW_DEF_END};

void
gw_defaults__persistent_volume(json_t *pv)
{
    json_t *spec = gw_defaults__member(pv, "spec");

    gw_defaults__fill(spec, volume_spec);
    gw_defaults__volume_sources(spec);
    gw_defaults__fill(gw_defaults__member(pv, "status"), volume_status);
}

/* ---- limit ranges, nodes ------------------------------------------------------------------ */

/* Each resource of `from` that `to` lacks, copied into `to` (created when needed). */
static void
merge_missing(json_t *item, const char *from, const char *to)
{
    json_t *src = json_object_get(item, from), *dst, *v;
    const char *k;

    if (json_object_size(src) == 0)
        return;
    dst = gw_defaults__member(item, to);
    json_object_foreach(src, k, v)
    {
        if (dst != NULL && json_object_get(dst, k) == NULL)
            json_object_set_new(dst, k, json_deep_copy(v));
    }
}

/* For containers: the default limit is the max, the default request the default limit, else
 * the min. */
static void
limit_range_item(json_t *item, const void *arg)
{
    (void)arg;
    if (!gw_defaults__is(item, "type", "Container"))
        return;
    merge_missing(item, "max", "default");
    merge_missing(item, "default", "defaultRequest");
    merge_missing(item, "min", "defaultRequest");
}

void
gw_defaults__limit_range(json_t *lr)
{
    gw_defaults__each(lr, "spec.limits[]", limit_range_item, NULL);
}

void
gw_defaults__node(json_t *node)
{
    json_t *status = json_object_get(node, "status");
    const json_t *capacity = json_object_get(status, "capacity");

    if (gw_defaults__nil(status, "allocatable") && json_object_size(capacity) > 0)
        json_object_set_new(status, "allocatable", json_deep_copy(capacity));
}
