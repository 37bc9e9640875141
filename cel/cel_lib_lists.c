/*
 * List functions: the Kubernetes lists library (isSorted, sum, min, max, indexOf, lastIndexOf)
 * and cel-go's ext lists (slice, flatten, distinct, lists.range, reverse, sort, and the
 * @sortByAssociatedKeys helper the sortBy macro expands to). Ordering follows cel-go's
 * Compare: numbers compare across int, uint and double; a pair that cannot be ordered (NaN,
 * different kinds) never counts as "greater" or "less". Sorting is stable.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

#define FN(name)                                                                                   \
    static cel_value_t name(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)

/* lists.range() refuses more elements than this, as cel-go does. */
#define MAX_RANGE 10000000

/* What cel-go's traits.Comparer covers. */
static bool
lst_comparable(const cel_value_t *v)
{
    switch (v->kind) {
    case CEL_INT:
    case CEL_UINT:
    case CEL_DOUBLE:
    case CEL_STRING:
    case CEL_BYTES:
    case CEL_BOOL:
    case CEL_TIMESTAMP:
    case CEL_DURATION:
        return true;
    default:
        return false;
    }
}

static bool
lst_charge_list(cel__eval_t *ev, const cel_value_t *l, uint64_t factor)
{
    return cel__work_size(ev, cel_list_size(l) * factor);
}

FN(lst_is_sorted)
{
    (void)call;
    if (a[0].kind != CEL_LIST)
        return cel__no_overload(ev, "isSorted", a, n);
    if (!lst_charge_list(ev, &a[0], 1))
        return cel__halt_error(ev);
    size_t size = cel_list_size(&a[0]);
    cel_value_t prev = {.kind = CEL_NULL};
    for (size_t i = 0; i < size; i++) {
        cel_value_t x = cel_list_at(&a[0], i);
        if (!lst_comparable(&x))
            return cel__no_overload(ev, "isSorted", &x, 1);
        if (i > 0 && cel__value_compare(&prev, &x) == 1)
            return cel_bool(false);
        prev = x;
    }
    return cel_bool(true);
}

FN(lst_sum)
{
    bool known;
    if (a[0].kind != CEL_LIST)
        return cel__no_overload(ev, "sum", a, n);
    size_t size = cel_list_size(&a[0]);
    if (size == 0)
        return cel_int(0);
    if (!lst_charge_list(ev, &a[0], 1))
        return cel__halt_error(ev);
    /* Sums add with the + operator's rules (overflow errors included). */
    const cel__fn_t *add = cel__fn_find("_+_", false, 2, &known);
    cel_value_t acc[2] = {cel_list_at(&a[0], 0)};
    if (acc[0].kind != CEL_INT && acc[0].kind != CEL_UINT && acc[0].kind != CEL_DOUBLE &&
        acc[0].kind != CEL_DURATION)
        return cel__no_overload(ev, "sum", acc, 1);
    for (size_t i = 1; i < size && acc[0].kind != CEL_ERROR; i++) {
        acc[1] = cel_list_at(&a[0], i);
        acc[0] = add->impl(ev, call, acc, 2);
    }
    return acc[0];
}

/* min() and max(): the element nothing compares `worse` than. */
static cel_value_t
lst_extreme(cel__eval_t *ev, const cel_value_t *a, int n, const char *name, int worse)
{
    if (a[0].kind != CEL_LIST)
        return cel__no_overload(ev, name, a, n);
    size_t size = cel_list_size(&a[0]);
    if (size == 0)
        return cel__err(ev, "%s called on empty list", name);
    if (!lst_charge_list(ev, &a[0], 1))
        return cel__halt_error(ev);
    cel_value_t best = cel_list_at(&a[0], 0);
    for (size_t i = 0; i < size; i++) {
        cel_value_t x = cel_list_at(&a[0], i);
        if (!lst_comparable(&x))
            return cel__no_overload(ev, name, &x, 1);
        if (i > 0 && cel__value_compare(&best, &x) == worse)
            best = x;
    }
    return best;
}

FN(lst_min)
{
    (void)call;
    return lst_extreme(ev, a, n, "min", 1);
}

FN(lst_max)
{
    (void)call;
    return lst_extreme(ev, a, n, "max", -1);
}

static cel_value_t
lst_find_elem(cel__eval_t *ev, const cel_value_t *a, int n, bool last)
{
    if (a[0].kind != CEL_LIST)
        return cel__no_overload(ev, last ? "lastIndexOf" : "indexOf", a, n);
    if (!lst_charge_list(ev, &a[0], 1))
        return cel__halt_error(ev);
    size_t size = cel_list_size(&a[0]);
    for (size_t k = 0; k < size; k++) {
        size_t i = last ? size - 1 - k : k;
        cel_value_t x = cel_list_at(&a[0], i);
        if (cel_value_equal(&x, &a[1]))
            return cel_int((int64_t)i);
    }
    return cel_int(-1);
}

FN(lst_index_of)
{
    (void)call;
    return lst_find_elem(ev, a, n, false);
}

FN(lst_last_index_of)
{
    (void)call;
    return lst_find_elem(ev, a, n, true);
}

FN(lst_slice)
{
    (void)call;
    if (a[0].kind != CEL_LIST || a[1].kind != CEL_INT || a[2].kind != CEL_INT)
        return cel__no_overload(ev, "slice", a, n);
    int64_t start = a[1].v.i, end = a[2].v.i, len = (int64_t)cel_list_size(&a[0]);
    if (start < 0 || end < 0)
        return cel__err(ev, "cannot slice(%lld, %lld), negative indexes not supported",
                        (long long)start, (long long)end);
    if (start > end)
        return cel__err(ev,
                        "cannot slice(%lld, %lld), start index must be less than or equal to end "
                        "index",
                        (long long)start, (long long)end);
    if (len < end)
        return cel__err(ev, "cannot slice(%lld, %lld), list is length %lld", (long long)start,
                        (long long)end, (long long)len);
    if (!cel__work_size(ev, (uint64_t)(end - start)))
        return cel__halt_error(ev);
    cel_list_t *out = cel__list_new(ev->arena, (size_t)(end - start));
    for (int64_t i = start; i < end; i++)
        out->items[out->len++] = cel_list_at(&a[0], (size_t)i);
    return cel__list_value(out);
}

static bool
lst_flatten_into(cel__eval_t *ev, cel_list_t *out, const cel_value_t *l, int64_t depth)
{
    size_t size = cel_list_size(l);
    if (!cel__work_size(ev, size))
        return false;
    for (size_t i = 0; i < size; i++) {
        cel_value_t x = cel_list_at(l, i);
        if (x.kind == CEL_LIST && depth > 0) {
            if (!lst_flatten_into(ev, out, &x, depth - 1))
                return false;
        } else {
            cel__list_push(ev->arena, out, x);
        }
    }
    return true;
}

FN(lst_flatten)
{
    (void)call;
    if (a[0].kind != CEL_LIST || (n == 2 && a[1].kind != CEL_INT))
        return cel__no_overload(ev, "flatten", a, n);
    int64_t depth = n == 2 ? a[1].v.i : 1;
    if (depth < 0)
        return cel__err(ev, "level must be non-negative");
    cel_list_t *out = cel__list_new(ev->arena, cel_list_size(&a[0]));
    if (!lst_flatten_into(ev, out, &a[0], depth))
        return cel__halt_error(ev);
    return cel__list_value(out);
}

FN(lst_distinct)
{
    (void)call;
    if (a[0].kind != CEL_LIST)
        return cel__no_overload(ev, "distinct", a, n);
    size_t size = cel_list_size(&a[0]);
    if (!lst_charge_list(ev, &a[0], size + 1))
        return cel__halt_error(ev);
    cel_list_t *out = cel__list_new(ev->arena, size);
    for (size_t i = 0; i < size; i++) {
        cel_value_t x = cel_list_at(&a[0], i);
        size_t j = 0;
        while (j < out->len && !cel_value_equal(&out->items[j], &x))
            j++;
        if (j == out->len)
            out->items[out->len++] = x;
    }
    return cel__list_value(out);
}

FN(lst_range)
{
    (void)call;
    if (a[0].kind != CEL_INT)
        return cel__no_overload(ev, "lists.range", a, n);
    int64_t count = a[0].v.i;
    if (count < 0)
        return cel__err(ev, "lists.range: size must be non-negative, got %lld", (long long)count);
    if (count > MAX_RANGE)
        return cel__err(ev, "lists.range: size %lld exceeds maximum allowed (%d)", (long long)count,
                        MAX_RANGE);
    if (!cel__work_size(ev, (uint64_t)count))
        return cel__halt_error(ev);
    cel_list_t *out = cel__list_new(ev->arena, (size_t)count);
    for (int64_t i = 0; i < count; i++)
        out->items[out->len++] = cel_int(i);
    return cel__list_value(out);
}

FN(lst_reverse)
{
    if (a[0].kind != CEL_LIST)
        return cel__fn_next(ev, call, lst_reverse, a, n);
    size_t size = cel_list_size(&a[0]);
    if (!lst_charge_list(ev, &a[0], 1))
        return cel__halt_error(ev);
    cel_list_t *out = cel__list_new(ev->arena, size);
    for (size_t i = 0; i < size; i++)
        out->items[out->len++] = cel_list_at(&a[0], size - 1 - i);
    return cel__list_value(out);
}

/* ---- Sorting ---- */

/* Stable merge sort of positions `idx` by `keys`; `tmp` has room for n positions. */
static void
lst_merge_sort(const cel_value_t *keys, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t half = n / 2, i = 0, j = half, k = 0;
    lst_merge_sort(keys, idx, tmp, half);
    lst_merge_sort(keys, idx + half, tmp, n - half);
    while (i < half && j < n) {
        /* Take from the right only when strictly less: ties keep their order. */
        if (cel__value_compare(&keys[idx[j]], &keys[idx[i]]) == -1)
            tmp[k++] = idx[j++];
        else
            tmp[k++] = idx[i++];
    }
    while (i < half)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof(*idx));
}

/* `list` in the order `keys` sort into, as cel-go's sort() and sortBy() require: keys of one
 * comparable type. */
static cel_value_t
lst_sorted(cel__eval_t *ev, const cel_value_t *list, const cel_value_t *keylist)
{
    size_t n = cel_list_size(list);
    if (n == 0)
        return *list;
    cel_value_t *keys = cel_arena_alloc(ev->arena, n * sizeof(*keys));
    for (size_t i = 0; i < n; i++) {
        keys[i] = cel_list_at(keylist, i);
        if (!lst_comparable(&keys[0]))
            return cel__err(ev, "list elements must be comparable");
        if (keys[i].kind != keys[0].kind)
            return cel__err(ev, "list elements must have the same type");
    }
    if (!cel__work_size(ev, 2 * (uint64_t)n * n))
        return cel__halt_error(ev);
    size_t *idx = cel_arena_alloc(ev->arena, 2 * n * sizeof(*idx));
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    lst_merge_sort(keys, idx, idx + n, n);
    cel_list_t *out = cel__list_new(ev->arena, n);
    for (size_t i = 0; i < n; i++)
        out->items[out->len++] = cel_list_at(list, idx[i]);
    return cel__list_value(out);
}

FN(lst_sort)
{
    (void)call;
    if (a[0].kind != CEL_LIST)
        return cel__no_overload(ev, "sort", a, n);
    return lst_sorted(ev, &a[0], &a[0]);
}

FN(lst_sort_by_keys)
{
    (void)call;
    if (a[0].kind != CEL_LIST || a[1].kind != CEL_LIST)
        return cel__no_overload(ev, "@sortByAssociatedKeys", a, n);
    size_t n0 = cel_list_size(&a[0]), n1 = cel_list_size(&a[1]);
    if (n0 != n1)
        return cel__err(ev,
                        "@sortByAssociatedKeys() expected a list of the same size as the "
                        "associated keys list, but got %zu and %zu elements respectively",
                        n0, n1);
    return lst_sorted(ev, &a[0], &a[1]);
}

const cel__fn_t cel__lists_fns[] = {
    {"isSorted", true, 1, 1, lst_is_sorted},
    {"sum", true, 1, 1, lst_sum},
    {"min", true, 1, 1, lst_min},
    {"max", true, 1, 1, lst_max},
    {"indexOf", true, 2, 2, lst_index_of},
    {"lastIndexOf", true, 2, 2, lst_last_index_of},
    {"slice", true, 3, 3, lst_slice},
    {"flatten", true, 1, 2, lst_flatten},
    {"distinct", true, 1, 1, lst_distinct},
    {"lists.range", false, 1, 1, lst_range},
    {"reverse", true, 1, 1, lst_reverse},
    {"sort", true, 1, 1, lst_sort},
    {"@sortByAssociatedKeys", true, 2, 2, lst_sort_by_keys},
    {NULL, false, 0, 0, NULL},
};

#undef FN
