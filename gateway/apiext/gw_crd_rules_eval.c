/*
 * x-kubernetes-validations rules run on custom objects (kube's apiextensions-apiserver
 * pkg/apiserver/schema/cel/validation.go, called from the custom resource strategy).
 */
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd.h"
#include "gw_crd_rules_int.h"

/* celconfig.MaxEvaluatedMessageExpressionSizeBytes */
#define MAX_MESSAGE_BYTES (5 * 1024)

static const char *
str_at(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? s : "";
}

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
    if ((n = gw_crd__node_find(run->rules, s)) != NULL && n->self_type != NULL)
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
