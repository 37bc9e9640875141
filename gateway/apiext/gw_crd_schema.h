#ifndef GATEWAY_APIEXT_GW_CRD_SCHEMA_H
#define GATEWAY_APIEXT_GW_CRD_SCHEMA_H

/*
 * A CustomResourceDefinition's structural schema (spec.versions[].schema.openAPIV3Schema),
 * compiled once per CRD generation into the catalog's gw_schema_t trees, with the value rules
 * only CRDs state beside each node (gw_schema_t.rules). Custom objects are then validated
 * (kube's ValidateCustomResource, kube-openapi's schema validator and its messages), pruned
 * (kube's structural pruning) and defaulted (kube's structural defaulting) against it.
 *
 * A compiled tree is immutable and may be shared by all threads; it lives in the arena it was
 * compiled into.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_arena.h"
#include "gw_catalog.h"
#include "gw_objmeta.h"
#include "gw_field_issues.h"

/* A compiled "pattern" (PCRE2's pcre2_code_8, opaque here). */
struct pcre2_real_code_8;

/*
 * The value validations of one schema node (kube-openapi's spec.Schema fields that the
 * structure does not hold). Every CRD node has one, including the subschemas of allOf, anyOf,
 * oneOf and not; built-in nodes (metadata's ObjectMeta) have none.
 */
struct gw_schema_rules {
    const char *type;   /* the declared type ("object", ...; "integer,string" for int-or-string,
                           as the validator reads it), NULL when none */
    const char *format; /* the format kube validates (unsupported ones dropped), or NULL */
    const json_t *enum_values;                  /* the enum array, or NULL */
    const char *pattern;                        /* the pattern as written, or NULL */
    const struct pcre2_real_code_8 *pattern_re; /* compiled; NULL when it does not compile */
    const char *pattern_error;                  /* then PCRE2's reason */
    bool has_maximum, exclusive_maximum;
    bool has_minimum, exclusive_minimum;
    bool has_multiple_of;
    double maximum, minimum, multiple_of;
    int64_t max_length, min_length; /* -1 when not stated */
    int64_t max_items, min_items;
    int64_t max_properties, min_properties;
    bool unique_items;
    const json_t *default_value; /* default, or NULL */
    const gw_schema_t *const *all_of;
    size_t n_all_of;
    const gw_schema_t *const *any_of;
    size_t n_any_of;
    const gw_schema_t *const *one_of;
    size_t n_one_of;
    const gw_schema_t *not_schema; /* not, or NULL */
    const json_t *validations;     /* x-kubernetes-validations, kept raw for a CEL compile */
    const gw_schema_t *metadata;   /* a resource's (the root's, an embedded one's) own metadata
                                      schema (value validations of name and generateName),
                                      which validation applies where the tree has ObjectMeta;
                                      NULL when the schema states none */
};

/* Shapes beyond the catalog's: an OBJECT may also have `values` (additionalProperties beside
   properties, which only value validations and a root may state); the walks of
   gateway/validation already read an OBJECT's values for the keys its fields do not name. */

/**
 * Compile the openAPIV3Schema `props` into a gw_schema_t tree allocated in `a` (freed with the
 * arena; json it keeps is referenced with json_incref and released through gw_arena_defer).
 * The root gets apiVersion and kind (strings) and metadata = objmeta (the built-in
 * io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta schema, passed in) whatever the schema says
 * of them; embedded resources likewise. props NULL (a version without schema) gives an OBJECT
 * that preserves unknown fields. Returns 0, or GW_EINVAL with a reason in err (props not an
 * object, nesting beyond kube's limits). Any JSON is safe. Thread: any.
 */
int gw_crd_schema_compile(gw_arena_t *a, const json_t *props, const gw_schema_t *objmeta,
                          const gw_schema_t **out, char *err, size_t err_len);

/**
 * A custom object's validation by its schema, as kube's custom resource strategy runs it:
 * ValidateCustomResource (kube-openapi's validator, with apiextensions-apiserver's field
 * errors: paths, reasons and messages, in kube's order, properties in name order where kube's
 * is a map's), then embedded resources' type and object metadata (schema/objectmeta), then the
 * list-type invariants (`Duplicate value`). The root's metadata is left to ObjectMeta's own
 * validation, but for the schema's rules on name and generateName. Thread: any.
 */
void gw_crd_validate(const gw_schema_t *root, const json_t *obj, gw_field_errors_t *errs);

/**
 * The CRD validation's check of the `default` values in openAPIV3Schema `schema` (any JSON):
 * each must be pruned already (`must not have unknown fields`) and valid against the schema it
 * sits in, its errors appended to errs under "<path>.default" (path: where the schema is,
 * "spec.versions[0].schema.openAPIV3Schema"). Thread: any.
 */
void gw_crd_defaults_check(const json_t *schema, const char *path, gw_field_errors_t *errs);

/**
 * kube's validation ratcheting on an update: drop from errs (the schema errors of obj, as
 * gw_crd_validate gives them) those about a value that old holds unchanged at the same path
 * (for a missing required field: its parent unchanged). old NULL (a create) drops nothing.
 * Thread: any.
 */
void gw_crd_ratchet(const json_t *obj, const json_t *old, gw_field_errors_t *errs);

/**
 * Structural pruning: fields the schema does not know are removed from obj (metadata at the
 * root and in embedded resources keeps only ObjectMeta's fields; preserve-unknown-fields
 * subtrees are kept). When issues is not NULL, each removal is appended as a GW_FIELD_UNKNOWN
 * issue `unknown field "spec.foo"`, in kube's order (sorted paths, then metadata's).
 * Thread: any.
 */
void gw_crd_prune(const gw_schema_t *root, json_t *obj, gw_field_issues_t *issues);

/**
 * Structural defaulting as kube applies it on create, update and reading from etcd:
 * PruneNonNullableNullsWithoutDefaults (a null where the schema is not nullable and has no
 * default is removed), then Default (missing properties, and nulls of non-nullable ones, get
 * a copy of their default at every depth, inside array items and map values too; a default
 * is itself defaulted further). Thread: any.
 */
void gw_crd_default(const gw_schema_t *root, json_t *obj);

#endif
