/*
 * kube-apiserver's mutation library (k8s.io/apiserver/pkg/cel/mutation and library/jsonpatch.go):
 * the struct types admission mutations construct, `Object` with its per-field-path types
 * `Object.spec`, `Object.spec.template`, ... and `JSONPatch`, and `jsonpatch.escapeKey`.
 *
 * A constructed value is a map (its fields by name, as written) that carries its type name in
 * the map itself (cel_map.objtype): hosts tell an apply configuration from a map by it, and
 * type() reports it.
 */
#include <string.h>

#include "cel_int.h"

#define OBJECT_NAME "Object"
#define JSONPATCH_NAME "JSONPatch"

static const cel__field_t jsonpatch_fields[] = {
    {"op", "op", &cel__t_string, false},
    {"path", "path", &cel__t_string, false},
    {"from", "from", &cel__t_string, false},
    {"value", "value", &cel__t_dyn, false},
};

static const cel_decltype_t jsonpatch_type = {
    .kind = CEL__TK_OBJECT,
    .name = JSONPATCH_NAME,
    .fields = jsonpatch_fields,
    .nfields = 4,
};

static const char *
strip_dot(const char *name)
{
    return name[0] == '.' ? name + 1 : name;
}

int
cel__mutation_kind(const cel_env_t *env, const char *name)
{
    if (!cel__env_mutation(env, NULL))
        return CEL__M_NONE;
    name = strip_dot(name);
    if (strcmp(name, JSONPATCH_NAME) == 0)
        return CEL__M_JSONPATCH;
    size_t n = strlen(OBJECT_NAME);
    if (strncmp(name, OBJECT_NAME, n) == 0 && (name[n] == '\0' || name[n] == '.'))
        return CEL__M_OBJECT;
    return CEL__M_NONE;
}

/* `t` renamed `name`: the schema's object type seen as the mutation library's `Object.<path>`;
 * lists and maps are stepped through, so their elements take the path's name too. */
static const cel_decltype_t *
renamed(cel_arena_t *a, const cel_decltype_t *t, const char *name)
{
    cel_decltype_t *r;
    switch (t->kind) {
    case CEL__TK_OBJECT:
        r = cel_arena_alloc(a, sizeof(*r));
        *r = *t;
        r->name = name;
        return r;
    case CEL__TK_LIST:
        return cel__ty_new(a, CEL__TK_LIST, renamed(a, t->p[0], name), NULL);
    case CEL__TK_MAP:
        return cel__ty_new(a, CEL__TK_MAP, t->p[0], renamed(a, t->p[1], name));
    default:
        return t;
    }
}

/* The schema type's object at field path `path` (dot-separated, after "Object"): lists' and
 * maps' values stepped through; NULL when the path leaves the schema or ends elsewhere. */
static const cel_decltype_t *
typed_at(const cel_decltype_t *t, const char *path)
{
    while (t != NULL && *path != '\0') {
        const char *dot = strchr(path, '.');
        size_t len = dot != NULL ? (size_t)(dot - path) : strlen(path);
        const cel__field_t *f = t->kind == CEL__TK_OBJECT ? cel__ty_field(t, path, len) : NULL;
        t = f != NULL ? f->type : NULL;
        while (t != NULL && (t->kind == CEL__TK_LIST || t->kind == CEL__TK_MAP))
            t = t->kind == CEL__TK_LIST ? t->p[0] : t->p[1];
        path += len + (dot != NULL);
    }
    return t != NULL && t->kind == CEL__TK_OBJECT ? t : NULL;
}

const cel_decltype_t *
cel__mutation_type(const cel_env_t *env, cel_arena_t *a, const char *name)
{
    const cel_decltype_t *root;
    switch (cel__mutation_kind(env, name)) {
    case CEL__M_JSONPATCH:
        return &jsonpatch_type;
    case CEL__M_OBJECT:
        break;
    default:
        return NULL;
    }
    name = strip_dot(name);
    cel__env_mutation(env, &root);
    if (root != NULL) {
        const char *path = name + strlen(OBJECT_NAME);
        const cel_decltype_t *t = typed_at(root, *path == '.' ? path + 1 : path);
        return t != NULL ? renamed(a, t, name) : NULL;
    }
    cel_decltype_t *t = cel__ty_new(a, CEL__TK_OBJECT, NULL, NULL);
    t->name = name;
    t->open = true;
    return t;
}

const cel_decltype_t *
cel__mutation_field(const cel_env_t *env, cel_arena_t *a, const cel_decltype_t *t, const char *f)
{
    (void)env;
    const cel__field_t *field = cel__ty_field(t, f, strlen(f));
    if (field == NULL)
        return t->open ? &cel__t_dyn : NULL;
    if (t == &jsonpatch_type)
        return field->type;
    return renamed(a, field->type, cel__arena_sprintf(a, "%s.%s", t->name, f));
}

/* ---- Evaluation ----------------------------------------------------------------------------- */

/* Go's %T of what a value's Value() is in cel-go, for kube's JSONPatch field messages. */
static const char *
go_type(const cel_value_t *v)
{
    switch (v->kind) {
    case CEL_NULL:
        return "structpb.NullValue";
    case CEL_BOOL:
        return "bool";
    case CEL_INT:
        return "int64";
    case CEL_UINT:
        return "uint64";
    case CEL_DOUBLE:
        return "float64";
    case CEL_STRING:
        return "string";
    case CEL_BYTES:
        return "[]uint8";
    case CEL_LIST:
        return "[]ref.Val";
    case CEL_MAP:
        return cel_value_object_name(v) != NULL ? "map[string]interface {}" : "map[ref.Val]ref.Val";
    case CEL_TIMESTAMP:
        return "time.Time";
    case CEL_DURATION:
        return "time.Duration";
    case CEL_OPTIONAL:
        return "*types.Optional";
    default:
        return cel_value_type(v)->name;
    }
}

/* kube's JSONPatchType.Val: the known fields, op, path and from strings. */
static cel_value_t
jsonpatch_field_ok(cel__eval_t *ev, const char *f, const cel_value_t *v)
{
    if (strcmp(f, "value") == 0)
        return cel_null();
    if (strcmp(f, "op") != 0 && strcmp(f, "path") != 0 && strcmp(f, "from") != 0)
        return cel__err(ev, "unexpected JSONPatchType field: %s", f);
    if (v->kind != CEL_STRING)
        return cel__err(ev, "unexpected type %s for JSONPatchType '%s' field", go_type(v), f);
    return cel_null();
}

cel_value_t
cel__mutation_construct(cel__eval_t *ev, const cel__node_t *n)
{
    cel_map_t *m = cel__map_new(ev->arena, (size_t)n->u.map.n);
    m->objtype.name = strip_dot(n->u.map.type_name);
    m->objtype.kind = CEL_MAP;
    for (int i = 0; i < n->u.map.n; i++) {
        cel_value_t v = cel__eval_node(ev, n->u.map.vals[i]);
        if (v.kind == CEL_ERROR)
            return v;
        if (n->u.map.optional[i]) {
            if (v.kind != CEL_OPTIONAL)
                return cel__no_overload(ev, "optional field", &v, 1);
            if (v.v.opt == NULL)
                continue;
            v = *v.v.opt;
        }
        cel_value_t key = n->u.map.keys[i]->u.constant;
        if (n->u.map.mtype == CEL__M_JSONPATCH) {
            cel_value_t bad = jsonpatch_field_ok(ev, key.v.str.data, &v);
            if (bad.kind == CEL_ERROR)
                return bad;
        }
        if (!cel__map_put(ev->arena, m, key, v))
            return cel__err(ev, "Failed with repeated key");
    }
    return cel__map_value(m);
}

const char *
cel_value_object_name(const cel_value_t *v)
{
    if (v->kind != CEL_MAP || (v->flags & CEL_VF_JSON))
        return NULL;
    return v->v.map->objtype.name;
}

/* ---- jsonpatch.escapeKey ----------------------------------------------------------------- */

/* RFC 6901's escaping of a key for a JSON pointer: "~" as "~0", "/" as "~1". */
static cel_value_t
escape_key_fn(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "jsonpatch.escapeKey", a, n);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    cel__buf_t b;
    cel__buf_init(&b, ev->arena, a[0].v.str.len + 8);
    for (size_t i = 0; i < a[0].v.str.len; i++) {
        char c = a[0].v.str.data[i];
        if (c == '~' || c == '/')
            cel__buf_put(&b, c == '~' ? "~0" : "~1", 2);
        else
            cel__buf_putc(&b, c);
    }
    return cel__buf_string(&b);
}

const cel__fn_t cel__jsonpatch_fns[] = {
    {"jsonpatch.escapeKey", false, 1, 1, escape_key_fn},
    {NULL, false, 0, 0, NULL},
};
