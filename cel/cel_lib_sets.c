/*
 * cel-go's sets extension, which kube-apiserver enables: sets.contains, sets.equivalent and
 * sets.intersects over lists, with CEL equality (so 1, 1u and 1.0 are one element).
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

/* Whether every element of `sub` is in `list`. */
static bool
set_contains(const cel_value_t *list, const cel_value_t *sub)
{
    size_t n = cel_list_size(list), m = cel_list_size(sub);
    for (size_t i = 0; i < m; i++) {
        cel_value_t x = cel_list_at(sub, i);
        size_t j = 0;
        for (; j < n; j++) {
            cel_value_t y = cel_list_at(list, j);
            if (cel_value_equal(&y, &x))
                break;
        }
        if (j == n)
            return false;
    }
    return true;
}

static bool
set_intersects(const cel_value_t *x, const cel_value_t *y)
{
    size_t n = cel_list_size(x);
    for (size_t i = 0; i < n; i++) {
        cel_value_t e = cel_list_at(x, i);
        for (size_t j = 0; j < cel_list_size(y); j++) {
            cel_value_t f = cel_list_at(y, j);
            if (cel_value_equal(&e, &f))
                return true;
        }
    }
    return false;
}

static cel_value_t
set_fn(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    const char *name = call->u.call.name;
    if (a[0].kind != CEL_LIST || a[1].kind != CEL_LIST)
        return cel__no_overload(ev, name, a, n);
    if (!cel__work_size(ev, (uint64_t)cel_list_size(&a[0]) * cel_list_size(&a[1])))
        return cel__halt_error(ev);
    if (strcmp(name, "sets.contains") == 0)
        return cel_bool(set_contains(&a[0], &a[1]));
    if (strcmp(name, "sets.equivalent") == 0)
        return cel_bool(set_contains(&a[0], &a[1]) && set_contains(&a[1], &a[0]));
    return cel_bool(set_intersects(&a[0], &a[1]));
}

const cel__fn_t cel__sets_fns[] = {
    {"sets.contains", false, 2, 2, set_fn},
    {"sets.equivalent", false, 2, 2, set_fn},
    {"sets.intersects", false, 2, 2, set_fn},
    {NULL, false, 0, 0, NULL},
};
