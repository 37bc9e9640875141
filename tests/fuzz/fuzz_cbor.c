/* libFuzzer driver for the CBOR codec. Any input is a request body (application/cbor or
 * apply-patch+cbor). Besides not crashing, it checks what the codec promises: a failure leaves
 * a message (gw_cbor_check's, word for word, when the first pass fails); whatever decodes
 * encodes again (as is, and with the Secret schema when its data holds base64), and that
 * encoding starts with the self-described tag and decodes to the same document
 * (decode . encode . decode = decode).
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_cbor.c */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_json.c"
#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_arena.c"
#include "gw_catalog.c"
#include "gw_catalog_config.c"
#include "gw_cbor.c"
#include "gw_cbor_decode.c"
#include "gw_err.c"
#include "gw_gozero.c"
#include "gw_log.c"
#include "gw_protobuf.c"
#include "gw_protobuf_encode.c"
#include "gw_protobuf_time.c"
#include "gw_protobuf_wire.c"
#include "gw_schema.c"
#include "gw_schema_proto.c"

#include "fuzz_catalog_blob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* json_equal, but for keys holding NULs too (jansson's compares keys as C strings). */
static bool
same(const json_t *a, const json_t *b)
{
    const char *key;
    size_t n, i;
    json_t *x;

    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        json_array_foreach(a, i, x) if (!same(x, json_array_get(b, i))) return false;
        return true;
    }
    if (!json_is_object(a))
        return json_equal(a, b);
    if (json_object_size(a) != json_object_size(b))
        return false;
    json_object_keylen_foreach((json_t *)a, key, n, x)
    {
        json_t *y = json_object_getn(b, key, n);
        if (y == NULL || !same(x, y))
            return false;
    }
    return true;
}

/* Encode v with schema s and decode the bytes; NULL when s refuses v (a Secret's data that is
   not base64). Whatever decoded must encode without a schema, and every encoding must start
   with the self-described tag and decode. */
static json_t *
recode(const json_t *v, const gw_schema_t *s)
{
    char err[256];
    uint8_t *out = NULL;
    size_t len = 0;
    json_t *again;

    if (gw_cbor_encode(v, s, &out, &len, err, sizeof(err)) != 0) {
        if (s != NULL)
            return NULL;
        fprintf(stderr, "decoded, then failed to encode: %s\n", err);
        abort();
    }
    if (len < 3 || memcmp(out, GW_CBOR_SELF_DESCRIBED, 3) != 0)
        abort();
    again = gw_cbor_decode(out, len, err, sizeof(err));
    if (again == NULL) {
        fprintf(stderr, "encoded, then failed to decode: %s\n", err);
        abort();
    }
    free(out);
    return again;
}

/* Without a schema the same document comes back. With one, base64 may be normalised (Go's
   decoder skips newlines in it), so one more pass must change nothing. */
static void
check_round_trip(const json_t *v, const gw_schema_t *s)
{
    json_t *once = recode(v, s), *twice;

    if (once == NULL)
        return;
    if (same(once, v)) {
        json_decref(once);
        return;
    }
    twice = s != NULL ? recode(once, s) : NULL;
    if (twice == NULL || !same(once, twice)) {
        json_dumpf(v, stderr, JSON_ENCODE_ANY);
        json_dumpf(once, stderr, JSON_ENCODE_ANY);
        abort();
    }
    json_decref(once);
    json_decref(twice);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const gw_catalog_t *c = gw_catalog_builtin();
    char err[256];
    json_t *v;

    char check_err[256] = "";
    int check = gw_cbor_check(data, size, check_err, sizeof(check_err));

    memset(err, 'x', sizeof(err));
    v = gw_cbor_decode(data, size, err, sizeof(err));
    if (v == NULL) {
        if (memchr(err, '\0', sizeof(err)) == NULL || err[0] == '\0')
            abort();
        /* The first pass's errors are the decoder's, word for word. */
        if (check != 0 && strcmp(err, check_err) != 0)
            abort();
        return 0;
    }
    if (check != 0)
        abort();
    if (!json_is_object(v))
        abort();
    check_round_trip(v, NULL);
    check_round_trip(v, gw_catalog_kind_schema(c, "", "v1", "Secret"));
    json_decref(v);
    return 0;
}
