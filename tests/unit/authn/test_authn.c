/* Authentication: the token file format, bearer tokens, client certificates, anonymous and
 * the all-users groups, as kube-apiserver's authenticators behave. */
#include "authn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/x509.h>

#include "authn_int.h"
#include "gw_err.h"
#include "tap.h"

static char err[512];

/* Write text to a fresh temporary file; returns its path (caller unlinks and frees). */
static char *
temp_file(const char *text)
{
    char *path = strdup("/tmp/authn-test.XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        abort();
    close(fd);
    return path;
}

static authn_t *
with_tokens(const char *text, bool anonymous, int *rc)
{
    char *path = temp_file(text);
    authn_config_t cfg = {.token_auth_file = path, .anonymous = anonymous};
    authn_t *a = NULL;
    err[0] = '\0';
    *rc = authn_new(&cfg, &a, err, sizeof(err));
    unlink(path);
    free(path);
    return a;
}

/* "name|uid|g1,g2" of a user, for compact comparisons. */
static const char *
describe(const authn_user_t *u)
{
    static char s[512];
    int n = snprintf(s, sizeof(s), "%s|%s|", u->name, u->uid);
    for (size_t i = 0; i < u->n_groups && n < (int)sizeof(s); i++)
        n += snprintf(s + n, sizeof(s) - (size_t)n, "%s%s", i ? "," : "", u->groups[i]);
    return s;
}

/* Authenticate with an Authorization header and/or certificate; "401" on refusal. */
static const char *
who(const authn_t *a, const char *authorization, X509 *cert)
{
    static char s[512];
    authn_request_t req = {.authorization = authorization, .client_cert = cert};
    authn_user_t *u = NULL;
    char why[128] = "";
    if (authn_authenticate(a, &req, &u, NULL, why, sizeof(why)) != AUTHN_OK) {
        snprintf(s, sizeof(s), "401 %s", why);
        return s;
    }
    snprintf(s, sizeof(s), "%s", describe(u));
    authn_user_free(u);
    return s;
}

static void
test_token_file(void)
{
    int rc;
    authn_t *a = with_tokens("tok1,alice,uid-1,\"dev,ops\"\r\n"
                             "\n"
                             "tok2,bob,uid-2\n"
                             "\"tok,3\",\"carol \"\"c\"\"\",u3,solo,ignored\n"
                             "tok4,dan,u4,\n"
                             ",nobody,u0\n"
                             "tok2,bobby,uid-22,late\n"
                             "tok5,\"multi\nline\",u5",
                             false, &rc);
    tap_is_int(rc, 0, "a token file in kube's CSV format loads");
    tap_is_str(who(a, "Bearer tok1", NULL), "alice|uid-1|dev,ops,system:authenticated",
               "quoted groups column splits on commas; CRLF ends a line");
    tap_is_str(who(a, "Bearer tok2", NULL), "bobby|uid-22|late,system:authenticated",
               "a repeated token: the last line counts");
    tap_is_str(who(a, "Bearer tok,3", NULL), "carol \"c\"|u3|solo,system:authenticated",
               "quoted fields with commas and doubled quotes; extra columns ignored");
    tap_is_str(who(a, "Bearer tok4", NULL), "dan|u4|,system:authenticated",
               "an empty groups column is one empty group, as kube splits it");
    tap_is_str(who(a, "Bearer tok5", NULL), "multi\nline|u5|system:authenticated",
               "a quoted field may span lines; the last line needs no newline");
    tap_is_str(who(a, "bearer tok1", NULL), "alice|uid-1|dev,ops,system:authenticated",
               "the scheme is case-insensitive");
    tap_is_str(who(a, "  Bearer tok1  ", NULL), "alice|uid-1|dev,ops,system:authenticated",
               "surrounding spaces are trimmed");
    tap_is_str(who(a, "Bearer tok1 trailing words", NULL),
               "alice|uid-1|dev,ops,system:authenticated", "words after the token are ignored");
    tap_is_str(who(a, "Bearer nope", NULL), "401 invalid bearer token", "an unknown token is 401");
    tap_is_str(who(a, "Bearer ", NULL), "401 no credentials and anonymous requests are disabled",
               "an empty token is no credential");
    tap_is_str(who(a, "Bearer tok", NULL), "401 invalid bearer token",
               "a prefix of a token is not the token");
    tap_is_str(who(a, NULL, NULL), "401 no credentials and anonymous requests are disabled",
               "no credentials without anonymous is 401");
    authn_free(a);
}

static void
test_token_file_errors(void)
{
    int rc;
    authn_t *a = with_tokens("tok1,alice,u1\ntok2,bob\n", false, &rc);
    tap_is_int(rc, GW_EINVAL, "a line with two columns is refused");
    tap_ok(a == NULL, "nothing is returned on error");
    tap_ok(strstr(err, "line 2 must have at least 3 columns (token, user name, user uid), "
                       "found 2") != NULL,
           "the reason names the line and the columns (%s)", err);
    a = with_tokens("tok1,al\"ice,u1\n", false, &rc);
    tap_is_int(rc, GW_EINVAL, "a bare quote in an unquoted field is refused");
    tap_ok(strstr(err, "line 1: bad quoting") != NULL, "... saying so (%s)", err);
    a = with_tokens("\"tok1\"x,alice,u1\n", false, &rc);
    tap_is_int(rc, GW_EINVAL, "text after a closing quote is refused");
    a = with_tokens("tok1,alice,\"u1\n", false, &rc);
    tap_is_int(rc, GW_EINVAL, "an unterminated quote is refused");
    authn_config_t cfg = {.token_auth_file = "/nonexistent/tokens.csv"};
    rc = authn_new(&cfg, &a, err, sizeof(err));
    tap_is_int(rc, GW_EINVAL, "a missing token file is refused");
    tap_is_str(err,
               "cannot read --token-auth-file \"/nonexistent/tokens.csv\": No such file or "
               "directory",
               "... naming the flag and the file");
    a = with_tokens("", true, &rc);
    tap_is_int(rc, 0, "an empty token file is fine");
    tap_is_str(who(a, "Bearer x", NULL), "401 invalid bearer token", "and knows no token");
    authn_free(a);
}

static X509 *
cert(const char *const *fields)
{
    X509 *x = X509_new();
    X509_NAME *n = X509_get_subject_name(x);
    for (size_t i = 0; fields[i] != NULL; i += 2)
        X509_NAME_add_entry_by_txt(n, fields[i], MBSTRING_UTF8,
                                   (const unsigned char *)fields[i + 1], -1, -1, 0);
    return x;
}

static void
test_x509(void)
{
    int rc;
    authn_t *a = with_tokens("tok1,alice,u1\n", true, &rc);
    X509 *admin = cert((const char *[]){"O", "system:masters", "CN", "kubernetes-admin", NULL});
    X509 *two = cert((const char *[]){"O", "a", "O", "b", "OU", "x", "CN", "jane", NULL});
    X509 *nocn = cert((const char *[]){"O", "a", NULL});
    X509 *utf8 = cert((const char *[]){"CN", "j\xc3\xbcrgen", NULL});
    tap_is_str(who(a, NULL, admin), "kubernetes-admin||system:masters,system:authenticated",
               "a certificate's CN is the user, its O a group");
    tap_is_str(who(a, NULL, two), "jane||a,b,system:authenticated", "each O is a group, OU is not");
    tap_is_str(who(a, "Bearer tok1", two), "jane||a,b,system:authenticated",
               "the certificate is asked before the token");
    tap_is_str(who(a, "Bearer tok1", nocn), "alice|u1|system:authenticated",
               "a certificate without CN lets the token decide");
    tap_is_str(who(a, NULL, nocn), "system:anonymous||system:unauthenticated",
               "a certificate without CN and no token: anonymous");
    tap_is_str(who(a, NULL, utf8), "j\xc3\xbcrgen||system:authenticated",
               "a UTF-8 CN comes out as UTF-8");
    X509_free(admin);
    X509_free(two);
    X509_free(nocn);
    X509_free(utf8);
    authn_free(a);
}

static void
test_anonymous_and_groups(void)
{
    int rc;
    authn_t *a = with_tokens("t1,u,1,system:authenticated\nt2,v,2,\"x,system:unauthenticated\"\n",
                             true, &rc);
    tap_is_str(who(a, NULL, NULL), "system:anonymous||system:unauthenticated",
               "no credentials with anonymous: system:anonymous");
    tap_is_str(who(a, "Basic dXNlcjpwYXNz", NULL), "system:anonymous||system:unauthenticated",
               "a scheme no authenticator reads is anonymous");
    tap_is_str(who(a, "Bearer bad", NULL), "401 invalid bearer token",
               "a refused token is 401 even with anonymous enabled");
    tap_is_str(who(a, "Bearer t1", NULL), "u|1|system:authenticated",
               "system:authenticated is not added twice");
    tap_is_str(who(a, "Bearer t2", NULL), "v|2|x,system:unauthenticated",
               "a user listed in system:unauthenticated does not also get system:authenticated");
    authn_free(a);
    authn_config_t cfg = {.anonymous = false};
    rc = authn_new(&cfg, &a, err, sizeof(err));
    tap_is_int(rc, 0, "no token file is fine");
    tap_is_str(who(a, "Bearer t1", NULL), "401 invalid bearer token",
               "without a token file every bearer token is refused");
    authn_request_t req = {0};
    authn_user_t *u = (authn_user_t *)1;
    tap_is_int(authn_authenticate(a, &req, &u, NULL, NULL, 0), AUTHN_UNAUTHORIZED,
               "why may be NULL");
    tap_ok(u == NULL, "no user on failure");
    authn_free(a);
    authn_user_free(NULL);
}

int
main(void)
{
    test_token_file();
    test_token_file_errors();
    test_x509();
    test_anonymous_and_groups();
    return tap_done();
}
