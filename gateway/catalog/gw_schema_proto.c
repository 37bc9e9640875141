/* Protobuf wire facts: catalog.json's "protobuf" turned into each definition's message. */
#include "gw_catalog.h"

#include <stdlib.h>
#include <string.h>

#include "gw_catalog_int.h"

/* Inline structs nest at most this deep (admissionregistration's rules nest two). */
#define INLINE_DEPTH_MAX 4
/* The largest protobuf field number. */
#define FIELD_NUMBER_MAX ((1 << 29) - 1)

typedef struct {
    const gw_schema_t *schema;
    json_t *facts; /* [[property, number path..., flags], ...] */
    const char *where;
} source_t;

gw_proto_type_t
gw_catalog__proto_type(const char *name, const char *where)
{
    static const struct {
        const char *name;
        gw_proto_type_t type;
    } types[] = {
        {"time", GW_PROTO_TIME},
        {"micro-time", GW_PROTO_MICRO_TIME},
        {"duration", GW_PROTO_DURATION},
        {"int-or-string", GW_PROTO_INT_OR_STRING},
        {"quantity", GW_PROTO_QUANTITY},
        {"raw-json", GW_PROTO_RAW_JSON},
        {"schema-or-array", GW_PROTO_SCHEMA_OR_ARRAY},
        {"schema-or-bool", GW_PROTO_SCHEMA_OR_BOOL},
        {"schema-or-strings", GW_PROTO_SCHEMA_OR_STRINGS},
    };

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (strcmp(types[i].name, name) == 0)
            return types[i].type;
    }
    gw_catalog__corrupt("unknown protobuf type", where);
}

/* The number of field numbers in a fact [property, numbers..., flags]. */
static size_t
path_len(json_t *row)
{
    return json_array_size(row) - 2;
}

static int
path_number(const source_t *src, json_t *row, size_t i)
{
    json_int_t n = json_integer_value(json_array_get(row, i + 1));

    if (!json_is_integer(json_array_get(row, i + 1)) || n < 1 || n > FIELD_NUMBER_MAX)
        gw_catalog__corrupt("bad protobuf field number", src->where);
    return (int)n;
}

static bool
under(const source_t *src, json_t *path, const int *prefix, size_t depth)
{
    if (!json_is_array(path) || json_array_size(path) < 3 ||
        !json_is_string(json_array_get(path, 0)))
        gw_catalog__corrupt("bad protobuf fact", src->where);
    if (path_len(path) <= depth)
        return false;
    for (size_t i = 0; i < depth; i++) {
        if (path_number(src, path, i) != prefix[i])
            return false;
    }
    return true;
}

static unsigned
parse_flags(const source_t *src, json_t *path)
{
    const char *flags = json_string_value(json_array_get(path, json_array_size(path) - 1));
    unsigned bits = 0;

    if (flags == NULL)
        gw_catalog__corrupt("bad protobuf flags", src->where);
    for (; *flags; flags++) {
        if (*flags == 'p')
            bits |= GW_PROTO_POINTER;
        else if (*flags == 'r')
            bits |= GW_PROTO_NO_OMITEMPTY;
        else if (*flags == 'w')
            bits |= GW_PROTO_WRAPPED;
        else
            gw_catalog__corrupt("unknown protobuf flag", src->where);
    }
    return bits;
}

static bool
has_number(const gw_proto_field_t *fields, size_t n, int number)
{
    for (size_t i = 0; i < n; i++) {
        if (fields[i].number == number)
            return true;
    }
    return false;
}

static int
number_cmp(const void *a, const void *b)
{
    return ((const gw_proto_field_t *)a)->number - ((const gw_proto_field_t *)b)->number;
}

static void
set_property(const source_t *src, gw_proto_field_t *f, const char *prop, json_t *path, int n)
{
    f->number = n;
    f->flags = parse_flags(src, path);
    f->field = gw_schema_field(src->schema, prop);
    if (f->field == NULL)
        gw_catalog__corrupt("protobuf fact for an unknown property", src->where);
}

/* The message of the facts whose path starts with prefix[0..depth). */
static const gw_proto_message_t *
build_message(const source_t *src, int *prefix, size_t depth)
{
    gw_proto_field_t *fields = gw_catalog__alloc(json_array_size(src->facts) * sizeof(*fields));
    gw_proto_message_t *m = gw_catalog__alloc(sizeof(*m));
    json_t *path;
    size_t n = 0, i;

    if (depth >= INLINE_DEPTH_MAX)
        gw_catalog__corrupt("inline structs nest too deep", src->where);
    json_array_foreach(src->facts, i, path)
    {
        if (!under(src, path, prefix, depth))
            continue;
        prefix[depth] = path_number(src, path, depth);
        if (path_len(path) == depth + 1)
            set_property(src, &fields[n++], json_string_value(json_array_get(path, 0)), path,
                         prefix[depth]);
        else if (!has_number(fields, n, prefix[depth])) {
            fields[n].number = prefix[depth];
            fields[n++].inlined = build_message(src, prefix, depth + 1);
        }
    }
    qsort(fields, n, sizeof(*fields), number_cmp);
    for (size_t k = 1; k < n; k++) {
        if (fields[k].number == fields[k - 1].number)
            gw_catalog__corrupt("two protobuf fields share a number", src->where);
    }
    m->fields = fields;
    m->n_fields = n;
    return m;
}

const gw_proto_message_t *
gw_catalog__proto_message(const gw_schema_t *s, json_t *facts, const char *where)
{
    source_t src = {.schema = s, .facts = facts, .where = where};
    int prefix[INLINE_DEPTH_MAX];

    if (!json_is_array(facts) || s->type != GW_SCHEMA_OBJECT)
        gw_catalog__corrupt("protobuf facts for a non-object", where);
    return build_message(&src, prefix, 0);
}
