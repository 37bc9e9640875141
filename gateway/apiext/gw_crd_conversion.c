/*
 * ConversionReview requests and the check of their answers, in the order kube's converter
 * checks them (webhook_converter.go decodes the review and reads its result, converter.go
 * counts, types and identifies the converted objects and restores their metadata).
 */
#include "gw_crd_conversion.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_err.h"
#include "gw_gotype.h"
#include "gw_names.h"
#include "gw_json.h"

#define REVIEW_GROUP "apiextensions.k8s.io"

const char *
gw_crd_review_version(const json_t *review_versions)
{
    size_t i;
    json_t *v;

    json_array_foreach(review_versions, i, v)
    {
        const char *s = json_string_value(v);
        if (s != NULL && strcmp(s, "v1beta1") == 0)
            return "v1beta1";
        if (s != NULL && strcmp(s, "v1") == 0)
            return "v1";
    }
    return NULL;
}

char *
gw_crd_review_request(const gw_crd_review_t *rv, size_t *len)
{
    /* Jansson keeps insertion order: kube's field order, with the empty response kube sends */
    json_t *doc =
        json_pack("{s:s,s:s+,s:{s:s,s:s,s:O},s:{s:s,s:n,s:{s:{}}}}", "kind", "ConversionReview",
                  "apiVersion", REVIEW_GROUP "/", rv->review_version, "request", "uid", rv->uid,
                  "desiredAPIVersion", rv->desired, "objects", rv->objects, "response", "uid", "",
                  "convertedObjects", "result", "metadata");
    char *out = gw_json_dumps(doc, JSON_COMPACT);

    json_decref(doc);
    if (out == NULL)
        abort(); /* only allocation fails here, and allocation failure aborts */
    *len = strlen(out);
    return out;
}

/* ---- Go's words -------------------------------------------------------------------------- */

/* fmt's %q of a plain string (control characters as \xNN, which UIDs and names never hold) */
static void
go_quote(char *out, size_t n, const char *s)
{
    size_t o = 0;

    if (n < 3)
        return;
    out[o++] = '"';
    for (; *s != '\0' && o + 5 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            o += (size_t)snprintf(out + o, n - o, "\\x%02x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o++] = '"';
    out[o] = '\0';
}

/* Go's quoteChar: the byte (as the rune Go makes of it) in single quotes, escaped as
 * strconv.Quote escapes it. out holds 16 bytes. */
static const char *
go_quote_char(unsigned char c, char *out)
{
    static const char letters[] = "abfnrtv", chars[] = "\a\b\f\n\r\t\v";
    const char *at = c != '\0' ? strchr(chars, c) : NULL;

    if (at != NULL)
        snprintf(out, 16, "'\\%c'", letters[at - chars]);
    else if (c == '\\' || c == '\'')
        snprintf(out, 16, "'\\%c'", c);
    else if (c < 0x20 || c == 0x7f)
        snprintf(out, 16, "'\\x%02x'", c);
    else if (c >= 0x80)
        snprintf(out, 16, "'\\u%04x'", c);
    else
        snprintf(out, 16, "'%c'", c);
    return out;
}

void
gw_crd_review_json_error(const char *body, size_t len, char *out, size_t n)
{
    size_t i = 0;
    static const char *const literals[] = {"true", "false", "null"};
    char q[16];

    while (i < len && isspace((unsigned char)body[i]))
        i++;
    if (i == len) {
        snprintf(out, n, "unexpected end of JSON input");
        return;
    }
    for (size_t l = 0; l < 3; l++) {
        const char *lit = literals[l];
        if (body[i] != lit[0])
            continue;
        for (size_t k = 1; lit[k] != '\0'; k++) {
            if (i + k >= len) {
                snprintf(out, n, "unexpected end of JSON input");
                return;
            }
            if (body[i + k] != lit[k]) {
                snprintf(out, n, "invalid character %s in literal %s (expecting '%c')",
                         go_quote_char((unsigned char)body[i + k], q), lit, lit[k]);
                return;
            }
        }
        snprintf(out, n,
                 "json: cannot unmarshal %s into Go value of type struct { APIVersion "
                 "string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                 "\"json:\\\"kind,omitempty\\\"\" }",
                 l < 2 ? "bool" : "null");
        return;
    }
    if (strchr("{[\"-0123456789", body[i]) == NULL) {
        snprintf(out, n, "invalid character %s looking for beginning of value",
                 go_quote_char((unsigned char)body[i], q));
        return;
    }
    snprintf(out, n, "unexpected end of JSON input");
}

/* ---- the answer -------------------------------------------------------------------------- */

typedef struct {
    const gw_crd_review_t *rv;
    char *err;
    size_t err_len;
} ck_t;

/* "conversion for <gvk> failed: conversion webhook for <gvk> failed: <why>" */
static int webhook_failed(ck_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
webhook_failed(ck_t *c, const char *fmt, ...)
{
    char why[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(c->err, c->err_len, "conversion for %s failed: conversion webhook for %s failed: %s",
             c->rv->from_gvk, c->rv->call_gvk, why);
    return GW_EINVAL;
}

/* What rest.Result.Into says of an answer outside 2xx: a Status body's message, else the
 * generic text of the code. */
static int
http_failed(ck_t *c, int status, const json_t *doc)
{
    const char *msg = json_string_value(json_object_get(doc, "message"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));

    if (kind != NULL && strcmp(kind, "Status") == 0 && msg != NULL && msg[0] != '\0')
        return webhook_failed(c, "%s", msg);
    if (status == 404)
        return webhook_failed(c, "the server could not find the requested resource");
    if (status == 500)
        return webhook_failed(c, "an error on the server (\"unknown\") has prevented the request "
                                 "from succeeding");
    if (status == 503)
        return webhook_failed(c, "the server is currently unable to handle the request");
    return webhook_failed(c,
                          "the server responded with the status code %d but did not return more "
                          "information",
                          status);
}

/* The review's own checks (getConvertedObjectsFromResponse): its type and uid (v1 only, as
 * kube skips them for v1beta1), then its result. Returns the response or NULL. */
static const json_t *
review_objects(ck_t *c, const json_t *doc)
{
    const json_t *resp = json_object_get(doc, "response"), *result;
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    const char *uid, *st, *msg;
    char want[80], got[512];

    if (strcmp(c->rv->review_version, "v1") == 0) {
        if (av == NULL || kind == NULL || strcmp(av, REVIEW_GROUP "/v1") != 0 ||
            strcmp(kind, "ConversionReview") != 0) {
            const char *slash = av != NULL ? strchr(av, '/') : NULL;
            webhook_failed(c,
                           "expected webhook response of " REVIEW_GROUP
                           "/v1, Kind=ConversionReview, got %s%s, Kind=%s",
                           slash != NULL ? "" : "/", av != NULL ? av : "", kind ? kind : "");
            return NULL;
        }
    }
    if (!json_is_object(resp)) {
        webhook_failed(c, "no response provided");
        return NULL;
    }
    uid = json_string_value(json_object_get(resp, "uid"));
    if (strcmp(c->rv->review_version, "v1") == 0 && strcmp(uid ? uid : "", c->rv->uid) != 0) {
        go_quote(want, sizeof(want), c->rv->uid);
        go_quote(got, sizeof(got), uid ? uid : "");
        webhook_failed(c, "expected response.uid=%s, got %s", want, got);
        return NULL;
    }
    result = json_object_get(resp, "result");
    st = json_string_value(json_object_get(result, "status"));
    if (st == NULL || strcmp(st, "Success") != 0) {
        msg = json_string_value(json_object_get(result, "message"));
        if (msg != NULL && msg[0] != '\0')
            webhook_failed(c, "%s", msg);
        else
            webhook_failed(c, "response.result.status was '%s', not 'Success'", st ? st : "");
        return NULL;
    }
    return resp;
}

/* Each converted object decodes as an unstructured object: it needs a kind. */
static bool
objects_decode(ck_t *c, const json_t *objs)
{
    size_t i;
    json_t *o;

    json_array_foreach(objs, i, o)
    {
        const json_t *kind = json_object_get(o, "kind");
        if (!json_is_string(kind) || json_string_length(kind) == 0) {
            char *raw = gw_json_dumps(o, JSON_COMPACT | JSON_ENCODE_ANY);
            snprintf(c->err, c->err_len,
                     "conversion for %s failed: Object 'Kind' is missing in "
                     "'%s'",
                     c->rv->from_gvk, raw != NULL ? raw : "null");
            free(raw);
            return false;
        }
    }
    return true;
}

/* ---- one converted object ---------------------------------------------------------------- */

/* schema.GroupVersion's String of an apiVersion ("" when it does not parse) */
static void
group_version(const char *av, char *out, size_t n)
{
    const char *slash = strchr(av, '/');

    if (slash != NULL && strchr(slash + 1, '/') != NULL)
        av = ""; /* ParseGroupVersion fails: GroupVersionKind() is empty */
    else if (slash == av)
        av = slash + 1; /* "/v1": the empty group prints as the version alone */
    snprintf(out, n, "%s", av);
}

static const char *
meta_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(json_object_get(o, "metadata"), key));
    return s != NULL ? s : "";
}

static bool invalid(ck_t *c, size_t index, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* kube's "returned invalid <what> at index N: <why>" (what: "converted object" or "metadata in
 * object"); false, for the caller to return. */
static bool
invalid(ck_t *c, size_t index, const char *what, const char *fmt, ...)
{
    char why[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(c->err, c->err_len, "conversion for %s returned invalid %s at index %zu: %s",
             c->rv->from_gvk, what, index, why);
    return false;
}

/* The type, then the identity (validateConvertedObject). index is kube's (one past the
 * object's, as it counts before it reports). */
static bool
check_identity(ck_t *c, size_t index, const json_t *orig, const json_t *conv)
{
    static const char *const keys[] = {"name", "namespace", "uid"};
    static const char *const words[] = {"name", "namespace", "UID"};
    const char *av = json_string_value(json_object_get(conv, "apiVersion"));
    const char *ok = json_string_value(json_object_get(orig, "kind"));
    const char *ck = json_string_value(json_object_get(conv, "kind"));
    char gv[256];

    group_version(av != NULL ? av : "", gv, sizeof(gv));
    if (strcmp(gv, c->rv->desired) != 0)
        return invalid(c, index, "converted object",
                       "invalid groupVersion (expected %s, received %s)", c->rv->desired, gv);
    if (strcmp(ok ? ok : "", ck ? ck : "") != 0)
        return invalid(c, index, "converted object", "invalid kind (expected %s, received %s)",
                       ok ? ok : "", ck ? ck : "");
    for (size_t k = 0; k < 3; k++) {
        const char *a = meta_str(orig, keys[k]), *b = meta_str(conv, keys[k]);
        if (strcmp(a, b) != 0)
            return invalid(c, index, "converted object", "must have the same %s: %s != %s",
                           words[k], a, b);
    }
    return true;
}

/* A changed labels or annotations map is validated as kube validates it (labels' keys and
 * values, annotations' keys lower-cased), the first error in kube's field error words. */
static bool
valid_map(ck_t *c, size_t index, const char *fld, const json_t *m)
{
    bool labels = strcmp(fld, "labels") == 0;
    const char *path = labels ? "metadata.labels" : "metadata.annotation";
    const char *k, *msg;
    char q[512], lower[320];
    json_t *v;

    json_object_foreach((json_t *)m, k, v)
    {
        size_t i;
        for (i = 0; k[i] != '\0' && i + 1 < sizeof(lower); i++)
            lower[i] = (char)tolower((unsigned char)k[i]);
        lower[i] = '\0';
        msg = gw_valid_qualified_name(labels ? k : lower);
        if (msg != NULL) {
            go_quote(q, sizeof(q), k);
            return invalid(c, index, "metadata in object", "%s: Invalid value: %s: %s", path, q,
                           msg);
        }
        msg = labels ? gw_valid_label_value(json_string_value(v)) : NULL;
        if (msg != NULL) {
            go_quote(q, sizeof(q), json_string_value(v));
            return invalid(c, index, "metadata in object", "%s: Invalid value: %s: %s", path, q,
                           msg);
        }
    }
    return true;
}

/* One of labels and annotations: the webhook's, checked, replaces the original's. */
static bool
restore_field(ck_t *c, size_t index, const char *fld, const json_t *conv_meta, json_t *meta)
{
    const json_t *got = json_object_get(conv_meta, fld), *was = json_object_get(meta, fld);
    bool changed;
    const char *k;
    json_t *v;

    if (got == NULL || json_is_null(got)) {
        json_object_del(meta, fld);
        return true;
    }
    if (!json_is_object(got))
        return invalid(c, index, "metadata in object",
                       "invalid metadata.%s of type %s in converted object", fld,
                       gw_json_go_type(got));
    changed = json_object_size(got) != (json_is_object(was) ? json_object_size(was) : 0);
    json_object_foreach((json_t *)got, k, v)
    {
        if (!json_is_string(v))
            return invalid(c, index, "metadata in object",
                           "metadata.%s[%s] must be a string, but is %s in "
                           "converted object",
                           fld, k, gw_json_go_type(v));
        if (!json_equal(v, json_object_get(was, k)))
            changed = true;
    }
    if (changed && !valid_map(c, index, fld, got))
        return false;
    json_object_set_new(meta, fld, json_deep_copy(got));
    return true;
}

/* restoreObjectMeta: the original's metadata with the webhook's labels and annotations. */
static bool
restore_meta(ck_t *c, size_t index, const json_t *orig, json_t *conv)
{
    const json_t *cm = json_object_get(conv, "metadata"), *om = json_object_get(orig, "metadata");
    json_t *meta, *keep;

    if (cm == NULL && om == NULL)
        return true;
    if (cm == NULL)
        return invalid(c, index, "metadata in object", "missing metadata in converted object");
    if (!json_is_object(cm))
        return invalid(c, index, "metadata in object",
                       "invalid metadata of type %s in converted object", gw_json_go_type(cm));
    if (om != NULL && !json_is_object(om))
        return invalid(c, index, "metadata in object",
                       "invalid metadata of type %s in input object", gw_json_go_type(om));
    keep = json_incref((json_t *)cm); /* conv's metadata is replaced below */
    meta = om != NULL ? json_deep_copy(om) : json_object();
    json_object_set_new(conv, "metadata", meta);
    bool ok = restore_field(c, index, "labels", keep, meta) &&
              restore_field(c, index, "annotations", keep, meta);
    json_decref(keep);
    return ok;
}

int
gw_crd_review_response(const gw_crd_review_t *rv, int http_status, const char *body, size_t len,
                       json_t **out, char *err, size_t err_len)
{
    ck_t c = {.rv = rv, .err = err, .err_len = err_len};
    json_t *doc = gw_json_loadb(body, len, JSON_DECODE_ANY, NULL), *conv = NULL;
    const json_t *resp, *objs;
    char why[256];
    size_t i, n = json_array_size(rv->objects);
    int rc = GW_EINVAL;

    *out = NULL;
    if (http_status < 200 || http_status > 206) {
        http_failed(&c, http_status, doc);
        goto out;
    }
    if (!json_is_object(doc)) {
        gw_crd_review_json_error(body, len, why, sizeof(why));
        webhook_failed(&c, "couldn't get version/kind; json parse error: %s", why);
        goto out;
    }
    objs = json_object_get(json_object_get(doc, "response"), "convertedObjects");
    if (objs != NULL && !json_is_array(objs) && !json_is_null(objs)) {
        webhook_failed(&c,
                       "json: cannot unmarshal %s into Go struct field "
                       "ConversionResponse.response.convertedObjects of type "
                       "[]runtime.RawExtension",
                       json_is_object(objs)   ? "object"
                       : json_is_string(objs) ? "string"
                       : json_is_number(objs) ? "number"
                                              : "bool");
        goto out;
    }
    resp = review_objects(&c, doc);
    if (resp == NULL || !objects_decode(&c, objs))
        goto out;
    if (json_array_size(objs) != n) {
        snprintf(err, err_len, "conversion for %s returned %zu objects, expected %zu", rv->from_gvk,
                 json_array_size(objs), n);
        goto out;
    }
    conv = json_deep_copy(objs);
    for (i = 0; i < n; i++) {
        const json_t *orig = json_array_get(rv->objects, i);
        json_t *o = json_array_get(conv, i);
        if (!check_identity(&c, i + 1, orig, o) || !restore_meta(&c, i + 1, orig, o))
            goto out;
    }
    *out = conv;
    conv = NULL;
    rc = 0;
out:
    json_decref(conv);
    json_decref(doc);
    return rc;
}

void
gw_crd_review_call_failed(const gw_crd_review_t *rv, const char *why, char *err, size_t err_len)
{
    ck_t c = {.rv = rv, .err = err, .err_len = err_len};

    webhook_failed(&c, "%s", why);
}
