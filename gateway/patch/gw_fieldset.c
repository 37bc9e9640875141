/*
 * Field sets as structured-merge-diff keeps them: a trie of path elements whose nodes say
 * whether the path to them is a member and which longer paths go through them. A node's
 * entries are sorted by gw_pe_compare, so lookups bisect and the set operations walk two
 * sorted arrays side by side. An entry is kept only while it is a member or has children.
 */
#include "gw_fieldset.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_gofmt.h"
#include "gw_json.h"

typedef struct gw_fieldset_node node_t;

typedef struct {
    gw_pe_t pe; /* owned: name copied, value referenced */
    bool member;
    node_t *child; /* NULL when no longer path goes through it */
} entry_t;

struct gw_fieldset_node {
    entry_t *e;
    size_t n, cap;
};

struct gw_fieldset {
    node_t *root; /* never NULL; empty when the set is */
};

/* ---- order ---------------------------------------------------------------------------------- */

/* structured-merge-diff's value order: numbers (compared as numbers), strings, booleans,
 * lists, maps, null. */
static int
rank(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER:
    case JSON_REAL:
        return 0;
    case JSON_STRING:
        return 1;
    case JSON_TRUE:
    case JSON_FALSE:
        return 2;
    case JSON_ARRAY:
        return 3;
    case JSON_OBJECT:
        return 4;
    default:
        return 5;
    }
}

static int value_compare(const json_t *a, const json_t *b);

static int
number_compare(const json_t *a, const json_t *b)
{
    double x, y;

    if (json_is_integer(a) && json_is_integer(b)) {
        json_int_t i = json_integer_value(a), j = json_integer_value(b);
        return i < j ? -1 : i > j;
    }
    x = json_number_value(a);
    y = json_number_value(b);
    return x < y ? -1 : x > y;
}

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of an object, sorted (caller frees the array). */
static const char **
sorted_keys(const json_t *o, size_t *n)
{
    const char **k = gw_malloc((json_object_size(o) + 1) * sizeof(*k));
    const char *key;
    json_t *v;

    *n = 0;
    json_object_foreach((json_t *)o, key, v) k[(*n)++] = key;
    qsort(k, *n, sizeof(*k), name_cmp);
    return k;
}

/* Maps (and key field lists) compare by sorted key, then value, then length. */
static int
map_compare(const json_t *a, const json_t *b)
{
    size_t na, nb, i;
    const char **ka = sorted_keys(a, &na), **kb = sorted_keys(b, &nb);
    int c = 0;

    for (i = 0; c == 0 && i < na && i < nb; i++) {
        c = strcmp(ka[i], kb[i]);
        if (c == 0)
            c = value_compare(json_object_get(a, ka[i]), json_object_get(b, kb[i]));
    }
    if (c == 0)
        c = na < nb ? -1 : na > nb;
    free(ka);
    free(kb);
    return c;
}

static int
list_compare(const json_t *a, const json_t *b)
{
    size_t na = json_array_size(a), nb = json_array_size(b);

    for (size_t i = 0; i < na && i < nb; i++) {
        int c = value_compare(json_array_get(a, i), json_array_get(b, i));
        if (c != 0)
            return c;
    }
    return na < nb ? -1 : na > nb;
}

static int
value_compare(const json_t *a, const json_t *b)
{
    int ra = rank(a), rb = rank(b), c;

    if (ra != rb)
        return ra < rb ? -1 : 1;
    switch (ra) {
    case 0:
        return number_compare(a, b);
    case 1:
        c = strcmp(json_string_value(a), json_string_value(b));
        return c < 0 ? -1 : c > 0;
    case 2:
        return json_is_true(a) - json_is_true(b);
    case 3:
        return list_compare(a, b);
    case 4:
        return map_compare(a, b);
    default:
        return 0;
    }
}

int
gw_pe_compare(const gw_pe_t *a, const gw_pe_t *b)
{
    int c;

    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    switch (a->kind) {
    case GW_PE_FIELD:
        c = strcmp(a->name, b->name);
        return c < 0 ? -1 : c > 0;
    case GW_PE_KEY:
        return map_compare(a->value, b->value);
    case GW_PE_VALUE:
        return value_compare(a->value, b->value);
    default:
        return a->index < b->index ? -1 : a->index > b->index;
    }
}

/* ---- text ----------------------------------------------------------------------------------- */

char *
gw_pe_text(const gw_pe_t *pe)
{
    char *json, *out;

    size_t n;

    switch (pe->kind) {
    case GW_PE_FIELD: /* every write's managedFields names fields: no printf for them */
        n = strlen(pe->name);
        out = gw_malloc(n + 3);
        memcpy(out, "f:", 2);
        memcpy(out + 2, pe->name, n + 1);
        return out;
    case GW_PE_INDEX:
        return gw_sprintf("i:%lld", pe->index);
    default:
        json = gw_json_dumps(pe->value, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        out = gw_sprintf("%c:%s", pe->kind == GW_PE_KEY ? 'k' : 'v', json ? json : "null");
        free(json);
        return out;
    }
}

/* value.ToString: strings quoted, numbers and booleans as %v, lists in brackets, maps as their
 * "k=v" pairs run together. */
static char *
value_text(const json_t *v)
{
    const char *sep = json_is_array(v) ? "," : "";
    char *out, *x, *next;
    const char **keys;
    size_t n;

    if (json_is_string(v))
        return gw_go_quote(json_string_value(v));
    if (json_is_null(v))
        return gw_strdup("null");
    if (!json_is_array(v) && !json_is_object(v))
        return gw_go_value(v);
    keys = json_is_object(v) ? sorted_keys(v, &n) : NULL;
    n = keys ? n : json_array_size(v);
    out = gw_strdup(json_is_array(v) ? "[" : "");
    for (size_t i = 0; i < n; i++) {
        x = value_text(keys ? json_object_get(v, keys[i]) : json_array_get(v, i));
        next = gw_sprintf("%s%s%s%s%s", out, i ? sep : "", keys ? keys[i] : "", keys ? "=" : "", x);
        free(x);
        free(out);
        out = next;
    }
    free(keys);
    next = gw_sprintf("%s%s", out, json_is_array(v) ? "]" : "");
    free(out);
    return next;
}

/* PathElement.String: ".name", "[k=v,k2=v2]", "[=v]", "[3]". */
char *
gw_pe_path_text(const gw_pe_t *pe)
{
    char *out, *v, *next;
    size_t n;
    const char **keys;

    switch (pe->kind) {
    case GW_PE_FIELD:
        return gw_sprintf(".%s", pe->name);
    case GW_PE_INDEX:
        return gw_sprintf("[%lld]", pe->index);
    case GW_PE_VALUE:
        v = value_text(pe->value);
        out = gw_sprintf("[=%s]", v);
        free(v);
        return out;
    default:
        break;
    }
    keys = sorted_keys(pe->value, &n);
    out = gw_strdup("[");
    for (size_t i = 0; i < n; i++) {
        v = value_text(json_object_get(pe->value, keys[i]));
        next = gw_sprintf("%s%s%s=%s", out, i ? "," : "", keys[i], v);
        free(v);
        free(out);
        out = next;
    }
    free(keys);
    next = gw_sprintf("%s]", out);
    free(out);
    return next;
}

/* ---- nodes ---------------------------------------------------------------------------------- */

static void node_free(node_t *n);

static void
pe_copy(gw_pe_t *dst, const gw_pe_t *src)
{
    *dst = *src;
    dst->name = src->name ? gw_strdup(src->name) : NULL;
    dst->value = src->value ? json_incref((json_t *)src->value) : NULL;
}

static void
entry_clear(entry_t *e)
{
    free((char *)e->pe.name);
    json_decref((json_t *)e->pe.value);
    node_free(e->child);
}

static void
node_free(node_t *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->n; i++)
        entry_clear(&n->e[i]);
    free(n->e);
    free(n);
}

/* Where pe is in n (*found), or where it goes. */
static size_t
find(const node_t *n, const gw_pe_t *pe, bool *found)
{
    size_t lo = 0, hi = n->n;

    *found = false;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = gw_pe_compare(&n->e[mid].pe, pe);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The entry for pe in n, added (neither member nor parent yet) when missing. */
static entry_t *
entry_for(node_t *n, const gw_pe_t *pe)
{
    bool found;
    size_t at = find(n, pe, &found);

    if (found)
        return &n->e[at];
    if (n->n == n->cap) {
        n->cap = n->cap ? n->cap * 2 : 4;
        n->e = gw_realloc(n->e, n->cap * sizeof(*n->e));
    }
    memmove(&n->e[at + 1], &n->e[at], (n->n - at) * sizeof(*n->e));
    n->n++;
    n->e[at] = (entry_t){0};
    pe_copy(&n->e[at].pe, pe);
    return &n->e[at];
}

/* Append an entry known to sort after every entry of n, taking its child. */
static void
append(node_t *n, const gw_pe_t *pe, bool member, node_t *child)
{
    if (n->n == n->cap) {
        n->cap = n->cap ? n->cap * 2 : 4;
        n->e = gw_realloc(n->e, n->cap * sizeof(*n->e));
    }
    n->e[n->n] = (entry_t){.member = member, .child = child};
    pe_copy(&n->e[n->n++].pe, pe);
}

static node_t *
node_new(void)
{
    return gw_calloc(1, sizeof(node_t));
}

/* NULL for an empty node (freed), else n. */
static node_t *
nonempty(node_t *n)
{
    if (n != NULL && n->n == 0) {
        node_free(n);
        return NULL;
    }
    return n;
}

static node_t *
node_copy(const node_t *n)
{
    node_t *c;

    if (n == NULL)
        return NULL;
    c = node_new();
    for (size_t i = 0; i < n->n; i++)
        append(c, &n->e[i].pe, n->e[i].member, node_copy(n->e[i].child));
    return c;
}

/* ---- set algebra ---------------------------------------------------------------------------- */

static node_t *node_union(const node_t *a, const node_t *b);

static node_t *
child_union(const node_t *a, const node_t *b)
{
    return a != NULL && b != NULL ? node_union(a, b) : node_copy(a != NULL ? a : b);
}

/* The order of the next entries of a (at i) and b (at j), an exhausted side sorting last. */
static int
step(const node_t *a, size_t i, const node_t *b, size_t j)
{
    if (i >= a->n)
        return 1;
    if (j >= b->n)
        return -1;
    return gw_pe_compare(&a->e[i].pe, &b->e[j].pe);
}

static node_t *
node_union(const node_t *a, const node_t *b)
{
    node_t *out = node_new();
    size_t i = 0, j = 0;

    while (i < a->n || j < b->n) {
        int c = step(a, i, b, j);
        const entry_t *x = c <= 0 ? &a->e[i] : NULL, *y = c >= 0 ? &b->e[j] : NULL;
        append(out, x ? &x->pe : &y->pe, (x && x->member) || (y && y->member),
               child_union(x ? x->child : NULL, y ? y->child : NULL));
        i += x != NULL;
        j += y != NULL;
    }
    return out;
}

static node_t *
node_difference(const node_t *a, const node_t *b)
{
    node_t *out = node_new(), *child;
    size_t i = 0, j = 0;

    while (i < a->n) {
        int c = step(a, i, b, j);
        const entry_t *x = &a->e[i], *y = c == 0 ? &b->e[j] : NULL;
        if (c > 0) {
            j++;
            continue;
        }
        child = y && y->child && x->child ? nonempty(node_difference(x->child, y->child))
                                          : node_copy(x->child);
        if ((x->member && !(y && y->member)) || child != NULL)
            append(out, &x->pe, x->member && !(y && y->member), child);
        i++;
        j += y != NULL;
    }
    return out;
}

/* RecursiveDifference: an entry goes with its subtree when b has its path as a member. */
static node_t *
node_recursive_difference(const node_t *a, const node_t *b)
{
    node_t *out = node_new(), *child;
    size_t i = 0, j = 0;

    while (i < a->n) {
        int c = step(a, i, b, j);
        const entry_t *x = &a->e[i], *y = c == 0 ? &b->e[j] : NULL;
        if (c > 0) {
            j++;
            continue;
        }
        i++;
        j += y != NULL;
        if (y != NULL && y->member)
            continue;
        child = y && y->child && x->child ? nonempty(node_recursive_difference(x->child, y->child))
                                          : node_copy(x->child);
        if (x->member || child != NULL)
            append(out, &x->pe, x->member, child);
    }
    return out;
}

static node_t *
node_intersection(const node_t *a, const node_t *b)
{
    node_t *out = node_new(), *child;
    size_t i = 0, j = 0;

    while (i < a->n && j < b->n) {
        int c = step(a, i, b, j);
        const entry_t *x = &a->e[i], *y = &b->e[j];
        i += c <= 0;
        j += c >= 0;
        if (c != 0)
            continue;
        child = x->child && y->child ? nonempty(node_intersection(x->child, y->child)) : NULL;
        if ((x->member && y->member) || child != NULL)
            append(out, &x->pe, x->member && y->member, child);
    }
    return out;
}

static bool
node_equal(const node_t *a, const node_t *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (gw_pe_compare(&a->e[i].pe, &b->e[i].pe) != 0 || a->e[i].member != b->e[i].member ||
            !node_equal(a->e[i].child, b->e[i].child))
            return false;
    }
    return true;
}

static size_t
node_count(const node_t *n)
{
    size_t c = 0;

    for (size_t i = 0; n != NULL && i < n->n; i++)
        c += n->e[i].member + node_count(n->e[i].child);
    return c;
}

static gw_fieldset_t *
wrap(node_t *root)
{
    gw_fieldset_t *s = gw_malloc(sizeof(*s));

    s->root = root;
    return s;
}

gw_fieldset_t *
gw_fieldset_new(void)
{
    return wrap(node_new());
}

void
gw_fieldset_free(gw_fieldset_t *s)
{
    if (s == NULL)
        return;
    node_free(s->root);
    free(s);
}

void
gw_fieldset_insert(gw_fieldset_t *s, const gw_pe_t *path, size_t n)
{
    node_t *node = s->root;
    entry_t *e;

    for (size_t i = 0; i < n; i++) {
        e = entry_for(node, &path[i]);
        if (i + 1 == n) {
            e->member = true;
            return;
        }
        if (e->child == NULL)
            e->child = node_new();
        node = e->child;
    }
}

bool
gw_fieldset_has(const gw_fieldset_t *s, const gw_pe_t *path, size_t n)
{
    const node_t *node = s->root;
    bool found;
    size_t at;

    for (size_t i = 0; node != NULL && i < n; i++) {
        at = find(node, &path[i], &found);
        if (!found)
            return false;
        if (i + 1 == n)
            return node->e[at].member;
        node = node->e[at].child;
    }
    return false;
}

bool
gw_fieldset_empty(const gw_fieldset_t *s)
{
    return s->root->n == 0;
}

size_t
gw_fieldset_count(const gw_fieldset_t *s)
{
    return node_count(s->root);
}

bool
gw_fieldset_equal(const gw_fieldset_t *a, const gw_fieldset_t *b)
{
    return node_equal(a->root, b->root);
}

gw_fieldset_t *
gw_fieldset_union(const gw_fieldset_t *a, const gw_fieldset_t *b)
{
    return wrap(node_union(a->root, b->root));
}

gw_fieldset_t *
gw_fieldset_difference(const gw_fieldset_t *a, const gw_fieldset_t *b)
{
    return wrap(node_difference(a->root, b->root));
}

gw_fieldset_t *
gw_fieldset_recursive_difference(const gw_fieldset_t *a, const gw_fieldset_t *b)
{
    return wrap(node_recursive_difference(a->root, b->root));
}

const gw_fieldset_node_t *
gw_fieldset_root(const gw_fieldset_t *s)
{
    return s->root;
}

size_t
gw_fieldset_node_size(const gw_fieldset_node_t *n)
{
    return n != NULL ? n->n : 0;
}

const gw_pe_t *
gw_fieldset_node_pe(const gw_fieldset_node_t *n, size_t i)
{
    return &n->e[i].pe;
}

bool
gw_fieldset_node_member(const gw_fieldset_node_t *n, size_t i)
{
    return n->e[i].member;
}

const gw_fieldset_node_t *
gw_fieldset_node_child(const gw_fieldset_node_t *n, size_t i)
{
    return n->e[i].child;
}

bool
gw_fieldset_node_find(const gw_fieldset_node_t *n, const gw_pe_t *pe, size_t *at)
{
    bool found = false;

    if (n != NULL)
        *at = find(n, pe, &found);
    return found;
}

gw_fieldset_t *
gw_fieldset_intersection(const gw_fieldset_t *a, const gw_fieldset_t *b)
{
    return wrap(node_intersection(a->root, b->root));
}

/* ---- FieldsV1 ------------------------------------------------------------------------------- */

typedef struct {
    char *err;
    size_t err_len;
} reader_t;

static int bad(reader_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
bad(reader_t *r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->err, r->err_len, fmt, ap);
    va_end(ap);
    return GW_EINVAL;
}

/* strconv.Atoi: an optional sign and decimal digits. */
static bool
parse_index(const char *s, long long *out)
{
    char *end;

    if (s[0] == '\0' || s[0] == ' ' ||
        (s[0] == '+' || s[0] == '-' ? s[1] < '0' || s[1] > '9' : s[0] < '0' || s[0] > '9'))
        return false;
    *out = strtoll(s, &end, 10);
    return *end == '\0';
}

/* DeserializePathElement. *known is false for a type this version does not know. pe->value
 * gets a new reference on success. */
static int
read_pe(reader_t *r, const char *key, gw_pe_t *pe, bool *known)
{
    json_error_t jerr;

    *pe = (gw_pe_t){0};
    *known = true;
    if (strlen(key) < 2)
        return bad(r, "%s", "parsing key as path element: key must be 2 characters long:");
    if (key[1] != ':')
        return bad(r, "parsing key as path element: missing colon: %s", key);
    switch (key[0]) {
    case 'f':
        pe->kind = GW_PE_FIELD;
        pe->name = key + 2;
        return 0;
    case 'i':
        pe->kind = GW_PE_INDEX;
        return parse_index(key + 2, &pe->index) ? 0
                                                : bad(r,
                                                      "parsing key as path element: strconv.Atoi: "
                                                      "parsing \"%s\": invalid syntax",
                                                      key + 2);
    case 'k':
    case 'v':
        pe->kind = key[0] == 'k' ? GW_PE_KEY : GW_PE_VALUE;
        pe->value = json_loads(key + 2, JSON_DECODE_ANY, &jerr);
        if (pe->value == NULL || (key[0] == 'k' && !json_is_object(pe->value))) {
            json_decref((json_t *)pe->value);
            pe->value = NULL;
            return bad(r, "parsing key as path element: invalid JSON after %.2s", key);
        }
        return 0;
    default:
        *known = false;
        return 0;
    }
}

static int read_node(reader_t *r, const json_t *obj, node_t **out, bool *member);

/* One key of a FieldsV1 object and its value, into n. */
static int
read_entry(reader_t *r, node_t *n, const char *key, const json_t *v)
{
    node_t *child = NULL;
    bool member, known;
    gw_pe_t pe;
    entry_t *e;
    int rc = read_pe(r, key, &pe, &known);

    if (rc == 0)
        rc = read_node(r, v, &child, &member);
    if (rc == 0 && known && (member || child != NULL)) {
        e = entry_for(n, &pe);
        e->member = e->member || member;
        if (child != NULL) {
            node_t *both = e->child ? node_union(e->child, child) : node_copy(child);
            node_free(e->child);
            e->child = both;
        }
    }
    node_free(child);
    json_decref((json_t *)pe.value);
    return rc;
}

/* readIterV1: *out the children (NULL when none), *member whether the path itself is one (an
 * empty object, or "." among the keys). */
static int
read_node(reader_t *r, const json_t *obj, node_t **out, bool *member)
{
    node_t *n = node_new();
    const char *key;
    json_t *v;

    *out = NULL;
    *member = false;
    if (!json_is_object(obj)) {
        node_free(n);
        return bad(r, "%s", "FieldsV1 must be a JSON object of path elements");
    }
    json_object_foreach((json_t *)obj, key, v)
    {
        bool self = strcmp(key, ".") == 0;
        *member = *member || self;
        if ((self && !json_is_object(v)) || (!self && read_entry(r, n, key, v) != 0)) {
            node_free(n);
            return self ? bad(r, "%s", "FieldsV1 must be a JSON object of path elements")
                        : GW_EINVAL;
        }
    }
    *out = nonempty(n);
    *member = *member || *out == NULL;
    return 0;
}

int
gw_fieldset_from_json(const json_t *fields, gw_fieldset_t **out, char *err, size_t err_len)
{
    reader_t r = {err, err_len};
    node_t *root;
    bool member;

    *out = NULL;
    if (read_node(&r, fields, &root, &member) != 0)
        return GW_EINVAL;
    *out = wrap(root ? root : node_new());
    return 0;
}

/* emitContentsV1: "." first when the path is a member too, then the entries in order. */
static json_t *
emit(const node_t *n, bool self)
{
    json_t *o = json_object();

    if (self)
        json_object_set_new(o, ".", json_object());
    for (size_t i = 0; n != NULL && i < n->n; i++) {
        char *key = gw_pe_text(&n->e[i].pe);
        json_object_set_new(o, key, emit(n->e[i].child, n->e[i].child && n->e[i].member));
        free(key);
    }
    return o;
}

json_t *
gw_fieldset_to_json(const gw_fieldset_t *s)
{
    return emit(s->root, false);
}

char *
gw_fieldset_to_text(const gw_fieldset_t *s, size_t *len)
{
    json_t *o = gw_fieldset_to_json(s);
    char *text = gw_json_dumps(o, JSON_COMPACT);

    json_decref(o);
    if (text == NULL)
        abort(); /* only allocation fails here, and allocation failure aborts */
    *len = strlen(text);
    return text;
}

/* Set.Iterate: a node's members first, then the paths through its children. */
static void
walk(const node_t *n, const char *prefix, gw_fieldset_path_fn fn, void *ctx)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; n != NULL && i < n->n; i++) {
            const entry_t *e = &n->e[i];
            char *pe, *path;
            if (pass == 0 ? !e->member : e->child == NULL)
                continue;
            pe = gw_pe_path_text(&e->pe);
            path = gw_sprintf("%s%s", prefix, pe);
            if (pass == 0)
                fn(path, ctx);
            else
                walk(e->child, path, fn, ctx);
            free(pe);
            free(path);
        }
    }
}

void
gw_fieldset_foreach(const gw_fieldset_t *s, gw_fieldset_path_fn fn, void *ctx)
{
    walk(s->root, "", fn, ctx);
}
