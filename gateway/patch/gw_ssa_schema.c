/*
 * Server-side apply: how a catalog schema reads as structured-merge-diff's schema (kube's
 * schemaconv: list types, patch strategies, map types), the path elements of list items, value
 * equality, and the paths and error texts every walk shares.
 */
#include "gw_ssa_int.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_gofmt.h"
#include "gw_json.h"

/* Int-or-string, quantities and free-form values are untyped atoms in kube's schema: any value,
 * owned whole. */
static bool
untyped(const gw_schema_t *s)
{
    return s->type == GW_SCHEMA_ANY || s->type == GW_SCHEMA_INT_OR_STRING ||
           s->type == GW_SCHEMA_QUANTITY;
}

/* schemaconv's list relationship: the list type, else a merge strategy (a map list by its
 * merge key, or a set without one), else atomic. */
static void
list_shape(const gw_schema_t *s, gw_ssa__atom_t *a)
{
    const char *lt = s->list_type, *ps = s->patch_strategy;

    a->atomic = true;
    if (lt != NULL) {
        if (strcmp(lt, "map") == 0 && s->n_list_map_keys > 0) {
            a->keys = s->list_map_keys;
            a->n_keys = s->n_list_map_keys;
            a->atomic = false;
        } else if (strcmp(lt, "set") == 0) {
            a->set = true;
            a->atomic = false;
        }
        return;
    }
    if (ps == NULL || (strcmp(ps, "merge") != 0 && strcmp(ps, "merge,retainKeys") != 0))
        return;
    a->atomic = false;
    if (s->patch_merge_key != NULL) {
        a->keys = &s->patch_merge_key;
        a->n_keys = 1;
    } else {
        a->set = true;
    }
}

void
gw_ssa__resolve(const gw_schema_t *s, const json_t *v, gw_ssa__atom_t *a)
{
    *a = (gw_ssa__atom_t){.kind = GW_SSA__SCALAR, .schema = s};
    if (s == NULL || untyped(s)) {
        if (json_is_array(v))
            a->kind = GW_SSA__LIST;
        else if (v == NULL || json_is_object(v) || json_is_null(v))
            a->kind = GW_SSA__MAP;
        a->atomic = s != NULL || a->kind == GW_SSA__LIST;
        return;
    }
    if (s->type == GW_SCHEMA_OBJECT || s->type == GW_SCHEMA_MAP) {
        a->kind = GW_SSA__MAP;
        a->atomic = s->map_type != NULL && strcmp(s->map_type, "atomic") == 0;
    } else if (s->type == GW_SCHEMA_ARRAY) {
        a->kind = GW_SSA__LIST;
        list_shape(s, a);
    }
}

bool
gw_ssa__entry(const gw_ssa__atom_t *a, const char *key, const gw_schema_t **out, bool *declared)
{
    const gw_schema_t *s = a->schema;
    const gw_schema_field_t *f;

    *out = NULL;
    *declared = false;
    if (s == NULL)
        return true;
    if (untyped(s)) {
        *out = s;
        return true;
    }
    *out = s->values;
    if (s->type == GW_SCHEMA_MAP)
        return true;
    if (s->type != GW_SCHEMA_OBJECT)
        return false;
    f = gw_schema_field(s, key);
    if (f != NULL) {
        *out = f->schema;
        *declared = true;
        return true;
    }
    return s->values != NULL || s->preserve_unknown;
}

const gw_schema_t *
gw_ssa__items(const gw_ssa__atom_t *a)
{
    if (a->schema == NULL || untyped(a->schema))
        return a->schema;
    return a->schema->type == GW_SCHEMA_ARRAY ? a->schema->items : NULL;
}

static int
no_pe(char *why, size_t why_len, const char *msg)
{
    snprintf(why, why_len, "%s", msg);
    return -1;
}

/* A key field an element may omit: kube's OpenAPI defaults the protocol of ports to TCP. */
static json_t *
key_default(const gw_ssa__atom_t *a, const char *name)
{
    const gw_schema_t *items = gw_ssa__items(a);

    if (strcmp(name, "protocol") != 0 || items == NULL || gw_schema_field(items, name) == NULL)
        return NULL;
    return json_string("TCP");
}

/* keyedAssociativeListItemToPathElement. */
static int
key_pe(const gw_ssa__atom_t *a, const json_t *item, gw_pe_t *pe, json_t **key, char *why,
       size_t why_len)
{
    json_t *k, *v;
    char *q;

    if (json_is_null(item))
        return no_pe(why, why_len, "associative list with keys may not have a null element");
    if (!json_is_object(item))
        return no_pe(why, why_len, "associative list with keys may not have non-map elements");
    k = json_object();
    for (size_t i = 0; i < a->n_keys; i++) {
        v = json_incref(json_object_get(item, a->keys[i]));
        if (v == NULL)
            v = key_default(a, a->keys[i]);
        if (v == NULL) {
            json_decref(k);
            q = gw_go_quote(a->keys[i]);
            snprintf(why, why_len,
                     "associative list with keys has an element that omits key field %s (and "
                     "doesn't have default value)",
                     q);
            free(q);
            return -1;
        }
        json_object_set_new(k, a->keys[i], v);
    }
    pe->kind = GW_PE_KEY;
    pe->value = k;
    *key = k;
    return 0;
}

int
gw_ssa__item_pe(const gw_ssa__atom_t *a, const json_t *item, size_t i, gw_pe_t *pe, json_t **key,
                char *why, size_t why_len)
{
    *pe = (gw_pe_t){.kind = GW_PE_INDEX, .index = (long long)i};
    *key = NULL;
    if (a->atomic)
        return 0;
    if (a->n_keys > 0)
        return key_pe(a, item, pe, key, why, why_len);
    if (json_is_object(item))
        return no_pe(why, why_len,
                     "associative list without keys has an element that's a map type");
    if (json_is_array(item))
        return no_pe(why, why_len, "not supported: associative list with lists as elements");
    if (json_is_null(item))
        return no_pe(why, why_len,
                     "associative list without keys has an element that's an explicit null");
    pe->kind = GW_PE_VALUE;
    pe->value = item;
    return 0;
}

/* ---- list indexes ------------------------------------------------------------------------ */

typedef struct {
    const gw_pe_t *pe;
    size_t i;
} ranked_t;

static int
by_pe(const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    int c = gw_pe_compare(x->pe, y->pe);

    return c != 0 ? c : (x->i > y->i) - (x->i < y->i);
}

/* Runs of equal elements share their first item and their count. */
static void
index_runs(gw_ssa__index_t *x, const ranked_t *r)
{
    size_t start = 0;

    for (size_t k = 1; k <= x->n_sorted; k++) {
        if (k < x->n_sorted && gw_pe_compare(r[k].pe, r[start].pe) == 0)
            continue;
        for (size_t m = start; m < k; m++) {
            x->first[r[m].i] = r[start].i;
            x->count[r[m].i] = k - start;
        }
        start = k;
    }
}

void
gw_ssa__index(gw_ssa__index_t *x, const gw_ssa__atom_t *a, const json_t *list)
{
    size_t n = json_array_size(list);
    ranked_t *r = gw_calloc(n + 1, sizeof(*r));

    *x = (gw_ssa__index_t){.n = n, .bad = n};
    x->pe = gw_calloc(n + 1, sizeof(*x->pe));
    x->key = gw_calloc(n + 1, sizeof(*x->key));
    x->ok = gw_calloc(n + 1, sizeof(*x->ok));
    x->first = gw_calloc(n + 1, sizeof(*x->first));
    x->count = gw_calloc(n + 1, sizeof(*x->count));
    x->sorted = gw_calloc(n + 1, sizeof(*x->sorted));
    for (size_t i = 0; i < n; i++) {
        char why[sizeof(x->why)];
        x->ok[i] = gw_ssa__item_pe(a, json_array_get(list, i), i, &x->pe[i], &x->key[i], why,
                                   sizeof(why)) == 0;
        if (!x->ok[i] && x->bad == n) {
            x->bad = i;
            memcpy(x->why, why, sizeof(why));
        }
        if (x->ok[i])
            r[x->n_sorted++] = (ranked_t){&x->pe[i], i};
    }
    qsort(r, x->n_sorted, sizeof(*r), by_pe);
    for (size_t k = 0; k < x->n_sorted; k++)
        x->sorted[k] = r[k].i;
    index_runs(x, r);
    free(r);
}

size_t
gw_ssa__index_find(const gw_ssa__index_t *x, const gw_pe_t *pe)
{
    size_t lo = 0, hi = x->n_sorted;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gw_pe_compare(&x->pe[x->sorted[mid]], pe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < x->n_sorted && gw_pe_compare(&x->pe[x->sorted[lo]], pe) == 0)
        return x->sorted[lo];
    return SIZE_MAX;
}

void
gw_ssa__index_free(gw_ssa__index_t *x)
{
    for (size_t i = 0; i < x->n; i++)
        json_decref(x->key[i]);
    free(x->pe);
    free(x->key);
    free(x->ok);
    free(x->first);
    free(x->count);
    free(x->sorted);
    *x = (gw_ssa__index_t){0};
}

static bool
object_equal(const json_t *a, const json_t *b)
{
    const char *k;
    json_t *v, *w;

    if (json_object_size(a) != json_object_size(b))
        return false;
    json_object_foreach((json_t *)a, k, v)
    {
        w = json_object_get(b, k);
        if (w == NULL || !gw_ssa__equal(v, w))
            return false;
    }
    return true;
}

bool
gw_ssa__equal(const json_t *a, const json_t *b)
{
    if (json_is_real(a) || json_is_real(b))
        return json_is_number(a) && json_is_number(b) &&
               json_number_value(a) == json_number_value(b);
    if (json_typeof(a) != json_typeof(b))
        return false;
    switch (json_typeof(a)) {
    case JSON_INTEGER:
        return json_integer_value(a) == json_integer_value(b);
    case JSON_STRING:
        return json_equal(a, b);
    case JSON_ARRAY:
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++) {
            if (!gw_ssa__equal(json_array_get(a, i), json_array_get(b, i)))
                return false;
        }
        return true;
    case JSON_OBJECT:
        return object_equal(a, b);
    default:
        return true;
    }
}

json_t *
gw_ssa__copy(const json_t *v)
{
    return v != NULL ? json_deep_copy(v) : NULL;
}

/* ---- paths -------------------------------------------------------------------------------- */

void
gw_ssa__push(gw_ssa__path_t *p, const gw_pe_t *pe)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->pe = gw_realloc(p->pe, p->cap * sizeof(*p->pe));
    }
    p->pe[p->n++] = *pe;
}

void
gw_ssa__push_field(gw_ssa__path_t *p, const char *name)
{
    gw_pe_t pe = {.kind = GW_PE_FIELD, .name = name};

    gw_ssa__push(p, &pe);
}

void
gw_ssa__pop(gw_ssa__path_t *p)
{
    p->n--;
}

void
gw_ssa__path_free(gw_ssa__path_t *p)
{
    free(p->pe);
    *p = (gw_ssa__path_t){0};
}

void
gw_ssa__insert(gw_fieldset_t *s, const gw_ssa__path_t *p)
{
    if (p->n > 0)
        gw_fieldset_insert(s, p->pe, p->n);
}

/* ---- errors ------------------------------------------------------------------------------- */

static char *
path_text(const gw_ssa__path_t *p)
{
    char *out = gw_strdup(""), *pe, *next;

    for (size_t i = 0; p != NULL && i < p->n; i++) {
        pe = gw_pe_path_text(&p->pe[i]);
        next = gw_sprintf("%s%s", out, pe);
        free(pe);
        free(out);
        out = next;
    }
    return out;
}

void
gw_ssa__err(gw_ssa__errs_t *e, const gw_ssa__path_t *p, const char *fmt, ...)
{
    char *path = path_text(p), *msg;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort(); /* only allocation fails here, and allocation failure aborts */
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 4;
        e->msg = gw_realloc(e->msg, e->cap * sizeof(*e->msg));
    }
    e->msg[e->n++] = path[0] ? gw_sprintf("%s: %s", path, msg) : gw_strdup(msg);
    free(path);
    free(msg);
}

char *
gw_ssa__errs_text(const gw_ssa__errs_t *e)
{
    char *out, *next;

    if (e->n == 1)
        return gw_strdup(e->msg[0]);
    out = gw_strdup("errors:");
    for (size_t i = 0; i < e->n; i++) {
        next = gw_sprintf("%s\n  %s", out, e->msg[i]);
        free(out);
        out = next;
    }
    return out;
}

void
gw_ssa__errs_clear(gw_ssa__errs_t *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->msg[i]);
    free(e->msg);
    *e = (gw_ssa__errs_t){0};
}

/* ---- Go's JSON text ----------------------------------------------------------------------- */

char *
gw_ssa__go_json(const json_t *v)
{
    char *raw = gw_json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY), *out, *o;

    if (raw == NULL)
        abort(); /* only allocation fails here */
    out = gw_malloc(strlen(raw) * 6 + 1);
    o = out;
    for (const char *p = raw; *p; p++) {
        if (*p == '<' || *p == '>' || *p == '&') {
            o += sprintf(o, "\\u%04x", (unsigned char)*p);
        } else if ((unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80 &&
                   ((unsigned char)p[2] == 0xa8 || (unsigned char)p[2] == 0xa9)) {
            /* U+2028 and U+2029, which Go escapes for JavaScript's sake */
            o += sprintf(o, "\\u202%c", p[2] == (char)0xa8 ? '8' : '9');
            p += 2;
        } else if (*p == '\\' && p[1] == 'u') {
            /* Go writes its \u escapes in lower case */
            *o++ = *p++;
            *o++ = *p;
            for (int i = 0; i < 4 && p[1]; i++, p++)
                *o++ = (char)(p[1] >= 'A' && p[1] <= 'F' ? p[1] - 'A' + 'a' : p[1]);
        } else if (*p == '\\') {
            *o++ = *p++;
            *o++ = *p;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    free(raw);
    return out;
}
