/*
 * Service account tokens: the keys and issuers from the flags, issuing (kube's
 * JWTTokenGenerator with serviceaccount.Claims) and the OpenID documents of the issuer.
 * Verifying is authn_sa_token.c.
 */
#include "authn_sa.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authn_file.h"
#include "authn_int.h"
#include "authn_jwt.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_json_strings.h"
#include "gw_uuid.h"

/* kube's serviceaccount.WarnOnlyBoundTokenExpirationSeconds and ExpirationExtensionSeconds. */
#define WARN_ONLY_SECONDS (60 * 60 + 7)
#define EXTENDED_SECONDS (24LL * 365 * 60 * 60)

static char **
copy_list(const char *const *src, size_t *n)
{
    char **out = NULL;

    *n = 0;
    for (; src != NULL && src[*n] != NULL; (*n)++) {
        out = gw_realloc(out, (*n + 1) * sizeof(*out));
        out[*n] = gw_strdup(src[*n]);
    }
    return out;
}

static void
free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

/* Append the keys of one PEM file to sa's verifying keys. */
static int
add_key_file(authn__sa_t *sa, const char *flag, const char *path, char *err, size_t err_len)
{
    size_t len = 0, n = 0;
    char *pem = authn__file_read(path, &len);
    EVP_PKEY **keys = NULL;

    if (pem == NULL) {
        snprintf(err, err_len, "cannot read --%s \"%s\": %s", flag, path, strerror(errno));
        return GW_EINVAL;
    }
    int rc = authn_jwt_pem_keys(pem, len, &keys, &n);
    free(pem);
    if (rc != 0) {
        snprintf(err, err_len,
                 "--%s \"%s\": data does not contain any valid RSA or ECDSA public "
                 "keys",
                 flag, path);
        return rc;
    }
    sa->keys = gw_realloc(sa->keys, (sa->n_keys + n) * sizeof(*sa->keys));
    sa->kids = gw_realloc(sa->kids, (sa->n_keys + n) * sizeof(*sa->kids));
    for (size_t i = 0; i < n; i++) {
        sa->keys[sa->n_keys] = keys[i];
        sa->kids[sa->n_keys++] = authn_jwt_key_id(keys[i]);
    }
    free(keys);
    return 0;
}

/* The signing key: a private RSA or EC key kube knows how to sign with. */
static int
load_signing_key(authn__sa_t *sa, const char *path, char *err, size_t err_len)
{
    size_t len = 0;
    char *pem = authn__file_read(path, &len);

    if (pem == NULL) {
        snprintf(err, err_len, "cannot read --service-account-signing-key-file \"%s\": %s", path,
                 strerror(errno));
        return GW_EINVAL;
    }
    sa->signing_key = authn_jwt_pem_private_key(pem, len);
    free(pem);
    sa->signing_alg = sa->signing_key != NULL ? authn_jwt_key_alg(sa->signing_key) : NULL;
    if (sa->signing_alg == NULL) {
        snprintf(err, err_len,
                 "--service-account-signing-key-file \"%s\": no RSA or ECDSA "
                 "(P-256, P-384, P-521) private key",
                 path);
        return GW_EINVAL;
    }
    sa->signing_kid = authn_jwt_key_id(sa->signing_key);
    return 0;
}

/* The verifying keys: --service-account-key-file, else the serving key as kube-apiserver
 * falls back to it. */
static int
load_keys(authn__sa_t *sa, const authn_config_t *cfg, char *err, size_t err_len)
{
    for (size_t i = 0; cfg->sa_key_files != NULL && cfg->sa_key_files[i] != NULL; i++) {
        int rc = add_key_file(sa, "service-account-key-file", cfg->sa_key_files[i], err, err_len);
        if (rc != 0)
            return rc;
    }
    if (sa->n_keys == 0 && cfg->tls_key_file != NULL)
        return add_key_file(sa, "tls-private-key-file", cfg->tls_key_file, err, err_len);
    return 0;
}

int
authn__sa_new(const authn_config_t *cfg, authn__sa_t **out, char *err, size_t err_len)
{
    authn__sa_t *sa = gw_calloc(1, sizeof(*sa));
    int rc = 0;

    *out = NULL;
    sa->issuers = copy_list(cfg->sa_issuers, &sa->n_issuers);
    if (sa->n_issuers == 0) {
        authn__sa_free(sa);
        return 0; /* no issuer: neither verified nor issued */
    }
    sa->audiences = copy_list(cfg->api_audiences, &sa->n_audiences);
    if (sa->n_audiences == 0)
        sa->audiences = copy_list(cfg->sa_issuers, &sa->n_audiences);
    sa->max_expiration = cfg->sa_max_expiration;
    sa->extend = cfg->sa_extend_expiration;
    sa->lookup = cfg->sa_lookup;
    rc = load_keys(sa, cfg, err, err_len);
    if (rc == 0 && cfg->sa_signing_key_file != NULL)
        rc = load_signing_key(sa, cfg->sa_signing_key_file, err, err_len);
    if (rc != 0) {
        authn__sa_free(sa);
        return rc;
    }
    *out = sa;
    return 0;
}

void
authn__sa_free(authn__sa_t *sa)
{
    if (sa == NULL)
        return;
    free_list(sa->issuers, sa->n_issuers);
    free_list(sa->audiences, sa->n_audiences);
    authn_jwt_keys_free(sa->keys, sa->n_keys);
    free_list(sa->kids, sa->n_keys);
    EVP_PKEY_free(sa->signing_key);
    free(sa->signing_kid);
    free(sa);
}

bool
authn_sa_can_issue(const authn_t *a)
{
    return a->sa != NULL && a->sa->signing_key != NULL;
}

size_t
authn_sa_api_audiences(const authn_t *a, const char *const **auds)
{
    *auds = a->sa != NULL ? (const char *const *)a->sa->audiences : NULL;
    return a->sa != NULL ? a->sa->n_audiences : 0;
}

long long
authn_sa_max_expiration(const authn_t *a)
{
    return a->sa != NULL ? a->sa->max_expiration : 0;
}

/* ---- issuing ------------------------------------------------------------------------------- */

/* Whether every audience is an API audience (kube's isKubeAudiences). */
static bool
api_audiences_only(const authn__sa_t *sa, const authn_sa_request_t *q)
{
    for (size_t i = 0; i < q->n_audiences; i++) {
        bool found = false;
        for (size_t j = 0; j < sa->n_audiences && !found; j++)
            found = strcmp(q->audiences[i], sa->audiences[j]) == 0;
        if (!found)
            return false;
    }
    return true;
}

static json_t *
ref(const char *name, const char *uid)
{
    return json_pack("{s:s,s:s}", "name", name, "uid", uid != NULL ? uid : "");
}

/* The kubernetes.io private claims. */
static json_t *
private_claims(const authn_sa_request_t *q, long long warnafter)
{
    json_t *k =
        json_pack("{s:s,s:o}", "namespace", q->namespace, "serviceaccount", ref(q->name, q->uid));
    const char *kind = q->bound_kind != NULL ? q->bound_kind : "";

    if (strcmp(kind, "Pod") == 0) {
        json_object_set_new(k, "pod", ref(q->bound_name, q->bound_uid));
        if (q->node_name != NULL)
            json_object_set_new(k, "node", ref(q->node_name, q->node_uid));
    } else if (strcmp(kind, "Secret") == 0) {
        json_object_set_new(k, "secret", ref(q->bound_name, q->bound_uid));
    } else if (strcmp(kind, "Node") == 0) {
        json_object_set_new(k, "node", ref(q->bound_name, q->bound_uid));
    }
    if (warnafter != 0)
        json_object_set_new(k, "warnafter", json_integer(warnafter));
    return k;
}

char *
authn_sa_issue(const authn_t *a, const authn_sa_request_t *q)
{
    const authn__sa_t *sa = a->sa;
    long long exp = q->expiration_seconds, warnafter = 0;
    char jti[37], *sub, *token;

    if (!authn_sa_can_issue(a))
        return NULL;
    if (sa->extend && q->bound_kind != NULL && strcmp(q->bound_kind, "Pod") == 0 &&
        exp == WARN_ONLY_SECONDS && api_audiences_only(sa, q)) {
        warnafter = q->now + exp;
        exp = sa->max_expiration > EXTENDED_SECONDS ? sa->max_expiration : EXTENDED_SECONDS;
    }
    json_t *aud = gw_json_strings(q->audiences, q->n_audiences);
    gw_uuid_v4(jti); /* kube's jti */
    sub = gw_sprintf("system:serviceaccount:%s:%s", q->namespace, q->name);
    json_t *claims = json_pack("{s:o,s:I,s:I,s:s,s:s,s:o,s:I,s:s}", "aud", aud, "exp",
                               (json_int_t)(q->now + exp), "iat", (json_int_t)q->now, "iss",
                               sa->issuers[0], "jti", jti, "kubernetes.io",
                               private_claims(q, warnafter), "nbf", (json_int_t)q->now, "sub", sub);
    token = authn_jwt_sign(claims, sa->signing_alg, sa->signing_kid, sa->signing_key);
    json_decref(claims);
    free(sub);
    return token;
}

/* ---- the issuer's OpenID documents -------------------------------------------------------- */

json_t *
authn_sa_openid_configuration(const authn_t *a)
{
    const authn__sa_t *sa = a->sa;

    if (sa == NULL || sa->n_keys == 0)
        return NULL;
    json_t *algs = json_array();
    /* Distinct algorithms of the verifying keys, sorted as kube lists them. */
    static const char *const order[] = {"ES256", "ES384", "ES512", "RS256"};
    for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
        for (size_t i = 0; i < sa->n_keys; i++) {
            const char *alg = authn_jwt_key_alg(sa->keys[i]);
            if (alg != NULL && strcmp(alg, order[o]) == 0) {
                json_array_append_new(algs, json_string(alg));
                break;
            }
        }
    }
    char *jwks_uri = gw_sprintf("%s/openid/v1/jwks", sa->issuers[0]);
    json_t *doc =
        json_pack("{s:s,s:s,s:[s],s:[s],s:o}", "issuer", sa->issuers[0], "jwks_uri", jwks_uri,
                  "response_types_supported", "id_token", "subject_types_supported", "public",
                  "id_token_signing_alg_values_supported", algs);
    free(jwks_uri);
    return doc;
}

json_t *
authn_sa_jwks(const authn_t *a)
{
    const authn__sa_t *sa = a->sa;

    if (sa == NULL || sa->n_keys == 0)
        return NULL;
    json_t *keys = json_array();
    for (size_t i = 0; i < sa->n_keys; i++) {
        json_t *jwk = authn_jwk_from_key(sa->keys[i]);
        if (jwk != NULL)
            json_array_append_new(keys, jwk);
    }
    return json_pack("{s:o}", "keys", keys);
}
