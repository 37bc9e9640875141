/*
 * Server-side apply: the values kube's Go types give it. A create compares against, and
 * applies onto, the kind's zero value as its JSON shows it; an apply's result goes back into
 * Go types before it is stored, which is where nulls left by the merge or by pruning become
 * nothing, a zero struct or a zero scalar, by each field's Go shape.
 */
#include "gw_ssa_int.h"

#include <string.h>

#include "gw_protobuf.h"
#include "gw_protobuf_int.h"

/* What Go's JSON shows for the zero value of a value (non-pointer) struct of schema s: an
 * object of its own such fields (the protobuf decoder of an empty message builds exactly
 * that), a null Time, "0" for a Quantity, 0 for an IntOrString. */
static json_t *
zero_struct(const gw_schema_t *s)
{
    json_t *v;
    char err[128];

    switch (gw_protobuf__wire_type(s)) {
    case GW_PROTO_PLAIN:
        break;
    case GW_PROTO_DURATION:
        return json_string("0s");
    case GW_PROTO_INT_OR_STRING:
        return json_integer(0);
    case GW_PROTO_QUANTITY:
        return json_string("0");
    default:
        return json_null();
    }
    if (s->type != GW_SCHEMA_OBJECT || s->proto == NULL)
        return json_object();
    v = gw_protobuf_decode_raw(NULL, s, (const uint8_t *)"", 0, err, sizeof(err));
    return v != NULL ? v : json_object();
}

json_t *
gw_ssa_zero_object(const gw_schema_t *schema)
{
    return schema != NULL ? zero_struct(schema) : json_object();
}

static const gw_proto_field_t *
proto_field(const gw_proto_message_t *m, const char *name)
{
    const gw_proto_field_t *pf, *in;

    for (size_t i = 0; m != NULL && i < m->n_fields; i++) {
        pf = &m->fields[i];
        in = pf->field == NULL ? proto_field(pf->inlined, name) : NULL;
        if (in != NULL)
            return in;
        if (pf->field != NULL && strcmp(pf->field->name, name) == 0)
            return pf;
    }
    return NULL;
}

/* Go's zero of a scalar as JSON shows it. */
static json_t *
zero_scalar(const gw_schema_t *s)
{
    switch (s->type) {
    case GW_SCHEMA_STRING:
        return s->format && strcmp(s->format, "byte") == 0 ? json_null() : json_string("");
    case GW_SCHEMA_INTEGER:
    case GW_SCHEMA_NUMBER:
        return json_integer(0);
    case GW_SCHEMA_BOOLEAN:
        return json_false();
    default:
        return json_null();
    }
}

/* A null in a field of shape pf, after Go decoding and encoding: NULL when it disappears. */
static json_t *
null_field(const gw_proto_field_t *pf)
{
    const gw_schema_t *s = pf->field->schema;

    if (pf->flags & GW_PROTO_POINTER)
        return pf->flags & GW_PROTO_NO_OMITEMPTY ? json_null() : NULL;
    if (s->type == GW_SCHEMA_OBJECT || gw_protobuf__wire_type(s) != GW_PROTO_PLAIN)
        return zero_struct(s);
    if (!(pf->flags & GW_PROTO_NO_OMITEMPTY))
        return NULL;
    return s->type == GW_SCHEMA_ARRAY || s->type == GW_SCHEMA_MAP ? json_null() : zero_scalar(s);
}

static void go_nulls_in(const gw_schema_t *s, json_t *v);

/* Fields of a struct with Go facts: nulls as Go shows them; others walked into. */
static void
go_nulls_struct(const gw_schema_t *s, json_t *v)
{
    const gw_proto_field_t *pf;
    const char *key;
    void *tmp;
    json_t *e, *z;

    json_object_foreach_safe(v, tmp, key, e)
    {
        pf = proto_field(s->proto, key);
        if (pf == NULL)
            continue;
        if (!json_is_null(e)) {
            go_nulls_in(pf->field->schema, e);
            continue;
        }
        z = null_field(pf);
        if (z == NULL)
            json_object_del(v, key);
        else
            json_object_set_new(v, key, z);
    }
}

/* Elements of lists and values of maps are Go values: a null one is its type's zero. */
static void
go_nulls_element(const gw_schema_t *s, json_t *e, json_t **slot)
{
    if (s == NULL)
        return;
    if (!json_is_null(e)) {
        go_nulls_in(s, e);
        return;
    }
    if (s->type == GW_SCHEMA_OBJECT || gw_protobuf__wire_type(s) != GW_PROTO_PLAIN)
        *slot = zero_struct(s);
    else if (s->type != GW_SCHEMA_ARRAY && s->type != GW_SCHEMA_MAP)
        *slot = zero_scalar(s);
}

static void
go_nulls_in(const gw_schema_t *s, json_t *v)
{
    const char *key;
    json_t *e, *z;
    size_t i;

    if (s == NULL)
        return;
    if (s->type == GW_SCHEMA_OBJECT && s->proto != NULL && json_is_object(v)) {
        go_nulls_struct(s, v);
    } else if (s->type == GW_SCHEMA_ARRAY && json_is_array(v)) {
        json_array_foreach(v, i, e)
        {
            z = NULL;
            go_nulls_element(s->items, e, &z);
            if (z != NULL)
                json_array_set_new(v, i, z);
        }
    } else if (s->type == GW_SCHEMA_MAP && json_is_object(v)) {
        json_object_foreach(v, key, e)
        {
            z = NULL;
            go_nulls_element(s->values, e, &z);
            if (z != NULL)
                json_object_set_new(v, key, z);
        }
    }
}

void
gw_ssa__go_nulls(const gw_schema_t *s, json_t *obj)
{
    if (s != NULL && s->proto != NULL)
        go_nulls_in(s, obj);
}
