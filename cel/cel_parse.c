/*
 * The parser: recursive descent over CEL's grammar (precedence climbing), building a tree
 * whose operators are calls named as in the CEL spec ("_+_", "_[_]", "@in", ...). Macros are
 * expanded here into comprehension nodes, as the spec defines them. Chains of && and || are
 * built as balanced trees so long conjunctions stay shallow.
 */
#include "cel.h"

#include <stdio.h>
#include <string.h>

#include "cel_int.h"

typedef struct parser {
    cel__lexer_t lx;
    cel__token_t tok;
    cel_arena_t *a;
    const cel__parse_opts_t *opts;
    cel__parse_err_t *err;
    bool failed;
    int depth;
    uint32_t next_id;
    size_t sign_pos; /* where the minus of a negative number literal is */
} parser_t;

static cel__node_t *parse_expr(parser_t *p);

static void fail(parser_t *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
fail(parser_t *p, size_t pos, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = true;
    p->err->pos = pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
    va_end(ap);
}

static void
next(parser_t *p)
{
    cel__lex_next(&p->lx, &p->tok);
    if (p->tok.kind == CEL__T_ERROR)
        fail(p, p->tok.pos, "Syntax error: %s", p->tok.msg);
}

static void
unexpected(parser_t *p)
{
    if (p->tok.kind == CEL__T_EOF) {
        fail(p, p->tok.pos, "Syntax error: unexpected end of input");
        return;
    }
    int n = (int)(p->tok.end - p->tok.pos);
    fail(p, p->tok.pos, "Syntax error: unexpected '%.*s'", n > 40 ? 40 : n, p->lx.src + p->tok.pos);
}

static bool
expect(parser_t *p, cel__tok_kind_t k)
{
    if (p->failed)
        return false;
    if (p->tok.kind != k) {
        if (p->tok.kind == CEL__T_EOF || p->tok.pos >= p->lx.len)
            fail(p, p->tok.pos, "Syntax error: expected %s, got end of input", cel__tok_name(k));
        else
            fail(p, p->tok.pos, "Syntax error: expected %s, got '%.*s'", cel__tok_name(k),
                 (int)(p->tok.end - p->tok.pos), p->lx.src + p->tok.pos);
        return false;
    }
    next(p);
    return !p->failed;
}

/* ---- Node construction ---- */

static cel__node_t *
new_node(parser_t *p, cel__node_kind_t kind, size_t pos)
{
    cel__node_t *n = cel_arena_alloc(p->a, sizeof(*n));
    n->kind = kind;
    n->id = ++p->next_id;
    n->pos = pos;
    n->height = 1;
    return n;
}

static void
grow(parser_t *p, cel__node_t *n, const cel__node_t *child)
{
    if (child != NULL && child->height + 1 > n->height)
        n->height = child->height + 1;
    if (n->height > p->opts->max_height)
        fail(p, n->pos, "expression too deeply nested (more than %d levels)", p->opts->max_height);
}

static cel__node_t *
new_const(parser_t *p, size_t pos, cel_value_t v)
{
    cel__node_t *n = new_node(p, CEL__N_CONST, pos);
    n->u.constant = v;
    return n;
}

static cel__node_t *
new_ident(parser_t *p, size_t pos, const char *name, size_t len)
{
    cel__node_t *n = new_node(p, CEL__N_IDENT, pos);
    n->u.ident.name = cel_arena_strndup(p->a, name, len);
    n->u.ident.slot = -1;
    return n;
}

static cel__node_t *
new_call(parser_t *p, size_t pos, cel__node_t *target, const char *name, int nargs, ...)
{
    cel__node_t *n = new_node(p, CEL__N_CALL, pos);
    n->u.call.target = target;
    n->u.call.name = name;
    n->u.call.nargs = nargs;
    n->u.call.args = cel_arena_alloc(p->a, sizeof(cel__node_t *) * (size_t)(nargs ? nargs : 1));
    grow(p, n, target);
    va_list ap;
    va_start(ap, nargs);
    for (int i = 0; i < nargs; i++) {
        n->u.call.args[i] = va_arg(ap, cel__node_t *);
        grow(p, n, n->u.call.args[i]);
    }
    va_end(ap);
    return n;
}

static cel__node_t *
new_select(parser_t *p, size_t pos, cel__node_t *operand, const char *f, size_t flen)
{
    cel__node_t *n = new_node(p, CEL__N_SELECT, pos);
    n->u.select.operand = operand;
    n->u.select.field = cel_arena_strndup(p->a, f, flen);
    n->u.select.flen = flen;
    grow(p, n, operand);
    return n;
}

/* Balanced tree of `op` over ops[lo..hi]; positions of the operators in pos[]. */
static cel__node_t *
balance(parser_t *p, const char *op, cel__node_t **ops, size_t *pos, int lo, int hi)
{
    if (lo == hi)
        return ops[lo];
    int mid = (lo + hi + 1) / 2;
    cel__node_t *l = balance(p, op, ops, pos, lo, mid - 1);
    cel__node_t *r = balance(p, op, ops, pos, mid, hi);
    return new_call(p, pos[mid], NULL, op, 2, l, r);
}

/* ---- Macros ---- */

static cel__node_t *
accu(parser_t *p, size_t pos)
{
    return new_ident(p, pos, CEL__ACCU, strlen(CEL__ACCU));
}

static cel__node_t *
new_comp(parser_t *p, size_t pos, const char *iter, cel__node_t *range, const char *accu_var,
         cel__node_t *init, cel__node_t *cond, cel__node_t *step, cel__node_t *result)
{
    cel__node_t *n = new_node(p, CEL__N_COMP, pos);
    n->u.comp.iter_var = iter;
    n->u.comp.range = range;
    n->u.comp.accu_var = accu_var;
    n->u.comp.init = init;
    n->u.comp.cond = cond;
    n->u.comp.step = step;
    n->u.comp.result = result;
    cel__node_t *kids[] = {range, init, cond, step, result};
    for (size_t i = 0; i < 5; i++)
        grow(p, n, kids[i]);
    return n;
}

static cel__node_t *
list_of(parser_t *p, size_t pos, cel__node_t *elem)
{
    cel__node_t *n = new_node(p, CEL__N_LIST, pos);
    n->u.list.n = elem ? 1 : 0;
    n->u.list.elems = cel_arena_alloc(p->a, sizeof(cel__node_t *));
    n->u.list.optional = cel_arena_alloc(p->a, sizeof(bool));
    n->u.list.elems[0] = elem;
    grow(p, n, elem);
    return n;
}

static const char *
simple_name(parser_t *p, const cel__node_t *arg)
{
    if (arg->kind != CEL__N_IDENT || arg->u.ident.root) {
        fail(p, arg->pos, "argument must be a simple name");
        return NULL;
    }
    return arg->u.ident.name;
}

/* e.all(x, p), e.exists(x, p), e.exists_one(x, p), e.map(x, [p,] t), e.filter(x, p). */
static cel__node_t *
expand_comprehension(parser_t *p, size_t pos, cel__node_t *t, const char *name, cel__node_t **args,
                     int n)
{
    const char *x = simple_name(p, args[0]);
    if (x == NULL)
        return NULL;
    cel__node_t *body = args[n - 1];
    cel_value_t zero = cel_int(0);
    if (strcmp(name, "all") == 0 || strcmp(name, "exists") == 0) {
        bool all = name[0] == 'a';
        cel__node_t *r = accu(p, pos);
        cel__node_t *cond = new_call(p, pos, NULL, "@not_strictly_false", 1,
                                     all ? r : new_call(p, pos, NULL, "!_", 1, r));
        cel__node_t *step = new_call(p, pos, NULL, all ? "_&&_" : "_||_", 2, accu(p, pos), body);
        return new_comp(p, pos, x, t, CEL__ACCU, new_const(p, pos, cel_bool(all)), cond, step,
                        accu(p, pos));
    }
    if (strcmp(name, "exists_one") == 0) {
        cel__node_t *inc =
            new_call(p, pos, NULL, "_+_", 2, accu(p, pos), new_const(p, pos, cel_int(1)));
        cel__node_t *step = new_call(p, pos, NULL, "_?_:_", 3, body, inc, accu(p, pos));
        cel__node_t *res =
            new_call(p, pos, NULL, "_==_", 2, accu(p, pos), new_const(p, pos, cel_int(1)));
        return new_comp(p, pos, x, t, CEL__ACCU, new_const(p, pos, zero),
                        new_const(p, pos, cel_bool(true)), step, res);
    }
    /* map and filter append to the accumulator list. */
    bool filter = strcmp(name, "filter") == 0;
    cel__node_t *elem = filter ? new_ident(p, pos, x, strlen(x)) : body;
    cel__node_t *step = new_call(p, pos, NULL, "_+_", 2, accu(p, pos), list_of(p, pos, elem));
    if (filter || n == 3)
        step = new_call(p, pos, NULL, "_?_:_", 3, filter ? body : args[1], step, accu(p, pos));
    return new_comp(p, pos, x, t, CEL__ACCU, list_of(p, pos, NULL),
                    new_const(p, pos, cel_bool(true)), step, accu(p, pos));
}

/* cel-go's two-variable comprehensions: all, exists, existsOne (or exists_one) with
 * (i, v, predicate), and transformList, transformMap, transformMapEntry with
 * (i, v, [filter,] transform); over a list i is the index, over a map the key. */
static cel__node_t *
expand_two_var(parser_t *p, size_t pos, cel__node_t *t, const char *name, cel__node_t **args, int n)
{
    const char *x = simple_name(p, args[0]), *y = x ? simple_name(p, args[1]) : NULL;
    if (y == NULL)
        return NULL;
    cel__node_t *last = args[n - 1], *init, *cond = new_const(p, pos, cel_bool(true)), *step, *res;
    res = accu(p, pos);
    if (strcmp(name, "all") == 0 || strcmp(name, "exists") == 0) {
        bool all = name[0] == 'a';
        init = new_const(p, pos, cel_bool(all));
        cond = new_call(p, pos, NULL, "@not_strictly_false", 1,
                        all ? accu(p, pos) : new_call(p, pos, NULL, "!_", 1, accu(p, pos)));
        step = new_call(p, pos, NULL, all ? "_&&_" : "_||_", 2, accu(p, pos), last);
    } else if (strcmp(name, "existsOne") == 0 || strcmp(name, "exists_one") == 0) {
        init = new_const(p, pos, cel_int(0));
        cel__node_t *inc =
            new_call(p, pos, NULL, "_+_", 2, accu(p, pos), new_const(p, pos, cel_int(1)));
        step = new_call(p, pos, NULL, "_?_:_", 3, last, inc, accu(p, pos));
        res = new_call(p, pos, NULL, "_==_", 2, accu(p, pos), new_const(p, pos, cel_int(1)));
    } else if (strcmp(name, "transformList") == 0) {
        init = list_of(p, pos, NULL);
        step = new_call(p, pos, NULL, "_+_", 2, accu(p, pos), list_of(p, pos, last));
    } else {
        init = new_node(p, CEL__N_MAP, pos);
        step = strcmp(name, "transformMap") == 0
                   ? new_call(p, pos, NULL, "cel.@mapInsert", 3, accu(p, pos),
                              new_ident(p, pos, x, strlen(x)), last)
                   : new_call(p, pos, NULL, "cel.@mapInsert", 2, accu(p, pos), last);
    }
    if (n == 4)
        step = new_call(p, pos, NULL, "_?_:_", 3, args[2], step, accu(p, pos));
    cel__node_t *c = new_comp(p, pos, x, t, CEL__ACCU, init, cond, step, res);
    c->u.comp.iter_var2 = y;
    return c;
}

/* cel.bind(v, init, e): e with v bound to init, as a comprehension over nothing. */
static cel__node_t *
expand_bind(parser_t *p, size_t pos, cel__node_t **args)
{
    const char *v = simple_name(p, args[0]);
    if (v == NULL)
        return NULL;
    return new_comp(p, pos, "#unused", list_of(p, pos, NULL), v, args[1],
                    new_const(p, pos, cel_bool(false)), new_ident(p, pos, v, strlen(v)), args[2]);
}

/* o.optMap(x, e) and o.optFlatMap(x, e). */
static cel__node_t *
expand_opt_map(parser_t *p, size_t pos, cel__node_t *o, bool flat, cel__node_t **args)
{
    if (simple_name(p, args[0]) == NULL)
        return NULL;
    cel__node_t *val = new_call(p, pos, o, "value", 0);
    cel__node_t *bind_args[] = {args[0], val, args[1]};
    cel__node_t *bound = expand_bind(p, pos, bind_args);
    if (!flat)
        bound = new_call(p, pos, NULL, "optional.of", 1, bound);
    return new_call(p, pos, NULL, "_?_:_", 3, new_call(p, pos, o, "hasValue", 0), bound,
                    new_call(p, pos, NULL, "optional.none", 0));
}

/* l.sortBy(x, key): cel-go's expansion, a binding of the list that is sorted by the keys its
 * elements map to: @sortByAssociatedKeys(l, l.map(x, key)). */
static cel__node_t *
expand_sort_by(parser_t *p, size_t pos, cel__node_t *t, cel__node_t **args)
{
    static const char input[] = "@__sortBy_input__";
    if (t->kind == CEL__N_CONST || t->kind == CEL__N_MAP || t->kind == CEL__N_STRUCT) {
        fail(p, t->pos,
             "sortBy can only be applied to a list, identifier, comprehension, call or select "
             "expression");
        return NULL;
    }
    cel__node_t *keys =
        expand_comprehension(p, pos, new_ident(p, pos, input, strlen(input)), "map", args, 2);
    if (keys == NULL)
        return NULL;
    cel__node_t *sorted =
        new_call(p, pos, new_ident(p, pos, input, strlen(input)), "@sortByAssociatedKeys", 1, keys);
    return new_comp(p, pos, "#unused", list_of(p, pos, NULL), input, t,
                    new_const(p, pos, cel_bool(false)), new_ident(p, pos, input, strlen(input)),
                    sorted);
}

static bool
is_ident(const cel__node_t *n, const char *name)
{
    return n != NULL && n->kind == CEL__N_IDENT && !n->u.ident.root &&
           strcmp(n->u.ident.name, name) == 0;
}

/* What cel-go's math macros accept as an argument: anything but a non-numeric literal or a
 * list, map or message literal. */
static bool
numeric_arg(const cel__node_t *a)
{
    if (a->kind == CEL__N_CONST) {
        cel_kind_t k = a->u.constant.kind;
        return k == CEL_INT || k == CEL_UINT || k == CEL_DOUBLE;
    }
    return a->kind != CEL__N_LIST && a->kind != CEL__N_MAP && a->kind != CEL__N_STRUCT;
}

static bool
numeric_list(const cel__node_t *a)
{
    if (a->kind != CEL__N_LIST || a->u.list.n == 0)
        return false;
    for (int i = 0; i < a->u.list.n; i++) {
        if (!numeric_arg(a->u.list.elems[i]))
            return false;
    }
    return true;
}

/* math.greatest(...) / math.least(...): cel-go's macros, calls of math.@max / math.@min on one
 * argument, a pair, or a list of three or more. */
static cel__node_t *
expand_math(parser_t *p, size_t pos, cel__node_t *t, const char *name, cel__node_t **args, int n)
{
    const char *fn = name[0] == 'g' ? "math.@max" : "math.@min";
    if (n == 0) {
        fail(p, t->pos, "math.%s() requires at least one argument", name);
        return NULL;
    }
    if (n == 1) {
        if (numeric_list(args[0]) || numeric_arg(args[0]))
            return new_call(p, pos, NULL, fn, 1, args[0]);
        fail(p, args[0]->pos, "math.%s() invalid single argument value", name);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if (!numeric_arg(args[i])) {
            fail(p, args[i]->pos, "math.%s() simple literal arguments must be numeric", name);
            return NULL;
        }
    }
    if (n == 2)
        return new_call(p, pos, NULL, fn, 2, args[0], args[1]);
    cel__node_t *list = new_node(p, CEL__N_LIST, pos);
    list->u.list.elems = args;
    list->u.list.optional = cel_arena_alloc(p->a, sizeof(bool) * (size_t)n);
    list->u.list.n = n;
    for (int i = 0; i < n; i++)
        grow(p, list, args[i]);
    return new_call(p, pos, NULL, fn, 1, list);
}

/* A macro call, or NULL with *handled false when the call is an ordinary one. */
static cel__node_t *
expand_macro(parser_t *p, size_t pos, cel__node_t *t, const char *name, cel__node_t **args, int n,
             bool *handled)
{
    *handled = true;
    if (t == NULL && strcmp(name, "has") == 0 && n == 1) {
        if (args[0]->kind != CEL__N_SELECT) {
            fail(p, args[0]->pos, "invalid argument to has() macro");
            return NULL;
        }
        args[0]->u.select.test_only = true;
        return args[0];
    }
    if (t != NULL && n == 2 &&
        (strcmp(name, "all") == 0 || strcmp(name, "exists") == 0 ||
         strcmp(name, "exists_one") == 0 || strcmp(name, "filter") == 0 ||
         strcmp(name, "map") == 0))
        return expand_comprehension(p, pos, t, name, args, n);
    if (t != NULL && n == 3 && strcmp(name, "map") == 0)
        return expand_comprehension(p, pos, t, name, args, n);
    if (t != NULL && n == 3 &&
        (strcmp(name, "all") == 0 || strcmp(name, "exists") == 0 ||
         strcmp(name, "existsOne") == 0 || strcmp(name, "exists_one") == 0))
        return expand_two_var(p, pos, t, name, args, n);
    if (t != NULL && (n == 3 || n == 4) &&
        (strcmp(name, "transformList") == 0 || strcmp(name, "transformMap") == 0 ||
         strcmp(name, "transformMapEntry") == 0))
        return expand_two_var(p, pos, t, name, args, n);
    if (n == 3 && strcmp(name, "bind") == 0 && is_ident(t, "cel"))
        return expand_bind(p, pos, args);
    if (t != NULL && n == 2 && (strcmp(name, "optMap") == 0 || strcmp(name, "optFlatMap") == 0))
        return expand_opt_map(p, pos, t, name[3] == 'F', args);
    if (t != NULL && n == 2 && strcmp(name, "sortBy") == 0)
        return expand_sort_by(p, pos, t, args);
    if (is_ident(t, "math") && (strcmp(name, "greatest") == 0 || strcmp(name, "least") == 0))
        return expand_math(p, pos, t, name, args, n);
    *handled = false;
    return NULL;
}

/* ---- Grammar ---- */

/* "(" [expr {"," expr}] ")" with the current token at "(". */
static cel__node_t **
parse_args(parser_t *p, int *n)
{
    size_t cap = 4;
    cel__node_t **args = cel_arena_alloc(p->a, cap * sizeof(*args));
    *n = 0;
    next(p);
    if (p->tok.kind == CEL__T_RPAREN) {
        next(p);
        return args;
    }
    for (;;) {
        cel__node_t *e = parse_expr(p);
        if (e == NULL)
            return NULL;
        if ((size_t)*n == cap) {
            cel__node_t **bigger = cel_arena_alloc(p->a, 2 * cap * sizeof(*args));
            memcpy(bigger, args, cap * sizeof(*args));
            args = bigger, cap *= 2;
        }
        args[(*n)++] = e;
        if (p->tok.kind != CEL__T_COMMA)
            break;
        next(p);
    }
    return expect(p, CEL__T_RPAREN) ? args : NULL;
}

static cel__node_t *
make_call(parser_t *p, size_t pos, cel__node_t *target, const char *name, size_t len)
{
    int n;
    cel__node_t **args = parse_args(p, &n);
    if (args == NULL)
        return NULL;
    char *fname = cel_arena_strndup(p->a, name, len);
    if (p->opts->macros) {
        bool handled;
        cel__node_t *m = expand_macro(p, pos, target, fname, args, n, &handled);
        if (handled)
            return m;
    }
    cel__node_t *c = new_call(p, pos, target, fname, 0);
    c->u.call.args = args;
    c->u.call.nargs = n;
    for (int i = 0; i < n; i++)
        grow(p, c, args[i]);
    return c;
}

/* Elements of a list, map or message literal up to `close`; `keyed` wants key ":" value. */
static cel__node_t *
parse_entries(parser_t *p, cel__node_t *n, cel__tok_kind_t close, bool keyed, bool fields)
{
    size_t cap = 4;
    cel__node_t **keys = cel_arena_alloc(p->a, cap * sizeof(*keys));
    cel__node_t **vals = cel_arena_alloc(p->a, cap * sizeof(*vals));
    bool *opt = cel_arena_alloc(p->a, cap);
    int count = 0;
    next(p);
    while (!p->failed && p->tok.kind != close) {
        if ((size_t)count == cap) {
            cel__node_t **k2 = cel_arena_alloc(p->a, 2 * cap * sizeof(*keys));
            cel__node_t **v2 = cel_arena_alloc(p->a, 2 * cap * sizeof(*vals));
            bool *o2 = cel_arena_alloc(p->a, 2 * cap);
            memcpy(k2, keys, cap * sizeof(*keys));
            memcpy(v2, vals, cap * sizeof(*vals));
            memcpy(o2, opt, cap);
            keys = k2, vals = v2, opt = o2, cap *= 2;
        }
        if (p->tok.kind == CEL__T_QUESTION) {
            opt[count] = true;
            next(p);
        }
        if (fields) {
            if (p->tok.kind != CEL__T_IDENT && p->tok.kind != CEL__T_QIDENT) {
                unexpected(p);
                return NULL;
            }
            keys[count] = new_const(p, p->tok.pos, cel_string(p->a, p->tok.str, p->tok.len));
            next(p);
            /* cel-go places a field initializer at its colon (checker messages point there). */
            keys[count]->pos = p->tok.pos;
        } else if ((keys[count] = parse_expr(p)) == NULL) {
            return NULL;
        }
        if (keyed && (!expect(p, CEL__T_COLON) || (vals[count] = parse_expr(p)) == NULL))
            return NULL;
        grow(p, n, keys[count]);
        grow(p, n, keyed ? vals[count] : NULL);
        count++;
        if (p->tok.kind != CEL__T_COMMA)
            break;
        next(p);
    }
    if (!expect(p, close))
        return NULL;
    if (n->kind == CEL__N_LIST) {
        n->u.list.elems = keys, n->u.list.optional = opt, n->u.list.n = count;
    } else {
        n->u.map.keys = keys, n->u.map.vals = vals, n->u.map.optional = opt, n->u.map.n = count;
    }
    return n;
}

/* A dotted name chain (ident or selects of idents) as text, for message type names. */
static char *
chain_name(parser_t *p, const cel__node_t *n)
{
    if (n->kind == CEL__N_IDENT)
        return cel__arena_sprintf(p->a, "%s%s", n->u.ident.root ? "." : "", n->u.ident.name);
    return cel__arena_sprintf(p->a, "%s.%s", chain_name(p, n->u.select.operand), n->u.select.field);
}

static cel__node_t *
parse_literal_int(parser_t *p, bool negate, size_t pos)
{
    uint64_t mag = 0;
    bool over = false;
    for (size_t i = 0; i < p->tok.len; i++) {
        char c = p->tok.str[i];
        unsigned d = (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        if (mag > (UINT64_MAX - d) / (unsigned)p->tok.base)
            over = true;
        mag = mag * (unsigned)p->tok.base + d;
    }
    cel__tok_kind_t kind = p->tok.kind;
    next(p);
    if (kind == CEL__T_UINT) {
        if (over)
            fail(p, pos, "invalid uint literal: out of range");
        return new_const(p, pos, cel_uint(mag));
    }
    if (over || mag > (uint64_t)INT64_MAX + (negate ? 1 : 0))
        fail(p, pos, "invalid int literal: out of range");
    int64_t v =
        negate ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
    return new_const(p, pos, cel_int(v));
}

static cel__node_t *
parse_name_or_call(parser_t *p, bool root, size_t pos)
{
    if (p->tok.kind != CEL__T_IDENT) {
        unexpected(p);
        return NULL;
    }
    if (cel__lex_reserved(p->tok.str, p->tok.len)) {
        fail(p, p->tok.pos, "reserved identifier: %.*s", (int)p->tok.len, p->tok.str);
        return NULL;
    }
    const char *name = p->tok.str;
    size_t len = p->tok.len;
    next(p);
    if (p->tok.kind == CEL__T_LPAREN)
        return make_call(p, pos, NULL, name, len);
    cel__node_t *n = new_ident(p, pos, name, len);
    n->u.ident.root = root;
    return n;
}

static cel__node_t *
parse_primary(parser_t *p, bool negate, bool *name_chain)
{
    size_t pos = negate ? p->sign_pos : p->tok.pos; /* a signed literal starts at its sign */
    cel__tok_kind_t k = p->tok.kind;
    *name_chain = false;
    switch (k) {
    case CEL__T_INT:
    case CEL__T_UINT:
        return parse_literal_int(p, negate, pos);
    case CEL__T_DOUBLE: {
        double d = negate ? -p->tok.d : p->tok.d;
        next(p);
        return new_const(p, pos, cel_double(d));
    }
    case CEL__T_STRING:
    case CEL__T_BYTES: {
        cel_value_t v = k == CEL__T_STRING ? cel__string_own(p->tok.str, p->tok.len)
                                           : cel_bytes(p->a, p->tok.str, p->tok.len);
        next(p);
        return new_const(p, pos, v);
    }
    case CEL__T_TRUE:
    case CEL__T_FALSE:
    case CEL__T_NULL:
        next(p);
        return new_const(p, pos, k == CEL__T_NULL ? cel_null() : cel_bool(k == CEL__T_TRUE));
    case CEL__T_DOT:
    case CEL__T_IDENT: {
        if (k == CEL__T_DOT)
            next(p);
        cel__node_t *n = parse_name_or_call(p, k == CEL__T_DOT, pos);
        *name_chain = n != NULL && n->kind == CEL__N_IDENT;
        return n;
    }
    case CEL__T_LPAREN: {
        next(p);
        cel__node_t *e = parse_expr(p);
        return e != NULL && expect(p, CEL__T_RPAREN) ? e : NULL;
    }
    case CEL__T_LBRACKET:
        return parse_entries(p, new_node(p, CEL__N_LIST, pos), CEL__T_RBRACKET, false, false);
    case CEL__T_LBRACE:
        return parse_entries(p, new_node(p, CEL__N_MAP, pos), CEL__T_RBRACE, true, false);
    default:
        unexpected(p);
        return NULL;
    }
}

static cel__node_t *
parse_dot(parser_t *p, cel__node_t *e, bool *name_chain)
{
    size_t pos = p->tok.pos;
    next(p);
    bool opt = false;
    if (p->tok.kind == CEL__T_QUESTION) {
        opt = true;
        next(p);
    }
    if (p->tok.kind != CEL__T_IDENT && p->tok.kind != CEL__T_QIDENT) {
        unexpected(p);
        return NULL;
    }
    /* Reserved words are refused as identifiers only: cel-go's grammar lets them name fields
     * and methods, which kube-apiserver objects need (metadata.namespace). */
    const char *f = p->tok.str;
    size_t flen = p->tok.len;
    bool quoted = p->tok.kind == CEL__T_QIDENT;
    next(p);
    if (!opt && !quoted && p->tok.kind == CEL__T_LPAREN) {
        *name_chain = false;
        return make_call(p, pos, e, f, flen);
    }
    *name_chain = *name_chain && !opt && !quoted;
    if (opt) {
        cel__node_t *field = new_const(p, pos, cel_string(p->a, f, flen));
        cel__node_t *c = new_call(p, pos, NULL, "_?._", 2, e, field);
        return c;
    }
    return new_select(p, pos, e, f, flen);
}

static cel__node_t *
parse_member(parser_t *p, bool negate)
{
    bool name_chain;
    cel__node_t *e = parse_primary(p, negate, &name_chain);
    while (e != NULL && !p->failed) {
        size_t pos = p->tok.pos;
        if (p->tok.kind == CEL__T_DOT) {
            e = parse_dot(p, e, &name_chain);
        } else if (p->tok.kind == CEL__T_LBRACKET) {
            next(p);
            bool opt = p->tok.kind == CEL__T_QUESTION;
            if (opt)
                next(p);
            cel__node_t *idx = parse_expr(p);
            if (idx == NULL || !expect(p, CEL__T_RBRACKET))
                return NULL;
            e = new_call(p, pos, NULL, opt ? "_[?_]" : "_[_]", 2, e, idx);
            name_chain = false;
        } else if (p->tok.kind == CEL__T_LBRACE && name_chain) {
            cel__node_t *s = new_node(p, CEL__N_STRUCT, pos);
            s->u.map.type_name = chain_name(p, e);
            e = parse_entries(p, s, CEL__T_RBRACE, true, true);
            name_chain = false;
        } else {
            break;
        }
    }
    return p->failed ? NULL : e;
}

static cel__node_t *
parse_unary(parser_t *p)
{
    cel__tok_kind_t k = p->tok.kind;
    if (k != CEL__T_NOT && k != CEL__T_MINUS)
        return parse_member(p, false);
    size_t cap = 8, count = 0;
    size_t *pos = cel_arena_alloc(p->a, cap * sizeof(size_t));
    while (p->tok.kind == k && !p->failed) {
        if (count == cap) {
            size_t *bigger = cel_arena_alloc(p->a, 2 * cap * sizeof(size_t));
            memcpy(bigger, pos, cap * sizeof(size_t));
            pos = bigger, cap *= 2;
        }
        pos[count++] = p->tok.pos;
        next(p);
    }
    /* A minus right before a number is the literal's sign, so -9223372036854775808 is an
     * int; any other minuses negate the result. */
    bool negate = k == CEL__T_MINUS && (p->tok.kind == CEL__T_INT || p->tok.kind == CEL__T_DOUBLE);
    if (negate)
        p->sign_pos = pos[--count];
    cel__node_t *e = parse_member(p, negate);
    for (size_t i = count; i-- > 0 && e != NULL && !p->failed;)
        e = new_call(p, pos[i], NULL, k == CEL__T_NOT ? "!_" : "-_", 1, e);
    return p->failed ? NULL : e;
}

typedef struct binop {
    cel__tok_kind_t tok;
    const char *name;
} binop_t;

static const binop_t mul_ops[] = {
    {CEL__T_STAR, "_*_"}, {CEL__T_SLASH, "_/_"}, {CEL__T_PERCENT, "_%_"}, {CEL__T_EOF, NULL}};
static const binop_t add_ops[] = {{CEL__T_PLUS, "_+_"}, {CEL__T_MINUS, "_-_"}, {CEL__T_EOF, NULL}};
static const binop_t rel_ops[] = {{CEL__T_LT, "_<_"},  {CEL__T_LE, "_<=_"}, {CEL__T_GT, "_>_"},
                                  {CEL__T_GE, "_>=_"}, {CEL__T_EQ, "_==_"}, {CEL__T_NE, "_!=_"},
                                  {CEL__T_IN, "@in"},  {CEL__T_EOF, NULL}};

static const char *
find_op(const binop_t *ops, cel__tok_kind_t k)
{
    for (; ops->name != NULL; ops++) {
        if (ops->tok == k)
            return ops->name;
    }
    return NULL;
}

/* Left-associative levels: mul over unary, add over mul, rel over add. */
static cel__node_t *
parse_binary(parser_t *p, int level)
{
    static const binop_t *const levels[] = {rel_ops, add_ops, mul_ops};
    cel__node_t *e = level == 2 ? parse_unary(p) : parse_binary(p, level + 1);
    const char *op;
    while (e != NULL && !p->failed && (op = find_op(levels[level], p->tok.kind)) != NULL) {
        size_t pos = p->tok.pos;
        next(p);
        cel__node_t *r = level == 2 ? parse_unary(p) : parse_binary(p, level + 1);
        if (r == NULL)
            return NULL;
        e = new_call(p, pos, NULL, op, 2, e, r);
    }
    return p->failed ? NULL : e;
}

/* a || b || c (or &&): operands collected, then balanced. */
static cel__node_t *
parse_logic(parser_t *p, bool is_or)
{
    cel__tok_kind_t k = is_or ? CEL__T_OR : CEL__T_AND;
    cel__node_t *first = is_or ? parse_logic(p, false) : parse_binary(p, 0);
    if (first == NULL || p->tok.kind != k)
        return first;
    size_t cap = 8;
    int n = 1;
    cel__node_t **ops = cel_arena_alloc(p->a, cap * sizeof(*ops));
    size_t *pos = cel_arena_alloc(p->a, cap * sizeof(*pos));
    ops[0] = first;
    while (p->tok.kind == k && !p->failed) {
        if ((size_t)n == cap) {
            cel__node_t **o2 = cel_arena_alloc(p->a, 2 * cap * sizeof(*ops));
            size_t *p2 = cel_arena_alloc(p->a, 2 * cap * sizeof(*pos));
            memcpy(o2, ops, cap * sizeof(*ops));
            memcpy(p2, pos, cap * sizeof(*pos));
            ops = o2, pos = p2, cap *= 2;
        }
        pos[n] = p->tok.pos;
        next(p);
        if ((ops[n++] = is_or ? parse_logic(p, false) : parse_binary(p, 0)) == NULL)
            return NULL;
    }
    return p->failed ? NULL : balance(p, is_or ? "_||_" : "_&&_", ops, pos, 0, n - 1);
}

static cel__node_t *
parse_expr(parser_t *p)
{
    if (++p->depth > p->opts->max_depth) {
        fail(p, p->tok.pos, "expression nesting exceeds %d levels", p->opts->max_depth);
        return NULL;
    }
    cel__node_t *e = parse_logic(p, true);
    if (e != NULL && p->tok.kind == CEL__T_QUESTION) {
        size_t pos = p->tok.pos;
        next(p);
        cel__node_t *a = parse_logic(p, true);
        cel__node_t *b = a != NULL && expect(p, CEL__T_COLON) ? parse_expr(p) : NULL;
        e = b != NULL ? new_call(p, pos, NULL, "_?_:_", 3, e, a, b) : NULL;
    }
    p->depth--;
    return p->failed ? NULL : e;
}

cel__node_t *
cel__parse(const char *src, const cel__parse_opts_t *opts, cel_arena_t *a, cel__parse_err_t *err)
{
    parser_t p = {.a = a, .opts = opts, .err = err};
    size_t len = strlen(src);
    p.lx = (cel__lexer_t){.src = src, .len = len, .arena = a};
    if (!cel__utf8_valid(src, len)) {
        fail(&p, 0, "Syntax error: source is not valid UTF-8");
        return NULL;
    }
    if (cel__utf8_count(src, len) > opts->max_expr_len) {
        fail(&p, 0, "expression size exceeds the limit of %zu code points", opts->max_expr_len);
        return NULL;
    }
    next(&p);
    cel__node_t *root = p.failed ? NULL : parse_expr(&p);
    if (root != NULL && p.tok.kind != CEL__T_EOF)
        unexpected(&p);
    return p.failed ? NULL : root;
}
