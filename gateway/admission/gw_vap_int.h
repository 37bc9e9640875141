#ifndef GATEWAY_ADMISSION_GW_VAP_INT_H
#define GATEWAY_ADMISSION_GW_VAP_INT_H

/* The compiled policy's layout, shared by gw_vap_compile.c (which builds it) and
 * gw_vap_eval.c (which reads it). Folder-internal. */

#include "gw_vap_compile.h"

/** kube's limits (k8s.io/apiserver/pkg/apis/cel config.go). */
#define GW_VAP__PER_CALL_LIMIT 1000000ULL
#define GW_VAP__BUDGET 10000000LL
#define GW_VAP__BUDGET_MATCH_CONDITIONS 2500000LL
#define GW_VAP__MAX_MESSAGE_BYTES (5 * 1024)
#define GW_VAP__MAX_AUDIT_VALUE_BYTES (10 * 1024)

/** One compiled expression. `src` NULL: no expression (an unset messageExpression). */
typedef struct {
    char *src;
    cel_program_t *prog; /* NULL when it did not compile */
    char *error;         /* kube's compile error, or NULL */
} gw_vap__expr_t;

typedef struct {
    gw_vap__expr_t expr;
    gw_vap__expr_t message_expr;
    char *message; /* NULL: unset */
    char *reason;  /* NULL: unset (Invalid) */
} gw_vap__validation_t;

typedef struct {
    char *name; /* variable name, matchCondition name or audit annotation key */
    gw_vap__expr_t expr;
} gw_vap__named_t;

struct gw_vap_compiled {
    char *name;
    bool ignore;
    bool has_params;
    bool type_checking; /* compiled as the type-checking controller compiles */
    cel_env_t *env;     /* kept: it owns the typed bindings' types */
    cel_env_t *env_msg; /* messageExpressions: no authorizer */
    const cel_decltype_t *object_type, *params_type; /* NULL: dynamic */
    gw_vap__named_t *vars, *matches, *audits;
    size_t nvars, nmatches, naudits;
    gw_vap__validation_t *validations;
    size_t nvalidations;
};

#endif
