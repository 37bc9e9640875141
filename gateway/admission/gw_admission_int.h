#ifndef GATEWAY_ADMISSION_GW_ADMISSION_INT_H
#define GATEWAY_ADMISSION_GW_ADMISSION_INT_H

/*
 * What the admission policy plugins share (folder-internal): the ValidatingAdmissionPolicy
 * plugin's walk over a snapshot's policies, bindings and params (gw_admission_vap.c: matching,
 * the namespace read, the request document, the authorizer's memo) runs MutatingAdmissionPolicy
 * too, with gw_admission_map.c's pieces for what differs: evaluating a mutating policy, writing
 * its result into the request's object and kube's words for its failures.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_admission.h"
#include "gw_admission_match.h"
#include "gw_map_eval.h"
#include "gw_vap_eval.h"

/** Read the namespace whose key is `key` ("namespaces/<name>"), the latest state: from the
 *  namespaces' read cache when it has reached etcd's revision, else from etcd (what the plugins'
 *  namespace lookups share). Returns gw_store_read's code. Thread: the store's. */
int gw_admission__read_namespace(gw_store_t *s, const char *key, gw_store_get_cb cb, void *ctx);

/** kube's failures of mutating policies, in order (kube's PolicyError): each message and its
 *  reason ("Invalid" for an evaluation's, NULL for a configuration error). */
typedef struct {
    json_t *errors;       /* [{"message": ..., "reason": ...}] */
    const char *internal; /* kube's internal error (500), which wins over them; in the arena */
} gw_admission__map_errors_t;

/** Record a configuration error of `policy` (and `binding`, NULL for the policy's own) unless
 *  the policy ignores failures: "policy '<p>' with binding '<b>' denied request: <msg>", or
 *  `policy "<p>" denied request: <msg>`. */
void gw_admission__map_config_error(gw_admission__map_errors_t *e, const char *policy,
                                    const char *binding, bool ignore, const char *msg);

/** Take an evaluation's result: the mutated object replaces `a->object`'s contents, and its
 *  errors are recorded (unless the policy ignores failures; an internal error always is). */
void gw_admission__map_result(gw_admission__map_errors_t *e, const gw_admission_attrs_t *a,
                              const char *policy, const char *binding, bool ignore,
                              gw_map_result_t *res);

/** The refusal kube's dispatcher makes of the recorded errors (403, the first error's message
 *  and reason, every message a cause; an internal error is kube's 500), or NULL when there are
 *  none. */
gw_admission_err_t *gw_admission__map_refusal(const gw_admission__map_errors_t *e,
                                              const gw_admission_attrs_t *a);

/**
 * kube's policyReinvokeContext, one per request (MutatingAdmissionPolicy's reinvocation
 * bookkeeping): the invocations (policy, binding, param) of policies with reinvocationPolicy
 * IfNeeded, which of them a reinvocation round runs again, the object as the last round left
 * it, and whether a policy changed the object (the chain's SetShouldReinvoke). Zero it to
 * start; gw_admission__map_reinvoke_clear() releases it. Thread: the request's worker.
 */
typedef struct {
    json_t *previously_invoked; /* keys (as members) of the IfNeeded invocations run */
    json_t *reinvoke;           /* keys a reinvocation round runs again */
    json_t *last_output;        /* the object after the last round, or NULL */
    bool should_reinvoke;       /* a policy changed the object: the chain should run again */
} gw_admission__map_reinvoke_t;

/** A round of the plugin starts on `object`; `reinvoking`: the chain's second round. When the
 *  object changed since the plugin's last round (another plugin mutated it), every IfNeeded
 *  invocation runs again. */
void gw_admission__map_round_begin(gw_admission__map_reinvoke_t *r, const json_t *object,
                                   bool reinvoking);

/** Whether invocation `key` runs in this round (always in the first; in a reinvocation, only
 *  those marked to run again). */
bool gw_admission__map_should_run(const gw_admission__map_reinvoke_t *r, const char *key,
                                  bool reinvoking);

/** Invocation `key` ran: `changed` the object or not; `if_needed`: its policy's
 *  reinvocationPolicy is IfNeeded. */
void gw_admission__map_invoked(gw_admission__map_reinvoke_t *r, const char *key, bool changed,
                               bool if_needed);

/** The round ends on `object` (copied). */
void gw_admission__map_round_end(gw_admission__map_reinvoke_t *r, const json_t *object);

/** The key of an invocation: policy, binding and the param's namespace and name (kube's
 *  key{PolicyUID, BindingUID, ParamUID}). Malloc'd. */
char *gw_admission__map_key(const char *policy, const char *binding, const json_t *param);

/** Release what `r` holds and zero it. */
void gw_admission__map_reinvoke_clear(gw_admission__map_reinvoke_t *r);

/* ---- what admission's CEL expressions need (gw_admission_cel.c) ---------------------------- */

/** kube's name of an operation ("CREATE", ...). Thread: any. */
const char *gw_admission__op_name(gw_admission_op_t op);

/** The user's extra values as {key: [values]} (a new reference; {} for none). Thread: any. */
json_t *gw_admission__user_extra(const authn_user_t *u);

/** The `request` variable of admission expressions (kube's CreateAdmissionRequest) for request
 *  a, its matching form rq and the matched resource m: a new reference. Thread: any. */
json_t *gw_admission__request_doc(const gw_admission_attrs_t *a, const gw_admission_request_t *rq,
                                  const gw_admission_matched_t *m);

/** Ask the request's authorizer chain every check waiting in memo, one after another, each
 *  answer recorded in memo; resume(arg) once none waits (perhaps before this returns, when the
 *  authorizers answer at once). memo must have one waiting at least. Thread: the request's
 *  worker. */
void gw_admission__answer_checks(gw_req_t *req, gw_vap_memo_t *memo, void (*resume)(void *arg),
                                 void *arg);

/** Walk the policies of the current snapshot of their kind for request `a`; done(err, arg)
 *  ends it. `reinvoke` NULL: ValidatingAdmissionPolicies; else MutatingAdmissionPolicies
 *  (gw_map_snap_current) with the plugin's bookkeeping across the chain's rounds, `reinvoking`
 *  in the second. Thread: the request's worker. */
void gw_admission__policies(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg,
                            gw_admission__map_reinvoke_t *reinvoke, bool reinvoking);

/** kube's apiserver_admission_controller_admission_duration_seconds: plugin `name` ran for
 *  op in the validating (else mutating) phase since start_ns, refusing or not. Thread: any. */
void gw_admission__observe_plugin(const char *name, gw_admission_op_t op, bool validating,
                                  bool rejected, int64_t start_ns);

/** How one admission webhook call ended, as kube's webhook metrics tell them apart. */
typedef enum {
    GW_ADMISSION__WEBHOOK_ALLOWED,
    GW_ADMISSION__WEBHOOK_CALL_ERROR, /* not reached or not understood: failurePolicy decides */
    GW_ADMISSION__WEBHOOK_REJECTED,   /* the webhook said no */
    GW_ADMISSION__WEBHOOK_INTERNAL,   /* refused by kgate itself (a dry run it does not support) */
} gw_admission__webhook_end_t;

/**
 * kube's admission webhook metrics of one call of webhook `name` (mutating or validating) for
 * op since start_ns: apiserver_admission_webhook_admission_duration_seconds and
 * _request_total (code: the HTTP status kube gives the call, 0 for an internal refusal), and
 * _rejection_count when the call refuses the request, or _fail_open_count when a call error is
 * ignored (failurePolicy Ignore). Thread: any.
 */
void gw_admission__observe_webhook(const char *name, bool mutating, gw_admission_op_t op,
                                   gw_admission__webhook_end_t end, int code, bool ignore,
                                   int64_t start_ns);

/**
 * kube's apiserver_validating_admission_policy_check_total and _check_duration_seconds of one
 * evaluation of policy through binding (`binding_doc`: its validationActions): each failed or
 * errored validation once per action it leads to (deny, warn, audit; an error under Ignore:
 * allow), each audit annotation error as a denial. Thread: any.
 */
void gw_admission__observe_policy(const char *policy, const char *binding,
                                  const json_t *binding_doc, const gw_vap_result_t *r);

/** kube's apiserver_admission_match_condition_evaluation_errors_total, _exclusions_total and
 *  _evaluation_seconds of one run of `name`'s matchConditions (kind "webhook" or "policy",
 *  type "admit" or "validating"); nothing when it has none. Thread: any. */
void gw_admission__observe_matches(const char *name, const char *kind, const char *type,
                                   gw_admission_op_t op, const gw_vap_match_stats_t *s);

/** kube's apiserver_admission_step_admission_duration_seconds: a whole phase. Thread: any. */
void gw_admission__observe_step(gw_admission_op_t op, bool validating, bool rejected,
                                int64_t start_ns);

#endif
