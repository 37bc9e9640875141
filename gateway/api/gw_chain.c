/* The filter chain every request walks (see gw_req.h), in kube-apiserver's words and codes. */
#include "gw_req.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "authz.h"
#include "gw_api_int.h"
#include "gw_audit.h"
#include "gw_authn_io.h"
#include "gw_clock.h"
#include "gw_err.h"
#include "gw_impersonate.h"
#include "gw_log.h"
#include "gw_metric.h"
#include "gw_server.h"
#include "gw_tls.h"

void
gw_api__chain_run(gw_req_t *r)
{
    while (r->filter_index < gw_api__n_filters) {
        const gw_filter_t *f = &gw_api__filters[r->filter_index++];
        /* after DONE or SUSPEND r may already be gone: do not touch it */
        if (f->run(r) != GW_NEXT)
            return;
    }
}

void
gw_chain_resume(gw_req_t *r)
{
    gw_api__chain_run(r);
}

/* ---- request info and negotiation ----------------------------------------------------------- */

bool
gw_api__negotiate(gw_req_t *r, gw_neg_endpoint_t ep, gw_negotiated_t *out)
{
    if (r->cbor && ep != GW_NEG_PLAIN && ep != GW_NEG_DISCOVERY)
        ep = (gw_neg_endpoint_t)(ep | GW_NEG_CBOR);
    bool ok = gw_negotiate_accept(gw_req_header(r, "Accept"), ep, out);
    r->accept = out->media;
    r->table_version = out->media == GW_MEDIA_TABLE ? out->version : NULL;
    r->as = out->as;
    r->as_version = out->as != GW_AS_OBJECT ? out->version : NULL;
    /* Only text encodings are pretty-printed. */
    r->pretty = out->media != GW_MEDIA_PROTOBUF && out->media != GW_MEDIA_CBOR &&
                (out->pretty ||
                 gw_negotiate_pretty(gw_req_query(r, "pretty"), gw_req_header(r, "User-Agent")));
    return ok;
}

static gw_verdict_t
f_info(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);
    int rc = gw_reqinfo_parse(r->arena, gw_exchange_method(r->x), gw_exchange_path(r->x),
                              gw_exchange_query(r->x), &r->info);
    r->gzip = p->api->cfg.compression && gw_negotiate_gzip(gw_req_header(r, "Accept-Encoding"));
    gw_negotiated_t n;
    if (rc != 0) {
        r->info = (gw_reqinfo_t){.verb = "",
                                 .path = "",
                                 .api_prefix = "",
                                 .group = "",
                                 .version = "",
                                 .namespace_ = "",
                                 .resource = "",
                                 .subresource = "",
                                 .name = ""};
        gw_api__negotiate(r, GW_NEG_PLAIN, &n);
        gw_reply_status(r, 400, "BadRequest", NULL, "the request path is malformed");
        return GW_DONE;
    }
    p->info_ok = true;
    p->accept_ok = gw_api__negotiate(r, r->info.is_resource ? GW_NEG_RESOURCE : GW_NEG_PLAIN, &n);
    return GW_NEXT;
}

/* ---- authentication ------------------------------------------------------------------------- */

/* The connection's TLS state, or NULL over plain HTTP. */
static SSL *
conn_ssl(gw_req_t *r)
{
    return gw_exchange_ssl(r->x);
}

static const char *
header_lookup(void *ctx, const char *name)
{
    return gw_req_header(ctx, name);
}

/* The i-th request header line (the front proxy reads every line of its headers). */
static bool
header_at(void *ctx, size_t i, const char **name, const char **value)
{
    gw_req_t *r = ctx;
    struct evkeyval *h = gw_exchange_input_headers(r->x)->tqh_first;
    for (; h != NULL && i > 0; i--)
        h = h->next.tqe_next;
    if (h == NULL)
        return false;
    *name = h->key;
    *value = h->value;
    return true;
}

/* ---- kube's authentication metrics --------------------------------------------------------- */

static const char *const result_label[] = {"result"};
static const char *const username_label[] = {"username"};
/* kube's ExponentialBuckets(0.001, 2, 15) */
static const double authn_buckets[] = {0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128,
                                       0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384};

static const gw_metric_desc_t attempts_desc = {
    .name = "authentication_attempts",
    .help = "Authentication attempts, by result.",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = result_label,
    .n_labels = 1,
};

static const gw_metric_desc_t authn_duration_desc = {
    .name = "authentication_duration_seconds",
    .help = "Time to authenticate a request in seconds, by result.",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = result_label,
    .n_labels = 1,
    .buckets = authn_buckets,
    .n_buckets = sizeof(authn_buckets) / sizeof(authn_buckets[0]),
};

static const gw_metric_desc_t user_requests_desc = {
    .name = "authenticated_user_requests",
    .help = "Authenticated requests, by a coarse user name (kube's: a few known identities, "
            "email_id, other).",
    .stability = "ALPHA",
    .type = GW_METRIC_COUNTER,
    .labels = username_label,
    .n_labels = 1,
};

/* kube's compressUsername: a few well-known names kept, the rest folded. */
static const char *
coarse_username(const char *name)
{
    static const char *const known[] = {"admin", "client", "kube_proxy", "kubelet",
                                        "system:serviceaccount:kube-system:default"};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(name, known[i]) == 0)
            return known[i];
    }
    return strchr(name, '@') != NULL ? "email_id" : "other";
}

static void
authn_metrics(const gw_req_t *r, bool ok, const authn_user_t *user)
{
    static gw_metric_t *_Atomic attempts, *_Atomic duration, *_Atomic users;
    const char *result[] = {ok ? "success" : "failure"};
    gw_metric_add(gw_metric_cached(&attempts, &attempts_desc), result, 1);
    gw_metric_observe(gw_metric_cached(&duration, &authn_duration_desc), result,
                      (double)(gw_monotonic_ns() - r->start_ns) / 1e9);
    if (ok) {
        const char *name[] = {coarse_username(user->name)};
        gw_metric_add(gw_metric_cached(&users, &user_requests_desc), name, 1);
    }
}

static void
reply_unauthorized(gw_req_t *r)
{
    gw_api__audit_unauthorized(r);
    gw_reply_status(r, 401, "Unauthorized", NULL, "Unauthorized");
}

/* A pending authentication decided: go on as the user, or 401. */
static void
authn_resolved(gw_req_t *r, authn_result_t result, const authn_user_t *user, void *arg)
{
    (void)arg;
    authn_metrics(r, result == AUTHN_OK, user);
    if (result != AUTHN_OK) {
        reply_unauthorized(r);
        return;
    }
    r->user = user;
    gw_chain_resume(r);
}

static gw_verdict_t
f_authn(gw_req_t *r)
{
    const authn_t *a = GW_API_REQ(r)->api->cfg.authn;
    SSL *ssl = conn_ssl(r);
    bool client_ca;
    X509 *cert = gw_tls_peer_cert(ssl, &client_ca);
    authn_request_t req = {
        .authorization = gw_req_header(r, "Authorization"),
        .client_cert = client_ca ? cert : NULL,
        .header = header_lookup,
        .header_ctx = r,
        .peer_cert = cert,
        .peer_chain = cert != NULL ? SSL_get_peer_cert_chain(ssl) : NULL,
        .header_at = header_at,
    };
    authn_user_t *user = NULL;
    authn_pending_t *pending = NULL;
    char why[256] = "";

    switch (authn_authenticate(a, &req, &user, &pending, why, sizeof(why))) {
    case AUTHN_OK:
        gw_arena_defer(r->arena, (void (*)(void *))authn_user_free, user);
        r->user = user;
        authn_metrics(r, true, user);
        return GW_NEXT;
    case AUTHN_PENDING:
        gw_authn_resolve(r, a, pending, authn_resolved, NULL);
        return GW_SUSPEND;
    default:
        gw_log_debug(r->audit_id, "unauthorized: %s", why);
        authn_metrics(r, false, NULL);
        reply_unauthorized(r);
        return GW_DONE;
    }
}

/* ---- authorization -------------------------------------------------------------------------- */

/* kube-apiserver's forbidden answer, word for word. */
static void
reply_forbidden(gw_req_t *r, const char *reason)
{
    const gw_reqinfo_t *i = &r->info;
    const char *user = r->user != NULL ? r->user->name : "";
    const char *why = *reason != '\0' ? gw_arena_sprintf(r->arena, ": %s", reason) : "";
    if (!i->is_resource) {
        gw_reply_status(r, 403, "Forbidden", json_object(),
                        "forbidden: User \"%s\" cannot %s path \"%s\"%s", user, i->verb, i->path,
                        why);
        return;
    }
    const char *res = *i->subresource != '\0'
                          ? gw_arena_sprintf(r->arena, "%s/%s", i->resource, i->subresource)
                          : i->resource;
    const char *where = *i->namespace_ != '\0'
                            ? gw_arena_sprintf(r->arena, "in the namespace \"%s\"", i->namespace_)
                            : "at the cluster scope";
    const char *gr = *i->group != '\0' ? gw_arena_sprintf(r->arena, "%s.%s", i->resource, i->group)
                                       : i->resource;
    const char *subject =
        *i->name != '\0' ? gw_arena_sprintf(r->arena, "%s \"%s\"", gr, i->name) : gr;
    json_t *details =
        json_pack("{s:s,s:s,s:s}", "name", i->name, "group", i->group, "kind", i->resource);
    gw_reply_status(r, 403, "Forbidden", details,
                    "%s is forbidden: User \"%s\" cannot %s resource \"%s\" in API group \"%s\" "
                    "%s%s",
                    subject, user, i->verb, res, i->group, where, why);
}

/* kube's answer to an authorizer that failed without anyone allowing: a bare 500 in plain
 * text (responsewriters.InternalError), not a Status. */
static void
reply_authz_error(gw_req_t *r, const char *error)
{
    const char *msg = gw_arena_sprintf(r->arena, "Internal Server Error: \"%s\": %s\n",
                                       gw_exchange_target(r->x), error);
    gw_reply_raw(r, 500, "text/plain; charset=utf-8", msg, strlen(msg));
}

static void
refuse(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);
    if (p->authz_error != NULL)
        reply_authz_error(r, p->authz_error);
    else
        reply_forbidden(r, p->authz_reason);
}

/* kube's authorization filter's audit annotations: the decision and its reason, or only the
 * reason "internal error" when an authorizer failed and none allowed. */
static void
annotate_decision(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);
    if (p->authz_allowed) {
        gw_req_audit_annotate(r, "authorization.k8s.io/decision", "allow");
        gw_req_audit_annotate(r, "authorization.k8s.io/reason", p->authz_reason);
    } else if (p->authz_error != NULL) {
        gw_req_audit_annotate(r, "authorization.k8s.io/reason", "internal error");
    } else {
        gw_req_audit_annotate(r, "authorization.k8s.io/decision", "forbid");
        gw_req_audit_annotate(r, "authorization.k8s.io/reason", p->authz_reason);
    }
}

static void
authz_done(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    gw_req_t *r = ctx;
    gw_api__req_t *p = GW_API_REQ(r);
    p->authz_answered = true;
    p->authz_allowed = decision == AUTHZ_ALLOW;
    p->authz_reason = gw_arena_strdup(r->arena, reason);
    p->authz_error = error != NULL ? gw_arena_strdup(r->arena, error) : NULL;
    annotate_decision(r);
    if (p->authz_in_filter)
        return; /* f_authz goes on */
    if (p->authz_allowed)
        gw_chain_resume(r);
    else
        refuse(r);
}

/* A list's, watch's or deletecollection's selector query parameter for the authorizers (kube
 * parses these for those verbs only); NULL when absent or empty. */
static const char *
selector_param(gw_req_t *r, const char *key)
{
    const char *v = r->info.verb;
    const char *s;

    if (strcmp(v, "list") != 0 && strcmp(v, "watch") != 0 && strcmp(v, "deletecollection") != 0)
        return NULL;
    s = gw_req_query(r, key);
    return s != NULL && *s != '\0' ? s : NULL;
}

static gw_verdict_t
f_authz(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);
    const gw_reqinfo_t *i = &r->info;
    authz_attrs_t attrs = {
        .user = r->user,
        .verb = i->verb,
        .resource_request = i->is_resource,
        .path = i->path,
        .api_group = i->group,
        .api_version = i->version,
        .resource = i->resource,
        .subresource = i->subresource,
        .namespace_ = i->namespace_,
        .name = i->name,
        .field_selector = selector_param(r, "fieldSelector"),
        .label_selector = selector_param(r, "labelSelector"),
        .io = gw_worker_base(r->worker),
    };
    p->authz_in_filter = true;
    authz_authorize(p->api->cfg.authz, &attrs, authz_done, r);
    p->authz_in_filter = false;
    if (!p->authz_answered)
        return GW_SUSPEND;
    if (p->authz_allowed)
        return GW_NEXT;
    refuse(r);
    return GW_DONE;
}

/* ---- resolution and the handler ------------------------------------------------------------- */

static void
reply_no_route(gw_req_t *r)
{
    gw_reply_status(r, 404, "NotFound", json_object(),
                    "the server could not find the requested resource");
}

/* The catalog's resource (and subresource) for a resource request; false when it replied. */
static bool
resolve(gw_req_t *r)
{
    const gw_reqinfo_t *i = &r->info;
    r->resource = gw_catalog_find(r->catalog, i->group, i->version, i->resource);
    if (r->resource != NULL && *i->subresource != '\0')
        r->subresource = gw_resource_subresource(r->resource, i->subresource);
    if (r->resource == NULL || (*i->subresource != '\0' && r->subresource == NULL)) {
        r->resource = NULL;
        reply_no_route(r);
        return false;
    }
    unsigned verbs = r->subresource != NULL ? r->subresource->verbs : r->resource->verbs;
    if ((verbs & gw_verb_bit(i->verb)) == 0) {
        gw_reply_status(r, 405, "MethodNotAllowed", json_object(),
                        "the server does not allow this method on the requested resource");
        return false;
    }
    return true;
}

/* Whether the answer's kind has a protobuf form (every built-in kind kube serves). */
static bool
has_protobuf(const gw_req_t *r)
{
    const gw_schema_t *s = r->subresource != NULL && r->subresource->schema != NULL
                               ? r->subresource->schema
                               : r->resource->schema;
    return s != NULL && s->proto != NULL;
}

static gw_verdict_t
f_serve(gw_req_t *r)
{
    size_t len = evbuffer_get_length(gw_exchange_body(r->x));
    if (len > GW_SERVER_MAX_BODY) {
        gw_reply_status(r, 413, "RequestEntityTooLarge", NULL,
                        "Request entity too large: limit is %d", GW_SERVER_MAX_BODY);
        return GW_DONE;
    }
    if (!r->info.is_resource) {
        gw_api__route(r);
        return GW_DONE;
    }
    if (!resolve(r))
        return GW_DONE;
    gw_api__deprecation_mark(r);
    /* Kinds without a protobuf form (kube: custom resources) fall back to the client's next
     * clause, or 406. */
    if (r->accept == GW_MEDIA_PROTOBUF && !has_protobuf(r)) {
        gw_negotiated_t n;
        GW_API_REQ(r)->accept_ok = gw_api__negotiate(r, GW_NEG_RESOURCE_NO_PROTOBUF, &n);
    }
    if (!GW_API_REQ(r)->accept_ok) {
        gw_api__reply_not_acceptable(r);
        return GW_DONE;
    }
    gw_api__audit_handled(r);
    GW_API_REQ(r)->api->cfg.handle_resource(r);
    return GW_DONE;
}

const gw_filter_t gw_api__filters[] = {
    {.name = "requestinfo", .run = f_info},
    {.name = "authentication", .run = f_authn},
    {.name = "audit", .run = gw_api__audit_filter},
    {.name = "impersonation", .run = gw_impersonate_filter},
    {.name = "authorization", .run = f_authz},
    {.name = "priorityandfairness", .run = gw_api__limit_filter},
    {.name = "handler", .run = f_serve},
};
const size_t gw_api__n_filters = sizeof(gw_api__filters) / sizeof(gw_api__filters[0]);
