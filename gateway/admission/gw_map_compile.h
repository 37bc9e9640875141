#ifndef GATEWAY_ADMISSION_GW_MAP_COMPILE_H
#define GATEWAY_ADMISSION_GW_MAP_COMPILE_H

/*
 * A MutatingAdmissionPolicy compiled once, as kube-apiserver 1.32's mutating policy plugin
 * compiles it (policy/mutating/compilation.go compilePolicy): the variables and matchConditions
 * exactly as a ValidatingAdmissionPolicy's (kube's admission environment, type-checked; see
 * gw_vap_compile.h), then each mutation in that environment plus the mutation library (`Object`
 * and `JSONPatch` construction, `jsonpatch.escapeKey`), an ApplyConfiguration's expression
 * returning `Object` and a JSONPatch's `list(JSONPatch)` (else kube's "must evaluate to Object
 * but got ..."). An expression that does not compile keeps kube's error for evaluation time.
 * A mutation whose patchType has no body (or an unknown patchType) compiles to nothing, as in
 * kube; its evaluation is an internal error.
 *
 * The compiled form is immutable: any number of workers may evaluate it at once
 * (gw_map_eval.h).
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_vap_compile.h"

typedef struct gw_map_compiled gw_map_compiled_t;

/** A mutation's patchType. */
typedef enum {
    GW_MAP_NONE, /* no body for its patchType: nothing compiled */
    GW_MAP_APPLY_CONFIGURATION,
    GW_MAP_JSON_PATCH,
} gw_map_patch_t;

/**
 * Compile `policy` (a stored admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicy
 * document; read, not retained), with `schemas` as gw_vap_compile() takes them (NULL: dynamic,
 * as the plugin compiles; with an object schema, `Object` types are the schema's). Never
 * fails. Owned by the caller: gw_map_compiled_free(). Any thread.
 */
gw_map_compiled_t *gw_map_compile(const json_t *policy, const gw_vap_schemas_t *schemas);

/** Free a compiled policy; no evaluation may be running on it. NULL is a no-op. */
void gw_map_compiled_free(gw_map_compiled_t *c);

/** The variables and matchConditions, compiled as a validating policy's: its name, failure
 *  policy, params and their compile errors (gw_vap_compile_error). Owned by `c`. */
const gw_vap_compiled_t *gw_map_compiled_base(const gw_map_compiled_t *c);

/** True when reinvocationPolicy is IfNeeded (unset and Never are Never). */
bool gw_map_compiled_reinvokes(const gw_map_compiled_t *c);

/** How many mutations the policy lists. */
size_t gw_map_compiled_mutations(const gw_map_compiled_t *c);

/** The patchType mutation `i` compiled as. */
gw_map_patch_t gw_map_mutation_type(const gw_map_compiled_t *c, size_t i);

/** kube's compile error of mutation `i` ("compilation failed: ERROR: ...", "must evaluate to
 *  Object but got int"), or NULL when it compiled (or was not compiled). Owned by `c`. */
const char *gw_map_mutation_error(const gw_map_compiled_t *c, size_t i);

#endif
