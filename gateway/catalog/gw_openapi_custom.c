/*
 * The OpenAPI definitions of a custom resource, as apiextensions-apiserver's openapi builder
 * makes them from one CRD version's openAPIV3Schema: the structural schema (what kube's
 * structural type keeps), int-or-string unfolded, for v2 what ToStructuralOpenAPIV2 removes and
 * without defaults (kube prunes them from v2), then apiVersion, kind and metadata, the embedded
 * resources' own, the group-version-kind and the selectable fields; and the list kind. The
 * CRD's descriptions are its author's and are kept; kube's own prose is not written.
 */
#include "gw_catalog_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

#define META "io.k8s.apimachinery.pkg.apis.meta.v1."

/* What kube's structural schema carries (Generic, Extensions, ValueValidation,
   ValidationExtensions, items, properties); anything else in a CRD schema is not published. */
static const char *const structural_keys[] = {
    "additionalProperties",
    "allOf",
    "anyOf",
    "default",
    "description",
    "enum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "externalDocs",
    "format",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "not",
    "nullable",
    "oneOf",
    "pattern",
    "properties",
    "required",
    "title",
    "type",
    "uniqueItems",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-validations",
    NULL,
};

static const char *const valid_types[] = {"array",  "boolean", "integer", "number",
                                          "object", "string",  NULL};

static bool
listed(const char *const *list, const char *s)
{
    for (; *list; list++) {
        if (strcmp(*list, s) == 0)
            return true;
    }
    return false;
}

/* Whether Go's omitempty leaves v out (false, "", null, an empty list or object). */
static bool
go_empty(const json_t *v)
{
    return json_is_false(v) || json_is_null(v) ||
           (json_is_string(v) && json_string_length(v) == 0) ||
           (json_is_array(v) && json_array_size(v) == 0) ||
           (json_is_object(v) && json_object_size(v) == 0);
}

static json_t *structural(const json_t *in, bool nested);

static json_t *
structural_list(const json_t *in)
{
    json_t *out = json_array(), *v;
    size_t i;

    json_array_foreach(in, i, v) json_array_append_new(out, structural(v, true));
    return out;
}

/* One member of a schema as the structural form keeps it, or NULL when it is dropped. */
static json_t *
structural_member(const char *key, const json_t *v, bool nested)
{
    const char *name;
    json_t *out, *p;

    if (strcmp(key, "properties") == 0 && json_is_object(v)) {
        out = json_object();
        json_object_foreach((json_t *)v, name, p)
            json_object_set_new(out, name, structural(p, nested));
        return out;
    }
    if (strcmp(key, "items") == 0 || strcmp(key, "not") == 0)
        return json_is_object(v) ? structural(v, nested || key[0] == 'n') : NULL;
    if (strcmp(key, "additionalProperties") == 0) {
        if (nested)
            return NULL;
        return json_is_object(v) ? structural(v, false) : json_incref((json_t *)v);
    }
    if (strcmp(key, "allOf") == 0 || strcmp(key, "anyOf") == 0 || strcmp(key, "oneOf") == 0)
        return json_is_array(v) ? structural_list(v) : NULL;
    return json_deep_copy(v);
}

/* Whether kube writes member key with value v: not Go's empty values, but a default that is
   any JSON but null and an additionalProperties boolean (both held through pointers). */
static bool
written(const char *key, const json_t *v)
{
    if (strcmp(key, "default") == 0)
        return !json_is_null(v);
    if (strcmp(key, "additionalProperties") == 0 && json_is_boolean(v))
        return true;
    return !go_empty(v);
}

/* The members of in that kube's structural schema keeps, as kube writes them. */
static json_t *
structural(const json_t *in, bool nested)
{
    json_t *out = json_object(), *v, *m;
    const char *key;

    json_object_foreach((json_t *)in, key, v)
    {
        if (!listed(structural_keys, key) || !written(key, v))
            continue;
        m = structural_member(key, v, nested);
        if (m != NULL && written(key, m))
            json_object_set_new(out, key, m);
        else
            json_decref(m);
    }
    return out;
}

static bool has_invalid_types(const json_t *s);

static bool
any_invalid(const json_t *list)
{
    json_t *e;
    size_t i;

    json_array_foreach(list, i, e) if (has_invalid_types(e)) return true;
    return false;
}

/* kube's SchemaHasInvalidTypes, over the members that hold schemas: a type outside OpenAPI
   v3's makes the openapi builder publish no schema at all. */
static bool
has_invalid_types(const json_t *s)
{
    const char *t = json_string_value(json_object_get(s, "type")), *name;
    static const char *const nested[] = {"items", "additionalProperties", "not", NULL};
    static const char *const lists[] = {"allOf", "anyOf", "oneOf", NULL};
    json_t *v;

    if (!json_is_object(s))
        return false;
    if (t != NULL && t[0] != '\0' && !listed(valid_types, t))
        return true;
    json_object_foreach(json_object_get(s, "properties"), name,
                        v) if (has_invalid_types(v)) return true;
    for (int i = 0; nested[i]; i++) {
        if (has_invalid_types(json_object_get(s, nested[i])) ||
            any_invalid(json_object_get(s, lists[i])))
            return true;
    }
    return false;
}

/* ---- the walks kube's Visitor makes (properties, items, additionalProperties) ---------------- */

typedef void (*visit_fn)(json_t *s, bool v2);

/* Pre-order over the structural nodes: s, then its items, properties and additionalProperties. */
static void
visit(json_t *s, visit_fn fn, bool v2)
{
    json_t *v;
    const char *name;

    fn(s, v2);
    if (json_is_object(json_object_get(s, "items")))
        visit(json_object_get(s, "items"), fn, v2);
    json_object_foreach(json_object_get(s, "properties"), name, v) visit(v, fn, v2);
    if (json_is_object(json_object_get(s, "additionalProperties")))
        visit(json_object_get(s, "additionalProperties"), fn, v2);
}

static bool
flag(const json_t *s, const char *key)
{
    return json_is_true(json_object_get(s, key));
}

static bool
has_type(const json_t *s, const char *type)
{
    const char *t = json_string_value(json_object_get(s, "type"));
    return t != NULL && strcmp(t, type) == 0;
}

static bool
int_or_string_pair(const json_t *any_of)
{
    return json_array_size(any_of) == 2 && has_type(json_array_get(any_of, 0), "integer") &&
           has_type(json_array_get(any_of, 1), "string");
}

/* kube's Unfold: x-kubernetes-int-or-string spelled out as anyOf [integer, string]. */
static void
unfold(json_t *s, bool v2)
{
    json_t *all = json_object_get(s, "allOf"), *pair;

    (void)v2;
    if (!flag(s, "x-kubernetes-int-or-string") || int_or_string_pair(json_object_get(s, "anyOf")) ||
        int_or_string_pair(json_object_get(json_array_get(all, 0), "anyOf")))
        return;
    pair = json_pack("[{s:s}, {s:s}]", "type", "integer", "type", "string");
    if (json_object_get(s, "anyOf") == NULL) {
        json_object_set_new(s, "anyOf", pair);
        return;
    }
    if (all == NULL) {
        all = json_array();
        json_object_set_new(s, "allOf", all);
    }
    json_array_insert_new(all, 0, json_pack("{s:o}", "anyOf", pair));
}

/* The required list of s without `name` (dropped when it empties). */
static void
unrequire(json_t *s, const char *name)
{
    json_t *req = json_object_get(s, "required");
    size_t i = 0;

    while (i < json_array_size(req)) {
        const char *r = json_string_value(json_array_get(req, i));
        if (r != NULL && strcmp(r, name) == 0)
            json_array_remove(req, i);
        else
            i++;
    }
    if (req != NULL && json_array_size(req) == 0)
        json_object_del(s, "required");
}

/* ToStructuralOpenAPIV2: what kubectl's v2 reader cannot take. A parent is seen before its
   properties, so their nullable marks are still there to filter its required list. */
static void
to_v2(json_t *s, bool v2)
{
    json_t *p;
    const char *name;

    (void)v2;
    json_object_del(s, "allOf");
    json_object_del(s, "oneOf");
    json_object_del(s, "anyOf");
    json_object_del(s, "not");
    if (flag(s, "nullable")) {
        json_object_del(s, "type");
        json_object_del(s, "nullable");
        json_object_del(s, "items");
        json_object_del(s, "properties");
    }
    if (flag(s, "x-kubernetes-preserve-unknown-fields")) {
        json_object_del(s, "items");
        json_object_del(s, "properties");
        if (has_type(s, "object"))
            json_object_del(s, "type");
    }
    if (json_object_get(s, "items") == NULL && has_type(s, "array"))
        json_object_del(s, "type");
    json_object_foreach(json_object_get(s, "properties"), name, p) if (flag(p, "nullable"))
        unrequire(s, name);
    if (flag(json_object_get(s, "additionalProperties"), "nullable"))
        json_object_del(s, "required");
}

/* kube-openapi's PruneDefaults, which the v2 document of custom resources goes through. */
static void
prune_default(json_t *s, bool v2)
{
    (void)v2;
    json_object_del(s, "default");
}

/* ---- kube-native properties ------------------------------------------------------------------ */

static json_t *
ref_to(const char *definition)
{
    return json_pack("{s:s}", "$ref", definition);
}

/* apiVersion and kind as TypeMeta's definition has them (its descriptions are kube's prose). */
static void
add_type_meta(json_t *s)
{
    json_t *props = json_object_get(s, "properties");

    if (props == NULL) {
        props = json_object();
        json_object_set_new(s, "properties", props);
    }
    json_object_set_new(props, "apiVersion", json_pack("{s:s}", "type", "string"));
    json_object_set_new(props, "kind", json_pack("{s:s}", "type", "string"));
}

static void
require(json_t *s, const char *name)
{
    json_t *req = json_object_get(s, "required"), *v;
    size_t i;

    json_array_foreach(req, i,
                       v) if (json_is_string(v) && strcmp(json_string_value(v), name) == 0) return;
    if (req == NULL) {
        req = json_array();
        json_object_set_new(s, "required", req);
    }
    json_array_append_new(req, json_string(name));
}

/* kube's addEmbeddedProperties: children first; an embedded resource gets TypeMeta and
   ObjectMeta and requires kind and apiVersion, except in v2 under preserve-unknown-fields. */
static void
add_embedded(json_t *s, bool v2)
{
    json_t *v;
    const char *name;

    json_object_foreach(json_object_get(s, "properties"), name, v) add_embedded(v, v2);
    if (json_is_object(json_object_get(s, "items")))
        add_embedded(json_object_get(s, "items"), v2);
    if (json_is_object(json_object_get(s, "additionalProperties")))
        add_embedded(json_object_get(s, "additionalProperties"), v2);
    if ((v2 && flag(s, "x-kubernetes-preserve-unknown-fields")) ||
        !flag(s, "x-kubernetes-embedded-resource"))
        return;
    add_type_meta(s);
    json_object_set_new(json_object_get(s, "properties"), "metadata", ref_to(META "ObjectMeta"));
    require(s, "kind");
    require(s, "apiVersion");
}

static int
key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A copy of v with every object's keys in byte order, as Go writes its maps. */
static json_t *
sorted(const json_t *v)
{
    const char **keys;
    size_t n = 0, i;
    json_t *out, *e;
    const char *key;

    if (json_is_array(v)) {
        out = json_array();
        json_array_foreach(v, i, e) json_array_append_new(out, sorted(e));
        return out;
    }
    if (!json_is_object(v))
        return json_deep_copy(v);
    keys = gw_malloc((json_object_size(v) + 1) * sizeof(*keys));
    json_object_foreach((json_t *)v, key, e) keys[n++] = key;
    qsort(keys, n, sizeof(*keys), key_cmp);
    out = json_object();
    for (i = 0; i < n; i++)
        json_object_set_new(out, keys[i], sorted(json_object_get(v, keys[i])));
    free(keys);
    return out;
}

/* ---- the definitions ------------------------------------------------------------------------- */

char *
gw_openapi__custom_name(const char *group, const char *version, const char *kind)
{
    char *out = gw_malloc(strlen(group) + strlen(version) + strlen(kind) + 3), *w = out;
    const char *end = group + strlen(group), *dot;

    /* kube's friendlyName: the group's DNS labels reversed, then version and kind */
    while (end > group) {
        for (dot = end; dot > group && dot[-1] != '.'; dot--)
            ;
        memcpy(w, dot, (size_t)(end - dot));
        w += end - dot;
        *w++ = '.';
        end = dot > group ? dot - 1 : group;
    }
    sprintf(w, "%s.%s", version, kind);
    return out;
}

static json_t *
gvk(const gw_resource_t *r, const char *kind)
{
    return json_pack("[{s:s, s:s, s:s}]", "group", r->group, "kind", kind, "version", r->version);
}

/* x-kubernetes-selectable-fields: the version's selectableFields, their paths without the
   leading dot (CustomResourceFieldSelectors is on in 1.32). */
static void
add_selectable_fields(json_t *s, const json_t *version)
{
    json_t *fields = json_object_get(version, "selectableFields"), *f, *out;
    size_t i;

    if (json_array_size(fields) == 0)
        return;
    out = json_array();
    json_array_foreach(fields, i, f)
    {
        const char *path = json_string_value(json_object_get(f, "jsonPath"));
        if (path != NULL)
            json_array_append_new(out, json_pack("{s:s}", "fieldPath", path + (path[0] == '.')));
    }
    json_object_set_new(s, "x-kubernetes-selectable-fields", out);
}

/* The schema kube publishes, before the markers; NULL where it publishes a bare object. */
static json_t *
published_schema(const gw_custom_t *cu, bool v2)
{
    const json_t *in = cu->schema_json;
    json_t *s;
    bool crd_preserve = flag(json_object_get(cu->crd, "spec"), "preserveUnknownFields");

    if (!json_is_object(in) || has_invalid_types(in))
        return NULL;
    if (v2 && (crd_preserve || flag(in, "x-kubernetes-preserve-unknown-fields")))
        return NULL;
    s = structural(in, false);
    visit(s, unfold, v2);
    if (v2) {
        visit(s, to_v2, v2);
        visit(s, prune_default, v2);
    }
    add_type_meta(s);
    json_object_set_new(json_object_get(s, "properties"), "metadata", ref_to(META "ObjectMeta"));
    add_embedded(s, v2);
    return s;
}

static json_t *
kind_schema(const gw_resource_t *r, bool v2)
{
    json_t *s = published_schema(r->custom, v2), *out;

    if (s == NULL)
        s = json_pack("{s:s}", "type", "object");
    json_object_set_new(s, "x-kubernetes-group-version-kind", gvk(r, r->kind));
    add_selectable_fields(s, r->custom->version);
    out = sorted(s);
    json_decref(s);
    return out;
}

static json_t *
list_schema(const gw_resource_t *r, const char *kind_name)
{
    return json_pack("{s:{s:{s:s}, s:{s:{s:s}, s:s}, s:{s:s}, s:{s:s}}, s:[s], s:s, s:o}",
                     "properties", "apiVersion", "type", "string", "items", "items", "$ref",
                     kind_name, "type", "array", "kind", "type", "string", "metadata", "$ref",
                     META "ListMeta", "required", "items", "type", "object",
                     "x-kubernetes-group-version-kind", gvk(r, r->list_kind));
}

void
gw_openapi__custom_definitions(const gw_resource_t *r, bool v3, json_t *defs)
{
    char *kind_name = gw_openapi__custom_name(r->group, r->version, r->kind);
    char *list_name = gw_openapi__custom_name(r->group, r->version, r->list_kind);

    json_object_set_new(defs, kind_name, kind_schema(r, !v3));
    json_object_set_new(defs, list_name, list_schema(r, kind_name));
    free(kind_name);
    free(list_name);
}
