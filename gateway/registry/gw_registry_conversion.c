/*
 * Custom objects crossing versions through their CRD's conversion webhook (kube's
 * webhookConverter behind crConverter): the objects not yet in the wanted version go out in one
 * ConversionReview on the request's loop, and come back checked, in place. The paths that hold
 * an object in another version than the one they need (a read of a stored object, a write in a
 * non-storage version, a list page, a watch event) wait for this before going on.
 */
#include "gw_registry_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd.h"
#include "gw_crd_conversion.h"
#include "gw_crd_schema.h"
#include "gw_err.h"
#include "gw_server.h"
#include "gw_webhook.h"

typedef struct {
    gw_req_t *r;
    const gw_crd_webhook_t *wh;
    json_t *objs;            /* the caller's array: converted objects replace the sent ones */
    json_t *sent;            /* the objects sent, in order */
    size_t *where;           /* each sent object's index in objs */
    const gw_resource_t *to; /* the served version's resource, for its defaults, or NULL */
    char uid[GW_UUID_LEN + 1];
    char *from_gvk, *call_gvk, *desired;
    gw_registry_converted_fn done;
    void *arg;
} conv_t;

static const gw_crd_webhook_t *
webhook_of(const gw_resource_t *res)
{
    const gw_crd_version_t *cv = gw_crd_version_of(res);

    return cv != NULL ? gw_crd_webhook(cv->crd) : NULL;
}

bool
gw_registry__converts_by_webhook(const gw_resource_t *res)
{
    return webhook_of(res) != NULL;
}

/* The resource serving api_version among the CRD's, or NULL (the storage version need not be
 * served). */
static const gw_resource_t *
served(const gw_resource_t *res, const char *api_version)
{
    const gw_resource_t *const *all;
    size_t n = gw_crd_resources(gw_crd_version_of(res)->crd, &all);

    for (size_t i = 0; i < n; i++) {
        if (strcmp(all[i]->api_version, api_version) == 0)
            return all[i];
    }
    return NULL;
}

static void
conv_free(conv_t *c)
{
    json_decref(c->sent);
    free(c->where);
    free(c->from_gvk);
    free(c->call_gvk);
    free(c->desired);
    free(c);
}

static void
finish(conv_t *c, const char *err)
{
    gw_registry_converted_fn done = c->done;
    gw_req_t *r = c->r;
    void *arg = c->arg;

    conv_free(c);
    done(r, err, arg);
}

static void
answered(int err, int status, const char *body, size_t len, const char *why, void *ctx)
{
    conv_t *c = ctx;
    gw_crd_review_t rv = {.review_version = c->wh->review_version,
                          .uid = c->uid,
                          .desired = c->desired,
                          .from_gvk = c->from_gvk,
                          .call_gvk = c->call_gvk,
                          .objects = c->sent};
    char msg[4096];
    json_t *out = NULL;
    size_t i;
    json_t *o;

    if (err != 0) {
        gw_crd_review_call_failed(&rv, why, msg, sizeof(msg));
        finish(c, msg);
        return;
    }
    if (gw_crd_review_response(&rv, status, body, len, &out, msg, sizeof(msg)) != 0) {
        finish(c, msg);
        return;
    }
    json_array_foreach(out, i, o)
    {
        if (c->to != NULL && gw_crd_version_of(c->to)->has_defaults)
            gw_crd_default(c->to->schema, o);
        json_array_set(c->objs, c->where[i], o);
    }
    json_decref(out);
    finish(c, NULL);
}

/* kube's GroupVersionKind text of an object ("<group>/<version>, Kind=<kind>"). */
static char *
gvk_of(const json_t *o, const char *kind_suffix)
{
    const char *av = json_string_value(json_object_get(o, "apiVersion"));
    const char *kind = json_string_value(json_object_get(o, "kind"));

    av = av != NULL ? av : "";
    return gw_sprintf("%s%s, Kind=%s%s", strchr(av, '/') ? "" : "/", av, kind ? kind : "",
                      kind_suffix);
}

/* The objects of objs not in `to`, copied into c->sent with their places. */
static size_t
pick(conv_t *c, const json_t *objs)
{
    size_t i, n = 0;
    json_t *o;

    c->sent = json_array();
    c->where = gw_calloc(json_array_size(objs) + 1, sizeof(*c->where));
    json_array_foreach(objs, i, o)
    {
        const char *av = json_string_value(json_object_get(o, "apiVersion"));
        if (av != NULL && strcmp(av, c->desired) == 0)
            continue; /* kube never sends an object already in the desired version */
        json_array_append(c->sent, o);
        c->where[n++] = i;
    }
    return n;
}

void
gw_registry__webhook_convert(gw_req_t *r, json_t *objs, const char *to, bool list,
                             gw_registry_converted_fn done, void *arg)
{
    conv_t *c = gw_calloc(1, sizeof(*c));
    gw_webhook_target_t t;
    size_t len;
    char *body, *name, msg[512];

    c->r = r;
    c->wh = webhook_of(r->resource);
    c->objs = objs;
    c->desired = gw_strdup(to);
    c->to = served(r->resource, to);
    c->done = done;
    c->arg = arg;
    if (c->wh == NULL || pick(c, objs) == 0) {
        finish(c, NULL);
        return;
    }
    c->from_gvk = gvk_of(json_array_get(c->sent, 0), list ? "List" : "");
    c->call_gvk = list ? gw_strdup(c->from_gvk) : gw_strdup("/, Kind=");
    if (c->wh->review_version == NULL) {
        snprintf(msg, sizeof(msg),
                 "conversion for %s failed: no supported conversion review "
                 "versions",
                 c->from_gvk);
        finish(c, msg);
        return;
    }
    gw_uuid_v4(c->uid);
    name = gw_sprintf("conversion_webhook_for_%s", c->wh->crd_name);
    body = gw_crd_review_request(&(gw_crd_review_t){.review_version = c->wh->review_version,
                                                    .uid = c->uid,
                                                    .desired = c->desired,
                                                    .objects = c->sent},
                                 &len);
    t = (gw_webhook_target_t){.url = c->wh->url,
                              .svc_namespace = c->wh->svc_namespace,
                              .svc_name = c->wh->svc_name,
                              .svc_path = c->wh->svc_path,
                              .svc_port = c->wh->svc_port,
                              .ca_pem = c->wh->ca_pem,
                              .name = name};
    gw_webhook_post(gw_worker_base(r->worker), r->store, &t, body, len, answered, c);
    free(body);
    free(name);
}

bool
gw_registry__webhook_needed(const gw_resource_t *res, const json_t *obj, const char *to)
{
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));

    return to != NULL && webhook_of(res) != NULL && av != NULL && strcmp(av, to) != 0;
}

void
gw_registry__reply_conversion_error(gw_req_t *r, const char *err)
{
    /* kube's handlers get a plain error from the storage codec: a 500 of unknown reason */
    gw_reply_status(r, 500, "", NULL, "%s", err);
}

const char *
gw_registry__storage_api_version(gw_req_t *r)
{
    if (r->resource->custom == NULL)
        return NULL;
    return gw_arena_sprintf(r->arena, "%s/%s", r->resource->group,
                            r->resource->custom->storage_version);
}
