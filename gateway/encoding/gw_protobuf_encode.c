/* JSON to protobuf: kube-apiserver's wire form of a document, for responses and watch events. */
#include "gw_protobuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_protobuf_int.h"
#include "gw_json.h"

/* Unix seconds of Go's zero time (0001-01-01T00:00:00Z), which Time's Marshal writes empty. */
#define PBE_ZERO_TIME INT64_C(-62135596800)

typedef struct {
    const gw_catalog_t *catalog;
    char *err;
    size_t err_len;
    bool failed;
    int depth;
    gw_protobuf__buf_t out;
} pbe_t;

static bool pbe_value(pbe_t *e, int number, const gw_schema_t *s, const json_t *v,
                      const char *name);
static bool pbe_message(pbe_t *e, const gw_schema_t *s, const gw_proto_message_t *m,
                        const json_t *obj);
static bool pbe_fail(pbe_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool
pbe_fail(pbe_t *e, const char *fmt, ...)
{
    va_list ap;

    if (!e->failed) {
        e->failed = true;
        va_start(ap, fmt);
        vsnprintf(e->err, e->err_len, fmt, ap);
        va_end(ap);
        if (e->err_len > 0)
            gw_protobuf__one_line(e->err);
    }
    return false;
}

static bool
pbe_type_error(pbe_t *e, const char *name, const char *want)
{
    return pbe_fail(e, "protobuf: %s: expected %s", name, want);
}

static void
pbe_varint_field(pbe_t *e, int number, uint64_t v)
{
    gw_protobuf__put_tag(&e->out, number, GW_PB_VARINT);
    gw_protobuf__put_varint(&e->out, v);
}

static void
pbe_fixed64(pbe_t *e, int number, double x)
{
    uint64_t bits;
    uint8_t le[8];

    memcpy(&bits, &x, sizeof(bits));
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(bits >> (8 * i));
    gw_protobuf__put_tag(&e->out, number, GW_PB_FIXED64);
    gw_protobuf__put(&e->out, le, sizeof(le));
}

/* A JSON null as Go decodes it into a field: the zero value. */
static void
pbe_null(pbe_t *e, int number, const gw_schema_t *s)
{
    bool plain = gw_protobuf__wire_type(s) == GW_PROTO_PLAIN;

    if (plain && (s->type == GW_SCHEMA_INTEGER || s->type == GW_SCHEMA_BOOLEAN))
        pbe_varint_field(e, number, 0);
    else if (plain && s->type == GW_SCHEMA_NUMBER)
        pbe_fixed64(e, number, 0);
    else
        gw_protobuf__put_bytes(&e->out, number, "", 0);
}

/* ---- apimachinery's special messages ------------------------------------------------------ */

static bool
pbe_time(pbe_t *e, int number, const json_t *v, const char *name)
{
    int64_t sec;
    int32_t nanos;
    size_t start;

    if (!json_is_string(v) || !gw_protobuf__parse_time(json_string_value(v), &sec, &nanos))
        return pbe_type_error(e, name, "an RFC 3339 time");
    start = gw_protobuf__begin(&e->out, number);
    if (sec != PBE_ZERO_TIME || nanos != 0) {
        pbe_varint_field(e, 1, (uint64_t)sec);
        pbe_varint_field(e, 2, (uint64_t)(int64_t)nanos);
    }
    gw_protobuf__end(&e->out, start);
    return true;
}

static bool
pbe_duration(pbe_t *e, int number, const json_t *v, const char *name)
{
    int64_t ns;
    size_t start;

    if (!json_is_string(v) || !gw_protobuf__parse_duration(json_string_value(v), &ns))
        return pbe_type_error(e, name, "a duration");
    start = gw_protobuf__begin(&e->out, number);
    pbe_varint_field(e, 1, (uint64_t)ns);
    gw_protobuf__end(&e->out, start);
    return true;
}

/* IntOrString writes all three fields, as its generated Marshal does. */
static bool
pbe_int_or_string(pbe_t *e, int number, const json_t *v, const char *name)
{
    size_t start;

    if (!json_is_integer(v) && !json_is_string(v))
        return pbe_type_error(e, name, "an integer or a string");
    if (json_is_integer(v) &&
        (json_integer_value(v) < INT32_MIN || json_integer_value(v) > INT32_MAX))
        return pbe_type_error(e, name, "a 32-bit integer");
    start = gw_protobuf__begin(&e->out, number);
    pbe_varint_field(e, 1, json_is_string(v));
    pbe_varint_field(e, 2, json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0);
    gw_protobuf__put_bytes(&e->out, 3, json_is_string(v) ? json_string_value(v) : "",
                           json_is_string(v) ? json_string_length(v) : 0);
    gw_protobuf__end(&e->out, start);
    return true;
}

/* A JSON number as the shortest text that reads back the same (quantities may be numbers). */
static void
pbe_number_text(const json_t *v, char *buf, size_t n)
{
    if (json_is_integer(v)) {
        snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, json_real_value(v));
        if (strtod(buf, NULL) == json_real_value(v))
            return;
    }
}

static bool
pbe_quantity(pbe_t *e, int number, const json_t *v, const char *name)
{
    char buf[40];
    size_t start;

    if (!json_is_string(v) && !json_is_number(v))
        return pbe_type_error(e, name, "a quantity");
    if (json_is_number(v))
        pbe_number_text(v, buf, sizeof(buf));
    start = gw_protobuf__begin(&e->out, number);
    if (json_is_string(v))
        gw_protobuf__put_bytes(&e->out, 1, json_string_value(v), json_string_length(v));
    else
        gw_protobuf__put_bytes(&e->out, 1, buf, strlen(buf));
    gw_protobuf__end(&e->out, start);
    return true;
}

static bool
pbe_raw_json(pbe_t *e, int number, const json_t *v)
{
    char *text = gw_json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t start = gw_protobuf__begin(&e->out, number);

    gw_protobuf__put_bytes(&e->out, 1, text, strlen(text));
    gw_protobuf__end(&e->out, start);
    free(text);
    return true;
}

static const gw_schema_t *
pbe_json_schema_props(pbe_t *e)
{
    const gw_schema_t *s =
        e->catalog ? gw_catalog_definition(e->catalog, GW_PB_JSON_SCHEMA_PROPS) : NULL;

    if (s == NULL)
        pbe_fail(e, "protobuf: no JSONSchemaProps in the catalog");
    return s;
}

/* JSONSchemaPropsOrArray, OrBool and OrStringArray, as their UnmarshalJSON methods read them. */
static bool
pbe_union(pbe_t *e, int number, gw_proto_type_t t, const json_t *v, const char *name)
{
    static const gw_schema_t string_item = {.type = GW_SCHEMA_STRING};
    const gw_schema_t *jsp = pbe_json_schema_props(e);
    size_t start, i;
    json_t *item;
    bool ok = true;

    if (jsp == NULL)
        return false;
    if (!json_is_object(v) && !json_is_array(v) &&
        !(json_is_boolean(v) && t == GW_PROTO_SCHEMA_OR_BOOL))
        return pbe_type_error(e, name, "a schema");
    if (json_is_array(v) && t == GW_PROTO_SCHEMA_OR_BOOL)
        return pbe_type_error(e, name, "a schema or a boolean");
    start = gw_protobuf__begin(&e->out, number);
    if (t == GW_PROTO_SCHEMA_OR_BOOL)
        pbe_varint_field(e, 1, !json_is_false(v));
    if (json_is_object(v))
        ok = pbe_value(e, t == GW_PROTO_SCHEMA_OR_BOOL ? 2 : 1, jsp, v, name);
    json_array_foreach(v, i, item)
    {
        ok = ok && pbe_value(e, 2, t == GW_PROTO_SCHEMA_OR_ARRAY ? jsp : &string_item, item, name);
    }
    gw_protobuf__end(&e->out, start);
    return ok;
}

/* ---- values ------------------------------------------------------------------------------- */

static bool
pbe_string(pbe_t *e, int number, const gw_schema_t *s, const json_t *v, const char *name)
{
    uint8_t *bytes;
    size_t n;

    if (!json_is_string(v))
        return pbe_type_error(e, name, "a string");
    if (!s->format || strcmp(s->format, "byte") != 0) {
        gw_protobuf__put_bytes(&e->out, number, json_string_value(v), json_string_length(v));
        return true;
    }
    if (!gw_protobuf__unbase64(json_string_value(v), json_string_length(v), &bytes, &n))
        return pbe_type_error(e, name, "base64 bytes");
    gw_protobuf__put_bytes(&e->out, number, bytes, n);
    free(bytes);
    return true;
}

static bool
pbe_scalar(pbe_t *e, int number, const gw_schema_t *s, const json_t *v, const char *name)
{
    bool int32 = s->format && strcmp(s->format, "int32") == 0;
    double x;

    switch (s->type) {
    case GW_SCHEMA_STRING:
        return pbe_string(e, number, s, v, name);
    case GW_SCHEMA_INTEGER:
        if (!json_is_integer(v) ||
            (int32 && (json_integer_value(v) < INT32_MIN || json_integer_value(v) > INT32_MAX)))
            return pbe_type_error(e, name, int32 ? "a 32-bit integer" : "an integer");
        pbe_varint_field(e, number, (uint64_t)json_integer_value(v));
        return true;
    case GW_SCHEMA_BOOLEAN:
        if (!json_is_boolean(v))
            return pbe_type_error(e, name, "a boolean");
        pbe_varint_field(e, number, json_is_true(v));
        return true;
    case GW_SCHEMA_NUMBER:
        if (!json_is_number(v))
            return pbe_type_error(e, name, "a number");
        x = json_number_value(v);
        pbe_fixed64(e, number, x);
        return true;
    default:
        return pbe_fail(e, "protobuf: %s has no protobuf form", name);
    }
}

static bool
pbe_object(pbe_t *e, int number, const gw_schema_t *s, const json_t *v, const char *name)
{
    size_t start;
    bool ok;

    if (!json_is_object(v))
        return pbe_type_error(e, name, "an object");
    if (s->proto == NULL)
        return pbe_fail(e, "protobuf: %s has no protobuf form", name);
    start = gw_protobuf__begin(&e->out, number);
    ok = pbe_message(e, s, s->proto, v);
    gw_protobuf__end(&e->out, start);
    return ok;
}

/* One occurrence of field number with value v (null: the type's zero, as Go decodes it). */
static bool
pbe_value(pbe_t *e, int number, const gw_schema_t *s, const json_t *v, const char *name)
{
    gw_proto_type_t t = gw_protobuf__wire_type(s);

    if (json_is_null(v)) {
        pbe_null(e, number, s);
        return true;
    }
    switch (t) {
    case GW_PROTO_TIME:
    case GW_PROTO_MICRO_TIME:
        return pbe_time(e, number, v, name);
    case GW_PROTO_DURATION:
        return pbe_duration(e, number, v, name);
    case GW_PROTO_INT_OR_STRING:
        return pbe_int_or_string(e, number, v, name);
    case GW_PROTO_QUANTITY:
        return pbe_quantity(e, number, v, name);
    case GW_PROTO_RAW_JSON:
        return pbe_raw_json(e, number, v);
    case GW_PROTO_PLAIN:
        break;
    default:
        return pbe_union(e, number, t, v, name);
    }
    if (s->type == GW_SCHEMA_OBJECT)
        return pbe_object(e, number, s, v, name);
    return pbe_scalar(e, number, s, v, name);
}

/* ---- lists, maps, messages ---------------------------------------------------------------- */

static bool
pbe_list(pbe_t *e, const gw_proto_field_t *pf, const json_t *v)
{
    const gw_schema_t *item = pf->field->schema->items;
    size_t i, start = 0;
    json_t *x;
    bool ok = true;

    if (!json_is_array(v))
        return pbe_type_error(e, pf->field->name, "a list");
    if (pf->flags & GW_PROTO_WRAPPED)
        start = gw_protobuf__begin(&e->out, pf->number);
    json_array_foreach(v, i, x)
    {
        int number = pf->flags & GW_PROTO_WRAPPED ? 1 : pf->number;
        ok = ok && pbe_value(e, number, item, x, pf->field->name);
    }
    if (pf->flags & GW_PROTO_WRAPPED)
        gw_protobuf__end(&e->out, start);
    return ok;
}

/* A key of a jansson object; keys may hold NULs (JSON allows "\u0000"), so the length is
 * jansson's. */
static size_t
pbe_key_len(const char *key)
{
    return json_object_iter_key_len(json_object_key_to_iter(key));
}

/* Go's byte order of strings: memcmp, then the shorter first. */
static int
pbe_key_cmp(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t nx = pbe_key_len(x), ny = pbe_key_len(y);
    int c = memcmp(x, y, nx < ny ? nx : ny);

    return c != 0 ? c : (nx > ny) - (nx < ny);
}

/* One entry {key=1, value=2}; a list value travels wrapped (map<string, ExtraValue>). */
static bool
pbe_entry(pbe_t *e, const gw_proto_field_t *pf, const char *key, const json_t *v)
{
    const gw_schema_t *vs = pf->field->schema->values;
    size_t start = gw_protobuf__begin(&e->out, pf->number), inner, i;
    json_t *x;
    bool ok = true;

    gw_protobuf__put_bytes(&e->out, 1, key, pbe_key_len(key));
    if (vs->type == GW_SCHEMA_ARRAY && gw_protobuf__wire_type(vs) == GW_PROTO_PLAIN &&
        !json_is_null(v)) {
        if (!json_is_array(v))
            return pbe_type_error(e, pf->field->name, "a map of lists");
        inner = gw_protobuf__begin(&e->out, 2);
        json_array_foreach(v, i, x) ok = ok && pbe_value(e, 1, vs->items, x, pf->field->name);
        gw_protobuf__end(&e->out, inner);
    } else
        ok = pbe_value(e, 2, vs, v, pf->field->name);
    gw_protobuf__end(&e->out, start);
    return ok;
}

/* Entries in key order, as Go's generated Marshal sorts them. */
static bool
pbe_map(pbe_t *e, const gw_proto_field_t *pf, const json_t *v)
{
    const char **keys;
    const char *key;
    json_t *x;
    size_t n = 0;
    bool ok = true;

    if (!json_is_object(v))
        return pbe_type_error(e, pf->field->name, "a map");
    keys = gw_malloc((json_object_size(v) + 1) * sizeof(*keys));
    json_object_foreach((json_t *)v, key, x) keys[n++] = key;
    qsort(keys, n, sizeof(*keys), pbe_key_cmp);
    for (size_t i = 0; i < n && ok; i++)
        ok = pbe_entry(e, pf, keys[i], json_object_iter_value(json_object_key_to_iter(keys[i])));
    free(keys);
    return ok;
}

static bool
pbe_field(pbe_t *e, const gw_proto_field_t *pf, const json_t *v)
{
    const gw_schema_t *s = pf->field->schema;

    if (gw_protobuf__wire_type(s) == GW_PROTO_PLAIN && s->type == GW_SCHEMA_ARRAY)
        return pbe_list(e, pf, v);
    if (gw_protobuf__wire_type(s) == GW_PROTO_PLAIN && s->type == GW_SCHEMA_MAP)
        return pbe_map(e, pf, v);
    return pbe_value(e, pf->number, s, v, pf->field->name);
}

/* The fields of m present in obj, in ascending numbers; inline structs nest their fields. */
static bool
pbe_message(pbe_t *e, const gw_schema_t *s, const gw_proto_message_t *m, const json_t *obj)
{
    bool ok = true;

    if (++e->depth > GW_PROTOBUF_DEPTH_MAX)
        ok = pbe_fail(e, "protobuf: %s nests deeper than %d", s->ref ? s->ref : "value",
                      GW_PROTOBUF_DEPTH_MAX);
    for (size_t i = 0; i < m->n_fields && ok; i++) {
        const gw_proto_field_t *pf = &m->fields[i];
        const json_t *v = pf->field ? json_object_get(obj, pf->field->name) : NULL;
        size_t start;
        if (pf->field == NULL) {
            start = gw_protobuf__begin(&e->out, pf->number);
            ok = pbe_message(e, s, pf->inlined, obj);
            gw_protobuf__end(&e->out, start);
        } else if (v && !json_is_null(v))
            ok = pbe_field(e, pf, v);
    }
    e->depth--;
    return ok;
}

/* ---- the envelope and entry points ------------------------------------------------------- */

static void
pbe_init(pbe_t *e, const gw_catalog_t *c, char *err, size_t err_len)
{
    memset(e, 0, sizeof(*e));
    e->catalog = c;
    e->err = err;
    e->err_len = err_len;
    if (err_len > 0)
        err[0] = '\0';
}

static int
pbe_finish(pbe_t *e, bool ok, uint8_t **out, size_t *len)
{
    if (!ok) {
        gw_buf_free(&e->out);
        return GW_EINVAL;
    }
    *len = e->out.len;
    *out = (uint8_t *)gw_buf_take(&e->out);
    return 0;
}

/* doc's apiVersion and kind. */
static bool
pbe_type_meta(pbe_t *e, const json_t *doc, const char **api_version, const char **kind)
{
    *api_version = json_string_value(json_object_get(doc, "apiVersion"));
    *kind = json_string_value(json_object_get(doc, "kind"));
    if (!json_is_object(doc) || *api_version == NULL || *kind == NULL)
        return pbe_fail(e, "protobuf: the object names no apiVersion and kind");
    return true;
}

/* The schema of doc's apiVersion and kind. */
static const gw_schema_t *
pbe_kind_schema(pbe_t *e, const json_t *doc, const char **api_version, const char **kind)
{
    const char *slash;
    char *group;
    const gw_schema_t *s;

    if (!pbe_type_meta(e, doc, api_version, kind))
        return NULL;
    slash = strchr(*api_version, '/');
    group = gw_strndup(*api_version, slash ? (size_t)(slash - *api_version) : 0);
    s = gw_catalog_kind_schema(e->catalog, group, slash ? slash + 1 : *api_version, *kind);
    free(group);
    if (s == NULL || s->proto == NULL)
        pbe_fail(e, "no kind \"%s\" is registered for version \"%s\"", *kind, *api_version);
    return s && s->proto ? s : NULL;
}

/* "k8s\0" and runtime.Unknown {typeMeta=1, raw=2, contentEncoding=3, contentType=4}, the
   empty strings included, as kube-apiserver's serializer writes them. s is the kind's schema,
   or NULL to find it from doc's apiVersion and kind. */
static bool
pbe_envelope(pbe_t *e, const gw_schema_t *s, const json_t *doc)
{
    const char *api_version, *kind;
    uint8_t head[GW_PROTOBUF_HEAD_MAX];
    size_t start;
    bool ok;

    if (s == NULL)
        s = pbe_kind_schema(e, doc, &api_version, &kind);
    else if (!pbe_type_meta(e, doc, &api_version, &kind) || s->proto == NULL)
        s = NULL;
    if (s == NULL)
        return false;
    /* The raw field's length is put right once the message is written. */
    gw_protobuf__put(&e->out, head, gw_protobuf_envelope_head(api_version, kind, 0, head) - 1);
    start = e->out.len;
    ok = pbe_message(e, s, s->proto, doc);
    gw_protobuf__end(&e->out, start);
    gw_protobuf__put(&e->out, GW_PROTOBUF_ENVELOPE_TAIL, GW_PROTOBUF_ENVELOPE_TAIL_LEN);
    return ok;
}

size_t
gw_protobuf_envelope_head(const char *api_version, const char *kind, size_t raw_len,
                          uint8_t out[GW_PROTOBUF_HEAD_MAX])
{
    gw_protobuf__buf_t b = {0};
    size_t start, n;

    gw_protobuf__put(&b, GW_PB_MAGIC, GW_PB_MAGIC_LEN);
    start = gw_protobuf__begin(&b, 1);
    gw_protobuf__put_bytes(&b, 1, api_version, strlen(api_version));
    gw_protobuf__put_bytes(&b, 2, kind, strlen(kind));
    gw_protobuf__end(&b, start);
    gw_protobuf__put_tag(&b, 2, GW_PB_BYTES);
    gw_protobuf__put_varint(&b, raw_len);
    n = b.len < GW_PROTOBUF_HEAD_MAX ? b.len : 0;
    memcpy(out, b.data, n);
    gw_buf_free(&b);
    return n;
}

size_t
gw_protobuf_field_head(int number, size_t len, uint8_t out[16])
{
    gw_protobuf__buf_t b = {0};
    size_t n;

    gw_protobuf__put_tag(&b, number, GW_PB_BYTES);
    gw_protobuf__put_varint(&b, len);
    n = b.len;
    memcpy(out, b.data, n);
    gw_buf_free(&b);
    return n;
}

int
gw_protobuf_encode(const gw_catalog_t *c, const json_t *doc, uint8_t **out, size_t *len, char *err,
                   size_t err_len)
{
    return gw_protobuf_encode_as(c, NULL, doc, out, len, err, err_len);
}

int
gw_protobuf_encode_as(const gw_catalog_t *c, const gw_schema_t *s, const json_t *doc, uint8_t **out,
                      size_t *len, char *err, size_t err_len)
{
    pbe_t e;

    pbe_init(&e, c, err, err_len);
    return pbe_finish(&e, pbe_envelope(&e, s, doc), out, len);
}

int
gw_protobuf_encode_watch_event(const gw_catalog_t *c, const char *type, const json_t *object,
                               uint8_t **out, size_t *len, char *err, size_t err_len)
{
    return gw_protobuf_encode_watch_event_as(c, NULL, type, object, out, len, err, err_len);
}

int
gw_protobuf_encode_watch_event_as(const gw_catalog_t *c, const gw_schema_t *s, const char *type,
                                  const json_t *object, uint8_t **out, size_t *len, char *err,
                                  size_t err_len)
{
    pbe_t e;
    size_t event, raw;
    bool ok;

    pbe_init(&e, c, err, err_len);
    gw_protobuf__put(&e.out, "\0\0\0\0", 4);
    gw_protobuf__put_bytes(&e.out, 1, type, strlen(type));
    event = gw_protobuf__begin(&e.out, 2);
    raw = gw_protobuf__begin(&e.out, 1);
    ok = pbe_envelope(&e, s, object);
    gw_protobuf__end(&e.out, raw);
    gw_protobuf__end(&e.out, event);
    for (int i = 0; i < 4; i++)
        e.out.data[i] = (char)(uint8_t)((e.out.len - 4) >> (8 * (3 - i)));
    return pbe_finish(&e, ok, out, len);
}

int
gw_protobuf_encode_raw(const gw_catalog_t *c, const gw_schema_t *s, const json_t *v, uint8_t **out,
                       size_t *len, char *err, size_t err_len)
{
    gw_protobuf__reader_t r;
    uint64_t tag, body;
    pbe_t e;
    bool ok;

    pbe_init(&e, c, err, err_len);
    /* Written as field 1, then the tag and length peeled off: the bare message. */
    ok = pbe_value(&e, 1, s, v, s->ref ? s->ref : "value");
    r.p = (const uint8_t *)e.out.data;
    r.end = r.p + e.out.len;
    if (ok && (!gw_protobuf__varint(&r, &tag) || (tag & 7) != GW_PB_BYTES ||
               !gw_protobuf__varint(&r, &body)))
        ok = pbe_fail(&e, "protobuf: %s is not a message", s->ref ? s->ref : "value");
    if (ok) {
        memmove(e.out.data, r.p, (size_t)body);
        gw_buf_truncate(&e.out, (size_t)body);
    }
    return pbe_finish(&e, ok, out, len);
}
