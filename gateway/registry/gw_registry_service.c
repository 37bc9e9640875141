/*
 * Services: what kube's Service strategy and validation decide about the fields that depend on
 * the type and about the cluster IPs (pkg/registry/core/service/strategy.go
 * dropTypeDependentFields; pkg/apis/core/validation ValidateServiceClusterIPsRelatedFields and
 * validateUpgradeDowngradeClusterIPs/IPFamilies). The addresses a client leaves out on an
 * update are filled in by the defaults (gw_defaults_core.c), before these run, as kube's
 * service storage does before its strategy.
 */
#include "gw_registry_int.h"

#include <arpa/inet.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_defaults.h"
#include "gw_gofmt.h"

static const char *
str_of(const json_t *spec, const char *key)
{
    const char *s = json_string_value(json_object_get(spec, key));
    return s != NULL ? s : "";
}

static bool
type_is(const json_t *spec, const char *type)
{
    return strcmp(str_of(spec, "type"), type) == 0;
}

static bool
needs_node_port(const json_t *spec)
{
    return type_is(spec, "NodePort") || type_is(spec, "LoadBalancer");
}

static bool
needs_hc_node_port(const json_t *spec)
{
    return type_is(spec, "LoadBalancer") &&
           strcmp(str_of(spec, "externalTrafficPolicy"), "Local") == 0;
}

/* Whether members `key` of a and b are equal, an absent one being null. */
static bool
same(const json_t *a, const json_t *b, const char *key)
{
    const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);

    if ((x == NULL || json_is_null(x)) && (y == NULL || json_is_null(y)))
        return true;
    return x != NULL && y != NULL && json_equal(x, y);
}

/* Equal lists, an absent one being empty (Go compares their lengths first). */
static bool
same_list(const json_t *a, const json_t *b, const char *key)
{
    if (json_array_size(json_object_get(a, key)) == 0 &&
        json_array_size(json_object_get(b, key)) == 0)
        return true;
    return same(a, b, key);
}

/* The new node ports are a subset of the old ones (kube's sameNodePorts). */
static bool
same_node_ports(const json_t *old, const json_t *spec)
{
    size_t i, j;
    json_t *p, *q;

    json_array_foreach(json_object_get(spec, "ports"), i, p)
    {
        json_int_t np = json_integer_value(json_object_get(p, "nodePort"));
        bool found = np == 0;
        json_array_foreach(json_object_get(old, "ports"), j, q)
        {
            found = found || json_integer_value(json_object_get(q, "nodePort")) == np;
        }
        if (!found)
            return false;
    }
    return true;
}

static void
drop_node_ports(json_t *spec)
{
    size_t i;
    json_t *p;

    json_array_foreach(json_object_get(spec, "ports"), i, p)
    {
        json_object_del(p, "nodePort");
    }
}

/* dropTypeDependentFields: what no longer applies after a type change, when the client did
 * not change it too (then validation speaks). */
static void
drop_type_dependent(json_t *svc, json_t *spec, const json_t *old)
{
    if (!type_is(old, "ExternalName") && type_is(spec, "ExternalName")) {
        if (strcmp(str_of(old, "clusterIP"), str_of(spec, "clusterIP")) == 0 &&
            same_list(old, spec, "clusterIPs")) {
            json_object_del(spec, "clusterIP");
            json_object_del(spec, "clusterIPs");
        }
        if (same_list(old, spec, "ipFamilies"))
            json_object_del(spec, "ipFamilies");
        if (strcmp(str_of(old, "ipFamilyPolicy"), str_of(spec, "ipFamilyPolicy")) == 0)
            json_object_del(spec, "ipFamilyPolicy");
    }
    if (needs_node_port(old) && !needs_node_port(spec) && same_node_ports(old, spec))
        drop_node_ports(spec);
    if (needs_hc_node_port(old) && !needs_hc_node_port(spec) &&
        same(old, spec, "healthCheckNodePort"))
        json_object_del(spec, "healthCheckNodePort");
    if (type_is(old, "LoadBalancer") && !type_is(spec, "LoadBalancer")) {
        if (json_is_boolean(json_object_get(spec, "allocateLoadBalancerNodePorts")) &&
            same(old, spec, "allocateLoadBalancerNodePorts"))
            json_object_del(spec, "allocateLoadBalancerNodePorts");
        if (same(old, spec, "loadBalancerClass"))
            json_object_del(spec, "loadBalancerClass");
    }
    if (needs_node_port(old) && !needs_node_port(spec) && same(old, spec, "externalTrafficPolicy"))
        json_object_del(spec, "externalTrafficPolicy");
    if (!type_is(spec, "LoadBalancer") && json_is_object(json_object_get(svc, "status")))
        json_object_set_new(json_object_get(svc, "status"), "loadBalancer", json_object());
}

void
gw_registry__service_prepare_update(json_t *obj, const json_t *old)
{
    json_t *spec = json_object_get(obj, "spec");
    const json_t *old_spec = json_object_get(old, "spec");

    if (json_is_object(spec) && json_is_object(old_spec))
        drop_type_dependent(obj, spec, old_spec);
}

/* ---- validation ------------------------------------------------------------------------- */

/* Go's %#v of a []string (or a []core.IPFamily, named `type`) held as a JSON list: absent or
 * null is the nil slice. */
static char *
go_slice(const json_t *list, const char *type)
{
    size_t i, len = 0, cap = 64;
    char *out;
    json_t *v;

    if (!json_is_array(list))
        return gw_sprintf("[]%s(nil)", type);
    json_array_foreach(list, i, v)
    {
        cap += json_string_length(v) * 4 + 4;
    }
    out = gw_malloc(cap);
    len = (size_t)snprintf(out, cap, "[]%s{", type);
    json_array_foreach(list, i, v)
    {
        char *q = gw_go_quote(json_string_value(v) ? json_string_value(v) : "");
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i > 0 ? ", " : "", q);
        free(q);
    }
    snprintf(out + len, cap - len, "}");
    return out;
}

static void
invalid_list(gw_field_errors_t *errs, const char *field, const json_t *list, const char *type,
             const char *detail)
{
    char *v = go_slice(list, type), *msg = gw_sprintf("Invalid value: %s: %s", v, detail);

    gw_ferr_add(errs, "FieldValueInvalid", field, msg);
    free(msg);
    free(v);
}

static bool
is_ipv6(const char *s)
{
    unsigned char buf[16];
    return inet_pton(AF_INET6, s, buf) == 1;
}

static bool
is_ip(const char *s)
{
    unsigned char buf[16];
    return inet_pton(AF_INET, s, buf) == 1 || is_ipv6(s);
}

/* The i-th string of a list ("" for anything else). */
static const char *
item(const json_t *list, size_t i)
{
    const char *s = json_string_value(json_array_get(list, i));
    return s != NULL ? s : "";
}

static bool
is_headless(const json_t *spec)
{
    const json_t *ips = json_object_get(spec, "clusterIPs");
    return json_array_size(ips) == 1 && strcmp(item(ips, 0), "None") == 0;
}

/* ValidateServiceClusterIPsRelatedFields' rules for clusterIP and clusterIPs (the families
 * and policy values are checked by the schema). */
static void
validate_cluster_ips(const json_t *spec, gw_field_errors_t *errs)
{
    const json_t *ips = json_object_get(spec, "clusterIPs");
    const json_t *families = json_object_get(spec, "ipFamilies");
    const char *ip = str_of(spec, "clusterIP");
    size_t n = json_array_size(ips);
    bool bad = false;

    if (ip[0] != '\0' && n == 0)
        gw_ferr_required(errs, "spec.clusterIPs", NULL);
    else if (ip[0] != '\0' && strcmp(item(ips, 0), ip) != 0)
        invalid_list(errs, "spec.clusterIPs", ips, "string", "first value must match `clusterIP`");
    else if (ip[0] == '\0' && n != 0)
        invalid_list(errs, "spec.clusterIPs", ips, "string",
                     "must be empty when `clusterIP` is not specified");
    for (size_t i = 0; i < n; i++) {
        char field[48];
        if (i == 0 && strcmp(item(ips, 0), "None") == 0) {
            if (n > 1) {
                bad = true;
                invalid_list(errs, "spec.clusterIPs", ips, "string",
                             "'None' must be the first and only value");
            }
            continue;
        }
        if (is_ip(item(ips, i)))
            continue;
        bad = true;
        snprintf(field, sizeof(field), "spec.clusterIPs[%zu]", i);
        gw_ferr_invalid_str(errs, field, item(ips, i),
                            "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
    }
    if (n > 2)
        invalid_list(errs, "spec.clusterIPs", ips, "string", "may only hold up to 2 values");
    if (bad)
        return;
    if (n == 2 && is_ipv6(item(ips, 0)) == is_ipv6(item(ips, 1)))
        invalid_list(errs, "spec.clusterIPs", ips, "string",
                     "may specify no more than one IP for each IP family");
    for (size_t i = 0; !is_headless(spec) && i < n && i < json_array_size(families); i++) {
        const char *fam = item(families, i);
        bool v6 = is_ipv6(item(ips, i));
        char field[48], msg[80];
        if (!(strcmp(fam, "IPv4") == 0 && v6) && !(strcmp(fam, "IPv6") == 0 && !v6))
            continue;
        snprintf(field, sizeof(field), "spec.clusterIPs[%zu]", i);
        snprintf(msg, sizeof(msg), "expected an %s value as indicated by `ipFamilies[%zu]`", fam,
                 i);
        gw_ferr_invalid_str(errs, field, item(ips, i), msg);
    }
}

/* validateUpgradeDowngradeClusterIPs: the primary address never changes, a secondary one may
 * come and go (going needs SingleStack). */
static void
validate_ips_update(const json_t *spec, const json_t *old, gw_field_errors_t *errs)
{
    const json_t *ips = json_object_get(spec, "clusterIPs");
    const json_t *old_ips = json_object_get(old, "clusterIPs");
    size_t n = json_array_size(ips), on = json_array_size(old_ips);

    if (is_headless(old) && is_headless(spec))
        return;
    if (n == on) {
        for (size_t i = 0; i < on; i++) {
            char field[48];
            if (strcmp(item(ips, i), item(old_ips, i)) == 0)
                continue;
            snprintf(field, sizeof(field), "spec.clusterIPs[%zu]", i);
            invalid_list(errs, field, ips, "string", "may not change once set");
        }
        return;
    }
    if (on > n) {
        if (n == 0)
            invalid_list(errs, "spec.clusterIPs[0]", ips, "string",
                         "primary clusterIP can not be unset");
        if (n > 0 && strcmp(item(ips, 0), item(old_ips, 0)) != 0)
            invalid_list(errs, "spec.clusterIPs[0]", ips, "string", "may not change once set");
        if (n == 1 && strcmp(str_of(spec, "ipFamilyPolicy"), "SingleStack") != 0)
            gw_ferr_invalid(errs, "spec.ipFamilyPolicy", json_object_get(spec, "ipFamilyPolicy"),
                            "must be set to 'SingleStack' when releasing the secondary clusterIP");
        return;
    }
    if (on > 0 && strcmp(item(ips, 0), item(old_ips, 0)) != 0)
        invalid_list(errs, "spec.clusterIPs[0]", ips, "string", "may not change once set");
}

/* validateUpgradeDowngradeIPFamilies, with kube's quirks: some messages show clusterIPs. */
static void
validate_families_update(const json_t *spec, const json_t *old, gw_field_errors_t *errs)
{
    const json_t *fams = json_object_get(spec, "ipFamilies");
    const json_t *old_fams = json_object_get(old, "ipFamilies");
    const json_t *ips = json_object_get(spec, "clusterIPs");
    size_t n = json_array_size(fams), on = json_array_size(old_fams);

    if (is_headless(old) || is_headless(spec))
        return;
    if (n == on) {
        for (size_t i = 0; i < on; i++)
            if (strcmp(item(fams, i), item(old_fams, i)) != 0)
                invalid_list(errs, "spec.ipFamilies[0]", fams, "core.IPFamily",
                             "may not change once set");
        return;
    }
    if (on > n) {
        if (json_array_size(ips) == 0)
            invalid_list(errs, "spec.ipFamilies[0]", fams, "core.IPFamily",
                         "primary ipFamily can not be unset");
        if (n > 0 && strcmp(item(fams, 0), item(old_fams, 0)) != 0)
            invalid_list(errs, "spec.ipFamilies[0]", ips, "string", "may not change once set");
        if (n == 1 && strcmp(str_of(spec, "ipFamilyPolicy"), "SingleStack") != 0)
            gw_ferr_invalid(errs, "spec.ipFamilyPolicy", json_object_get(spec, "ipFamilyPolicy"),
                            "must be set to 'SingleStack' when releasing the secondary ipFamily");
        return;
    }
    if (on > 0 && n > 0 && strcmp(item(fams, 0), item(old_fams, 0)) != 0)
        invalid_list(errs, "spec.ipFamilies[0]", ips, "string", "may not change once set");
}

bool
gw_registry__service_validate(const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    const json_t *spec = json_object_get(obj, "spec");
    const json_t *old_spec = json_object_get(old, "spec");
    size_t before = gw_ferr_count(errs);

    if (type_is(spec, "ExternalName"))
        return true;
    /* kube's allocator checks these first and answers with them alone */
    validate_cluster_ips(spec, errs);
    if (gw_ferr_count(errs) > before)
        return false;
    if (old != NULL && !type_is(old_spec, "ExternalName")) {
        validate_ips_update(spec, old_spec, errs);
        validate_families_update(spec, old_spec, errs);
    }
    return true;
}

/* ---- the strategy ------------------------------------------------------------------------- */

/* The storage's address fill comes before the strategy's preparation, as in kube's
 * beginCreate/beginUpdate. */
static void
strategy_prepare_create(const gw_resource_t *res, const authn_user_t *user, json_t *obj)
{
    (void)res;
    (void)user;
    gw_defaults_service_addresses(obj, NULL);
}

static void
strategy_prepare_update(const gw_resource_t *res, json_t *obj, const json_t *old)
{
    (void)res;
    gw_defaults_service_addresses(obj, old);
    gw_registry__service_prepare_update(obj, old);
}

/* The cluster IP rules after the metadata's; where kube reports the addresses alone, what the
 * metadata's validation found is dropped. */
static void
strategy_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                  gw_field_errors_t *errs)
{
    gw_field_errors_t own = {0};

    (void)res;
    if (gw_registry__service_validate(obj, old, &own)) {
        if (own.causes != NULL) {
            if (errs->causes == NULL)
                errs->causes = json_array();
            json_array_extend(errs->causes, own.causes);
        }
    } else {
        gw_ferr_clear(errs);
        errs->causes = json_incref(own.causes);
    }
    gw_ferr_clear(&own);
}

const gw_strategy_t gw_strategy_service = {
    .name = "service",
    .name_rule = GW_NAME_DNS1035,
    .create_on_update = true,
    .initial_status = "{\"loadBalancer\":{}}",
    .prepare_create = strategy_prepare_create,
    .prepare_update = strategy_prepare_update,
    .validate = strategy_validate,
};
