/*
 * cel.@mapInsert, the helper cel-go's two-variable comprehension macros (transformMap,
 * transformMapEntry; expanded in cel_parse.c) accumulate with: a map with one more entry, or
 * with the entries of another map; a key already present is an error, as in cel-go.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

/* Go's %v of a map key, for the duplicate-key message. */
static const char *
cmp_key_text(cel_arena_t *a, const cel_value_t *k)
{
    switch (k->kind) {
    case CEL_STRING:
        return cel_arena_strndup(a, k->v.str.data, k->v.str.len);
    case CEL_INT:
        return cel__arena_sprintf(a, "%lld", (long long)k->v.i);
    case CEL_UINT:
        return cel__arena_sprintf(a, "%llu", (unsigned long long)k->v.u);
    case CEL_BOOL:
        return k->v.b ? "true" : "false";
    default:
        return cel_value_type(k)->name;
    }
}

/* The map to add to: the macro's private accumulator itself, or a copy of anything else. */
static cel_map_t *
cmp_target(cel__eval_t *ev, const cel_value_t *m)
{
    if (m->flags & CEL__VF_ACCU)
        return (cel_map_t *)m->v.map;
    cel_map_t *out = cel__map_new(ev->arena, cel_map_size(m) + 1);
    cel_map_iter_t it = CEL_MAP_ITER_INIT;
    cel_value_t k, v;
    while (cel_map_next(m, &it, &k, &v))
        cel__map_put(ev->arena, out, k, v);
    return out;
}

static bool
cmp_insert(cel__eval_t *ev, cel_map_t *m, cel_value_t k, cel_value_t v, cel_value_t *err)
{
    if (!cel__map_key_ok(&k)) {
        *err = cel__err(ev, "unsupported key type: %s", cel_value_type(&k)->name);
        return false;
    }
    if (!cel__map_put(ev->arena, m, k, v)) {
        *err = cel__err(ev, "insert failed: key %s already exists", cmp_key_text(ev->arena, &k));
        return false;
    }
    return true;
}

static cel_value_t
cmp_map_insert(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    cel_value_t err, k, v;
    if (a[0].kind != CEL_MAP || (n == 2 && a[1].kind != CEL_MAP))
        return cel__no_overload(ev, "cel.@mapInsert", a, n);
    cel_map_t *m = cmp_target(ev, &a[0]);
    if (n == 3 && !cmp_insert(ev, m, a[1], a[2], &err))
        return err;
    cel_map_iter_t it = CEL_MAP_ITER_INIT;
    while (n == 2 && cel_map_next(&a[1], &it, &k, &v)) {
        if (!cmp_insert(ev, m, k, v, &err))
            return err;
    }
    cel_value_t out = cel__map_value(m);
    out.flags = a[0].flags & CEL__VF_ACCU;
    return out;
}

const cel__fn_t cel__comprehension_fns[] = {
    {"cel.@mapInsert", false, 2, 3, cmp_map_insert},
    {NULL, false, 0, 0, NULL},
};
