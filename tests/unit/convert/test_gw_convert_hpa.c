/* Unit tests for gateway/convert/gw_convert_hpa.c: autoscaling/v1 <-> v2 HorizontalPodAutoscaler
 * as kube-apiserver 1.32 converts it (pkg/apis/autoscaling/v1/conversion.go), with the text of
 * its round-trip annotations compared byte for byte with what Go's encoding/json writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_convert.h"
#include "gw_convert_int.h"
#include "gw_gozero.h"
#include "tap.h"

#define ANN_METRICS "autoscaling.alpha.kubernetes.io/metrics"
#define ANN_CURRENT "autoscaling.alpha.kubernetes.io/current-metrics"
#define ANN_CONDITIONS "autoscaling.alpha.kubernetes.io/conditions"
#define ANN_BEHAVIOR "autoscaling.alpha.kubernetes.io/behavior"

#define V1 "autoscaling/v1"
#define V2 "autoscaling/v2"
#define HPA "HorizontalPodAutoscaler"

/* A document written with single quotes (the tests' strings hold none of their own). */
static json_t *
doc(const char *sq)
{
    char *s = strdup(sq);
    json_error_t e;
    json_t *j;

    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    j = json_loads(s, 0, &e);
    if (j == NULL)
        tap_diag("bad test JSON: %s: %s", e.text, s);
    free(s);
    return j;
}

static const char *
annotation(const json_t *obj, const char *key)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(obj, "metadata"), "annotations"), key));
}

static void
set_annotation(json_t *obj, const char *key, const char *text)
{
    json_t *meta = json_object_get(obj, "metadata"), *ann;

    if (meta == NULL)
        json_object_set_new(obj, "metadata", meta = json_object());
    if ((ann = json_object_get(meta, "annotations")) == NULL)
        json_object_set_new(meta, "annotations", ann = json_object());
    json_object_set_new(ann, key, json_string(text));
}

static int
same_doc(const json_t *got, const json_t *want, const char *name)
{
    int ok = got != NULL && want != NULL && json_equal(got, want);

    if (!ok) {
        char *g = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        char *w = want ? json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

        tap_diag("got:  %s", g ? g : "(null)");
        tap_diag("want: %s", w ? w : "(null)");
        free(g);
        free(w);
    }
    return tap_ok(ok, "%s", name);
}

static void
is_text(const char *got, const char *want, const char *name)
{
    if (!tap_ok(got != NULL && strcmp(got, want) == 0, "%s", name)) {
        tap_diag("got:  %s", got ? got : "(none)");
        tap_diag("want: %s", want);
    }
}

/* Convert a copy of `in` with gw_convert and compare with `want` (the annotations compared
 * by value too, so their text byte for byte). */
static json_t *
converts(const json_t *in, const char *to, const json_t *want, const char *name)
{
    json_t *got = json_deep_copy(in);

    if (!tap_ok(gw_convert(got, to, HPA), "%s: converted", name))
        return got;
    same_doc(got, want, name);
    return got;
}

/* in -> other version -> back: the document again. */
static void
round_trips(const json_t *in, const char *via, const char *name)
{
    json_t *o = json_deep_copy(in);
    const char *back = json_string_value(json_object_get(in, "apiVersion"));

    gw_convert(o, via, HPA);
    gw_convert(o, back, HPA);
    same_doc(o, in, name);
    json_decref(o);
}

#define META "'metadata':{'name':'web','namespace':'d','uid':'u1','resourceVersion':'7'}"
#define REF "'scaleTargetRef':{'kind':'Deployment','name':'web','apiVersion':'apps/v1'}"
#define CPU_TARGET(n)                                                                              \
    "{'type':'Resource','resource':{'name':'cpu','target':{'type':'Utilization',"                  \
    "'averageUtilization':" #n "}}}"

static void
test_cpu(void)
{
    json_t *v1 = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler'," META
                     ",'spec':{" REF ",'minReplicas':1,'maxReplicas':5,"
                     "'targetCPUUtilizationPercentage':70},'status':{'observedGeneration':3,"
                     "'lastScaleTime':'2024-05-06T07:08:09Z','currentReplicas':2,"
                     "'desiredReplicas':3,'currentCPUUtilizationPercentage':40}}");
    json_t *v2 = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler'," META
                     ",'spec':{" REF ",'minReplicas':1,'maxReplicas':5,'metrics':[" CPU_TARGET(
                         70) "]},'status':{'observedGeneration':3,"
                             "'lastScaleTime':'2024-05-06T07:08:09Z','currentReplicas':2,"
                             "'desiredReplicas':3,'currentMetrics':[{'type':'Resource',"
                             "'resource':{'name':'cpu','current':{'averageUtilization':40}}}]}}");
    json_t *got, *want;

    json_decref(converts(v1, V2, v2, "v1 -> v2: the CPU target and utilization as cpu metrics"));
    /* v2 -> v1 keeps the utilization, and every current metric in the annotation (the value
     * too, which v1 has no field for). */
    json_object_set_new(
        json_object_get(
            json_array_get(json_object_get(json_object_get(v2, "status"), "currentMetrics"), 0),
            "resource"),
        "current", doc("{'averageValue':'250m','averageUtilization':40}"));
    want = json_deep_copy(v1);
    set_annotation(want, ANN_CURRENT,
                   "[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\","
                   "\"currentAverageUtilization\":40,\"currentAverageValue\":\"250m\"}}]");
    got = converts(v2, V1, want, "v2 -> v1: targetCPU, currentCPU, current metrics annotation");
    is_text(annotation(got, ANN_CURRENT),
            "[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\","
            "\"currentAverageUtilization\":40,\"currentAverageValue\":\"250m\"}}]",
            "v2 -> v1: the current-metrics annotation's text");
    tap_ok(annotation(got, ANN_METRICS) == NULL, "v2 -> v1: only a CPU target: no metrics "
                                                 "annotation");
    round_trips(v2, V1, "v2 -> v1 -> v2: CPU target and current metric");
    round_trips(got, V2, "v1 -> v2 -> v1: a v1 object kube wrote");
    json_decref(got);
    json_decref(want);
    json_decref(v1);
    json_decref(v2);
}

static void
test_default(void)
{
    json_t *in = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler'," META
                     ",'spec':{" REF ",'maxReplicas':3}}");
    json_t *want = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler'," META
                       ",'spec':{" REF ",'maxReplicas':3,'metrics':[" CPU_TARGET(80) "]}}");
    json_t *got;

    json_decref(converts(in, V2, want, "v1 -> v2: no CPU target, no metrics: kube's 80% CPU"));
    json_decref(want);
    want = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler'," META
               ",'spec':{" REF ",'maxReplicas':3,'targetCPUUtilizationPercentage':80}}");
    got = json_deep_copy(in);
    gw_convert(got, V2, HPA);
    gw_convert(got, V1, HPA);
    same_doc(got, want, "v1 -> v2 -> v1: the default comes back as an 80% target (kube's too)");
    json_decref(got);
    json_decref(in);
    json_decref(want);

    in = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler'}");
    want = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{'metrics':"
               "[" CPU_TARGET(80) "]}}");
    json_decref(converts(in, V2, want, "v1 -> v2: no spec at all: the default still"));
    json_decref(in);
    json_decref(want);
}

/* Every source type, the CPU target last (where v1 -> v2 puts it back). */
#define ALL_METRICS                                                                                \
    "[{'type':'Object','object':{'describedObject':{'kind':'Ingress','name':'main',"               \
    "'apiVersion':'networking.k8s.io/v1'},'target':{'type':'Value','value':'10k'},"                \
    "'metric':{'name':'requests','selector':{'matchLabels':{'b':'2','a':'1'}}}}},"                 \
    "{'type':'Pods','pods':{'metric':{'name':'qps'},'target':{'type':'AverageValue',"              \
    "'averageValue':'1k'}}},"                                                                      \
    "{'type':'Resource','resource':{'name':'memory','target':{'type':'AverageValue',"              \
    "'averageValue':'512Mi'}}},"                                                                   \
    "{'type':'ContainerResource','containerResource':{'name':'cpu','target':{'type':"              \
    "'Utilization','averageUtilization':60},'container':'app'}},"                                  \
    "{'type':'External','external':{'metric':{'name':'queue','selector':{'matchExpressions':"      \
    "[{'key':'q','operator':'In','values':['a','b']}]}},'target':{'type':'AverageValue',"          \
    "'averageValue':'30'}}},"                                                                      \
    "{'type':'External','external':{'metric':{'name':'lag'},'target':{'type':'Value',"             \
    "'value':'5'}}}," CPU_TARGET(50) "]"

#define ALL_METRICS_V1                                                                             \
    "[{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Ingress\",\"name\":\"main\","        \
    "\"apiVersion\":\"networking.k8s.io/v1\"},\"metricName\":\"requests\",\"targetValue\":"        \
    "\"10k\",\"selector\":{\"matchLabels\":{\"a\":\"1\",\"b\":\"2\"}}}},"                          \
    "{\"type\":\"Pods\",\"pods\":{\"metricName\":\"qps\",\"targetAverageValue\":\"1k\"}},"         \
    "{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"targetAverageValue\":"             \
    "\"512Mi\"}},"                                                                                 \
    "{\"type\":\"ContainerResource\",\"containerResource\":{\"name\":\"cpu\","                     \
    "\"targetAverageUtilization\":60,\"container\":\"app\"}},"                                     \
    "{\"type\":\"External\",\"external\":{\"metricName\":\"queue\",\"metricSelector\":"            \
    "{\"matchExpressions\":[{\"key\":\"q\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}]},"       \
    "\"targetAverageValue\":\"30\"}},"                                                             \
    "{\"type\":\"External\",\"external\":{\"metricName\":\"lag\",\"targetValue\":\"5\"}}]"

static void
test_metric_sources(void)
{
    json_t *v2 = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler'," META
                     ",'spec':{" REF ",'maxReplicas':9,'metrics':" ALL_METRICS "}}");
    json_t *want = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler'," META
                       ",'spec':{" REF ",'maxReplicas':9,'targetCPUUtilizationPercentage':50}}");
    json_t *got;

    set_annotation(want, ANN_METRICS, ALL_METRICS_V1);
    got = converts(v2, V1, want, "v2 -> v1: every source type but the CPU target annotated");
    is_text(annotation(got, ANN_METRICS), ALL_METRICS_V1,
            "v2 -> v1: the metrics annotation as Go writes v1 MetricSpecs (selector's labels "
            "sorted, omitempty, quantities as given)");
    json_decref(converts(got, V2, v2, "v1 -> v2: every source type from the annotation"));
    round_trips(v2, V1, "v2 -> v1 -> v2: every source type");
    round_trips(got, V2, "v1 -> v2 -> v1: every source type");
    json_decref(got);
    json_decref(want);
    json_decref(v2);
}

/* What kube's round trip changes, it changes here too. */
static void
test_kube_losses(void)
{
    json_t *v2 = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{"
                     "'maxReplicas':2,'metrics':[" CPU_TARGET(
                         50) ",{'type':'Object','object':{'describedObject':{'kind':'Service',"
                             "'name':'s'},'target':{'type':'AverageValue','averageValue':'2'},"
                             "'metric':{'name':'m'}}}," CPU_TARGET(90) "]}}");
    json_t *want = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{"
                       "'maxReplicas':2,'metrics':[{'type':'Object','object':{'describedObject':"
                       "{'kind':'Service','name':'s'},'target':{'type':'AverageValue','value':"
                       "'0','averageValue':'2'},'metric':{'name':'m'}}}," CPU_TARGET(50) "]}}");
    json_t *got = json_deep_copy(v2);

    gw_convert(got, V1, HPA);
    tap_is_int(json_integer_value(
                   json_object_get(json_object_get(got, "spec"), "targetCPUUtilizationPercentage")),
               50, "v2 -> v1: the first CPU utilization metric is the target");
    is_text(annotation(got, ANN_METRICS),
            "[{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"s\"},"
            "\"metricName\":\"m\",\"targetValue\":\"0\",\"averageValue\":\"2\"}}]",
            "v2 -> v1: an Object target without a value writes v1's zero targetValue");
    gw_convert(got, V2, HPA);
    same_doc(got, want,
             "v1 -> v2: CPU target last, the second CPU target gone, the Object value \"0\"");
    json_decref(got);
    json_decref(want);
    json_decref(v2);

    v2 = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{"
             "'maxReplicas':2,'metrics':[{'type':'Pods','pods':{'metric':{'name':'p'},"
             "'target':{'type':'AverageValue','averageValue':'1'}}}],'behavior':{}}}");
    got = json_deep_copy(v2);
    gw_convert(got, V1, HPA);
    is_text(annotation(got, ANN_BEHAVIOR), "{\"ScaleUp\":null,\"ScaleDown\":null}",
            "v2 -> v1: an empty behavior is still written");
    gw_convert(got, V2, HPA);
    json_object_del(json_object_get(v2, "spec"), "behavior");
    same_doc(got, v2, "v1 -> v2: an empty behavior does not come back");
    json_decref(got);
    json_decref(v2);
}

static void
test_behavior(void)
{
    json_t *v2 = doc(
        "{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{'maxReplicas':4,"
        "'metrics':[" CPU_TARGET(
            60) "],'behavior':{'scaleUp':{'stabilizationWindowSeconds':0,'selectPolicy':'Max',"
                "'policies':[{'type':'Pods','value':4,'periodSeconds':15},{'type':'Percent',"
                "'value':100,'periodSeconds':15}]},'scaleDown':{'stabilizationWindowSeconds':300,"
                "'policies':[{'type':'Percent','value':100,'periodSeconds':15}]}}}}");
    json_t *want = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler','spec':{"
                       "'maxReplicas':4,'targetCPUUtilizationPercentage':60}}");
    const char *text =
        "{\"ScaleUp\":{\"StabilizationWindowSeconds\":0,\"SelectPolicy\":\"Max\",\"Policies\":"
        "[{\"Type\":\"Pods\",\"Value\":4,\"PeriodSeconds\":15},{\"Type\":\"Percent\",\"Value\":100,"
        "\"PeriodSeconds\":15}]},\"ScaleDown\":{\"StabilizationWindowSeconds\":300,"
        "\"SelectPolicy\":null,\"Policies\":[{\"Type\":\"Percent\",\"Value\":100,"
        "\"PeriodSeconds\":15}]}}";
    json_t *got;

    set_annotation(want, ANN_BEHAVIOR, text);
    got = converts(v2, V1, want, "v2 -> v1: the behavior annotated");
    is_text(annotation(got, ANN_BEHAVIOR), text,
            "v2 -> v1: the internal type's Go field names, nil pointers as null");
    json_decref(converts(got, V2, v2, "v1 -> v2: the behavior back"));
    round_trips(v2, V1, "v2 -> v1 -> v2: behavior");
    round_trips(got, V2, "v1 -> v2 -> v1: behavior");
    json_decref(got);
    json_decref(want);
    json_decref(v2);

    v2 = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{"
             "'maxReplicas':4,'metrics':[" CPU_TARGET(60) "],'behavior':{'scaleDown':{"
                                                          "'selectPolicy':'Disabled'}}}}");
    got = json_deep_copy(v2);
    gw_convert(got, V1, HPA);
    is_text(annotation(got, ANN_BEHAVIOR),
            "{\"ScaleUp\":null,\"ScaleDown\":{\"StabilizationWindowSeconds\":null,"
            "\"SelectPolicy\":\"Disabled\",\"Policies\":null}}",
            "v2 -> v1: scaleDown alone, no policies: null");
    json_decref(got);
    round_trips(v2, V1, "v2 -> v1 -> v2: scaleDown alone");
    json_decref(v2);

    /* Go's decoder matches keys in any case */
    got = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler','spec':{"
              "'maxReplicas':4}}");
    set_annotation(got, ANN_BEHAVIOR,
                   "{\"scaleup\":{\"selectPolicy\":\"Min\",\"POLICIES\":[{\"type\":\"Pods\","
                   "\"value\":1,\"periodseconds\":60}],\"Unknown\":1}}");
    want = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{"
               "'maxReplicas':4,'metrics':[" CPU_TARGET(80) "],'behavior':{'scaleUp':{"
                                                            "'selectPolicy':'Min','policies':[{"
                                                            "'type':'Pods','value':1,"
                                                            "'periodSeconds':60}]}}}}");
    json_decref(converts(got, V2, want, "v1 -> v2: behavior keys in any case, unknown skipped"));
    json_decref(got);
    json_decref(want);
}

#define CONDITIONS                                                                                 \
    "[{'type':'AbleToScale','status':'True','lastTransitionTime':'2024-05-06T07:08:09Z',"          \
    "'reason':'ReadyForNewScale','message':'recommended size matches current size'},"              \
    "{'type':'ScalingLimited','status':'False','lastTransitionTime':'2024-05-06T07:08:10Z',"       \
    "'reason':'DesiredWithinRange'}]"

static void
test_conditions(void)
{
    json_t *v2 = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{"
                     "'maxReplicas':4,'metrics':[" CPU_TARGET(60) "]},'status':{"
                                                                  "'currentReplicas':1,"
                                                                  "'desiredReplicas':1,"
                                                                  "'conditions':" CONDITIONS "}}");
    const char *text = "[{\"type\":\"AbleToScale\",\"status\":\"True\",\"lastTransitionTime\":"
                       "\"2024-05-06T07:08:09Z\",\"reason\":\"ReadyForNewScale\",\"message\":"
                       "\"recommended size matches current size\"},{\"type\":\"ScalingLimited\","
                       "\"status\":\"False\",\"lastTransitionTime\":\"2024-05-06T07:08:10Z\","
                       "\"reason\":\"DesiredWithinRange\"}]";
    json_t *got = json_deep_copy(v2), *want;

    gw_convert(got, V1, HPA);
    is_text(annotation(got, ANN_CONDITIONS), text, "v2 -> v1: the conditions annotated");
    tap_ok(json_object_get(json_object_get(got, "status"), "conditions") == NULL,
           "v2 -> v1: no status.conditions in v1");
    round_trips(v2, V1, "v2 -> v1 -> v2: conditions");
    round_trips(got, V2, "v1 -> v2 -> v1: conditions");
    json_decref(got);
    json_decref(v2);

    /* Go's escapes, and a zero Time written as null */
    v2 = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{"
             "'maxReplicas':4,'metrics':[" CPU_TARGET(60) "]},'status':{'conditions':[{'type':"
                                                          "'ScalingActive','status':'False',"
                                                          "'message':'x'}]}}");
    json_object_set_new(
        json_array_get(json_object_get(json_object_get(v2, "status"), "conditions"), 0), "message",
        json_string("a < b && c > d\n\"q\"\\ \xe2\x80\xa8 \x01 \xc3\xa9"));
    got = json_deep_copy(v2);
    gw_convert(got, V1, HPA);
    is_text(annotation(got, ANN_CONDITIONS),
            "[{\"type\":\"ScalingActive\",\"status\":\"False\",\"lastTransitionTime\":null,"
            "\"message\":\"a \\u003c b \\u0026\\u0026 c \\u003e d\\n\\\"q\\\"\\\\ \\u2028 "
            "\\u0001 \xc3\xa9\"}]",
            "v2 -> v1: Go's HTML-safe escapes; no lastTransitionTime: null");
    gw_convert(got, V2, HPA);
    want = json_deep_copy(v2);
    json_object_set_new(
        json_array_get(json_object_get(json_object_get(want, "status"), "conditions"), 0),
        "lastTransitionTime", json_null());
    same_doc(got, want, "v1 -> v2: the message back; the zero time as Go shows it, null");
    json_decref(got);
    json_decref(want);
    json_decref(v2);
}

#define CURRENT                                                                                    \
    "[{'type':'Object','object':{'metric':{'name':'m'},'current':{'value':'3'},"                   \
    "'describedObject':{'kind':'Service','name':'s'}}},"                                           \
    "{'type':'Pods','pods':{'metric':{'name':'p','selector':{'matchLabels':{'x':'y'}}},"           \
    "'current':{'averageValue':'7'}}},"                                                            \
    "{'type':'Resource','resource':{'name':'cpu','current':{'averageValue':'250m',"                \
    "'averageUtilization':62}}},"                                                                  \
    "{'type':'ContainerResource','containerResource':{'name':'memory','current':"                  \
    "{'averageValue':'100Mi','averageUtilization':40},'container':'app'}},"                        \
    "{'type':'External','external':{'metric':{'name':'e'},'current':{'value':'9',"                 \
    "'averageValue':'3'}}}]"

static void
test_current_metrics(void)
{
    json_t *v2 = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{"
                     "'maxReplicas':4,'metrics':[" CPU_TARGET(60) "]},'status':{"
                                                                  "'currentReplicas':3,"
                                                                  "'desiredReplicas':4,"
                                                                  "'currentMetrics':" CURRENT "}}");
    json_t *got = json_deep_copy(v2), *v1;

    gw_convert(got, V1, HPA);
    is_text(annotation(got, ANN_CURRENT),
            "[{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"s\"},"
            "\"metricName\":\"m\",\"currentValue\":\"3\"}},{\"type\":\"Pods\",\"pods\":{"
            "\"metricName\":\"p\",\"currentAverageValue\":\"7\",\"selector\":{\"matchLabels\":{"
            "\"x\":\"y\"}}}},{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\","
            "\"currentAverageUtilization\":62,\"currentAverageValue\":\"250m\"}},{\"type\":"
            "\"ContainerResource\",\"containerResource\":{\"name\":\"memory\","
            "\"currentAverageUtilization\":40,\"currentAverageValue\":\"100Mi\",\"container\":"
            "\"app\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"e\",\"currentValue\":"
            "\"9\",\"currentAverageValue\":\"3\"}}]",
            "v2 -> v1: every current metric annotated as Go writes v1 MetricStatus");
    tap_is_int(json_integer_value(json_object_get(json_object_get(got, "status"),
                                                  "currentCPUUtilizationPercentage")),
               62, "v2 -> v1: the cpu utilization as currentCPUUtilizationPercentage");
    round_trips(v2, V1, "v2 -> v1 -> v2: current metrics of every type");
    round_trips(got, V2, "v1 -> v2 -> v1: current metrics of every type");
    json_decref(got);
    json_decref(v2);

    /* an annotation's list replaces the CPU utilization, even an empty one */
    v1 = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler','spec':{"
             "'maxReplicas':4,'targetCPUUtilizationPercentage':60},'status':{"
             "'currentReplicas':1,'desiredReplicas':1,'currentCPUUtilizationPercentage':10}}");
    set_annotation(v1, ANN_CURRENT, "[]");
    got = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','spec':{"
              "'maxReplicas':4,'metrics':[" CPU_TARGET(60) "]},'status':{'currentReplicas':1,"
                                                           "'desiredReplicas':1,"
                                                           "'currentMetrics':[]}}");
    json_decref(converts(v1, V2, got, "v1 -> v2: an empty current-metrics list is kept, []"));
    json_decref(got);
    json_decref(v1);
}

static void
test_bad_annotations(void)
{
    json_t *v1 = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler',"
                     "'metadata':{'name':'h','annotations':{'keep':'me'}},'spec':{"
                     "'maxReplicas':4,'targetCPUUtilizationPercentage':60},'status':{"
                     "'currentReplicas':1,'desiredReplicas':1}}");
    json_t *want = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler',"
                       "'metadata':{'name':'h','annotations':{'keep':'me'}},'spec':{"
                       "'maxReplicas':4,'metrics':[" CPU_TARGET(60) "]},'status':{"
                                                                    "'currentReplicas':1,"
                                                                    "'desiredReplicas':1}}");
    static const char *const bad[][2] = {
        {ANN_METRICS, "not json"},
        {ANN_CURRENT, "[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"p\","
                      "\"currentAverageValue\":true}}]"},
        {ANN_CONDITIONS, "{\"type\":\"AbleToScale\"}"},
        {ANN_BEHAVIOR, "{\"ScaleUp\":{\"StabilizationWindowSeconds\":\"x\"}}"},
    };

    for (size_t i = 0; i < 4; i++)
        set_annotation(v1, bad[i][0], bad[i][1]);
    json_decref(converts(v1, V2, want,
                         "v1 -> v2: annotations that do not decode are ignored "
                         "and dropped"));
    set_annotation(v1, ANN_METRICS,
                   "[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"p\",\"targetAverageValue\":"
                   "\"abc\"}}]");
    set_annotation(v1, ANN_CURRENT,
                   "[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\","
                   "\"currentAverageUtilization\":1.5}}]");
    set_annotation(v1, ANN_CONDITIONS,
                   "[{\"type\":\"AbleToScale\",\"lastTransitionTime\":\"yesterday\"}]");
    set_annotation(v1, ANN_BEHAVIOR, "{\"ScaleUp\":{\"StabilizationWindowSeconds\":4294967296}}");
    json_decref(converts(v1, V2, want,
                         "v1 -> v2: a bad quantity, a fraction, a bad time, an int32 overflow: "
                         "each annotation ignored"));
    json_decref(v1);
    json_decref(want);

    v1 = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler','metadata':{"
             "'name':'h'},'spec':{'maxReplicas':4}}");
    set_annotation(v1, ANN_BEHAVIOR, "null");
    set_annotation(v1, ANN_METRICS, "null");
    want = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','metadata':{"
               "'name':'h'},'spec':{'maxReplicas':4,'metrics':[" CPU_TARGET(80) "]}}");
    json_decref(converts(v1, V2, want,
                         "v1 -> v2: null annotations decode to nothing; the map "
                         "left empty is gone"));
    json_decref(v1);
    json_decref(want);
}

static void
test_drop_round_trip(void)
{
    json_t *v2 = doc("{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler',"
                     "'metadata':{'name':'h','annotations':{'other':'o'}},'spec':{"
                     "'maxReplicas':4,'metrics':[" CPU_TARGET(60) "]}}");
    json_t *want = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler',"
                       "'metadata':{'name':'h','annotations':{'other':'o'}},'spec':{"
                       "'maxReplicas':4,'targetCPUUtilizationPercentage':60}}");

    set_annotation(v2, ANN_METRICS, "[{\"type\":\"Pods\"}]");
    set_annotation(v2, ANN_CURRENT, "junk");
    set_annotation(v2, ANN_CONDITIONS, "[]");
    set_annotation(v2, ANN_BEHAVIOR, "{}");
    json_decref(converts(v2, V1, want, "v2 -> v1: round-trip annotations already there dropped"));
    json_object_del(json_object_get(json_object_get(v2, "metadata"), "annotations"), "other");
    json_object_del(json_object_get(json_object_get(want, "metadata"), "annotations"), "other");
    json_object_del(json_object_get(want, "metadata"), "annotations");
    json_decref(converts(v2, V1, want, "v2 -> v1: a map left empty is gone"));
    json_decref(v2);
    json_decref(want);
}

/* A varied set of v2 documents: each comes back from v1 as it was. */
static void
test_round_trips(void)
{
    static const char *const v2s[] = {
        "{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler'," META ",'spec':{" REF
        ",'minReplicas':2,'maxReplicas':10,'metrics':" ALL_METRICS
        ",'behavior':{'scaleUp':{'policies':[{'type':'Pods','value':2,'periodSeconds':60}]}}},"
        "'status':{'observedGeneration':4,'currentReplicas':3,'desiredReplicas':5,"
        "'currentMetrics':" CURRENT ",'conditions':" CONDITIONS "}}",
        "{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','metadata':{'name':'a',"
        "'labels':{'x':'y'},'annotations':{'note':'hi'}},'spec':{'maxReplicas':3,'metrics':["
        "{'type':'Pods','pods':{'metric':{'name':'p'},'target':{'type':'AverageValue',"
        "'averageValue':'100m'}}}]}}",
        "{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','metadata':{'name':'b'},"
        "'spec':{'maxReplicas':3,'metrics':[{'type':'Resource','resource':{'name':'memory',"
        "'target':{'type':'Utilization','averageUtilization':70}}}],'behavior':{'scaleDown':{"
        "'stabilizationWindowSeconds':60,'selectPolicy':'Min','policies':[{'type':'Percent',"
        "'value':10,'periodSeconds':30}]}}},'status':{'desiredReplicas':0,"
        "'currentMetrics':[{'type':'Resource','resource':{'name':'memory','current':"
        "{'averageValue':'1Gi','averageUtilization':71}}}]}}",
        "{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','metadata':{'name':'c'},"
        "'spec':{'maxReplicas':3,'metrics':[{'type':'External','external':{'metric':{'name':"
        "'x','selector':{}},'target':{'type':'Value','value':'1'}}}," CPU_TARGET(75) "]}}",
    };

    for (size_t i = 0; i < sizeof(v2s) / sizeof(v2s[0]); i++) {
        json_t *v2 = doc(v2s[i]), *v1 = json_deep_copy(v2);
        char name[96];

        snprintf(name, sizeof(name), "round trip %zu: v2 -> v1 -> v2", i);
        round_trips(v2, V1, name);
        gw_convert(v1, V1, HPA);
        snprintf(name, sizeof(name), "round trip %zu: v1 -> v2 -> v1", i);
        round_trips(v1, V2, name);
        json_decref(v1);
        json_decref(v2);
    }
}

/* As the registry serves them: each version completed with the zeros Go's JSON shows. */
static void
complete(json_t *obj)
{
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const gw_schema_t *s = gw_catalog_kind_schema(gw_catalog_builtin(), "autoscaling",
                                                  strcmp(av, V1) == 0 ? "v1" : "v2", HPA);

    if (s != NULL)
        gw_gozero_complete(s, obj);
}

static void
test_gozero(void)
{
    json_t *v1 = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler','metadata':{"
                     "'name':'h','creationTimestamp':'2024-01-02T03:04:05Z'},'spec':{"
                     "'scaleTargetRef':{'kind':'Deployment','name':'web'},'maxReplicas':3}}");
    json_t *v2, *want, *o;

    complete(v1);
    v2 = json_deep_copy(v1);
    tap_ok(json_integer_value(json_object_get(json_object_get(v1, "status"), "currentReplicas")) ==
                   0 &&
               json_object_get(json_object_get(v1, "status"), "currentReplicas") != NULL,
           "complete v1: status.currentReplicas 0 shown");
    gw_convert(v2, V2, HPA);
    complete(v2);
    want = doc("{'currentMetrics':null,'desiredReplicas':0}");
    same_doc(json_object_get(v2, "status"), want,
             "v1 -> v2: currentReplicas 0 left out, as v2's omitempty does");
    o = json_deep_copy(v2);
    gw_convert(o, V1, HPA);
    complete(o);
    json_object_set_new(json_object_get(v1, "spec"), "targetCPUUtilizationPercentage",
                        json_integer(80));
    same_doc(o, v1, "complete v1 -> v2 -> v1: as kube serves it (the 80% target added)");
    json_decref(o);
    o = json_deep_copy(v2);
    gw_convert(o, V1, HPA);
    complete(o);
    gw_convert(o, V2, HPA);
    complete(o);
    same_doc(o, v2, "complete v2 -> v1 -> v2: as it was");
    json_decref(o);
    json_decref(want);
    json_decref(v1);
    json_decref(v2);
}

static void
test_table(void)
{
    const char *av = NULL, *kind = NULL;
    json_t *o = doc("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler'}");

    tap_ok(gw_convert_is_spoke(V1, strlen(V1), HPA, strlen(HPA)) &&
               !gw_convert_is_spoke(V2, strlen(V2), HPA, strlen(HPA)),
           "autoscaling/v1 HPAs are converted for storage, v2 ones are stored as they are");
    tap_ok(gw_convert_hub(V1, HPA, &av, &kind) && strcmp(av, V2) == 0 && strcmp(kind, HPA) == 0,
           "the hub of autoscaling/v1 HPAs is autoscaling/v2");
    tap_ok(!gw_convert(o, "autoscaling/v2beta2", HPA), "v2beta2 is not served: no conversion");
    json_decref(o);
}

int
main(void)
{
    test_cpu();
    test_default();
    test_metric_sources();
    test_kube_losses();
    test_behavior();
    test_conditions();
    test_current_metrics();
    test_bad_annotations();
    test_drop_round_trip();
    test_round_trips();
    test_gozero();
    test_table();
    return tap_done();
}
