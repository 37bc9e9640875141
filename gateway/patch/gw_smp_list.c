/*
 * Strategic merge patch: lists. kube's mergeSlice merges a list of maps by its merge key (the
 * `$patch: delete | replace` elements first) or a list of primitives as a deduplicated union
 * (or, from a `$deleteFromPrimitiveList`, a difference), then orders the result: the patch's
 * elements in the patch's order, the server's own in the original's, interleaved where the
 * original placed them (normalizeElementOrder, mergeSortedSlice).
 */
#include "gw_smp_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

/* ---- values --------------------------------------------------------------------------------- */

bool
gw_smp__remove_directives(json_t **v)
{
    json_t *x, *tmp, *res;
    const char *k;
    size_t i;

    if (json_is_object(*v)) {
        if (json_object_get(*v, GW_SMP_DIRECTIVE) != NULL)
            return false;
        json_object_foreach_safe(*v, tmp, k, x)
        {
            json_t *c = json_incref(x);
            if (gw_smp__remove_directives(&c))
                json_object_set_new(*v, k, c);
            else {
                json_decref(c);
                json_object_del(*v, k);
            }
        }
    } else if (json_is_array(*v)) {
        res = json_array();
        json_array_foreach(*v, i, x)
        {
            json_t *c = json_incref(x);
            if (gw_smp__remove_directives(&c))
                json_array_append_new(res, c);
            else
                json_decref(c);
        }
        json_decref(*v);
        *v = res;
    }
    return true;
}

void
gw_smp__discard_nulls(json_t *v)
{
    json_t *x, *tmp;
    const char *k;
    size_t i;

    if (json_is_object(v)) {
        json_object_foreach_safe(v, tmp, k, x)
        {
            if (json_is_null(x))
                json_object_del(v, k);
            else
                gw_smp__discard_nulls(x);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x) gw_smp__discard_nulls(x);
    }
}

bool
gw_smp__elem_type(gw_smp__t *s, const json_t *a, const json_t *b, bool *maps)
{
    const json_t *lists[2] = {a, b};
    gw_go_type_t prev = GW_GO_NIL;
    bool seen = false;
    size_t i;
    json_t *v;

    for (int l = 0; l < 2; l++) {
        json_array_foreach(lists[l], i, v)
        {
            gw_go_type_t t = gw_smp__go_type(v);
            if (!seen && t == GW_GO_SLICE) {
                gw_smp__fail(s, GW_SMP_INVALID, "lists of lists are not supported");
                return false;
            }
            if (!seen && t == GW_GO_NIL) { /* Go's reflect.TypeOf(nil).Kind() */
                gw_smp__fail(s, GW_SMP_FAILED,
                             "runtime error: invalid memory address or nil pointer dereference");
                return false;
            }
            if (seen && t != prev) {
                json_t *both = json_pack("[OO]", a ? a : json_null(), b ? b : json_null());
                char *text = gw_go_value(both);
                gw_smp__fail(s, GW_SMP_FAILED, "list element types are not identical: %s", text);
                free(text);
                json_decref(both);
                return false;
            }
            prev = t;
            seen = true;
        }
    }
    if (!seen)
        gw_smp__fail(s, GW_SMP_FAILED, "no elements in any of the given slices");
    *maps = prev == GW_GO_MAP;
    return seen;
}

bool
gw_smp__find_by_key(gw_smp__t *s, const json_t *list, size_t n, const char *key,
                    const json_t *value, size_t *at, bool *found)
{
    const json_t *v, *x;

    *found = false;
    for (size_t i = 0; i < n && i < json_array_size(list); i++) {
        v = json_array_get(list, i);
        if (!json_is_object(v)) {
            gw_smp__fail(s, GW_SMP_FAILED, "value for key %zu is not a map", i);
            return false;
        }
        x = json_object_get(v, key);
        if (x != NULL && gw_smp__go_equal(x, value)) {
            *at = i;
            *found = true;
            return true;
        }
    }
    return true;
}

/* ---- primitives ----------------------------------------------------------------------------- */

bool
gw_smp__contains(const json_t *list, const json_t *v)
{
    size_t i;
    json_t *x;

    json_array_foreach(list, i, x)
    {
        if (gw_smp__go_equal(x, v))
            return true;
    }
    return false;
}

/* deleteFromSlice: orig without the values listed. */
static json_t *
delete_values(const json_t *orig, const json_t *gone)
{
    json_t *out = json_array(), *v;
    size_t i;

    json_array_foreach(orig, i, v)
    {
        if (!gw_smp__contains(gone, v))
            json_array_append(out, v);
    }
    return out;
}

/* orig then patch, deduplicated in place the way kube's deduplicateScalars does it (a
 * duplicate takes the last element's place), which the ordering then undoes. */
static json_t *
union_values(const json_t *orig, const json_t *patch)
{
    size_t n = json_array_size(orig) + json_array_size(patch), len;
    json_t **s = gw_malloc((n ? n : 1) * sizeof(*s)), *out = json_array();

    for (size_t i = 0; i < n; i++)
        s[i] = i < json_array_size(orig) ? json_array_get(orig, i)
                                         : json_array_get(patch, i - json_array_size(orig));
    len = n;
    for (size_t i = 0; i + 1 < len; i++) {
        for (size_t j = i + 1; j < len; j++) {
            if (gw_smp__go_equal(s[i], s[j]))
                s[j--] = s[--len];
        }
    }
    for (size_t i = 0; i < len; i++)
        json_array_append(out, s[i]);
    free(s);
    return out;
}

/* ---- maps ----------------------------------------------------------------------------------- */

/* deleteMatchingEntries on kube's backing array: each deletion shifts what follows one place
 * left within *len and leaves the last element behind, as Go's append(s[:i], s[i+1:]...) does;
 * $setElementOrder then orders by that array. */
static int
delete_entries(gw_smp__t *s, json_t *arr, size_t *len, const char *key, const json_t *value)
{
    size_t at;
    bool found = true;

    while (found) {
        if (!gw_smp__find_by_key(s, arr, *len, key, value, &at, &found))
            return -1;
        for (size_t i = at; found && i + 1 < *len; i++)
            json_array_set(arr, i, json_array_get(arr, i + 1));
        *len -= found;
    }
    return 0;
}

static json_t *
prefix_of(const json_t *arr, size_t len)
{
    json_t *out = json_array();

    for (size_t i = 0; i < len; i++)
        json_array_append(out, json_array_get(arr, i));
    return out;
}

/* mergeSliceWithSpecialElements: deletions applied to arr (kube's backing array of the
 * original), replace noted; *local gets the list to merge into (arr's live part, or for a
 * replace the patch's plain elements) and *plain the plain elements to merge (NULL after a
 * replace). */
static int
special_elements(gw_smp__t *s, json_t *arr, const json_t *patch, const char *key, json_t **local,
                 json_t **plain)
{
    json_t *rest = json_array(), *v, *d;
    size_t len = json_array_size(arr), i;
    bool replace = false;

    json_array_foreach(patch, i, v)
    {
        d = json_object_get(v, GW_SMP_DIRECTIVE);
        if (d == NULL) {
            json_array_append(rest, v);
        } else if (gw_smp__is_str(d, "delete")) {
            if (json_object_get(v, key) == NULL)
                goto fail_key;
            if (delete_entries(s, arr, &len, key, json_object_get(v, key)) != 0)
                goto fail;
        } else if (gw_smp__is_str(d, "replace")) {
            replace = true; /* the other directive elements still go */
        } else if (gw_smp__is_str(d, "merge")) {
            gw_smp__fail(s, GW_SMP_FAILED, "merging lists cannot yet be specified in the patch");
            goto fail;
        } else {
            char *ds = gw_go_string(d), *m = gw_go_value(v);
            gw_smp__fail(s, GW_SMP_FAILED, "unknown patch type: %s in map: %s", ds, m);
            free(ds);
            free(m);
            goto fail;
        }
    }
    *local = replace ? json_incref(rest) : prefix_of(arr, len);
    *plain = replace ? NULL : json_incref(rest);
    json_decref(rest);
    return 0;
fail_key:
    gw_smp__no_merge_key(s, v, key);
fail:
    json_decref(rest);
    return -1;
}

/* mergeSliceWithoutSpecialElements: each patch element merged into the element of the same
 * key (searched among those appended too), or appended. */
static int
merge_elements(gw_smp__t *s, const json_t *local, const json_t *plain, const char *key,
               const gw_schema_t *schema, json_t **out)
{
    json_t *work = json_copy((json_t *)local), *v, *merged;
    size_t i, at;
    bool found;

    json_array_foreach(plain, i, v)
    {
        if (json_object_get(v, key) == NULL) {
            gw_smp__no_merge_key(s, v, key);
            goto fail;
        }
        if (!gw_smp__find_by_key(s, work, SIZE_MAX, key, json_object_get(v, key), &at, &found))
            goto fail;
        if (!found) {
            json_array_append(work, v);
            continue;
        }
        if (gw_smp__merge_map(s, json_array_get(work, at), v, schema, &merged) != 0)
            goto fail;
        json_array_set_new(work, at, merged);
    }
    *out = work;
    return 0;
fail:
    json_decref(work);
    return -1;
}

static int
merge_maps(gw_smp__t *s, json_t *orig, json_t *patch, const gw_smp__meta_t *m, json_t **out,
           json_t **server_order)
{
    json_t *arr = json_copy(orig), *local = NULL, *plain = NULL, *merged = NULL;
    int rc = -1;

    if (m->merge_key[0] == '\0') {
        gw_smp__fail(s, GW_SMP_FAILED, "cannot merge lists without merge key for %s", m->go_kind);
        goto out;
    }
    if (special_elements(s, arr, patch, m->merge_key, &local, &plain) != 0 ||
        merge_elements(s, local, plain, m->merge_key, m->schema, &merged) != 0)
        goto out;
    rc = gw_smp__order(s, merged, plain, local, m->merge_key, true, out);
    if (rc == 0 && server_order != NULL)
        *server_order = json_incref(arr);
out:
    json_decref(arr);
    json_decref(local);
    json_decref(plain);
    json_decref(merged);
    return rc;
}

int
gw_smp__merge_list(gw_smp__t *s, json_t *orig, json_t *patch, const gw_smp__meta_t *m,
                   bool is_delete, json_t **out, json_t **server_order)
{
    json_t *merged;
    bool maps;
    int rc;

    if (server_order != NULL)
        *server_order = NULL;
    if ((strcmp(m->strategy, "merge") != 0 && !is_delete) ||
        (json_array_size(orig) == 0 && json_array_size(patch) == 0)) {
        *out = json_incref(strcmp(m->strategy, "merge") != 0 && !is_delete ? patch : orig);
    } else if (!gw_smp__elem_type(s, orig, patch, &maps)) {
        return -1;
    } else if (maps) {
        return merge_maps(s, orig, patch, m, out, server_order);
    } else if (is_delete) {
        *out = delete_values(orig, patch);
    } else {
        merged = union_values(orig, patch);
        rc = gw_smp__order(s, merged, patch, orig, m->merge_key, false, out);
        json_decref(merged);
        if (rc != 0)
            return -1;
    }
    if (server_order != NULL)
        *server_order = json_incref(orig);
    return 0;
}
