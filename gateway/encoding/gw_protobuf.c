/* Protobuf to JSON: the envelope, messages by the catalog's facts, apimachinery's special types. */
#include "gw_protobuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gw_gozero.h"
#include "gw_protobuf_int.h"
#include "gw_json.h"

/*
 * Zero values of absent structs are the only JSON that does not cost wire bytes: they come out
 * of a budget that grows with the input, so that a tiny hostile message cannot expand without
 * bound.
 */
#define PBD_BUDGET_BASE 65536
#define PBD_BUDGET_PER_BYTE 8
/* Whole doubles below 2^53 are exact integers. */
#define PBD_EXACT_MAX 9007199254740992.0
/* Times are kept within ±2^40 s (±34,000 years) of 1970. */
#define PBD_TIME_MAX (INT64_C(1) << 40)

typedef struct {
    const gw_catalog_t *catalog;
    char *err;
    size_t err_len;
    bool failed;
    int depth;
    gw_gozero_t z; /* the zeros of absent fields, on a budget */
} pbd_t;

static json_t *pbd_value(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f);
static bool pbd_object_into(pbd_t *d, const gw_schema_t *s, const uint8_t *p, size_t n,
                            json_t *obj);
static json_t *pbd_envelope(pbd_t *d, const uint8_t *data, size_t len);

static void *pbd_fail(pbd_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record the first (innermost) failure; the outer frames only unwind. */
static void *
pbd_fail(pbd_t *d, const char *fmt, ...)
{
    va_list ap;

    if (d->failed)
        return NULL;
    d->failed = true;
    va_start(ap, fmt);
    vsnprintf(d->err, d->err_len, fmt, ap);
    va_end(ap);
    if (d->err_len > 0)
        gw_protobuf__one_line(d->err);
    return NULL;
}

static const char *
pbd_where(const gw_schema_t *s)
{
    return s->ref ? s->ref : "value";
}

/* A failed completion (gw_gozero.h) becomes the decoder's failure. */
static bool
pbd_zero_ok(pbd_t *d)
{
    if (d->z.st == GW_GOZERO_BUDGET)
        pbd_fail(d, "protobuf: message expands past its size budget");
    else if (d->z.st == GW_GOZERO_DEPTH)
        pbd_fail(d, "protobuf: %s nests too deep", pbd_where(d->z.where));
    return !d->failed;
}

/* ---- zero values and absent fields ------------------------------------------------------- */

/* What Go's JSON shows for the zero value of a non-pointer field of schema s. */
static json_t *
pbd_zero(pbd_t *d, const gw_schema_t *s)
{
    json_t *v;

    d->z.depth = d->depth;
    v = gw_gozero_zero(&d->z, s);
    if (!pbd_zero_ok(d)) {
        json_decref(v);
        return NULL;
    }
    return v;
}

/* Give obj the fields of m (and of its inline structs) that Go's JSON shows though absent. */
static void
pbd_defaults(pbd_t *d, const gw_proto_message_t *m, json_t *obj)
{
    d->z.depth = d->depth;
    gw_gozero_defaults(&d->z, m, obj);
    pbd_zero_ok(d);
}

/* One value the decoder makes up itself, counted against the zeros' budget. */
static bool
pbd_spend(pbd_t *d)
{
    gw_gozero_spend(&d->z);
    return pbd_zero_ok(d);
}

/* A present zero scalar of a value field with omitempty is Go's "unset". */
static bool
pbd_omitted(const gw_proto_field_t *pf, const json_t *v)
{
    if (pf->flags & (GW_PROTO_POINTER | GW_PROTO_NO_OMITEMPTY))
        return false;
    if (json_is_string(v))
        return json_string_length(v) == 0;
    if (json_is_integer(v))
        return json_integer_value(v) == 0;
    if (json_is_real(v))
        return json_real_value(v) == 0;
    return json_is_false(v);
}

/* ---- scalars ------------------------------------------------------------------------------ */

static bool
pbd_wire(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f, int want)
{
    if (f->wire == want)
        return true;
    return pbd_fail(d, "protobuf: field %d of %s: wrong wire type %d", f->number, pbd_where(s),
                    f->wire),
           false;
}

static json_t *
pbd_scalar(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f)
{
    double x;

    switch (s->type) {
    case GW_SCHEMA_STRING:
        if (!pbd_wire(d, s, f, GW_PB_BYTES))
            return NULL;
        if (s->format && strcmp(s->format, "byte") == 0)
            return gw_protobuf__base64(f->p, f->n);
        return gw_protobuf__string(f->p, f->n);
    case GW_SCHEMA_INTEGER:
        if (!pbd_wire(d, s, f, GW_PB_VARINT))
            return NULL;
        if (s->format && strcmp(s->format, "int32") == 0)
            return json_integer((int32_t)(uint32_t)f->u);
        return json_integer((json_int_t)(int64_t)f->u);
    case GW_SCHEMA_BOOLEAN:
        return pbd_wire(d, s, f, GW_PB_VARINT) ? json_boolean(f->u != 0) : NULL;
    case GW_SCHEMA_NUMBER:
        if (!pbd_wire(d, s, f, GW_PB_FIXED64))
            return NULL;
        memcpy(&x, &f->u, sizeof(x));
        if (!isfinite(x))
            return pbd_fail(d, "protobuf: field %d of %s: not a finite number", f->number,
                            pbd_where(s));
        /* Go's JSON writes a whole float64 as an integer ("1", not "1.0"). */
        if (x == trunc(x) && fabs(x) < PBD_EXACT_MAX)
            return json_integer((json_int_t)x);
        return json_real(x);
    default:
        return pbd_fail(d, "protobuf: %s has no protobuf form", pbd_where(s));
    }
}

/* ---- apimachinery's special messages ------------------------------------------------------ */

/* The fields of a small special message: each number's last value, by number 1..4. */
typedef struct {
    gw_protobuf__field_t f[5];
    bool has[5];
} pbd_small_t;

static bool
pbd_small(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f, pbd_small_t *out)
{
    gw_protobuf__reader_t r = gw_protobuf__reader(f->p, f->n);
    gw_protobuf__field_t g;
    const char *why;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!pbd_wire(d, s, f, GW_PB_BYTES))
        return false;
    while ((rc = gw_protobuf__next(&r, &g, &why)) > 0) {
        if (g.number < 5) {
            out->f[g.number] = g;
            out->has[g.number] = true;
        }
    }
    if (rc < 0)
        return pbd_fail(d, "protobuf: %s: %s", pbd_where(s), why), false;
    return true;
}

/* A varint field of a special message; zero when absent. */
static bool
pbd_small_varint(pbd_t *d, const gw_schema_t *s, const pbd_small_t *m, int n, uint64_t *v)
{
    *v = 0;
    return !m->has[n] || (pbd_wire(d, s, &m->f[n], GW_PB_VARINT) && (*v = m->f[n].u, true));
}

static json_t *
pbd_time(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f, bool micro)
{
    pbd_small_t m;
    uint64_t sec, nanos;
    char buf[48];

    if (!pbd_small(d, s, f, &m) || !pbd_small_varint(d, s, &m, 1, &sec) ||
        !pbd_small_varint(d, s, &m, 2, &nanos))
        return NULL;
    /* Time's Unmarshal leaves an empty message the zero time, which JSON shows as null. */
    if (f->n == 0)
        return json_null();
    if ((int64_t)sec > PBD_TIME_MAX || (int64_t)sec < -PBD_TIME_MAX)
        return pbd_fail(d, "protobuf: %s: time out of range", pbd_where(s));
    gw_protobuf__format_time((int64_t)sec, (int32_t)(uint32_t)nanos, micro, buf);
    return json_string(buf);
}

static json_t *
pbd_duration(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f)
{
    pbd_small_t m;
    uint64_t ns;
    char buf[40];

    if (!pbd_small(d, s, f, &m) || !pbd_small_varint(d, s, &m, 1, &ns))
        return NULL;
    gw_protobuf__format_duration((int64_t)ns, buf);
    return json_string(buf);
}

static json_t *
pbd_int_or_string(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f)
{
    pbd_small_t m;
    uint64_t type, ival;

    if (!pbd_small(d, s, f, &m) || !pbd_small_varint(d, s, &m, 1, &type) ||
        !pbd_small_varint(d, s, &m, 2, &ival))
        return NULL;
    if (type == 0)
        return json_integer((int32_t)(uint32_t)ival);
    if (type != 1)
        return pbd_fail(d, "protobuf: %s: impossible IntOrString.Type", pbd_where(s));
    if (!m.has[3])
        return json_string("");
    return pbd_wire(d, s, &m.f[3], GW_PB_BYTES) ? gw_protobuf__string(m.f[3].p, m.f[3].n) : NULL;
}

static json_t *
pbd_quantity(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f)
{
    pbd_small_t m;

    if (!pbd_small(d, s, f, &m))
        return NULL;
    /* An empty message is the zero Quantity; an empty string does not parse (Go fails too). */
    if (!m.has[1])
        return json_string("0");
    if (!pbd_wire(d, s, &m.f[1], GW_PB_BYTES))
        return NULL;
    if (m.f[1].n == 0)
        return pbd_fail(d, "protobuf: %s: empty quantity", pbd_where(s));
    return gw_protobuf__string(m.f[1].p, m.f[1].n);
}

static json_t *
pbd_raw_json(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f)
{
    pbd_small_t m;
    json_error_t e;
    json_t *v;

    if (!pbd_small(d, s, f, &m) || (m.has[1] && !pbd_wire(d, s, &m.f[1], GW_PB_BYTES)))
        return NULL;
    if (!m.has[1] || m.f[1].n == 0)
        return json_null();
    if (m.f[1].n >= GW_PB_MAGIC_LEN && memcmp(m.f[1].p, GW_PB_MAGIC, GW_PB_MAGIC_LEN) == 0)
        return pbd_envelope(d, m.f[1].p, m.f[1].n);
    v = gw_json_loadb((const char *)m.f[1].p, m.f[1].n, JSON_DECODE_ANY, &e);
    if (v == NULL)
        return pbd_fail(d, "protobuf: %s: raw is not JSON: %s", pbd_where(s), e.text);
    return v;
}

/* The JSONSchemaProps the unions carry. */
static const gw_schema_t *
pbd_json_schema_props(pbd_t *d)
{
    const gw_schema_t *s =
        d->catalog ? gw_catalog_definition(d->catalog, GW_PB_JSON_SCHEMA_PROPS) : NULL;

    return s ? s : pbd_fail(d, "protobuf: no JSONSchemaProps in the catalog");
}

/* A JSONSchemaProps union's fields: its schema, and the other field (a list, or allows). */
typedef struct {
    json_t *schema;
    json_t *list;
    uint64_t allows;
} pbd_union_t;

static bool
pbd_union_read(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f, int schema_n,
               const gw_schema_t *item, pbd_union_t *u)
{
    const gw_schema_t *jsp = pbd_json_schema_props(d);
    gw_protobuf__reader_t r = gw_protobuf__reader(f->p, f->n);
    gw_protobuf__field_t g;
    const char *why;
    json_t *v;
    int rc;

    if (jsp == NULL || !pbd_wire(d, s, f, GW_PB_BYTES))
        return false;
    while ((rc = gw_protobuf__next(&r, &g, &why)) > 0) {
        if (g.number == schema_n) {
            if ((v = pbd_value(d, jsp, &g)) == NULL)
                return false;
            json_decref(u->schema);
            u->schema = v;
        } else if (g.number == 3 - schema_n && item == NULL) {
            if (!pbd_wire(d, s, &g, GW_PB_VARINT))
                return false;
            u->allows = g.u;
        } else if (g.number == 3 - schema_n) {
            if ((v = pbd_value(d, item, &g)) == NULL)
                return false;
            json_array_append_new(u->list, v);
        }
    }
    return rc == 0 || (pbd_fail(d, "protobuf: %s: %s", pbd_where(s), why), false);
}

/* JSONSchemaPropsOrArray {schema=1, jSONSchemas=2}, OrBool {allows=1, schema=2} and
   OrStringArray {schema=1, property=2}, as their MarshalJSON methods write them. */
static json_t *
pbd_union(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f, gw_proto_type_t t)
{
    static const gw_schema_t string_item = {.type = GW_SCHEMA_STRING};
    const gw_schema_t *item = t == GW_PROTO_SCHEMA_OR_STRINGS ? &string_item : NULL;
    pbd_union_t u = {.list = json_array()};
    json_t *out = NULL;

    if (t == GW_PROTO_SCHEMA_OR_ARRAY && (item = pbd_json_schema_props(d)) == NULL)
        goto out;
    if (!pbd_union_read(d, s, f, t == GW_PROTO_SCHEMA_OR_BOOL ? 2 : 1, item, &u))
        goto out;
    if (json_array_size(u.list) > 0)
        out = json_incref(u.list);
    else if (u.schema)
        out = json_incref(u.schema);
    else
        out = t == GW_PROTO_SCHEMA_OR_BOOL ? json_boolean(u.allows != 0) : json_null();
out:
    json_decref(u.list);
    json_decref(u.schema);
    return out;
}

/* ---- values, lists, maps, objects -------------------------------------------------------- */

static json_t *
pbd_value(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f)
{
    gw_proto_type_t t = gw_protobuf__wire_type(s);
    json_t *obj;

    switch (t) {
    case GW_PROTO_TIME:
    case GW_PROTO_MICRO_TIME:
        return pbd_time(d, s, f, t == GW_PROTO_MICRO_TIME);
    case GW_PROTO_DURATION:
        return pbd_duration(d, s, f);
    case GW_PROTO_INT_OR_STRING:
        return pbd_int_or_string(d, s, f);
    case GW_PROTO_QUANTITY:
        return pbd_quantity(d, s, f);
    case GW_PROTO_RAW_JSON:
        return pbd_raw_json(d, s, f);
    case GW_PROTO_PLAIN:
        break;
    default:
        return pbd_union(d, s, f, t);
    }
    if (s->type != GW_SCHEMA_OBJECT)
        return pbd_scalar(d, s, f);
    if (!pbd_wire(d, s, f, GW_PB_BYTES))
        return NULL;
    obj = json_object();
    if (!pbd_object_into(d, s, f->p, f->n, obj)) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* Whether items of schema s may come packed (a run of varints or fixed64s in one field). */
static bool
pbd_packable(const gw_schema_t *s)
{
    return gw_protobuf__wire_type(s) == GW_PROTO_PLAIN &&
           (s->type == GW_SCHEMA_INTEGER || s->type == GW_SCHEMA_BOOLEAN ||
            s->type == GW_SCHEMA_NUMBER);
}

static bool
pbd_packed(pbd_t *d, const gw_schema_t *item, const gw_protobuf__field_t *f, json_t *arr)
{
    gw_protobuf__reader_t r = gw_protobuf__reader(f->p, f->n);
    gw_protobuf__field_t g = {.number = f->number};
    json_t *v;

    g.wire = item->type == GW_SCHEMA_NUMBER ? GW_PB_FIXED64 : GW_PB_VARINT;
    while (r.p < r.end) {
        if (g.wire == GW_PB_VARINT ? !gw_protobuf__varint(&r, &g.u) : r.end - r.p < 8)
            return pbd_fail(d, "protobuf: field %d: truncated packed list", f->number), false;
        if (g.wire == GW_PB_FIXED64) {
            g.u = 0;
            for (int i = 0; i < 8; i++)
                g.u |= (uint64_t)*r.p++ << (8 * i);
        }
        if ((v = pbd_scalar(d, item, &g)) == NULL)
            return false;
        json_array_append_new(arr, v);
    }
    return true;
}

/* The items of a list wrapped in a message whose field 1 repeats (metav1.Verbs, ExtraValue). */
static bool
pbd_wrapped(pbd_t *d, const gw_schema_t *item, const gw_protobuf__field_t *f, json_t *arr)
{
    gw_protobuf__reader_t r = gw_protobuf__reader(f->p, f->n);
    gw_protobuf__field_t g;
    const char *why;
    json_t *v;
    int rc;

    if (f->wire != GW_PB_BYTES)
        return pbd_fail(d, "protobuf: field %d: wrong wire type %d", f->number, f->wire), false;
    while ((rc = gw_protobuf__next(&r, &g, &why)) > 0) {
        if (g.number != 1)
            continue;
        if ((v = pbd_value(d, item, &g)) == NULL)
            return false;
        json_array_append_new(arr, v);
    }
    return rc == 0 || (pbd_fail(d, "protobuf: field %d: %s", f->number, why), false);
}

/* One occurrence of a list field: an item, a packed run, or a wrapped list. */
static bool
pbd_list(pbd_t *d, json_t *obj, const gw_proto_field_t *pf, const gw_protobuf__field_t *f)
{
    const gw_schema_t *item = pf->field->schema->items;
    json_t *arr = json_object_get(obj, pf->field->name), *v;

    if (!json_is_array(arr)) {
        arr = json_array();
        json_object_set_new(obj, pf->field->name, arr);
    }
    if (pf->flags & GW_PROTO_WRAPPED)
        return pbd_wrapped(d, item, f, arr);
    if (f->wire == GW_PB_BYTES && pbd_packable(item))
        return pbd_packed(d, item, f, arr);
    if ((v = pbd_value(d, item, f)) == NULL)
        return false;
    json_array_append_new(arr, v);
    return true;
}

/* A map value: a list value travels wrapped (map<string, ExtraValue>). */
static json_t *
pbd_map_value(pbd_t *d, const gw_schema_t *s, const gw_protobuf__field_t *f)
{
    json_t *arr;

    if (s->type != GW_SCHEMA_ARRAY || gw_protobuf__wire_type(s) != GW_PROTO_PLAIN)
        return pbd_value(d, s, f);
    arr = json_array();
    if (!pbd_wrapped(d, s->items, f, arr)) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

/* The value of an entry that carries none. gogo's generated code starts from []byte{} and
 * &ExtraValue{}, not nil, so Go's JSON shows "" and [] where a struct field would show null. */
static json_t *
pbd_map_zero(pbd_t *d, const gw_schema_t *s)
{
    if (s->type == GW_SCHEMA_ARRAY && gw_protobuf__wire_type(s) == GW_PROTO_PLAIN)
        return pbd_spend(d) ? json_array() : NULL;
    if (s->type == GW_SCHEMA_STRING && gw_protobuf__wire_type(s) == GW_PROTO_PLAIN &&
        s->format != NULL && strcmp(s->format, "byte") == 0)
        return pbd_spend(d) ? json_string("") : NULL;
    return pbd_zero(d, s);
}

/* One map entry {key=1, value=2}; a missing value is the value type's zero. */
static bool
pbd_map(pbd_t *d, json_t *obj, const gw_proto_field_t *pf, const gw_protobuf__field_t *f)
{
    const gw_schema_t *vs = pf->field->schema->values;
    pbd_small_t m;
    json_t *map = json_object_get(obj, pf->field->name), *key, *v;

    if (!pbd_small(d, pf->field->schema, f, &m))
        return false;
    if (m.has[1] && !pbd_wire(d, pf->field->schema, &m.f[1], GW_PB_BYTES))
        return false;
    v = m.has[2] ? pbd_map_value(d, vs, &m.f[2]) : pbd_map_zero(d, vs);
    if (v == NULL)
        return false;
    if (!json_is_object(map)) {
        map = json_object();
        json_object_set_new(obj, pf->field->name, map);
    }
    key = m.has[1] ? gw_protobuf__string(m.f[1].p, m.f[1].n) : json_string("");
    json_object_setn_new(map, json_string_value(key), json_string_length(key), v);
    json_decref(key);
    return true;
}

/* One occurrence of a property on the wire. */
static bool
pbd_field(pbd_t *d, json_t *obj, const gw_proto_field_t *pf, const gw_protobuf__field_t *f)
{
    const gw_schema_t *s = pf->field->schema;
    json_t *v, *old = json_object_get(obj, pf->field->name);

    if (gw_protobuf__wire_type(s) == GW_PROTO_PLAIN && s->type == GW_SCHEMA_ARRAY)
        return pbd_list(d, obj, pf, f);
    if (gw_protobuf__wire_type(s) == GW_PROTO_PLAIN && s->type == GW_SCHEMA_MAP)
        return pbd_map(d, obj, pf, f);
    /* A message field that repeats merges, as protobuf's Unmarshal does. */
    if (gw_protobuf__wire_type(s) == GW_PROTO_PLAIN && s->type == GW_SCHEMA_OBJECT &&
        json_is_object(old))
        return pbd_wire(d, s, f, GW_PB_BYTES) && pbd_object_into(d, s, f->p, f->n, old);
    if ((v = pbd_value(d, s, f)) == NULL)
        return false;
    if (pbd_omitted(pf, v)) {
        json_object_del(obj, pf->field->name);
        json_decref(v);
        return true;
    }
    json_object_set_new(obj, pf->field->name, v);
    return true;
}

static const gw_proto_field_t *
pbd_find(const gw_proto_message_t *m, int number)
{
    size_t lo = 0, hi = m->n_fields;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->fields[mid].number == number)
            return &m->fields[mid];
        if (m->fields[mid].number < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The fields of message m into obj; an inline struct's message shares obj. */
static bool
pbd_message(pbd_t *d, const gw_schema_t *s, const gw_proto_message_t *m, const uint8_t *p, size_t n,
            json_t *obj)
{
    gw_protobuf__reader_t r = gw_protobuf__reader(p, n);
    gw_protobuf__field_t f;
    const gw_proto_field_t *pf;
    const char *why;
    int rc;

    while ((rc = gw_protobuf__next(&r, &f, &why)) > 0) {
        if ((pf = pbd_find(m, f.number)) == NULL)
            continue;
        if (pf->field ? !pbd_field(d, obj, pf, &f)
                      : !pbd_wire(d, s, &f, GW_PB_BYTES) ||
                            !pbd_message(d, s, pf->inlined, f.p, f.n, obj))
            return false;
    }
    return rc == 0 || (pbd_fail(d, "protobuf: %s: %s", pbd_where(s), why), false);
}

static bool
pbd_object_into(pbd_t *d, const gw_schema_t *s, const uint8_t *p, size_t n, json_t *obj)
{
    bool ok;

    if (s->proto == NULL)
        return pbd_fail(d, "protobuf: %s has no protobuf form", pbd_where(s)), false;
    if (++d->depth > GW_PROTOBUF_DEPTH_MAX)
        ok = pbd_fail(d, "protobuf: messages nest deeper than %d", GW_PROTOBUF_DEPTH_MAX);
    else
        ok = pbd_message(d, s, s->proto, p, n, obj);
    if (ok)
        pbd_defaults(d, s->proto, obj);
    d->depth--;
    return ok && !d->failed;
}

/* ---- the envelope ------------------------------------------------------------------------- */

typedef struct {
    json_t *api_version; /* strings, or NULL */
    json_t *kind;
    const uint8_t *raw;
    size_t raw_len;
} pbd_unknown_t;

static bool
pbd_read_unknown(pbd_t *d, const uint8_t *p, size_t n, pbd_unknown_t *u)
{
    static const gw_schema_t unknown = {.ref = "runtime.Unknown"};
    gw_protobuf__field_t f = {.wire = GW_PB_BYTES, .p = p, .n = n};
    pbd_small_t m, tm;

    if (!pbd_small(d, &unknown, &f, &m))
        return false;
    if (m.has[1] && !pbd_small(d, &unknown, &m.f[1], &tm))
        return false;
    if (m.has[2] && !pbd_wire(d, &unknown, &m.f[2], GW_PB_BYTES))
        return false;
    if (m.has[1] && tm.has[1] && pbd_wire(d, &unknown, &tm.f[1], GW_PB_BYTES))
        u->api_version = gw_protobuf__string(tm.f[1].p, tm.f[1].n);
    if (m.has[1] && tm.has[2] && pbd_wire(d, &unknown, &tm.f[2], GW_PB_BYTES))
        u->kind = gw_protobuf__string(tm.f[2].p, tm.f[2].n);
    u->raw = m.has[2] ? m.f[2].p : NULL;
    u->raw_len = m.has[2] ? m.f[2].n : 0;
    return !d->failed;
}

/* The schema named by apiVersion ("group/version", or "version" for the core group) and kind. */
static const gw_schema_t *
pbd_kind_schema(pbd_t *d, const char *api_version, const char *kind)
{
    const char *slash = strchr(api_version, '/');
    char group[256];
    size_t glen = slash ? (size_t)(slash - api_version) : 0;
    const gw_schema_t *s = NULL;

    if (*kind == '\0')
        return pbd_fail(d, "Object 'Kind' is missing in the protobuf envelope");
    if (*api_version == '\0')
        return pbd_fail(d, "Object 'apiVersion' is missing in the protobuf envelope");
    if (glen < sizeof(group) && d->catalog) {
        memcpy(group, api_version, glen);
        group[glen] = '\0';
        s = gw_catalog_kind_schema(d->catalog, group, slash ? slash + 1 : api_version, kind);
    }
    if (s == NULL)
        return pbd_fail(d, "no kind \"%s\" is registered for version \"%s\"", kind, api_version);
    return s;
}

static json_t *
pbd_envelope(pbd_t *d, const uint8_t *data, size_t len)
{
    pbd_unknown_t u = {0};
    const gw_schema_t *s;
    json_t *obj = NULL;

    if (len < GW_PB_MAGIC_LEN || memcmp(data, GW_PB_MAGIC, GW_PB_MAGIC_LEN) != 0)
        return pbd_fail(d, "provided data does not appear to be a protobuf message, expected "
                           "prefix [107 56 115 0]");
    if (len == GW_PB_MAGIC_LEN)
        return pbd_fail(d, "empty body");
    if (!pbd_read_unknown(d, data + GW_PB_MAGIC_LEN, len - GW_PB_MAGIC_LEN, &u))
        goto out;
    s = pbd_kind_schema(d, u.api_version ? json_string_value(u.api_version) : "",
                        u.kind ? json_string_value(u.kind) : "");
    if (s == NULL)
        goto out;
    obj = json_object();
    json_object_set(obj, "kind", u.kind);
    json_object_set(obj, "apiVersion", u.api_version);
    if (!pbd_object_into(d, s, u.raw, u.raw_len, obj)) {
        json_decref(obj);
        obj = NULL;
    }
out:
    json_decref(u.api_version);
    json_decref(u.kind);
    return obj;
}

/* ---- entry points ------------------------------------------------------------------------- */

static void
pbd_init(pbd_t *d, const gw_catalog_t *c, size_t len, char *err, size_t err_len)
{
    d->catalog = c;
    d->err = err;
    d->err_len = err_len;
    d->z.budget =
        PBD_BUDGET_BASE +
        (len < SIZE_MAX / PBD_BUDGET_PER_BYTE / 2 ? len * PBD_BUDGET_PER_BYTE : SIZE_MAX / 2);
    d->z.depth_max = GW_PROTOBUF_DEPTH_MAX;
    if (err_len > 0)
        err[0] = '\0';
}

json_t *
gw_protobuf_decode(const gw_catalog_t *c, const uint8_t *data, size_t len, char *err,
                   size_t err_len)
{
    pbd_t d = {0};

    pbd_init(&d, c, len, err, err_len);
    return pbd_envelope(&d, data, len);
}

json_t *
gw_protobuf_decode_raw(const gw_catalog_t *c, const gw_schema_t *s, const uint8_t *data, size_t len,
                       char *err, size_t err_len)
{
    gw_protobuf__field_t f = {.wire = GW_PB_BYTES, .p = data, .n = len};
    pbd_t d = {0};

    pbd_init(&d, c, len, err, err_len);
    return pbd_value(&d, s, &f);
}
