/*
 * The Webhook authorizer: kube's webhook authorizer with its decision cache. The review is
 * built and its cache key taken on the caller's thread; the exchange ends on the same thread
 * (the HTTPS function's contract), where the answer is read, cached and passed on.
 */
#include "authz_webhook.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <openssl/sha.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

#define CACHE_SLOTS 4096 /* direct-mapped by the spec's hash: bounded whatever clients ask */

typedef struct {
    unsigned char hash[SHA256_DIGEST_LENGTH];
    int64_t expires_ms; /* 0: empty slot */
    authz_decision_t decision;
    char *reason;
} slot_t;

typedef struct {
    authz_authorizer_t base; /* first: the chain holds and frees it as an authorizer */
    char *server;
    authn_tls_t tls;
    char *api_version; /* authorization.k8s.io/v1beta1 or /v1 */
    const char *groups_key; /* "group" in v1beta1, "groups" in v1 */
    int64_t allowed_ttl_ms, other_ttl_ms;
    authz_https_fn https;
    pthread_mutex_t mu; /* guards slots */
    slot_t slots[CACHE_SLOTS];
} webhook_t;

/* One review in flight. */
typedef struct {
    webhook_t *w;
    unsigned char hash[SHA256_DIGEST_LENGTH];
    authz_done_cb cb;
    void *ctx;
} review_t;

static int64_t
monotonic_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the cache ------------------------------------------------------------------------- */

static slot_t *
slot_of(webhook_t *w, const unsigned char *hash)
{
    return &w->slots[((size_t)hash[0] << 8 | hash[1]) % CACHE_SLOTS];
}

/* A live answer for hash: true with *decision and *reason (new), false when none. */
static bool
cache_get(webhook_t *w, const unsigned char *hash, authz_decision_t *decision, char **reason)
{
    bool found = false;

    pthread_mutex_lock(&w->mu);
    slot_t *s = slot_of(w, hash);
    if (s->expires_ms > monotonic_ms() && memcmp(s->hash, hash, sizeof(s->hash)) == 0) {
        *decision = s->decision;
        *reason = gw_strdup(s->reason);
        found = true;
    }
    pthread_mutex_unlock(&w->mu);
    return found;
}

static void
cache_put(webhook_t *w, const unsigned char *hash, authz_decision_t decision, const char *reason)
{
    int64_t ttl = decision == AUTHZ_ALLOW ? w->allowed_ttl_ms : w->other_ttl_ms;
    char *copy = gw_strdup(reason), *old;

    pthread_mutex_lock(&w->mu);
    slot_t *s = slot_of(w, hash);
    old = s->reason;
    memcpy(s->hash, hash, sizeof(s->hash));
    s->decision = decision;
    s->reason = copy;
    s->expires_ms = monotonic_ms() + ttl;
    pthread_mutex_unlock(&w->mu);
    free(old);
}

/* ---- the review ------------------------------------------------------------------------ */

/* Set key to s unless s is NULL or empty (kube's omitempty). */
static void
set_str(json_t *obj, const char *key, const char *s)
{
    if (s != NULL && *s != '\0')
        json_object_set_new(obj, key, json_string(s));
}

static json_t *
attributes(const authz_attrs_t *a)
{
    json_t *o = json_object();

    if (!a->resource_request) {
        set_str(o, "path", a->path);
        set_str(o, "verb", a->verb);
        return o;
    }
    set_str(o, "namespace", a->namespace_);
    set_str(o, "verb", a->verb);
    set_str(o, "group", a->api_group);
    set_str(o, "version", a->api_version);
    set_str(o, "resource", a->resource);
    set_str(o, "subresource", a->subresource);
    set_str(o, "name", a->name);
    return o;
}

static void
set_user(json_t *spec, const webhook_t *w, const authn_user_t *u)
{
    json_t *groups = json_array(), *extra = json_object();

    set_str(spec, "user", u->name);
    set_str(spec, "uid", u->uid);
    for (size_t i = 0; i < u->n_groups; i++)
        json_array_append_new(groups, json_string(u->groups[i]));
    for (size_t i = 0; i < u->n_extra; i++) {
        json_t *values = json_array();
        for (size_t j = 0; j < u->extra[i].n_values; j++)
            json_array_append_new(values, json_string(u->extra[i].values[j]));
        json_object_set_new(extra, u->extra[i].key, values);
    }
    if (json_array_size(groups) > 0)
        json_object_set(spec, w->groups_key, groups);
    if (json_object_size(extra) > 0)
        json_object_set(spec, "extra", extra);
    json_decref(groups);
    json_decref(extra);
}

/* The review's body (new) and the cache key: the hash of its spec with sorted keys. */
static char *
review_body(const webhook_t *w, const authz_attrs_t *a, unsigned char *hash)
{
    json_t *spec = json_object();

    if (a->user != NULL)
        set_user(spec, w, a->user);
    json_object_set_new(spec, a->resource_request ? "resourceAttributes" : "nonResourceAttributes",
                        attributes(a));
    char *key = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS);
    SHA256((const unsigned char *)key, strlen(key), hash);
    free(key);
    json_t *doc = json_pack("{s:s, s:s, s:{s:n}, s:o, s:{s:b}}", "apiVersion", w->api_version,
                            "kind", "SubjectAccessReview", "metadata", "creationTimestamp",
                            "spec", spec, "status", "allowed", 0);
    char *body = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return body;
}

/* The decision of a 2xx answer's body: 0 with *reason (new), or GW_EINVAL when it is not a
 * SubjectAccessReview with a status. */
static int
read_answer(const char *body, size_t len, authz_decision_t *decision, char **reason)
{
    json_t *doc = json_loadb(body, len, 0, NULL);
    const json_t *status = json_object_get(doc, "status");
    const char *why = json_string_value(json_object_get(status, "reason"));
    int rc = GW_EINVAL;

    if (json_is_object(status)) {
        if (json_is_true(json_object_get(status, "allowed")))
            *decision = AUTHZ_ALLOW;
        else if (json_is_true(json_object_get(status, "denied")))
            *decision = AUTHZ_DENY;
        else
            *decision = AUTHZ_NO_OPINION;
        *reason = gw_strdup(why != NULL ? why : "");
        rc = 0;
    }
    json_decref(doc);
    return rc;
}

static void
reviewed(int err, int status, const char *body, size_t len, void *ctx)
{
    review_t *rv = ctx;
    authz_decision_t decision = AUTHZ_NO_OPINION;
    char *reason = NULL, *error = NULL;

    if (err != 0)
        error = gw_sprintf("authorization webhook %s: %s", rv->w->server,
                           err == GW_ETIMEOUT ? "no answer in time" : "cannot be reached");
    else if (status < 200 || status > 299)
        error = gw_sprintf("authorization webhook %s: HTTP status %d", rv->w->server, status);
    else if (read_answer(body, len, &decision, &reason) != 0)
        error = gw_sprintf("authorization webhook %s: not a SubjectAccessReview", rv->w->server);
    if (error != NULL)
        gw_log_warn(NULL, "%s", error);
    else
        cache_put(rv->w, rv->hash, decision, reason);
    rv->cb(decision, reason != NULL ? reason : "", error, rv->ctx);
    free(reason);
    free(error);
    free(rv);
}

static void
authorize(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb,
          void *ctx)
{
    webhook_t *w = (webhook_t *)self;
    review_t *rv = gw_calloc(1, sizeof(*rv));
    authz_decision_t decision;
    char *reason;

    *rv = (review_t){.w = w, .cb = cb, .ctx = ctx};
    char *body = review_body(w, attrs, rv->hash);
    if (cache_get(w, rv->hash, &decision, &reason)) {
        cb(decision, reason, NULL, ctx);
        free(reason);
        free(rv);
    } else if (attrs->io == NULL) {
        free(rv);
        cb(AUTHZ_NO_OPINION, "", NULL, ctx); /* a caller that cannot wait */
    } else {
        w->https(attrs->io, w->server, body, &w->tls, reviewed, rv);
    }
    free(body);
}

/* ---- building ---------------------------------------------------------------------------- */

static void
webhook_free(authz_authorizer_t *self)
{
    webhook_t *w = (webhook_t *)self;

    for (size_t i = 0; i < CACHE_SLOTS; i++)
        free(w->slots[i].reason);
    pthread_mutex_destroy(&w->mu);
    authn_kubeconfig_clear(&w->server, &w->tls);
    free(w->api_version);
    free(w);
}

int
authz_webhook_new(const authz_config_t *cfg, authz_authorizer_t **out, char *err,
                  size_t err_len)
{
    const char *version = cfg->webhook_version != NULL ? cfg->webhook_version : "v1beta1";
    webhook_t *w = gw_calloc(1, sizeof(*w));
    char why[256] = "";

    *out = NULL;
    if (cfg->https == NULL) {
        snprintf(err, err_len, "the Webhook authorizer has no HTTPS client");
        free(w);
        return GW_EINVAL;
    }
    if (authn_kubeconfig_read(cfg->webhook_config_file, &w->server, &w->tls, why,
                              sizeof(why)) != 0) {
        snprintf(err, err_len, "--authorization-webhook-config-file \"%s\": %s",
                 cfg->webhook_config_file, why);
        free(w);
        return GW_EINVAL;
    }
    w->base = (authz_authorizer_t){.name = "Webhook", .authorize = authorize, .free = webhook_free};
    w->api_version = gw_sprintf("authorization.k8s.io/%s", version);
    w->groups_key = strcmp(version, "v1") == 0 ? "groups" : "group";
    w->allowed_ttl_ms = cfg->webhook_authorized_ttl_ms;
    w->other_ttl_ms = cfg->webhook_unauthorized_ttl_ms;
    w->https = cfg->https;
    pthread_mutex_init(&w->mu, NULL);
    *out = &w->base;
    return 0;
}
