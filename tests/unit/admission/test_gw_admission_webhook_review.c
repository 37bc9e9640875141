/* Unit tests for gateway/admission/gw_admission_webhook_review: the AdmissionReview sent (kube's
 * field order, omitempty members, v1beta1), and the answer as kube's client and
 * VerifyAdmissionResponse check it (HTTP failures, garbage, uid, type, patch rules per version
 * and direction, member types, base64), and the patch applied. */
#include <stdlib.h>
#include <string.h>

#include "gw_admission_webhook_review.h"
#include "tap.h"

static void
test_request(void)
{
    const char *groups[] = {"system:masters", "system:authenticated"};
    json_t *obj = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                            "metadata", "name", "c");
    json_t *opts = json_pack("{s:s,s:s}", "kind", "CreateOptions", "apiVersion", "meta.k8s.io/v1");
    gw_webhook_review_in_t in = {
        .version = "v1",
        .uid = "u-1",
        .kind = {"", "v1", "ConfigMap"},
        .resource = {"", "v1", "configmaps"},
        .request_kind = {"", "v1", "ConfigMap"},
        .request_resource = {"", "v1", "configmaps"},
        .name = "c",
        .namespace_ = "default",
        .operation = "CREATE",
        .username = "admin",
        .groups = groups,
        .ngroups = 2,
        .object = obj,
        .options = opts,
    };
    size_t len;
    char *text = gw_webhook_review_request(&in, &len);

    tap_is_str(
        text,
        "{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":"
        "{\"uid\":\"u-1\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"ConfigMap\"},"
        "\"resource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"configmaps\"},"
        "\"requestKind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"ConfigMap\"},"
        "\"requestResource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":"
        "\"configmaps\"},\"name\":\"c\",\"namespace\":\"default\",\"operation\":\"CREATE\","
        "\"userInfo\":{\"username\":\"admin\",\"groups\":[\"system:masters\","
        "\"system:authenticated\"]},\"object\":{\"apiVersion\":\"v1\",\"kind\":"
        "\"ConfigMap\",\"metadata\":{\"name\":\"c\"}},\"oldObject\":null,\"dryRun\":false,"
        "\"options\":{\"kind\":\"CreateOptions\",\"apiVersion\":\"meta.k8s.io/v1\"}}}",
        "a v1 review in kube's field order, empty members left out, null objects kept");
    tap_is_int(len, strlen(text), "its length");
    free(text);
    in.version = "v1beta1";
    in.subresource = in.request_subresource = "status";
    in.dry_run = true;
    in.object = NULL;
    in.options = NULL;
    text = gw_webhook_review_request(&in, &len);
    tap_ok(strstr(text, "\"apiVersion\":\"admission.k8s.io/v1beta1\"") != NULL, "a v1beta1 review");
    tap_ok(strstr(text, "\"subResource\":\"status\"") != NULL &&
               strstr(text, "\"requestSubResource\":\"status\"") != NULL,
           "... with its subresources");
    tap_ok(strstr(text, "\"object\":null") != NULL && strstr(text, "\"dryRun\":true") != NULL &&
               strstr(text, "\"options\":null") != NULL,
           "... no object, a dry run, no options");
    free(text);
    json_decref(obj);
    json_decref(opts);
}

/* The answer `body` to a review of `version`/"u-1" (200 unless said). */
static int
verify(const char *version, bool mutating, int status, const char *body, gw_webhook_response_t *out,
       char *err)
{
    return gw_webhook_review_response(version, "u-1", mutating, status, body, strlen(body), out,
                                      err, 512);
}

static void
expect_error(const char *version, bool mutating, int status, const char *body, const char *want,
             const char *name)
{
    gw_webhook_response_t r;
    char err[512] = "";
    int rc = verify(version, mutating, status, body, &r, err);

    tap_ok(rc == -1, "%s: refused", name);
    tap_is_str(err, want, name);
}

#define V1(resp)                                                                                   \
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":" resp "}"
/* base64 of [{"op":"add","path":"/metadata/labels","value":{"a":"b"}}] */
#define PATCH_B64 "W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscyIsInZhbHVlIjp7ImEiOiJiIn19XQ=="

static void
test_response_ok(void)
{
    gw_webhook_response_t r;
    char err[512] = "";

    tap_is_int(verify("v1", false, 200,
                      V1("{\"uid\":\"u-1\",\"allowed\":false,\"status\":{\"code\":403,\"message\":"
                         "\"no\"},\"warnings\":[\"w\"],\"auditAnnotations\":{\"k\":\"v\"}}"),
                      &r, err),
               0, "a refusal with its status, warnings and annotations");
    tap_ok(!r.allowed, "... not allowed");
    tap_is_int(json_integer_value(json_object_get(r.result, "code")), 403, "... its code");
    tap_is_str(json_string_value(json_array_get(r.warnings, 0)), "w", "... its warning");
    tap_is_str(json_string_value(json_object_get(r.audit_annotations, "k")), "v",
               "... its annotation");
    gw_webhook_response_clear(&r);
    tap_is_int(verify("v1", true, 200,
                      V1("{\"uid\":\"u-1\",\"allowed\":true,\"patchType\":\"JSONPatch\","
                         "\"patch\":\"" PATCH_B64 "\"}"),
                      &r, err),
               0, "a mutating answer with a patch");
    tap_ok(r.allowed && json_array_size(r.patch) == 1, "... the patch decoded");
    json_t *obj = json_pack("{s:{s:s}}", "metadata", "name", "x"), *patched;
    patched = gw_webhook_review_apply(obj, r.patch, err, sizeof(err));
    tap_is_str(json_string_value(json_object_get(
                   json_object_get(json_object_get(patched, "metadata"), "labels"), "a")),
               "b", "... and applied");
    json_decref(patched);
    json_decref(obj);
    gw_webhook_response_clear(&r);
    tap_is_int(verify("v1beta1", true, 200,
                      "{\"response\":{\"uid\":\"other\",\"allowed\":true,\"patch\":\"" PATCH_B64
                      "\"}}",
                      &r, err),
               0, "v1beta1: no uid, type or patchType checks; the patch is JSONPatch");
    tap_ok(r.patch != NULL, "... decoded");
    gw_webhook_response_clear(&r);
    tap_is_int(verify("v1", true, 200,
                      V1("{\"uid\":\"u-1\",\"allowed\":true,\"patchType\":\"JSONPatch\","
                         "\"patch\":\"W10=\"}"),
                      &r, err),
               0, "an empty patch");
    tap_ok(r.patch == NULL, "... changes nothing");
    gw_webhook_response_clear(&r);
}

static void
test_response_errors(void)
{
    expect_error("v1", false, 200, "garbage",
                 "failed to call webhook: couldn't get version/kind; json parse error: invalid "
                 "character 'g' looking for beginning of value",
                 "garbage");
    expect_error("v1", false, 404, "nothing",
                 "failed to call webhook: the server could not find the requested resource",
                 "a 404");
    expect_error("v1", false, 500, "{\"kind\":\"Status\",\"message\":\"boom\"}",
                 "failed to call webhook: boom", "a Status answer outside 2xx");
    expect_error("v1", false, 418, "",
                 "failed to call webhook: the server responded with the status code 418 but did "
                 "not return more information",
                 "another code");
    expect_error("v1", false, 200, "{\"apiVersion\":\"admission.k8s.io/v1\"}",
                 "received invalid webhook response: webhook response was absent", "no response");
    expect_error("v1", false, 200, V1("{\"uid\":\"u-2\",\"allowed\":true}"),
                 "received invalid webhook response: expected response.uid=\"u-1\", got \"u-2\"",
                 "a wrong uid");
    expect_error("v1", false, 200,
                 "{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\","
                 "\"response\":{\"uid\":\"u-1\",\"allowed\":true}}",
                 "received invalid webhook response: expected webhook response of "
                 "admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, "
                 "Kind=AdmissionReview",
                 "another version");
    expect_error("v1", false, 200, V1("{\"uid\":\"u-1\",\"allowed\":\"yes\"}"),
                 "failed to call webhook: json: cannot unmarshal string into Go struct field "
                 "AdmissionResponse.response.allowed of type bool",
                 "allowed not a bool");
    expect_error("v1", false, 200, V1("[]"),
                 "failed to call webhook: json: cannot unmarshal array into Go struct field "
                 "AdmissionReview.response of type v1.AdmissionResponse",
                 "response not an object");
    expect_error("v1", false, 200,
                 V1("{\"uid\":\"u-1\",\"allowed\":true,\"patch\":\"" PATCH_B64 "\"}"),
                 "received invalid webhook response: validating webhook may not return "
                 "response.patch",
                 "a validating webhook's patch");
    expect_error("v1", true, 200,
                 V1("{\"uid\":\"u-1\",\"allowed\":true,\"patch\":\"" PATCH_B64 "\"}"),
                 "received invalid webhook response: webhook returned response.patch but not "
                 "response.patchType",
                 "a patch without its type");
    expect_error("v1", true, 200,
                 V1("{\"uid\":\"u-1\",\"allowed\":true,\"patchType\":\"JSONPatch\"}"),
                 "received invalid webhook response: webhook returned response.patchType but not "
                 "response.patch",
                 "a type without its patch");
    expect_error(
        "v1", true, 200,
        V1("{\"uid\":\"u-1\",\"allowed\":true,\"patchType\":\"Merge\",\"patch\":\"" PATCH_B64
           "\"}"),
        "unsupported patch type \"Merge\"", "another patch type");
    expect_error("v1", true, 200,
                 V1("{\"uid\":\"u-1\",\"allowed\":true,\"patchType\":\"JSONPatch\",\"patch\":"
                    "\"e30=\"}"),
                 "received undecodable patch in webhook response: json: cannot unmarshal object "
                 "into Go value of type jsonpatch.Patch",
                 "a patch that is not a list");
    expect_error("v1", true, 200,
                 V1("{\"uid\":\"u-1\",\"allowed\":true,\"patchType\":\"JSONPatch\",\"patch\":"
                    "\"abc\"}"),
                 "failed to call webhook: illegal base64 data at input byte 0", "bad base64");
    expect_error("v1", false, 200, V1("{\"uid\":\"u-1\",\"allowed\":true,\"warnings\":[1]}"),
                 "failed to call webhook: json: cannot unmarshal number into Go struct field "
                 "AdmissionResponse.response.warnings of type string",
                 "a warning that is no string");
}

static void
test_apply_errors(void)
{
    json_t *obj = json_pack("{s:{}}", "metadata");
    json_t *bad = json_pack("[{s:s,s:s,s:i}]", "op", "replace", "path", "/nothing", "value", 1);
    json_t *scalar = json_pack("[{s:s,s:s,s:i}]", "op", "replace", "path", "", "value", 1);
    char err[512] = "";

    tap_ok(gw_webhook_review_apply(obj, bad, err, sizeof(err)) == NULL && err[0] != '\0',
           "a patch that does not apply is an error");
    tap_ok(gw_webhook_review_apply(obj, scalar, err, sizeof(err)) == NULL &&
               strstr(err, "cannot unmarshal number") != NULL,
           "a patched object that is no object is an error");
    json_decref(obj);
    json_decref(bad);
    json_decref(scalar);
}

int
main(void)
{
    test_request();
    test_response_ok();
    test_response_errors();
    test_apply_errors();
    return tap_done();
}
