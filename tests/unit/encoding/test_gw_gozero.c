/* Unit tests for gateway/encoding/gw_gozero: the fields kube-apiserver's JSON shows though a client
 * left them out (its Go structs' zero values), over the catalog's workload kinds, and which
 * kinds can need any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_gozero.h"
#include "tap.h"

static const gw_catalog_t *cat;

static json_t *
parse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &e);

    if (j == NULL)
        tap_diag("bad test JSON: %s: %s", e.text, text);
    return j;
}

static const gw_schema_t *
kind(const char *group, const char *version, const char *k)
{
    const gw_schema_t *s = gw_catalog_kind_schema(cat, group, version, k);

    if (s == NULL)
        tap_diag("no kind %s/%s %s", group, version, k);
    return s;
}

/* Complete `in` as a `k` and compare with `want`; on a difference print both. */
static void
completes(const char *group, const char *version, const char *k, const char *in, const char *want,
          const char *name)
{
    const gw_schema_t *s = kind(group, version, k);
    json_t *doc = parse(in), *w = parse(want);
    int ok;

    if (s != NULL && doc != NULL)
        gw_gozero_complete(s, doc);
    ok = s && doc && w && json_equal(doc, w);
    if (!ok) {
        char *g = doc ? json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        char *x = w ? json_dumps(w, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        tap_diag("got:  %s", g ? g : "(null)");
        tap_diag("want: %s", x ? x : "(null)");
        free(g);
        free(x);
    }
    tap_ok(ok, "%s", name);
    json_decref(doc);
    json_decref(w);
}

#define META "\"metadata\":{\"name\":\"x\",\"creationTimestamp\":\"2024-01-02T03:04:05Z\"}"
#define TEMPLATE_IN                                                                                \
    "\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":"              \
    "[{\"name\":\"c\",\"image\":\"nginx\"}]}}"
#define TEMPLATE_OUT                                                                               \
    "\"template\":{\"metadata\":{\"creationTimestamp\":null,\"labels\":{\"a\":\"b\"}},"            \
    "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":{}}]}}"
#define SELECTOR "\"selector\":{\"matchLabels\":{\"a\":\"b\"}}"

static void
test_workloads(void)
{
    completes("apps", "v1", "ReplicaSet",
              "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\"," META
              ",\"spec\":{\"replicas\":1," SELECTOR "," TEMPLATE_IN "},\"status\":{}}",
              "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\"," META
              ",\"spec\":{\"replicas\":1," SELECTOR "," TEMPLATE_OUT
              "},\"status\":{\"replicas\":0}}",
              "ReplicaSet: status.replicas 0, the template's creationTimestamp null, resources {}");
    completes("apps", "v1", "DaemonSet",
              "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\"," META ",\"spec\":{" SELECTOR
              "," TEMPLATE_IN ",\"updateStrategy\":{\"type\":\"OnDelete\"}},\"status\":{}}",
              "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\"," META ",\"spec\":{" SELECTOR
              "," TEMPLATE_OUT ",\"updateStrategy\":{\"type\":\"OnDelete\"}},"
              "\"status\":{\"currentNumberScheduled\":0,\"numberMisscheduled\":0,"
              "\"desiredNumberScheduled\":0,\"numberReady\":0}}",
              "DaemonSet: the four required counters");
    completes("apps", "v1", "StatefulSet",
              "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\"," META ",\"spec\":{" SELECTOR
              "," TEMPLATE_IN "}}",
              "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\"," META ",\"spec\":{" SELECTOR
              "," TEMPLATE_OUT ",\"serviceName\":\"\",\"updateStrategy\":{}},"
              "\"status\":{\"replicas\":0,\"availableReplicas\":0}}",
              "StatefulSet: serviceName \"\", updateStrategy {}, status replicas and "
              "availableReplicas");
    completes("", "v1", "ReplicationController",
              "{\"apiVersion\":\"v1\",\"kind\":\"ReplicationController\"," META
              ",\"spec\":{\"selector\":{\"a\":\"b\"}," TEMPLATE_IN "}}",
              "{\"apiVersion\":\"v1\",\"kind\":\"ReplicationController\"," META
              ",\"spec\":{\"selector\":{\"a\":\"b\"}," TEMPLATE_OUT
              "},\"status\":{\"replicas\":0}}",
              "ReplicationController: status.replicas 0");
    completes("apps", "v1", "Deployment",
              "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"," META ",\"spec\":{" SELECTOR
              "," TEMPLATE_IN ",\"strategy\":{\"type\":\"Recreate\"}}}",
              "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"," META ",\"spec\":{" SELECTOR
              "," TEMPLATE_OUT ",\"strategy\":{\"type\":\"Recreate\"}},\"status\":{}}",
              "Deployment: the pod template's creationTimestamp null, status {}");
    completes("batch", "v1", "Job",
              "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\"," META ",\"spec\":{" TEMPLATE_IN "}}",
              "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\"," META ",\"spec\":{" TEMPLATE_OUT
              "},\"status\":{}}",
              "Job: template completed, status {}");
}

static void
test_policy_autoscaling_nodes(void)
{
    completes("policy", "v1", "PodDisruptionBudget",
              "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\"," META
              ",\"spec\":{\"minAvailable\":1}}",
              "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\"," META
              ",\"spec\":{\"minAvailable\":1},\"status\":{\"disruptionsAllowed\":0,"
              "\"currentHealthy\":0,\"desiredHealthy\":0,\"expectedPods\":0}}",
              "PodDisruptionBudget: the four required counters");
    completes("autoscaling", "v2", "HorizontalPodAutoscaler",
              "{\"apiVersion\":\"autoscaling/v2\",\"kind\":\"HorizontalPodAutoscaler\"," META
              ",\"spec\":{\"maxReplicas\":3,\"scaleTargetRef\":{\"kind\":\"Deployment\","
              "\"name\":\"d\"},\"metrics\":[{\"type\":\"Resource\",\"resource\":{\"name\":"
              "\"cpu\",\"target\":{\"type\":\"Utilization\",\"averageUtilization\":50}}}]},"
              "\"status\":{\"conditions\":[{\"type\":\"AbleToScale\",\"status\":\"True\"}]}}",
              "{\"apiVersion\":\"autoscaling/v2\",\"kind\":\"HorizontalPodAutoscaler\"," META
              ",\"spec\":{\"maxReplicas\":3,\"scaleTargetRef\":{\"kind\":\"Deployment\","
              "\"name\":\"d\"},\"metrics\":[{\"type\":\"Resource\",\"resource\":{\"name\":"
              "\"cpu\",\"target\":{\"type\":\"Utilization\",\"averageUtilization\":50}}}]},"
              "\"status\":{\"conditions\":[{\"type\":\"AbleToScale\",\"status\":\"True\","
              "\"lastTransitionTime\":null}],\"currentMetrics\":null,\"desiredReplicas\":0}}",
              "HPA v2: desiredReplicas 0, currentMetrics null, a condition's Time null");
    completes("autoscaling", "v1", "HorizontalPodAutoscaler",
              "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"HorizontalPodAutoscaler\"," META
              ",\"spec\":{\"maxReplicas\":3,\"scaleTargetRef\":{\"kind\":\"Deployment\","
              "\"name\":\"d\"}}}",
              "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"HorizontalPodAutoscaler\"," META
              ",\"spec\":{\"maxReplicas\":3,\"scaleTargetRef\":{\"kind\":\"Deployment\","
              "\"name\":\"d\"}},\"status\":{\"currentReplicas\":0,\"desiredReplicas\":0}}",
              "HPA v1: currentReplicas and desiredReplicas 0");
    completes("", "v1", "Node", "{\"apiVersion\":\"v1\",\"kind\":\"Node\"," META "}",
              "{\"apiVersion\":\"v1\",\"kind\":\"Node\"," META
              ",\"spec\":{},\"status\":{\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":0}},"
              "\"nodeInfo\":{\"machineID\":\"\",\"systemUUID\":\"\",\"bootID\":\"\","
              "\"kernelVersion\":\"\",\"osImage\":\"\",\"containerRuntimeVersion\":\"\","
              "\"kubeletVersion\":\"\",\"kubeProxyVersion\":\"\",\"operatingSystem\":\"\","
              "\"architecture\":\"\"}}}",
              "Node: spec {}, status with daemonEndpoints and nodeInfo");
}

static void
test_pods(void)
{
    completes("", "v1", "Pod",
              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," META
              ",\"spec\":{\"containers\":[{\"name\":\"c\",\"ports\":[{\"protocol\":\"TCP\"}],"
              "\"env\":[{\"value\":\"v\"}],\"volumeMounts\":[{\"readOnly\":true}],"
              "\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]}}",
              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," META
              ",\"spec\":{\"containers\":[{\"name\":\"c\",\"ports\":[{\"protocol\":\"TCP\","
              "\"containerPort\":0}],\"env\":[{\"name\":\"\",\"value\":\"v\"}],"
              "\"volumeMounts\":[{\"name\":\"\",\"mountPath\":\"\",\"readOnly\":true}],"
              "\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]},\"status\":{}}",
              "Pod: containers' ports, env and volumeMounts get their required fields");
    completes("", "v1", "Pod",
              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," META
              ",\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":null,\"image\":null,"
              "\"livenessProbe\":null}],\"nodeSelector\":null},\"status\":null}",
              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," META
              ",\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{}}]},\"status\":{}}",
              "a null value struct is its zero; a null Go omits goes");
    completes("", "v1", "Pod",
              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," META ",\"spec\":\"oops\",\"status\":[1]}",
              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," META ",\"spec\":\"oops\",\"status\":[1]}",
              "mistyped values are left for validation");
}

static void
test_needed(void)
{
    static const char *const idle[][3] = {
        {"", "v1", "ConfigMap"},
        {"", "v1", "Secret"},
        {"", "v1", "ServiceAccount"},
    };
    static const char *const busy[][3] = {
        {"apps", "v1", "Deployment"},
        {"apps", "v1", "DaemonSet"},
        {"", "v1", "Node"},
        {"", "v1", "Pod"},
        {"policy", "v1", "PodDisruptionBudget"},
        {"coordination.k8s.io", "v1", "Lease"},
    };
    json_t *cm;

    for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
        tap_ok(!gw_gozero_kind_needed(kind(idle[i][0], idle[i][1], idle[i][2])),
               "%s never needs completing", idle[i][2]);
    for (size_t i = 0; i < sizeof(busy) / sizeof(busy[0]); i++)
        tap_ok(gw_gozero_kind_needed(kind(busy[i][0], busy[i][1], busy[i][2])),
               "%s can need completing", busy[i][2]);
    tap_ok(!gw_gozero_kind_needed(NULL), "no schema, nothing to complete");
    cm = parse("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"},"
               "\"data\":{\"a\":\"b\"}}");
    gw_gozero_complete(kind("", "v1", "ConfigMap"), cm);
    tap_ok(json_object_size(json_object_get(cm, "metadata")) == 2 && json_object_size(cm) == 4,
           "a ConfigMap only gets its metadata's creationTimestamp (kgate always writes one)");
    json_decref(cm);
}

static void
test_budget(void)
{
    const gw_schema_t *node = kind("", "v1", "Node");
    gw_gozero_t z = {.budget = 3};
    json_t *v = node ? gw_gozero_zero(&z, node) : NULL;

    tap_ok(z.st == GW_GOZERO_BUDGET, "a zero Node does not fit a budget of 3 values");
    json_decref(v);
    z = (gw_gozero_t){.budget = SIZE_MAX, .depth_max = 2};
    v = node ? gw_gozero_zero(&z, node) : NULL;
    tap_ok(z.st == GW_GOZERO_DEPTH, "a zero Node nests deeper than 2");
    json_decref(v);
    z = (gw_gozero_t){.budget = 1000};
    v = node ? gw_gozero_zero(&z, node) : NULL;
    tap_ok(z.st == GW_GOZERO_OK && json_is_object(json_object_get(v, "status")),
           "a zero Node within its budget");
    json_decref(v);
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_workloads();
    test_policy_autoscaling_nodes();
    test_pods();
    test_needed();
    test_budget();
    return tap_done();
}
