#ifndef GATEWAY_ADMISSION_GW_VAP_COMPILE_H
#define GATEWAY_ADMISSION_GW_VAP_COMPILE_H

/*
 * A ValidatingAdmissionPolicy compiled once, as kube-apiserver 1.32's validating policy plugin
 * compiles it (policy/validating/plugin.go compilePolicy, plugin/cel compile.go and
 * composition.go): the variables, matchConditions, validations (with their messageExpressions)
 * and auditAnnotations of the stored v1 object, each against kube's admission environment:
 * `object`, `oldObject` and `params` dynamic, `request` (kube's AdmissionRequest type),
 * `namespaceObject` (kube's Namespace type), `variables` (the earlier variables, typed by what
 * each compiled to; kube keeps them by name, so a later variable of a name replaces the earlier
 * one, in its type and in evaluation), `authorizer` and `authorizer.requestResource` (not for
 * messageExpressions), with type checking on and kube's return types.
 *
 * An expression that fails to compile is kept with kube's error text: kube stores such
 * policies, and the error is handled per failurePolicy when the policy is evaluated.
 *
 * The compiled form is immutable: any number of workers may evaluate it at once
 * (gw_vap_eval.h).
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cel.h"

typedef struct gw_vap_compiled gw_vap_compiled_t;

/** Optional structural schemas to compile against (the catalog's, for the matched kind and
 *  the param kind). NULL members (or a NULL pointer) leave the variable dynamic, as the
 *  admission plugin compiles; the type-checking controller passes the kind's schemas. */
typedef struct {
    const cel_schema_t *object; /* `object` and `oldObject` */
    const char *object_name;    /* the object type's name, e.g. "io.k8s.api.apps.v1.Deployment" */
    const cel_schema_t *params;
    const char *params_name;
    /* As kube's type-checking controller compiles (typechecking.go): no return type is
     * enforced and errors are the checker's issues alone, without "compilation failed: ". */
    bool type_checking;
    /* As kube's validation of a created or updated policy compiles it (admissionregistration
     * validation.go): matchConditions trimmed and without `variables` (its stateless
     * compiler), `variables` declared only when the spec has some, a variable with a blank
     * expression neither compiled nor declared, auditAnnotations' valueExpressions trimmed. */
    bool validating;
} gw_vap_schemas_t;

/** The expression lists of a policy, for gw_vap_compile_error(). */
typedef enum {
    GW_VAP_VARIABLE,
    GW_VAP_MATCH_CONDITION,
    GW_VAP_VALIDATION,
    GW_VAP_MESSAGE_EXPRESSION,
    GW_VAP_AUDIT_ANNOTATION,
} gw_vap_list_t;

/**
 * Compile `policy` (a stored admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy
 * document; read, not retained). Never fails: expressions that do not compile carry their
 * error (gw_vap_compile_error). Owned by the caller: gw_vap_compiled_free(). Any thread; the
 * result may then be shared read-only by every thread.
 */
gw_vap_compiled_t *gw_vap_compile(const json_t *policy, const gw_vap_schemas_t *schemas);

/** Free a compiled policy; no evaluation may be running on it. NULL is a no-op. */
void gw_vap_compiled_free(gw_vap_compiled_t *c);

/** The policy's name (metadata.name). Owned by `c`. */
const char *gw_vap_compiled_name(const gw_vap_compiled_t *c);

/** True when failurePolicy is Ignore (unset and Fail are Fail). */
bool gw_vap_compiled_ignores_failures(const gw_vap_compiled_t *c);

/** True when spec.paramKind is set (`params` is declared). */
bool gw_vap_compiled_has_params(const gw_vap_compiled_t *c);

/** How many expressions `list` holds (messageExpressions: one slot per validation). */
size_t gw_vap_compiled_count(const gw_vap_compiled_t *c, gw_vap_list_t list);

/**
 * kube's compile error of expression `i` of `list` (the text its CompilationResult.Error
 * prints, e.g. "compilation failed: ERROR: <input>:1:1: undeclared reference to 'x'\n | x\n
 * | ^" or "must evaluate to bool but got int"), or NULL when it compiled (or, for
 * messageExpressions, when the validation has none; `validating`, for a variable whose
 * expression is blank: it is not compiled). Owned by `c`.
 */
const char *gw_vap_compile_error(const gw_vap_compiled_t *c, gw_vap_list_t list, size_t i);

#endif
