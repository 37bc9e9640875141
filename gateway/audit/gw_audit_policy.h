#ifndef GATEWAY_AUDIT_GW_AUDIT_POLICY_H
#define GATEWAY_AUDIT_GW_AUDIT_POLICY_H

/*
 * The audit policy (--audit-policy-file): an audit.k8s.io/v1 Policy read and validated as
 * kube-apiserver's policy reader does, and evaluated per request as its policy checker does: the
 * first rule whose selectors all match decides the level, the stages left out (the rule's
 * together with the policy's) and whether managedFields are left out of the logged objects; no
 * rule matching means level None. Immutable once loaded; evaluation is pure (thread: any).
 */

#include <stdbool.h>
#include <stddef.h>

/** The audit levels, in kube's order: each one logs what the one before logs and more. */
typedef enum {
    GW_AUDIT_NONE,
    GW_AUDIT_METADATA,
    GW_AUDIT_REQUEST,
    GW_AUDIT_REQUEST_RESPONSE,
} gw_audit_level_t;

/** The stages an event is written at, as bits (omitStages). */
typedef enum {
    GW_AUDIT_STAGE_REQUEST_RECEIVED = 1,
    GW_AUDIT_STAGE_RESPONSE_STARTED = 2,
    GW_AUDIT_STAGE_RESPONSE_COMPLETE = 4,
    GW_AUDIT_STAGE_PANIC = 8, /* accepted in policies; C has no panic to report */
} gw_audit_stage_t;

/** kube's name of a level ("None", "Metadata", "Request", "RequestResponse"). */
const char *gw_audit_level_name(gw_audit_level_t level);

/** kube's name of one stage bit ("RequestReceived", ...). */
const char *gw_audit_stage_name(gw_audit_stage_t stage);

/** What a request is judged on: the authorizer's attributes of it (borrowed strings; "" for
 *  none). */
typedef struct {
    const char *user; /* NULL: no user (an unauthenticated request) */
    const char *const *groups;
    size_t n_groups;
    const char *verb;
    bool resource_request;
    const char *path; /* non-resource requests */
    const char *api_group;
    const char *namespace_;
    const char *resource;
    const char *subresource;
    const char *name;
} gw_audit_attrs_t;

/** The policy's verdict on one request. */
typedef struct {
    gw_audit_level_t level;
    unsigned omit_stages; /* gw_audit_stage_t bits */
    bool omit_managed_fields;
} gw_audit_decision_t;

typedef struct gw_audit_policy gw_audit_policy_t;

/**
 * Parse a Policy from YAML or JSON text. NULL with kube's message in err on failure: a decoding
 * error ("failed decoding: ..."), "unknown group version field ... in policy", the field errors
 * of its validation ("rules[0].level: Required value", several as "[e1, e2]"), or "loaded
 * illegal policy with 0 rules". Caller frees with gw_audit_policy_free. Thread: any.
 */
gw_audit_policy_t *gw_audit_policy_parse(const char *text, size_t len, char *err, size_t err_len);

/** gw_audit_policy_parse of the file at path; kube's reader's errors, ending in ": from file
 *  <path>". Thread: any. */
gw_audit_policy_t *gw_audit_policy_load(const char *path, char *err, size_t err_len);

/** Free a policy. NULL is fine. */
void gw_audit_policy_free(gw_audit_policy_t *p);

/** Number of rules (at least 1 in a loaded policy). */
size_t gw_audit_policy_rules(const gw_audit_policy_t *p);

/** The verdict on request a: the first matching rule's, else None with the policy's stages and
 *  managedFields choice. Pure; thread: any. */
gw_audit_decision_t gw_audit_policy_eval(const gw_audit_policy_t *p, const gw_audit_attrs_t *a);

#endif
