#ifndef GATEWAY_ADMISSION_GW_ADMISSION_MATCH_H
#define GATEWAY_ADMISSION_GW_ADMISSION_MATCH_H

/*
 * Which admission requests a MatchResources (admissionregistration.k8s.io) selects, as
 * kube-apiserver 1.32 decides it for ValidatingAdmissionPolicies and their bindings (and, with
 * the same rules, admission webhooks): resource rules and exclude rules (operations, groups,
 * versions, resources with their subresource wildcards, resource names, scope), matchPolicy
 * Exact or Equivalent, the namespace selector and the object selector.
 *
 * A MatchResources document is compiled once (gw_admission_match_new) and then matched against
 * many requests. Everything here is pure (no I/O: the caller fetches the namespace object) and
 * thread-safe over const data.
 */

#include <stdbool.h>

#include <jansson.h>

#include "gw_admission.h"
#include "gw_catalog.h"

/** A group/version/resource, as kube's schema.GroupVersionResource ("" is the core group). */
typedef struct {
    const char *group;
    const char *version;
    const char *resource;
} gw_admission_gvr_t;

/** A group/version/kind, as kube's schema.GroupVersionKind. */
typedef struct {
    const char *group;
    const char *version;
    const char *kind;
} gw_admission_gvk_t;

/**
 * What a request offers to matching (the part of kube's admission.Attributes that matching
 * reads). Strings are borrowed, never NULL ("" when absent).
 */
typedef struct {
    gw_admission_op_t op;
    gw_admission_gvr_t resource; /* as requested (the version the client used) */
    const char *subresource;     /* "" for the main resource */
    gw_admission_gvk_t kind;     /* of the request's body: a subresource's own kind (Scale) */
    const char *namespace_;      /* "" for cluster-scoped; a namespace's own name for requests
                                    on namespaces (kube's attributes carry it so) */
    const char *name;            /* "" when not known (generateName) */
    const json_t *object;        /* the new object, or NULL (delete) */
    const json_t *old_object;    /* the stored object, or NULL (create) */
    bool namespaced;             /* the resource is namespaced (informational: kube's rules
                                    decide scope by namespace_, as here) */
} gw_admission_request_t;

/** Where a request matched: kube's matchedResource and matchedKind. With matchPolicy
 *  Equivalent these are the equivalent resource's (the version a policy is written for); the
 *  strings are the request's or the catalog's. */
typedef struct {
    gw_admission_gvr_t resource;
    gw_admission_gvk_t kind;
} gw_admission_matched_t;

/** A compiled MatchResources. Immutable once built. */
typedef struct gw_admission_match gw_admission_match_t;

/**
 * Fill *rq from the chain's attributes: kind from the subresource's kind when there is one,
 * and the namespace of a request on a core Namespace set to that namespace's name, as kube's
 * handlers set it. *rq borrows from a. Thread: any.
 */
void gw_admission_request_from_attrs(gw_admission_request_t *rq, const gw_admission_attrs_t *a);

/**
 * Compile a MatchResources document (a policy's spec.matchConstraints, a binding's
 * spec.matchResources, or a webhook's rules and selectors in that shape). An absent selector
 * selects everything (kube defaults it to {}); an absent matchPolicy is Exact (the API server
 * defaults stored objects to Equivalent). A selector that kube could not convert is kept as
 * an error that matching reports (only for requests the rest of the document matches, as
 * kube does), never a failure here. Returns a new compiled document (the JSON is not kept),
 * freed with gw_admission_match_free. Thread: any.
 */
gw_admission_match_t *gw_admission_match_new(const json_t *match_resources);

/**
 * Compile an admission webhook's matching fields (a ValidatingWebhook or MutatingWebhook:
 * rules, matchPolicy, namespaceSelector, objectSelector) as kube's ShouldCallHook reads them:
 * the same as gw_admission_match_new except that the rules are `rules` (no resource names,
 * no exclude rules) and a webhook without rules matches nothing. Its matchConditions are the
 * caller's. Thread: any.
 */
gw_admission_match_t *gw_admission_match_new_webhook(const json_t *webhook);

/** Free a compiled document (NULL is fine). Thread: any. */
void gw_admission_match_free(gw_admission_match_t *m);

/** Whether matching m could need the namespace object (its namespaceSelector is not empty),
 *  so that a caller looks the namespace up only then. Thread: any. */
bool gw_admission_match_wants_namespace(const gw_admission_match_t *m);

/**
 * The name of the namespace whose object the namespace selector reads for rq, or NULL when it
 * reads none (a cluster-scoped request other than on a namespace, or the create or update of a
 * namespace, whose labels are the new object's own). Thread: any.
 */
const char *gw_admission_match_namespace_of(const gw_admission_request_t *rq);

/**
 * kube's Matcher.Matches: whether m selects rq. `ns` is the object of the namespace
 * gw_admission_match_namespace_of names (its metadata.labels are read), or NULL when it does
 * not exist; a request on a Namespace is matched against its own labels, other cluster-scoped
 * requests are never left out by the namespace selector. The object selector matches the
 * labels of the object or of the old object; an absent object matches no non-empty selector.
 * Exclude rules win over resource rules; no resource rules match everything. With matchPolicy
 * Equivalent, a request whose own resource no rule names matches through an equivalent one
 * (another version of it, or the same stored resource in another group, from `cat`, the served
 * catalog), and `out` names that one.
 *
 * Returns 1 (matched; *out filled when out is not NULL), 0 (not matched), or an error with its
 * message in err: GW_ENOTFOUND when the selector needed a namespace that `ns` says is missing
 * (kube answers its 404: `namespaces "<name>" not found`, in err), GW_EINVAL for a selector
 * kube could not convert, GW_EINTERNAL when an equivalent resource has no kind (kube wraps the
 * last two as an InternalError). Errors of the selectors only come back when the rules match,
 * as kube orders them. Thread: any.
 */
int gw_admission_match(const gw_admission_match_t *m, const gw_admission_request_t *rq,
                       const json_t *ns, const gw_catalog_t *cat, gw_admission_matched_t *out,
                       char *err, size_t err_len);

/** kube's IsExemptAdmissionConfigurationResource: requests whose kind is one of
 *  admissionregistration.k8s.io's webhook configurations, admission policies or their
 *  bindings, which no policy or webhook ever sees. Thread: any. */
bool gw_admission_match_exempt(const gw_admission_request_t *rq);

/**
 * kube's DefinitionMatches for a policy: never for an exempt request (0); `constraints` NULL
 * (a policy without matchConstraints) is GW_EINVAL with kube's message; otherwise
 * gw_admission_match. Thread: any.
 */
int gw_admission_match_definition(const gw_admission_match_t *constraints,
                                  const gw_admission_request_t *rq, const json_t *ns,
                                  const gw_catalog_t *cat, gw_admission_matched_t *out, char *err,
                                  size_t err_len);

/** kube's BindingMatches: a binding without matchResources (`binding` NULL) matches (1);
 *  otherwise gw_admission_match, whose matched resource kube does not use. Thread: any. */
int gw_admission_match_binding(const gw_admission_match_t *binding,
                               const gw_admission_request_t *rq, const json_t *ns,
                               const gw_catalog_t *cat, char *err, size_t err_len);

/**
 * A binding's matchResources intersected with its policy's matchConstraints: the definition
 * must match (its matched resource and kind go to out) and then the binding. Returns 1, 0 or
 * the first error, as the two functions above. Thread: any.
 */
int gw_admission_match_policy(const gw_admission_match_t *constraints,
                              const gw_admission_match_t *binding, const gw_admission_request_t *rq,
                              const json_t *ns, const gw_catalog_t *cat,
                              gw_admission_matched_t *out, char *err, size_t err_len);

#endif
