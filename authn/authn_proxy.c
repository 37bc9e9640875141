/*
 * The authenticating proxy (kube's request header authenticator): a client certificate that
 * verifies against --requestheader-client-ca-file, with a CN in --requestheader-allowed-names
 * when that list is given, vouches for the user named in its request headers. The TLS layer
 * accepts certificates of either client CA, so the CA is checked here again with a store of
 * the request-header CA alone.
 */
#include "authn_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "gw_alloc.h"
#include "gw_err.h"

struct authn__proxy {
    X509_STORE *store;
    char **allowed, **user_headers, **group_headers, **extra_prefixes; /* NULL-ended */
};

static char **
copy_list(const char *const *l)
{
    size_t n = 0;
    while (l != NULL && l[n] != NULL)
        n++;
    char **out = gw_calloc(n + 1, sizeof(*out));
    for (size_t i = 0; i < n; i++)
        out[i] = gw_strdup(l[i]);
    return out;
}

static void
free_list(char **l)
{
    for (size_t i = 0; l != NULL && l[i] != NULL; i++)
        free(l[i]);
    free(l);
}

/* Every certificate of the PEM bundle into the store; false when there is none. */
static bool
load_cas(X509_STORE *store, const char *path)
{
    FILE *f = fopen(path, "r");
    X509 *x;
    int n = 0;

    if (f == NULL)
        return false;
    while ((x = PEM_read_X509(f, NULL, NULL, NULL)) != NULL) {
        if (X509_STORE_add_cert(store, x) == 1)
            n++;
        X509_free(x);
    }
    fclose(f);
    ERR_clear_error(); /* the end of the file reads as an error */
    return n > 0;
}

int
authn__proxy_new(const authn_config_t *cfg, authn__proxy_t **out, char *err, size_t err_len)
{
    *out = NULL;
    if (cfg->requestheader_client_ca_file == NULL)
        return 0; /* as kube: without the CA there is no front proxy */
    authn__proxy_t *p = gw_calloc(1, sizeof(*p));
    p->store = X509_STORE_new();
    if (p->store == NULL)
        abort();
    if (!load_cas(p->store, cfg->requestheader_client_ca_file)) {
        snprintf(err, err_len, "no usable CA certificate in --requestheader-client-ca-file \"%s\"",
                 cfg->requestheader_client_ca_file);
        authn__proxy_free(p);
        return GW_EINVAL;
    }
    /* kube's verify options: client authentication usage */
    X509_STORE_set_purpose(p->store, X509_PURPOSE_SSL_CLIENT);
    p->allowed = copy_list(cfg->requestheader_allowed_names);
    p->user_headers = copy_list(cfg->requestheader_username_headers);
    p->group_headers = copy_list(cfg->requestheader_group_headers);
    p->extra_prefixes = copy_list(cfg->requestheader_extra_headers_prefix);
    *out = p;
    return 0;
}

void
authn__proxy_free(authn__proxy_t *p)
{
    if (p == NULL)
        return;
    X509_STORE_free(p->store);
    free_list(p->allowed);
    free_list(p->user_headers);
    free_list(p->group_headers);
    free_list(p->extra_prefixes);
    free(p);
}

/* The certificate verifies against the request-header CA alone, with the peer's chain as
 * intermediates, and names an allowed CN. */
static bool
trusted(const authn__proxy_t *p, const authn_request_t *req, const char **why)
{
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    bool ok = ctx != NULL &&
              X509_STORE_CTX_init(ctx, p->store, req->peer_cert, req->peer_chain) == 1 &&
              X509_verify_cert(ctx) == 1;

    X509_STORE_CTX_free(ctx);
    ERR_clear_error();
    *why = "the client certificate is not signed by the request header CA";
    if (!ok || p->allowed[0] == NULL)
        return ok;
    authn_user_t *cn = authn__x509_user(req->peer_cert);
    ok = false;
    for (size_t i = 0; cn != NULL && p->allowed[i] != NULL && !ok; i++)
        ok = strcmp(cn->name, p->allowed[i]) == 0;
    authn_user_free(cn);
    *why = "the client certificate's CN is not in --requestheader-allowed-names";
    return ok;
}

/* Each header line in order: name, value; false past the last. */
static bool
header_at(const authn_request_t *req, size_t i, const char **name, const char **value)
{
    return req->header_at != NULL && req->header_at(req->header_ctx, i, name, value);
}

/* kube's headerValue: the first header of `names` with a non-empty value. */
static const char *
first_value(const authn_request_t *req, char *const *names)
{
    const char *n, *v;
    for (size_t k = 0; names[k] != NULL; k++) {
        for (size_t i = 0; header_at(req, i, &n, &v); i++) {
            if (strcasecmp(n, names[k]) != 0)
                continue;
            if (*v != '\0')
                return v;
            break; /* Go's Header.Get reads a header's first line only */
        }
    }
    return NULL;
}

/* Groups: every non-empty value of every group header; extra: <prefix><key> headers, key
 * lowercased and unescaped, prefixes in flag order. */
static void
fill_user(const authn__proxy_t *p, const authn_request_t *req, authn_user_t *u)
{
    const char *n, *v;
    for (size_t k = 0; p->group_headers[k] != NULL; k++) {
        for (size_t i = 0; header_at(req, i, &n, &v); i++) {
            if (strcasecmp(n, p->group_headers[k]) == 0 && *v != '\0')
                authn__user_add_group(u, v);
        }
    }
    for (size_t k = 0; p->extra_prefixes[k] != NULL; k++) {
        size_t plen = strlen(p->extra_prefixes[k]);
        for (size_t i = 0; header_at(req, i, &n, &v); i++) {
            if (strncasecmp(n, p->extra_prefixes[k], plen) != 0)
                continue;
            char *key = authn_extra_key(n + plen);
            authn_user_add_extra(u, key, v);
            free(key);
        }
    }
}

authn__verdict_t
authn__proxy_authenticate(const authn_t *a, const authn_request_t *req, authn_user_t **user,
                          const char **why)
{
    const authn__proxy_t *p = a->proxy;
    if (p == NULL || req->peer_cert == NULL)
        return AUTHN__NOT_MINE;
    if (!trusted(p, req, why))
        return AUTHN__REFUSED;
    const char *name = first_value(req, p->user_headers);
    if (name == NULL)
        return AUTHN__NOT_MINE; /* a proxy's certificate without a user: others may decide */
    *user = authn__user_new(name, "");
    fill_user(p, req, *user);
    return AUTHN__FOUND;
}
