#ifndef GATEWAY_ADMISSION_GW_WEBHOOK_INT_H
#define GATEWAY_ADMISSION_GW_WEBHOOK_INT_H

/*
 * What the two admission webhook plugins share (gw_admission_webhook.c): kube's generic
 * webhook (ShouldCallHook: the namespace read once, rules, selectors, matchConditions with the
 * request's authorizer), one call of one webhook (dry run, the review out, the answer checked,
 * warnings and audit annotations taken) and kube's words for its failures. Folder-internal.
 */

#include <stdbool.h>

#include "gw_admission.h"
#include "gw_admission_match.h"
#include "gw_admission_webhook_review.h"
#include "gw_vap_eval.h"
#include "gw_webhook_snapshot.h"

/** One plugin's run over the snapshot's webhooks for one request (in its arena). */
typedef struct {
    gw_admission_attrs_t *a;
    gw_webhook_snap_t *snap;
    bool mutating;
    gw_admission_request_t rq;
    bool ns_wanted, ns_loading, ns_loaded;
    json_t *ns; /* the namespace object, NULL when missing */
    int ns_err; /* a read error other than not found */
    gw_vap_memo_t *memo;
    json_t *request_doc; /* matchConditions' `request`, built once */
    /* called when an asynchronous step (read, authorizer) is over, perhaps from inside
       gw_webhook__select: the plugin's loop must take that (see gw_admission_vap.c's drive) */
    void (*resume)(void *arg);
    void *resume_arg;
} gw_webhook__run_t;

/** A new run for plugin `mutating` or NULL when there is nothing to call (no webhook of the
 *  kind, or an exempt request). resume(arg) continues the plugin after asynchronous steps.
 *  Thread: the request's worker. */
gw_webhook__run_t *gw_webhook__run_new(gw_admission_attrs_t *a, bool mutating,
                                       void (*resume)(void *arg), void *arg);

/** What gw_webhook__select decided. */
typedef enum {
    GW_WEBHOOK__SKIP,
    GW_WEBHOOK__CALL,
    GW_WEBHOOK__WAIT, /* resume() follows; ask again then */
    GW_WEBHOOK__REFUSE,
} gw_webhook__verdict_t;

/**
 * kube's ShouldCallHook for webhook w: GW_WEBHOOK__CALL with *matched filled, SKIP, WAIT (the
 * namespace or an authorizer answer is on its way: call again after resume), or REFUSE with
 * kube's error in *err. Thread: the request's worker.
 */
gw_webhook__verdict_t gw_webhook__select(gw_webhook__run_t *run, const gw_webhook_t *w,
                                         gw_admission_matched_t *matched, gw_admission_err_t **err);

/** How one call ended. */
typedef struct {
    const char *call_error;    /* kube's ErrCallingWebhook reason (failurePolicy decides) */
    gw_admission_err_t *err;   /* an error failurePolicy does not change (dry run, refusal) */
    gw_webhook_response_t rsp; /* when both are NULL: the checked answer (owned) */
} gw_webhook__outcome_t;

typedef void (*gw_webhook__called_fn)(gw_webhook__outcome_t *out, void *arg);

/**
 * Call w about the request with `object` (the current one, for a mutating webhook): the dry
 * run check, the review (of `matched`), the POST within w's timeout, the answer checked; its
 * warnings become Warning headers and its audit annotations `<webhook>/<key>`. done fires
 * once, later or at once (a dry-run refusal). Thread: the request's worker.
 */
void gw_webhook__call(gw_webhook__run_t *run, const gw_webhook_t *w,
                      const gw_admission_matched_t *matched, const json_t *object,
                      gw_webhook__called_fn done, void *arg);

/**
 * The object as a webhook matched through `matched` gets it: a new reference to `obj`
 * converted to the matched equivalent version (matchPolicy Equivalent), or to `obj` itself
 * when that is its version or kgate has no conversion for it (custom resources); NULL for
 * NULL. Thread: any.
 */
json_t *gw_webhook__versioned(const gw_webhook__run_t *run, const gw_admission_matched_t *matched,
                              const json_t *obj);

/** Convert `obj`, a webhook's patched object, back in place to the request's own version.
 *  Thread: any. */
void gw_webhook__unversioned(const gw_webhook__run_t *run, json_t *obj);

/** kube's NewInternalError of an ErrCallingWebhook: 500 InternalError, "Internal error
 *  occurred: failed calling webhook \"<name>\": <reason>" (logged as kube's "failing
 *  closed"). Thread: the request's worker. */
gw_admission_err_t *gw_webhook__calling_error(const gw_admission_attrs_t *a, const char *name,
                                              const char *reason);

/** The log line of a failed call under failurePolicy Ignore (kube's "failing open"). */
void gw_webhook__failed_open(const gw_admission_attrs_t *a, const char *name, const char *reason);

/** kube's NewInternalError of a plain error: "Internal error occurred: <msg>". */
gw_admission_err_t *gw_webhook__internal_error(const gw_admission_attrs_t *a, const char *msg);

/** Free what a run holds (its snapshot reference, memo, documents). */
void gw_webhook__run_free(void *run);

#endif
