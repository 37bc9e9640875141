/*
 * Environments and compilation: parse, then one pass over the tree that binds comprehension
 * variables to slots, lists the qualified names each identifier may refer to (CEL's
 * container rules), picks each call's function, and compiles constant regular expressions.
 */
#include "cel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

#define DEFAULT_MAX_EXPR_LEN 100000
#define DEFAULT_MAX_DEPTH 250
#define DEFAULT_MAX_HEIGHT 1000
#define MAX_SCOPE 256

struct cel_env {
    bool macros;
    bool type_check;
    bool optimize;
    char *container;
    cel_limits_t limits;
    cel_arena_t *arena; /* declared types */
    cel__decl_t *decls;
    const char *const *hidden; /* overload id prefixes left out of type checking, or NULL */
    bool mutation;             /* cel_env_enable_mutation() */
    const cel_decltype_t *mutation_root;
};

cel_env_t *
cel_env_new(void)
{
    cel_env_t *env = cel__xcalloc(1, sizeof(*env));
    env->macros = true;
    env->optimize = true;
    env->container = cel__xstrdup("");
    env->arena = cel_arena_new();
    cel_env_set_limits(env, &(cel_limits_t){0});
    return env;
}

void
cel_env_free(cel_env_t *env)
{
    if (env == NULL)
        return;
    free(env->container);
    cel_arena_free(env->arena);
    free(env);
}

static bool
dotted_name(const char *s)
{
    bool start = true;
    for (; *s != '\0'; s++) {
        bool letter = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_';
        if (*s == '.' && !start) {
            start = true;
        } else if (letter || (!start && *s >= '0' && *s <= '9')) {
            start = false;
        } else {
            return false;
        }
    }
    return !start;
}

int
cel_env_set_container(cel_env_t *env, const char *name)
{
    if (*name != '\0' && !dotted_name(name))
        return CEL_EINVAL;
    free(env->container);
    env->container = cel__xstrdup(name);
    return 0;
}

void
cel_env_set_macros(cel_env_t *env, bool on)
{
    env->macros = on;
}

void
cel_env_set_limits(cel_env_t *env, const cel_limits_t *limits)
{
    env->limits.max_expr_len = limits->max_expr_len ? limits->max_expr_len : DEFAULT_MAX_EXPR_LEN;
    env->limits.max_depth = limits->max_depth > 0 ? limits->max_depth : DEFAULT_MAX_DEPTH;
    env->limits.max_height = limits->max_height > 0 ? limits->max_height : DEFAULT_MAX_HEIGHT;
}

void
cel_env_set_type_check(cel_env_t *env, bool on)
{
    env->type_check = on;
}

void
cel_env_set_optimize(cel_env_t *env, bool on)
{
    env->optimize = on;
}

const cel_decltype_t *
cel_env_type(cel_env_t *env, const char *spec)
{
    const char *s = spec;
    const cel_decltype_t *t = cel__ty_parse(env->arena, &s);
    while (*s == ' ')
        s++;
    return *s == '\0' ? t : NULL;
}

const cel_decltype_t *
cel_env_schema_type(cel_env_t *env, const cel_schema_t *s, const char *name, bool resource_root)
{
    return cel__ty_from_schema(env->arena, s, name, resource_root);
}

void
cel_env_enable_mutation(cel_env_t *env, const cel_decltype_t *object)
{
    env->mutation = true;
    env->mutation_root = object;
}

bool
cel__env_mutation(const cel_env_t *env, const cel_decltype_t **root)
{
    if (root != NULL)
        *root = env->mutation_root;
    return env->mutation;
}

void
cel_env_hide_overloads(cel_env_t *env, const char *const *prefixes)
{
    env->hidden = prefixes;
}

bool
cel__env_hidden(const cel_env_t *env, const char *id)
{
    if (id == NULL)
        return env->hidden != NULL && env->hidden[0] != NULL;
    for (size_t i = 0; env->hidden != NULL && env->hidden[i] != NULL; i++)
        if (strncmp(id, env->hidden[i], strlen(env->hidden[i])) == 0)
            return true;
    return false;
}

const cel_decltype_t *
cel_env_optional_type(cel_env_t *env, const cel_decltype_t *t)
{
    return t == NULL ? NULL : cel__ty_new(env->arena, CEL__TK_OPTIONAL, t, NULL);
}

int64_t
cel_decltype_min_size(const cel_decltype_t *t)
{
    return t != NULL && t->bounded ? t->min_size : 0;
}

int
cel_env_declare(cel_env_t *env, const char *name, const cel_decltype_t *t)
{
    if (!dotted_name(name) || t == NULL)
        return CEL_EINVAL;
    cel__decl_t *d = cel_arena_alloc(env->arena, sizeof(*d));
    d->name = cel_arena_strndup(env->arena, name, strlen(name));
    d->type = t;
    d->next = env->decls;
    env->decls = d;
    return 0;
}

const cel__decl_t *
cel__env_decls(const cel_env_t *env)
{
    return env->decls;
}

const char *
cel__env_container(const cel_env_t *env)
{
    return env->container;
}

/* ---- Resolution ---- */

typedef struct resolver {
    const cel_env_t *env;
    cel_arena_t *a;
    const char *names[MAX_SCOPE]; /* comprehension variables in scope; slot = position */
    int nnames;
    int nslots;
    cel__parse_err_t *err;
    bool failed;  /* the first failure is in *err */
    bool hard;    /* a failure that leaves the tree unusable */
    bool lenient; /* type checking follows: carry on past unknown functions and patterns */
} resolver_t;

static void rfail(resolver_t *r, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
rfail(resolver_t *r, size_t pos, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    r->err->pos = pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err->msg, sizeof(r->err->msg), fmt, ap);
    va_end(ap);
}

static int
local_slot(const resolver_t *r, const char *name)
{
    for (int i = r->nnames; i-- > 0;) {
        if (r->names[i] != NULL && strcmp(r->names[i], name) == 0)
            return i;
    }
    return -1;
}

/* The names `name` may denote in the container, most qualified first: container "a.b" and
 * name "x" give "a.b.x", "a.x", "x". */
static const char **
candidates(resolver_t *r, const char *name, bool root, int *n)
{
    const char *c = r->env->container;
    size_t plen = root ? 0 : strlen(c);
    int count = 1;
    for (size_t i = 0; i < plen; i++)
        count += c[i] == '.';
    count += plen > 0;
    const char **cands = cel_arena_alloc(r->a, sizeof(char *) * (size_t)count);
    int k = 0;
    while (plen > 0) {
        cands[k++] = cel__arena_sprintf(r->a, "%.*s.%s", (int)plen, c, name);
        while (plen > 0 && c[plen - 1] != '.')
            plen--;
        if (plen > 0)
            plen--;
    }
    cands[k++] = name;
    *n = k;
    return cands;
}

/* "a.b.c" when `n` is a chain of plain selections on an identifier that is not a
 * comprehension variable; NULL otherwise. */
static char *
qualified(resolver_t *r, const cel__node_t *n, bool *root)
{
    if (n->kind == CEL__N_IDENT) {
        *root = n->u.ident.root;
        return local_slot(r, n->u.ident.name) >= 0
                   ? NULL
                   : cel_arena_strndup(r->a, n->u.ident.name, strlen(n->u.ident.name));
    }
    if (n->kind != CEL__N_SELECT || n->u.select.test_only)
        return NULL;
    char *base = qualified(r, n->u.select.operand, root);
    return base ? cel__arena_sprintf(r->a, "%s.%s", base, n->u.select.field) : NULL;
}

static void resolve(resolver_t *r, cel__node_t *n);

static const struct {
    const char *name;
    cel__op_t op;
} special_ops[] = {
    {"_&&_", CEL__OP_AND},        {"_||_", CEL__OP_OR},
    {"_?_:_", CEL__OP_COND},      {"@not_strictly_false", CEL__OP_NOT_STRICTLY_FALSE},
    {"_[?_]", CEL__OP_OPT_INDEX}, {"_?._", CEL__OP_OPT_SELECT},
};

/* matches(s, p), s.matches(p), s.find(p), s.findAll(p[, n]) with a constant pattern: compiled
 * once, with the program; a bad pattern fails the compilation. */
static void
precompile_regex(resolver_t *r, cel__node_t *n)
{
    const char *name = n->u.call.name;
    if (strcmp(name, "matches") != 0 && strcmp(name, "find") != 0 && strcmp(name, "findAll") != 0)
        return;
    const cel__node_t *pat = n->u.call.args[n->u.call.target ? 0 : n->u.call.nargs - 1];
    if (pat->kind != CEL__N_CONST || pat->u.constant.kind != CEL_STRING)
        return;
    const char *why;
    const cel_value_t *s = &pat->u.constant;
    n->u.call.regex = cel__regex_compile(r->a, s->v.str.data, s->v.str.len, &why);
    if (n->u.call.regex == NULL && r->lenient && n->u.call.target != NULL &&
        strcmp(name, "matches") == 0)
        rfail(r, pat->pos, "invalid matches argument"); /* kube's regex literal validator */
    else if (n->u.call.regex == NULL)
        rfail(r, pat->pos, "%s", why);
    else
        cel_arena_on_free(r->a, cel__regex_free, n->u.call.regex);
}

/* With type checking, duration(literal) and timestamp(literal) that cannot succeed fail the
 * compilation, as kube-apiserver's duration and timestamp literal validators make them (and a
 * bad receiver matches() pattern fails with their words); without it, when evaluated. */
static void
validate_time_literal(resolver_t *r, const cel__node_t *n)
{
    const char *name = n->u.call.name;
    bool ts = strcmp(name, "timestamp") == 0;
    if (!r->lenient || (!ts && strcmp(name, "duration") != 0) || n->u.call.target != NULL ||
        n->u.call.nargs != 1)
        return;
    const cel__node_t *arg = n->u.call.args[0];
    if (arg->kind == CEL__N_CONST && !cel__time_literal_ok(ts, &arg->u.constant))
        rfail(r, arg->pos, "invalid %s argument", name);
}

/* A receiver call whose target is a dotted name may be a namespaced function. */
static void
qualify_function(resolver_t *r, cel__node_t *n)
{
    bool root, known;
    char *q = n->u.call.target ? qualified(r, n->u.call.target, &root) : NULL;
    if (q == NULL)
        return;
    char *full = cel__arena_sprintf(r->a, "%s.%s", q, n->u.call.name);
    if (cel__fn_find(full, false, n->u.call.nargs, &known) != NULL || known) {
        n->u.call.name = full;
        n->u.call.target = NULL;
    }
}

static void
resolve_call(resolver_t *r, cel__node_t *n)
{
    qualify_function(r, n);
    if (n->u.call.target != NULL)
        resolve(r, n->u.call.target);
    for (int i = 0; i < n->u.call.nargs; i++)
        resolve(r, n->u.call.args[i]);
    for (size_t i = 0; i < sizeof(special_ops) / sizeof(special_ops[0]); i++) {
        if (strcmp(special_ops[i].name, n->u.call.name) == 0) {
            n->u.call.op = special_ops[i].op;
            return;
        }
    }
    bool recv = n->u.call.target != NULL, known;
    int nargs = n->u.call.nargs + recv;
    n->u.call.fn = cel__fn_find(n->u.call.name, recv, nargs, &known);
    /* The mutation library's function exists only in environments that have the library. */
    if (strncmp(n->u.call.name, "jsonpatch.", 10) == 0 && !r->env->mutation)
        n->u.call.fn = NULL, known = false;
    if (n->u.call.fn == NULL) {
        if (known)
            rfail(r, n->pos, "found no matching overload for '%s' applied to %d argument%s",
                  n->u.call.name, nargs, nargs == 1 ? "" : "s");
        else
            rfail(r, n->pos, "undeclared reference to '%s'", n->u.call.name);
        return;
    }
    n->u.call.op = CEL__OP_FUNCTION;
    if (recv && n->u.call.nargs == 1 && strcmp(n->u.call.name, "or") == 0)
        n->u.call.op = CEL__OP_OR_OPT;
    if (recv && n->u.call.nargs == 1 && strcmp(n->u.call.name, "orValue") == 0)
        n->u.call.op = CEL__OP_OR_VALUE;
    precompile_regex(r, n);
    validate_time_literal(r, n);
}

static int
push_var(resolver_t *r, const char *name, size_t pos)
{
    if (r->nnames == MAX_SCOPE) {
        rfail(r, pos, "comprehensions nested too deeply");
        r->hard = true;
        return 0;
    }
    r->names[r->nnames] = name;
    if (++r->nnames > r->nslots)
        r->nslots = r->nnames;
    return r->nnames - 1;
}

static void
resolve_comp(resolver_t *r, cel__node_t *n)
{
    resolve(r, n->u.comp.range);
    resolve(r, n->u.comp.init);
    int saved = r->nnames;
    n->u.comp.accu_slot = push_var(r, n->u.comp.accu_var, n->pos);
    n->u.comp.iter_slot = push_var(r, n->u.comp.iter_var, n->pos);
    if (n->u.comp.iter_var2 != NULL)
        n->u.comp.iter_slot2 = push_var(r, n->u.comp.iter_var2, n->pos);
    resolve(r, n->u.comp.cond);
    resolve(r, n->u.comp.step);
    /* The result sees the accumulator but no longer the iteration variables. */
    r->names[n->u.comp.iter_slot] = NULL;
    if (n->u.comp.iter_var2 != NULL)
        r->names[n->u.comp.iter_slot2] = NULL;
    resolve(r, n->u.comp.result);
    r->nnames = saved;
}

static void
resolve_children(resolver_t *r, cel__node_t **kids, int n)
{
    for (int i = 0; i < n; i++)
        resolve(r, kids[i]);
}

static void
resolve(resolver_t *r, cel__node_t *n)
{
    bool root;
    char *q;
    if (r->hard || (r->failed && !r->lenient) || (n->seen & CEL__SEEN_RESOLVE))
        return;
    n->seen |= CEL__SEEN_RESOLVE;
    switch (n->kind) {
    case CEL__N_CONST:
        break;
    case CEL__N_IDENT:
        n->u.ident.slot = n->u.ident.root ? -1 : local_slot(r, n->u.ident.name);
        if (n->u.ident.slot < 0)
            n->u.ident.cands = candidates(r, n->u.ident.name, n->u.ident.root, &n->u.ident.ncands);
        break;
    case CEL__N_SELECT:
        q = n->u.select.test_only ? NULL : qualified(r, n, &root);
        if (q != NULL)
            n->u.select.cands = candidates(r, q, root, &n->u.select.ncands);
        resolve(r, n->u.select.operand);
        break;
    case CEL__N_CALL:
        resolve_call(r, n);
        break;
    case CEL__N_LIST:
        resolve_children(r, n->u.list.elems, n->u.list.n);
        break;
    case CEL__N_MAP:
        resolve_children(r, n->u.map.keys, n->u.map.n);
        resolve_children(r, n->u.map.vals, n->u.map.n);
        break;
    case CEL__N_STRUCT:
        n->u.map.mtype = (uint8_t)cel__mutation_kind(r->env, n->u.map.type_name);
        resolve_children(r, n->u.map.vals, n->u.map.n);
        break;
    case CEL__N_COMP:
        resolve_comp(r, n);
        break;
    }
}

/* ---- Compiling ---- */

void
cel_issue_clear(cel_issue_t *issue)
{
    free(issue->message);
    memset(issue, 0, sizeof(*issue));
}

/* "ERROR: <input>:L:C: msg" and the source line with a caret under the column. */
static void
fill_issue(cel_issue_t *issue, const char *src, size_t pos, const char *msg)
{
    size_t line_start = 0;
    issue->line = 1;
    for (size_t i = 0; i < pos && src[i] != '\0'; i++) {
        if (src[i] == '\n')
            issue->line++, line_start = i + 1;
    }
    issue->column = (int)cel__utf8_count(src + line_start, pos - line_start) + 1;
    size_t line_end = line_start;
    while (src[line_end] != '\0' && src[line_end] != '\n')
        line_end++;
    int shown = line_end - line_start > 200 ? 200 : (int)(line_end - line_start);
    char dots[256];
    int ndots = issue->column - 1 < 200 ? issue->column - 1 : 200;
    memset(dots, '.', (size_t)ndots);
    dots[ndots] = '\0';
    size_t size = strlen(msg) + (size_t)shown + (size_t)ndots + 64;
    issue->message = cel__xmalloc(size);
    snprintf(issue->message, size, "ERROR: <input>:%d:%d: %s\n | %.*s\n | %s^", issue->line,
             issue->column, msg, shown, src + line_start, dots);
}

void
cel_program_free(cel_program_t *prog)
{
    if (prog == NULL)
        return;
    cel_arena_free(prog->arena);
    free(prog);
}

/* Parse and resolve `src` into a new program; NULL with `*err` filled when it does not parse
 * or, unless `lenient`, does not resolve. `*rfailed` tells a lenient resolution failed. */
static cel_program_t *
build(const cel_env_t *env, const char *src, bool lenient, cel__parse_err_t *err, bool *rfailed)
{
    cel__parse_opts_t opts = {
        .macros = env->macros,
        .max_expr_len = env->limits.max_expr_len,
        .max_depth = env->limits.max_depth,
        .max_height = env->limits.max_height,
    };
    cel_program_t *prog = cel__xcalloc(1, sizeof(*prog));
    prog->arena = cel_arena_new();
    prog->src = cel_arena_strndup(prog->arena, src, strlen(src));
    prog->root = cel__parse(prog->src, &opts, prog->arena, err);
    resolver_t r = {.env = env, .a = prog->arena, .err = err, .lenient = lenient};
    if (prog->root != NULL)
        resolve(&r, prog->root);
    *rfailed = r.failed;
    if (prog->root == NULL || r.hard || (r.failed && !lenient)) {
        cel_program_free(prog);
        return NULL;
    }
    prog->nslots = r.nslots;
    return prog;
}

/* Every type error as cel-go prints a list of issues, one report after the other. */
static void
join_issues(cel_issue_t *issue, const char *src, const cel__check_issue_t *is, int n)
{
    size_t total = 1;
    cel_issue_t *each = cel__xcalloc((size_t)n, sizeof(*each));
    for (int i = 0; i < n; i++) {
        fill_issue(&each[i], src, is[i].pos, is[i].msg);
        total += strlen(each[i].message) + 1;
    }
    *issue = each[0];
    issue->message = cel__xmalloc(total);
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(each[i].message);
        if (i > 0)
            issue->message[off++] = '\n';
        memcpy(issue->message + off, each[i].message, len);
        off += len;
        free(each[i].message);
    }
    issue->message[off] = '\0';
    free(each);
}

/* Type-check a resolved program and keep its estimated cost; CEL_EPARSE with `*issue`. */
static int
check_program(const cel_env_t *env, cel_program_t *prog, bool rfailed, const cel__parse_err_t *err,
              cel_issue_t *issue)
{
    cel_arena_t *tmp = cel_arena_new();
    cel__checked_t chk;
    cel__check_issue_t *is;
    int n = cel__check_tree(env, prog->src, prog->root, tmp, &chk, &is), rc = 0;
    if (n > 0) {
        join_issues(issue, prog->src, is, n);
        rc = CEL_EPARSE;
    } else if (rfailed) {
        fill_issue(issue, prog->src, err->pos, err->msg);
        rc = CEL_EPARSE;
    } else {
        prog->estimate = cel__estimate(prog->root, &chk, env, tmp);
        prog->checked = true;
    }
    cel_arena_free(tmp);
    return rc;
}

int
cel_compile(const cel_env_t *env, const char *src, cel_program_t **out, cel_issue_t *issue)
{
    cel__parse_err_t err = {0};
    bool rfailed;
    memset(issue, 0, sizeof(*issue));
    *out = NULL;
    cel_program_t *prog = build(env, src, env->type_check, &err, &rfailed);
    if (prog == NULL) {
        fill_issue(issue, src, err.pos, err.msg);
        return CEL_EPARSE;
    }
    if (env->type_check && check_program(env, prog, rfailed, &err, issue) != 0) {
        cel_program_free(prog);
        return CEL_EPARSE;
    }
    cel__cost_annotate(prog->root, env->optimize);
    *out = prog;
    return 0;
}

int
cel_program_estimate(const cel_program_t *prog, cel_cost_estimate_t *out)
{
    if (!prog->checked)
        return CEL_EINVAL;
    *out = prog->estimate;
    return 0;
}

static void
add_issue(cel_check_t *out, const char *src, size_t pos, const char *msg)
{
    out->issues = cel__xrealloc(out->issues, sizeof(*out->issues) * (out->nissues + 1));
    fill_issue(&out->issues[out->nissues++], src, pos, msg);
}

int
cel_check(const cel_env_t *env, const char *src, cel_check_t *out)
{
    cel__parse_err_t err = {0};
    bool rfailed;
    memset(out, 0, sizeof(*out));
    cel_program_t *prog = build(env, src, true, &err, &rfailed);
    if (prog == NULL) {
        add_issue(out, src, err.pos, err.msg);
        return CEL_EPARSE;
    }
    cel_arena_t *tmp = cel_arena_new();
    cel__checked_t chk;
    cel__check_issue_t *is;
    int n = cel__check_tree(env, prog->src, prog->root, tmp, &chk, &is);
    out->type = cel__xstrdup(cel__ty_text(tmp, chk.types[prog->root->id]));
    for (int i = 0; i < n; i++)
        add_issue(out, src, is[i].pos, is[i].msg);
    if (n == 0 && rfailed)
        add_issue(out, src, err.pos, err.msg);
    if (out->nissues == 0)
        out->cost = cel__estimate(prog->root, &chk, env, tmp);
    cel_arena_free(tmp);
    cel_program_free(prog);
    return out->nissues == 0 ? 0 : CEL_EPARSE;
}

void
cel_check_clear(cel_check_t *c)
{
    for (size_t i = 0; i < c->nissues; i++)
        free(c->issues[i].message);
    free(c->issues);
    free(c->type);
    memset(c, 0, sizeof(*c));
}
