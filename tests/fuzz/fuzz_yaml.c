/* libFuzzer driver for the YAML codec. Besides not crashing (or growing without bound), it
 * checks what the library promises: a failure leaves a positioned one-line message; a document
 * that was read, written back as YAML, reads back to the same document.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_yaml.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_fieldval.c"
#include "gw_yaml.c"
#include "gw_yaml_emit.c"
#include "gw_yaml_scalar.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_round_trip(const json_t *doc)
{
    size_t len;
    char err[256];
    char *yaml = gw_json_to_yaml(doc, &len);
    if (strlen(yaml) != len)
        abort();
    json_t *back = gw_yaml_to_json(yaml, len, err, sizeof(err));
    if (back == NULL || !json_equal(doc, back))
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
