/* metav1.Status answers, and the table from gw_err.h codes to kube-apiserver's errors. */
#include "gw_req.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_api_int.h"
#include "gw_err.h"
#include "gw_log.h"

/* The length of the valid UTF-8 sequence at p, or 0 (bad lead, continuation, overlong form,
 * surrogate or beyond U+10FFFF). */
static size_t
utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
               : p[0] >= 0xe0 && p[0] <= 0xef ? 3
               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                              : 0;
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
    }
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

/*
 * s as valid UTF-8, in the arena: Jansson refuses anything else, and Go's encoder (kube's)
 * writes U+FFFD for each invalid byte, which we do too.
 */
static const char *
valid_utf8(gw_arena_t *a, const char *s)
{
    char *out = gw_arena_alloc(a, strlen(s) * 3 + 1), *o = out;
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0';) {
        size_t n = utf8_len(p);
        if (n == 0) {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
            continue;
        }
        memcpy(o, p, n);
        o += n;
        p += n;
    }
    *o = '\0';
    return out;
}

static void
set_string(json_t *obj, const char *key, json_t *from)
{
    json_t *v = json_object_get(from, key);
    if (json_is_string(v) && json_string_length(v) > 0)
        json_object_set(obj, key, v);
}

/* StatusDetails in kube's field order, empty strings left out as Go's omitempty does. */
static json_t *
ordered_details(json_t *d)
{
    static const char *const order[] = {"name", "group", "kind", "uid"};
    json_t *out = json_object();
    const char *key;
    json_t *v;
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        set_string(out, order[i], d);
    json_t *causes = json_object_get(d, "causes");
    if (json_array_size(causes) > 0)
        json_object_set(out, "causes", causes);
    json_t *retry = json_object_get(d, "retryAfterSeconds");
    if (json_integer_value(retry) > 0)
        json_object_set(out, "retryAfterSeconds", retry);
    json_object_foreach(d, key, v)
    {
        if (json_object_get(out, key) == NULL && !json_is_string(v) && strcmp(key, "causes") != 0 &&
            strcmp(key, "retryAfterSeconds") != 0)
            json_object_set(out, key, v);
    }
    return out;
}

void
gw_reply_status(gw_req_t *r, int code, const char *reason, json_t *details, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    json_t *st = json_object();
    json_object_set_new(st, "kind", json_string("Status"));
    json_object_set_new(st, "apiVersion", json_string("v1"));
    json_object_set_new(st, "metadata", json_object());
    json_object_set_new(st, "status", json_string("Failure"));
    json_object_set_new(st, "message", json_string(valid_utf8(r->arena, msg)));
    json_object_set_new(st, "reason", json_string(reason));
    free(msg);
    if (details != NULL) {
        json_t *d = ordered_details(details);
        json_int_t retry = json_integer_value(json_object_get(d, "retryAfterSeconds"));
        if (retry > 0)
            gw_req_set_header(r, "Retry-After",
                              gw_arena_sprintf(r->arena, "%lld", (long long)retry));
        json_object_set_new(st, "details", d);
        json_decref(details);
    }
    json_object_set_new(st, "code", json_integer(code));
    if (r->accept == GW_MEDIA_TABLE)
        r->accept = GW_MEDIA_JSON; /* a Status is never a Table */
    gw_reply_json(r, code, st);
}

void
gw_api__reply_not_acceptable(gw_req_t *r)
{
    gw_reply_status(r, 406, "NotAcceptable", NULL,
                    "only the following media types are accepted: %s",
                    !r->info.is_resource ? GW_NEG_PRODUCED_PLAIN
                    : r->cbor            ? GW_NEG_PRODUCED_CBOR
                                         : GW_NEG_PRODUCED);
}

/* ---- gw_err.h codes --------------------------------------------------------------------- */

/* One row of the table. Messages about an object read `<before><resource> "<name>"<after>`. */
typedef struct {
    int err;
    int code;
    const char *reason;
    bool about_object;          /* the message names the object; details {name, group, kind} */
    const char *before, *after; /* about_object; else `after` is the whole message */
    int retry_after;            /* seconds; 0: none */
} err_map_t;

static const err_map_t err_map[] = {
    {GW_ENOTFOUND, 404, "NotFound", true, "", " not found", 0},
    {GW_EEXIST, 409, "AlreadyExists", true, "", " already exists", 0},
    {GW_ECONFLICT, 409, "Conflict", true, "Operation cannot be fulfilled on ",
     ": the object has been modified; please apply your changes to the latest version and try "
     "again",
     0},
    {GW_ECOMPACTED, 410, "Expired", false, NULL, "too old resource version", 0},
    {GW_EFUTUREREV, 504, "Timeout", false, NULL, "Timeout: Too large resource version", 1},
    {GW_ETOOLARGE, 413, "RequestEntityTooLarge", false, NULL,
     "Request entity too large: etcdserver: request is too large", 0},
    {GW_ETIMEOUT, 504, "Timeout", false, NULL,
     "Timeout: request did not complete within the allowed duration", 0},
    {GW_EUNAVAILABLE, 503, "ServiceUnavailable", false, NULL,
     "etcd cluster is unavailable or misconfigured", 0},
    {GW_ECANCELED, 503, "ServiceUnavailable", false, NULL, "the request was canceled", 0},
};

/* "<resource>[.<group>]" of the request's resource, as kube's GroupResource.String(). */
static const char *
qualified(gw_req_t *r, const char **group, const char **resource)
{
    *group = valid_utf8(r->arena, r->resource != NULL ? r->resource->group : r->info.group);
    *resource = valid_utf8(r->arena, r->resource != NULL ? r->resource->name : r->info.resource);
    if (**group == '\0')
        return *resource;
    return gw_arena_sprintf(r->arena, "%s.%s", *resource, *group);
}

static json_t *
error_details(const err_map_t *m, const char *name, const char *group, const char *resource)
{
    json_t *d = json_object();
    if (m->about_object) {
        json_object_set_new(d, "name", json_string(name));
        json_object_set_new(d, "group", json_string(group));
        json_object_set_new(d, "kind", json_string(resource));
    }
    if (m->err == GW_EFUTUREREV) {
        json_t *cause = json_pack("{s:s,s:s}", "reason", "ResourceVersionTooLarge", "message",
                                  "Too large resource version");
        json_object_set_new(d, "causes", json_pack("[o]", cause));
    }
    if (m->retry_after > 0)
        json_object_set_new(d, "retryAfterSeconds", json_integer(m->retry_after));
    if (json_object_size(d) == 0) {
        json_decref(d);
        return NULL;
    }
    return d;
}

static void
reply_internal(gw_req_t *r, int err)
{
    gw_log_warn(r->audit_id, "internal error: %s", gw_errname(err));
    json_t *cause = json_pack("{s:s}", "message", gw_strerror(err));
    gw_reply_status(r, 500, "InternalError", json_pack("{s:[o]}", "causes", cause),
                    "Internal error occurred: %s", gw_strerror(err));
}

void
gw_reply_error(gw_req_t *r, int err, const char *name)
{
    const err_map_t *m = NULL;
    const char *group, *resource;
    for (size_t i = 0; i < sizeof(err_map) / sizeof(err_map[0]); i++) {
        if (err_map[i].err == err)
            m = &err_map[i];
    }
    if (m == NULL) {
        reply_internal(r, err);
        return;
    }
    name = valid_utf8(r->arena, name != NULL ? name : "");
    const char *what = qualified(r, &group, &resource);
    json_t *details = error_details(m, name, group, resource);
    if (m->about_object)
        gw_reply_status(r, m->code, m->reason, details, "%s%s \"%s\"%s", m->before, what, name,
                        m->after);
    else
        gw_reply_status(r, m->code, m->reason, details, "%s", m->after);
}
