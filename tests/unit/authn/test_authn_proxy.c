/* The authenticating proxy: which certificates may vouch for a user (the request-header CA,
 * client usage, allowed names), which headers name the user, groups and extra, and that the
 * headers of anyone else are ignored. Certificates come from test_authn_proxy.t. */
#include "authn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include "gw_err.h"
#include "tap.h"

static const char *pki;

static X509 *
load_cert(const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.crt", pki, name);
    FILE *f = fopen(path, "r");
    X509 *x = f != NULL ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;
    if (f != NULL)
        fclose(f);
    if (x == NULL)
        abort();
    return x;
}

/* Headers as "Name: value" lines, NULL-ended. */
static bool
header_at(void *ctx, size_t i, const char **name, const char **value)
{
    static char n[256];
    const char *const *lines = ctx;
    for (size_t k = 0; k < i; k++) {
        if (lines[k] == NULL)
            return false;
    }
    if (lines[i] == NULL)
        return false;
    const char *colon = strchr(lines[i], ':');
    snprintf(n, sizeof(n), "%.*s", (int)(colon - lines[i]), lines[i]);
    *name = n;
    *value = colon + 2;
    return true;
}

static authn_t *
proxy_authn(const char *ca, const char *const *allowed, int *rc)
{
    static const char *const users[] = {"X-Remote-User", "X-Other-User", NULL};
    static const char *const groups[] = {"X-Remote-Group", NULL};
    static const char *const extra[] = {"X-Remote-Extra-", NULL};
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.crt", pki, ca);
    authn_config_t cfg = {
        .requestheader_client_ca_file = ca != NULL ? path : NULL,
        .requestheader_allowed_names = allowed,
        .requestheader_username_headers = users,
        .requestheader_group_headers = groups,
        .requestheader_extra_headers_prefix = extra,
    };
    authn_t *a = NULL;
    char err[512];
    *rc = authn_new(&cfg, &a, err, sizeof(err));
    return a;
}

/* "name|groups|k=v,v;k=v" or "401". client: the certificate as the x509 authenticator would
 * get it (verified against --client-ca-file), or NULL. */
static const char *
who(const authn_t *a, X509 *peer, X509 *client, const char *const *headers)
{
    static char s[1024];
    authn_request_t req = {.client_cert = client,
                           .peer_cert = peer,
                           .header_at = header_at,
                           .header_ctx = (void *)headers};
    authn_user_t *u = NULL;
    char why[256];
    if (authn_authenticate(a, &req, &u, NULL, why, sizeof(why)) != AUTHN_OK)
        return "401";
    int n = snprintf(s, sizeof(s), "%s|", u->name);
    for (size_t i = 0; i < u->n_groups; i++)
        n += snprintf(s + n, sizeof(s) - (size_t)n, "%s%s", i ? "," : "", u->groups[i]);
    n += snprintf(s + n, sizeof(s) - (size_t)n, "|");
    for (size_t i = 0; i < u->n_extra; i++) {
        n += snprintf(s + n, sizeof(s) - (size_t)n, "%s%s=", i ? ";" : "", u->extra[i].key);
        for (size_t j = 0; j < u->extra[i].n_values; j++)
            n +=
                snprintf(s + n, sizeof(s) - (size_t)n, "%s%s", j ? "," : "", u->extra[i].values[j]);
    }
    authn_user_free(u);
    return s;
}

static void
test_headers(X509 *proxy)
{
    int rc;
    authn_t *a = proxy_authn("proxyca", NULL, &rc);
    tap_is_int(rc, 0, "a proxy CA loads");
    tap_is_str(who(a, proxy, NULL,
                   (const char *[]){
                       "X-Remote-User: alice", "x-remote-group: dev", "X-Remote-Group: ops,qa",
                       "X-Remote-Group: ", "X-Remote-Extra-Scopes: read",
                       "X-Remote-Extra-Scopes: write", "X-Remote-Extra-Acme.com%2fProject: p1",
                       "X-Remote-Extra-Bad%zz: v", "X-Remote-Extra-Nul%00: w", NULL}),
               "alice|dev,ops,qa,system:authenticated|scopes=read,write;acme.com/project=p1;"
               "bad%zz=v;nul%00=w",
               "user, each group line one group, extra keys lowercased and unescaped");
    tap_is_str(who(a, proxy, NULL, (const char *[]){"X-Remote-User: ", "X-Other-User: bob", NULL}),
               "bob|system:authenticated|", "the first username header with a value");
    tap_is_str(
        who(a, proxy, NULL, (const char *[]){"X-Remote-User: carol", "X-Remote-User: dave", NULL}),
        "carol|system:authenticated|", "a header's first line names the user");
    tap_is_str(who(a, proxy, NULL, (const char *[]){"X-Remote-Group: dev", NULL}), "401",
               "no user header: the proxy's certificate authenticates no one");
    tap_is_str(who(a, proxy, NULL,
                   (const char *[]){"X-Remote-User: system:masters-wannabe",
                                    "X-Remote-Group: system:masters", NULL}),
               "system:masters-wannabe|system:masters,system:authenticated|",
               "the proxy is trusted with any group");
    authn_free(a);
}

static void
test_who_may_vouch(X509 *proxy, X509 *other, X509 *jane, X509 *serveronly)
{
    int rc;
    const char *const claim[] = {"X-Remote-User: alice", "X-Remote-Group: system:masters", NULL};
    authn_t *a = proxy_authn("proxyca", (const char *const[]){"front-proxy", NULL}, &rc);
    tap_is_str(who(a, proxy, NULL, claim), "alice|system:masters,system:authenticated|",
               "an allowed name vouches");
    tap_is_str(who(a, other, NULL, claim), "401", "a CN not in the allowed names does not");
    tap_is_str(who(a, jane, jane, claim), "jane|system:authenticated|",
               "a client CA's certificate: its headers are ignored, its CN is the user");
    tap_is_str(who(a, serveronly, NULL, claim), "401", "a certificate without client usage");
    tap_is_str(who(a, NULL, NULL, claim), "401", "headers without a certificate are ignored");
    authn_free(a);
    a = proxy_authn(NULL, NULL, &rc);
    tap_is_str(who(a, proxy, NULL, claim), "401", "no request-header CA: no proxy");
    authn_free(a);
    a = proxy_authn("proxyca", NULL, &rc);
    tap_is_str(who(a, other, NULL, claim), "alice|system:masters,system:authenticated|",
               "no allowed names: any certificate of the CA vouches");
    authn_free(a);
    a = proxy_authn("empty", NULL, &rc);
    tap_is_int(rc, GW_EINVAL, "a CA file without certificates is refused");
    tap_ok(a == NULL, "... and nothing is built");
}

int
main(void)
{
    pki = getenv("KGATE_TEST_PKI");
    if (pki == NULL)
        tap_skip_all("KGATE_TEST_PKI is not set (run test_authn_proxy.t)");
    X509 *proxy = load_cert("proxy"), *other = load_cert("other"), *jane = load_cert("jane");
    X509 *serveronly = load_cert("serveronly");
    test_headers(proxy);
    test_who_may_vouch(proxy, other, jane, serveronly);
    X509_free(proxy);
    X509_free(other);
    X509_free(jane);
    X509_free(serveronly);
    return tap_done();
}
