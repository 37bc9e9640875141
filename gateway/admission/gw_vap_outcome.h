#ifndef GATEWAY_ADMISSION_GW_VAP_OUTCOME_H
#define GATEWAY_ADMISSION_GW_VAP_OUTCOME_H

/*
 * What the ValidatingAdmissionPolicy plugin makes of its evaluations, as kube-apiserver 1.32's
 * dispatcher (policy/validating/dispatcher.go) does, in pure functions: the binding's
 * validationActions (Deny: the request's refusal; Warn: a warning; Audit: the
 * `validation.policy.admission.k8s.io/validation_failure` audit annotation), configuration
 * errors under failurePolicy, audit annotation errors, and the policies' audit annotations
 * (`<policy>/<key>`, a policy's bindings' distinct values joined by ", ").
 *
 * The plugin feeds every (policy, binding, param) result of a request into one outcome, then
 * answers: the first denial refuses the request (gw_admission_forbidden's message over
 * `deny_message`, with `deny_reason` and `deny_code` replacing Forbidden and 403, and one
 * cause whose message is `deny_message`); warnings go out as Warning headers on the answer,
 * refused or not; annotations go to the audit event. A key keeps its first value, as kube's
 * AddAnnotation refuses an overwrite: of several Audit failures only the first one's
 * validation_failure value is recorded.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_vap_eval.h"

typedef struct {
    char *key;
    char *value;
} gw_vap_annotation_t;

/** Everything the policies decided about one request. Zero-initialize; gw_vap_outcome_clear()
 *  frees. One thread at a time. */
typedef struct {
    char *deny_message;      /* NULL: not refused */
    const char *deny_reason; /* static: "Invalid", "Forbidden", "Unauthorized", ... */
    int deny_code;
    char **warnings; /* kube's warning texts (before the header's escaping) */
    size_t nwarnings;
    gw_vap_annotation_t *annotations;
    size_t nannotations;
    /* one policy's audit annotations while its bindings are added */
    gw_vap_annotation_t *pending;
    size_t npending;
} gw_vap_outcome_t;

/** Free what `o` holds and zero it. */
void gw_vap_outcome_clear(gw_vap_outcome_t *o);

/** kube's reasonToCode: Unauthorized 401, Forbidden 403, RequestEntityTooLarge 413, Invalid
 *  and anything else 422. */
int gw_vap_reason_code(const char *reason);

/** "ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request: <m>" (`binding` NULL:
 *  without the binding part), malloc'd. */
char *gw_vap_deny_message(const char *policy, const char *binding, const char *message);

/** "Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <m>", malloc'd. */
char *gw_vap_warning_text(const char *policy, const char *binding, const char *message);

/** The validation_failure audit annotation's value: Go's JSON of
 *  [{"message","policy","binding","expressionIndex","validationActions"}], malloc'd. */
char *gw_vap_validation_failure_json(const char *policy, const char *binding, size_t index,
                                     const char *message, const json_t *actions);

/** The key of that annotation. */
#define GW_VAP_VALIDATION_FAILURE_KEY "validation.policy.admission.k8s.io/validation_failure"

/**
 * A policy or binding that cannot be used (no paramKind resource, a missing param, a param
 * not found with parameterNotFoundAction Deny, ...): under Fail, a denial saying "failed to
 * configure policy: <err>" (`binding` NULL) or "failed to configure binding: <err>"; under
 * Ignore, nothing.
 */
void gw_vap_outcome_config_error(gw_vap_outcome_t *o, const char *policy, const char *binding,
                                 bool ignore, const char *err);

/**
 * One evaluation's result for `binding` of `policy` (`binding_doc`: the stored binding, whose
 * spec.validationActions say what a denying decision does). Audit annotations are held until
 * gw_vap_outcome_end_policy().
 */
void gw_vap_outcome_add(gw_vap_outcome_t *o, const char *policy, const json_t *binding_doc,
                        const gw_vap_result_t *r);

/** Publish the audit annotations of `policy`'s bindings: `<policy>/<key>`, values truncated
 *  to 10 KiB, a key's distinct values joined by ", ". Call after the policy's last binding. */
void gw_vap_outcome_end_policy(gw_vap_outcome_t *o, const char *policy);

#endif
