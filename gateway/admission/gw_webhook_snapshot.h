#ifndef GATEWAY_ADMISSION_GW_WEBHOOK_SNAPSHOT_H
#define GATEWAY_ADMISSION_GW_WEBHOOK_SNAPSHOT_H

/*
 * The process's admission webhooks as the MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook plugins read them: one immutable, reference-counted snapshot of
 * every stored MutatingWebhookConfiguration and ValidatingWebhookConfiguration, each webhook
 * compiled once (its rules and selectors by gw_admission_match_new_webhook, its
 * matchConditions by gw_vap_compile as kube's webhook matcher compiles them), in kube's order:
 * configurations by name, webhooks in their listed order; a rebuild reuses what an unchanged
 * configuration compiled to. Built by the feed
 * (gateway/controllers/gw_webhook_cache.h) and published by swapping a pointer; a reader takes
 * a reference for its request.
 *
 * Any stored value is taken: a configuration written by an older server or straight into etcd
 * may hold odd values, which are read as kube's defaulting would read them or kept for the
 * plugins to fail on at call time; nothing here refuses or crashes.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_admission_match.h"
#include "gw_vap_compile.h"

/** kube's sideEffects classes; UNSET only for a configuration stored without defaults. */
typedef enum {
    GW_WEBHOOK_SIDE_EFFECTS_UNSET,
    GW_WEBHOOK_SIDE_EFFECTS_UNKNOWN,
    GW_WEBHOOK_SIDE_EFFECTS_NONE,
    GW_WEBHOOK_SIDE_EFFECTS_SOME,
    GW_WEBHOOK_SIDE_EFFECTS_NONE_ON_DRY_RUN,
} gw_webhook_side_effects_t;

/** One compiled webhook. Strings are owned by the snapshot. */
typedef struct {
    const char *name;        /* the webhook's name */
    const char *config_name; /* its configuration's name */
    const char *uid;         /* kube's accessor UID: "<configuration>/<name>/<index>" */
    bool mutating;
    gw_admission_match_t *match;   /* rules, matchPolicy (Equivalent when unset), selectors */
    gw_vap_compiled_t *conditions; /* matchConditions, or NULL when it has none */
    bool ignore;                   /* failurePolicy Ignore (Fail when unset or odd) */
    int timeout_s;                 /* timeoutSeconds (kube's default 10) */
    gw_webhook_side_effects_t side_effects;
    const char *review_version; /* the first admissionReviewVersions kgate speaks, or NULL */
    bool reinvoke_if_needed;    /* reinvocationPolicy IfNeeded (mutating) */
    /* clientConfig */
    const char *url;           /* or NULL for a service */
    const char *svc_namespace; /* the service, when url is NULL */
    const char *svc_name;
    const char *svc_path;
    int svc_port;       /* kube's default 443 */
    const char *ca_pem; /* caBundle decoded, or NULL */
} gw_webhook_t;

typedef struct gw_webhook_snap gw_webhook_snap_t;

/**
 * Build a snapshot from the stored MutatingWebhookConfigurations and
 * ValidatingWebhookConfigurations (JSON arrays of objects, read, not kept; either may be NULL).
 * `prev` (may be NULL) lends the compiled webhooks of each configuration whose name and
 * webhooks did not change. Returns a snapshot with one reference (gw_webhook_snap_unref).
 * Thread: any.
 */
gw_webhook_snap_t *gw_webhook_snap_new(const json_t *mutating, const json_t *validating,
                                       const gw_webhook_snap_t *prev);

/** How many configurations of `s` reuse the compiled webhooks of the snapshot it was built
 *  after (for tests and the log). Thread: any. */
size_t gw_webhook_snap_reused(const gw_webhook_snap_t *s);

/** Take a reference (NULL is returned as NULL). Thread: any. */
gw_webhook_snap_t *gw_webhook_snap_ref(gw_webhook_snap_t *s);

/** Drop a reference; the last frees the snapshot (NULL is fine). Thread: any. */
void gw_webhook_snap_unref(gw_webhook_snap_t *s);

/** Make `s` (its reference is taken over) the process's current snapshot. Thread: any. */
void gw_webhook_snap_publish(gw_webhook_snap_t *s);

/** A new reference to the current snapshot, or NULL before the first publish (no webhook is
 *  called then). Thread: any. */
gw_webhook_snap_t *gw_webhook_snap_current(void);

/** The snapshot's mutating (or validating) webhooks in kube's order. Thread: any. */
size_t gw_webhook_snap_count(const gw_webhook_snap_t *s, bool mutating);
const gw_webhook_t *gw_webhook_snap_at(const gw_webhook_snap_t *s, bool mutating, size_t i);

#endif
