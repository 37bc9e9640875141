#ifndef GATEWAY_PATCH_GW_APPLY_CONFIG_H
#define GATEWAY_PATCH_GW_APPLY_CONFIG_H

/*
 * An apply configuration merged into an object without field ownership: what a
 * MutatingAdmissionPolicy's ApplyConfiguration mutation does (kube-apiserver 1.32's
 * patch.ApplyStructuredMergeDiff in policy/mutating/patch/smd.go). The configuration must be a
 * typed object of the kind and may not set any atomic list, map or struct (setting one would
 * silently drop what it does not repeat); the object is then structured-merge-diff merged with
 * the configuration winning: structs and granular maps field by field, set and map lists by
 * element, atomic values replaced. managedFields are neither read nor written. Pure; thread:
 * any.
 */

#include <jansson.h>

#include "gw_catalog.h"

/**
 * Merge `config` into `obj` under `schema` (the kind's OBJECT schema; NULL: schema-less, every
 * object a granular struct and every list atomic). Returns the merged object (a new
 * reference), or NULL with `*err` (malloc'd, the caller frees) in kube's words, e.g.
 * "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector"
 * or "failed to convert patch object to typed object: .spec.x: field not declared in schema".
 */
json_t *gw_apply_config_merge(const gw_schema_t *schema, const json_t *obj, const json_t *config,
                              char **err);

#endif
