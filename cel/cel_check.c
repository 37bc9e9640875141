/*
 * The type checker: cel-go's checker over our resolved tree. Each node gets a type; calls are
 * resolved against the overloads of cel_decls.c by unification with type parameters (cel-go's
 * mapping of type variables, kept here as bindings with an undo trail so a failed overload
 * attempt leaves no trace); macros are checked through their expansions. Errors are worded as
 * cel-go words them, at the positions cel-go reports.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

#define MAX_SLOTS 256
#define MAX_PARAMS 4
#define MAX_ISSUES 100 /* cel-go reports at most this many errors */

typedef struct trail {
    int var;
    const cel_decltype_t *old;
} trail_t;

typedef struct named {
    const char *name;
    int var;
} named_t;

typedef struct checker {
    const cel_env_t *env;
    cel_arena_t *a;
    const char *src;
    cel__checked_t *out;
    const cel_decltype_t **bound; /* by type variable */
    int nvars, capvars;
    trail_t *trail;
    int ntrail, captrail;
    named_t *named; /* type parameters of declarations, by name */
    int nnamed, capnamed;
    const cel_decltype_t *slots[MAX_SLOTS];
    cel__check_issue_t *issues;
    int nissues, capissues;
} checker_t;

static const cel_decltype_t *check(checker_t *c, cel__node_t *n);

static void *
grow_array(cel_arena_t *a, void *old, int n, int *cap, size_t size)
{
    if (n < *cap)
        return old;
    int ncap = *cap ? *cap * 2 : 16;
    void *p = cel_arena_alloc(a, size * (size_t)ncap);
    if (n > 0)
        memcpy(p, old, size * (size_t)n);
    *cap = ncap;
    return p;
}

/* ---- Issues ---- */

/* Where cel-go reports a call: at its open parenthesis, for calls written with a name. */
static size_t
report_pos(const checker_t *c, const cel__node_t *n)
{
    const char *name = n->kind == CEL__N_CALL ? n->u.call.name : "";
    bool named = (name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z');
    size_t p = n->pos;
    if (!named)
        return p;
    while (c->src[p] != '\0' && c->src[p] != '(') {
        if (c->src[p] == '/' && c->src[p + 1] == '/') {
            while (c->src[p] != '\0' && c->src[p] != '\n')
                p++;
        } else {
            p++;
        }
    }
    return c->src[p] == '(' ? p : n->pos;
}

static void issue(checker_t *c, const cel__node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
issue(checker_t *c, const cel__node_t *n, const char *fmt, ...)
{
    if (c->nissues == MAX_ISSUES)
        return;
    c->issues = grow_array(c->a, c->issues, c->nissues, &c->capissues, sizeof(*c->issues));
    va_list ap;
    va_start(ap, fmt);
    c->issues[c->nissues].msg = cel__arena_vsprintf(c->a, fmt, ap);
    va_end(ap);
    c->issues[c->nissues++].pos = report_pos(c, n);
}

static const char *
text(checker_t *c, const cel_decltype_t *t)
{
    return cel__ty_text(c->a, t);
}

/* ---- Type variables ---- */

static const cel_decltype_t *
fresh_var(checker_t *c)
{
    c->bound = grow_array(c->a, c->bound, c->nvars, &c->capvars, sizeof(*c->bound));
    c->bound[c->nvars] = NULL;
    const char *name = cel__arena_sprintf(c->a, "_var%d", c->nvars);
    return cel__ty_param(c->a, name, c->nvars++);
}

/* The variable of a type parameter: fresh ones carry it, declared ones get one by name. */
static int
var_of(checker_t *c, const cel_decltype_t *t)
{
    if (t->var >= 0)
        return t->var;
    for (int i = 0; i < c->nnamed; i++) {
        if (strcmp(c->named[i].name, t->name) == 0)
            return c->named[i].var;
    }
    c->named = grow_array(c->a, c->named, c->nnamed, &c->capnamed, sizeof(*c->named));
    c->named[c->nnamed].name = t->name;
    c->named[c->nnamed++].var = fresh_var(c)->var;
    return c->named[c->nnamed - 1].var;
}

static const cel_decltype_t *
find(checker_t *c, const cel_decltype_t *t)
{
    if (t->kind != CEL__TK_PARAM)
        return NULL;
    int v = var_of(c, t); /* may grow `bound` */
    return c->bound[v];
}

static void
bind(checker_t *c, const cel_decltype_t *param, const cel_decltype_t *t)
{
    int v = var_of(c, param);
    c->trail = grow_array(c->a, c->trail, c->ntrail, &c->captrail, sizeof(*c->trail));
    c->trail[c->ntrail++] = (trail_t){v, c->bound[v]};
    c->bound[v] = t;
}

static void
rollback(checker_t *c, int mark)
{
    while (c->ntrail > mark) {
        trail_t *t = &c->trail[--c->ntrail];
        c->bound[t->var] = t->old;
    }
}

/* ---- Unification (cel-go's checker/types.go) ---- */

static bool
is_dyn(const cel_decltype_t *t)
{
    return t->kind == CEL__TK_DYN;
}

static bool
is_dyn_or_error(const cel_decltype_t *t)
{
    return t->kind == CEL__TK_DYN || t->kind == CEL__TK_ERROR;
}

static int
nparams(const cel_decltype_t *t)
{
    switch (t->kind) {
    case CEL__TK_LIST:
    case CEL__TK_OPTIONAL:
        return 1;
    case CEL__TK_TYPE:
        return t->p[0] != NULL;
    case CEL__TK_MAP:
        return 2;
    default:
        return 0;
    }
}

static bool
less_specific(const cel_decltype_t *t1, const cel_decltype_t *t2)
{
    if (is_dyn(t1) || t1->kind == CEL__TK_PARAM)
        return true;
    if (is_dyn(t2) || t2->kind == CEL__TK_PARAM || t1->kind != t2->kind)
        return false;
    switch (t1->kind) {
    case CEL__TK_TYPE:
        return true;
    case CEL__TK_LIST:
    case CEL__TK_MAP:
    case CEL__TK_OPTIONAL:
        for (int i = 0; i < nparams(t1); i++) {
            if (!less_specific(t1->p[i], t2->p[i]))
                return false;
        }
        return true;
    default:
        return cel__ty_equal(t1, t2);
    }
}

static const cel_decltype_t *
most_general(const cel_decltype_t *t1, const cel_decltype_t *t2)
{
    return less_specific(t1, t2) ? t1 : t2;
}

/* The occurs check: whether type parameter `t` does not appear within `in`. */
static bool
not_referenced_in(checker_t *c, const cel_decltype_t *t, const cel_decltype_t *in)
{
    if (cel__ty_equal(t, in))
        return false;
    if (in->kind == CEL__TK_PARAM) {
        const cel_decltype_t *sub = find(c, in);
        return sub == NULL || not_referenced_in(c, t, sub);
    }
    for (int i = 0; i < nparams(in); i++) {
        if (!not_referenced_in(c, t, in->p[i]))
            return false;
    }
    return true;
}

static const cel_decltype_t *
substitute(checker_t *c, const cel_decltype_t *t, bool to_dyn)
{
    const cel_decltype_t *sub = find(c, t);
    if (sub != NULL)
        return substitute(c, sub, to_dyn);
    if (t->kind == CEL__TK_PARAM)
        return to_dyn ? &cel__t_dyn : t;
    int n = nparams(t);
    if (n == 0)
        return t;
    const cel_decltype_t *p0 = substitute(c, t->p[0], to_dyn);
    const cel_decltype_t *p1 = n > 1 ? substitute(c, t->p[1], to_dyn) : NULL;
    if (p0 == t->p[0] && p1 == t->p[1])
        return t;
    return cel__ty_new(c->a, t->kind, p0, p1);
}

static bool assignable_in(checker_t *c, const cel_decltype_t *t1, const cel_decltype_t *t2);

/* Whether t2 (a type parameter) may stand for t1; `*has_sub` tells it was already bound. */
static bool
valid_substitution(checker_t *c, const cel_decltype_t *t1, const cel_decltype_t *t2, bool *has_sub)
{
    const cel_decltype_t *sub = find(c, t2);
    *has_sub = sub != NULL;
    if (sub != NULL) {
        if (cel__ty_equal(t1, sub))
            return true;
        if (!assignable_in(c, t1, sub))
            return false;
        bind(c, t2, most_general(t1, sub));
        return true;
    }
    if (!not_referenced_in(c, t2, t1))
        return false;
    bind(c, t2, t1);
    return true;
}

/* Types null may be assigned to, as cel-go's legacy nullability says. */
static bool
nullable(const cel_decltype_t *t)
{
    switch (t->kind) {
    case CEL__TK_NULL:
    case CEL__TK_OPAQUE:
    case CEL__TK_OBJECT:
    case CEL__TK_OPTIONAL:
    case CEL__TK_TIMESTAMP:
    case CEL__TK_DURATION:
        return true;
    default:
        return false;
    }
}

static bool
assignable_in(checker_t *c, const cel_decltype_t *t1, const cel_decltype_t *t2)
{
    bool has_sub;
    if (t2->kind == CEL__TK_PARAM) {
        if (valid_substitution(c, t1, t2, &has_sub))
            return true;
        if (has_sub)
            return false;
    }
    if (t1->kind == CEL__TK_PARAM)
        return valid_substitution(c, t2, t1, &has_sub);
    if (is_dyn_or_error(t1) || is_dyn_or_error(t2))
        return true;
    if (t1->kind == CEL__TK_NULL)
        return nullable(t2);
    if (t2->kind == CEL__TK_NULL)
        return nullable(t1);
    if (t1->kind != t2->kind)
        return false;
    switch (t1->kind) {
    case CEL__TK_TYPE:
        return true;
    case CEL__TK_OPAQUE:
    case CEL__TK_OBJECT:
        return strcmp(t1->name, t2->name) == 0;
    case CEL__TK_LIST:
    case CEL__TK_MAP:
    case CEL__TK_OPTIONAL:
        for (int i = 0; i < nparams(t1); i++) {
            if (!assignable_in(c, t1->p[i], t2->p[i]))
                return false;
        }
        return true;
    default:
        return true;
    }
}

/* Whether a value of type t2 may be used where t1 is wanted; bindings are kept only when it
 * may. */
static bool
assignable(checker_t *c, const cel_decltype_t *t1, const cel_decltype_t *t2)
{
    int mark = c->ntrail;
    if (assignable_in(c, t1, t2))
        return true;
    rollback(c, mark);
    return false;
}

static bool
assignable_list(checker_t *c, const cel_decltype_t **l1, const cel_decltype_t *const *l2, int n)
{
    int mark = c->ntrail;
    for (int i = 0; i < n; i++) {
        if (!assignable_in(c, l1[i], l2[i])) {
            rollback(c, mark);
            return false;
        }
    }
    return true;
}

/* ---- Node types ---- */

static const cel_decltype_t *
set_type(checker_t *c, const cel__node_t *n, const cel_decltype_t *t)
{
    c->out->types[n->id] = t;
    return t;
}

static void
type_mismatch(checker_t *c, const cel__node_t *n, const cel_decltype_t *want,
              const cel_decltype_t *got)
{
    issue(c, n, "expected type '%s' but found '%s'", text(c, substitute(c, want, false)),
          text(c, substitute(c, got, false)));
}

static void
assert_type(checker_t *c, const cel__node_t *n, const cel_decltype_t *want)
{
    if (!assignable(c, want, c->out->types[n->id]))
        type_mismatch(c, n, want, c->out->types[n->id]);
}

static const cel_decltype_t *
const_type(const cel_value_t *v)
{
    switch (v->kind) {
    case CEL_NULL:
        return &cel__t_null;
    case CEL_BOOL:
        return &cel__t_bool;
    case CEL_INT:
        return &cel__t_int;
    case CEL_UINT:
        return &cel__t_uint;
    case CEL_DOUBLE:
        return &cel__t_double;
    case CEL_STRING:
        return &cel__t_string;
    default:
        return &cel__t_bytes;
    }
}

static const cel_decltype_t *
declared(checker_t *c, const char *name)
{
    for (const cel__decl_t *d = cel__env_decls(c->env); d != NULL; d = d->next) {
        if (strcmp(d->name, name) == 0)
            return d->type;
    }
    return cel__ty_of_type_name(c->a, name);
}

/* The first of the qualified names `cands` that is declared (or names a type); the name
 * found is noted for node `n`. */
static const cel_decltype_t *
lookup_decl(checker_t *c, const cel__node_t *n, const char **cands, int ncands)
{
    for (int i = 0; i < ncands; i++) {
        const cel_decltype_t *t = declared(c, cands[i]);
        if (t != NULL) {
            c->out->names[n->id] = cands[i];
            return t;
        }
    }
    return NULL;
}

static const cel_decltype_t *
check_ident(checker_t *c, cel__node_t *n)
{
    if (n->u.ident.slot >= 0)
        return set_type(c, n, c->slots[n->u.ident.slot]);
    const cel_decltype_t *t = lookup_decl(c, n, n->u.ident.cands, n->u.ident.ncands);
    if (t != NULL)
        return set_type(c, n, t);
    issue(c, n, "undeclared reference to '%s' (in container '%s')", n->u.ident.name,
          cel__env_container(c->env));
    return set_type(c, n, &cel__t_error);
}

/* The type of field `f` of a value of `operand` type; `optional` for x.?f. */
static const cel_decltype_t *
select_field(checker_t *c, const cel__node_t *n, const cel_decltype_t *operand, const char *f,
             size_t flen, bool optional)
{
    const cel_decltype_t *t = substitute(c, operand, false), *r = &cel__t_error;
    bool was_opt = t->kind == CEL__TK_OPTIONAL;
    const cel__field_t *field;
    if (was_opt)
        t = t->p[0];
    switch (t->kind) {
    case CEL__TK_MAP:
        r = t->p[1];
        break;
    case CEL__TK_OBJECT:
        field = cel__ty_field(t, f, flen);
        if (field != NULL)
            r = field->type;
        else if (t->open)
            r = &cel__t_dyn;
        else
            issue(c, n, "undefined field '%.*s'", (int)flen, f);
        break;
    case CEL__TK_PARAM:
        assignable(c, &cel__t_dyn, t);
        r = &cel__t_dyn;
        break;
    default:
        if (!is_dyn_or_error(t))
            issue(c, n, "type '%s' does not support field selection", text(c, t));
        r = &cel__t_dyn;
        break;
    }
    return was_opt || optional ? cel__ty_new(c->a, CEL__TK_OPTIONAL, r, NULL) : r;
}

static const cel_decltype_t *
check_select(checker_t *c, cel__node_t *n)
{
    if (n->u.select.ncands > 0) {
        const cel_decltype_t *t = lookup_decl(c, n, n->u.select.cands, n->u.select.ncands);
        if (t != NULL)
            return set_type(c, n, t);
    }
    const cel_decltype_t *ot = check(c, n->u.select.operand);
    const cel_decltype_t *r = select_field(c, n, ot, n->u.select.field, n->u.select.flen, false);
    return set_type(c, n, n->u.select.test_only ? &cel__t_bool : substitute(c, r, false));
}

/* ---- Calls ---- */

typedef struct inst {
    const char *names[MAX_PARAMS * 2];
    const cel_decltype_t *vars[MAX_PARAMS * 2];
    int n;
} inst_t;

/* An overload's type with its type parameters replaced by fresh variables. */
static const cel_decltype_t *
instantiate(checker_t *c, const cel_decltype_t *t, inst_t *in)
{
    if (t->kind == CEL__TK_PARAM) {
        for (int i = 0; i < in->n; i++) {
            if (strcmp(in->names[i], t->name) == 0)
                return in->vars[i];
        }
        in->names[in->n] = t->name;
        return in->vars[in->n++] = fresh_var(c);
    }
    int n = nparams(t);
    if (n == 0)
        return t;
    const cel_decltype_t *p0 = instantiate(c, t->p[0], in);
    return cel__ty_new(c->a, t->kind, p0, n > 1 ? instantiate(c, t->p[1], in) : NULL);
}

static void
no_overload(checker_t *c, const cel__node_t *n, const cel_decltype_t **args, int nargs, bool member)
{
    cel__buf_t b;
    cel__buf_init(&b, c->a, 64);
    int first = 0;
    if (member) {
        cel__ty_format(&b, substitute(c, args[0], true));
        cel__buf_putc(&b, '.');
        first = 1;
    }
    cel__buf_putc(&b, '(');
    for (int i = first; i < nargs; i++) {
        if (i > first)
            cel__buf_puts(&b, ", ");
        cel__ty_format(&b, substitute(c, args[i], true));
    }
    cel__buf_puts(&b, ")");
    cel__buf_putc(&b, '\0');
    issue(c, n, "found no matching overload for '%s' applied to '%s'", n->u.call.name, b.data);
}

static void
add_ref(checker_t *c, const cel__node_t *n, const char *id, int *nrefs)
{
    const char **old = c->out->overloads[n->id];
    const char **refs = cel_arena_alloc(c->a, sizeof(*refs) * (size_t)(*nrefs + 2));
    if (*nrefs > 0)
        memcpy(refs, old, sizeof(*refs) * (size_t)*nrefs);
    refs[(*nrefs)++] = id;
    c->out->overloads[n->id] = refs;
}

/* && and || take booleans; each argument that is not one is reported where it is. */
static const cel_decltype_t *
check_logic(checker_t *c, cel__node_t *n, const cel_decltype_t **args)
{
    bool ok = true;
    for (int i = 0; i < 2; i++) {
        if (!assignable(c, args[i], &cel__t_bool)) {
            type_mismatch(c, n->u.call.args[i], &cel__t_bool, args[i]);
            ok = false;
        }
    }
    int nrefs = 0;
    add_ref(c, n, n->u.call.name[1] == '&' ? "logical_and" : "logical_or", &nrefs);
    return set_type(c, n, ok ? &cel__t_bool : &cel__t_error);
}

static const cel_decltype_t *
resolve_overload(checker_t *c, cel__node_t *n, const cel_decltype_t **args, int nargs, bool member)
{
    int nov, nrefs = 0;
    const cel__overload_t *ovs = cel__decl_overloads(c->a, n->u.call.name, &nov);
    const cel_decltype_t *result = NULL;
    for (int i = 0; i < nov; i++) {
        if (ovs[i].member != member || ovs[i].nargs != nargs || cel__env_hidden(c->env, ovs[i].id))
            continue;
        inst_t in = {.n = 0};
        const cel_decltype_t *want[MAX_PARAMS];
        for (int k = 0; k < nargs; k++)
            want[k] = instantiate(c, ovs[i].args[k], &in);
        const cel_decltype_t *rt = instantiate(c, ovs[i].result, &in);
        if (!assignable_list(c, args, want, nargs))
            continue;
        add_ref(c, n, ovs[i].id, &nrefs);
        rt = substitute(c, rt, false);
        if (result == NULL)
            result = rt;
        else if (!is_dyn(result) && !cel__ty_equal(rt, result))
            result = &cel__t_dyn;
    }
    if (result == NULL) {
        no_overload(c, n, args, nargs, member);
        result = &cel__t_error;
    }
    return set_type(c, n, result);
}

static const cel_decltype_t *
check_opt_select(checker_t *c, cel__node_t *n)
{
    const cel_decltype_t *ot = check(c, n->u.call.args[0]);
    const cel_value_t *f = &n->u.call.args[1]->u.constant;
    set_type(c, n->u.call.args[1], &cel__t_string);
    int nrefs = 0;
    add_ref(c, n, "select_optional_field", &nrefs);
    const cel_decltype_t *r = select_field(c, n, ot, f->v.str.data, f->v.str.len, true);
    return set_type(c, n, substitute(c, r, false));
}

/* Every overload of `name` is hidden: the function is not in this environment. */
static bool
all_hidden(checker_t *c, const char *name)
{
    int nov;
    if (!cel__env_hidden(c->env, NULL))
        return false;
    const cel__overload_t *ovs = cel__decl_overloads(c->a, name, &nov);
    for (int i = 0; i < nov; i++)
        if (!cel__env_hidden(c->env, ovs[i].id))
            return false;
    return true;
}

static const cel_decltype_t *
check_call(checker_t *c, cel__node_t *n)
{
    const char *name = n->u.call.name;
    if (strcmp(name, "_?._") == 0)
        return check_opt_select(c, n);
    bool member = n->u.call.target != NULL;
    int nargs = n->u.call.nargs + member;
    const cel_decltype_t **args = cel_arena_alloc(c->a, sizeof(*args) * (size_t)(nargs + 1));
    /* cel-go checks the arguments before the target. */
    for (int i = 0; i < n->u.call.nargs; i++)
        args[i + member] = check(c, n->u.call.args[i]);
    if (member)
        args[0] = check(c, n->u.call.target);
    if (!cel__decl_known(name) || all_hidden(c, name) ||
        (strncmp(name, "jsonpatch.", 10) == 0 && !cel__env_mutation(c->env, NULL))) {
        issue(c, n, "undeclared reference to '%s' (in container '%s')", name,
              cel__env_container(c->env));
        return set_type(c, n, &cel__t_error);
    }
    if (!member && (strcmp(name, "_&&_") == 0 || strcmp(name, "_||_") == 0))
        return check_logic(c, n, args);
    return resolve_overload(c, n, args, nargs, member);
}

/* ---- Aggregates and comprehensions ---- */

/* The element type of an aggregate literal so far joined with the next one's: literals must be
 * homogeneous, as kube-apiserver's environments require. */
static const cel_decltype_t *
join(checker_t *c, const cel__node_t *e, const cel_decltype_t *prev, const cel_decltype_t *cur)
{
    if (prev == NULL)
        return cur;
    if (assignable(c, prev, cur))
        return most_general(prev, cur);
    type_mismatch(c, e, prev, cur);
    return &cel__t_error;
}

/* An optional entry's value (`?x`) must be an optional; its element type is the value's. */
static const cel_decltype_t *
entry_type(checker_t *c, const cel__node_t *e, const cel_decltype_t *t, bool optional)
{
    if (!optional)
        return t;
    const cel_decltype_t *s = substitute(c, t, false);
    if (s->kind == CEL__TK_OPTIONAL)
        return s->p[0];
    if (!is_dyn(s))
        type_mismatch(c, e, cel__ty_new(c->a, CEL__TK_OPTIONAL, s, NULL), s);
    return s;
}

static const cel_decltype_t *
check_list(checker_t *c, cel__node_t *n)
{
    const cel_decltype_t *elem = NULL;
    for (int i = 0; i < n->u.list.n; i++) {
        cel__node_t *e = n->u.list.elems[i];
        const cel_decltype_t *t = entry_type(c, e, check(c, e), n->u.list.optional[i]);
        elem = join(c, e, elem, t);
    }
    return set_type(c, n, cel__ty_new(c->a, CEL__TK_LIST, elem ? elem : fresh_var(c), NULL));
}

static const cel_decltype_t *
check_map(checker_t *c, cel__node_t *n)
{
    const cel_decltype_t *kt = NULL, *vt = NULL;
    for (int i = 0; i < n->u.map.n; i++) {
        cel__node_t *k = n->u.map.keys[i], *v = n->u.map.vals[i];
        kt = join(c, k, kt, check(c, k));
        vt = join(c, v, vt, entry_type(c, v, check(c, v), n->u.map.optional[i]));
    }
    if (kt == NULL)
        kt = fresh_var(c), vt = fresh_var(c);
    return set_type(c, n, cel__ty_new(c->a, CEL__TK_MAP, kt, vt));
}

/* A construction of a mutation library type: each field must be one of the type's, with a
 * value assignable to it (cel-go's checkCreateStruct). */
static const cel_decltype_t *
check_mutation_struct(checker_t *c, cel__node_t *n, const cel_decltype_t *t)
{
    for (int i = 0; i < n->u.map.n; i++) {
        const cel__node_t *key = n->u.map.keys[i];
        const cel_decltype_t *vt = c->out->types[n->u.map.vals[i]->id];
        const char *f = key->u.constant.v.str.data;
        const cel_decltype_t *ft = cel__mutation_field(c->env, c->a, t, f);
        if (ft == NULL) {
            issue(c, key, "undefined field '%s'", f);
            continue;
        }
        if (n->u.map.optional[i])
            ft = cel__ty_new(c->a, CEL__TK_OPTIONAL, ft, NULL);
        if (!assignable(c, ft, vt))
            issue(c, key, "expected type of field '%s' is '%s' but provided type is '%s'", f,
                  text(c, substitute(c, ft, false)), text(c, substitute(c, vt, false)));
    }
    return set_type(c, n, t);
}

static const cel_decltype_t *
check_struct(checker_t *c, cel__node_t *n)
{
    for (int i = 0; i < n->u.map.n; i++)
        check(c, n->u.map.vals[i]);
    const cel_decltype_t *t = cel__mutation_type(c->env, c->a, n->u.map.type_name);
    if (t != NULL)
        return check_mutation_struct(c, n, t);
    /* No other message types are declared: a type name is not one, anything else is unknown. */
    if (cel__ty_of_type_name(c->a, n->u.map.type_name) != NULL)
        issue(c, n, "'%s' is not a message type", n->u.map.type_name);
    else
        issue(c, n, "undeclared reference to '%s' (in container '%s')", n->u.map.type_name,
              cel__env_container(c->env));
    return set_type(c, n, &cel__t_error);
}

/* The types of a comprehension's variables over a range of type `rt`. */
static void
iter_types(checker_t *c, cel__node_t *n, const cel_decltype_t *rt, const cel_decltype_t **v1,
           const cel_decltype_t **v2)
{
    bool two = n->u.comp.iter_var2 != NULL;
    switch (rt->kind) {
    case CEL__TK_LIST:
        *v1 = two ? &cel__t_int : rt->p[0];
        *v2 = rt->p[0];
        break;
    case CEL__TK_MAP:
        *v1 = rt->p[0];
        *v2 = rt->p[1];
        break;
    case CEL__TK_DYN:
    case CEL__TK_ERROR:
    case CEL__TK_PARAM:
        assignable(c, &cel__t_dyn, rt);
        *v1 = *v2 = &cel__t_dyn;
        break;
    default:
        issue(c, n->u.comp.range,
              "expression of type '%s' cannot be range of a comprehension (must be list, map, "
              "or dynamic)",
              text(c, rt));
        *v1 = *v2 = &cel__t_error;
        break;
    }
}

static const cel_decltype_t *
check_comp(checker_t *c, cel__node_t *n)
{
    const cel_decltype_t *rt = substitute(c, check(c, n->u.comp.range), false);
    const cel_decltype_t *at = check(c, n->u.comp.init), *v1, *v2;
    c->slots[n->u.comp.accu_slot] = at;
    iter_types(c, n, rt, &v1, &v2);
    c->slots[n->u.comp.iter_slot] = v1;
    if (n->u.comp.iter_var2 != NULL)
        c->slots[n->u.comp.iter_slot2] = v2;
    check(c, n->u.comp.cond);
    assert_type(c, n->u.comp.cond, &cel__t_bool);
    check(c, n->u.comp.step);
    assert_type(c, n->u.comp.step, at);
    const cel_decltype_t *res = check(c, n->u.comp.result);
    return set_type(c, n, substitute(c, res, false));
}

static const cel_decltype_t *
check(checker_t *c, cel__node_t *n)
{
    /* A node with two parents (optMap's target) is checked once, in the one scope it is in. */
    if (c->out->types[n->id] != NULL)
        return c->out->types[n->id];
    switch (n->kind) {
    case CEL__N_CONST:
        return set_type(c, n, const_type(&n->u.constant));
    case CEL__N_IDENT:
        return check_ident(c, n);
    case CEL__N_SELECT:
        return check_select(c, n);
    case CEL__N_CALL:
        return check_call(c, n);
    case CEL__N_LIST:
        return check_list(c, n);
    case CEL__N_MAP:
        return check_map(c, n);
    case CEL__N_STRUCT:
        return check_struct(c, n);
    default:
        return check_comp(c, n);
    }
}

static uint32_t
max_id(cel__node_t *n)
{
    uint32_t m = n->id, k;
    if (n->seen & CEL__SEEN_COUNT)
        return m;
    n->seen |= CEL__SEEN_COUNT;
    cel__node_t *const *kids = NULL;
    int nk = 0;
    cel__node_t *five[5];
    switch (n->kind) {
    case CEL__N_SELECT:
        return (k = max_id(n->u.select.operand)) > m ? k : m;
    case CEL__N_CALL:
        if (n->u.call.target != NULL && (k = max_id(n->u.call.target)) > m)
            m = k;
        kids = n->u.call.args, nk = n->u.call.nargs;
        break;
    case CEL__N_LIST:
        kids = n->u.list.elems, nk = n->u.list.n;
        break;
    case CEL__N_MAP:
    case CEL__N_STRUCT:
        for (int i = 0; i < n->u.map.n; i++) {
            if ((k = max_id(n->u.map.vals[i])) > m)
                m = k;
            if ((k = max_id(n->u.map.keys[i])) > m)
                m = k;
        }
        return m;
    case CEL__N_COMP:
        five[0] = n->u.comp.range, five[1] = n->u.comp.init, five[2] = n->u.comp.cond;
        five[3] = n->u.comp.step, five[4] = n->u.comp.result;
        kids = five, nk = 5;
        break;
    default:
        return m;
    }
    for (int i = 0; i < nk; i++) {
        if ((k = max_id(kids[i])) > m)
            m = k;
    }
    return m;
}

int
cel__check_tree(const cel_env_t *env, const char *src, cel__node_t *root, cel_arena_t *a,
                cel__checked_t *out, cel__check_issue_t **issues)
{
    checker_t c = {.env = env, .a = a, .src = src, .out = out};
    out->nnodes = max_id(root) + 1;
    out->types = cel_arena_alloc(a, sizeof(*out->types) * out->nnodes);
    out->overloads = cel_arena_alloc(a, sizeof(*out->overloads) * out->nnodes);
    out->names = cel_arena_alloc(a, sizeof(*out->names) * out->nnodes);
    check(&c, root);
    /* Type parameters still unbound are dyn from here on. */
    for (uint32_t i = 0; i < out->nnodes; i++) {
        if (out->types[i] != NULL)
            out->types[i] = substitute(&c, out->types[i], true);
    }
    *issues = c.issues;
    return c.nissues;
}
