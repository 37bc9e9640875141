/* Unit tests for gateway/apiext/gw_crd_conversion: the ConversionReview request kube sends and
 * every check kube makes of the answer, with its texts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_crd_conversion.h"
#include "gw_err.h"
#include "tap.h"

#define UID "0e3c5f6a-1b2c-4d5e-8f90-123456789abc"
#define GVK "stable.example.com/v1, Kind=Proxy"
#define FAILED "conversion for " GVK " failed: conversion webhook for /, Kind= failed: "

static json_t *originals;

static gw_crd_review_t
review(const char *version)
{
    return (gw_crd_review_t){.review_version = version,
                             .uid = UID,
                             .desired = "stable.example.com/v2",
                             .from_gvk = GVK,
                             .call_gvk = "/, Kind=",
                             .objects = originals};
}

/* An answer: a v1 review with the uid, Success, and `objects` (JSON text). */
static char *
answer(const char *objects)
{
    static char buf[8192];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\","
             "\"response\":{\"uid\":\"" UID "\",\"result\":{\"status\":\"Success\"},"
             "\"convertedObjects\":%s}}",
             objects);
    return buf;
}

static void
check_err(const char *body, int status, const char *want, const char *name)
{
    gw_crd_review_t rv = review("v1");
    char err[2048] = "";
    json_t *out = NULL;
    int rc = gw_crd_review_response(&rv, status, body, strlen(body), &out, err, sizeof(err));

    tap_ok(rc == GW_EINVAL && out == NULL, "%s: refused", name);
    tap_is_str(err, want, name);
    json_decref(out);
}

static void
test_version(void)
{
    json_t *a = json_pack("[s,s]", "v2", "v1");
    json_t *b = json_pack("[s,s]", "v1beta1", "v1");
    json_t *c = json_pack("[s]", "v3");

    tap_is_str(gw_crd_review_version(a), "v1", "first known review version");
    tap_is_str(gw_crd_review_version(b), "v1beta1", "v1beta1 when listed first");
    tap_ok(gw_crd_review_version(c) == NULL, "no known review version");
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

static void
test_request(void)
{
    gw_crd_review_t rv = review("v1");
    size_t len;
    char *body = gw_crd_review_request(&rv, &len);
    json_t *doc = json_loads(body, 0, NULL);

    tap_is_int(len, strlen(body), "request length");
    tap_ok(strncmp(body,
                   "{\"kind\":\"ConversionReview\",\"apiVersion\":\"apiextensions.k8s.io/v1\","
                   "\"request\":{\"uid\":\"" UID "\",\"desiredAPIVersion\":"
                   "\"stable.example.com/v2\",\"objects\":[",
                   strlen("{\"kind\":\"ConversionReview\",\"apiVersion\":\"apiextensions.k8s.io/"
                          "v1\",\"request\":{\"uid\":\"" UID "\",\"desiredAPIVersion\":"
                          "\"stable.example.com/v2\",\"objects\":[")) == 0,
           "request in kube's field order: %s", body);
    tap_ok(json_equal(json_object_get(json_object_get(doc, "request"), "objects"), originals),
           "request carries the objects");
    tap_ok(json_is_null(json_object_get(json_object_get(doc, "response"), "convertedObjects")),
           "empty response sent as kube sends it");
    free(body);
    json_decref(doc);
    rv = review("v1beta1");
    body = gw_crd_review_request(&rv, &len);
    tap_ok(strstr(body, "\"apiVersion\":\"apiextensions.k8s.io/v1beta1\"") != NULL,
           "v1beta1 review");
    free(body);
}

static const char *converted =
    "[{\"apiVersion\":\"stable.example.com/v2\",\"kind\":\"Proxy\",\"metadata\":{\"name\":\"a\","
    "\"namespace\":\"ns\",\"uid\":\"u1\",\"generation\":99,\"labels\":{\"x\":\"y\"}},"
    "\"spec\":{\"hostPort\":\"h:80\"}}]";

static void
test_success(void)
{
    gw_crd_review_t rv = review("v1");
    const char *body = answer(converted);
    char err[512] = "";
    json_t *out = NULL, *meta;
    int rc = gw_crd_review_response(&rv, 200, body, strlen(body), &out, err, sizeof(err));

    tap_is_int(rc, 0, "a good answer is accepted");
    tap_diag("%s", err);
    meta = json_object_get(json_array_get(out, 0), "metadata");
    tap_is_int(json_integer_value(json_object_get(meta, "generation")), 1,
               "metadata restored from the original");
    tap_is_str(json_string_value(json_object_get(json_object_get(meta, "labels"), "x")), "y",
               "labels taken from the webhook");
    tap_ok(json_object_get(meta, "annotations") == NULL, "annotations dropped as the webhook did");
    tap_is_str(json_string_value(
                   json_object_get(json_object_get(json_array_get(out, 0), "spec"), "hostPort")),
               "h:80", "converted spec kept");
    json_decref(out);
}

static void
test_v1beta1_lenient(void)
{
    gw_crd_review_t rv = review("v1beta1");
    const char *body = "{\"response\":{\"uid\":\"other\",\"result\":{\"status\":\"Success\"},"
                       "\"convertedObjects\":[{\"apiVersion\":\"stable.example.com/v2\",\"kind\":"
                       "\"Proxy\",\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"uid\":"
                       "\"u1\"}}]}}";
    char err[512] = "";
    json_t *out = NULL;

    tap_is_int(gw_crd_review_response(&rv, 200, body, strlen(body), &out, err, sizeof(err)), 0,
               "v1beta1 checks neither type nor uid");
    json_decref(out);
}

static void
test_errors(void)
{
    check_err("garbage", 200,
              FAILED "couldn't get version/kind; json parse error: invalid "
                     "character 'g' looking for beginning of value",
              "not JSON");
    check_err("nope", 200,
              FAILED "couldn't get version/kind; json parse error: invalid "
                     "character 'o' in literal null (expecting 'u')",
              "a bad literal");
    check_err("{\"kind\":\"Status\",\"message\":\"boom\"}", 500, FAILED "boom", "a Status answer");
    check_err("x", 404, FAILED "the server could not find the requested resource", "404");
    check_err("x", 418,
              FAILED "the server responded with the status code 418 but did not return more "
                     "information",
              "another code");
    check_err("{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}", 200,
              FAILED "expected webhook response of apiextensions.k8s.io/v1, "
                     "Kind=ConversionReview, got /v1, Kind=Pod",
              "another type");
    check_err("{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\"}", 200,
              FAILED "no response provided", "no response");
    check_err("{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\","
              "\"response\":{\"uid\":\"x\"}}",
              200, FAILED "expected response.uid=\"" UID "\", got \"x\"", "uid mismatch");
    check_err("{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\","
              "\"response\":{\"uid\":\"" UID "\",\"result\":{\"status\":\"Failure\","
              "\"message\":\"cannot convert\"}}}",
              200, FAILED "cannot convert", "the webhook's failure message");
    check_err("{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\","
              "\"response\":{\"uid\":\"" UID "\",\"result\":{}}}",
              200, FAILED "response.result.status was '', not 'Success'", "no status");
    check_err(answer("[]"), 200, "conversion for " GVK " returned 0 objects, expected 1",
              "too few objects");
    check_err(answer("null"), 200, "conversion for " GVK " returned 0 objects, expected 1",
              "null objects");
    check_err(answer("[{\"apiVersion\":\"x/v1\"}]"), 200,
              "conversion for " GVK " failed: Object 'Kind' is missing in "
              "'{\"apiVersion\":\"x/v1\"}'",
              "an object without kind");
    check_err(answer("[{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"Proxy\"}]"), 200,
              "conversion for " GVK " returned invalid converted object at index 1: invalid "
              "groupVersion (expected stable.example.com/v2, received stable.example.com/v1)",
              "wrong version");
    check_err(answer("[{\"apiVersion\":\"stable.example.com/v2\",\"kind\":\"Other\"}]"), 200,
              "conversion for " GVK " returned invalid converted object at index 1: invalid "
              "kind (expected Proxy, received Other)",
              "wrong kind");
    check_err(answer("[{\"apiVersion\":\"stable.example.com/v2\",\"kind\":\"Proxy\","
                     "\"metadata\":{\"name\":\"b\"}}]"),
              200,
              "conversion for " GVK " returned invalid converted object at index 1: must have "
              "the same name: a != b",
              "renamed");
    check_err(answer("[{\"apiVersion\":\"stable.example.com/v2\",\"kind\":\"Proxy\","
                     "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"uid\":\"u2\"}}]"),
              200,
              "conversion for " GVK " returned invalid converted object at index 1: must have "
              "the same UID: u1 != u2",
              "another uid");
    check_err(answer("[{\"apiVersion\":\"stable.example.com/v2\",\"kind\":\"Proxy\","
                     "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"uid\":\"u1\","
                     "\"labels\":{\"x\":1}}}]"),
              200,
              "conversion for " GVK " returned invalid metadata in object at index 1: "
              "metadata.labels[x] must be a string, but is int64 in converted object",
              "a label that is not a string");
    check_err(answer("[{\"apiVersion\":\"stable.example.com/v2\",\"kind\":\"Proxy\","
                     "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"uid\":\"u1\","
                     "\"labels\":{\"x\":\"-bad\"}}}]"),
              200,
              "conversion for " GVK " returned invalid metadata in object at index 1: "
              "metadata.labels: Invalid value: \"-bad\": a valid label must be an empty string "
              "or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
              "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
              "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
              "an invalid label value");
    check_err(answer("[{\"apiVersion\":\"stable.example.com/v2\",\"kind\":\"Proxy\","
                     "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"uid\":\"u1\","
                     "\"labels\":\"x\"}}]"),
              200,
              "conversion for " GVK " returned invalid metadata in object at index 1: invalid "
              "metadata.labels of type string in converted object",
              "labels that are not an object");
    check_err(answer("[{\"apiVersion\":\"stable.example.com/v2\",\"kind\":\"Proxy\"}]"), 200,
              "conversion for " GVK " returned invalid converted object at index 1: must have "
              "the same name: a != ",
              "identity is checked before metadata");
}

static void
test_call_failed(void)
{
    gw_crd_review_t rv = review("v1");
    char err[512];

    gw_crd_review_call_failed(&rv,
                              "Post \"https://x/convert?timeout=30s\": context deadline "
                              "exceeded",
                              err, sizeof(err));
    tap_is_str(err, FAILED "Post \"https://x/convert?timeout=30s\": context deadline exceeded",
               "a call that got no answer");
}

int
main(void)
{
    originals = json_loads("[{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"Proxy\","
                           "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"uid\":\"u1\","
                           "\"generation\":1,\"annotations\":{\"k\":\"v\"}},"
                           "\"spec\":{\"host\":\"h\"}}]",
                           0, NULL);
    test_version();
    test_request();
    test_success();
    test_v1beta1_lenient();
    test_errors();
    test_call_failed();
    json_decref(originals);
    return tap_done();
}
