/*
 * JWT authenticators from their two sources: an AuthenticationConfiguration
 * (apiserver.config.k8s.io/v1beta1, YAML or JSON) validated as kube-apiserver's
 * ValidateAuthenticationConfiguration does, with its field paths and words; and the --oidc-*
 * flags, turned into one authenticator with kube's defaults (the username prefix rules).
 */
#include "authn_oidc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>

#include "authn_file.h"
#include "authn_jwt.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_errlist.h"
#include "gw_yaml.h"

#define MAX_JWT 64

static const char *const ALL_ALGS[] = {"RS256", "RS384", "RS512", "ES256", "ES384",
                                       "ES512", "PS256", "PS384", "PS512"};

static const char *
str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s != NULL ? s : "";
}

/* A CEL expression compiled in env, or NULL with kube's compilation error. */
static cel_program_t *
compile(const cel_env_t *env, const char *src, const char *path, gw_errlist_t *e)
{
    cel_program_t *p = NULL;
    cel_issue_t issue = {0};

    if (cel_compile(env, src, &p, &issue) != 0) {
        gw_errlist_add(e, "%s: Invalid value: \"%s\": compilation failed: %s", path, src,
                       issue.message ? issue.message : "");
        cel_issue_clear(&issue);
    }
    return p;
}

/* ---- the issuer ------------------------------------------------------------------------ */

static void
check_url(const char *url, const char *path, gw_errlist_t *e)
{
    const char *rest = strncmp(url, "https://", 8) == 0 ? url + 8 : NULL;
    size_t authority = rest != NULL ? strcspn(rest, "/?#") : 0;

    if (rest == NULL)
        gw_errlist_add(e, "%s: Invalid value: \"%s\": URL scheme must be https", path, url);
    if (rest != NULL && memchr(rest, '@', authority) != NULL)
        gw_errlist_add(e, "%s: Invalid value: \"%s\": URL must not contain a username or password",
                       path, url);
    if (strchr(url, '?') != NULL && strchr(url, '?')[1] != '\0' &&
        (strchr(url, '#') == NULL || strchr(url, '?') < strchr(url, '#')))
        gw_errlist_add(e, "%s: Invalid value: \"%s\": URL must not contain a query", path, url);
    if (strchr(url, '#') != NULL && strchr(url, '#')[1] != '\0')
        gw_errlist_add(e, "%s: Invalid value: \"%s\": URL must not contain a fragment", path, url);
}

static size_t
trimmed_len(const char *s)
{
    size_t n = strlen(s);

    while (n > 0 && s[n - 1] == '/')
        n--;
    return n;
}

static bool
has_certificate(const char *pem)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    STACK_OF(X509_INFO) *infos = PEM_X509_INFO_read_bio(bio, NULL, NULL, NULL);
    bool found = false;

    for (int i = 0; infos != NULL && i < sk_X509_INFO_num(infos); i++)
        found = found || sk_X509_INFO_value(infos, i)->x509 != NULL;
    sk_X509_INFO_pop_free(infos, X509_INFO_free);
    BIO_free(bio);
    ERR_clear_error();
    return found;
}

static void
audiences(const json_t *issuer, const char *p, authn__jwt_auth_t *j, gw_errlist_t *e)
{
    const json_t *auds = json_object_get(issuer, "audiences"), *a;
    const char *policy = str(issuer, "audienceMatchPolicy");
    size_t i;

    if (json_array_size(auds) == 0) {
        gw_errlist_add(e, "%s.audiences: Required value: at least one %s.audiences is required", p,
                       p);
        return;
    }
    j->audiences = gw_calloc(json_array_size(auds), sizeof(*j->audiences));
    json_array_foreach(auds, i, a)
    {
        const char *s = json_is_string(a) ? json_string_value(a) : "";
        if (s[0] == '\0')
            gw_errlist_add(e, "%s.audiences[%zu]: Required value", p, i);
        for (size_t k = 0; s[0] != '\0' && k < j->n_audiences; k++) {
            if (strcmp(j->audiences[k], s) == 0)
                gw_errlist_add(e, "%s.audiences[%zu]: Duplicate value: \"%s\"", p, i, s);
        }
        j->audiences[j->n_audiences++] = gw_strdup(s);
    }
    if (j->n_audiences > 1 && strcmp(policy, "MatchAny") != 0)
        gw_errlist_add(e,
                       "%s.audienceMatchPolicy: Invalid value: \"%s\": audienceMatchPolicy must be "
                       "MatchAny for multiple audiences",
                       p, policy);
    if (j->n_audiences == 1 && policy[0] != '\0' && strcmp(policy, "MatchAny") != 0)
        gw_errlist_add(e,
                       "%s.audienceMatchPolicy: Invalid value: \"%s\": audienceMatchPolicy must be "
                       "empty or MatchAny for single audience",
                       p, policy);
}

static void
issuer(const json_t *iss, const char *path, authn__jwt_auth_t *j, gw_errlist_t *e)
{
    char *p = gw_sprintf("%s.issuer", path);
    const char *url = str(iss, "url"), *disc = str(iss, "discoveryURL");
    const char *ca = str(iss, "certificateAuthority");

    char *up = gw_sprintf("%s.url", p);
    if (url[0] == '\0')
        gw_errlist_add(e, "%s: Required value", up);
    else
        check_url(url, up, e);
    free(up);
    j->issuer = gw_strdup(url);
    if (disc[0] != '\0') {
        if (url[0] != '\0' && trimmed_len(url) == trimmed_len(disc) &&
            strncmp(url, disc, trimmed_len(url)) == 0)
            gw_errlist_add(
                e,
                "%s.discoveryURL: Invalid value: \"%s\": discoveryURL must be different from "
                "URL",
                p, disc);
        char *dp = gw_sprintf("%s.discoveryURL", p);
        check_url(disc, dp, e);
        free(dp);
        j->discovery_url = gw_strdup(disc);
    } else {
        j->discovery_url =
            gw_sprintf("%.*s/.well-known/openid-configuration", (int)trimmed_len(url), url);
    }
    audiences(iss, p, j, e);
    if (ca[0] != '\0' && !has_certificate(ca))
        gw_errlist_add(
            e,
            "%s.certificateAuthority: Invalid value: \"<omitted>\": data does not contain any "
            "valid RSA or ECDSA certificates",
            p);
    j->tls.ca_pem = ca[0] != '\0' ? gw_strdup(ca) : NULL;
    free(p);
}

/* ---- rules and mappings ------------------------------------------------------------------ */

static void
claim_rules(const json_t *rules, const char *path, const cel_env_t *env, authn__jwt_auth_t *j,
            gw_errlist_t *e)
{
    const json_t *r;
    size_t i;

    j->claim_rules = gw_calloc(json_array_size(rules) + 1, sizeof(*j->claim_rules));
    json_array_foreach(rules, i, r)
    {
        const char *claim = str(r, "claim"), *expr = str(r, "expression");
        authn__rule_t *out = &j->claim_rules[j->n_claim_rules];
        char *p = gw_sprintf("%s.claimValidationRules[%zu]", path, i);
        if (claim[0] != '\0' && expr[0] != '\0') {
            gw_errlist_add(e, "%s: Invalid value: \"%s\": claim and expression can't both be set",
                           p, claim);
        } else if (claim[0] == '\0' && expr[0] == '\0') {
            gw_errlist_add(e, "%s: Required value: claim or expression is required", p);
        } else if (claim[0] != '\0') {
            if (str(r, "message")[0] != '\0')
                gw_errlist_add(
                    e,
                    "%s.message: Invalid value: \"%s\": may not be specified when claim is "
                    "set",
                    p, str(r, "message"));
            for (size_t k = 0; k < j->n_claim_rules; k++) {
                if (j->claim_rules[k].claim && strcmp(j->claim_rules[k].claim, claim) == 0)
                    gw_errlist_add(e, "%s.claim: Duplicate value: \"%s\"", p, claim);
            }
            out->claim = gw_strdup(claim);
            out->value = gw_strdup(str(r, "requiredValue"));
            j->n_claim_rules++;
        } else {
            if (str(r, "requiredValue")[0] != '\0')
                gw_errlist_add(e,
                               "%s.requiredValue: Invalid value: \"%s\": may not be specified when "
                               "expression is set",
                               p, str(r, "requiredValue"));
            char *ep = gw_sprintf("%s.expression", p);
            out->expr = compile(env, expr, ep, e);
            free(ep);
            out->message = gw_strdup(str(r, "message"));
            j->n_claim_rules++;
        }
        free(p);
    }
}

/* A claim with a prefix, or an expression (a prefix is required with a claim when
 * prefix_required, and refused with an expression). */
static void
mapping(const json_t *m, const char *p, bool required, bool prefix_required, const cel_env_t *env,
        authn__mapping_t *out, gw_errlist_t *e)
{
    const char *claim = str(m, "claim"), *expr = str(m, "expression");
    const json_t *prefix = json_object_get(m, "prefix");

    if (claim[0] != '\0' && expr[0] != '\0') {
        gw_errlist_add(e, "%s: Invalid value: \"\": claim and expression can't both be set", p);
    } else if (claim[0] == '\0' && expr[0] == '\0') {
        if (required)
            gw_errlist_add(e, "%s: Required value: claim or expression is required", p);
    } else if (expr[0] != '\0') {
        if (json_is_string(prefix))
            gw_errlist_add(
                e,
                "%s.prefix: Invalid value: \"%s\": may not be specified when expression is "
                "set",
                p, json_string_value(prefix));
        char *ep = gw_sprintf("%s.expression", p);
        out->expr = compile(env, expr, ep, e);
        free(ep);
    } else {
        if (prefix_required && !json_is_string(prefix))
            gw_errlist_add(
                e,
                "%s.prefix: Required value: prefix is required when claim is set. It can be "
                "set to an empty string to disable prefixing",
                p);
        out->claim = gw_strdup(claim);
        out->prefix = json_is_string(prefix) ? gw_strdup(json_string_value(prefix)) : NULL;
    }
}

static bool
reserved_key(const char *key)
{
    const char *slash = strchr(key, '/');
    size_t n = slash != NULL ? (size_t)(slash - key) : 0;
    static const char *const domains[] = {"kubernetes.io", "k8s.io"};

    for (size_t i = 0; i < 2; i++) {
        size_t d = strlen(domains[i]);
        if (n >= d && strncmp(key + n - d, domains[i], d) == 0 && (n == d || key[n - d - 1] == '.'))
            return true;
    }
    return false;
}

static void
extra(const json_t *list, const char *path, const cel_env_t *env, authn__jwt_auth_t *j,
      gw_errlist_t *e)
{
    const json_t *x;
    size_t i;

    j->extra = gw_calloc(json_array_size(list) + 1, sizeof(*j->extra));
    json_array_foreach(list, i, x)
    {
        const char *key = str(x, "key"), *expr = str(x, "valueExpression");
        char *p = gw_sprintf("%s.claimMappings.extra[%zu]", path, i);
        const char *slash = strchr(key, '/');
        if (key[0] == '\0')
            gw_errlist_add(e, "%s.key: Required value", p);
        else if (slash == NULL || slash == key || slash[1] == '\0')
            gw_errlist_add(e,
                           "%s.key: Invalid value: \"%s\": must be a domain-prefixed path (such as "
                           "\"acme.io/foo\")",
                           p, key);
        for (const char *c = key; *c; c++) {
            if (*c >= 'A' && *c <= 'Z') {
                gw_errlist_add(e, "%s.key: Invalid value: \"%s\": must be lowercase", p, key);
                break;
            }
        }
        if (reserved_key(key))
            gw_errlist_add(
                e,
                "%s.key: Invalid value: \"%s\": k8s.io, kubernetes.io and their subdomains "
                "are reserved for Kubernetes use",
                p, key);
        for (size_t k = 0; k < j->n_extra; k++) {
            if (strcmp(j->extra[k].key, key) == 0)
                gw_errlist_add(e, "%s.key: Duplicate value: \"%s\"", p, key);
        }
        if (expr[0] == '\0') {
            gw_errlist_add(e, "%s.valueExpression: Required value", p);
        } else {
            char *ep = gw_sprintf("%s.valueExpression", p);
            j->extra[j->n_extra].expr = compile(env, expr, ep, e);
            j->extra[j->n_extra++].key = gw_strdup(key);
            free(ep);
        }
        free(p);
    }
}

static void
user_rules(const json_t *rules, const char *path, const cel_env_t *env, authn__jwt_auth_t *j,
           gw_errlist_t *e)
{
    const json_t *r;
    size_t i;

    j->user_rules = gw_calloc(json_array_size(rules) + 1, sizeof(*j->user_rules));
    json_array_foreach(rules, i, r)
    {
        const char *expr = str(r, "expression");
        char *p = gw_sprintf("%s.userValidationRules[%zu].expression", path, i);
        if (expr[0] == '\0') {
            gw_errlist_add(e, "%s: Required value", p);
        } else {
            authn__rule_t *out = &j->user_rules[j->n_user_rules++];
            out->expr = compile(env, expr, p, e);
            out->message = gw_strdup(str(r, "message"));
        }
        free(p);
    }
}

/* kube's rule: a username expression reading claims.email must also read
 * claims.email_verified somewhere (a textual check of the expressions). */
static void
email_verified_rule(const json_t *jwt, const char *path, gw_errlist_t *e)
{
    const json_t *maps = json_object_get(jwt, "claimMappings"), *x;
    const char *user = str(json_object_get(maps, "username"), "expression");
    bool email = false, verified = strstr(user, "claims.email_verified") != NULL;
    size_t i;

    for (const char *s = user; (s = strstr(s, "claims.email")) != NULL; s += 12)
        email = email || strncmp(s + 12, "_verified", 9) != 0;
    json_array_foreach(json_object_get(maps, "extra"), i, x) verified =
        verified || strstr(str(x, "valueExpression"), "claims.email_verified");
    json_array_foreach(json_object_get(jwt, "claimValidationRules"), i, x) verified =
        verified || strstr(str(x, "expression"), "claims.email_verified");
    if (email && !verified)
        gw_errlist_add(
            e,
            "%s.claimMappings.username.expression: Invalid value: \"%s\": "
            "claims.email_verified must be used in claimMappings.username.expression or "
            "claimMappings.extra[*].valueExpression or claimValidationRules[*].expression "
            "when claims.email is used in claimMappings.username.expression",
            path, user);
}

/* ---- the file ---------------------------------------------------------------------------- */

static authn__jwt_auth_t *
jwt_authenticator(const json_t *jwt, const char *path, const cel_env_t *env, gw_errlist_t *e)
{
    authn__jwt_auth_t *j = authn__jwt_auth_new();
    const json_t *maps = json_object_get(jwt, "claimMappings");
    char *p;

    issuer(json_object_get(jwt, "issuer"), path, j, e);
    claim_rules(json_object_get(jwt, "claimValidationRules"), path, env, j, e);
    p = gw_sprintf("%s.claimMappings.username", path);
    mapping(json_object_get(maps, "username"), p, true, true, env, &j->username, e);
    free(p);
    p = gw_sprintf("%s.claimMappings.groups", path);
    mapping(json_object_get(maps, "groups"), p, false, false, env, &j->groups, e);
    free(p);
    p = gw_sprintf("%s.claimMappings.uid", path);
    mapping(json_object_get(maps, "uid"), p, false, false, env, &j->uid, e);
    free(p);
    extra(json_object_get(maps, "extra"), path, env, j, e);
    user_rules(json_object_get(jwt, "userValidationRules"), path, env, j, e);
    email_verified_rule(jwt, path, e);
    j->algs = gw_calloc(sizeof(ALL_ALGS) / sizeof(ALL_ALGS[0]), sizeof(*j->algs));
    for (size_t i = 0; i < sizeof(ALL_ALGS) / sizeof(ALL_ALGS[0]); i++)
        j->algs[j->n_algs++] = gw_strdup(ALL_ALGS[i]);
    return j;
}

static void
duplicates(const authn__jwt_set_t *s, const json_t *list, gw_errlist_t *e)
{
    for (size_t i = 1; i < s->n; i++) {
        const char *disc = str(json_object_get(json_array_get(list, i), "issuer"), "discoveryURL");
        for (size_t k = 0; k < i; k++) {
            const char *other =
                str(json_object_get(json_array_get(list, k), "issuer"), "discoveryURL");
            if (strcmp(s->auths[i]->issuer, s->auths[k]->issuer) == 0) {
                gw_errlist_add(e, "jwt[%zu].issuer.url: Duplicate value: \"%s\"", i,
                               s->auths[i]->issuer);
                break;
            }
            if (disc[0] != '\0' && strcmp(disc, other) == 0) {
                gw_errlist_add(e, "jwt[%zu].issuer.discoveryURL: Duplicate value: \"%s\"", i, disc);
                break;
            }
        }
    }
}

static void
header(const json_t *doc, gw_errlist_t *e)
{
    const char *version = str(doc, "apiVersion"), *kind = str(doc, "kind");

    if (!json_is_object(doc))
        gw_errlist_add(e, "the configuration is not an object");
    else if (strcmp(version, "apiserver.config.k8s.io/v1beta1") != 0 &&
             strcmp(version, "apiserver.config.k8s.io/v1alpha1") != 0)
        gw_errlist_add(e,
                       "apiVersion: Unsupported value: \"%s\": supported values: "
                       "\"apiserver.config.k8s.io/v1beta1\", \"apiserver.config.k8s.io/v1alpha1\"",
                       version);
    else if (strcmp(kind, "AuthenticationConfiguration") != 0)
        gw_errlist_add(e,
                       "kind: Unsupported value: \"%s\": supported values: "
                       "\"AuthenticationConfiguration\"",
                       kind);
    else if (json_object_get(doc, "jwt") != NULL && !json_is_array(json_object_get(doc, "jwt")))
        gw_errlist_add(e, "jwt: Invalid value: must be a list");
    else if (json_array_size(json_object_get(doc, "jwt")) > MAX_JWT)
        gw_errlist_add(e, "jwt: Too many: %zu: must have at most %d items",
                       json_array_size(json_object_get(doc, "jwt")), MAX_JWT);
}

static int
finish(gw_errlist_t *e, authn__jwt_set_t *s, authn__jwt_set_t **out, char *err, size_t err_len)
{
    if (e->n == 0) {
        *out = s;
        return 0;
    }
    gw_errlist_print(e, "", err, err_len);
    authn__jwt_set_free(s);
    *out = NULL;
    return GW_EINVAL;
}

int
authn__config_parse(const char *text, size_t len, authn__jwt_set_t **out, char *err, size_t err_len)
{
    char why[256] = "";
    json_t *doc = gw_yaml_to_json(text, len, why, sizeof(why));
    gw_errlist_t e = {0};
    authn__jwt_set_t *s = gw_calloc(1, sizeof(*s));

    if (doc == NULL)
        gw_errlist_add(&e, "%s", why);
    else
        header(doc, &e);
    if (e.n == 0) {
        const json_t *list = json_object_get(doc, "jwt"), *jwt;
        cel_env_t *env = authn__jwt_cel_env();
        size_t i;
        s->auths = gw_calloc(json_array_size(list) + 1, sizeof(*s->auths));
        json_array_foreach(list, i, jwt)
        {
            char *path = gw_sprintf("jwt[%zu]", i);
            s->auths[s->n++] = jwt_authenticator(jwt, path, env, &e);
            free(path);
        }
        duplicates(s, list, &e);
        cel_env_free(env);
    }
    json_decref(doc);
    return finish(&e, s, out, err, err_len);
}

/* ---- the --oidc-* flags ------------------------------------------------------------------- */

static void
flag_algs(const authn_config_t *cfg, authn__jwt_auth_t *j, gw_errlist_t *e)
{
    static const char *const fallback[] = {"RS256", NULL};
    const char *const *algs = cfg->oidc_signing_algs != NULL ? cfg->oidc_signing_algs : fallback;
    size_t n = 0;

    while (algs[n] != NULL)
        n++;
    j->algs = gw_calloc(n + 1, sizeof(*j->algs));
    for (size_t i = 0; i < n; i++) {
        if (!authn_jwt_alg_supported(algs[i]))
            gw_errlist_add(e, "oidc-signing-algs: unsupported signing algorithm \"%s\"", algs[i]);
        j->algs[j->n_algs++] = gw_strdup(algs[i]);
    }
}

static void
flag_required_claims(const authn_config_t *cfg, authn__jwt_auth_t *j)
{
    size_t n = 0;

    while (cfg->oidc_required_claims != NULL && cfg->oidc_required_claims[n] != NULL)
        n++;
    j->claim_rules = gw_calloc(n + 1, sizeof(*j->claim_rules));
    for (size_t i = 0; i < n; i++) {
        const char *kv = cfg->oidc_required_claims[i], *eq = strchr(kv, '=');
        authn__rule_t *r = &j->claim_rules[j->n_claim_rules++];
        r->claim = eq != NULL ? gw_strndup(kv, (size_t)(eq - kv)) : gw_strdup(kv);
        r->value = gw_strdup(eq != NULL ? eq + 1 : "");
    }
}

/* kube's username prefix for the flags: unset means "<issuer>#" unless the claim is email;
 * "-" means none. */
static char *
username_prefix(const authn_config_t *cfg, const char *claim)
{
    const char *p = cfg->oidc_username_prefix;

    if (p == NULL || p[0] == '\0')
        return strcmp(claim, "email") == 0 ? gw_strdup("")
                                           : gw_sprintf("%s#", cfg->oidc_issuer_url);
    return gw_strdup(strcmp(p, "-") == 0 ? "" : p);
}

int
authn__oidc_flags(const authn_config_t *cfg, authn__jwt_set_t **out, char *err, size_t err_len)
{
    const char *url = cfg->oidc_issuer_url;
    const char *claim = cfg->oidc_username_claim != NULL ? cfg->oidc_username_claim : "sub";
    gw_errlist_t e = {0};
    size_t len;

    *out = NULL;
    if (url == NULL)
        return 0;
    authn__jwt_set_t *s = gw_calloc(1, sizeof(*s));
    authn__jwt_auth_t *j = authn__jwt_auth_new();
    s->auths = gw_calloc(1, sizeof(*s->auths));
    s->auths[s->n++] = j;
    check_url(url, "oidc-issuer-url", &e);
    j->issuer = gw_strdup(url);
    j->discovery_url =
        gw_sprintf("%.*s/.well-known/openid-configuration", (int)trimmed_len(url), url);
    j->audiences = gw_calloc(1, sizeof(*j->audiences));
    j->audiences[j->n_audiences++] = gw_strdup(cfg->oidc_client_id ? cfg->oidc_client_id : "");
    if (cfg->oidc_ca_file != NULL &&
        (j->tls.ca_pem = authn__file_read(cfg->oidc_ca_file, &len)) == NULL)
        gw_errlist_add(&e, "cannot read --oidc-ca-file \"%s\"", cfg->oidc_ca_file);
    else if (j->tls.ca_pem != NULL && !has_certificate(j->tls.ca_pem))
        gw_errlist_add(&e, "--oidc-ca-file \"%s\" holds no certificate", cfg->oidc_ca_file);
    j->username.claim = gw_strdup(claim);
    j->username.prefix = username_prefix(cfg, claim);
    if (cfg->oidc_groups_claim != NULL && cfg->oidc_groups_claim[0] != '\0') {
        j->groups.claim = gw_strdup(cfg->oidc_groups_claim);
        j->groups.prefix = gw_strdup(cfg->oidc_groups_prefix ? cfg->oidc_groups_prefix : "");
    }
    flag_algs(cfg, j, &e);
    flag_required_claims(cfg, j);
    return finish(&e, s, out, err, err_len);
}
