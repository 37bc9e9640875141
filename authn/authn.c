/* The authenticators in kube-apiserver's order: x509, bearer tokens, anonymous. */
#include "authn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "authn_file.h"
#include "authn_int.h"
#include "authn_oidc.h"
#include "authn_token_cache.h"
#include "authn_webhook.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_query.h"

#define GROUP_AUTHENTICATED "system:authenticated"
#define GROUP_UNAUTHENTICATED "system:unauthenticated"
#define USER_ANONYMOUS "system:anonymous"

authn_user_t *
authn__user_new(const char *name, const char *uid)
{
    authn_user_t *u = gw_calloc(1, sizeof(*u));
    u->name = gw_strdup(name);
    u->uid = gw_strdup(uid);
    return u;
}

void
authn__user_add_group(authn_user_t *u, const char *group)
{
    u->groups = gw_realloc(u->groups, (u->n_groups + 1) * sizeof(*u->groups));
    u->groups[u->n_groups++] = gw_strdup(group);
}

authn_user_t *
authn__user_copy(const authn_user_t *u)
{
    authn_user_t *c = authn__user_new(u->name, u->uid);

    for (size_t i = 0; i < u->n_groups; i++)
        authn__user_add_group(c, u->groups[i]);
    for (size_t i = 0; i < u->n_extra; i++) {
        for (size_t j = 0; j < u->extra[i].n_values; j++)
            authn_user_add_extra(c, u->extra[i].key, u->extra[i].values[j]);
    }
    return c;
}

authn_user_t *
authn__user_share(authn_user_t *u)
{
    atomic_fetch_add_explicit(&u->more_holders, 1, memory_order_relaxed);
    return u;
}

/* True when the caller was u's last holder. A holder that sees no other needs no atomic
 * write: nobody else can take a reference to a user nobody else holds. */
static bool
last_holder(authn_user_t *u)
{
    return atomic_load_explicit(&u->more_holders, memory_order_acquire) == 0 ||
           atomic_fetch_sub_explicit(&u->more_holders, 1, memory_order_acq_rel) == 0;
}

void
authn_user_free(authn_user_t *u)
{
    if (u == NULL || !last_holder(u))
        return;
    for (size_t i = 0; i < u->n_groups; i++)
        free(u->groups[i]);
    for (size_t i = 0; i < u->n_extra; i++) {
        for (size_t j = 0; j < u->extra[i].n_values; j++)
            free(u->extra[i].values[j]);
        free(u->extra[i].values);
        free(u->extra[i].key);
    }
    free(u->extra);
    free(u->groups);
    free(u->name);
    free(u->uid);
    free(u);
}

void
authn_user_add_extra(authn_user_t *u, const char *key, const char *value)
{
    size_t i = 0;

    while (i < u->n_extra && strcmp(u->extra[i].key, key) != 0)
        i++;
    if (i == u->n_extra) {
        u->extra = gw_realloc(u->extra, (u->n_extra + 1) * sizeof(*u->extra));
        u->extra[u->n_extra++] = (authn_extra_t){.key = gw_strdup(key)};
    }
    authn_extra_t *e = &u->extra[i];
    e->values = gw_realloc(e->values, (e->n_values + 1) * sizeof(*e->values));
    e->values[e->n_values++] = gw_strdup(value);
}

char *
authn_extra_key(const char *header_suffix)
{
    char *lower = gw_strdup(header_suffix), *out = gw_strdup(header_suffix);

    for (char *c = lower; *c != '\0'; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    /* a NUL would cut the key short: keep such a key escaped, like a malformed one */
    if (!gw_unescape(out, lower, strlen(lower), false)) {
        free(out);
        return lower;
    }
    free(lower);
    return out;
}

/* A copy of a NULL-ended list. */
static char **
list_copy(const char *const *list, size_t *n)
{
    char **copy;

    *n = 0;
    while (list != NULL && list[*n] != NULL)
        (*n)++;
    copy = gw_calloc(*n + 1, sizeof(*copy));
    for (size_t i = 0; i < *n; i++)
        copy[i] = gw_strdup(list[i]);
    return copy;
}

/* kube-apiserver caches what its token union accepts (TokenSuccessCacheTTL, 10 s; refusals not
 * at all: TokenFailureCacheTTL is 0) under the token and the request's audiences: the API
 * audiences, --api-audiences or else the service account issuers, as kube defaults them. */
static void
token_cache_new(authn_t *a, const authn_config_t *cfg)
{
    const char *const *auds = cfg->api_audiences;
    long long ttl =
        cfg->token_cache_ttl_ms != 0 ? cfg->token_cache_ttl_ms : AUTHN__TOKEN_CACHE_TTL_MS;

    if (ttl < 0)
        return;
    /* as kube, no cache without a bearer-token authenticator */
    if (!a->have_tokens && a->sa == NULL && !a->bootstrap && a->oidc == NULL && a->webhook == NULL)
        return;
    if (auds == NULL || auds[0] == NULL)
        auds = cfg->sa_issuers;
    a->audiences = list_copy(auds, &a->n_audiences);
    a->token_cache = authn__token_cache_new(AUTHN__TOKEN_CACHE_SIZE, ttl, NULL);
}

int
authn_new(const authn_config_t *cfg, authn_t **out, char *err, size_t err_len)
{
    authn_t *a = gw_calloc(1, sizeof(*a));
    a->anonymous = cfg->anonymous;
    a->bootstrap = cfg->bootstrap_tokens;
    *out = NULL;
    if (cfg->token_auth_file != NULL) {
        size_t len = 0;
        char *text = authn__file_read(cfg->token_auth_file, &len);
        if (text == NULL) {
            snprintf(err, err_len, "cannot read --token-auth-file \"%s\": %s", cfg->token_auth_file,
                     strerror(errno));
            free(a);
            return GW_EINVAL;
        }
        int rc = authn__tokens_parse(cfg->token_auth_file, text, len, &a->tokens, err, err_len);
        free(text);
        if (rc != 0) {
            free(a);
            return rc;
        }
        a->have_tokens = true;
    }
    if (authn__proxy_new(cfg, &a->proxy, err, err_len) != 0) {
        authn_free(a);
        return GW_EINVAL;
    }
    if (authn__oidc_new(cfg, &a->oidc, err, err_len) != 0 ||
        authn__webhook_new(cfg, &a->webhook, err, err_len) != 0) {
        authn_free(a);
        return GW_EINVAL;
    }
    if (authn__sa_new(cfg, &a->sa, err, err_len) != 0) {
        authn_free(a);
        return GW_EINVAL;
    }
    token_cache_new(a, cfg);
    *out = a;
    return 0;
}

void
authn_free(authn_t *a)
{
    if (a == NULL)
        return;
    authn__tokens_free(&a->tokens);
    authn__sa_free(a->sa);
    authn__proxy_free(a->proxy);
    authn__oidc_free(a->oidc);
    authn__webhook_free(a->webhook);
    authn__token_cache_free(a->token_cache);
    for (size_t i = 0; i < a->n_audiences; i++)
        free(a->audiences[i]);
    free(a->audiences);
    free(a);
}

/* The static token file. */
static authn__verdict_t
token_file(const authn_t *a, const char *token, authn_user_t **user, authn_pending_t **pending,
           const char **why)
{
    const authn__token_t *t = a->have_tokens ? authn__tokens_find(&a->tokens, token) : NULL;

    (void)pending;
    if (t == NULL) {
        *why = "invalid bearer token";
        return a->have_tokens ? AUTHN__REFUSED : AUTHN__NOT_MINE;
    }
    *user = authn__user_new(t->name, t->uid);
    for (size_t i = 0; i < t->n_groups; i++)
        authn__user_add_group(*user, t->groups[i]);
    return AUTHN__FOUND;
}

/* The bearer-token authenticators in kube's union order. */
static const authn__token_fn token_chain[] = {
    token_file, authn__sa_token, authn__bootstrap_token, authn__oidc_token, authn__webhook_token,
};

#define N_TOKEN_AUTHENTICATORS (sizeof(token_chain) / sizeof(token_chain[0]))

/* kube's AuthenticatedGroupAdder: unless the user is already in either all-users group. */
static void
add_authenticated(authn_user_t *u)
{
    for (size_t i = 0; i < u->n_groups; i++) {
        if (strcmp(u->groups[i], GROUP_AUTHENTICATED) == 0 ||
            strcmp(u->groups[i], GROUP_UNAUTHENTICATED) == 0)
            return;
    }
    authn__user_add_group(u, GROUP_AUTHENTICATED);
}

/* The union accepted a token: its user gets the all-users group and, with a key, is remembered
 * under it. kube's AuthenticatedGroupAdder wraps the cached union and adds the group to every
 * answer alike, so the cache can hold the user as handed out and share it from then on: a hit
 * then costs neither a copy nor a change. */
static void
accepted(const authn_t *a, const authn__token_key_t *key, authn_user_t *u)
{
    add_authenticated(u);
    if (key != NULL)
        authn__token_cache_put(a->token_cache, key, u);
}

/* A pending authentication resumes the union at `next` when it refuses, with the token (taken)
 * and its cache key (NULL: answers are not cached). */
static void
resume_at(authn_pending_t *p, char *token, size_t next, const authn__token_key_t *key)
{
    p->token = token;
    p->next = next;
    p->keyed = key != NULL;
    if (key != NULL)
        p->key = *key;
}

/* kube's union of token authenticators from `from` on: the first that accepts decides, a
 * pending one resumes the union after itself when it refuses; all refusing is a refusal. An
 * accepted token is remembered under key (NULL: answers are not cached), which a pending
 * authentication carries so that its token is hashed once. */
static authn__verdict_t
token_union(const authn_t *a, const char *token, const authn__token_key_t *key, size_t from,
            authn_user_t **user, authn_pending_t **pending, const char **why)
{
    authn__verdict_t result = AUTHN__NOT_MINE;

    for (size_t i = from; i < N_TOKEN_AUTHENTICATORS; i++) {
        const char *reason = NULL;
        authn__verdict_t v = token_chain[i](a, token, user, pending, &reason);
        if (v == AUTHN__FOUND) {
            accepted(a, key, *user);
            return v;
        }
        if (v == AUTHN__PENDING) {
            resume_at(*pending, gw_strdup(token), i + 1, key);
            return v;
        }
        if (v == AUTHN__REFUSED) {
            result = v;
            *why = reason;
        }
    }
    /* resumed after a pending authenticator refused: its reason stands */
    if (result == AUTHN__NOT_MINE && from == 0)
        *why = "invalid bearer token";
    return AUTHN__REFUSED;
}

/* The cache key of token, when the union's answers are cached. */
static bool
cache_key(const authn_t *a, const char *token, authn__token_key_t *key)
{
    if (a->token_cache == NULL)
        return false;
    authn__token_cache_key(a->token_cache, token, (const char *const *)a->audiences, a->n_audiences,
                           key);
    return true;
}

/* kube's bearertoken: "Bearer <token>" (scheme in any case); anything else is not ours. A
 * token seen within the cache's TTL is answered from the cache, else by the union. */
static authn__verdict_t
bearer(const authn_t *a, const char *header, authn_user_t **user, authn_pending_t **pending,
       const char **why)
{
    if (header == NULL)
        return AUTHN__NOT_MINE;
    while (*header == ' ' || *header == '\t')
        header++;
    if (strncasecmp(header, "bearer ", 7) != 0)
        return AUTHN__NOT_MINE;
    const char *tok = header + 7;
    size_t len = strcspn(tok, " ");
    while (len > 0 && (tok[len - 1] == '\t' || tok[len - 1] == '\r'))
        len--;
    if (len == 0)
        return AUTHN__NOT_MINE; /* an empty bearer token is no credential */
    /* the header's own bytes unless blanks follow the token */
    char *copy = tok[len] != '\0' ? gw_strndup(tok, len) : NULL;
    const char *token = copy != NULL ? copy : tok;
    authn__token_key_t key;
    bool caching = cache_key(a, token, &key);
    authn__verdict_t v = AUTHN__FOUND;
    if (!caching || !authn__token_cache_get(a->token_cache, &key, user))
        v = token_union(a, token, caching ? &key : NULL, 0, user, pending, why);
    free(copy);
    return v;
}

/* The verdict as the public result (a user found has its all-users group already), anonymous
 * for no credential at all. */
static authn_result_t
conclude(const authn_t *a, authn__verdict_t v, authn_user_t **user, const char *reason, char *why,
         size_t why_len)
{
    if (v == AUTHN__FOUND)
        return AUTHN_OK;
    if (v == AUTHN__PENDING)
        return AUTHN_PENDING;
    if (v == AUTHN__NOT_MINE && a->anonymous) {
        *user = authn__user_new(USER_ANONYMOUS, "");
        authn__user_add_group(*user, GROUP_UNAUTHENTICATED);
        return AUTHN_OK;
    }
    if (why != NULL)
        snprintf(why, why_len, "%s", reason);
    return AUTHN_UNAUTHORIZED;
}

/* A pending verdict for a caller that cannot wait is the refusal of a failed need. */
static authn__verdict_t
no_wait(authn__verdict_t v, authn_pending_t **pending, authn_pending_t *local, const char **why)
{
    if (v == AUTHN__PENDING && pending == NULL) {
        authn_pending_free(local);
        *why = "the credential needs a lookup the caller cannot wait for";
        return AUTHN__REFUSED;
    }
    if (pending != NULL)
        *pending = local;
    return v;
}

authn_result_t
authn_authenticate(const authn_t *a, const authn_request_t *req, authn_user_t **user,
                   authn_pending_t **pending, char *why, size_t why_len)
{
    const char *reason = "no credentials and anonymous requests are disabled";
    authn_pending_t *local = NULL;
    authn__verdict_t v = AUTHN__NOT_MINE;

    if (pending != NULL)
        *pending = NULL;
    *user = NULL;
    /* As kube's union: the front proxy, then the certificate, then the token; one that
     * refuses or names no one lets the next decide. */
    if (authn__proxy_authenticate(a, req, user, &reason) != AUTHN__FOUND)
        *user = req->client_cert != NULL ? authn__x509_user(req->client_cert) : NULL;
    if (*user != NULL) {
        add_authenticated(*user);
        return AUTHN_OK;
    }
    v = bearer(a, req->authorization, user, &local, &reason);
    v = no_wait(v, pending, local, &reason);
    return conclude(a, v, user, reason, why, why_len);
}

authn_result_t
authn_pending_finish(const authn_t *a, authn_pending_t *p, const authn_answer_t *answers,
                     authn_user_t **user, authn_pending_t **pending, char *why, size_t why_len)
{
    const char *reason = "invalid bearer token";
    char *token = p->token;
    size_t next = p->next;
    authn__token_key_t key = p->key;
    const authn__token_key_t *keyed = p->keyed ? &key : NULL;
    authn_pending_t *local = NULL;
    authn__verdict_t v;

    *user = NULL;
    *pending = NULL;
    p->token = NULL;
    v = authn__pending_run(a, p, answers, user, &local, &reason);
    if (v == AUTHN__PENDING) {
        /* another round (OIDC: discovery, then keys) resumes the union where this one would */
        resume_at(local, token, next, keyed);
        token = NULL;
    } else if (v == AUTHN__FOUND) {
        /* the union's final answer after its lookups: an accepted token is remembered */
        accepted(a, keyed, *user);
    } else if (v == AUTHN__REFUSED && token != NULL && next < N_TOKEN_AUTHENTICATORS) {
        v = token_union(a, token, keyed, next, user, &local, &reason);
    }
    free(token);
    *pending = local;
    return conclude(a, v == AUTHN__NOT_MINE ? AUTHN__REFUSED : v, user, reason, why, why_len);
}
