#ifndef GATEWAY_ADMISSION_GW_VAP_SNAPSHOT_H
#define GATEWAY_ADMISSION_GW_VAP_SNAPSHOT_H

/*
 * The process's ValidatingAdmissionPolicies as the plugin reads them: an immutable snapshot
 * of every stored policy compiled (gw_vap_compile.h), its matchConstraints compiled
 * (gw_admission_match.h), the bindings that name it, and the param objects of its paramKind,
 * built by the feed (gateway/controllers/gw_vap_cache.h) from its informers' caches and
 * published with a reference count, as the RBAC snapshot is: a publish swaps a pointer, a
 * reader takes a reference for its request and never waits for a rebuild.
 *
 * The same snapshot holds MutatingAdmissionPolicies (gw_map_snap_new): each compiled by
 * gw_map_compile.h (`mutating` set, `compiled` its variables and matchConditions), published
 * apart (gw_map_snap_current), with the same bindings, params and matching.
 *
 * A rebuild is given the previous snapshot and reuses the compiled form of each policy whose
 * name and spec did not change (compiling is the expensive part). A request with no policies
 * at all sees an empty snapshot (or none) and stops at once.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_admission_match.h"
#include "gw_catalog.h"
#include "gw_vap_compile.h"

typedef struct gw_vap_snap gw_vap_snap_t;

/** A binding of a policy. */
typedef struct {
    const char *name;
    const json_t *doc;               /* the stored binding */
    gw_admission_match_t *match;     /* spec.matchResources, NULL when absent (matches) */
    const json_t *param_ref;         /* spec.paramRef or NULL */
    gw_admission_match_t *param_sel; /* paramRef.selector as an object selector, or NULL */
} gw_vap_binding_t;

struct gw_vap_params;

/** A policy, with its bindings (those whose spec.policyName names it, by name). */
typedef struct {
    const char *name;
    const json_t *doc;                      /* the stored policy */
    const gw_vap_compiled_t *compiled;      /* shared with the snapshots that reuse it */
    const struct gw_map_compiled *mutating; /* a mutating policy's compiled form, else NULL */
    gw_admission_match_t *constraints;      /* spec.matchConstraints, NULL when absent */
    const gw_resource_t *param_resource;    /* what spec.paramKind names, NULL when unset or
                                               when the catalog does not serve it */
    const char *config_error;               /* the policy cannot be used: kube's words */
    gw_vap_binding_t *bindings;
    size_t nbindings;
    const struct gw_vap_params *params; /* the param objects of param_resource */
    json_t *resources; /* the resource names its rules name (before any '/'), as an object's
                          members; NULL when a rule names "*" (any resource may match) */
} gw_vap_policy_t;

/**
 * The resource a policy's spec.paramKind names in `cat` (apiVersion and kind), or NULL when
 * it has none or `cat` does not serve it (*named tells which: true when paramKind is set).
 * Thread: any.
 */
const gw_resource_t *gw_vap_param_resource(const gw_catalog_t *cat, const json_t *policy,
                                           bool *named);

/**
 * Build a snapshot from the stored policies and bindings (JSON arrays of objects, read and
 * referenced, not copied) and `params`, an object whose members are the storage paths of the
 * param kinds' resources (gw_resource_t.storage_path) and whose values are arrays of their
 * stored objects. `prev` (may be NULL) lends the compiled form of unchanged policies. The
 * snapshot holds a reference to cat (a catalog snapshot's param kinds are custom resources).
 * Returns a snapshot with one reference (gw_vap_snap_unref). Thread: any.
 */
gw_vap_snap_t *gw_vap_snap_new(const gw_catalog_t *cat, json_t *policies, json_t *bindings,
                               json_t *params, const gw_vap_snap_t *prev);

/** gw_vap_snap_new() for MutatingAdmissionPolicies and their bindings (v1alpha1 documents);
 *  `prev` must be a mutating snapshot too. Thread: any. */
gw_vap_snap_t *gw_map_snap_new(const gw_catalog_t *cat, json_t *policies, json_t *bindings,
                               json_t *params, const gw_vap_snap_t *prev);

/** Take a reference (NULL is returned as NULL). Thread: any. */
gw_vap_snap_t *gw_vap_snap_ref(gw_vap_snap_t *s);

/** Drop a reference; the last frees the snapshot (NULL is fine). Thread: any. */
void gw_vap_snap_unref(gw_vap_snap_t *s);

/** Make `s` (its reference is taken over) the process's current snapshot of its kind
 *  (validating, or mutating for gw_map_snap_new's). Thread: any. */
void gw_vap_snap_publish(gw_vap_snap_t *s);

/** A new reference to the current snapshot, or NULL before the first publish (no policy is
 *  enforced then). Thread: any. */
gw_vap_snap_t *gw_vap_snap_current(void);

/** A new reference to the current snapshot of MutatingAdmissionPolicies, or NULL before the
 *  first publish. Thread: any. */
gw_vap_snap_t *gw_map_snap_current(void);

/** The snapshot's policies, ordered by name. Thread: any. */
size_t gw_vap_snap_count(const gw_vap_snap_t *s);
const gw_vap_policy_t *gw_vap_snap_policy(const gw_vap_snap_t *s, size_t i);

/** Whether `p`'s rules could select a request on `resource` (its plural name, without the
 *  subresource): the cheap test before kube's matching, true when unsure. Thread: any. */
bool gw_vap_policy_may_match(const gw_vap_policy_t *p, const char *resource);

/** How many policies of `s` reuse the compiled form of the snapshot they were built after
 *  (for tests and the log). Thread: any. */
size_t gw_vap_snap_reused(const gw_vap_snap_t *s);

/**
 * The params one binding of `p` evaluates with, as kube's CollectParams finds them for a
 * request in namespace `ns` ("" for cluster-scoped requests): with no paramKind, or a binding
 * without paramRef, *out is NULL (one evaluation, `params` null); otherwise *out is a new array
 * of the param objects (by paramRef name: zero or one; by selector: every one it selects, `{}`
 * all), each one evaluation: empty when none was found and parameterNotFoundAction is Allow
 * (no evaluation at all, as in kube). Returns 0, or -1 with kube's configuration error in *err
 * (malloc'd): a namespaced param kind with no namespace to look in, paramRef.namespace for a
 * cluster-scoped param kind, a bad selector, none found under Deny. Thread: any.
 */
int gw_vap_snap_params(const gw_vap_policy_t *p, const gw_vap_binding_t *b, const char *ns,
                       const gw_catalog_t *cat, json_t **out, char **err);

#endif
