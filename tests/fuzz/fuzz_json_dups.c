/* libFuzzer driver for the duplicate-key scanner over raw JSON. Besides not crashing, it holds
 * the scanner to Jansson, which parses the same bodies: text Jansson accepts is accepted, and
 * duplicates are reported exactly when Jansson's JSON_REJECT_DUPLICATES refuses the text.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_json_dups.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_json.c"
#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_field_issues.c"
#include "gw_fieldval.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gw_field_issues_t dups = {0};
    json_error_t e;
    size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL;
    int rc = gw_json_find_duplicates((const char *)data, size, &dups);
    json_t *any = json_loadb((const char *)data, size, flags, &e);
    /* Jansson takes a trailing NUL byte for the end of the text, which JSON does not allow,
     * and refuses numbers beyond int64 and double and NUL in keys, which JSON allows */
    if (any != NULL && rc != 0 && memchr(data, '\0', size) == NULL)
        abort();
    if (any == NULL && rc == 0 && dups.n == 0 && strstr(e.text, "too big") == NULL &&
        strstr(e.text, "overflow") == NULL && strstr(e.text, "nesting") == NULL &&
        strstr(e.text, "NUL byte") == NULL)
        abort();
    /* Jansson also lets a NUL byte after a number through, which the scanner refuses; the
     * duplicate verdicts are compared only on text both accept */
    if (any != NULL && rc == 0) {
        json_t *strict = json_loadb((const char *)data, size, flags | JSON_REJECT_DUPLICATES, &e);
        if ((strict == NULL) != (dups.n > 0))
            abort();
        json_decref(strict);
    }
    for (size_t i = 0; i < dups.n; i++)
        if (strncmp(dups.items[i].message, "duplicate field \"", 17) != 0)
            abort();
    json_decref(any);
    gw_field_issues_clear(&dups);
    return 0;
}
