#ifndef GATEWAY_REGISTRY_GW_CRD_VALID_INT_H
#define GATEWAY_REGISTRY_GW_CRD_VALID_INT_H

/*
 * Internals shared by gw_crd_valid.c (the CustomResourceDefinition itself) and
 * gw_crd_valid_schema.c (its OpenAPI v3 schemas: kube's specStandardValidatorV3, the
 * structural-schema rules, the x-kubernetes-* extensions and the static shape of
 * x-kubernetes-validations rules). Schemas are the v1 JSON (JSONSchemaProps); a member set to
 * null counts as absent, as Go's decoding into pointers does. Pure; thread: any.
 */

#include <stdbool.h>

#include <jansson.h>

#include "gw_objmeta.h"

/** What the old object relaxes (kube's validationOptions; every one true on a create). */
typedef struct {
    bool require_valid_type;      /* type one of the OpenAPI v3 types */
    bool require_structural;      /* the schemas must be structural */
    bool require_atomic_set;      /* items of x-kubernetes-list-type=set lists are atomic */
    bool require_map_list_checks; /* map and set lists' items and keys not nullable, keys set */
} gw_crd__opts_t;

/** Member `key` of `o`, NULL when absent or null. */
const json_t *gw_crd__get(const json_t *o, const char *key);

/** Member `key` of `o` as a string, "" when absent or not a string. */
const char *gw_crd__str(const json_t *o, const char *key);

/**
 * Go's %#v of a []string as a field error shows it: `[]string{"a", "b"}`, `[]string(nil)` when
 * `arr` is absent or empty. Caller frees.
 */
char *gw_crd__go_strings(const json_t *arr);

/** An Invalid error whose value kube prints with Go's %#v of a []string (`arr`). */
void gw_crd__invalid_strings(gw_field_errors_t *e, const char *field, const json_t *arr,
                             const char *detail);

/**
 * kube's validateCustomResourceDefinitionValidation of one CustomResourceValidation
 * (`validation`, the object holding openAPIV3Schema; NULL: nothing to check) at `path`
 * ("spec.validation" or "spec.versions[i].schema"), with the status subresource enabled or not.
 */
void gw_crd__validate_validation(const json_t *validation, bool status_enabled,
                                 const gw_crd__opts_t *o, const char *path,
                                 gw_field_errors_t *errs);

/**
 * ValidateCustomResourceSelectableFields: `fields` (an array of {jsonPath}) against the
 * structural schema `schema` (an openAPIV3Schema), at `path`.
 */
void gw_crd__validate_selectable(const json_t *fields, const json_t *schema, const char *path,
                                 gw_field_errors_t *errs);

/**
 * validateCustomResourceConversion of the v1 spec's conversion (gw_crd_valid_conversion.c);
 * `require_recognized`: the review versions must include v1 or v1beta1.
 */
void gw_crd__validate_conversion(const json_t *spec, bool require_recognized,
                                 gw_field_errors_t *errs);

/** Whether v is a ConversionReview version kube understands (v1, v1beta1). */
bool gw_crd__accepted_review_version(const char *v);

/** Predicates of SchemaHas over one schema and everything nested in it. */
bool gw_crd__has_defaults(const json_t *schema);
bool gw_crd__has_extensions(const json_t *schema); /* any x-kubernetes-* but map-type */
bool gw_crd__has_invalid_types(const json_t *schema);
bool gw_crd__has_non_atomic_set(const json_t *schema);
bool gw_crd__has_invalid_map_list(const json_t *schema);

/** NewStructural's refusal of `schema` or of a schema it nests (its message), or NULL. */
const char *gw_crd__unsupported(const json_t *schema);

/** ValidateStructural of the openAPIV3Schema `schema` at `path`, its errors sorted by their
 *  text (as kube sorts them) and added to errs. */
void gw_crd__validate_structural(const json_t *schema, const char *path, gw_field_errors_t *errs);

/** validateMapListKeysMapSet of the schema node `s` at `path`. */
void gw_crd__map_list_checks(const json_t *s, const char *path, gw_field_errors_t *errs);

/** Whether `schema` is not structural (NewStructural fails, or ValidateStructural errs). */
bool gw_crd__non_structural(const json_t *schema);

/**
 * cel.ValidFieldPath: `json_path` (".a.b", ".a['b']") resolved in the structural schema
 * `schema` through properties and additionalProperties. NULL when valid, with *found the schema
 * it reaches (NULL past an additionalProperties without one) and *field the path as kube prints
 * it ("a.b", "a[b]"; caller frees); else kube's error text (caller frees) and *field NULL.
 */
char *gw_crd__field_path(const char *json_path, const json_t *schema, bool allow_array,
                         const json_t **found, char **field);

#endif
