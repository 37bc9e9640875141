/* The zero values Go's JSON encoder writes, from the catalog's Go shape facts. */
#include "gw_gozero.h"

#include <stdint.h>
#include <string.h>

bool
gw_gozero_spend(gw_gozero_t *z)
{
    if (z->st != GW_GOZERO_OK)
        return false;
    if (z->budget == 0) {
        z->st = GW_GOZERO_BUDGET;
        return false;
    }
    if (z->budget != SIZE_MAX)
        z->budget--;
    return true;
}

static bool
is_bytes(const gw_schema_t *s)
{
    return s->type == GW_SCHEMA_STRING && s->format != NULL && strcmp(s->format, "byte") == 0;
}

/* A value struct's zero: {} with the fields Go shows, nested no deeper than the limit. */
static json_t *
go_zero_struct(gw_gozero_t *z, const gw_schema_t *s)
{
    json_t *obj = json_object();
    int max = z->depth_max > 0 ? z->depth_max : GW_GOZERO_DEPTH_MAX;

    if (s->proto == NULL)
        return obj;
    if (++z->depth <= max) {
        gw_gozero_defaults(z, s->proto, obj);
    } else if (z->st == GW_GOZERO_OK) {
        z->st = GW_GOZERO_DEPTH;
        z->where = s;
    }
    z->depth--;
    return obj;
}

json_t *
gw_gozero_zero(gw_gozero_t *z, const gw_schema_t *s)
{
    if (!gw_gozero_spend(z))
        return NULL;
    switch (gw_schema_proto_type(s)) {
    case GW_PROTO_DURATION:
        return json_string("0s");
    case GW_PROTO_INT_OR_STRING:
        return json_integer(0);
    case GW_PROTO_QUANTITY:
        return json_string("0");
    case GW_PROTO_PLAIN:
        break;
    default: /* Time and MicroTime write null, RawExtension and JSON too */
        return json_null();
    }
    if (s->type == GW_SCHEMA_STRING)
        return is_bytes(s) ? json_null() : json_string("");
    if (s->type == GW_SCHEMA_INTEGER)
        return json_integer(0);
    if (s->type == GW_SCHEMA_NUMBER)
        return json_real(0);
    if (s->type == GW_SCHEMA_BOOLEAN)
        return json_false();
    if (s->type != GW_SCHEMA_OBJECT)
        return json_null(); /* a nil list or map */
    return go_zero_struct(z, s);
}

json_t *
gw_gozero_absent(gw_gozero_t *z, const gw_proto_field_t *pf)
{
    if (!gw_proto_field_shown(pf))
        return NULL;
    if (pf->flags & GW_PROTO_POINTER)
        return gw_gozero_spend(z) ? json_null() : NULL;
    return gw_gozero_zero(z, pf->field->schema);
}

void
gw_gozero_defaults(gw_gozero_t *z, const gw_proto_message_t *m, json_t *obj)
{
    for (size_t i = 0; i < m->n_fields && z->st == GW_GOZERO_OK; i++) {
        const gw_proto_field_t *pf = &m->fields[i];
        json_t *v;
        if (pf->field == NULL) {
            gw_gozero_defaults(z, pf->inlined, obj);
            continue;
        }
        if (json_object_get(obj, pf->field->name) != NULL)
            continue;
        v = gw_gozero_absent(z, pf);
        if (v != NULL)
            json_object_set_new(obj, pf->field->name, v);
    }
}

/* ---- completing documents ----------------------------------------------------------------- */

static void complete_value(gw_gozero_t *z, const gw_schema_t *s, json_t *v);

/* One property of obj: absent or null, it becomes what Go shows (or goes); present, its
 * insides are completed. */
static void
complete_field(gw_gozero_t *z, const gw_proto_field_t *pf, json_t *obj)
{
    const char *name = pf->field->name;
    json_t *v = json_object_get(obj, name), *zero;

    if (v != NULL && !json_is_null(v)) {
        if (pf->field->schema->go_zero)
            complete_value(z, pf->field->schema, v);
        return;
    }
    zero = gw_gozero_absent(z, pf);
    if (zero != NULL)
        json_object_set_new(obj, name, zero);
    else if (v != NULL)
        json_object_del(obj, name); /* a null Go leaves out */
}

static void
complete_message(gw_gozero_t *z, const gw_proto_message_t *m, json_t *obj)
{
    for (size_t i = 0; i < m->n_fields; i++) {
        if (m->fields[i].field == NULL)
            complete_message(z, m->fields[i].inlined, obj);
        else
            complete_field(z, &m->fields[i], obj);
    }
}

static void
complete_value(gw_gozero_t *z, const gw_schema_t *s, json_t *v)
{
    const char *key;
    json_t *item;
    size_t i;

    if (!s->go_zero)
        return;
    if (s->type == GW_SCHEMA_OBJECT && json_is_object(v) && s->proto != NULL &&
        gw_schema_proto_type(s) == GW_PROTO_PLAIN) {
        complete_message(z, s->proto, v);
    } else if (s->type == GW_SCHEMA_ARRAY && json_is_array(v)) {
        json_array_foreach(v, i, item) complete_value(z, s->items, item);
    } else if (s->type == GW_SCHEMA_MAP && json_is_object(v)) {
        json_object_foreach(v, key, item) complete_value(z, s->values, item);
    }
}

void
gw_gozero_complete(const gw_schema_t *s, json_t *doc)
{
    gw_gozero_t z = {.budget = SIZE_MAX};

    complete_value(&z, s, doc);
}

static bool
message_needed(const gw_proto_message_t *m, bool top)
{
    for (size_t i = 0; i < m->n_fields; i++) {
        const gw_proto_field_t *pf = &m->fields[i];
        if (pf->field == NULL) {
            if (message_needed(pf->inlined, top))
                return true;
            continue;
        }
        /* kgate writes every object's metadata with its creationTimestamp. */
        if (top && strcmp(pf->field->name, "metadata") == 0)
            continue;
        if (gw_proto_field_shown(pf) || pf->field->schema->go_zero)
            return true;
    }
    return false;
}

bool
gw_gozero_kind_needed(const gw_schema_t *s)
{
    return s != NULL && s->go_zero && s->proto != NULL && message_needed(s->proto, true);
}
