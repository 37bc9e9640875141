/* libFuzzer driver for JSON Patch and JSON Merge Patch. The input is a document and a patch
 * separated by the first newline. Besides not crashing, it checks what the library promises:
 * the input document is never modified; a failure leaves a one-line message and a NULL result;
 * a merge patch is idempotent (applying it twice gives what applying it once does).
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_json_patch.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_buf.c"
#include "gw_json.c"
#include "gw_alloc.c"
#include "gw_gojson.c"
#include "gw_patch.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_json_patch(const json_t *doc, const json_t *patch)
{
    char err[256];
    int bad = -1;
    memset(err, 'x', sizeof(err));
    json_t *got = gw_json_patch(doc, patch, &bad, err, sizeof(err));
    if (got == NULL && (memchr(err, '\0', sizeof(err)) == NULL || err[0] == '\0' ||
                        strchr(err, '\n') != NULL || (bad != 0 && bad != 1)))
        abort();
    if (got != NULL && bad != 0)
        abort();
    json_decref(got);
}

static void
check_merge_patch(const json_t *doc, const json_t *patch)
{
    json_t *once = gw_merge_patch(doc, patch);
    json_t *twice = gw_merge_patch(once, patch);
    if (!json_equal(once, twice))
        abort();
    json_decref(once);
    json_decref(twice);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (nl == NULL)
        return 0;
    size_t n = (size_t)(nl - data);
    json_t *doc = json_loadb((const char *)data, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    json_t *patch =
        json_loadb((const char *)nl + 1, size - n - 1, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (doc != NULL && patch != NULL) {
        json_t *before = json_deep_copy(doc);
        check_json_patch(doc, patch);
        check_merge_patch(doc, patch);
        if (!json_equal(doc, before))
            abort();
        json_decref(before);
    }
    json_decref(doc);
    json_decref(patch);
    return 0;
}
