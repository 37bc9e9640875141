/*
 * x-kubernetes-validations rules compiled per schema node (kube's compilation.go) and run on
 * custom objects (kube's schema/cel validation.go).
 */
#include "gw_crd_rules.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_crd.h"
#include "gw_crd_rules_int.h"
#include "gw_crd_schema.h"
#include "gw_schema_cel.h"

/* kube names the type of `self` selfType<n> (generateUniqueSelfTypeName). */
#define SELF_TYPE "selfType0"
/* celconfig.MaxEvaluatedMessageExpressionSizeBytes */
#define MAX_MESSAGE_BYTES (5 * 1024)

struct gw_crd_rules {
    gw_crd__node_t *nodes; /* sorted by schema address */
    size_t n;
};

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

/* ---- evaluating ----------------------------------------------------------------------------- */

typedef struct {
    const gw_crd_rules_t *rules;
    gw_field_errors_t *errs;
    int64_t budget; /* below 0: exhausted, nothing more runs */
} run_t;

/* What one node's evaluation works with. */
typedef struct {
    run_t *run;
    const gw_crd__node_t *node;
    const json_t *obj, *old;
    const char *path; /* "" at the root */
    cel_arena_t *ca;
    cel_activation_t *act, *opt_act;
} eval_t;

static const gw_crd__node_t *
find_node(const gw_crd_rules_t *rules, const gw_schema_t *s)
{
    gw_crd__node_t key = {.schema = s};
    return bsearch(&key, rules->nodes, rules->n, sizeof(key), node_cmp);
}

/* A field.Path's text: "<nil>" for the root. */
static const char *
shown(const char *path)
{
    return path[0] != '\0' ? path : "<nil>";
}

static void
invalid(eval_t *e, const char *path, const char *detail)
{
    gw_ferr_invalid_str(e->run->errs, shown(path), e->node->type, detail);
}

/* fieldErrorForReason. */
static void
fail(eval_t *e, const gw_crd__rule_t *r, const char *path, const char *detail)
{
    gw_field_errors_t *errs = e->run->errs;
    if (strcmp(r->reason, "FieldValueForbidden") == 0)
        gw_ferr_forbidden(errs, shown(path), detail);
    else if (strcmp(r->reason, "FieldValueRequired") == 0)
        gw_ferr_required(errs, shown(path), detail);
    else if (strcmp(r->reason, "FieldValueDuplicate") == 0)
        gw_ferr_duplicate(errs, shown(path), e->node->type);
    else
        invalid(e, path, detail);
}

/* ruleErrorString: the trimmed message, else the trimmed rule. */
static char *
rule_error_string(const gw_crd__rule_t *r)
{
    const char *s = r->message[0] != '\0' ? r->message : r->rule;
    size_t a = strspn(s, " \t\n\v\f\r"), b = strlen(s);
    while (b > a && strchr(" \t\n\v\f\r", s[b - 1]) != NULL)
        b--;
    return gw_strndup(s + a, b - a);
}

/* ruleMessageOrDefault. */
static char *
rule_message(const gw_crd__rule_t *r)
{
    char *s = rule_error_string(r);
    char *out = r->message[0] != '\0' ? gw_strdup(s) : gw_sprintf("failed rule: %s", s);
    free(s);
    return out;
}

/* evalMessageExpression's usable result (trimmed, non-empty, one line, at most 5 KiB), or
 * NULL when the rule's message stands instead. *stop: the budget ran out (error added). */
static char *
eval_message(eval_t *e, const gw_crd__rule_t *r, const cel_activation_t *act, const char *path,
             bool *stop)
{
    cel_value_t v;
    uint64_t cost = 0;
    int rc = cel_eval(r->msg_prog, act, e->ca, GW_CRD_RULE_CALL_LIMIT, &v, &cost);
    if ((int64_t)cost > e->run->budget || rc == CEL_ECOST) {
        char *q = gw_ferr_quote(r->message_expr);
        char *d =
            (int64_t)cost > e->run->budget
                ? gw_strdup("messageExpression evaluation failed due to running out of cost "
                            "budget, no further validation rules will be run")
                : gw_sprintf("'%s': call cost exceeds limit for messageExpression: %s", v.v.err, q);
        invalid(e, path, d);
        free(d);
        free(q);
        *stop = true;
        return NULL;
    }
    e->run->budget -= (int64_t)cost;
    if (v.kind != CEL_STRING)
        return NULL;
    size_t a = 0, b = v.v.str.len;
    while (a < b && strchr(" \t\n\v\f\r", v.v.str.data[a]) != NULL)
        a++;
    while (b > a && strchr(" \t\n\v\f\r", v.v.str.data[b - 1]) != NULL)
        b--;
    if (b == a || b - a > MAX_MESSAGE_BYTES || memchr(v.v.str.data + a, '\n', b - a) != NULL ||
        memchr(v.v.str.data + a, '\r', b - a) != NULL)
        return NULL;
    return gw_strndup(v.v.str.data + a, b - a);
}

/* A rule evaluated to something other than true: its error at the rule's fieldPath. */
static bool
report(eval_t *e, const gw_crd__rule_t *r, const cel_activation_t *act)
{
    char *path = r->norm_path == NULL ? gw_strdup(e->path)
                 : e->path[0] == '\0' ? gw_strdup(r->norm_path)
                                      : gw_sprintf("%s.%s", e->path, r->norm_path);
    bool stop = false;
    char *msg = r->msg_prog != NULL ? eval_message(e, r, act, path, &stop) : NULL;
    if (!stop) {
        if (msg == NULL)
            msg = rule_message(r);
        fail(e, r, path, msg);
    }
    free(msg);
    free(path);
    return !stop;
}

/* An evaluation error, in kube's words; false when no further rule may run. */
static bool
eval_error(eval_t *e, const gw_crd__rule_t *r, int rc, const cel_value_t *v)
{
    char *rs = rule_error_string(r), *d;
    bool go_on = rc != CEL_ECOST;
    if (!go_on)
        d = gw_sprintf("'%s': no further validation rules will be run due to call cost exceeds "
                       "limit for rule: %s",
                       v->v.err, rs);
    else if (strncmp(v->v.err, "no such overload", 16) == 0)
        d = gw_sprintf("'%s': call arguments did not match a supported operator, function or "
                       "macro signature for rule: %s",
                       v->v.err, rs);
    else
        d = gw_sprintf("%s evaluating rule: %s", v->v.err, rs);
    invalid(e, e->path, d);
    free(d);
    free(rs);
    return go_on;
}

/* One rule; false when no further rule may run (the budget is spent). */
static bool
run_rule(eval_t *e, const gw_crd__rule_t *r)
{
    const cel_activation_t *act = r->optional_old_self ? e->opt_act : e->act;
    cel_value_t v;
    uint64_t cost = 0;
    int rc;

    if (r->prog == NULL || (r->uses_old_self && e->old == NULL && !r->optional_old_self))
        return true;
    rc = cel_eval(r->prog, act, e->ca, GW_CRD_RULE_CALL_LIMIT, &v, &cost);
    if ((int64_t)cost > e->run->budget) {
        invalid(e, e->path,
                "validation failed due to running out of cost budget, no further "
                "validation rules will be run");
        return false;
    }
    e->run->budget -= (int64_t)cost;
    if (rc == CEL_ECOST || v.kind == CEL_ERROR)
        return eval_error(e, r, rc, &v);
    if (v.kind == CEL_BOOL && v.v.b)
        return true;
    /* ratcheting: an unchanged value keeps passing rules that do not look at oldSelf */
    if (!r->uses_old_self && e->old != NULL && json_equal((json_t *)e->obj, (json_t *)e->old))
        return true;
    return report(e, r, act);
}

static void
run_node(run_t *run, const gw_crd__node_t *n, const json_t *obj, const json_t *old,
         const char *path)
{
    eval_t e = {.run = run, .node = n, .obj = obj, .old = old, .path = path};
    cel_value_t old_v;

    e.ca = cel_arena_new();
    e.act = cel_activation_new(e.ca);
    e.opt_act = cel_activation_new(e.ca);
    cel_activation_bind_json_typed(e.act, "self", obj, n->self_type);
    cel_activation_bind_json_typed(e.opt_act, "self", obj, n->self_type);
    if (old != NULL)
        cel_activation_bind_json_typed(e.act, "oldSelf", old, n->self_type);
    old_v = cel_json_typed(old, n->self_type);
    cel_activation_bind(e.opt_act, "oldSelf", cel_optional(e.ca, old != NULL ? &old_v : NULL));
    for (size_t i = 0; i < n->n_rules; i++) {
        const gw_crd__rule_t *r = &n->rules[i];
        if (r->error != NULL) {
            char *d = gw_sprintf("rule compile error: %s", r->error);
            invalid(&e, path, d);
            free(d);
            continue;
        }
        if (!run_rule(&e, r)) {
            run->budget = -1;
            break;
        }
    }
    cel_arena_free(e.ca);
}

static void walk(run_t *run, const gw_schema_t *s, const json_t *obj, const json_t *old,
                 const char *path);

/* The old element an array element correlates with: by the keys of a map list, by equality
 * in a set; none in an atomic list. */
static const json_t *
correlate(const gw_schema_t *s, const json_t *old, const json_t *item)
{
    bool map = s->list_type != NULL && strcmp(s->list_type, "map") == 0 && s->n_list_map_keys > 0;
    bool set = s->list_type != NULL && strcmp(s->list_type, "set") == 0;
    size_t i;
    json_t *o;

    if (!json_is_array(old) || (!map && !set))
        return NULL;
    json_array_foreach(old, i, o)
    {
        bool same = true;
        if (set)
            same = json_equal(o, (json_t *)item);
        for (size_t k = 0; map && same && k < s->n_list_map_keys; k++) {
            const json_t *x = json_object_get(o, s->list_map_keys[k]);
            const json_t *y = json_object_get(item, s->list_map_keys[k]);
            same = (x == NULL && y == NULL) || (x != NULL && y != NULL && json_equal(x, y));
        }
        if (same)
            return o;
    }
    return NULL;
}

static int
str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* validateMap: map values under every key, then the properties the schema names. */
static void
walk_object(run_t *run, const gw_schema_t *s, const json_t *obj, const json_t *old,
            const char *path)
{
    size_t n = json_object_size(obj), i = 0;
    const char **keys = gw_calloc(n + 1, sizeof(*keys));
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)obj, k, v) keys[i++] = k;
    qsort(keys, n, sizeof(*keys), str_cmp);
    for (int pass = 0; pass < 2; pass++) {
        for (i = 0; i < n && run->budget >= 0; i++) {
            const gw_schema_field_t *f = pass == 1 ? gw_schema_field(s, keys[i]) : NULL;
            const gw_schema_t *sub = pass == 0 ? s->values : f != NULL ? f->schema : NULL;
            if (sub == NULL)
                continue;
            char *p = pass == 0         ? gw_sprintf("%s[%s]", path, keys[i])
                      : path[0] == '\0' ? gw_strdup(keys[i])
                                        : gw_sprintf("%s.%s", path, keys[i]);
            walk(run, sub, json_object_get(obj, keys[i]), json_object_get(old, keys[i]), p);
            free(p);
        }
    }
    free(keys);
}

static void
walk(run_t *run, const gw_schema_t *s, const json_t *obj, const json_t *old, const char *path)
{
    const gw_crd__node_t *n;

    if (s == NULL || s->rules == NULL || obj == NULL || json_is_null(obj) || run->budget < 0)
        return;
    if (old != NULL && json_is_null(old))
        old = NULL;
    if ((n = find_node(run->rules, s)) != NULL && n->self_type != NULL)
        run_node(run, n, obj, old, path);
    if (json_is_object(obj)) {
        walk_object(run, s, obj, old, path);
    } else if (json_is_array(obj) && s->items != NULL) {
        size_t i;
        json_t *item;
        json_array_foreach(obj, i, item)
        {
            if (run->budget < 0)
                break;
            char *p = gw_sprintf("%s[%zu]", path, i);
            walk(run, s->items, item, correlate(s, old, item), p);
            free(p);
        }
    }
}

/* hasBlockingErr: schema errors that leave the object unfit for its rules. */
static bool
blocking(const gw_field_errors_t *errs)
{
    static const char *const reasons[] = {"FieldValueNotSupported", "FieldValueRequired",
                                          "FieldValueTooLong", "FieldValueTooMany",
                                          "FieldValueTypeInvalid"};
    size_t i;
    json_t *c;

    json_array_foreach(errs->causes, i, c)
    {
        for (size_t k = 0; k < sizeof(reasons) / sizeof(reasons[0]); k++)
            if (strcmp(str_at(c, "reason"), reasons[k]) == 0)
                return true;
    }
    return false;
}

void
gw_crd_rules_validate(const struct gw_crd_version *cv, const json_t *obj, const json_t *old,
                      gw_field_errors_t *errs)
{
    run_t run = {.errs = errs, .budget = GW_CRD_RULES_RUNTIME_BUDGET};

    if (cv == NULL || cv->rules == NULL)
        return;
    if (blocking(errs)) {
        gw_ferr_invalid_str(errs, "<nil>", "null",
                            "some validation rules were not checked because the object was "
                            "invalid; correct the existing errors to complete validation");
        return;
    }
    run.rules = cv->rules;
    walk(&run, cv->schema, obj, old, "");
}
