/*
 * The token webhook: kube's webhook token authenticator behind its cached token
 * authenticator. A TokenReview goes out as a pending HTTPS need; the answer (a 2xx status with
 * status.authenticated) is cached, accepted or refused, for the TTL. Failed exchanges and
 * unreadable answers are refused without caching, as kube's errors are.
 */
#include "authn_webhook.h"

#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "authn_file.h"
#include "gw_clock.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_json_strings.h"
#include "gw_yaml.h"
#include "gw_json.h"

#define CACHE_SLOTS 4096 /* direct-mapped by the token's hash: bounded whatever clients send */
#define WEBHOOK_TIMEOUT_MS 30000 /* kube's default webhook request timeout */

typedef struct {
    unsigned char hash[SHA256_DIGEST_LENGTH];
    int64_t expires_ms; /* 0: empty slot */
    authn_user_t *user; /* NULL: refused */
} slot_t;

struct authn__webhook {
    char *server;
    authn_tls_t tls;
    char *api_version; /* authentication.k8s.io/v1beta1 or /v1 */
    json_t *audiences; /* the API audiences sent in spec.audiences (an array, maybe empty) */
    int64_t ttl_ms;
    pthread_mutex_t mu; /* guards slots */
    slot_t slots[CACHE_SLOTS];
};

/* Milliseconds on the monotonic clock; tests may replace it. */
static int64_t (*clock_ms)(void) = gw_monotonic_ms;

/* ---- users ----------------------------------------------------------------------------- */

static void
add_extra(authn_user_t *u, const char *key, const json_t *values)
{
    authn_extra_t *e;

    u->extra = gw_realloc(u->extra, (u->n_extra + 1) * sizeof(*u->extra));
    e = &u->extra[u->n_extra++];
    *e = (authn_extra_t){.key = gw_strdup(key)};
    e->values = gw_json_strings_dup(values, &e->n_values);
}

/* status.user of an accepting TokenReview, or NULL when it names no one. */
static authn_user_t *
user_from_status(const json_t *status)
{
    const json_t *u = json_object_get(status, "user");
    const char *name = json_string_value(json_object_get(u, "username"));
    const char *uid = json_string_value(json_object_get(u, "uid"));
    const char *key;
    json_t *v;
    size_t i;

    if (name == NULL || name[0] == '\0')
        return NULL;
    authn_user_t *user = authn__user_new(name, uid != NULL ? uid : "");
    json_array_foreach(json_object_get(u, "groups"), i, v)
    {
        if (json_is_string(v))
            authn__user_add_group(user, json_string_value(v));
    }
    json_object_foreach((json_t *)json_object_get(u, "extra"), key, v)
    {
        if (json_is_array(v))
            add_extra(user, key, v);
    }
    return user;
}

/* ---- the cache ------------------------------------------------------------------------- */

static slot_t *
slot_of(authn__webhook_t *w, const unsigned char *hash)
{
    return &w->slots[((size_t)hash[0] << 8 | hash[1]) % CACHE_SLOTS];
}

/* A live verdict for hash: 1 with *user a copy (NULL: refused), 0 when none. */
static int
cache_get(authn__webhook_t *w, const unsigned char *hash, authn_user_t **user)
{
    int found = 0;

    pthread_mutex_lock(&w->mu);
    slot_t *s = slot_of(w, hash);
    if (s->expires_ms > clock_ms() && CRYPTO_memcmp(s->hash, hash, sizeof(s->hash)) == 0) {
        *user = s->user != NULL ? authn__user_copy(s->user) : NULL;
        found = 1;
    }
    pthread_mutex_unlock(&w->mu);
    return found;
}

/* Remember a verdict (user borrowed and copied; NULL: refused). */
static void
cache_put(authn__webhook_t *w, const unsigned char *hash, const authn_user_t *user)
{
    authn_user_t *copy = user != NULL ? authn__user_copy(user) : NULL;
    authn_user_t *old;

    pthread_mutex_lock(&w->mu);
    slot_t *s = slot_of(w, hash);
    old = s->user;
    memcpy(s->hash, hash, sizeof(s->hash));
    s->user = copy;
    s->expires_ms = clock_ms() + w->ttl_ms;
    pthread_mutex_unlock(&w->mu);
    authn_user_free(old);
}

/* ---- the exchange ---------------------------------------------------------------------- */

typedef struct {
    unsigned char hash[SHA256_DIGEST_LENGTH];
} review_t;

static char *
review_body(const authn__webhook_t *w, const char *token)
{
    json_t *doc = json_pack("{s:s, s:s, s:{s:n}, s:{s:s}, s:{s:{}}}", "apiVersion", w->api_version,
                            "kind", "TokenReview", "metadata", "creationTimestamp", "spec", "token",
                            token, "status", "user");
    if (json_array_size(w->audiences) > 0)
        json_object_set(json_object_get(doc, "spec"), "audiences", w->audiences);
    char *body = gw_json_dumps(doc, JSON_COMPACT);

    json_decref(doc);
    return body;
}

/* kube's audience check: audiences were sent, so the review's own (when it names any) must
 * share one with them. */
static bool
audiences_ok(const authn__webhook_t *w, const json_t *status)
{
    const json_t *got = json_object_get(status, "audiences"), *g, *want;
    size_t i, k;

    if (json_array_size(w->audiences) == 0 || json_array_size(got) == 0)
        return true;
    json_array_foreach(got, i, g)
    {
        json_array_foreach(w->audiences, k, want)
        {
            if (json_equal(g, want))
                return true;
        }
    }
    return false;
}

/* The verdict of an answered TokenReview; *cacheable when it is one to remember. */
static authn__verdict_t
verdict(const authn__webhook_t *w, const authn_answer_t *ans, authn_user_t **user, const char **why,
        int *cacheable)
{
    *cacheable = 0;
    if (ans->err != 0) {
        *why = "the token webhook could not be reached";
        return AUTHN__REFUSED;
    }
    if (ans->status < 200 || ans->status > 299) {
        *why = "the token webhook answered with an error status";
        return AUTHN__REFUSED;
    }
    json_t *doc = gw_json_loadb(ans->body, ans->body_len, 0, NULL);
    const json_t *status = json_object_get(doc, "status");
    authn__verdict_t v = AUTHN__REFUSED;
    const json_t *authenticated = json_object_get(status, "authenticated");
    if (!json_is_object(status) || (authenticated != NULL && !json_is_boolean(authenticated))) {
        *why = "the token webhook's answer is not a TokenReview";
    } else if (!json_is_true(authenticated)) {
        *why = "the token webhook refused the token";
        *cacheable = 1;
    } else if (!audiences_ok(w, status)) {
        *why = "the token webhook accepted the token for other audiences";
        *cacheable = 1;
    } else if ((*user = user_from_status(status)) == NULL) {
        *why = "the token webhook accepted the token without a username";
    } else {
        v = AUTHN__FOUND;
        *cacheable = 1;
    }
    json_decref(doc);
    return v;
}

static authn__verdict_t
reviewed(const authn_t *a, void *state, const authn_answer_t *answers, authn_user_t **user,
         authn_pending_t **pending, const char **why)
{
    review_t *rv = state;
    int cacheable;
    authn__verdict_t v = verdict(a->webhook, &answers[0], user, why, &cacheable);

    (void)pending;
    if (cacheable)
        cache_put(a->webhook, rv->hash, v == AUTHN__FOUND ? *user : NULL);
    return v;
}

authn__verdict_t
authn__webhook_token(const authn_t *a, const char *token, authn_user_t **user,
                     authn_pending_t **pending, const char **why)
{
    authn__webhook_t *w = a->webhook;
    review_t *rv;

    if (w == NULL)
        return AUTHN__NOT_MINE;
    rv = gw_calloc(1, sizeof(*rv));
    SHA256((const unsigned char *)token, strlen(token), rv->hash);
    if (cache_get(w, rv->hash, user)) {
        free(rv);
        *why = "the token webhook refused the token (cached)";
        return *user != NULL ? AUTHN__FOUND : AUTHN__REFUSED;
    }
    char *body = review_body(w, token);
    *pending = authn__pending_new(reviewed, rv, free);
    authn__need_https(*pending, "POST", w->server, body, &w->tls);
    free(body);
    return AUTHN__PENDING;
}

/* ---- the kubeconfig -------------------------------------------------------------------- */

/* The entry of a named list (clusters, users, contexts) called `name`, else the first. */
static const json_t *
named(const json_t *cfg, const char *list, const char *name, const char *field)
{
    const json_t *items = json_object_get(cfg, list), *item;
    size_t i;

    json_array_foreach(items, i, item)
    {
        const char *n = json_string_value(json_object_get(item, "name"));
        if (name == NULL || (n != NULL && strcmp(n, name) == 0))
            return json_object_get(item, field);
    }
    return NULL;
}

/* PEM from `<key>-data` (base64) or the file `<key>` (relative to dir); *out NULL when
 * neither is given. */
static int
pem_field(const json_t *obj, const char *key, const char *dir, char **out, char *err,
          size_t err_len)
{
    char *data_key = gw_sprintf("%s-data", key);
    const char *data = json_string_value(json_object_get(obj, data_key));
    const char *file = json_string_value(json_object_get(obj, key));
    size_t len;

    free(data_key);
    *out = NULL;
    if (data != NULL && data[0] != '\0') {
        *out = authn__base64_decode(data, &len);
        if (*out == NULL)
            snprintf(err, err_len, "%s-data is not base64", key);
    } else if (file != NULL && file[0] != '\0') {
        char *path = authn__file_resolve(dir, file);
        *out = authn__file_read(path, &len);
        if (*out == NULL)
            snprintf(err, err_len, "cannot read %s \"%s\": %s", key, path, strerror(errno));
        free(path);
    } else {
        return 0;
    }
    return *out != NULL ? 0 : GW_EINVAL;
}

static int
read_user(const json_t *user, const char *dir, authn_tls_t *tls, char *err, size_t err_len)
{
    char *cert = NULL, *key = NULL;
    const char *token = json_string_value(json_object_get(user, "token"));

    if (pem_field(user, "client-certificate", dir, &cert, err, err_len) != 0 ||
        pem_field(user, "client-key", dir, &key, err, err_len) != 0)
        goto fail;
    if ((cert != NULL) != (key != NULL)) {
        snprintf(err, err_len, "client-certificate and client-key go together");
        goto fail;
    }
    tls->cert_pem = cert;
    tls->key_pem = key;
    tls->bearer_token = token != NULL && token[0] != '\0' ? gw_strdup(token) : NULL;
    return 0;
fail:
    free(cert);
    free(key);
    return GW_EINVAL;
}

int
authn__kubeconfig_parse(const char *text, size_t len, const char *dir, char **server,
                        authn_tls_t *tls, char *err, size_t err_len)
{
    json_t *cfg = gw_yaml_to_json(text, len, err, err_len);
    const char *current = json_string_value(json_object_get(cfg, "current-context"));
    const json_t *ctx = current != NULL ? named(cfg, "contexts", current, "context") : NULL;
    const char *cluster_name = json_string_value(json_object_get(ctx, "cluster"));
    const char *user_name = json_string_value(json_object_get(ctx, "user"));
    const json_t *cluster = named(cfg, "clusters", cluster_name, "cluster");
    const char *url = json_string_value(json_object_get(cluster, "server"));
    char *ca = NULL;
    int rc = GW_EINVAL;

    *server = NULL;
    *tls = (authn_tls_t){.timeout_ms = WEBHOOK_TIMEOUT_MS};
    if (cfg == NULL)
        return GW_EINVAL;
    if (url == NULL || strncmp(url, "https://", 8) != 0) {
        snprintf(err, err_len, "the kubeconfig names no https server (clusters[].cluster.server)");
        goto out;
    }
    if (pem_field(cluster, "certificate-authority", dir, &ca, err, err_len) != 0)
        goto out;
    tls->ca_pem = ca;
    if (read_user(named(cfg, "users", user_name, "user"), dir, tls, err, err_len) != 0)
        goto out;
    *server = gw_strdup(url);
    rc = 0;
out:
    if (rc != 0)
        authn__kubeconfig_clear(server, tls);
    json_decref(cfg);
    return rc;
}

void
authn__kubeconfig_clear(char **server, authn_tls_t *tls)
{
    free(*server);
    *server = NULL;
    free((char *)tls->ca_pem);
    free((char *)tls->cert_pem);
    free((char *)tls->key_pem);
    free((char *)tls->bearer_token);
    *tls = (authn_tls_t){0};
}

/* The API audiences as kube-apiserver defaults them: --api-audiences, else the service account
 * issuers. */
static json_t *
api_audiences(const authn_config_t *cfg)
{
    const char *const *list = cfg->api_audiences;

    if (list == NULL || list[0] == NULL)
        list = cfg->sa_issuers;
    return gw_json_strings_nt(list);
}

int
authn_kubeconfig_read(const char *path, char **server, authn_tls_t *tls, char *err, size_t err_len)
{
    size_t len;
    char *text = authn__file_read(path, &len);

    *server = NULL;
    *tls = (authn_tls_t){0};
    if (text == NULL) {
        snprintf(err, err_len, "cannot be read: %s", strerror(errno));
        return GW_EINVAL;
    }
    char *copy = gw_strdup(path);
    int rc = authn__kubeconfig_parse(text, len, dirname(copy), server, tls, err, err_len);
    free(copy);
    free(text);
    return rc;
}

void
authn_kubeconfig_clear(char **server, authn_tls_t *tls)
{
    authn__kubeconfig_clear(server, tls);
}

int
authn__webhook_new(const authn_config_t *cfg, authn__webhook_t **out, char *err, size_t err_len)
{
    const char *path = cfg->webhook_config_file;
    char why[256] = "";

    *out = NULL;
    if (path == NULL)
        return 0;
    authn__webhook_t *w = gw_calloc(1, sizeof(*w));
    int rc = authn_kubeconfig_read(path, &w->server, &w->tls, why, sizeof(why));
    if (rc != 0) {
        snprintf(err, err_len, "--authentication-token-webhook-config-file \"%s\": %s", path, why);
        free(w);
        return rc;
    }
    w->api_version = gw_sprintf("authentication.k8s.io/%s",
                                cfg->webhook_version != NULL ? cfg->webhook_version : "v1beta1");
    w->ttl_ms = cfg->webhook_cache_ttl * 1000;
    w->audiences = api_audiences(cfg);
    pthread_mutex_init(&w->mu, NULL);
    *out = w;
    return 0;
}

void
authn__webhook_free(authn__webhook_t *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < CACHE_SLOTS; i++)
        authn_user_free(w->slots[i].user);
    pthread_mutex_destroy(&w->mu);
    authn__kubeconfig_clear(&w->server, &w->tls);
    free(w->api_version);
    json_decref(w->audiences);
    free(w);
}
