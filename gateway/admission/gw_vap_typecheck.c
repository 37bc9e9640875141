/* The status controller's type check of a policy against the kinds it matches. */
#include "gw_vap_typecheck.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_arena.h"
#include "gw_buf.h"
#include "gw_schema_cel.h"
#include "gw_vap_compile.h"
#include "gw_vap_snapshot.h"

#define MAX_TYPES 10 /* kube's maxTypesToCheck */

typedef struct {
    const char *group, *version, *kind;
    const gw_schema_t *schema;
} gvk_t;

typedef struct {
    gvk_t items[MAX_TYPES];
    size_t n;
    int resolved; /* counts repeats too, as kube's early return does */
} gvks_t;

/* The strings of a rule's list, sorted; NULL when one contains a character of `reject_all`,
 * and those with a character of `skip` left out. Caller frees the array. */
static const char **
rule_strings(const json_t *list, const char *reject_all, const char *skip, size_t *n)
{
    const char **out = gw_calloc(json_array_size(list) + 1, sizeof(*out));
    size_t i, k = 0;
    const json_t *v;
    json_array_foreach(list, i, v)
    {
        const char *s = json_string_value(v);
        if (s == NULL)
            continue;
        if (reject_all != NULL && strpbrk(s, reject_all) != NULL) {
            free(out);
            return NULL;
        }
        if (skip == NULL || strpbrk(s, skip) == NULL)
            out[k++] = s;
    }
    for (size_t a = 1; a < k; a++) /* insertion sort: rules are short */
        for (size_t b = a; b > 0 && strcmp(out[b - 1], out[b]) > 0; b--) {
            const char *t = out[b];
            out[b] = out[b - 1];
            out[b - 1] = t;
        }
    *n = k;
    return out;
}

static int
gvk_cmp(const void *pa, const void *pb)
{
    const gvk_t *a = pa, *b = pb;
    int c = strcmp(a->group, b->group);
    if (c == 0)
        c = strcmp(a->version, b->version);
    return c != 0 ? c : strcmp(a->kind, b->kind);
}

/* Add the kind of group/version/resource when served; false once MAX_TYPES were resolved. */
static bool
add_kind(gvks_t *t, const gw_catalog_t *served, const char *g, const char *v, const char *r)
{
    const gw_resource_t *res = gw_catalog_find(served, g, v, r);
    if (res == NULL)
        return true;
    gvk_t k = {res->group, res->version, res->kind, res->schema};
    bool dup = false;
    for (size_t i = 0; i < t->n; i++)
        dup = dup || gvk_cmp(&t->items[i], &k) == 0;
    if (!dup)
        t->items[t->n++] = k;
    return ++t->resolved < MAX_TYPES;
}

/* One resource rule's kinds; false once MAX_TYPES were resolved. */
static bool
rule_kinds(gvks_t *t, const json_t *rule, const gw_catalog_t *served)
{
    size_t ng = 0, nv = 0, nr = 0;
    const char **g = rule_strings(json_object_get(rule, "apiGroups"), "*", NULL, &ng);
    const char **v = rule_strings(json_object_get(rule, "apiVersions"), "*", NULL, &nv);
    const char **r = rule_strings(json_object_get(rule, "resources"), NULL, "*/", &nr);
    bool more = true;
    for (size_t i = 0; more && g != NULL && v != NULL && i < ng; i++)
        for (size_t j = 0; more && j < nv; j++)
            for (size_t k = 0; more && k < nr; k++)
                more = add_kind(t, served, g[i], v[j], r[k]);
    free(g);
    free(v);
    free(r);
    return more;
}

static void
types_to_check(const json_t *spec, const gw_catalog_t *served, gvks_t *t)
{
    const json_t *rules =
        json_object_get(json_object_get(spec, "matchConstraints"), "resourceRules");
    size_t i;
    const json_t *rule;
    json_array_foreach(rules, i, rule)
    {
        if (!rule_kinds(t, rule, served))
            break;
    }
    qsort(t->items, t->n, sizeof(t->items[0]), gvk_cmp);
}

/* Append "<gvk>: <error>\n" to `out`, a paragraph per kind. */
static void
add_issue(gw_buf_t *out, const gvk_t *k, const char *error)
{
    if (error == NULL)
        return;
    if (out->len > 0)
        gw_buf_char(out, '\n');
    gw_buf_printf(out, "%s/%s, Kind=%s: %s\n", k->group, k->version, k->kind, error);
}

static void
add_warning(json_t *warnings, size_t i, const char *field, gw_buf_t *text)
{
    if (text->len > 0) {
        char *ref = gw_sprintf("spec.validations[%zu].%s", i, field);
        json_array_append_new(
            warnings, json_pack("{s:s,s:s}", "fieldRef", ref, "warning", gw_buf_cstr(text)));
        free(ref);
    }
    gw_buf_free(text);
}

json_t *
gw_vap_typecheck(const json_t *policy, const gw_catalog_t *served)
{
    const json_t *spec = json_object_get(policy, "spec");
    size_t nval = json_array_size(json_object_get(spec, "validations"));
    json_t *warnings = json_array();
    gvks_t t = {0};
    types_to_check(spec, served, &t);
    if (t.n == 0 || nval == 0)
        return warnings;

    gw_arena_t *a = gw_arena_new();
    gw_buf_t *expr = gw_calloc(nval, sizeof(*expr)), *msg = gw_calloc(nval, sizeof(*msg));
    gw_vap_schemas_t schemas = {.type_checking = true};
    bool named;
    const gw_resource_t *pr = gw_vap_param_resource(served, policy, &named);
    if (pr != NULL) {
        schemas.params = gw_schema_cel(a, pr->schema);
        schemas.params_name = pr->kind;
    }
    for (size_t k = 0; k < t.n; k++) {
        schemas.object = gw_schema_cel(a, t.items[k].schema);
        schemas.object_name = t.items[k].kind;
        gw_vap_compiled_t *c = gw_vap_compile(policy, &schemas);
        for (size_t i = 0; i < nval; i++) {
            add_issue(&expr[i], &t.items[k], gw_vap_compile_error(c, GW_VAP_VALIDATION, i));
            add_issue(&msg[i], &t.items[k], gw_vap_compile_error(c, GW_VAP_MESSAGE_EXPRESSION, i));
        }
        gw_vap_compiled_free(c);
    }
    for (size_t i = 0; i < nval; i++) {
        add_warning(warnings, i, "expression", &expr[i]);
        add_warning(warnings, i, "messageExpression", &msg[i]);
    }
    free(expr);
    free(msg);
    gw_arena_free(a);
    return warnings;
}
