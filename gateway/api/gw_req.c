/* The request context: creation, what a request carries, and the one way out (encode, send,
 * record, free). */
#include "gw_clock.h"
#include "gw_req.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#include "gw_alloc.h"
#include "gw_api_int.h"
#include "gw_apf.h"
#include "gw_cbor.h"
#include "gw_err.h"
#include "gw_gojson.h"
#include "gw_gzip.h"
#include "gw_log.h"
#include "gw_negotiate.h"
#include "gw_partial.h"
#include "gw_protobuf.h"
#include "gw_query.h"
#include "gw_yaml.h"
#include "gw_json.h"

#define MAX_WARNINGS 64

static void
on_gone(void *arg)
{
    gw_req_t *r = arg;
    r->gone = true;
}

static void
release_catalog(void *c)
{
    gw_catalog_unref(c);
}

gw_req_t *
gw_api__req_new(gw_api_t *api, gw_worker_t *w, gw_exchange_t *x, const char *audit_id)
{
    gw_arena_t *a = gw_arena_new();
    gw_api__req_t *p = gw_arena_calloc(a, sizeof(*p));
    gw_req_t *r = &p->r;
    r->x = x;
    r->worker = w;
    r->audit_id = gw_arena_strdup(a, audit_id);
    r->arena = a;
    r->store = api->stores[gw_worker_index(w)];
    r->watches = api->watch_locals != NULL ? api->watch_locals[gw_worker_index(w)] : NULL;
    r->catalog = gw_catalog_current();
    if (r->catalog != NULL)
        gw_arena_defer(a, release_catalog, (void *)r->catalog);
    else
        r->catalog = api->cfg.catalog;
    r->authn = api->cfg.authn;
    r->authz = api->cfg.authz;
    r->unsafe_delete = api->cfg.unsafe_delete;
    r->cbor = api->cfg.cbor;
    r->start_ns = gw_monotonic_ns();
    r->accept = GW_MEDIA_JSON;
    p->api = api;
    p->accept_ok = true;
    p->component = "apiserver";
    gw_exchange_on_gone(x, on_gone, r);
    return r;
}

/* ---- request data ------------------------------------------------------------------------ */

const char *
gw_req_query(gw_req_t *r, const char *key)
{
    return gw_query_get(r->arena, gw_exchange_query(r->x), key);
}

const char *
gw_req_header(gw_req_t *r, const char *name)
{
    return evhttp_find_header(gw_exchange_input_headers(r->x), name);
}

const char *
gw_req_body(gw_req_t *r, size_t *len)
{
    gw_api__req_t *p = GW_API_REQ(r);
    if (p->body == NULL) {
        struct evbuffer *in = gw_exchange_body(r->x);
        size_t n = evbuffer_get_length(in);
        char *b = gw_arena_alloc(r->arena, n + 1);
        evbuffer_copyout(in, b, n);
        b[n] = '\0';
        p->body = b;
        p->body_len = n;
    }
    *len = p->body_len;
    return p->body;
}

static bool
blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    }
    return true;
}

const char *
gw_req_body_summary(gw_req_t *r, const char *body, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = len > 30 ? 30 : len;
    char *out;

    if (len == 0)
        return "<empty>";
    if (body[0] == '{')
        return gw_arena_sprintf(r->arena, "%.*s%s", (int)n, body, len > n ? " ..." : "");
    out = gw_arena_alloc(r->arena, n * 2 + 5);
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[(unsigned char)body[i] >> 4];
        out[2 * i + 1] = hex[(unsigned char)body[i] & 15];
    }
    strcpy(out + 2 * n, len > n ? " ..." : "");
    return out;
}

/* A CBOR body; what kube's typed decoder fails on before it knows the kind is reported as
 * such (for a create or update, with the kind wanted and the body summarized). */
static json_t *
decode_cbor(gw_req_t *r, const char *body, size_t len)
{
    char err[256];
    const uint8_t *data = (const uint8_t *)body;
    json_t *doc = NULL;
    bool typed = r->resource != NULL && r->subresource == NULL &&
                 (strcmp(r->info.verb, "create") == 0 || strcmp(r->info.verb, "update") == 0);

    if (gw_cbor_check(data, len, err, sizeof(err)) != 0) {
        if (typed)
            gw_reply_status(r, 400, "BadRequest", NULL,
                            "the object provided is unrecognized (must be of type %s): unable "
                            "to determine group/version/kind: %s (%s)",
                            r->resource->kind, err, gw_req_body_summary(r, body, len));
        else
            gw_reply_status(r, 400, "BadRequest", NULL, "%s", err);
        return NULL;
    }
    doc = gw_cbor_decode(data, len, err, sizeof(err));
    if (doc == NULL) {
        gw_reply_status(r, 400, "BadRequest", NULL, "%s", err);
        return NULL;
    }
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, doc);
    return doc;
}

/* A string, number or boolean body: kube's read of apiVersion and kind into a Go struct
 * refuses its type (a null decodes to nothing there and is refused later as kindless). */
static void
scalar_error(const char *body, size_t len, char *err, size_t err_len)
{
    size_t i = 0;
    char tmp[8];

    while (i < len && strchr(" \t\r\n", body[i]) != NULL && body[i] != '\0')
        i++;
    if (i == len || strchr("\"-0123456789tf", body[i]) == NULL || body[i] == '\0' ||
        gw_gojson_syntax_error(body, len, tmp, sizeof(tmp)))
        return;
    snprintf(err, err_len,
             "json: cannot unmarshal %s into Go value of type struct { APIVersion string "
             "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }",
             body[i] == '"'                     ? "string"
             : body[i] == 't' || body[i] == 'f' ? "bool"
                                                : "number");
}

static json_t *
decode_body(gw_req_t *r, gw_body_type_t type, const char *body, size_t len)
{
    char err[256];
    json_t *doc;
    if (type == GW_BODY_PROTOBUF) {
        /* Typed clients (kubectl create <kind>, client-go) send built-in kinds this way. */
        doc = gw_protobuf_decode(r->catalog, (const uint8_t *)body, len, err, sizeof(err));
        if (doc == NULL) {
            gw_reply_status(r, 400, "BadRequest", NULL, "%s", err);
            return NULL;
        }
    } else if (type == GW_BODY_CBOR) {
        return decode_cbor(r, body, len);
    } else if (type == GW_BODY_YAML) {
        doc = gw_yaml_to_json(body, len, err, sizeof(err));
    } else {
        /* kube reads the kind with encoding/json: text that is not JSON gets Go's words, and
         * what Go decodes with U+FFFD is taken. Valid JSON Jansson cannot hold (a \u0000, a
         * number beyond int64 or double, nesting deeper than Jansson's limit) keeps Jansson's
         * words and position: kube would go on to decode it, and no message of its fits. */
        doc = gw_gojson_load(body, len, 0, err, sizeof(err));
        if (doc == NULL)
            scalar_error(body, len, err, sizeof(err));
    }
    if (doc == NULL) {
        /* a create or update names the kind it wanted and summarizes the body, as kube's
         * transformDecodeError does */
        if (r->resource != NULL && r->subresource == NULL &&
            (strcmp(r->info.verb, "create") == 0 || strcmp(r->info.verb, "update") == 0))
            gw_reply_status(r, 400, "BadRequest", NULL,
                            "the object provided is unrecognized (must be of type %s): couldn't "
                            "get version/kind; %s parse error: %s (%s)",
                            r->resource->kind, type == GW_BODY_YAML ? "yaml" : "json", err,
                            gw_req_body_summary(r, body, len));
        else
            gw_reply_status(r, 400, "BadRequest", NULL,
                            "couldn't get version/kind; %s parse error: %s",
                            type == GW_BODY_YAML ? "yaml" : "json", err);
        return NULL;
    }
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, doc);
    return doc;
}

json_t *
gw_req_body_object(gw_req_t *r, bool allow_empty, bool *empty)
{
    size_t len;
    const char *body = gw_req_body(r, &len);
    gw_body_type_t type = gw_negotiate_body(gw_req_header(r, "Content-Type"), false);
    if (empty != NULL)
        *empty = false;
    if (type == GW_BODY_UNSUPPORTED || (type == GW_BODY_CBOR && !r->cbor)) {
        gw_reply_status(r, 415, "UnsupportedMediaType", NULL,
                        "the body of the request was in an unknown format - accepted media types "
                        "include: %s",
                        r->cbor ? GW_NEG_CONSUMED_CBOR : GW_NEG_CONSUMED);
        return NULL;
    }
    if (blank(body, len) && allow_empty) {
        if (empty != NULL)
            *empty = true;
        return NULL;
    }
    return decode_body(r, type, body, len);
}

gw_body_type_t
gw_req_patch_type(gw_req_t *r, bool strategic)
{
    gw_body_type_t type = gw_negotiate_body(gw_req_header(r, "Content-Type"), true);
    if (type != GW_BODY_UNSUPPORTED && (strategic || type != GW_BODY_STRATEGIC_PATCH) &&
        (r->cbor || type != GW_BODY_APPLY_PATCH_CBOR))
        return type;
    gw_reply_status(r, 415, "UnsupportedMediaType", NULL,
                    "the body of the request was in an unknown format - accepted media types "
                    "include: %s%s",
                    strategic ? GW_NEG_PATCHES : GW_NEG_PATCHES_CUSTOM,
                    r->cbor ? GW_NEG_PATCHES_CBOR : "");
    return GW_BODY_UNSUPPORTED;
}

/* ---- response headers --------------------------------------------------------------------- */

void
gw_req_set_header(gw_req_t *r, const char *name, const char *value)
{
    struct evkeyvalq *h = gw_exchange_output_headers(r->x);
    evhttp_remove_header(h, name);
    evhttp_add_header(h, name, value);
}

/* kube's warning text: no control characters (such a warning is dropped), '"' and '\\'
 * escaped inside the quoted string. */
static char *
warning_value(gw_arena_t *a, const char *text)
{
    size_t n = 0;
    for (const unsigned char *s = (const unsigned char *)text; *s != '\0'; s++) {
        if (*s < 0x20 || *s == 0x7f)
            return NULL;
        n += 1 + (*s == '"' || *s == '\\');
    }
    char *v = gw_arena_alloc(a, n + 11), *p = v;
    p += sprintf(p, "299 - \"");
    for (const char *s = text; *s != '\0'; s++) {
        if (*s == '"' || *s == '\\')
            *p++ = '\\';
        *p++ = *s;
    }
    strcpy(p, "\"");
    return v;
}

void
gw_req_warning(gw_req_t *r, const char *fmt, ...)
{
    gw_api__req_t *p = GW_API_REQ(r);
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    char *value = text[0] != '\0' ? warning_value(r->arena, text) : NULL;
    free(text);
    for (size_t i = 0; value != NULL && i < p->n_warnings; i++) {
        if (strcmp(p->warnings[i], value) == 0)
            return;
    }
    if (value == NULL || p->n_warnings == MAX_WARNINGS)
        return;
    char **list = gw_arena_alloc(r->arena, (p->n_warnings + 1) * sizeof(*list));
    if (p->n_warnings > 0)
        memcpy(list, p->warnings, p->n_warnings * sizeof(*list));
    list[p->n_warnings++] = value;
    p->warnings = list;
    evhttp_add_header(gw_exchange_output_headers(r->x), "Warning", value);
}

/* ---- the way out -------------------------------------------------------------------------- */

static bool
is_connect(const char *subresource)
{
    static const char *const connect[] = {"log", "exec", "portforward", "attach", "proxy"};
    for (size_t k = 0; k < sizeof(connect) / sizeof(connect[0]); k++) {
        if (strcmp(subresource, connect[k]) == 0)
            return true;
    }
    return false;
}

/* kube's reported verb: the HTTP method, with GET on a collection as LIST, watches as WATCH,
 * apply patches as APPLY, the streaming subresources as CONNECT, anything else "other". */
static const char *
metrics_verb(gw_req_t *r, const char *scope)
{
    const gw_reqinfo_t *i = &r->info;
    if (i->is_resource && strcmp(i->verb, "watch") == 0)
        return "WATCH";
    if (i->is_resource && is_connect(i->subresource))
        return "CONNECT";
    const char *m = gw_exchange_method(r->x);
    if (strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0)
        return *scope != '\0' && strcmp(scope, "resource") != 0 ? "LIST" : "GET";
    if (strcmp(m, "PATCH") == 0) {
        gw_body_type_t t = gw_negotiate_body(gw_req_header(r, "Content-Type"), true);
        return t == GW_BODY_APPLY_PATCH || t == GW_BODY_APPLY_PATCH_CBOR ? "APPLY" : "PATCH";
    }
    if (strcmp(m, "POST") == 0 || strcmp(m, "PUT") == 0 || strcmp(m, "DELETE") == 0)
        return m;
    return "other";
}

bool
gw_api__metrics_labels(gw_req_t *r, gw_metrics_labels_t *l)
{
    gw_api__req_t *p = GW_API_REQ(r);
    const gw_reqinfo_t *i = &r->info;
    /* Only what a route serves is a series, as in kube: labels taken from unknown paths or
     * from requests refused before resolution would let any client grow the metrics. */
    if (!p->info_ok || (i->is_resource ? r->resource == NULL : p->metrics_subresource == NULL))
        return false;
    const char *scope = !i->is_resource                                      ? ""
                        : *i->name != '\0' || strcmp(i->verb, "create") == 0 ? "resource"
                        : *i->namespace_ != '\0'                             ? "namespace"
                                                                             : "cluster";
    const char *dry = gw_req_query(r, "dryRun");
    *l = (gw_metrics_labels_t){
        .verb = metrics_verb(r, scope),
        .dry_run = dry == NULL               ? ""
                   : strcmp(dry, "All") == 0 ? "All"
                                             : "invalid",
        .group = i->group,
        .version = i->version,
        .resource = i->resource,
        .subresource = i->is_resource ? i->subresource : p->metrics_subresource,
        .scope = scope,
        .component = p->component,
    };
    return true;
}

void
gw_api__metrics_record(gw_api_t *api, int index, const gw_metrics_labels_t *l, int code,
                       int64_t start_ns)
{
    double seconds = (double)(gw_monotonic_ns() - start_ns) / 1e9;
    gw_metrics_observe(api->metrics, (size_t)index, l, code, seconds);
}

void
gw_req_watch_initialized(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);

    if (p->apf_ticket != NULL)
        gw_apf_release(p->api->cfg.apf, p->apf_ticket, gw_monotonic_ns());
}

static void
expire_seats(evutil_socket_t fd, short what, void *apf)
{
    (void)fd, (void)what;
    gw_apf_expire(apf, gw_monotonic_ns());
}

/* The request's priority-and-fairness admission ends with it (gw_apf_filter.c starts it); a
 * mutating request watchers make costly keeps its seats a few milliseconds more. */
void
gw_api__apf_end(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);

    if (p->apf_ticket != NULL) {
        int64_t linger = gw_apf_done(p->api->cfg.apf, p->apf_ticket, gw_monotonic_ns());
        int64_t us = linger / 1000 + 1;
        struct timeval after = {(time_t)(us / 1000000), (suseconds_t)(us % 1000000)};
        if (linger > 0 && event_base_once(gw_worker_base(r->worker), -1, EV_TIMEOUT, expire_seats,
                                          p->api->cfg.apf, &after) != 0)
            gw_apf_expire(p->api->cfg.apf, INT64_MAX); /* no timer: give them back now */
    }
    gw_apf_watch_forget(p->api->cfg.apf, p->apf_watch);
    p->apf_watch = NULL;
    if (p->apf_wake != NULL)
        event_free(p->apf_wake);
    if (p->apf_timeout != NULL)
        event_free(p->apf_timeout);
    p->apf_ticket = NULL;
    p->apf_wake = p->apf_timeout = NULL;
}

void
gw_api__req_release(gw_req_t *r, int code)
{
    gw_api__req_t *p = GW_API_REQ(r);
    gw_api__deprecation_finish(r);
    gw_api__audit_complete(r, code);
    if (p->inflight == INFLIGHT_READONLY)
        atomic_fetch_sub(&p->api->inflight_readonly, 1);
    else if (p->inflight == INFLIGHT_MUTATING)
        atomic_fetch_sub(&p->api->inflight_mutating, 1);
    gw_api__apf_end(r);
    gw_arena_free(r->arena);
}

void
gw_api__req_finish(gw_req_t *r, int code)
{
    gw_metrics_labels_t l;
    if (gw_api__metrics_labels(r, &l)) {
        gw_api__metrics_record(GW_API_REQ(r)->api, gw_worker_index(r->worker), &l, code,
                               r->start_ns);
        gw_metrics_response_size(&l, GW_API_REQ(r)->resp_bytes);
    }
    gw_api__req_release(r, code);
}

static void
set_default(struct evkeyvalq *h, const char *name, const char *value)
{
    if (evhttp_find_header(h, name) == NULL)
        evhttp_add_header(h, name, value);
}

/* kube's WithProbabilisticGoaway: with --goaway-chance, an HTTP/2 answer that is not a long
 * one asks to close its connection, which then ends gracefully (GOAWAY), so that clients
 * reconnect, through the load balancer, to any instance. */
static bool
goaway_due(gw_req_t *r)
{
    double chance = GW_API_REQ(r)->api->cfg.goaway_chance;
    return chance > 0 && !r->long_running && gw_exchange_version(r->x) == GW_HTTP_2 &&
           (double)random() / ((double)RAND_MAX + 1) < chance;
}

void
gw_api__default_headers(gw_req_t *r)
{
    struct evkeyvalq *h = gw_exchange_output_headers(r->x);
    /* kube-apiserver's defaults for every response */
    set_default(h, "Cache-Control", "no-cache, private");
    set_default(h, "X-Content-Type-Options", "nosniff");
    if (goaway_due(r))
        set_default(h, "Connection", "close");
}

static struct evbuffer *
new_buffer(void)
{
    struct evbuffer *b = evbuffer_new();
    if (b == NULL)
        abort();
    return b;
}

/* Send body (drained) with the content type, compressed when it pays, and finish r. */
static void
send_reply(gw_req_t *r, int code, const char *content_type, struct evbuffer *body)
{
    struct evkeyvalq *h = gw_exchange_output_headers(r->x);
    struct evbuffer *z = NULL;
    if (GW_API_REQ(r)->content_type != NULL)
        content_type = GW_API_REQ(r)->content_type;
    if (content_type != NULL)
        gw_req_set_header(r, "Content-Type", content_type);
    gw_api__default_headers(r);
    if (r->gzip && evbuffer_get_length(body) > GW_API_GZIP_MIN) {
        z = new_buffer();
        gw_gzip_all(evbuffer_pullup(body, -1), evbuffer_get_length(body), z);
        gw_req_set_header(r, "Content-Encoding", "gzip");
        evhttp_add_header(h, "Vary", "Accept-Encoding");
    }
    gw_exchange_on_gone(r->x, NULL, NULL);
    if (r->gone)
        gw_log_debug(r->audit_id, "client left before the %d answer", code);
    /* Recorded first: the reply frees a request whose client left, and metrics read it. */
    gw_exchange_t *x = r->x;
    GW_API_REQ(r)->resp_bytes = evbuffer_get_length(z != NULL ? z : body);
    gw_api__req_finish(r, code);
    gw_exchange_reply(x, code, z != NULL ? z : body);
    if (z != NULL)
        evbuffer_free(z);
}

/* doc in CBOR, with its kind's schema (which strings are bytes, which numbers floats). */
static const char *
encode_cbor(gw_req_t *r, const json_t *doc, struct evbuffer *out)
{
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    const char *slash = av != NULL ? strchr(av, '/') : NULL;
    const gw_schema_t *s = NULL;
    char err[256], group[254];
    uint8_t *bytes;
    size_t len;

    if (av != NULL && kind != NULL) {
        snprintf(group, sizeof(group), "%.*s", slash ? (int)(slash - av) : 0, av);
        s = gw_catalog_kind_schema(r->catalog, group, slash ? slash + 1 : av, kind);
    }
    if (gw_cbor_encode(doc, s, &bytes, &len, err, sizeof(err)) != 0) {
        gw_log_error(r->audit_id, "cannot encode an answer as CBOR: %s", err);
        return NULL;
    }
    evbuffer_add(out, bytes, len);
    free(bytes);
    return "application/cbor";
}

/* Encode doc as negotiated (JSON compact with kube's trailing newline, pretty JSON, YAML,
 * protobuf, CBOR); returns the content type, or NULL when doc has no such form. */
static const char *
encode(gw_req_t *r, const json_t *doc, struct evbuffer *out)
{
    if (r->accept == GW_MEDIA_CBOR)
        return encode_cbor(r, doc, out);
    if (r->accept == GW_MEDIA_PROTOBUF) {
        /* A metadata view's kind is not the catalog's (a Status stays one: its own kind). */
        const char *kind = json_string_value(json_object_get(doc, "kind"));
        const gw_schema_t *s = r->as == GW_AS_OBJECT || kind == NULL || strcmp(kind, "Status") == 0
                                   ? NULL
                                   : gw_partial_schema(json_object_get(doc, "items") != NULL);
        char err[256];
        uint8_t *bytes;
        size_t len;
        if (gw_protobuf_encode_as(r->catalog, s, doc, &bytes, &len, err, sizeof(err)) != 0) {
            gw_log_error(r->audit_id, "cannot encode an answer as protobuf: %s", err);
            return NULL;
        }
        evbuffer_add(out, bytes, len);
        free(bytes);
        return GW_PROTOBUF_MEDIA_TYPE;
    }
    if (r->accept == GW_MEDIA_YAML) {
        size_t len;
        char *y = gw_json_to_yaml(doc, &len);
        evbuffer_add(out, y, len);
        free(y);
        return "application/yaml";
    }
    size_t flags = JSON_ENCODE_ANY | (r->pretty ? JSON_INDENT(2) : JSON_COMPACT);
    char *s = gw_json_dumps(doc, flags);
    if (s == NULL)
        abort(); /* only out of memory: Jansson strings are valid UTF-8 */
    evbuffer_add(out, s, strlen(s));
    if (!r->pretty)
        evbuffer_add(out, "\n", 1);
    free(s);
    return "application/json";
}

/* kube's Go type of an object as its transformObject names it: "*<package>.<Kind>". */
static const char *
go_type(gw_req_t *r, const json_t *doc)
{
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    const char *slash = av != NULL ? strchr(av, '/') : NULL;
    char group[254], pkg[64];

    snprintf(group, sizeof(group), "%.*s", slash != NULL ? (int)(slash - av) : 0, av ? av : "");
    return gw_arena_sprintf(r->arena, "*%s.%s", gw_partial_go_package(group, pkg),
                            kind ? kind : "");
}

/* The document the answer carries: doc itself, or its PartialObjectMetadata(List) view when
 * asked (a Status stays a Status, as in kube). NULL after answering 406 for a view that does
 * not fit (an object for a list, a list for an object). Takes doc's reference. */
static json_t *
as_requested(gw_req_t *r, json_t *doc)
{
    const char *kind;
    bool list;
    json_t *view, *items;
    size_t i;

    if (r->as == GW_AS_OBJECT)
        return doc;
    kind = json_string_value(json_object_get(doc, "kind"));
    list = json_is_array(json_object_get(doc, "items"));
    if (kind != NULL && strcmp(kind, "Status") == 0)
        return doc;
    if (list != (r->as == GW_AS_PARTIAL_LIST)) {
        const char *type = go_type(r, doc);
        json_decref(doc);
        r->as = GW_AS_OBJECT;
        gw_reply_status(r, 406, "NotAcceptable", NULL,
                        list ? "you requested PartialObjectMetadata, but the requested object is "
                               "a list (%s)"
                             : "you requested PartialObjectMetadataList, but the requested "
                               "object is not a list (%s)",
                        type);
        return NULL;
    }
    if (!list) {
        view = gw_partial_object(doc, r->as_version);
    } else {
        view = json_pack("{s:s,s:s,s:O,s:[]}", "kind", "PartialObjectMetadataList", "apiVersion",
                         gw_partial_api_version(r->as_version), "metadata",
                         json_object_get(doc, "metadata"), "items");
        json_array_foreach(json_object_get(doc, "items"), i, items) json_array_append_new(
            json_object_get(view, "items"), gw_partial_object(items, r->as_version));
    }
    json_decref(doc);
    return view;
}

void
gw_reply_json(gw_req_t *r, int code, json_t *doc)
{
    struct evbuffer *out = new_buffer();
    const char *type;

    doc = as_requested(r, doc);
    if (doc == NULL) {
        evbuffer_free(out);
        return;
    }
    gw_api__audit_response(r, doc);
    type = encode(r, doc, out);
    if (type == NULL) {
        /* A document its protobuf facts (or CBOR's rules) do not take: a defect; answered in
         * JSON. */
        evbuffer_drain(out, evbuffer_get_length(out));
        r->accept = GW_MEDIA_JSON;
        r->as = GW_AS_OBJECT;
        json_decref(doc);
        evbuffer_free(out);
        gw_reply_error(r, GW_EINTERNAL, NULL);
        return;
    }
    json_decref(doc);
    send_reply(r, code, type, out);
    evbuffer_free(out);
}

void
gw_reply_json_bytes(gw_req_t *r, int code, const char *json, size_t len)
{
    if (r->accept != GW_MEDIA_JSON || r->pretty || r->as != GW_AS_OBJECT) {
        json_error_t jerr;
        json_t *doc = gw_json_loadb(json, len, JSON_DECODE_ANY, &jerr);
        if (doc == NULL) {
            gw_log_error(r->audit_id, "cannot re-encode a stored document: %s", jerr.text);
            gw_reply_error(r, GW_EINTERNAL, NULL);
            return;
        }
        gw_reply_json(r, code, doc);
        return;
    }
    struct evbuffer *out = new_buffer();
    gw_api__audit_response_bytes(r, json, len);
    evbuffer_add(out, json, len);
    if (len == 0 || json[len - 1] != '\n')
        evbuffer_add(out, "\n", 1);
    send_reply(r, code, "application/json", out);
    evbuffer_free(out);
}

void
gw_reply_raw(gw_req_t *r, int code, const char *content_type, const void *data, size_t len)
{
    struct evbuffer *out = new_buffer();
    evbuffer_add(out, data, len);
    send_reply(r, code, content_type, out);
    evbuffer_free(out);
}

void
gw_api__reply_text(gw_req_t *r, int code, const char *text, size_t len)
{
    gw_reply_raw(r, code, "text/plain; charset=utf-8", text, len);
}
