#ifndef AUTHZ_AUTHZ_RBAC_H
#define AUTHZ_AUTHZ_RBAC_H

/*
 * RBAC (rbac.authorization.k8s.io/v1) decisions from an immutable snapshot of the four kinds.
 * The process holds one current snapshot: whoever watches etcd builds a new one from the
 * stored objects and publishes it; readers take a reference, decide, and drop it, so a
 * request never waits for an update (a publish only swaps a pointer under a mutex held for
 * that swap). Rules match as kube's rbac authorizer does (plugin/pkg/auth/authorizer/rbac):
 * RBAC only allows or has no opinion.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "authn.h"
#include "authz.h"

typedef struct authz_rbac_snap authz_rbac_snap_t;

/**
 * A snapshot from the stored objects: four JSON arrays of Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding objects (borrowed; the snapshot keeps references to what it needs, so
 * the objects must not be changed afterwards). NULL arrays count as empty. The bindings are
 * indexed by subject and their roles resolved here, once, so that a decision visits only the
 * bindings naming the user. The new snapshot has one reference, the caller's. Thread: any.
 */
authz_rbac_snap_t *authz_rbac_snap_new(json_t *roles, json_t *cluster_roles, json_t *bindings,
                                       json_t *cluster_bindings);

/** Another reference to s (NULL is fine). Thread: any. */
authz_rbac_snap_t *authz_rbac_snap_ref(authz_rbac_snap_t *s);

/** Drop a reference; the last frees s. NULL is fine. Thread: any. */
void authz_rbac_snap_unref(authz_rbac_snap_t *s);

/** Make s the process's current snapshot, taking the caller's reference; the one it replaces
 *  is dropped. NULL clears it (shutdown). Thread: any. */
void authz_rbac_publish(authz_rbac_snap_t *s);

/** A new reference to the current snapshot, or NULL before the first publish. The caller
 *  unrefs it. Thread: any. */
authz_rbac_snap_t *authz_rbac_current(void);

/**
 * Whether some rule bound to attrs->user allows attrs in s. why (may be NULL) gets kube's
 * reason: on true "RBAC: allowed by" the binding, its role and the subject naming the user
 * (the first binding in walk order: cluster-wide ones, then those of the namespace, each in
 * the order the snapshot got them); on false "" or "RBAC: " and the missing roles that the
 * bindings naming the user refer to. Only the bindings naming the user or one of its groups
 * are looked at: the snapshot indexes them by subject. Thread: any.
 */
bool authz_rbac_allows(const authz_rbac_snap_t *s, const authz_attrs_t *attrs, char *why,
                       size_t why_len);

/** A rule that applies (borrowed from the snapshot, valid while the caller holds it). */
typedef void (*authz_rbac_rule_fn)(const json_t *rule, void *ctx);

/**
 * Call fn for every rule bound to `user` in namespace ns (NULL or "": cluster-wide rules
 * only), cluster-wide rules first, as kube's rule resolver lists them. Returns how many
 * bindings refer to roles that do not exist (the rules are then incomplete). Thread: any.
 */
size_t authz_rbac_visit(const authz_rbac_snap_t *s, const authn_user_t *user, const char *ns,
                        authz_rbac_rule_fn fn, void *ctx);

/**
 * The rules of a binding's roleRef: kind "Role" (in ns) or "ClusterRole". A borrowed array,
 * or NULL when the role does not exist. Thread: any.
 */
const json_t *authz_rbac_role_rules(const authz_rbac_snap_t *s, const char *ns, const char *kind,
                                    const char *name);

/**
 * kube's ConfirmNoEscalation: whether the rules `user` holds in ns (NULL: cluster-wide) cover
 * every rule of `rules` (a JSON array of PolicyRules). On false, missing (may be NULL) gets a
 * new string listing the rules not held, as kube words them; the caller frees it.
 * Thread: any.
 */
bool authz_rbac_covers(const authz_rbac_snap_t *s, const authn_user_t *user, const char *ns,
                       const json_t *rules, char **missing);

/** Whether the PolicyRules `owned` (a JSON array) grant every permission of `rule`, as kube's
 *  Covers decides (the bootstrap policy's reconciliation). Thread: any. */
bool authz_rbac_rules_cover(const json_t *owned, const json_t *rule);

/** The RBAC authorizer: decides from the current snapshot. Static; free() does nothing. */
extern authz_authorizer_t authz_rbac_authorizer;

#endif
