/*
 * Defaulting of built-in kinds as kube-apiserver's generated defaulters do it: one table row
 * per kind (group, version, kind) naming its field defaults as data, its own rules where they
 * are more than data, and where its pod template is; the shared walkers for pods live in
 * gw_defaults_pod.c. kube runs these on every object it decodes, so on every create and update.
 */
#include "gw_defaults.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "gw_defaults_int.h"
#include "gw_flowcontrol_valid.h"

/* ---- field defaults ----------------------------------------------------------------------- */

bool
gw_defaults__nil(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return v == NULL || json_is_null(v);
}

bool
gw_defaults__zero(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (v == NULL)
        return true;
    switch (json_typeof(v)) {
    case JSON_NULL:
    case JSON_FALSE:
        return true;
    case JSON_STRING:
        return json_string_length(v) == 0;
    case JSON_INTEGER:
        return json_integer_value(v) == 0;
    case JSON_REAL:
        return json_real_value(v) == 0.0;
    default:
        return false;
    }
}

static json_t *
def_value(const gw_def_t *d)
{
    switch (d->type) {
    case GW_DEF_STR:
        return json_string(d->s);
    case GW_DEF_INT:
        return json_integer(d->i);
    case GW_DEF_BOOL:
        return json_boolean(d->i);
    case GW_DEF_OBJ:
        break;
    }
    return json_object();
}

/* Whether the field of `d` is unset in `o`. A zero value only counts when it has the field's
 * type: a mistyped value stays for validation to report, as Go's decoding would have. */
static bool
unset(const json_t *o, const gw_def_t *d)
{
    const json_t *v = json_object_get(o, d->key);

    if (v == NULL || json_is_null(v))
        return true;
    if (!d->zero_is_unset)
        return false;
    if (d->type == GW_DEF_STR)
        return json_is_string(v) && json_string_length(v) == 0;
    return d->type == GW_DEF_INT && json_is_integer(v) && json_integer_value(v) == 0;
}

void
gw_defaults__fill(json_t *o, const gw_def_t *defs)
{
    if (!json_is_object(o))
        return;
    for (; defs->key != NULL; defs++) {
        if (unset(o, defs))
            json_object_set_new(o, defs->key, def_value(defs));
    }
}

void
gw_defaults__set_nil(json_t *o, const char *key, json_t *v)
{
    if (json_is_object(o) && gw_defaults__nil(o, key))
        json_object_set_new(o, key, v);
    else
        json_decref(v);
}

bool
gw_defaults__is(const json_t *o, const char *key, const char *value)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s != NULL && strcmp(s, value) == 0;
}

void
gw_defaults__copy_if_empty(json_t *o, const char *key, const json_t *from)
{
    if (json_is_object(o) && json_object_size(from) > 0 &&
        json_object_size(json_object_get(o, key)) == 0)
        json_object_set_new(o, key, json_deep_copy(from));
}

json_t *
gw_defaults__member(json_t *o, const char *key)
{
    json_t *m;

    if (!json_is_object(o))
        return NULL;
    gw_defaults__set_nil(o, key, json_object());
    m = json_object_get(o, key);
    return json_is_object(m) ? m : NULL;
}

void
gw_defaults__each(json_t *root, const char *path, void (*fn)(json_t *node, const void *arg),
                  const void *arg)
{
    size_t n = strcspn(path, "."), i;
    bool each = n >= 2 && strncmp(path + n - 2, "[]", 2) == 0;
    const char *rest = path + n + (path[n] == '.');
    char key[64];
    json_t *child, *el;

    if (*path == '\0') {
        if (json_is_object(root))
            fn(root, arg);
        return;
    }
    assert(n < sizeof(key)); /* the paths are this folder's own */
    snprintf(key, sizeof(key), "%.*s", (int)(each ? n - 2 : n), path);
    child = json_object_get(root, key);
    if (!each) {
        gw_defaults__each(child, rest, fn, arg);
        return;
    }
    json_array_foreach(child, i, el)
    {
        gw_defaults__each(el, rest, fn, arg);
    }
}

static void
fill_node(json_t *node, const void *defs)
{
    gw_defaults__fill(node, defs);
}

void
gw_defaults__fill_at(json_t *root, const char *path, const gw_def_t *defs)
{
    gw_defaults__each(root, path, fill_node, defs);
}

/* ---- the kinds ---------------------------------------------------------------------------- */

static const gw_def_t replicas[] = {GW_NIL_INT("replicas", 1), GW_DEF_END};

static const gw_def_t secret[] = {GW_ZERO_STR("type", "Opaque"), GW_DEF_END};

static const gw_def_t protocol_tcp[] = {GW_ZERO_STR("protocol", "TCP"), GW_DEF_END};

static const gw_def_t cron_job[] = {
    GW_ZERO_STR("concurrencyPolicy", "Allow"),
    GW_NIL_BOOL("suspend", false),
    GW_NIL_INT("successfulJobsHistoryLimit", 3),
    GW_NIL_INT("failedJobsHistoryLimit", 1),
    GW_DEF_END,
};

/* autoscaling/v1 defaults only minReplicas: the 80% CPU target comes from the v1 -> v2
 * conversion (gateway/convert/), which alone sees whether the metrics annotation holds others. */
static const gw_def_t hpa_v1[] = {
    GW_NIL_INT("minReplicas", 1),
    GW_DEF_END,
};

static const gw_def_t ingress_class_params[] = {GW_NIL_STR("scope", "Cluster"), GW_DEF_END};

static const gw_def_t storage_class[] = {
    GW_NIL_STR("reclaimPolicy", "Delete"),
    GW_NIL_STR("volumeBindingMode", "Immediate"),
    GW_DEF_END,
};

static const gw_def_t priority_class[] = {
    GW_NIL_STR("preemptionPolicy", "PreemptLowerPriority"),
    GW_DEF_END,
};

static const gw_def_t endpoint_slice_port[] = {
    GW_NIL_STR("name", ""),
    GW_NIL_STR("protocol", "TCP"),
    GW_DEF_END,
};

typedef struct {
    const char *group, *version, *kind;
    const char *at; /* where `defs` apply ("" is the object itself) */
    const gw_def_t *defs;
    gw_kind_defaults_fn *fn;  /* the kind's own rules */
    const char *pod_template; /* where its PodTemplateSpec is */
} kind_t;

static const kind_t kinds[] = {
    {"", "v1", "Pod", .fn = gw_defaults__pod},
    {"", "v1", "PodTemplate", .pod_template = "template"},
    {"", "v1", "ReplicationController", .fn = gw_defaults__replication_controller,
     .pod_template = "spec.template"},
    {"", "v1", "Service", .fn = gw_defaults__service},
    {"", "v1", "Secret", .at = "", .defs = secret},
    {"", "v1", "Endpoints", .at = "subsets[].ports[]", .defs = protocol_tcp},
    {"", "v1", "PersistentVolume", .fn = gw_defaults__persistent_volume},
    {"", "v1", "PersistentVolumeClaim", .fn = gw_defaults__pvc},
    {"", "v1", "LimitRange", .fn = gw_defaults__limit_range},
    {"", "v1", "Node", .fn = gw_defaults__node},
    {"apps", "v1", "Deployment", .fn = gw_defaults__deployment, .pod_template = "spec.template"},
    {"apps", "v1", "ReplicaSet", .at = "spec", .defs = replicas, .pod_template = "spec.template"},
    {"apps", "v1", "StatefulSet", .fn = gw_defaults__stateful_set, .pod_template = "spec.template"},
    {"apps", "v1", "DaemonSet", .fn = gw_defaults__daemon_set, .pod_template = "spec.template"},
    {"batch", "v1", "Job", .fn = gw_defaults__job, .pod_template = "spec.template"},
    {"batch", "v1", "CronJob", .at = "spec", .defs = cron_job,
     .pod_template = "spec.jobTemplate.spec.template"},
    {"networking.k8s.io", "v1", "NetworkPolicy", .fn = gw_defaults__network_policy},
    {"networking.k8s.io", "v1", "IngressClass", .at = "spec.parameters",
     .defs = ingress_class_params},
    {"rbac.authorization.k8s.io", "v1", "RoleBinding", .fn = gw_defaults__role_binding},
    {"rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", .fn = gw_defaults__role_binding},
    {"autoscaling", "v1", "HorizontalPodAutoscaler", .at = "spec", .defs = hpa_v1},
    {"autoscaling", "v2", "HorizontalPodAutoscaler", .fn = gw_defaults__hpa_v2},
    {"storage.k8s.io", "v1", "StorageClass", .at = "", .defs = storage_class},
    {"storage.k8s.io", "v1", "CSIDriver", .fn = gw_defaults__csi_driver},
    {"scheduling.k8s.io", "v1", "PriorityClass", .at = "", .defs = priority_class},
    {"discovery.k8s.io", "v1", "EndpointSlice", .at = "ports[]", .defs = endpoint_slice_port},
    {"admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
     .fn = gw_defaults__validating_webhooks},
    {"admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration",
     .fn = gw_defaults__mutating_webhooks},
    {"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy",
     .fn = gw_defaults__admission_policy},
    {"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding",
     .fn = gw_defaults__admission_policy_binding},
    {"apiextensions.k8s.io", "v1", "CustomResourceDefinition", .fn = gw_defaults__crd},
    /* v1beta1 defaults as v1 does (pkg/apis/admissionregistration/v1beta1/defaults.go) */
    {"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy",
     .fn = gw_defaults__admission_policy},
    {"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicyBinding",
     .fn = gw_defaults__admission_policy_binding},
    /* v1alpha1 MutatingAdmissionPolicy: failurePolicy Fail and the match resources' defaults
     * (pkg/apis/admissionregistration/v1alpha1/defaults.go); no reinvocationPolicy default */
    {"admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicy",
     .fn = gw_defaults__admission_policy},
    {"admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicyBinding",
     .fn = gw_defaults__admission_policy_binding},
    {"flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", .fn = gw_flowschema_defaults},
    {"flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration",
     .fn = gw_prioritylevel_defaults},
    {"flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema", .fn = gw_flowschema_defaults},
    {"flowcontrol.apiserver.k8s.io", "v1beta3", "PriorityLevelConfiguration",
     .fn = gw_prioritylevel_defaults},
};

static const kind_t *
find_kind(const char *group, const char *version, const char *kind)
{
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        const kind_t *k = &kinds[i];
        if (strcmp(k->kind, kind) == 0 && strcmp(k->group, group) == 0 &&
            strcmp(k->version, version) == 0)
            return k;
    }
    return NULL;
}

static void
template_node(json_t *tmpl, const void *arg)
{
    (void)arg;
    gw_defaults__pod_template(tmpl);
}

void
gw_defaults_apply(const char *group, const char *version, const char *kind, json_t *obj)
{
    const kind_t *k = find_kind(group, version, kind);

    if (k == NULL || !json_is_object(obj))
        return;
    if (k->defs != NULL)
        gw_defaults__fill_at(obj, k->at, k->defs);
    if (k->fn != NULL)
        k->fn(obj);
    if (k->pod_template != NULL)
        gw_defaults__each(obj, k->pod_template, template_node, NULL);
}
