#ifndef GATEWAY_ADMISSION_GW_ADMISSION_WEBHOOK_REVIEW_H
#define GATEWAY_ADMISSION_GW_ADMISSION_WEBHOOK_REVIEW_H

/*
 * The admission.k8s.io AdmissionReview an admission webhook is sent and answers, as kube
 * 1.32's webhook/request package builds and checks it (CreateV1AdmissionReview,
 * CreateV1beta1AdmissionReview, VerifyAdmissionResponse), and the answer's JSON patch applied
 * as the mutating dispatcher applies it. Pure functions (no I/O): fuzzed by
 * tests/fuzz/fuzz_admission_review.c.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_admission_match.h"

/** What a review carries. Strings may be NULL or "" (left out where kube omits them empty);
 *  documents are borrowed. */
typedef struct {
    const char *version; /* "v1" or "v1beta1" */
    const char *uid;
    gw_admission_gvk_t kind; /* the matched (equivalent) kind and resource */
    gw_admission_gvr_t resource;
    const char *subresource;
    gw_admission_gvk_t request_kind; /* as requested */
    gw_admission_gvr_t request_resource;
    const char *request_subresource;
    const char *name, *namespace_;
    const char *operation; /* CREATE, UPDATE, DELETE, CONNECT */
    const char *username, *user_uid;
    const char *const *groups;
    size_t ngroups;
    const json_t *extra;      /* object of string arrays, or NULL */
    const json_t *object;     /* NULL: null */
    const json_t *old_object; /* NULL: null */
    bool dry_run;
    const json_t *options; /* the operation's options, or NULL: null */
} gw_webhook_review_in_t;

/**
 * The request document, in kube's field order: {"kind":"AdmissionReview","apiVersion":
 * "admission.k8s.io/<version>","request":{...}}. Returns malloc'd JSON text of *len bytes.
 * Thread: any.
 */
char *gw_webhook_review_request(const gw_webhook_review_in_t *in, size_t *len);

/** kube's AdmissionResponse as VerifyAdmissionResponse returns it. Documents are owned
 *  (gw_webhook_response_clear). */
typedef struct {
    bool allowed;
    json_t *patch;             /* the decoded JSON patch (an array), or NULL: none */
    json_t *result;            /* response.status, an object, or NULL */
    json_t *warnings;          /* array of strings, or NULL */
    json_t *audit_annotations; /* object of strings, or NULL */
} gw_webhook_response_t;

/**
 * Check a webhook's answer (HTTP status and body) to the review of `version` and `uid`, as
 * kube's client and VerifyAdmissionResponse do (a validating webhook may not patch). Returns 0
 * with *out filled, or -1 with kube's reason in err: what follows `failed calling webhook
 * "<name>": ` (e.g. `received invalid webhook response: expected response.uid="a", got "b"`,
 * `failed to call webhook: the server could not find the requested resource`). Thread: any.
 */
int gw_webhook_review_response(const char *version, const char *uid, bool mutating, int http_status,
                               const char *body, size_t len, gw_webhook_response_t *out, char *err,
                               size_t err_len);

/** Free what a response holds and zero it. */
void gw_webhook_response_clear(gw_webhook_response_t *r);

/**
 * Apply a response's JSON patch to `object` (borrowed) as the mutating dispatcher does.
 * Returns the patched object (a new reference), or NULL with the patch's error in err (kube
 * answers that as an internal error, whatever the failurePolicy): a patch that does not apply,
 * or one whose result is no object. Thread: any.
 */
json_t *gw_webhook_review_apply(const json_t *object, const json_t *patch, char *err,
                                size_t err_len);

#endif
