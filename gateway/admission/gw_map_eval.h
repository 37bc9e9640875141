#ifndef GATEWAY_ADMISSION_GW_MAP_EVAL_H
#define GATEWAY_ADMISSION_GW_MAP_EVAL_H

/*
 * Evaluating one compiled MutatingAdmissionPolicy for one (binding, param) of one request, as
 * kube-apiserver 1.32's mutating dispatcher does (policy/mutating/dispatcher.go and its
 * patchers, patch/json_patch.go and patch/smd.go): the matchConditions as a validating
 * policy's (gw_vap_eval.h: their own budget, errors under failurePolicy), then each mutation in
 * order against the object as the earlier ones left it, each with a fresh 10,000,000 budget
 * and its own lazy variables:
 *
 * - ApplyConfiguration: the `Object` the expression builds (every nested `Object.<path>` named
 *   for its field path, else kube's "type mismatch: ...") merged into the object with
 *   structured-merge-diff's rules over the kind's schema (gw_apply_config.h);
 * - JSONPatch: the operations the expression lists, applied as RFC 6902 (a failed `test` leaves
 *   the object as it was, as kube does).
 *
 * An error of one mutation is recorded (kube's message) and the next mutation still runs, as
 * kube's dispatcher continues; what the errors mean (failurePolicy) is the plugin's. Authorizer
 * checks are answered from a memo exactly as gw_vap_eval() does (GW_VAP_NEEDS_ANSWERS).
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cel.h"
#include "gw_catalog.h"
#include "gw_map_compile.h"
#include "gw_vap_eval.h"

/** What an evaluation produced. */
typedef struct {
    bool matched;        /* the matchConditions matched (false: nothing ran, no errors) */
    json_t *object;      /* the object after the mutations (a new reference), or NULL when it was
                            not changed (or there is no object: DELETE) */
    const char **errors; /* kube's messages, one per failed mutation (or the matchConditions'
                            error), in `a` */
    size_t nerrors;
    bool internal; /* the one error is kube's internal error (a mutation compiled to nothing:
                      "expected N compiled evaluators for policy P, got M") */
} gw_map_result_t;

/**
 * Evaluate `c` for `in` (`in->object` is the object to mutate; borrowed), the apply
 * configurations merged under `schema` (the kind's, NULL: schema-less). Returns 0 with `*out`
 * filled (the caller decrefs `out->object`), or GW_VAP_NEEDS_ANSWERS with `*out` empty when
 * `memo` lacks answers. Every value lives in `a`. Any thread, concurrently with other
 * evaluations of `c`.
 */
int gw_map_eval(const gw_map_compiled_t *c, const gw_vap_input_t *in, const gw_schema_t *schema,
                gw_vap_memo_t *memo, cel_arena_t *a, gw_map_result_t *out);

/** Release what a result holds (its object) and zero it. */
void gw_map_result_clear(gw_map_result_t *r);

#endif
