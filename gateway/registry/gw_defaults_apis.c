/*
 * Kinds of the named groups whose defaults are more than a table of fields: kube's defaulters
 * in pkg/apis/networking/v1, rbac/v1, autoscaling/v2, storage/v1 and admissionregistration/v1,
 * and apiextensions-apiserver's apiextensions/v1.
 */
#include "gw_defaults_int.h"

#include <ctype.h>
#include <stdlib.h>

#include "gw_alloc.h"

/* ---- networking.k8s.io/v1 ----------------------------------------------------------------- */

static const gw_def_t policy_port[] = {GW_NIL_STR("protocol", "TCP"), GW_DEF_END};

/* A policy without policyTypes is an ingress policy, and an egress one too if it has egress
 * rules. */
void
gw_defaults__network_policy(json_t *np)
{
    json_t *spec = gw_defaults__member(np, "spec"), *types;

    gw_defaults__fill_at(spec, "ingress[].ports[]", policy_port);
    gw_defaults__fill_at(spec, "egress[].ports[]", policy_port);
    if (spec == NULL || json_array_size(json_object_get(spec, "policyTypes")) > 0)
        return;
    types = json_pack("[s]", "Ingress");
    if (json_array_size(json_object_get(spec, "egress")) > 0)
        json_array_append_new(types, json_string("Egress"));
    json_object_set_new(spec, "policyTypes", types);
}

/* ---- rbac.authorization.k8s.io/v1 --------------------------------------------------------- */

static const gw_def_t role_ref[] = {
    GW_ZERO_STR("apiGroup", "rbac.authorization.k8s.io"),
    GW_DEF_END,
};

/* Users and groups are RBAC's own subjects; service accounts stay in the core group (""). */
static void
subject(json_t *s, const void *arg)
{
    (void)arg;
    if (gw_defaults__zero(s, "apiGroup") &&
        (gw_defaults__is(s, "kind", "User") || gw_defaults__is(s, "kind", "Group")))
        json_object_set_new(s, "apiGroup", json_string("rbac.authorization.k8s.io"));
}

void
gw_defaults__role_binding(json_t *rb)
{
    gw_defaults__fill(gw_defaults__member(rb, "roleRef"), role_ref);
    gw_defaults__each(rb, "subjects[]", subject, NULL);
}

/* ---- autoscaling/v2 ----------------------------------------------------------------------- */

/* The behaviour the autoscaler had before behaviour was configurable: scale up by at most 4
 * pods or 100% per 15 s, whichever is more; scale down by up to 100% per 15 s. */
static void
scaling_rules(json_t *behavior, const char *key, bool up)
{
    json_t *rules = gw_defaults__member(behavior, key);

    gw_defaults__set_nil(rules, "selectPolicy", json_string("Max"));
    if (up) {
        gw_defaults__set_nil(rules, "stabilizationWindowSeconds", json_integer(0));
        gw_defaults__set_nil(rules, "policies",
                             json_pack("[{s:s,s:i,s:i},{s:s,s:i,s:i}]", "type", "Pods", "value", 4,
                                       "periodSeconds", 15, "type", "Percent", "value", 100,
                                       "periodSeconds", 15));
    } else {
        gw_defaults__set_nil(
            rules, "policies",
            json_pack("[{s:s,s:i,s:i}]", "type", "Percent", "value", 100, "periodSeconds", 15));
    }
}

void
gw_defaults__hpa_v2(json_t *hpa)
{
    json_t *spec = gw_defaults__member(hpa, "spec");
    json_t *behavior = json_object_get(spec, "behavior");

    if (spec == NULL)
        return;
    gw_defaults__set_nil(spec, "minReplicas", json_integer(1));
    /* No metrics: kube's 80% average CPU utilisation. */
    if (json_array_size(json_object_get(spec, "metrics")) == 0)
        json_object_set_new(spec, "metrics",
                            json_pack("[{s:s,s:{s:s,s:{s:s,s:i}}}]", "type", "Resource", "resource",
                                      "name", "cpu", "target", "type", "Utilization",
                                      "averageUtilization", 80));
    /* Rules are completed only when some behaviour is configured. */
    if (json_is_object(behavior)) {
        scaling_rules(behavior, "scaleUp", true);
        scaling_rules(behavior, "scaleDown", false);
    }
}

/* ---- storage.k8s.io/v1 -------------------------------------------------------------------- */

static const gw_def_t csi_driver_spec[] = {
    GW_NIL_BOOL("attachRequired", true),
    GW_NIL_BOOL("podInfoOnMount", false),
    GW_NIL_BOOL("storageCapacity", false),
    GW_NIL_STR("fsGroupPolicy", "ReadWriteOnceWithFSType"),
    GW_NIL_BOOL("requiresRepublish", false),
    GW_NIL_BOOL("seLinuxMount", false),
    GW_DEF_END,
};

void
gw_defaults__csi_driver(json_t *d)
{
    json_t *spec = gw_defaults__member(d, "spec");

    if (spec == NULL)
        return;
    gw_defaults__fill(spec, csi_driver_spec);
    if (json_array_size(json_object_get(spec, "volumeLifecycleModes")) == 0)
        json_object_set_new(spec, "volumeLifecycleModes", json_pack("[s]", "Persistent"));
}

/* ---- admissionregistration.k8s.io/v1 ------------------------------------------------------ */

/* clang-format off */
static const gw_def_t webhook[] = {
    GW_NIL_STR("failurePolicy", "Fail"),
    GW_NIL_STR("matchPolicy", "Equivalent"),
    GW_NIL_OBJ("namespaceSelector"),
    GW_NIL_OBJ("objectSelector"),
    GW_NIL_INT("timeoutSeconds", 10),
    GW_DEF_END,
};
/* clang-format on */

static const gw_def_t mutating_webhook[] = {GW_NIL_STR("reinvocationPolicy", "Never"), GW_DEF_END};

static const gw_def_t rule[] = {GW_NIL_STR("scope", "*"), GW_DEF_END};

static const gw_def_t service_reference[] = {GW_NIL_INT("port", 443), GW_DEF_END};

/* `arg` is the webhook kind's own extra defaults, or NULL. */
static void
webhook_node(json_t *w, const void *arg)
{
    gw_defaults__fill(w, webhook);
    if (arg != NULL)
        gw_defaults__fill(w, arg);
    gw_defaults__fill_at(w, "rules[]", rule);
    gw_defaults__fill_at(w, "clientConfig.service", service_reference);
}

void
gw_defaults__validating_webhooks(json_t *config)
{
    gw_defaults__each(config, "webhooks[]", webhook_node, NULL);
}

void
gw_defaults__mutating_webhooks(json_t *config)
{
    gw_defaults__each(config, "webhooks[]", webhook_node, mutating_webhook);
}

static const gw_def_t match_resources[] = {
    GW_NIL_STR("matchPolicy", "Equivalent"),
    GW_NIL_OBJ("namespaceSelector"),
    GW_NIL_OBJ("objectSelector"),
    GW_DEF_END,
};

static const gw_def_t policy_spec[] = {GW_NIL_STR("failurePolicy", "Fail"), GW_DEF_END};

static void
match_node(json_t *m, const void *arg)
{
    (void)arg;
    gw_defaults__fill(m, match_resources);
    gw_defaults__fill_at(m, "resourceRules[]", rule);
    gw_defaults__fill_at(m, "excludeResourceRules[]", rule);
}

void
gw_defaults__admission_policy(json_t *p)
{
    gw_defaults__fill(gw_defaults__member(p, "spec"), policy_spec);
    gw_defaults__each(p, "spec.matchConstraints", match_node, NULL);
}

void
gw_defaults__admission_policy_binding(json_t *b)
{
    gw_defaults__each(b, "spec.matchResources", match_node, NULL);
}

/* ---- apiextensions.k8s.io/v1 -------------------------------------------------------------- */

static const gw_def_t conversion[] = {GW_NIL_STR("strategy", "None"), GW_DEF_END};

/* SetDefaults_CustomResourceDefinition: singular and listKind from the kind, conversion None,
 * a conversion service's port 443, and the storage version as the stored one (status is reset
 * on create and kept on updates, so this shows only where kube's decoding shows it). */
void
gw_defaults__crd(json_t *crd)
{
    json_t *spec = gw_defaults__member(crd, "spec"), *names, *status, *v;
    const char *kind;
    size_t i;

    if (spec == NULL)
        return;
    names = gw_defaults__member(spec, "names");
    kind = json_string_value(json_object_get(names, "kind"));
    if (names != NULL && gw_defaults__zero(names, "singular") && kind != NULL && kind[0] != '\0') {
        char *lower = gw_strdup(kind);
        for (char *c = lower; *c != '\0'; c++)
            *c = (char)tolower((unsigned char)*c);
        json_object_set_new(names, "singular", json_string(lower));
        free(lower);
    }
    if (names != NULL && gw_defaults__zero(names, "listKind") && kind != NULL && kind[0] != '\0')
        json_object_set_new(names, "listKind", json_sprintf("%sList", kind));
    if (gw_defaults__nil(spec, "conversion"))
        json_object_set_new(spec, "conversion", json_object());
    gw_defaults__fill(json_object_get(spec, "conversion"), conversion);
    gw_defaults__fill_at(spec, "conversion.webhook.clientConfig.service", service_reference);
    status = gw_defaults__member(crd, "status");
    if (status == NULL || json_array_size(json_object_get(status, "storedVersions")) > 0)
        return;
    json_array_foreach(json_object_get(spec, "versions"), i, v)
    {
        if (json_is_true(json_object_get(v, "storage")) &&
            json_is_string(json_object_get(v, "name"))) {
            json_object_set_new(status, "storedVersions",
                                json_pack("[O]", json_object_get(v, "name")));
            return;
        }
    }
}
