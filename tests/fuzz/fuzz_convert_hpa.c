/* libFuzzer driver for the autoscaling/v1 <-> v2 HorizontalPodAutoscaler conversion and the Go
 * JSON decoder under it. The input is the text of every round-trip annotation of a v1 object
 * and, when it is a JSON object, the spec and status of a v2 object. Besides not crashing:
 * converting to v2 leaves no round-trip annotation and always some metric, and once through
 * v1 and back a v2 object goes through again unchanged (what kube's round trip loses, it loses
 * the first time).
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_convert_hpa.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.c"
#include "gw_buf.c"
#include "gw_fieldval_scalar.c"
#include "gw_convert_gojson.c"
#include "gw_convert_hpa.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fz_v1_annotations(const char *text)
{
    static const char *const keys[] = {HPA_ANN_METRICS, HPA_ANN_CURRENT, HPA_ANN_CONDITIONS,
                                       HPA_ANN_BEHAVIOR};
    json_t *obj = json_pack("{s:{s:s},s:{s:i,s:i},s:{s:i}}", "metadata", "name", "h", "spec",
                            "maxReplicas", 3, "targetCPUUtilizationPercentage", 50, "status",
                            "currentCPUUtilizationPercentage", 10);
    json_t *ann = json_object();

    for (size_t i = 0; i < 4; i++)
        json_object_set_new(ann, keys[i], json_string(text));
    json_object_set_new(json_object_get(obj, "metadata"), "annotations", ann);
    gw_convert__hpa_v1_to_v2(obj);
    if (json_object_get(json_object_get(obj, "metadata"), "annotations") != NULL ||
        json_array_size(json_object_get(json_object_get(obj, "spec"), "metrics")) == 0)
        abort();
    gw_convert__hpa_v2_to_v1(obj);
    gw_convert__hpa_v1_to_v2(obj);
    json_decref(obj);
}

static void
fz_v2_round_trip(json_t *in)
{
    json_t *obj =
        json_pack("{s:{s:s},s:O,s:O}", "metadata", "name", "h", "spec",
                  json_object_get(in, "spec") ? json_object_get(in, "spec") : in, "status",
                  json_object_get(in, "status") ? json_object_get(in, "status") : json_null());
    json_t *once;

    gw_convert__hpa_v2_to_v1(obj);
    gw_convert__hpa_v1_to_v2(obj);
    once = json_deep_copy(obj);
    gw_convert__hpa_v2_to_v1(obj);
    gw_convert__hpa_v1_to_v2(obj);
    if (!json_equal(obj, once))
        abort();
    json_decref(once);
    json_decref(obj);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = gw_strndup((const char *)data, size);
    json_t *s = strlen(text) == size ? json_string(text) : NULL; /* annotations are UTF-8 */
    json_t *in;

    if (s != NULL)
        fz_v1_annotations(text);
    json_decref(s);
    in = json_loadb((const char *)data, size, 0, NULL);
    if (json_is_object(in))
        fz_v2_round_trip(in);
    json_decref(in);
    free(text);
    return 0;
}
