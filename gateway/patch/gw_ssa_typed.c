/*
 * Server-side apply: structured-merge-diff's validating, field-set and comparing walkers
 * (typed/validate.go, tofieldset.go, compare.go). Each walks a value and its schema together,
 * keeping the path it is at; errors and set members are recorded at that path.
 */
#include "gw_ssa_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_gofmt.h"

/* ---- validation --------------------------------------------------------------------------- */

typedef struct {
    gw_ssa__path_t path;
    gw_ssa__errs_t *errs;
    bool allow_dups;
} vwalk_t;

static void validate_value(vwalk_t *w, const gw_schema_t *s, const json_t *v);

/* Go's %T of a decoded JSON value. */
static const char *
json_go_type(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "map[string]interface {}";
    case JSON_ARRAY:
        return "[]interface {}";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "int64";
    case JSON_REAL:
        return "float64";
    case JSON_NULL:
        return "<nil>";
    default:
        return "bool";
    }
}

/* Go's %#v of a decoded JSON value held in an interface{}. */
static char *
go_syntax(const json_t *v)
{
    const char *open = json_is_array(v) ? "[]interface {}{" : "map[string]interface {}{";
    char *out, *x, *k, *next;
    const char *key;
    size_t i = 0;
    json_t *e;

    if (json_is_string(v))
        return gw_go_quote(json_string_value(v));
    if (json_is_null(v))
        return gw_strdup("interface {}(nil)");
    if (!json_is_array(v) && !json_is_object(v))
        return gw_go_value(v);
    out = gw_strdup(open);
    for (void *it = json_is_object(v) ? json_object_iter((json_t *)v) : NULL;
         json_is_array(v) ? i < json_array_size(v) : it != NULL; i++) {
        e = json_is_array(v) ? json_array_get(v, i) : json_object_iter_value(it);
        key = json_is_array(v) ? NULL : json_object_iter_key(it);
        x = go_syntax(e);
        k = key ? gw_go_quote(key) : gw_strdup("");
        next = gw_sprintf("%s%s%s%s%s", out, i ? ", " : "", k, key ? ":" : "", x);
        free(x);
        free(k);
        free(out);
        out = next;
        it = it ? json_object_iter_next((json_t *)v, it) : NULL;
    }
    next = gw_sprintf("%s}", out);
    free(out);
    return next;
}

/* validateScalar: null passes; the messages print the value as Go prints value.Value. */
static void
validate_scalar(vwalk_t *w, const gw_schema_t *s, const json_t *v)
{
    char *x;

    if (json_is_null(v))
        return;
    if (s->type == GW_SCHEMA_INTEGER || s->type == GW_SCHEMA_NUMBER) {
        if (!json_is_number(v))
            gw_ssa__err(w->errs, &w->path, "expected numeric (int or float), got %s",
                        json_go_type(v));
    } else if (s->type == GW_SCHEMA_BOOLEAN) {
        if (!json_is_boolean(v)) {
            x = gw_go_value(v);
            gw_ssa__err(w->errs, &w->path, "expected boolean, got &{%s}", x);
            free(x);
        }
    } else if (!json_is_string(v)) {
        x = go_syntax(v);
        gw_ssa__err(w->errs, &w->path, "expected string, got &value.valueUnstructured{Value:%s}",
                    x);
        free(x);
    }
}

/* A value of the wrong kind for a list or map: "expected list, got &{...}". */
static bool
wrong_kind(vwalk_t *w, const char *want, const json_t *v, bool ok)
{
    char *x;

    if (ok || json_is_null(v))
        return !ok;
    x = gw_go_value(v);
    gw_ssa__err(w->errs, &w->path, "expected %s, got &{%s}", want, x);
    free(x);
    return true;
}

/* visitListItems: an item without a path element stops the list; duplicates are reported and
 * still walked. */
static void
validate_list(vwalk_t *w, const gw_ssa__atom_t *a, const json_t *v)
{
    gw_ssa__index_t x;
    char *dup;

    if (wrong_kind(w, "list", v, json_is_array(v)))
        return;
    gw_ssa__index(&x, a, v);
    for (size_t i = 0; i < x.n; i++) {
        if (i == x.bad) {
            gw_ssa__err(w->errs, &w->path, "element %zu: %s", i, x.why);
            break;
        }
        if (!a->atomic && x.first[i] != i && !w->allow_dups) {
            dup = gw_pe_path_text(&x.pe[i]);
            gw_ssa__err(w->errs, &w->path, "duplicate entries for key %s", dup);
            free(dup);
        }
        gw_ssa__push(&w->path, &x.pe[i]);
        validate_value(w, gw_ssa__items(a), json_array_get(v, i));
        gw_ssa__pop(&w->path);
    }
    gw_ssa__index_free(&x);
}

/* visitMapItems: an undeclared field stops the map. */
static void
validate_map(vwalk_t *w, const gw_ssa__atom_t *a, const json_t *v)
{
    const gw_schema_t *es;
    const char *key;
    bool declared;
    json_t *e;

    if (wrong_kind(w, "map", v, json_is_object(v)))
        return;
    json_object_foreach((json_t *)v, key, e)
    {
        gw_ssa__push_field(&w->path, key);
        if (!gw_ssa__entry(a, key, &es, &declared)) {
            gw_ssa__err(w->errs, &w->path, "field not declared in schema");
            gw_ssa__pop(&w->path);
            return;
        }
        validate_value(w, es, e);
        gw_ssa__pop(&w->path);
    }
}

static void
validate_value(vwalk_t *w, const gw_schema_t *s, const json_t *v)
{
    gw_ssa__atom_t a;

    /* deduced and untyped values: anything goes */
    if (s == NULL || s->type == GW_SCHEMA_ANY || s->type == GW_SCHEMA_INT_OR_STRING ||
        s->type == GW_SCHEMA_QUANTITY)
        return;
    gw_ssa__resolve(s, v, &a);
    if (a.kind == GW_SSA__SCALAR)
        validate_scalar(w, s, v);
    else if (a.kind == GW_SSA__LIST)
        validate_list(w, &a, v);
    else
        validate_map(w, &a, v);
}

bool
gw_ssa__validate(const gw_schema_t *s, const json_t *v, bool allow_dups, gw_ssa__errs_t *e)
{
    vwalk_t w = {.errs = e, .allow_dups = allow_dups};
    size_t before = e->n;

    validate_value(&w, s, v);
    gw_ssa__path_free(&w.path);
    return e->n == before;
}

/* ---- ToFieldSet ----------------------------------------------------------------------------- */

typedef struct {
    gw_ssa__path_t path;
    gw_fieldset_t *set;
} swalk_t;

static void set_value(swalk_t *w, const gw_schema_t *s, const json_t *v);

/* An element that occurs more than once is owned whole, once, and not walked into. */
static void
set_list(swalk_t *w, const gw_ssa__atom_t *a, const json_t *v)
{
    gw_ssa__index_t x;

    gw_ssa__index(&x, a, v);
    for (size_t i = 0; i < x.n; i++) {
        if (!x.ok[i] || (x.count[i] > 1 && x.first[i] != i))
            continue;
        gw_ssa__push(&w->path, &x.pe[i]);
        if (x.count[i] == 1)
            set_value(w, gw_ssa__items(a), json_array_get(v, i));
        gw_ssa__insert(w->set, &w->path);
        gw_ssa__pop(&w->path);
    }
    gw_ssa__index_free(&x);
}

/* A map entry is a member itself when it is null or empty, or an entry of a real map. */
static void
set_map(swalk_t *w, const gw_ssa__atom_t *a, const json_t *v)
{
    const gw_schema_t *es;
    const char *key;
    bool declared;
    json_t *e;

    json_object_foreach((json_t *)v, key, e)
    {
        if (!gw_ssa__entry(a, key, &es, &declared))
            return;
        gw_ssa__push_field(&w->path, key);
        set_value(w, es, e);
        if (json_is_null(e) || (json_is_object(e) && json_object_size(e) == 0) || !declared)
            gw_ssa__insert(w->set, &w->path);
        gw_ssa__pop(&w->path);
    }
}

static void
set_value(swalk_t *w, const gw_schema_t *s, const json_t *v)
{
    gw_ssa__atom_t a;

    gw_ssa__resolve(s, v, &a);
    if (a.kind == GW_SSA__SCALAR || a.atomic) {
        gw_ssa__insert(w->set, &w->path);
        return;
    }
    if (a.kind == GW_SSA__LIST && json_is_array(v))
        set_list(w, &a, v);
    else if (a.kind == GW_SSA__MAP && json_is_object(v))
        set_map(w, &a, v);
}

gw_fieldset_t *
gw_ssa__to_set(const gw_schema_t *s, const json_t *v)
{
    swalk_t w = {.set = gw_fieldset_new()};

    set_value(&w, s, v);
    gw_ssa__path_free(&w.path);
    return w.set;
}

/* ---- Compare -------------------------------------------------------------------------------- */

typedef struct {
    gw_ssa__path_t path;
    gw_ssa__cmp_t *c;
} cwalk_t;

static void cmp_value(cwalk_t *w, const gw_schema_t *s, const json_t *l, const json_t *r);

/* doLeaf: a leaf is added, removed or modified as a whole, once per node. */
static void
cmp_leaf(cwalk_t *w, const json_t *l, const json_t *r, bool *leaf)
{
    if (*leaf)
        return;
    *leaf = true;
    if (l == NULL)
        gw_ssa__insert(w->c->added, &w->path);
    else if (r == NULL)
        gw_ssa__insert(w->c->removed, &w->path);
    else if (!gw_ssa__equal(l, r))
        gw_ssa__insert(w->c->modified, &w->path);
}

static void
cmp_item(cwalk_t *w, const gw_ssa__atom_t *a, const gw_pe_t *pe, const json_t *l, const json_t *r)
{
    gw_ssa__push(&w->path, pe);
    cmp_value(w, gw_ssa__items(a), l, r);
    gw_ssa__pop(&w->path);
}

/* The items of a run of duplicates, in order, are equal on both sides. */
static bool
same_run(const gw_ssa__index_t *x, const json_t *l, size_t li, const gw_ssa__index_t *y,
         const json_t *r, size_t ri)
{
    size_t i = li, j = ri;

    if (x->count[li] != y->count[ri])
        return false;
    for (;; i++, j++) {
        while (i < x->n && !(x->ok[i] && x->first[i] == li))
            i++;
        while (j < y->n && !(y->ok[j] && y->first[j] == ri))
            j++;
        if (i >= x->n || j >= y->n)
            return i >= x->n && j >= y->n;
        if (!gw_ssa__equal(json_array_get(l, i), json_array_get(r, j)))
            return false;
    }
}

/* One element present on either side (li / ri: its first item there, or SIZE_MAX). A
 * duplicated element is compared as a whole: a change among duplicates modifies it, turning
 * into or out of duplicates adds or removes it. */
static void
cmp_element(cwalk_t *w, const gw_ssa__atom_t *a, const gw_ssa__index_t *x, const json_t *l,
            size_t li, const gw_ssa__index_t *y, const json_t *r, size_t ri)
{
    size_t lc = li == SIZE_MAX ? 0 : x->count[li], rc = ri == SIZE_MAX ? 0 : y->count[ri];
    const json_t *lv = lc ? json_array_get(l, li) : NULL, *rv = rc ? json_array_get(r, ri) : NULL;
    const gw_pe_t *pe = lc ? &x->pe[li] : &y->pe[ri];
    gw_fieldset_t *mark = NULL;

    if (lc <= 1 && rc <= 1) {
        cmp_item(w, a, pe, lv, rv);
        return;
    }
    if (lc >= 2 && rc >= 2) {
        mark = same_run(x, l, li, y, r, ri) ? NULL : w->c->modified;
    } else if (lc >= 2) {
        if (rc)
            cmp_item(w, a, pe, NULL, rv);
        mark = w->c->removed;
    } else {
        if (lc)
            cmp_item(w, a, pe, lv, NULL);
        mark = w->c->added;
    }
    if (mark != NULL) {
        gw_ssa__push(&w->path, pe);
        gw_ssa__insert(mark, &w->path);
        gw_ssa__pop(&w->path);
    }
}

static void
cmp_list(cwalk_t *w, const gw_ssa__atom_t *a, const json_t *l, const json_t *r)
{
    gw_ssa__index_t x, y;

    gw_ssa__index(&x, a, l);
    gw_ssa__index(&y, a, r);
    for (size_t i = 0; i < x.n; i++) {
        if (x.ok[i] && x.first[i] == i)
            cmp_element(w, a, &x, l, i, &y, r, gw_ssa__index_find(&y, &x.pe[i]));
    }
    for (size_t j = 0; j < y.n; j++) {
        if (y.ok[j] && y.first[j] == j && gw_ssa__index_find(&x, &y.pe[j]) == SIZE_MAX)
            cmp_element(w, a, &x, l, SIZE_MAX, &y, r, j);
    }
    gw_ssa__index_free(&x);
    gw_ssa__index_free(&y);
}

static void
cmp_entry(cwalk_t *w, const gw_ssa__atom_t *a, const char *key, const json_t *l, const json_t *r)
{
    const gw_schema_t *es;
    bool declared;

    gw_ssa__entry(a, key, &es, &declared);
    gw_ssa__push_field(&w->path, key);
    cmp_value(w, es, l, r);
    gw_ssa__pop(&w->path);
}

static void
cmp_map(cwalk_t *w, const gw_ssa__atom_t *a, const json_t *l, const json_t *r)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)l, key, v) cmp_entry(w, a, key, v, json_object_get(r, key));
    json_object_foreach((json_t *)r, key, v)
    {
        if (json_object_get(l, key) == NULL)
            cmp_entry(w, a, key, NULL, v);
    }
}

static bool
empty(const json_t *v)
{
    return v == NULL || (json_is_array(v) ? json_array_size(v) : json_object_size(v)) == 0;
}

/* handleAtom for one side's atom; leaf is that walker's inLeaf. */
static void
cmp_atom(cwalk_t *w, const gw_ssa__atom_t *a, const json_t *l, const json_t *r, bool *leaf)
{
    bool list = a->kind == GW_SSA__LIST;
    const json_t *ll = (list ? json_is_array(l) : json_is_object(l)) ? l : NULL;
    const json_t *rl = (list ? json_is_array(r) : json_is_object(r)) ? r : NULL;

    if (a->kind == GW_SSA__SCALAR || a->atomic || (empty(ll) && empty(rl)))
        cmp_leaf(w, l, r, leaf);
    else if (list)
        cmp_list(w, a, ll, rl);
    else
        cmp_map(w, a, ll, rl);
}

static void
cmp_value(cwalk_t *w, const gw_schema_t *s, const json_t *l, const json_t *r)
{
    gw_ssa__atom_t al, ar;
    bool leaf = false, other = false;

    if (l != NULL && r != NULL && gw_ssa__equal(l, r))
        return; /* nothing differs below */
    gw_ssa__resolve(s, l, &al);
    gw_ssa__resolve(s, r, &ar);
    if (r == NULL) {
        cmp_atom(w, &al, l, r, &leaf);
    } else if (l == NULL || al.kind == ar.kind) {
        cmp_atom(w, &ar, l, r, &leaf);
    } else {
        cmp_atom(w, &al, l, r, &other);
        cmp_atom(w, &ar, l, r, &leaf);
    }
    if (!leaf && l == NULL)
        gw_ssa__insert(w->c->added, &w->path);
    else if (!leaf && r == NULL)
        gw_ssa__insert(w->c->removed, &w->path);
}

void
gw_ssa__compare(const gw_schema_t *s, const json_t *lhs, const json_t *rhs, gw_ssa__cmp_t *c)
{
    cwalk_t w = {.c = c};

    c->added = gw_fieldset_new();
    c->modified = gw_fieldset_new();
    c->removed = gw_fieldset_new();
    if (lhs != NULL || rhs != NULL)
        cmp_value(&w, s, lhs, rhs);
    gw_ssa__path_free(&w.path);
}

void
gw_ssa__cmp_clear(gw_ssa__cmp_t *c)
{
    gw_fieldset_free(c->added);
    gw_fieldset_free(c->modified);
    gw_fieldset_free(c->removed);
    *c = (gw_ssa__cmp_t){0};
}
