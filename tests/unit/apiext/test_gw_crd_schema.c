/* Unit tests for gateway/apiext/gw_crd_schema.c: a CRD's openAPIV3Schema compiled into catalog
 * schema nodes (shapes, markers, the root's and embedded resources' type and object metadata)
 * with the value rules beside them. */
#include "crd_test_util.h"
#include "gw_err.h"

static const gw_schema_t *
child(const gw_schema_t *s, const char *name)
{
    const gw_schema_field_t *f = s != NULL ? gw_schema_field(s, name) : NULL;
    return f != NULL ? f->schema : NULL;
}

static void
test_shapes(gw_arena_t *a)
{
    const gw_schema_t *root =
        compile(a, "{\"type\":\"object\",\"required\":[\"spec\"],\"properties\":{"
                   "\"spec\":{\"type\":\"object\",\"required\":[\"b\",\"a\"],\"properties\":{"
                   "\"z\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\",\"format\":\"int32\"},"
                   "\"a\":{\"type\":\"number\"},\"on\":{\"type\":\"boolean\"},"
                   "\"m\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
                   "\"l\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
                   "\"n\":{\"type\":\"string\"}}}},"
                   "\"ios\":{\"x-kubernetes-int-or-string\":true},"
                   "\"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true},"
                   "\"raw\":{\"x-kubernetes-preserve-unknown-fields\":true}}}}}");
    const gw_schema_t *spec = child(root, "spec");
    tap_ok(root->type == GW_SCHEMA_OBJECT && root->rules != NULL, "the root is an object");
    tap_ok(root->n_required == 1 && strcmp(root->required[0], "spec") == 0, "its required");
    tap_ok(spec != NULL && spec->type == GW_SCHEMA_OBJECT && spec->n_fields == 9,
           "properties become fields");
    int sorted = spec != NULL;
    for (size_t i = 1; spec != NULL && i < spec->n_fields; i++)
        sorted &= strcmp(spec->fields[i - 1].name, spec->fields[i].name) < 0;
    tap_ok(sorted, "sorted by name, for gw_schema_field's search");
    tap_ok(spec->n_required == 2 && strcmp(spec->required[0], "b") == 0, "required as written");
    tap_ok(child(spec, "z")->type == GW_SCHEMA_STRING &&
               child(spec, "a")->type == GW_SCHEMA_NUMBER &&
               child(spec, "on")->type == GW_SCHEMA_BOOLEAN,
           "scalars");
    tap_ok(child(spec, "b")->type == GW_SCHEMA_INTEGER &&
               strcmp(child(spec, "b")->format, "int32") == 0 &&
               child(spec, "b")->rules->format == NULL,
           "an integer keeps its format on the node; int32 is no format kube validates");
    tap_ok(strcmp(child(spec, "ios")->rules->type, "integer,string") == 0,
           "int-or-string is validated as integer or string");
    const gw_schema_t *m = child(spec, "m"), *l = child(spec, "l");
    tap_ok(m->type == GW_SCHEMA_MAP && m->values->type == GW_SCHEMA_STRING,
           "additionalProperties: a map");
    tap_ok(l->type == GW_SCHEMA_ARRAY && l->items->type == GW_SCHEMA_OBJECT &&
               child(l->items, "n") != NULL,
           "an array of objects");
    tap_ok(child(spec, "ios")->type == GW_SCHEMA_INT_OR_STRING, "int-or-string");
    tap_ok(child(spec, "free")->type == GW_SCHEMA_OBJECT && child(spec, "free")->preserve_unknown,
           "a preserving object");
    tap_ok(child(spec, "raw")->type == GW_SCHEMA_ANY && child(spec, "raw")->preserve_unknown,
           "preserve-unknown-fields without a type: anything");
}

static void
test_metadata(gw_arena_t *a)
{
    const gw_schema_t *root = compile(
        a, "{\"type\":\"object\",\"properties\":{\"metadata\":{\"type\":\"object\",\"properties\":"
           "{\"name\":{\"type\":\"string\",\"maxLength\":3}}},\"apiVersion\":{\"type\":"
           "\"integer\"},\"spec\":{\"type\":\"object\",\"properties\":{\"template\":{\"type\":"
           "\"object\",\"x-kubernetes-embedded-resource\":true,"
           "\"x-kubernetes-preserve-unknown-fields\":true}}}}}");
    tap_ok(child(root, "metadata") == objmeta(), "the root's metadata is ObjectMeta, whatever "
                                                 "the schema says");
    tap_ok(child(root, "apiVersion")->type == GW_SCHEMA_STRING &&
               child(root, "kind")->type == GW_SCHEMA_STRING,
           "apiVersion and kind are strings");
    tap_is_int(root->n_fields, 4, "apiVersion, kind, metadata and spec");
    tap_ok(root->rules->metadata != NULL && root->rules->metadata->rules != NULL &&
               root->rules->metadata->rules->max_length == -1 &&
               gw_schema_field(root->rules->metadata, "name")->schema->rules->max_length == 3,
           "the schema's own metadata rules are kept for validation");
    const gw_schema_t *t = child(child(root, "spec"), "template");
    tap_ok(t->embedded_resource && t->preserve_unknown && child(t, "metadata") == objmeta() &&
               child(t, "kind") != NULL && child(t, "apiVersion") != NULL,
           "an embedded resource gets them too");

    const gw_schema_t *none = NULL;
    char err[128];
    tap_is_int(gw_crd_schema_compile(a, NULL, objmeta(), &none, err, sizeof(err)), 0,
               "a version without schema compiles");
    tap_ok(none->type == GW_SCHEMA_OBJECT && none->preserve_unknown &&
               child(none, "metadata") == objmeta(),
           "  to an object that keeps everything, with ObjectMeta");
}

static void
test_rules(gw_arena_t *a)
{
    const gw_schema_t *root = compile(
        a, "{\"type\":\"object\",\"properties\":{"
           "\"s\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"pattern\":\"^a\",\"minLength\":1,"
           "\"maxLength\":9,\"format\":\"date-time\",\"default\":\"a\"},"
           "\"n\":{\"type\":\"number\",\"minimum\":1.5,\"exclusiveMinimum\":true,\"maximum\":9,"
           "\"multipleOf\":0.5,\"format\":\"double\"},"
           "\"l\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":3,\"uniqueItems\":true,"
           "\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"k\"],"
           "\"items\":{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"string\"}}}},"
           "\"o\":{\"type\":\"object\",\"minProperties\":1,\"maxProperties\":2,\"nullable\":true,"
           "\"x-kubernetes-map-type\":\"atomic\",\"x-kubernetes-validations\":[{\"rule\":"
           "\"self.size() > 0\"}],\"additionalProperties\":{\"type\":\"string\"},"
           "\"allOf\":[{\"minProperties\":1}],\"anyOf\":[{\"required\":[\"x\"]},{}],"
           "\"oneOf\":[{\"maxProperties\":1}],\"not\":{\"required\":[\"y\"]}},"
           "\"bad\":{\"type\":\"string\",\"pattern\":\"(\",\"format\":\"colour\"}}}");
    const struct gw_schema_rules *s = child(root, "s")->rules, *n = child(root, "n")->rules;
    tap_ok(json_array_size(s->enum_values) == 2 && s->pattern_re != NULL &&
               strcmp(s->pattern, "^a") == 0 && s->min_length == 1 && s->max_length == 9,
           "string rules");
    tap_ok(strcmp(s->format, "date-time") == 0, "a supported string format is kept");
    tap_ok(json_is_string(s->default_value), "the default");
    tap_ok(n->has_minimum && n->exclusive_minimum && n->minimum == 1.5 && n->has_maximum &&
               !n->exclusive_maximum && n->has_multiple_of && n->multiple_of == 0.5,
           "number rules");
    tap_ok(n->format == NULL && strcmp(child(root, "n")->format, "double") == 0,
           "a format kube does not check is dropped from the rules, kept on the node");
    const gw_schema_t *l = child(root, "l"), *o = child(root, "o");
    tap_ok(l->rules->min_items == 1 && l->rules->max_items == 3 && l->rules->unique_items &&
               strcmp(l->list_type, "map") == 0 && l->n_list_map_keys == 1,
           "array rules and list markers");
    tap_ok(o->nullable && o->rules->min_properties == 1 && o->rules->max_properties == 2 &&
               strcmp(o->map_type, "atomic") == 0 && json_array_size(o->rules->validations) == 1,
           "object rules, nullable, map type, CEL rules kept raw");
    tap_ok(o->rules->n_all_of == 1 && o->rules->n_any_of == 2 && o->rules->n_one_of == 1 &&
               o->rules->not_schema != NULL && o->rules->any_of[0]->n_required == 1 &&
               o->rules->any_of[0]->rules != NULL,
           "value validations compile to nodes with rules");
    tap_ok(l->rules->max_length == -1 && l->rules->min_properties == -1 && !l->rules->has_maximum,
           "what is not stated is absent");
    const struct gw_schema_rules *bad = child(root, "bad")->rules;
    tap_ok(bad->pattern_re == NULL && bad->pattern_error != NULL && bad->format == NULL,
           "a pattern that does not compile is kept with PCRE2's reason; an unknown format "
           "dropped");
}

static void
test_refusals(gw_arena_t *a)
{
    char err[128] = "";
    const gw_schema_t *s = NULL;
    json_t *arr = parse("[1,2]");
    tap_is_int(gw_crd_schema_compile(a, arr, objmeta(), &s, err, sizeof(err)), GW_EINVAL,
               "a schema that is not an object is refused");
    tap_ok(s == NULL && strlen(err) > 0, "  with a reason");
    json_decref(arr);

    json_t *deep = json_object(), *at = deep;
    for (int i = 0; i < 600; i++) {
        json_t *props = json_object(), *next = json_object();
        json_object_set_new(at, "type", json_string("object"));
        json_object_set_new(at, "properties", props);
        json_object_set_new(props, "x", next);
        at = next;
    }
    tap_is_int(gw_crd_schema_compile(a, deep, objmeta(), &s, err, sizeof(err)), GW_EINVAL,
               "a schema nested beyond the limit is refused");
    json_decref(deep);

    json_t *odd = parse("{\"type\":7,\"properties\":[1],\"items\":\"x\",\"required\":[1,\"a\"],"
                        "\"enum\":{},\"allOf\":{},\"anyOf\":[5,{\"type\":\"array\"}],"
                        "\"maxLength\":-4,\"x-kubernetes-embedded-resource\":true}");
    tap_is_int(gw_crd_schema_compile(a, odd, objmeta(), &s, err, sizeof(err)), 0,
               "odd members compile to something safe");
    tap_ok(s->type == GW_SCHEMA_OBJECT && s->n_required == 1 && s->rules->n_any_of == 2 &&
               s->rules->max_length == 0,
           "  keeping what makes sense");
    json_decref(odd);
}

int
main(void)
{
    gw_arena_t *a = gw_arena_new();
    test_shapes(a);
    test_metadata(a);
    test_rules(a);
    test_refusals(a);
    gw_arena_free(a);
    return tap_done();
}
