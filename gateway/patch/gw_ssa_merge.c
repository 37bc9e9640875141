/*
 * Server-side apply: structured-merge-diff's merging and removing walkers (typed/merge.go with
 * the rule that the right-hand side wins, typed/remove.go) and the walks of a field set over a
 * schema (fieldpath's EnsureNamedFieldsAreMembers, typed/reconcile_schema.go).
 */
#include "gw_ssa_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

/* ---- Merge ---------------------------------------------------------------------------------- */

typedef struct {
    gw_ssa__path_t path;
    gw_ssa__errs_t *errs;
} mwalk_t;

static json_t *merge_value(mwalk_t *w, const gw_schema_t *s, const json_t *l, const json_t *r);

/* The two lists being merged, indexed, and how far the merge has got. */
typedef struct {
    const gw_ssa__atom_t *a;
    const json_t *l, *r;
    gw_ssa__index_t x, y;
    size_t *lp, nl;         /* lhs items in order (duplicates too) */
    size_t *rp, nr;         /* rhs items in order */
    size_t *shared, ns, si; /* rhs items also in lhs; the next one to merge is shared[si] */
    bool *merged;           /* per rhs item */
    json_t *out;
} mlist_t;

static void
merge_item(mwalk_t *w, mlist_t *m, const gw_pe_t *pe, const json_t *l, const json_t *r)
{
    json_t *v;

    gw_ssa__push(&w->path, pe);
    v = merge_value(w, gw_ssa__items(m->a), l, r);
    gw_ssa__pop(&w->path);
    if (v != NULL)
        json_array_append_new(m->out, v);
}

/* observedLHS: the lhs item of an element; a duplicated one is null (the rhs replaces all of
 * them), none is NULL. */
static const json_t *
lhs_item(const mlist_t *m, const gw_pe_t *pe)
{
    size_t i = gw_ssa__index_find(&m->x, pe);

    if (i == SIZE_MAX)
        return NULL;
    return m->x.count[i] > 1 ? json_null() : json_array_get(m->l, i);
}

/* The rhs item (first occurrence) of an element, or SIZE_MAX. */
static size_t
rhs_at(const mlist_t *m, const gw_pe_t *pe)
{
    return gw_ssa__index_find(&m->y, pe);
}

static bool
is_next_shared(const mlist_t *m, const gw_pe_t *pe)
{
    return m->si < m->ns && gw_pe_compare(&m->y.pe[m->shared[m->si]], pe) == 0;
}

/* Take the next rhs item, merged with its lhs item when there is one. */
static void
take_rhs(mwalk_t *w, mlist_t *m, size_t *ri)
{
    size_t j = m->rp[(*ri)++];
    const gw_pe_t *pe = &m->y.pe[j];

    m->merged[j] = true;
    merge_item(w, m, pe, lhs_item(m, pe), json_array_get(m->r, j));
    if (is_next_shared(m, pe))
        m->si++;
}

/* One step of visitListItems: equal heads merge; an lhs element the rhs holds waits for its
 * turn; lhs-only elements stay where they are; otherwise the rhs head comes next. */
static void
merge_step(mwalk_t *w, mlist_t *m, size_t *li, size_t *ri)
{
    const gw_pe_t *pl = *li < m->nl ? &m->x.pe[m->lp[*li]] : NULL;
    size_t j = pl ? rhs_at(m, pl) : SIZE_MAX;

    if (pl != NULL && *ri < m->nr) {
        if (gw_pe_compare(pl, &m->y.pe[m->rp[*ri]]) == 0) {
            m->merged[m->rp[*ri]] = true;
            merge_item(w, m, pl, lhs_item(m, pl), json_array_get(m->r, m->rp[*ri]));
            (*li)++;
            (*ri)++;
            m->si++;
            return;
        }
        if (j != SIZE_MAX && m->si < m->ns && !is_next_shared(m, pl)) {
            (*li)++;
            return;
        }
    }
    if (pl != NULL && j == SIZE_MAX) {
        merge_item(w, m, pl, json_array_get(m->l, m->lp[(*li)++]), NULL);
        return;
    }
    if (pl != NULL && m->merged[j]) {
        (*li)++;
        return;
    }
    if (*ri < m->nr)
        take_rhs(w, m, ri);
}

/* The rhs may not repeat an element; neither side may have an element without a key. */
static bool
index_errors(mwalk_t *w, mlist_t *m)
{
    size_t before = w->errs->n;
    char *dup;

    if (m->y.bad < m->y.n)
        gw_ssa__err(w->errs, &w->path, "element %zu: %s", m->y.bad, m->y.why);
    for (size_t j = 0; j < m->y.n; j++) {
        if (m->y.ok[j] && m->y.first[j] != j) {
            dup = gw_pe_path_text(&m->y.pe[j]);
            gw_ssa__err(w->errs, &w->path, "duplicate entries for key %s", dup);
            free(dup);
        }
    }
    if (m->x.bad < m->x.n)
        gw_ssa__err(w->errs, &w->path, "element %zu: %s", m->x.bad, m->x.why);
    return w->errs->n != before;
}

static void
mlist_init(mlist_t *m, const gw_ssa__atom_t *a, const json_t *l, const json_t *r)
{
    *m = (mlist_t){.a = a, .l = l, .r = r, .out = json_array()};
    gw_ssa__index(&m->x, a, l);
    gw_ssa__index(&m->y, a, r);
    m->lp = gw_calloc(m->x.n + 1, sizeof(size_t));
    m->rp = gw_calloc(m->y.n + 1, sizeof(size_t));
    m->shared = gw_calloc(m->y.n + 1, sizeof(size_t));
    m->merged = gw_calloc(m->y.n + 1, sizeof(bool));
    for (size_t i = 0; i < m->x.n; i++) {
        if (m->x.ok[i])
            m->lp[m->nl++] = i;
    }
    for (size_t j = 0; j < m->y.n; j++) {
        if (!m->y.ok[j] || m->y.first[j] != j)
            continue;
        m->rp[m->nr++] = j;
        if (gw_ssa__index_find(&m->x, &m->y.pe[j]) != SIZE_MAX)
            m->shared[m->ns++] = j;
    }
}

static void
mlist_free(mlist_t *m)
{
    gw_ssa__index_free(&m->x);
    gw_ssa__index_free(&m->y);
    free(m->lp);
    free(m->rp);
    free(m->shared);
    free(m->merged);
    json_decref(m->out);
}

static json_t *
merge_list(mwalk_t *w, const gw_ssa__atom_t *a, const json_t *l, const json_t *r)
{
    mlist_t m;
    size_t li = 0, ri = 0;
    json_t *out = NULL;

    mlist_init(&m, a, l, r);
    if (!index_errors(w, &m)) {
        while (li < m.nl || ri < m.nr)
            merge_step(w, &m, &li, &ri);
        if (json_array_size(m.out) > 0)
            out = json_incref(m.out);
    }
    mlist_free(&m);
    return out;
}

static void
merge_entry(mwalk_t *w, const gw_ssa__atom_t *a, json_t *out, const char *key, const json_t *l,
            const json_t *r)
{
    const gw_schema_t *es;
    bool declared;
    json_t *v;

    gw_ssa__entry(a, key, &es, &declared);
    gw_ssa__push_field(&w->path, key);
    v = merge_value(w, es, l, r);
    gw_ssa__pop(&w->path);
    if (v != NULL)
        json_object_set_new(out, key, v);
}

static json_t *
merge_map(mwalk_t *w, const gw_ssa__atom_t *a, const json_t *l, const json_t *r)
{
    json_t *out = json_object(), *v;
    const char *key;

    json_object_foreach((json_t *)l, key, v)
        merge_entry(w, a, out, key, v, json_object_get(r, key));
    json_object_foreach((json_t *)r, key, v)
    {
        if (json_object_get(l, key) == NULL)
            merge_entry(w, a, out, key, NULL, v);
    }
    if (json_object_size(out) == 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

static bool
no_items(const json_t *v)
{
    return v == NULL || (json_is_array(v) ? json_array_size(v) : json_object_size(v)) == 0;
}

/* handleAtom of the rhs's atom: leaves (scalars, atomics, both sides empty) take the rhs when
 * there is one; granular lists and maps merge item by item. */
static json_t *
merge_value(mwalk_t *w, const gw_schema_t *s, const json_t *l, const json_t *r)
{
    gw_ssa__atom_t a;
    bool list;
    const json_t *ll, *rl;

    gw_ssa__resolve(s, r != NULL ? r : l, &a);
    list = a.kind == GW_SSA__LIST;
    ll = (list ? json_is_array(l) : json_is_object(l)) ? l : NULL;
    rl = (list ? json_is_array(r) : json_is_object(r)) ? r : NULL;
    if (a.kind == GW_SSA__SCALAR || a.atomic || (no_items(ll) && no_items(rl)))
        return gw_ssa__copy(r != NULL ? r : l);
    return list ? merge_list(w, &a, ll, rl) : merge_map(w, &a, ll, rl);
}

json_t *
gw_ssa__merge(const gw_schema_t *s, const json_t *lhs, const json_t *rhs, gw_ssa__errs_t *e)
{
    mwalk_t w = {.errs = e};
    size_t before = e->n;
    json_t *out = merge_value(&w, s, lhs, rhs);

    gw_ssa__path_free(&w.path);
    if (e->n != before) {
        json_decref(out);
        return NULL;
    }
    return out != NULL ? out : json_object();
}

/* ---- RemoveItems ---------------------------------------------------------------------------- */

static json_t *remove_value(const gw_schema_t *s, const json_t *v, const gw_fieldset_node_t *n);

/* What becomes of one item or entry: dropped (NULL) when a member, else pruned below. */
static json_t *
remove_under(const gw_schema_t *s, const json_t *v, const gw_fieldset_node_t *n, const gw_pe_t *pe)
{
    size_t at;

    if (!gw_fieldset_node_find(n, pe, &at))
        return json_deep_copy(v);
    if (gw_fieldset_node_member(n, at))
        return NULL;
    return remove_value(s, v, gw_fieldset_node_child(n, at));
}

static json_t *
remove_list(const gw_ssa__atom_t *a, const json_t *v, const gw_fieldset_node_t *n)
{
    json_t *out = json_array(), *item;
    gw_ssa__index_t x;

    gw_ssa__index(&x, a, v);
    for (size_t i = 0; i < x.n; i++) {
        item = x.ok[i] ? remove_under(gw_ssa__items(a), json_array_get(v, i), n, &x.pe[i])
                       : json_deep_copy(json_array_get(v, i));
        if (item != NULL)
            json_array_append_new(out, item);
    }
    gw_ssa__index_free(&x);
    return out;
}

static json_t *
remove_map(const gw_ssa__atom_t *a, const json_t *v, const gw_fieldset_node_t *n)
{
    json_t *out = json_object(), *e, *kept;
    const gw_schema_t *es;
    const char *key;
    bool declared;

    json_object_foreach((json_t *)v, key, e)
    {
        gw_pe_t pe = {.kind = GW_PE_FIELD, .name = key};
        gw_ssa__entry(a, key, &es, &declared);
        kept = remove_under(es, e, n, &pe);
        if (kept != NULL)
            json_object_set_new(out, key, kept);
    }
    return out;
}

/* An atomic, empty or mistyped list or map reached by removal becomes null, and so does one
 * that loses every item. */
static json_t *
remove_value(const gw_schema_t *s, const json_t *v, const gw_fieldset_node_t *n)
{
    gw_ssa__atom_t a;
    bool list;
    json_t *out;

    gw_ssa__resolve(s, v, &a);
    if (a.kind == GW_SSA__SCALAR)
        return json_deep_copy(v);
    list = a.kind == GW_SSA__LIST;
    if ((list ? !json_is_array(v) : !json_is_object(v)) || no_items(v) || a.atomic)
        return json_null();
    out = list ? remove_list(&a, v, n) : remove_map(&a, v, n);
    if (no_items(out)) {
        json_decref(out);
        return json_null();
    }
    return out;
}

json_t *
gw_ssa__remove(const gw_schema_t *s, const json_t *v, const gw_fieldset_t *set)
{
    return remove_value(s, v, gw_fieldset_root(set));
}

/* ---- walks of sets over a schema ------------------------------------------------------------ */

/* The schema below entry pe of a node of schema s: a field or map entry, or a list element.
 * False when the schema does not say (deduced values, or a path the schema lacks). */
static bool
schema_below(const gw_schema_t *s, const gw_pe_t *pe, const gw_schema_t **out, bool *declared)
{
    gw_ssa__atom_t a;

    *out = NULL;
    *declared = false;
    if (s == NULL)
        return false;
    gw_ssa__resolve(s, NULL, &a);
    if (pe->kind == GW_PE_FIELD)
        return a.kind == GW_SSA__MAP && gw_ssa__entry(&a, pe->name, out, declared) && *out != NULL;
    if (a.kind == GW_SSA__LIST)
        *out = gw_ssa__items(&a);
    return *out != NULL;
}

static void
named_walk(const gw_schema_t *s, const gw_fieldset_node_t *n, gw_ssa__path_t *p, gw_fieldset_t *out)
{
    const gw_schema_t *cs;
    bool declared;

    for (size_t i = 0; i < gw_fieldset_node_size(n); i++) {
        const gw_fieldset_node_t *child = gw_fieldset_node_child(n, i);
        const gw_pe_t *pe = gw_fieldset_node_pe(n, i);
        bool known = schema_below(s, pe, &cs, &declared);
        gw_ssa__push(p, pe);
        if (gw_fieldset_node_member(n, i) || (child != NULL && declared))
            gw_ssa__insert(out, p);
        if (child != NULL)
            named_walk(known && (pe->kind == GW_PE_FIELD || pe->kind == GW_PE_KEY) ? cs : NULL,
                       child, p, out);
        gw_ssa__pop(p);
    }
}

gw_fieldset_t *
gw_ssa__named(const gw_schema_t *s, const gw_fieldset_t *set)
{
    gw_fieldset_t *out = gw_fieldset_new();
    gw_ssa__path_t p = {0};

    named_walk(s, gw_fieldset_root(set), &p, out);
    gw_ssa__path_free(&p);
    return out;
}

/* Paths with members below them whose schema is now atomic go into cut. */
static void
reconcile_walk(const gw_schema_t *s, const gw_fieldset_node_t *n, gw_ssa__path_t *p,
               gw_fieldset_t *cut)
{
    const gw_schema_t *cs;
    gw_ssa__atom_t a;
    bool declared;

    for (size_t i = 0; i < gw_fieldset_node_size(n); i++) {
        const gw_fieldset_node_t *child = gw_fieldset_node_child(n, i);
        if (child == NULL || !schema_below(s, gw_fieldset_node_pe(n, i), &cs, &declared))
            continue;
        gw_ssa__resolve(cs, NULL, &a);
        gw_ssa__push(p, gw_fieldset_node_pe(n, i));
        if (a.kind != GW_SSA__SCALAR && a.atomic)
            gw_ssa__insert(cut, p);
        else
            reconcile_walk(cs, child, p, cut);
        gw_ssa__pop(p);
    }
}

gw_fieldset_t *
gw_ssa__reconcile(const gw_schema_t *s, const gw_fieldset_t *set)
{
    gw_fieldset_t *cut = gw_fieldset_new(), *rest, *out;
    gw_ssa__path_t p = {0};

    reconcile_walk(s, gw_fieldset_root(set), &p, cut);
    gw_ssa__path_free(&p);
    rest = gw_fieldset_recursive_difference(set, cut);
    out = gw_fieldset_union(rest, cut);
    gw_fieldset_free(rest);
    gw_fieldset_free(cut);
    return out;
}
