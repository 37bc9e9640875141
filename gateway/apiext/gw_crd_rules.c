/*
 * x-kubernetes-validations rules compiled per schema node (kube's compilation.go); they run in
 * gw_crd_rules_eval.c.
 */
#include "gw_crd_rules.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_crd_rules_int.h"
#include "gw_crd_schema.h"
#include "gw_schema_cel.h"

/* kube names the type of `self` selfType<n> (generateUniqueSelfTypeName). */
#define SELF_TYPE "selfType0"

/* ---- compiling ------------------------------------------------------------------------------ */

static const char *
str_at(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? s : "";
}

static bool
blank(const char *s)
{
    return s[strspn(s, " \t\n\v\f\r")] == '\0';
}

/* What the CEL library has beyond kube 1.32's environment for new CRD rules (its base
 * environment at compatibility version 1.31): cel-go's ext lists, math and encoders, string
 * reverse, two-variable comprehensions' map building, the semver library and string() of a
 * quantity. */
static const char *const not_in_kube[] = {"string_reverse",
                                          "list_slice",
                                          "list_flatten",
                                          "list_distinct",
                                          "lists_range",
                                          "list_reverse",
                                          "list_sort",
                                          "math_",
                                          "base64_",
                                          "string_to_semver",
                                          "string_bool_to_semver",
                                          "is_semver",
                                          "semver_",
                                          "@mapInsert",
                                          "quantity_to_string",
                                          NULL};

/* Environments of a node: [0] self, [1] self and oldSelf, [2] self and optional oldSelf. */
static void
node_envs(gw_arena_t *a, const cel_schema_t *cs, bool root, cel_env_t **envs,
          const cel_decltype_t **self)
{
    *self = NULL;
    for (int i = 0; i < 3; i++) {
        cel_env_t *env = cel_env_new();
        gw_arena_defer(a, (void (*)(void *))cel_env_free, env);
        cel_env_set_type_check(env, true);
        cel_env_hide_overloads(env, not_in_kube);
        const cel_decltype_t *t = cs != NULL ? cel_env_schema_type(env, cs, SELF_TYPE, root) : NULL;
        envs[i] = env;
        if (t == NULL)
            continue;
        cel_env_declare(env, "self", t);
        if (i == 1)
            cel_env_declare(env, "oldSelf", t);
        if (i == 2)
            cel_env_declare(env, "oldSelf", cel_env_optional_type(env, t));
        if (i == 1)
            *self = t;
    }
}

/* issues.String(): each issue's report, one after another. */
static char *
issues_text(const char *prefix, const cel_check_t *chk)
{
    gw_buf_t b = {0};
    gw_buf_str(&b, prefix);
    for (size_t i = 0; i < chk->nissues; i++) {
        if (i > 0)
            gw_buf_char(&b, '\n');
        gw_buf_str(&b, chk->issues[i].message);
    }
    return gw_buf_take(&b);
}

/* Check and compile `src` to a program of type `want`: NULL and *prog set, or kube's detail. */
static char *
compile_expr(const cel_env_t *env, const char *src, const char *want, const char *prefix,
             cel_program_t **prog, uint64_t *cost)
{
    cel_check_t chk = {0};
    cel_issue_t issue = {0};
    char *err = NULL;

    *prog = NULL;
    if (cel_check(env, src, &chk) != 0) {
        err = issues_text(prefix, &chk);
    } else if (chk.type == NULL || strcmp(chk.type, want) != 0) {
        err = strcmp(want, "bool") == 0 ? gw_strdup("cel expression must evaluate to a bool")
                                        : gw_strdup("messageExpression must evaluate to a string");
    } else if (cel_compile(env, src, prog, &issue) != 0) {
        err = gw_sprintf("%s%s", prefix, issue.message);
        cel_issue_clear(&issue);
    } else {
        *cost = chk.cost.max;
    }
    cel_check_clear(&chk);
    return err;
}

/* Whether the rule names oldSelf: it does not check where oldSelf is undeclared. */
static bool
uses_old_self(const cel_env_t *env, const char *src)
{
    cel_check_t chk = {0};
    bool uses = false;
    if (cel_check(env, src, &chk) != 0)
        for (size_t i = 0; i < chk.nissues && !uses; i++)
            uses = strstr(chk.issues[i].message, "undeclared reference to 'oldSelf'") != NULL;
    cel_check_clear(&chk);
    return uses;
}

/* ValidFieldPath's text of a rule's fieldPath (".a.b", ".a['b']", ".a[\"b\"]") resolved through
 * properties (a.b) and map values (a[b]); NULL when it does not resolve. */
static char *
normalize_path(const gw_schema_t *s, const char *fp)
{
    gw_buf_t b = {0};
    const char *p = fp;
    while (*p != '\0' && s != NULL) {
        char name[256];
        size_t n;
        if (p[0] == '.') {
            n = strcspn(p + 1, ".[");
            p += 1;
        } else if (p[0] == '[' && (p[1] == '\'' || p[1] == '"')) {
            const char *end = strchr(p + 2, p[1]);
            if (end == NULL || end[1] != ']')
                break;
            p += 2;
            n = (size_t)(end - p);
        } else {
            break;
        }
        if (n == 0 || n >= sizeof(name))
            break;
        memcpy(name, p, n);
        name[n] = '\0';
        p += n + (p[-1] == '.' ? 0 : 2);
        const gw_schema_field_t *f = gw_schema_field(s, name);
        if (f != NULL)
            gw_buf_printf(&b, "%s%s", b.len > 0 ? "." : "", name);
        else if (s->values != NULL)
            gw_buf_printf(&b, "[%s]", name);
        else
            break;
        s = f != NULL ? f->schema : s->values;
    }
    if (*p != '\0' || b.len == 0) {
        gw_buf_free(&b);
        return NULL;
    }
    return gw_buf_take(&b);
}

static void
read_rule(gw_crd__rule_t *r, const json_t *j)
{
    r->rule = str_at(j, "rule");
    r->message = str_at(j, "message");
    r->message_expr = str_at(j, "messageExpression");
    r->reason = str_at(j, "reason");
    r->field_path = str_at(j, "fieldPath");
    r->has_reason = json_is_string(json_object_get(j, "reason"));
    r->has_optional = json_is_boolean(json_object_get(j, "optionalOldSelf"));
    r->optional_old_self = json_is_true(json_object_get(j, "optionalOldSelf"));
}

static void
free_rule(void *p)
{
    gw_crd__rule_t *r = p;
    cel_program_free(r->prog);
    cel_program_free(r->msg_prog);
    free(r->error);
    free(r->msg_error);
    free(r->norm_path);
}

/* compileRule: the rule, then its messageExpression, then its fieldPath. */
static void
compile_rule(gw_arena_t *a, gw_crd__rule_t *r, const gw_schema_t *s, cel_env_t *const *envs)
{
    const cel_env_t *env = envs[r->optional_old_self ? 2 : 1];
    gw_arena_defer(a, free_rule, r);
    if (blank(r->rule))
        return;
    r->error = compile_expr(env, r->rule, "bool", "compilation failed: ", &r->prog, &r->cost);
    if (r->error != NULL)
        return;
    r->uses_old_self = uses_old_self(envs[0], r->rule);
    if (r->message_expr[0] != '\0')
        r->msg_error =
            compile_expr(env, r->message_expr, "string",
                         "messageExpression compilation failed: ", &r->msg_prog, &r->msg_cost);
    if (r->field_path[0] != '\0')
        r->norm_path = normalize_path(s, r->field_path);
}

void
gw_crd__rules_node(gw_arena_t *a, const gw_schema_t *s, bool resource_root, gw_crd__node_t *out)
{
    const json_t *vals = s->rules != NULL ? s->rules->validations : NULL;
    gw_arena_t *tmp = gw_arena_new();
    const cel_schema_t *cs = resource_root ? gw_schema_cel_resource(tmp, s) : gw_schema_cel(tmp, s);
    cel_env_t *envs[3];

    *out = (gw_crd__node_t){.schema = s};
    out->type = s->rules != NULL && s->rules->type != NULL ? s->rules->type : "";
    node_envs(a, cs, resource_root, envs, &out->self_type);
    gw_arena_free(tmp);
    out->min_size = cel_decltype_min_size(out->self_type);
    out->n_rules = json_array_size(vals);
    out->rules = gw_arena_calloc(a, (out->n_rules + 1) * sizeof(*out->rules));
    for (size_t i = 0; i < out->n_rules; i++) {
        read_rule(&out->rules[i], json_array_get(vals, i));
        if (out->self_type != NULL)
            compile_rule(a, &out->rules[i], s, envs);
    }
}

char *
gw_crd__rule_gostring(const gw_crd__rule_t *r)
{
    char *q[4] = {gw_ferr_quote(r->rule), gw_ferr_quote(r->message), gw_ferr_quote(r->message_expr),
                  gw_ferr_quote(r->field_path)};
    char *out =
        gw_sprintf("apiextensions.ValidationRule{Rule:%s, Message:%s, MessageExpression:%s, "
                   "Reason:(*apiextensions.FieldValueErrorReason)(%s), FieldPath:%s, "
                   "OptionalOldSelf:(*bool)(%s)}",
                   q[0], q[1], q[2], r->has_reason ? "0xc000010000" : "nil", q[3],
                   r->has_optional ? "0xc000010008" : "nil");
    for (int i = 0; i < 4; i++)
        free(q[i]);
    return out;
}

typedef struct {
    gw_arena_t *a;
    gw_crd__node_t *nodes;
    size_t n, cap;
} build_t;

static void
collect(build_t *b, const gw_schema_t *s, bool resource_root, int depth)
{
    if (s == NULL || s->rules == NULL || depth > 128)
        return;
    if (json_array_size(s->rules->validations) > 0) {
        if (b->n == b->cap) {
            b->cap = b->cap ? 2 * b->cap : 8;
            b->nodes = gw_realloc(b->nodes, b->cap * sizeof(*b->nodes));
        }
        gw_crd__rules_node(b->a, s, resource_root, &b->nodes[b->n++]);
    }
    for (size_t i = 0; i < s->n_fields; i++)
        collect(b, s->fields[i].schema, s->fields[i].schema->embedded_resource, depth + 1);
    if (s->values != NULL)
        collect(b, s->values, s->values->embedded_resource, depth + 1);
    if (s->items != NULL)
        collect(b, s->items, s->items->embedded_resource, depth + 1);
}

static int
node_cmp(const void *x, const void *y)
{
    const gw_schema_t *a = ((const gw_crd__node_t *)x)->schema;
    const gw_schema_t *b = ((const gw_crd__node_t *)y)->schema;
    return a < b ? -1 : a > b;
}

const gw_crd_rules_t *
gw_crd_rules_compile(gw_arena_t *a, const gw_schema_t *root)
{
    build_t b = {.a = a};
    gw_crd_rules_t *out;

    collect(&b, root, true, 0);
    if (b.n == 0) {
        free(b.nodes);
        return NULL;
    }
    out = gw_arena_calloc(a, sizeof(*out));
    out->nodes = gw_arena_calloc(a, b.n * sizeof(*out->nodes));
    memcpy(out->nodes, b.nodes, b.n * sizeof(*out->nodes));
    out->n = b.n;
    free(b.nodes);
    qsort(out->nodes, out->n, sizeof(*out->nodes), node_cmp);
    return out;
}

const gw_crd__node_t *
gw_crd__node_find(const gw_crd_rules_t *rules, const gw_schema_t *s)
{
    gw_crd__node_t key = {.schema = s};
    return bsearch(&key, rules->nodes, rules->n, sizeof(key), node_cmp);
}
