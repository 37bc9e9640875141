/*
 * AdmissionReview out and in: the request document in kube's field order, the answer read as
 * kube's REST client decodes it and VerifyAdmissionResponse checks it, and its JSON patch.
 */
#include "gw_admission_webhook_review.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "gw_alloc.h"
#include "gw_crd_conversion.h"
#include "gw_patch.h"
#include "gw_json.h"

#define ADMISSION_GROUP "admission.k8s.io"

/* ---- the request ------------------------------------------------------------------------- */

static void
put_str(json_t *o, const char *key, const char *v, bool omitempty)
{
    if (v == NULL)
        v = "";
    if (!omitempty || v[0] != '\0')
        json_object_set_new(o, key, json_string(v));
}

static json_t *
gvk(const gw_admission_gvk_t *k)
{
    json_t *o = json_object();

    put_str(o, "group", k->group, false);
    put_str(o, "version", k->version, false);
    put_str(o, "kind", k->kind, false);
    return o;
}

static json_t *
gvr(const gw_admission_gvr_t *r)
{
    json_t *o = json_object();

    put_str(o, "group", r->group, false);
    put_str(o, "version", r->version, false);
    put_str(o, "resource", r->resource, false);
    return o;
}

/* authenticationv1.UserInfo: every member omitempty. */
static json_t *
user_info(const gw_webhook_review_in_t *in)
{
    json_t *u = json_object(), *groups;

    put_str(u, "username", in->username, true);
    put_str(u, "uid", in->user_uid, true);
    if (in->ngroups > 0) {
        groups = json_array();
        for (size_t i = 0; i < in->ngroups; i++)
            json_array_append_new(groups, json_string(in->groups[i] ? in->groups[i] : ""));
        json_object_set_new(u, "groups", groups);
    }
    if (json_object_size(in->extra) > 0)
        json_object_set_new(u, "extra", json_deep_copy(in->extra));
    return u;
}

static json_t *
doc_or_null(const json_t *doc)
{
    return doc != NULL ? json_deep_copy(doc) : json_null();
}

char *
gw_webhook_review_request(const gw_webhook_review_in_t *in, size_t *len)
{
    json_t *review = json_object(), *rq = json_object();
    char *text;

    put_str(rq, "uid", in->uid, false);
    json_object_set_new(rq, "kind", gvk(&in->kind));
    json_object_set_new(rq, "resource", gvr(&in->resource));
    put_str(rq, "subResource", in->subresource, true);
    json_object_set_new(rq, "requestKind", gvk(&in->request_kind));
    json_object_set_new(rq, "requestResource", gvr(&in->request_resource));
    put_str(rq, "requestSubResource", in->request_subresource, true);
    put_str(rq, "name", in->name, true);
    put_str(rq, "namespace", in->namespace_, true);
    put_str(rq, "operation", in->operation, false);
    json_object_set_new(rq, "userInfo", user_info(in));
    json_object_set_new(rq, "object", doc_or_null(in->object));
    json_object_set_new(rq, "oldObject", doc_or_null(in->old_object));
    json_object_set_new(rq, "dryRun", json_boolean(in->dry_run));
    json_object_set_new(rq, "options", doc_or_null(in->options));
    json_object_set_new(review, "kind", json_string("AdmissionReview"));
    json_object_set_new(review, "apiVersion",
                        json_string(strcmp(in->version ? in->version : "v1", "v1beta1") == 0
                                        ? ADMISSION_GROUP "/v1beta1"
                                        : ADMISSION_GROUP "/v1"));
    json_object_set_new(review, "request", rq);
    text = gw_json_dumps(review, JSON_COMPACT);
    json_decref(review);
    *len = strlen(text);
    return text;
}

/* ---- the answer -------------------------------------------------------------------------- */

typedef struct {
    char *err;
    size_t err_len;
} answer_t;

static int refuse(answer_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
refuse(answer_t *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->err, c->err_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* encoding/json's name of a value's JSON type in an unmarshal error. */
static const char *
go_json_type(const json_t *v)
{
    if (json_is_object(v))
        return "object";
    if (json_is_array(v))
        return "array";
    if (json_is_string(v))
        return "string";
    if (json_is_number(v))
        return "number";
    return "bool";
}

/* What rest.Result.Into says of an answer outside 2xx: a Status body's message, else the
 * generic text of the code (as the conversion webhook's caller words it). */
static int
status_failed(answer_t *c, int status, const json_t *doc)
{
    const char *msg = json_string_value(json_object_get(doc, "message"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));

    if (kind != NULL && strcmp(kind, "Status") == 0 && msg != NULL && msg[0] != '\0')
        return refuse(c, "failed to call webhook: %s", msg);
    if (status == 404)
        return refuse(c, "failed to call webhook: the server could not find the requested "
                         "resource");
    if (status == 500)
        return refuse(c, "failed to call webhook: an error on the server (\"unknown\") has "
                         "prevented the request from succeeding");
    if (status == 503)
        return refuse(c, "failed to call webhook: the server is currently unable to handle the "
                         "request");
    return refuse(c,
                  "failed to call webhook: the server responded with the status code %d but did "
                  "not return more information",
                  status);
}

/* A member of the response that does not decode into its Go type. */
static int
field_type_error(answer_t *c, const char *field, const json_t *v, const char *type)
{
    return refuse(c,
                  "failed to call webhook: json: cannot unmarshal %s into Go struct field "
                  "AdmissionResponse.response.%s of type %s",
                  go_json_type(v), field, type);
}

/* Each member's Go type, as the decoder checks it (null is always fine). */
static int
check_types(answer_t *c, const json_t *resp)
{
    static const struct {
        const char *field;
        json_type type;
        const char *go;
    } fields[] = {
        {"uid", JSON_STRING, "types.UID"},
        {"allowed", JSON_TRUE, "bool"},
        {"status", JSON_OBJECT, "v1.Status"},
        {"patch", JSON_STRING, "[]uint8"},
        {"patchType", JSON_STRING, "v1.PatchType"},
        {"auditAnnotations", JSON_OBJECT, "map[string]string"},
        {"warnings", JSON_ARRAY, "[]string"},
    };

    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const json_t *v = json_object_get(resp, fields[i].field);
        bool ok =
            v == NULL || json_is_null(v) ||
            (fields[i].type == JSON_TRUE ? json_is_boolean(v) : json_typeof(v) == fields[i].type);
        if (!ok)
            return field_type_error(c, fields[i].field, v, fields[i].go);
    }
    return 0;
}

/* The base64 of response.patch, decoded and parsed; 0 with *out (NULL when empty). */
static int
decode_patch(answer_t *c, const char *b64, json_t **out)
{
    size_t n = strlen(b64), pad = 0;
    unsigned char *raw;
    int got;
    json_t *patch;

    *out = NULL;
    if (n == 0)
        return 0;
    if (n % 4 != 0)
        return refuse(c, "failed to call webhook: illegal base64 data at input byte %zu",
                      n / 4 * 4);
    raw = gw_calloc(1, n / 4 * 3 + 1);
    got = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)n);
    if (got < 0) {
        free(raw);
        return refuse(c, "failed to call webhook: illegal base64 data at input byte 0");
    }
    while (pad < 2 && n > pad && b64[n - 1 - pad] == '=')
        pad++;
    patch = gw_json_loadb((const char *)raw, (size_t)got - pad, JSON_DECODE_ANY, NULL);
    free(raw);
    if (patch == NULL)
        return refuse(c, "received undecodable patch in webhook response: invalid character "
                         "looking for beginning of value");
    if (!json_is_array(patch) && !json_is_null(patch)) {
        refuse(c,
               "received undecodable patch in webhook response: json: cannot unmarshal %s into "
               "Go value of type jsonpatch.Patch",
               go_json_type(patch));
        json_decref(patch);
        return -1;
    }
    for (size_t i = 0; i < json_array_size(patch); i++) {
        const json_t *op = json_array_get(patch, i);
        if (!json_is_object(op) && !json_is_null(op)) {
            refuse(c,
                   "received undecodable patch in webhook response: json: cannot unmarshal %s "
                   "into Go value of type jsonpatch.Operation",
                   go_json_type(op));
            json_decref(patch);
            return -1;
        }
    }
    if (json_array_size(patch) == 0) {
        json_decref(patch);
        patch = NULL; /* kube: an empty patch changes nothing */
    }
    *out = patch;
    return 0;
}

/* v1's checks: the response's uid, then the review's type. */
static int
check_v1(answer_t *c, const json_t *doc, const json_t *resp, const char *uid)
{
    const char *got = json_string_value(json_object_get(resp, "uid"));
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));

    if (strcmp(got ? got : "", uid) != 0)
        return refuse(c,
                      "received invalid webhook response: expected response.uid=\"%s\", got "
                      "\"%s\"",
                      uid, got ? got : "");
    if (av == NULL || kind == NULL || strcmp(av, ADMISSION_GROUP "/v1") != 0 ||
        strcmp(kind, "AdmissionReview") != 0)
        return refuse(
            c,
            "received invalid webhook response: expected webhook response of " ADMISSION_GROUP
            "/v1, Kind=AdmissionReview, got %s%s, Kind=%s",
            av != NULL && strchr(av, '/') ? "" : "/", av ? av : "", kind ? kind : "");
    return 0;
}

/* The patch and its type, as VerifyAdmissionResponse checks them per version and kind. */
static int
check_patch(answer_t *c, const char *version, bool mutating, const json_t *resp, json_t **patch)
{
    const char *b64 = json_string_value(json_object_get(resp, "patch"));
    const json_t *pt = json_object_get(resp, "patchType");
    bool has_patch = b64 != NULL && b64[0] != '\0', has_type = pt != NULL && !json_is_null(pt);
    bool v1 = strcmp(version, "v1") == 0;

    if (!mutating && v1 && has_patch)
        return refuse(c, "received invalid webhook response: validating webhook may not return "
                         "response.patch");
    if (!mutating && v1 && has_type)
        return refuse(c, "received invalid webhook response: validating webhook may not return "
                         "response.patchType");
    if (!mutating)
        return 0;
    if (v1 && has_patch && !has_type)
        return refuse(c, "received invalid webhook response: webhook returned response.patch "
                         "but not response.patchType");
    if (v1 && !has_patch && has_type)
        return refuse(c, "received invalid webhook response: webhook returned response.patchType "
                         "but not response.patch");
    if (v1 && has_type && json_string_length(pt) == 0)
        return refuse(c, "received invalid webhook response: webhook returned invalid "
                         "response.patchType of \"\"");
    if (!has_patch)
        return 0;
    if (v1 && strcmp(json_string_value(pt), "JSONPatch") != 0)
        return refuse(c, "unsupported patch type \"%s\"", json_string_value(pt));
    return decode_patch(c, b64, patch);
}

static json_t *
member_copy(const json_t *resp, const char *key)
{
    const json_t *v = json_object_get(resp, key);

    return v != NULL && !json_is_null(v) ? json_deep_copy(v) : NULL;
}

/* Warnings and audit annotations keep their string members only (the decoder refuses others,
 * which check_strings reports). */
static int
check_strings(answer_t *c, const json_t *resp)
{
    const json_t *w = json_object_get(resp, "warnings"),
                 *aa = json_object_get(resp, "auditAnnotations");
    const char *k;
    size_t i;
    json_t *v;

    json_array_foreach(w, i, v)
    {
        if (!json_is_string(v))
            return field_type_error(c, "warnings", v, "string");
    }
    json_object_foreach((json_t *)aa, k, v)
    {
        if (!json_is_string(v))
            return field_type_error(c, "auditAnnotations", v, "string");
    }
    return 0;
}

int
gw_webhook_review_response(const char *version, const char *uid, bool mutating, int http_status,
                           const char *body, size_t len, gw_webhook_response_t *out, char *err,
                           size_t err_len)
{
    answer_t c = {.err = err, .err_len = err_len};
    json_t *doc = gw_json_loadb(body ? body : "", len, JSON_DECODE_ANY, NULL);
    const json_t *resp;
    char why[256];
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (http_status < 200 || http_status > 206) {
        status_failed(&c, http_status, doc);
        goto out;
    }
    if (!json_is_object(doc)) {
        gw_crd_review_json_error(body ? body : "", len, why, sizeof(why));
        refuse(&c, "failed to call webhook: couldn't get version/kind; json parse error: %s", why);
        goto out;
    }
    resp = json_object_get(doc, "response");
    if (resp != NULL && !json_is_object(resp) && !json_is_null(resp)) {
        refuse(&c,
               "failed to call webhook: json: cannot unmarshal %s into Go struct field "
               "AdmissionReview.response of type %s.AdmissionResponse",
               go_json_type(resp), strcmp(version, "v1") == 0 ? "v1" : "v1beta1");
        goto out;
    }
    if (!json_is_object(resp)) {
        refuse(&c, "received invalid webhook response: webhook response was absent");
        goto out;
    }
    if (check_types(&c, resp) != 0 || check_strings(&c, resp) != 0)
        goto out;
    if (strcmp(version, "v1") == 0 && check_v1(&c, doc, resp, uid) != 0)
        goto out;
    if (check_patch(&c, version, mutating, resp, &out->patch) != 0)
        goto out;
    out->allowed = json_is_true(json_object_get(resp, "allowed"));
    out->result = member_copy(resp, "status");
    out->warnings = member_copy(resp, "warnings");
    out->audit_annotations = member_copy(resp, "auditAnnotations");
    rc = 0;
out:
    if (rc != 0)
        gw_webhook_response_clear(out);
    json_decref(doc);
    return rc;
}

void
gw_webhook_response_clear(gw_webhook_response_t *r)
{
    json_decref(r->patch);
    json_decref(r->result);
    json_decref(r->warnings);
    json_decref(r->audit_annotations);
    memset(r, 0, sizeof(*r));
}

/* ---- the patch --------------------------------------------------------------------------- */

json_t *
gw_webhook_review_apply(const json_t *object, const json_t *patch, char *err, size_t err_len)
{
    int bad_request = 0;
    json_t *patched = gw_json_patch(object, patch, &bad_request, err, err_len);

    if (patched == NULL)
        return NULL;
    if (!json_is_object(patched)) {
        snprintf(err, err_len,
                 "json: cannot unmarshal %s into Go value of type "
                 "map[string]interface {}",
                 go_json_type(patched));
        json_decref(patched);
        return NULL;
    }
    return patched;
}
