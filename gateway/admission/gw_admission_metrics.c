/* kube's admission metrics: each plugin's time (apiserver_admission_controller_admission_
 * duration_seconds) and each phase's (apiserver_admission_step_admission_duration_seconds),
 * by operation, whether it refused and the phase, "admit" or "validate"; and each webhook
 * call's (apiserver_admission_webhook_*), whose type label is kube's "admit" or
 * "validating". */
#include "gw_admission_int.h"

#include "gw_clock.h"
#include "gw_metric.h"

#include <stdio.h>
#include <string.h>

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

/* ---- webhooks ---------------------------------------------------------------------------- */

static const char *const webhook_labels[] = {"name", "operation", "rejected", "type"};
static const char *const request_labels[] = {"code", "name", "operation", "rejected", "type"};
static const char *const rejection_labels[] = {"error_type", "name", "operation", "rejection_code",
                                               "type"};
static const char *const fail_open_labels[] = {"name", "type"};
static const double webhook_buckets[] = {0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25}; /* kube's */

static const gw_metric_desc_t webhook_desc = {
    .name = "apiserver_admission_webhook_admission_duration_seconds",
    .help = "Time an admission webhook call took in seconds, by webhook, operation, refusal and "
            "type (admit or validating).",
    .stability = "STABLE",
    .type = GW_METRIC_HISTOGRAM,
    .labels = webhook_labels,
    .n_labels = 4,
    .buckets = webhook_buckets,
    .n_buckets = sizeof(webhook_buckets) / sizeof(webhook_buckets[0]),
};

static const gw_metric_desc_t request_desc = {
    .name = "apiserver_admission_webhook_request_total",
    .help = "Admission webhook calls, by webhook, type, operation, refusal and HTTP status "
            "(above 600 counted as 600).",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = request_labels,
    .n_labels = 5,
};

static const gw_metric_desc_t rejection_desc = {
    .name = "apiserver_admission_webhook_rejection_count",
    .help = "Requests admission webhook calls refused, by webhook, type, operation, error type "
            "(calling_webhook_error, apiserver_internal_error or no_error) and the code of the "
            "refusal (above 600 counted as 600).",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = rejection_labels,
    .n_labels = 5,
};

static const gw_metric_desc_t fail_open_desc = {
    .name = "apiserver_admission_webhook_fail_open_count",
    .help = "Admission webhook calls that failed and were ignored (failurePolicy Ignore), by "
            "webhook and type.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = fail_open_labels,
    .n_labels = 2,
};

void
gw_admission__observe_webhook(const char *name, bool mutating, gw_admission_op_t op,
                              gw_admission__webhook_end_t end, int code, bool ignore,
                              int64_t start_ns)
{
    static gw_metric_t *_Atomic durations, *_Atomic requests, *_Atomic rejections,
        *_Atomic fail_opens;
    static const char *const error_types[] = {
        [GW_ADMISSION__WEBHOOK_CALL_ERROR] = "calling_webhook_error",
        [GW_ADMISSION__WEBHOOK_REJECTED] = "no_error",
        [GW_ADMISSION__WEBHOOK_INTERNAL] = "apiserver_internal_error"};
    const char *type = mutating ? "admit" : "validating", *operation = operation_name(op);
    bool rejected = end == GW_ADMISSION__WEBHOOK_REJECTED ||
                    end == GW_ADMISSION__WEBHOOK_INTERNAL ||
                    (end == GW_ADMISSION__WEBHOOK_CALL_ERROR && !ignore);
    const char *rejected_s = rejected ? "true" : "false";
    char code_s[16];

    snprintf(code_s, sizeof(code_s), "%d", code > 600 ? 600 : code);
    const char *dv[] = {name, operation, rejected_s, type};
    const char *rv[] = {code_s, name, operation, rejected_s, type};
    gw_metric_observe(gw_metric_cached(&durations, &webhook_desc), dv,
                      (double)(gw_monotonic_ns() - start_ns) / 1e9);
    gw_metric_add(gw_metric_cached(&requests, &request_desc), rv, 1);
    if (rejected) {
        const char *jv[] = {error_types[end], name, operation, code_s, type};
        gw_metric_add(gw_metric_cached(&rejections, &rejection_desc), jv, 1);
    } else if (end == GW_ADMISSION__WEBHOOK_CALL_ERROR) {
        const char *fv[] = {name, type};
        gw_metric_add(gw_metric_cached(&fail_opens, &fail_open_desc), fv, 1);
    }
}

/* ---- validating admission policies ------------------------------------------------------- */

static const char *const policy_labels[] = {"enforcement_action", "error_type", "policy",
                                            "policy_binding"};
static const double policy_buckets[] = {0.0000005, 0.001, 0.01, 0.1, 1.0}; /* kube's */

static const gw_metric_desc_t policy_checks_desc = {
    .name = "apiserver_validating_admission_policy_check_total",
    .help = "Validating admission policy checks that were not a plain pass, by policy, binding, "
            "error type and the action taken (deny, warn, audit, or allow for an ignored error).",
    .stability = "BETA",
    .type = GW_METRIC_COUNTER,
    .labels = policy_labels,
    .n_labels = 4,
};

static const gw_metric_desc_t policy_time_desc = {
    .name = "apiserver_validating_admission_policy_check_duration_seconds",
    .help = "Time one validating admission policy expression took in seconds, by policy, "
            "binding, error type and the action taken.",
    .stability = "BETA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = policy_labels,
    .n_labels = 4,
    .buckets = policy_buckets,
    .n_buckets = sizeof(policy_buckets) / sizeof(policy_buckets[0]),
};

/* kube's error type of a decision: by what its message starts with, as kube tells them. */
static const char *
error_type(gw_vap_evaluation_t evaluation, const char *message)
{
    static const char out_of_budget[] = "validation failed due to running out of cost budget";

    if (evaluation == GW_VAP_EVAL_ADMIT)
        return "no_error";
    if (message != NULL && strncmp(message, "compilation", 11) == 0)
        return "compile_error";
    if (message != NULL && strncmp(message, out_of_budget, sizeof(out_of_budget) - 1) == 0)
        return "out_of_budget";
    return "invalid_error";
}

static void
observe_check(const char *policy, const char *binding, const char *action, const char *type,
              double seconds)
{
    static gw_metric_t *_Atomic checks, *_Atomic times;
    const char *v[] = {action, type, policy, binding};

    gw_metric_add(gw_metric_cached(&checks, &policy_checks_desc), v, 1);
    gw_metric_observe(gw_metric_cached(&times, &policy_time_desc), v, seconds);
}

void
gw_admission__observe_policy(const char *policy, const char *binding, const json_t *binding_doc,
                             const gw_vap_result_t *r)
{
    static const char *const actions[][2] = {
        {"Deny", "deny"}, {"Warn", "warn"}, {"Audit", "audit"}};
    const json_t *chosen =
        json_object_get(json_object_get(binding_doc, "spec"), "validationActions");

    for (size_t i = 0; i < r->ndecisions; i++) {
        const gw_vap_decision_t *d = &r->decisions[i];
        const char *type = error_type(d->evaluation, d->message);
        if (d->action == GW_VAP_ADMIT && d->evaluation == GW_VAP_EVAL_ERROR)
            observe_check(policy, binding, "allow", type, d->seconds);
        for (size_t k = 0; d->action == GW_VAP_DENY && k < json_array_size(chosen); k++) {
            const char *act = json_string_value(json_array_get(chosen, k));
            for (size_t j = 0; act != NULL && j < sizeof(actions) / sizeof(actions[0]); j++)
                if (strcmp(act, actions[j][0]) == 0)
                    observe_check(policy, binding, actions[j][1], type, d->seconds);
        }
    }
    for (size_t i = 0; i < r->naudits; i++) {
        const gw_vap_audit_t *au = &r->audits[i];
        if (au->action == GW_VAP_AUDIT_ERROR)
            observe_check(policy, binding, "deny", error_type(GW_VAP_EVAL_ERROR, au->error),
                          au->seconds);
    }
}

/* ---- matchConditions --------------------------------------------------------------------- */

static const char *const match_labels[] = {"kind", "name", "operation", "type"};
static const double match_buckets[] = {0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25}; /* kube's */

static const gw_metric_desc_t match_descs[] = {
    {
        .name = "apiserver_admission_match_condition_evaluation_errors_total",
        .help = "Admission match conditions that failed to evaluate, by the webhook or policy "
                "holding them, its kind, the operation and the admission type.",
        .stability = "ALPHA",
        .type = GW_METRIC_COUNTER,
        .labels = match_labels,
        .n_labels = 4,
    },
    {
        .name = "apiserver_admission_match_condition_exclusions_total",
        .help = "Requests a false admission match condition kept from a webhook or policy, by "
                "its name and kind, the operation and the admission type.",
        .stability = "ALPHA",
        .type = GW_METRIC_COUNTER,
        .labels = match_labels,
        .n_labels = 4,
    },
    {
        .name = "apiserver_admission_match_condition_evaluation_seconds",
        .help = "Time the match conditions of a webhook or policy took in seconds, by its name "
                "and kind, the operation and the admission type.",
        .stability = "ALPHA",
        .type = GW_METRIC_HISTOGRAM,
        .labels = match_labels,
        .n_labels = 4,
        .buckets = match_buckets,
        .n_buckets = sizeof(match_buckets) / sizeof(match_buckets[0]),
    },
};

void
gw_admission__observe_matches(const char *name, const char *kind, const char *type,
                              gw_admission_op_t op, const gw_vap_match_stats_t *s)
{
    static gw_metric_t *_Atomic families[3];
    const char *v[] = {kind, name, operation_name(op), type};

    if (!s->ran)
        return;
    if (s->errors > 0)
        gw_metric_add(gw_metric_cached(&families[0], &match_descs[0]), v, s->errors);
    if (s->excluded)
        gw_metric_add(gw_metric_cached(&families[1], &match_descs[1]), v, 1);
    gw_metric_observe(gw_metric_cached(&families[2], &match_descs[2]), v, s->seconds);
}
