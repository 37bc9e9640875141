/*
 * Apply configurations merged without ownership (MutatingAdmissionPolicy), on the typed merge
 * of the server-side apply engine.
 */
#include "gw_apply_config.h"

#include <stdio.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_ssa_int.h"

/* kube's findAtomics: the paths of the atomic lists, maps and structs the configuration sets.
 * Only declared struct fields are descended (a map's entries are not, as
 * structured-merge-diff's FindField finds fields only); list elements by index. */
static void
find_atomics(const gw_schema_t *s, const json_t *v, gw_buf_t *path, gw_buf_t *out, size_t *n)
{
    gw_ssa__atom_t a;
    gw_ssa__resolve(s, v, &a);
    size_t mark = path->len;
    if (a.kind == GW_SSA__SCALAR || (a.kind == GW_SSA__MAP && !json_is_object(v)) ||
        (a.kind == GW_SSA__LIST && !json_is_array(v)))
        return;
    if (a.atomic)
        gw_buf_printf(out, "%s%s", (*n)++ ? ", " : "", gw_buf_cstr(path));
    if (a.kind == GW_SSA__LIST) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            gw_buf_printf(path, "[%zu]", i);
            find_atomics(gw_ssa__items(&a), json_array_get(v, i), path, out, n);
            gw_buf_truncate(path, mark);
        }
        return;
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val)
    {
        const gw_schema_t *fs;
        bool declared;
        if (!gw_ssa__entry(&a, key, &fs, &declared) || !declared)
            continue;
        gw_buf_printf(path, ".%s", key);
        find_atomics(fs, val, path, out, n);
        gw_buf_truncate(path, mark);
    }
}

/* `*err` = prefix + the errors' text; NULL returned for the caller's convenience. */
static json_t *
fail(char **err, const char *prefix, gw_ssa__errs_t *e)
{
    char *why = gw_ssa__errs_text(e);
    *err = gw_sprintf("%s: %s", prefix, why);
    free(why);
    gw_ssa__errs_clear(e);
    return NULL;
}

json_t *
gw_apply_config_merge(const gw_schema_t *schema, const json_t *obj, const json_t *config,
                      char **err)
{
    gw_ssa__errs_t e = {0};
    *err = NULL;
    if (!gw_ssa__validate(schema, config, false, &e))
        return fail(err, "failed to convert patch object to typed object", &e);
    gw_buf_t path = {0}, atomics = {0};
    size_t n = 0;
    find_atomics(schema, config, &path, &atomics, &n);
    gw_buf_free(&path);
    if (n > 0) {
        *err = gw_sprintf("invalid ApplyConfiguration: may not mutate atomic arrays, maps or "
                          "structs: %s",
                          gw_buf_cstr(&atomics));
        gw_buf_free(&atomics);
        return NULL;
    }
    gw_buf_free(&atomics);
    if (!gw_ssa__validate(schema, obj, true, &e))
        return fail(err, "failed to convert original object to typed object", &e);
    json_t *merged = gw_ssa__merge(schema, obj, config, &e);
    if (merged == NULL)
        return fail(err, "failed to merge patch", &e);
    if (schema != NULL)
        gw_ssa__go_nulls(schema, merged);
    return merged;
}
