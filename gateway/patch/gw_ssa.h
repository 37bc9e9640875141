#ifndef GATEWAY_PATCH_GW_SSA_H
#define GATEWAY_PATCH_GW_SSA_H

/*
 * Server-side apply and field ownership (metadata.managedFields), as kube-apiserver v1.32's
 * field manager does it on top of sigs.k8s.io/structured-merge-diff, on JSON documents typed
 * by a catalog schema:
 *
 * - the schema's merge markers decide what is a unit of ownership: a scalar, an atomic list or
 *   map (x-kubernetes-list-type / x-kubernetes-map-type "atomic", recursively), an element of
 *   a set list (`v:`) or of a map list (`k:`; a patch-merge-key without a list type counts as
 *   a map list keyed by it; a list with neither marker is atomic), a field of a struct or an
 *   entry of a granular map (`f:`); without a schema (custom resources) every object is a
 *   granular struct and every list atomic;
 * - an update (create, PUT, non-apply PATCH, subresource writes) never conflicts: the fields it
 *   added or changed move to its manager (operation Update, per manager + apiVersion +
 *   subresource), fields it removed leave every manager;
 * - an apply merges the configuration into the live object, takes ownership of exactly the
 *   configuration's fields (operation Apply, per manager + subresource), conflicts with other
 *   managers over changed values unless forced, and removes the fields it applied last time
 *   and no longer does when nobody else owns them.
 *
 * metadata fields the system sets (name, namespace, uid, resourceVersion, generation,
 * creationTimestamp, selfLink, managedFields) and apiVersion/kind are never owned. Pure
 * functions over their inputs; every result is new. Thread: any.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_fieldset.h"

/** What a write is, for the entries it records. Borrowed for the call. */
typedef struct {
    const gw_schema_t *schema; /* the kind's OBJECT schema, or NULL for unstructured */
    const char *api_version;   /* the request's version, "apps/v1" or "v1" */
    const char *kind;          /* "Deployment": for messages */
    const char *subresource;   /* NULL for the main resource, or "status", "scale" */
    /* Top-level fields this write's entries never own (kube's reset fields): "status" for the
     * main resource of a kind with a status subresource, "spec" for its status; NULL-ended,
     * or NULL for none. */
    const char *const *reset_fields;
    const char *now; /* RFC 3339 seconds, "2026-11-21T12:00:00Z": `time` of changed entries */
} gw_ssa_scope_t;

/**
 * kube's FieldManager.Update: set obj's metadata.managedFields (obj is modified) for a write
 * by `manager` that turns `live` into obj. live is NULL for a create (compared against the
 * kind's zero value, as kube compares against a new empty Go object). The entries obj carries
 * are used when they decode (a client editing managedFields, kubectl's client-side to
 * server-side upgrade patch) and the write is not to a subresource; otherwise live's are. An
 * obj whose managedFields is exactly [{}] has them stripped and nothing recorded; an object
 * with no entries gains none on update (only a create starts tracking). An update never
 * fails: a malformed record is dropped. Thread: any.
 */
void gw_ssa_update(const gw_ssa_scope_t *s, const json_t *live, json_t *obj, const char *manager);

/** One conflict: the field as kube prints paths (`.spec.replicas`,
 *  `.spec.containers[name="c"].image`) and its manager as kube prints it (`"kubectl-client-side-
 *  apply" using apps/v1`, `"m" with subresource "status"`). */
typedef struct {
    char *field;
    char *manager;
} gw_ssa_conflict_t;

/** The outcome of an apply. */
typedef enum {
    GW_SSA_OK,
    GW_SSA_BAD_REQUEST, /* 400: the configuration is not a valid object of the kind */
    GW_SSA_CONFLICT,    /* 409: conflicts without force; message and conflicts filled */
    GW_SSA_FAILED,      /* 500: a merge that cannot be done (e.g. duplicate keys in live) */
} gw_ssa_status_t;

typedef struct {
    gw_ssa_status_t status;
    char *message; /* kube's words: "Apply failed with 1 conflict: conflict with \"m\" using
                      apps/v1: .spec.replicas", "failed to create typed patch object
                      (apps/v1, Kind=Deployment): .spec.x: field not declared in schema" */
    gw_ssa_conflict_t *conflicts; /* sorted by manager, then path */
    size_t n_conflicts;
} gw_ssa_result_t;

/** Free what a result holds and zero it. */
void gw_ssa_result_clear(gw_ssa_result_t *r);

/**
 * kube's FieldManager.Apply: merge `config` (the apply body as a JSON object, with apiVersion,
 * kind and metadata.name) into `live` (NULL: the object does not exist; it is merged into the
 * kind's zero value), for `manager`, forcing conflicts when `force`. Returns the new object
 * with its metadata.managedFields (caller decrefs), or NULL with *res filled. Checks that are
 * the caller's (apiVersion/kind matching the URL, managedFields absent from config, the
 * name) come first; defaulting and validation of the result come after. When manager is
 * "kubectl" the client-side apply upgrade rules apply: conflicts over fields that
 * live's kubectl.kubernetes.io/last-applied-configuration annotation holds with their live
 * values are forced, and that annotation (when present) is rewritten to config. Thread: any.
 */
json_t *gw_ssa_apply(const gw_ssa_scope_t *s, const json_t *live, const json_t *config,
                     const char *manager, bool force, gw_ssa_result_t *res);

/* ---- the typed operations underneath (for tests and tools) ------------------------------- */

/** The Go zero value of a kind as kube's JSON shows it (non-pointer structs as objects of their
 *  zero fields, metav1.Time as null, fields without omitempty as null / "" / 0 / false),
 *  without apiVersion and kind. Caller decrefs. Thread: any. */
json_t *gw_ssa_zero_object(const gw_schema_t *schema);

/** structured-merge-diff's ToFieldSet: every owned unit of obj. NULL with kube's message in
 *  err when obj does not fit the schema (unknown field, wrong type, duplicate or missing key
 *  of a map list). Caller frees. Thread: any. */
gw_fieldset_t *gw_ssa_fieldset(const gw_schema_t *schema, const json_t *obj, char *err,
                               size_t err_len);

#endif
