/* libFuzzer driver for the check of a conversion webhook's answer (any webhook's bytes, read
 * for every object of a CRD converted through it). The input is the answer's body, checked
 * against a fixed batch of two objects for both review versions. Besides not crashing or
 * leaking, it checks what the module promises: a refusal has a one-line message that starts
 * as kube's do and no objects; an acceptance has exactly the batch's number of objects, each
 * in the desired version with the original's kind and metadata but for labels and annotations.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ...
 * tests/fuzz/fuzz_crd_conversion.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_json.c"
#include "gw_names.c"
#include "gw_crd_conversion.c"
#include "gw_gotype.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *batch =
    "[{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"Proxy\",\"metadata\":{\"name\":\"a\","
    "\"namespace\":\"ns\",\"uid\":\"u1\",\"generation\":3,\"labels\":{\"x\":\"y\"}},\"spec\":"
    "{\"host\":\"h\"}},{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"Proxy\",\"metadata\":"
    "{\"name\":\"b\",\"namespace\":\"ns\",\"uid\":\"u2\"}}]";

static void
check_accepted(const json_t *in, const json_t *out)
{
    size_t i;
    json_t *o;

    if (json_array_size(out) != json_array_size(in))
        abort();
    json_array_foreach(out, i, o)
    {
        json_t *meta = json_deep_copy(json_object_get(o, "metadata"));
        json_t *was = json_deep_copy(json_object_get(json_array_get(in, i), "metadata"));
        if (strcmp(json_string_value(json_object_get(o, "apiVersion")), "stable.example.com/v2"))
            abort();
        json_object_del(meta, "labels");
        json_object_del(meta, "annotations");
        json_object_del(was, "labels");
        json_object_del(was, "annotations");
        if (!json_equal(meta, was))
            abort();
        json_decref(meta);
        json_decref(was);
    }
}

static void
one(const char *version, const json_t *objects, const char *body, size_t len)
{
    gw_crd_review_t rv = {.review_version = version,
                          .uid = "0e3c5f6a-1b2c-4d5e-8f90-123456789abc",
                          .desired = "stable.example.com/v2",
                          .from_gvk = "stable.example.com/v1, Kind=Proxy",
                          .call_gvk = "/, Kind=",
                          .objects = objects};
    char err[2048];
    json_t *out = NULL;
    int rc = gw_crd_review_response(&rv, 200, body, len, &out, err, sizeof(err));

    if (rc == 0) {
        check_accepted(objects, out);
    } else if (out != NULL || strncmp(err, "conversion for ", 15) != 0) {
        /* a failure yields nothing, in kube's frame (whose text may hold the answer's own
         * strings, newlines included: kube prints them with %v) */
        abort();
    }
    json_decref(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static json_t *objects;

    if (objects == NULL)
        objects = json_loads(batch, 0, NULL);
    one("v1", objects, (const char *)data, size);
    one("v1beta1", objects, (const char *)data, size);
    return 0;
}
