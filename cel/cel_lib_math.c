/*
 * cel-go's math extension: math.@max / math.@min (what the math.greatest and math.least macros
 * expand to), rounding, sign and absolute value, floating-point tests and bit operations, with
 * cel-go's messages. Extremes keep the first of equal values and their own numeric type.
 */
#include "cel.h"

#include <math.h>
#include <string.h>

#include "cel_int.h"

#define FN(name)                                                                                   \
    static cel_value_t name(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)

static bool
mth_is_num(const cel_value_t *v)
{
    return v->kind == CEL_INT || v->kind == CEL_UINT || v->kind == CEL_DOUBLE;
}

static bool
mth_has_nan(const cel_value_t *x, const cel_value_t *y)
{
    return (x->kind == CEL_DOUBLE && isnan(x->v.d)) || (y->kind == CEL_DOUBLE && isnan(y->v.d));
}

/* The preferred of a pair: `second` when first compares as `worse` against it. */
static cel_value_t
mth_pick(cel__eval_t *ev, const char *fn, const cel_value_t *first, const cel_value_t *second,
         int worse)
{
    if (mth_has_nan(first, second))
        return cel__err(ev, "NaN values cannot be ordered: %s", fn);
    return cel__value_compare(first, second) == worse ? *second : *first;
}

static cel_value_t
mth_extreme_list(cel__eval_t *ev, const char *fn, const cel_value_t *l, int worse)
{
    size_t size = cel_list_size(l);
    if (size == 0)
        return cel__err(ev, "%s(list) argument must not be empty", fn);
    if (!cel__work_size(ev, size))
        return cel__halt_error(ev);
    cel_value_t best = cel_list_at(l, 0);
    for (size_t i = 1; i < size && mth_is_num(&best); i++) {
        cel_value_t x = cel_list_at(l, i);
        if (!mth_is_num(&x) || mth_has_nan(&best, &x))
            return cel__err(ev, "no such overload: %s", fn);
        best = mth_pick(ev, fn, &best, &x, worse);
    }
    return mth_is_num(&best) ? best : cel__err(ev, "no such overload: %s", fn);
}

static cel_value_t
mth_extreme(cel__eval_t *ev, const cel_value_t *a, int n, const char *fn, int worse)
{
    if (n == 1 && mth_is_num(&a[0]))
        return a[0];
    if (n == 1 && a[0].kind == CEL_LIST)
        return mth_extreme_list(ev, fn, &a[0], worse);
    if (n == 2 && mth_is_num(&a[0]) && mth_is_num(&a[1]))
        return mth_pick(ev, fn, &a[0], &a[1], worse);
    return cel__no_overload(ev, fn, a, n);
}

FN(mth_max)
{
    (void)call;
    return mth_extreme(ev, a, n, "math.@max", -1);
}

FN(mth_min)
{
    (void)call;
    return mth_extreme(ev, a, n, "math.@min", 1);
}

/* ---- Doubles ---- */

static cel_value_t
mth_on_double(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n,
              double (*f)(double))
{
    if (a[0].kind != CEL_DOUBLE)
        return cel__no_overload(ev, call->u.call.name, a, n);
    return cel_double(f(a[0].v.d));
}

FN(mth_ceil)
{
    return mth_on_double(ev, call, a, n, ceil);
}

FN(mth_floor)
{
    return mth_on_double(ev, call, a, n, floor);
}

/* C's round() rounds halves away from zero, as Go's math.Round does. */
FN(mth_round)
{
    return mth_on_double(ev, call, a, n, round);
}

FN(mth_trunc)
{
    return mth_on_double(ev, call, a, n, trunc);
}

FN(mth_is_inf)
{
    if (a[0].kind != CEL_DOUBLE)
        return cel__no_overload(ev, call->u.call.name, a, n);
    return cel_bool(isinf(a[0].v.d));
}

FN(mth_is_nan)
{
    if (a[0].kind != CEL_DOUBLE)
        return cel__no_overload(ev, call->u.call.name, a, n);
    return cel_bool(isnan(a[0].v.d));
}

FN(mth_is_finite)
{
    if (a[0].kind != CEL_DOUBLE)
        return cel__no_overload(ev, call->u.call.name, a, n);
    return cel_bool(isfinite(a[0].v.d));
}

/* ---- Signs ---- */

FN(mth_abs)
{
    switch (a[0].kind) {
    case CEL_DOUBLE:
        return cel_double(fabs(a[0].v.d));
    case CEL_INT:
        if (a[0].v.i == INT64_MIN)
            return cel__err(ev, "integer overflow");
        return cel_int(a[0].v.i < 0 ? -a[0].v.i : a[0].v.i);
    case CEL_UINT:
        return a[0];
    default:
        return cel__no_overload(ev, call->u.call.name, a, n);
    }
}

FN(mth_sign)
{
    switch (a[0].kind) {
    case CEL_DOUBLE:
        if (isnan(a[0].v.d))
            return a[0];
        return cel_double(a[0].v.d > 0 ? 1.0 : a[0].v.d < 0 ? -1.0 : 0.0);
    case CEL_INT:
        return cel_int(a[0].v.i > 0 ? 1 : a[0].v.i < 0 ? -1 : 0);
    case CEL_UINT:
        return cel_uint(a[0].v.u > 0);
    default:
        return cel__no_overload(ev, call->u.call.name, a, n);
    }
}

/* ---- Bits ---- */

/* Two ints or two uints, combined bitwise as unsigned 64-bit words. */
static cel_value_t
mth_bitwise(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n, char op)
{
    if (a[0].kind != a[1].kind || (a[0].kind != CEL_INT && a[0].kind != CEL_UINT))
        return cel__no_overload(ev, call->u.call.name, a, n);
    uint64_t x = a[0].v.u, y = a[1].v.u;
    uint64_t r = op == '&' ? x & y : op == '|' ? x | y : x ^ y;
    return a[0].kind == CEL_INT ? cel_int((int64_t)r) : cel_uint(r);
}

FN(mth_bit_and)
{
    return mth_bitwise(ev, call, a, n, '&');
}

FN(mth_bit_or)
{
    return mth_bitwise(ev, call, a, n, '|');
}

FN(mth_bit_xor)
{
    return mth_bitwise(ev, call, a, n, '^');
}

FN(mth_bit_not)
{
    if (a[0].kind == CEL_INT)
        return cel_int((int64_t) ~(uint64_t)a[0].v.i);
    if (a[0].kind == CEL_UINT)
        return cel_uint(~a[0].v.u);
    return cel__no_overload(ev, call->u.call.name, a, n);
}

/* Shifts of 64 bits or more give 0; right shifts of ints fill with zeros, as cel-go's do. */
static cel_value_t
mth_shift(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n, bool left)
{
    const char *name = call->u.call.name;
    if ((a[0].kind != CEL_INT && a[0].kind != CEL_UINT) || a[1].kind != CEL_INT)
        return cel__no_overload(ev, name, a, n);
    if (a[1].v.i < 0)
        return cel__err(ev, "%s() negative offset: %lld", name, (long long)a[1].v.i);
    uint64_t x = a[0].v.u, r = 0;
    if (a[1].v.i < 64)
        r = left ? x << a[1].v.i : x >> a[1].v.i;
    return a[0].kind == CEL_INT ? cel_int((int64_t)r) : cel_uint(r);
}

FN(mth_shift_left)
{
    return mth_shift(ev, call, a, n, true);
}

FN(mth_shift_right)
{
    return mth_shift(ev, call, a, n, false);
}

const cel__fn_t cel__math_fns[] = {
    {"math.@max", false, 1, 2, mth_max},
    {"math.@min", false, 1, 2, mth_min},
    {"math.ceil", false, 1, 1, mth_ceil},
    {"math.floor", false, 1, 1, mth_floor},
    {"math.round", false, 1, 1, mth_round},
    {"math.trunc", false, 1, 1, mth_trunc},
    {"math.isInf", false, 1, 1, mth_is_inf},
    {"math.isNaN", false, 1, 1, mth_is_nan},
    {"math.isFinite", false, 1, 1, mth_is_finite},
    {"math.abs", false, 1, 1, mth_abs},
    {"math.sign", false, 1, 1, mth_sign},
    {"math.bitAnd", false, 2, 2, mth_bit_and},
    {"math.bitOr", false, 2, 2, mth_bit_or},
    {"math.bitXor", false, 2, 2, mth_bit_xor},
    {"math.bitNot", false, 1, 1, mth_bit_not},
    {"math.bitShiftLeft", false, 2, 2, mth_shift_left},
    {"math.bitShiftRight", false, 2, 2, mth_shift_right},
    {NULL, false, 0, 0, NULL},
};

#undef FN
