/* Swagger 2.0 JSON to gnostic's openapi.v2.Document protobuf, driven by one table per message:
 * which JSON key is which field, and how the message's maps, vendor extensions and oneofs are
 * laid out. Field numbers are OpenAPIv2.proto's. */
#include "gw_openapi_proto.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_yaml.h"

/* ---- the wire -------------------------------------------------------------------------------
 */

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_BYTES = 2 };

typedef struct {
    gw_buf_t out;
    size_t skipped; /* JSON members without a field */
} pb_t;

static void
put(pb_t *b, const void *p, size_t n)
{
    gw_buf_add(&b->out, p, n);
}

static size_t
varint_bytes(uint64_t v, uint8_t out[10])
{
    size_t n = 0;

    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

static void
put_varint(pb_t *b, uint64_t v)
{
    uint8_t tmp[10];

    put(b, tmp, varint_bytes(v, tmp));
}

static void
put_tag(pb_t *b, int number, int wire)
{
    put_varint(b, ((uint64_t)number << 3) | (uint64_t)wire);
}

static void
put_bytes(pb_t *b, int number, const void *p, size_t n)
{
    put_tag(b, number, WIRE_BYTES);
    put_varint(b, n);
    put(b, p, n);
}

/* Open a length-delimited field. Its length goes in front once the body is written: the
 * document nests about a dozen messages deep and is encoded once, so sliding each body over
 * costs less than a separate sizing pass would in code. */
static size_t
begin(pb_t *b, int number)
{
    put_tag(b, number, WIRE_BYTES);
    return b->out.len;
}

static void
end(pb_t *b, size_t start)
{
    uint8_t tmp[10];
    size_t body = b->out.len - start, k = varint_bytes(body, tmp);

    gw_buf_add(&b->out, tmp, k); /* room for the length, which goes in front of the body */
    memmove(b->out.data + start + k, b->out.data + start, body);
    memcpy(b->out.data + start, tmp, k);
}

/* ---- the messages ---------------------------------------------------------------------------
 */

typedef enum {
    K_STRING,
    K_BOOL,
    K_DOUBLE,
    K_INT64,
    K_STRINGS,    /* repeated string */
    K_ANY,        /* Any: the value as YAML text */
    K_ANYS,       /* repeated Any */
    K_MSG,        /* a message of type sub */
    K_MSGS,       /* repeated sub */
    K_ADDITIONAL, /* AdditionalPropertiesItem: a Schema or a bool */
} kind_t;

typedef struct msg msg_t;

typedef struct {
    const char *key; /* "" for a message made of the whole JSON value (TypeItem, ItemsItem) */
    int number;
    kind_t kind;
    const msg_t *sub;
} field_t;

struct msg {
    const field_t *fields; /* in field number order, ended by a NULL key */
    int vendor;            /* vendor_extension's number (x- keys as NamedAny), or 0 */
    /* Maps: keys (those pair_key accepts, all without it) as repeated Named* {name = 1;
     * value = 2} pairs at field `pairs`, the value encoded as pair_value says. */
    int pairs;
    field_t pair_value;
    bool (*pair_key)(const char *key);
    /* A oneof: the member message for v and its field number, or NULL when none fits. */
    const msg_t *(*choose)(const json_t *v, int *number);
};

static void encode_msg(pb_t *b, const json_t *v, const msg_t *m);

static bool
whole_value(const msg_t *m)
{
    return m->fields != NULL && m->fields[0].key != NULL && m->fields[0].key[0] == '\0';
}

static void
put_any(pb_t *b, int number, const json_t *v)
{
    size_t start = begin(b, number), len;
    char *yaml = gw_json_to_yaml(v, &len);

    put_bytes(b, 2, yaml, len); /* Any.yaml; Any.value stays empty, as gnostic leaves it */
    free(yaml);
    end(b, start);
}

static void
put_msg(pb_t *b, int number, const json_t *v, const msg_t *sub)
{
    size_t start;

    if (!json_is_object(v) && !whole_value(sub)) {
        b->skipped++;
        return;
    }
    start = begin(b, number);
    encode_msg(b, v, sub);
    end(b, start);
}

static void
put_additional(pb_t *b, int number, const json_t *v, const msg_t *schema)
{
    size_t start;

    if (!json_is_object(v) && !json_is_boolean(v)) {
        b->skipped++;
        return;
    }
    start = begin(b, number);
    if (json_is_object(v)) {
        put_msg(b, 1, v, schema);
    } else {
        put_tag(b, 2, WIRE_VARINT); /* a oneof member is written even when false */
        put_varint(b, json_is_true(v));
    }
    end(b, start);
}

/* A repeated field: each element of an array, or a lone value where gnostic takes one
 * (TypeItem's `"type": "string"`, ItemsItem's `"items": {...}`). */
static void
put_repeated(pb_t *b, const field_t *f, const json_t *v)
{
    size_t i;
    json_t *e;

    if (!json_is_array(v)) {
        if (f->key[0] != '\0')
            b->skipped++;
        else if (f->kind == K_STRINGS && json_is_string(v))
            put_bytes(b, f->number, json_string_value(v), json_string_length(v));
        else if (f->kind == K_MSGS)
            put_msg(b, f->number, v, f->sub);
        else
            b->skipped++;
        return;
    }
    json_array_foreach(v, i, e)
    {
        if (f->kind == K_ANYS)
            put_any(b, f->number, e);
        else if (f->kind == K_MSGS)
            put_msg(b, f->number, e, f->sub);
        else if (json_is_string(e))
            put_bytes(b, f->number, json_string_value(e), json_string_length(e));
        else
            b->skipped++;
    }
}

/* An integer, or a real with an integral value: a CRD author's `maxLength: 5.0` is the int64 5
 * that kube's JSONSchemaProps decodes it to. */
static bool
integral(const json_t *v)
{
    double d = json_real_value(v);

    return json_is_integer(v) || (json_is_real(v) && d == floor(d) && fabs(d) < 9.2e18);
}

/* Proto3 scalars: a zero value is not written. */
static void
put_scalar(pb_t *b, const field_t *f, const json_t *v)
{
    if (f->kind == K_STRING && json_is_string(v)) {
        if (json_string_length(v) > 0)
            put_bytes(b, f->number, json_string_value(v), json_string_length(v));
    } else if (f->kind == K_BOOL && json_is_boolean(v)) {
        if (json_is_true(v)) {
            put_tag(b, f->number, WIRE_VARINT);
            put_varint(b, 1);
        }
    } else if (f->kind == K_INT64 && integral(v)) {
        json_int_t n = json_is_integer(v) ? json_integer_value(v) : (json_int_t)json_real_value(v);
        if (n != 0) {
            put_tag(b, f->number, WIRE_VARINT);
            put_varint(b, (uint64_t)n);
        }
    } else if (f->kind == K_DOUBLE && json_is_number(v)) {
        double d = json_number_value(v);
        uint8_t le[8];
        uint64_t bits;
        if (d == 0 && !signbit(d))
            return;
        memcpy(&bits, &d, sizeof(bits));
        for (int i = 0; i < 8; i++)
            le[i] = (uint8_t)(bits >> (8 * i));
        put_tag(b, f->number, WIRE_FIXED64);
        put(b, le, sizeof(le));
    } else {
        b->skipped++;
    }
}

static void
encode_field(pb_t *b, const field_t *f, const json_t *v)
{
    switch (f->kind) {
    case K_ANY:
        put_any(b, f->number, v);
        break;
    case K_MSG:
        put_msg(b, f->number, v, f->sub);
        break;
    case K_ADDITIONAL:
        put_additional(b, f->number, v, f->sub);
        break;
    case K_STRINGS:
    case K_ANYS:
    case K_MSGS:
        put_repeated(b, f, v);
        break;
    default:
        put_scalar(b, f, v);
    }
}

static bool
is_extension(const char *key)
{
    return strncmp(key, "x-", 2) == 0;
}

/* Named* pairs at `number` for the keys of v that `want` accepts (all when NULL). */
static void
put_pairs(pb_t *b, int number, const field_t *value, bool (*want)(const char *), const json_t *v)
{
    const char *key;
    json_t *e;

    json_object_foreach((json_t *)v, key, e)
    {
        if (want != NULL && !want(key))
            continue;
        size_t start = begin(b, number);
        if (key[0] != '\0')
            put_bytes(b, 1, key, strlen(key));
        encode_field(b, value, e);
        end(b, start);
    }
}

static const field_t vendor_value = {"", 2, K_ANY, NULL};

static const field_t *
field_for(const msg_t *m, const char *key)
{
    for (const field_t *f = m->fields; f != NULL && f->key != NULL; f++) {
        if (strcmp(f->key, key) == 0)
            return f;
    }
    return NULL;
}

/* Members of v that no field, map or vendor extension takes. */
static size_t
count_unknown(const json_t *v, const msg_t *m)
{
    const char *key;
    json_t *e;
    size_t n = 0;

    json_object_foreach((json_t *)v, key, e)
    {
        bool known = field_for(m, key) != NULL || (m->vendor != 0 && is_extension(key)) ||
                     (m->pairs != 0 && (m->pair_key == NULL || m->pair_key(key)));
        n += !known;
    }
    return n;
}

static void
encode_msg(pb_t *b, const json_t *v, const msg_t *m)
{
    if (m->choose != NULL) {
        int number;
        const msg_t *member = json_is_object(v) ? m->choose(v, &number) : NULL;
        if (member == NULL)
            b->skipped++;
        else
            put_msg(b, number, v, member);
        return;
    }
    if (whole_value(m)) {
        encode_field(b, &m->fields[0], v);
        return;
    }
    for (const field_t *f = m->fields; f != NULL && f->key != NULL; f++) {
        json_t *e = json_object_get(v, f->key);
        if (e != NULL)
            encode_field(b, f, e);
    }
    /* Go writes fields in number order: Paths has its extensions (1) before its paths (2). */
    if (m->vendor != 0 && m->vendor < m->pairs)
        put_pairs(b, m->vendor, &vendor_value, is_extension, v);
    if (m->pairs != 0)
        put_pairs(b, m->pairs, &m->pair_value, m->pair_key, v);
    if (m->vendor != 0 && m->vendor > m->pairs)
        put_pairs(b, m->vendor, &vendor_value, is_extension, v);
    b->skipped += count_unknown(v, m);
}

/* ---- OpenAPIv2.proto ------------------------------------------------------------------------
 */

static const msg_t m_document, m_info, m_contact, m_license, m_external_docs, m_tag, m_paths,
    m_path_item, m_operation, m_parameters_item, m_json_reference, m_parameter, m_body_parameter,
    m_non_body_parameter, m_query_sub_schema, m_header_sub_schema, m_primitives_items, m_header,
    m_responses, m_response_value, m_response, m_schema_item, m_file_schema, m_schema, m_type_item,
    m_items_item, m_xml, m_definitions, m_properties, m_parameter_definitions,
    m_response_definitions, m_security_definitions, m_security_definitions_item, m_headers,
    m_examples, m_security_requirement, m_string_array, m_basic_security, m_api_key_security,
    m_oauth2_implicit, m_oauth2_token, m_oauth2_access_code, m_oauth2_scopes;

static const field_t f_document[] = {
    {"swagger", 1, K_STRING, NULL},
    {"info", 2, K_MSG, &m_info},
    {"host", 3, K_STRING, NULL},
    {"basePath", 4, K_STRING, NULL},
    {"schemes", 5, K_STRINGS, NULL},
    {"consumes", 6, K_STRINGS, NULL},
    {"produces", 7, K_STRINGS, NULL},
    {"paths", 8, K_MSG, &m_paths},
    {"definitions", 9, K_MSG, &m_definitions},
    {"parameters", 10, K_MSG, &m_parameter_definitions},
    {"responses", 11, K_MSG, &m_response_definitions},
    {"security", 12, K_MSGS, &m_security_requirement},
    {"securityDefinitions", 13, K_MSG, &m_security_definitions},
    {"tags", 14, K_MSGS, &m_tag},
    {"externalDocs", 15, K_MSG, &m_external_docs},
    {NULL, 0, 0, NULL},
};

static const field_t f_info[] = {
    {"title", 1, K_STRING, NULL},
    {"version", 2, K_STRING, NULL},
    {"description", 3, K_STRING, NULL},
    {"termsOfService", 4, K_STRING, NULL},
    {"contact", 5, K_MSG, &m_contact},
    {"license", 6, K_MSG, &m_license},
    {NULL, 0, 0, NULL},
};

static const field_t f_contact[] = {
    {"name", 1, K_STRING, NULL},
    {"url", 2, K_STRING, NULL},
    {"email", 3, K_STRING, NULL},
    {NULL, 0, 0, NULL},
};

static const field_t f_name_url[] = {
    {"name", 1, K_STRING, NULL},
    {"url", 2, K_STRING, NULL},
    {NULL, 0, 0, NULL},
};

static const field_t f_external_docs[] = {
    {"description", 1, K_STRING, NULL},
    {"url", 2, K_STRING, NULL},
    {NULL, 0, 0, NULL},
};

static const field_t f_tag[] = {
    {"name", 1, K_STRING, NULL},
    {"description", 2, K_STRING, NULL},
    {"externalDocs", 3, K_MSG, &m_external_docs},
    {NULL, 0, 0, NULL},
};

static const field_t f_path_item[] = {
    {"$ref", 1, K_STRING, NULL},
    {"get", 2, K_MSG, &m_operation},
    {"put", 3, K_MSG, &m_operation},
    {"post", 4, K_MSG, &m_operation},
    {"delete", 5, K_MSG, &m_operation},
    {"options", 6, K_MSG, &m_operation},
    {"head", 7, K_MSG, &m_operation},
    {"patch", 8, K_MSG, &m_operation},
    {"parameters", 9, K_MSGS, &m_parameters_item},
    {NULL, 0, 0, NULL},
};

static const field_t f_operation[] = {
    {"tags", 1, K_STRINGS, NULL},
    {"summary", 2, K_STRING, NULL},
    {"description", 3, K_STRING, NULL},
    {"externalDocs", 4, K_MSG, &m_external_docs},
    {"operationId", 5, K_STRING, NULL},
    {"produces", 6, K_STRINGS, NULL},
    {"consumes", 7, K_STRINGS, NULL},
    {"parameters", 8, K_MSGS, &m_parameters_item},
    {"responses", 9, K_MSG, &m_responses},
    {"schemes", 10, K_STRINGS, NULL},
    {"deprecated", 11, K_BOOL, NULL},
    {"security", 12, K_MSGS, &m_security_requirement},
    {NULL, 0, 0, NULL},
};

static const field_t f_json_reference[] = {
    {"$ref", 1, K_STRING, NULL},
    {"description", 2, K_STRING, NULL},
    {NULL, 0, 0, NULL},
};

static const field_t f_body_parameter[] = {
    {"description", 1, K_STRING, NULL}, {"name", 2, K_STRING, NULL},     {"in", 3, K_STRING, NULL},
    {"required", 4, K_BOOL, NULL},      {"schema", 5, K_MSG, &m_schema}, {NULL, 0, 0, NULL},
};

/* The validation keywords shared by parameters, items and headers, numbered from n. */
#define VALIDATION_FIELDS(n)                                                                       \
    {"collectionFormat", (n), K_STRING, NULL}, {"default", (n) + 1, K_ANY, NULL},                  \
        {"maximum", (n) + 2, K_DOUBLE, NULL}, {"exclusiveMaximum", (n) + 3, K_BOOL, NULL},         \
        {"minimum", (n) + 4, K_DOUBLE, NULL}, {"exclusiveMinimum", (n) + 5, K_BOOL, NULL},         \
        {"maxLength", (n) + 6, K_INT64, NULL}, {"minLength", (n) + 7, K_INT64, NULL},              \
        {"pattern", (n) + 8, K_STRING, NULL}, {"maxItems", (n) + 9, K_INT64, NULL},                \
        {"minItems", (n) + 10, K_INT64, NULL}, {"uniqueItems", (n) + 11, K_BOOL, NULL},            \
        {"enum", (n) + 12, K_ANYS, NULL},                                                          \
    {                                                                                              \
        "multipleOf", (n) + 13, K_DOUBLE, NULL                                                     \
    }

/* QueryParameterSubSchema and FormDataParameterSubSchema, numbered alike. */
static const field_t f_query_sub_schema[] = {
    {"required", 1, K_BOOL, NULL},
    {"in", 2, K_STRING, NULL},
    {"description", 3, K_STRING, NULL},
    {"name", 4, K_STRING, NULL},
    {"allowEmptyValue", 5, K_BOOL, NULL},
    {"type", 6, K_STRING, NULL},
    {"format", 7, K_STRING, NULL},
    {"items", 8, K_MSG, &m_primitives_items},
    VALIDATION_FIELDS(9),
    {NULL, 0, 0, NULL},
};

/* HeaderParameterSubSchema and PathParameterSubSchema, numbered alike. */
static const field_t f_header_sub_schema[] = {
    {"required", 1, K_BOOL, NULL},
    {"in", 2, K_STRING, NULL},
    {"description", 3, K_STRING, NULL},
    {"name", 4, K_STRING, NULL},
    {"type", 5, K_STRING, NULL},
    {"format", 6, K_STRING, NULL},
    {"items", 7, K_MSG, &m_primitives_items},
    VALIDATION_FIELDS(8),
    {NULL, 0, 0, NULL},
};

static const field_t f_primitives_items[] = {
    {"type", 1, K_STRING, NULL},
    {"format", 2, K_STRING, NULL},
    {"items", 3, K_MSG, &m_primitives_items},
    VALIDATION_FIELDS(4),
    {NULL, 0, 0, NULL},
};

static const field_t f_header[] = {
    {"type", 1, K_STRING, NULL},
    {"format", 2, K_STRING, NULL},
    {"items", 3, K_MSG, &m_primitives_items},
    VALIDATION_FIELDS(4),
    {"description", 18, K_STRING, NULL},
    {NULL, 0, 0, NULL},
};

static const field_t f_response[] = {
    {"description", 1, K_STRING, NULL},
    {"schema", 2, K_MSG, &m_schema_item},
    {"headers", 3, K_MSG, &m_headers},
    {"examples", 4, K_MSG, &m_examples},
    {NULL, 0, 0, NULL},
};

static const field_t f_file_schema[] = {
    {"format", 1, K_STRING, NULL},      {"title", 2, K_STRING, NULL},
    {"description", 3, K_STRING, NULL}, {"default", 4, K_ANY, NULL},
    {"required", 5, K_STRINGS, NULL},   {"type", 6, K_STRING, NULL},
    {"readOnly", 7, K_BOOL, NULL},      {"externalDocs", 8, K_MSG, &m_external_docs},
    {"example", 9, K_ANY, NULL},        {NULL, 0, 0, NULL},
};

static const field_t f_schema[] = {
    {"$ref", 1, K_STRING, NULL},
    {"format", 2, K_STRING, NULL},
    {"title", 3, K_STRING, NULL},
    {"description", 4, K_STRING, NULL},
    {"default", 5, K_ANY, NULL},
    {"multipleOf", 6, K_DOUBLE, NULL},
    {"maximum", 7, K_DOUBLE, NULL},
    {"exclusiveMaximum", 8, K_BOOL, NULL},
    {"minimum", 9, K_DOUBLE, NULL},
    {"exclusiveMinimum", 10, K_BOOL, NULL},
    {"maxLength", 11, K_INT64, NULL},
    {"minLength", 12, K_INT64, NULL},
    {"pattern", 13, K_STRING, NULL},
    {"maxItems", 14, K_INT64, NULL},
    {"minItems", 15, K_INT64, NULL},
    {"uniqueItems", 16, K_BOOL, NULL},
    {"maxProperties", 17, K_INT64, NULL},
    {"minProperties", 18, K_INT64, NULL},
    {"required", 19, K_STRINGS, NULL},
    {"enum", 20, K_ANYS, NULL},
    {"additionalProperties", 21, K_ADDITIONAL, &m_schema},
    {"type", 22, K_MSG, &m_type_item},
    {"items", 23, K_MSG, &m_items_item},
    {"allOf", 24, K_MSGS, &m_schema},
    {"properties", 25, K_MSG, &m_properties},
    {"discriminator", 26, K_STRING, NULL},
    {"readOnly", 27, K_BOOL, NULL},
    {"xml", 28, K_MSG, &m_xml},
    {"externalDocs", 29, K_MSG, &m_external_docs},
    {"example", 30, K_ANY, NULL},
    {NULL, 0, 0, NULL},
};

static const field_t f_type_item[] = {{"", 1, K_STRINGS, NULL}, {NULL, 0, 0, NULL}};
static const field_t f_items_item[] = {{"", 1, K_MSGS, &m_schema}, {NULL, 0, 0, NULL}};
static const field_t f_string_array[] = {{"", 1, K_STRINGS, NULL}, {NULL, 0, 0, NULL}};

static const field_t f_xml[] = {
    {"name", 1, K_STRING, NULL},    {"namespace", 2, K_STRING, NULL}, {"prefix", 3, K_STRING, NULL},
    {"attribute", 4, K_BOOL, NULL}, {"wrapped", 5, K_BOOL, NULL},     {NULL, 0, 0, NULL},
};

static const field_t f_basic_security[] = {
    {"type", 1, K_STRING, NULL},
    {"description", 2, K_STRING, NULL},
    {NULL, 0, 0, NULL},
};

static const field_t f_api_key_security[] = {
    {"type", 1, K_STRING, NULL},        {"name", 2, K_STRING, NULL}, {"in", 3, K_STRING, NULL},
    {"description", 4, K_STRING, NULL}, {NULL, 0, 0, NULL},
};

static const field_t f_oauth2_implicit[] = {
    {"type", 1, K_STRING, NULL},
    {"flow", 2, K_STRING, NULL},
    {"scopes", 3, K_MSG, &m_oauth2_scopes},
    {"authorizationUrl", 4, K_STRING, NULL},
    {"description", 5, K_STRING, NULL},
    {NULL, 0, 0, NULL},
};

/* Oauth2PasswordSecurity and Oauth2ApplicationSecurity, numbered alike. */
static const field_t f_oauth2_token[] = {
    {"type", 1, K_STRING, NULL},
    {"flow", 2, K_STRING, NULL},
    {"scopes", 3, K_MSG, &m_oauth2_scopes},
    {"tokenUrl", 4, K_STRING, NULL},
    {"description", 5, K_STRING, NULL},
    {NULL, 0, 0, NULL},
};

static const field_t f_oauth2_access_code[] = {
    {"type", 1, K_STRING, NULL},
    {"flow", 2, K_STRING, NULL},
    {"scopes", 3, K_MSG, &m_oauth2_scopes},
    {"authorizationUrl", 4, K_STRING, NULL},
    {"tokenUrl", 5, K_STRING, NULL},
    {"description", 6, K_STRING, NULL},
    {NULL, 0, 0, NULL},
};

/* ---- oneofs and map keys, told apart as gnostic's parser does ------------------------------ */

static bool
has_string(const json_t *v, const char *key, const char *value)
{
    const char *s = json_string_value(json_object_get(v, key));
    return s != NULL && strcmp(s, value) == 0;
}

static const msg_t *
choose_parameters_item(const json_t *v, int *number)
{
    bool ref = json_object_get(v, "$ref") != NULL;

    *number = ref ? 2 : 1;
    return ref ? &m_json_reference : &m_parameter;
}

static const msg_t *
choose_parameter(const json_t *v, int *number)
{
    static const char *const non_body[] = {"header", "formData", "query", "path", NULL};

    *number = 1;
    if (has_string(v, "in", "body"))
        return &m_body_parameter;
    *number = 2;
    for (const char *const *in = non_body; *in != NULL; in++) {
        if (has_string(v, "in", *in))
            return &m_non_body_parameter;
    }
    return NULL;
}

static const msg_t *
choose_non_body_parameter(const json_t *v, int *number)
{
    static const struct {
        const char *in;
        const msg_t *m;
    } members[] = {
        {"header", &m_header_sub_schema},
        {"formData", &m_query_sub_schema},
        {"query", &m_query_sub_schema},
        {"path", &m_header_sub_schema},
    };

    for (int i = 0; i < 4; i++) {
        if (has_string(v, "in", members[i].in)) {
            *number = i + 1;
            return members[i].m;
        }
    }
    return NULL;
}

static const msg_t *
choose_response_value(const json_t *v, int *number)
{
    bool ref = json_object_get(v, "$ref") != NULL;

    *number = ref ? 2 : 1;
    return ref ? &m_json_reference : &m_response;
}

static const msg_t *
choose_schema_item(const json_t *v, int *number)
{
    bool file = has_string(v, "type", "file");

    *number = file ? 2 : 1;
    return file ? &m_file_schema : &m_schema;
}

static const msg_t *
choose_security_definitions_item(const json_t *v, int *number)
{
    static const struct {
        const char *type, *flow;
        const msg_t *m;
    } members[] = {
        {"basic", NULL, &m_basic_security},         {"apiKey", NULL, &m_api_key_security},
        {"oauth2", "implicit", &m_oauth2_implicit}, {"oauth2", "password", &m_oauth2_token},
        {"oauth2", "application", &m_oauth2_token}, {"oauth2", "accessCode", &m_oauth2_access_code},
    };

    for (int i = 0; i < 6; i++) {
        if (has_string(v, "type", members[i].type) &&
            (members[i].flow == NULL || has_string(v, "flow", members[i].flow))) {
            *number = i + 1;
            return members[i].m;
        }
    }
    return NULL;
}

static bool
is_path(const char *key)
{
    return key[0] == '/';
}

/* Responses' keys: a three-digit code or "default". */
static bool
is_response_code(const char *key)
{
    bool code = strlen(key) == 3 && strspn(key, "0123456789") == 3;

    return code || strcmp(key, "default") == 0;
}

#define MAP_OF(sub) .pairs = 1, .pair_value = {"", 2, K_MSG, (sub)}

static const msg_t m_document = {.fields = f_document, .vendor = 16};
static const msg_t m_info = {.fields = f_info, .vendor = 7};
static const msg_t m_contact = {.fields = f_contact, .vendor = 4};
static const msg_t m_license = {.fields = f_name_url, .vendor = 3};
static const msg_t m_external_docs = {.fields = f_external_docs, .vendor = 3};
static const msg_t m_tag = {.fields = f_tag, .vendor = 4};
static const msg_t m_paths = {
    .vendor = 1, .pairs = 2, .pair_value = {"", 2, K_MSG, &m_path_item}, .pair_key = is_path};
static const msg_t m_path_item = {.fields = f_path_item, .vendor = 10};
static const msg_t m_operation = {.fields = f_operation, .vendor = 13};
static const msg_t m_parameters_item = {.choose = choose_parameters_item};
static const msg_t m_json_reference = {.fields = f_json_reference};
static const msg_t m_parameter = {.choose = choose_parameter};
static const msg_t m_body_parameter = {.fields = f_body_parameter, .vendor = 6};
static const msg_t m_non_body_parameter = {.choose = choose_non_body_parameter};
static const msg_t m_query_sub_schema = {.fields = f_query_sub_schema, .vendor = 23};
static const msg_t m_header_sub_schema = {.fields = f_header_sub_schema, .vendor = 22};
static const msg_t m_primitives_items = {.fields = f_primitives_items, .vendor = 18};
static const msg_t m_header = {.fields = f_header, .vendor = 19};
static const msg_t m_responses = {.vendor = 2,
                                  .pairs = 1,
                                  .pair_value = {"", 2, K_MSG, &m_response_value},
                                  .pair_key = is_response_code};
static const msg_t m_response_value = {.choose = choose_response_value};
static const msg_t m_response = {.fields = f_response, .vendor = 5};
static const msg_t m_schema_item = {.choose = choose_schema_item};
static const msg_t m_file_schema = {.fields = f_file_schema, .vendor = 10};
static const msg_t m_schema = {.fields = f_schema, .vendor = 31};
static const msg_t m_type_item = {.fields = f_type_item};
static const msg_t m_items_item = {.fields = f_items_item};
static const msg_t m_xml = {.fields = f_xml, .vendor = 6};
static const msg_t m_definitions = {MAP_OF(&m_schema)};
static const msg_t m_properties = {MAP_OF(&m_schema)};
static const msg_t m_parameter_definitions = {MAP_OF(&m_parameter)};
static const msg_t m_response_definitions = {MAP_OF(&m_response)};
static const msg_t m_security_definitions = {MAP_OF(&m_security_definitions_item)};
static const msg_t m_security_definitions_item = {.choose = choose_security_definitions_item};
static const msg_t m_headers = {MAP_OF(&m_header)};
static const msg_t m_examples = {.pairs = 1, .pair_value = {"", 2, K_ANY, NULL}};
static const msg_t m_security_requirement = {MAP_OF(&m_string_array)};
static const msg_t m_string_array = {.fields = f_string_array};
static const msg_t m_basic_security = {.fields = f_basic_security, .vendor = 3};
static const msg_t m_api_key_security = {.fields = f_api_key_security, .vendor = 5};
static const msg_t m_oauth2_implicit = {.fields = f_oauth2_implicit, .vendor = 6};
static const msg_t m_oauth2_token = {.fields = f_oauth2_token, .vendor = 6};
static const msg_t m_oauth2_access_code = {.fields = f_oauth2_access_code, .vendor = 7};
static const msg_t m_oauth2_scopes = {.pairs = 1, .pair_value = {"", 2, K_STRING, NULL}};

uint8_t *
gw_openapi_proto_encode(const json_t *doc, size_t *len, size_t *skipped)
{
    pb_t b = {0};

    if (json_is_object(doc))
        encode_msg(&b, doc, &m_document);
    else
        b.skipped++;
    *len = b.out.len;
    if (skipped != NULL)
        *skipped = b.skipped;
    return (uint8_t *)gw_buf_take(&b.out);
}
