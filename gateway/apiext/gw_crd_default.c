/* kube's structural defaulting of a custom object (defaulting/algorithm.go and prunenulls.go):
 * nulls the schema cannot hold and has no default for are removed, then defaults fill what is
 * missing at every depth. */
#include "gw_crd_schema.h"

/* A node with CRD rules; built-in nodes (metadata) are none of defaulting's business, as in
   kube, whose structural schema does not describe ObjectMeta. */
static const gw_schema_t *
crd_node(const gw_schema_t *s)
{
    return s != NULL && s->rules != NULL ? s : NULL;
}

static const json_t *
default_of(const gw_schema_t *s)
{
    return s != NULL ? s->rules->default_value : NULL;
}

/* The schema of member key: its property, else additionalProperties. */
static const gw_schema_t *
member_schema(const gw_schema_t *s, const char *key)
{
    const gw_schema_field_t *f = s != NULL ? gw_schema_field(s, key) : NULL;
    return crd_node(f != NULL ? f->schema : s != NULL ? s->values : NULL);
}

static bool
non_nullable_null(const json_t *v, const gw_schema_t *s)
{
    return json_is_null(v) && s != NULL && !s->nullable;
}

static void
prune_nulls(json_t *x, const gw_schema_t *s)
{
    const char *key;
    json_t *v;
    void *tmp;
    size_t i;
    if (json_is_object(x)) {
        json_object_foreach_safe(x, tmp, key, v)
        {
            const gw_schema_t *ms = member_schema(s, key);
            if (non_nullable_null(v, ms) && default_of(ms) == NULL)
                json_object_del(x, key);
            else
                prune_nulls(v, ms);
        }
    } else if (json_is_array(x)) {
        json_array_foreach(x, i, v) prune_nulls(v, s != NULL ? crd_node(s->items) : NULL);
    }
}

static void apply_defaults(json_t *x, const gw_schema_t *s);

/* A null the schema cannot hold becomes a copy of its default (none: it stays). */
static void
default_null(json_t *parent, const char *key, size_t index, const gw_schema_t *s)
{
    json_t *v = key != NULL ? json_object_get(parent, key) : json_array_get(parent, index);
    if (!non_nullable_null(v, s) || default_of(s) == NULL)
        return;
    json_t *copy = json_deep_copy(default_of(s));
    if (key != NULL)
        json_object_set_new(parent, key, copy);
    else
        json_array_set_new(parent, index, copy);
}

static void
default_object(json_t *x, const gw_schema_t *s)
{
    const char *key;
    json_t *v;
    void *tmp;
    for (size_t i = 0; i < s->n_fields; i++) {
        const gw_schema_t *fs = crd_node(s->fields[i].schema);
        const json_t *d = default_of(fs);
        v = json_object_get(x, s->fields[i].name);
        if (d != NULL && (v == NULL || non_nullable_null(v, fs)))
            json_object_set_new(x, s->fields[i].name, json_deep_copy(d));
    }
    json_object_foreach_safe(x, tmp, key, v)
    {
        const gw_schema_field_t *f = gw_schema_field(s, key);
        if (f != NULL) {
            apply_defaults(v, crd_node(f->schema));
        } else if (crd_node(s->values) != NULL) {
            default_null(x, key, 0, s->values);
            apply_defaults(json_object_get(x, key), s->values);
        }
    }
}

static void
apply_defaults(json_t *x, const gw_schema_t *s)
{
    if (s == NULL)
        return;
    if (json_is_object(x)) {
        default_object(x, s);
    } else if (json_is_array(x)) {
        const gw_schema_t *items = crd_node(s->items);
        for (size_t i = 0; i < json_array_size(x); i++) {
            default_null(x, NULL, i, items);
            apply_defaults(json_array_get(x, i), items);
        }
    }
}

void
gw_crd_default(const gw_schema_t *root, json_t *obj)
{
    if (root == NULL || obj == NULL)
        return;
    prune_nulls(obj, crd_node(root));
    apply_defaults(obj, crd_node(root));
}
