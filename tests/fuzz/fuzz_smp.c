/* libFuzzer driver for the strategic merge patch, against the real built-in catalog. The first
 * byte picks the kind whose schema drives the merge (or none); the rest is a document and a
 * patch separated by the first newline. Besides not crashing, it checks what the library
 * promises: the inputs are never modified; a failure leaves a message, a status saying how to
 * answer it and no result; a success leaves no message; the result shares nothing with the
 * patch left behind (changing one leaves the other alone); Go's %v prints anything.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_smp.c */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_json.c"
#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_arena.c"
#include "gw_catalog.c"
#include "gw_catalog_config.c"
#include "gw_err.c"
#include "gw_gofmt.c"
#include "gw_log.c"
#include "gw_schema.c"
#include "gw_schema_proto.c"
#include "gw_smp.c"
#include "gw_smp_go.c"
#include "gw_smp_list.c"
#include "gw_smp_order.c"

#include "fuzz_catalog_blob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The kinds kubectl patches most, and those with a replace strategy or opaque structs. */
static const char *const fuzz_kinds[][3] = {
    {"", "v1", "Pod"},
    {"apps", "v1", "Deployment"},
    {"", "v1", "Service"},
    {"", "v1", "ConfigMap"},
    {"", "v1", "Node"},
    {"policy", "v1", "PodDisruptionBudget"},
    {"apps", "v1", "ControllerRevision"},
    {"apiextensions.k8s.io", "v1", "CustomResourceDefinition"},
};

static const gw_schema_t *
pick_schema(uint8_t b)
{
    size_t n = sizeof(fuzz_kinds) / sizeof(fuzz_kinds[0]);

    if (b % (n + 1) == n)
        return NULL;
    return gw_catalog_kind_schema(gw_catalog_builtin(), fuzz_kinds[b % (n + 1)][0],
                                  fuzz_kinds[b % (n + 1)][1], fuzz_kinds[b % (n + 1)][2]);
}

/* Empty every map and list of v, from the leaves up. */
static void
scrub(json_t *v)
{
    const char *k;
    size_t i;
    json_t *x;

    if (json_is_object(v)) {
        json_object_foreach(v, k, x) scrub(x);
        json_object_clear(v);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x) scrub(x);
        json_array_clear(v);
    }
}

static void
check(const json_t *doc, const json_t *patch, const gw_schema_t *schema)
{
    char err[512], *text;
    gw_smp_status_t st = GW_SMP_OK;
    json_t *after = NULL, *before;
    json_t *got = gw_smp_apply_ex(doc, patch, schema, &st, &after, err, sizeof(err));

    if (got == NULL &&
        (st == GW_SMP_OK || err[0] == '\0' || memchr(err, '\0', sizeof(err)) == NULL))
        abort();
    if (got != NULL && (st != GW_SMP_OK || err[0] != '\0' || !json_is_object(got)))
        abort();
    if (after == NULL)
        abort();
    text = gw_go_value(after);
    free(text);
    if (got != NULL) {
        before = json_deep_copy(after);
        scrub(got);
        if (!json_equal(before, after))
            abort();
        json_decref(before);
    }
    json_decref(got);
    json_decref(after);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl;
    json_t *doc, *patch, *doc0, *patch0;
    size_t n;

    if (size < 2)
        return 0;
    nl = memchr(data + 1, '\n', size - 1);
    if (nl == NULL)
        return 0;
    n = (size_t)(nl - data - 1);
    /* As the registry reads bodies: no NUL in strings. */
    doc = json_loadb((const char *)data + 1, n, 0, NULL);
    patch = json_loadb((const char *)nl + 1, size - n - 2, JSON_DECODE_ANY, NULL);
    if (doc != NULL && patch != NULL) {
        doc0 = json_deep_copy(doc);
        patch0 = json_deep_copy(patch);
        check(doc, patch, pick_schema(data[0]));
        if (!json_equal(doc, doc0) || !json_equal(patch, patch0))
            abort();
        json_decref(doc0);
        json_decref(patch0);
    }
    json_decref(doc);
    json_decref(patch);
    return 0;
}
