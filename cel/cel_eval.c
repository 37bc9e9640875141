/*
 * The evaluator: walks a compiled tree. Errors are values and flow upward; only && and ||
 * (and the comprehension loop condition) may absorb them. Each node charges the cost counter
 * its units (cel_cost.c works them out at compile time, as cel-go's runtime cost model counts
 * them) and each call what its function's cost rule says; crossing the budget halts the
 * evaluation, and a halted evaluation absorbs nothing, so it unwinds promptly with the budget
 * error.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

bool
cel__charge(cel__eval_t *ev, uint64_t n)
{
    ev->cost = ev->cost > UINT64_MAX - n ? UINT64_MAX : ev->cost + n;
    if (ev->budget != 0 && ev->cost > ev->budget)
        ev->halted = true;
    return !ev->halted;
}

bool
cel__work(cel__eval_t *ev, uint64_t n)
{
    ev->work = ev->work > UINT64_MAX - n ? UINT64_MAX : ev->work + n;
    if (ev->budget != 0 && ev->work / CEL__WORK_FACTOR > ev->budget)
        ev->halted = true;
    return !ev->halted;
}

bool
cel__work_size(cel__eval_t *ev, uint64_t n)
{
    return cel__work(ev, n / 10);
}

cel_value_t
cel__halt_error(cel__eval_t *ev)
{
    (void)ev;
    return (cel_value_t){.kind = CEL_ERROR,
                         .v.err = "operation cancelled: actual cost limit exceeded"};
}

cel_value_t
cel__err(cel__eval_t *ev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cel_value_t v = {.kind = CEL_ERROR, .v.err = cel__arena_vsprintf(ev->arena, fmt, ap)};
    va_end(ap);
    return v;
}

cel_value_t
cel__no_overload(cel__eval_t *ev, const char *name, const cel_value_t *args, int nargs)
{
    char kinds[160] = "";
    size_t o = 0;
    for (int i = 0; i < nargs && o < sizeof(kinds) - 40; i++) {
        o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, "%s%s", i ? ", " : "",
                              cel_value_type(&args[i])->name);
    }
    return cel__err(ev, "no such overload: %s(%s)", name, kinds);
}

/* ---- Names ---- */

/* A variable of the activation, or else a type name (`*type_name` then set). */
static bool
lookup(cel__eval_t *ev, const char *name, cel_value_t *out, bool *type_name)
{
    size_t len = strlen(name);
    const cel_activation_t *act = ev->act;
    if (act != NULL) {
        for (const cel__binding_t *b = act->head; b != NULL; b = b->next) {
            if (b->len == len && memcmp(b->name, name, len) == 0) {
                *out = b->v;
                return true;
            }
        }
        if (act->resolve != NULL && act->resolve(act->resolve_ctx, name, len, ev->arena, out))
            return true;
    }
    const cel_type_t *t = cel_type_find(name);
    if (t != NULL) {
        *out = cel_type_value(t);
        *type_name = true;
        return true;
    }
    return false;
}

static bool
resolve_name(cel__eval_t *ev, const char **cands, int n, cel_value_t *out, bool *type_name)
{
    for (int i = 0; i < n; i++) {
        if (lookup(ev, cands[i], out, type_name))
            return true;
    }
    return false;
}

static cel_value_t init_accu(cel__eval_t *ev, int slot);

/* Type names are constants to a checked cel-go program: they cost nothing. */
static cel_value_t
eval_ident(cel__eval_t *ev, const cel__node_t *n)
{
    cel_value_t v;
    bool type_name = false;
    if (n->u.ident.slot >= 0)
        v = ev->pending[n->u.ident.slot] != NULL ? init_accu(ev, n->u.ident.slot)
                                                 : ev->slots[n->u.ident.slot];
    else if (!resolve_name(ev, n->u.ident.cands, n->u.ident.ncands, &v, &type_name))
        v = cel__err(ev, "undeclared reference to '%s'", n->u.ident.name);
    if (!type_name && !cel__charge(ev, n->unit))
        return cel__halt_error(ev);
    return v;
}

/* ---- Selection and indexing ---- */

static cel_value_t
no_such_key(cel__eval_t *ev, const cel_value_t *k)
{
    if (k->kind == CEL_STRING)
        return cel__err(ev, "no such key: %.*s", (int)k->v.str.len, k->v.str.data);
    if (k->kind == CEL_INT)
        return cel__err(ev, "no such key: %lld", (long long)k->v.i);
    if (k->kind == CEL_UINT)
        return cel__err(ev, "no such key: %llu", (unsigned long long)k->v.u);
    return cel__err(ev, "no such key");
}

/* The key a field selection reads from `map`: for a JSON object, the property the (possibly
 * escaped) field name stands for, as in kube-apiserver; false when it stands for none. */
static bool
field_key(cel__eval_t *ev, const cel_value_t *map, const char *f, size_t flen, cel_value_t *key)
{
    if (map->kind == CEL_MAP && (map->flags & CEL_VF_JSON)) {
        f = cel_unescape_property(ev->arena, f, flen, &flen);
        if (f == NULL)
            return false;
    }
    *key = cel_string_borrowed(f, flen);
    return true;
}

cel_value_t
cel__select(cel__eval_t *ev, cel_value_t v, const char *f, size_t flen, bool test_only)
{
    cel_value_t key = cel_string_borrowed(f, flen), out;
    if (v.kind == CEL_ERROR)
        return v;
    if (v.kind == CEL_OPTIONAL) {
        if (v.v.opt == NULL)
            return test_only ? cel_bool(false) : v;
        if (v.v.opt->kind != CEL_MAP)
            return no_such_key(ev, &key);
        bool found = field_key(ev, v.v.opt, f, flen, &key) && cel_map_find(v.v.opt, &key, &out);
        if (test_only)
            return cel_bool(found);
        return cel_optional(ev->arena, found ? &out : NULL);
    }
    if (v.kind != CEL_MAP)
        return cel__err(ev, "type '%s' does not support field selection", cel_value_type(&v)->name);
    bool found = field_key(ev, &v, f, flen, &key) && cel_map_find(&v, &key, &out);
    if (test_only)
        return cel_bool(found);
    return found ? out : no_such_key(ev, &key);
}

/* m[k] / l[i] on a plain value; `opt` gives an optional instead of an error when absent. */
static cel_value_t
index_plain(cel__eval_t *ev, cel_value_t v, cel_value_t k, bool opt)
{
    cel_value_t out;
    const char *why;
    if (v.kind == CEL_LIST) {
        if (cel__list_index(&v, &k, &out, &why))
            return opt ? cel_optional(ev->arena, &out) : out;
        if (opt && strcmp(why, "index out of range") == 0)
            return cel_optional(ev->arena, NULL);
        return cel__err(ev, "%s", why);
    }
    if (v.kind == CEL_MAP) {
        if (!cel__map_key_ok(&k) && k.kind != CEL_DOUBLE)
            return cel__err(ev, "unsupported key type: %s", cel_value_type(&k)->name);
        bool found = cel_map_find(&v, &k, &out);
        if (opt)
            return cel_optional(ev->arena, found ? &out : NULL);
        return found ? out : no_such_key(ev, &k);
    }
    cel_value_t args[2] = {v, k};
    return cel__no_overload(ev, opt ? "_[?_]" : "_[_]", args, 2);
}

cel_value_t
cel__index(cel__eval_t *ev, cel_value_t v, cel_value_t k)
{
    if (v.kind == CEL_OPTIONAL) {
        if (v.v.opt == NULL)
            return v;
        return index_plain(ev, *v.v.opt, k, true);
    }
    return index_plain(ev, v, k, false);
}

static cel_value_t
opt_index(cel__eval_t *ev, cel_value_t v, cel_value_t k)
{
    if (v.kind == CEL_OPTIONAL) {
        if (v.v.opt == NULL)
            return v;
        v = *v.v.opt;
    }
    return index_plain(ev, v, k, true);
}

static cel_value_t
eval_select(cel__eval_t *ev, const cel__node_t *n)
{
    cel_value_t v;
    bool type_name = false;
    if (n->u.select.ncands > 0 &&
        resolve_name(ev, n->u.select.cands, n->u.select.ncands, &v, &type_name)) {
        /* A qualified variable name: one identifier. */
        if (!type_name && !cel__charge(ev, n->unit > 0))
            return cel__halt_error(ev);
        return v;
    }
    v = cel__eval_node(ev, n->u.select.operand);
    if (ev->halted || !cel__charge(ev, n->unit))
        return cel__halt_error(ev);
    return cel__select(ev, v, n->u.select.field, n->u.select.flen, n->u.select.test_only);
}

/* ---- Calls ---- */

/* && and ||: false (true) wins over errors on either side; errors win over the other. */
static cel_value_t
eval_logic(cel__eval_t *ev, const cel__node_t *n, bool is_and)
{
    cel_value_t l = cel__eval_node(ev, n->u.call.args[0]);
    if (l.kind == CEL_BOOL && l.v.b != is_and)
        return l;
    cel_value_t r = cel__eval_node(ev, n->u.call.args[1]);
    if (ev->halted)
        return cel__halt_error(ev);
    if (r.kind == CEL_BOOL && r.v.b != is_and)
        return r;
    if (l.kind == CEL_BOOL && r.kind == CEL_BOOL)
        return l;
    if (l.kind == CEL_ERROR)
        return l;
    if (r.kind == CEL_ERROR)
        return r;
    cel_value_t args[2] = {l, r};
    return cel__no_overload(ev, n->u.call.name, args, 2);
}

static cel_value_t
eval_cond(cel__eval_t *ev, const cel__node_t *n)
{
    cel_value_t c = cel__eval_node(ev, n->u.call.args[0]);
    if (c.kind == CEL_ERROR)
        return c;
    if (c.kind != CEL_BOOL)
        return cel__no_overload(ev, "_?_:_", &c, 1);
    return cel__eval_node(ev, n->u.call.args[c.v.b ? 1 : 2]);
}

/* opt.or(x) / opt.orValue(x): x is evaluated only when opt is none. */
static cel_value_t
eval_or_opt(cel__eval_t *ev, const cel__node_t *n, bool value)
{
    cel_value_t o = cel__eval_node(ev, n->u.call.target);
    if (o.kind == CEL_ERROR)
        return o;
    if (o.kind != CEL_OPTIONAL)
        return cel__no_overload(ev, n->u.call.name, &o, 1);
    if (o.v.opt != NULL)
        return value ? *o.v.opt : o;
    cel_value_t x = cel__eval_node(ev, n->u.call.args[0]);
    if (!value && x.kind != CEL_OPTIONAL && x.kind != CEL_ERROR) {
        cel_value_t args[2] = {o, x};
        return cel__no_overload(ev, n->u.call.name, args, 2);
    }
    return x;
}

/* Evaluate target and arguments in order into `vals`; the first error is returned in `*err`.
 * As in cel-go, a call of two evaluates both whatever the first gives, a longer one stops at
 * the first error. Returns how many were evaluated. */
static int
eval_args(cel__eval_t *ev, const cel__node_t *n, cel_value_t *vals, int count, cel_value_t *err)
{
    int k = 0;
    err->kind = CEL_NULL;
    if (n->u.call.target != NULL)
        vals[k++] = cel__eval_node(ev, n->u.call.target);
    for (int i = 0; i < n->u.call.nargs; i++) {
        if (count != 2 && k > 0 && vals[k - 1].kind == CEL_ERROR)
            break;
        vals[k++] = cel__eval_node(ev, n->u.call.args[i]);
    }
    for (int i = 0; i < k; i++) {
        if (vals[i].kind == CEL_ERROR) {
            *err = vals[i];
            break;
        }
    }
    return k;
}

/* A call costs its own units (index operators) and what its function's rule says, once its
 * arguments are evaluated; cel-go does not charge a longer call cut short by an error. */
static cel_value_t
eval_function(cel__eval_t *ev, const cel__node_t *n)
{
    cel_value_t local[4], err, v;
    int count = n->u.call.nargs + (n->u.call.target != NULL);
    cel_value_t *vals =
        count <= 4 ? local : cel_arena_alloc(ev->arena, sizeof(*vals) * (size_t)count);
    int k = eval_args(ev, n, vals, count, &err);
    if (ev->halted)
        return cel__halt_error(ev);
    v = err.kind == CEL_ERROR ? err : n->u.call.fn->impl(ev, n, vals, count);
    if (k < count || ev->halted)
        return ev->halted ? cel__halt_error(ev) : v;
    uint64_t c = n->unit + (n->folded ? 0 : cel__call_cost(n, vals, count, &v));
    return cel__charge(ev, c) ? v : cel__halt_error(ev);
}

static cel_value_t
eval_call(cel__eval_t *ev, const cel__node_t *n)
{
    cel_value_t v, k;
    switch (n->u.call.op) {
    case CEL__OP_AND:
    case CEL__OP_OR:
        return eval_logic(ev, n, n->u.call.op == CEL__OP_AND);
    case CEL__OP_COND:
        return eval_cond(ev, n);
    case CEL__OP_NOT_STRICTLY_FALSE:
        v = cel__eval_node(ev, n->u.call.args[0]);
        if (!cel__charge(ev, n->unit))
            return cel__halt_error(ev);
        return cel_bool(!(v.kind == CEL_BOOL && !v.v.b));
    case CEL__OP_OPT_SELECT:
        v = cel__eval_node(ev, n->u.call.args[0]);
        if (!cel__charge(ev, n->unit))
            return cel__halt_error(ev);
        if (v.kind == CEL_ERROR || (v.kind == CEL_OPTIONAL && v.v.opt == NULL))
            return v;
        v = v.kind == CEL_OPTIONAL ? *v.v.opt : v;
        k = n->u.call.args[1]->u.constant;
        if (!field_key(ev, &v, k.v.str.data, k.v.str.len, &k))
            return cel_optional(ev->arena, NULL);
        return opt_index(ev, v, k);
    case CEL__OP_OPT_INDEX:
        v = cel__eval_node(ev, n->u.call.args[0]);
        k = cel__eval_node(ev, n->u.call.args[1]);
        if (!cel__charge(ev, n->unit))
            return cel__halt_error(ev);
        if (v.kind == CEL_ERROR)
            return v;
        return k.kind == CEL_ERROR ? k : opt_index(ev, v, k);
    case CEL__OP_OR_OPT:
    case CEL__OP_OR_VALUE:
        return eval_or_opt(ev, n, n->u.call.op == CEL__OP_OR_VALUE);
    default:
        return eval_function(ev, n);
    }
}

/* ---- Aggregates ---- */

static cel_value_t
eval_list(cel__eval_t *ev, const cel__node_t *n)
{
    if (!cel__charge(ev, n->unit))
        return cel__halt_error(ev);
    cel_list_t *l = cel__list_new(ev->arena, (size_t)n->u.list.n);
    for (int i = 0; i < n->u.list.n; i++) {
        cel_value_t v = cel__eval_node(ev, n->u.list.elems[i]);
        if (v.kind == CEL_ERROR)
            return v;
        if (n->u.list.optional[i]) {
            if (v.kind != CEL_OPTIONAL)
                return cel__err(ev, "optional list element is not an optional value");
            if (v.v.opt == NULL)
                continue;
            v = *v.v.opt;
        }
        cel__list_push(ev->arena, l, v);
    }
    return cel__list_value(l);
}

static cel_value_t
eval_map(cel__eval_t *ev, const cel__node_t *n)
{
    if (!cel__charge(ev, n->unit))
        return cel__halt_error(ev);
    cel_map_t *m = cel__map_new(ev->arena, (size_t)n->u.map.n);
    for (int i = 0; i < n->u.map.n; i++) {
        cel_value_t k = cel__eval_node(ev, n->u.map.keys[i]);
        if (k.kind == CEL_ERROR)
            return k;
        cel_value_t v = cel__eval_node(ev, n->u.map.vals[i]);
        if (v.kind == CEL_ERROR)
            return v;
        if (!cel__map_key_ok(&k))
            return cel__err(ev, "unsupported key type: %s", cel_value_type(&k)->name);
        if (n->u.map.optional[i]) {
            if (v.kind != CEL_OPTIONAL)
                return cel__err(ev, "optional map entry value is not an optional value");
            if (v.v.opt == NULL)
                continue;
            v = *v.v.opt;
        }
        if (!cel__map_put(ev->arena, m, k, v))
            return cel__err(ev, "Failed with repeated key");
    }
    return cel__map_value(m);
}

/* ---- Comprehensions ---- */

/* A macro's accumulator list or map is private to the macro: it is built in place. */
static cel_value_t
own_accu(cel__eval_t *ev, const cel__node_t *n, cel_value_t acc)
{
    if (strcmp(n->u.comp.accu_var, CEL__ACCU) != 0 || (acc.flags & CEL_VF_JSON))
        return acc;
    if (acc.kind == CEL_LIST && acc.v.list->len == 0)
        acc = cel__list_value(cel__list_new(ev->arena, 8));
    else if (acc.kind == CEL_MAP && acc.v.map->len == 0)
        acc = cel__map_value(cel__map_new(ev->arena, 8));
    else
        return acc;
    acc.flags |= CEL__VF_ACCU;
    return acc;
}

/* Is evaluating `init` free of comprehensions (and so of slot writes)? Macros' initializers
 * are constants and empty literals; only cel.bind's are arbitrary. */
static bool
init_is_plain(const cel__node_t *init)
{
    return init->kind == CEL__N_CONST || (init->kind == CEL__N_LIST && init->u.list.n == 0) ||
           (init->kind == CEL__N_MAP && init->u.map.n == 0);
}

/*
 * The first read of a comprehension's accumulator runs its initializer, as cel-go (v0.22 and
 * on) does: `cel.bind(x, 1 / 0, true)` is true, and a binding nobody reads costs nothing. The
 * initializer sees the enclosing scope only, and its own comprehensions use the slots from the
 * accumulator's up, which may be live here (the read can come from deep inside the body):
 * they are saved around it.
 */
static cel_value_t
init_accu(cel__eval_t *ev, int slot)
{
    const cel__node_t *comp = ev->pending[slot];
    size_t n = (size_t)(ev->prog->nslots + 1 - slot);
    cel_value_t *vals = NULL;
    const cel__node_t **pend = NULL;
    if (!init_is_plain(comp->u.comp.init)) {
        vals = cel_arena_alloc(ev->arena, sizeof(*vals) * n);
        pend = cel_arena_alloc(ev->arena, sizeof(*pend) * n);
        memcpy(vals, ev->slots + slot, sizeof(*vals) * n);
        memcpy(pend, ev->pending + slot, sizeof(*pend) * n);
    }
    cel_value_t acc = cel__eval_node(ev, comp->u.comp.init);
    if (vals != NULL) {
        memcpy(ev->slots + slot, vals, sizeof(*vals) * n);
        memcpy(ev->pending + slot, pend, sizeof(*pend) * n);
    }
    ev->slots[slot] = acc.kind == CEL_ERROR ? acc : own_accu(ev, comp, acc);
    ev->pending[slot] = NULL;
    return ev->slots[slot];
}

/* One loop step; false when the loop is over (condition false, error or halt). `first` is
 * the element or key, or with two variables the index or key and `second` the value. */
static bool
comp_step(cel__eval_t *ev, const cel__node_t *n, cel_value_t first, cel_value_t second,
          cel_value_t *err)
{
    ev->slots[n->u.comp.iter_slot] = first;
    if (n->u.comp.iter_var2 != NULL)
        ev->slots[n->u.comp.iter_slot2] = second;
    cel_value_t c = cel__eval_node(ev, n->u.comp.cond);
    if (ev->halted)
        return false;
    if (c.kind != CEL_BOOL) {
        *err = c.kind == CEL_ERROR ? c : cel__no_overload(ev, "loop condition", &c, 1);
        return false;
    }
    if (!c.v.b)
        return false;
    ev->slots[n->u.comp.accu_slot] = cel__eval_node(ev, n->u.comp.step);
    ev->pending[n->u.comp.accu_slot] = NULL;
    return !ev->halted;
}

static cel_value_t
eval_comp(cel__eval_t *ev, const cel__node_t *n)
{
    cel_value_t range = cel__eval_node(ev, n->u.comp.range), err = {.kind = CEL_NULL};
    if (range.kind == CEL_ERROR)
        return range;
    if (range.kind != CEL_LIST && range.kind != CEL_MAP)
        return cel__err(ev, "expression of type '%s' cannot be the range of a comprehension",
                        cel_value_type(&range)->name);
    ev->pending[n->u.comp.accu_slot] = n;
    bool two = n->u.comp.iter_var2 != NULL;
    if (range.kind == CEL_LIST) {
        size_t size = cel_list_size(&range);
        for (size_t i = 0; i < size; i++) {
            cel_value_t x = cel_list_at(&range, i);
            if (!comp_step(ev, n, two ? cel_int((int64_t)i) : x, x, &err))
                break;
        }
    } else {
        cel_map_iter_t it = CEL_MAP_ITER_INIT;
        cel_value_t k, v;
        while (cel_map_next(&range, &it, &k, &v) && comp_step(ev, n, k, v, &err))
            ;
    }
    if (ev->halted)
        return cel__halt_error(ev);
    if (err.kind == CEL_ERROR)
        return err;
    cel_value_t res = cel__eval_node(ev, n->u.comp.result);
    ev->pending[n->u.comp.accu_slot] = NULL;
    res.flags &= ~CEL__VF_ACCU;
    return res;
}

static cel_value_t
eval_struct(cel__eval_t *ev, const cel__node_t *n)
{
    if (!cel__charge(ev, n->unit))
        return cel__halt_error(ev);
    if (n->u.map.mtype != CEL__M_NONE)
        return cel__mutation_construct(ev, n);
    return cel__err(ev, "unknown message type '%s'", n->u.map.type_name);
}

cel_value_t
cel__eval_node(cel__eval_t *ev, const cel__node_t *n)
{
    cel_value_t v;
    if (ev->halted)
        return cel__halt_error(ev);
    switch (n->kind) {
    case CEL__N_CONST:
        return n->u.constant;
    case CEL__N_IDENT:
        v = eval_ident(ev, n);
        break;
    case CEL__N_SELECT:
        v = eval_select(ev, n);
        break;
    case CEL__N_CALL:
        v = eval_call(ev, n);
        break;
    case CEL__N_LIST:
        v = eval_list(ev, n);
        break;
    case CEL__N_MAP:
        v = eval_map(ev, n);
        break;
    case CEL__N_STRUCT:
        v = eval_struct(ev, n);
        break;
    default:
        v = eval_comp(ev, n);
        break;
    }
    return ev->halted ? cel__halt_error(ev) : v;
}

/* ---- Activations and the entry point ---- */

cel_activation_t *
cel_activation_new(cel_arena_t *a)
{
    cel_activation_t *act = cel_arena_alloc(a, sizeof(*act));
    act->arena = a;
    return act;
}

void
cel_activation_bind(cel_activation_t *act, const char *name, cel_value_t v)
{
    cel__binding_t *b = cel_arena_alloc(act->arena, sizeof(*b));
    b->len = strlen(name);
    b->name = cel_arena_strndup(act->arena, name, b->len);
    b->v = v;
    b->next = act->head;
    act->head = b;
}

void
cel_activation_bind_json(cel_activation_t *act, const char *name, const json_t *doc)
{
    cel_activation_bind(act, name, cel_json(doc));
}

void
cel_activation_bind_json_typed(cel_activation_t *act, const char *name, const json_t *doc,
                               const cel_decltype_t *t)
{
    cel_activation_bind(act, name, cel_json_typed(doc, t));
}

void
cel_activation_set_resolver(cel_activation_t *act, cel_resolve_fn fn, void *ctx)
{
    act->resolve = fn;
    act->resolve_ctx = ctx;
}

int
cel_eval(const cel_program_t *prog, const cel_activation_t *act, cel_arena_t *a, uint64_t budget,
         cel_value_t *out, uint64_t *cost)
{
    cel__eval_t ev = {.prog = prog, .act = act, .arena = a, .budget = budget};
    ev.slots = cel_arena_alloc(a, sizeof(cel_value_t) * (size_t)(prog->nslots + 1));
    ev.pending = cel_arena_alloc(a, sizeof(*ev.pending) * (size_t)(prog->nslots + 1));
    *out = cel__eval_node(&ev, prog->root);
    out->flags &= ~CEL__VF_ACCU;
    if (cost != NULL)
        *cost = ev.cost;
    return ev.halted ? CEL_ECOST : 0;
}
