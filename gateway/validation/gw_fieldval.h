#ifndef GATEWAY_VALIDATION_GW_FIELDVAL_H
#define GATEWAY_VALIDATION_GW_FIELDVAL_H

/*
 * Field validation against a structural schema (spec 4.8): unknown fields, duplicate fields
 * and type errors. Unknown fields are pruned from the document (as kube-apiserver drops
 * them); the caller turns the findings into warnings (fieldValidation=Warn), a 400
 * (Strict), or ignores them (Ignore). Type errors and missing required fields are always
 * errors (422 Invalid with causes).
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_field_issues.h"

/**
 * Find duplicate keys in raw JSON text (Jansson keeps the last value silently): appends a
 * GW_FIELD_DUPLICATE issue per duplicate, with its path. Returns 0, or GW_EINVAL if the text
 * is not valid JSON. Thread: any. Fuzzed.
 */
int gw_json_find_duplicates(const char *json, size_t len, gw_field_issues_t *out);

/**
 * Walk doc against schema: append unknown fields (and remove them from doc), type errors and
 * missing required fields, in document order. Preserve-unknown subtrees are not pruned, nor
 * the apiVersion, kind and metadata of the root and of embedded resources (the rest of an
 * embedded resource is, as kube's structural pruning does); nulls are fine anywhere (they
 * leave a field unset).
 *
 * Type errors under a schema with Go types (the built-in kinds: the enclosing object has a
 * ref) are GW_FIELD_DECODE with kube-apiserver's decoder text, e.g. `json: cannot unmarshal
 * string into Go struct field DeploymentSpec.spec.replicas of type int32`, or the text of a
 * custom decoder (quantities, times, base64 bytes, int-or-string); the caller answers 400 with
 * the first, as `<Kind> in version "<v>" cannot be handled as a <Kind>: <message>`. Without Go
 * types (custom resources) they are GW_FIELD_INVALID with structural validation's text,
 * `Invalid value: "string": spec.replicas in body must be of type integer: "string"`, for a
 * 422 with causes. GW_FIELD_REQUIRED says "Required value" (path "spec.containers").
 *
 * Issues already in out (from gw_json_find_duplicates or gw_yaml_to_json_dups on the same
 * body) are merged in kube-apiserver's order: those without a path (YAML's) first, then
 * duplicates and the walk's findings as the decoder meets them; a duplicate that is also an
 * unknown field, or lies inside one, is dropped (kube reports it as unknown only).
 * Thread: any.
 */
void gw_fieldval_check(json_t *doc, const gw_schema_t *schema, gw_field_issues_t *out);

/** Whether s is a quantity resource.ParseQuantity takes (what a resource.Quantity's JSON
 *  decoder accepts). Thread: any. */
bool gw_fieldval_quantity_ok(const char *s);

/** Whether s parses as time.Parse(time.RFC3339, s) does (what metav1.Time's JSON decoder
 *  accepts). Thread: any. */
bool gw_fieldval_time_ok(const char *s);

#endif
