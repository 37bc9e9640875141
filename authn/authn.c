/* The authenticators in kube-apiserver's order: x509, bearer token, anonymous. */
#include "authn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "authn_int.h"
#include "gw_alloc.h"
#include "gw_err.h"

#define GROUP_AUTHENTICATED "system:authenticated"
#define GROUP_UNAUTHENTICATED "system:unauthenticated"
#define USER_ANONYMOUS "system:anonymous"

struct authn {
    bool anonymous;
    bool have_tokens;
    authn__tokens_t tokens;
};

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

void
authn_user_free(authn_user_t *u)
{
    if (u == NULL)
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

/* The whole file into a NUL-terminated buffer (caller frees), or NULL with errno set. */
static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *s = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            s = gw_realloc(s, cap);
        }
        got = fread(s + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(s);
        errno = EIO;
        return NULL;
    }
    s[n] = '\0';
    *len = n;
    return s;
}

int
authn_new(const authn_config_t *cfg, authn_t **out, char *err, size_t err_len)
{
    authn_t *a = gw_calloc(1, sizeof(*a));
    a->anonymous = cfg->anonymous;
    *out = NULL;
    if (cfg->token_auth_file != NULL) {
        size_t len = 0;
        char *text = slurp(cfg->token_auth_file, &len);
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
    *out = a;
    return 0;
}

void
authn_free(authn_t *a)
{
    if (a == NULL)
        return;
    authn__tokens_free(&a->tokens);
    free(a);
}

typedef enum {
    NOT_MINE, /* no credential this authenticator reads */
    FOUND,
    REFUSED,
} verdict_t;

/* kube's bearertoken: "Bearer <token>" (scheme in any case); anything else is not ours. */
static verdict_t
bearer(const authn_t *a, const char *header, authn_user_t **user, const char **why)
{
    if (header == NULL)
        return NOT_MINE;
    while (*header == ' ' || *header == '\t')
        header++;
    if (strncasecmp(header, "bearer ", 7) != 0)
        return NOT_MINE;
    const char *tok = header + 7;
    size_t len = strcspn(tok, " ");
    while (len > 0 && (tok[len - 1] == '\t' || tok[len - 1] == '\r'))
        len--;
    if (len == 0)
        return NOT_MINE; /* an empty bearer token is no credential */
    char *token = gw_strndup(tok, len);
    const authn__token_t *t = a->have_tokens ? authn__tokens_find(&a->tokens, token) : NULL;
    free(token);
    if (t == NULL) {
        *why = "invalid bearer token";
        return REFUSED;
    }
    *user = authn__user_new(t->name, t->uid);
    for (size_t i = 0; i < t->n_groups; i++)
        authn__user_add_group(*user, t->groups[i]);
    return FOUND;
}

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

authn_result_t
authn_authenticate(const authn_t *a, const authn_request_t *req, authn_user_t **user, char *why,
                   size_t why_len)
{
    const char *reason = "no credentials and anonymous requests are disabled";
    *user = req->client_cert != NULL ? authn__x509_user(req->client_cert) : NULL;
    /* As kube's union: a certificate that names no one lets the token decide. */
    verdict_t v = *user != NULL ? FOUND : bearer(a, req->authorization, user, &reason);
    if (v == FOUND) {
        add_authenticated(*user);
        return AUTHN_OK;
    }
    if (v == NOT_MINE && a->anonymous) {
        *user = authn__user_new(USER_ANONYMOUS, "");
        authn__user_add_group(*user, GROUP_UNAUTHENTICATED);
        return AUTHN_OK;
    }
    if (why != NULL)
        snprintf(why, why_len, "%s", reason);
    return AUTHN_UNAUTHORIZED;
}
