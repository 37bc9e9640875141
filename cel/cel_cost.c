/*
 * Costs in the units of the CEL spec, as cel-go and kube-apiserver count them.
 *
 * At run time (cel-go's interpreter/runtimecost.go and kube-apiserver's library CallCost):
 * constants are free, each identifier and field or index qualifier costs 1, list, map and
 * message literals 10, 30 and 40, and each function call what its rule says (1 by default;
 * string operations a tenth per code point, regular expressions string length times pattern
 * length, list membership the list's size, ...). cel-go's attribute planning leaves some steps
 * uncounted, and kube-apiserver runs programs with cel-go's optimizer, which folds constant
 * literals and conversions: cel__cost_annotate() works both out once per program and stores
 * each node's own units, so the evaluator only adds them up.
 *
 * Before run time (cel-go's checker/cost.go with kube-apiserver's library estimator and its
 * schema size estimator): cel__estimate() walks a checked tree, tracking the sizes of strings,
 * lists and maps from literals, declared schema bounds and function results, and multiplies
 * comprehension bodies by the size of their range.
 */
#include "cel.h"

#include <math.h>
#include <string.h>

#include "cel_int.h"

#define LIST_COST 10
#define MAP_COST 30
#define STRUCT_COST 40
#define TRAVERSAL 0.1  /* cel-go's StringTraversalCostFactor */
#define REGEX_LEN 0.25 /* cel-go's RegexStringLengthCostFactor */
#define AUTHZ_CHECK 350000
#define MAX_FORMAT_SIZE 64

typedef cel_cost_estimate_t est_t;

/* ---- Saturating arithmetic (cel-go's NoOverflow helpers) ---- */

static uint64_t
sat_add(uint64_t x, uint64_t y)
{
    return y > 0 && x > UINT64_MAX - y ? UINT64_MAX : x + y;
}

static uint64_t
sat_mul(uint64_t x, uint64_t y)
{
    return y != 0 && x > UINT64_MAX / y ? UINT64_MAX : x * y;
}

/* x times a cost factor, rounded up, in the same double arithmetic as cel-go. */
static uint64_t
factor(uint64_t x, double f)
{
    double xf = (double)x;
    if (xf > 0 && f > 0 && xf > (double)UINT64_MAX / f)
        return UINT64_MAX;
    double c = ceil(xf * f);
    return c >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)c;
}

static est_t
fixed(uint64_t v)
{
    return (est_t){v, v};
}

static est_t
e_add(est_t a, est_t b)
{
    return (est_t){sat_add(a.min, b.min), sat_add(a.max, b.max)};
}

static est_t
e_mul(est_t a, est_t b)
{
    return (est_t){sat_mul(a.min, b.min), sat_mul(a.max, b.max)};
}

static est_t
e_factor(est_t a, double f)
{
    return (est_t){factor(a.min, f), factor(a.max, f)};
}

static est_t
e_union(est_t a, est_t b)
{
    return (est_t){a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
}

static const est_t unknown = {0, UINT64_MAX};

/* ---- Run time: the units of each node ---- */

enum rule {
    R_NONE,       /* no function cost: index operators, folded calls */
    R_ONE,        /* 1 */
    R_EQ,         /* ==, !=: a tenth of the smaller size */
    R_CMP,        /* ordering: a tenth of the smaller size of strings and bytes, else 1 */
    R_ADD,        /* +: a tenth of both sizes for strings and bytes, else 1 */
    R_IN,         /* in: a list's size, 1 for maps */
    R_CONVERT,    /* bytes(string), string(bytes): a tenth of the size, else 1 */
    R_FIRST,      /* a tenth of the first argument's size */
    R_FIRST2,     /* two tenths of the first argument's size */
    R_IP,         /* ip(string) as R_FIRST, cidr.ip() 1 */
    R_JOIN,       /* two tenths of the result's size */
    R_REGEX,      /* (1 + string) tenths times pattern quarters */
    R_CONTAINS,   /* string tenths times substring tenths */
    R_TRAVERSE,   /* kube's traversal of a list (or string) */
    R_CHECK,      /* an authorization check */
    R_SELECTOR,   /* field and label selector parsing */
    R_IN_CIDR_IP, /* cidr.containsIP */
    R_IN_CIDR,    /* cidr.containsCIDR */
    R_VALIDATE,   /* format.validate: a regular expression as long as the format's */
    R_SETS1,      /* sets.contains, sets.intersects: 1 + size times size */
    R_SETS2,      /* sets.equivalent: 1 + twice size times size */
};

static const struct {
    const char *name;
    enum rule rule;
} rules[] = {
    {"_==_", R_EQ},
    {"_!=_", R_EQ},
    {"_<_", R_CMP},
    {"_<=_", R_CMP},
    {"_>_", R_CMP},
    {"_>=_", R_CMP},
    {"_+_", R_ADD},
    {"@in", R_IN},
    {"bytes", R_CONVERT},
    {"string", R_CONVERT},
    {"startsWith", R_FIRST},
    {"endsWith", R_FIRST},
    {"strings.quote", R_FIRST},
    {"format", R_FIRST},
    {"url", R_FIRST},
    {"lowerAscii", R_FIRST},
    {"upperAscii", R_FIRST},
    {"substring", R_FIRST},
    {"trim", R_FIRST},
    {"cidr", R_FIRST},
    {"isIP", R_FIRST},
    {"isCIDR", R_FIRST},
    {"quantity", R_FIRST},
    {"isQuantity", R_FIRST},
    {"semver", R_FIRST},
    {"isSemver", R_FIRST},
    {"replace", R_FIRST2},
    {"split", R_FIRST2},
    {"ip.isCanonical", R_FIRST2},
    {"ip", R_IP},
    {"join", R_JOIN},
    {"matches", R_REGEX},
    {"find", R_REGEX},
    {"findAll", R_REGEX},
    {"contains", R_CONTAINS},
    {"isSorted", R_TRAVERSE},
    {"sum", R_TRAVERSE},
    {"max", R_TRAVERSE},
    {"min", R_TRAVERSE},
    {"indexOf", R_TRAVERSE},
    {"lastIndexOf", R_TRAVERSE},
    {"check", R_CHECK},
    {"fieldSelector", R_SELECTOR},
    {"labelSelector", R_SELECTOR},
    {"containsIP", R_IN_CIDR_IP},
    {"containsCIDR", R_IN_CIDR},
    {"validate", R_VALIDATE},
    {"sets.contains", R_SETS1},
    {"sets.intersects", R_SETS1},
    {"sets.equivalent", R_SETS2},
};

static enum rule
rule_of(const char *name)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        if (strcmp(rules[i].name, name) == 0)
            return rules[i].rule;
    }
    return R_ONE;
}

/* Nodes cel-go plans as attributes: variables and chains of selections and indexing on them,
 * and conditionals. */
static bool
is_attr(const cel__node_t *n)
{
    if (n->kind == CEL__N_IDENT)
        return true;
    if (n->kind == CEL__N_SELECT)
        return !n->u.select.test_only;
    if (n->kind != CEL__N_CALL)
        return false;
    const char *f = n->u.call.name;
    return strcmp(f, "_[_]") == 0 || strcmp(f, "_[?_]") == 0 || strcmp(f, "_?._") == 0 ||
           strcmp(f, "_?_:_") == 0;
}

static bool
is_conversion(const char *f)
{
    static const char *const names[] = {"int",  "uint",      "double",   "string", "bytes",
                                        "bool", "timestamp", "duration", "dyn",    "type"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(names[i], f) == 0)
            return true;
    }
    return false;
}

/* A constant list of scalars: cel-go turns `x in [...]` over one into a set lookup. */
static bool
scalar_list(const cel__node_t *l)
{
    if (l->kind != CEL__N_LIST)
        return false;
    for (int i = 0; i < l->u.list.n; i++) {
        const cel__node_t *e = l->u.list.elems[i];
        if (e->kind != CEL__N_CONST || e->u.constant.kind == CEL_NULL ||
            e->u.constant.kind == CEL_BYTES || l->u.list.optional[i])
            return false;
    }
    return true;
}

static bool annotate(cel__node_t *n, bool raw, bool opt);

/* A selection or indexing: one unit for the qualifier; the operand is part of the attribute
 * when it is one, otherwise a relative attribute over it costs one more unless resolved
 * without observation (`raw`). */
static void
annotate_qualifier(cel__node_t *n, cel__node_t *operand, bool raw, bool opt)
{
    bool attr = is_attr(operand);
    n->unit = 1 + (attr || raw ? 0 : 1);
    annotate(operand, attr && raw, opt);
}

/* Calls: the operators cel-go plans specially, then folding of constant conversions. */
static bool
annotate_call(cel__node_t *n, bool raw, bool opt)
{
    const char *f = n->u.call.name;
    cel__node_t **args = n->u.call.args;
    n->u.call.rule = R_NONE;
    if (strcmp(f, "_[_]") == 0 || strcmp(f, "_[?_]") == 0) {
        annotate_qualifier(n, args[0], raw, opt);
        annotate(args[1], is_attr(args[1]), opt);
        return false;
    }
    if (strcmp(f, "_?._") == 0) {
        annotate_qualifier(n, args[0], raw, opt);
        return false;
    }
    bool cond = strcmp(f, "_?_:_") == 0, all_const = n->u.call.target == NULL;
    if (n->u.call.target != NULL)
        annotate(n->u.call.target, false, opt);
    for (int i = 0; i < n->u.call.nargs; i++) {
        bool c = annotate(args[i], cond && i > 0 && is_attr(args[i]), opt);
        all_const = all_const && c;
    }
    if (cond || n->u.call.op == CEL__OP_AND || n->u.call.op == CEL__OP_OR ||
        n->u.call.op == CEL__OP_OR_OPT || n->u.call.op == CEL__OP_OR_VALUE)
        return false;
    if (n->u.call.op == CEL__OP_NOT_STRICTLY_FALSE) {
        n->unit = 1;
        return false;
    }
    n->u.call.rule = (uint8_t)rule_of(f);
    n->folded = opt && ((is_conversion(f) && n->u.call.nargs == 1 && all_const) ||
                        (strcmp(f, "@in") == 0 && args[1]->folded && scalar_list(args[1])));
    return n->folded && strcmp(f, "@in") != 0;
}

static bool
annotate_all(cel__node_t **kids, int n, bool opt)
{
    bool all = true;
    for (int i = 0; i < n; i++)
        all = annotate(kids[i], false, opt) && all;
    return all;
}

static bool annotate_node(cel__node_t *n, bool raw, bool opt);

/* Set the units of `n` and below; true when cel-go's optimizer would make `n` a constant. */
static bool
annotate(cel__node_t *n, bool raw, bool opt)
{
    if (!(n->seen & CEL__SEEN_COST) && annotate_node(n, raw, opt))
        n->seen |= CEL__SEEN_CONST;
    n->seen |= CEL__SEEN_COST;
    return (n->seen & CEL__SEEN_CONST) != 0;
}

static bool
annotate_node(cel__node_t *n, bool raw, bool opt)
{
    bool c;
    n->unit = 0;
    switch (n->kind) {
    case CEL__N_CONST:
        return true;
    case CEL__N_IDENT:
        n->unit = raw ? 0 : 1;
        return false;
    case CEL__N_SELECT:
        if (!n->u.select.test_only) {
            annotate_qualifier(n, n->u.select.operand, raw, opt);
        } else {
            /* has(): the presence test itself is free in kube-apiserver. */
            n->unit = is_attr(n->u.select.operand) ? 0 : 1;
            annotate(n->u.select.operand, false, opt);
        }
        return false;
    case CEL__N_CALL:
        return annotate_call(n, raw, opt);
    case CEL__N_LIST:
        c = annotate_all(n->u.list.elems, n->u.list.n, opt) && opt;
        n->unit = c ? 0 : LIST_COST;
        n->folded = c;
        return c;
    case CEL__N_MAP:
        c = annotate_all(n->u.map.keys, n->u.map.n, opt);
        c = annotate_all(n->u.map.vals, n->u.map.n, opt) && c && opt;
        n->unit = c ? 0 : MAP_COST;
        return c;
    case CEL__N_STRUCT:
        annotate_all(n->u.map.vals, n->u.map.n, opt);
        n->unit = STRUCT_COST;
        return false;
    default: {
        cel__node_t *kids[] = {n->u.comp.range, n->u.comp.init, n->u.comp.cond, n->u.comp.step,
                               n->u.comp.result};
        annotate_all(kids, 5, opt);
        return false;
    }
    }
}

void
cel__cost_annotate(cel__node_t *root, bool optimize)
{
    annotate(root, false, optimize);
}

/* ---- Run time: function calls ---- */

/* cel-go's actualSize: the size of strings (code points), bytes, lists and maps, and kube's of
 * IP addresses and CIDRs; 1 for anything else. */
static uint64_t
actual_size(const cel_value_t *v)
{
    int64_t n;
    switch (v->kind) {
    case CEL_STRING:
        return (uint64_t)cel__str_cplen(v);
    case CEL_BYTES:
        return v->v.str.len;
    case CEL_LIST:
        return cel_list_size(v);
    case CEL_MAP:
        return cel_map_size(v);
    case CEL_OBJECT:
        n = cel__net_size(v);
        return n >= 0 ? (uint64_t)n : 1;
    default:
        return 1;
    }
}

/* kube's traversalCost: a tenth of each string's bytes (rounded down), 1 per other scalar. */
static uint64_t
traversal(const cel_value_t *v)
{
    uint64_t cost = 0;
    cel_map_iter_t it = CEL_MAP_ITER_INIT;
    cel_value_t k, x;
    switch (v->kind) {
    case CEL_STRING:
    case CEL_BYTES:
        return (uint64_t)((double)v->v.str.len * TRAVERSAL);
    case CEL_LIST:
        for (size_t i = 0; i < cel_list_size(v); i++) {
            x = cel_list_at(v, i);
            cost = sat_add(cost, traversal(&x));
        }
        return cost;
    case CEL_MAP:
        while (cel_map_next(v, &it, &k, &x))
            cost = sat_add(cost, sat_add(traversal(&k), traversal(&x)));
        return cost;
    default:
        return 1;
    }
}

static bool
both_kind(const cel_value_t *a, cel_kind_t k)
{
    return a[0].kind == k && a[1].kind == k;
}

static bool
text_pair(const cel_value_t *a)
{
    return both_kind(a, CEL_STRING) || both_kind(a, CEL_BYTES);
}

static uint64_t
smaller_size(const cel_value_t *a)
{
    uint64_t x = actual_size(&a[0]), y = actual_size(&a[1]);
    return factor(x < y ? x : y, TRAVERSAL);
}

/* kube's selector parsing estimate: a list, a tenth per character and a struct and a list per
 * requirement (at most one per two characters). */
static uint64_t
selector_cost(uint64_t len)
{
    uint64_t reqs = factor(len, 0.5);
    return sat_add(sat_add(LIST_COST, factor(len, TRAVERSAL)),
                   factor(reqs, (double)(LIST_COST + STRUCT_COST)));
}

static uint64_t
regex_cost(uint64_t str, uint64_t pattern)
{
    return sat_mul(factor(sat_add(str, 1), TRAVERSAL), factor(pattern, REGEX_LEN));
}

/* CIDR membership: comparing prefix bytes, plus parsing a string argument. */
static uint64_t
cidr_cost(const cel_value_t *a, bool cidr)
{
    uint64_t c = actual_size(&a[0]);
    uint64_t cost = factor(c + c, TRAVERSAL);
    if (cidr)
        cost = sat_add(cost, factor(c, TRAVERSAL) + 1);
    if (a[1].kind == CEL_STRING)
        cost = sat_add(cost, factor(actual_size(&a[1]), TRAVERSAL));
    return cost;
}

static uint64_t
sets_cost(const cel_value_t *a, double f)
{
    return 1 + (uint64_t)((double)sat_mul(actual_size(&a[0]), actual_size(&a[1])) * f);
}

uint64_t
cel__call_cost(const cel__node_t *call, const cel_value_t *a, int n, const cel_value_t *result)
{
    switch ((enum rule)call->u.call.rule) {
    case R_NONE:
        return 0;
    case R_EQ:
        /* kube's own values compare at unit cost. */
        return a[0].kind == CEL_OBJECT ? 1 : smaller_size(a);
    case R_CMP:
        return text_pair(a) ? smaller_size(a) : 1;
    case R_ADD:
        return text_pair(a) ? factor(actual_size(&a[0]) + actual_size(&a[1]), TRAVERSAL) : 1;
    case R_IN:
        return a[1].kind == CEL_LIST ? actual_size(&a[1]) : 1;
    case R_CONVERT:
        /* Only string(bytes) and bytes(string) traverse their argument. */
        return (call->u.call.name[0] == 'b' ? a[0].kind == CEL_STRING : a[0].kind == CEL_BYTES)
                   ? factor(actual_size(&a[0]), TRAVERSAL)
                   : 1;
    case R_FIRST:
        return factor(actual_size(&a[0]), TRAVERSAL);
    case R_FIRST2:
        return factor(actual_size(&a[0]) * 2, TRAVERSAL);
    case R_IP:
        return call->u.call.target != NULL ? 1 : factor(actual_size(&a[0]), TRAVERSAL);
    case R_JOIN:
        return factor(actual_size(result) * 2, TRAVERSAL);
    case R_REGEX:
        return n < 2 ? 1 : regex_cost(actual_size(&a[0]), actual_size(&a[1]));
    case R_CONTAINS:
        return n < 2 ? 1
                     : sat_mul(factor(actual_size(&a[0]), TRAVERSAL),
                               factor(actual_size(&a[1]), TRAVERSAL));
    case R_TRAVERSE:
        return traversal(&a[0]);
    case R_CHECK:
        return AUTHZ_CHECK;
    case R_SELECTOR:
        return n < 2 ? 1 : selector_cost(actual_size(&a[1]));
    case R_IN_CIDR_IP:
    case R_IN_CIDR:
        return n < 2 ? 1 : cidr_cost(a, call->u.call.rule == R_IN_CIDR);
    case R_VALIDATE:
        if (n < 2 || cel__named_format_regex_size(&a[0]) == 0)
            return 1;
        return regex_cost(actual_size(&a[1]), (uint64_t)cel__named_format_regex_size(&a[0]));
    case R_SETS1:
        return n < 2 ? 1 : sets_cost(a, 1);
    case R_SETS2:
        return n < 2 ? 1 : sets_cost(a, 2);
    default:
        return 1;
    }
}

/* ---- Estimates: paths and sizes ---- */

/* Where a value sits in the declared types: a variable, then field names, "@items",
 * "@values", "@keys" or "@indices" (cel-go's AstNode.Path()). */
typedef struct path {
    const char **el;
    int n;
} path_t;

/* The sizes of a list's or map's keys and values (cel-go's entrySizeEstimate). */
typedef struct entry {
    bool set;
    bool list;
    est_t key;
    est_t val;
} entry_t;

typedef struct local {
    const char *name;
    path_t path;
    bool has_size;
    est_t size;
    entry_t entry;
} local_t;

typedef struct anode {
    path_t path;
    const cel_decltype_t *type;
    const cel__node_t *expr; /* NULL for a list's elements */
    bool has_size;
    est_t size;
} anode_t;

typedef struct call_est {
    est_t cost;
    bool has_result;
    est_t result;
} call_est_t;

typedef struct coster {
    const cel__checked_t *chk;
    const cel_env_t *env;
    cel_arena_t *a;
    bool *done; /* nodes estimated (a node may have two parents): their estimate in memo */
    est_t *memo;
    path_t *paths;
    bool *has_size;
    est_t *size;
    entry_t *entry;
    local_t *locals;
    int nlocals, caplocals;
} coster_t;

static est_t cost(coster_t *c, const cel__node_t *e);

static path_t
path_add(coster_t *c, path_t p, const char *el)
{
    path_t q = {cel_arena_alloc(c->a, sizeof(*q.el) * (size_t)(p.n + 1)), p.n + 1};
    if (p.n > 0)
        memcpy(q.el, p.el, sizeof(*q.el) * (size_t)p.n);
    q.el[p.n] = el;
    return q;
}

static const local_t *
local_find(const coster_t *c, const char *name)
{
    for (int i = c->nlocals; i-- > 0;) {
        if (strcmp(c->locals[i].name, name) == 0)
            return &c->locals[i];
    }
    return NULL;
}

static path_t
get_path(const coster_t *c, const cel__node_t *e)
{
    const local_t *l = e->kind == CEL__N_IDENT ? local_find(c, e->u.ident.name) : NULL;
    return l != NULL ? l->path : c->paths[e->id];
}

static bool
is_accu(const char *name)
{
    return strcmp(name, CEL__ACCU) == 0 || strcmp(name, "__result__") == 0;
}

/* The type a path leads to from the declared types. The variable a path starts from is its
 * root when declared with schema bounds; otherwise (a path from a literal or a call) the
 * newest bounded declaration is, as kube-apiserver's estimator walks every path from its one
 * root. */
static const cel_decltype_t *
path_root(const coster_t *c, const char *name)
{
    const cel_decltype_t *newest = NULL;
    for (const cel__decl_t *d = cel__env_decls(c->env); d != NULL; d = d->next) {
        if (d->type->bounded && strcmp(d->name, name) == 0)
            return d->type;
        if (d->type->bounded && newest == NULL)
            newest = d->type;
    }
    return newest;
}

static const cel_decltype_t *
path_step(const cel_decltype_t *t, const char *el)
{
    if (strcmp(el, "@items") == 0 || strcmp(el, "@values") == 0)
        return t->kind == CEL__TK_LIST ? t->p[0] : t->kind == CEL__TK_MAP ? t->p[1] : NULL;
    if (strcmp(el, "@keys") == 0)
        return t->kind == CEL__TK_MAP ? t->p[0] : NULL;
    const cel__field_t *f = t->kind == CEL__TK_OBJECT ? cel__ty_field(t, el, strlen(el)) : NULL;
    return f != NULL ? f->type : NULL;
}

/* kube-apiserver's size estimator: up to the bound of the declared type a path leads to. */
static bool
schema_size(const coster_t *c, path_t p, est_t *out)
{
    const cel_decltype_t *t = p.n > 0 ? path_root(c, p.el[0]) : NULL;
    for (int i = 1; i < p.n && t != NULL; i++)
        t = path_step(t, p.el[i]);
    if (t == NULL || !t->bounded)
        return false;
    *out = (est_t){0, t->max_elements};
    return true;
}

/* Types whose values are of one size (cel-go's isScalar). */
static bool
scalar(const cel_decltype_t *t)
{
    switch (t->kind) {
    case CEL__TK_BOOL:
    case CEL__TK_DOUBLE:
    case CEL__TK_DURATION:
    case CEL__TK_INT:
    case CEL__TK_TIMESTAMP:
    case CEL__TK_UINT:
        return true;
    case CEL__TK_OPTIONAL:
        return scalar(t->p[0]);
    default:
        return false;
    }
}

static bool
literal_size(const cel__node_t *e, est_t *out)
{
    switch (e->kind) {
    case CEL__N_CONST:
        if (e->u.constant.kind == CEL_STRING || e->u.constant.kind == CEL_BYTES)
            *out = fixed(e->u.constant.kind == CEL_STRING ? (uint64_t)cel__str_cplen(&e->u.constant)
                                                          : e->u.constant.v.str.len);
        else
            *out = fixed(1);
        return true;
    case CEL__N_LIST:
        *out = fixed((uint64_t)e->u.list.n);
        return true;
    case CEL__N_MAP:
        *out = fixed((uint64_t)e->u.map.n);
        return true;
    default:
        return false;
    }
}

/* cel-go's computeSize: what is known of the size of `e`'s value. */
static bool
compute_size(coster_t *c, const cel__node_t *e, est_t *out)
{
    if (c->has_size[e->id]) {
        *out = c->size[e->id];
        return true;
    }
    if (literal_size(e, out))
        return true;
    path_t p = get_path(c, e);
    if (p.n > 0 && !is_accu(p.el[0]) && schema_size(c, p, out)) {
        c->has_size[e->id] = true;
        c->size[e->id] = *out;
        return true;
    }
    if (c->chk->types[e->id] != NULL && scalar(c->chk->types[e->id])) {
        *out = fixed(1);
        return true;
    }
    const local_t *l = e->kind == CEL__N_IDENT ? local_find(c, e->u.ident.name) : NULL;
    if (l != NULL && l->has_size)
        *out = l->size;
    return l != NULL && l->has_size;
}

static est_t
size_or_unknown(coster_t *c, const cel__node_t *e)
{
    est_t s;
    return compute_size(c, e, &s) ? s : unknown;
}

static void
set_size(coster_t *c, const cel__node_t *e, bool has, est_t s)
{
    if (has) {
        c->has_size[e->id] = true;
        c->size[e->id] = s;
    }
}

static entry_t
compute_entry(const coster_t *c, const cel__node_t *e)
{
    if (c->entry[e->id].set)
        return c->entry[e->id];
    const local_t *l = e->kind == CEL__N_IDENT ? local_find(c, e->u.ident.name) : NULL;
    return l != NULL ? l->entry : (entry_t){0};
}

static entry_t
entry_union(entry_t x, entry_t y)
{
    if (!x.set || !y.set)
        return (entry_t){0};
    return (entry_t){true, x.list, e_union(x.key, y.key), e_union(x.val, y.val)};
}

static void
copy_sizes(coster_t *c, const cel__node_t *dst, const cel__node_t *src)
{
    est_t s;
    set_size(c, dst, compute_size(c, src, &s), s);
    entry_t en = compute_entry(c, src);
    if (en.set)
        c->entry[dst->id] = en;
}

static anode_t
new_anode(coster_t *c, const cel__node_t *e)
{
    anode_t n = {.path = get_path(c, e), .type = c->chk->types[e->id], .expr = e};
    if (n.path.n > 0 && is_accu(n.path.el[0]))
        n.path = (path_t){NULL, 0};
    n.has_size = compute_size(c, e, &n.size);
    return n;
}

static est_t
anode_size(const anode_t *n)
{
    return n->has_size ? n->size : unknown;
}

/* ---- Estimates: local variables ---- */

static void
push_local(coster_t *c, const char *name, path_t p, bool has_size, est_t size, entry_t en)
{
    if (c->nlocals == c->caplocals) {
        int cap = c->caplocals ? c->caplocals * 2 : 16;
        local_t *l = cel_arena_alloc(c->a, sizeof(*l) * (size_t)cap);
        if (c->nlocals > 0)
            memcpy(l, c->locals, sizeof(*l) * (size_t)c->nlocals);
        c->locals = l, c->caplocals = cap;
    }
    c->locals[c->nlocals++] = (local_t){name, p, has_size, size, en};
}

/* A binding (cel.bind, a comprehension's accumulator) takes its value's path and sizes. */
static void
push_bound(coster_t *c, const char *name, const cel__node_t *e)
{
    est_t s;
    bool has = compute_size(c, e, &s);
    push_local(c, name, get_path(c, e), has, s, compute_entry(c, e));
}

/* An iteration variable: the range's keys (`key`) or values, sized from its entries. */
static void
push_iter(coster_t *c, const char *name, const cel__node_t *range, bool key, bool single)
{
    entry_t en = compute_entry(c, range);
    bool list = en.set ? en.list : c->chk->types[range->id]->kind == CEL__TK_LIST;
    if (single)
        key = !list;
    const char *sub = key ? (list ? "@indices" : "@keys") : (list ? "@items" : "@values");
    est_t size = key ? en.key : en.val;
    push_local(c, name, path_add(c, get_path(c, range), sub), en.set, size, (entry_t){0});
}

/* ---- Estimates: kube-apiserver's library functions ---- */

/* The elements of a list, for functions whose cost depends on them. */
static bool
list_elements(coster_t *c, const anode_t *list, anode_t *out)
{
    const cel_decltype_t *t = list->type;
    if (t == NULL || (t->kind != CEL__TK_LIST && t->kind != CEL__TK_MAP))
        return false;
    *out = (anode_t){.type = t->p[0]};
    if (list->path.n > 0)
        out->path = path_add(c, list->path, "@items");
    out->has_size = schema_size(c, out->path, &out->size);
    return true;
}

static bool
named(const char *fn, const char *const *names)
{
    for (; *names != NULL; names++) {
        if (strcmp(fn, *names) == 0)
            return true;
    }
    return false;
}

/* isSorted, sum, min, max, indexOf, lastIndexOf: one comparison per element, plus a traversal
 * of string or bytes elements; on strings, a traversal. */
static est_t
traverse_estimate(coster_t *c, const anode_t *target)
{
    anode_t el;
    if (!list_elements(c, target, &el))
        return e_factor(anode_size(target), TRAVERSAL);
    est_t each = fixed(1);
    if (el.type->kind == CEL__TK_STRING || el.type->kind == CEL__TK_BYTES)
        each = e_add(each, e_factor(anode_size(&el), TRAVERSAL));
    return e_mul(anode_size(target), each);
}

static uint64_t
replace_count(est_t sz, uint64_t from, uint64_t with_bound, bool longest, uint64_t *kept)
{
    uint64_t n = longest ? sz.max : sz.min;
    if (from == 0) {
        *kept = n;
        return n < UINT64_MAX ? n + 1 : n;
    }
    if (longest ? with_bound <= from : from <= with_bound) {
        *kept = n;
        return 0;
    }
    *kept = 0;
    return (uint64_t)ceil((double)n / (double)from);
}

/* replace(): the longest result replaces the shortest matches with the longest replacement as
 * often as possible, the shortest result the other way round. */
static call_est_t
replace_estimate(const anode_t *target, const anode_t *args)
{
    est_t sz = anode_size(target), from = anode_size(&args[0]), with = anode_size(&args[1]);
    est_t count, kept;
    count.max = replace_count(sz, from.min, with.max, true, &kept.max);
    count.min = replace_count(sz, from.max, with.min, false, &kept.min);
    return (call_est_t){e_factor(sz, 2 * TRAVERSAL), true, e_add(e_mul(count, with), kept)};
}

static call_est_t
split_estimate(const anode_t *target, const anode_t *args, int nargs)
{
    est_t sz = anode_size(target);
    uint64_t max = sz.max;
    if (nargs > 1 && args[1].expr != NULL && args[1].expr->kind == CEL__N_CONST &&
        args[1].expr->u.constant.kind == CEL_INT)
        max = (uint64_t)args[1].expr->u.constant.v.i;
    return (call_est_t){e_factor(sz, 2 * TRAVERSAL), true, {0, max}};
}

static call_est_t
join_estimate(coster_t *c, const anode_t *target, const anode_t *args, int nargs)
{
    est_t sz = {0, 0}, n = anode_size(target);
    anode_t el;
    if (list_elements(c, target, &el))
        sz = e_mul(n, anode_size(&el));
    if (nargs > 0) {
        est_t seps = {n.min > 0 ? n.min - 1 : 0, n.max > 0 ? n.max - 1 : 0};
        sz = e_add(sz, e_mul(anode_size(&args[0]), seps));
    }
    return (call_est_t){e_factor(sz, TRAVERSAL), true, sz};
}

/* containsIP and containsCIDR: comparing 4 or 16 bytes, masking for CIDRs, parsing strings. */
static est_t
cidr_estimate(const char *ov, const anode_t *args, bool cidr)
{
    est_t sz = {4, 16}, cost = e_factor(e_add(sz, sz), TRAVERSAL);
    if (cidr)
        cost = e_add(e_add(cost, e_factor(sz, TRAVERSAL)), fixed(1));
    if (strcmp(ov, cidr ? "cidr_contains_cidr_string" : "cidr_contains_ip_string") == 0)
        cost = e_add(cost, e_factor(anode_size(&args[0]), TRAVERSAL));
    return cost;
}

/* Equality of kube-apiserver's own types costs 1 (named formats a tenth of their size, URLs a
 * tenth of the right operand's computed size: kube-apiserver reads that one for both sides). */
static bool
kube_equality(const coster_t *c, const anode_t *args, int nargs, est_t *out)
{
    if (nargs != 2 || args[0].type == NULL || args[1].type == NULL ||
        args[0].type->kind != CEL__TK_OPAQUE || !cel__ty_equal(args[0].type, args[1].type))
        return false;
    const char *name = args[0].type->name;
    if (strcmp(name, "kubernetes.NamedFormat") == 0)
        *out = e_factor((est_t){1, MAX_FORMAT_SIZE}, TRAVERSAL);
    else if (strcmp(name, "kubernetes.URL") == 0)
        *out =
            e_factor((est_t){1, c->has_size[args[1].expr->id] ? c->size[args[1].expr->id].max : 1},
                     TRAVERSAL);
    else
        *out = fixed(1);
    return true;
}

static const char *const nominal[] = {
    "serviceAccount",
    "path",
    "group",
    "resource",
    "subresource",
    "namespace",
    "name",
    "allowed",
    "reason",
    "error",
    "errored",
    "masked",
    "prefixLength",
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "format.named",
    "sign",
    "asInteger",
    "isInteger",
    "asApproximateFloat",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "add",
    "sub",
    "major",
    "minor",
    "patch",
    "getScheme",
    "getHostname",
    "getHost",
    "getPort",
    "getEscapedPath",
    "getQuery",
    NULL,
};
static const char *const traversing[] = {"isSorted", "sum",         "max", "min",
                                         "indexOf",  "lastIndexOf", NULL};
static const char *const parsing[] = {"cidr",       "isIP",   "isCIDR",   "quantity",
                                      "isQuantity", "semver", "isSemver", NULL};
static const char *const string_ops[] = {"lowerAscii", "upperAscii", "substring", "trim", NULL};

/* kube-apiserver's EstimateCallCost; false when it has no estimate for the call. */
static bool
kube_estimate(coster_t *c, const char *fn, const char *ov, const anode_t *target,
              const anode_t *args, int nargs, call_est_t *out)
{
    *out = (call_est_t){0};
    if (strcmp(fn, "check") == 0)
        out->cost = fixed(AUTHZ_CHECK);
    else if (named(fn, nominal) || (strcmp(fn, "ip") == 0 && target != NULL))
        out->cost = fixed(1);
    else if ((strcmp(fn, "fieldSelector") == 0 || strcmp(fn, "labelSelector") == 0) && nargs == 1)
        out->cost = (est_t){selector_cost(anode_size(&args[0]).min),
                            selector_cost(anode_size(&args[0]).max)};
    else if (named(fn, traversing) && target != NULL)
        out->cost = traverse_estimate(c, target);
    else if (strcmp(fn, "url") == 0 && nargs == 1)
        *out = (call_est_t){e_factor(anode_size(&args[0]), TRAVERSAL), true, anode_size(&args[0])};
    else if (named(fn, string_ops) && target != NULL)
        *out = (call_est_t){e_factor(anode_size(target), TRAVERSAL), true, anode_size(target)};
    else if (strcmp(fn, "replace") == 0 && target != NULL && nargs >= 2)
        *out = replace_estimate(target, args);
    else if (strcmp(fn, "split") == 0 && target != NULL)
        *out = split_estimate(target, args, nargs);
    else if (strcmp(fn, "join") == 0 && target != NULL)
        *out = join_estimate(c, target, args, nargs);
    else if ((strcmp(fn, "find") == 0 || strcmp(fn, "findAll") == 0) && target && nargs >= 1)
        *out = (call_est_t){e_mul(e_factor(e_add(anode_size(target), fixed(1)), TRAVERSAL),
                                  e_factor(anode_size(&args[0]), REGEX_LEN)),
                            true, (est_t){0, anode_size(target).max}};
    else if ((named(fn, parsing) || strcmp(fn, "ip") == 0) && target == NULL && nargs >= 1)
        out->cost = e_factor(anode_size(&args[0]), TRAVERSAL);
    else if (strcmp(fn, "ip.isCanonical") == 0 && nargs >= 1)
        out->cost = e_factor(anode_size(&args[0]), 2 * TRAVERSAL);
    else if ((strcmp(fn, "containsIP") == 0 || strcmp(fn, "containsCIDR") == 0) && nargs >= 1)
        out->cost = cidr_estimate(ov, args, fn[8] == 'C');
    else if (strcmp(fn, "validate") == 0 && target != NULL && nargs >= 1)
        out->cost = e_factor(e_factor(anode_size(&args[0]), TRAVERSAL), 128 * REGEX_LEN);
    else if (!(strcmp(fn, "_==_") == 0 && kube_equality(c, args, nargs, &out->cost)))
        return false;
    return true;
}

/* ---- Estimates: cel-go's functions ---- */

static bool
is_id(const char *ov, const char *const *ids)
{
    return named(ov, ids);
}

static const char *const text_compare[] = {
    "less_string",
    "greater_string",
    "less_equals_string",
    "greater_equals_string",
    "less_bytes",
    "greater_bytes",
    "less_equals_bytes",
    "greater_equals_bytes",
    "equals",
    "not_equals",
    NULL,
};

/* Comparisons: a tenth of the smaller of the two sizes. */
static est_t
compare_estimate(const anode_t *args)
{
    est_t l = anode_size(&args[0]), r = anode_size(&args[1]);
    uint64_t smallest = l.max < r.max ? l.max : r.max;
    return e_factor((est_t){smallest > 0 ? 1 : 0, smallest}, TRAVERSAL);
}

/* Concatenation: sizes add up; strings and bytes are copied, lists are not. */
static call_est_t
add_estimate(coster_t *c, const cel__node_t *e, const char *ov, const anode_t *args)
{
    est_t sz = e_add(anode_size(&args[0]), anode_size(&args[1]));
    entry_t en = entry_union(compute_entry(c, args[0].expr), compute_entry(c, args[1].expr));
    if (en.set)
        c->entry[e->id] = en;
    est_t cost = strcmp(ov, "add_list") == 0 ? fixed(1) : e_factor(sz, TRAVERSAL);
    return (call_est_t){cost, true, sz};
}

static call_est_t
cond_estimate(coster_t *c, const cel__node_t *e, const anode_t *args, const est_t *costs)
{
    est_t sz = e_union(anode_size(&args[1]), anode_size(&args[2]));
    entry_t en = entry_union(compute_entry(c, args[1].expr), compute_entry(c, args[2].expr));
    if (en.set)
        c->entry[e->id] = en;
    return (call_est_t){e_add(costs[0], e_union(costs[1], costs[2])), true, sz};
}

/* cel-go's own estimates, by overload; false for the ones costing 1. `argsum` is not yet
 * added. */
static bool
celgo_estimate(coster_t *c, const cel__node_t *e, const char *ov, const anode_t *target,
               const anode_t *args, int nargs, call_est_t *out)
{
    static const char *const prefix[] = {"starts_with_string", "ends_with_string", NULL};
    est_t sz = nargs > 0 ? anode_size(&args[0]) : unknown;
    *out = (call_est_t){0};
    if (strcmp(ov, "string_format") == 0 && target != NULL)
        out->cost = e_factor(anode_size(target), TRAVERSAL);
    else if (strcmp(ov, "string_to_bytes") == 0 && nargs == 1)
        *out = (call_est_t){e_factor(sz, TRAVERSAL), true, {sz.min, sat_mul(sz.max, 4)}};
    else if (strcmp(ov, "bytes_to_string") == 0 && nargs == 1)
        *out = (call_est_t){e_factor(sz, TRAVERSAL), true, {sz.min / 4, sz.max}};
    else if (strcmp(ov, "strings_quote") == 0 && nargs == 1)
        *out = (call_est_t){
            e_factor(sz, TRAVERSAL), true, {sat_add(sz.min, 2), sat_add(sat_mul(sz.max, 2), 2)}};
    else if (is_id(ov, prefix) && nargs == 1)
        out->cost = e_factor(sz, TRAVERSAL);
    else if (strcmp(ov, "in_list") == 0 && nargs == 2)
        out->cost = anode_size(&args[1]);
    else if (strcmp(ov, "matches_string") == 0 && target != NULL && nargs == 1)
        out->cost = e_mul(e_factor(e_add(anode_size(target), fixed(1)), TRAVERSAL),
                          e_factor(sz, REGEX_LEN));
    else if (strcmp(ov, "contains_string") == 0 && target != NULL && nargs == 1)
        out->cost = e_mul(e_factor(anode_size(target), TRAVERSAL), e_factor(sz, TRAVERSAL));
    else if (strncmp(ov, "add_", 4) == 0 && nargs == 2 &&
             (strcmp(ov + 4, "string") == 0 || strcmp(ov + 4, "bytes") == 0 ||
              strcmp(ov + 4, "list") == 0))
        *out = add_estimate(c, e, ov, args);
    else if (is_id(ov, text_compare) && nargs == 2)
        out->cost = compare_estimate(args);
    else
        return false;
    return true;
}

/* One overload's estimate with its arguments' costs (cel-go's functionCost). */
static call_est_t
function_cost(coster_t *c, const cel__node_t *e, const char *ov, const anode_t *target,
              const anode_t *args, int nargs, const est_t *costs)
{
    const char *fn = e->u.call.name;
    est_t argsum = {0, 0};
    call_est_t r;
    for (int i = 0; i < nargs; i++)
        argsum = e_add(argsum, costs[i]);
    if (strcmp(ov, "logical_or") == 0 || strcmp(ov, "logical_and") == 0)
        return (call_est_t){{costs[0].min, sat_add(costs[0].max, costs[1].max)}, false, {0, 0}};
    if (strcmp(ov, "conditional") == 0)
        return cond_estimate(c, e, args, costs);
    if (strncmp(ov, "list_sets_", 10) == 0 && nargs == 2) {
        double f = strcmp(ov, "list_sets_equivalent_list") == 0 ? 2 : 1;
        est_t prod = e_factor(e_mul(anode_size(&args[0]), anode_size(&args[1])), f);
        return (call_est_t){e_add(e_add(prod, fixed(1)), argsum), false, {0, 0}};
    }
    if (!kube_estimate(c, fn, ov, target, args, nargs, &r) &&
        !celgo_estimate(c, e, ov, target, args, nargs, &r))
        r.cost = fixed(1);
    r.cost = e_add(r.cost, argsum);
    return r;
}

/* ---- Estimates: the walk (cel-go's coster) ---- */

static est_t
cost_ident(coster_t *c, const cel__node_t *e)
{
    const char *name = c->chk->names[e->id] ? c->chk->names[e->id] : e->u.ident.name;
    const local_t *l = local_find(c, e->u.ident.name);
    c->paths[e->id] = l != NULL ? l->path : path_add(c, (path_t){NULL, 0}, name);
    return fixed(1);
}

static est_t
cost_select(coster_t *c, const cel__node_t *e)
{
    if (c->chk->names[e->id] != NULL) {
        /* A qualified variable name: an identifier to cel-go's checker. */
        c->paths[e->id] = path_add(c, (path_t){NULL, 0}, c->chk->names[e->id]);
        return fixed(1);
    }
    const cel__node_t *op = e->u.select.operand;
    est_t sum = cost(c, op);
    if (e->u.select.test_only)
        return sum; /* has() itself is free in kube-apiserver */
    cel__tk_t k = c->chk->types[op->id]->kind;
    if (k == CEL__TK_MAP || k == CEL__TK_OBJECT || k == CEL__TK_PARAM)
        sum = e_add(sum, fixed(1));
    c->paths[e->id] = path_add(c, get_path(c, op), e->u.select.field);
    return sum;
}

/* Index operators lead into a list's items or a map's values. */
static void
index_result(coster_t *c, const cel__node_t *e, const char *ov, bool *has, est_t *size)
{
    bool list = strcmp(ov, "index_list") == 0;
    if (!list && strcmp(ov, "index_map") != 0)
        return;
    const cel__node_t *operand = e->u.call.args[0];
    entry_t en = compute_entry(c, operand);
    *has = en.set;
    *size = en.val;
    c->paths[e->id] = path_add(c, get_path(c, operand), list ? "@items" : "@values");
}

static est_t
cost_call(coster_t *c, const cel__node_t *e)
{
    int nargs = e->u.call.nargs;
    if (strcmp(e->u.call.name, "dyn") == 0 && nargs == 1 && e->u.call.target == NULL) {
        est_t s = e_add(fixed(1), cost(c, e->u.call.args[0]));
        copy_sizes(c, e, e->u.call.args[0]);
        return s;
    }
    est_t *costs = cel_arena_alloc(c->a, sizeof(*costs) * (size_t)(nargs + 1));
    anode_t *args = cel_arena_alloc(c->a, sizeof(*args) * (size_t)(nargs + 1));
    for (int i = 0; i < nargs; i++) {
        costs[i] = cost(c, e->u.call.args[i]);
        args[i] = new_anode(c, e->u.call.args[i]);
    }
    const char **ovs = c->chk->overloads[e->id];
    if (ovs == NULL)
        return (est_t){0, 0};
    est_t sum = {0, 0}, fn = {UINT64_MAX, 0}, rsize = {0, 0};
    anode_t target, *tp = NULL;
    if (e->u.call.target != NULL) {
        sum = cost(c, e->u.call.target);
        target = new_anode(c, e->u.call.target);
        tp = &target;
    }
    bool has = false;
    for (int i = 0; ovs[i] != NULL; i++) {
        call_est_t r = function_cost(c, e, ovs[i], tp, args, nargs, costs);
        fn = e_union(fn, r.cost);
        if (r.has_result)
            rsize = has ? e_union(rsize, r.result) : r.result, has = true;
        index_result(c, e, ovs[i], &has, &rsize);
        if (!has)
            has = compute_size(c, e, &rsize);
    }
    set_size(c, e, has, rsize);
    return e_add(sum, fn);
}

/* List and map literals: their base cost, and the sizes of their entries. */
static est_t
cost_aggregate(coster_t *c, const cel__node_t *e)
{
    bool list = e->kind == CEL__N_LIST;
    int n = list ? e->u.list.n : e->u.map.n;
    est_t sum = fixed(list ? LIST_COST : MAP_COST);
    est_t ks = {n ? UINT64_MAX : 0, 0}, vs = ks;
    for (int i = 0; i < n; i++) {
        if (list) {
            sum = e_add(sum, cost(c, e->u.list.elems[i]));
            vs = e_union(vs, size_or_unknown(c, e->u.list.elems[i]));
            continue;
        }
        sum = e_add(sum, cost(c, e->u.map.keys[i]));
        sum = e_add(sum, cost(c, e->u.map.vals[i]));
        ks = e_union(ks, size_or_unknown(c, e->u.map.keys[i]));
        vs = e_union(vs, size_or_unknown(c, e->u.map.vals[i]));
    }
    c->entry[e->id] = (entry_t){true, list, list ? fixed(1) : ks, vs};
    return sum;
}

/* cel.bind(): a comprehension over nothing whose accumulator is the bound variable. */
static bool
is_bind(const cel__node_t *e)
{
    const cel__node_t *r = e->u.comp.range, *cond = e->u.comp.cond;
    return r->kind == CEL__N_LIST && r->u.list.n == 0 && cond->kind == CEL__N_CONST &&
           cond->u.constant.kind == CEL_BOOL && !cond->u.constant.v.b &&
           !is_accu(e->u.comp.accu_var);
}

static est_t
cost_bind(coster_t *c, const cel__node_t *e)
{
    est_t sum = e_add(cost(c, e->u.comp.range), cost(c, e->u.comp.init));
    push_bound(c, e->u.comp.accu_var, e->u.comp.init);
    sum = e_add(sum, cost(c, e->u.comp.result));
    c->nlocals--;
    copy_sizes(c, e, e->u.comp.result);
    return sum;
}

/* A comprehension: the loop condition and step once per element of the range. */
static est_t
cost_comprehension(coster_t *c, const cel__node_t *e)
{
    const cel__node_t *range = e->u.comp.range, *init = e->u.comp.init;
    est_t sum = e_add(cost(c, range), cost(c, init));
    push_bound(c, e->u.comp.accu_var, init);
    bool two = e->u.comp.iter_var2 != NULL;
    push_iter(c, e->u.comp.iter_var, range, true, !two);
    if (two)
        push_iter(c, e->u.comp.iter_var2, range, false, false);
    est_t loop = cost(c, e->u.comp.cond), step = cost(c, e->u.comp.step);
    c->nlocals -= two ? 2 : 1;
    sum = e_add(sum, cost(c, e->u.comp.result));
    c->nlocals--;
    est_t n = size_or_unknown(c, range);
    sum = e_add(sum, e_mul(n, e_add(step, loop)));
    if (init->kind == CEL__N_CONST) {
        est_t s;
        set_size(c, e, compute_size(c, init, &s), s);
    } else if (init->kind == CEL__N_LIST || init->kind == CEL__N_MAP) {
        set_size(c, e, true, n);
        entry_t en = compute_entry(c, e->u.comp.step);
        if (en.set)
            c->entry[e->id] = en;
    }
    return sum;
}

static est_t cost_node(coster_t *c, const cel__node_t *e);

static est_t
cost(coster_t *c, const cel__node_t *e)
{
    if (!c->done[e->id]) {
        c->memo[e->id] = cost_node(c, e);
        c->done[e->id] = true;
    }
    return c->memo[e->id];
}

static est_t
cost_node(coster_t *c, const cel__node_t *e)
{
    switch (e->kind) {
    case CEL__N_CONST:
        return fixed(0);
    case CEL__N_IDENT:
        return cost_ident(c, e);
    case CEL__N_SELECT:
        return cost_select(c, e);
    case CEL__N_CALL:
        return cost_call(c, e);
    case CEL__N_LIST:
    case CEL__N_MAP:
        return cost_aggregate(c, e);
    case CEL__N_STRUCT: {
        est_t sum = fixed(STRUCT_COST);
        for (int i = 0; i < e->u.map.n; i++)
            sum = e_add(sum, cost(c, e->u.map.vals[i]));
        return sum;
    }
    default:
        return is_bind(e) ? cost_bind(c, e) : cost_comprehension(c, e);
    }
}

cel_cost_estimate_t
cel__estimate(const cel__node_t *root, const cel__checked_t *chk, const cel_env_t *env,
              cel_arena_t *a)
{
    coster_t c = {.chk = chk, .env = env, .a = a};
    c.done = cel_arena_alloc(a, sizeof(*c.done) * chk->nnodes);
    c.memo = cel_arena_alloc(a, sizeof(*c.memo) * chk->nnodes);
    c.paths = cel_arena_alloc(a, sizeof(*c.paths) * chk->nnodes);
    c.has_size = cel_arena_alloc(a, sizeof(*c.has_size) * chk->nnodes);
    c.size = cel_arena_alloc(a, sizeof(*c.size) * chk->nnodes);
    c.entry = cel_arena_alloc(a, sizeof(*c.entry) * chk->nnodes);
    return cost(&c, root);
}
