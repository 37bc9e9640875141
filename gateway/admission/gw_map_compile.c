/*
 * Compiling a MutatingAdmissionPolicy: the validating policy's compilation for its variables
 * and matchConditions, then the mutations with the mutation library.
 */
#include "gw_map_compile.h"

#include <string.h>

#include "gw_alloc.h"
#include "gw_map_int.h"

/* Return types as kube's patchers state them (ReturnTypes()). */
static const char *const want_object[] = {"Object", NULL};
static const char *const want_json_patch[] = {"list(JSONPatch)", NULL};

/* The white space Go's strings.TrimSpace trims (its ASCII part). */
static const char white[] = " \t\n\v\f\r";

/* `trim`: compile strings.TrimSpace of the expression, as kube's validation does. */
static void
compile_mutation(gw_map_compiled_t *c, const json_t *m, bool trim, gw_map__mutation_t *out)
{
    const char *type = json_string_value(json_object_get(m, "patchType"));
    const json_t *body = NULL;
    const char *const *want = NULL;
    if (type != NULL && strcmp(type, "ApplyConfiguration") == 0) {
        body = json_object_get(m, "applyConfiguration");
        out->type = GW_MAP_APPLY_CONFIGURATION;
        want = want_object;
    } else if (type != NULL && strcmp(type, "JSONPatch") == 0) {
        body = json_object_get(m, "jsonPatch");
        out->type = GW_MAP_JSON_PATCH;
        want = want_json_patch;
    }
    if (!json_is_object(body)) {
        out->type = GW_MAP_NONE;
        return;
    }
    const char *src = json_string_value(json_object_get(body, "expression"));
    src = src != NULL ? src : "";
    size_t len = strlen(src);
    if (trim) {
        src += strspn(src, white);
        len = strlen(src);
        while (len > 0 && strchr(white, src[len - 1]) != NULL)
            len--;
    }
    char *text = gw_strndup(src, len);
    gw_vap__compile_expr(c->base->env, text, want, &out->expr, NULL, c->base->type_checking);
    free(text);
}

gw_map_compiled_t *
gw_map_compile(const json_t *policy, const gw_vap_schemas_t *schemas)
{
    gw_map_compiled_t *c = gw_calloc(1, sizeof(*c));
    const json_t *spec = json_object_get(policy, "spec");
    const char *rp = json_string_value(json_object_get(spec, "reinvocationPolicy"));
    c->reinvoke = rp != NULL && strcmp(rp, "IfNeeded") == 0;
    /* The spec has no validations or auditAnnotations: this compiles its variables and
     * matchConditions (the matchConditions before the mutation library is in). */
    c->base = gw_vap_compile(policy, schemas);
    cel_env_enable_mutation(c->base->env, c->base->object_type);
    const json_t *list = json_object_get(spec, "mutations");
    c->nmutations = json_array_size(list);
    c->mutations = gw_calloc(c->nmutations + 1, sizeof(*c->mutations));
    for (size_t i = 0; i < c->nmutations; i++)
        compile_mutation(c, json_array_get(list, i), schemas != NULL && schemas->validating,
                         &c->mutations[i]);
    return c;
}

void
gw_map_compiled_free(gw_map_compiled_t *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->nmutations; i++)
        gw_vap__expr_clear(&c->mutations[i].expr);
    free(c->mutations);
    gw_vap_compiled_free(c->base);
    free(c);
}

const gw_vap_compiled_t *
gw_map_compiled_base(const gw_map_compiled_t *c)
{
    return c->base;
}

bool
gw_map_compiled_reinvokes(const gw_map_compiled_t *c)
{
    return c->reinvoke;
}

size_t
gw_map_compiled_mutations(const gw_map_compiled_t *c)
{
    return c->nmutations;
}

gw_map_patch_t
gw_map_mutation_type(const gw_map_compiled_t *c, size_t i)
{
    return i < c->nmutations ? c->mutations[i].type : GW_MAP_NONE;
}

const char *
gw_map_mutation_error(const gw_map_compiled_t *c, size_t i)
{
    return i < c->nmutations ? c->mutations[i].expr.error : NULL;
}
