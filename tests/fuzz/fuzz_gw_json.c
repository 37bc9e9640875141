/* libFuzzer driver for gw_json, the one-pass JSON reader and writer every request body and
 * stored value goes through. Besides not crashing, it holds gw_json to Jansson, whose results
 * it promises: gw_json_loadb accepts exactly what json_loadb accepts, with an equal document or
 * the same error text and position; gw_json_dumps writes json_dumps' bytes (compact, indented,
 * sorted); gw_json_load_members keeps exactly the members asked for.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_gw_json.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_json.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
same_dump(const json_t *doc, size_t flags)
{
    char *ours = gw_json_dumps(doc, flags), *theirs = json_dumps(doc, flags);

    if ((ours == NULL) != (theirs == NULL) || (ours != NULL && strcmp(ours, theirs) != 0))
        abort();
    free(ours);
    free(theirs);
}

static void
same_members(const char *text, size_t len, const json_t *whole)
{
    static const char *const keys[] = {"metadata", "kind", "spec"};
    json_t *some = gw_json_load_members(text, len, keys, 3);
    const char *key;
    json_t *v;

    if (!json_is_object(whole) || some == NULL)
        goto out;
    json_object_foreach(some, key, v)
    {
        if (strcmp(key, "metadata") != 0 && strcmp(key, "kind") != 0 && strcmp(key, "spec") != 0)
            abort();
        if (!json_equal(v, json_object_get(whole, key)))
            abort();
    }
out:
    json_decref(some);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    json_error_t ours_err, theirs_err;
    size_t flags = size > 0 && data[0] % 2 ? JSON_DECODE_ANY : 0;
    json_t *ours = gw_json_loadb(text, size, flags, &ours_err);
    json_t *theirs = json_loadb(text, size, flags, &theirs_err);

    if ((ours == NULL) != (theirs == NULL))
        abort();
    if (ours == NULL) {
        if (strcmp(ours_err.text, theirs_err.text) != 0 ||
            ours_err.position != theirs_err.position || ours_err.line != theirs_err.line ||
            ours_err.column != theirs_err.column)
            abort();
        return 0;
    }
    if (!json_equal(ours, theirs))
        abort();
    same_dump(theirs, JSON_COMPACT | JSON_ENCODE_ANY);
    same_dump(theirs, JSON_INDENT(2) | JSON_ENCODE_ANY);
    same_dump(theirs, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    same_members(text, size, theirs);
    json_decref(ours);
    json_decref(theirs);
    return 0;
}
