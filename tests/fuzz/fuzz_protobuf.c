/* libFuzzer driver for the Kubernetes protobuf codec, against the real built-in catalog. An
 * input starting with 'k' is a whole body (the "k8s\0" envelope); any other first byte picks
 * one of a few kinds and the rest is that kind's bare message, so that mutations reach deep
 * fields without having to keep an envelope valid. Besides not crashing, it checks what the
 * codec promises: a failure leaves a one-line message; whatever decodes encodes again, and the
 * encoding decodes to the same document (decode . encode . decode = decode).
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_protobuf.c */
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

/* The kinds a bare message is read as: the request bodies kubectl sends most, plus the types
 * with the special wire forms (Time, MicroTime, IntOrString, Quantity, RawExtension, schema
 * unions, bytes). */
static const char *const fuzz_kinds[][3] = {
    {"", "v1", "Pod"},
    {"apps", "v1", "Deployment"},
    {"", "v1", "Service"},
    {"", "v1", "ConfigMap"},
    {"", "v1", "Secret"},
    {"events.k8s.io", "v1", "Event"},
    {"apiextensions.k8s.io", "v1", "CustomResourceDefinition"},
    {"apps", "v1", "ControllerRevision"},
    {"", "v1", "Node"},
    {"batch", "v1", "Job"},
    {"", "v1", "Status"},
    {"coordination.k8s.io", "v1", "Lease"},
};

static void
check_error(const char *err, size_t err_len)
{
    if (memchr(err, '\0', err_len) == NULL || err[0] == '\0' || strchr(err, '\n') != NULL)
        abort();
}

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

/* Encode v and decode the bytes: whatever decoded must encode, and the encoding must decode. */
static json_t *
recode(const gw_catalog_t *c, const gw_schema_t *s, const json_t *v)
{
    char err[256];
    uint8_t *out = NULL;
    size_t len = 0;
    json_t *again;
    int rc = s != NULL ? gw_protobuf_encode_raw(c, s, v, &out, &len, err, sizeof(err))
                       : gw_protobuf_encode(c, v, &out, &len, err, sizeof(err));

    if (rc != 0) {
        fprintf(stderr, "decoded, then failed to encode: %s\n", err);
        abort();
    }
    again = s != NULL ? gw_protobuf_decode_raw(c, s, out, len, err, sizeof(err))
                      : gw_protobuf_decode(c, out, len, err, sizeof(err));
    if (again == NULL) {
        fprintf(stderr, "encoded, then failed to decode: %s\n", err);
        abort();
    }
    free(out);
    return again;
}

/* The same document must come back, except where Go's own JSON does not round-trip: an empty
 * JSONSchemaPropsOrArray shows null, which reads back as absent. One more pass then changes
 * nothing. */
static void
check_round_trip(const gw_catalog_t *c, const gw_schema_t *s, const json_t *v)
{
    json_t *once = recode(c, s, v), *twice;

    if (same(once, v)) {
        json_decref(once);
        return;
    }
    twice = recode(c, s, once);
    if (!same(once, twice)) {
        json_dumpf(once, stderr, JSON_ENCODE_ANY);
        json_dumpf(twice, stderr, JSON_ENCODE_ANY);
        abort();
    }
    json_decref(once);
    json_decref(twice);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const gw_catalog_t *c = gw_catalog_builtin();
    const gw_schema_t *s = NULL;
    char err[256];
    json_t *v;

    if (size == 0)
        return 0;
    memset(err, 'x', sizeof(err));
    if (data[0] == 'k') {
        v = gw_protobuf_decode(c, data, size, err, sizeof(err));
    } else {
        const char *const *k = fuzz_kinds[data[0] % (sizeof(fuzz_kinds) / sizeof(fuzz_kinds[0]))];
        s = gw_catalog_kind_schema(c, k[0], k[1], k[2]);
        if (s == NULL)
            abort();
        v = gw_protobuf_decode_raw(c, s, data + 1, size - 1, err, sizeof(err));
    }
    if (v == NULL) {
        check_error(err, sizeof(err));
        return 0;
    }
    check_round_trip(c, s, v);
    json_decref(v);
    return 0;
}
