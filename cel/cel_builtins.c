/*
 * The standard functions and operators: arithmetic with overflow checks, comparisons,
 * membership, size, string tests, conversions, type(), and the optional-value functions.
 * Each implementation checks its argument kinds itself and answers "no such overload" when
 * they do not fit.
 */
#include "cel.h"

#include <math.h>
#include <string.h>

#include "cel_int.h"

#define NS_PER_S 1000000000LL

#define FN(name)                                                                                   \
    static cel_value_t name(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)

static cel_value_t
overflow(cel__eval_t *ev)
{
    return cel__err(ev, "integer overflow");
}

static bool
both(const cel_value_t *a, cel_kind_t k1, cel_kind_t k2)
{
    return a[0].kind == k1 && a[1].kind == k2;
}

/* ---- Arithmetic ---- */

static cel_value_t
ts_plus(cel__eval_t *ev, cel_value_t ts, int64_t ns, bool minus)
{
    int64_t sec = ns / NS_PER_S, nsec = ns % NS_PER_S;
    if (minus)
        sec = -sec, nsec = -nsec;
    int64_t s = ts.v.ts.sec + sec, nn = ts.v.ts.nsec + nsec;
    if (nn < 0)
        nn += NS_PER_S, s--;
    else if (nn >= NS_PER_S)
        nn -= NS_PER_S, s++;
    cel_value_t r = cel_timestamp(s, (int32_t)nn);
    return r.kind == CEL_ERROR ? cel__err(ev, "timestamp out of range") : r;
}

static cel_value_t
concat(cel__eval_t *ev, const cel_value_t *a)
{
    if (a[0].kind == CEL_LIST) {
        size_t n0 = cel_list_size(&a[0]), n1 = cel_list_size(&a[1]);
        if (!cel__work_size(ev, n0 + n1))
            return cel__halt_error(ev);
        const cel_decltype_t *kind = cel__list_kind(&a[0]);
        if (kind != NULL) {
            /* Set and map lists merge, comparing every pair. */
            if (!cel__work_size(ev, n0 * n1))
                return cel__halt_error(ev);
            return cel__list_merge(ev->arena, &a[0], &a[1], kind);
        }
        cel_value_t l = a[0];
        if (l.flags & CEL__VF_ACCU) {
            /* The accumulator of a macro: nobody else sees it, append in place. */
            for (size_t i = 0; i < n1; i++)
                cel__list_push(ev->arena, (cel_list_t *)l.v.list, cel_list_at(&a[1], i));
            return l;
        }
        cel_list_t *out = cel__list_new(ev->arena, n0 + n1);
        for (size_t i = 0; i < n0; i++)
            out->items[out->len++] = cel_list_at(&a[0], i);
        for (size_t i = 0; i < n1; i++)
            out->items[out->len++] = cel_list_at(&a[1], i);
        return cel__list_value(out);
    }
    size_t len = a[0].v.str.len + a[1].v.str.len;
    if (!cel__work_size(ev, len))
        return cel__halt_error(ev);
    char *buf = cel_arena_alloc(ev->arena, len + 1);
    memcpy(buf, a[0].v.str.data, a[0].v.str.len);
    memcpy(buf + a[0].v.str.len, a[1].v.str.data, a[1].v.str.len);
    cel_value_t r = a[0];
    r.v.str.data = buf;
    r.v.str.len = len;
    r.v.str.cp = a[0].kind == CEL_STRING && a[0].v.str.cp >= 0 && a[1].v.str.cp >= 0
                     ? a[0].v.str.cp + a[1].v.str.cp
                     : -1;
    return r;
}

FN(fn_add)
{
    (void)call;
    int64_t i;
    uint64_t u;
    if (both(a, CEL_INT, CEL_INT))
        return __builtin_add_overflow(a[0].v.i, a[1].v.i, &i) ? overflow(ev) : cel_int(i);
    if (both(a, CEL_UINT, CEL_UINT))
        return __builtin_add_overflow(a[0].v.u, a[1].v.u, &u) ? overflow(ev) : cel_uint(u);
    if (both(a, CEL_DOUBLE, CEL_DOUBLE))
        return cel_double(a[0].v.d + a[1].v.d);
    if (both(a, CEL_STRING, CEL_STRING) || both(a, CEL_BYTES, CEL_BYTES) ||
        both(a, CEL_LIST, CEL_LIST))
        return concat(ev, a);
    if (both(a, CEL_TIMESTAMP, CEL_DURATION))
        return ts_plus(ev, a[0], a[1].v.dur, false);
    if (both(a, CEL_DURATION, CEL_TIMESTAMP))
        return ts_plus(ev, a[1], a[0].v.dur, false);
    if (both(a, CEL_DURATION, CEL_DURATION))
        return __builtin_add_overflow(a[0].v.dur, a[1].v.dur, &i)
                   ? cel__err(ev, "duration out of range")
                   : cel_duration(i);
    return cel__no_overload(ev, "_+_", a, n);
}

static cel_value_t
ts_diff(cel__eval_t *ev, const cel_value_t *a)
{
    int64_t s = a[0].v.ts.sec - a[1].v.ts.sec, ns;
    int64_t nn = (int64_t)a[0].v.ts.nsec - a[1].v.ts.nsec;
    if (__builtin_mul_overflow(s, NS_PER_S, &ns) || __builtin_add_overflow(ns, nn, &ns))
        return cel__err(ev, "duration out of range");
    return cel_duration(ns);
}

FN(fn_sub)
{
    (void)call;
    int64_t i;
    uint64_t u;
    if (both(a, CEL_INT, CEL_INT))
        return __builtin_sub_overflow(a[0].v.i, a[1].v.i, &i) ? overflow(ev) : cel_int(i);
    if (both(a, CEL_UINT, CEL_UINT))
        return __builtin_sub_overflow(a[0].v.u, a[1].v.u, &u) ? overflow(ev) : cel_uint(u);
    if (both(a, CEL_DOUBLE, CEL_DOUBLE))
        return cel_double(a[0].v.d - a[1].v.d);
    if (both(a, CEL_TIMESTAMP, CEL_TIMESTAMP))
        return ts_diff(ev, a);
    if (both(a, CEL_TIMESTAMP, CEL_DURATION))
        return ts_plus(ev, a[0], a[1].v.dur, true);
    if (both(a, CEL_DURATION, CEL_DURATION))
        return __builtin_sub_overflow(a[0].v.dur, a[1].v.dur, &i)
                   ? cel__err(ev, "duration out of range")
                   : cel_duration(i);
    return cel__no_overload(ev, "_-_", a, n);
}

FN(fn_mul)
{
    (void)call;
    int64_t i;
    uint64_t u;
    if (both(a, CEL_INT, CEL_INT))
        return __builtin_mul_overflow(a[0].v.i, a[1].v.i, &i) ? overflow(ev) : cel_int(i);
    if (both(a, CEL_UINT, CEL_UINT))
        return __builtin_mul_overflow(a[0].v.u, a[1].v.u, &u) ? overflow(ev) : cel_uint(u);
    if (both(a, CEL_DOUBLE, CEL_DOUBLE))
        return cel_double(a[0].v.d * a[1].v.d);
    return cel__no_overload(ev, "_*_", a, n);
}

/* Division and modulus share their checks. */
static cel_value_t
divmod(cel__eval_t *ev, const cel_value_t *a, int n, bool mod)
{
    const char *name = mod ? "_%_" : "_/_";
    const char *zero = mod ? "modulus by zero" : "division by zero";
    if (both(a, CEL_INT, CEL_INT)) {
        if (a[1].v.i == 0)
            return cel__err(ev, "%s", zero);
        if (a[0].v.i == INT64_MIN && a[1].v.i == -1)
            return overflow(ev);
        return cel_int(mod ? a[0].v.i % a[1].v.i : a[0].v.i / a[1].v.i);
    }
    if (both(a, CEL_UINT, CEL_UINT)) {
        if (a[1].v.u == 0)
            return cel__err(ev, "%s", zero);
        return cel_uint(mod ? a[0].v.u % a[1].v.u : a[0].v.u / a[1].v.u);
    }
    if (!mod && both(a, CEL_DOUBLE, CEL_DOUBLE))
        return cel_double(a[0].v.d / a[1].v.d);
    return cel__no_overload(ev, name, a, n);
}

FN(fn_div)
{
    (void)call;
    return divmod(ev, a, n, false);
}

FN(fn_mod)
{
    (void)call;
    return divmod(ev, a, n, true);
}

FN(fn_neg)
{
    (void)call;
    if (a[0].kind == CEL_INT)
        return a[0].v.i == INT64_MIN ? overflow(ev) : cel_int(-a[0].v.i);
    if (a[0].kind == CEL_DOUBLE)
        return cel_double(-a[0].v.d);
    return cel__no_overload(ev, "-_", a, n);
}

FN(fn_not)
{
    (void)call;
    if (a[0].kind == CEL_BOOL)
        return cel_bool(!a[0].v.b);
    return cel__no_overload(ev, "!_", a, n);
}

/* ---- Comparisons ---- */

static bool
charge_compare(cel__eval_t *ev, const cel_value_t *a)
{
    /* Comparing aggregates or text walks them: work beyond what the cost model counts. */
    uint64_t size = 0;
    for (int i = 0; i < 2; i++) {
        if (a[i].kind == CEL_STRING || a[i].kind == CEL_BYTES)
            size += a[i].v.str.len;
        else if (a[i].kind == CEL_LIST)
            size += cel_list_size(&a[i]);
        else if (a[i].kind == CEL_MAP)
            size += cel_map_size(&a[i]);
    }
    return cel__work_size(ev, size);
}

FN(fn_eq)
{
    (void)call, (void)n;
    if (!charge_compare(ev, a))
        return cel__halt_error(ev);
    return cel_bool(cel_value_equal(&a[0], &a[1]));
}

FN(fn_ne)
{
    (void)call, (void)n;
    if (!charge_compare(ev, a))
        return cel__halt_error(ev);
    return cel_bool(!cel_value_equal(&a[0], &a[1]));
}

static cel_value_t
ordered(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    int c = cel__value_compare(&a[0], &a[1]);
    const char *op = call->u.call.name;
    if (c == 2) {
        /* Between two numbers only NaN is unordered, and comparisons with it are false. */
        bool numbers = (a[0].kind == CEL_INT || a[0].kind == CEL_UINT || a[0].kind == CEL_DOUBLE) &&
                       (a[1].kind == CEL_INT || a[1].kind == CEL_UINT || a[1].kind == CEL_DOUBLE);
        return numbers ? cel_bool(false) : cel__no_overload(ev, op, a, n);
    }
    if (!charge_compare(ev, a))
        return cel__halt_error(ev);
    if (strcmp(op, "_<_") == 0)
        return cel_bool(c < 0);
    if (strcmp(op, "_<=_") == 0)
        return cel_bool(c <= 0);
    if (strcmp(op, "_>_") == 0)
        return cel_bool(c > 0);
    return cel_bool(c >= 0);
}

FN(fn_in)
{
    (void)call;
    if (a[1].kind == CEL_LIST) {
        size_t size = cel_list_size(&a[1]);
        if (!cel__work_size(ev, size))
            return cel__halt_error(ev);
        for (size_t i = 0; i < size; i++) {
            cel_value_t x = cel_list_at(&a[1], i);
            if (cel_value_equal(&a[0], &x))
                return cel_bool(true);
        }
        return cel_bool(false);
    }
    if (a[1].kind == CEL_MAP) {
        cel_value_t out;
        return cel_bool(cel_map_find(&a[1], &a[0], &out));
    }
    return cel__no_overload(ev, "@in", a, n);
}

FN(fn_index)
{
    (void)call, (void)n;
    return cel__index(ev, a[0], a[1]);
}

/* ---- size and strings ---- */

FN(fn_size)
{
    (void)call;
    switch (a[0].kind) {
    case CEL_STRING:
        return cel_int(cel__str_cplen(&a[0]));
    case CEL_BYTES:
        return cel_int((int64_t)a[0].v.str.len);
    case CEL_LIST:
        return cel_int((int64_t)cel_list_size(&a[0]));
    case CEL_MAP:
        return cel_int((int64_t)cel_map_size(&a[0]));
    default:
        return cel__no_overload(ev, "size", a, n);
    }
}

static cel_value_t
str_test(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    const char *name = call->u.call.name;
    if (!both(a, CEL_STRING, CEL_STRING))
        return cel__no_overload(ev, name, a, n);
    const char *s = a[0].v.str.data, *t = a[1].v.str.data;
    size_t sl = a[0].v.str.len, tl = a[1].v.str.len;
    if (!cel__work_size(ev, sl + tl))
        return cel__halt_error(ev);
    if (tl > sl)
        return cel_bool(false);
    if (strcmp(name, "startsWith") == 0)
        return cel_bool(memcmp(s, t, tl) == 0);
    if (strcmp(name, "endsWith") == 0)
        return cel_bool(memcmp(s + sl - tl, t, tl) == 0);
    return cel_bool(tl == 0 || memmem(s, sl, t, tl) != NULL);
}

/* ---- Conversions ---- */

FN(fn_int)
{
    (void)call;
    int64_t i;
    switch (a[0].kind) {
    case CEL_INT:
        return a[0];
    case CEL_UINT:
        return a[0].v.u > (uint64_t)INT64_MAX
                   ? cel__err(ev, "range error: int(%llu)", (unsigned long long)a[0].v.u)
                   : cel_int((int64_t)a[0].v.u);
    case CEL_DOUBLE:
        if (!(a[0].v.d > -9223372036854775808.0 && a[0].v.d < 9223372036854775808.0))
            return cel__err(ev, "range error: double out of int range");
        return cel_int((int64_t)a[0].v.d);
    case CEL_STRING:
        if (!cel__parse_int(a[0].v.str.data, a[0].v.str.len, &i))
            return cel__err(ev, "cannot convert string '%.*s' to int", (int)a[0].v.str.len,
                            a[0].v.str.data);
        return cel_int(i);
    case CEL_TIMESTAMP:
        return cel_int(a[0].v.ts.sec);
    case CEL_DURATION:
        return cel_int(a[0].v.dur);
    default:
        return cel__no_overload(ev, "int", a, n);
    }
}

FN(fn_uint)
{
    (void)call;
    uint64_t u;
    switch (a[0].kind) {
    case CEL_UINT:
        return a[0];
    case CEL_INT:
        return a[0].v.i < 0 ? cel__err(ev, "range error: uint(%lld)", (long long)a[0].v.i)
                            : cel_uint((uint64_t)a[0].v.i);
    case CEL_DOUBLE:
        if (!(a[0].v.d >= 0 && a[0].v.d < 18446744073709551616.0))
            return cel__err(ev, "range error: double out of uint range");
        return cel_uint((uint64_t)a[0].v.d);
    case CEL_STRING:
        if (!cel__parse_uint(a[0].v.str.data, a[0].v.str.len, &u))
            return cel__err(ev, "cannot convert string '%.*s' to uint", (int)a[0].v.str.len,
                            a[0].v.str.data);
        return cel_uint(u);
    default:
        return cel__no_overload(ev, "uint", a, n);
    }
}

FN(fn_double)
{
    (void)call;
    double d;
    switch (a[0].kind) {
    case CEL_DOUBLE:
        return a[0];
    case CEL_INT:
        return cel_double((double)a[0].v.i);
    case CEL_UINT:
        return cel_double((double)a[0].v.u);
    case CEL_STRING:
        if (!cel__parse_double(a[0].v.str.data, a[0].v.str.len, &d))
            return cel__err(ev, "cannot convert string '%.*s' to double", (int)a[0].v.str.len,
                            a[0].v.str.data);
        return cel_double(d);
    default:
        return cel__no_overload(ev, "double", a, n);
    }
}

static cel_value_t
own_string(const char *s)
{
    return cel__string_own(s, strlen(s));
}

FN(fn_string)
{
    switch (a[0].kind) {
    case CEL_STRING:
        return a[0];
    case CEL_INT:
        return own_string(cel__arena_sprintf(ev->arena, "%lld", (long long)a[0].v.i));
    case CEL_UINT:
        return own_string(cel__arena_sprintf(ev->arena, "%llu", (unsigned long long)a[0].v.u));
    case CEL_DOUBLE:
        return own_string(cel__format_double(ev->arena, a[0].v.d));
    case CEL_BOOL:
        return own_string(a[0].v.b ? "true" : "false");
    case CEL_BYTES:
        if (!cel__utf8_valid(a[0].v.str.data, a[0].v.str.len))
            return cel__err(ev, "invalid UTF-8 in bytes, cannot convert to string");
        return cel__string_own(a[0].v.str.data, a[0].v.str.len);
    case CEL_TIMESTAMP:
        return own_string(cel__ts_format(ev->arena, a[0].v.ts.sec, a[0].v.ts.nsec));
    case CEL_DURATION:
        return own_string(cel__dur_format(ev->arena, a[0].v.dur));
    default:
        /* Libraries add conversions of their own values. */
        return cel__fn_next(ev, call, fn_string, a, n);
    }
}

FN(fn_bytes)
{
    (void)call;
    if (a[0].kind == CEL_BYTES)
        return a[0];
    if (a[0].kind == CEL_STRING) {
        cel_value_t b = a[0];
        b.kind = CEL_BYTES;
        b.v.str.cp = -1;
        return b;
    }
    return cel__no_overload(ev, "bytes", a, n);
}

static bool
str_is(const cel_value_t *v, const char *s)
{
    return v->v.str.len == strlen(s) && memcmp(v->v.str.data, s, v->v.str.len) == 0;
}

FN(fn_bool)
{
    (void)call;
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True", NULL};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False", NULL};
    if (a[0].kind == CEL_BOOL)
        return a[0];
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "bool", a, n);
    for (int i = 0; yes[i] != NULL; i++) {
        if (str_is(&a[0], yes[i]))
            return cel_bool(true);
        if (str_is(&a[0], no[i]))
            return cel_bool(false);
    }
    return cel__err(ev, "cannot convert string '%.*s' to bool", (int)a[0].v.str.len,
                    a[0].v.str.data);
}

FN(fn_dyn)
{
    (void)ev, (void)call, (void)n;
    return a[0];
}

FN(fn_type)
{
    (void)ev, (void)call, (void)n;
    return cel_type_value(cel_value_type(&a[0]));
}

/* ---- Optionals ---- */

FN(fn_opt_of)
{
    (void)call, (void)n;
    return cel_optional(ev->arena, &a[0]);
}

FN(fn_opt_none)
{
    (void)call, (void)a, (void)n;
    return cel_optional(ev->arena, NULL);
}

static bool
is_zero(const cel_value_t *v)
{
    switch (v->kind) {
    case CEL_NULL:
        return true;
    case CEL_BOOL:
        return !v->v.b;
    case CEL_INT:
        return v->v.i == 0;
    case CEL_UINT:
        return v->v.u == 0;
    case CEL_DOUBLE:
        return v->v.d == 0;
    case CEL_STRING:
    case CEL_BYTES:
        return v->v.str.len == 0;
    case CEL_LIST:
        return cel_list_size(v) == 0;
    case CEL_MAP:
        return cel_map_size(v) == 0;
    case CEL_TIMESTAMP:
        return v->v.ts.sec == 0 && v->v.ts.nsec == 0;
    case CEL_DURATION:
        return v->v.dur == 0;
    case CEL_OPTIONAL:
        return v->v.opt == NULL;
    default:
        return false;
    }
}

FN(fn_opt_nonzero)
{
    (void)call, (void)n;
    return cel_optional(ev->arena, is_zero(&a[0]) ? NULL : &a[0]);
}

FN(fn_has_value)
{
    (void)call;
    if (a[0].kind != CEL_OPTIONAL)
        return cel__no_overload(ev, "hasValue", a, n);
    return cel_bool(a[0].v.opt != NULL);
}

FN(fn_value)
{
    (void)call;
    if (a[0].kind != CEL_OPTIONAL)
        return cel__no_overload(ev, "value", a, n);
    if (a[0].v.opt == NULL)
        return cel__err(ev, "optional.none() dereference");
    return *a[0].v.opt;
}

/* Never called: `or` and `orValue` are evaluated lazily by the evaluator. Listed so that
 * name resolution knows them. */
FN(fn_lazy)
{
    return cel__no_overload(ev, call->u.call.name, a, n);
}

const cel__fn_t cel__builtin_fns[] = {
    {"_+_", false, 2, 2, fn_add},
    {"_-_", false, 2, 2, fn_sub},
    {"_*_", false, 2, 2, fn_mul},
    {"_/_", false, 2, 2, fn_div},
    {"_%_", false, 2, 2, fn_mod},
    {"-_", false, 1, 1, fn_neg},
    {"!_", false, 1, 1, fn_not},
    {"_==_", false, 2, 2, fn_eq},
    {"_!=_", false, 2, 2, fn_ne},
    {"_<_", false, 2, 2, ordered},
    {"_<=_", false, 2, 2, ordered},
    {"_>_", false, 2, 2, ordered},
    {"_>=_", false, 2, 2, ordered},
    {"@in", false, 2, 2, fn_in},
    {"_[_]", false, 2, 2, fn_index},
    {"size", false, 1, 1, fn_size},
    {"size", true, 1, 1, fn_size},
    {"contains", true, 2, 2, str_test},
    {"startsWith", true, 2, 2, str_test},
    {"endsWith", true, 2, 2, str_test},
    {"matches", false, 2, 2, cel__fn_matches},
    {"matches", true, 2, 2, cel__fn_matches},
    {"int", false, 1, 1, fn_int},
    {"uint", false, 1, 1, fn_uint},
    {"double", false, 1, 1, fn_double},
    {"string", false, 1, 1, fn_string},
    {"bytes", false, 1, 1, fn_bytes},
    {"bool", false, 1, 1, fn_bool},
    {"dyn", false, 1, 1, fn_dyn},
    {"type", false, 1, 1, fn_type},
    {"optional.of", false, 1, 1, fn_opt_of},
    {"optional.none", false, 0, 0, fn_opt_none},
    {"optional.ofNonZeroValue", false, 1, 1, fn_opt_nonzero},
    {"hasValue", true, 1, 1, fn_has_value},
    {"value", true, 1, 1, fn_value},
    {"or", true, 2, 2, fn_lazy},
    {"orValue", true, 2, 2, fn_lazy},
    {NULL, false, 0, 0, NULL},
};

static const cel__fn_t *const fn_tables[] = {
    cel__builtin_fns, cel__time_fns,          cel__strings_fns,      cel__lists_fns,
    cel__math_fns,    cel__encoders_fns,      cel__regex_fns,        cel__url_fns,
    cel__net_fns,     cel__quantity_fns,      cel__semver_fns,       cel__authz_fns,
    cel__sets_fns,    cel__comprehension_fns, cel__named_format_fns, cel__jsonpatch_fns,
};

const cel__fn_t *
cel__fn_find(const char *name, bool receiver, int nargs, bool *name_known)
{
    *name_known = false;
    for (size_t t = 0; t < sizeof(fn_tables) / sizeof(fn_tables[0]); t++) {
        for (const cel__fn_t *f = fn_tables[t]; f->name != NULL; f++) {
            if (strcmp(f->name, name) != 0)
                continue;
            *name_known = true;
            if (f->receiver == receiver && nargs >= f->min_args && nargs <= f->max_args)
                return f;
        }
    }
    return NULL;
}

cel_value_t
cel__fn_next(cel__eval_t *ev, const cel__node_t *call, cel__fn_impl_t self, const cel_value_t *a,
             int n)
{
    const char *name = call->u.call.name;
    bool receiver = call->u.call.target != NULL, seen = false;
    for (size_t t = 0; t < sizeof(fn_tables) / sizeof(fn_tables[0]); t++) {
        for (const cel__fn_t *f = fn_tables[t]; f->name != NULL; f++) {
            if (strcmp(f->name, name) != 0 || f->receiver != receiver || n < f->min_args ||
                n > f->max_args)
                continue;
            if (seen)
                return f->impl(ev, call, a, n);
            seen = f->impl == self;
        }
    }
    return cel__no_overload(ev, name, a, n);
}
