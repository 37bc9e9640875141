/*
 * ValidatingAdmissionPolicy and its bindings: kube's validateValidatingAdmissionPolicySpec,
 * validateValidatingAdmissionPolicyBindingSpec and the status rules, and the CEL compilation
 * kube's validation runs (plugin/cel's CompileCELExpression and the composited compiler of
 * variables) in kube's admission-policy environment.
 */
#include "gw_admission_policy_valid.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cel.h"
#include "gw_admission_rules.h"
#include "gw_alloc.h"
#include "gw_metav1_valid.h"
#include "gw_names.h"

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

/* ---- kube's admission-policy CEL environment ---------------------------------------------- */

#define UNB                                                                                        \
    .max_length = CEL_SCHEMA_UNBOUNDED, .max_items = CEL_SCHEMA_UNBOUNDED,                         \
    .max_properties = CEL_SCHEMA_UNBOUNDED
#define OBJ(P)                                                                                     \
    {                                                                                              \
        .type = CEL_SCHEMA_OBJECT, UNB, .props = (P), .nprops = sizeof(P) / sizeof((P)[0]),        \
        .verbatim_names = true                                                                     \
    }

static const cel_schema_t s_str = {.type = CEL_SCHEMA_STRING, UNB};
static const cel_schema_t s_int = {.type = CEL_SCHEMA_INTEGER, UNB};
static const cel_schema_t s_bool = {.type = CEL_SCHEMA_BOOLEAN, UNB};
static const cel_schema_t s_time = {.type = CEL_SCHEMA_STRING, UNB, .format = "date-time"};
static const cel_schema_t s_dyn = {.type = CEL_SCHEMA_INT_OR_STRING, UNB};
static const cel_schema_t s_strs = {.type = CEL_SCHEMA_ARRAY, UNB, .items = &s_str};
static const cel_schema_t s_str_map = {
    .type = CEL_SCHEMA_OBJECT, UNB, .additional_properties = &s_str};
static const cel_schema_t s_extra = {
    .type = CEL_SCHEMA_OBJECT, UNB, .additional_properties = &s_strs};

/* BuildRequestType: kubernetes.AdmissionRequest without uid, object and oldObject. */
static const cel_schema_prop_t p_gvk[] = {
    {"group", &s_str, true}, {"version", &s_str, true}, {"kind", &s_str, true}};
static const cel_schema_t s_gvk = OBJ(p_gvk);
static const cel_schema_prop_t p_gvr[] = {
    {"group", &s_str, true}, {"version", &s_str, true}, {"resource", &s_str, true}};
static const cel_schema_t s_gvr = OBJ(p_gvr);
static const cel_schema_prop_t p_user[] = {{"username", &s_str, false},
                                           {"uid", &s_str, false},
                                           {"groups", &s_strs, false},
                                           {"extra", &s_extra, false}};
static const cel_schema_t s_user = OBJ(p_user);
static const cel_schema_prop_t p_request[] = {{"kind", &s_gvk, true},
                                              {"resource", &s_gvr, true},
                                              {"subResource", &s_str, false},
                                              {"requestKind", &s_gvk, true},
                                              {"requestResource", &s_gvr, true},
                                              {"requestSubResource", &s_str, false},
                                              {"name", &s_str, true},
                                              {"namespace", &s_str, false},
                                              {"operation", &s_str, true},
                                              {"userInfo", &s_user, true},
                                              {"dryRun", &s_bool, false},
                                              {"options", &s_dyn, false}};
static const cel_schema_t s_request = OBJ(p_request);

/* BuildNamespaceType. */
static const cel_schema_prop_t p_ns_spec[] = {{"finalizers", &s_strs, true}};
static const cel_schema_prop_t p_ns_cond[] = {{"status", &s_str, true},
                                              {"type", &s_str, true},
                                              {"lastTransitionTime", &s_time, true},
                                              {"message", &s_str, true},
                                              {"reason", &s_str, true}};
static const cel_schema_t s_ns_cond = OBJ(p_ns_cond);
static const cel_schema_t s_ns_conds = {.type = CEL_SCHEMA_ARRAY, UNB, .items = &s_ns_cond};
static const cel_schema_prop_t p_ns_status[] = {{"conditions", &s_ns_conds, true},
                                                {"phase", &s_str, true}};
static const cel_schema_prop_t p_ns_meta[] = {{"name", &s_str, true},
                                              {"generateName", &s_str, true},
                                              {"namespace", &s_str, true},
                                              {"labels", &s_str_map, true},
                                              {"annotations", &s_str_map, true},
                                              {"UID", &s_str, true},
                                              {"creationTimestamp", &s_time, true},
                                              {"deletionGracePeriodSeconds", &s_int, true},
                                              {"deletionTimestamp", &s_time, true},
                                              {"generation", &s_int, true},
                                              {"resourceVersion", &s_str, true},
                                              {"finalizers", &s_strs, true}};
static const cel_schema_t s_ns_spec = OBJ(p_ns_spec);
static const cel_schema_t s_ns_status = OBJ(p_ns_status);
static const cel_schema_t s_ns_meta = OBJ(p_ns_meta);
static const cel_schema_prop_t p_namespace[] = {
    {"metadata", &s_ns_meta, true}, {"spec", &s_ns_spec, true}, {"status", &s_ns_status, true}};
static const cel_schema_t s_namespace = OBJ(p_namespace);

/* A variable compiled so far: its name and result type (NULL: dyn). */
typedef struct {
    const char *name;
    char *type;
} var_t;

/* What one policy's compilations share: its declarations and what the old object held. */
typedef struct {
    bool has_params;
    bool composition; /* the spec has variables: `variables` is declared */
    var_t *vars;
    size_t nvars;
    const json_t *old_spec; /* the stored spec on an update, else NULL */
} pctx_t;

/* The schema of a variable's result, for the `variables` object (types without a schema form
 * are dyn). */
static const cel_schema_t *
type_schema(const char *type)
{
    static const cel_schema_t s_double = {.type = CEL_SCHEMA_NUMBER, UNB};
    static const cel_schema_t s_dur = {.type = CEL_SCHEMA_STRING, UNB, .format = "duration"};
    static const cel_schema_t s_bytes = {.type = CEL_SCHEMA_STRING, UNB, .format = "byte"};

    if (type == NULL)
        return &s_dyn;
    if (strcmp(type, "bool") == 0)
        return &s_bool;
    if (strcmp(type, "int") == 0)
        return &s_int;
    if (strcmp(type, "string") == 0)
        return &s_str;
    if (strcmp(type, "double") == 0)
        return &s_double;
    if (strcmp(type, "google.protobuf.Timestamp") == 0)
        return &s_time;
    if (strcmp(type, "google.protobuf.Duration") == 0)
        return &s_dur;
    if (strcmp(type, "bytes") == 0)
        return &s_bytes;
    return &s_dyn;
}

/* createEnvForOpts for (params, authorizer), plus the composition's `variables`. */
static cel_env_t *
policy_env(const pctx_t *c, bool params, bool authorizer)
{
    cel_env_t *env = cel_env_new();

    cel_env_declare(env, "object", cel_env_type(env, "dyn"));
    cel_env_declare(env, "oldObject", cel_env_type(env, "dyn"));
    cel_env_declare(env, "namespaceObject",
                    cel_env_schema_type(env, &s_namespace, "kubernetes.Namespace", false));
    cel_env_declare(env, "request",
                    cel_env_schema_type(env, &s_request, "kubernetes.AdmissionRequest", false));
    if (params)
        cel_env_declare(env, "params", cel_env_type(env, "dyn"));
    if (authorizer) {
        cel_env_declare(env, "authorizer",
                        cel_env_type(env, "kubernetes.authorization.Authorizer"));
        cel_env_declare(env, "authorizer.requestResource",
                        cel_env_type(env, "kubernetes.authorization.ResourceCheck"));
    }
    if (c != NULL && c->composition) {
        cel_schema_prop_t *props = gw_calloc(c->nvars + 1, sizeof(*props));
        for (size_t i = 0; i < c->nvars; i++)
            props[i] = (cel_schema_prop_t){c->vars[i].name, type_schema(c->vars[i].type), true};
        cel_schema_t s = {.type = CEL_SCHEMA_OBJECT,
                          UNB,
                          .props = props,
                          .nprops = c->nvars,
                          .verbatim_names = true};
        cel_env_declare(env, "variables",
                        cel_env_schema_type(env, &s, "kubernetes.variables", false));
        free(props);
    }
    cel_env_set_type_check(env, true);
    return env;
}

/* The issues of a failed check, joined as cel-go's Issues.String() joins them. */
static char *
issues_text(const cel_check_t *c)
{
    char *all = gw_strdup("");

    for (size_t i = 0; i < c->nissues; i++) {
        char *next = gw_sprintf("%s%s%s", all, i > 0 ? "\n" : "", c->issues[i].message);
        free(all);
        all = next;
    }
    return all;
}

/* A checked type as cel-go's Type.String() names it (null is "null_type"). */
static const char *
go_type(const char *t)
{
    if (t == NULL)
        return "dyn";
    return strcmp(t, "null") == 0 ? "null_type" : t;
}

/* Whether result type `got` is one of `want` (NULL: any type). */
static bool
type_ok(const char *got, const char *const *want)
{
    if (want == NULL)
        return true;
    for (size_t i = 0; want[i] != NULL; i++)
        if (strcmp(got, want[i]) == 0)
            return true;
    return false;
}

/* "must evaluate to bool but got int", "must evaluate to one of [string null_type] but ...". */
static char *
type_reason(const char *got, const char *const *want)
{
    char *list, *out;

    if (want[1] == NULL)
        return gw_sprintf("must evaluate to %s but got %s", want[0], got);
    list = gw_strdup(want[0]);
    for (size_t i = 1; want[i] != NULL; i++) {
        char *next = gw_sprintf("%s %s", list, want[i]);
        free(list);
        list = next;
    }
    out = gw_sprintf("must evaluate to one of [%s] but got %s", list, got);
    free(list);
    return out;
}

/* CompileCELExpression: the detail of its error (malloc'd), or NULL with *type set to the
 * result type (malloc'd). */
static char *
compile(const cel_env_t *env, const char *src, const char *const *want, char **type)
{
    cel_check_t c;
    char *detail = NULL;

    *type = NULL;
    if (cel_check(env, src, &c) != 0) {
        char *all = issues_text(&c);
        detail = gw_sprintf("compilation failed: %s", all);
        free(all);
    } else if (!type_ok(go_type(c.type), want)) {
        detail = type_reason(go_type(c.type), want);
    } else {
        cel_program_t *p = NULL;
        cel_issue_t issue = {0};
        if (cel_compile(env, src, &p, &issue) != 0)
            detail = gw_sprintf("compilation failed: %s", issue.message ? issue.message : "");
        else
            *type = gw_strdup(go_type(c.type));
        cel_issue_clear(&issue);
        cel_program_free(p);
    }
    cel_check_clear(&c);
    return detail;
}

/* Whether the old spec's array `member` has an element whose `key` is `src` (kube's
 * preexisting expressions: compiled in the stored-expressions environment). */
static bool
preexisting(const pctx_t *c, const char *member, const char *key, const char *src)
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

/* validateCELCondition: compile `src` and report an error as Invalid(path, shown, detail). An
 * expression the stored object already held stays valid: kgate has no older environment to
 * compile it in, and it was accepted once. Returns the result type (malloc'd) or NULL. */
static char *
check_expr(const pctx_t *c, bool params, bool authorizer, const char *src, const char *shown,
           const char *const *want, bool stored, const char *path, gw_field_errors_t *errs)
{
    cel_env_t *env = policy_env(c, params, authorizer);
    char *type, *detail = compile(env, src, want, &type);

    cel_env_free(env);
    if (detail != NULL && !stored)
        gw_ferr_invalid_str(errs, path, shown, detail);
    free(detail);
    return type;
}

/* ---- the policy's spec ------------------------------------------------------------------- */

static const char *const want_bool[] = {"bool", NULL};
static const char *const want_string[] = {"string", NULL};
static const char *const want_audit[] = {"string", "null_type", NULL};

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

static void
param_kind(const json_t *pk, const char *path, gw_field_errors_t *errs)
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
match_condition(const pctx_t *c, const json_t *mc, const char *path, gw_field_errors_t *errs)
{
    const char *src = sor(mc, "expression"), *name = sor(mc, "name");
    char *p = child(path, "expression");

    if (blank(src)) {
        gw_ferr_required(errs, p, NULL);
    } else {
        /* kube compiles the trimmed text, without the composition's variables */
        char *t = trim(src);
        bool stored = preexisting(c, "matchConditions", "expression", t);
        free(check_expr(NULL, c->has_params, true, t, t, want_bool, stored, p, errs));
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

static void
match_conditions(const pctx_t *c, const json_t *list, const char *path, gw_field_errors_t *errs)
{
    size_t i;
    const json_t *mc;

    if (json_array_size(list) > MAX_MATCH_CONDITIONS)
        gw_ferr_too_many(errs, path, json_array_size(list), MAX_MATCH_CONDITIONS);
    json_array_foreach(list, i, mc)
    {
        char *p = gw_sprintf("%s[%zu]", path, i);
        const char *name = sor(mc, "name");
        match_condition(c, mc, p, errs);
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

/* validateVariable; the composition stores the variable's type for what follows. */
static void
variable(pctx_t *c, const json_t *v, const char *path, gw_field_errors_t *errs)
{
    const char *name = sor(v, "name"), *src = sor(v, "expression");
    char *p = child(path, "name"), *type = NULL;

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
        type = check_expr(c, c->has_params, true, src, src, NULL, stored, p, errs);
        size_t k = 0;
        while (k < c->nvars && strcmp(c->vars[k].name, name) != 0)
            k++;
        if (blank(name)) {
            free(type);
        } else if (k < c->nvars) {
            /* a later variable of the same name replaces the field */
            free(c->vars[k].type);
            c->vars[k].type = type;
        } else {
            c->vars = gw_realloc(c->vars, (c->nvars + 1) * sizeof(*c->vars));
            c->vars[c->nvars++] = (var_t){name, type};
        }
    }
    free(p);
}

static void
validation(const pctx_t *c, const json_t *v, const char *path, gw_field_errors_t *errs)
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
        free(check_expr(c, c->has_params, true, src, src, want_bool, stored, p, errs));
    }
    free(p);
    p = child(path, "messageExpression");
    if (mexpr[0] != '\0' && blank(mexpr)) {
        gw_ferr_invalid_str(errs, p, mexpr, "must be non-empty if specified");
    } else if (mexpr[0] != '\0') {
        stored = preexisting(c, "validations", "messageExpression", mexpr);
        free(check_expr(c, c->has_params, false, mexpr, mexpr, want_string, stored, p, errs));
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
audit_annotation(const pctx_t *c, const char *policy, const json_t *a, const char *path,
                 gw_field_errors_t *errs)
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
        bool stored = preexisting(c, "auditAnnotations", "valueExpression", src);
        free(check_expr(c, c->has_params, true, t, src, want_audit, stored, p, errs));
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
audit_annotations(const pctx_t *c, const char *policy, const json_t *list, gw_field_errors_t *errs)
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
        audit_annotation(c, policy, a, p, errs);
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

static void
match_constraints(const json_t *spec, gw_field_errors_t *errs)
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
    pctx_t c = {.has_params = pk != NULL,
                .composition = json_array_size(vars) > 0,
                .old_spec = old != NULL ? json_object_get(old, "spec") : NULL};
    size_t i;
    const json_t *e;

    if (fp == NULL)
        gw_ferr_required(errs, "spec.failurePolicy", NULL);
    else
        gw_admission_failure_policy_validate(json_is_string(fp) ? json_string_value(fp) : "",
                                             "spec.failurePolicy", errs);
    if (pk != NULL)
        param_kind(pk, "spec.paramKind", errs);
    match_constraints(spec, errs);
    if (check_conditions)
        match_conditions(&c, json_object_get(spec, "matchConditions"), "spec.matchConditions",
                         errs);
    json_array_foreach(vars, i, e)
    {
        char *p = gw_sprintf("spec.variables[%zu]", i);
        variable(&c, e, p, errs);
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
            validation(&c, e, p, errs);
            free(p);
        }
        audit_annotations(&c, policy, auds, errs);
    }
    for (i = 0; i < c.nvars; i++)
        free(c.vars[i].type);
    free(c.vars);
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

void
gw_vap_validate_update(const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    const json_t *spec = json_object_get(obj, "spec"), *ospec = json_object_get(old, "spec");
    /* ignoreValidatingAdmissionPolicyMatchConditions */
    bool unchanged =
        same(json_object_get(spec, "paramKind"), json_object_get(ospec, "paramKind")) &&
        same(json_object_get(spec, "matchConditions"), json_object_get(ospec, "matchConditions"));

    policy_spec(obj, old, !unchanged, errs);
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

static void
param_ref(const json_t *pr, gw_field_errors_t *errs)
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
    param_ref(ptr(spec, "paramRef"), errs);
    /* kube's path has its typo */
    gw_admission_match_resources_validate(ptr(spec, "matchResources"), "spec.matchResouces", errs);
    validation_actions(json_object_get(spec, "validationActions"), errs);
}
