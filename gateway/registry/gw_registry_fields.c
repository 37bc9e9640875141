/*
 * The fields a field selector may name, per kind, and the values it reads: kube-apiserver's
 * field label conversions (AddFieldLabelConversionFunc in pkg/apis/<group>/<version>/
 * conversion.go; a kind without one accepts metadata.name and metadata.namespace, the default
 * conversion) over the kind's selectable field set (GetAttrs / ToSelectableFields in
 * pkg/registry/<group>/<kind>/strategy.go). A label the conversion accepts but the field set
 * lacks reads as "" (kube's fields.Set has no such key); a label the conversion renames
 * (events.k8s.io's regarding.* and reportingController, a pod's spec.host) reads the field it
 * is renamed to. Values follow kube's formatting: booleans and counts always have one
 * ("false", "0"). Events are read whatever their stored shape (a core Event, or an
 * events.k8s.io one under the same key).
 */
#include "gw_registry_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd.h"

typedef enum {
    V_STR,    /* the string (or number, boolean) at path, else alt; "" when absent */
    V_BOOL,   /* "true"/"false", false when absent */
    V_INT,    /* the integer as text, "0" when absent */
    V_NONE,   /* accepted, not in the field set */
    V_POD_IP, /* status.podIPs[0].ip, else status.podIP */
    V_SOURCE, /* an event's source.component, else its reporting controller */
} value_kind_t;

typedef struct {
    const char *label;
    value_kind_t kind;
    const char *path, *alt;
} field_def_t;

typedef struct {
    const char *group, *resource;
    const char *const *labels; /* NULL-terminated, the conversion's order */
    const field_def_t *defs;   /* labels read otherwise than as their own path */
    const char *unsupported;   /* the conversion's message, "%s" the label */
} kind_fields_t;

#define END                                                                                        \
    {                                                                                              \
        NULL, V_STR, NULL, NULL                                                                    \
    }
#define NOT_SUPPORTED "field label not supported: %s"

static const char *const meta_labels[] = {"metadata.name", "metadata.namespace", NULL};

static const char *const pod_labels[] = {"metadata.name",
                                         "metadata.namespace",
                                         "spec.nodeName",
                                         "spec.restartPolicy",
                                         "spec.schedulerName",
                                         "spec.serviceAccountName",
                                         "spec.hostNetwork",
                                         "status.phase",
                                         "status.podIP",
                                         "status.podIPs",
                                         "status.nominatedNodeName",
                                         "spec.host",
                                         NULL};
static const field_def_t pod_defs[] = {
    {"spec.hostNetwork", V_BOOL, "spec.hostNetwork", NULL},
    {"status.podIP", V_POD_IP, NULL, NULL},
    {"status.podIPs", V_NONE, NULL, NULL},
    {"spec.host", V_STR, "spec.nodeName", NULL},
    END,
};

static const char *const node_labels[] = {"metadata.name", "spec.unschedulable", NULL};
static const field_def_t node_defs[] = {{"spec.unschedulable", V_BOOL, "spec.unschedulable", NULL},
                                        END};

static const char *const rc_labels[] = {"metadata.name", "metadata.namespace", "status.replicas",
                                        NULL};
static const field_def_t replicas_defs[] = {{"status.replicas", V_INT, "status.replicas", NULL},
                                            END};

#define INVOLVED(f)                                                                                \
    {                                                                                              \
        "involvedObject." f, V_STR, "involvedObject." f, "regarding." f                            \
    }
static const char *const event_labels[] = {"metadata.name",
                                           "involvedObject.kind",
                                           "involvedObject.namespace",
                                           "involvedObject.name",
                                           "involvedObject.uid",
                                           "involvedObject.apiVersion",
                                           "involvedObject.resourceVersion",
                                           "involvedObject.fieldPath",
                                           "reason",
                                           "reportingComponent",
                                           "source",
                                           "type",
                                           "metadata.namespace",
                                           NULL};
static const field_def_t event_defs[] = {
    INVOLVED("kind"),
    INVOLVED("namespace"),
    INVOLVED("name"),
    INVOLVED("uid"),
    INVOLVED("apiVersion"),
    INVOLVED("resourceVersion"),
    INVOLVED("fieldPath"),
    {"reportingComponent", V_STR, "reportingComponent", "reportingController"},
    {"source", V_SOURCE, NULL, NULL},
    END,
};

#define REGARDING(f)                                                                               \
    {                                                                                              \
        "regarding." f, V_STR, "involvedObject." f, "regarding." f                                 \
    }
static const char *const events_v1_labels[] = {"metadata.name",
                                               "reason",
                                               "regarding.kind",
                                               "regarding.namespace",
                                               "regarding.name",
                                               "regarding.uid",
                                               "regarding.apiVersion",
                                               "regarding.resourceVersion",
                                               "regarding.fieldPath",
                                               "reportingController",
                                               "source",
                                               "type",
                                               "metadata.namespace",
                                               NULL};
static const field_def_t events_v1_defs[] = {
    REGARDING("kind"),
    REGARDING("namespace"),
    REGARDING("name"),
    REGARDING("uid"),
    REGARDING("apiVersion"),
    REGARDING("resourceVersion"),
    REGARDING("fieldPath"),
    {"reportingController", V_STR, "reportingComponent", "reportingController"},
    {"source", V_SOURCE, NULL, NULL},
    END,
};

static const char *const namespace_labels[] = {"metadata.name", "status.phase", NULL};
static const char *const secret_labels[] = {"metadata.name", "type", "metadata.namespace", NULL};
static const char *const service_labels[] = {"metadata.name", "metadata.namespace",
                                             "spec.clusterIP", "spec.type", NULL};
static const char *const replicaset_labels[] = {"metadata.name", "metadata.namespace",
                                                "status.replicas", NULL};
static const char *const statefulset_labels[] = {"metadata.name", "metadata.namespace",
                                                 "status.successful", NULL};
static const char *const job_labels[] = {"metadata.name", "metadata.namespace", "status.successful",
                                         NULL};
static const field_def_t job_defs[] = {{"status.successful", V_INT, "status.succeeded", NULL}, END};
static const field_def_t statefulset_defs[] = {{"status.successful", V_NONE, NULL, NULL}, END};
static const char *const signer_labels[] = {"metadata.name", "spec.signerName", NULL};
static const char *const slice_labels[] = {"metadata.name", "spec.nodeName", "spec.driver", NULL};

static const kind_fields_t kinds[] = {
    {"", "pods", pod_labels, pod_defs, NOT_SUPPORTED},
    {"", "nodes", node_labels, node_defs, NOT_SUPPORTED},
    {"", "replicationcontrollers", rc_labels, replicas_defs, NOT_SUPPORTED},
    {"", "events", event_labels, event_defs, NOT_SUPPORTED},
    {"", "namespaces", namespace_labels, NULL, NOT_SUPPORTED},
    {"", "secrets", secret_labels, NULL, NOT_SUPPORTED},
    {"", "services", service_labels, NULL, NOT_SUPPORTED},
    {"events.k8s.io", "events", events_v1_labels, events_v1_defs, NOT_SUPPORTED},
    {"apps", "replicasets", replicaset_labels, replicas_defs, NOT_SUPPORTED},
    {"apps", "statefulsets", statefulset_labels, statefulset_defs,
     "field label not supported for appsv1.StatefulSet: %s"},
    {"batch", "jobs", job_labels, job_defs, "field label \"%s\" not supported for batchv1.Job"},
    {"certificates.k8s.io", "certificatesigningrequests", signer_labels, NULL, NOT_SUPPORTED},
    {"certificates.k8s.io", "clustertrustbundles", signer_labels, NULL, NOT_SUPPORTED},
    {"resource.k8s.io", "resourceslices", slice_labels, NULL, NOT_SUPPORTED},
};

static const kind_fields_t default_kind = {"", "", meta_labels, NULL, NOT_SUPPORTED};

static const kind_fields_t *
kind_of(const gw_resource_t *res)
{
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (strcmp(kinds[i].group, res->group) == 0 && strcmp(kinds[i].resource, res->name) == 0)
            return &kinds[i];
    }
    return &default_kind;
}

static const kind_fields_t *
kind_of_labels(const char *const *labels)
{
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (kinds[i].labels == labels)
            return &kinds[i];
    }
    return &default_kind;
}

const char *const *
gw_registry__selectable_fields(const gw_resource_t *res)
{
    const gw_crd_version_t *cv = gw_crd_version_of(res);

    /* a custom resource's: its metadata and its CRD's selectableFields, read as paths */
    return cv != NULL ? cv->field_labels : kind_of(res)->labels;
}

bool
gw_registry__field_supported(const gw_resource_t *res, const char *label, char *msg, size_t len)
{
    const kind_fields_t *k = kind_of(res);

    for (const char *const *f = gw_registry__selectable_fields(res); *f != NULL; f++) {
        if (strcmp(*f, label) == 0)
            return true;
    }
    /* The format is one of the table's literals. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(msg, len, k->unsupported, label);
#pragma GCC diagnostic pop
    return false;
}

bool
gw_registry__fields_whole(const gw_resource_t *res)
{
    const kind_fields_t *k = kind_of(res);

    /* Renamed fields are read from members other than the label's first segment. */
    return k->defs == event_defs || k->defs == events_v1_defs || k->defs == pod_defs ||
           k->defs == job_defs;
}

/* ---- values ------------------------------------------------------------------------------- */

const json_t *
gw_registry__field_at(const json_t *doc, const char *path)
{
    const json_t *v = doc;
    char part[128];

    for (const char *p = path; v != NULL && *p != '\0';) {
        size_t n = strcspn(p, ".");
        snprintf(part, sizeof(part), "%.*s", (int)n, p);
        v = json_object_get(v, part);
        p += n + (p[n] == '.');
    }
    return v;
}

/* Text of a scalar, or NULL for anything else. */
static char *
scalar(const json_t *v)
{
    if (json_is_string(v))
        return gw_strdup(json_string_value(v));
    if (json_is_boolean(v))
        return gw_strdup(json_is_true(v) ? "true" : "false");
    if (json_is_integer(v))
        return gw_sprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
    return NULL;
}

static char *
first_string(const json_t *doc, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(gw_registry__field_at(doc, paths[i]));
        if (s != NULL && s[0] != '\0')
            return gw_strdup(s);
    }
    return gw_strdup("");
}

static char *
def_value(const field_def_t *d, const json_t *doc)
{
    static const char *const ip[] = {"status.podIPs", "status.podIP"};
    static const char *const source[] = {"source.component", "deprecatedSource.component",
                                         "reportingComponent", "reportingController"};
    const json_t *v;
    char *s;

    switch (d->kind) {
    case V_NONE:
        return NULL;
    case V_BOOL:
        return gw_strdup(json_is_true(gw_registry__field_at(doc, d->path)) ? "true" : "false");
    case V_INT:
        return gw_sprintf("%" JSON_INTEGER_FORMAT,
                          json_integer_value(gw_registry__field_at(doc, d->path)));
    case V_POD_IP:
        v = json_object_get(json_array_get(gw_registry__field_at(doc, ip[0]), 0), "ip");
        return json_is_string(v) ? gw_strdup(json_string_value(v)) : first_string(doc, ip + 1, 1);
    case V_SOURCE:
        return first_string(doc, source, 4);
    case V_STR:
    default:
        s = scalar(gw_registry__field_at(doc, d->path));
        if (s == NULL && d->alt != NULL)
            s = scalar(gw_registry__field_at(doc, d->alt));
        return s != NULL ? s : gw_strdup("");
    }
}

char *
gw_registry__field_text(const char *const *labels, const char *label, const json_t *doc)
{
    const kind_fields_t *k = kind_of_labels(labels);

    for (const field_def_t *d = k->defs; d != NULL && d->label != NULL; d++) {
        if (strcmp(d->label, label) == 0)
            return def_value(d, doc);
    }
    return scalar(gw_registry__field_at(doc, label));
}
