/* Printer columns of the workload kinds, the HorizontalPodAutoscalers and the RBAC bindings, as
 * kube-apiserver's printers lay them out (columns, priorities and cell logic; the descriptions
 * are ours). */
#include "gw_table_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"

#define NAME_COLUMN                                                                                \
    {                                                                                              \
        "Name", "string", "name", "Name of the object, unique in its namespace.", 0                \
    }
#define AGE_COLUMN                                                                                 \
    {                                                                                              \
        "Age", "string", "", "Time since the object was created.", 0                               \
    }
#define CONTAINERS_COLUMNS                                                                         \
    {"Containers", "string", "", "Names of the template's containers.", 1},                        \
    {                                                                                              \
        "Images", "string", "", "Images of the template's containers.", 1                          \
    }
#define SELECTOR_COLUMN                                                                            \
    {                                                                                              \
        "Selector", "string", "", "Labels of the pods it manages.", 1                              \
    }

static void
name_cell(json_t *cells, const json_t *obj)
{
    gw_table__cell(cells, gw_table__str(obj, "metadata.name"));
}

static void
int_cell(json_t *cells, const json_t *obj, const char *path)
{
    json_array_append_new(cells, json_integer(gw_table__int(obj, path)));
}

static void
ratio_cell(json_t *cells, const json_t *obj, const char *have, const char *want)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT,
             gw_table__int(obj, have), gw_table__int(obj, want));
    gw_table__cell(cells, buf);
}

static void
age_cell(json_t *cells, const json_t *obj, long long now)
{
    json_array_append_new(cells, gw_table__age(obj, "metadata.creationTimestamp", now));
}

static void
selector_cell(json_t *cells, const json_t *obj, const char *path, bool none)
{
    char *s = gw_table__selector(gw_table__get(obj, path), none);
    gw_table__cell(cells, s);
    free(s);
}

/* ---- deployments, replica sets, stateful sets, daemon sets ------------------------------- */

static void
deployment_cells(const json_t *d, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    name_cell(cells, d);
    ratio_cell(cells, d, "status.readyReplicas", "spec.replicas");
    int_cell(cells, d, "status.updatedReplicas");
    int_cell(cells, d, "status.availableReplicas");
    age_cell(cells, d, now);
    gw_table__containers(gw_table__get(d, "spec.template.spec"), cells);
    selector_cell(cells, d, "spec.selector", false); /* kube prints "" here, not <none> */
}

static void
replicaset_cells(const json_t *rs, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    name_cell(cells, rs);
    int_cell(cells, rs, "spec.replicas");
    int_cell(cells, rs, "status.replicas");
    int_cell(cells, rs, "status.readyReplicas");
    age_cell(cells, rs, now);
    gw_table__containers(gw_table__get(rs, "spec.template.spec"), cells);
    selector_cell(cells, rs, "spec.selector", true);
}

static void
statefulset_cells(const json_t *ss, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    name_cell(cells, ss);
    ratio_cell(cells, ss, "status.readyReplicas", "spec.replicas");
    age_cell(cells, ss, now);
    gw_table__containers(gw_table__get(ss, "spec.template.spec"), cells);
}

static void
daemonset_cells(const json_t *ds, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    char *node_selector = gw_table__labels(gw_table__get(ds, "spec.template.spec.nodeSelector"));
    name_cell(cells, ds);
    int_cell(cells, ds, "status.desiredNumberScheduled");
    int_cell(cells, ds, "status.currentNumberScheduled");
    int_cell(cells, ds, "status.numberReady");
    int_cell(cells, ds, "status.updatedNumberScheduled");
    int_cell(cells, ds, "status.numberAvailable");
    gw_table__cell(cells, node_selector);
    age_cell(cells, ds, now);
    gw_table__containers(gw_table__get(ds, "spec.template.spec"), cells);
    selector_cell(cells, ds, "spec.selector", true);
    free(node_selector);
}

static const gw_table__column_t deployment_columns[] = {
    NAME_COLUMN,
    {"Ready", "string", "", "Ready pods of the desired number.", 0},
    {"Up-to-date", "string", "", "Pods running the current template.", 0},
    {"Available", "string", "", "Pods available to serve.", 0},
    AGE_COLUMN,
    CONTAINERS_COLUMNS,
    SELECTOR_COLUMN,
};
static const gw_table__column_t replicaset_columns[] = {
    NAME_COLUMN,
    {"Desired", "integer", "", "Pods wanted.", 0},
    {"Current", "integer", "", "Pods that exist.", 0},
    {"Ready", "integer", "", "Pods that are ready.", 0},
    AGE_COLUMN,
    CONTAINERS_COLUMNS,
    SELECTOR_COLUMN,
};
static const gw_table__column_t statefulset_columns[] = {
    NAME_COLUMN,
    {"Ready", "string", "", "Ready pods of the desired number.", 0},
    AGE_COLUMN,
    CONTAINERS_COLUMNS,
};
static const gw_table__column_t daemonset_columns[] = {
    NAME_COLUMN,
    {"Desired", "integer", "", "Nodes that should run the pod.", 0},
    {"Current", "integer", "", "Nodes that run the pod.", 0},
    {"Ready", "integer", "", "Nodes whose pod is ready.", 0},
    {"Up-to-date", "integer", "", "Nodes that run the current template.", 0},
    {"Available", "integer", "", "Nodes whose pod is available.", 0},
    {"Node Selector", "string", "", "Labels a node needs to run the pod.", 0},
    AGE_COLUMN,
    CONTAINERS_COLUMNS,
    SELECTOR_COLUMN,
};

/* ---- jobs and cron jobs ------------------------------------------------------------------ */

static bool
job_condition(const json_t *job, const char *type)
{
    const json_t *conds = gw_table__get(job, "status.conditions");
    for (size_t i = 0; i < json_array_size(conds); i++) {
        const json_t *c = json_array_get(conds, i);
        if (strcmp(gw_table__str(c, "type"), type) == 0)
            return strcmp(gw_table__str(c, "status"), "True") == 0;
    }
    return false;
}

static const char *
job_status(const json_t *job)
{
    if (job_condition(job, "Complete"))
        return "Complete";
    if (job_condition(job, "Failed"))
        return "Failed";
    if (gw_table__get(job, "metadata.deletionTimestamp") != NULL)
        return "Terminating";
    if (job_condition(job, "Suspended"))
        return "Suspended";
    return job_condition(job, "FailureTarget") ? "FailureTarget" : "Running";
}

static void
job_completions(const json_t *job, char *buf, size_t n)
{
    json_int_t ok = gw_table__int(job, "status.succeeded");
    json_int_t parallelism = gw_table__int(job, "spec.parallelism");
    if (json_is_integer(gw_table__get(job, "spec.completions")))
        snprintf(buf, n, "%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT, ok,
                 gw_table__int(job, "spec.completions"));
    else if (parallelism > 1)
        snprintf(buf, n, "%" JSON_INTEGER_FORMAT "/1 of %" JSON_INTEGER_FORMAT, ok, parallelism);
    else
        snprintf(buf, n, "%" JSON_INTEGER_FORMAT "/1", ok);
}

/* From start to completion, or to now while it runs; "" before it starts. */
static void
job_duration(const json_t *job, long long now, char *buf, size_t n)
{
    long long start, end;
    buf[0] = '\0';
    if (!gw_time_parse(gw_table__str(job, "status.startTime"), &start))
        return;
    if (!gw_time_parse(gw_table__str(job, "status.completionTime"), &end))
        end = now;
    gw_table__human_duration(end - start, buf, n);
}

static void
job_cells(const json_t *job, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    char buf[64];
    name_cell(cells, job);
    gw_table__cell(cells, job_status(job));
    job_completions(job, buf, sizeof(buf));
    gw_table__cell(cells, buf);
    job_duration(job, now, buf, sizeof(buf));
    gw_table__cell(cells, buf);
    age_cell(cells, job, now);
    gw_table__containers(gw_table__get(job, "spec.template.spec"), cells);
    selector_cell(cells, job, "spec.selector", true);
}

static void
cronjob_cells(const json_t *cj, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    const json_t *suspend = gw_table__get(cj, "spec.suspend");
    const char *tz = gw_table__str(cj, "spec.timeZone");
    name_cell(cells, cj);
    gw_table__cell(cells, gw_table__str(cj, "spec.schedule"));
    gw_table__cell(cells, gw_table__get(cj, "spec.timeZone") != NULL ? tz : "<none>");
    gw_table__cell(cells, json_is_true(suspend)    ? "True"
                          : json_is_false(suspend) ? "False"
                                                   : "<unset>");
    json_array_append_new(
        cells, json_integer((json_int_t)json_array_size(gw_table__get(cj, "status.active"))));
    if (gw_table__get(cj, "status.lastScheduleTime") != NULL)
        json_array_append_new(cells, gw_table__age(cj, "status.lastScheduleTime", now));
    else
        gw_table__cell(cells, "<none>");
    age_cell(cells, cj, now);
    gw_table__containers(gw_table__get(cj, "spec.jobTemplate.spec.template.spec"), cells);
    selector_cell(cells, cj, "spec.jobTemplate.spec.selector", true);
}

static const gw_table__column_t job_columns[] = {
    NAME_COLUMN,
    {"Status", "string", "", "Whether the job runs, completed or failed.", 0},
    {"Completions", "string", "", "Pods that succeeded of those wanted.", 0},
    {"Duration", "string", "", "How long the job ran.", 0},
    AGE_COLUMN,
    CONTAINERS_COLUMNS,
    SELECTOR_COLUMN,
};
static const gw_table__column_t cronjob_columns[] = {
    NAME_COLUMN,
    {"Schedule", "string", "", "When jobs are started, in cron syntax.", 0},
    {"Timezone", "string", "", "The time zone of the schedule.", 0},
    {"Suspend", "boolean", "", "Whether new jobs are held back.", 0},
    {"Active", "integer", "", "Jobs running now.", 0},
    {"Last Schedule", "string", "", "Time since a job was last started.", 0},
    AGE_COLUMN,
    CONTAINERS_COLUMNS,
    SELECTOR_COLUMN,
};

/* ---- role bindings ----------------------------------------------------------------------- */

static void
join_add(gw_buf_t *j, const char *a, const char *sep, const char *b)
{
    gw_buf_printf(j, "%s%s%s%s", j->len > 0 ? ", " : "", a, sep, b);
}

/* Users, groups and service accounts ("namespace:name") among the subjects, ", "-joined. */
static void
subjects_cells(const json_t *binding, json_t *cells)
{
    const json_t *subjects = json_object_get(binding, "subjects");
    gw_buf_t users = {0}, groups = {0}, sas = {0};
    for (size_t i = 0; i < json_array_size(subjects); i++) {
        const json_t *s = json_array_get(subjects, i);
        const char *kind = gw_table__str(s, "kind"), *name = gw_table__str(s, "name");
        if (strcmp(kind, "User") == 0)
            join_add(&users, name, "", "");
        else if (strcmp(kind, "Group") == 0)
            join_add(&groups, name, "", "");
        else if (strcmp(kind, "ServiceAccount") == 0)
            join_add(&sas, gw_table__str(s, "namespace"), ":", name);
    }
    gw_table__cell(cells, gw_buf_cstr(&users));
    gw_table__cell(cells, gw_buf_cstr(&groups));
    gw_table__cell(cells, gw_buf_cstr(&sas));
    gw_buf_free(&users);
    gw_buf_free(&groups);
    gw_buf_free(&sas);
}

static void
binding_cells(const json_t *b, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    char *role =
        gw_sprintf("%s/%s", gw_table__str(b, "roleRef.kind"), gw_table__str(b, "roleRef.name"));
    name_cell(cells, b);
    gw_table__cell(cells, role);
    age_cell(cells, b, now);
    subjects_cells(b, cells);
    free(role);
}

static const gw_table__column_t binding_columns[] = {
    NAME_COLUMN,
    {"Role", "string", "", "The role granted, as Kind/name.", 0},
    AGE_COLUMN,
    {"Users", "string", "", "Users the role is granted to.", 1},
    {"Groups", "string", "", "Groups the role is granted to.", 1},
    {"ServiceAccounts", "string", "", "Service accounts the role is granted to.", 1},
};

/* ---- horizontalpodautoscalers (autoscaling/v2, which every version is printed as) -------- */

/* A Quantity as Go's (*Quantity).String() shows it: "<nil>" when unset. */
static const char *
quantity(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "<nil>";
}

/* "<current>/<target>" of a metric whose target is a value or an average value ("(avg)"). */
static char *
value_metric(const json_t *target, const json_t *current, bool have_current)
{
    const json_t *avg = json_object_get(target, "averageValue");

    if (avg != NULL)
        return gw_sprintf("%s/%s (avg)",
                          have_current && json_object_get(current, "averageValue")
                              ? quantity(json_object_get(current, "averageValue"))
                              : "<unknown>",
                          quantity(avg));
    return gw_sprintf("%s/%s",
                      have_current ? quantity(json_object_get(current, "value")) : "<unknown>",
                      quantity(json_object_get(target, "value")));
}

/* "<name>: <current>/<target>" of a Resource or ContainerResource metric. */
static char *
resource_metric(const json_t *src, const json_t *status)
{
    const json_t *target = json_object_get(src, "target");
    const json_t *current = json_object_get(status, "current");
    const char *name = gw_table__str(src, "name");
    const json_t *util = json_object_get(current, "averageUtilization");
    const json_t *want = json_object_get(target, "averageUtilization");
    char cur[32] = "<unknown>", tgt[32] = "<auto>";

    if (json_object_get(target, "averageValue") != NULL)
        return gw_sprintf("%s: %s/%s", name,
                          status != NULL ? quantity(json_object_get(current, "averageValue"))
                                         : "<unknown>",
                          quantity(json_object_get(target, "averageValue")));
    if (status != NULL && json_is_integer(util))
        snprintf(cur, sizeof(cur), "%" JSON_INTEGER_FORMAT "%%", json_integer_value(util));
    if (json_is_integer(want))
        snprintf(tgt, sizeof(tgt), "%" JSON_INTEGER_FORMAT "%%", json_integer_value(want));
    return gw_sprintf("%s: %s/%s", name, cur, tgt);
}

/* One metric as kubectl's TARGETS shows it; status is the current metric at the same index.
 * Each source type keeps its details under its own key and is shown in one of three ways. */
static char *
hpa_metric(const json_t *spec, const json_t *status)
{
    enum { VALUE, PODS, RESOURCE };
    static const struct {
        const char *type, *key;
        int shape;
    } sources[] = {
        {"External", "external", VALUE},
        {"Object", "object", VALUE},
        {"Pods", "pods", PODS},
        {"Resource", "resource", RESOURCE},
        {"ContainerResource", "containerResource", RESOURCE},
    };
    const char *type = gw_table__str(spec, "type");

    for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
        const json_t *src = json_object_get(spec, sources[i].key);
        const json_t *st = json_object_get(status, sources[i].key);

        if (strcmp(type, sources[i].type) != 0)
            continue;
        if (sources[i].shape == RESOURCE)
            return resource_metric(src, st);
        if (sources[i].shape == PODS) /* an average value always */
            return gw_sprintf("%s/%s",
                              st != NULL ? quantity(gw_table__get(st, "current.averageValue"))
                                         : "<unknown>",
                              quantity(gw_table__get(src, "target.averageValue")));
        return value_metric(json_object_get(src, "target"), json_object_get(st, "current"),
                            st != NULL);
    }
    return gw_strdup("<unknown type>");
}

/* formatHPAMetrics: the first two metrics, then how many more. */
static char *
hpa_targets(const json_t *hpa)
{
    const json_t *specs = gw_table__get(hpa, "spec.metrics");
    const json_t *statuses = gw_table__get(hpa, "status.currentMetrics");
    size_t n = json_array_size(specs);
    gw_buf_t out = {0};
    char *more;

    if (n == 0)
        return gw_strdup("<none>");
    for (size_t i = 0; i < n && i < 2; i++) {
        char *m = hpa_metric(json_array_get(specs, i), json_array_get(statuses, i));
        join_add(&out, m, "", "");
        free(m);
    }
    if (n <= 2)
        return gw_buf_take(&out);
    more = gw_sprintf("%s + %zu more...", gw_buf_cstr(&out), n - 2);
    gw_buf_free(&out);
    return more;
}

static void
hpa_cells(const json_t *hpa, long long now, json_t *row)
{
    json_t *cells = json_object_get(row, "cells");
    const json_t *min = gw_table__get(hpa, "spec.minReplicas");
    char *ref = gw_sprintf("%s/%s", gw_table__str(hpa, "spec.scaleTargetRef.kind"),
                           gw_table__str(hpa, "spec.scaleTargetRef.name"));
    char *targets = hpa_targets(hpa), min_s[32] = "<unset>";

    if (json_is_integer(min))
        snprintf(min_s, sizeof(min_s), "%" JSON_INTEGER_FORMAT, json_integer_value(min));
    name_cell(cells, hpa);
    gw_table__cell(cells, ref);
    gw_table__cell(cells, targets);
    gw_table__cell(cells, min_s);
    int_cell(cells, hpa, "spec.maxReplicas");
    int_cell(cells, hpa, "status.currentReplicas");
    age_cell(cells, hpa, now);
    free(ref);
    free(targets);
}

static const gw_table__column_t hpa_columns[] = {
    NAME_COLUMN,
    {"Reference", "string", "", "The scaled object, as Kind/name.", 0},
    {"Targets", "string", "", "Current and target values of the first metrics.", 0},
    {"MinPods", "string", "", "The fewest replicas it scales down to.", 0},
    {"MaxPods", "integer", "", "The most replicas it scales up to.", 0},
    {"Replicas", "integer", "", "The replicas it last saw.", 0},
    AGE_COLUMN,
};

#define PRINTER(group, res, cols, fn)                                                              \
    {                                                                                              \
        group, res, cols, sizeof(cols) / sizeof(cols[0]), fn                                       \
    }

const gw_table__printer_t gw_table__apps_printers[] = {
    PRINTER("apps", "deployments", deployment_columns, deployment_cells),
    PRINTER("apps", "replicasets", replicaset_columns, replicaset_cells),
    PRINTER("apps", "statefulsets", statefulset_columns, statefulset_cells),
    PRINTER("apps", "daemonsets", daemonset_columns, daemonset_cells),
    PRINTER("batch", "jobs", job_columns, job_cells),
    PRINTER("batch", "cronjobs", cronjob_columns, cronjob_cells),
    PRINTER("autoscaling", "horizontalpodautoscalers", hpa_columns, hpa_cells),
    PRINTER("rbac.authorization.k8s.io", "rolebindings", binding_columns, binding_cells),
    PRINTER("rbac.authorization.k8s.io", "clusterrolebindings", binding_columns, binding_cells),
};
const size_t gw_table__n_apps_printers =
    sizeof(gw_table__apps_printers) / sizeof(gw_table__apps_printers[0]);
