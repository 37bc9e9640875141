/*
 * Workload kinds (apps/v1 and batch/v1) whose defaults are more than a table of fields: kube's
 * SetDefaults_Deployment, _DaemonSet, _StatefulSet and _Job. Their pod templates are defaulted
 * by the table in gw_defaults.c.
 */
#include "gw_defaults_int.h"

#include <stdint.h>

static const gw_def_t rolling_type[] = {GW_ZERO_STR("type", "RollingUpdate"), GW_DEF_END};

/* A strategy (Go struct, so always there) of type RollingUpdate unless set, whose rollingUpdate
 * gets `defs` when that is its type. */
static void
rolling_strategy(json_t *spec, const char *key, const gw_def_t *defs)
{
    json_t *strategy = gw_defaults__member(spec, key);

    gw_defaults__fill(strategy, rolling_type);
    if (gw_defaults__is(strategy, "type", "RollingUpdate"))
        gw_defaults__fill(gw_defaults__member(strategy, "rollingUpdate"), defs);
}

/* ---- deployments, daemon sets ------------------------------------------------------------- */

static const gw_def_t deployment_spec[] = {
    GW_NIL_INT("replicas", 1),
    GW_NIL_INT("revisionHistoryLimit", 10),
    GW_NIL_INT("progressDeadlineSeconds", 600),
    GW_DEF_END,
};

static const gw_def_t deployment_rolling[] = {
    GW_NIL_STR("maxUnavailable", "25%"),
    GW_NIL_STR("maxSurge", "25%"),
    GW_DEF_END,
};

void
gw_defaults__deployment(json_t *d)
{
    json_t *spec = gw_defaults__member(d, "spec");

    gw_defaults__fill(spec, deployment_spec);
    rolling_strategy(spec, "strategy", deployment_rolling);
}

static const gw_def_t daemon_set_spec[] = {GW_NIL_INT("revisionHistoryLimit", 10), GW_DEF_END};

static const gw_def_t daemon_set_rolling[] = {
    GW_NIL_INT("maxUnavailable", 1),
    GW_NIL_INT("maxSurge", 0),
    GW_DEF_END,
};

void
gw_defaults__daemon_set(json_t *ds)
{
    json_t *spec = gw_defaults__member(ds, "spec");

    gw_defaults__fill(spec, daemon_set_spec);
    rolling_strategy(spec, "updateStrategy", daemon_set_rolling);
}

/* ---- stateful sets ------------------------------------------------------------------------ */

static const gw_def_t stateful_set_spec[] = {
    GW_ZERO_STR("podManagementPolicy", "OrderedReady"),
    GW_NIL_INT("replicas", 1),
    GW_NIL_INT("revisionHistoryLimit", 10),
    GW_DEF_END,
};

static const gw_def_t partition[] = {GW_NIL_INT("partition", 0), GW_DEF_END};

static const gw_def_t claim_retention[] = {
    GW_ZERO_STR("whenDeleted", "Retain"),
    GW_ZERO_STR("whenScaled", "Retain"),
    GW_DEF_END,
};

/* A claim template as kube writes it out: its apiVersion and kind are always set by apps/v1's
 * conversion (kube's fix for issue 87583), whatever the request said, and the claim defaults
 * apply (status phase Pending included). */
static void
claim_template(json_t *pvc, const void *arg)
{
    (void)arg;
    json_object_set_new(pvc, "apiVersion", json_string("v1"));
    json_object_set_new(pvc, "kind", json_string("PersistentVolumeClaim"));
    gw_defaults__pvc(pvc);
}

void
gw_defaults__stateful_set(json_t *ss)
{
    json_t *spec = gw_defaults__member(ss, "spec");
    json_t *strategy = gw_defaults__member(spec, "updateStrategy");

    gw_defaults__fill(spec, stateful_set_spec);
    /* Unlike deployments, a rollingUpdate is only made when the type was not given. */
    if (strategy != NULL && gw_defaults__zero(strategy, "type")) {
        json_object_set_new(strategy, "type", json_string("RollingUpdate"));
        gw_defaults__member(strategy, "rollingUpdate");
    }
    if (gw_defaults__is(strategy, "type", "RollingUpdate"))
        gw_defaults__fill_at(strategy, "rollingUpdate", partition);
    gw_defaults__fill(gw_defaults__member(spec, "persistentVolumeClaimRetentionPolicy"),
                      claim_retention);
    gw_defaults__each(spec, "volumeClaimTemplates[]", claim_template, NULL);
}

/* ---- jobs --------------------------------------------------------------------------------- */

static const gw_def_t job_spec[] = {
    GW_NIL_INT("parallelism", 1),
    GW_NIL_STR("completionMode", "NonIndexed"),
    GW_NIL_BOOL("suspend", false),
    GW_NIL_BOOL("manualSelector", false),
    GW_DEF_END,
};

static const gw_def_t pod_condition_pattern[] = {GW_ZERO_STR("status", "True"), GW_DEF_END};

void
gw_defaults__job(json_t *job)
{
    json_t *spec = gw_defaults__member(job, "spec");
    const json_t *labels =
        json_object_get(json_object_get(json_object_get(spec, "template"), "metadata"), "labels");
    bool per_index = !gw_defaults__nil(spec, "backoffLimitPerIndex");
    bool failure_policy = !gw_defaults__nil(spec, "podFailurePolicy");

    if (spec == NULL)
        return;
    /* A job that sets neither runs one pod once. */
    if (gw_defaults__nil(spec, "completions") && gw_defaults__nil(spec, "parallelism"))
        json_object_set_new(spec, "completions", json_integer(1));
    gw_defaults__fill(spec, job_spec);
    /* With per-index limits the job-wide limit is effectively off. */
    gw_defaults__set_nil(spec, "backoffLimit", json_integer(per_index ? INT32_MAX : 6));
    gw_defaults__set_nil(spec, "podReplacementPolicy",
                         json_string(failure_policy ? "Failed" : "TerminatingOrFailed"));
    gw_defaults__fill_at(spec, "podFailurePolicy.rules[].onPodConditions[]", pod_condition_pattern);
    if (json_object_size(labels) > 0)
        gw_defaults__copy_if_empty(gw_defaults__member(job, "metadata"), "labels", labels);
}
