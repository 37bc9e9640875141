/*
 * Strategic merge patch: the order of a merged list (kube's normalizeElementOrder). The merged
 * elements are split into those the ordering list names (the patch, or its $setElementOrder)
 * and the server's own; each part is sorted by its reference list (the patch order, the
 * original order), deletions last; then the server's elements are slotted in before the first
 * patch element the original placed after them (mergeSortedSlice).
 */
#include "gw_smp_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

/* The position in ref of item (by merge key for maps, by value otherwise), or -1. */
static long
index_of(const json_t *ref, const json_t *item, const char *key, bool maps)
{
    const json_t *want = maps ? json_object_get(item, key) : item;
    size_t i;
    json_t *v;

    json_array_foreach(ref, i, v)
    {
        if (gw_smp__go_equal(want, maps ? json_object_get(v, key) : v))
            return (long)i;
    }
    return -1;
}

static long *
indexes(const json_t *list, const json_t *ref, const char *key, bool maps)
{
    size_t n = json_array_size(list);
    long *idx = gw_malloc((n ? n : 1) * sizeof(*idx));

    for (size_t i = 0; i < n; i++)
        idx[i] = index_of(ref, json_array_get(list, i), key, maps);
    return idx;
}

/* validateMergeKeyInLists. */
static int
check_keys(gw_smp__t *s, const json_t *list, const char *key)
{
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v)
    {
        if (!json_is_object(v))
            return gw_smp__bad_type(s, "map[string]interface {}", v);
        if (json_object_get(v, key) == NULL)
            return gw_smp__no_merge_key(s, v, key);
    }
    return 0;
}

typedef struct {
    long idx;
    size_t pos;
    json_t *v;
} item_t;

static int
item_cmp(const void *a, const void *b)
{
    const item_t *x = a, *y = b;

    if (x->idx != y->idx)
        return x->idx < y->idx ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Go's less for normalizeSliceOrder: by position when both are in the reference, else true. */
static bool
go_less(const item_t *a, const item_t *b)
{
    return a->idx >= 0 && b->idx >= 0 ? a->idx < b->idx : true;
}

/* sort.SliceStable: when every element is in the reference any stable sort agrees; otherwise
 * kube's comparator is not an order and the result is what Go's insertion sort makes of it. */
static void
stable_sort(item_t *it, size_t n)
{
    bool all = true;

    for (size_t i = 0; i < n; i++)
        all = all && it[i].idx >= 0;
    if (all) {
        qsort(it, n, sizeof(*it), item_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        for (size_t j = i; j > 0 && go_less(&it[j], &it[j - 1]); j--) {
            item_t t = it[j];
            it[j] = it[j - 1];
            it[j - 1] = t;
        }
    }
}

/* normalizeSliceOrder: list sorted by ref, deletions (maps only) moved to the end. */
static int
normalize(gw_smp__t *s, const json_t *list, const json_t *ref, const char *key, bool maps,
          json_t **out)
{
    size_t n = json_array_size(list), k = 0;
    long *idx;
    item_t *it;
    json_t *dels = json_array();

    if (maps && (check_keys(s, list, key) != 0 || check_keys(s, ref, key) != 0)) {
        json_decref(dels);
        return -1;
    }
    idx = indexes(list, ref, key, maps);
    it = gw_malloc((n ? n : 1) * sizeof(*it));
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(list, i);
        if (maps && gw_smp__is_str(json_object_get(v, GW_SMP_DIRECTIVE), "delete"))
            json_array_append(dels, v);
        else
            it[k++] = (item_t){idx[i], i, v};
    }
    stable_sort(it, k);
    *out = json_array();
    for (size_t i = 0; i < k; i++)
        json_array_append(*out, it[i].v);
    json_array_extend(*out, dels);
    json_decref(dels);
    free(it);
    free(idx);
    return 0;
}

/* mergeSortedSlice: a server element goes before a patch element only when the original had
 * both and the server one first. */
static json_t *
interleave(const json_t *left, const json_t *right, const json_t *ref, const char *key, bool maps)
{
    size_t nl = json_array_size(left), nr = json_array_size(right), i = 0, j = 0;
    long *li = indexes(left, ref, key, maps), *ri = indexes(right, ref, key, maps);
    json_t *out = json_array();

    while (i < nl || j < nr) {
        bool take_left = j >= nr || (i < nl && li[i] >= 0 && ri[j] >= 0 && li[i] < ri[j]);
        if (take_left)
            json_array_append(out, json_array_get(left, i++));
        else
            json_array_append(out, json_array_get(right, j++));
    }
    free(li);
    free(ri);
    return out;
}

/* The merged elements the ordering list names (partition*ByPresentInList). */
static int
partition(gw_smp__t *s, const json_t *merged, const json_t *order_by, const char *key,
          json_t *named, json_t *rest)
{
    size_t i, at;
    json_t *v;
    bool found;

    json_array_foreach(merged, i, v)
    {
        if (key[0] == '\0') {
            found = gw_smp__contains(order_by, v);
        } else if (!json_is_object(v)) {
            return gw_smp__bad_type(s, "map[string]interface {}", v);
        } else if (json_object_get(v, key) == NULL) {
            return gw_smp__no_merge_key(s, v, key);
        } else if (!gw_smp__find_by_key(s, order_by, SIZE_MAX, key, json_object_get(v, key), &at,
                                        &found)) {
            return -1;
        }
        json_array_append(found ? named : rest, v);
    }
    return 0;
}

int
gw_smp__order(gw_smp__t *s, json_t *merged, json_t *order_by, json_t *server_order,
              const char *merge_key, bool maps, json_t **out)
{
    json_t *named = json_array(), *rest = json_array(), *a = NULL, *b = NULL;
    int rc = -1;

    *out = NULL;
    if (partition(s, merged, order_by, merge_key, named, rest) == 0 &&
        normalize(s, named, order_by, merge_key, maps, &a) == 0 &&
        normalize(s, rest, server_order, merge_key, maps, &b) == 0) {
        *out = interleave(b, a, server_order, merge_key, maps);
        rc = 0;
    }
    json_decref(named);
    json_decref(rest);
    json_decref(a);
    json_decref(b);
    return rc;
}
