/*
 * Evaluating a compiled ValidatingAdmissionPolicy for one (binding, param): kube-apiserver
 * 1.32's validator, its cost accounting and its messages, with authorization checks answered
 * from a memo (see gw_vap_eval.h for the contract).
 */
#include "gw_vap_eval.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_clock.h"
#include "gw_vap_int.h"

const char gw_vap__out_of_budget[] =
    "validation failed due to running out of cost budget, no further validation rules will be run";

const char *
gw_vap__aprintf(cel_arena_t *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = cel_arena_alloc(a, (size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return s;
}

/* ---- the memo of authorization answers ---------------------------------------------------- */

typedef struct {
    cel_authz_attrs_t attrs; /* strings malloc'd */
    bool answered;
    cel_authz_decision_t decision;
    char *reason, *error;
} memo_entry_t;

struct gw_vap_memo {
    memo_entry_t *e;
    size_t n, cap;
    size_t *pending; /* indexes into e, in the order first asked */
    size_t npending;
    bool missed; /* the running evaluation asked a check without an answer */
};

gw_vap_memo_t *
gw_vap_memo_new(void)
{
    return gw_calloc(1, sizeof(gw_vap_memo_t));
}

static char *
dup_or_null(const char *s)
{
    return s != NULL ? gw_strdup(s) : NULL;
}

/* The string fields of a check, which the memo copies and compares. */
static const size_t attr_strings[] = {
    offsetof(cel_authz_attrs_t, sa_namespace),   offsetof(cel_authz_attrs_t, sa_name),
    offsetof(cel_authz_attrs_t, verb),           offsetof(cel_authz_attrs_t, path),
    offsetof(cel_authz_attrs_t, group),          offsetof(cel_authz_attrs_t, resource),
    offsetof(cel_authz_attrs_t, subresource),    offsetof(cel_authz_attrs_t, ns),
    offsetof(cel_authz_attrs_t, name),           offsetof(cel_authz_attrs_t, field_selector),
    offsetof(cel_authz_attrs_t, label_selector),
};
#define N_ATTR_STRINGS (sizeof(attr_strings) / sizeof(attr_strings[0]))

static const char **
attr_string(const cel_authz_attrs_t *at, size_t i)
{
    return (const char **)((const char *)at + attr_strings[i]);
}

void
gw_vap_memo_free(gw_vap_memo_t *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n; i++) {
        for (size_t k = 0; k < N_ATTR_STRINGS; k++)
            free((char *)*attr_string(&m->e[i].attrs, k));
        free(m->e[i].reason);
        free(m->e[i].error);
    }
    free(m->e);
    free(m->pending);
    free(m);
}

static bool
same_str(const char *x, const char *y)
{
    return x == y || (x != NULL && y != NULL && strcmp(x, y) == 0);
}

static bool
same_attrs(const cel_authz_attrs_t *x, const cel_authz_attrs_t *y)
{
    if (x->resource_request != y->resource_request)
        return false;
    for (size_t k = 0; k < N_ATTR_STRINGS; k++)
        if (!same_str(*attr_string(x, k), *attr_string(y, k)))
            return false;
    return true;
}

static memo_entry_t *
memo_find(gw_vap_memo_t *m, const cel_authz_attrs_t *at)
{
    for (size_t i = 0; i < m->n; i++)
        if (same_attrs(&m->e[i].attrs, at))
            return &m->e[i];
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->e = gw_realloc(m->e, m->cap * sizeof(*m->e));
        m->pending = gw_realloc(m->pending, m->cap * sizeof(*m->pending));
    }
    memo_entry_t *e = &m->e[m->n];
    memset(e, 0, sizeof(*e));
    e->attrs.resource_request = at->resource_request;
    for (size_t k = 0; k < N_ATTR_STRINGS; k++)
        *attr_string(&e->attrs, k) = dup_or_null(*attr_string(at, k));
    m->pending[m->npending++] = m->n++;
    return e;
}

/* cel_authz_fn over the memo: answered checks get their answer; others are recorded and get
 * "no opinion" (the run's result is thrown away). */
static void
memo_authz(void *ctx, const cel_authz_attrs_t *at, cel_arena_t *a, cel_authz_result_t *out)
{
    gw_vap_memo_t *m = ctx;
    (void)a;
    if (m == NULL)
        return;
    memo_entry_t *e = memo_find(m, at);
    if (!e->answered) {
        m->missed = true;
        return;
    }
    out->decision = e->decision;
    out->reason = e->reason;
    out->error = e->error;
}

void
gw_vap__memo_begin(gw_vap_memo_t *m)
{
    if (m != NULL)
        m->missed = false;
}

bool
gw_vap__memo_missed(const gw_vap_memo_t *m)
{
    return m != NULL && m->missed;
}

size_t
gw_vap_memo_pending(const gw_vap_memo_t *m)
{
    return m->npending;
}

const cel_authz_attrs_t *
gw_vap_memo_pending_attrs(const gw_vap_memo_t *m, size_t i)
{
    return i < m->npending ? &m->e[m->pending[i]].attrs : NULL;
}

void
gw_vap_memo_answer(gw_vap_memo_t *m, size_t i, const cel_authz_result_t *r)
{
    if (i >= m->npending)
        return;
    memo_entry_t *e = &m->e[m->pending[i]];
    e->answered = true;
    e->decision = r->decision;
    e->reason = dup_or_null(r->reason);
    e->error = dup_or_null(r->error);
    memmove(&m->pending[i], &m->pending[i + 1], (m->npending - i - 1) * sizeof(*m->pending));
    m->npending--;
}

/* ---- a phase: one of kube's ForInput calls, with its own lazy variables ------------------ */

static cel_value_t
var_value(gw_vap__phase_t *p, size_t i)
{
    if (p->done[i])
        return p->vals[i];
    const gw_vap__named_t *v = &p->c->vars[i];
    p->done[i] = true;
    if (v->expr.prog == NULL) {
        p->vals[i] = cel_error(p->a, "composited variable \"%s\" fails to compile: %s", v->name,
                               v->expr.error);
        return p->vals[i];
    }
    cel_value_t r;
    uint64_t cost = 0;
    cel_eval(v->expr.prog, p->act, p->a, GW_VAP__PER_CALL_LIMIT, &r, &cost);
    p->var_cost += cost;
    if (r.kind == CEL_ERROR)
        r = cel_error(p->a, "composited variable \"%s\" fails to evaluate: %s", v->name, r.v.err);
    p->vals[i] = r;
    return r;
}

/* The variable a name stands for: kube keeps compiled variables by name, so the last of a
 * name; -1 when none has it. */
static ptrdiff_t
var_named(const gw_vap_compiled_t *c, const char *name, size_t len)
{
    for (size_t i = c->nvars; i-- > 0;) {
        const char *v = c->vars[i].name;
        if (strlen(v) == len && memcmp(v, name, len) == 0)
            return (ptrdiff_t)i;
    }
    return -1;
}

/* `variables` read whole (has(variables.x), variables['x']): every variable (one per name),
 * evaluated. */
static cel_value_t
all_variables(gw_vap__phase_t *p)
{
    size_t n = 0;
    cel_value_t *keys = cel_arena_alloc(p->a, (p->c->nvars + 1) * sizeof(*keys));
    cel_value_t *vals = cel_arena_alloc(p->a, (p->c->nvars + 1) * sizeof(*vals));
    for (size_t i = 0; i < p->c->nvars; i++) {
        const char *name = p->c->vars[i].name;
        if (var_named(p->c, name, strlen(name)) != (ptrdiff_t)i)
            continue;
        keys[n] = cel_string_borrowed(name, strlen(name));
        vals[n] = var_value(p, i);
        if (vals[n].kind == CEL_ERROR)
            return vals[n];
        n++;
    }
    return cel_map(p->a, keys, vals, n);
}

static bool
resolve(void *ctx, const char *name, size_t len, cel_arena_t *a, cel_value_t *out)
{
    gw_vap__phase_t *p = ctx;
    (void)a;
    if (len == 9 && memcmp(name, "variables", 9) == 0) {
        *out = all_variables(p);
        return true;
    }
    if (len <= 10 || memcmp(name, "variables.", 10) != 0)
        return false;
    ptrdiff_t i = var_named(p->c, name + 10, len - 10);
    if (i < 0)
        return false;
    *out = var_value(p, (size_t)i);
    return true;
}

static void
bind_doc(cel_activation_t *act, const char *name, const json_t *doc, const cel_decltype_t *t)
{
    if (doc == NULL)
        cel_activation_bind(act, name, cel_null());
    else if (t != NULL)
        cel_activation_bind_json_typed(act, name, doc, t);
    else
        cel_activation_bind_json(act, name, doc);
}

void
gw_vap__phase_init(gw_vap__phase_t *p, const gw_vap_compiled_t *c, const gw_vap_input_t *in,
                   gw_vap_memo_t *memo, cel_arena_t *a, bool authorizer, const json_t *ns)
{
    p->c = c;
    p->a = a;
    p->var_cost = 0;
    p->vals = cel_arena_alloc(a, (c->nvars + 1) * sizeof(*p->vals));
    p->done = cel_arena_alloc(a, (c->nvars + 1) * sizeof(*p->done));
    p->act = cel_activation_new(a);
    bind_doc(p->act, "object", in->object, c->object_type);
    bind_doc(p->act, "oldObject", in->old_object, c->object_type);
    bind_doc(p->act, "params", in->params, c->params_type);
    bind_doc(p->act, "request", in->request, NULL);
    bind_doc(p->act, "namespaceObject", ns, NULL);
    if (authorizer) {
        cel_activation_bind(p->act, "authorizer", cel_authorizer(a, memo_authz, memo));
        cel_activation_bind(
            p->act, "authorizer.requestResource",
            cel_authorizer_request_resource(a, memo_authz, memo, &in->request_resource));
    }
    cel_activation_set_resolver(p->act, resolve, p);
}

/* One expression's evaluation (kube's evaluationActivation.Evaluate): false when the budget
 * ran out (the whole phase fails); else `*v` or `*err` (kube's message). */
bool
gw_vap__eval_expr(gw_vap__phase_t *p, const gw_vap__expr_t *e, int64_t *remaining, cel_value_t *v,
                  const char **err)
{
    uint64_t cost = 0;
    *err = NULL;
    *v = cel_null();
    if (e->src == NULL)
        return true;
    if (e->prog == NULL) {
        *err = gw_vap__aprintf(p->a, "compilation error: %s", e->error);
        return true;
    }
    p->var_cost = 0;
    cel_eval(e->prog, p->act, p->a, GW_VAP__PER_CALL_LIMIT, v, &cost);
    if (p->var_cost > (uint64_t)*remaining)
        return false;
    *remaining -= (int64_t)p->var_cost;
    if (cost > (uint64_t)*remaining)
        return false;
    *remaining -= (int64_t)cost;
    if (v->kind == CEL_ERROR)
        *err = gw_vap__aprintf(p->a, "expression '%s' resulted in error: %s", e->src, v->v.err);
    return true;
}

/* ---- matchConditions (matchconditions/matcher.go) ---------------------------------------- */

/* utilerrors.NewAggregate(errs).Error(): one message, or "[a, b]" without repeats. */
static const char *
aggregate(cel_arena_t *a, const char **errs, size_t n)
{
    gw_buf_t b = {0};
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(errs[i], errs[j]) == 0;
        if (seen)
            continue;
        gw_buf_printf(&b, "%s%s", distinct++ ? ", " : "", errs[i]);
    }
    const char *s = distinct > 1 ? gw_vap__aprintf(a, "[%s]", gw_buf_cstr(&b))
                                 : gw_vap__aprintf(a, "%s", gw_buf_cstr(&b));
    gw_buf_free(&b);
    return s;
}

/* 1: the conditions match; 0: they do not (or an error is ignored); -1: `*msg` says why the
 * policy fails. */
int
gw_vap__run_matches(const gw_vap_compiled_t *c, const gw_vap_input_t *in, gw_vap_memo_t *memo,
                    cel_arena_t *a, const char **msg, gw_vap_match_stats_t *stats)
{
    gw_vap__phase_t p;
    gw_vap_match_stats_t none;
    int64_t budget = GW_VAP__BUDGET_MATCH_CONDITIONS, start = gw_monotonic_ns();
    size_t n = c->nmatches, nerr = 0;
    if (stats == NULL)
        stats = &none;
    *stats = (gw_vap_match_stats_t){.ran = n > 0};
    if (n == 0)
        return 1;
    cel_value_t *vals = cel_arena_alloc(a, n * sizeof(*vals));
    const char **errs = cel_arena_alloc(a, n * sizeof(*errs));
    const char **errlist = cel_arena_alloc(a, n * sizeof(*errlist));
    /* kube's matcher passes no namespace object. */
    gw_vap__phase_init(&p, c, in, memo, a, true, NULL);
    for (size_t i = 0; i < n; i++) {
        if (!gw_vap__eval_expr(&p, &c->matches[i].expr, &budget, &vals[i], &errs[i])) {
            *msg = gw_vap__out_of_budget;
            stats->errors = 1;
            stats->seconds = (double)(gw_monotonic_ns() - start) / 1e9;
            return -1;
        }
    }
    stats->seconds = (double)(gw_monotonic_ns() - start) / 1e9;
    for (size_t i = 0; i < n; i++) {
        if (errs[i] != NULL) {
            errlist[nerr++] = errs[i];
            stats->errors++;
        } else if (vals[i].kind == CEL_BOOL && !vals[i].v.b) {
            stats->excluded = true;
            return 0;
        }
    }
    if (nerr == 0)
        return 1;
    if (c->ignore)
        return 0;
    *msg = aggregate(a, errlist, nerr);
    return -1;
}

/* ---- validations and their messages (validating/validator.go) ------------------------- */

static gw_vap_decision_t
error_decision(const gw_vap_compiled_t *c, const char *msg)
{
    return (gw_vap_decision_t){.action = c->ignore ? GW_VAP_ADMIT : GW_VAP_DENY,
                               .evaluation = GW_VAP_EVAL_ERROR,
                               .message = msg};
}

static void
single_error(const gw_vap_compiled_t *c, cel_arena_t *a, const char *msg, gw_vap_result_t *out)
{
    memset(out, 0, sizeof(*out));
    out->decisions = cel_arena_alloc(a, sizeof(*out->decisions));
    out->decisions[0] = error_decision(c, msg);
    out->ndecisions = 1;
}

/* Go's strings.TrimSpace, for ASCII white space. */
static const char *
trim(cel_arena_t *a, const char *s, size_t len)
{
    while (len > 0 && strchr(" \t\n\v\f\r", *s) != NULL)
        s++, len--;
    while (len > 0 && strchr(" \t\n\v\f\r", s[len - 1]) != NULL)
        len--;
    return cel_arena_strndup(a, s, len);
}

/* The message of a failed validation: messageExpression's string (unless empty, too long or
 * multi-line), else `message`, else "failed expression: <expression>". */
static const char *
failure_message(cel_arena_t *a, const gw_vap__validation_t *v, const cel_value_t *mv,
                const char *merr)
{
    const char *m = "";
    if (v->message_expr.src != NULL && merr == NULL && mv->kind == CEL_STRING) {
        m = trim(a, mv->v.str.data, mv->v.str.len);
        if (strlen(m) > GW_VAP__MAX_MESSAGE_BYTES || strchr(m, '\n') != NULL)
            m = "";
    }
    if (*m == '\0' && v->message != NULL && *v->message != '\0')
        m = trim(a, v->message, strlen(v->message));
    if (*m == '\0')
        m = gw_vap__aprintf(a, "failed expression: %s", trim(a, v->expr.src, strlen(v->expr.src)));
    return m;
}

/* false: the validations ran out of budget (out holds the one error decision). */
static bool
run_validations(const gw_vap_compiled_t *c, const gw_vap_input_t *in, gw_vap_memo_t *memo,
                cel_arena_t *a, gw_vap_result_t *out)
{
    gw_vap__phase_t p, pm;
    int64_t budget = GW_VAP__BUDGET;
    size_t n = c->nvalidations;
    bool msg_out_of_budget = false;
    cel_value_t *vals = cel_arena_alloc(a, (n + 1) * sizeof(*vals));
    cel_value_t *mvals = cel_arena_alloc(a, (n + 1) * sizeof(*mvals));
    const char **errs = cel_arena_alloc(a, (n + 1) * sizeof(*errs));
    const char **merrs = cel_arena_alloc(a, (n + 1) * sizeof(*merrs));
    int64_t *ns = cel_arena_alloc(a, (n + 1) * sizeof(*ns));
    gw_vap__phase_init(&p, c, in, memo, a, true, in->namespace_object);
    for (size_t i = 0; i < n; i++) {
        int64_t start = gw_monotonic_ns();
        if (!gw_vap__eval_expr(&p, &c->validations[i].expr, &budget, &vals[i], &errs[i])) {
            single_error(c, a, gw_vap__out_of_budget, out);
            return false;
        }
        ns[i] = gw_monotonic_ns() - start;
    }
    /* The messageExpressions run for every validation, on what the validations left. */
    gw_vap__phase_init(&pm, c, in, memo, a, false, in->namespace_object);
    for (size_t i = 0; i < n && !msg_out_of_budget; i++)
        msg_out_of_budget =
            !gw_vap__eval_expr(&pm, &c->validations[i].message_expr, &budget, &mvals[i], &merrs[i]);
    out->decisions = cel_arena_alloc(a, (n + 1) * sizeof(*out->decisions));
    out->ndecisions = n;
    for (size_t i = 0; i < n; i++) {
        const gw_vap__validation_t *v = &c->validations[i];
        gw_vap_decision_t *d = &out->decisions[i];
        if (errs[i] != NULL)
            *d = error_decision(c, errs[i]);
        else if (msg_out_of_budget)
            *d = error_decision(
                c, gw_vap__aprintf(a, "failed messageExpression: %s", gw_vap__out_of_budget));
        else if (vals[i].kind == CEL_BOOL && vals[i].v.b)
            *d = (gw_vap_decision_t){.action = GW_VAP_ADMIT, .evaluation = GW_VAP_EVAL_ADMIT};
        else
            *d = (gw_vap_decision_t){.action = GW_VAP_DENY,
                                     .evaluation = GW_VAP_EVAL_DENY,
                                     .reason = v->reason != NULL ? v->reason : "Invalid",
                                     .message = failure_message(a, v, &mvals[i], merrs[i])};
        d->seconds = (double)ns[i] / 1e9;
    }
    return true;
}

/* ---- auditAnnotations ---------------------------------------------------------------- */

static void
audit_value(const gw_vap_compiled_t *c, cel_arena_t *a, const gw_vap__named_t *ann,
            const cel_value_t *v, const char *err, gw_vap_audit_t *r)
{
    r->key = ann->name;
    if (err != NULL) {
        r->action = c->ignore ? GW_VAP_AUDIT_EXCLUDE : GW_VAP_AUDIT_ERROR;
        r->error = err;
    } else if (v->kind == CEL_STRING) {
        r->value = trim(a, v->v.str.data, v->v.str.len);
        r->action = *r->value == '\0' ? GW_VAP_AUDIT_EXCLUDE : GW_VAP_AUDIT_PUBLISH;
    } else if (v->kind == CEL_NULL) {
        r->action = GW_VAP_AUDIT_EXCLUDE;
    } else {
        r->action = GW_VAP_AUDIT_ERROR;
        r->error = gw_vap__aprintf(a,
                                   "valueExpression '%s' resulted in unsupported return type: %s. "
                                   "Return type must be either string or null.",
                                   ann->expr.src, cel_type_name(cel_value_type(v)));
    }
}

static bool
run_audits(const gw_vap_compiled_t *c, const gw_vap_input_t *in, gw_vap_memo_t *memo,
           cel_arena_t *a, gw_vap_result_t *out)
{
    gw_vap__phase_t p;
    int64_t budget = GW_VAP__BUDGET;
    size_t n = c->naudits;
    cel_value_t *vals = cel_arena_alloc(a, (n + 1) * sizeof(*vals));
    const char **errs = cel_arena_alloc(a, (n + 1) * sizeof(*errs));
    int64_t *ns = cel_arena_alloc(a, (n + 1) * sizeof(*ns));
    if (n == 0)
        return true;
    gw_vap__phase_init(&p, c, in, memo, a, false, in->namespace_object);
    for (size_t i = 0; i < n; i++) {
        int64_t start = gw_monotonic_ns();
        if (!gw_vap__eval_expr(&p, &c->audits[i].expr, &budget, &vals[i], &errs[i]))
            return false;
        ns[i] = gw_monotonic_ns() - start;
    }
    out->audits = cel_arena_alloc(a, n * sizeof(*out->audits));
    out->naudits = n;
    for (size_t i = 0; i < n; i++) {
        audit_value(c, a, &c->audits[i], &vals[i], errs[i], &out->audits[i]);
        out->audits[i].seconds = (double)ns[i] / 1e9;
    }
    return true;
}

int
gw_vap_eval(const gw_vap_compiled_t *c, const gw_vap_input_t *in, gw_vap_memo_t *memo,
            cel_arena_t *a, gw_vap_result_t *out)
{
    const char *msg = NULL;
    memset(out, 0, sizeof(*out));
    if (memo != NULL)
        memo->missed = false;
    gw_vap_match_stats_t match;
    int m = gw_vap__run_matches(c, in, memo, a, &msg, &match);
    if (m < 0)
        single_error(c, a, msg, out);
    else if (m > 0 && run_validations(c, in, memo, a, out) && !run_audits(c, in, memo, a, out))
        single_error(c, a, gw_vap__out_of_budget, out);
    out->match = match;
    if (memo != NULL && memo->missed) {
        memset(out, 0, sizeof(*out));
        return GW_VAP_NEEDS_ANSWERS;
    }
    return 0;
}

int
gw_vap_eval_matches(const gw_vap_compiled_t *c, const gw_vap_input_t *in, gw_vap_memo_t *memo,
                    cel_arena_t *a, int *matched, const char **msg, gw_vap_match_stats_t *stats)
{
    *msg = NULL;
    if (memo != NULL)
        memo->missed = false;
    *matched = gw_vap__run_matches(c, in, memo, a, msg, stats);
    if (memo != NULL && memo->missed) {
        *matched = 0;
        *msg = NULL;
        return GW_VAP_NEEDS_ANSWERS;
    }
    return 0;
}

/* ---- the request and namespace documents ---------------------------------------------- */

static void
set_str(json_t *o, const char *key, const char *v, bool omitempty)
{
    if (v == NULL)
        v = "";
    if (!omitempty || *v != '\0')
        json_object_set_new(o, key, json_string(v));
}

static json_t *
triple(const char *k1, const char *v1, const char *k2, const char *v2, const char *k3,
       const char *v3)
{
    json_t *o = json_object();
    set_str(o, k1, v1, false);
    set_str(o, k2, v2, false);
    set_str(o, k3, v3, false);
    return o;
}

static json_t *
user_info(const gw_vap_request_t *r)
{
    json_t *u = json_object();
    set_str(u, "username", r->username, true);
    set_str(u, "uid", r->uid, true);
    if (r->ngroups > 0) {
        json_t *g = json_array();
        for (size_t i = 0; i < r->ngroups; i++)
            json_array_append_new(g, json_string(r->groups[i]));
        json_object_set_new(u, "groups", g);
    }
    if (json_object_size(r->extra) > 0)
        json_object_set_new(u, "extra", json_deep_copy(r->extra));
    return u;
}

json_t *
gw_vap_request_doc(const gw_vap_request_t *r)
{
    json_t *o = json_object();
    set_str(o, "uid", "", false);
    json_object_set_new(
        o, "kind", triple("group", r->kind_group, "version", r->kind_version, "kind", r->kind));
    json_object_set_new(o, "resource",
                        triple("group", r->resource_group, "version", r->resource_version,
                               "resource", r->resource));
    set_str(o, "subResource", r->subresource, true);
    json_object_set_new(o, "requestKind",
                        triple("group", r->request_kind_group, "version", r->request_kind_version,
                               "kind", r->request_kind));
    json_object_set_new(o, "requestResource",
                        triple("group", r->request_resource_group, "version",
                               r->request_resource_version, "resource", r->request_resource));
    set_str(o, "requestSubResource", r->request_subresource, true);
    set_str(o, "name", r->name, true);
    set_str(o, "namespace", r->namespace_, true);
    set_str(o, "operation", r->operation, false);
    json_object_set_new(o, "userInfo", user_info(r));
    json_object_set_new(o, "object", json_null());
    json_object_set_new(o, "oldObject", json_null());
    json_object_set_new(o, "dryRun", json_boolean(r->dry_run));
    json_object_set_new(o, "options", r->options ? json_deep_copy(r->options) : json_null());
    return o;
}

json_t *
gw_vap_namespace_doc(const json_t *ns)
{
    static const char *const keep[] = {"name",
                                       "generateName",
                                       "namespace",
                                       "uid",
                                       "resourceVersion",
                                       "generation",
                                       "creationTimestamp",
                                       "deletionTimestamp",
                                       "deletionGracePeriodSeconds",
                                       "labels",
                                       "annotations",
                                       "finalizers"};
    if (ns == NULL)
        return NULL;
    const json_t *meta = json_object_get(ns, "metadata");
    json_t *m = json_object(), *o = json_object();
    for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
        json_t *v = json_object_get(meta, keep[i]);
        if (v != NULL)
            json_object_set_new(m, keep[i], json_deep_copy(v));
    }
    /* metav1.Time is a struct: its zero value is written as null, not left out. */
    if (json_object_get(m, "creationTimestamp") == NULL)
        json_object_set_new(m, "creationTimestamp", json_null());
    json_object_set_new(o, "metadata", m);
    json_t *spec = json_object_get(ns, "spec"), *status = json_object_get(ns, "status");
    json_object_set_new(o, "spec", spec ? json_deep_copy(spec) : json_object());
    json_object_set_new(o, "status", status ? json_deep_copy(status) : json_object());
    return o;
}
