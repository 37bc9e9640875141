/* Structural schemas: parsed once from the catalog's definitions and shared by pointer. */
#include "gw_catalog.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_catalog_int.h"

/*
 * Strings (names, formats, markers) are borrowed from the universe's parsed catalog.json,
 * which is never modified or freed.
 */

enum { UNFILLED, FILLING, FILLED };

typedef struct {
    gw_catalog__def_t *defs; /* sorted by name */
    gw_schema_t **slots;     /* each definition's schema, allocated before any is filled */
    unsigned char *state;
    size_t n;
    json_t *proto_messages; /* catalog.json's protobuf.messages, or NULL */
    json_t *proto_types;    /* protobuf.types, or NULL */
} loader_t;

static const gw_schema_t any_schema = {.type = GW_SCHEMA_ANY};

static gw_schema_t *parse_schema(loader_t *l, json_t *j, const char *where);

static int
def_cmp(const void *a, const void *b)
{
    return strcmp(((const gw_catalog__def_t *)a)->name, ((const gw_catalog__def_t *)b)->name);
}

static size_t
def_index(const loader_t *l, const char *name)
{
    gw_catalog__def_t key = {.name = name};
    const gw_catalog__def_t *d = bsearch(&key, l->defs, l->n, sizeof(*d), def_cmp);

    if (d == NULL)
        gw_catalog__corrupt("$ref to a missing definition", name);
    return (size_t)(d - l->defs);
}

static const char *
opt_str(json_t *j, const char *key)
{
    return json_string_value(json_object_get(j, key));
}

static const char *const *
str_array(json_t *a, size_t *n)
{
    const char **out;
    size_t i;
    json_t *v;

    *n = json_array_size(a);
    if (*n == 0)
        return NULL;
    out = gw_catalog__alloc(*n * sizeof(*out));
    json_array_foreach(a, i, v) out[i] = json_string_value(v);
    return out;
}

/* The merge and pruning markers, which may also decorate a $ref. */
static void
apply_markers(gw_schema_t *s, json_t *j)
{
    json_t *keys = json_object_get(j, "x-kubernetes-list-map-keys");

    if (opt_str(j, "x-kubernetes-list-type"))
        s->list_type = opt_str(j, "x-kubernetes-list-type");
    if (keys)
        s->list_map_keys = str_array(keys, &s->n_list_map_keys);
    if (opt_str(j, "x-kubernetes-map-type"))
        s->map_type = opt_str(j, "x-kubernetes-map-type");
    if (opt_str(j, "x-kubernetes-patch-strategy"))
        s->patch_strategy = opt_str(j, "x-kubernetes-patch-strategy");
    if (opt_str(j, "x-kubernetes-patch-merge-key"))
        s->patch_merge_key = opt_str(j, "x-kubernetes-patch-merge-key");
    if (json_is_true(json_object_get(j, "x-kubernetes-embedded-resource")))
        s->embedded_resource = true;
    if (json_is_true(json_object_get(j, "x-kubernetes-preserve-unknown-fields")))
        s->preserve_unknown = true;
    if (json_is_true(json_object_get(j, "nullable")))
        s->nullable = true;
}

static int
field_cmp(const void *a, const void *b)
{
    return strcmp(((const gw_schema_field_t *)a)->name, ((const gw_schema_field_t *)b)->name);
}

static void
parse_fields(loader_t *l, gw_schema_t *s, json_t *props, const char *where)
{
    gw_schema_field_t *fields = gw_catalog__alloc(json_object_size(props) * sizeof(*fields));
    const char *name;
    json_t *v;
    size_t n = 0;

    json_object_foreach(props, name, v)
    {
        fields[n].name = name;
        fields[n++].schema = parse_schema(l, v, where);
    }
    qsort(fields, n, sizeof(*fields), field_cmp);
    s->fields = fields;
    s->n_fields = n;
}

static void
parse_object(loader_t *l, gw_schema_t *s, json_t *j, const char *where)
{
    json_t *props = json_object_get(j, "properties");
    json_t *extra = json_object_get(j, "additionalProperties");

    s->type = GW_SCHEMA_OBJECT;
    if (props)
        parse_fields(l, s, props, where);
    if (json_is_object(extra)) {
        s->values = parse_schema(l, extra, where);
        s->type = props ? GW_SCHEMA_OBJECT : GW_SCHEMA_MAP;
    } else if (json_is_true(extra)) {
        s->values = &any_schema;
        s->type = props ? GW_SCHEMA_OBJECT : GW_SCHEMA_MAP;
    }
    s->required = str_array(json_object_get(j, "required"), &s->n_required);
}

static gw_schema_type_t
special_type(const char *special, const char *where)
{
    if (strcmp(special, "int-or-string") == 0)
        return GW_SCHEMA_INT_OR_STRING;
    if (strcmp(special, "quantity") == 0)
        return GW_SCHEMA_QUANTITY;
    if (strcmp(special, "time") == 0)
        return GW_SCHEMA_TIME;
    if (strcmp(special, "any") == 0)
        return GW_SCHEMA_ANY;
    gw_catalog__corrupt("unknown x-kgate-type", where);
}

static gw_schema_type_t
scalar_type(const char *type, const char *where)
{
    static const struct {
        const char *name;
        gw_schema_type_t type;
    } scalars[] = {
        {"string", GW_SCHEMA_STRING},
        {"integer", GW_SCHEMA_INTEGER},
        {"number", GW_SCHEMA_NUMBER},
        {"boolean", GW_SCHEMA_BOOLEAN},
    };

    for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
        if (strcmp(scalars[i].name, type) == 0)
            return scalars[i].type;
    }
    gw_catalog__corrupt("unknown schema type", where);
}

/* Fill s from a schema object that is not a bare $ref. */
static void
fill(loader_t *l, gw_schema_t *s, json_t *j, const char *where)
{
    const char *special = opt_str(j, "x-kgate-type");
    const char *type = opt_str(j, "type");
    json_t *items = json_object_get(j, "items");

    s->format = opt_str(j, "format");
    if (special)
        s->type = special_type(special, where);
    else if (json_is_true(json_object_get(j, "x-kubernetes-int-or-string")))
        s->type = GW_SCHEMA_INT_OR_STRING;
    else if (type == NULL)
        s->type = GW_SCHEMA_ANY;
    else if (strcmp(type, "object") == 0)
        parse_object(l, s, j, where);
    else if (strcmp(type, "array") == 0) {
        s->type = GW_SCHEMA_ARRAY;
        s->items = items ? parse_schema(l, items, where) : &any_schema;
    } else
        s->type = scalar_type(type, where);
    apply_markers(s, j);
}

/* The definition's protobuf wire form; before any decorated $ref copies the schema. */
static void
fill_proto(loader_t *l, gw_schema_t *s, const char *name)
{
    const char *type = json_string_value(json_object_get(l->proto_types, name));
    json_t *facts = json_object_get(l->proto_messages, name);

    if (type)
        s->proto_type = gw_catalog__proto_type(type, name);
    if (facts)
        s->proto = gw_catalog__proto_message(s, facts, name);
}

static gw_schema_t *
fill_definition(loader_t *l, size_t i)
{
    gw_schema_t *s = l->slots[i];

    if (l->state[i] == FILLED)
        return s;
    /* Only a decorated $ref fills its target early; such targets are never cyclic. */
    if (l->state[i] == FILLING)
        gw_catalog__corrupt("cyclic decorated $ref", l->defs[i].name);
    l->state[i] = FILLING;
    fill(l, s, l->defs[i].json, l->defs[i].name);
    s->ref = l->defs[i].name;
    fill_proto(l, s, l->defs[i].name);
    l->state[i] = FILLED;
    return s;
}

/* A bare $ref shares its definition's schema; a decorated one gets a marked copy of it. */
static gw_schema_t *
parse_ref(loader_t *l, json_t *j, const char *name)
{
    size_t i = def_index(l, name);
    gw_schema_t *copy;

    if (json_object_size(j) == 1)
        return l->slots[i];
    copy = gw_catalog__alloc(sizeof(*copy));
    *copy = *fill_definition(l, i);
    apply_markers(copy, j);
    return copy;
}

static gw_schema_t *
parse_schema(loader_t *l, json_t *j, const char *where)
{
    const char *ref = opt_str(j, "$ref");
    gw_schema_t *s;

    if (!json_is_object(j))
        gw_catalog__corrupt("schema is not an object", where);
    if (ref)
        return parse_ref(l, j, ref);
    s = gw_catalog__alloc(sizeof(*s));
    fill(l, s, j, where);
    return s;
}

/* ---- what Go's JSON shows of absent fields ---------------------------------------------- */

static bool go_zero_of(const gw_catalog_t *c, gw_schema_t *s, bool def);

static bool
go_zero_message(const gw_catalog_t *c, const gw_proto_message_t *m)
{
    bool any = false;

    for (size_t i = 0; i < m->n_fields; i++) {
        const gw_proto_field_t *pf = &m->fields[i];
        if (pf->field == NULL) {
            any |= go_zero_message(c, pf->inlined);
        } else {
            /* Evaluated first and always: it fills in the nested schemas' flags. */
            bool nested = go_zero_of(c, (gw_schema_t *)pf->field->schema, false);
            any |= gw_proto_field_shown(pf) || nested;
        }
    }
    return any;
}

/* s's flag from its children's current ones. A named schema other than the definition being
 * evaluated (def) takes its definition's flag: decorated copies follow their definition. */
static bool
go_zero_of(const gw_catalog_t *c, gw_schema_t *s, bool def)
{
    gw_catalog__def_t key = {.name = s->ref};
    const gw_catalog__def_t *d;
    bool v = false;

    if (s->ref != NULL && !def) {
        d = bsearch(&key, c->defs, c->n_defs, sizeof(key), def_cmp);
        v = d != NULL && d->schema->go_zero;
    } else if (s->type == GW_SCHEMA_ARRAY) {
        v = go_zero_of(c, (gw_schema_t *)s->items, false);
    } else if (s->type == GW_SCHEMA_MAP) {
        v = go_zero_of(c, (gw_schema_t *)s->values, false);
    } else if (s->type == GW_SCHEMA_OBJECT && s->proto != NULL) {
        v = go_zero_message(c, s->proto);
    }
    if (v != s->go_zero) /* shared read-only schemas (any_schema) are never marked */
        s->go_zero = v;
    return v;
}

/* gw_schema_t.go_zero of every schema: recursive definitions settle after a few rounds (the
 * flags only ever turn on). */
static void
mark_go_zero(gw_catalog_t *c)
{
    bool changed = true;

    while (changed) {
        changed = false;
        for (size_t i = 0; i < c->n_defs; i++) {
            gw_schema_t *s = (gw_schema_t *)c->defs[i].schema;
            bool before = s->go_zero;
            if (go_zero_of(c, s, true) != before)
                changed = true;
        }
    }
}

gw_proto_type_t
gw_schema_proto_type(const gw_schema_t *s)
{
    if (s->proto_type != GW_PROTO_PLAIN)
        return s->proto_type;
    if (s->type == GW_SCHEMA_INT_OR_STRING)
        return GW_PROTO_INT_OR_STRING;
    if (s->type == GW_SCHEMA_QUANTITY)
        return GW_PROTO_QUANTITY;
    if (s->type == GW_SCHEMA_TIME)
        return GW_PROTO_TIME;
    return GW_PROTO_PLAIN;
}

bool
gw_proto_field_shown(const gw_proto_field_t *pf)
{
    const gw_schema_t *s = pf->field->schema;

    if (pf->flags & GW_PROTO_POINTER)
        return (pf->flags & GW_PROTO_NO_OMITEMPTY) != 0;
    if (s->type == GW_SCHEMA_OBJECT || gw_schema_proto_type(s) != GW_PROTO_PLAIN)
        return true;
    return (pf->flags & GW_PROTO_NO_OMITEMPTY) != 0;
}

static int
gvk_cmp(const void *a, const void *b)
{
    const gw_catalog__gvk_t *x = a, *y = b;
    int d = strcmp(x->group, y->group);

    if (d == 0)
        d = strcmp(x->version, y->version);
    return d ? d : strcmp(x->kind, y->kind);
}

/* Index the definitions' x-kubernetes-group-version-kind markers. */
static void
index_kinds(gw_catalog_t *c)
{
    size_t n = 0, k;
    json_t *gvks, *g;

    for (size_t i = 0; i < c->n_defs; i++)
        n += json_array_size(json_object_get(c->defs[i].json, "x-kubernetes-group-version-kind"));
    c->gvks = gw_catalog__alloc(n * sizeof(*c->gvks));
    for (size_t i = 0; i < c->n_defs; i++) {
        gvks = json_object_get(c->defs[i].json, "x-kubernetes-group-version-kind");
        json_array_foreach(gvks, k, g)
        {
            gw_catalog__gvk_t *e = &c->gvks[c->n_gvks++];
            e->group = opt_str(g, "group");
            e->version = opt_str(g, "version");
            e->kind = opt_str(g, "kind");
            e->schema = c->defs[i].schema;
            if (!e->group || !e->version || !e->kind)
                gw_catalog__corrupt("bad group-version-kind", c->defs[i].name);
        }
    }
    qsort(c->gvks, c->n_gvks, sizeof(*c->gvks), gvk_cmp);
}

void
gw_catalog__load_definitions(gw_catalog_t *c, json_t *definitions, json_t *protobuf)
{
    loader_t l = {
        .n = json_object_size(definitions),
        .proto_messages = json_object_get(protobuf, "messages"),
        .proto_types = json_object_get(protobuf, "types"),
    };
    const char *name;
    json_t *v;
    size_t i = 0;

    l.defs = gw_catalog__alloc(l.n * sizeof(*l.defs));
    l.slots = gw_calloc(l.n, sizeof(*l.slots));
    l.state = gw_calloc(l.n, 1);
    json_object_foreach(definitions, name, v)
    {
        l.defs[i].name = name;
        l.defs[i++].json = v;
    }
    qsort(l.defs, l.n, sizeof(*l.defs), def_cmp);
    for (i = 0; i < l.n; i++)
        l.slots[i] = gw_catalog__alloc(sizeof(gw_schema_t));
    for (i = 0; i < l.n; i++)
        l.defs[i].schema = fill_definition(&l, i);
    c->defs = l.defs;
    c->n_defs = l.n;
    free(l.slots);
    free(l.state);
    index_kinds(c);
    mark_go_zero(c);
}

const gw_catalog__def_t *
gw_catalog__def(const gw_catalog_t *c, const char *name)
{
    const gw_catalog_t *u = c->universe;
    gw_catalog__def_t key = {.name = name};

    return bsearch(&key, u->defs, u->n_defs, sizeof(key), def_cmp);
}

const gw_schema_t *
gw_catalog_definition(const gw_catalog_t *c, const char *name)
{
    const gw_catalog__def_t *d = gw_catalog__def(c, name);

    return d ? d->schema : NULL;
}

const gw_schema_t *
gw_catalog_kind_schema(const gw_catalog_t *c, const char *group, const char *version,
                       const char *kind)
{
    const gw_catalog_t *u = c->universe;
    gw_catalog__gvk_t key = {.group = group, .version = version, .kind = kind};
    const gw_catalog__gvk_t *e = bsearch(&key, u->gvks, u->n_gvks, sizeof(key), gvk_cmp);
    const gw_resource_t *r;

    if (e == NULL && c->base != NULL) {
        r = gw_catalog_find_kind(c, group, version, kind);
        return r && r->custom ? r->schema : NULL;
    }
    return e ? e->schema : NULL;
}

const gw_schema_field_t *
gw_schema_field(const gw_schema_t *s, const char *name)
{
    gw_schema_field_t key = {.name = name};

    if (s->n_fields == 0)
        return NULL;
    return bsearch(&key, s->fields, s->n_fields, sizeof(key), field_cmp);
}

bool
gw_schema_required(const gw_schema_t *s, const char *name)
{
    for (size_t i = 0; i < s->n_required; i++) {
        if (strcmp(s->required[i], name) == 0)
            return true;
    }
    return false;
}
