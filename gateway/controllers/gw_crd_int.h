#ifndef GATEWAY_CONTROLLERS_GW_CRD_INT_H
#define GATEWAY_CONTROLLERS_GW_CRD_INT_H

/* Internals the CustomResourceDefinition controllers share (gw_crd_naming.c,
 * gw_crd_finalizer.c): where CRDs live, their status conditions as kube's apihelpers edit them,
 * the minimal structural check, and a status write with the generic store's rules. */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_store.h"

/* The CRDs' relative etcd path (gw_store_resource_path's answer for them) and key prefix. */
#define GW_CRD__PATH "apiextensions.k8s.io/customresourcedefinitions"
#define GW_CRD__PREFIX GW_CRD__PATH "/"

/** The condition of `type` in crd.status.conditions, or NULL. Borrowed from crd. */
json_t *gw_crd__condition(const json_t *crd, const char *type);

/** Whether crd's condition `type` has status "True". */
bool gw_crd__condition_true(const json_t *crd, const char *type);

/**
 * kube's SetCRDCondition with lastTransitionTime `now`: a new condition is appended; an
 * existing one takes the reason and message, and the status and time only when the status
 * changes (or it had no time), so a condition keeps its time while its status stays.
 */
void gw_crd__set_condition(json_t *crd, const char *type, const char *status, const char *reason,
                           const char *message, const char *now);

/** Remove the condition of `type` (kube's RemoveCRDCondition). */
void gw_crd__remove_condition(json_t *crd, const char *type);

/**
 * The structural schema violations kgate checks in the stored CRD (kube's ValidateStructural,
 * reduced to its first rule: a schema node needs a type unless it is
 * x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields), over every version's
 * schema: kube's aggregate message ("<path>: Required value: ...", several sorted within
 * "[...]"), a new string the caller frees, or NULL when there is none.
 */
char *gw_crd__nonstructural(const json_t *crd);

/**
 * Whether the CRD's conversion webhook CA bundle (spec.conversion.webhook.clientConfig.caBundle,
 * base64) is one kube's establishing controller accepts: none, or PEM holding at least one
 * certificate that parses (client-go's TLS config for it builds). Thread: any.
 */
bool gw_crd__ca_bundle_ok(const json_t *crd);

/**
 * Edit one CRD as a read-modify-write (called with the current object, parsed; it edits it in
 * place). Return 0 to write what it left (nothing is written when it changed nothing), or a
 * negative GW_E* code to stop (handed to the done callback as is).
 */
typedef int (*gw_crd__edit_fn)(json_t *crd, void *arg);

/** The end of a write: 0 with the object as written (or as found, when nothing changed;
 *  NULL when the write removed it) and its resourceVersion, or the error. The object is a view
 *  for the call. */
typedef void (*gw_crd__done_fn)(int err, const json_t *crd, int64_t rev, void *arg);

/**
 * Write CRD `name` through `store` as kube's controllers write through the status subresource:
 * read it, edit it, write it with its resourceVersion as precondition, and on a conflict edit
 * the newer object again (up to 10 times, then GW_ECONFLICT). As the generic store's update, a
 * write that leaves the object with a deletionTimestamp and no finalizer deletes it instead
 * (with the same precondition). done fires once, never from inside this call. Returns 0, or
 * GW_EINVAL for a bad name (no callback). Thread: store's.
 */
int gw_crd__write(gw_store_t *store, const char *name, gw_crd__edit_fn edit, gw_crd__done_fn done,
                  void *arg);

#endif
