/* AuthenticationConfiguration: kube's validation errors for hostile files, the CEL claim
 * mappings and validation rules on claims, and the file reloading when it changes (a bad new
 * file keeps the old authenticators). The authenticator's clocks are the test's. */
#include "../../../authn/authn_oidc.c"

#include <unistd.h>

#include "tap.h"

#define HEAD "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n"
#define NOW 1800000000LL

static int64_t fake_ms = 1000000;

static int64_t
test_ms(void)
{
    return fake_ms;
}

/* ---- validation -------------------------------------------------------------------------- */

static void
valid(void)
{
    static const char *const yaml =
        HEAD "jwt:\n"
             "- issuer:\n"
             "    url: https://a.example\n"
             "    discoveryURL: https://discovery.example/a\n"
             "    audiences: [x, z]\n"
             "    audienceMatchPolicy: MatchAny\n"
             "  claimValidationRules:\n"
             "  - claim: hd\n    requiredValue: example.com\n"
             "  - expression: 'claims.exp - claims.iat <= 86400'\n    message: too long\n"
             "  claimMappings:\n"
             "    username: {claim: sub, prefix: ''}\n"
             "    groups: {expression: 'claims.roles.split(\",\")'}\n"
             "    uid: {claim: sub}\n"
             "    extra:\n"
             "    - key: example.com/tenant\n      valueExpression: claims.tenant\n"
             "  userValidationRules:\n"
             "  - expression: \"!user.username.startsWith('system:')\"\n    message: no\n"
             "- issuer: {url: 'https://b.example/', audiences: [z]}\n"
             "  claimMappings:\n    username: {expression: 'claims.name'}\n";
    authn__jwt_set_t *s = NULL;
    char err[2048] = "";

    tap_is_int(authn__config_parse(yaml, strlen(yaml), &s, err, sizeof(err)), 0,
               "a full configuration validates");
    if (s == NULL) {
        tap_diag("%s", err);
        return;
    }
    tap_is_int(s->n, 2, "two authenticators");
    tap_is_str(s->auths[0]->discovery_url, "https://discovery.example/a", "discoveryURL kept");
    tap_is_str(s->auths[1]->discovery_url, "https://b.example/.well-known/openid-configuration",
               "the well-known document under the issuer otherwise");
    tap_ok(s->auths[0]->n_claim_rules == 2 && s->auths[0]->n_extra == 1 &&
               s->auths[0]->n_user_rules == 1,
           "rules, extra and user rules read");
    authn__jwt_set_free(s);
    static const char *const json = "{\"apiVersion\":\"apiserver.config.k8s.io/v1beta1\","
                                    "\"kind\":\"AuthenticationConfiguration\"}";
    tap_is_int(authn__config_parse(json, strlen(json), &s, err, sizeof(err)), 0,
               "JSON, with no authenticator at all");
    authn__jwt_set_free(s);
}

static const struct {
    const char *yaml, *want;
} INVALID[] = {
    {"", "the configuration is not an object"},
    {"jwt: [", "yaml: "},
    {"apiVersion: v1\nkind: AuthenticationConfiguration\n",
     "apiVersion: Unsupported value: \"v1\""},
    {"apiVersion: apiserver.config.k8s.io/v1beta1\nkind: Other\n", "kind: Unsupported value"},
    {HEAD "jwt: 5\n", "jwt: Invalid value"},
    {HEAD
     "jwt:\n- claimMappings: {username: {claim: sub, prefix: ''}}\n  issuer: {audiences: [a]}\n",
     "jwt[0].issuer.url: Required value"},
    {HEAD "jwt:\n- issuer: {url: 'http://a', audiences: [a]}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "jwt[0].issuer.url: Invalid value: \"http://a\": URL scheme must be https"},
    {HEAD "jwt:\n- issuer: {url: 'https://u:p@a', audiences: [a]}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "URL must not contain a username or password"},
    {HEAD "jwt:\n- issuer: {url: 'https://a?x=1', audiences: [a]}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "URL must not contain a query"},
    {HEAD "jwt:\n- issuer: {url: 'https://a#f', audiences: [a]}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "URL must not contain a fragment"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', discoveryURL: 'https://a/', audiences: [a]}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "jwt[0].issuer.discoveryURL: Invalid value: \"https://a/\": discoveryURL must be different "
     "from URL"},
    {HEAD "jwt:\n- issuer: {url: 'https://a'}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a, b]}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "audienceMatchPolicy must be MatchAny for multiple audiences"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a], audienceMatchPolicy: All}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "audienceMatchPolicy must be empty or MatchAny for single audience"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a, a], audienceMatchPolicy: MatchAny}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "jwt[0].issuer.audiences[1]: Duplicate value: \"a\""},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [''], certificateAuthority: junk}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "[jwt[0].issuer.audiences[0]: Required value, jwt[0].issuer.certificateAuthority: Invalid "
     "value: \"<omitted>\": data does not contain any valid RSA or ECDSA certificates]"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n",
     "jwt[0].claimMappings.username: Required value: claim or expression is required"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n"
          "  claimMappings: {username: {claim: sub}}\n",
     "jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n"
          "  claimMappings: {username: {claim: sub, expression: claims.sub}}\n",
     "jwt[0].claimMappings.username: Invalid value: \"\": claim and expression can't both be set"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n"
          "  claimMappings: {username: {expression: claims.sub, prefix: x}}\n",
     "jwt[0].claimMappings.username.prefix: Invalid value: \"x\": may not be specified when "
     "expression is set"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n"
          "  claimMappings: {username: {expression: 'claims.sub +'}}\n",
     "jwt[0].claimMappings.username.expression: Invalid value: \"claims.sub +\": compilation "
     "failed: "},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n"
          "  claimMappings: {username: {expression: claims.email}}\n",
     "claims.email_verified must be used in claimMappings.username.expression"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n"
          "  claimValidationRules: [{claim: a, expression: 'true'}, {}, {claim: b, message: m},"
          " {expression: 'true', requiredValue: v}, {claim: b}]\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "[jwt[0].claimValidationRules[0]: Invalid value: \"a\": claim and expression can't both be "
     "set, jwt[0].claimValidationRules[1]: Required value: claim or expression is required, "
     "jwt[0].claimValidationRules[2].message: Invalid value: \"m\": may not be specified when "
     "claim is set, jwt[0].claimValidationRules[3].requiredValue: Invalid value: \"v\": may not "
     "be specified when expression is set, jwt[0].claimValidationRules[4].claim: Duplicate "
     "value: \"b\"]"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n"
          "  claimMappings:\n    username: {claim: sub, prefix: ''}\n"
          "    extra: [{key: nodomain, valueExpression: '1'}, {key: Example.com/x, "
          "valueExpression: '1'}, {key: kubernetes.io/x, valueExpression: '1'}, {key: a.io/y}]\n",
     "[jwt[0].claimMappings.extra[0].key: Invalid value: \"nodomain\": must be a domain-prefixed "
     "path (such as \"acme.io/foo\"), jwt[0].claimMappings.extra[1].key: Invalid value: "
     "\"Example.com/x\": must be lowercase, jwt[0].claimMappings.extra[2].key: Invalid value: "
     "\"kubernetes.io/x\": k8s.io, kubernetes.io and their subdomains are reserved for "
     "Kubernetes use, jwt[0].claimMappings.extra[3].valueExpression: Required value]"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n"
          "  userValidationRules: [{message: m}]\n",
     "jwt[0].userValidationRules[0].expression: Required value"},
    {HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n"
          "- issuer: {url: 'https://a', audiences: [b]}\n"
          "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
     "jwt[1].issuer.url: Duplicate value: \"https://a\""},
};

static void
invalid(void)
{
    for (size_t i = 0; i < sizeof(INVALID) / sizeof(INVALID[0]); i++) {
        authn__jwt_set_t *s = NULL;
        char err[2048] = "";
        int rc =
            authn__config_parse(INVALID[i].yaml, strlen(INVALID[i].yaml), &s, err, sizeof(err));
        if (!tap_ok(rc == GW_EINVAL && s == NULL && strstr(err, INVALID[i].want) != NULL,
                    "refused: %s", INVALID[i].want))
            tap_diag("  got: %s", err);
    }
    /* 65 authenticators */
    char *big = gw_strdup(HEAD "jwt:\n");
    for (int i = 0; i < 65; i++) {
        char *more = gw_sprintf("%s- issuer: {url: 'https://i%d', audiences: [a]}\n"
                                "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
                                big, i);
        free(big);
        big = more;
    }
    authn__jwt_set_t *s = NULL;
    char err[512] = "";
    authn__config_parse(big, strlen(big), &s, err, sizeof(err));
    tap_is_str(err, "jwt: Too many: 65: must have at most 64 items", "at most 64 authenticators");
    free(big);
}

/* ---- mappings -------------------------------------------------------------------------------- */

static authn__jwt_set_t *
one(const char *body)
{
    char *yaml = gw_sprintf(HEAD "jwt:\n- issuer: {url: 'https://a', audiences: [a]}\n%s", body);
    authn__jwt_set_t *s = NULL;
    char err[2048] = "";

    if (authn__config_parse(yaml, strlen(yaml), &s, err, sizeof(err)) != 0)
        tap_diag("config: %s", err);
    free(yaml);
    return s;
}

/* The user the claims (JSON text, merged over good defaults) map to, or NULL. */
static authn_user_t *
map(const authn__jwt_set_t *s, const char *extra)
{
    json_t *c = json_pack("{s:s, s:s, s:s, s:I, s:I}", "iss", "https://a", "sub", "u1", "aud", "a",
                          "iat", NOW - 10, "exp", NOW + 600);
    json_t *more = json_loads(extra, 0, NULL);
    authn_user_t *u = NULL;
    const char *why = NULL;

    json_object_update(c, more);
    json_decref(more);
    if (s == NULL || authn__jwt_claims_user(s->auths[0], c, NOW, &u, &why) != AUTHN__FOUND)
        u = NULL;
    json_decref(c);
    return u;
}

static void
mappings(void)
{
    authn__jwt_set_t *s =
        one("  claimValidationRules:\n"
            "  - expression: 'claims.exp - claims.iat <= 3600'\n    message: tokens live an hour\n"
            "  - claim: hd\n    requiredValue: example.com\n"
            "  claimMappings:\n"
            "    username: {expression: '\"user:\" + claims.sub'}\n"
            "    groups: {expression: 'has(claims.roles) ? claims.roles.split(\",\") : null'}\n"
            "    uid: {expression: 'string(claims.num)'}\n"
            "    extra:\n"
            "    - {key: example.com/tenant, valueExpression: 'has(claims.t) ? claims.t : \"\"'}\n"
            "    - {key: example.com/list, valueExpression: '[\"a\", \"b\"]'}\n"
            "  userValidationRules:\n"
            "  - expression: \"!user.username.startsWith('user:root')\"\n    message: no root\n"
            "  - expression: \"!('banned' in user.groups)\"\n");
    authn_user_t *u =
        map(s, "{\"hd\":\"example.com\",\"num\":42,\"roles\":\"dev,ops\",\"t\":\"x\"}");

    tap_ok(u != NULL, "claims mapped by expressions");
    if (u != NULL) {
        tap_is_str(u->name, "user:u1", "username expression");
        tap_is_str(u->uid, "42", "uid expression");
        tap_ok(u->n_groups == 2 && strcmp(u->groups[1], "ops") == 0, "groups expression");
        tap_ok(u->n_extra == 2 && strcmp(u->extra[0].key, "example.com/tenant") == 0 &&
                   strcmp(u->extra[0].values[0], "x") == 0 && u->extra[1].n_values == 2,
               "extra expressions (a string, a list)");
    }
    authn_user_free(u);
    u = map(s, "{\"hd\":\"example.com\",\"num\":1}");
    tap_ok(u != NULL && u->n_groups == 0 && u->n_extra == 1, "null groups, an empty extra omitted");
    authn_user_free(u);
    static const struct {
        const char *claims, *name;
    } refused[] = {
        {"{\"num\":1}", "a required claim missing"},
        {"{\"hd\":\"other\",\"num\":1}", "a required claim with another value"},
        {"{\"hd\":\"example.com\",\"num\":1,\"exp\":1800007200}", "an expression rule false"},
        {"{\"hd\":\"example.com\",\"num\":1,\"sub\":\"root\"}", "a user validation rule false"},
        {"{\"hd\":\"example.com\",\"num\":1,\"roles\":\"banned\"}", "another user rule false"},
        {"{\"hd\":\"example.com\"}", "the uid expression errs (no such key)"},
        {"{\"hd\":\"example.com\",\"num\":1,\"roles\":7}", "groups expression errs"},
        {"{\"hd\":\"example.com\",\"num\":1,\"t\":[1]}", "an extra value not a string"},
        {"{\"hd\":\"example.com\",\"num\":1,\"sub\":5}", "username expression errs"},
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        u = map(s, refused[i].claims);
        tap_ok(u == NULL, "refused: %s", refused[i].name);
        authn_user_free(u);
    }
    authn__jwt_set_free(s);

    s = one("  claimMappings:\n    username: {expression: 'claims.sub + \"@idp\"'}\n"
            "    groups: {expression: 'claims.groups.map(g, \"jwt:\" + g)'}\n");
    u = map(s, "{\"groups\":[\"dev\",\"ops\"]}");
    tap_ok(u != NULL && strcmp(u->name, "u1@idp") == 0 && u->n_groups == 2 &&
               strcmp(u->groups[1], "jwt:ops") == 0,
           "groups mapped with a macro over a claim list");
    authn_user_free(u);
    authn__jwt_set_free(s);

    s = one("  claimMappings:\n    username: {claim: email, prefix: 'e:'}\n"
            "    groups: {claim: g, prefix: 'g:'}\n    uid: {claim: id}\n");
    u = map(s, "{\"email\":\"a@b\",\"email_verified\":true,\"g\":\"one\",\"id\":\"7\"}");
    tap_ok(u != NULL && strcmp(u->name, "e:a@b") == 0 && strcmp(u->uid, "7") == 0 &&
               u->n_groups == 1 && strcmp(u->groups[0], "g:one") == 0,
           "claims with prefixes");
    authn_user_free(u);
    u = map(s, "{\"email\":\"a@b\",\"email_verified\":false,\"id\":\"7\"}");
    tap_ok(u == NULL, "the email claim with email_verified false");
    u = map(s, "{\"email\":\"a@b\"}");
    tap_ok(u == NULL, "a uid claim missing");
    u = map(s, "{\"email\":\"a@b\",\"id\":\"7\",\"g\":[\"x\",3]}");
    tap_ok(u == NULL, "groups with a non-string");
    u = map(s, "{\"email\":\"a@b\",\"id\":\"7\",\"aud\":[\"b\",\"a\"]}");
    tap_ok(u != NULL, "aud as a list with the audience");
    authn_user_free(u);
    u = map(s, "{\"email\":\"a@b\",\"id\":\"7\",\"aud\":[\"b\"]}");
    tap_ok(u == NULL, "aud without the audience");
    authn__jwt_set_free(s);
}

/* ---- reloading ------------------------------------------------------------------------------- */

static char path[64];

static void
write_config(const char *issuer)
{
    char *tmp = gw_sprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    fprintf(f,
            HEAD "jwt:\n- issuer: {url: '%s', audiences: [a]}\n"
                 "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
            issuer);
    fclose(f);
    rename(tmp, path); /* a new inode: the change shows whatever the clock's resolution */
    free(tmp);
}

/* Whether the authenticators recognise a token of `issuer` (they then ask for discovery). */
static bool
recognised(authn_t *a, const char *issuer)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    json_t *c = json_pack("{s:s, s:s, s:s, s:I}", "iss", issuer, "sub", "x", "aud", "a", "exp",
                          (json_int_t)time(NULL) + 600);
    char *tok = authn_jwt_sign(c, "ES256", "k", key);
    char *header = gw_sprintf("Bearer %s", tok);
    authn_request_t req = {.authorization = header};
    authn_user_t *u = NULL;
    authn_pending_t *p = NULL;
    authn_result_t r = authn_authenticate(a, &req, &u, &p, NULL, 0);

    authn_pending_free(p);
    authn_user_free(u);
    free(header);
    free(tok);
    json_decref(c);
    EVP_PKEY_free(key);
    return r == AUTHN_PENDING;
}

static void
reload(void)
{
    snprintf(path, sizeof(path), "/tmp/authn-config-XXXXXX");
    int fd = mkstemp(path);
    close(fd);
    write_config("https://one.example");
    authn_config_t cfg = {.authentication_config = path};
    authn_t *a = NULL;
    char err[512];

    tap_is_int(authn_new(&cfg, &a, err, sizeof(err)), 0, "authn_new reads the file");
    tap_ok(recognised(a, "https://one.example") && !recognised(a, "https://two.example"),
           "the first issuer only");
    write_config("https://two.example");
    tap_ok(recognised(a, "https://one.example"), "a change is not seen before the interval");
    fake_ms += RELOAD_MS;
    tap_ok(recognised(a, "https://two.example") && !recognised(a, "https://one.example"),
           "the changed file replaces the authenticators");
    FILE *f = fopen(path, "w");
    fputs(HEAD "jwt:\n- issuer: {url: 'http://three.example'}\n", f);
    fclose(f);
    fake_ms += RELOAD_MS;
    tap_ok(recognised(a, "https://two.example"), "a new file that does not validate keeps the old");
    unlink(path);
    fake_ms += RELOAD_MS;
    tap_ok(recognised(a, "https://two.example"), "so does a file that went away");
    authn_free(a);
    cfg.authentication_config = "/nonexistent/auth.yaml";
    tap_ok(authn_new(&cfg, &a, err, sizeof(err)) == GW_EINVAL && strstr(err, "/nonexistent"),
           "a missing file is a start-up error (%s)", err);
}

int
main(void)
{
    clock_ms = test_ms;
    valid();
    invalid();
    mappings();
    reload();
    return tap_done();
}
