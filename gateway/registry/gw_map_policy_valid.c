/*
 * MutatingAdmissionPolicy and its bindings: kube's validateMutatingAdmissionPolicySpec and
 * validateMutatingAdmissionPolicyBindingSpec, on the rules validating policies share.
 */
#include "gw_map_policy_valid.h"

#include <string.h>

#include "gw_admission_policy_int.h"
#include "gw_admission_rules.h"
#include "gw_alloc.h"
#include "gw_map_compile.h"
#include "gw_names.h"

static const char *
sor(const json_t *obj, const char *member)
{
    const char *s = json_string_value(json_object_get(obj, member));
    return s != NULL ? s : "";
}

/* A member that is set (absent and null are Go's nil). */
static const json_t *
ptr(const json_t *obj, const char *member)
{
    const json_t *v = json_object_get(obj, member);
    return v == NULL || json_is_null(v) ? NULL : v;
}

static bool
blank(const char *s)
{
    return s[strspn(s, " \t\n\v\f\r")] == '\0';
}

/* "It is only possible to mutate create and update requests": every operation of every
 * resource rule is one of supportedMutatingOperations (the path has no index, as kube's). */
static void
mutable_operations(const json_t *mr, const char *path, gw_field_errors_t *errs)
{
    static const char *const ops[] = {"*", "CONNECT", "CREATE", "UPDATE", NULL};
    size_t i, k;
    const json_t *rule, *op;
    char *p = gw_sprintf("%s.resourceRules.operations", path);

    json_array_foreach(json_object_get(mr, "resourceRules"), i, rule)
    {
        json_array_foreach(json_object_get(rule, "operations"), k, op)
        {
            const char *o = json_is_string(op) ? json_string_value(op) : "";
            bool ok = false;
            for (size_t j = 0; ops[j] != NULL; j++)
                ok = ok || strcmp(ops[j], o) == 0;
            if (!ok)
                gw_ferr_not_supported(errs, p, o, ops);
        }
    }
    free(p);
}

/* Whether the stored spec held mutation `i`'s expression of the same patchType. */
static bool
stored_expression(const gw_policy__ctx_t *c, const char *body, const char *src)
{
    size_t i;
    const json_t *m;

    json_array_foreach(json_object_get(c->old_spec, "mutations"), i, m)
    {
        const char *s = sor(json_object_get(m, body), "expression");
        if (strcmp(s, src) == 0)
            return true;
    }
    return false;
}

/* validateApplyConfiguration / validateJSONPatch: a blank expression is required, else kube's
 * compile error as Invalid(path, trimmed text, detail). */
static void
patch_expression(const gw_policy__ctx_t *c, const gw_map_compiled_t *mc, size_t i,
                 const json_t *body, const char *name, const char *path, gw_field_errors_t *errs)
{
    const char *src = sor(body, "expression");
    char *p = gw_sprintf("%s.%s.expression", path, name);

    if (blank(src)) {
        gw_ferr_required(errs, p, NULL);
    } else if (gw_map_mutation_error(mc, i) != NULL && !stored_expression(c, name, src)) {
        size_t skip = strspn(src, " \t\n\v\f\r"), len = strlen(src + skip);
        while (len > 0 && strchr(" \t\n\v\f\r", src[skip + len - 1]) != NULL)
            len--;
        char *t = gw_strndup(src + skip, len);
        gw_ferr_invalid_str(errs, p, t, gw_map_mutation_error(mc, i));
        free(t);
    }
    free(p);
}

/* validateMutation: the patchType union. */
static void
mutation(const gw_policy__ctx_t *c, const gw_map_compiled_t *mc, const json_t *m, size_t i,
         gw_field_errors_t *errs)
{
    static const char *const types[] = {"ApplyConfiguration", "JSONPatch", NULL};
    const char *type = sor(m, "patchType");
    const json_t *ac = ptr(m, "applyConfiguration"), *jp = ptr(m, "jsonPatch");
    char *path = gw_sprintf("spec.mutations[%zu]", i), *p;
    bool is_jp = strcmp(type, "JSONPatch") == 0;

    if (type[0] == '\0') {
        p = gw_sprintf("%s.patchType", path);
        gw_ferr_required(errs, p, NULL);
    } else if (is_jp || strcmp(type, "ApplyConfiguration") == 0) {
        const json_t *mine = is_jp ? jp : ac, *other = is_jp ? ac : jp;
        const char *name = is_jp ? "jsonPatch" : "applyConfiguration";
        const char *other_name = is_jp ? "applyConfiguration" : "jsonPatch";
        char *msg = gw_sprintf("must be specified when patchType is %s", type);
        p = gw_sprintf("%s.%s", path, name);
        if (mine == NULL)
            gw_ferr_required(errs, p, msg);
        else
            patch_expression(c, mc, i, mine, name, path, errs);
        free(p);
        free(msg);
        p = gw_sprintf("%s.%s", path, other_name);
        if (other != NULL) {
            char *shown = gw_sprintf("{%s}", other_name);
            msg = gw_sprintf("must not be specified when patchType is %s", type);
            gw_ferr_invalid_str(errs, p, shown, msg);
            free(shown);
            free(msg);
        }
    } else {
        p = gw_sprintf("%s.patchType", path);
        gw_ferr_not_supported(errs, p, type, types);
    }
    free(p);
    free(path);
}

static void
reinvocation_policy(const json_t *spec, gw_field_errors_t *errs)
{
    static const char *const policies[] = {"Never", "IfNeeded", NULL};
    const char *rp = sor(spec, "reinvocationPolicy");

    if (rp[0] == '\0')
        gw_ferr_required(errs, "spec.reinvocationPolicy", NULL);
    else if (strcmp(rp, "Never") != 0 && strcmp(rp, "IfNeeded") != 0)
        gw_ferr_not_supported(errs, "spec.reinvocationPolicy", rp, policies);
}

static void
mutations(const gw_policy__ctx_t *c, const gw_map_compiled_t *mc, const json_t *spec,
          gw_field_errors_t *errs)
{
    const json_t *list = json_object_get(spec, "mutations"), *m;
    size_t i;

    if (json_array_size(list) == 0)
        gw_ferr_required(errs, "spec.mutations", "mutations must contain at least one item");
    json_array_foreach(list, i, m) mutation(c, mc, m, i, errs);
}

/* validateMutatingAdmissionPolicySpec. old: the stored object on an update. */
static void
policy_spec(const json_t *obj, const json_t *old, bool check_conditions, gw_field_errors_t *errs)
{
    const json_t *spec = json_object_get(obj, "spec");
    const json_t *fp = ptr(spec, "failurePolicy"), *pk = ptr(spec, "paramKind"), *e;
    gw_map_compiled_t *mc = gw_map_compile(obj, &(gw_vap_schemas_t){.validating = true});
    gw_policy__ctx_t c = {.compiled = gw_map_compiled_base(mc),
                          .old_spec = old != NULL ? json_object_get(old, "spec") : NULL};
    size_t i;

    if (fp == NULL)
        gw_ferr_required(errs, "spec.failurePolicy", NULL);
    else
        gw_admission_failure_policy_validate(json_is_string(fp) ? json_string_value(fp) : "",
                                             "spec.failurePolicy", errs);
    if (pk != NULL)
        gw_policy__param_kind(pk, "spec.paramKind", errs);
    gw_policy__match_constraints(spec, errs);
    if (ptr(spec, "matchConstraints") != NULL)
        mutable_operations(ptr(spec, "matchConstraints"), "spec.matchConstraints", errs);
    if (check_conditions)
        gw_policy__match_conditions(&c, json_object_get(spec, "matchConditions"),
                                    "spec.matchConditions", errs);
    json_array_foreach(json_object_get(spec, "variables"), i, e)
    {
        char *p = gw_sprintf("spec.variables[%zu]", i);
        gw_policy__variable(&c, e, i, p, errs);
        free(p);
    }
    mutations(&c, mc, spec, errs);
    reinvocation_policy(spec, errs);
    gw_map_compiled_free(mc);
}

void
gw_map_validate(const json_t *obj, gw_field_errors_t *errs)
{
    policy_spec(obj, NULL, true, errs);
}

void
gw_map_validate_update(const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    policy_spec(obj, old, !gw_policy__conditions_kept(obj, old), errs);
}

void
gw_mapb_validate(const json_t *obj, gw_field_errors_t *errs)
{
    const json_t *spec = json_object_get(obj, "spec"), *mr = ptr(spec, "matchResources");
    const char *policy = sor(spec, "policyName"), *m;

    if (policy[0] == '\0')
        gw_ferr_required(errs, "spec.policyName", NULL);
    else if ((m = gw_valid_dns1123_subdomain(policy)) != NULL)
        gw_ferr_invalid_str(errs, "spec.policyName", policy, m);
    gw_policy__param_ref(ptr(spec, "paramRef"), errs);
    if (mr != NULL) {
        gw_admission_match_resources_validate(mr, "spec.matchResources", errs);
        mutable_operations(mr, "spec.matchResources", errs);
    }
}
