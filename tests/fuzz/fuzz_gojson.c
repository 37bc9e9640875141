/* libFuzzer driver for the encoding/json scanner. Besides not crashing, it holds the scanner
 * to Jansson, which parses the same bodies: text Jansson accepts is valid to Go (unless a NUL
 * byte cut it short for Jansson), every refusal reads as one of Go's messages, and
 * gw_gojson_load refuses exactly what Go refuses or what Jansson cannot hold.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_gojson.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_buf.c"
#include "gw_json.c"
#include "gw_alloc.c"
#include "gw_gojson.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Why Jansson may refuse text Go takes (gw_gojson.h lists them). */
static bool
jansson_limit(const char *err)
{
    static const char *const limits[] = {"too big", "overflow", "depth", "\\u0000", "NUL byte"};
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
        if (strstr(err, limits[i]) != NULL)
            return true;
    return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    char msg[256], err[256];
    json_error_t e;
    bool bad = gw_gojson_syntax_error(text, size, msg, sizeof(msg));
    json_t *jansson = json_loadb(text, size, JSON_DECODE_ANY, &e);
    json_t *doc = gw_gojson_load(text, size, JSON_DECODE_ANY, err, sizeof(err));

    if (jansson != NULL && bad && memchr(data, '\0', size) == NULL)
        abort();
    if (bad && strncmp(msg, "invalid character '", 19) != 0 &&
        strcmp(msg, "unexpected end of JSON input") != 0)
        abort();
    if (bad && (doc != NULL || strcmp(err, msg) != 0))
        abort();
    if (!bad && doc == NULL && !jansson_limit(err))
        abort();
    json_decref(jansson);
    json_decref(doc);
    return 0;
}
