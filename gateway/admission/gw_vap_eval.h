#ifndef GATEWAY_ADMISSION_GW_VAP_EVAL_H
#define GATEWAY_ADMISSION_GW_VAP_EVAL_H

/*
 * Evaluating one compiled ValidatingAdmissionPolicy for one (binding, param) of one request,
 * as kube-apiserver 1.32's validator does (policy/validating/validator.go, plugin/cel
 * activation.go and composition.go, matchconditions/matcher.go): the matchConditions (their
 * own 2,500,000 budget, no namespaceObject), then the validations and their messageExpressions
 * (one 10,000,000 budget, which the messages spend after the validations), then the
 * auditAnnotations (a fresh 10,000,000 budget). Every expression also stops at kube's per-call
 * limit (1,000,000). Variables are lazy: each is evaluated at most once per phase (kube's
 * composition context), when an expression first reads it, and its cost is charged to the
 * budget with that expression's.
 *
 * The authorizer. cel/'s authorizer callback is synchronous, but kgate's authorizers may answer
 * later (webhooks). So an evaluation runs against a memo of answers (gw_vap_memo_t, one per
 * request, shared by every policy of the request as kube's caching authorizer is): a check the
 * memo does not hold is recorded, answered "no opinion" for the rest of that run, and the
 * evaluation returns GW_VAP_NEEDS_ANSWERS instead of a result. The caller answers every
 * pending check (asynchronously, on its own time), then evaluates again with the same memo.
 * Evaluation is deterministic, so the rerun asks the same checks up to the first one whose
 * answer changes its course; it may record more (checks that depend on earlier answers), so
 * the caller loops until the evaluation returns 0. Each round costs a full evaluation.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cel.h"
#include "gw_vap_compile.h"

/** The memo of authorization answers of one request. */
typedef struct gw_vap_memo gw_vap_memo_t;

/** A new empty memo, owned by the caller (gw_vap_memo_free). Used by one thread at a time. */
gw_vap_memo_t *gw_vap_memo_new(void);

/** Free a memo (NULL is a no-op). No evaluation that used it may still use its answers. */
void gw_vap_memo_free(gw_vap_memo_t *m);

/** How many checks are waiting for an answer. */
size_t gw_vap_memo_pending(const gw_vap_memo_t *m);

/** The `i`th waiting check (0 <= i < gw_vap_memo_pending()); owned by the memo, valid until
 *  it is answered. */
const cel_authz_attrs_t *gw_vap_memo_pending_attrs(const gw_vap_memo_t *m, size_t i);

/** Answer the `i`th waiting check (`r`'s strings are copied); it leaves the waiting list (so
 *  the indexes of the later ones drop by one: answer from the last down, or always index 0). */
void gw_vap_memo_answer(gw_vap_memo_t *m, size_t i, const cel_authz_result_t *r);

/** What the request gives an evaluation. Documents are borrowed for the evaluation. */
typedef struct {
    const json_t *object;           /* NULL: null (DELETE) */
    const json_t *old_object;       /* NULL: null (CREATE) */
    const json_t *request;          /* the AdmissionRequest document (gw_vap_request_doc) */
    const json_t *params;           /* NULL: null (no paramKind, or paramRef not found and Allow) */
    const json_t *namespace_object; /* NULL: null (cluster-scoped, or a Namespace itself);
                                       see gw_vap_namespace_doc */
    cel_authz_attrs_t request_resource; /* what authorizer.requestResource checks */
} gw_vap_input_t;

/** kube's PolicyDecisionAction and PolicyDecisionEvaluation. */
typedef enum { GW_VAP_ADMIT, GW_VAP_DENY } gw_vap_action_t;
typedef enum { GW_VAP_EVAL_ADMIT, GW_VAP_EVAL_DENY, GW_VAP_EVAL_ERROR } gw_vap_evaluation_t;

/** One decision: per validation, or a single one for an error of the whole evaluation. */
typedef struct {
    gw_vap_action_t action; /* errors: Deny under Fail, Admit under Ignore */
    gw_vap_evaluation_t evaluation;
    const char *reason;  /* a failed validation's reason ("Invalid" when unset); else NULL */
    const char *message; /* failed or errored: kube's message; else NULL */
    double seconds;      /* how long its expression took (kube's Elapsed), for the metrics */
} gw_vap_decision_t;

/** kube's PolicyAuditAnnotationAction. */
typedef enum {
    GW_VAP_AUDIT_EXCLUDE,
    GW_VAP_AUDIT_PUBLISH,
    GW_VAP_AUDIT_ERROR,
} gw_vap_audit_action_t;

typedef struct {
    gw_vap_audit_action_t action;
    const char *key;
    const char *value; /* PUBLISH: trimmed, not yet truncated */
    const char *error; /* ERROR: kube's message */
    double seconds;    /* how long its expression took */
} gw_vap_audit_t;

/** What a run of matchConditions met, for kube's admission match condition metrics. */
typedef struct {
    bool ran;        /* there are matchConditions, and they were evaluated */
    bool excluded;   /* one was false */
    unsigned errors; /* conditions that failed to evaluate (before a false one), or 1 for a
                        run out of budget */
    double seconds;  /* how long they took */
} gw_vap_match_stats_t;

/** kube's ValidateResult. No decisions: the matchConditions did not match (or an Ignore'd
 *  error made them skip). */
typedef struct {
    gw_vap_decision_t *decisions;
    size_t ndecisions;
    gw_vap_audit_t *audits;
    size_t naudits;
    gw_vap_match_stats_t match;
} gw_vap_result_t;

/** gw_vap_eval()'s "ask the authorizer, then evaluate again". */
#define GW_VAP_NEEDS_ANSWERS 1

/**
 * Evaluate `c` for `in`. Returns 0 with `*out` filled, or GW_VAP_NEEDS_ANSWERS (and `*out`
 * empty) when `memo` lacks answers: see the contract above. Everything in `*out` and every
 * value of the evaluation lives in `a` (and may point into `c` and `in`'s documents); the memo
 * must outlive `a`'s use. Any thread, concurrently with other evaluations of `c`.
 */
int gw_vap_eval(const gw_vap_compiled_t *c, const gw_vap_input_t *in, gw_vap_memo_t *memo,
                cel_arena_t *a, gw_vap_result_t *out);

/**
 * The matchConditions of `c` alone, as kube's webhook matcher (matchconditions/matcher.go)
 * runs them for an admission webhook compiled as a policy holding only them: *matched is 1
 * (they match, or there are none), 0 (a condition is false, or an error under Ignore) or -1
 * with kube's error in *msg (in `a`; under Fail), and what they met in *stats. Returns 0, or
 * GW_VAP_NEEDS_ANSWERS (*matched 0) when `memo` lacks answers, as gw_vap_eval. Any thread.
 */
int gw_vap_eval_matches(const gw_vap_compiled_t *c, const gw_vap_input_t *in, gw_vap_memo_t *memo,
                        cel_arena_t *a, int *matched, const char **msg,
                        gw_vap_match_stats_t *stats);

/** The request's identity and target, for gw_vap_request_doc. Strings may be NULL or "". */
typedef struct {
    const char *kind_group, *kind_version, *kind;             /* the matched (equivalent) kind */
    const char *resource_group, *resource_version, *resource; /* the matched resource */
    const char *subresource;
    const char *request_kind_group, *request_kind_version, *request_kind; /* as requested */
    const char *request_resource_group, *request_resource_version, *request_resource;
    const char *request_subresource;
    const char *name, *namespace_;
    const char *operation; /* CREATE, UPDATE, DELETE, CONNECT */
    const char *username, *uid;
    const char *const *groups;
    size_t ngroups;
    const json_t *extra; /* object of string arrays, or NULL */
    bool dry_run;
    const json_t *options; /* the operation's options object, or NULL */
} gw_vap_request_t;

/** The `request` document kube builds (CreateAdmissionRequest, then its unstructured form:
 *  omitempty fields left out). A new reference. Any thread. */
json_t *gw_vap_request_doc(const gw_vap_request_t *r);

/** The `namespaceObject` document kube builds from a stored Namespace (CreateNamespaceObject:
 *  only some metadata fields, spec and status), or NULL for NULL. A new reference. */
json_t *gw_vap_namespace_doc(const json_t *ns);

#endif
