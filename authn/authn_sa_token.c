/*
 * Service account tokens as credentials: kube's serviceaccount JWT authenticator (issuer
 * check, signature against the configured keys, audiences) and its validators: for bound
 * tokens, times with go-jose's one-minute leeway, the kubernetes.io claims, then the
 * ServiceAccount and the bound object looked up in storage; for legacy Secret-based tokens
 * (issuer "kubernetes/serviceaccount"), their flat claims, then with --service-account-lookup
 * the Secret (still holding this very token, not marked invalid) and the ServiceAccount.
 */
#include "authn_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "authn_bootstrap.h"
#include "authn_jwt.h"
#include "gw_alloc.h"
#include "gw_time.h"
#include "gw_json.h"

#define LEEWAY 60 /* go-jose's jwt.DefaultLeeway */

#define EXTRA_POD_NAME "authentication.kubernetes.io/pod-name"
#define EXTRA_POD_UID "authentication.kubernetes.io/pod-uid"
#define EXTRA_NODE_NAME "authentication.kubernetes.io/node-name"
#define EXTRA_NODE_UID "authentication.kubernetes.io/node-uid"
#define EXTRA_CREDENTIAL_ID "authentication.kubernetes.io/credential-id"

#define LEGACY_ISSUER "kubernetes/serviceaccount"
#define LEGACY_CLAIM(name) "kubernetes.io/serviceaccount/" name
#define LEGACY_INVALID_SINCE "kubernetes.io/legacy-token-invalid-since"

/* What a signed token claims, copied out of it for the lookup. */
typedef struct {
    char *ns, *sa_name, *sa_uid;
    char *pod_name, *pod_uid, *secret_name, *secret_uid, *node_name, *node_uid;
    char *jti;
    long long now;
    bool legacy;
    char *token; /* legacy: compared with the Secret's copy */
} claims_t;

static void
claims_free(void *p)
{
    claims_t *c = p;

    free(c->ns);
    free(c->sa_name);
    free(c->sa_uid);
    free(c->pod_name);
    free(c->pod_uid);
    free(c->secret_name);
    free(c->secret_uid);
    free(c->node_name);
    free(c->node_uid);
    free(c->jti);
    free(c->token);
    free(c);
}

/* A string member as a new string, NULL when absent or not a string. */
static char *
str_dup(const json_t *o, const char *name)
{
    const char *s = json_string_value(json_object_get(o, name));
    return s != NULL ? gw_strdup(s) : NULL;
}

/* 1 for one of the configured issuers, 2 for legacy Secret-based tokens, 0 for another. */
static int
issuer_kind(const authn__sa_t *sa, const json_t *claims)
{
    const char *iss = json_string_value(json_object_get(claims, "iss"));

    for (size_t i = 0; iss != NULL && i < sa->n_issuers; i++) {
        if (strcmp(iss, sa->issuers[i]) == 0)
            return 1;
    }
    return iss != NULL && strcmp(iss, LEGACY_ISSUER) == 0 ? 2 : 0;
}

/* kube's static keys getter: the keys whose id is the token's kid, else every key. */
static bool
signature_ok(const authn__sa_t *sa, const authn_jwt_t *j)
{
    bool kid_known = false;

    for (size_t i = 0; j->kid != NULL && i < sa->n_keys; i++)
        kid_known = kid_known || (sa->kids[i] != NULL && strcmp(sa->kids[i], j->kid) == 0);
    for (size_t i = 0; i < sa->n_keys; i++) {
        if (kid_known && (sa->kids[i] == NULL || strcmp(sa->kids[i], j->kid) != 0))
            continue;
        if (authn_jwt_verify(j, sa->keys[i]) == 0)
            return true;
    }
    return false;
}

/* go-jose's Claims.ValidateWithLeeway for exp, nbf and iat. */
static const char *
check_times(const json_t *claims, long long now)
{
    long long t = 0;
    int rc = authn_jwt_time_claim(claims, "exp", &t);

    if (rc < 0 || (rc == 1 && now >= t + LEEWAY))
        return "service account token has expired";
    rc = authn_jwt_time_claim(claims, "nbf", &t);
    if (rc < 0 || (rc == 1 && now + LEEWAY < t))
        return "service account token is not valid yet";
    rc = authn_jwt_time_claim(claims, "iat", &t);
    if (rc < 0 || (rc == 1 && now + LEEWAY < t))
        return "service account token is issued in the future";
    return NULL;
}

/* The token's audiences (a string or an array of strings) meet the API audiences; a token
 * without audiences gets the API's, as kube's legacy tokens do. */
static const char *
check_audiences(const authn__sa_t *sa, const json_t *claims)
{
    const json_t *aud = json_object_get(claims, "aud");
    size_t n = json_is_array(aud) ? json_array_size(aud) : aud != NULL ? 1 : 0;

    if (aud != NULL && !json_is_string(aud) && !json_is_array(aud))
        return "the token's aud claim is malformed";
    if (n == 0 || sa->n_audiences == 0)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *a = json_string_value(json_is_array(aud) ? json_array_get(aud, i) : aud);
        for (size_t j = 0; a != NULL && j < sa->n_audiences; j++) {
            if (strcmp(a, sa->audiences[j]) == 0)
                return NULL;
        }
    }
    return "token audiences are invalid for the target audiences";
}

static bool
empty(const char *s)
{
    return s == NULL || s[0] == '\0';
}

/* The subject names the account the other claims name. */
static bool
subject_matches(const char *sub, const claims_t *c)
{
    char *want = gw_sprintf("system:serviceaccount:%s:%s", c->ns, c->sa_name);
    bool same = strcmp(want, sub) == 0;

    free(want);
    return same;
}

/* The kubernetes.io claims, with the subject they must agree with. */
static const char *
read_claims(const json_t *claims, claims_t *c)
{
    const json_t *k = json_object_get(claims, "kubernetes.io");
    const json_t *sa = json_object_get(k, "serviceaccount");
    const char *sub = json_string_value(json_object_get(claims, "sub"));

    if (!json_is_object(k))
        return "service account token claims are missing";
    c->ns = str_dup(k, "namespace");
    c->sa_name = str_dup(sa, "name");
    c->sa_uid = str_dup(sa, "uid");
    c->pod_name = str_dup(json_object_get(k, "pod"), "name");
    c->pod_uid = str_dup(json_object_get(k, "pod"), "uid");
    c->secret_name = str_dup(json_object_get(k, "secret"), "name");
    c->secret_uid = str_dup(json_object_get(k, "secret"), "uid");
    c->node_name = str_dup(json_object_get(k, "node"), "name");
    c->node_uid = str_dup(json_object_get(k, "node"), "uid");
    c->jti = str_dup(claims, "jti");
    if (sub == NULL || sub[0] == '\0')
        return "sub claim is missing";
    if (empty(c->ns))
        return "namespace claim is missing";
    if (empty(c->sa_name) || empty(c->sa_uid))
        return "service account name claim is missing";
    return subject_matches(sub, c) ? NULL : "sub claim is invalid";
}

/* A legacy token's flat claims, in the order kube's legacy validator checks them. */
static const char *
read_legacy_claims(const json_t *claims, claims_t *c)
{
    const char *sub = json_string_value(json_object_get(claims, "sub"));

    c->ns = str_dup(claims, LEGACY_CLAIM("namespace"));
    c->secret_name = str_dup(claims, LEGACY_CLAIM("secret.name"));
    c->sa_name = str_dup(claims, LEGACY_CLAIM("service-account.name"));
    c->sa_uid = str_dup(claims, LEGACY_CLAIM("service-account.uid"));
    if (sub == NULL || sub[0] == '\0')
        return "sub claim is missing";
    if (empty(c->ns))
        return "namespace claim is missing";
    if (empty(c->secret_name))
        return "secretName claim is missing";
    if (empty(c->sa_name))
        return "serviceAccountName claim is missing";
    if (empty(c->sa_uid))
        return "serviceAccountUID claim is missing";
    return subject_matches(sub, c) ? NULL : "sub claim is invalid";
}

/* ---- the lookup --------------------------------------------------------------------------- */

/* The stored object's verdict: present, with `uid`, and not deleted more than the leeway
 * ago (kube's invalidIfDeletedBefore). */
static bool
object_valid(const authn_answer_t *ans, const char *uid, long long now)
{
    json_t *o = ans->err == 0 && ans->object != NULL
                    ? gw_json_loadb(ans->object, ans->object_len, 0, NULL)
                    : NULL;
    const json_t *meta = json_object_get(o, "metadata");
    const char *got = json_string_value(json_object_get(meta, "uid"));
    const char *deleted = json_string_value(json_object_get(meta, "deletionTimestamp"));
    bool ok = got != NULL && uid != NULL && strcmp(got, uid) == 0;

    if (ok && deleted != NULL) {
        long long t;
        ok = gw_time_parse(deleted, &t) && t >= now - LEEWAY;
    }
    json_decref(o);
    return ok;
}

/* kube's ServiceAccountInfo.UserInfo. */
static authn_user_t *
sa_user(const claims_t *c)
{
    char *name = gw_sprintf("system:serviceaccount:%s:%s", c->ns, c->sa_name);
    char *group = gw_sprintf("system:serviceaccounts:%s", c->ns);
    authn_user_t *u = authn__user_new(name, c->sa_uid);

    authn__user_add_group(u, "system:serviceaccounts");
    authn__user_add_group(u, group);
    if (c->pod_name != NULL && c->pod_name[0] && c->pod_uid != NULL && c->pod_uid[0]) {
        authn_user_add_extra(u, EXTRA_POD_NAME, c->pod_name);
        authn_user_add_extra(u, EXTRA_POD_UID, c->pod_uid);
    }
    if (c->jti != NULL && c->jti[0] != '\0') {
        char *id = gw_sprintf("JTI=%s", c->jti);
        authn_user_add_extra(u, EXTRA_CREDENTIAL_ID, id);
        free(id);
    }
    if (c->node_name != NULL && c->node_name[0] != '\0') {
        authn_user_add_extra(u, EXTRA_NODE_NAME, c->node_name);
        if (c->node_uid != NULL && c->node_uid[0] != '\0')
            authn_user_add_extra(u, EXTRA_NODE_UID, c->node_uid);
    }
    free(group);
    free(name);
    return u;
}

/* The answers, in the order the needs were asked: the ServiceAccount, then the secret, the
 * pod, or (bound to a Node alone) the node. */
static authn__verdict_t
looked_up(const authn_t *a, void *state, const authn_answer_t *answers, authn_user_t **user,
          authn_pending_t **pending, const char **why)
{
    claims_t *c = state;
    size_t i = 1;

    (void)a;
    (void)pending;
    if (!object_valid(&answers[0], c->sa_uid, c->now)) {
        *why = "the token's service account does not exist (or has another uid)";
        return AUTHN__REFUSED;
    }
    if ((c->secret_name != NULL && !object_valid(&answers[i++], c->secret_uid, c->now)) ||
        (c->pod_name != NULL && !object_valid(&answers[i++], c->pod_uid, c->now)) ||
        (c->pod_name == NULL && c->node_name != NULL &&
         !object_valid(&answers[i++], c->node_uid, c->now))) {
        *why = "service account token has been invalidated";
        return AUTHN__REFUSED;
    }
    *user = sa_user(c);
    return AUTHN__FOUND;
}

/* Ask for the ServiceAccount and the objects the token is bound to. */
static authn_pending_t *
lookup(claims_t *c)
{
    authn_pending_t *p = authn__pending_new(looked_up, c, claims_free);

    authn__need_object(p, "serviceaccounts", c->ns, c->sa_name);
    if (c->secret_name != NULL)
        authn__need_object(p, "secrets", c->ns, c->secret_name);
    if (c->pod_name != NULL)
        authn__need_object(p, "pods", c->ns, c->pod_name);
    else if (c->node_name != NULL)
        authn__need_object(p, "nodes", "", c->node_name);
    return p;
}

/* A legacy token's Secret: present, not being deleted, holding this very token, not marked
 * invalid; then its account: present, not being deleted, with the token's uid. */
static const char *
legacy_check(const claims_t *c, const authn_answer_t *answers)
{
    json_t *secret = answers[0].err == 0 && answers[0].object != NULL
                         ? gw_json_loadb(answers[0].object, answers[0].object_len, 0, NULL)
                         : NULL;
    const json_t *meta = json_object_get(secret, "metadata");
    char *copy = authn_bootstrap_data(secret, "token");
    const char *reason = NULL;

    if (secret == NULL || json_object_get(meta, "deletionTimestamp") != NULL)
        reason = "token has been invalidated";
    else if (copy == NULL || strcmp(copy, c->token) != 0)
        reason = "token does not match server's copy";
    else if (!object_valid(&answers[1], c->sa_uid, c->now + LEEWAY)) /* any deletion counts */
        reason = "the token's service account does not exist (or has another uid)";
    else if (json_object_get(json_object_get(meta, "labels"), LEGACY_INVALID_SINCE) != NULL)
        reason = "the token's secret has been marked invalid";
    free(copy);
    json_decref(secret);
    return reason;
}

static authn__verdict_t
legacy_looked_up(const authn_t *a, void *state, const authn_answer_t *answers, authn_user_t **user,
                 authn_pending_t **pending, const char **why)
{
    claims_t *c = state;

    (void)a;
    (void)pending;
    *why = legacy_check(c, answers);
    if (*why != NULL)
        return AUTHN__REFUSED;
    *user = sa_user(c);
    return AUTHN__FOUND;
}

static authn_pending_t *
legacy_lookup(claims_t *c)
{
    authn_pending_t *p = authn__pending_new(legacy_looked_up, c, claims_free);

    authn__need_object(p, "secrets", c->ns, c->secret_name);
    authn__need_object(p, "serviceaccounts", c->ns, c->sa_name);
    return p;
}

/* The checks a signed token of ours must pass before the lookup. */
static const char *
check_token(const authn__sa_t *sa, const authn_jwt_t *j, claims_t *c)
{
    const char *reason;

    if (!signature_ok(sa, j))
        return "the service account token's signature is invalid";
    /* legacy tokens never expire: kube's legacy validator checks no times */
    reason = c->legacy ? NULL : check_times(j->claims, c->now);
    if (reason == NULL)
        reason = check_audiences(sa, j->claims);
    if (reason == NULL)
        reason = c->legacy ? read_legacy_claims(j->claims, c) : read_claims(j->claims, c);
    return reason;
}

authn__verdict_t
authn__sa_token(const authn_t *a, const char *token, authn_user_t **user, authn_pending_t **pending,
                const char **why)
{
    authn_jwt_t *j = NULL;

    /* As kube: a token that is no JWS, or names another issuer, is some other kind. */
    if (a->sa == NULL || authn_jwt_parse(token, &j, NULL) != 0)
        return AUTHN__NOT_MINE;
    int kind = issuer_kind(a->sa, j->claims);
    if (kind == 0) {
        authn_jwt_free(j);
        return AUTHN__NOT_MINE;
    }
    claims_t *c = gw_calloc(1, sizeof(*c));
    c->now = (long long)time(NULL);
    c->legacy = kind == 2;
    *why = check_token(a->sa, j, c);
    authn_jwt_free(j);
    if (*why != NULL) {
        claims_free(c);
        return AUTHN__REFUSED;
    }
    if (c->legacy && !a->sa->lookup) {
        *user = sa_user(c);
        claims_free(c);
        return AUTHN__FOUND;
    }
    c->token = c->legacy ? gw_strdup(token) : NULL;
    *pending = c->legacy ? legacy_lookup(c) : lookup(c);
    return AUTHN__PENDING;
}
