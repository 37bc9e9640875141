#ifndef GATEWAY_ADMISSION_GW_VAP_INT_H
#define GATEWAY_ADMISSION_GW_VAP_INT_H

/* The compiled policy's layout, shared by gw_vap_compile.c (which builds it) and
 * gw_vap_eval.c (which reads it), and the pieces of both that MutatingAdmissionPolicy's
 * gw_map_compile.c and gw_map_eval.c reuse. Folder-internal. */

#include "gw_vap_compile.h"
#include "gw_vap_eval.h"

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

/* ---- evaluation pieces shared with MutatingAdmissionPolicy (gw_vap_eval.c) ---------------- */

/** One of kube's ForInput calls: its activation, with its own lazy variables. */
typedef struct {
    const gw_vap_compiled_t *c;
    cel_arena_t *a;
    cel_activation_t *act;
    cel_value_t *vals; /* variables' values, once evaluated */
    bool *done;
    uint64_t var_cost; /* what variables cost since the last expression was charged */
} gw_vap__phase_t;

/** printf into the arena `a`. */
const char *gw_vap__aprintf(cel_arena_t *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** kube's message when a phase runs out of its cost budget. */
extern const char gw_vap__out_of_budget[];

/** Start a phase for `in` (`authorizer`: bind the authorizer variables; `ns`: namespaceObject). */
void gw_vap__phase_init(gw_vap__phase_t *p, const gw_vap_compiled_t *c, const gw_vap_input_t *in,
                        gw_vap_memo_t *memo, cel_arena_t *a, bool authorizer, const json_t *ns);

/** One expression's evaluation charged to `*remaining`: false when the budget ran out; else
 *  `*v`, or `*err` with kube's message. */
bool gw_vap__eval_expr(gw_vap__phase_t *p, const gw_vap__expr_t *e, int64_t *remaining,
                       cel_value_t *v, const char **err);

/** The matchConditions (their own budget): 1 match, 0 not (or an error Ignore'd), -1 with
 *  `*msg` saying why the policy fails; what they met in *stats (NULL: not wanted). */
int gw_vap__run_matches(const gw_vap_compiled_t *c, const gw_vap_input_t *in, gw_vap_memo_t *memo,
                        cel_arena_t *a, const char **msg, gw_vap_match_stats_t *stats);

/** Before an evaluation: no check has missed an answer yet. NULL is a no-op. */
void gw_vap__memo_begin(gw_vap_memo_t *m);

/** Whether the evaluation since gw_vap__memo_begin() asked a check the memo could not answer. */
bool gw_vap__memo_missed(const gw_vap_memo_t *m);

/** Compile `src` in `env` as kube's CompileCELExpression does, the result type one of `want`
 *  (NULL-terminated; NULL: any) into `*e`; `*type` (when not NULL) receives the checked output
 *  type (malloc'd) of an expression that compiled. */
void gw_vap__compile_expr(const cel_env_t *env, const char *src, const char *const *want,
                          gw_vap__expr_t *e, char **type, bool type_checking);

/** Free what an expression holds. */
void gw_vap__expr_clear(gw_vap__expr_t *e);

#endif
