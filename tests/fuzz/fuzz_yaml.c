/* libFuzzer driver for the YAML codec. Besides not crashing (or growing without bound), it
 * checks what the library promises: a failure leaves a positioned one-line message; a document
 * that was read, written back as YAML, reads back to the same document.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_yaml.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_field_issues.c"
#include "gw_yaml.c"
#include "gw_yaml_emit.c"
#include "gw_yaml_scalar.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* json_equal, but for keys with NUL bytes (Jansson's compares keys as C strings) */
static bool
same(const json_t *a, const json_t *b)
{
    const char *k;
    size_t klen;
    json_t *v;
    if (!json_is_object(a) || !json_is_object(b)) {
        if (!json_is_array(a) || !json_is_array(b))
            return json_equal(a, b);
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    if (json_object_size(a) != json_object_size(b))
        return false;
    json_object_keylen_foreach((json_t *)a, k, klen,
                               v) if (!same(v, json_object_getn(b, k, klen))) return false;
    return true;
}

static void
check_round_trip(const json_t *doc)
{
    size_t len;
    char err[256];
    char *yaml = gw_json_to_yaml(doc, &len);
    if (strlen(yaml) != len)
        abort();
    json_t *back = gw_yaml_to_json(yaml, len, err, sizeof(err));
    if (back == NULL || !same(doc, back))
        abort();
    json_decref(back);
    free(yaml);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    gw_field_issues_t dups = {0};
    memset(err, 'x', sizeof(err));
    json_t *doc = gw_yaml_to_json_dups((const char *)data, size, &dups, err, sizeof(err));
    if (doc == NULL) {
        if (memchr(err, '\0', sizeof(err)) == NULL || strncmp(err, "yaml: line ", 11) != 0 ||
            strchr(err, '\n') != NULL || dups.n != 0)
            abort();
        return 0;
    }
    for (size_t i = 0; i < dups.n; i++)
        if (dups.items[i].kind != GW_FIELD_DUPLICATE ||
            strstr(dups.items[i].message, "already set in map") == NULL)
            abort();
    check_round_trip(doc);
    gw_field_issues_clear(&dups);
    json_decref(doc);
    return 0;
}
