/*
 * Strategic merge patch: maps, directives and the patch metadata lookups. Follows kube's
 * mergeMap (k8s.io/apimachinery strategicpatch) step by step: the `$patch` directive of a map,
 * then `$retainKeys`, then the `$setElementOrder` lists, then each patch key in turn. Lists are
 * in gw_smp_list.c, Go's value semantics in gw_smp_go.c.
 */
#include "gw_smp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gw_alloc.h"
#include "gw_smp_int.h"

int
gw_smp__fail(gw_smp__t *s, gw_smp_status_t status, const char *fmt, ...)
{
    va_list ap;

    if (s->status != GW_SMP_OK)
        return -1;
    s->status = status;
    va_start(ap, fmt);
    vsnprintf(s->err, s->err_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- patch metadata ------------------------------------------------------------------------- */

/* The Go type name of a struct schema: its definition's last segment. */
static const char *
struct_name(const gw_schema_t *s)
{
    const char *dot = s->ref ? strrchr(s->ref, '.') : NULL;

    return dot ? dot + 1 : s->ref ? s->ref : "";
}

/* reflect.Kind of the Go type behind a schema, as kube's errors name it. */
static const char *
go_kind(const gw_schema_t *s)
{
    if (s == NULL)
        return "interface";
    switch (s->type) {
    case GW_SCHEMA_MAP:
        return "map";
    case GW_SCHEMA_ARRAY:
        return "slice";
    case GW_SCHEMA_STRING:
        return "string";
    case GW_SCHEMA_INTEGER:
        return s->format && strcmp(s->format, "int32") == 0 ? "int32" : "int64";
    case GW_SCHEMA_NUMBER:
        return "float64";
    case GW_SCHEMA_BOOLEAN:
        return "bool";
    case GW_SCHEMA_ANY:
        return s->ref ? "struct" : "interface";
    default:
        return "struct";
    }
}

/* The strategy without retainKeys (extractRetainKeysPatchStrategy): the server acts on the
 * $retainKeys directive wherever it is, never on the strategy. */
static void
set_strategy(gw_smp__meta_t *m, const gw_schema_t *field)
{
    const char *ps = field->patch_strategy;

    m->merge_key = field->patch_merge_key ? field->patch_merge_key : "";
    if (ps != NULL && strncmp(ps, "merge", 5) == 0)
        m->strategy = "merge";
    else if (ps != NULL && strcmp(ps, "replace") == 0)
        m->strategy = "replace";
}

/* A field of a struct: its JSON name, else (as Go's field lookup falls back to) any case. */
static const gw_schema_field_t *
find_field(const gw_schema_t *s, const char *key)
{
    const gw_schema_field_t *f = gw_schema_field(s, key);

    for (size_t i = 0; f == NULL && i < s->n_fields; i++) {
        if (strcasecmp(s->fields[i].name, key) == 0)
            f = &s->fields[i];
    }
    return f;
}

static int
no_field(gw_smp__t *s, const gw_schema_t *parent, const char *key)
{
    char *q = gw_go_quote(key);

    gw_smp__fail(s, GW_SMP_FAILED, "unable to find api field in struct %s for the json field %s",
                 struct_name(parent), q);
    free(q);
    return -1;
}

int
gw_smp__lookup_field(gw_smp__t *s, const gw_schema_t *parent, const char *key, gw_smp__meta_t *m)
{
    const gw_schema_field_t *f;

    *m = (gw_smp__meta_t){.strategy = "", .merge_key = "", .go_kind = "interface"};
    if (parent == NULL)
        return 0;
    if (parent->type == GW_SCHEMA_MAP ||
        (parent->type == GW_SCHEMA_OBJECT && parent->values && find_field(parent, key) == NULL)) {
        m->schema = parent->values;
    } else if (parent->type == GW_SCHEMA_OBJECT) {
        f = find_field(parent, key);
        if (f == NULL)
            return no_field(s, parent, key);
        m->schema = f->schema;
        set_strategy(m, f->schema);
    } else if (parent->type == GW_SCHEMA_ANY && parent->ref != NULL) {
        return no_field(s, parent, key); /* RawExtension, JSON: structs without JSON fields */
    }
    m->go_kind = go_kind(m->schema);
    return 0;
}

int
gw_smp__lookup_list(gw_smp__t *s, const gw_schema_t *parent, const char *key, gw_smp__meta_t *m)
{
    const gw_schema_t *list;

    if (gw_smp__lookup_field(s, parent, key, m) != 0)
        return -1;
    list = m->schema;
    if (list == NULL || (list->type == GW_SCHEMA_ANY && list->ref == NULL))
        return 0;
    if (list->type != GW_SCHEMA_ARRAY)
        return gw_smp__fail(s, GW_SMP_FAILED, "expected slice or array type, but got: %s",
                            go_kind(parent));
    if (list->items != NULL && list->items->type == GW_SCHEMA_ARRAY)
        return gw_smp__fail(s, GW_SMP_FAILED, "unexpected slice of slice");
    m->schema = list->items;
    m->go_kind = go_kind(m->schema);
    return 0;
}

/* ---- directives ----------------------------------------------------------------------------- */

static bool
has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* extractKey: "<prefix>/<name>" -> name (a new string), or NULL. */
static char *
directive_target(const char *key, const char *prefix)
{
    size_t n = strlen(prefix);

    if (strncmp(key, prefix, n) != 0 || key[n] != '/')
        return NULL;
    return gw_strdup(key + n + 1);
}

int
gw_smp__bad_type(gw_smp__t *s, const char *expected, const json_t *got)
{
    return gw_smp__fail(s, GW_SMP_FAILED, "expected a %s, but received a %s", expected,
                        gw_smp__go_type_name(got));
}

int
gw_smp__no_merge_key(gw_smp__t *s, const json_t *elem, const char *key)
{
    char *m = gw_go_value(elem);

    gw_smp__fail(s, GW_SMP_FAILED, "map: %s does not contain declared merge key: %s", m, key);
    free(m);
    return -1;
}

/* `$patch` in a map: replace takes the patch as it is, delete empties it. */
static int
map_directive(gw_smp__t *s, json_t *patch, json_t *directive, json_t **out)
{
    char *d, *m;

    if (gw_smp__is_str(directive, "replace")) {
        json_object_del(patch, GW_SMP_DIRECTIVE);
        *out = json_incref(patch);
        return 0;
    }
    if (gw_smp__is_str(directive, "delete")) {
        *out = json_object();
        return 0;
    }
    d = gw_go_string(directive);
    m = gw_go_value(patch);
    gw_smp__fail(s, GW_SMP_FAILED, "unknown patch type: %s in map: %s", d, m);
    free(d);
    free(m);
    return -1;
}

static bool
in_list(const json_t *list, const char *key)
{
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v)
    {
        if (gw_smp__is_str(v, key))
            return true;
    }
    return false;
}

/* $retainKeys: every key the patch sets must be listed; original keys not listed go. */
static int
retain_keys(gw_smp__t *s, json_t *orig, json_t *patch)
{
    json_t *keys = json_incref(json_object_get(patch, GW_SMP_RETAIN_KEYS)), *v, *tmp;
    const char *k;
    int rc = 0;

    if (keys == NULL)
        return 0;
    json_object_del(patch, GW_SMP_RETAIN_KEYS);
    if (!json_is_array(keys))
        rc = gw_smp__fail(s, GW_SMP_BAD_REQUEST, "invalid patch format of retainKeys");
    json_object_foreach(patch, k, v)
    {
        if (rc != 0 || json_is_null(v) || has_prefix(k, GW_SMP_DELETE_PREFIX) ||
            has_prefix(k, GW_SMP_ORDER_PREFIX))
            continue;
        if (!in_list(keys, k))
            rc = gw_smp__fail(s, GW_SMP_BAD_REQUEST, "invalid patch format of retainKeys");
    }
    json_object_foreach_safe(orig, tmp, k, v)
    {
        if (rc == 0 && !in_list(keys, k))
            json_object_del(orig, k);
    }
    json_decref(keys);
    return rc;
}

/* ---- $setElementOrder ----------------------------------------------------------------------- */

/* mergeKeyValueEqual of a patch element and an order element. */
static int
key_equal(gw_smp__t *s, const json_t *a, const json_t *b, const char *key, bool *eq)
{
    const json_t *pair[2] = {a, b};

    if (key[0] == '\0') {
        *eq = gw_smp__go_equal(a, b);
        return 0;
    }
    for (int i = 0; i < 2; i++) {
        if (!json_is_object(pair[i]))
            return gw_smp__bad_type(s, "map[string]interface {}", pair[i]);
        if (json_object_get(pair[i], key) == NULL)
            return gw_smp__no_merge_key(s, pair[i], key);
    }
    *eq = gw_smp__go_equal(json_object_get(a, key), json_object_get(b, key));
    return 0;
}

static bool
is_delete_elem(const json_t *v)
{
    return gw_smp__is_str(json_object_get(v, GW_SMP_DIRECTIVE), "delete");
}

/* The next element at or after i that is not a deletion (deletions are not ordered). */
static size_t
skip_deletes(const json_t *list, size_t i, const char *key)
{
    while (key[0] != '\0' && i < json_array_size(list) && is_delete_elem(json_array_get(list, i)))
        i++;
    return i;
}

/* validatePatchWithSetOrderList: the patch's elements (deletions aside) come in the order's
 * order and are all in it. */
static int
check_order(gw_smp__t *s, const json_t *list, const json_t *order, const char *key)
{
    size_t pi, oi = 0, n = json_array_size(list), no = json_array_size(order);
    bool eq = false;

    if (n == 0 || no == 0)
        return 0;
    for (size_t i = 0; key[0] != '\0' && i < n; i++) {
        if (!json_is_object(json_array_get(list, i)))
            return gw_smp__bad_type(s, "map[string]interface {}", json_array_get(list, i));
    }
    pi = skip_deletes(list, 0, key);
    while (pi < n && oi < no) {
        const json_t *v = json_array_get(list, pi);
        if (json_object_get(v, GW_SMP_DIRECTIVE) == NULL) {
            if (key_equal(s, v, json_array_get(order, oi++), key, &eq) != 0)
                return -1;
            if (!eq)
                continue;
        }
        pi = skip_deletes(list, pi + 1, key);
    }
    if (pi < n) {
        char *l = gw_go_value(list), *o = gw_go_value(order);
        gw_smp__fail(
            s, GW_SMP_FAILED,
            "the order in patch list:\n%s\n doesn't match " GW_SMP_ORDER_PREFIX " list:\n%s", l, o);
        free(l);
        free(o);
        return -1;
    }
    return 0;
}

/* The list a $setElementOrder orders, merged as the patch says (NULL when neither side has
 * it), and the original as the merge left it, which orders the server-only elements. */
static int
list_to_order(gw_smp__t *s, json_t *ol, json_t *pl, const gw_smp__meta_t *m, json_t **merged,
              json_t **server)
{
    *merged = *server = NULL;
    if (ol == NULL && pl == NULL)
        return 0;
    if (pl == NULL) {
        *merged = json_incref(ol);
        *server = json_incref(ol);
        return 0;
    }
    if (ol == NULL) {
        *merged = json_incref(pl);
        gw_smp__remove_directives(merged);
        *server = json_array();
        return 0;
    }
    return gw_smp__merge_list(s, ol, pl, m, false, merged, server);
}

/* One $setElementOrder/<name> (mergePatchIntoOriginal): the list merged, then put in the
 * directive's order, server-only elements where the original had them. */
static int
element_order(gw_smp__t *s, json_t *orig, json_t *patch, const char *name, json_t *order,
              const gw_schema_t *schema)
{
    json_t *ol = json_object_get(orig, name), *pl = json_object_get(patch, name);
    json_t *merged = NULL, *server = NULL, *both;
    gw_smp__meta_t m;
    bool maps;
    int rc = -1;

    if ((ol != NULL && !json_is_array(ol)) || (pl != NULL && !json_is_array(pl)))
        return gw_smp__bad_type(s, "[]interface {}", ol != NULL && !json_is_array(ol) ? ol : pl);
    if (gw_smp__lookup_list(s, schema, name, &m) != 0 ||
        check_order(s, pl, order, m.merge_key) != 0 ||
        list_to_order(s, ol, pl, &m, &merged, &server) != 0)
        goto out;
    rc = 0;
    if (merged == NULL)
        goto out;
    rc = -1;
    if (!gw_smp__elem_type(s, ol, pl, &maps) ||
        gw_smp__order(s, merged, order, server, m.merge_key, maps, &both) != 0)
        goto out;
    json_object_set_new(orig, name, both);
    json_object_del(patch, name);
    rc = 0;
out:
    json_decref(merged);
    json_decref(server);
    return rc;
}

/* A $setElementOrder key: the order must be a list and the key must name its list. */
static int
element_order_key(gw_smp__t *s, json_t *orig, json_t *patch, const char *key, json_t *order,
                  const gw_schema_t *schema)
{
    char *name;
    int rc;

    if (!json_is_array(order))
        return gw_smp__bad_type(s, "[]interface {}", order);
    name = directive_target(key, GW_SMP_ORDER_PREFIX);
    if (name == NULL)
        return gw_smp__fail(s, GW_SMP_BAD_REQUEST, "invalid patch format of setElementOrder list");
    rc = element_order(s, orig, patch, name, order, schema);
    free(name);
    return rc;
}

static int
element_orders(gw_smp__t *s, json_t *orig, json_t *patch, const gw_schema_t *schema)
{
    size_t n = 0, cap = json_object_size(patch);
    char **keys = gw_malloc((cap ? cap : 1) * sizeof(*keys));
    const char *k;
    json_t *v;
    int rc = 0;

    /* Collected first: handling one deletes its list from the patch too. */
    json_object_foreach(patch, k, v)
    {
        if (has_prefix(k, GW_SMP_ORDER_PREFIX))
            keys[n++] = gw_strdup(k);
    }
    for (size_t i = 0; i < n; i++) {
        json_t *order = json_incref(json_object_get(patch, keys[i]));
        if (rc == 0 && order != NULL) {
            json_object_del(patch, keys[i]);
            rc = element_order_key(s, orig, patch, keys[i], order, schema);
        }
        json_decref(order);
        free(keys[i]);
    }
    free(keys);
    return rc;
}

/* ---- fields --------------------------------------------------------------------------------- */

/* A patch value the original lacks (or holds with another type) is taken without its nulls and
 * `$patch` maps. */
static void
take(json_t *orig, const char *k, json_t *pv)
{
    json_t *v = json_incref(pv);

    gw_smp__discard_nulls(v);
    if (gw_smp__remove_directives(&v)) {
        json_object_set_new(orig, k, v);
        return;
    }
    json_decref(v);
    json_object_del(orig, k);
}

/* Both sides hold a map or both a list under k: merge them as the field's metadata says. */
static int
merge_same(gw_smp__t *s, json_t *ov, json_t *pv, const char *k, bool is_delete,
           const gw_schema_t *schema, json_t **out)
{
    gw_smp__meta_t m;

    if (json_is_object(ov)) {
        if (gw_smp__lookup_field(s, schema, k, &m) != 0)
            return -1;
        if (strcmp(m.strategy, "replace") == 0) {
            *out = json_incref(pv);
            return 0;
        }
        return gw_smp__merge_map(s, ov, pv, m.schema, out);
    }
    if (gw_smp__lookup_list(s, schema, k, &m) != 0)
        return -1;
    return gw_smp__merge_list(s, ov, pv, &m, is_delete, out, NULL);
}

static int
merge_field(gw_smp__t *s, json_t *orig, const char *key, json_t *pv, const gw_schema_t *schema)
{
    bool is_delete = has_prefix(key, GW_SMP_DELETE_PREFIX);
    char *name = is_delete ? directive_target(key, GW_SMP_DELETE_PREFIX) : NULL;
    const char *k = name != NULL && name[0] != '\0' ? name : key;
    json_t *ov = json_object_get(orig, k), *merged = NULL;
    bool same = ov != NULL && gw_smp__go_type(ov) == gw_smp__go_type(pv);
    int rc = 0;

    if (is_delete && name == NULL)
        rc = gw_smp__fail(s, GW_SMP_BAD_REQUEST, "invalid patch format of primitive list");
    else if (json_is_null(pv))
        json_object_del(orig, k);
    else if (same && (json_is_object(ov) || json_is_array(ov)))
        rc = merge_same(s, ov, pv, k, is_delete, schema, &merged);
    else if (same || !is_delete) /* a deletion list brings nothing new */
        take(orig, k, pv);
    if (merged != NULL)
        json_object_set_new(orig, k, merged);
    free(name);
    return rc;
}

int
gw_smp__merge_map(gw_smp__t *s, json_t *orig, json_t *patch, const gw_schema_t *schema,
                  json_t **out)
{
    json_t *directive = json_object_get(patch, GW_SMP_DIRECTIVE), *pv;
    const char *key;

    *out = NULL;
    if (directive != NULL)
        return map_directive(s, patch, directive, out);
    orig = orig != NULL ? json_incref(orig) : json_object();
    if (retain_keys(s, orig, patch) != 0 || element_orders(s, orig, patch, schema) != 0)
        goto fail;
    json_object_foreach(patch, key, pv)
    {
        if (merge_field(s, orig, key, pv, schema) != 0)
            goto fail;
    }
    *out = orig;
    return 0;
fail:
    json_decref(orig);
    return -1;
}

/* ---- the entry points ----------------------------------------------------------------------- */

/* What encoding/json says of a patch that is not an object. */
static const char *
json_kind(const json_t *v)
{
    return json_is_array(v)    ? "array"
           : json_is_string(v) ? "string"
           : json_is_number(v) ? "number"
                               : "bool";
}

json_t *
gw_smp_apply_ex(const json_t *original, const json_t *patch, const gw_schema_t *schema,
                gw_smp_status_t *status, json_t **patch_after, char *err, size_t err_len)
{
    gw_smp__t s = {.status = GW_SMP_OK, .err = err, .err_len = err_len};
    json_t *orig = json_is_object(original) ? json_deep_copy(original) : json_object();
    json_t *p = patch == NULL || json_is_null(patch) ? json_object() : json_deep_copy(patch);
    json_t *merged = NULL, *result = NULL;

    if (err_len > 0)
        err[0] = '\0';
    if (!json_is_object(p))
        gw_smp__fail(&s, GW_SMP_BAD_REQUEST,
                     "json: cannot unmarshal %s into Go value of type map[string]interface {}",
                     json_kind(p));
    else if (gw_smp__merge_map(&s, orig, p, schema, &merged) == 0)
        result = json_deep_copy(merged); /* apart from the patch values it shares */
    if (status != NULL)
        *status = s.status;
    if (patch_after != NULL)
        *patch_after = json_incref(p);
    json_decref(merged);
    json_decref(orig);
    json_decref(p);
    return result;
}

json_t *
gw_smp_apply(const json_t *original, const json_t *patch, const gw_schema_t *schema, char *err,
             size_t err_len)
{
    return gw_smp_apply_ex(original, patch, schema, NULL, NULL, err, err_len);
}
