/* Catalog schemas to CEL structural schemas, memoised per definition. */
#include "gw_schema_cel.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd_schema.h"

#define JSON_DEF "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON"

/* A definition converted (out set) or being converted (out NULL: met inside itself). */
typedef struct {
    const gw_schema_t *in;
    const cel_schema_t *out;
} seen_t;

typedef struct {
    gw_arena_t *a;
    seen_t *seen;
    size_t n, cap;
    const gw_schema_t *resource_root; /* CRD conversions: the node converted as a resource */
} conv_t;

static const cel_schema_t *convert(conv_t *cv, const gw_schema_t *s);

static cel_schema_t *
node(conv_t *cv, cel_schema_kind_t kind)
{
    cel_schema_t *n = gw_arena_alloc(cv->a, sizeof(*n));
    *n = CEL_SCHEMA(kind);
    return n;
}

static cel_list_type_t
list_type(const char *t)
{
    if (t != NULL && strcmp(t, "set") == 0)
        return CEL_LIST_SET;
    if (t != NULL && strcmp(t, "map") == 0)
        return CEL_LIST_MAP;
    return CEL_LIST_ATOMIC;
}

/* A resource's apiVersion, kind and metadata in a CRD schema: left out, so that CEL gives
 * them as kube does (apiVersion, kind, metadata.name and metadata.generateName only). */
static bool
resource_meta(const conv_t *cv, const gw_schema_t *s, const char *name)
{
    if (s->rules == NULL || (s != cv->resource_root && !s->embedded_resource))
        return false;
    return strcmp(name, "apiVersion") == 0 || strcmp(name, "kind") == 0 ||
           strcmp(name, "metadata") == 0;
}

static void
fill_object(conv_t *cv, cel_schema_t *n, const gw_schema_t *s)
{
    cel_schema_prop_t *props = gw_arena_calloc(cv->a, (s->n_fields + 1) * sizeof(*props));
    size_t np = 0;
    for (size_t i = 0; i < s->n_fields; i++) {
        if (resource_meta(cv, s, s->fields[i].name))
            continue;
        const cel_schema_t *p = convert(cv, s->fields[i].schema);
        if (p == NULL)
            continue;
        props[np++] =
            (cel_schema_prop_t){s->fields[i].name, p, gw_schema_required(s, s->fields[i].name)};
    }
    n->props = props;
    n->nprops = np;
}

/* A CRD node's value rules that bound CEL's estimates: maxLength, maxItems, maxProperties,
 * enum, default. */
static void
crd_bounds(conv_t *cv, cel_schema_t *n, const struct gw_schema_rules *r)
{
    size_t ne = json_array_size(r->enum_values), k = 0;
    n->max_length = r->max_length < 0 ? CEL_SCHEMA_UNBOUNDED : r->max_length;
    n->max_items = r->max_items < 0 ? CEL_SCHEMA_UNBOUNDED : r->max_items;
    n->max_properties = r->max_properties < 0 ? CEL_SCHEMA_UNBOUNDED : r->max_properties;
    n->has_default = r->default_value != NULL;
    if (ne > 0 && n->type == CEL_SCHEMA_STRING) {
        const char **vals = gw_arena_calloc(cv->a, ne * sizeof(*vals));
        for (size_t i = 0; i < ne; i++)
            if (json_is_string(json_array_get(r->enum_values, i)))
                vals[k++] = json_string_value(json_array_get(r->enum_values, i));
        n->enum_values = vals;
        n->nenum = k;
    }
}

static const cel_schema_t *
convert_node(conv_t *cv, const gw_schema_t *s)
{
    cel_schema_t *n;
    switch (s->type) {
    case GW_SCHEMA_ANY:
        /* a CRD node without a type is invisible to rules (kube's SchemaDeclType) */
        if (s->rules != NULL || (s->ref != NULL && strcmp(s->ref, JSON_DEF) == 0))
            return NULL;
        return node(cv, CEL_SCHEMA_OBJECT);
    case GW_SCHEMA_OBJECT:
        n = node(cv, CEL_SCHEMA_OBJECT);
        fill_object(cv, n, s);
        break;
    case GW_SCHEMA_MAP:
        n = node(cv, CEL_SCHEMA_OBJECT);
        n->additional_properties = convert(cv, s->values);
        if (n->additional_properties == NULL)
            return NULL;
        break;
    case GW_SCHEMA_ARRAY:
        n = node(cv, CEL_SCHEMA_ARRAY);
        n->items = convert(cv, s->items);
        if (n->items == NULL)
            return NULL;
        n->list_type = list_type(s->list_type);
        n->list_map_keys = s->list_map_keys;
        n->nkeys = s->n_list_map_keys;
        break;
    case GW_SCHEMA_STRING:
        n = node(cv, CEL_SCHEMA_STRING);
        n->format = s->format;
        break;
    case GW_SCHEMA_INTEGER:
        n = node(cv, CEL_SCHEMA_INTEGER);
        break;
    case GW_SCHEMA_NUMBER:
        n = node(cv, CEL_SCHEMA_NUMBER);
        break;
    case GW_SCHEMA_BOOLEAN:
        n = node(cv, CEL_SCHEMA_BOOLEAN);
        break;
    case GW_SCHEMA_INT_OR_STRING:
        n = node(cv, CEL_SCHEMA_INT_OR_STRING);
        break;
    case GW_SCHEMA_QUANTITY:
        n = node(cv, CEL_SCHEMA_STRING);
        break;
    case GW_SCHEMA_TIME:
        n = node(cv, CEL_SCHEMA_STRING);
        n->format = "date-time";
        break;
    default:
        return NULL;
    }
    n->embedded_resource = s->embedded_resource;
    if (s->rules != NULL)
        crd_bounds(cv, n, s->rules);
    return n;
}

static seen_t *
find(conv_t *cv, const gw_schema_t *s)
{
    for (size_t i = 0; i < cv->n; i++)
        if (cv->seen[i].in == s)
            return &cv->seen[i];
    return NULL;
}

/* Named definitions are memoised (and guard against recursion); inline schemas are not
 * shared, so they are converted as met. */
static const cel_schema_t *
convert(conv_t *cv, const gw_schema_t *s)
{
    if (s == NULL)
        return NULL;
    if (s->ref == NULL)
        return convert_node(cv, s);
    seen_t *seen = find(cv, s);
    if (seen != NULL)
        return seen->out; /* NULL while it is still being converted: a recursion */
    if (cv->n == cv->cap) {
        cv->cap = cv->cap ? cv->cap * 2 : 64;
        cv->seen = gw_realloc(cv->seen, cv->cap * sizeof(*cv->seen));
    }
    size_t at = cv->n++;
    cv->seen[at] = (seen_t){s, NULL};
    const cel_schema_t *out = convert_node(cv, s);
    cv->seen[at].out = out;
    if (out == NULL)
        cv->seen[at].in = NULL; /* invisible: convert it again where it is met, as kube does */
    return out;
}

const cel_schema_t *
gw_schema_cel(gw_arena_t *a, const gw_schema_t *s)
{
    conv_t cv = {.a = a};
    const cel_schema_t *out = convert(&cv, s);
    free(cv.seen);
    return out;
}

const cel_schema_t *
gw_schema_cel_resource(gw_arena_t *a, const gw_schema_t *s)
{
    conv_t cv = {.a = a, .resource_root = s};
    const cel_schema_t *out = convert(&cv, s);
    free(cv.seen);
    return out;
}
