/*
 * ValidatingAdmissionPolicy and its bindings: kube's validateValidatingAdmissionPolicySpec,
 * validateValidatingAdmissionPolicyBindingSpec and the status rules. A policy's expressions
 * are compiled by the admission plugin's compiler (gw_vap_compile.h) in the mode that compiles
 * as kube's validation does; here each error becomes a field error at its path, unless the
 * stored policy already held the expression.
 */
#include "gw_admission_policy_valid.h"
#include "gw_admission_policy_int.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gw_admission_rules.h"
#include "gw_alloc.h"
#include "gw_metav1_valid.h"
#include "gw_names.h"
#include "gw_vap_compile.h"

#define MAX_AUDIT_ANNOTATIONS 20
#define MAX_VALUE_EXPRESSION_LEN (5 * 1024)
#define MAX_MATCH_CONDITIONS 64

/* ---- small helpers ------------------------------------------------------------------------ */

static const char *
sget(const json_t *obj, const char *member)
{
    const json_t *v = json_object_get(obj, member);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static const char *
sor(const json_t *obj, const char *member)
{
    const char *s = sget(obj, member);
    return s != NULL ? s : "";
}

/* A pointer field: absent or null is nil. */
static const json_t *
ptr(const json_t *obj, const char *member)
{
    const json_t *v = json_object_get(obj, member);
    return json_is_null(v) ? NULL : v;
}

/* strings.TrimSpace's result is empty. */
static bool
blank(const char *s)
{
    while (*s != '\0' && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* strings.TrimSpace, malloc'd. */
static char *
trim(const char *s)
{
    size_t n;

    while (*s != '\0' && isspace((unsigned char)*s))
        s++;
    n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    return gw_sprintf("%.*s", (int)n, s);
}

/* ValidateQualifiedName: each of IsQualifiedName's messages. */
static void
qualified_name(const char *s, const char *path, gw_field_errors_t *errs)
{
    const char *msgs[4];
    size_t n = gw_valid_qualified_name_all(s, msgs);

    for (size_t i = 0; i < n; i++)
        gw_ferr_invalid_str(errs, path, s, msgs[i]);
}

static char *
child(const char *path, const char *member)
{
    return gw_sprintf("%s.%s", path, member);
}

/* ---- the policy's expressions ------------------------------------------------------------ */

/* Whether the old spec's array `member` has an element whose `key` is `src` (kube's
 * preexisting expressions: compiled in the stored-expressions environment). */
static bool
preexisting(const gw_policy__ctx_t *c, const char *member, const char *key, const char *src)
{
    size_t i;
    const json_t *e;

    if (c->old_spec == NULL)
        return false;
    json_array_foreach(json_object_get(c->old_spec, member), i, e)
    {
        const char *s = sget(e, key);
        if (s != NULL && strcmp(s, src) == 0)
            return true;
    }
    return false;
}

/* validateCELCondition: the compile error of expression `i` of `list` as Invalid(path, shown,
 * detail). An expression the stored object already held stays valid: kgate has no older
 * environment to compile it in, and it was accepted once. */
static void
compile_error(const gw_policy__ctx_t *c, gw_vap_list_t list, size_t i, const char *shown,
              bool stored, const char *path, gw_field_errors_t *errs)
{
    const char *detail = gw_vap_compile_error(c->compiled, list, i);

    if (detail != NULL && !stored)
        gw_ferr_invalid_str(errs, path, shown, detail);
}

/* ---- the policy's spec ------------------------------------------------------------------- */

/* parseGroupVersion's split, or false for more than one '/'. */
static bool
split_gv(const char *gv, char **group, char **version)
{
    const char *slash = strchr(gv, '/');

    if (strcmp(gv, "/") == 0) {
        *group = gw_strdup("");
        *version = gw_strdup("");
        return true;
    }
    if (slash == NULL) {
        *group = gw_strdup("");
        *version = gw_strdup(gv);
        return true;
    }
    if (strchr(slash + 1, '/') != NULL)
        return false;
    *group = gw_sprintf("%.*s", (int)(slash - gv), gv);
    *version = gw_strdup(slash + 1);
    return true;
}

static void
param_kind_version(const char *av, const char *p, gw_field_errors_t *errs)
{
    char *group, *version, *msg;
    const char *m;

    if (!split_gv(av, &group, &version)) {
        msg = gw_sprintf("unexpected GroupVersion string: %s", av);
        gw_ferr_invalid_str(errs, p, av, msg);
        free(msg);
        return;
    }
    if (group[0] != '\0' && (m = gw_valid_dns1123_subdomain(group)) != NULL)
        gw_ferr_invalid_str(errs, p, group, m);
    if (version[0] == '\0')
        gw_ferr_invalid_str(errs, p, av, "version must be specified");
    else if ((m = gw_valid_dns1035_label(version)) != NULL)
        gw_ferr_invalid_str(errs, p, version, m);
    free(group);
    free(version);
}

void
gw_policy__param_kind(const json_t *pk, const char *path, gw_field_errors_t *errs)
{
    const char *av = sor(pk, "apiVersion"), *kind = sor(pk, "kind"), *m;
    char *p = child(path, "apiVersion");

    if (av[0] == '\0')
        gw_ferr_required(errs, p, NULL);
    else
        param_kind_version(av, p, errs);
    free(p);
    p = child(path, "kind");
    if (kind[0] == '\0') {
        gw_ferr_required(errs, p, NULL);
    } else {
        char *lower = gw_strdup(kind);
        for (char *q = lower; *q != '\0'; q++)
            *q = (char)tolower((unsigned char)*q);
        if ((m = gw_valid_dns1035_label(lower)) != NULL) {
            char *d = gw_sprintf("may have mixed case, but should otherwise match: %s", m);
            gw_ferr_invalid_str(errs, p, kind, d);
            free(d);
        }
        free(lower);
    }
    free(p);
}

static void
match_condition(const gw_policy__ctx_t *c, const json_t *mc, size_t i, const char *path,
                gw_field_errors_t *errs)
{
    const char *src = sor(mc, "expression"), *name = sor(mc, "name");
    char *p = child(path, "expression");

    if (blank(src)) {
        gw_ferr_required(errs, p, NULL);
    } else {
        /* kube compiles, and shows, the trimmed text */
        char *t = trim(src);
        bool stored = preexisting(c, "matchConditions", "expression", t);
        compile_error(c, GW_VAP_MATCH_CONDITION, i, t, stored, p, errs);
        free(t);
    }
    free(p);
    p = child(path, "name");
    if (name[0] == '\0')
        gw_ferr_required(errs, p, NULL);
    else
        qualified_name(name, p, errs);
    free(p);
}

void
gw_policy__match_conditions(const gw_policy__ctx_t *c, const json_t *list, const char *path,
                            gw_field_errors_t *errs)
{
    size_t i;
    const json_t *mc;

    if (json_array_size(list) > MAX_MATCH_CONDITIONS)
        gw_ferr_too_many(errs, path, json_array_size(list), MAX_MATCH_CONDITIONS);
    json_array_foreach(list, i, mc)
    {
        char *p = gw_sprintf("%s[%zu]", path, i);
        const char *name = sor(mc, "name");
        match_condition(c, mc, i, p, errs);
        if (name[0] != '\0') {
            for (size_t j = 0; j < i; j++) {
                if (strcmp(sor(json_array_get(list, j), "name"), name) == 0) {
                    char *pn = child(p, "name");
                    gw_ferr_duplicate(errs, pn, name);
                    free(pn);
                    break;
                }
            }
        }
        free(p);
    }
}

/* isCELIdentifier: [_a-zA-Z][_a-zA-Z0-9]* and not a reserved word. */
static bool
cel_identifier(const char *s)
{
    static const char *const reserved[] = {
        "true",      "false",  "null",     "in",   "as",     "break", "const", "continue",
        "else",      "for",    "function", "if",   "import", "let",   "loop",  "package",
        "namespace", "return", "var",      "void", "while",  NULL};

    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (const char *q = s + 1; *q != '\0'; q++)
        if (!(isalnum((unsigned char)*q) || *q == '_'))
            return false;
    for (size_t i = 0; reserved[i] != NULL; i++)
        if (strcmp(reserved[i], s) == 0)
            return false;
    return true;
}

/* validateVariable. */
void
gw_policy__variable(const gw_policy__ctx_t *c, const json_t *v, size_t i, const char *path,
                    gw_field_errors_t *errs)
{
    const char *name = sor(v, "name"), *src = sor(v, "expression");
    char *p = child(path, "name");

    if (blank(name))
        gw_ferr_required(errs, p, "name is not specified");
    else if (!cel_identifier(name))
        gw_ferr_invalid_str(errs, p, name, "name is not a valid CEL identifier");
    free(p);
    p = child(path, "expression");
    if (blank(src)) {
        gw_ferr_required(errs, p, "expression is not specified");
    } else {
        /* kube looks a variable up among the stored validations' expressions */
        bool stored = preexisting(c, "validations", "expression", src);
        compile_error(c, GW_VAP_VARIABLE, i, src, stored, p, errs);
    }
    free(p);
}

static void
validation(const gw_policy__ctx_t *c, const json_t *v, size_t i, const char *path,
           gw_field_errors_t *errs)
{
    static const char *const reasons[] = {"Forbidden", "Invalid", "RequestEntityTooLarge", NULL};
    const char *src = sor(v, "expression"), *msg = sor(v, "message");
    const char *mexpr = sor(v, "messageExpression");
    const json_t *reason = ptr(v, "reason");
    char *p = child(path, "expression"), *tmsg = trim(msg);
    bool stored;

    if (blank(src)) {
        gw_ferr_required(errs, p, "expression is not specified");
    } else {
        stored = preexisting(c, "validations", "expression", src);
        compile_error(c, GW_VAP_VALIDATION, i, src, stored, p, errs);
    }
    free(p);
    p = child(path, "messageExpression");
    if (mexpr[0] != '\0' && blank(mexpr)) {
        gw_ferr_invalid_str(errs, p, mexpr, "must be non-empty if specified");
    } else if (mexpr[0] != '\0') {
        stored = preexisting(c, "validations", "messageExpression", mexpr);
        compile_error(c, GW_VAP_MESSAGE_EXPRESSION, i, mexpr, stored, p, errs);
    }
    free(p);
    p = child(path, "message");
    if (msg[0] != '\0' && tmsg[0] == '\0')
        gw_ferr_invalid_str(errs, p, msg, "message must be non-empty if specified");
    else if (strpbrk(tmsg, "\n\r") != NULL)
        gw_ferr_invalid_str(errs, p, msg, "message must not contain line breaks");
    free(p);
    free(tmsg);
    if (reason != NULL && json_is_string(reason)) {
        const char *r = json_string_value(reason);
        if (strcmp(r, "Forbidden") != 0 && strcmp(r, "Invalid") != 0 &&
            strcmp(r, "RequestEntityTooLarge") != 0) {
            p = child(path, "reason");
            gw_ferr_not_supported(errs, p, r, reasons);
            free(p);
        }
    }
}

static void
audit_annotation(const gw_policy__ctx_t *c, const char *policy, const json_t *a, size_t i,
                 const char *path, gw_field_errors_t *errs)
{
    const char *key = sor(a, "key"), *src = sor(a, "valueExpression");
    char *p = child(path, "key"), *t;

    if (policy[0] != '\0') {
        char *full = gw_sprintf("%s/%s", policy, key);
        qualified_name(full, p, errs);
        free(full);
    } else {
        gw_ferr_invalid_str(errs, p, key, "requires metadata.name be non-empty");
    }
    free(p);
    p = child(path, "valueExpression");
    t = trim(src);
    if (t[0] == '\0') {
        gw_ferr_required(errs, p, "valueExpression is not specified");
    } else if (strlen(t) > MAX_VALUE_EXPRESSION_LEN) {
        gw_ferr_required(errs, p, "must not exceed 5120 bytes in length");
    } else {
        /* kube compiles the trimmed text and shows the text as written */
        bool stored = preexisting(c, "auditAnnotations", "valueExpression", src);
        compile_error(c, GW_VAP_AUDIT_ANNOTATION, i, src, stored, p, errs);
    }
    free(t);
    free(p);
}

/* Go's %#v of the auditAnnotations slice, as kube shows it in its "more than 20" error. */
static char *
go_audit_annotations(const json_t *list)
{
    char *out = gw_strdup("[]admissionregistration.AuditAnnotation{");
    size_t i;
    const json_t *a;

    json_array_foreach(list, i, a)
    {
        char *k = gw_ferr_quote(sor(a, "key")), *v = gw_ferr_quote(sor(a, "valueExpression"));
        char *next =
            gw_sprintf("%s%sadmissionregistration.AuditAnnotation{Key:%s, ValueExpression:%s}", out,
                       i > 0 ? ", " : "", k, v);
        free(k);
        free(v);
        free(out);
        out = next;
    }
    char *done = gw_sprintf("%s}", out);
    free(out);
    return done;
}

static void
audit_annotations(const gw_policy__ctx_t *c, const char *policy, const json_t *list,
                  gw_field_errors_t *errs)
{
    size_t i;
    const json_t *a;

    if (json_array_size(list) > MAX_AUDIT_ANNOTATIONS) {
        char *shown = go_audit_annotations(list);
        char *msg = gw_sprintf("Invalid value: %s: must not have more than %d auditAnnotations",
                               shown, MAX_AUDIT_ANNOTATIONS);
        gw_ferr_add(errs, "FieldValueInvalid", "spec.auditAnnotations", msg);
        free(msg);
        free(shown);
    }
    json_array_foreach(list, i, a)
    {
        char *p = gw_sprintf("spec.auditAnnotations[%zu]", i);
        const char *key = sor(a, "key");
        audit_annotation(c, policy, a, i, p, errs);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(sor(json_array_get(list, j), "key"), key) == 0) {
                char *pk = child(p, "key");
                gw_ferr_duplicate(errs, pk, key);
                free(pk);
                break;
            }
        }
        free(p);
    }
}

void
gw_policy__match_constraints(const json_t *spec, gw_field_errors_t *errs)
{
    const json_t *mc = ptr(spec, "matchConstraints");

    if (mc == NULL) {
        gw_ferr_required(errs, "spec.matchConstraints", NULL);
        return;
    }
    gw_admission_match_resources_validate(mc, "spec.matchConstraints", errs);
    /* at least one resource rule gives the expressions their types */
    if (json_array_size(json_object_get(mc, "resourceRules")) == 0)
        gw_ferr_required(errs, "spec.matchConstraints.resourceRules", NULL);
}

/* validateValidatingAdmissionPolicySpec. old: the stored object on an update. */
static void
policy_spec(const json_t *obj, const json_t *old, bool check_conditions, gw_field_errors_t *errs)
{
    const json_t *spec = json_object_get(obj, "spec");
    const json_t *fp = ptr(spec, "failurePolicy"), *pk = ptr(spec, "paramKind");
    const json_t *vars = json_object_get(spec, "variables");
    const json_t *vals = json_object_get(spec, "validations");
    const json_t *auds = json_object_get(spec, "auditAnnotations");
    const char *policy = sor(json_object_get(obj, "metadata"), "name");
    gw_vap_compiled_t *compiled = gw_vap_compile(obj, &(gw_vap_schemas_t){.validating = true});
    gw_policy__ctx_t c = {.compiled = compiled,
                          .old_spec = old != NULL ? json_object_get(old, "spec") : NULL};
    size_t i;
    const json_t *e;

    if (fp == NULL)
        gw_ferr_required(errs, "spec.failurePolicy", NULL);
    else
        gw_admission_failure_policy_validate(json_is_string(fp) ? json_string_value(fp) : "",
                                             "spec.failurePolicy", errs);
    if (pk != NULL)
        gw_policy__param_kind(pk, "spec.paramKind", errs);
    gw_policy__match_constraints(spec, errs);
    if (check_conditions)
        gw_policy__match_conditions(&c, json_object_get(spec, "matchConditions"),
                                    "spec.matchConditions", errs);
    json_array_foreach(vars, i, e)
    {
        char *p = gw_sprintf("spec.variables[%zu]", i);
        gw_policy__variable(&c, e, i, p, errs);
        free(p);
    }
    if (json_array_size(vals) == 0 && json_array_size(auds) == 0) {
        gw_ferr_required(errs, "spec.validations",
                         "validations or auditAnnotations must contain at least one item");
        gw_ferr_required(errs, "spec.auditAnnotations",
                         "validations or auditAnnotations must contain at least one item");
    } else {
        json_array_foreach(vals, i, e)
        {
            char *p = gw_sprintf("spec.validations[%zu]", i);
            validation(&c, e, i, p, errs);
            free(p);
        }
        audit_annotations(&c, policy, auds, errs);
    }
    gw_vap_compiled_free(compiled);
}

void
gw_vap_validate(const json_t *obj, gw_field_errors_t *errs)
{
    policy_spec(obj, NULL, true, errs);
}

/* JSON equality, absent and null being equal (a nil pointer or slice). */
static bool
same(const json_t *a, const json_t *b)
{
    if (a == NULL || json_is_null(a))
        return b == NULL || json_is_null(b);
    return b != NULL && json_equal(a, b);
}

bool
gw_policy__conditions_kept(const json_t *obj, const json_t *old)
{
    const json_t *spec = json_object_get(obj, "spec"), *ospec = json_object_get(old, "spec");

    return same(json_object_get(spec, "paramKind"), json_object_get(ospec, "paramKind")) &&
           same(json_object_get(spec, "matchConditions"),
                json_object_get(ospec, "matchConditions"));
}

void
gw_vap_validate_update(const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    /* ignoreValidatingAdmissionPolicyMatchConditions */
    policy_spec(obj, old, !gw_policy__conditions_kept(obj, old), errs);
}

/* ---- status ------------------------------------------------------------------------------ */

void
gw_vap_validate_status(const json_t *obj, gw_field_errors_t *errs)
{
    const json_t *status = json_object_get(obj, "status");
    const json_t *tc = ptr(status, "typeChecking");
    size_t i;
    const json_t *w;

    json_array_foreach(json_object_get(tc, "expressionWarnings"), i, w)
    {
        char *p = gw_sprintf("status.typeChecking.expressionWarnings[%zu].warning", i);
        if (sor(w, "warning")[0] == '\0')
            gw_ferr_required(errs, p, NULL);
        free(p);
        p = gw_sprintf("status.typeChecking.expressionWarnings[%zu].fieldRef", i);
        if (blank(sor(w, "fieldRef")))
            gw_ferr_required(errs, p, NULL);
        free(p);
    }
    gw_conditions_validate(json_object_get(status, "conditions"), "status.conditions", errs);
}

/* ---- bindings ---------------------------------------------------------------------------- */

void
gw_policy__param_ref(const json_t *pr, gw_field_errors_t *errs)
{
    static const char *const actions[] = {"Deny", "Allow", NULL};
    const char *name = sor(pr, "name"), *m;
    const json_t *sel = ptr(pr, "selector");
    const char *pnfa = sget(pr, "parameterNotFoundAction");

    if (pr == NULL)
        return;
    if (name[0] != '\0') {
        if ((m = gw_valid_path_segment_name(name)) != NULL)
            gw_ferr_invalid_str(errs, "spec.paramRef.name", name, m);
        if (sel != NULL)
            gw_ferr_forbidden(errs, "spec.paramRef.name",
                              "name and selector are mutually exclusive");
    }
    if (sel != NULL) {
        gw_label_selector_validate(sel, false, "spec.paramRef.selector", errs);
        if (name[0] != '\0')
            gw_ferr_forbidden(errs, "spec.paramRef.selector",
                              "name and selector are mutually exclusive");
    }
    if (name[0] == '\0' && sel == NULL)
        gw_ferr_required(errs, "spec.paramRef", "one of name or selector must be specified");
    if (pnfa == NULL || pnfa[0] == '\0')
        gw_ferr_required(errs, "spec.paramRef.parameterNotFoundAction", NULL);
    else if (strcmp(pnfa, "Deny") != 0 && strcmp(pnfa, "Allow") != 0)
        gw_ferr_not_supported(errs, "spec.paramRef.parameterNotFoundAction", pnfa, actions);
}

static void
validation_actions(const json_t *va, gw_field_errors_t *errs)
{
    static const char *const valid[] = {"Audit", "Deny", "Warn", NULL};
    bool deny = false, warn = false;
    size_t i;
    const json_t *v;

    json_array_foreach(va, i, v)
    {
        const char *a = json_is_string(v) ? json_string_value(v) : "";
        char *p = gw_sprintf("spec.validationActions[%zu]", i);
        bool dup = false;
        if (strcmp(a, "Audit") != 0 && strcmp(a, "Deny") != 0 && strcmp(a, "Warn") != 0)
            gw_ferr_not_supported(errs, p, a, valid);
        for (size_t j = 0; j < i && !dup; j++) {
            const json_t *o = json_array_get(va, j);
            dup = strcmp(json_is_string(o) ? json_string_value(o) : "", a) == 0;
        }
        if (dup)
            gw_ferr_duplicate(errs, p, a);
        deny |= strcmp(a, "Deny") == 0;
        warn |= strcmp(a, "Warn") == 0;
        free(p);
    }
    if (deny && warn)
        gw_admission_invalid_strings(
            errs, "spec.validationActions", "[]admissionregistration.ValidationAction", va,
            "must not contain both Deny and Warn (repeating the same validation failure "
            "information in the API response and headers serves no purpose)");
    if (json_array_size(va) == 0)
        gw_ferr_required(errs, "spec.validationActions",
                         "at least one validation action is required");
}

void
gw_vapb_validate(const json_t *obj, gw_field_errors_t *errs)
{
    const json_t *spec = json_object_get(obj, "spec");
    const char *policy = sor(spec, "policyName"), *m;

    if (policy[0] == '\0')
        gw_ferr_required(errs, "spec.policyName", NULL);
    else if ((m = gw_valid_dns1123_subdomain(policy)) != NULL)
        gw_ferr_invalid_str(errs, "spec.policyName", policy, m);
    gw_policy__param_ref(ptr(spec, "paramRef"), errs);
    /* kube's path has its typo */
    gw_admission_match_resources_validate(ptr(spec, "matchResources"), "spec.matchResouces", errs);
    validation_actions(json_object_get(spec, "validationActions"), errs);
}
