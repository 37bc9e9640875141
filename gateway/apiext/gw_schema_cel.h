#ifndef GATEWAY_APIEXT_GW_SCHEMA_CEL_H
#define GATEWAY_APIEXT_GW_SCHEMA_CEL_H

/*
 * A catalog schema as CEL's type checker reads it (cel.h's structural cel_schema_t), the way
 * kube-apiserver turns a built-in kind's OpenAPI definition into a CEL type
 * (cel/common SchemaDeclType over the resolved definitions): objects with their properties and
 * required names, maps, arrays with their list type and map keys, int-or-string as dyn,
 * times as RFC 3339 strings (timestamps), quantities as plain strings. A schema that types
 * nothing (apiextensions JSON) is invisible to expressions; any other free-form value
 * (RawExtension, FieldsV1) is an object with no fields. A definition met again inside itself
 * (a recursive schema such as JSONSchemaProps) is invisible from that point on.
 *
 * CRD schema nodes (those with gw_crd_schema.h's value rules) also carry the bounds kube's
 * cost estimates read (maxLength, maxItems, maxProperties, enum, default); an untyped one is
 * invisible, as kube's SchemaDeclType has it.
 */

#include "cel.h"
#include "gw_arena.h"
#include "gw_catalog.h"

/**
 * The CEL structural schema of `s`, allocated in `a` (it lives as long as `a`; `s` is only
 * read). Definitions shared by several properties are converted once. NULL for a NULL `s`.
 * Thread: any (a is the caller's).
 */
const cel_schema_t *gw_schema_cel(gw_arena_t *a, const gw_schema_t *s);

/**
 * gw_schema_cel() of a CRD node that is a resource (a CRD's root or an embedded resource):
 * its (and nested embedded resources') apiVersion, kind and metadata are left for
 * cel_env_schema_type() with resource_root to state as kube does (metadata.name and
 * metadata.generateName only). Thread: any.
 */
const cel_schema_t *gw_schema_cel_resource(gw_arena_t *a, const gw_schema_t *s);

#endif
