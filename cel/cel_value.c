/*
 * Values: constructors, type values, equality and ordering with CEL's heterogeneous numeric
 * rules, lists and maps (arena-built or borrowed Jansson documents).
 */
#include "cel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cel_int.h"

const cel_type_t cel__type_null = {"null_type", CEL_NULL};
const cel_type_t cel__type_bool = {"bool", CEL_BOOL};
const cel_type_t cel__type_int = {"int", CEL_INT};
const cel_type_t cel__type_uint = {"uint", CEL_UINT};
const cel_type_t cel__type_double = {"double", CEL_DOUBLE};
const cel_type_t cel__type_string = {"string", CEL_STRING};
const cel_type_t cel__type_bytes = {"bytes", CEL_BYTES};
const cel_type_t cel__type_list = {"list", CEL_LIST};
const cel_type_t cel__type_map = {"map", CEL_MAP};
const cel_type_t cel__type_type = {"type", CEL_TYPE};
const cel_type_t cel__type_timestamp = {"google.protobuf.Timestamp", CEL_TIMESTAMP};
const cel_type_t cel__type_duration = {"google.protobuf.Duration", CEL_DURATION};
const cel_type_t cel__type_optional = {"optional_type", CEL_OPTIONAL};
const cel_type_t cel__type_error = {"error", CEL_ERROR};

/* The Kubernetes libraries' value types, named as kube-apiserver names them. */
const cel_type_t cel__type_url = {"kubernetes.URL", CEL_OBJECT};
const cel_type_t cel__type_ip = {"net.IP", CEL_OBJECT};
const cel_type_t cel__type_cidr = {"net.CIDR", CEL_OBJECT};
const cel_type_t cel__type_quantity = {"kubernetes.Quantity", CEL_OBJECT};
const cel_type_t cel__type_semver = {"kubernetes.Semver", CEL_OBJECT};

static const cel_type_t *const object_types[] = {
    &cel__type_url,        &cel__type_ip,           &cel__type_cidr,
    &cel__type_quantity,   &cel__type_semver,       &cel__type_authorizer,
    &cel__type_path_check, &cel__type_group_check,  &cel__type_resource_check,
    &cel__type_decision,   &cel__type_named_format,
};

static const cel_type_t *const all_types[] = {
    &cel__type_null,     &cel__type_bool,   &cel__type_int,       &cel__type_uint,
    &cel__type_double,   &cel__type_string, &cel__type_bytes,     &cel__type_list,
    &cel__type_map,      &cel__type_type,   &cel__type_timestamp, &cel__type_duration,
    &cel__type_optional, &cel__type_error,
};

const cel_type_t *
cel_type_find(const char *name)
{
    /* The error type has no denotation in expressions. */
    for (size_t i = 0; i + 1 < sizeof(all_types) / sizeof(all_types[0]); i++) {
        if (strcmp(all_types[i]->name, name) == 0)
            return all_types[i];
    }
    for (size_t i = 0; i < sizeof(object_types) / sizeof(object_types[0]); i++) {
        if (strcmp(object_types[i]->name, name) == 0)
            return object_types[i];
    }
    return NULL;
}

const char *
cel_type_name(const cel_type_t *t)
{
    return t->name;
}

const cel_type_t *
cel_value_type(const cel_value_t *v)
{
    if (v->kind == CEL_OBJECT)
        return v->v.obj->ops->type;
    if (v->kind == CEL_MAP && !(v->flags & CEL_VF_JSON) && v->v.map->objtype.name != NULL)
        return &v->v.map->objtype;
    for (size_t i = 0; i < sizeof(all_types) / sizeof(all_types[0]); i++) {
        if (all_types[i]->kind == v->kind)
            return all_types[i];
    }
    return &cel__type_error;
}

/* ---- Constructors ---- */

cel_value_t
cel_null(void)
{
    return (cel_value_t){.kind = CEL_NULL};
}

cel_value_t
cel_bool(bool b)
{
    return (cel_value_t){.kind = CEL_BOOL, .v.b = b};
}

cel_value_t
cel_int(int64_t i)
{
    return (cel_value_t){.kind = CEL_INT, .v.i = i};
}

cel_value_t
cel_uint(uint64_t u)
{
    return (cel_value_t){.kind = CEL_UINT, .v.u = u};
}

cel_value_t
cel_double(double d)
{
    return (cel_value_t){.kind = CEL_DOUBLE, .v.d = d};
}

cel_value_t
cel_timestamp(int64_t sec, int32_t nsec)
{
    static const char *const out_of_range = "timestamp out of range";
    if (sec < CEL__TS_MIN || sec > CEL__TS_MAX || nsec < 0 || nsec > 999999999)
        return (cel_value_t){.kind = CEL_ERROR, .v.err = out_of_range};
    return (cel_value_t){.kind = CEL_TIMESTAMP, .v.ts = {sec, nsec}};
}

cel_value_t
cel__object_value(const cel_object_t *o)
{
    return (cel_value_t){.kind = CEL_OBJECT, .v.obj = o};
}

bool
cel__is_object(const cel_value_t *v, const cel_type_t *t)
{
    return v->kind == CEL_OBJECT && v->v.obj->ops->type == t;
}

cel_value_t
cel_duration(int64_t ns)
{
    return (cel_value_t){.kind = CEL_DURATION, .v.dur = ns};
}

cel_value_t
cel_type_value(const cel_type_t *t)
{
    return (cel_value_t){.kind = CEL_TYPE, .v.type = t};
}

cel_value_t
cel__string_own(const char *s, size_t len)
{
    cel_value_t v = {.kind = CEL_STRING};
    v.v.str.data = s;
    v.v.str.len = len;
    v.v.str.cp = (int64_t)cel__utf8_count(s, len);
    return v;
}

cel_value_t
cel_string(cel_arena_t *a, const char *s, size_t len)
{
    if (!cel__utf8_valid(s, len))
        return cel_error(a, "invalid UTF-8 in string");
    return cel__string_own(cel_arena_strndup(a, s, len), len);
}

cel_value_t
cel_string_borrowed(const char *s, size_t len)
{
    cel_value_t v = {.kind = CEL_STRING};
    v.v.str.data = s;
    v.v.str.len = len;
    v.v.str.cp = -1;
    return v;
}

int64_t
cel__str_cplen(const cel_value_t *s)
{
    return s->v.str.cp >= 0 ? s->v.str.cp : (int64_t)cel__utf8_count(s->v.str.data, s->v.str.len);
}

cel_value_t
cel_bytes(cel_arena_t *a, const void *s, size_t len)
{
    cel_value_t v = {.kind = CEL_BYTES};
    v.v.str.data = cel_arena_strndup(a, s, len);
    v.v.str.len = len;
    v.v.str.cp = -1;
    return v;
}

cel_value_t
cel_error(cel_arena_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cel_value_t v = {.kind = CEL_ERROR, .v.err = cel__arena_vsprintf(a, fmt, ap)};
    va_end(ap);
    return v;
}

cel_value_t
cel_optional(cel_arena_t *a, const cel_value_t *v)
{
    cel_value_t o = {.kind = CEL_OPTIONAL};
    if (v != NULL) {
        cel_value_t *copy = cel_arena_alloc(a, sizeof(*copy));
        *copy = *v;
        o.v.opt = copy;
    }
    return o;
}

cel_value_t
cel_json(const json_t *j)
{
    if (j == NULL)
        return cel_null();
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        return (cel_value_t){.kind = CEL_MAP, .flags = CEL_VF_JSON, .v.json = j};
    case JSON_ARRAY:
        return (cel_value_t){.kind = CEL_LIST, .flags = CEL_VF_JSON, .v.json = j};
    case JSON_STRING:
        return cel_string_borrowed(json_string_value(j), json_string_length(j));
    case JSON_INTEGER:
        return cel_int(json_integer_value(j));
    case JSON_REAL:
        return cel_double(json_real_value(j));
    case JSON_TRUE:
        return cel_bool(true);
    case JSON_FALSE:
        return cel_bool(false);
    default:
        return cel_null();
    }
}

/* A string of a date-time, date or duration format as kube-apiserver reads it into a
 * timestamp or duration; the string itself when it does not parse. */
static cel_value_t
formatted(const cel_value_t *str, cel__tk_t kind)
{
    int64_t sec, ns;
    int32_t nsec;
    char date[32];
    const char *s = str->v.str.data;
    size_t n = str->v.str.len;
    if (kind == CEL__TK_DURATION)
        return cel__dur_parse(s, n, &ns) ? cel_duration(ns) : *str;
    if (n == 10) {
        /* format: date, midnight UTC */
        snprintf(date, sizeof(date), "%.10sT00:00:00Z", s);
        s = date, n = strlen(date);
    }
    return cel__ts_parse(s, n, &sec, &nsec) ? cel_timestamp(sec, nsec) : *str;
}

/* Values of typed documents carry their declared type down to their elements, and scalars
 * become what their schema says: numbers doubles, formatted strings timestamps and
 * durations. */
cel_value_t
cel_json_typed(const json_t *j, const cel_decltype_t *t)
{
    cel_value_t v = cel_json(j);
    if (t == NULL)
        return v;
    if (v.kind == CEL_LIST || v.kind == CEL_MAP) {
        v.flags |= CEL_VF_TYPED;
        v.v.doc.type = t;
    } else if (v.kind == CEL_INT && t->kind == CEL__TK_DOUBLE) {
        v = cel_double((double)v.v.i);
    } else if (v.kind == CEL_STRING &&
               (t->kind == CEL__TK_TIMESTAMP || t->kind == CEL__TK_DURATION)) {
        v = formatted(&v, t->kind);
    }
    return v;
}

static const cel_decltype_t *
doc_type(const cel_value_t *v)
{
    return (v->flags & CEL_VF_TYPED) ? v->v.doc.type : NULL;
}

static const cel_decltype_t *
item_type(const cel_value_t *list)
{
    const cel_decltype_t *t = doc_type(list);
    return t != NULL && t->kind == CEL__TK_LIST ? t->p[0] : NULL;
}

/* The declared type of property `k` of a typed object or map. */
static const cel_decltype_t *
prop_type(const cel_value_t *map, const char *k, size_t n)
{
    const cel_decltype_t *t = doc_type(map);
    if (t == NULL)
        return NULL;
    if (t->kind == CEL__TK_MAP)
        return t->p[1];
    for (int i = 0; t->kind == CEL__TK_OBJECT && i < t->nfields; i++) {
        if (strlen(t->fields[i].json_name) == n && memcmp(t->fields[i].json_name, k, n) == 0)
            return t->fields[i].type;
    }
    return NULL;
}

/* ---- Lists ---- */

cel_list_t *
cel__list_new(cel_arena_t *a, size_t cap)
{
    cel_list_t *l = cel_arena_alloc(a, sizeof(*l));
    l->cap = cap ? cap : 4;
    l->items = cel_arena_alloc(a, l->cap * sizeof(cel_value_t));
    return l;
}

void
cel__list_push(cel_arena_t *a, cel_list_t *l, cel_value_t v)
{
    if (l->len == l->cap) {
        cel_value_t *items = cel_arena_alloc(a, 2 * l->cap * sizeof(cel_value_t));
        memcpy(items, l->items, l->len * sizeof(cel_value_t));
        l->items = items;
        l->cap *= 2;
    }
    l->items[l->len++] = v;
}

cel_value_t
cel__list_value(const cel_list_t *l)
{
    return (cel_value_t){.kind = CEL_LIST, .v.list = l};
}

cel_value_t
cel_list(cel_arena_t *a, const cel_value_t *items, size_t n)
{
    cel_list_t *l = cel__list_new(a, n);
    if (n > 0)
        memcpy(l->items, items, n * sizeof(cel_value_t));
    l->len = n;
    return cel__list_value(l);
}

size_t
cel_list_size(const cel_value_t *list)
{
    if (list->flags & CEL_VF_JSON)
        return json_array_size(list->v.json);
    return list->v.list->len;
}

cel_value_t
cel_list_at(const cel_value_t *list, size_t i)
{
    if (list->flags & CEL_VF_JSON)
        return cel_json_typed(json_array_get(list->v.json, i), item_type(list));
    return list->v.list->items[i];
}

bool
cel__list_index(const cel_value_t *list, const cel_value_t *idx, cel_value_t *out, const char **why)
{
    int64_t i;
    if (idx->kind == CEL_INT) {
        i = idx->v.i;
    } else if (idx->kind == CEL_UINT) {
        i = idx->v.u > (uint64_t)INT64_MAX ? -1 : (int64_t)idx->v.u;
    } else if (idx->kind == CEL_DOUBLE && idx->v.d == trunc(idx->v.d) && fabs(idx->v.d) < 9.2e18) {
        i = (int64_t)idx->v.d;
    } else {
        *why = "unsupported index type";
        return false;
    }
    if (i < 0 || (uint64_t)i >= cel_list_size(list)) {
        *why = "index out of range";
        return false;
    }
    *out = cel_list_at(list, (size_t)i);
    return true;
}

/* ---- Maps ---- */

#define MAP_INDEX_MIN 8

bool
cel__map_key_ok(const cel_value_t *k)
{
    return k->kind == CEL_INT || k->kind == CEL_UINT || k->kind == CEL_BOOL ||
           k->kind == CEL_STRING;
}

static uint64_t
mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* Numeric keys hash by value so 1, 1u and 1.0 meet; false when `k` cannot be a key. */
static bool
key_hash(const cel_value_t *k, uint64_t *h)
{
    switch (k->kind) {
    case CEL_INT:
        *h = mix((uint64_t)k->v.i);
        return true;
    case CEL_UINT:
        *h = mix(k->v.u);
        return true;
    case CEL_DOUBLE:
        if (k->v.d != trunc(k->v.d) || !(k->v.d < 1.8e19 && k->v.d >= -9223372036854775808.0))
            return false;
        *h = mix(k->v.d < 0 ? (uint64_t)(int64_t)k->v.d : (uint64_t)k->v.d);
        return true;
    case CEL_BOOL:
        *h = mix(k->v.b ? 0x9e3779b97f4a7c15ULL : 0x7f4a7c159e3779b9ULL);
        return true;
    case CEL_STRING: {
        uint64_t x = 1469598103934665603ULL;
        for (size_t i = 0; i < k->v.str.len; i++)
            x = (x ^ (unsigned char)k->v.str.data[i]) * 1099511628211ULL;
        *h = mix(x);
        return true;
    }
    default:
        return false;
    }
}

static void
map_reindex(cel_arena_t *a, cel_map_t *m)
{
    m->index_cap = 16;
    while (m->index_cap < m->cap * 2)
        m->index_cap *= 2;
    m->index = cel_arena_alloc(a, m->index_cap * sizeof(uint32_t));
    for (size_t e = 0; e < m->len; e++) {
        uint64_t h = 0;
        key_hash(&m->keys[e], &h);
        size_t s = h & (m->index_cap - 1);
        while (m->index[s] != 0)
            s = (s + 1) & (m->index_cap - 1);
        m->index[s] = (uint32_t)(e + 1);
    }
}

/* Entry index of `k` in an arena map, or -1. */
static long
map_lookup(const cel_map_t *m, const cel_value_t *k)
{
    uint64_t h;
    if (!key_hash(k, &h))
        return -1;
    if (m->index == NULL) {
        for (size_t e = 0; e < m->len; e++) {
            if (cel_value_equal(&m->keys[e], k))
                return (long)e;
        }
        return -1;
    }
    for (size_t s = h & (m->index_cap - 1); m->index[s] != 0; s = (s + 1) & (m->index_cap - 1)) {
        size_t e = m->index[s] - 1;
        if (cel_value_equal(&m->keys[e], k))
            return (long)e;
    }
    return -1;
}

cel_map_t *
cel__map_new(cel_arena_t *a, size_t cap)
{
    cel_map_t *m = cel_arena_alloc(a, sizeof(*m));
    m->cap = cap ? cap : 4;
    m->keys = cel_arena_alloc(a, m->cap * sizeof(cel_value_t));
    m->vals = cel_arena_alloc(a, m->cap * sizeof(cel_value_t));
    return m;
}

bool
cel__map_put(cel_arena_t *a, cel_map_t *m, cel_value_t k, cel_value_t v)
{
    if (map_lookup(m, &k) >= 0)
        return false;
    if (m->len == m->cap) {
        cel_value_t *keys = cel_arena_alloc(a, 2 * m->cap * sizeof(cel_value_t));
        cel_value_t *vals = cel_arena_alloc(a, 2 * m->cap * sizeof(cel_value_t));
        memcpy(keys, m->keys, m->len * sizeof(cel_value_t));
        memcpy(vals, m->vals, m->len * sizeof(cel_value_t));
        m->keys = keys, m->vals = vals, m->cap *= 2;
    }
    m->keys[m->len] = k;
    m->vals[m->len] = v;
    m->len++;
    if (m->len >= MAP_INDEX_MIN && (m->index == NULL || m->len * 2 > m->index_cap)) {
        map_reindex(a, m);
    } else if (m->index != NULL) {
        uint64_t h = 0;
        key_hash(&k, &h);
        size_t s = h & (m->index_cap - 1);
        while (m->index[s] != 0)
            s = (s + 1) & (m->index_cap - 1);
        m->index[s] = (uint32_t)m->len;
    }
    return true;
}

cel_value_t
cel__map_value(const cel_map_t *m)
{
    return (cel_value_t){.kind = CEL_MAP, .v.map = m};
}

cel_value_t
cel_map(cel_arena_t *a, const cel_value_t *keys, const cel_value_t *vals, size_t n)
{
    cel_map_t *m = cel__map_new(a, n);
    for (size_t i = 0; i < n; i++) {
        if (!cel__map_key_ok(&keys[i]))
            return cel_error(a, "unsupported key type: %s", cel_value_type(&keys[i])->name);
        if (!cel__map_put(a, m, keys[i], vals[i]))
            return cel_error(a, "Failed with repeated key");
    }
    return cel__map_value(m);
}

size_t
cel_map_size(const cel_value_t *map)
{
    if (map->flags & CEL_VF_JSON)
        return json_object_size(map->v.json);
    return map->v.map->len;
}

bool
cel_map_find(const cel_value_t *map, const cel_value_t *key, cel_value_t *out)
{
    if (map->flags & CEL_VF_JSON) {
        if (key->kind != CEL_STRING)
            return false;
        const json_t *j = json_object_getn(map->v.json, key->v.str.data, key->v.str.len);
        if (j == NULL)
            return false;
        *out = cel_json_typed(j, prop_type(map, key->v.str.data, key->v.str.len));
        return true;
    }
    long e = map_lookup(map->v.map, key);
    if (e < 0)
        return false;
    *out = map->v.map->vals[e];
    return true;
}

bool
cel_map_next(const cel_value_t *map, cel_map_iter_t *it, cel_value_t *key, cel_value_t *val)
{
    if (map->flags & CEL_VF_JSON) {
        json_t *obj = (json_t *)map->v.json; /* iteration does not modify the object */
        it->json_iter =
            it->pos == 0 ? json_object_iter(obj) : json_object_iter_next(obj, it->json_iter);
        if (it->json_iter == NULL)
            return false;
        it->pos++;
        *key = cel_string_borrowed(json_object_iter_key(it->json_iter),
                                   json_object_iter_key_len(it->json_iter));
        *val = cel_json_typed(json_object_iter_value(it->json_iter),
                              prop_type(map, key->v.str.data, key->v.str.len));
        return true;
    }
    if (it->pos >= map->v.map->len)
        return false;
    *key = map->v.map->keys[it->pos];
    *val = map->v.map->vals[it->pos];
    it->pos++;
    return true;
}

/* ---- Equality and ordering ---- */

static int
cmp3(double x)
{
    return x < 0 ? -1 : x > 0;
}

static int
cmp_int_double(int64_t i, double d)
{
    if (isnan(d))
        return 2;
    if (d >= 9223372036854775808.0)
        return -1;
    if (d < -9223372036854775808.0)
        return 1;
    int64_t t = (int64_t)d;
    if (i != t)
        return i < t ? -1 : 1;
    return cmp3((double)t - d);
}

static int
cmp_uint_double(uint64_t u, double d)
{
    if (isnan(d))
        return 2;
    if (d < 0)
        return 1;
    if (d >= 18446744073709551616.0)
        return -1;
    uint64_t t = (uint64_t)d;
    if (u != t)
        return u < t ? -1 : 1;
    return cmp3((double)t - d);
}

static int
cmp_int_uint(int64_t i, uint64_t u)
{
    if (i < 0)
        return -1;
    return (uint64_t)i < u ? -1 : (uint64_t)i > u;
}

static int
cmp_bytes(const cel_value_t *a, const cel_value_t *b)
{
    size_t n = a->v.str.len < b->v.str.len ? a->v.str.len : b->v.str.len;
    int c = n ? memcmp(a->v.str.data, b->v.str.data, n) : 0;
    if (c != 0)
        return c < 0 ? -1 : 1;
    return a->v.str.len < b->v.str.len ? -1 : a->v.str.len > b->v.str.len;
}

static int
cmp_numeric(const cel_value_t *a, const cel_value_t *b)
{
    switch (a->kind * 16 + b->kind) {
    case CEL_INT * 16 + CEL_INT:
        return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
    case CEL_UINT * 16 + CEL_UINT:
        return a->v.u < b->v.u ? -1 : a->v.u > b->v.u;
    case CEL_DOUBLE * 16 + CEL_DOUBLE:
        if (isnan(a->v.d) || isnan(b->v.d))
            return 2;
        return a->v.d < b->v.d ? -1 : a->v.d > b->v.d;
    case CEL_INT * 16 + CEL_UINT:
        return cmp_int_uint(a->v.i, b->v.u);
    case CEL_UINT * 16 + CEL_INT:
        return -cmp_int_uint(b->v.i, a->v.u);
    case CEL_INT * 16 + CEL_DOUBLE:
        return cmp_int_double(a->v.i, b->v.d);
    case CEL_DOUBLE * 16 + CEL_INT: {
        int c = cmp_int_double(b->v.i, a->v.d);
        return c == 2 ? 2 : -c;
    }
    case CEL_UINT * 16 + CEL_DOUBLE:
        return cmp_uint_double(a->v.u, b->v.d);
    case CEL_DOUBLE * 16 + CEL_UINT: {
        int c = cmp_uint_double(b->v.u, a->v.d);
        return c == 2 ? 2 : -c;
    }
    default:
        return 2;
    }
}

static bool
is_number(const cel_value_t *v)
{
    return v->kind == CEL_INT || v->kind == CEL_UINT || v->kind == CEL_DOUBLE;
}

int
cel__value_compare(const cel_value_t *a, const cel_value_t *b)
{
    if (is_number(a) && is_number(b))
        return cmp_numeric(a, b);
    if (a->kind != b->kind)
        return 2;
    switch (a->kind) {
    case CEL_BOOL:
        return (int)a->v.b - (int)b->v.b;
    case CEL_STRING:
    case CEL_BYTES:
        return cmp_bytes(a, b);
    case CEL_TIMESTAMP:
        if (a->v.ts.sec != b->v.ts.sec)
            return a->v.ts.sec < b->v.ts.sec ? -1 : 1;
        return a->v.ts.nsec < b->v.ts.nsec ? -1 : a->v.ts.nsec > b->v.ts.nsec;
    case CEL_DURATION:
        return a->v.dur < b->v.dur ? -1 : a->v.dur > b->v.dur;
    default:
        return 2;
    }
}

static bool
list_equal(const cel_value_t *a, const cel_value_t *b)
{
    size_t n = cel_list_size(a);
    if (n != cel_list_size(b))
        return false;
    for (size_t i = 0; i < n; i++) {
        cel_value_t x = cel_list_at(a, i), y = cel_list_at(b, i);
        if (!cel_value_equal(&x, &y))
            return false;
    }
    return true;
}

/* ---- Set and map lists (x-kubernetes-list-type), as kube-apiserver reads them ---- */

const cel_decltype_t *
cel__list_kind(const cel_value_t *list)
{
    const cel_decltype_t *t = (list->flags & CEL_VF_JSON) ? doc_type(list) : list->v.list->type;
    if (t == NULL || t->kind != CEL__TK_LIST || t->list_type == CEL_LIST_ATOMIC)
        return NULL;
    return t->list_type == CEL_LIST_MAP && t->nkeys == 0 ? NULL : t;
}

static bool
list_contains(const cel_value_t *l, size_t n, const cel_value_t *x)
{
    for (size_t i = 0; i < n; i++) {
        cel_value_t y = cel_list_at(l, i);
        if (cel_value_equal(&y, x))
            return true;
    }
    return false;
}

/* Whether two elements of a map list have the same keys: the same key properties present,
 * with equal values. */
static bool
same_keys(const cel_value_t *x, const cel_value_t *y, const cel_decltype_t *t)
{
    if (x->kind != CEL_MAP || y->kind != CEL_MAP)
        return false;
    for (int i = 0; i < t->nkeys; i++) {
        cel_value_t k = cel_string_borrowed(t->map_keys[i], strlen(t->map_keys[i])), vx, vy;
        bool hx = cel_map_find(x, &k, &vx), hy = cel_map_find(y, &k, &vy);
        if (hx != hy || (hx && !cel_value_equal(&vx, &vy)))
            return false;
    }
    return true;
}

/* The element of map list `l` (`n` long) with the keys of `x`, or -1. */
static long
find_by_keys(const cel_value_t *l, size_t n, const cel_value_t *x, const cel_decltype_t *t)
{
    for (size_t i = 0; i < n; i++) {
        cel_value_t y = cel_list_at(l, i);
        if (same_keys(&y, x, t))
            return (long)i;
    }
    return -1;
}

/* Sets are equal with the same elements in any order; map lists when each element of one has
 * an equal element with the same keys in the other. */
static bool
typed_list_equal(const cel_value_t *a, const cel_value_t *b, const cel_decltype_t *t)
{
    size_t n = cel_list_size(a);
    if (n != cel_list_size(b))
        return false;
    for (size_t i = 0; i < n; i++) {
        cel_value_t y = cel_list_at(b, i), x;
        if (t->list_type == CEL_LIST_SET) {
            if (!list_contains(a, n, &y))
                return false;
            continue;
        }
        long k = find_by_keys(a, n, &y, t);
        if (k < 0 || (x = cel_list_at(a, (size_t)k), !cel_value_equal(&x, &y)))
            return false;
    }
    return true;
}

cel_value_t
cel__list_merge(cel_arena_t *a, const cel_value_t *l, const cel_value_t *r, const cel_decltype_t *t)
{
    size_t nl = cel_list_size(l), nr = cel_list_size(r);
    cel_list_t *out = cel__list_new(a, nl + nr);
    out->type = t;
    for (size_t i = 0; i < nl; i++)
        out->items[out->len++] = cel_list_at(l, i);
    cel_value_t merged = cel__list_value(out);
    for (size_t i = 0; i < nr; i++) {
        cel_value_t x = cel_list_at(r, i);
        if (t->list_type == CEL_LIST_SET) {
            if (!list_contains(&merged, out->len, &x))
                out->items[out->len++] = x;
            continue;
        }
        /* Map lists: an element with the keys of one already there replaces it. */
        long k = x.kind == CEL_MAP ? find_by_keys(&merged, out->len, &x, t) : -1;
        if (k >= 0)
            out->items[k] = x;
        else if (x.kind == CEL_MAP)
            out->items[out->len++] = x;
    }
    return merged;
}

static bool
map_equal(const cel_value_t *a, const cel_value_t *b)
{
    /* Constructed objects equal only objects of the same type (and plain maps plain maps). */
    const char *na = cel_value_object_name(a), *nb = cel_value_object_name(b);
    if ((na == NULL) != (nb == NULL) || (na != NULL && strcmp(na, nb) != 0))
        return false;
    if (cel_map_size(a) != cel_map_size(b))
        return false;
    cel_map_iter_t it = CEL_MAP_ITER_INIT;
    cel_value_t k, v, w;
    while (cel_map_next(a, &it, &k, &v)) {
        if (!cel_map_find(b, &k, &w) || !cel_value_equal(&v, &w))
            return false;
    }
    return true;
}

bool
cel_value_equal(const cel_value_t *a, const cel_value_t *b)
{
    if (is_number(a) && is_number(b))
        return cmp_numeric(a, b) == 0;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CEL_NULL:
        return true;
    case CEL_LIST:
        /* The left operand's list type decides, as in kube-apiserver. */
        return cel__list_kind(a) ? typed_list_equal(a, b, cel__list_kind(a)) : list_equal(a, b);
    case CEL_MAP:
        return map_equal(a, b);
    case CEL_TYPE:
        return strcmp(a->v.type->name, b->v.type->name) == 0;
    case CEL_OPTIONAL:
        if (a->v.opt == NULL || b->v.opt == NULL)
            return a->v.opt == b->v.opt;
        return cel_value_equal(a->v.opt, b->v.opt);
    case CEL_OBJECT:
        return a->v.obj->ops == b->v.obj->ops && a->v.obj->ops->equal(a->v.obj, b->v.obj);
    case CEL_ERROR:
        return false;
    default:
        return cel__value_compare(a, b) == 0;
    }
}

const char *
cel_value_json_text(cel_arena_t *a, const cel_value_t *v)
{
    size_t n;

    switch (v->kind) {
    case CEL_TIMESTAMP:
        return cel__ts_format(a, v->v.ts.sec, v->v.ts.nsec);
    case CEL_DURATION:
        return cel__dur_format(a, v->v.dur);
    case CEL_BYTES:
        return cel__base64_encode(a, (const unsigned char *)v->v.str.data, v->v.str.len, &n);
    default:
        return NULL;
    }
}
