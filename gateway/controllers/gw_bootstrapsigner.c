/*
 * The bootstrap signer, as kube's pkg/controller/bootstrap signer: informers on kube-system's
 * Secrets and on cluster-info queue one key after any change (and once a minute, and when a
 * signing token expires); processing it takes the usable signing tokens from the Secrets'
 * cache, then updates cluster-info (a guaranteed update) when its jws-kubeconfig-* entries
 * differ from the ones those tokens give.
 */
#include "gw_bootstrapsigner.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "authn_bootstrap.h"
#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_err.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_store.h"
#include "gw_workqueue.h"

#define SECRETS "secrets/kube-system/"
#define CLUSTER_INFO "configmaps/kube-public/cluster-info"
#define TOKEN_TYPE "bootstrap.kubernetes.io/token"
#define NAME_PREFIX "bootstrap-token-"
#define SIG_PREFIX "jws-kubeconfig-"
#define RESYNC_MS 60000
#define RETRY_MS 1000
#define QUEUE_KEY "cluster-info" /* the only key: there is one thing to sign */

typedef struct {
    char *id, *secret;
} token_t;

struct gw_bootstrapsigner {
    etcd_conn_t *conn; /* ours: freeing it cancels the update in flight */
    gw_store_t *store;
    gw_informer_t *secrets, *cluster_info;
    gw_workqueue_t *queue;
    bool stopping;
    token_t *tokens; /* this pass's signing tokens */
    size_t n_tokens;
    int64_t next_ms; /* when this pass wants the next */
};

/* base64url without padding (RFC 7515), a new string. */
static char *
b64url(const unsigned char *p, size_t n)
{
    char *out = gw_malloc(4 * ((n + 2) / 3) + 1);
    int len = EVP_EncodeBlock((unsigned char *)out, p, (int)n);

    while (len > 0 && out[len - 1] == '=')
        len--;
    out[len] = '\0';
    for (char *c = out; *c != '\0'; c++)
        *c = *c == '+' ? '-' : *c == '/' ? '_' : *c;
    return out;
}

char *
gw_bootstrapsigner_sign(const char *content, size_t len, const char *id, const char *secret)
{
    char *header_json = gw_sprintf("{\"alg\":\"HS256\",\"kid\":\"%s\"}", id);
    char *header = b64url((const unsigned char *)header_json, strlen(header_json));
    char *payload = b64url((const unsigned char *)content, len);
    char *input = gw_sprintf("%s.%s", header, payload);
    char *key = gw_sprintf("%s.%s", id, secret);
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;

    if (HMAC(EVP_sha256(), key, (int)strlen(key), (const unsigned char *)input, strlen(input), mac,
             &mac_len) == NULL)
        abort(); /* HMAC-SHA256 with a valid key does not fail */
    char *sig = b64url(mac, mac_len);
    char *jws = gw_sprintf("%s..%s", header, sig);
    free(sig);
    free(key);
    free(input);
    free(payload);
    free(header);
    free(header_json);
    return jws;
}

static void
clear_tokens(gw_bootstrapsigner_t *s)
{
    for (size_t i = 0; i < s->n_tokens; i++) {
        free(s->tokens[i].id);
        free(s->tokens[i].secret);
    }
    free(s->tokens);
    s->tokens = NULL;
    s->n_tokens = 0;
}

/* ---- the signing tokens -------------------------------------------------------------------- */

/* kube's bootstrapsecretutil.ParseName: the id of "bootstrap-token-<id>", or NULL. */
static const char *
name_id(const char *name)
{
    static const char id_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    const char *id = name + strlen(NAME_PREFIX);

    if (strncmp(name, NAME_PREFIX, strlen(NAME_PREFIX)) != 0 || strlen(id) != 6 ||
        strspn(id, id_chars) != 6)
        return NULL;
    return id;
}

/* kube's validateSecretForSigning (the type is the informer's filter there). */
static bool
for_signing(const json_t *secret, const char *name, time_t now)
{
    const char *type = json_string_value(json_object_get(secret, "type"));
    const char *nid = name_id(name);
    char *id = authn_bootstrap_data(secret, "token-id");
    char *tsecret = authn_bootstrap_data(secret, "token-secret");
    bool ok = type != NULL && strcmp(type, TOKEN_TYPE) == 0 && nid != NULL && id != NULL &&
              strcmp(id, nid) == 0 && tsecret != NULL && *tsecret != '\0' &&
              !authn_bootstrap_expired(secret, now) && authn_bootstrap_usage(secret, "signing");

    free(id);
    free(tsecret);
    return ok;
}

static void
consider(const char *key, const json_t *secret, int64_t mod_revision, void *ctx)
{
    gw_bootstrapsigner_t *s = ctx;
    const char *name = key + strlen(SECRETS);
    time_t now = time(NULL), when;
    (void)mod_revision;

    if (secret != NULL && for_signing(secret, name, now)) {
        char *id = authn_bootstrap_data(secret, "token-id");
        bool dup = false;
        for (size_t i = 0; i < s->n_tokens && !dup; i++)
            dup = strcmp(s->tokens[i].id, id) == 0; /* kube keeps the first */
        if (!dup) {
            s->tokens = gw_realloc(s->tokens, (s->n_tokens + 1) * sizeof(*s->tokens));
            s->tokens[s->n_tokens++] =
                (token_t){.id = id, .secret = authn_bootstrap_data(secret, "token-secret")};
        } else {
            free(id);
        }
        if (authn_bootstrap_expiration(secret, &when) && (when - now) * 1000 < s->next_ms)
            s->next_ms = (when - now) * 1000 + 1000; /* its signature goes once it expired */
    }
}

/* ---- cluster-info -------------------------------------------------------------------------- */

/* The signatures data should carry now, as a new object of key -> JWS. */
static json_t *
wanted_signatures(const gw_bootstrapsigner_t *s, const char *content, size_t len)
{
    json_t *sigs = json_object();
    for (size_t i = 0; i < s->n_tokens; i++) {
        char *key = gw_sprintf(SIG_PREFIX "%s", s->tokens[i].id);
        char *jws = gw_bootstrapsigner_sign(content, len, s->tokens[i].id, s->tokens[i].secret);
        json_object_set_new(sigs, key, json_string(jws));
        free(jws);
        free(key);
    }
    return sigs;
}

/* Replace data's jws-kubeconfig-* entries by sigs; whether anything changed. */
static bool
replace_signatures(json_t *data, json_t *sigs)
{
    const char *key;
    json_t *v;
    void *tmp;
    size_t old = 0;
    bool changed = false;

    json_object_foreach_safe(data, tmp, key, v)
    {
        if (strncmp(key, SIG_PREFIX, strlen(SIG_PREFIX)) != 0)
            continue;
        old++;
        changed = changed || !json_equal(v, json_object_get(sigs, key));
        json_object_del(data, key);
    }
    changed = changed || old != json_object_size(sigs);
    json_object_update(data, sigs);
    return changed;
}

static void
mutate(gw_store_update_t *u, const gw_obj_t *current, void *ctx)
{
    gw_bootstrapsigner_t *s = ctx;
    json_t *cm = current != NULL ? gw_ctl__parse(current) : NULL;
    json_t *data = json_object_get(cm, "data");
    json_t *content = json_object_get(data, "kubeconfig");

    if (!json_is_string(content)) { /* nothing to sign, as kube */
        json_decref(cm);
        gw_store_update_abort(u, GW_ENOTFOUND);
        return;
    }
    json_t *sigs = wanted_signatures(s, json_string_value(content), json_string_length(content));
    bool changed = replace_signatures(data, sigs);
    json_decref(sigs);
    if (!changed) {
        json_decref(cm);
        gw_store_update_abort(u, GW_ECANCELED); /* nothing to write */
        return;
    }
    size_t len = 0;
    uint8_t *bytes = gw_ctl__dump(cm, &len);
    json_decref(cm);
    gw_store_update_commit(u, bytes, len);
}

static void
signed_done(int err, const gw_obj_t *obj, void *ctx)
{
    gw_bootstrapsigner_t *s = ctx;
    (void)obj;

    if (s->stopping)
        return;
    if (err == 0)
        gw_log_info(NULL, "bootstrapsigner: cluster-info signed with %zu token(s)", s->n_tokens);
    else if (err != GW_ENOTFOUND && err != GW_ECANCELED)
        gw_log_warn(NULL, "bootstrapsigner: updating cluster-info failed: %s", gw_strerror(err));
    if (err != 0 && err != GW_ENOTFOUND && err != GW_ECANCELED)
        s->next_ms = RETRY_MS;
    clear_tokens(s);
    gw_workqueue_add_after(s->queue, QUEUE_KEY, s->next_ms);
    gw_workqueue_done(s->queue, QUEUE_KEY);
}

/* ---- the queue ------------------------------------------------------------------------------ */

/* Sign with what the Secrets' cache holds, once it holds kube-system's Secrets. */
static void
process(gw_workqueue_t *q, const char *key, void *ctx)
{
    gw_bootstrapsigner_t *s = ctx;

    if (!gw_informer_synced(s->secrets)) {
        gw_workqueue_done(q, key); /* its first list queues the key again */
        return;
    }
    s->next_ms = RESYNC_MS;
    gw_informer_each(s->secrets, consider, s);
    if (gw_store_guaranteed_update(s->store, CLUSTER_INFO, 0, mutate, signed_done, s) != 0)
        abort(); /* well-formed by construction */
}

static void
on_event(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_bootstrapsigner_t *s = ctx;
    (void)inf, (void)ev;

    gw_workqueue_add(s->queue, QUEUE_KEY);
}

static gw_informer_t *
start_informer(gw_bootstrapsigner_t *s, etcd_client_t *client, struct event_base *base,
               const char *etcd_prefix, const gw_value_transformer_t *values, const char *prefix)
{
    return gw_informer_start(client, base,
                             &(gw_informer_opts_t){.name = "bootstrapsigner",
                                                   .etcd_prefix = etcd_prefix,
                                                   .values = values,
                                                   .prefix = prefix,
                                                   .cache = strcmp(prefix, SECRETS) == 0
                                                                ? GW_INFORMER_JSON
                                                                : GW_INFORMER_KEYS,
                                                   .handler = on_event,
                                                   .ctx = s});
}

gw_bootstrapsigner_t *
gw_bootstrapsigner_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                         const gw_value_transformer_t *values)
{
    gw_bootstrapsigner_t *s = gw_calloc(1, sizeof(*s));

    s->conn = etcd_conn_new(client, base);
    s->store = gw_store_new(s->conn, etcd_prefix, values);
    s->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = process, .ctx = s});
    s->secrets = start_informer(s, client, base, etcd_prefix, values, SECRETS);
    s->cluster_info = start_informer(s, client, base, etcd_prefix, values, CLUSTER_INFO);
    return s;
}

void
gw_bootstrapsigner_stop(gw_bootstrapsigner_t *s)
{
    if (s == NULL)
        return;
    s->stopping = true;
    gw_workqueue_shutdown(s->queue);
    gw_informer_stop(s->secrets);
    gw_informer_stop(s->cluster_info);
    etcd_conn_free(s->conn); /* the update's callback fires now, and sees `stopping` */
    gw_store_free(s->store);
    gw_workqueue_free(s->queue);
    clear_tokens(s);
    free(s);
}
