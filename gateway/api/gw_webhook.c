/*
 * A webhook call: the target resolved (a service through its Service and Endpoints in the
 * store, as kube's proxy.ResolveEndpoint picks an address), then one HTTPS POST through
 * gw_fetch. Failures are worded as Go's http client words them, since kube quotes them.
 */
#include "gw_webhook.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_fetch.h"
#include "gw_json.h"

#define DEFAULT_TIMEOUT_MS 30000
#define MAX_SLICES 1000 /* a namespace's slices read to find a service's */
#define SERVICE_NAME_LABEL "kubernetes.io/service-name"

typedef struct {
    struct event_base *base;
    gw_store_t *store;
    gw_webhook_target_t t; /* the strings below are copies */
    char *url;             /* the URL called, with kube's ?timeout= */
    char *hostport;        /* the URL's host:port, for Go's dial errors */
    char *body;
    size_t len;
    char *ca_pem;
    char *port_name; /* a service's port's name, for its Endpoints */
    char *name;      /* the webhook's name, for its kept-alive connection */
    gw_webhook_cb cb;
    void *ctx;
    struct event *deadline; /* the call's timeout, whatever the connection is doing */
    bool fetching;          /* gw_fetch has not answered yet */
    bool reported;          /* cb was called */
} call_t;

static void
call_free(call_t *c)
{
    if (c->deadline != NULL)
        event_free(c->deadline);
    free(c->url);
    free(c->hostport);
    free(c->body);
    free(c->ca_pem);
    free(c->port_name);
    free(c->name);
    free((char *)c->t.svc_namespace);
    free((char *)c->t.svc_name);
    free(c);
}

static void fail(call_t *c, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
fail(call_t *c, int err, const char *fmt, ...)
{
    char why[512], all[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(all, sizeof(all), "Post \"%s\": %s", c->url, why);
    c->reported = true;
    c->cb(err, 0, NULL, 0, all, c->ctx);
    if (!c->fetching)
        call_free(c);
}

/* The deadline passed with the exchange still out (a server that accepts and stays silent):
 * the caller hears of the timeout now; the exchange's own end is dropped when it comes. */
static void
deadline_passed(evutil_socket_t fd, short what, void *arg)
{
    call_t *c = arg;
    (void)fd, (void)what;

    fail(c, GW_ETIMEOUT,
         "context deadline exceeded (Client.Timeout exceeded while awaiting "
         "headers)");
}

static void
fetched(int err, int status, const char *body, size_t len, void *ctx)
{
    call_t *c = ctx;

    c->fetching = false;
    if (c->reported) {
        call_free(c);
        return;
    }
    evtimer_del(c->deadline);
    if (err == GW_ETIMEOUT) {
        fail(c, err, "context deadline exceeded (Client.Timeout exceeded while awaiting headers)");
        return;
    }
    if (err == GW_ETOOLARGE) {
        /* kgate's own bound on an answer (gw_fetch's 4 MiB), which Go's client does not have */
        fail(c, err, "http: response body too large");
        return;
    }
    if (err != 0) {
        fail(c, err, "dial tcp %s: connect: connection refused", c->hostport);
        return;
    }
    c->reported = true;
    c->cb(0, status, body, len, NULL, c->ctx);
    call_free(c);
}

static void
post(call_t *c, const char *connect_host, int connect_port)
{
    int ms = c->t.timeout_ms > 0 ? c->t.timeout_ms : DEFAULT_TIMEOUT_MS;
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    gw_fetch_req_t q = {.method = "POST",
                        .url = c->url,
                        .body = c->body,
                        .body_len = c->len,
                        .ca_pem = c->ca_pem,
                        .timeout_ms = c->t.timeout_ms > 0 ? c->t.timeout_ms : DEFAULT_TIMEOUT_MS,
                        .max_body = 0,
                        .connect_host = connect_host,
                        .connect_port = connect_port,
                        .reuse = c->name};

    c->deadline = evtimer_new(c->base, deadline_passed, c);
    if (c->deadline == NULL)
        abort();
    evtimer_add(c->deadline, &tv);
    c->fetching = true;
    gw_fetch(c->base, &q, fetched, c);
}

/* ---- a service's address ------------------------------------------------------------------ */

/* The first subset with a port of the service port's name and an address: that address. */
static bool
endpoint_of(const json_t *eps, const char *port_name, char *ip, size_t ip_len, int *port)
{
    size_t i, j;
    json_t *ss, *p;

    json_array_foreach(json_object_get(eps, "subsets"), i, ss)
    {
        const json_t *addrs = json_object_get(ss, "addresses");
        json_array_foreach(json_object_get(ss, "ports"), j, p)
        {
            const char *name = json_string_value(json_object_get(p, "name"));
            if (strcmp(name ? name : "", port_name) != 0 || json_array_size(addrs) == 0)
                continue;
            snprintf(ip, ip_len, "%s",
                     json_string_value(json_object_get(json_array_get(addrs, 0), "ip")));
            *port = (int)json_integer_value(json_object_get(p, "port"));
            return ip[0] != '\0';
        }
    }
    return false;
}

static void
endpoints_read(int err, const gw_obj_t *obj, void *ctx)
{
    call_t *c = ctx;
    json_t *eps =
        err == 0 ? gw_json_loadb((const char *)obj->value, obj->value_len, 0, NULL) : NULL;
    char ip[64] = "";
    int port = 0;
    bool found = endpoint_of(eps, c->port_name, ip, sizeof(ip), &port);

    json_decref(eps);
    if (err == GW_ENOTFOUND) {
        fail(c, GW_EUNAVAILABLE, "endpoints \"%s\" not found", c->t.svc_name);
    } else if (err != 0 || !found) {
        fail(c, GW_EUNAVAILABLE, "no endpoints available for service \"%s\"", c->t.svc_name);
    } else {
        post(c, ip, port);
    }
}

/* A slice's first ready endpoint with a port of the service port's name (a ready condition
 * left out counts as ready, as discovery/v1 says). */
static bool
slice_endpoint(const json_t *slice, const char *port_name, char *ip, size_t ip_len, int *port)
{
    const json_t *p = NULL, *e;
    size_t i;

    json_array_foreach(json_object_get(slice, "ports"), i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (strcmp(name ? name : "", port_name) == 0) {
            p = e;
            break;
        }
    }
    if (p == NULL || !json_is_integer(json_object_get(p, "port")))
        return false;
    json_array_foreach(json_object_get(slice, "endpoints"), i, e)
    {
        const json_t *ready = json_object_get(json_object_get(e, "conditions"), "ready");
        const char *addr = json_string_value(json_array_get(json_object_get(e, "addresses"), 0));
        if (json_is_false(ready) || addr == NULL || addr[0] == '\0')
            continue;
        snprintf(ip, ip_len, "%s", addr);
        *port = (int)json_integer_value(json_object_get(p, "port"));
        return true;
    }
    return false;
}

/* The service's EndpointSlices (labelled kubernetes.io/service-name) when it has any, else its
 * Endpoints. */
static void
slices_read(int err, const gw_list_page_t *page, void *ctx)
{
    call_t *c = ctx;
    bool any = false, found = false;
    char ip[64] = "", *key;
    int port = 0, rc;

    for (size_t i = 0; err == 0 && i < page->n_items && !found; i++) {
        json_t *sl =
            gw_json_loadb((const char *)page->items[i].value, page->items[i].value_len, 0, NULL);
        const json_t *labels = json_object_get(json_object_get(sl, "metadata"), "labels");
        const char *svc = json_string_value(json_object_get(labels, SERVICE_NAME_LABEL));
        if (svc != NULL && strcmp(svc, c->t.svc_name) == 0) {
            any = true;
            found = slice_endpoint(sl, c->port_name, ip, sizeof(ip), &port);
        }
        json_decref(sl);
    }
    if (found) {
        post(c, ip, port);
    } else if (any) {
        fail(c, GW_EUNAVAILABLE, "no endpoints available for service \"%s\"", c->t.svc_name);
    } else {
        key = gw_store_object_key("services/endpoints", c->t.svc_namespace, c->t.svc_name);
        rc = key != NULL ? gw_store_get(c->store, key, 0, endpoints_read, c) : GW_ENOTFOUND;
        free(key);
        if (rc != 0)
            fail(c, rc, "no endpoints available for service \"%s\"", c->t.svc_name);
    }
}

/* The Service's port that is the webhook's, by number: its name finds the Endpoints' port. */
static const char *
service_port(const json_t *svc, int port, const char **type)
{
    const json_t *spec = json_object_get(svc, "spec");
    size_t i;
    json_t *p;

    *type = json_string_value(json_object_get(spec, "type"));
    json_array_foreach(json_object_get(spec, "ports"), i, p)
    {
        if (json_integer_value(json_object_get(p, "port")) == port) {
            const char *name = json_string_value(json_object_get(p, "name"));
            return name != NULL ? name : "";
        }
    }
    return NULL;
}

static void
service_read(int err, const gw_obj_t *obj, void *ctx)
{
    call_t *c = ctx;
    json_t *svc =
        err == 0 ? gw_json_loadb((const char *)obj->value, obj->value_len, 0, NULL) : NULL;
    const char *type = NULL, *name = svc != NULL ? service_port(svc, c->t.svc_port, &type) : NULL;
    char *bad_type = NULL, *key;
    int rc;

    if (name != NULL)
        c->port_name = gw_strdup(name);
    if (type != NULL && strcmp(type, "ClusterIP") && strcmp(type, "LoadBalancer") &&
        strcmp(type, "NodePort"))
        bad_type = gw_strdup(type);
    json_decref(svc);
    if (err != 0) {
        fail(c, GW_EUNAVAILABLE, "services \"%s\" not found", c->t.svc_name);
    } else if (bad_type != NULL) {
        fail(c, GW_EUNAVAILABLE, "unsupported service type \"%s\"", bad_type);
    } else if (c->port_name == NULL) {
        fail(c, GW_EUNAVAILABLE, "no service port %d found for service \"%s\"", c->t.svc_port,
             c->t.svc_name);
    } else {
        key = gw_store_collection_prefix("endpointslices", c->t.svc_namespace);
        rc = key != NULL
                 ? gw_store_list(c->store, &(gw_list_req_t){.prefix = key, .limit = MAX_SLICES},
                                 slices_read, c)
                 : GW_EINVAL;
        free(key);
        if (rc != 0)
            fail(c, rc, "no endpoints available for service \"%s\"", c->t.svc_name);
    }
    free(bad_type);
}

/* ---- the call ---------------------------------------------------------------------------- */

/* The URL as kube's rest client sends it (with ?timeout=), and its host:port. */
static void
target_url(call_t *c, const gw_webhook_target_t *t)
{
    int secs = (t->timeout_ms > 0 ? t->timeout_ms : DEFAULT_TIMEOUT_MS) / 1000;
    const char *path = t->svc_path != NULL ? t->svc_path : "";
    const char *base, *host, *end;

    if (t->url == NULL) {
        c->hostport = gw_sprintf("%s.%s.svc:%d", t->svc_name, t->svc_namespace, t->svc_port);
        c->url = gw_sprintf("https://%s%s?timeout=%ds", c->hostport, path, secs);
        return;
    }
    base = t->url;
    c->url = gw_sprintf("%s%ctimeout=%ds", base, strchr(base, '?') ? '&' : '?', secs);
    host = strstr(base, "://");
    host = host != NULL ? host + 3 : base;
    end = host + strcspn(host, "/?#");
    if (memchr(host, ':', (size_t)(end - host)) != NULL && host[0] != '[')
        c->hostport = gw_strndup(host, (size_t)(end - host));
    else
        c->hostport = gw_sprintf("%.*s:443", (int)(end - host), host);
}

void
gw_webhook_post(struct event_base *base, gw_store_t *store, const gw_webhook_target_t *t,
                const char *body, size_t len, gw_webhook_cb cb, void *ctx)
{
    call_t *c = gw_calloc(1, sizeof(*c));
    char *key;
    int rc;

    c->base = base;
    c->store = store;
    c->t = *t;
    c->t.svc_namespace = t->svc_namespace ? gw_strdup(t->svc_namespace) : NULL;
    c->t.svc_name = t->svc_name ? gw_strdup(t->svc_name) : NULL;
    c->t.svc_path = NULL;
    c->t.url = NULL;
    c->t.ca_pem = NULL;
    c->ca_pem = t->ca_pem != NULL ? gw_strdup(t->ca_pem) : NULL;
    c->name = t->name != NULL ? gw_strdup(t->name) : NULL;
    c->body = gw_memdup(body, len);
    c->len = len;
    c->cb = cb;
    c->ctx = ctx;
    target_url(c, t);
    if (t->url != NULL) {
        post(c, NULL, 0);
        return;
    }
    key = gw_store_object_key("services/specs", t->svc_namespace, t->svc_name);
    /* a name that cannot be a key (empty, a '/') names no service */
    rc = key != NULL ? gw_store_get(store, key, 0, service_read, c) : GW_ENOTFOUND;
    free(key);
    if (rc != 0)
        fail(c, rc, "services \"%s\" not found", t->svc_name);
}
