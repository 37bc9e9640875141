/* A request's audit event: kube's audit filter (pkg/endpoints/filters/audit.go) and the places
 * its handlers log into the event (request and response objects, impersonation, annotations). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "gw_api_int.h"
#include "gw_clock.h"
#include "gw_audit.h"
#include "gw_log.h"
#include "gw_yaml.h"
#include "gw_json.h"

struct gw_api__audit {
    gw_audit_t *audit;
    gw_audit_decision_t d;
    gw_audit_event_t ev;
    gw_audit_objref_t ref;
    gw_audit_user_t imp;
    const authn_user_t *original; /* the authenticated user; r->user differs once impersonated */
    json_t *annotations;          /* owned by the arena */
    bool long_running;            /* kube writes ResponseStarted for these only */
    bool started;                 /* ResponseStarted written */
    bool handled;                 /* the handler ran: it logged the request's body */
    bool failed_authn;            /* a 401: one event, at ResponseStarted */
};

/* ---- the event's parts ------------------------------------------------------------------------
 */

static const json_t *
user_extra(gw_req_t *r, const authn_user_t *u)
{
    json_t *o;
    if (u->n_extra == 0)
        return NULL;
    o = json_object();
    for (size_t i = 0; i < u->n_extra; i++) {
        json_t *v = json_array();
        for (size_t k = 0; k < u->extra[i].n_values; k++)
            json_array_append_new(v, json_string(u->extra[i].values[k]));
        json_object_set_new(o, u->extra[i].key, v);
    }
    gw_arena_defer(r->arena, (void (*)(void *))json_decref, o);
    return o;
}

static gw_audit_user_t
audit_user(gw_req_t *r, const authn_user_t *u)
{
    if (u == NULL)
        return (gw_audit_user_t){0};
    return (gw_audit_user_t){.name = u->name,
                             .uid = u->uid,
                             .groups = (const char *const *)u->groups,
                             .n_groups = u->n_groups,
                             .extra = user_extra(r, u)};
}

/* net.IP's text of an address, or NULL when s is none. */
static const char *
ip_text(gw_req_t *r, const char *s)
{
    unsigned char buf[sizeof(struct in6_addr)];
    char out[INET6_ADDRSTRLEN];
    if (inet_pton(AF_INET, s, buf) == 1)
        return gw_arena_strdup(r->arena, inet_ntop(AF_INET, buf, out, sizeof(out)));
    if (inet_pton(AF_INET6, s, buf) != 1)
        return NULL;
    if (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)buf))
        return gw_arena_strdup(r->arena, inet_ntop(AF_INET, buf + 12, out, sizeof(out)));
    return gw_arena_strdup(r->arena, inet_ntop(AF_INET6, buf, out, sizeof(out)));
}

static const char *
peer_ip(gw_req_t *r)
{
    const struct sockaddr *sa = gw_exchange_peer(r->x);
    char out[INET6_ADDRSTRLEN];
    if (sa == NULL)
        return NULL;
    if (sa->sa_family == AF_INET)
        return ip_text(
            r, inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, sizeof(out)));
    if (sa->sa_family == AF_INET6)
        return ip_text(r, inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out,
                                    sizeof(out)));
    return NULL;
}

static bool
has_ip(const char **v, size_t n, const char *ip)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i], ip) == 0)
            return true;
    }
    return false;
}

/* utilnet.SourceIPs: X-Forwarded-For's addresses, X-Real-Ip unless among them, then the peer
 * unless it is the last already. */
static void
source_ips(gw_req_t *r, gw_audit_event_t *ev)
{
    const char *xff = gw_req_header(r, "X-Forwarded-For");
    const char *real = gw_req_header(r, "X-Real-Ip");
    const char *peer = peer_ip(r), *ip;
    size_t cap = 2 + (xff != NULL ? strlen(xff) / 2 + 1 : 0), n = 0;
    const char **v = gw_arena_calloc(r->arena, cap * sizeof(char *));
    char *copy = xff != NULL ? gw_arena_strdup(r->arena, xff) : NULL, *save = NULL;
    for (char *part = copy ? strtok_r(copy, ",", &save) : NULL; part != NULL;
         part = strtok_r(NULL, ",", &save)) {
        part += strspn(part, " \t");
        for (size_t e = strlen(part); e > 0 && (part[e - 1] == ' ' || part[e - 1] == '\t'); e--)
            part[e - 1] = '\0';
        if ((ip = ip_text(r, part)) != NULL && n < cap - 2)
            v[n++] = ip;
    }
    if (real != NULL && (ip = ip_text(r, real)) != NULL && !has_ip(v, n, ip))
        v[n++] = ip;
    if (peer != NULL && (n == 0 || strcmp(v[n - 1], peer) != 0))
        v[n++] = peer;
    ev->source_ips = v;
    ev->n_source_ips = n;
}

/* ---- the filter -------------------------------------------------------------------------------
 */

static gw_audit_attrs_t
attrs_of(const gw_req_t *r)
{
    const gw_reqinfo_t *i = &r->info;
    return (gw_audit_attrs_t){
        .user = r->user != NULL ? r->user->name : NULL,
        .groups = r->user != NULL ? (const char *const *)r->user->groups : NULL,
        .n_groups = r->user != NULL ? r->user->n_groups : 0,
        .verb = i->verb,
        .resource_request = i->is_resource,
        .path = i->path,
        .api_group = i->group,
        .namespace_ = i->namespace_,
        .resource = i->resource,
        .subresource = i->subresource,
        .name = i->name,
    };
}

static void
fill_event(gw_req_t *r, struct gw_api__audit *a)
{
    gw_audit_event_t *ev = &a->ev;
    const gw_reqinfo_t *i = &r->info;
    const char *ua;
    ev->level = a->d.level;
    ev->omit_managed_fields = a->d.omit_managed_fields;
    ev->audit_id = r->audit_id;
    ev->request_uri = gw_arena_strdup(r->arena, gw_exchange_target(r->x));
    ev->verb = i->verb;
    ev->user = audit_user(r, r->user);
    source_ips(r, ev);
    ua = gw_req_header(r, "User-Agent");
    /* A copy: a stream sheds the request's headers once its answer started. */
    ev->user_agent = ua != NULL ? gw_arena_strdup(r->arena, ua) : NULL;
    ev->received_us = gw_audit_now_us() - (gw_monotonic_ns() - r->start_ns) / 1000;
    if (i->is_resource) {
        a->ref = (gw_audit_objref_t){.resource = i->resource,
                                     .namespace_ = i->namespace_,
                                     .name = i->name,
                                     .api_group = i->group,
                                     .api_version = i->version,
                                     .subresource = i->subresource};
        ev->object_ref = &a->ref;
    }
}

/* The request's audit state at the policy's level, or NULL at None (or without auditing). */
static struct gw_api__audit *
begin(gw_req_t *r)
{
    gw_api__req_t *p = GW_API_REQ(r);
    gw_audit_t *audit = p->api->cfg.audit;
    struct gw_api__audit *a;
    gw_audit_attrs_t attrs;
    gw_audit_decision_t d;
    if (audit == NULL)
        return NULL;
    attrs = attrs_of(r);
    d = gw_audit_decide(audit, &attrs);
    if (d.level == GW_AUDIT_NONE)
        return NULL;
    a = gw_arena_calloc(r->arena, sizeof(*a));
    a->audit = audit;
    a->d = d;
    a->original = r->user;
    a->long_running = gw_reqinfo_long_running(&r->info);
    fill_event(r, a);
    p->audit = a;
    return a;
}

gw_verdict_t
gw_api__audit_filter(gw_req_t *r)
{
    struct gw_api__audit *a = begin(r);
    if (a != NULL && (a->d.omit_stages & GW_AUDIT_STAGE_REQUEST_RECEIVED) == 0)
        gw_audit_emit(a->audit, &a->ev, GW_AUDIT_STAGE_REQUEST_RECEIVED);
    return GW_NEXT;
}

void
gw_api__audit_unauthorized(gw_req_t *r)
{
    struct gw_api__audit *a = begin(r);
    if (a != NULL)
        a->failed_authn = true;
}

/* ---- what handlers and replies log ------------------------------------------------------------
 */

void
gw_req_audit_annotate(gw_req_t *r, const char *key, const char *value)
{
    struct gw_api__audit *a = GW_API_REQ(r)->audit;
    const char *old;
    if (a == NULL)
        return;
    if (value == NULL)
        value = "";
    if (a->annotations == NULL) {
        a->annotations = json_object();
        gw_arena_defer(r->arena, (void (*)(void *))json_decref, a->annotations);
        a->ev.annotations = a->annotations;
    }
    old = json_string_value(json_object_get(a->annotations, key));
    if (old != NULL) {
        if (strcmp(old, value) != 0)
            gw_log_warn(r->audit_id,
                        "Failed to set annotations[\"%s\"] to \"%s\" for audit:\"%s\", it has "
                        "already been set to \"%s\"",
                        key, value, r->audit_id, old);
        return;
    }
    json_object_set_new(a->annotations, key, json_string_nocheck(value));
}

void
gw_req_audit_annotate_at_request(gw_req_t *r, const char *key, const char *value)
{
    struct gw_api__audit *a = GW_API_REQ(r)->audit;

    if (a != NULL && a->d.level >= GW_AUDIT_REQUEST)
        gw_req_audit_annotate(r, key, value);
}

void
gw_api__audit_response(gw_req_t *r, json_t *doc)
{
    struct gw_api__audit *a = GW_API_REQ(r)->audit;
    const char *kind;
    if (a == NULL)
        return;
    kind = json_string_value(json_object_get(doc, "kind"));
    if (kind != NULL && strcmp(kind, "Status") == 0) {
        a->ev.status = json_incref(doc);
        gw_arena_defer(r->arena, (void (*)(void *))json_decref, doc);
    }
    if (a->d.level >= GW_AUDIT_REQUEST_RESPONSE) {
        a->ev.response_object = json_incref(doc);
        gw_arena_defer(r->arena, (void (*)(void *))json_decref, doc);
    }
}

void
gw_api__audit_response_bytes(gw_req_t *r, const char *json, size_t len)
{
    struct gw_api__audit *a = GW_API_REQ(r)->audit;
    json_t *doc;
    if (a == NULL || a->d.level < GW_AUDIT_REQUEST_RESPONSE)
        return;
    doc = gw_json_loadb(json, len, JSON_DECODE_ANY, NULL);
    if (doc == NULL)
        return;
    gw_api__audit_response(r, doc);
    json_decref(doc);
}

/* The body as JSON for the event (a JSON or YAML body; others are not shown), or NULL. */
static json_t *
body_doc(gw_req_t *r)
{
    size_t len;
    const char *body = gw_req_body(r, &len);
    const char *ct = gw_req_header(r, "Content-Type");
    char err[128];
    json_t *doc;
    if (len == 0)
        return NULL;
    if (ct != NULL && strstr(ct, "yaml") != NULL)
        doc = gw_yaml_to_json(body, len, err, sizeof(err));
    else if (ct == NULL || strstr(ct, "json") != NULL)
        doc = gw_json_loadb(body, len, 0, NULL);
    else
        doc = NULL;
    if (doc != NULL)
        gw_arena_defer(r->arena, (void (*)(void *))json_decref, doc);
    return doc;
}

static const char *
meta_str(const json_t *doc, const char *key)
{
    const char *s = json_string_value(json_object_get(json_object_get(doc, "metadata"), key));
    return s != NULL ? s : "";
}

static const char *
or_default(const char *have, const char *other)
{
    return have != NULL && *have != '\0' ? have : other;
}

/* kube's LogRequestObject and LogRequestPatch: the body's object names the event's object
 * where the path does not (create, update), and is the request object at Request and above. */
static void
log_request_object(gw_req_t *r, struct gw_api__audit *a)
{
    const char *v = r->info.verb;
    bool named = strcmp(v, "create") == 0 || strcmp(v, "update") == 0;
    bool body_verb = named || strcmp(v, "patch") == 0 || strcmp(v, "delete") == 0 ||
                     strcmp(v, "deletecollection") == 0;
    json_t *doc;
    if (!a->handled || !body_verb || (!named && a->d.level < GW_AUDIT_REQUEST) ||
        a->ev.object_ref == NULL)
        return;
    doc = body_doc(r);
    if (doc == NULL)
        return;
    if (named && json_is_object(doc)) {
        a->ref.namespace_ = or_default(a->ref.namespace_, meta_str(doc, "namespace"));
        a->ref.name = or_default(a->ref.name, meta_str(doc, "name"));
        a->ref.uid = or_default(a->ref.uid, meta_str(doc, "uid"));
        a->ref.resource_version =
            or_default(a->ref.resource_version, meta_str(doc, "resourceVersion"));
    }
    if (a->d.level >= GW_AUDIT_REQUEST)
        a->ev.request_object = doc;
}

/* The user the request went on as, when impersonation changed it. */
static void
log_impersonation(gw_req_t *r, struct gw_api__audit *a)
{
    if (r->user != NULL && r->user != a->original && a->ev.impersonated == NULL) {
        a->imp = audit_user(r, r->user);
        a->ev.impersonated = &a->imp;
    }
}

static void
emit(struct gw_api__audit *a, gw_audit_stage_t stage)
{
    if ((a->d.omit_stages & stage) == 0)
        gw_audit_emit(a->audit, &a->ev, stage);
}

void
gw_api__audit_started(gw_req_t *r, int code)
{
    struct gw_api__audit *a = GW_API_REQ(r)->audit;
    if (a == NULL || a->started)
        return;
    a->ev.code = code;
    if (!a->long_running)
        return;
    a->started = true;
    log_impersonation(r, a);
    emit(a, GW_AUDIT_STAGE_RESPONSE_STARTED);
}

void
gw_api__audit_complete(gw_req_t *r, int code)
{
    struct gw_api__audit *a = GW_API_REQ(r)->audit;
    if (a == NULL)
        return;
    if (a->failed_authn) {
        a->ev.code = code;
        emit(a, GW_AUDIT_STAGE_RESPONSE_STARTED);
        return;
    }
    log_impersonation(r, a);
    log_request_object(r, a);
    gw_api__audit_started(r, code);
    a->ev.code = code;
    emit(a, GW_AUDIT_STAGE_RESPONSE_COMPLETE);
}

void
gw_api__audit_handled(gw_req_t *r)
{
    struct gw_api__audit *a = GW_API_REQ(r)->audit;
    if (a != NULL)
        a->handled = true;
}
