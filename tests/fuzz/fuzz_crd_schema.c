/* libFuzzer driver for the CRD schema library: a random openAPIV3Schema (the input up to the
 * first newline) is compiled against the real ObjectMeta, then a random object (the rest) is
 * validated, pruned and defaulted against it. Besides not crashing or leaking, it checks what
 * the library promises: a refused schema leaves a reason and no tree; validation leaves the
 * object alone and gives every error a field, a reason and a message; pruning removes exactly
 * the paths it reports (a second pass finds nothing).
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_crd_schema.c */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_json.c"
#include "gw_alloc.c"
#include "gw_arena.c"
#include "gw_buf.c"
#include "gw_catalog.c"
#include "gw_catalog_config.c"
#include "gw_err.c"
#include "gw_field_issues.c"
#include "gw_log.c"
#include "gw_names.c"
#include "gw_schema.c"
#include "gw_schema_proto.c"
#define add objmeta_add
#define quote objmeta_quote
#define show objmeta_show
#include "gw_objmeta.c"
#undef add
#undef quote
#undef show
#include "gw_fieldval_scalar.c"
#include "gw_fieldval_schema.c"
#include "gw_crd_default.c"
#include "gw_crd_embedded.c"
#include "gw_crd_formats.c"
#include "gw_crd_lists.c"
#include "gw_crd_prune.c"
#include "gw_crd_schema.c"
#include "gw_crd_values.c"

#include "fuzz_catalog_blob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_errors(const gw_field_errors_t *e)
{
    size_t i;
    const json_t *c;
    json_array_foreach(e->causes, i, c)
    {
        if (!json_is_string(json_object_get(c, "field")) ||
            !json_is_string(json_object_get(c, "reason")) ||
            json_string_length(json_object_get(c, "message")) == 0)
            abort();
    }
}

static void
exercise(const gw_schema_t *root, json_t *obj)
{
    gw_field_errors_t errs = {0};
    gw_field_issues_t is = {0};
    json_t *before = json_deep_copy(obj);
    gw_crd_validate(root, obj, &errs);
    if (!json_equal(before, obj))
        abort();
    check_errors(&errs);
    gw_ferr_clear(&errs);
    gw_crd_prune(root, obj, &is);
    for (size_t i = 0; i < is.n; i++)
        if (is.items[i].kind != GW_FIELD_UNKNOWN)
            abort();
    gw_field_issues_clear(&is);
    gw_crd_prune(root, obj, &is);
    if (is.n != 0)
        abort();
    gw_crd_default(root, obj);
    json_decref(before);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    const gw_schema_t *objmeta = gw_catalog_definition(
        gw_catalog_builtin(), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    if (nl == NULL)
        return 0;
    size_t n = (size_t)(nl - data);
    json_t *schema = json_loadb((const char *)data, n, JSON_DECODE_ANY, NULL);
    json_t *obj = json_loadb((const char *)nl + 1, size - n - 1, 0, NULL);
    gw_arena_t *a = gw_arena_new();
    const gw_schema_t *root = NULL;
    char err[256] = "";
    int rc = gw_crd_schema_compile(a, schema, objmeta, &root, err, sizeof(err));
    if ((rc != 0) != (root == NULL) || (rc != 0 && err[0] == '\0'))
        abort();
    if (root != NULL && obj != NULL)
        exercise(root, obj);
    gw_arena_free(a);
    json_decref(schema);
    json_decref(obj);
    return 0;
}
