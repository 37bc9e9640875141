/*
 * Bootstrap tokens (--enable-bootstrap-token-auth), as kube-apiserver's bootstrap token
 * authenticator: "<id>.<secret>" checked against the Secret kube-system/bootstrap-token-<id>.
 * The Secret's own rules (expiration, usages, extra groups) are shared with the controllers
 * that clean and sign with these tokens (authn_bootstrap.h).
 */
#include "authn_bootstrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "authn_int.h"
#include "gw_alloc.h"
#include "gw_time.h"
#include "gw_json.h"

#define SECRET_TYPE "bootstrap.kubernetes.io/token"
#define USER_PREFIX "system:bootstrap:"
#define GROUP_BOOTSTRAPPERS "system:bootstrappers"
#define GROUP_PREFIX "system:bootstrappers:"
#define MAX_GROUP_TAIL 256 /* [a-z0-9:-]{0,255}[a-z0-9] */

static bool
lower_alnum(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
            return false;
    }
    return true;
}

bool
authn_bootstrap_token_split(const char *token, char id[7], char secret[17])
{
    if (strlen(token) != 23 || token[6] != '.' || !lower_alnum(token, 6) ||
        !lower_alnum(token + 7, 16))
        return false;
    memcpy(id, token, 6);
    id[6] = '\0';
    memcpy(secret, token + 7, 16);
    secret[16] = '\0';
    return true;
}

bool
authn_bootstrap_group_valid(const char *g)
{
    size_t plen = strlen(GROUP_PREFIX), n = strlen(g);

    if (strncmp(g, GROUP_PREFIX, plen) != 0 || n == plen || n - plen > MAX_GROUP_TAIL)
        return false;
    for (size_t i = plen; i < n; i++) {
        char c = g[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && (i == n - 1 || (c != ':' && c != '-')))
            return false;
    }
    return true;
}

/* Standard padded base64, as encoding/json decodes a Secret's []byte; NULL when malformed. */
static char *
unbase64(const char *s, size_t n, size_t *out_len)
{
    if (n % 4 != 0)
        return NULL;
    unsigned char *out = gw_malloc(n / 4 * 3 + 1);
    int got = n > 0 ? EVP_DecodeBlock(out, (const unsigned char *)s, (int)n) : 0;
    if (got < 0 || memchr(s, ' ', n) != NULL || memchr(s, '\n', n) != NULL) {
        free(out);
        return NULL;
    }
    /* EVP_DecodeBlock counts the padding as zero bytes */
    for (size_t i = n; i > 0 && s[i - 1] == '=' && got > 0; i--)
        got--;
    out[got] = '\0';
    *out_len = (size_t)got;
    return (char *)out;
}

char *
authn_bootstrap_data(const json_t *secret, const char *key)
{
    json_t *v = json_object_get(json_object_get(secret, "data"), key);
    size_t len = 0;
    char *s =
        json_is_string(v) ? unbase64(json_string_value(v), json_string_length(v), &len) : NULL;

    if (s != NULL && strlen(s) != len) { /* a NUL inside is no text */
        free(s);
        s = NULL;
    }
    return s;
}

bool
authn_bootstrap_expiration(const json_t *secret, time_t *when)
{
    char *exp = authn_bootstrap_data(secret, "expiration");
    long long t;
    bool ok = exp != NULL && gw_time_parse(exp, &t);

    free(exp);
    if (ok)
        *when = (time_t)t;
    return ok;
}

bool
authn_bootstrap_expired(const json_t *secret, time_t now)
{
    char *exp = authn_bootstrap_data(secret, "expiration");
    long long when;
    /* kube's HasExpired: an unreadable expiration counts as expired */
    bool expired = exp != NULL && (!gw_time_parse(exp, &when) || when <= (long long)now);

    free(exp);
    return expired;
}

bool
authn_bootstrap_usage(const json_t *secret, const char *usage)
{
    char *key = gw_sprintf("usage-bootstrap-%s", usage);
    char *v = authn_bootstrap_data(secret, key);
    bool on = v != NULL && strcmp(v, "true") == 0;

    free(v);
    free(key);
    return on;
}

bool
authn_bootstrap_secret_ok(const json_t *secret, const char *id, const char *token_secret,
                          time_t now, const char **why)
{
    const char *type = json_string_value(json_object_get(secret, "type"));
    char *sid = authn_bootstrap_data(secret, "token-id");
    char *ssecret = authn_bootstrap_data(secret, "token-secret");
    bool ok = false;

    json_t *deleting = json_object_get(json_object_get(secret, "metadata"), "deletionTimestamp");

    *why = "bootstrap token secret is being deleted";
    if (deleting != NULL && !json_is_null(deleting))
        goto out;
    *why = "bootstrap token secret is not of type " SECRET_TYPE;
    if (type == NULL || strcmp(type, SECRET_TYPE) != 0)
        goto out;
    *why = "bootstrap token secret does not match";
    /* both are 16 characters once the id matched the pattern: compare in constant time */
    if (ssecret == NULL || strlen(ssecret) != strlen(token_secret) ||
        CRYPTO_memcmp(ssecret, token_secret, strlen(token_secret)) != 0)
        goto out;
    *why = "bootstrap token id does not match its secret";
    if (sid == NULL || strcmp(sid, id) != 0)
        goto out;
    *why = "bootstrap token has expired";
    if (authn_bootstrap_expired(secret, now))
        goto out;
    ok = true;
out:
    free(sid);
    free(ssecret);
    return ok;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The user of a usable token: kube's groups are a sorted set of system:bootstrappers and the
 * Secret's auth-extra-groups; NULL when a group is invalid. */
static authn_user_t *
bootstrap_user(const json_t *secret, const char *id)
{
    char *extra = authn_bootstrap_data(secret, "auth-extra-groups");
    char *name = gw_sprintf(USER_PREFIX "%s", id);
    authn_user_t *u = authn__user_new(name, "");
    bool ok = true;

    authn__user_add_group(u, GROUP_BOOTSTRAPPERS);
    for (char *save = NULL, *g = extra != NULL ? strtok_r(extra, ",", &save) : NULL;
         g != NULL && ok; g = strtok_r(NULL, ",", &save)) {
        while (*g == ' ' || *g == '\t' || *g == '\n' || *g == '\r')
            g++;
        size_t n = strlen(g);
        while (n > 0 &&
               (g[n - 1] == ' ' || g[n - 1] == '\t' || g[n - 1] == '\n' || g[n - 1] == '\r'))
            g[--n] = '\0';
        ok = authn_bootstrap_group_valid(g);
        bool seen = false;
        for (size_t i = 0; i < u->n_groups && !seen; i++)
            seen = strcmp(u->groups[i], g) == 0;
        if (ok && !seen)
            authn__user_add_group(u, g);
    }
    qsort(u->groups, u->n_groups, sizeof(*u->groups), cmp_str);
    free(extra);
    free(name);
    if (!ok) {
        authn_user_free(u);
        u = NULL;
    }
    return u;
}

typedef struct {
    char id[7], secret[17];
} pending_token_t;

static authn__verdict_t
finish(const authn_t *a, void *state, const authn_answer_t *answers, authn_user_t **user,
       authn_pending_t **pending, const char **why)
{
    const pending_token_t *t = state;
    json_t *secret = NULL;
    authn__verdict_t v = AUTHN__REFUSED;

    (void)a, (void)pending;
    *why = "bootstrap token secret could not be read";
    if (answers[0].err != 0)
        goto out;
    *why = "no bootstrap token secret for this token id";
    if (answers[0].object == NULL)
        goto out;
    secret = gw_json_loadb(answers[0].object, answers[0].object_len, 0, NULL);
    if (!authn_bootstrap_secret_ok(secret, t->id, t->secret, time(NULL), why))
        goto out;
    *why = "bootstrap token is not usable for authentication";
    if (!authn_bootstrap_usage(secret, "authentication"))
        goto out;
    *why = "bootstrap token secret has an invalid auth-extra-groups entry";
    *user = bootstrap_user(secret, t->id);
    if (*user != NULL)
        v = AUTHN__FOUND;
out:
    json_decref(secret);
    return v;
}

authn__verdict_t
authn__bootstrap_token(const authn_t *a, const char *token, authn_user_t **user,
                       authn_pending_t **pending, const char **why)
{
    pending_token_t *t;
    char *name;

    (void)user, (void)why;
    if (!a->bootstrap)
        return AUTHN__NOT_MINE;
    t = gw_calloc(1, sizeof(*t));
    if (!authn_bootstrap_token_split(token, t->id, t->secret)) {
        free(t);
        return AUTHN__NOT_MINE;
    }
    name = gw_sprintf("bootstrap-token-%s", t->id);
    *pending = authn__pending_new(finish, t, free);
    authn__need_object(*pending, "secrets", "kube-system", name);
    free(name);
    return AUTHN__PENDING;
}
