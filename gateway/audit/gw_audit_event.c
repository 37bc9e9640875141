/* An audit Event encoded as kube's log backend writes it. */
#include "gw_audit_event.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_json.h"

/* ---- Go's JSON ---------------------------------------------------------------------------- */

static void
write_str(gw_buf_t *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    gw_buf_char(b, '"');
    for (; *p != '\0'; p++) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            gw_buf_char(b, '\\');
            gw_buf_char(b, (char)c);
        } else if (c == '\n') {
            gw_buf_str(b, "\\n");
        } else if (c == '\r') {
            gw_buf_str(b, "\\r");
        } else if (c == '\t') {
            gw_buf_str(b, "\\t");
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            /* Go escapes these HTML characters too */
            char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
            gw_buf_str(b, u);
        } else if (c == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
            gw_buf_str(b, p[2] == 0xa8 ? "\\u2028" : "\\u2029");
            p += 2;
        } else {
            gw_buf_char(b, (char)c);
        }
    }
    gw_buf_char(b, '"');
}

static void
write_scalar(gw_buf_t *b, const json_t *v)
{
    char *s = gw_json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (s == NULL)
        abort(); /* out of memory only */
    gw_buf_str(b, s);
    free(s);
}

/* How an object is written: as it is, as an object whose managedFields go (the top object or a
 * list's item: its metadata loses them), or as that metadata. */
typedef enum {
    AS_IS,
    AS_TOP,
    AS_META,
} mode_t_;

static void write_value(gw_buf_t *b, const json_t *v, mode_t_ mode);

static int
by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A Go map: keys sorted, as encoding/json writes maps. */
static void
write_map(gw_buf_t *b, const json_t *v)
{
    size_t n = json_object_size(v), i = 0;
    const char **keys = gw_calloc(n + 1, sizeof(char *));
    const char *k;
    json_t *item;
    json_object_foreach((json_t *)v, k, item) keys[i++] = k;
    qsort(keys, n, sizeof(char *), by_key);
    gw_buf_char(b, '{');
    for (i = 0; i < n; i++) {
        if (i > 0)
            gw_buf_char(b, ',');
        write_str(b, keys[i]);
        gw_buf_char(b, ':');
        write_value(b, json_object_get(v, keys[i]), AS_IS);
    }
    gw_buf_char(b, '}');
    free(keys);
}

static void
write_object(gw_buf_t *b, const json_t *v, mode_t_ mode)
{
    const char *k;
    json_t *item;
    bool first = true;
    gw_buf_char(b, '{');
    json_object_foreach((json_t *)v, k, item)
    {
        if (mode == AS_META && strcmp(k, "managedFields") == 0)
            continue;
        if (!first)
            gw_buf_char(b, ',');
        first = false;
        write_str(b, k);
        gw_buf_char(b, ':');
        if (mode == AS_TOP && strcmp(k, "metadata") == 0)
            write_value(b, item, AS_META);
        else if (mode == AS_TOP && strcmp(k, "items") == 0)
            write_value(b, item, AS_TOP); /* each item is cleaned as the top */
        else
            write_value(b, item, AS_IS);
    }
    gw_buf_char(b, '}');
}

static void
write_value(gw_buf_t *b, const json_t *v, mode_t_ mode)
{
    size_t i;
    json_t *item;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        write_object(b, v, mode);
        break;
    case JSON_ARRAY:
        gw_buf_char(b, '[');
        json_array_foreach((json_t *)v, i, item)
        {
            if (i > 0)
                gw_buf_char(b, ',');
            write_value(b, item, mode == AS_TOP ? AS_TOP : AS_IS);
        }
        gw_buf_char(b, ']');
        break;
    case JSON_STRING:
        write_str(b, json_string_value(v));
        break;
    default:
        write_scalar(b, v);
        break;
    }
}

void
gw_audit_json_write(gw_buf_t *b, const json_t *v, bool omit_mf)
{
    write_value(b, v, omit_mf ? AS_TOP : AS_IS);
}

/* ---- the event ------------------------------------------------------------------------------- */

char *
gw_audit_micro_time(int64_t us, char *out, size_t len)
{
    time_t t = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(out, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(us % 1000000));
    return out;
}

static bool
set(const char *s)
{
    return s != NULL && *s != '\0';
}

/* ,"key":"value" when value is set (omitempty). */
static void
opt_str(gw_buf_t *b, bool *first, const char *key, const char *value)
{
    if (!set(value))
        return;
    if (!*first)
        gw_buf_char(b, ',');
    *first = false;
    write_str(b, key);
    gw_buf_char(b, ':');
    write_str(b, value);
}

static void
key(gw_buf_t *b, const char *k)
{
    gw_buf_char(b, ',');
    write_str(b, k);
    gw_buf_char(b, ':');
}

static void
write_strings(gw_buf_t *b, const char *const *v, size_t n)
{
    gw_buf_char(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            gw_buf_char(b, ',');
        write_str(b, v[i]);
    }
    gw_buf_char(b, ']');
}

static void
write_user(gw_buf_t *b, const gw_audit_user_t *u)
{
    bool first = true;
    gw_buf_char(b, '{');
    opt_str(b, &first, "username", u->name);
    opt_str(b, &first, "uid", u->uid);
    if (u->n_groups > 0) {
        if (!first)
            gw_buf_char(b, ',');
        first = false;
        write_str(b, "groups");
        gw_buf_char(b, ':');
        write_strings(b, u->groups, u->n_groups);
    }
    if (u->extra != NULL && json_object_size(u->extra) > 0) {
        if (!first)
            gw_buf_char(b, ',');
        write_str(b, "extra");
        gw_buf_char(b, ':');
        write_map(b, u->extra);
    }
    gw_buf_char(b, '}');
}

static void
write_ref(gw_buf_t *b, const gw_audit_objref_t *o)
{
    bool first = true;
    gw_buf_char(b, '{');
    opt_str(b, &first, "resource", o->resource);
    opt_str(b, &first, "namespace", o->namespace_);
    opt_str(b, &first, "name", o->name);
    opt_str(b, &first, "uid", o->uid);
    opt_str(b, &first, "apiGroup", o->api_group);
    opt_str(b, &first, "apiVersion", o->api_version);
    opt_str(b, &first, "resourceVersion", o->resource_version);
    opt_str(b, &first, "subresource", o->subresource);
    gw_buf_char(b, '}');
}

/* The bounded copy of a Status answer kube keeps (status, message, reason, details), and the
 * code. */
static void
write_status(gw_buf_t *b, const json_t *status, int code)
{
    gw_buf_str(b, "{\"metadata\":{}");
    if (status != NULL) {
        static const char *const keys[] = {"status", "message", "reason"};
        for (size_t i = 0; i < 3; i++) {
            const char *v = json_string_value(json_object_get(status, keys[i]));
            if (set(v)) {
                key(b, keys[i]);
                write_str(b, v);
            }
        }
        const json_t *d = json_object_get(status, "details");
        if (json_is_object(d)) {
            key(b, "details");
            write_value(b, d, AS_IS);
        }
    }
    gw_buf_printf(b, ",\"code\":%d}", code);
}

static void
write_objects(gw_buf_t *b, const gw_audit_event_t *ev)
{
    if (ev->request_object != NULL && ev->level >= GW_AUDIT_REQUEST) {
        key(b, "requestObject");
        gw_audit_json_write(b, ev->request_object, ev->omit_managed_fields);
    }
    if (ev->response_object != NULL && ev->level >= GW_AUDIT_REQUEST_RESPONSE) {
        key(b, "responseObject");
        gw_audit_json_write(b, ev->response_object, ev->omit_managed_fields);
    }
}

char *
gw_audit_event_encode(const gw_audit_event_t *ev, gw_audit_stage_t stage, int64_t stage_us,
                      size_t *len)
{
    gw_buf_t b = {0};
    char t[40];
    gw_buf_str(&b, "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\"");
    key(&b, "level");
    write_str(&b, gw_audit_level_name(ev->level));
    key(&b, "auditID");
    write_str(&b, ev->audit_id);
    key(&b, "stage");
    write_str(&b, gw_audit_stage_name(stage));
    key(&b, "requestURI");
    write_str(&b, ev->request_uri);
    key(&b, "verb");
    write_str(&b, ev->verb);
    key(&b, "user");
    write_user(&b, &ev->user);
    if (ev->impersonated != NULL) {
        key(&b, "impersonatedUser");
        write_user(&b, ev->impersonated);
    }
    if (ev->n_source_ips > 0) {
        key(&b, "sourceIPs");
        write_strings(&b, ev->source_ips, ev->n_source_ips);
    }
    if (set(ev->user_agent)) {
        key(&b, "userAgent");
        write_str(&b, ev->user_agent);
    }
    if (ev->object_ref != NULL) {
        key(&b, "objectRef");
        write_ref(&b, ev->object_ref);
    }
    if (ev->code != 0) {
        key(&b, "responseStatus");
        write_status(&b, ev->status, ev->code);
    }
    write_objects(&b, ev);
    key(&b, "requestReceivedTimestamp");
    write_str(&b, gw_audit_micro_time(ev->received_us, t, sizeof(t)));
    key(&b, "stageTimestamp");
    write_str(&b, gw_audit_micro_time(stage == GW_AUDIT_STAGE_REQUEST_RECEIVED ? ev->received_us
                                                                               : stage_us,
                                      t, sizeof(t)));
    if (ev->annotations != NULL && json_object_size(ev->annotations) > 0) {
        key(&b, "annotations");
        write_map(&b, ev->annotations);
    }
    gw_buf_str(&b, "}\n");
    *len = b.len;
    return gw_buf_take(&b);
}
