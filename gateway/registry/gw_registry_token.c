/*
 * TokenRequest: POST .../namespaces/<ns>/serviceaccounts/<name>/token, as kube-apiserver's
 * TokenREST: the ServiceAccount must exist; the request's name and namespace, when given,
 * must be the URL's; audiences default to the API audiences and expirationSeconds to 3600
 * (at least 10 minutes, at most 2^32 seconds, capped by the configured maximum with a
 * warning); a bound Pod (which must run as this account; its node is named in the token when
 * it has one), Secret or Node must exist with the reference's uid. Tokens are signed by
 * authn (authn_sa.h); nothing is stored.
 */
#include "gw_registry_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "authn_sa.h"
#include "gw_err.h"

#define DEFAULT_EXPIRATION 3600
#define MIN_EXPIRATION 600
#define MAX_EXPIRATION (1LL << 32)

typedef struct {
    gw_req_t *r;
    json_t *req; /* the TokenRequest (arena-released) */
    json_t *sa, *bound, *node;
    const char *kind; /* the bound object's kind, or NULL */
    const char *bound_name;
    long long now;
} token_t;

typedef void (*read_fn)(token_t *t, int err, json_t *obj);

typedef struct {
    token_t *t;
    read_fn next;
} read_t;

static void
got_object(int err, const gw_obj_t *obj, void *ctx)
{
    read_t *rd = ctx;
    json_t *doc = NULL;

    if (err == 0) {
        doc = gw_registry__parse_stored((const char *)obj->value, obj->value_len, obj->mod_revision,
                                        NULL);
        if (doc == NULL)
            err = GW_EINTERNAL;
        else
            gw_arena_defer(rd->t->r->arena, (void (*)(void *))json_decref, doc);
    }
    rd->next(rd->t, err, doc);
}

/* Read a core/v1 object, then continue with next. */
static void
read_core(token_t *t, const char *resource, const char *ns, const char *name, read_fn next)
{
    const gw_resource_t *res = gw_catalog_find(t->r->catalog, "", "v1", resource);
    char *key = res != NULL
                    ? gw_store_object_key(res->storage_path, res->namespaced ? ns : NULL, name)
                    : NULL;
    read_t *rd = gw_arena_calloc(t->r->arena, sizeof(*rd));
    int rc;

    *rd = (read_t){.t = t, .next = next};
    /* no key: a name no object can have (empty, or with a '/') */
    rc = key != NULL ? gw_store_get(t->r->store, key, 0, got_object, rd) : GW_ENOTFOUND;
    free(key);
    if (rc != 0)
        next(t, rc, NULL);
}

static const char *
meta_str(const json_t *obj, const char *m)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), m));
}

static const json_t *
spec(const token_t *t)
{
    return json_object_get(t->req, "spec");
}

/* kube's NotFound of another resource than the request's. */
static void
not_found(token_t *t, const char *resource, const char *name)
{
    gw_reply_status(t->r, 404, "NotFound", json_pack("{s:s,s:s}", "name", name, "kind", resource),
                    "%s \"%s\" not found", resource, name);
}

/* ---- the answer ---------------------------------------------------------------------------- */

/* The audiences of the request as the C array authn takes (in the arena). */
static const char *const *
audiences(token_t *t, size_t *n)
{
    const json_t *auds = json_object_get(spec(t), "audiences");
    const char **out = gw_arena_calloc(t->r->arena, (json_array_size(auds) + 1) * sizeof(*out));

    *n = json_array_size(auds);
    for (size_t i = 0; i < *n; i++)
        out[i] = json_string_value(json_array_get(auds, i));
    return out;
}

static void
issue(token_t *t)
{
    long long seconds = json_integer_value(json_object_get(spec(t), "expirationSeconds"));
    long long max = authn_sa_max_expiration(t->r->authn);
    authn_sa_request_t q = {.namespace = meta_str(t->sa, "namespace"),
                            .name = meta_str(t->sa, "name"),
                            .uid = meta_str(t->sa, "uid"),
                            .bound_kind = t->kind,
                            .bound_name = t->bound_name,
                            .bound_uid = meta_str(t->bound, "uid"),
                            .node_name = meta_str(t->node, "name"),
                            .node_uid = meta_str(t->node, "uid"),
                            .now = t->now};
    char ts[21];

    if (max > 0 && seconds > max) {
        gw_req_warning(t->r, "requested expiration of %lld seconds shortened to %lld seconds",
                       seconds, max);
        seconds = max;
        json_object_set_new((json_t *)spec(t), "expirationSeconds", json_integer(seconds));
    }
    q.expiration_seconds = seconds;
    q.audiences = audiences(t, &q.n_audiences);
    char *token = authn_sa_issue(t->r->authn, &q);
    if (token == NULL) {
        gw_reply_error(t->r, GW_EINTERNAL, "");
        return;
    }
    json_object_set_new(t->req, "status",
                        json_pack("{s:s,s:s}", "token", token, "expirationTimestamp",
                                  gw_time_format(t->now + seconds, ts)));
    free(token);
    gw_reply_json(t->r, 201, json_incref(t->req)); /* the reply steals one reference */
}

/* ---- the bound object ---------------------------------------------------------------------- */

static void
got_node_of_pod(token_t *t, int err, json_t *node)
{
    if (err != 0 && err != GW_ENOTFOUND) {
        gw_reply_error(t->r, err, "");
        return;
    }
    t->node = node; /* a missing node is left out, as kube does */
    issue(t);
}

/* The reference's uid, when given, must be the object's: kube's Conflict. */
static bool
uid_matches(token_t *t)
{
    const char *want =
        json_string_value(json_object_get(json_object_get(spec(t), "boundObjectRef"), "uid"));
    const char *got = meta_str(t->bound, "uid");

    if (want == NULL || want[0] == '\0' || (got != NULL && strcmp(want, got) == 0))
        return true;
    gw_reply_status(t->r, 409, "Conflict",
                    json_pack("{s:s,s:s}", "name", t->bound_name, "kind", t->kind),
                    "Operation cannot be fulfilled on %s \"%s\": the UID in the bound object "
                    "reference (%s) does not match the UID in record. The object might have been "
                    "deleted and then recreated",
                    t->kind, t->bound_name, want);
    return false;
}

static void
got_bound(token_t *t, int err, json_t *obj)
{
    static const char *const resource[][2] = {
        {"Pod", "pods"}, {"Secret", "secrets"}, {"Node", "nodes"}};
    const char *res = "";

    for (size_t i = 0; i < 3; i++)
        res = strcmp(t->kind, resource[i][0]) == 0 ? resource[i][1] : res;
    if (err == GW_ENOTFOUND || (err == 0 && obj == NULL)) {
        not_found(t, res, t->bound_name);
        return;
    }
    if (err != 0) {
        gw_reply_error(t->r, err, "");
        return;
    }
    t->bound = obj;
    if (!uid_matches(t))
        return;
    if (strcmp(t->kind, "Pod") != 0) {
        issue(t);
        return;
    }
    const json_t *pod_spec = json_object_get(obj, "spec");
    const char *runs_as = json_string_value(json_object_get(pod_spec, "serviceAccountName"));
    const char *node = json_string_value(json_object_get(pod_spec, "nodeName"));
    const char *name = meta_str(t->sa, "name");
    if (runs_as == NULL || strcmp(runs_as, name) != 0) {
        gw_reply_status(t->r, 400, "BadRequest", NULL,
                        "cannot bind token for serviceaccount \"%s\" to pod running with "
                        "serviceaccount \"%s\"",
                        name, runs_as != NULL ? runs_as : "");
        return;
    }
    if (node != NULL && node[0] != '\0')
        read_core(t, "nodes", "", node, got_node_of_pod);
    else
        issue(t);
}

/* kube's switch on the reference's group and kind. */
static void
bind(token_t *t)
{
    const json_t *ref = json_object_get(spec(t), "boundObjectRef");
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    const char *api_version = json_string_value(json_object_get(ref, "apiVersion"));
    const char *slash = api_version != NULL ? strchr(api_version, '/') : NULL;
    bool core = slash == NULL;

    if (ref == NULL || json_is_null(ref)) {
        issue(t);
        return;
    }
    kind = kind != NULL ? kind : "";
    t->bound_name = json_string_value(json_object_get(ref, "name"));
    t->bound_name = t->bound_name != NULL ? t->bound_name : "";
    if (!core ||
        (strcmp(kind, "Pod") != 0 && strcmp(kind, "Secret") != 0 && strcmp(kind, "Node") != 0)) {
        const char *v = api_version != NULL ? (slash ? slash + 1 : api_version) : "";
        gw_reply_status(t->r, 400, "BadRequest", NULL,
                        "cannot bind token to object of type %.*s/%s, Kind=%s",
                        slash ? (int)(slash - api_version) : 0, slash ? api_version : "", v, kind);
        return;
    }
    t->kind = kind;
    read_core(t,
              strcmp(kind, "Pod") == 0      ? "pods"
              : strcmp(kind, "Secret") == 0 ? "secrets"
                                            : "nodes",
              meta_str(t->sa, "namespace"), t->bound_name, got_bound);
}

/* ---- the request --------------------------------------------------------------------------- */

/* Defaults, then kube's ValidateTokenRequest; false when answered with 422. */
static bool
validate(token_t *t)
{
    json_t *sp = json_object_get(t->req, "spec");
    json_t *exp = json_object_get(sp, "expirationSeconds");
    gw_field_errors_t errs = {0};
    gw_fail_t f = {0};
    const char *const *auds = NULL;
    size_t n = authn_sa_api_audiences(t->r->authn, &auds);

    if (json_array_size(json_object_get(sp, "audiences")) == 0)
        json_object_set_new(sp, "audiences", gw_json_strings(auds, n));
    if (exp == NULL || json_integer_value(exp) == 0)
        json_object_set_new(sp, "expirationSeconds", json_integer(DEFAULT_EXPIRATION));
    exp = json_object_get(sp, "expirationSeconds");
    if (json_integer_value(exp) < MIN_EXPIRATION)
        gw_ferr_invalid(&errs, "spec.expirationSeconds", exp,
                        "may not specify a duration less than 10 minutes");
    if (json_integer_value(exp) > MAX_EXPIRATION)
        gw_ferr_invalid(&errs, "spec.expirationSeconds", exp,
                        "may not specify a duration larger than 2^32 seconds");
    if (gw_ferr_count(&errs) == 0)
        return true;
    gw_registry__fail_invalid(t->r, &f, "authentication.k8s.io", "TokenRequest", "", &errs);
    gw_registry__reply_fail(t->r, &f);
    return false;
}

static void
got_account(token_t *t, int err, json_t *sa)
{
    char ts[21];

    if (err != 0) {
        gw_reply_error(t->r, err, t->r->info.name);
        return;
    }
    t->sa = sa;
    json_t *meta = json_object_get(t->req, "metadata");
    json_object_set_new(meta, "name", json_string(meta_str(sa, "name")));
    json_object_set_new(meta, "namespace", json_string(meta_str(sa, "namespace")));
    json_object_set_new(meta, "creationTimestamp", json_string(gw_time_format(t->now, ts)));
    json_object_del(t->req, "status");
    if (validate(t))
        bind(t);
}

/* kube: a name or namespace in the body must be the URL's. */
static bool
check_names(gw_req_t *r, const json_t *req)
{
    const char *name = meta_str(req, "name"), *ns = meta_str(req, "namespace");
    gw_field_errors_t errs = {0};
    gw_fail_t f = {0};

    if (name != NULL && name[0] != '\0' && strcmp(name, r->info.name) != 0)
        gw_ferr_invalid_str(&errs, "metadata.name", name,
                            "must match the service account name if specified");
    else if (ns != NULL && ns[0] != '\0' && strcmp(ns, r->info.namespace_) != 0)
        gw_ferr_invalid_str(&errs, "metadata.namespace", ns,
                            "must match the service account namespace if specified");
    if (gw_ferr_count(&errs) == 0)
        return true;
    gw_registry__fail_invalid(r, &f, "authentication.k8s.io", "TokenRequest", r->info.name, &errs);
    gw_registry__reply_fail(r, &f);
    return false;
}

/* Past admission: the account the token is for. */
static void
admitted(void *arg)
{
    token_t *t = arg;

    read_core(t, "serviceaccounts", t->r->info.namespace_, t->r->info.name, got_account);
}

void
gw_registry__token(gw_req_t *r)
{
    gw_field_errors_t errs = {0};
    gw_fail_t f = {0};
    json_t *body;

    if (!authn_sa_can_issue(r->authn)) {
        gw_registry__reply_no_route(r); /* kube serves no token subresource without an issuer */
        return;
    }
    if (strcmp(r->info.verb, "create") != 0) {
        gw_registry__reply_not_allowed(r);
        return;
    }
    body = gw_req_body_object(r, false, NULL);
    if (body == NULL)
        return;
    if (!gw_registry__check_object(r, body, "authentication.k8s.io/v1", "TokenRequest",
                                   r->subresource->schema, NULL, 0, GW_FV_IGNORE, false, &errs,
                                   &f)) {
        gw_ferr_clear(&errs);
        gw_registry__reply_fail(r, &f);
        return;
    }
    gw_ferr_clear(&errs);
    if (!json_is_object(json_object_get(body, "metadata")))
        json_object_set_new(body, "metadata", json_object());
    if (!json_is_object(json_object_get(body, "spec")))
        json_object_set_new(body, "spec", json_object());
    if (!check_names(r, body))
        return;
    token_t *t = gw_arena_calloc(r->arena, sizeof(*t));
    *t = (token_t){.r = r, .req = body, .now = (long long)time(NULL)};
    gw_registry__admit_create(r, body, NULL, admitted, t);
}

/* ---- the strategy ------------------------------------------------------------------------- */

static const gw_subres_strategy_t sa_subresources[] = {
    {.name = "token", .form = GW_SUBRES_HANDLER, .handle = gw_registry__token},
};

/* ServiceAccounts: the generic rules, and serviceaccounts/token (TokenRequest). */
const gw_strategy_t gw_strategy_serviceaccount = {
    .name = "serviceaccount",
    .subresources = sa_subresources,
    .n_subresources = sizeof(sa_subresources) / sizeof(sa_subresources[0]),
};
