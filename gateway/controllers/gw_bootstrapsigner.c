/*
 * The bootstrap signer, as kube's pkg/controller/bootstrap signer: every round lists
 * kube-system's Secrets for the usable signing tokens, then updates cluster-info (a guaranteed
 * update) when its jws-kubeconfig-* entries differ from the ones those tokens give.
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
#include "gw_ctl_rounds.h"
#include "gw_err.h"
#include "gw_log.h"

#define SECRETS "secrets/kube-system/"
#define CLUSTER_INFO "configmaps/kube-public/cluster-info"
#define TOKEN_TYPE "bootstrap.kubernetes.io/token"
#define NAME_PREFIX "bootstrap-token-"
#define SIG_PREFIX "jws-kubeconfig-"
#define RESYNC_MS 60000
#define LIST_PAGE 500

typedef struct {
    char *id, *secret;
} token_t;

struct gw_bootstrapsigner {
    gw_ctl_rounds_t *rr;
    gw_store_t *store; /* the rounds', during a round */
    token_t *tokens;   /* this round's signing tokens */
    size_t n_tokens;
    int64_t next_ms;
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
consider(gw_bootstrapsigner_t *s, const gw_obj_t *obj, time_t now)
{
    json_t *secret = gw_ctl__parse(obj);
    const char *name = obj->key + strlen(SECRETS);
    time_t when;

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
    json_decref(secret);
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

    if (err == 0)
        gw_log_info(NULL, "bootstrapsigner: cluster-info signed with %zu token(s)", s->n_tokens);
    else if (err != GW_ENOTFOUND && err != GW_ECANCELED && !gw_ctl_rounds_stopping(s->rr))
        gw_log_warn(NULL, "bootstrapsigner: updating cluster-info failed: %s", gw_strerror(err));
    if (err != 0 && err != GW_ENOTFOUND && err != GW_ECANCELED)
        s->next_ms = 1000;
    clear_tokens(s);
    gw_ctl_rounds_done(s->rr, s->next_ms);
}

/* ---- rounds ---------------------------------------------------------------------------------- */

static void list_page(gw_bootstrapsigner_t *s, const char *start, int64_t rev);

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_bootstrapsigner_t *s = arg;
    time_t now = time(NULL);

    if (err != 0) {
        if (!gw_ctl_rounds_stopping(s->rr))
            gw_log_warn(NULL, "bootstrapsigner: listing Secrets failed: %s", gw_strerror(err));
        clear_tokens(s);
        gw_ctl_rounds_done(s->rr, 1000);
        return;
    }
    for (size_t i = 0; i < page->n_items; i++)
        consider(s, &page->items[i], now);
    if (page->more) {
        list_page(s, page->next_key, page->revision);
        return;
    }
    if (gw_store_guaranteed_update(s->store, CLUSTER_INFO, 0, mutate, signed_done, s) != 0)
        abort(); /* well-formed by construction */
}

static void
list_page(gw_bootstrapsigner_t *s, const char *start, int64_t rev)
{
    gw_list_req_t req = {
        .prefix = SECRETS, .start_key = start, .revision = rev, .limit = LIST_PAGE};

    if (gw_store_list(s->store, &req, listed, s) != 0)
        abort(); /* well-formed by construction */
}

static void
round_start(gw_ctl_rounds_t *rr, gw_store_t *store, void *ctx)
{
    gw_bootstrapsigner_t *s = ctx;

    s->rr = rr;
    s->store = store;
    s->next_ms = RESYNC_MS;
    list_page(s, NULL, 0);
}

gw_bootstrapsigner_t *
gw_bootstrapsigner_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                         const gw_value_transformer_t *values)
{
    gw_bootstrapsigner_t *s = gw_calloc(1, sizeof(*s));
    static const char *const watch[] = {SECRETS, CLUSTER_INFO, NULL};

    s->rr = gw_ctl_rounds_start(client, base,
                                &(gw_ctl_rounds_opts_t){.name = "bootstrapsigner",
                                                        .etcd_prefix = etcd_prefix,
                                                        .values = values,
                                                        .watch = watch,
                                                        .round = round_start,
                                                        .ctx = s});
    return s;
}

void
gw_bootstrapsigner_stop(gw_bootstrapsigner_t *s)
{
    if (s == NULL)
        return;
    gw_ctl_rounds_stop(s->rr);
    clear_tokens(s);
    free(s);
}
