/* libFuzzer driver for FieldsV1 reading (managedFields come from clients). The input is a JSON
 * document. Besides not crashing, it checks what the module promises: a failure leaves a
 * message and no set; a set written out reads back as the same set and writes the same
 * text again; union, difference and intersection with itself give itself, empty and itself;
 * every member path prints.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_fieldset.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_json.c"
#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_err.c"
#include "gw_fieldset.c"
#include "gw_gofmt.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
count_path(const char *path, void *ctx)
{
    if (path[0] != '.' && path[0] != '[')
        abort();
    (*(size_t *)ctx)++;
}

static void
check_algebra(const gw_fieldset_t *s)
{
    gw_fieldset_t *u = gw_fieldset_union(s, s), *d = gw_fieldset_difference(s, s);
    gw_fieldset_t *i = gw_fieldset_intersection(s, s);
    size_t n = 0;

    if (!gw_fieldset_equal(u, s) || !gw_fieldset_empty(d) || !gw_fieldset_equal(i, s))
        abort();
    gw_fieldset_foreach(s, count_path, &n);
    if (n != gw_fieldset_count(s))
        abort();
    gw_fieldset_free(u);
    gw_fieldset_free(d);
    gw_fieldset_free(i);
}

static void
check_round_trip(const gw_fieldset_t *s)
{
    size_t len, len2;
    char *text = gw_fieldset_to_text(s, &len), err[256], *text2;
    json_t *j = json_loadb(text, len, 0, NULL);
    gw_fieldset_t *again = NULL;

    if (j == NULL || gw_fieldset_from_json(j, &again, err, sizeof(err)) != 0 ||
        !gw_fieldset_equal(again, s))
        abort();
    text2 = gw_fieldset_to_text(again, &len2);
    if (len != len2 || memcmp(text, text2, len) != 0)
        abort();
    free(text);
    free(text2);
    json_decref(j);
    gw_fieldset_free(again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
    gw_fieldset_t *s = NULL;
    char err[256];

    if (j == NULL)
        return 0;
    memset(err, 'x', sizeof(err));
    if (gw_fieldset_from_json(j, &s, err, sizeof(err)) != 0) {
        if (s != NULL || memchr(err, '\0', sizeof(err)) == NULL || err[0] == '\0')
            abort();
    } else {
        check_round_trip(s);
        check_algebra(s);
    }
    gw_fieldset_free(s);
    json_decref(j);
    return 0;
}
