/* A CRD's openAPIV3Schema compiled into catalog schema nodes with their value rules, as kube's
 * apiextensions-apiserver reads it (structural.go's shape, convert.go's value validations,
 * formats.go's supported formats). */
#include "gw_crd_schema.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_crd_schema_int.h"
#include "gw_err.h"

/* Deeper schemas than this are refused (kube's JSON decoding stops far below recursion
   trouble; so do we). */
#define MAX_DEPTH 512

typedef struct {
    gw_arena_t *a;
    const gw_schema_t *objmeta;
    char *err;
    size_t err_len;
    int depth;
    bool failed;
} compiler_t;

static const gw_schema_t string_node = {.type = GW_SCHEMA_STRING};
static const gw_schema_t any_node = {.type = GW_SCHEMA_ANY};

static gw_schema_t *compile_node(compiler_t *c, const json_t *j);

static const char *
member_str(const json_t *j, const char *key)
{
    return json_string_value(json_object_get(j, key));
}

/* Keep j alive as long as the arena. */
static const json_t *
keep(compiler_t *c, const json_t *j)
{
    if (j == NULL)
        return NULL;
    json_t *held = json_incref((json_t *)j);
    gw_arena_defer(c->a, (void (*)(void *))json_decref, held);
    return held;
}

/* ---- value rules -------------------------------------------------------------------------- */

static int64_t
opt_count(const json_t *j, const char *key)
{
    const json_t *v = json_object_get(j, key);
    if (json_is_integer(v))
        return json_integer_value(v) < 0 ? 0 : json_integer_value(v);
    return -1;
}

static bool
opt_number(const json_t *j, const char *key, double *out)
{
    const json_t *v = json_object_get(j, key);
    if (!json_is_number(v))
        return false;
    *out = json_number_value(v);
    return true;
}

static void
free_code(void *code)
{
    pcre2_code_free(code);
}

static void
compile_pattern(compiler_t *c, struct gw_schema_rules *r, const char *pattern)
{
    int rc;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &rc, &off, NULL);
    r->pattern = gw_arena_strdup(c->a, pattern);
    if (re == NULL) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(rc, msg, sizeof(msg));
        r->pattern_error = gw_arena_strdup(c->a, (const char *)msg);
        return;
    }
    gw_arena_defer(c->a, free_code, re);
    r->pattern_re = (const struct pcre2_real_code_8 *)re;
}

/* allOf, anyOf, oneOf: each entry a value-validation node. */
static const gw_schema_t *const *
compile_list(compiler_t *c, const json_t *arr, size_t *n)
{
    *n = json_array_size(arr);
    if (*n == 0)
        return NULL;
    const gw_schema_t **out = gw_arena_calloc(c->a, *n * sizeof(*out));
    for (size_t i = 0; i < *n; i++)
        out[i] = compile_node(c, json_array_get(arr, i));
    return out;
}

static void
compile_bounds(struct gw_schema_rules *r, const json_t *j)
{
    r->has_maximum = opt_number(j, "maximum", &r->maximum);
    r->has_minimum = opt_number(j, "minimum", &r->minimum);
    r->has_multiple_of = opt_number(j, "multipleOf", &r->multiple_of);
    r->exclusive_maximum = json_is_true(json_object_get(j, "exclusiveMaximum"));
    r->exclusive_minimum = json_is_true(json_object_get(j, "exclusiveMinimum"));
    r->max_length = opt_count(j, "maxLength");
    r->min_length = opt_count(j, "minLength");
    r->max_items = opt_count(j, "maxItems");
    r->min_items = opt_count(j, "minItems");
    r->max_properties = opt_count(j, "maxProperties");
    r->min_properties = opt_count(j, "minProperties");
    r->unique_items = json_is_true(json_object_get(j, "uniqueItems"));
}

static struct gw_schema_rules *
compile_rules(compiler_t *c, const json_t *j)
{
    struct gw_schema_rules *r = gw_arena_calloc(c->a, sizeof(*r));
    const json_t *v;
    const char *type = member_str(j, "type"), *pattern = member_str(j, "pattern");
    r->type = type != NULL && type[0] != '\0' ? gw_arena_strdup(c->a, type) : NULL;
    if (json_is_true(json_object_get(j, "x-kubernetes-int-or-string")))
        r->type = "integer,string"; /* as convert.go states it for the validator */
    const char *format = gw_crd__supported_format(member_str(j, "format"));
    r->format = format != NULL ? gw_arena_strdup(c->a, format) : NULL;
    compile_bounds(r, j);
    if (json_is_array(v = json_object_get(j, "enum")))
        r->enum_values = keep(c, v);
    if ((v = json_object_get(j, "default")) != NULL && !json_is_null(v))
        r->default_value = keep(c, v);
    if (json_is_array(v = json_object_get(j, "x-kubernetes-validations")))
        r->validations = keep(c, v);
    if (pattern != NULL)
        compile_pattern(c, r, pattern);
    r->all_of = compile_list(c, json_object_get(j, "allOf"), &r->n_all_of);
    r->any_of = compile_list(c, json_object_get(j, "anyOf"), &r->n_any_of);
    r->one_of = compile_list(c, json_object_get(j, "oneOf"), &r->n_one_of);
    if (json_is_object(v = json_object_get(j, "not")))
        r->not_schema = compile_node(c, v);
    return r;
}

/* ---- structure ---------------------------------------------------------------------------- */

static int
by_name(const void *x, const void *y)
{
    return strcmp(((const gw_schema_field_t *)x)->name, ((const gw_schema_field_t *)y)->name);
}

static void
compile_fields(compiler_t *c, gw_schema_t *s, const json_t *props)
{
    const char *name;
    const json_t *v;
    size_t n = 0;
    gw_schema_field_t *fields =
        gw_arena_calloc(c->a, (json_object_size(props) + 1) * sizeof(*fields));
    json_object_foreach((json_t *)props, name, v)
    {
        fields[n].name = gw_arena_strdup(c->a, name);
        fields[n++].schema = compile_node(c, v);
    }
    qsort(fields, n, sizeof(*fields), by_name);
    s->fields = fields;
    s->n_fields = n;
}

static const char *const *
compile_strings(compiler_t *c, const json_t *arr, size_t *n)
{
    const char **out = gw_arena_calloc(c->a, (json_array_size(arr) + 1) * sizeof(*out));
    *n = 0;
    for (size_t i = 0; i < json_array_size(arr); i++)
        if (json_is_string(json_array_get(arr, i)))
            out[(*n)++] = gw_arena_strdup(c->a, json_string_value(json_array_get(arr, i)));
    return *n > 0 ? out : NULL;
}

/* The apiVersion, kind and metadata of a resource (the root, an embedded resource), whatever
   the schema said of them. */
static void
add_type_meta(compiler_t *c, gw_schema_t *s)
{
    static const char *const names[] = {"apiVersion", "kind", "metadata"};
    gw_schema_field_t *fields = gw_arena_calloc(c->a, (s->n_fields + 3) * sizeof(*fields));
    size_t n = 0;
    for (size_t i = 0; i < s->n_fields; i++)
        if (strcmp(s->fields[i].name, "apiVersion") != 0 &&
            strcmp(s->fields[i].name, "kind") != 0 && strcmp(s->fields[i].name, "metadata") != 0)
            fields[n++] = s->fields[i];
    for (size_t i = 0; i < 3; i++)
        fields[n++] = (gw_schema_field_t){names[i], i < 2 ? &string_node : c->objmeta};
    qsort(fields, n, sizeof(*fields), by_name);
    s->fields = fields;
    s->n_fields = n;
}

static const gw_schema_t *
compile_child(compiler_t *c, const json_t *j)
{
    return json_is_object(j) ? compile_node(c, j) : &any_node;
}

/* The node's structural type: the declared one, else what its members imply (value
   validations state no type). */
static void
compile_shape(compiler_t *c, gw_schema_t *s, const json_t *j)
{
    const char *type = member_str(j, "type");
    const json_t *props = json_object_get(j, "properties");
    const json_t *addl = json_object_get(j, "additionalProperties");
    bool object = type != NULL ? strcmp(type, "object") == 0 : json_is_object(props);
    if (json_is_true(json_object_get(j, "x-kubernetes-int-or-string"))) {
        s->type = GW_SCHEMA_INT_OR_STRING;
    } else if (object || (type == NULL && json_is_object(addl))) {
        s->type = json_object_size(props) == 0 && (json_is_object(addl) || json_is_true(addl))
                      ? GW_SCHEMA_MAP
                      : GW_SCHEMA_OBJECT;
        if (json_is_object(props))
            compile_fields(c, s, props);
        if (json_is_object(addl) || json_is_true(addl))
            s->values = compile_child(c, addl);
    } else if (type != NULL ? strcmp(type, "array") == 0 : json_object_get(j, "items") != NULL) {
        s->type = GW_SCHEMA_ARRAY;
        s->items = compile_child(c, json_object_get(j, "items"));
    } else {
        s->type = type == NULL                   ? GW_SCHEMA_ANY
                  : strcmp(type, "string") == 0  ? GW_SCHEMA_STRING
                  : strcmp(type, "integer") == 0 ? GW_SCHEMA_INTEGER
                  : strcmp(type, "number") == 0  ? GW_SCHEMA_NUMBER
                  : strcmp(type, "boolean") == 0 ? GW_SCHEMA_BOOLEAN
                                                 : GW_SCHEMA_ANY;
    }
}

static void
compile_markers(compiler_t *c, gw_schema_t *s, const json_t *j)
{
    const char *v;
    if ((v = member_str(j, "format")) != NULL)
        s->format = gw_arena_strdup(c->a, v);
    if ((v = member_str(j, "x-kubernetes-list-type")) != NULL)
        s->list_type = gw_arena_strdup(c->a, v);
    if ((v = member_str(j, "x-kubernetes-map-type")) != NULL)
        s->map_type = gw_arena_strdup(c->a, v);
    s->list_map_keys =
        compile_strings(c, json_object_get(j, "x-kubernetes-list-map-keys"), &s->n_list_map_keys);
    s->required = compile_strings(c, json_object_get(j, "required"), &s->n_required);
    s->nullable = json_is_true(json_object_get(j, "nullable"));
    s->preserve_unknown = json_is_true(json_object_get(j, "x-kubernetes-preserve-unknown-fields"));
    s->embedded_resource = json_is_true(json_object_get(j, "x-kubernetes-embedded-resource"));
}

static gw_schema_t *
compile_node(compiler_t *c, const json_t *j)
{
    gw_schema_t *s = gw_arena_calloc(c->a, sizeof(*s));
    if (++c->depth > MAX_DEPTH) {
        if (!c->failed)
            snprintf(c->err, c->err_len, "schema nesting exceeds %d levels", MAX_DEPTH);
        c->failed = true;
    }
    if (c->failed || !json_is_object(j)) { /* a node kube would refuse: no rules */
        s->type = GW_SCHEMA_ANY;
        s->rules = compile_rules(c, NULL);
        c->depth--;
        return s;
    }
    compile_shape(c, s, j);
    compile_markers(c, s, j);
    struct gw_schema_rules *r = compile_rules(c, j);
    const gw_schema_field_t *own = gw_schema_field(s, "metadata");
    if ((c->depth == 1 || s->embedded_resource) && own != NULL) /* a resource */
        r->metadata = own->schema;
    s->rules = r;
    if (s->embedded_resource) {
        if (s->type != GW_SCHEMA_OBJECT) /* kube requires type object; keep the shape safe */
            *s = (gw_schema_t){.type = GW_SCHEMA_OBJECT,
                               .embedded_resource = true,
                               .preserve_unknown = s->preserve_unknown,
                               .nullable = s->nullable,
                               .required = s->required,
                               .n_required = s->n_required,
                               .rules = s->rules};
        add_type_meta(c, s);
    }
    c->depth--;
    return s;
}

int
gw_crd_schema_compile(gw_arena_t *a, const json_t *props, const gw_schema_t *objmeta,
                      const gw_schema_t **out, char *err, size_t err_len)
{
    compiler_t c = {.a = a, .objmeta = objmeta, .err = err, .err_len = err_len};
    gw_schema_t *root;
    *out = NULL;
    if (props != NULL && !json_is_object(props)) {
        snprintf(err, err_len, "openAPIV3Schema must be an object");
        return GW_EINVAL;
    }
    if (props == NULL) {
        root = gw_arena_calloc(a, sizeof(*root));
        root->preserve_unknown = true;
    } else {
        root = compile_node(&c, props);
    }
    if (c.failed)
        return GW_EINVAL;
    if (root->type != GW_SCHEMA_OBJECT) { /* a root map, or a schema without shape */
        const gw_schema_t *values = root->type == GW_SCHEMA_MAP ? root->values : NULL;
        gw_schema_t copy = *root;
        *root = (gw_schema_t){.values = values,
                              .preserve_unknown = copy.preserve_unknown,
                              .required = copy.required,
                              .n_required = copy.n_required,
                              .rules = copy.rules};
        root->type = GW_SCHEMA_OBJECT;
    }
    add_type_meta(&c, root);
    *out = root;
    return 0;
}
