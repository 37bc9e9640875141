/* kube's admission metrics: each plugin's time (apiserver_admission_controller_admission_
 * duration_seconds) and each phase's (apiserver_admission_step_admission_duration_seconds),
 * by operation, whether it refused and the phase, "admit" or "validate". */
#include "gw_admission_int.h"

#include "gw_clock.h"
#include "gw_metric.h"

static const char *const controller_labels[] = {"name", "operation", "rejected", "type"};
static const char *const step_labels[] = {"operation", "rejected", "type"};
static const double buckets[] = {0.005, 0.025, 0.1, 0.5, 1.0, 2.5}; /* kube's */

static const gw_metric_desc_t controller_desc = {
    .name = "apiserver_admission_controller_admission_duration_seconds",
    .help = "Time an admission plugin took in seconds, by plugin, operation, refusal and phase "
            "(admit or validate).",
    .stability = "STABLE",
    .type = GW_METRIC_HISTOGRAM,
    .labels = controller_labels,
    .n_labels = 4,
    .buckets = buckets,
    .n_buckets = sizeof(buckets) / sizeof(buckets[0]),
};

static const gw_metric_desc_t step_desc = {
    .name = "apiserver_admission_step_admission_duration_seconds",
    .help = "Time an admission phase took in seconds, by operation, refusal and phase (admit or "
            "validate).",
    .stability = "STABLE",
    .type = GW_METRIC_HISTOGRAM,
    .labels = step_labels,
    .n_labels = 3,
    .buckets = buckets,
    .n_buckets = sizeof(buckets) / sizeof(buckets[0]),
};

static const char *
operation_name(gw_admission_op_t op)
{
    static const char *const names[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    return (size_t)op < sizeof(names) / sizeof(names[0]) ? names[op] : "";
}

void
gw_admission__observe_plugin(const char *name, gw_admission_op_t op, bool validating, bool rejected,
                             int64_t start_ns)
{
    static gw_metric_t *_Atomic family;
    const char *v[] = {name, operation_name(op), rejected ? "true" : "false",
                       validating ? "validate" : "admit"};
    gw_metric_observe(gw_metric_cached(&family, &controller_desc), v,
                      (double)(gw_monotonic_ns() - start_ns) / 1e9);
}

void
gw_admission__observe_step(gw_admission_op_t op, bool validating, bool rejected, int64_t start_ns)
{
    static gw_metric_t *_Atomic family;
    const char *v[] = {operation_name(op), rejected ? "true" : "false",
                       validating ? "validate" : "admit"};
    gw_metric_observe(gw_metric_cached(&family, &step_desc), v,
                      (double)(gw_monotonic_ns() - start_ns) / 1e9);
}
