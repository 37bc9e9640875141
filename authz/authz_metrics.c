/* kube's authorization metrics: each authorizer's terminal decisions
 * (apiserver_authorization_decisions_total, by type, name and decision), the Webhook
 * authorizers' round trips, durations and failures opened, and their match conditions'
 * evaluations. A decision taken before the chain (system:masters) is not counted, as kube's
 * privileged-group authorizer is not instrumented either. */
#include "authz_int.h"

#include "gw_metric.h"

static const char *const decision_labels[] = {"type", "name", "decision"};
static const char *const webhook_labels[] = {"name", "result"};
static const char *const condition_labels[] = {"type", "name"};
/* Prometheus' default buckets (kube's DefBuckets) */
static const double default_buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
static const double condition_buckets[] = {0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25}; /* kube's */

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const gw_metric_desc_t decisions_desc = {
    .name = "apiserver_authorization_decisions_total",
    .help = "Decisions (allowed or denied) authorizers gave, by authorizer type and name.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = decision_labels,
    .n_labels = N(decision_labels),
};

static const gw_metric_desc_t webhook_descs[] = {
    {
        .name = "apiserver_authorization_webhook_evaluations_total",
        .help = "Round trips to authorization webhooks, by webhook and result.",
        .stability = "ALPHA",
        .type = GW_METRIC_COUNTER,
        .labels = webhook_labels,
        .n_labels = N(webhook_labels),
    },
    {
        .name = "apiserver_authorization_webhook_duration_seconds",
        .help = "How long authorization webhooks took to answer in seconds, by webhook and result.",
        .stability = "ALPHA",
        .type = GW_METRIC_HISTOGRAM,
        .labels = webhook_labels,
        .n_labels = N(webhook_labels),
        .buckets = default_buckets,
        .n_buckets = N(default_buckets),
    },
    {
        .name = "apiserver_authorization_webhook_evaluations_fail_open_total",
        .help = "Authorization webhook failures (timeouts or errors) that gave no opinion, by "
                "webhook and result.",
        .stability = "ALPHA",
        .type = GW_METRIC_COUNTER,
        .labels = webhook_labels,
        .n_labels = N(webhook_labels),
    },
};

static const gw_metric_desc_t condition_descs[] = {
    [AUTHZ__CONDITIONS_ERROR] =
        {
            .name = "apiserver_authorization_match_condition_evaluation_errors_total",
            .help = "Authorizer match conditions that failed to evaluate, by authorizer type and "
                    "name.",
            .stability = "ALPHA",
            .type = GW_METRIC_COUNTER,
            .labels = condition_labels,
            .n_labels = N(condition_labels),
        },
    [AUTHZ__CONDITIONS_EXCLUDED] =
        {
            .name = "apiserver_authorization_match_condition_exclusions_total",
            .help = "Requests an authorizer's match conditions kept from it, by authorizer type "
                    "and name.",
            .stability = "ALPHA",
            .type = GW_METRIC_COUNTER,
            .labels = condition_labels,
            .n_labels = N(condition_labels),
        },
};

static const gw_metric_desc_t condition_time_desc = {
    .name = "apiserver_authorization_match_condition_evaluation_seconds",
    .help = "Time the match conditions of an authorizer took in seconds, by authorizer type and "
            "name.",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = condition_labels,
    .n_labels = N(condition_labels),
    .buckets = condition_buckets,
    .n_buckets = N(condition_buckets),
};

void
authz__count_decision(const authz_authorizer_t *a, authz_decision_t decision)
{
    static gw_metric_t *_Atomic family;
    const char *v[] = {a->name, a->label, decision == AUTHZ_ALLOW ? "allowed" : "denied"};

    if (decision != AUTHZ_NO_OPINION) /* not terminal: kube does not count it */
        gw_metric_add(gw_metric_cached(&family, &decisions_desc), v, 1);
}

void
authz__count_webhook(const char *name, const char *result, double seconds, bool fail_open)
{
    static gw_metric_t *_Atomic families[N(webhook_descs)];
    const char *v[] = {name, result};

    gw_metric_add(gw_metric_cached(&families[0], &webhook_descs[0]), v, 1);
    gw_metric_observe(gw_metric_cached(&families[1], &webhook_descs[1]), v, seconds);
    if (fail_open)
        gw_metric_add(gw_metric_cached(&families[2], &webhook_descs[2]), v, 1);
}

void
authz__count_conditions(const authz_authorizer_t *a, authz__conditions_t outcome, double seconds)
{
    static gw_metric_t *_Atomic families[N(condition_descs)], *_Atomic time_family;
    const char *v[] = {a->name, a->label};

    if (outcome != AUTHZ__CONDITIONS_HOLD)
        gw_metric_add(gw_metric_cached(&families[outcome], &condition_descs[outcome]), v, 1);
    gw_metric_observe(gw_metric_cached(&time_family, &condition_time_desc), v, seconds);
}
