#ifndef GATEWAY_APIEXT_GW_CRD_RULES_INT_H
#define GATEWAY_APIEXT_GW_CRD_RULES_INT_H

/* What gw_crd_rules.c (compiling), gw_crd_rules_eval.c (running) and gw_crd_rules_check.c
   (the CRD's checks) share: the compiled form of one node's rules (kube's CompilationResult). */

#include <stdbool.h>
#include <stdint.h>

#include "cel.h"
#include "gw_crd_rules.h"

typedef struct {
    const char *rule, *message, *message_expr, *reason, *field_path; /* "" when absent */
    bool has_reason, has_optional, optional_old_self;
    bool uses_old_self;
    cel_program_t *prog;     /* NULL for an empty rule or one that does not compile */
    char *error;             /* kube's detail when it does not compile, or NULL */
    cel_program_t *msg_prog; /* messageExpression, or NULL */
    char *msg_error;         /* its detail when it does not compile, or NULL */
    uint64_t cost, msg_cost; /* estimated maximum costs */
    char *norm_path;         /* fieldPath as kube prints it ("a.b", "a[b]"), or NULL */
} gw_crd__rule_t;

typedef struct {
    const gw_schema_t *schema;
    const cel_decltype_t *self_type; /* NULL: the schema is not visible to CEL */
    const char *type;                /* the declared type, as kube shows a failing value */
    int64_t min_size;                /* of self_type (kube's MinSerializedSize) */
    gw_crd__rule_t *rules;
    size_t n_rules;
} gw_crd__node_t;

/* The compiled rules of a tree: its nodes with rules, sorted by schema address. */
struct gw_crd_rules {
    gw_crd__node_t *nodes;
    size_t n;
};

/** The compiled node of schema `s`, or NULL when it has no rule. */
const gw_crd__node_t *gw_crd__node_find(const gw_crd_rules_t *rules, const gw_schema_t *s);

/** Compile the rules of node `s` (resource_root: the CRD's root or an embedded resource) into
 *  `out`, environments and programs released with `a`. */
void gw_crd__rules_node(gw_arena_t *a, const gw_schema_t *s, bool resource_root,
                        gw_crd__node_t *out);

/** Go's %#v of the rule as kube's internal apiextensions.ValidationRule. Caller frees. */
char *gw_crd__rule_gostring(const gw_crd__rule_t *r);

#endif
