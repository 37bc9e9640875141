/* Printer columns of the core kinds, as kube-apiserver's printers lay them out (columns,
 * priorities and cell logic; the descriptions are ours). */
#include "gw_table_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

#define NAME_COLUMN                                                                                \
    {                                                                                              \
        "Name", "string", "name", "Name of the object, unique in its namespace.", 0                \
    }
#define AGE_COLUMN                                                                                 \
    {                                                                                              \
        "Age", "string", "", "Time since the object was created.", 0                               \
    }

/* ---- pods -------------------------------------------------------------------------------- */

typedef struct {
    const char *reason;
    char buf[64]; /* reasons kube composes: "Init:0/2", "ExitCode:1" */
    int ready, total;
    long long restarts;
    long long last_restart; /* 0: none */
} pod_state_t;

static bool
condition_true(const json_t *obj, const char *conditions, const char *type)
{
    const json_t *list = gw_table__get(obj, conditions);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *c = json_array_get(list, i);
        if (strcmp(gw_table__str(c, "type"), type) == 0)
            return strcmp(gw_table__str(c, "status"), "True") == 0;
    }
    return false;
}

static void
note_restart(const json_t *status, long long *last)
{
    long long t;
    if (gw_time_parse(gw_table__str(status, "lastState.terminated.finishedAt"), &t) && t > *last)
        *last = t;
}

static bool
restartable_init(const json_t *pod, const char *name)
{
    const json_t *inits = gw_table__get(pod, "spec.initContainers");
    for (size_t i = 0; i < json_array_size(inits); i++) {
        const json_t *c = json_array_get(inits, i);
        if (strcmp(gw_table__str(c, "name"), name) == 0)
            return strcmp(gw_table__str(c, "restartPolicy"), "Always") == 0;
    }
    return false;
}

/* Why a terminated container stopped: its reason, else its signal or exit code. */
static void
terminated_reason(pod_state_t *st, const json_t *term, const char *prefix)
{
    const char *reason = gw_table__str(term, "reason");
    json_int_t signal = gw_table__int(term, "signal");
    if (reason[0] != '\0')
        snprintf(st->buf, sizeof(st->buf), "%s%s", prefix, reason);
    else if (signal != 0)
        snprintf(st->buf, sizeof(st->buf), "%sSignal:%" JSON_INTEGER_FORMAT, prefix, signal);
    else
        snprintf(st->buf, sizeof(st->buf), "%sExitCode:%" JSON_INTEGER_FORMAT, prefix,
                 gw_table__int(term, "exitCode"));
    st->reason = st->buf;
}

/* The init containers' part of kube's printPod: true while the pod is initializing. */
static bool
init_containers(const json_t *pod, pod_state_t *st, long long *init_restarts, long long *init_last)
{
    const json_t *statuses = gw_table__get(pod, "status.initContainerStatuses");
    for (size_t i = 0; i < json_array_size(statuses); i++) {
        const json_t *c = json_array_get(statuses, i);
        const json_t *term = gw_table__get(c, "state.terminated");
        const char *waiting = gw_table__str(c, "state.waiting.reason");
        bool restartable = restartable_init(pod, gw_table__str(c, "name"));
        st->restarts += gw_table__int(c, "restartCount");
        note_restart(c, &st->last_restart);
        if (restartable) {
            *init_restarts += gw_table__int(c, "restartCount");
            note_restart(c, init_last);
        }
        if (term != NULL && gw_table__int(term, "exitCode") == 0)
            continue;
        if (restartable && json_is_true(json_object_get(c, "started"))) {
            st->ready += json_is_true(json_object_get(c, "ready"));
            continue;
        }
        if (term != NULL) {
            terminated_reason(st, term, "Init:");
        } else if (waiting[0] != '\0' && strcmp(waiting, "PodInitializing") != 0) {
            snprintf(st->buf, sizeof(st->buf), "Init:%s", waiting);
            st->reason = st->buf;
        } else {
            snprintf(st->buf, sizeof(st->buf), "Init:%zu/%zu", i,
                     json_array_size(gw_table__get(pod, "spec.initContainers")));
            st->reason = st->buf;
        }
        return true;
    }
    return false;
}

/* The app containers' part: readiness, restarts and the last container's reason. */
static void
app_containers(const json_t *pod, pod_state_t *st)
{
    const json_t *statuses = gw_table__get(pod, "status.containerStatuses");
    bool running = false;
    for (size_t i = json_array_size(statuses); i > 0; i--) {
        const json_t *c = json_array_get(statuses, i - 1);
        const json_t *term = gw_table__get(c, "state.terminated");
        const char *waiting = gw_table__str(c, "state.waiting.reason");
        st->restarts += gw_table__int(c, "restartCount");
        note_restart(c, &st->last_restart);
        if (waiting[0] != '\0') {
            snprintf(st->buf, sizeof(st->buf), "%s", waiting);
            st->reason = st->buf;
        } else if (term != NULL) {
            terminated_reason(st, term, "");
        } else if (json_is_true(json_object_get(c, "ready")) &&
                   gw_table__get(c, "state.running") != NULL) {
            running = true;
            st->ready++;
        }
    }
    /* a pod whose last container completed but another runs is still running */
    if (strcmp(st->reason, "Completed") == 0 && running)
        st->reason = condition_true(pod, "status.conditions", "Ready") ? "Running" : "NotReady";
}

static void
pod_status(const json_t *pod, pod_state_t *st)
{
    const char *phase = gw_table__str(pod, "status.phase");
    const json_t *inits = gw_table__get(pod, "spec.initContainers");
    const json_t *conds = gw_table__get(pod, "status.conditions");
    long long init_restarts = 0, init_last = 0;
    st->reason =
        gw_table__str(pod, "status.reason")[0] ? gw_table__str(pod, "status.reason") : phase;
    for (size_t i = 0; i < json_array_size(conds); i++) {
        const json_t *c = json_array_get(conds, i);
        if (strcmp(gw_table__str(c, "type"), "PodScheduled") == 0 &&
            strcmp(gw_table__str(c, "reason"), "SchedulingGated") == 0)
            st->reason = "SchedulingGated";
    }
    st->total = (int)json_array_size(gw_table__get(pod, "spec.containers"));
    for (size_t i = 0; i < json_array_size(inits); i++)
        st->total +=
            strcmp(gw_table__str(json_array_get(inits, i), "restartPolicy"), "Always") == 0;
    bool initializing = init_containers(pod, st, &init_restarts, &init_last);
    if (!initializing || condition_true(pod, "status.conditions", "Initialized")) {
        st->restarts = init_restarts;
        st->last_restart = init_last;
        app_containers(pod, st);
    }
    bool terminal = strcmp(phase, "Failed") == 0 || strcmp(phase, "Succeeded") == 0;
    if (gw_table__get(pod, "metadata.deletionTimestamp") != NULL) {
        if (strcmp(gw_table__str(pod, "status.reason"), "NodeLost") == 0)
            st->reason = "Unknown";
        else if (!terminal)
            st->reason = "Terminating";
    }
}

static const char *
or_none(const char *s)
{
    return s[0] != '\0' ? s : "<none>";
}

static json_t *
readiness_gates(const json_t *pod)
{
    const json_t *gates = gw_table__get(pod, "spec.readinessGates");
    size_t n = json_array_size(gates), ok = 0;
    char buf[48];
    if (n == 0)
        return json_string("<none>");
    for (size_t i = 0; i < n; i++)
        ok += condition_true(pod, "status.conditions",
                             gw_table__str(json_array_get(gates, i), "conditionType"));
    snprintf(buf, sizeof(buf), "%zu/%zu", ok, n);
    return json_string(buf);
}

static void
pod_conditions(const json_t *pod, json_t *row)
{
    const char *phase = gw_table__str(pod, "status.phase");
    bool ok = strcmp(phase, "Succeeded") == 0;
    if (!ok && strcmp(phase, "Failed") != 0)
        return;
    json_object_set_new(row, "conditions",
                        json_pack("[{s:s,s:s,s:s,s:s}]", "type", "Completed", "status", "True",
                                  "reason", phase, "message",
                                  ok ? "The pod ran to completion." : "The pod failed."));
}

static void
pod_cells(const json_t *pod, long long now, json_t *row)
{
    pod_state_t st = {0};
    char buf[96], ago[32];
    json_t *cells = json_object_get(row, "cells");
    pod_status(pod, &st);
    gw_table__cell(cells, gw_table__str(pod, "metadata.name"));
    snprintf(buf, sizeof(buf), "%d/%d", st.ready, st.total);
    gw_table__cell(cells, buf);
    gw_table__cell(cells, st.reason);
    snprintf(buf, sizeof(buf), "%lld", st.restarts);
    if (st.restarts != 0 && st.last_restart != 0) {
        gw_table__human_duration(now - st.last_restart, ago, sizeof(ago));
        snprintf(buf, sizeof(buf), "%lld (%s ago)", st.restarts, ago);
    }
    gw_table__cell(cells, buf);
    json_array_append_new(cells, gw_table__age(pod, "metadata.creationTimestamp", now));
    gw_table__cell(cells, or_none(gw_table__str(
                              json_array_get(gw_table__get(pod, "status.podIPs"), 0), "ip")));
    gw_table__cell(cells, or_none(gw_table__str(pod, "spec.nodeName")));
    gw_table__cell(cells, or_none(gw_table__str(pod, "status.nominatedNodeName")));
    json_array_append_new(cells, readiness_gates(pod));
    pod_conditions(pod, row);
}

static const gw_table__column_t pod_columns[] = {
    NAME_COLUMN,
    {"Ready", "string", "", "Ready containers of all containers.", 0},
    {"Status", "string", "", "Summary of the pod's state.", 0},
    {"Restarts", "string", "", "Container restarts, and how long ago the last one was.", 0},
    AGE_COLUMN,
    {"IP", "string", "", "The pod's IP address.", 1},
    {"Node", "string", "", "The node the pod is bound to.", 1},
    {"Nominated Node", "string", "", "The node the scheduler nominated by preemption.", 1},
    {"Readiness Gates", "string", "", "Readiness gates that hold, of all gates.", 1},
};

/* ---- lists ---------------------------------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len;
} list_t;

static void
list_add(list_t *l, const char *s)
{
    size_t n = strlen(s);
    l->buf = gw_realloc(l->buf, l->len + n + 2);
    if (l->len > 0)
        l->buf[l->len++] = ',';
    memcpy(l->buf + l->len, s, n + 1);
    l->len += n;
}

/* ---- nodes ------------------------------------------------------------------------------- */

static int
str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* node-role.kubernetes.io/<role> labels and the kubernetes.io/role label, each role once,
 * sorted */
static char *
node_roles(const json_t *node)
{
    const json_t *labels = gw_table__get(node, "metadata.labels");
    const char *k, *prefix = "node-role.kubernetes.io/";
    json_t *v;
    size_t n = 0, plen = strlen(prefix);
    const char **roles = gw_malloc((json_object_size(labels) + 1) * sizeof(*roles));
    list_t out = {gw_strdup(""), 0};
    json_object_foreach((json_t *)labels, k, v)
    {
        const char *role = strncmp(k, prefix, plen) == 0          ? k + plen
                           : strcmp(k, "kubernetes.io/role") == 0 ? json_string_value(v)
                                                                  : NULL;
        if (role != NULL && role[0] != '\0')
            roles[n++] = role;
    }
    qsort(roles, n, sizeof(*roles), str_cmp);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(roles[i], roles[i - 1]) != 0)
            list_add(&out, roles[i]);
    free(roles);
    if (out.len == 0)
        list_add(&out, "<none>");
    return out.buf;
}

static const char *
node_address(const json_t *node, const char *type)
{
    const json_t *addrs = gw_table__get(node, "status.addresses");
    for (size_t i = 0; i < json_array_size(addrs); i++)
        if (strcmp(gw_table__str(json_array_get(addrs, i), "type"), type) == 0)
            return gw_table__str(json_array_get(addrs, i), "address");
    return "<none>";
}

static const char *
or_unknown(const char *s)
{
    return s[0] != '\0' ? s : "<unknown>";
}

static void
node_cells(const json_t *node, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    const json_t *conds = gw_table__get(node, "status.conditions");
    const char *status = "Unknown";
    char buf[64], *roles = node_roles(node);
    for (size_t i = 0; i < json_array_size(conds); i++) {
        const json_t *c = json_array_get(conds, i);
        if (strcmp(gw_table__str(c, "type"), "Ready") == 0)
            status = strcmp(gw_table__str(c, "status"), "True") == 0 ? "Ready" : "NotReady";
    }
    snprintf(buf, sizeof(buf), "%s%s", status,
             json_is_true(gw_table__get(node, "spec.unschedulable")) ? ",SchedulingDisabled" : "");
    gw_table__cell(cells, gw_table__str(node, "metadata.name"));
    gw_table__cell(cells, buf);
    gw_table__cell(cells, roles);
    json_array_append_new(cells, gw_table__age(node, "metadata.creationTimestamp", now));
    gw_table__cell(cells, gw_table__str(node, "status.nodeInfo.kubeletVersion"));
    gw_table__cell(cells, node_address(node, "InternalIP"));
    gw_table__cell(cells, node_address(node, "ExternalIP"));
    gw_table__cell(cells, or_unknown(gw_table__str(node, "status.nodeInfo.osImage")));
    gw_table__cell(cells, or_unknown(gw_table__str(node, "status.nodeInfo.kernelVersion")));
    gw_table__cell(cells,
                   or_unknown(gw_table__str(node, "status.nodeInfo.containerRuntimeVersion")));
    free(roles);
}

static const gw_table__column_t node_columns[] = {
    NAME_COLUMN,
    {"Status", "string", "", "Readiness of the node, and whether it takes new pods.", 0},
    {"Roles", "string", "", "Roles named by the node's labels.", 0},
    AGE_COLUMN,
    {"Version", "string", "", "The kubelet's version.", 0},
    {"Internal-IP", "string", "", "The node's internal address.", 1},
    {"External-IP", "string", "", "The node's external address.", 1},
    {"OS-Image", "string", "", "The node's operating system image.", 1},
    {"Kernel-Version", "string", "", "The node's kernel version.", 1},
    {"Container-Runtime", "string", "", "The node's container runtime and version.", 1},
};

/* ---- services ---------------------------------------------------------------------------- */

/* The load balancer's ingress addresses (IP, else hostname), each once, then external IPs. */
static char *
service_external_ip(const json_t *svc)
{
    const char *type = gw_table__str(svc, "spec.type");
    const json_t *ips = gw_table__get(svc, "spec.externalIPs");
    const json_t *ing = gw_table__get(svc, "status.loadBalancer.ingress");
    list_t l = {gw_strdup(""), 0};
    if (strcmp(type, "ExternalName") == 0) {
        free(l.buf);
        return gw_strdup(gw_table__str(svc, "spec.externalName"));
    }
    for (size_t i = 0; strcmp(type, "LoadBalancer") == 0 && i < json_array_size(ing); i++) {
        const char *a = gw_table__str(json_array_get(ing, i), "ip");
        a = a[0] != '\0' ? a : gw_table__str(json_array_get(ing, i), "hostname");
        char *dup = gw_sprintf(",%s,", a);
        char *have = gw_sprintf(",%s,", l.buf);
        if (a[0] != '\0' && strstr(have, dup) == NULL)
            list_add(&l, a);
        free(dup);
        free(have);
    }
    for (size_t i = 0; i < json_array_size(ips); i++)
        if (json_is_string(json_array_get(ips, i)))
            list_add(&l, json_string_value(json_array_get(ips, i)));
    if (l.len > 0 || strcmp(type, "ClusterIP") == 0 || strcmp(type, "NodePort") == 0 ||
        strcmp(type, "LoadBalancer") == 0) {
        if (l.len == 0)
            list_add(&l, strcmp(type, "LoadBalancer") == 0 ? "<pending>" : "<none>");
        return l.buf;
    }
    free(l.buf);
    return gw_strdup("<unknown>");
}

static char *
service_ports(const json_t *svc)
{
    const json_t *ports = gw_table__get(svc, "spec.ports");
    list_t l = {gw_strdup(""), 0};
    char buf[96];
    for (size_t i = 0; i < json_array_size(ports); i++) {
        const json_t *p = json_array_get(ports, i);
        json_int_t node_port = gw_table__int(p, "nodePort");
        if (node_port > 0)
            snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT ":%" JSON_INTEGER_FORMAT "/%s",
                     gw_table__int(p, "port"), node_port, gw_table__str(p, "protocol"));
        else
            snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "/%s", gw_table__int(p, "port"),
                     gw_table__str(p, "protocol"));
        list_add(&l, buf);
    }
    if (l.len == 0)
        list_add(&l, "<none>");
    return l.buf;
}

static void
service_cells(const json_t *svc, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    const char *ip = json_string_value(json_array_get(gw_table__get(svc, "spec.clusterIPs"), 0));
    char *ext = service_external_ip(svc), *ports = service_ports(svc);
    char *selector = gw_table__labels(gw_table__get(svc, "spec.selector"));
    gw_table__cell(cells, gw_table__str(svc, "metadata.name"));
    gw_table__cell(cells, gw_table__str(svc, "spec.type"));
    gw_table__cell(cells, ip != NULL ? ip : "<none>");
    gw_table__cell(cells, ext);
    gw_table__cell(cells, ports);
    json_array_append_new(cells, gw_table__age(svc, "metadata.creationTimestamp", now));
    gw_table__cell(cells, selector);
    free(ext);
    free(ports);
    free(selector);
}

static const gw_table__column_t service_columns[] = {
    NAME_COLUMN,
    {"Type", "string", "", "How the service is exposed.", 0},
    {"Cluster-IP", "string", "", "The service's cluster IP address.", 0},
    {"External-IP", "string", "", "Addresses the service is reachable at from outside.", 0},
    {"Port(s)", "string", "", "The service's ports.", 0},
    AGE_COLUMN,
    {"Selector", "string", "", "Labels of the pods the service sends traffic to.", 1},
};

/* ---- events ------------------------------------------------------------------------------ */

static json_t *
event_source(const json_t *ev)
{
    const char *component = gw_table__str(ev, "source.component");
    const char *host = gw_table__str(ev, "source.host");
    component = component[0] != '\0' ? component : gw_table__str(ev, "reportingComponent");
    host = host[0] != '\0' ? host : gw_table__str(ev, "reportingInstance");
    char *s = gw_sprintf("%s%s%s", component, host[0] != '\0' ? ", " : "", host);
    json_t *v = json_string(s);
    free(s);
    return v;
}

static json_t *
trimmed(const char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    return json_stringn(s, n);
}

static void
event_cells(const json_t *ev, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    long long t;
    bool has_first = gw_time_parse(gw_table__str(ev, "firstTimestamp"), &t);
    json_t *first = gw_table__age(ev, has_first ? "firstTimestamp" : "eventTime", now);
    bool has_last = gw_time_parse(gw_table__str(ev, "lastTimestamp"), &t);
    json_t *last = has_last ? gw_table__age(ev, "lastTimestamp", now) : json_copy(first);
    json_int_t count = gw_table__int(ev, "count");
    if (gw_table__get(ev, "series") != NULL) {
        json_decref(last);
        last = gw_table__age(ev, "series.lastObservedTime", now);
        count = gw_table__int(ev, "series.count");
    } else if (count == 0) {
        count = 1; /* singleton events of the events.k8s.io API have no count */
    }
    const char *kind = gw_table__str(ev, "involvedObject.kind");
    const char *name = gw_table__str(ev, "involvedObject.name");
    char *target = gw_sprintf("%s%s%s", kind, name[0] != '\0' ? "/" : "", name);
    for (char *c = target; *c && *c != '/'; c++)
        *c = (char)tolower((unsigned char)*c);
    json_array_append_new(cells, last);
    gw_table__cell(cells, gw_table__str(ev, "type"));
    gw_table__cell(cells, gw_table__str(ev, "reason"));
    gw_table__cell(cells, target);
    gw_table__cell(cells, gw_table__str(ev, "involvedObject.fieldPath"));
    json_array_append_new(cells, event_source(ev));
    json_array_append_new(cells, trimmed(gw_table__str(ev, "message")));
    json_array_append_new(cells, first);
    json_array_append_new(cells, json_integer(count));
    gw_table__cell(cells, gw_table__str(ev, "metadata.name"));
    free(target);
}

static const gw_table__column_t event_columns[] = {
    {"Last Seen", "string", "", "Time since the event was last seen.", 0},
    {"Type", "string", "", "Normal or Warning.", 0},
    {"Reason", "string", "", "Why the event happened, in a word.", 0},
    {"Object", "string", "", "The object the event is about.", 0},
    {"Subobject", "string", "", "The part of the object the event is about.", 1},
    {"Source", "string", "", "The component that reported the event.", 1},
    {"Message", "string", "", "What happened.", 0},
    {"First Seen", "string", "", "Time since the event was first seen.", 1},
    {"Count", "string", "", "How many times the event happened.", 1},
    {"Name", "string", "name", "Name of the event object.", 1},
};

/* ---- simple kinds ------------------------------------------------------------------------ */

static void
namespace_cells(const json_t *ns, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    gw_table__cell(cells, gw_table__str(ns, "metadata.name"));
    gw_table__cell(cells, gw_table__str(ns, "status.phase"));
    json_array_append_new(cells, gw_table__age(ns, "metadata.creationTimestamp", now));
}

static void
configmap_cells(const json_t *cm, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    size_t n = json_object_size(json_object_get(cm, "data")) +
               json_object_size(json_object_get(cm, "binaryData"));
    gw_table__cell(cells, gw_table__str(cm, "metadata.name"));
    json_array_append_new(cells, json_integer((json_int_t)n));
    json_array_append_new(cells, gw_table__age(cm, "metadata.creationTimestamp", now));
}

static void
secret_cells(const json_t *s, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    gw_table__cell(cells, gw_table__str(s, "metadata.name"));
    gw_table__cell(cells, gw_table__str(s, "type"));
    json_array_append_new(cells,
                          json_integer((json_int_t)json_object_size(json_object_get(s, "data"))));
    json_array_append_new(cells, gw_table__age(s, "metadata.creationTimestamp", now));
}

static void
serviceaccount_cells(const json_t *sa, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    gw_table__cell(cells, gw_table__str(sa, "metadata.name"));
    json_array_append_new(
        cells, json_integer((json_int_t)json_array_size(json_object_get(sa, "secrets"))));
    json_array_append_new(cells, gw_table__age(sa, "metadata.creationTimestamp", now));
}

static const gw_table__column_t namespace_columns[] = {
    NAME_COLUMN,
    {"Status", "string", "", "Whether the namespace is active or terminating.", 0},
    AGE_COLUMN};
static const gw_table__column_t configmap_columns[] = {
    NAME_COLUMN, {"Data", "string", "", "Number of keys.", 0}, AGE_COLUMN};
static const gw_table__column_t secret_columns[] = {
    NAME_COLUMN,
    {"Type", "string", "", "What the secret holds.", 0},
    {"Data", "string", "", "Number of keys.", 0},
    AGE_COLUMN};
static const gw_table__column_t serviceaccount_columns[] = {
    NAME_COLUMN, {"Secrets", "string", "", "Number of secrets listed.", 0}, AGE_COLUMN};

#define PRINTER(res, cols, fn)                                                                     \
    {                                                                                              \
        "", res, cols, sizeof(cols) / sizeof(cols[0]), fn                                          \
    }

const gw_table__printer_t gw_table__core_printers[] = {
    PRINTER("pods", pod_columns, pod_cells),
    PRINTER("nodes", node_columns, node_cells),
    PRINTER("services", service_columns, service_cells),
    PRINTER("events", event_columns, event_cells),
    PRINTER("namespaces", namespace_columns, namespace_cells),
    PRINTER("configmaps", configmap_columns, configmap_cells),
    PRINTER("secrets", secret_columns, secret_cells),
    PRINTER("serviceaccounts", serviceaccount_columns, serviceaccount_cells),
};
const size_t gw_table__n_core_printers =
    sizeof(gw_table__core_printers) / sizeof(gw_table__core_printers[0]);
