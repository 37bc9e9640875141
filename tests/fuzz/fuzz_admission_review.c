/* libFuzzer driver for the check of an admission webhook's answer and the application of its
 * patch (any webhook's bytes, read for every request it is called on). The input is the
 * answer's body, checked for a mutating and a validating webhook of review v1 and a mutating
 * one of v1beta1. Besides not crashing or leaking, it checks what the module promises: a
 * refusal has a message in one of kube's frames and leaves nothing; an acceptance has a patch
 * that is a non-empty list of operations or none, only for a mutating webhook; applying it
 * gives an object or an error, and never changes the object it was given.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ...
 * tests/fuzz/fuzz_admission_review.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_buf.c"
#include "gw_json.c"
#include "gw_admission_webhook_review.c"
#include "gw_alloc.c"
#include "gw_crd_conversion.c"
#include "gw_gojson.c"
#include "gw_gotype.c"
#include "gw_names.c"
#include "gw_patch.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const frames[] = {
    "failed to call webhook: ",
    "received invalid webhook response: ",
    "received undecodable patch in webhook response: ",
    "unsupported patch type ",
};

static bool
framed(const char *err)
{
    for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++)
        if (strncmp(err, frames[i], strlen(frames[i])) == 0)
            return true;
    return false;
}

static void
apply(const json_t *object, const json_t *patch)
{
    json_t *before = json_deep_copy(object), *out;
    char err[512] = "";

    out = gw_webhook_review_apply(object, patch, err, sizeof(err));
    if ((out == NULL) == (err[0] == '\0') || (out != NULL && !json_is_object(out)))
        abort();
    if (!json_equal(before, object))
        abort();
    json_decref(out);
    json_decref(before);
}

static void
one(const char *version, bool mutating, const json_t *object, const char *body, size_t len)
{
    gw_webhook_response_t r;
    char err[1024] = "";
    int rc = gw_webhook_review_response(version, "0e3c5f6a-1b2c-4d5e-8f90-123456789abc", mutating,
                                        200, body, len, &r, err, sizeof(err));

    if (rc != 0) {
        if (!framed(err) || r.patch != NULL || r.result != NULL || r.warnings != NULL ||
            r.audit_annotations != NULL)
            abort();
        return;
    }
    if (r.patch != NULL && (!mutating || !json_is_array(r.patch) || json_array_size(r.patch) == 0))
        abort();
    if (r.patch != NULL)
        apply(object, r.patch);
    gw_webhook_response_clear(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static json_t *object;

    if (object == NULL)
        object = json_loads("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
                            "\"c\",\"labels\":{\"a\":\"b\"}},\"data\":{\"k\":\"v\"}}",
                            0, NULL);
    one("v1", true, object, (const char *)data, size);
    one("v1", false, object, (const char *)data, size);
    one("v1beta1", true, object, (const char *)data, size);
    return 0;
}
