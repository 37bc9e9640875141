/*
 * Compiling a ValidatingAdmissionPolicy: kube-apiserver 1.32's admission CEL environment and
 * the order in which its validating plugin compiles a policy's expressions.
 */
#include "gw_vap_compile.h"

#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_vap_int.h"

/* ---- kube's declared types for `request` and `namespaceObject` (compile.go) -------------- */

#define SCH(k, ...)                                                                                \
    {                                                                                              \
        .type = (k), .max_length = CEL_SCHEMA_UNBOUNDED, .max_items = CEL_SCHEMA_UNBOUNDED,        \
        .max_properties = CEL_SCHEMA_UNBOUNDED, __VA_ARGS__                                        \
    }
#define PROPS(arr) .props = (arr), .nprops = sizeof(arr) / sizeof((arr)[0]), .verbatim_names = true

static const cel_schema_t s_string = SCH(CEL_SCHEMA_STRING);
static const cel_schema_t s_int = SCH(CEL_SCHEMA_INTEGER);
static const cel_schema_t s_bool = SCH(CEL_SCHEMA_BOOLEAN);
static const cel_schema_t s_dyn = SCH(CEL_SCHEMA_INT_OR_STRING);
static const cel_schema_t s_time = SCH(CEL_SCHEMA_STRING, .format = "date-time");
static const cel_schema_t s_strings = SCH(CEL_SCHEMA_ARRAY, .items = &s_string);
static const cel_schema_t s_string_map = SCH(CEL_SCHEMA_OBJECT, .additional_properties = &s_string);
static const cel_schema_t s_extra = SCH(CEL_SCHEMA_OBJECT, .additional_properties = &s_strings);

static const cel_schema_prop_t gvk_props[] = {
    {"group", &s_string, true}, {"version", &s_string, true}, {"kind", &s_string, true}};
static const cel_schema_t s_gvk = SCH(CEL_SCHEMA_OBJECT, PROPS(gvk_props));
static const cel_schema_prop_t gvr_props[] = {
    {"group", &s_string, true}, {"version", &s_string, true}, {"resource", &s_string, true}};
static const cel_schema_t s_gvr = SCH(CEL_SCHEMA_OBJECT, PROPS(gvr_props));
static const cel_schema_prop_t user_props[] = {{"username", &s_string, false},
                                               {"uid", &s_string, false},
                                               {"groups", &s_strings, false},
                                               {"extra", &s_extra, false}};
static const cel_schema_t s_user = SCH(CEL_SCHEMA_OBJECT, PROPS(user_props));
static const cel_schema_prop_t request_props[] = {
    {"kind", &s_gvk, true},
    {"resource", &s_gvr, true},
    {"subResource", &s_string, false},
    {"requestKind", &s_gvk, true},
    {"requestResource", &s_gvr, true},
    {"requestSubResource", &s_string, false},
    {"name", &s_string, true},
    {"namespace", &s_string, false},
    {"operation", &s_string, true},
    {"userInfo", &s_user, true},
    {"dryRun", &s_bool, false},
    {"options", &s_dyn, false},
};
static const cel_schema_t s_request = SCH(CEL_SCHEMA_OBJECT, PROPS(request_props));

static const cel_schema_prop_t ns_spec_props[] = {{"finalizers", &s_strings, true}};
static const cel_schema_t s_ns_spec = SCH(CEL_SCHEMA_OBJECT, PROPS(ns_spec_props));
static const cel_schema_prop_t ns_cond_props[] = {
    {"status", &s_string, true},           {"type", &s_string, true},
    {"lastTransitionTime", &s_time, true}, {"message", &s_string, true},
    {"reason", &s_string, true},
};
static const cel_schema_t s_ns_cond = SCH(CEL_SCHEMA_OBJECT, PROPS(ns_cond_props));
static const cel_schema_t s_ns_conds = SCH(CEL_SCHEMA_ARRAY, .items = &s_ns_cond);
static const cel_schema_prop_t ns_status_props[] = {{"conditions", &s_ns_conds, true},
                                                    {"phase", &s_string, true}};
static const cel_schema_t s_ns_status = SCH(CEL_SCHEMA_OBJECT, PROPS(ns_status_props));
/* "UID" as kube declares it (the document itself says "uid"). */
static const cel_schema_prop_t ns_meta_props[] = {
    {"name", &s_string, true},
    {"generateName", &s_string, true},
    {"namespace", &s_string, true},
    {"labels", &s_string_map, true},
    {"annotations", &s_string_map, true},
    {"UID", &s_string, true},
    {"creationTimestamp", &s_time, true},
    {"deletionGracePeriodSeconds", &s_int, true},
    {"deletionTimestamp", &s_time, true},
    {"generation", &s_int, true},
    {"resourceVersion", &s_string, true},
    {"finalizers", &s_strings, true},
};
static const cel_schema_t s_ns_meta = SCH(CEL_SCHEMA_OBJECT, PROPS(ns_meta_props));
static const cel_schema_prop_t ns_props[] = {
    {"metadata", &s_ns_meta, true}, {"spec", &s_ns_spec, true}, {"status", &s_ns_status, true}};
static const cel_schema_t s_namespace = SCH(CEL_SCHEMA_OBJECT, PROPS(ns_props));

/* ---- variables' types ------------------------------------------------------------------- */

/* The schema standing for a checked type's text (cel-go's printing), so that `variables`
 * can be declared as kube's object type of the earlier variables' output types. What a
 * schema cannot say (objects, uint, null_type, library types) becomes dyn. */
static const cel_schema_t *
type_schema(cel_arena_t *a, const char **p)
{
    const char *s = *p;
    size_t n = strcspn(s, "(), ");
    const cel_schema_t *params[2] = {NULL, NULL};
    int nparams = 0;
    *p = s + n;
    if (**p == '(') {
        do {
            (*p)++;
            while (**p == ' ')
                (*p)++;
            const cel_schema_t *t = type_schema(a, p);
            if (nparams < 2)
                params[nparams] = t;
            nparams++;
        } while (**p == ',');
        if (**p == ')')
            (*p)++;
    }
    cel_schema_t *out = cel_arena_alloc(a, sizeof(*out));
    *out = (cel_schema_t)SCH(CEL_SCHEMA_INT_OR_STRING);
#define IS(name) (n == strlen(name) && memcmp(s, name, n) == 0)
    if (IS("bool"))
        out->type = CEL_SCHEMA_BOOLEAN;
    else if (IS("int"))
        out->type = CEL_SCHEMA_INTEGER;
    else if (IS("double"))
        out->type = CEL_SCHEMA_NUMBER;
    else if (IS("string") || IS("bytes") || IS("google.protobuf.Timestamp") ||
             IS("google.protobuf.Duration")) {
        out->type = CEL_SCHEMA_STRING;
        out->format = IS("bytes")    ? "byte"
                      : IS("string") ? NULL
                      : s[16] == 'T' ? "date-time"
                                     : "duration";
    } else if (IS("list") && nparams == 1) {
        out->type = CEL_SCHEMA_ARRAY;
        out->items = params[0];
    } else if (IS("map") && nparams == 2 && params[0]->type == CEL_SCHEMA_STRING &&
               params[0]->format == NULL) {
        out->type = CEL_SCHEMA_OBJECT;
        out->additional_properties = params[1];
    }
#undef IS
    return out;
}

/* Declare `variables` as an object type of the first `n` variables (kube's
 * "kubernetes.variables", which grows as each variable compiles). */
static void
declare_variables(cel_env_t *env, const cel_schema_prop_t *props, size_t n)
{
    cel_schema_t s = SCH(CEL_SCHEMA_OBJECT, .props = props, .nprops = n, .verbatim_names = true);
    const cel_decltype_t *t = cel_env_schema_type(env, &s, "kubernetes.variables", false);
    cel_env_declare(env, "variables", t != NULL ? t : cel_env_type(env, "dyn"));
}

/* ---- environments ------------------------------------------------------------------------- */

static cel_env_t *
new_env(gw_vap_compiled_t *c, const gw_vap_schemas_t *s, bool authorizer)
{
    cel_env_t *env = cel_env_new();
    const cel_decltype_t *dyn = cel_env_type(env, "dyn");
    const cel_decltype_t *object = dyn, *params = dyn;
    cel_env_set_type_check(env, true);
    if (s != NULL && s->object != NULL)
        object =
            cel_env_schema_type(env, s->object, s->object_name ? s->object_name : "Object", true);
    if (s != NULL && s->params != NULL)
        params =
            cel_env_schema_type(env, s->params, s->params_name ? s->params_name : "Params", true);
    object = object != NULL ? object : dyn;
    params = params != NULL ? params : dyn;
    cel_env_declare(env, "object", object);
    cel_env_declare(env, "oldObject", object);
    cel_env_declare(env, "namespaceObject",
                    cel_env_schema_type(env, &s_namespace, "kubernetes.Namespace", false));
    cel_env_declare(env, "request",
                    cel_env_schema_type(env, &s_request, "kubernetes.AdmissionRequest", false));
    /* The type checker declares `params` only when it found the param kind's schema. */
    if (c->has_params && (!c->type_checking || params != dyn))
        cel_env_declare(env, "params", params);
    if (authorizer) {
        cel_env_declare(env, "authorizer",
                        cel_env_type(env, "kubernetes.authorization.Authorizer"));
        cel_env_declare(env, "authorizer.requestResource",
                        cel_env_type(env, "kubernetes.authorization.ResourceCheck"));
    }
    if (authorizer) {
        c->object_type = object != dyn ? object : NULL;
        c->params_type = params != dyn ? params : NULL;
    }
    return env;
}

/* ---- expressions -------------------------------------------------------------------------- */

/* Return types as kube's ExpressionAccessors state them (ReturnTypes()); NULL: any. */
static const char *const want_bool[] = {"bool", NULL};
static const char *const want_string[] = {"string", NULL};
static const char *const want_audit[] = {"string", "null_type", NULL};

static char *
return_type_error(const char *const *want, const char *got)
{
    gw_buf_t b = {0};
    if (want[1] == NULL) {
        gw_buf_printf(&b, "must evaluate to %s but got %s", want[0], got);
        return gw_buf_take(&b);
    }
    gw_buf_str(&b, "must evaluate to one of [");
    for (size_t i = 0; want[i] != NULL; i++)
        gw_buf_printf(&b, "%s%s", i ? " " : "", want[i]);
    gw_buf_printf(&b, "] but got %s", got);
    return gw_buf_take(&b);
}

static bool
type_allowed(const char *const *want, const char *got)
{
    if (want == NULL)
        return true;
    for (size_t i = 0; want[i] != NULL; i++)
        if (strcmp(want[i], got) == 0)
            return true;
    return false;
}

/* A checked type's text as kube prints it (cel.Type's String(), not the checker's format):
 * they differ only for null. */
static const char *
kube_type_name(const char *checked)
{
    return strcmp(checked, "null") == 0 ? "null_type" : checked;
}

/* Compile `src` as kube's CompileCELExpression does; `*type` (when not NULL) receives the
 * checked output type (malloc'd) of an expression that compiled. */
void
gw_vap__compile_expr(const cel_env_t *env, const char *src, const char *const *want,
                     gw_vap__expr_t *e, char **type, bool type_checking)
{
    cel_check_t chk = {0};
    cel_issue_t issue = {0};
    e->src = gw_strdup(src);
    if (cel_check(env, src, &chk) != 0) {
        gw_buf_t b = {0};
        if (!type_checking)
            gw_buf_str(&b, "compilation failed: ");
        for (size_t i = 0; i < chk.nissues; i++)
            gw_buf_printf(&b, "%s%s", i ? "\n" : "", chk.issues[i].message);
        e->error = gw_buf_take(&b);
    } else if (!type_checking && !type_allowed(want, kube_type_name(chk.type))) {
        e->error = return_type_error(want, kube_type_name(chk.type));
    } else if (cel_compile(env, src, &e->prog, &issue) != 0) {
        e->error = gw_sprintf("compilation failed: %s", issue.message);
        cel_issue_clear(&issue);
    } else if (type != NULL) {
        *type = gw_strdup(chk.type);
    }
    cel_check_clear(&chk);
}

static const char *
str_at(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The white space strings.TrimSpace trims (its ASCII part). */
static const char white[] = " \t\n\v\f\r";

static bool
blank(const char *s)
{
    return s == NULL || s[strspn(s, white)] == '\0';
}

/* strings.TrimSpace of `s` as a span: where it starts, its length in *len. */
static const char *
trim_span(const char *s, size_t *len)
{
    s += strspn(s, white);
    *len = strlen(s);
    while (*len > 0 && strchr(white, s[*len - 1]) != NULL)
        (*len)--;
    return s;
}

/* Compile variable `src` into `e`; the schema of what it yields (dyn when it does not compile)
 * is allocated in `a`. */
static const cel_schema_t *
compile_variable(const gw_vap_compiled_t *c, cel_arena_t *a, const char *src, gw_vap__expr_t *e)
{
    char *type = NULL;
    gw_vap__compile_expr(c->env, src != NULL ? src : "", NULL, e, &type, c->type_checking);
    const char *p = type != NULL ? type : "dyn";
    const cel_schema_t *s = type_schema(a, &p);
    free(type);
    return s;
}

/* The field of `variables` a variable named `name` takes among the `n` declared: kube's
 * composition keeps its variables by name (the plugin's, the validation's and the type
 * checker's alike), so a later one replaces the earlier one's field (and its evaluation reads
 * the last of a name). */
static size_t
variable_field(const cel_schema_prop_t *props, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(props[k].name, name) == 0)
            return k;
    return n;
}

static void
compile_variables(gw_vap_compiled_t *c, const json_t *vars, bool validating)
{
    cel_arena_t *a = cel_arena_new();
    size_t nfields = 0;
    c->nvars = json_array_size(vars);
    c->vars = gw_calloc(c->nvars + 1, sizeof(*c->vars));
    cel_schema_prop_t *props = gw_calloc(c->nvars + 1, sizeof(*props));
    declare_variables(c->env, props, 0);
    for (size_t i = 0; i < c->nvars; i++) {
        const json_t *v = json_array_get(vars, i);
        const char *name = str_at(v, "name"), *expr = str_at(v, "expression");
        c->vars[i].name = gw_strdup(name ? name : "");
        if (validating && blank(expr))
            continue;
        const cel_schema_t *s = compile_variable(c, a, expr, &c->vars[i].expr);
        size_t k = variable_field(props, nfields, c->vars[i].name);
        props[k] = (cel_schema_prop_t){c->vars[i].name, s, true};
        nfields += k == nfields;
        declare_variables(c->env, props, nfields);
    }
    declare_variables(c->env_msg, props, nfields);
    free(props);
    cel_arena_free(a);
}

/* `trim`: the text compiled is strings.TrimSpace's (kube's validation trims some lists). */
static gw_vap__named_t *
compile_named(const gw_vap_compiled_t *c, const json_t *list, const char *key, const char *expr_key,
              const char *const *want, bool trim, size_t *n)
{
    *n = json_array_size(list);
    gw_vap__named_t *out = gw_calloc(*n + 1, sizeof(*out));
    for (size_t i = 0; i < *n; i++) {
        const json_t *m = json_array_get(list, i);
        const char *name = str_at(m, key), *expr = str_at(m, expr_key);
        const char *text = expr != NULL ? expr : "";
        size_t len = strlen(text);
        if (trim)
            text = trim_span(text, &len);
        char *src = gw_strndup(text, len);
        out[i].name = gw_strdup(name ? name : "");
        gw_vap__compile_expr(c->env, src, want, &out[i].expr, NULL, c->type_checking);
        free(src);
    }
    return out;
}

static void
compile_validations(gw_vap_compiled_t *c, const json_t *list)
{
    const cel_env_t *env = c->env, *env_msg = c->env_msg;
    c->nvalidations = json_array_size(list);
    c->validations = gw_calloc(c->nvalidations + 1, sizeof(*c->validations));
    for (size_t i = 0; i < c->nvalidations; i++) {
        const json_t *v = json_array_get(list, i);
        gw_vap__validation_t *out = &c->validations[i];
        const char *expr = str_at(v, "expression"), *mexpr = str_at(v, "messageExpression");
        gw_vap__compile_expr(env, expr ? expr : "", want_bool, &out->expr, NULL, c->type_checking);
        if (mexpr != NULL && *mexpr != '\0')
            gw_vap__compile_expr(env_msg, mexpr, want_string, &out->message_expr, NULL,
                                 c->type_checking);
        if (str_at(v, "message") != NULL)
            out->message = gw_strdup(str_at(v, "message"));
        if (str_at(v, "reason") != NULL && *str_at(v, "reason") != '\0')
            out->reason = gw_strdup(str_at(v, "reason"));
    }
}

gw_vap_compiled_t *
gw_vap_compile(const json_t *policy, const gw_vap_schemas_t *schemas)
{
    gw_vap_compiled_t *c = gw_calloc(1, sizeof(*c));
    const json_t *spec = json_object_get(policy, "spec");
    const char *name = str_at(json_object_get(policy, "metadata"), "name");
    const char *fp = str_at(spec, "failurePolicy");
    c->name = gw_strdup(name ? name : "");
    c->ignore = fp != NULL && strcmp(fp, "Ignore") == 0;
    c->has_params = json_is_object(json_object_get(spec, "paramKind"));
    c->type_checking = schemas != NULL && schemas->type_checking;
    bool validating = schemas != NULL && schemas->validating;
    const json_t *vars = json_object_get(spec, "variables");
    const json_t *matches = json_object_get(spec, "matchConditions");
    c->env = new_env(c, schemas, true);
    /* kube's type checker compiles messageExpressions in the validations' environment. */
    c->env_msg = new_env(c, schemas, c->type_checking);
    /* kube's validation compiles matchConditions with its stateless compiler: no `variables`. */
    if (validating)
        c->matches = compile_named(c, matches, "name", "expression", want_bool, true, &c->nmatches);
    /* Variables first (each sees the earlier ones), then what uses them, as compilePolicy; kube's
     * validation composes only a spec that has variables. */
    if (!validating || json_array_size(vars) > 0)
        compile_variables(c, vars, validating);
    if (!validating)
        c->matches =
            compile_named(c, matches, "name", "expression", want_bool, false, &c->nmatches);
    compile_validations(c, json_object_get(spec, "validations"));
    c->audits = compile_named(c, json_object_get(spec, "auditAnnotations"), "key",
                              "valueExpression", want_audit, validating, &c->naudits);
    return c;
}

void
gw_vap__expr_clear(gw_vap__expr_t *e)
{
    free(e->src);
    free(e->error);
    cel_program_free(e->prog);
}

static void
named_free(gw_vap__named_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(list[i].name);
        gw_vap__expr_clear(&list[i].expr);
    }
    free(list);
}

void
gw_vap_compiled_free(gw_vap_compiled_t *c)
{
    if (c == NULL)
        return;
    named_free(c->vars, c->nvars);
    named_free(c->matches, c->nmatches);
    named_free(c->audits, c->naudits);
    for (size_t i = 0; i < c->nvalidations; i++) {
        gw_vap__expr_clear(&c->validations[i].expr);
        gw_vap__expr_clear(&c->validations[i].message_expr);
        free(c->validations[i].message);
        free(c->validations[i].reason);
    }
    free(c->validations);
    cel_env_free(c->env);
    cel_env_free(c->env_msg);
    free(c->name);
    free(c);
}

const char *
gw_vap_compiled_name(const gw_vap_compiled_t *c)
{
    return c->name;
}

bool
gw_vap_compiled_ignores_failures(const gw_vap_compiled_t *c)
{
    return c->ignore;
}

bool
gw_vap_compiled_has_params(const gw_vap_compiled_t *c)
{
    return c->has_params;
}

size_t
gw_vap_compiled_count(const gw_vap_compiled_t *c, gw_vap_list_t list)
{
    switch (list) {
    case GW_VAP_VARIABLE:
        return c->nvars;
    case GW_VAP_MATCH_CONDITION:
        return c->nmatches;
    case GW_VAP_AUDIT_ANNOTATION:
        return c->naudits;
    default:
        return c->nvalidations;
    }
}

const char *
gw_vap_compile_error(const gw_vap_compiled_t *c, gw_vap_list_t list, size_t i)
{
    if (i >= gw_vap_compiled_count(c, list))
        return NULL;
    switch (list) {
    case GW_VAP_VARIABLE:
        return c->vars[i].expr.error;
    case GW_VAP_MATCH_CONDITION:
        return c->matches[i].expr.error;
    case GW_VAP_AUDIT_ANNOTATION:
        return c->audits[i].expr.error;
    case GW_VAP_VALIDATION:
        return c->validations[i].expr.error;
    default:
        return c->validations[i].message_expr.error;
    }
}
