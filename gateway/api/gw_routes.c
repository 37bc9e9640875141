/* Non-resource requests: health, /version, discovery, OpenAPI, /metrics and the service account
 * issuer's OpenID documents. */
#include "gw_api_int.h"
#include "gw_apf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>

#include "authn_sa.h"
#include "gw_audit.h"
#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_err.h"
#include "gw_health.h"
#include "gw_openapi.h"
#include "gw_json.h"
#include "gw_metric.h"

#define OPENAPI_V3_PREFIX "/openapi/v3/"
#define ONE_YEAR_S (365 * 24 * 3600)

typedef struct {
    const char *path;
    bool subtree; /* also every path below "<path>/" */
    bool exact;   /* the path itself */
    void (*serve)(gw_req_t *r);
    const char *component; /* metrics; kube labels its health endpoints with "" */
} route_t;

static void
not_found(gw_req_t *r)
{
    static const char text[] = "404 page not found\n";
    gw_api__reply_text(r, 404, text, sizeof(text) - 1);
}

/* ---- cached documents and their ETags -------------------------------------------------------- */

/* Go's ServeContent: If-None-Match names the ETag (weakly compared) or is "*". */
static bool
not_modified(gw_req_t *r, const char *etag)
{
    const char *inm = gw_req_header(r, "If-None-Match");
    size_t elen = strlen(etag);
    for (const char *p = inm; p != NULL && *p != '\0';) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, ",");
        size_t tlen = len;
        while (tlen > 0 && (p[tlen - 1] == ' ' || p[tlen - 1] == '\t'))
            tlen--;
        const char *t = p;
        if (tlen >= 2 && strncmp(t, "W/", 2) == 0)
            t += 2, tlen -= 2;
        if ((tlen == 1 && *t == '*') || (tlen == elen && strncmp(t, etag, elen) == 0))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

void
gw_api__reply_doc(gw_req_t *r, const gw_api__doc_t *doc, bool raw)
{
    gw_req_set_header(r, "ETag", doc->etag);
    if (not_modified(r, doc->etag))
        gw_reply_raw(r, 304, NULL, "", 0);
    else if (raw)
        gw_reply_raw(r, 200, "application/json", doc->json, doc->len);
    else
        gw_reply_json_bytes(r, 200, doc->json, doc->len);
}

/* Whether kube serves the path with a go-restful web service (whose routes take GET only and
 * whose misses are Status bodies): /version, /api and below, and below /apis the paths of a
 * served group (its own web service); /apis itself and unknown groups are plain handlers. */
static bool
restful_path(gw_req_t *r)
{
    const char *path = r->info.path, *group;
    size_t n;

    if (strcmp(path, "/version") == 0 || strcmp(path, "/api") == 0 ||
        strncmp(path, "/api/", 5) == 0)
        return true;
    if (strncmp(path, "/apis/", 6) != 0)
        return false;
    group = path + 6;
    n = strcspn(group, "/");
    return n > 0 && gw_catalog_group(r->catalog, gw_arena_strndup(r->arena, group, n)) != NULL;
}

/* go-restful's answers, through kube's service error handler: a Status with empty details. */
static void
restful_not_found(gw_req_t *r)
{
    gw_reply_status(r, 404, "NotFound", json_object(),
                    "the server could not find the requested resource");
}

static void
restful_not_allowed(gw_req_t *r)
{
    gw_reply_status(r, 405, "MethodNotAllowed", json_object(),
                    "the server does not allow this method on the requested resource");
}

/* A plain JSON document from the cache, or 404 when the path has none; a go-restful path takes
 * GET only. */
static void
serve_doc(gw_req_t *r)
{
    const gw_api__doc_t *doc = gw_api__docs_find(gw_api__docs_of(r), r->info.path);
    bool restful = restful_path(r);
    if (doc == NULL) {
        if (restful)
            restful_not_found(r);
        else
            not_found(r);
        return;
    }
    if (restful && strcmp(r->info.verb, "get") != 0) {
        restful_not_allowed(r);
        return;
    }
    if (!GW_API_REQ(r)->accept_ok) {
        gw_api__reply_not_acceptable(r);
        return;
    }
    /* kube-apiserver gives these no ETag, unlike the aggregated lists */
    gw_reply_json_bytes(r, 200, doc->json, doc->len);
}

/* /api and /apis: the aggregated list when the client asks for it, as kube's discovery
 * wrapper decides; its content type repeats the parameters asked for. */
static void
serve_discovery(gw_req_t *r)
{
    gw_negotiated_t n;
    if (restful_path(r) && strcmp(r->info.verb, "get") != 0) {
        restful_not_allowed(r);
        return;
    }
    if (!gw_api__negotiate(r, GW_NEG_DISCOVERY, &n)) {
        gw_api__reply_not_acceptable(r);
        return;
    }
    gw_req_set_header(r, "Vary", "Accept");
    if (!n.aggregated) {
        serve_doc(r);
        return;
    }
    const char *key = gw_arena_sprintf(r->arena, "agg:%s:%s", r->info.path, n.version);
    const gw_api__doc_t *doc = gw_api__docs_find(gw_api__docs_of(r), key);
    GW_API_REQ(r)->content_type = gw_arena_sprintf(
        r->arena, "application/json;g=apidiscovery.k8s.io;v=%s;as=APIGroupDiscoveryList",
        n.version);
    gw_api__reply_doc(r, doc, false);
}

/* ---- OpenAPI ----------------------------------------------------------------------------------
 */

/* The /openapi/v3 documents: JSON only (kube-openapi also has a v3 protobuf, which kgate does
 * not produce). */
static bool
openapi_acceptable(gw_req_t *r)
{
    if (GW_API_REQ(r)->accept_ok && r->accept == GW_MEDIA_JSON)
        return true;
    gw_reply_raw(r, 406, NULL, "", 0);
    return false;
}

/* An ETag, a 304 when If-None-Match names it (no Content-Type then, as Go's ServeContent),
 * else the document as content_type. */
static void
reply_openapi_as(gw_req_t *r, const gw_openapi_doc_t *d, const char *content_type)
{
    const char *etag = gw_arena_sprintf(r->arena, "\"%s\"", d->hash);

    gw_req_set_header(r, "ETag", etag);
    if (not_modified(r, etag))
        gw_reply_raw(r, 304, NULL, "", 0);
    else
        gw_reply_raw(r, 200, content_type, d->data, d->len);
}

static void
reply_openapi(gw_req_t *r, const gw_openapi_doc_t *d)
{
    reply_openapi_as(r, d, "application/json");
}

/* JSON or gnostic's protobuf, as kube-openapi's handler negotiates them; both share an ETag. */
static void
serve_openapi_v2(gw_req_t *r)
{
    gw_neg_openapi_t media = gw_negotiate_openapi_v2(gw_req_header(r, "Accept"));
    gw_openapi_doc_t d;

    gw_req_set_header(r, "Vary", "Accept");
    if (media == GW_NEG_OPENAPI_NONE) {
        gw_reply_raw(r, 406, NULL, "", 0);
    } else if (media == GW_NEG_OPENAPI_JSON) {
        gw_openapi_v2(r->catalog, &d);
        reply_openapi(r, &d);
    } else {
        gw_openapi_v2_proto(r->catalog, &d);
        reply_openapi_as(r, &d, GW_NEG_OPENAPI_V2_PROTOBUF);
    }
}

static void
serve_openapi_v3_index(gw_req_t *r)
{
    gw_openapi_doc_t d;
    if (openapi_acceptable(r) && gw_openapi_v3_index(r->catalog, &d) == 0)
        reply_openapi(r, &d);
}

/* With ?hash= matching the document, it may be cached for good; a stale hash is redirected
 * to the current one, as kube-openapi does. */
static void
serve_openapi_v3(gw_req_t *r)
{
    const char *path = r->info.path + strlen(OPENAPI_V3_PREFIX);
    const char *hash = gw_req_query(r, "hash");
    gw_openapi_doc_t d;
    if (gw_openapi_v3(r->catalog, path, &d) != 0) {
        not_found(r);
        return;
    }
    if (!openapi_acceptable(r))
        return;
    gw_req_set_header(r, "Vary", "Accept");
    if (hash != NULL && *hash != '\0' && strcmp(hash, d.hash) != 0) {
        gw_req_set_header(
            r, "Location",
            gw_arena_sprintf(r->arena, "%s%s?hash=%s", OPENAPI_V3_PREFIX, path, d.hash));
        gw_reply_raw(r, 301, NULL, "", 0);
        return;
    }
    if (hash != NULL && *hash != '\0') {
        char expires[64];
        time_t t = time(NULL) + ONE_YEAR_S;
        struct tm tm;
        strftime(expires, sizeof(expires), "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&t, &tm));
        gw_req_set_header(r, "Cache-Control", "public, immutable");
        gw_req_set_header(r, "Expires", expires);
    }
    reply_openapi(r, &d);
}

/* ---- health, metrics --------------------------------------------------------------------------
 */

static void
serve_health(gw_req_t *r)
{
    struct evbuffer *out = evbuffer_new();
    if (out == NULL)
        abort();
    const char *query = gw_exchange_query(r->x);
    int code =
        gw_health_render(GW_API_REQ(r)->api->cfg.health, r->info.path, query, r->audit_id, out);
    size_t len = evbuffer_get_length(out);
    gw_api__reply_text(r, code, (const char *)evbuffer_pullup(out, -1), len);
    evbuffer_free(out);
}

/* kgate's own gauges of the watches (streams open, shared etcd watches, catch-ups, read caches)
 * and of the HTTP front (requests by protocol, HTTP/2 connections and streams). */
static char *
watch_metrics(gw_api_t *api)
{
    gw_watch_stats_t st = {0};
    gw_server_http_stats_t http;
    gw_server_http_stats(&http);
    if (api->watch != NULL)
        gw_watch_stats(api->watch, &st);
    return gw_sprintf(
        "# HELP kgate_watchers Watch streams open on this instance.\n"
        "# TYPE kgate_watchers gauge\nkgate_watchers %ld\n"
        "# HELP kgate_watch_hubs Shared etcd watches open (one per watched collection).\n"
        "# TYPE kgate_watch_hubs gauge\nkgate_watch_hubs %ld\n"
        "# HELP kgate_watch_catchups Watchers catching up from etcd on a watch of their own.\n"
        "# TYPE kgate_watch_catchups gauge\nkgate_watch_catchups %ld\n"
        "# HELP kgate_watch_catchups_total Catch-up etcd watches started.\n"
        "# TYPE kgate_watch_catchups_total counter\nkgate_watch_catchups_total %ld\n"
        "# HELP kgate_read_caches Collections whose reads are served from a watch-fed cache.\n"
        "# TYPE kgate_read_caches gauge\nkgate_read_caches %ld\n"
        "# HELP kgate_read_cache_objects Objects the read caches hold.\n"
        "# TYPE kgate_read_cache_objects gauge\nkgate_read_cache_objects %ld\n"
        "# HELP kgate_read_cache_bytes Bytes of keys and values the read caches hold.\n"
        "# TYPE kgate_read_cache_bytes gauge\nkgate_read_cache_bytes %ld\n"
        "# HELP kgate_read_cache_reads_total Reads of cached collections, by who answered.\n"
        "# TYPE kgate_read_cache_reads_total counter\n"
        "kgate_read_cache_reads_total{source=\"cache\"} %ld\n"
        "kgate_read_cache_reads_total{source=\"etcd\"} %ld\n"
        "# HELP kgate_read_cache_revision_requests_total etcd revision reads made for consistent "
        "reads from the caches.\n"
        "# TYPE kgate_read_cache_revision_requests_total counter\n"
        "kgate_read_cache_revision_requests_total %ld\n"
        "# HELP kgate_http_requests_total Requests received, by protocol.\n"
        "# TYPE kgate_http_requests_total counter\n"
        "kgate_http_requests_total{protocol=\"HTTP/1.1\"} %ld\n"
        "kgate_http_requests_total{protocol=\"HTTP/2\"} %ld\n"
        "# HELP kgate_http2_connections HTTP/2 connections open.\n"
        "# TYPE kgate_http2_connections gauge\nkgate_http2_connections %ld\n"
        "# HELP kgate_http2_streams HTTP/2 streams open (requests being read or answered).\n"
        "# TYPE kgate_http2_streams gauge\nkgate_http2_streams %ld\n",
        atomic_load(&api->open_streams), st.hubs, st.catchups, st.catchups_total, st.caches,
        st.cache_objects, st.cache_bytes, st.cache_reads, st.cache_etcd, st.cache_revisions,
        http.http1_requests, http.http2_requests, http.http2_connections, http.http2_streams);
}

static void
serve_metrics(gw_req_t *r)
{
    gw_api_t *api = GW_API_REQ(r)->api;
    size_t len;
    char *text = gw_metrics_render(api->metrics, atomic_load(&api->inflight_readonly),
                                   atomic_load(&api->inflight_mutating), &len);
    char *watch = watch_metrics(api);
    gw_buf_t all = {0};
    gw_buf_add(&all, text, len);
    gw_metric_render(&all);
    gw_buf_str(&all, watch);
    if (api->cfg.apf != NULL) {
        char *apf = gw_apf_metrics(api->cfg.apf);
        gw_buf_str(&all, apf);
        free(apf);
    }
    gw_reply_raw(r, 200, "text/plain; version=0.0.4; charset=utf-8", all.data, all.len);
    gw_buf_free(&all);
    free(watch);
    free(text);
}

/* ---- the service account issuer's OpenID documents ------------------------------------------
 */

/* kube's ServiceAccountIssuerDiscovery: served while an issuer and keys are configured. */
static void
serve_openid(gw_req_t *r, json_t *doc, const char *content_type)
{
    if (doc == NULL) {
        not_found(r);
        return;
    }
    char *text = gw_json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    gw_req_set_header(r, "Cache-Control", "public, max-age=3600");
    gw_reply_raw(r, 200, content_type, text, strlen(text));
    free(text);
}

static void
serve_openid_configuration(gw_req_t *r)
{
    serve_openid(r, authn_sa_openid_configuration(r->authn), "application/json");
}

static void
serve_jwks(gw_req_t *r)
{
    serve_openid(r, authn_sa_jwks(r->authn), "application/jwk-set+json");
}

static const route_t routes[] = {
    {"/livez", true, true, serve_health, ""},
    {"/readyz", true, true, serve_health, ""},
    {"/healthz", true, true, serve_health, ""},
    {"/version", false, true, serve_doc, "apiserver"},
    {"/api", true, true, serve_discovery, "apiserver"},
    {"/apis", true, true, serve_discovery, "apiserver"},
    {"/openapi/v2", false, true, serve_openapi_v2, "apiserver"},
    {"/openapi/v3", false, true, serve_openapi_v3_index, "apiserver"},
    {"/openapi/v3", true, false, serve_openapi_v3, "apiserver"},
    {"/metrics", false, true, serve_metrics, "apiserver"},
    {"/.well-known/openid-configuration", false, true, serve_openid_configuration, "apiserver"},
    {"/openid/v1/jwks", false, true, serve_jwks, "apiserver"},
};

/* Discovery paths answer the same with one trailing slash (/api/, /apis/apps/v1/). */
static void
trim_discovery_slash(gw_req_t *r)
{
    const char *path = r->info.path;
    size_t len = strlen(path);

    if (len > 4 && path[len - 1] == '/' && path[len - 2] != '/' && strncmp(path, "/api", 4) == 0)
        r->info.path = gw_arena_strndup(r->arena, path, len - 1);
}

void
gw_api__route(gw_req_t *r)
{
    trim_discovery_slash(r);
    const char *path = r->info.path;
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        const route_t *rt = &routes[i];
        size_t len = strlen(rt->path);
        if (strncmp(path, rt->path, len) != 0)
            continue;
        bool below = path[len] == '/' && path[len + 1] != '\0';
        if (!(rt->exact && path[len] == '\0') && !(rt->subtree && below))
            continue;
        GW_API_REQ(r)->metrics_subresource = rt->path;
        GW_API_REQ(r)->component = rt->component;
        /* below /api and /apis: plain documents (group, version resource lists) */
        if (below && rt->serve == serve_discovery)
            serve_doc(r);
        else
            rt->serve(r);
        return;
    }
    not_found(r);
}
