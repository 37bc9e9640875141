/*
 * Static types for the checker: construction, CEL's type notation ("map(string, list(int))"),
 * cel-go's printing of types, and kube-apiserver's conversion of structural schemas into
 * declared types with the size bounds its cost estimator reads.
 */
#include "cel.h"

#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

#define PRIM(id, k, n) const cel_decltype_t id = {.kind = (k), .name = (n), .var = -1}

PRIM(cel__t_dyn, CEL__TK_DYN, "dyn");
PRIM(cel__t_error, CEL__TK_ERROR, "!error!");
PRIM(cel__t_null, CEL__TK_NULL, "null");
PRIM(cel__t_bool, CEL__TK_BOOL, "bool");
PRIM(cel__t_int, CEL__TK_INT, "int");
PRIM(cel__t_uint, CEL__TK_UINT, "uint");
PRIM(cel__t_double, CEL__TK_DOUBLE, "double");
PRIM(cel__t_string, CEL__TK_STRING, "string");
PRIM(cel__t_bytes, CEL__TK_BYTES, "bytes");
PRIM(cel__t_timestamp, CEL__TK_TIMESTAMP, "timestamp");
PRIM(cel__t_duration, CEL__TK_DURATION, "duration");
PRIM(cel__t_type, CEL__TK_TYPE, "type");

/* kube-apiserver's request size bound and serialized-size facts (k8s.io/apiserver/pkg/cel). */
#define MAX_REQUEST_BYTES (3 * 1024 * 1024)
#define MIN_STRING_SIZE 2
#define MIN_BOOL_SIZE 4
#define MIN_NUMBER_SIZE 1
#define MAX_DURATION_JSON 32
#define MIN_DURATION_JSON 3
#define JSON_DATE_SIZE 12
#define MAX_DATETIME_JSON 32
#define MIN_DATETIME_JSON 21

static const char *const opaque_names[] = {
    "net.IP",
    "net.CIDR",
    "kubernetes.URL",
    "kubernetes.Quantity",
    "kubernetes.Semver",
    "kubernetes.NamedFormat",
    "kubernetes.authorization.Authorizer",
    "kubernetes.authorization.PathCheck",
    "kubernetes.authorization.GroupCheck",
    "kubernetes.authorization.ResourceCheck",
    "kubernetes.authorization.Decision",
};

cel_decltype_t *
cel__ty_new(cel_arena_t *a, cel__tk_t kind, const cel_decltype_t *p0, const cel_decltype_t *p1)
{
    cel_decltype_t *t = cel_arena_alloc(a, sizeof(*t));
    t->kind = kind;
    t->var = -1;
    t->p[0] = p0;
    t->p[1] = p1;
    return t;
}

cel_decltype_t *
cel__ty_param(cel_arena_t *a, const char *name, int var)
{
    cel_decltype_t *t = cel__ty_new(a, CEL__TK_PARAM, NULL, NULL);
    t->name = name;
    t->var = var;
    return t;
}

/* ---- Notation ---- */

static const struct {
    const char *name;
    const cel_decltype_t *type;
} simple_names[] = {
    {"dyn", &cel__t_dyn},
    {"null_type", &cel__t_null},
    {"bool", &cel__t_bool},
    {"int", &cel__t_int},
    {"uint", &cel__t_uint},
    {"double", &cel__t_double},
    {"string", &cel__t_string},
    {"bytes", &cel__t_bytes},
    {"timestamp", &cel__t_timestamp},
    {"google.protobuf.Timestamp", &cel__t_timestamp},
    {"duration", &cel__t_duration},
    {"google.protobuf.Duration", &cel__t_duration},
};

static void
skip_blanks(const char **s)
{
    while (**s == ' ')
        (*s)++;
}

static bool
name_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

/* A dotted name; a dot not followed by a name (as in "net.IP.()") ends it. */
static size_t
name_len(const char *s)
{
    size_t n = 0;
    while (name_char(s[n], n == 0) || (n > 0 && s[n] == '.' && name_char(s[n + 1], true)))
        n++;
    return n;
}

static bool
name_is(const char *s, size_t n, const char *name)
{
    return strlen(name) == n && memcmp(s, name, n) == 0;
}

/* Parameters "(T)" or "(K, V)" after a parameterised type's name: `want` of them. */
static bool
parse_params(cel_arena_t *a, const char **s, const cel_decltype_t **p, int want)
{
    skip_blanks(s);
    if (**s != '(')
        return false;
    for (int i = 0; i < want; i++) {
        (*s)++;
        if ((p[i] = cel__ty_parse(a, s)) == NULL)
            return false;
        skip_blanks(s);
        if (**s != (i + 1 == want ? ')' : ','))
            return false;
    }
    (*s)++;
    return true;
}

static const cel_decltype_t *
parse_named(cel_arena_t *a, const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof(simple_names) / sizeof(simple_names[0]); i++) {
        if (name_is(name, n, simple_names[i].name))
            return simple_names[i].type;
    }
    for (size_t i = 0; i < sizeof(opaque_names) / sizeof(opaque_names[0]); i++) {
        if (name_is(name, n, opaque_names[i])) {
            cel_decltype_t *t = cel__ty_new(a, CEL__TK_OPAQUE, NULL, NULL);
            t->name = opaque_names[i];
            return t;
        }
    }
    if (n == 1 && name[0] >= 'A' && name[0] <= 'Z')
        return cel__ty_param(a, cel_arena_strndup(a, name, 1), -1);
    return NULL;
}

const cel_decltype_t *
cel__ty_parse(cel_arena_t *a, const char **s)
{
    skip_blanks(s);
    const char *name = *s;
    size_t n = name_len(name);
    *s += n;
    const cel_decltype_t *p[2] = {NULL, NULL};
    bool open = (skip_blanks(s), **s == '(');
    if (name_is(name, n, "list") || name_is(name, n, "optional_type")) {
        if (!open)
            return name[0] == 'l' ? cel__ty_new(a, CEL__TK_LIST, &cel__t_dyn, NULL) : NULL;
        if (!parse_params(a, s, p, 1))
            return NULL;
        return cel__ty_new(a, name[0] == 'l' ? CEL__TK_LIST : CEL__TK_OPTIONAL, p[0], NULL);
    }
    if (name_is(name, n, "map")) {
        if (!open)
            return cel__ty_new(a, CEL__TK_MAP, &cel__t_dyn, &cel__t_dyn);
        return parse_params(a, s, p, 2) ? cel__ty_new(a, CEL__TK_MAP, p[0], p[1]) : NULL;
    }
    if (name_is(name, n, "type")) {
        if (!open)
            return &cel__t_type;
        return parse_params(a, s, p, 1) ? cel__ty_new(a, CEL__TK_TYPE, p[0], NULL) : NULL;
    }
    return open ? NULL : parse_named(a, name, n);
}

/* ---- Printing and comparing ---- */

void
cel__ty_format(cel__buf_t *b, const cel_decltype_t *t)
{
    static const char *const generic[] = {
        [CEL__TK_LIST] = "list",
        [CEL__TK_MAP] = "map",
        [CEL__TK_TYPE] = "type",
        [CEL__TK_OPTIONAL] = "optional_type",
    };
    bool params = (t->kind == CEL__TK_LIST || t->kind == CEL__TK_MAP ||
                   t->kind == CEL__TK_OPTIONAL || t->kind == CEL__TK_TYPE) &&
                  t->p[0] != NULL;
    if (!params) {
        cel__buf_puts(b, t->kind == CEL__TK_TYPE ? "type" : t->name);
        return;
    }
    cel__buf_puts(b, generic[t->kind]);
    cel__buf_putc(b, '(');
    cel__ty_format(b, t->p[0]);
    if (t->kind == CEL__TK_MAP) {
        cel__buf_puts(b, ", ");
        cel__ty_format(b, t->p[1]);
    }
    cel__buf_putc(b, ')');
}

const char *
cel__ty_text(cel_arena_t *a, const cel_decltype_t *t)
{
    cel__buf_t b;
    cel__buf_init(&b, a, 32);
    cel__ty_format(&b, t);
    cel__buf_putc(&b, '\0');
    return b.data;
}

bool
cel__ty_equal(const cel_decltype_t *x, const cel_decltype_t *y)
{
    if (x == y)
        return true;
    if (x == NULL || y == NULL || x->kind != y->kind)
        return false;
    switch (x->kind) {
    case CEL__TK_PARAM:
    case CEL__TK_OPAQUE:
    case CEL__TK_OBJECT:
        return strcmp(x->name, y->name) == 0;
    case CEL__TK_MAP:
        return cel__ty_equal(x->p[0], y->p[0]) && cel__ty_equal(x->p[1], y->p[1]);
    case CEL__TK_LIST:
    case CEL__TK_TYPE:
    case CEL__TK_OPTIONAL:
        return cel__ty_equal(x->p[0], y->p[0]);
    default:
        return true;
    }
}

const cel_decltype_t *
cel__ty_of_type_name(cel_arena_t *a, const char *name)
{
    /* The names the evaluator resolves to type values, and nothing else, so that checking
     * and evaluation agree. */
    const cel_type_t *rt = cel_type_find(name);
    const char *s = name;
    const cel_decltype_t *t;
    if (rt == NULL)
        return NULL;
    if (rt->kind == CEL_TYPE)
        t = &cel__t_type;
    else if (rt->kind == CEL_OPTIONAL)
        t = cel__ty_new(a, CEL__TK_OPTIONAL, &cel__t_dyn, NULL);
    else
        t = cel__ty_parse(a, &s);
    return t != NULL ? cel__ty_new(a, CEL__TK_TYPE, t, NULL) : NULL;
}

const cel__field_t *
cel__ty_field(const cel_decltype_t *t, const char *name, size_t len)
{
    for (int i = 0; i < t->nfields; i++) {
        if (strlen(t->fields[i].name) == len && memcmp(t->fields[i].name, name, len) == 0)
            return &t->fields[i];
    }
    return NULL;
}

char *
cel_decltype_format(const cel_decltype_t *t)
{
    cel_arena_t *a = cel_arena_new();
    char *s = cel__xstrdup(cel__ty_text(a, t));
    cel_arena_free(a);
    return s;
}

/* ---- Structural schemas (kube-apiserver's SchemaDeclType) ---- */

static const cel_schema_t plain_string = {.type = CEL_SCHEMA_STRING,
                                          .max_length = CEL_SCHEMA_UNBOUNDED,
                                          .max_items = CEL_SCHEMA_UNBOUNDED,
                                          .max_properties = CEL_SCHEMA_UNBOUNDED};
static const cel_schema_prop_t meta_props[] = {
    {"name", &plain_string, false},
    {"generateName", &plain_string, false},
};
static const cel_schema_t meta_object = {.type = CEL_SCHEMA_OBJECT,
                                         .max_length = CEL_SCHEMA_UNBOUNDED,
                                         .max_items = CEL_SCHEMA_UNBOUNDED,
                                         .max_properties = CEL_SCHEMA_UNBOUNDED,
                                         .props = meta_props,
                                         .nprops = 2};

static const cel_schema_t *
prop_schema(const cel_schema_t *s, const char *name)
{
    for (size_t i = 0; i < s->nprops; i++) {
        if (strcmp(s->props[i].name, name) == 0)
            return s->props[i].schema;
    }
    return NULL;
}

static bool
prop_is(const cel_schema_t *s, const char *name, cel_schema_kind_t kind)
{
    const cel_schema_t *p = prop_schema(s, name);
    return p != NULL && p->type == kind;
}

/* The root of a resource always shows apiVersion, kind and metadata.name/generateName; when
 * the schema does not have exactly those, kube replaces them (WithTypeAndObjectMeta). */
static const cel_schema_t *
with_type_and_meta(cel_arena_t *a, const cel_schema_t *s)
{
    const cel_schema_t *m = prop_schema(s, "metadata");
    if (prop_is(s, "kind", CEL_SCHEMA_STRING) && prop_is(s, "apiVersion", CEL_SCHEMA_STRING) &&
        m != NULL && m->type == CEL_SCHEMA_OBJECT && prop_is(m, "name", CEL_SCHEMA_STRING) &&
        prop_is(m, "generateName", CEL_SCHEMA_STRING))
        return s;
    static const char *const fixed[] = {"kind", "apiVersion", "metadata"};
    cel_schema_prop_t *props = cel_arena_alloc(a, sizeof(*props) * (s->nprops + 3));
    size_t n = 0;
    for (size_t i = 0; i < s->nprops; i++) {
        const char *pn = s->props[i].name;
        if (strcmp(pn, "kind") != 0 && strcmp(pn, "apiVersion") != 0 && strcmp(pn, "metadata") != 0)
            props[n++] = s->props[i];
    }
    for (size_t i = 0; i < 3; i++)
        props[n++] = (cel_schema_prop_t){fixed[i], i == 2 ? &meta_object : &plain_string, false};
    cel_schema_t *copy = cel_arena_alloc(a, sizeof(*copy));
    *copy = *s;
    copy->type = CEL_SCHEMA_OBJECT;
    copy->props = props;
    copy->nprops = n;
    return copy;
}

static cel_decltype_t *
bounded(cel_arena_t *a, const cel_decltype_t *base, uint64_t max, int64_t min)
{
    cel_decltype_t *t = cel_arena_alloc(a, sizeof(*t));
    *t = *base;
    t->bounded = true;
    t->max_elements = max;
    t->min_size = min;
    return t;
}

static uint64_t
bound_or(int64_t v, uint64_t dflt)
{
    return v == CEL_SCHEMA_UNBOUNDED ? dflt : v < 0 ? 0 : (uint64_t)v;
}

/* The longest string of a request that a string schema's format allows. */
static uint64_t
max_string_len(const cel_schema_t *s)
{
    const char *f = s->format ? s->format : "";
    if (strcmp(f, "duration") == 0)
        return MAX_DURATION_JSON;
    if (strcmp(f, "date") == 0)
        return JSON_DATE_SIZE;
    if (strcmp(f, "date-time") == 0)
        return MAX_DATETIME_JSON;
    return MAX_REQUEST_BYTES - 2;
}

static const cel_decltype_t *
string_schema_type(cel_arena_t *a, const cel_schema_t *s)
{
    const char *f = s->format ? s->format : "";
    if (strcmp(f, "byte") == 0)
        return bounded(a, &cel__t_bytes, bound_or(s->max_length, max_string_len(s)),
                       MIN_STRING_SIZE);
    if (strcmp(f, "duration") == 0)
        return bounded(a, &cel__t_duration, max_string_len(s), MIN_DURATION_JSON);
    if (strcmp(f, "date") == 0)
        return bounded(a, &cel__t_timestamp, max_string_len(s), JSON_DATE_SIZE);
    if (strcmp(f, "date-time") == 0)
        return bounded(a, &cel__t_timestamp, max_string_len(s), MIN_DATETIME_JSON);
    uint64_t max = max_string_len(s);
    if (s->max_length != CEL_SCHEMA_UNBOUNDED) {
        /* maxLength counts code points; kube bounds the bytes, up to four per code point. */
        max = bound_or(s->max_length, 0) * 4;
    } else if (s->nenum > 0) {
        max = 0;
        for (size_t i = 0; i < s->nenum; i++) {
            if (strlen(s->enum_values[i]) > max)
                max = strlen(s->enum_values[i]);
        }
    }
    return bounded(a, &cel__t_string, max, MIN_STRING_SIZE);
}

static const cel_decltype_t *schema_type(cel_arena_t *a, const cel_schema_t *s, const char *name,
                                         bool root);

/* A list of `e`, with its list type and map keys for equality and concatenation. */
static const cel_decltype_t *
list_schema_type(cel_arena_t *a, const cel_schema_t *s, const cel_decltype_t *e)
{
    uint64_t max = bound_or(s->max_items, (MAX_REQUEST_BYTES - 2) / (uint64_t)(e->min_size + 1));
    cel_decltype_t *t = bounded(a, cel__ty_new(a, CEL__TK_LIST, e, NULL), max, 2);
    t->list_type = s->list_type;
    if (s->list_type == CEL_LIST_MAP && s->nkeys > 0) {
        const char **keys = cel_arena_alloc(a, sizeof(*keys) * s->nkeys);
        for (size_t i = 0; i < s->nkeys; i++)
            keys[i] = cel_arena_strndup(a, s->list_map_keys[i], strlen(s->list_map_keys[i]));
        t->map_keys = keys;
        t->nkeys = (int)s->nkeys;
    }
    return t;
}

static const cel_decltype_t *
object_schema_type(cel_arena_t *a, const cel_schema_t *s, const char *name)
{
    cel__field_t *fields = cel_arena_alloc(a, sizeof(*fields) * (s->nprops + 1));
    int n = 0;
    int64_t min = 2;
    for (size_t i = 0; i < s->nprops; i++) {
        const cel_schema_prop_t *p = &s->props[i];
        const char *child = cel__arena_sprintf(a, "%s.%s", name, p->name);
        const cel_decltype_t *ft =
            schema_type(a, p->schema, child, p->schema != NULL && p->schema->embedded_resource);
        if (ft == NULL)
            continue;
        const char *esc = s->verbatim_props ? cel_arena_strndup(a, p->name, strlen(p->name))
                                            : cel_escape_property(a, p->name, strlen(p->name));
        if (esc != NULL)
            fields[n++] = (cel__field_t){esc, cel_arena_strndup(a, p->name, strlen(p->name)), ft,
                                         p->required};
        if (p->required && !p->schema->has_default)
            min += (int64_t)strlen(p->name) + ft->min_size + 4;
    }
    cel_decltype_t *t = bounded(a, &(cel_decltype_t){.kind = CEL__TK_OBJECT, .var = -1}, 0, min);
    t->name = name;
    t->fields = fields;
    t->nfields = n;
    return t;
}

static const cel_decltype_t *
schema_type(cel_arena_t *a, const cel_schema_t *s, const char *name, bool root)
{
    const cel_decltype_t *e;
    if (s == NULL)
        return NULL;
    if (s->type == CEL_SCHEMA_INT_OR_STRING)
        return bounded(a, &cel__t_dyn, MAX_REQUEST_BYTES - 2, 1);
    if (root)
        s = with_type_and_meta(a, s);
    switch (s->type) {
    case CEL_SCHEMA_ARRAY:
        e = schema_type(a, s->items, cel__arena_sprintf(a, "%s.@idx", name),
                        s->items != NULL && s->items->embedded_resource);
        return e == NULL ? NULL : list_schema_type(a, s, e);
    case CEL_SCHEMA_OBJECT:
        if (s->additional_properties == NULL)
            return object_schema_type(a, s, name);
        e = schema_type(a, s->additional_properties, cel__arena_sprintf(a, "%s.@elem", name),
                        s->additional_properties->embedded_resource);
        if (e == NULL)
            return NULL;
        return bounded(
            a,
            cel__ty_new(a, CEL__TK_MAP,
                        /* kube's plain StringType: no size bound of its own */
                        bounded(a, &cel__t_string, 0, MIN_STRING_SIZE), e),
            bound_or(s->max_properties, (MAX_REQUEST_BYTES - 2) / (uint64_t)(e->min_size + 6)), 2);
    case CEL_SCHEMA_STRING:
        return string_schema_type(a, s);
    case CEL_SCHEMA_BOOLEAN:
        return bounded(a, &cel__t_bool, 0, MIN_BOOL_SIZE);
    case CEL_SCHEMA_NUMBER:
        return bounded(a, &cel__t_double, 0, MIN_NUMBER_SIZE);
    case CEL_SCHEMA_INTEGER:
        return bounded(a, &cel__t_int, 0, MIN_NUMBER_SIZE);
    default:
        return NULL;
    }
}

const cel_decltype_t *
cel__ty_from_schema(cel_arena_t *a, const cel_schema_t *s, const char *name, bool resource_root)
{
    const char *n = name != NULL ? name : "object";
    return schema_type(a, s, cel_arena_strndup(a, n, strlen(n)), resource_root);
}
