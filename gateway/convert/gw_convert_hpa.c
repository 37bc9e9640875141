/*
 * autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler, as kube-apiserver 1.32 converts
 * them: through its internal type, with pkg/apis/autoscaling/v1/conversion.go on the v1 side
 * (v2's own conversion only drops the round-trip annotations).
 *
 * v1 says one thing of the metrics: spec.targetCPUUtilizationPercentage is the first Resource
 * metric on cpu with an averageUtilization, status.currentCPUUtilizationPercentage the last
 * such current metric. The rest travels in annotations holding Go's JSON: the other metrics
 * and every current metric as v1's annotation-only MetricSpec / MetricStatus types, the
 * conditions as v1 HorizontalPodAutoscalerCondition, and the behavior as the internal Go type,
 * which has no json tags (so Go field names, every field written, nil as null). Going to v1,
 * annotations of that name already there are dropped first; coming from v1 they are read (one
 * that does not decode is ignored, as kube ignores it) and dropped.
 *
 * What kube's round trip does not keep, this does not keep either:
 *   - the CPU utilization metric comes back last, after the annotation's metrics, and only the
 *     first of several such metrics comes back;
 *   - v1's Quantity fields are values, not pointers: an Object target's value, a Pods
 *     target's averageValue and the current values of Object, Pods, Resource,
 *     ContainerResource and External metrics come back as "0" when they were unset;
 *   - a Resource or ContainerResource target's value, which v1 has no field for, is lost;
 *   - a behavior with neither scaleUp nor scaleDown is lost, and so are empty policies;
 *   - no metrics at all come back as kube's default, 80% CPU utilization.
 */
#include "gw_convert_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

#define HPA_ANN_METRICS "autoscaling.alpha.kubernetes.io/metrics"
#define HPA_ANN_CURRENT "autoscaling.alpha.kubernetes.io/current-metrics"
#define HPA_ANN_CONDITIONS "autoscaling.alpha.kubernetes.io/conditions"
#define HPA_ANN_BEHAVIOR "autoscaling.alpha.kubernetes.io/behavior"

/* autoscaling.DefaultCPUUtilization */
#define HPA_DEFAULT_CPU 80

/* ---- the Go types ------------------------------------------------------------------------ */

#define HPA_END                                                                                    \
    {                                                                                              \
        NULL, GW_GO_STRING, false, NULL                                                            \
    }

/* metav1.LabelSelector */
static const gw_go_field_t hpa_requirement[] = {
    {"key", GW_GO_STRING, false, NULL},
    {"operator", GW_GO_STRING, false, NULL},
    {"values", GW_GO_STRLIST, true, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_selector[] = {
    {"matchLabels", GW_GO_STRMAP, true, NULL},
    {"matchExpressions", GW_GO_LIST, true, hpa_requirement},
    HPA_END,
};

/* CrossVersionObjectReference, the same in v1 and v2 */
static const gw_go_field_t hpa_object_ref[] = {
    {"kind", GW_GO_STRING, false, NULL},
    {"name", GW_GO_STRING, false, NULL},
    {"apiVersion", GW_GO_STRING, true, NULL},
    HPA_END,
};

/* v1's annotation-only metric types (k8s.io/api/autoscaling/v1/types.go) */
static const gw_go_field_t hpa_v1_object_source[] = {
    {"target", GW_GO_STRUCT, false, hpa_object_ref},
    {"metricName", GW_GO_STRING, false, NULL},
    {"targetValue", GW_GO_QTY, false, NULL},
    {"selector", GW_GO_STRUCTP, true, hpa_selector},
    {"averageValue", GW_GO_QTYP, true, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v1_pods_source[] = {
    {"metricName", GW_GO_STRING, false, NULL},
    {"targetAverageValue", GW_GO_QTY, false, NULL},
    {"selector", GW_GO_STRUCTP, true, hpa_selector},
    HPA_END,
};
static const gw_go_field_t hpa_v1_resource_source[] = {
    {"name", GW_GO_STRING, false, NULL},
    {"targetAverageUtilization", GW_GO_INT32P, true, NULL},
    {"targetAverageValue", GW_GO_QTYP, true, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v1_container_source[] = {
    {"name", GW_GO_STRING, false, NULL},
    {"targetAverageUtilization", GW_GO_INT32P, true, NULL},
    {"targetAverageValue", GW_GO_QTYP, true, NULL},
    {"container", GW_GO_STRING, false, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v1_external_source[] = {
    {"metricName", GW_GO_STRING, false, NULL},
    {"metricSelector", GW_GO_STRUCTP, true, hpa_selector},
    {"targetValue", GW_GO_QTYP, true, NULL},
    {"targetAverageValue", GW_GO_QTYP, true, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v1_metric_spec[] = {
    {"type", GW_GO_STRING, false, NULL},
    {"object", GW_GO_STRUCTP, true, hpa_v1_object_source},
    {"pods", GW_GO_STRUCTP, true, hpa_v1_pods_source},
    {"resource", GW_GO_STRUCTP, true, hpa_v1_resource_source},
    {"containerResource", GW_GO_STRUCTP, true, hpa_v1_container_source},
    {"external", GW_GO_STRUCTP, true, hpa_v1_external_source},
    HPA_END,
};
static const gw_go_field_t hpa_v1_object_status[] = {
    {"target", GW_GO_STRUCT, false, hpa_object_ref},
    {"metricName", GW_GO_STRING, false, NULL},
    {"currentValue", GW_GO_QTY, false, NULL},
    {"selector", GW_GO_STRUCTP, true, hpa_selector},
    {"averageValue", GW_GO_QTYP, true, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v1_pods_status[] = {
    {"metricName", GW_GO_STRING, false, NULL},
    {"currentAverageValue", GW_GO_QTY, false, NULL},
    {"selector", GW_GO_STRUCTP, true, hpa_selector},
    HPA_END,
};
static const gw_go_field_t hpa_v1_resource_status[] = {
    {"name", GW_GO_STRING, false, NULL},
    {"currentAverageUtilization", GW_GO_INT32P, true, NULL},
    {"currentAverageValue", GW_GO_QTY, false, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v1_container_status[] = {
    {"name", GW_GO_STRING, false, NULL},
    {"currentAverageUtilization", GW_GO_INT32P, true, NULL},
    {"currentAverageValue", GW_GO_QTY, false, NULL},
    {"container", GW_GO_STRING, false, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v1_external_status[] = {
    {"metricName", GW_GO_STRING, false, NULL},
    {"metricSelector", GW_GO_STRUCTP, true, hpa_selector},
    {"currentValue", GW_GO_QTY, false, NULL},
    {"currentAverageValue", GW_GO_QTYP, true, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v1_metric_status[] = {
    {"type", GW_GO_STRING, false, NULL},
    {"object", GW_GO_STRUCTP, true, hpa_v1_object_status},
    {"pods", GW_GO_STRUCTP, true, hpa_v1_pods_status},
    {"resource", GW_GO_STRUCTP, true, hpa_v1_resource_status},
    {"containerResource", GW_GO_STRUCTP, true, hpa_v1_container_status},
    {"external", GW_GO_STRUCTP, true, hpa_v1_external_status},
    HPA_END,
};

/* HorizontalPodAutoscalerCondition: the same fields in v1 and v2 (1.32) */
static const gw_go_field_t hpa_condition[] = {
    {"type", GW_GO_STRING, false, NULL},
    {"status", GW_GO_STRING, false, NULL},
    {"lastTransitionTime", GW_GO_TIME, false, NULL},
    {"reason", GW_GO_STRING, true, NULL},
    {"message", GW_GO_STRING, true, NULL},
    HPA_END,
};

/* k8s.io/api/autoscaling/v2/types.go */
static const gw_go_field_t hpa_v2_identifier[] = {
    {"name", GW_GO_STRING, false, NULL},
    {"selector", GW_GO_STRUCTP, true, hpa_selector},
    HPA_END,
};
static const gw_go_field_t hpa_v2_target[] = {
    {"type", GW_GO_STRING, false, NULL},
    {"value", GW_GO_QTYP, true, NULL},
    {"averageValue", GW_GO_QTYP, true, NULL},
    {"averageUtilization", GW_GO_INT32P, true, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v2_value_status[] = {
    {"value", GW_GO_QTYP, true, NULL},
    {"averageValue", GW_GO_QTYP, true, NULL},
    {"averageUtilization", GW_GO_INT32P, true, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v2_object_source[] = {
    {"describedObject", GW_GO_STRUCT, false, hpa_object_ref},
    {"target", GW_GO_STRUCT, false, hpa_v2_target},
    {"metric", GW_GO_STRUCT, false, hpa_v2_identifier},
    HPA_END,
};
static const gw_go_field_t hpa_v2_metric_source[] = {
    /* Pods and External */
    {"metric", GW_GO_STRUCT, false, hpa_v2_identifier},
    {"target", GW_GO_STRUCT, false, hpa_v2_target},
    HPA_END,
};
static const gw_go_field_t hpa_v2_resource_source[] = {
    {"name", GW_GO_STRING, false, NULL},
    {"target", GW_GO_STRUCT, false, hpa_v2_target},
    HPA_END,
};
static const gw_go_field_t hpa_v2_container_source[] = {
    {"name", GW_GO_STRING, false, NULL},
    {"target", GW_GO_STRUCT, false, hpa_v2_target},
    {"container", GW_GO_STRING, false, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v2_metric_spec[] = {
    {"type", GW_GO_STRING, false, NULL},
    {"object", GW_GO_STRUCTP, true, hpa_v2_object_source},
    {"pods", GW_GO_STRUCTP, true, hpa_v2_metric_source},
    {"resource", GW_GO_STRUCTP, true, hpa_v2_resource_source},
    {"containerResource", GW_GO_STRUCTP, true, hpa_v2_container_source},
    {"external", GW_GO_STRUCTP, true, hpa_v2_metric_source},
    HPA_END,
};
static const gw_go_field_t hpa_v2_object_status[] = {
    {"metric", GW_GO_STRUCT, false, hpa_v2_identifier},
    {"current", GW_GO_STRUCT, false, hpa_v2_value_status},
    {"describedObject", GW_GO_STRUCT, false, hpa_object_ref},
    HPA_END,
};
static const gw_go_field_t hpa_v2_metric_value_status[] = {
    /* Pods and External */
    {"metric", GW_GO_STRUCT, false, hpa_v2_identifier},
    {"current", GW_GO_STRUCT, false, hpa_v2_value_status},
    HPA_END,
};
static const gw_go_field_t hpa_v2_resource_status[] = {
    {"name", GW_GO_STRING, false, NULL},
    {"current", GW_GO_STRUCT, false, hpa_v2_value_status},
    HPA_END,
};
static const gw_go_field_t hpa_v2_container_status[] = {
    {"name", GW_GO_STRING, false, NULL},
    {"current", GW_GO_STRUCT, false, hpa_v2_value_status},
    {"container", GW_GO_STRING, false, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v2_metric_status[] = {
    {"type", GW_GO_STRING, false, NULL},
    {"object", GW_GO_STRUCTP, true, hpa_v2_object_status},
    {"pods", GW_GO_STRUCTP, true, hpa_v2_metric_value_status},
    {"resource", GW_GO_STRUCTP, true, hpa_v2_resource_status},
    {"containerResource", GW_GO_STRUCTP, true, hpa_v2_container_status},
    {"external", GW_GO_STRUCTP, true, hpa_v2_metric_value_status},
    HPA_END,
};

/* The behavior: v2's fields, in the internal type's order, which is v2's; the internal type's
 * Go names are these with the first letter raised (gw_convert__go_value's `untagged`). */
static const gw_go_field_t hpa_v2_policy[] = {
    {"type", GW_GO_STRING, false, NULL},
    {"value", GW_GO_INT32, false, NULL},
    {"periodSeconds", GW_GO_INT32, false, NULL},
    HPA_END,
};
static const gw_go_field_t hpa_v2_rules[] = {
    {"stabilizationWindowSeconds", GW_GO_INT32P, true, NULL},
    {"selectPolicy", GW_GO_STRINGP, true, NULL},
    {"policies", GW_GO_LIST, true, hpa_v2_policy},
    HPA_END,
};
static const gw_go_field_t hpa_v2_behavior[] = {
    {"scaleUp", GW_GO_STRUCTP, true, hpa_v2_rules},
    {"scaleDown", GW_GO_STRUCTP, true, hpa_v2_rules},
    HPA_END,
};

/* The values the annotations and the moved fields hold. */
static const gw_go_field_t hpa_v1_metric_specs = {"", GW_GO_LIST, false, hpa_v1_metric_spec};
static const gw_go_field_t hpa_v1_metric_statuses = {"", GW_GO_LIST, false, hpa_v1_metric_status};
static const gw_go_field_t hpa_v2_metric_specs = {"", GW_GO_LIST, false, hpa_v2_metric_spec};
static const gw_go_field_t hpa_v2_metric_statuses = {"", GW_GO_LIST, false, hpa_v2_metric_status};
static const gw_go_field_t hpa_conditions = {"", GW_GO_LIST, false, hpa_condition};
static const gw_go_field_t hpa_behavior_type = {"", GW_GO_STRUCT, false, hpa_v2_behavior};
static const gw_go_field_t hpa_int32_ptr = {"", GW_GO_INT32P, false, NULL};

/* ---- one metric, field by field ---------------------------------------------------------- */

/* A field of a v2 metric source (a path of at most two names) and the v1 field it is;
 * `always`: v1's field is a Quantity value, so v2's pointer is always set (to "0" if unset). */
typedef struct {
    const char *v2, *v1;
    bool always;
} hpa_move_t;

static const hpa_move_t hpa_object_spec[] = {
    {"describedObject", "target", false},           {"metric.name", "metricName", false},
    {"target.value", "targetValue", true},          {"metric.selector", "selector", false},
    {"target.averageValue", "averageValue", false}, {NULL, NULL, false},
};
static const hpa_move_t hpa_pods_spec[] = {
    {"metric.name", "metricName", false},
    {"target.averageValue", "targetAverageValue", true},
    {"metric.selector", "selector", false},
    {NULL, NULL, false},
};
static const hpa_move_t hpa_resource_spec[] = {
    {"name", "name", false},
    {"target.averageUtilization", "targetAverageUtilization", false},
    {"target.averageValue", "targetAverageValue", false},
    {"container", "container", false}, /* ContainerResource only: Resource has none */
    {NULL, NULL, false},
};
static const hpa_move_t hpa_external_spec[] = {
    {"metric.name", "metricName", false},
    {"metric.selector", "metricSelector", false},
    {"target.value", "targetValue", false},
    {"target.averageValue", "targetAverageValue", false},
    {NULL, NULL, false},
};
static const hpa_move_t hpa_object_status[] = {
    {"describedObject", "target", false},
    {"metric.name", "metricName", false},
    {"current.value", "currentValue", true},
    {"metric.selector", "selector", false},
    {"current.averageValue", "averageValue", false},
    {NULL, NULL, false},
};
static const hpa_move_t hpa_pods_status[] = {
    {"metric.name", "metricName", false},
    {"current.averageValue", "currentAverageValue", true},
    {"metric.selector", "selector", false},
    {NULL, NULL, false},
};
static const hpa_move_t hpa_resource_status[] = {
    {"name", "name", false},
    {"current.averageUtilization", "currentAverageUtilization", false},
    {"current.averageValue", "currentAverageValue", true},
    {"container", "container", false},
    {NULL, NULL, false},
};
static const hpa_move_t hpa_external_status[] = {
    {"metric.name", "metricName", false},
    {"metric.selector", "metricSelector", false},
    {"current.value", "currentValue", true},
    {"current.averageValue", "currentAverageValue", false},
    {NULL, NULL, false},
};

/* One metric source: its member (the same in v1 and v2), its fields, and how v1 -> v2 picks
 * a target's type: `type_set` when the v1 field `type_if` is set, else `type_unset`. */
typedef struct {
    const char *key;
    const hpa_move_t *spec, *status;
    const char *type_if, *type_set, *type_unset;
} hpa_source_t;

static const hpa_source_t hpa_sources[] = {
    {"object", hpa_object_spec, hpa_object_status, "averageValue", "AverageValue", "Value"},
    {"pods", hpa_pods_spec, hpa_pods_status, NULL, NULL, "AverageValue"},
    {"resource", hpa_resource_spec, hpa_resource_status, "targetAverageUtilization", "Utilization",
     "AverageValue"},
    {"containerResource", hpa_resource_spec, hpa_resource_status, "targetAverageUtilization",
     "Utilization", "AverageValue"},
    {"external", hpa_external_spec, hpa_external_status, "targetValue", "Value", "AverageValue"},
};

#define HPA_N_SOURCES (sizeof(hpa_sources) / sizeof(hpa_sources[0]))

/* A member that is there and not null. */
static json_t *
hpa_get(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    return json_is_null(v) ? NULL : v;
}

/* The value at a path of one or two names ("target.value"). */
static json_t *
hpa_path_get(const json_t *obj, const char *path)
{
    const char *dot = strchr(path, '.');
    char first[32];

    if (dot == NULL)
        return hpa_get(obj, path);
    memcpy(first, path, (size_t)(dot - path));
    first[dot - path] = '\0';
    return hpa_get(hpa_get(obj, first), dot + 1);
}

static void
hpa_path_set(json_t *obj, const char *path, json_t *v)
{
    const char *dot = strchr(path, '.');
    char first[32];
    json_t *inner;

    if (dot == NULL) {
        json_object_set(obj, path, v);
        return;
    }
    memcpy(first, path, (size_t)(dot - path));
    first[dot - path] = '\0';
    inner = json_object_get(obj, first);
    if (inner == NULL) {
        inner = json_object();
        json_object_set_new(obj, first, inner);
    }
    json_object_set(inner, dot + 1, v);
}

/* One source's fields moved between a v2 source and a v1 one (normalized values). */
static json_t *
hpa_source(const hpa_source_t *s, const json_t *in, bool status, bool to_v2)
{
    const hpa_move_t *moves = status ? s->status : s->spec;
    json_t *out = json_object();

    for (const hpa_move_t *m = moves; m->v2 != NULL; m++) {
        json_t *v = to_v2 ? hpa_get(in, m->v1) : hpa_path_get(in, m->v2);
        json_t *zero = NULL;

        if (v == NULL && to_v2 && m->always)
            v = zero = json_string("0");
        if (v != NULL && to_v2)
            hpa_path_set(out, m->v2, v);
        else if (v != NULL)
            json_object_set(out, m->v1, v);
        json_decref(zero);
    }
    if (to_v2 && !status) {
        bool set = s->type_if != NULL && hpa_get(in, s->type_if) != NULL;
        json_t *type = json_string(set ? s->type_set : s->type_unset);

        hpa_path_set(out, "target.type", type);
        json_decref(type);
    }
    return out;
}

/* A MetricSpec (or, `status`, a MetricStatus) between v2 and v1, both normalized: the
 * conversion.go functions for each source, which copy each field to its counterpart. */
static json_t *
hpa_metric(const json_t *in, bool status, bool to_v2)
{
    json_t *out = json_object(), *type = hpa_get(in, "type");

    if (type != NULL)
        json_object_set(out, "type", type);
    for (size_t i = 0; i < HPA_N_SOURCES; i++) {
        json_t *src = hpa_get(in, hpa_sources[i].key);

        if (src != NULL)
            json_object_set_new(out, hpa_sources[i].key,
                                hpa_source(&hpa_sources[i], src, status, to_v2));
    }
    return out;
}

/* ---- the document ------------------------------------------------------------------------ */

/* Take member `key` out of parent (when parent is an object), decoded as `type` into *out. A
 * v2 document was validated before it was stored, so it decodes; of one that does not, what
 * did decode is used. */
static void
hpa_take(json_t *parent, const char *key, const gw_go_field_t *type, json_t **out)
{
    json_t *v = json_object_get(parent, key);

    if (v != NULL)
        gw_convert__go_decode(type, v, out);
    json_object_del(parent, key);
}

static json_t *
hpa_annotations(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "metadata"), "annotations");
}

/* The round-trip annotation `key` decoded as `type`: true with *out (NULL for a JSON null)
 * when it is there and decodes, as kube's json.Unmarshal of it succeeds. */
static bool
hpa_annotation(const json_t *obj, const char *key, const gw_go_field_t *type, json_t **out)
{
    const char *text = json_string_value(json_object_get(hpa_annotations(obj), key));
    json_t *doc;
    bool ok;

    *out = NULL;
    if (text == NULL || (doc = json_loads(text, JSON_DECODE_ANY, NULL)) == NULL)
        return false;
    ok = gw_convert__go_decode(type, doc, out);
    json_decref(doc);
    if (!ok) {
        json_decref(*out);
        *out = NULL;
    }
    return ok;
}

/* DropRoundTripHorizontalPodAutoscalerAnnotations, then the new ones (`set`, key -> text). A
 * map left empty is one Go's omitempty leaves out (and metadata left empty, one the other way
 * made for them). */
static void
hpa_set_annotations(json_t *obj, json_t *set)
{
    static const char *const round_trip[] = {HPA_ANN_METRICS, HPA_ANN_BEHAVIOR, HPA_ANN_CURRENT,
                                             HPA_ANN_CONDITIONS};
    json_t *meta = json_object_get(obj, "metadata"), *ann = hpa_annotations(obj);
    bool dropped = false;

    for (size_t i = 0; i < sizeof(round_trip) / sizeof(round_trip[0]); i++)
        dropped |= json_object_del(ann, round_trip[i]) == 0;
    if (json_object_size(set) > 0) {
        if (meta == NULL)
            json_object_set_new(obj, "metadata", meta = json_object());
        if (json_is_object(meta) && !json_is_object(ann))
            json_object_set_new(meta, "annotations", ann = json_object());
        json_object_update(ann, set);
    }
    if (dropped && json_object_size(ann) == 0) {
        json_object_del(meta, "annotations");
        if (json_object_size(meta) == 0)
            json_object_del(obj, "metadata");
    }
}

/* Go's JSON text of v (normalized, of `type`) as annotation `key`. */
static void
hpa_add_text(json_t *set, const char *key, const gw_go_field_t *type, const json_t *v,
             bool untagged)
{
    json_t *go = gw_convert__go_value(type, v, untagged);
    char *text = gw_convert__go_json(go);

    json_object_set_new(set, key, json_string(text));
    free(text);
    json_decref(go);
}

/* Whether a v2 metric (normalized) is a Resource metric on cpu; `target`: with a target's
 * averageUtilization, else with a current averageUtilization. */
static json_t *
hpa_cpu_utilization(const json_t *m, bool target)
{
    json_t *type = hpa_get(m, "type"), *res = hpa_get(m, "resource");

    if (!json_is_string(type) || strcmp(json_string_value(type), "Resource") != 0 || res == NULL ||
        !json_is_string(hpa_get(res, "name")) ||
        strcmp(json_string_value(hpa_get(res, "name")), "cpu") != 0)
        return NULL;
    return hpa_path_get(res, target ? "target.averageUtilization" : "current.averageUtilization");
}

/* spec.metrics to targetCPUUtilizationPercentage and the metrics annotation. */
static void
hpa_spec_to_v1(json_t *spec, const json_t *metrics, json_t *set)
{
    json_t *others = json_array(), *m, *cpu;
    bool have_cpu = false;
    size_t i;

    json_array_foreach(metrics, i, m)
    {
        if ((cpu = hpa_cpu_utilization(m, true)) == NULL)
            json_array_append_new(others, hpa_metric(m, false, false));
        else if (!have_cpu)
            have_cpu = json_object_set(spec, "targetCPUUtilizationPercentage", cpu) == 0;
    }
    if (json_array_size(others) > 0)
        hpa_add_text(set, HPA_ANN_METRICS, &hpa_v1_metric_specs, others, false);
    json_decref(others);
}

/* status.currentMetrics to currentCPUUtilizationPercentage (the last cpu utilization) and,
 * all of them, the current-metrics annotation; the conditions to theirs. */
static void
hpa_status_to_v1(json_t *status, const json_t *current, const json_t *conds, json_t *set)
{
    json_t *v1 = json_array(), *m, *cpu;
    size_t i;

    json_array_foreach(current, i, m)
    {
        if ((cpu = hpa_cpu_utilization(m, false)) != NULL)
            json_object_set(status, "currentCPUUtilizationPercentage", cpu);
        json_array_append_new(v1, hpa_metric(m, true, false));
    }
    if (json_array_size(v1) > 0)
        hpa_add_text(set, HPA_ANN_CURRENT, &hpa_v1_metric_statuses, v1, false);
    if (json_array_size(conds) > 0)
        hpa_add_text(set, HPA_ANN_CONDITIONS, &hpa_conditions, conds, false);
    json_decref(v1);
}

void
gw_convert__hpa_v2_to_v1(json_t *obj)
{
    json_t *spec = json_object_get(obj, "spec"), *status = json_object_get(obj, "status");
    json_t *metrics = NULL, *behavior = NULL, *current = NULL, *conds = NULL, *set;

    hpa_take(spec, "metrics", &hpa_v2_metric_specs, &metrics);
    hpa_take(spec, "behavior", &hpa_behavior_type, &behavior);
    hpa_take(status, "currentMetrics", &hpa_v2_metric_statuses, &current);
    hpa_take(status, "conditions", &hpa_conditions, &conds);
    json_object_del(spec, "targetCPUUtilizationPercentage");
    json_object_del(status, "currentCPUUtilizationPercentage");
    set = json_object();
    hpa_spec_to_v1(spec, metrics, set);
    hpa_status_to_v1(status, current, conds, set);
    /* kube marshals the internal type here (a TODO in conversion.go says so) */
    if (behavior != NULL)
        hpa_add_text(set, HPA_ANN_BEHAVIOR, &hpa_behavior_type, behavior, true);
    hpa_set_annotations(obj, set);
    json_decref(set);
    json_decref(metrics);
    json_decref(behavior);
    json_decref(current);
    json_decref(conds);
}

/* The metric v1 states by a number: cpu utilization, a target or (`current`) a current one. */
static json_t *
hpa_cpu_metric(json_int_t percent, bool current)
{
    if (current)
        return json_pack("{s:s,s:{s:s,s:{s:I}}}", "type", "Resource", "resource", "name", "cpu",
                         "current", "averageUtilization", percent);
    return json_pack("{s:s,s:{s:s,s:{s:s,s:I}}}", "type", "Resource", "resource", "name", "cpu",
                     "target", "type", "Utilization", "averageUtilization", percent);
}

/* The metrics: the annotation's (when it decodes), then the CPU target; none at all is
 * kube's default, 80% CPU. */
static json_t *
hpa_metrics_from_v1(const json_t *obj, const json_t *cpu)
{
    json_t *metrics = json_array(), *others, *m;
    size_t i;

    if (hpa_annotation(obj, HPA_ANN_METRICS, &hpa_v1_metric_specs, &others)) {
        json_array_foreach(others, i, m) json_array_append_new(metrics, hpa_metric(m, false, true));
    }
    json_decref(others);
    if (cpu != NULL)
        json_array_append_new(metrics, hpa_cpu_metric(json_integer_value(cpu), false));
    if (json_array_size(metrics) == 0)
        json_array_append_new(metrics, hpa_cpu_metric(HPA_DEFAULT_CPU, false));
    return metrics;
}

/* The current metrics: the annotation's when it decodes (an empty list then too), else the
 * CPU utilization, else none (NULL). */
static json_t *
hpa_current_from_v1(const json_t *obj, const json_t *cpu)
{
    json_t *current = NULL, *list, *m;
    size_t i;

    if (hpa_annotation(obj, HPA_ANN_CURRENT, &hpa_v1_metric_statuses, &list)) {
        current = json_array();
        json_array_foreach(list, i, m) json_array_append_new(current, hpa_metric(m, true, true));
    } else if (cpu != NULL) {
        current = json_pack("[o]", hpa_cpu_metric(json_integer_value(cpu), true));
    }
    json_decref(list);
    return current;
}

/* The behavior annotation decoded, when it decodes to a behavior with a rule (kube keeps only
 * one that differs from the empty behavior). */
static json_t *
hpa_behavior_from_v1(const json_t *obj)
{
    json_t *b;

    if (!hpa_annotation(obj, HPA_ANN_BEHAVIOR, &hpa_behavior_type, &b) ||
        (hpa_get(b, "scaleUp") == NULL && hpa_get(b, "scaleDown") == NULL)) {
        json_decref(b);
        return NULL;
    }
    return b;
}

/* The object's `key` member, made an object when it is missing; NULL when it is not one. */
static json_t *
hpa_member(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    if (v == NULL || json_is_null(v))
        json_object_set_new(obj, key, v = json_object());
    return json_is_object(v) ? v : NULL;
}

static void
hpa_status_from_v1(json_t *obj, const json_t *cpu)
{
    json_t *current = hpa_current_from_v1(obj, cpu), *conds = NULL, *status;

    /* conditions has omitempty: an empty list is none */
    if (hpa_annotation(obj, HPA_ANN_CONDITIONS, &hpa_conditions, &conds) &&
        json_array_size(conds) == 0) {
        json_decref(conds);
        conds = NULL;
    }
    if ((current != NULL || conds != NULL) && (status = hpa_member(obj, "status")) != NULL) {
        if (current != NULL) /* currentMetrics has no omitempty: an empty list shows */
            json_object_set_new(status, "currentMetrics",
                                gw_convert__go_value(&hpa_v2_metric_statuses, current, false));
        if (conds != NULL)
            json_object_set_new(status, "conditions",
                                gw_convert__go_value(&hpa_conditions, conds, false));
    }
    json_decref(current);
    json_decref(conds);
}

void
gw_convert__hpa_v1_to_v2(json_t *obj)
{
    json_t *spec = json_object_get(obj, "spec"), *status = json_object_get(obj, "status");
    json_t *cpu = NULL, *current_cpu = NULL, *metrics, *behavior;

    hpa_take(spec, "targetCPUUtilizationPercentage", &hpa_int32_ptr, &cpu);
    hpa_take(status, "currentCPUUtilizationPercentage", &hpa_int32_ptr, &current_cpu);
    /* v2's currentReplicas has omitempty where v1's has none: a 0 Go's v2 JSON leaves out */
    if (json_is_integer(json_object_get(status, "currentReplicas")) &&
        json_integer_value(json_object_get(status, "currentReplicas")) == 0)
        json_object_del(status, "currentReplicas");
    /* v1 has none of these: a v1 document's members of those names are no part of it */
    json_object_del(spec, "metrics");
    json_object_del(spec, "behavior");
    json_object_del(status, "currentMetrics");
    json_object_del(status, "conditions");
    metrics = hpa_metrics_from_v1(obj, cpu);
    behavior = hpa_behavior_from_v1(obj);
    if ((spec = hpa_member(obj, "spec")) != NULL) {
        json_object_set_new(spec, "metrics",
                            gw_convert__go_value(&hpa_v2_metric_specs, metrics, false));
        if (behavior != NULL)
            json_object_set_new(spec, "behavior",
                                gw_convert__go_value(&hpa_behavior_type, behavior, false));
    }
    hpa_status_from_v1(obj, current_cpu);
    hpa_set_annotations(obj, NULL);
    json_decref(metrics);
    json_decref(behavior);
    json_decref(cpu);
    json_decref(current_cpu);
}

void
gw_convert__hpa_v2_internal(json_t *obj)
{
    hpa_set_annotations(obj, NULL);
}
