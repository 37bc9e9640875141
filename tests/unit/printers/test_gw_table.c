/* Unit tests for gateway/printers/gw_table: kube-apiserver's printer columns and cells for the
 * common kinds (pod status logic, ages as duration.HumanDuration prints them, selectors), the
 * default columns, and the row objects includeObject asks for. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_table.h"
#include "gw_table_int.h"
#include "tap.h"

/* 2024-05-01T12:00:00Z */
#define NOW 1714564800LL

static json_t *
parse(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, 0, &e);
    if (v == NULL)
        tap_diag("unparsable test input: %s: %s", e.text, text);
    return v;
}

static json_t *
table_for(const char *group, const char *resource, const char *obj, gw_table_include_t inc)
{
    gw_resource_t r = {.group = group, .version = "v1", .name = resource};
    json_t *items = json_pack("[o]", parse(obj));
    json_t *t = gw_table_build(&r, items, NULL, "v1", inc, NOW);
    json_decref(items);
    return t;
}

static void
expect_cells(const char *name, const char *group, const char *resource, const char *obj,
             const char *want)
{
    json_t *t = table_for(group, resource, obj, GW_TABLE_INCLUDE_METADATA);
    json_t *cells = json_object_get(json_array_get(json_object_get(t, "rows"), 0), "cells");
    char *got = json_dumps(cells, JSON_COMPACT);
    tap_is_str(got, want, name);
    free(got);
    json_decref(t);
}

static void
expect_columns(const char *group, const char *resource, const char *want)
{
    json_t *t = table_for(group, resource, "{}", GW_TABLE_INCLUDE_NONE);
    json_t *cols = json_object_get(t, "columnDefinitions");
    char got[1024] = "";
    for (size_t i = 0; i < json_array_size(cols); i++) {
        json_t *c = json_array_get(cols, i);
        size_t n = strlen(got);
        snprintf(got + n, sizeof(got) - n, "%s%s%s", i ? "," : "",
                 json_string_value(json_object_get(c, "name")),
                 json_integer_value(json_object_get(c, "priority")) ? "*" : "");
    }
    tap_is_str(got, want, resource[0] ? resource : "(default)");
    json_decref(t);
}

static void
test_human_duration(void)
{
    static const struct {
        long long s;
        const char *want;
    } cases[] = {
        {-2, "<invalid>"}, {-1, "0s"},         {0, "0s"},         {59, "59s"},
        {119, "119s"},     {120, "2m"},        {125, "2m5s"},     {599, "9m59s"},
        {600, "10m"},      {601, "10m"},       {10799, "179m"},   {10800, "3h"},
        {10860, "3h1m"},   {28799, "7h59m"},   {28800, "8h"},     {172799, "47h"},
        {172800, "2d"},    {176400, "2d1h"},   {691200, "8d"},    {63071999, "729d"},
        {63072000, "2y"},  {63331200, "2y3d"}, {252288000, "8y"}, {252374400, "8y"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[32], name[64];
        gw_table__human_duration(cases[i].s, buf, sizeof(buf));
        snprintf(name, sizeof(name), "%llds is %s", cases[i].s, cases[i].want);
        tap_is_str(buf, cases[i].want, name);
    }
}

static void
test_columns(void)
{
    expect_columns("", "pods",
                   "Name,Ready,Status,Restarts,Age,IP*,Node*,Nominated Node*,"
                   "Readiness Gates*");
    expect_columns("", "namespaces", "Name,Status,Age");
    expect_columns("", "nodes",
                   "Name,Status,Roles,Age,Version,Internal-IP*,External-IP*,"
                   "OS-Image*,Kernel-Version*,Container-Runtime*");
    expect_columns("", "services", "Name,Type,Cluster-IP,External-IP,Port(s),Age,Selector*");
    expect_columns("", "configmaps", "Name,Data,Age");
    expect_columns("", "secrets", "Name,Type,Data,Age");
    expect_columns("", "serviceaccounts", "Name,Secrets,Age");
    expect_columns("", "events",
                   "Last Seen,Type,Reason,Object,Subobject*,Source*,Message,"
                   "First Seen*,Count*,Name*");
    expect_columns("apps", "deployments",
                   "Name,Ready,Up-to-date,Available,Age,Containers*,Images*,Selector*");
    expect_columns("apps", "replicasets",
                   "Name,Desired,Current,Ready,Age,Containers*,Images*,Selector*");
    expect_columns("apps", "statefulsets", "Name,Ready,Age,Containers*,Images*");
    expect_columns("apps", "daemonsets",
                   "Name,Desired,Current,Ready,Up-to-date,Available,"
                   "Node Selector,Age,Containers*,Images*,Selector*");
    expect_columns("batch", "jobs",
                   "Name,Status,Completions,Duration,Age,Containers*,Images*,Selector*");
    expect_columns("batch", "cronjobs",
                   "Name,Schedule,Timezone,Suspend,Active,Last Schedule,Age,"
                   "Containers*,Images*,Selector*");
    expect_columns("rbac.authorization.k8s.io", "rolebindings",
                   "Name,Role,Age,Users*,Groups*,ServiceAccounts*");
    expect_columns("rbac.authorization.k8s.io", "clusterrolebindings",
                   "Name,Role,Age,Users*,Groups*,ServiceAccounts*");
    expect_columns("rbac.authorization.k8s.io", "roles", "Name,Created At");
    expect_columns("", "", "Name,Created At");
    json_t *t = table_for("", "pods", "{}", GW_TABLE_INCLUDE_NONE);
    json_t *c = json_array_get(json_object_get(t, "columnDefinitions"), 0);
    tap_ok(strcmp(json_string_value(json_object_get(c, "format")), "name") == 0 &&
               json_is_string(json_object_get(c, "description")) &&
               json_integer_value(json_object_get(c, "priority")) == 0 && json_object_size(c) == 5,
           "a column has name, type, format, description and priority");
    json_decref(t);
}

#define META(name)                                                                                 \
    "\"metadata\":{\"name\":\"" name "\",\"creationTimestamp\":\"2024-05-01T11:55:00Z\"}"

static void
test_pods(void)
{
    expect_cells("a new pod", "", "pods",
                 "{" META("p") ",\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
                               "\"status\":{\"phase\":\"Pending\"}}",
                 "[\"p\",\"0/1\",\"Pending\",\"0\",\"5m\",\"<none>\",\"<none>\",\"<none>\","
                 "\"<none>\"]");
    expect_cells(
        "a running pod with restarts", "", "pods",
        "{" META(
            "web") ",\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"a\"},"
                   "{\"name\":\"b\"}]},\"status\":{\"phase\":\"Running\",\"podIPs\":[{\"ip\":"
                   "\"10.0.0.7\"}],\"containerStatuses\":[{\"name\":\"a\",\"ready\":true,"
                   "\"restartCount\":2,\"state\":{\"running\":{}},\"lastState\":{\"terminated\":{"
                   "\"finishedAt\":\"2024-05-01T11:58:00Z\"}}},{\"name\":\"b\",\"ready\":true,"
                   "\"restartCount\":1,\"state\":{\"running\":{}}}]}}",
        "[\"web\",\"2/2\",\"Running\",\"3 (2m ago)\",\"5m\",\"10.0.0.7\",\"n1\","
        "\"<none>\",\"<none>\"]");
    expect_cells(
        "a crash-looping container", "", "pods",
        "{" META(
            "p") ",\"spec\":{\"containers\":[{\"name\":\"a\"}]},\"status\":{"
                 "\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"a\",\"ready\":false,"
                 "\"restartCount\":4,\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}}}]}}",
        "[\"p\",\"0/1\",\"CrashLoopBackOff\",\"4\",\"5m\",\"<none>\",\"<none>\","
        "\"<none>\",\"<none>\"]");
    expect_cells(
        "init containers still to run", "", "pods",
        "{" META(
            "p") ",\"spec\":{\"initContainers\":[{\"name\":\"i1\"},{\"name\":"
                 "\"i2\"}],\"containers\":[{\"name\":\"a\"}]},\"status\":{\"phase\":\"Pending\","
                 "\"initContainerStatuses\":[{\"name\":\"i1\",\"state\":{\"terminated\":{"
                 "\"exitCode\":0}}},{\"name\":\"i2\",\"state\":{\"running\":{}}}]}}",
        "[\"p\",\"0/1\",\"Init:1/2\",\"0\",\"5m\",\"<none>\",\"<none>\",\"<none>\","
        "\"<none>\"]");
    expect_cells(
        "a failed init container", "", "pods",
        "{" META(
            "p") ",\"spec\":{\"initContainers\":[{\"name\":\"i\"}],\"containers\":[{"
                 "\"name\":\"a\"}]},\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":[{"
                 "\"name\":\"i\",\"restartCount\":1,\"state\":{\"terminated\":{\"exitCode\":3}}}]}"
                 "}",
        "[\"p\",\"0/1\",\"Init:ExitCode:3\",\"1\",\"5m\",\"<none>\",\"<none>\",\"<none>\","
        "\"<none>\"]");
    expect_cells(
        "an init container that cannot pull", "", "pods",
        "{" META(
            "p") ",\"spec\":{\"initContainers\":[{\"name\":\"i\"}],\"containers\":[{"
                 "\"name\":\"a\"}]},\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":[{"
                 "\"name\":\"i\",\"state\":{\"waiting\":{\"reason\":\"ErrImagePull\"}}}]}}",
        "[\"p\",\"0/1\",\"Init:ErrImagePull\",\"0\",\"5m\",\"<none>\",\"<none>\","
        "\"<none>\",\"<none>\"]");
    expect_cells(
        "a sidecar counts as a container", "", "pods",
        "{" META(
            "p") ",\"spec\":{\"initContainers\":[{\"name\":\"s\",\"restartPolicy\":"
                 "\"Always\"}],\"containers\":[{\"name\":\"a\"}]},\"status\":{\"phase\":"
                 "\"Running\",\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\"}],"
                 "\"initContainerStatuses\":[{\"name\":\"s\",\"started\":true,\"ready\":true,"
                 "\"state\":{\"running\":{}}}],\"containerStatuses\":[{\"name\":\"a\",\"ready\":"
                 "true,\"state\":{\"running\":{}}}]}}",
        "[\"p\",\"2/2\",\"Running\",\"0\",\"5m\",\"<none>\",\"<none>\",\"<none>\","
        "\"<none>\"]");
    expect_cells(
        "a terminated container without a reason", "", "pods",
        "{" META("p") ",\"spec\":{\"containers\":[{\"name\":\"a\"}]},\"status\":{"
                      "\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"a\",\"state\":{"
                      "\"terminated\":{\"signal\":9}}}]}}",
        "[\"p\",\"0/1\",\"Signal:9\",\"0\",\"5m\",\"<none>\",\"<none>\",\"<none>\","
        "\"<none>\"]");
    expect_cells("a terminating pod, scheduling gates, readiness gates", "", "pods",
                 "{\"metadata\":{\"name\":\"p\",\"creationTimestamp\":\"2024-04-29T12:00:00Z\","
                 "\"deletionTimestamp\":\"2024-05-01T12:00:00Z\"},\"spec\":{\"containers\":[],"
                 "\"readinessGates\":[{\"conditionType\":\"a\"},{\"conditionType\":\"b\"}]},"
                 "\"status\":{\"phase\":\"Running\",\"nominatedNodeName\":\"n2\",\"conditions\":["
                 "{\"type\":\"a\",\"status\":\"True\"},{\"type\":\"b\",\"status\":\"False\"}]}}",
                 "[\"p\",\"0/0\",\"Terminating\",\"0\",\"2d\",\"<none>\",\"<none>\",\"n2\","
                 "\"1/2\"]");
    expect_cells(
        "a gated pod", "", "pods",
        "{" META("p") ",\"spec\":{\"containers\":[{\"name\":\"a\"}]},\"status\":{"
                      "\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":"
                      "\"False\",\"reason\":\"SchedulingGated\"}]}}",
        "[\"p\",\"0/1\",\"SchedulingGated\",\"0\",\"5m\",\"<none>\",\"<none>\","
        "\"<none>\",\"<none>\"]");
    expect_cells(
        "a completed pod with one container still running", "", "pods",
        "{" META("p") ",\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
                      "\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"a\","
                      "\"ready\":true,\"state\":{\"running\":{}}},{\"name\":\"b\",\"state\":{"
                      "\"terminated\":{\"reason\":\"Completed\",\"exitCode\":0}}}]}}",
        "[\"p\",\"1/2\",\"NotReady\",\"0\",\"5m\",\"<none>\",\"<none>\",\"<none>\","
        "\"<none>\"]");
    json_t *t = table_for(
        "", "pods",
        "{" META("done") ",\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
                         "\"status\":{\"phase\":\"Succeeded\",\"containerStatuses\":[{\"name\":"
                         "\"a\",\"state\":{\"terminated\":{\"reason\":\"Completed\"}}}]}}",
        GW_TABLE_INCLUDE_METADATA);
    json_t *row = json_array_get(json_object_get(t, "rows"), 0);
    json_t *cond = json_array_get(json_object_get(row, "conditions"), 0);
    tap_ok(strcmp(json_string_value(json_array_get(json_object_get(row, "cells"), 2)),
                  "Completed") == 0 &&
               strcmp(json_string_value(json_object_get(cond, "type")), "Completed") == 0 &&
               strcmp(json_string_value(json_object_get(cond, "reason")), "Succeeded") == 0,
           "a succeeded pod: Completed, with the row condition kubectl hides it by");
    json_decref(t);
}

static void
test_core_kinds(void)
{
    expect_cells(
        "a node", "", "nodes",
        "{" META(
            "n1") ",\"metadata\":{\"name\":\"n1\",\"creationTimestamp\":"
                  "\"2024-04-01T12:00:00Z\",\"labels\":{\"node-role.kubernetes.io/worker\":\"\","
                  "\"node-role.kubernetes.io/control-plane\":\"\",\"kubernetes.io/"
                  "role\":\"worker\"}},"
                  "\"spec\":{\"unschedulable\":true},\"status\":{\"conditions\":[{\"type\":"
                  "\"Ready\",\"status\":\"True\"}],\"addresses\":[{\"type\":\"InternalIP\","
                  "\"address\":\"10.1.1.1\"}],\"nodeInfo\":{\"kubeletVersion\":\"v1.32.0\"}}}",
        "[\"n1\",\"Ready,SchedulingDisabled\",\"control-plane,worker\",\"30d\","
        "\"v1.32.0\",\"10.1.1.1\",\"<none>\",\"<unknown>\",\"<unknown>\",\"<unknown>\"]");
    expect_cells("a node without conditions", "", "nodes", "{" META("n") "}",
                 "[\"n\",\"Unknown\",\"<none>\",\"5m\",\"\",\"<none>\",\"<none>\",\"<unknown>\","
                 "\"<unknown>\",\"<unknown>\"]");
    expect_cells(
        "a cluster IP service", "", "services",
        "{" META(
            "s") ",\"spec\":{\"type\":\"NodePort\",\"clusterIPs\":[\"10.96.0.9\"],"
                 "\"ports\":[{\"port\":80,\"protocol\":\"TCP\",\"nodePort\":30080},{\"port\":53,"
                 "\"protocol\":\"UDP\"}],\"selector\":{\"tier\":\"web\",\"app\":\"x\"}}}",
        "[\"s\",\"NodePort\",\"10.96.0.9\",\"<none>\",\"80:30080/TCP,53/UDP\",\"5m\","
        "\"app=x,tier=web\"]");
    expect_cells(
        "a pending load balancer", "", "services",
        "{" META("lb") ",\"spec\":{\"type\":\"LoadBalancer\",\"clusterIPs\":[\"10.0.0.1\"]}}",
        "[\"lb\",\"LoadBalancer\",\"10.0.0.1\",\"<pending>\",\"<none>\",\"5m\",\"<none>\"]");
    expect_cells(
        "a load balancer with addresses", "", "services",
        "{" META(
            "lb") ",\"spec\":{\"type\":\"LoadBalancer\",\"externalIPs\":[\"1.1.1.1\"]},"
                  "\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"2.2.2.2\"},{\"hostname\":"
                  "\"lb.example\"},{\"ip\":\"2.2.2.2\"}]}}}",
        "[\"lb\",\"LoadBalancer\",\"<none>\",\"2.2.2.2,lb.example,1.1.1.1\",\"<none>\","
        "\"5m\",\"<none>\"]");
    expect_cells(
        "an external name", "", "services",
        "{" META("e") ",\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"db.example\"}}",
        "[\"e\",\"ExternalName\",\"<none>\",\"db.example\",\"<none>\",\"5m\",\"<none>\"]");
    expect_cells("a namespace", "", "namespaces",
                 "{" META("ns") ",\"status\":{\"phase\":\"Active\"}}",
                 "[\"ns\",\"Active\",\"5m\"]");
    expect_cells(
        "a config map counts data and binary data", "", "configmaps",
        "{" META("cm") ",\"data\":{\"a\":\"1\",\"b\":\"2\"},\"binaryData\":{\"c\":\"AA==\"}}",
        "[\"cm\",3,\"5m\"]");
    expect_cells("a secret", "", "secrets",
                 "{" META("s") ",\"type\":\"Opaque\",\"data\":{\"a\":\"MQ==\"}}",
                 "[\"s\",\"Opaque\",1,\"5m\"]");
    expect_cells("a service account", "", "serviceaccounts", "{" META("default") "}",
                 "[\"default\",0,\"5m\"]");
    expect_cells(
        "an event", "", "events",
        "{" META("p.17a") ",\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"p\","
                          "\"fieldPath\":\"spec.containers{a}\"},\"reason\":\"Pulled\",\"message\":"
                          "\" Pulled image "
                          "\\n\",\"type\":\"Normal\",\"source\":{\"component\":\"kubelet\","
                          "\"host\":\"n1\"},\"firstTimestamp\":\"2024-05-01T11:00:00Z\","
                          "\"lastTimestamp\":"
                          "\"2024-05-01T11:59:30Z\",\"count\":3}",
        "[\"30s\",\"Normal\",\"Pulled\",\"pod/p\",\"spec.containers{a}\",\"kubelet, n1\","
        "\"Pulled image\",\"60m\",3,\"p.17a\"]");
    expect_cells(
        "an event of the events API", "", "events",
        "{" META(
            "e") ",\"involvedObject\":{\"kind\":\"Node\"},\"reason\":\"R\","
                 "\"eventTime\":\"2024-05-01T11:59:00.000000Z\",\"reportingComponent\":\"ctl\"}",
        "[\"60s\",\"\",\"R\",\"node\",\"\",\"ctl\",\"\",\"60s\",1,\"e\"]");
}

static void
test_workloads(void)
{
    const char *tmpl =
        "\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"img:1\"},"
        "{\"name\":\"b\",\"image\":\"img:2\"}]}}";
    char *obj = malloc(2048);
    snprintf(
        obj, 2048,
        "{" META(
            "d") ",\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"app\":\"x\"},"
                 "\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"In\",\"values\":[\"prod\","
                 "\"dev\"]},{\"key\":\"canary\",\"operator\":\"DoesNotExist\"}]},%s},\"status\":{"
                 "\"readyReplicas\":2,\"updatedReplicas\":3,\"availableReplicas\":2}}",
        tmpl);
    expect_cells("a deployment", "apps", "deployments", obj,
                 "[\"d\",\"2/3\",3,2,\"5m\",\"a,b\",\"img:1,img:2\","
                 "\"app=x,!canary,env in (dev,prod)\"]");
    expect_cells(
        "a replica set", "apps", "replicasets", obj,
        "[\"d\",3,0,2,\"5m\",\"a,b\",\"img:1,img:2\",\"app=x,!canary,env in (dev,prod)\"]");
    expect_cells("a stateful set", "apps", "statefulsets", obj,
                 "[\"d\",\"2/3\",\"5m\",\"a,b\",\"img:1,img:2\"]");
    expect_cells("a deployment without a selector", "apps", "deployments", "{" META("d") "}",
                 "[\"d\",\"0/0\",0,0,\"5m\",\"\",\"\",\"\"]");
    expect_cells(
        "a daemon set", "apps", "daemonsets",
        "{" META("ds") ",\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":{\"os\":"
                       "\"linux\"}}}},\"status\":{\"desiredNumberScheduled\":4,"
                       "\"currentNumberScheduled\":4,"
                       "\"numberReady\":3,\"updatedNumberScheduled\":4,\"numberAvailable\":3}}",
        "[\"ds\",4,4,3,4,3,\"os=linux\",\"5m\",\"\",\"\",\"<none>\"]");
    expect_cells(
        "a complete job", "batch", "jobs",
        "{" META("j") ",\"spec\":{\"completions\":2},\"status\":{\"succeeded\":2,"
                      "\"startTime\":\"2024-05-01T11:55:00Z\",\"completionTime\":"
                      "\"2024-05-01T11:55:42Z\",\"conditions\":[{\"type\":\"Complete\",\"status\":"
                      "\"True\"}]}}",
        "[\"j\",\"Complete\",\"2/2\",\"42s\",\"5m\",\"\",\"\",\"<none>\"]");
    expect_cells("a running parallel job", "batch", "jobs",
                 "{" META("j") ",\"spec\":{\"parallelism\":3},\"status\":{\"startTime\":"
                               "\"2024-05-01T11:57:00Z\"}}",
                 "[\"j\",\"Running\",\"0/1 of 3\",\"3m\",\"5m\",\"\",\"\",\"<none>\"]");
    expect_cells("a job not started", "batch", "jobs",
                 "{" META("j") ",\"status\":{\"conditions\":[{\"type\":\"Suspended\",\"status\":"
                               "\"True\"}]}}",
                 "[\"j\",\"Suspended\",\"0/1\",\"\",\"5m\",\"\",\"\",\"<none>\"]");
    expect_cells(
        "a cron job", "batch", "cronjobs",
        "{" META(
            "cj") ",\"spec\":{\"schedule\":\"*/5 * * * *\",\"suspend\":false,"
                  "\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"
                  "\"c\",\"image\":\"busybox\"}]}}}}},\"status\":{\"active\":[{}],"
                  "\"lastScheduleTime\":\"2024-05-01T11:59:00Z\"}}",
        "[\"cj\",\"*/5 * * * *\",\"<none>\",\"False\",1,\"60s\",\"5m\",\"c\",\"busybox\","
        "\"<none>\"]");
    expect_cells(
        "a role binding", "rbac.authorization.k8s.io", "rolebindings",
        "{" META(
            "rb") ",\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"view\"},"
                  "\"subjects\":[{\"kind\":\"User\",\"name\":\"alice\"},{\"kind\":\"User\","
                  "\"name\":"
                  "\"bob\"},{\"kind\":\"Group\",\"name\":\"devs\"},{\"kind\":\"ServiceAccount\","
                  "\"name\":\"sa\",\"namespace\":\"ns\"}]}",
        "[\"rb\",\"ClusterRole/view\",\"5m\",\"alice, bob\",\"devs\",\"ns:sa\"]");
    free(obj);
}

static void
test_default_and_objects(void)
{
    expect_cells(
        "a role gets the default columns", "rbac.authorization.k8s.io", "roles",
        "{\"metadata\":{\"name\":\"r\",\"creationTimestamp\":\"2024-05-01T13:55:00+02:00\"}}",
        "[\"r\",\"2024-05-01T11:55:00Z\"]");
    expect_cells("no creation time: Go's zero time", "", "widgets",
                 "{\"metadata\":{\"name\":\"w\"}}", "[\"w\",\"0001-01-01T00:00:00Z\"]");
    gw_resource_t r = {.group = "", .version = "v1", .name = "configmaps"};
    json_t *items = parse("[{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
                          "\"a\",\"resourceVersion\":\"5\"},\"data\":{\"k\":\"v\"}},{\"metadata\":"
                          "{\"name\":\"b\"}}]");
    json_t *meta = parse("{\"resourceVersion\":\"9\",\"continue\":\"tok\"}");
    json_t *t = gw_table_build(&r, items, meta, "v1beta1", GW_TABLE_INCLUDE_METADATA, NOW);
    json_t *obj = json_object_get(json_array_get(json_object_get(t, "rows"), 0), "object");
    tap_ok(strcmp(json_string_value(json_object_get(t, "kind")), "Table") == 0 &&
               strcmp(json_string_value(json_object_get(t, "apiVersion")), "meta.k8s.io/v1beta1") ==
                   0 &&
               json_equal(json_object_get(t, "metadata"), meta) &&
               json_array_size(json_object_get(t, "rows")) == 2,
           "a Table of the requested version, the list's metadata, a row per item");
    tap_ok(strcmp(json_string_value(json_object_get(obj, "kind")), "PartialObjectMetadata") == 0 &&
               strcmp(json_string_value(json_object_get(obj, "apiVersion")),
                      "meta.k8s.io/v1beta1") == 0 &&
               json_equal(json_object_get(obj, "metadata"),
                          json_object_get(json_array_get(items, 0), "metadata")) &&
               json_object_size(obj) == 3,
           "rows carry PartialObjectMetadata by default");
    json_decref(t);
    t = gw_table_build(&r, items, NULL, "v1", GW_TABLE_INCLUDE_OBJECT, NOW);
    obj = json_object_get(json_array_get(json_object_get(t, "rows"), 0), "object");
    tap_ok(json_equal(obj, json_array_get(items, 0)) &&
               json_object_size(json_object_get(t, "metadata")) == 0,
           "includeObject=Object: the whole object; no list metadata: an empty one");
    json_decref(t);
    t = gw_table_build(&r, items, NULL, "v1", GW_TABLE_INCLUDE_NONE, NOW);
    obj = json_object_get(json_array_get(json_object_get(t, "rows"), 1), "object");
    tap_ok(json_is_null(obj), "includeObject=None: a null object");
    json_decref(t);
    json_decref(items);
    json_decref(meta);
}

/* kubectl's TARGETS column: each source's current/target, the first two metrics only. */
static void
test_hpa(void)
{
    expect_columns("autoscaling", "horizontalpodautoscalers",
                   "Name,Reference,Targets,MinPods,MaxPods,Replicas,Age");
    expect_cells("hpa: cpu utilisation, no status yet", "autoscaling", "horizontalpodautoscalers",
                 "{\"metadata\":{\"name\":\"h\"},\"spec\":{\"scaleTargetRef\":{\"kind\":"
                 "\"Deployment\",\"name\":\"web\"},\"minReplicas\":1,\"maxReplicas\":10,"
                 "\"metrics\":[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\","
                 "\"target\":{\"type\":\"Utilization\",\"averageUtilization\":50}}}]},"
                 "\"status\":{\"currentReplicas\":0,\"desiredReplicas\":0}}",
                 "[\"h\",\"Deployment/web\",\"cpu: <unknown>/50%\",\"1\",10,0,\"<unknown>\"]");
    expect_cells("hpa: three metrics with status", "autoscaling", "horizontalpodautoscalers",
                 "{\"metadata\":{\"name\":\"h\"},\"spec\":{\"scaleTargetRef\":{\"kind\":"
                 "\"StatefulSet\",\"name\":\"db\"},\"maxReplicas\":3,\"metrics\":["
                 "{\"type\":\"Pods\",\"pods\":{\"target\":{\"averageValue\":\"10\"}}},"
                 "{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"target\":"
                 "{\"averageValue\":\"1Gi\"}}},{\"type\":\"External\",\"external\":{}}]},"
                 "\"status\":{\"currentReplicas\":2,\"currentMetrics\":[{\"type\":\"Pods\","
                 "\"pods\":{\"current\":{\"averageValue\":\"7\"}}},{\"type\":\"Resource\","
                 "\"resource\":{\"name\":\"memory\",\"current\":{\"averageValue\":"
                 "\"512Mi\"}}}]}}",
                 "[\"h\",\"StatefulSet/db\",\"7/10, memory: 512Mi/1Gi + 1 more...\",\"<unset>\","
                 "3,2,\"<unknown>\"]");
    expect_cells("hpa: no metrics", "autoscaling", "horizontalpodautoscalers",
                 "{\"metadata\":{\"name\":\"h\"},\"spec\":{\"maxReplicas\":1}}",
                 "[\"h\",\"/\",\"<none>\",\"<unset>\",1,0,\"<unknown>\"]");
}

int
main(void)
{
    test_human_duration();
    test_columns();
    test_pods();
    test_core_kinds();
    test_workloads();
    test_hpa();
    test_default_and_objects();
    return tap_done();
}
