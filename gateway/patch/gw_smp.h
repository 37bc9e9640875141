#ifndef GATEWAY_PATCH_GW_SMP_H
#define GATEWAY_PATCH_GW_SMP_H

/*
 * Strategic merge patch (application/strategic-merge-patch+json) as kube-apiserver applies it
 * to a built-in kind (k8s.io/apimachinery strategicpatch, server side), driven by the catalog
 * schema's patch strategies and merge keys:
 *
 * - maps merge key by key; null deletes a key; a list of a field with strategy "merge" merges
 *   by its merge key (matching elements merged, new ones appended) or, for primitives, as a
 *   union; any other list, and a map of strategy "replace", is replaced;
 * - directives: `$patch: replace | delete` in a map, `$patch: replace | delete` elements of a
 *   merged list, `$deleteFromPrimitiveList/<list>`, `$setElementOrder/<list>`, `$retainKeys`;
 * - a value the original lacks is taken as it is, without its nulls and `$patch` maps (other
 *   directive keys stay, and field validation later reports them as unknown fields, as
 *   kube-apiserver's decoding does).
 *
 * The lookups that fail in kube-apiserver fail here with its words: a field its Go struct
 * lacks (`unable to find api field in struct PodSpec for the json field "x"`) where both sides
 * hold maps or lists, or a `$setElementOrder` names one; a field of an opaque struct
 * (RawExtension, JSON) the same way. Pure functions: the inputs are never modified.
 */

#include <stddef.h>

#include <jansson.h>

#include "gw_catalog.h"

/** How kube-apiserver answers a patch that does not apply. */
typedef enum {
    GW_SMP_OK,
    GW_SMP_BAD_REQUEST, /* 400 BadRequest: a malformed patch or directive list */
    GW_SMP_INVALID,     /* 422 Invalid, the generic "the server rejected our request due to an
                           error in our request" with the message as an UnexpectedServerResponse
                           cause (lists of lists) */
    GW_SMP_FAILED,      /* any other error, which kube-apiserver passes through as it is: 500
                           with the message and no reason */
} gw_smp_status_t;

/**
 * Apply patch (a JSON object; null is an empty patch) to original (a JSON object) under
 * schema (the kind's OBJECT schema, or NULL for schema-less merging: maps merge, lists are
 * replaced). Returns a new document (caller decrefs), or NULL with a one-line reason in err
 * (kube-apiserver's wording; *status, when not NULL, says how to answer it). When patch_after
 * is not NULL it receives (on success and failure; caller decrefs) the patch as kube's merge
 * leaves it, directives it consumed removed, which kube-apiserver prints (Go's %+v) in the 422
 * of a patched object that fails decoding or strict field validation. Thread: any.
 */
json_t *gw_smp_apply_ex(const json_t *original, const json_t *patch, const gw_schema_t *schema,
                        gw_smp_status_t *status, json_t **patch_after, char *err, size_t err_len);

/** gw_smp_apply_ex without status or patch_after. Thread: any. */
json_t *gw_smp_apply(const json_t *original, const json_t *patch, const gw_schema_t *schema,
                     char *err, size_t err_len);

#endif
