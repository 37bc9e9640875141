/*
 * pods/eviction, as kube-apiserver's EvictionREST (pkg/registry/core/pod/storage/eviction.go):
 * a POST of a policy Eviction deletes the pod unless a PodDisruptionBudget in its namespace
 * forbids it. A terminal, pending or already deleting pod is deleted without looking at
 * budgets. Otherwise the budgets whose selector matches the pod are read: none lets the delete
 * go, more than one is kube's 500, one is checked and decremented (disruptionsAllowed - 1, the
 * pod recorded in status.disruptedPods) in a guaranteed update of its status, or refused with
 * 429 TooManyRequests and a DisruptionBudget cause. The delete takes the Eviction's
 * deleteOptions (preconditions, gracePeriodSeconds, dryRun) and is preceded by the pod's
 * DisruptionTarget condition. Success is kube's 201 Status.
 */
#include "gw_registry_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gw_err.h"
#include "gw_selector.h"
#include "gw_json.h"

/* kube's EvictionsRetry: a conflicting write is tried again this many times. */
#define EVICTION_ATTEMPTS 20
/* kube's MaxDisruptedPodSize. */
#define MAX_DISRUPTED_PODS 2000
#define PDB_PATH "poddisruptionbudgets"

typedef struct {
    gw_req_t *r;
    const char *name, *ns, *pod_key;
    json_t *options; /* the DeleteOptions the pod's deletion takes */
    bool dry_run;
    bool rv_given;  /* the client set preconditions.resourceVersion */
    bool too_many;  /* a conflict on that precondition becomes 429 */
    bool retriable; /* the budget-free path: a conflict reads the pod again */
    json_t *pod;    /* the pod as read */
    const char *pdb_name;
    int attempts;
    gw_fail_t fail;
} evict_t;

static void read_pod(evict_t *e);

static void
keep(gw_req_t *r, json_t *doc)
{
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, doc);
}

void
gw_registry__reply_plain_error(gw_req_t *r, int code, const char *message)
{
    gw_reply_json(r, code,
                  json_pack("{s:s,s:s,s:{},s:s,s:s,s:i}", "kind", "Status", "apiVersion", "v1",
                            "metadata", "status", "Failure", "message", message, "code", code));
}

static void
reply_created(gw_req_t *r)
{
    gw_reply_json(r, 201,
                  json_pack("{s:s,s:s,s:{},s:s,s:i}", "kind", "Status", "apiVersion", "v1",
                            "metadata", "status", "Success", "code", 201));
}

/* kube's createTooManyRequestsError and checkAndDecrement's 429: retry after `after` s. */
static void
fail_budget(evict_t *e, gw_fail_t *f, int after, const char *cause)
{
    json_t *details = json_pack("{s:[{s:s,s:s}],s:i}", "causes", "reason", "DisruptionBudget",
                                "message", cause, "retryAfterSeconds", after);

    if (after == 0)
        json_object_del(details, "retryAfterSeconds");
    gw_registry__fail(e->r, f, 429, "TooManyRequests", details,
                      "Cannot evict pod as it would violate the pod's disruption budget.");
}

static void
fail_processing(evict_t *e, gw_fail_t *f, const char *pdb)
{
    char *cause = gw_arena_sprintf(e->r->arena,
                                   "The disruption budget %s is still being processed by the "
                                   "server.",
                                   pdb);
    fail_budget(e, f, 10, cause);
}

/* ---- the pod ------------------------------------------------------------------------------ */

static const char *
phase_of(const json_t *pod)
{
    const char *p = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    return p ? p : "";
}

static bool
deleting(const json_t *pod)
{
    return json_object_get(json_object_get(pod, "metadata"), "deletionTimestamp") != NULL;
}

/* canIgnorePDB: a terminal or pending pod, or one being deleted. */
static bool
can_ignore_pdb(const json_t *pod)
{
    const char *p = phase_of(pod);

    return strcmp(p, "Succeeded") == 0 || strcmp(p, "Failed") == 0 || strcmp(p, "Pending") == 0 ||
           deleting(pod);
}

/* shouldEnforceResourceVersion: not for terminal or deleting pods. */
static bool
should_enforce_rv(const json_t *pod)
{
    const char *p = phase_of(pod);

    return !(strcmp(p, "Succeeded") == 0 || strcmp(p, "Failed") == 0 || deleting(pod));
}

/* podutil.IsPodReady: a Ready condition with status True. */
static bool
pod_ready(const json_t *pod)
{
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(json_object_get(pod, "status"), "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *s = json_string_value(json_object_get(c, "status"));
        if (t != NULL && strcmp(t, "Ready") == 0)
            return s != NULL && strcmp(s, "True") == 0;
    }
    return false;
}

/* The options with preconditions.resourceVersion set to rv (a copy, kept by the arena). */
static json_t *
with_rv_precondition(evict_t *e, json_t *options, const char *rv)
{
    json_t *o = json_deep_copy(options), *pre = json_object_get(o, "preconditions");

    keep(e->r, o);
    if (!json_is_object(pre)) {
        pre = json_object();
        json_object_set_new(o, "preconditions", pre);
    }
    json_object_set_new(pre, "resourceVersion", json_string(rv ? rv : ""));
    return o;
}

/* ---- deleting ----------------------------------------------------------------------------- */

static void
deleted(gw_req_t *r, const gw_fail_t *f, bool gone, void *arg)
{
    evict_t *e = arg;

    (void)gone;
    if (f->code == 409 && e->too_many) {
        gw_fail_t g = {0};
        fail_processing(e, &g, e->pdb_name ? e->pdb_name : "");
        gw_registry__reply_fail(r, &g);
        return;
    }
    if (f->code == 409 && e->retriable && !e->rv_given && ++e->attempts < EVICTION_ATTEMPTS) {
        read_pod(e); /* kube retries a conflict while the client set no resourceVersion */
        return;
    }
    if (f->code != 0) {
        gw_registry__reply_fail(r, f);
        return;
    }
    reply_created(r);
}

/* The conflict kube's getLatestPod reports for a failed precondition. */
static bool
preconditions_hold(evict_t *e, const json_t *pod)
{
    const json_t *pre = json_object_get(e->options, "preconditions");
    const char *uid = json_string_value(json_object_get(pre, "uid"));
    const char *rv = json_string_value(json_object_get(pre, "resourceVersion"));
    const char *cur_uid = gw_objmeta_str(pod, "uid"),
               *cur_rv = gw_objmeta_str(pod, "resourceVersion");
    json_t *details;

    if (uid != NULL && uid[0] != '\0' && (cur_uid == NULL || strcmp(uid, cur_uid) != 0)) {
        details = json_pack("{s:s,s:s}", "name", e->name, "kind", "Pod");
        gw_registry__fail(e->r, &e->fail, 409, "Conflict", details,
                          "Operation cannot be fulfilled on Pod \"%s\": the UID in the "
                          "precondition (%s) does not match the UID in record (%s). The object "
                          "might have been deleted and then recreated",
                          e->name, uid, cur_uid ? cur_uid : "");
        return false;
    }
    if (rv != NULL && rv[0] != '\0' && (cur_rv == NULL || strcmp(rv, cur_rv) != 0)) {
        details = json_pack("{s:s,s:s}", "name", e->name, "kind", "Pod");
        gw_registry__fail(e->r, &e->fail, 409, "Conflict", details,
                          "Operation cannot be fulfilled on Pod \"%s\": the ResourceVersion in "
                          "the precondition (%s) does not match the ResourceVersion in record "
                          "(%s). The object might have been modified",
                          e->name, rv, cur_rv ? cur_rv : "");
        return false;
    }
    return true;
}

static void
condition_mutate(gw_store_update_t *su, const gw_obj_t *cur, void *ctx)
{
    evict_t *e = ctx;
    json_t *pod;
    size_t len;
    char *bytes, now[21];

    if (cur == NULL) {
        gw_registry__fail_err(e->r, &e->fail, GW_ENOTFOUND, e->name);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    pod = gw_registry__parse_stored((const char *)cur->value, cur->value_len, cur->mod_revision,
                                    NULL);
    if (pod == NULL || !preconditions_hold(e, pod)) {
        if (pod == NULL)
            gw_registry__fail_err(e->r, &e->fail, GW_EINTERNAL, e->name);
        json_decref(pod);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    gw_time_now(now);
    gw_registry__pod_condition(
        pod, json_pack("{s:s,s:s,s:n,s:s,s:s,s:s}", "type", "DisruptionTarget", "status", "True",
                       "lastProbeTime", "lastTransitionTime", now, "reason",
                       "EvictionByEvictionAPI", "message", "Eviction API: evicting"));
    bytes = gw_registry__encode(pod, &len);
    json_decref(pod);
    gw_store_update_commit(su, (uint8_t *)bytes, len);
}

static void
condition_done(int err, const gw_obj_t *obj, void *ctx)
{
    evict_t *e = ctx;
    const json_t *pre = json_object_get(e->options, "preconditions");
    const char *rv = json_string_value(json_object_get(pre, "resourceVersion"));

    if (e->fail.code != 0 || err != 0) {
        if (e->fail.code == 0)
            gw_registry__fail_err(e->r, &e->fail, err, e->name);
        deleted(e->r, &e->fail, false, e);
        return;
    }
    /* The condition moved the resourceVersion the delete is conditioned on. */
    if (rv != NULL && rv[0] != '\0')
        e->options = with_rv_precondition(
            e, e->options, gw_arena_sprintf(e->r->arena, "%" PRId64, obj->mod_revision));
    gw_registry__delete_object(e->r, e->options, e->name, deleted, e);
}

/* addConditionAndDeletePod: the DisruptionTarget condition (not on a dry run), then the delete. */
static void
delete_pod(evict_t *e, json_t *options)
{
    int rc;

    e->options = options;
    memset(&e->fail, 0, sizeof(e->fail));
    if (e->dry_run) {
        gw_registry__delete_object(e->r, options, e->name, deleted, e);
        return;
    }
    rc =
        gw_store_guaranteed_update(e->r->store, e->pod_key, 0, condition_mutate, condition_done, e);
    if (rc != 0)
        condition_done(rc, NULL, e);
}

/* ---- budgets ------------------------------------------------------------------------------ */

/* SetStatusCondition of DisruptionAllowed as pdbhelper.UpdateDisruptionAllowedCondition. */
static void
set_allowed_condition(json_t *status, bool allowed)
{
    json_t *conds = json_object_get(status, "conditions"), *c;
    const char *st = allowed ? "True" : "False";
    json_int_t gen = json_integer_value(json_object_get(status, "observedGeneration"));
    char now[21];
    size_t i;

    gw_time_now(now);
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(status, "conditions", conds);
    }
    json_array_foreach(conds, i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        if (t == NULL || strcmp(t, "DisruptionAllowed") != 0)
            continue;
        const char *old = json_string_value(json_object_get(c, "status"));
        if (old == NULL || strcmp(old, st) != 0) {
            json_object_set_new(c, "status", json_string(st));
            json_object_set_new(c, "lastTransitionTime", json_string(now));
        }
        json_object_set_new(c, "reason",
                            json_string(allowed ? "SufficientPods" : "InsufficientPods"));
        json_object_set_new(c, "message", json_string(""));
        json_object_set_new(c, "observedGeneration", json_integer(gen));
        return;
    }
    json_array_append_new(
        conds, json_pack("{s:s,s:s,s:I,s:s,s:s,s:s}", "type", "DisruptionAllowed", "status", st,
                         "observedGeneration", gen, "lastTransitionTime", now, "reason",
                         allowed ? "SufficientPods" : "InsufficientPods", "message", ""));
}

/* checkAndDecrement on the budget `pdb` (changed in place); false with the failure recorded. */
static bool
check_and_decrement(evict_t *e, json_t *pdb)
{
    json_t *status = json_object_get(pdb, "status"), *dp;
    json_int_t allowed = json_integer_value(json_object_get(status, "disruptionsAllowed"));
    json_int_t observed = json_integer_value(json_object_get(status, "observedGeneration"));
    json_int_t gen =
        json_integer_value(json_object_get(json_object_get(pdb, "metadata"), "generation"));
    const char *name = gw_objmeta_str(pdb, "name");
    json_t *details;
    char now[21];

    if (observed < gen) {
        fail_processing(e, &e->fail, name);
        return false;
    }
    if (allowed < 0 ||
        json_object_size(json_object_get(status, "disruptedPods")) > MAX_DISRUPTED_PODS) {
        details = json_pack("{s:s,s:s,s:s}", "name", name, "group", "policy", "kind",
                            "poddisruptionbudget");
        gw_registry__fail(e->r, &e->fail, 403, "Forbidden", details,
                          "poddisruptionbudget.policy \"%s\" is forbidden: %s", name,
                          allowed < 0 ? "pdb disruptions allowed is negative"
                                      : "DisruptedPods map too big - too many evictions not "
                                        "confirmed by PDB controller");
        return false;
    }
    if (allowed == 0) {
        char *cause =
            gw_arena_sprintf(e->r->arena,
                             "The disruption budget %s needs %" JSON_INTEGER_FORMAT
                             " healthy pods and has %" JSON_INTEGER_FORMAT " currently",
                             name, json_integer_value(json_object_get(status, "desiredHealthy")),
                             json_integer_value(json_object_get(status, "currentHealthy")));
        fail_budget(e, &e->fail, 0, cause);
        return false;
    }
    json_object_set_new(status, "disruptionsAllowed", json_integer(allowed - 1));
    if (allowed - 1 == 0)
        set_allowed_condition(status, false);
    dp = json_object_get(status, "disruptedPods");
    if (!json_is_object(dp)) {
        dp = json_object();
        json_object_set_new(status, "disruptedPods", dp);
    }
    gw_time_now(now);
    json_object_set_new(dp, e->name, json_string(now));
    return true;
}

static void
pdb_mutate(gw_store_update_t *su, const gw_obj_t *cur, void *ctx)
{
    evict_t *e = ctx;
    json_t *pdb;
    size_t len;
    char *bytes;

    if (cur == NULL) {
        gw_registry__fail(
            e->r, &e->fail, 404, "NotFound",
            json_pack("{s:s,s:s,s:s}", "name", e->pdb_name, "group", "policy", "kind", PDB_PATH),
            "poddisruptionbudgets.policy \"%s\" not found", e->pdb_name);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    pdb = gw_registry__parse_stored((const char *)cur->value, cur->value_len, 0, NULL);
    if (pdb == NULL || !check_and_decrement(e, pdb)) {
        if (pdb == NULL)
            gw_registry__fail_err(e->r, &e->fail, GW_EINTERNAL, e->pdb_name);
        json_decref(pdb);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    if (e->dry_run) { /* checked, nothing written */
        json_decref(pdb);
        gw_store_update_abort(su, GW_ECANCELED);
        return;
    }
    bytes = gw_registry__encode(pdb, &len);
    json_decref(pdb);
    gw_store_update_commit(su, (uint8_t *)bytes, len);
}

static void
pdb_done(int err, const gw_obj_t *obj, void *ctx)
{
    evict_t *e = ctx;

    (void)obj;
    if (e->fail.code != 0) {
        gw_registry__reply_fail(e->r, &e->fail);
        return;
    }
    if (err != 0 && !(err == GW_ECANCELED && e->dry_run)) {
        gw_reply_error(e->r, err, e->pdb_name);
        return;
    }
    delete_pod(e, e->options);
}

/* Whether the budget's selector matches the pod's labels (an empty or invalid one: no). */
static bool
pdb_matches(const json_t *pdb, const json_t *pod)
{
    char *s = gw_label_selector_string(json_object_get(json_object_get(pdb, "spec"), "selector"));
    gw_selector_t sel = {0};
    char err[256];
    bool ok = false;

    if (s != NULL && s[0] != '\0' && gw_label_selector_parse(s, &sel, err, sizeof(err)) == 0) {
        ok = gw_label_selector_match(&sel,
                                     json_object_get(json_object_get(pod, "metadata"), "labels"));
        gw_selector_clear(&sel);
    }
    free(s);
    return ok;
}

/* The one matching budget decides (kube's Create after getPodDisruptionBudgets). */
static void
decide(evict_t *e, json_t *pdb)
{
    const json_t *spec = json_object_get(pdb, "spec"), *status = json_object_get(pdb, "status");
    const char *policy = json_string_value(json_object_get(spec, "unhealthyPodEvictionPolicy"));
    json_int_t current = json_integer_value(json_object_get(status, "currentHealthy"));
    json_int_t desired = json_integer_value(json_object_get(status, "desiredHealthy"));
    char *key;
    int rc;

    e->pdb_name = gw_arena_strdup(e->r->arena, gw_objmeta_str(pdb, "name"));
    if (!pod_ready(e->pod) && ((policy != NULL && strcmp(policy, "AlwaysAllow") == 0) ||
                               (current >= desired && desired > 0))) {
        /* An unready pod that does not count: deleted unless it became ready meanwhile. */
        e->too_many = !e->rv_given;
        delete_pod(e,
                   with_rv_precondition(e, e->options, gw_objmeta_str(e->pod, "resourceVersion")));
        return;
    }
    key = gw_store_object_key(PDB_PATH, e->ns, e->pdb_name);
    rc = key ? gw_store_guaranteed_update(e->r->store, key, 0, pdb_mutate, pdb_done, e) : GW_EINVAL;
    free(key);
    if (rc != 0)
        gw_reply_error(e->r, rc, e->pdb_name);
}

static void
pdbs_listed(int err, const gw_list_page_t *page, void *ctx)
{
    evict_t *e = ctx;
    json_t *match = NULL;
    size_t n = 0;

    if (err != 0) {
        gw_reply_error(e->r, err, e->name);
        return;
    }
    for (size_t i = 0; i < page->n_items; i++) {
        const gw_obj_t *o = &page->items[i];
        json_t *pdb =
            gw_registry__parse_stored((const char *)o->value, o->value_len, o->mod_revision, NULL);
        if (pdb != NULL && pdb_matches(pdb, e->pod) && n++ == 0) {
            match = pdb;
            continue;
        }
        json_decref(pdb);
    }
    if (match != NULL)
        keep(e->r, match);
    if (n > 1) {
        gw_registry__reply_plain_error(e->r, 500,
                                       "This pod has more than one PodDisruptionBudget, which the "
                                       "eviction subresource does not support.");
    } else if (n == 0) {
        delete_pod(e, e->options);
    } else {
        decide(e, match);
    }
}

/* ---- the pod, read ------------------------------------------------------------------------ */

static void
pod_read(int err, const gw_obj_t *obj, void *ctx)
{
    evict_t *e = ctx;
    char *prefix;
    int rc;

    if (err != 0) {
        gw_reply_error(e->r, err, e->name);
        return;
    }
    e->pod = gw_registry__parse_stored((const char *)obj->value, obj->value_len, obj->mod_revision,
                                       NULL);
    if (e->pod == NULL) {
        gw_reply_error(e->r, GW_EINTERNAL, e->name);
        return;
    }
    keep(e->r, e->pod);
    e->retriable = can_ignore_pdb(e->pod);
    if (e->retriable) {
        json_t *o = e->options;
        if (should_enforce_rv(e->pod) && !e->rv_given)
            o = with_rv_precondition(e, o, gw_objmeta_str(e->pod, "resourceVersion"));
        delete_pod(e, o);
        return;
    }
    prefix = gw_store_collection_prefix(PDB_PATH, e->ns);
    gw_list_req_t req = {.prefix = prefix};
    rc = prefix ? gw_store_list(e->r->store, &req, pdbs_listed, e) : GW_EINVAL;
    free(prefix);
    if (rc != 0)
        gw_reply_error(e->r, rc, e->name);
}

static void
read_pod(evict_t *e)
{
    int rc = gw_store_get(e->r->store, e->pod_key, 0, pod_read, e);

    if (rc != 0)
        gw_reply_error(e->r, rc, e->name);
}

/* ---- the request -------------------------------------------------------------------------- */

/* propagateDryRun: the Eviction's deleteOptions (or new ones) with CreateOptions' dryRun. */
static json_t *
delete_options(evict_t *e, json_t *eviction, bool query_dry)
{
    json_t *o = json_object_get(eviction, "deleteOptions"), *dry;

    o = json_is_object(o) ? json_deep_copy(o) : json_object();
    keep(e->r, o);
    dry = json_object_get(o, "dryRun");
    if (json_array_size(dry) == 0) {
        if (query_dry)
            json_object_set_new(o, "dryRun", json_pack("[s]", "All"));
        else
            json_object_del(o, "dryRun");
    } else if (query_dry && !(json_array_size(dry) == 1 && json_is_string(json_array_get(dry, 0)) &&
                              strcmp(json_string_value(json_array_get(dry, 0)), "All") == 0)) {
        char *given = gw_json_dumps(dry, JSON_COMPACT);
        gw_registry__reply_plain_error(
            e->r, 500,
            gw_arena_sprintf(e->r->arena,
                             "DryRun in CreateOptions ([All]) and Eviction.DeleteOptions (%s) do "
                             "not match",
                             given ? given : ""));
        free(given);
        return NULL;
    }
    e->dry_run = json_array_size(json_object_get(o, "dryRun")) > 0;
    return o;
}

static void
admitted(void *arg)
{
    read_pod(arg);
}

void
gw_registry__eviction(gw_req_t *r)
{
    evict_t *e = gw_arena_calloc(r->arena, sizeof(*e));
    gw_write_opts_t opts;
    gw_field_errors_t missing = {0};
    json_t *body, *pre;
    const char *raw, *av, *name;
    size_t len;

    e->r = r;
    e->name = r->info.name;
    e->ns = r->info.namespace_;
    e->pod_key = gw_registry__object_key(r, r->info.name);
    if (!gw_registry__write_opts(r, "CreateOptions", &opts, &e->fail)) {
        gw_registry__reply_fail(r, &e->fail);
        return;
    }
    body = gw_req_body_object(r, false, NULL);
    if (body == NULL)
        return;
    raw = gw_req_body(r, &len);
    av = json_string_value(json_object_get(body, "apiVersion"));
    /* A literal: checking the body may replace the string it holds. */
    av = av != NULL && strcmp(av, "policy/v1beta1") == 0 ? "policy/v1beta1" : "policy/v1";
    if (!gw_registry__check_object(r, body, av, "Eviction", r->subresource->schema, raw, len,
                                   opts.field_validation, true, &missing, &e->fail) ||
        !gw_registry__check_namespace(r, body, &e->fail)) {
        gw_ferr_clear(&missing);
        gw_registry__reply_fail(r, &e->fail);
        return;
    }
    gw_ferr_clear(&missing);
    name = gw_objmeta_str(body, "name");
    if (name == NULL || strcmp(name, e->name) != 0) {
        gw_reply_status(r, 400, "BadRequest", NULL,
                        "name in URL does not match name in Eviction object");
        return;
    }
    e->options = delete_options(e, body, opts.dry_run);
    if (e->options == NULL || e->pod_key == NULL) {
        if (e->pod_key == NULL)
            gw_reply_error(r, GW_ENOTFOUND, e->name);
        return;
    }
    pre = json_object_get(e->options, "preconditions");
    e->rv_given = json_string_length(json_object_get(pre, "resourceVersion")) > 0;
    gw_registry__admit_create(r, body, &opts, admitted, e);
}
