/* The --oidc-* authenticator end to end without a network: tokens signed here, the discovery
 * document and key set handed back as the answers to its HTTPS needs, and every way a token
 * can be bad. The authenticator's clocks are the test's. */
#include "../../../authn/authn_oidc.c"

#include <openssl/ec.h>
#include <openssl/rsa.h>

#include "tap.h"

#define ISSUER "https://idp.example"
#define NOW 1800000000LL

static int64_t fake_ms = 1000000;
static long long fake_s = NOW;

static int64_t
test_ms(void)
{
    return fake_ms;
}

static long long
test_s(void)
{
    return fake_s;
}

static EVP_PKEY *rsa, *rsa_other, *ec;

/* ---- tokens and answers ------------------------------------------------------------------ */

/* Claims with the usual good values; `extra` (JSON text) is merged over them. */
static json_t *
claims(const char *extra)
{
    json_t *c = json_pack("{s:s, s:s, s:s, s:I, s:I}", "iss", ISSUER, "sub", "alice", "aud",
                          "kgate", "iat", NOW - 10, "exp", NOW + 600);
    json_t *more = extra != NULL ? json_loads(extra, 0, NULL) : NULL;

    if (extra != NULL && more == NULL)
        tap_diag("bad test claims: %s", extra);
    json_object_update(c, more);
    json_decref(more);
    return c;
}

static char *
token(const char *extra, const char *alg, const char *kid, EVP_PKEY *key)
{
    json_t *c = claims(extra);
    char *t = authn_jwt_sign(c, alg, kid, key);

    json_decref(c);
    return t;
}

static char *
jwks(void)
{
    json_t *k1 = authn_jwk_from_key(rsa), *k2 = authn_jwk_from_key(ec);

    json_object_set_new(k1, "kid", json_string("rsa-1"));
    json_object_set_new(k2, "kid", json_string("ec-1"));
    json_t *doc = json_pack("{s:[o,o,{s:s}]}", "keys", k1, k2, "kty", "unknown");
    char *s = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return s;
}

static const char *const DISCOVERY =
    "{\"issuer\":\"" ISSUER "\",\"jwks_uri\":\"" ISSUER
    "/keys\",\"id_token_signing_alg_values_supported\":[\"RS256\"]}";

typedef struct {
    authn_result_t result;
    authn_user_t *user;
    int fetches; /* HTTPS exchanges it asked for */
    char url[256];
    char why[256];
} outcome_t;

/* Authenticate `tok`, answering each need with `answer_for(url)` (NULL: the exchange fails). */
static outcome_t
run_with(authn_t *a, const char *tok, const char *(*answer_for)(const char *url))
{
    outcome_t o = {0};
    char *header = gw_sprintf("Bearer %s", tok);
    authn_request_t req = {.authorization = header};
    authn_pending_t *p = NULL;

    o.result = authn_authenticate(a, &req, &o.user, &p, o.why, sizeof(o.why));
    while (o.result == AUTHN_PENDING && o.fetches < 10) {
        const authn_need_t *needs;
        authn_pending_needs(p, &needs);
        snprintf(o.url, sizeof(o.url), "%s", needs[0].url);
        const char *body = answer_for(needs[0].url);
        authn_answer_t ans = {.err = body ? 0 : GW_EUNAVAILABLE,
                              .status = body ? 200 : 0,
                              .body = body,
                              .body_len = body ? strlen(body) : 0};
        o.fetches++;
        authn_pending_t *again = NULL;
        o.result = authn_pending_finish(a, p, &ans, &o.user, &again, o.why, sizeof(o.why));
        p = again;
    }
    free(header);
    return o;
}

static char *the_jwks;

static const char *
idp(const char *url)
{
    if (strcmp(url, ISSUER WELL_KNOWN) == 0)
        return DISCOVERY;
    if (strcmp(url, ISSUER "/keys") == 0)
        return the_jwks;
    return NULL;
}

static outcome_t
run(authn_t *a, const char *tok)
{
    return run_with(a, tok, idp);
}

/* One token's outcome: accepted as `user` (NULL: refused), with `fetches` exchanges. */
static void
expect(authn_t *a, char *tok, const char *user, int fetches, const char *name)
{
    outcome_t o = run(a, tok);

    if (user != NULL) {
        tap_ok(o.result == AUTHN_OK && o.user != NULL && strcmp(o.user->name, user) == 0,
               "%s: accepted as %s (got %s)", name, user, o.user ? o.user->name : "nobody");
    } else {
        tap_ok(o.result == AUTHN_UNAUTHORIZED, "%s: refused", name);
    }
    if (fetches >= 0)
        tap_is_int(o.fetches, fetches, "... after that many fetches");
    authn_user_free(o.user);
    free(tok);
}

static authn_t *
flags(const authn_config_t *over)
{
    authn_config_t cfg = *over;
    authn_t *a = NULL;
    char err[512];

    cfg.oidc_issuer_url = ISSUER;
    cfg.oidc_client_id = "kgate";
    if (authn_new(&cfg, &a, err, sizeof(err)) != 0)
        tap_diag("authn_new: %s", err);
    return a;
}

/* ---- the cases ------------------------------------------------------------------------------ */

static void
discovery_and_cache(void)
{
    authn_t *a =
        flags(&(authn_config_t){.oidc_groups_claim = "groups", .oidc_groups_prefix = "oidc:"});
    char *t = token("{\"groups\":[\"dev\",\"ops\"]}", "RS256", "rsa-1", rsa);
    outcome_t o = run(a, t), again = run(a, t);

    free(t);

    tap_ok(again.result == AUTHN_OK && again.fetches == 0 && again.user == o.user,
           "a token accepted after two rounds of fetches is remembered: the same user again");
    authn_user_free(again.user);
    tap_is_int(o.result, AUTHN_OK, "a good token is accepted");
    tap_is_int(o.fetches, 2, "after the discovery document and the keys");
    tap_is_str(o.url, ISSUER "/keys", "the keys from the document's jwks_uri");
    tap_is_str(o.user->name, ISSUER "#alice", "the default prefix is the issuer and #");
    tap_ok(o.user->n_groups == 3 && strcmp(o.user->groups[0], "oidc:dev") == 0 &&
               strcmp(o.user->groups[2], "system:authenticated") == 0,
           "groups prefixed, then system:authenticated");
    authn_user_free(o.user);
    expect(a, token(NULL, "RS256", "rsa-1", rsa), ISSUER "#alice", 0, "the keys are cached");
    expect(a, token("{\"groups\":\"solo\"}", "RS256", NULL, rsa), ISSUER "#alice", 0,
           "a token without kid tries every key");
    authn_free(a);
}

static void
bad_tokens(void)
{
    authn_t *a = flags(&(authn_config_t){0});
    char *good = token(NULL, "RS256", "rsa-1", rsa);

    expect(a, gw_strdup(good), ISSUER "#alice", 2, "warm up");
    expect(a, token("{\"exp\":1799999999}", "RS256", "rsa-1", rsa), NULL, 0, "expired");
    expect(a, token("{\"nbf\":1800000100}", "RS256", "rsa-1", rsa), NULL, 0, "not yet valid");
    expect(a, token("{\"nbf\":1800000030}", "RS256", "rsa-1", rsa), ISSUER "#alice", 0,
           "nbf within the minute of leeway");
    json_t *c = claims(NULL);
    json_object_del(c, "exp");
    expect(a, authn_jwt_sign(c, "RS256", "rsa-1", rsa), NULL, 0, "no exp");
    json_decref(c);
    expect(a, token("{\"exp\":\"soon\"}", "RS256", "rsa-1", rsa), NULL, 0, "exp not a number");
    expect(a, token("{\"iss\":\"https://other.example\"}", "RS256", "rsa-1", rsa), NULL, 0,
           "another issuer");
    expect(a, token("{\"aud\":\"someone-else\"}", "RS256", "rsa-1", rsa), NULL, 0,
           "another audience");
    expect(a, token("{\"aud\":[\"x\",\"kgate\"]}", "RS256", "rsa-1", rsa), ISSUER "#alice", 0,
           "aud as a list holding the client id");
    expect(a, token(NULL, "ES256", "ec-1", ec), NULL, 0, "ES256 while only RS256 is accepted");
    expect(a, token("{\"sub\":7}", "RS256", "rsa-1", rsa), NULL, 0, "sub not a string");
    expect(a, token("{\"sub\":\"\"}", "RS256", "rsa-1", rsa), ISSUER "#", 0,
           "an empty sub still has the prefix (as kube)");

    /* tampered payload: the signature of the good token over other claims */
    char *forged = token("{\"sub\":\"mallory\"}", "RS256", "rsa-1", rsa);
    char *t = gw_sprintf("%.*s%s", (int)(strchr(strchr(forged, '.') + 1, '.') - forged), forged,
                         strrchr(good, '.'));
    free(forged);
    fake_ms += REFETCH_MS;
    expect(a, t, NULL, 1, "a tampered payload (the keys are fetched again once)");
    expect(a, token(NULL, "RS256", "rsa-1", rsa_other), NULL, 0,
           "a wrong signature right after: no second fetch");
    fake_ms += REFETCH_MS;
    expect(a, token(NULL, "RS256", "rsa-9", rsa_other), NULL, 1,
           "an unknown key id, once the interval has passed: fetched again, still unknown");
    static const char *const malformed[] = {
        "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlIn0.", /* alg none */
        "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlIn0",
        "bm90IGpzb24.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlIn0.c2ln",          /* header not JSON */
        "eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlIn0.c2ln", /* HS256 */
        "a.b.c.d",
        "...",
        "",
        "%%%.%%%.%%%",
    };
    for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++)
        expect(a, gw_strdup(malformed[i]), NULL, 0, malformed[i][0] ? malformed[i] : "(empty)");
    free(good);
    authn_free(a);
}

static void
prefixes_and_claims(void)
{
    authn_t *a = flags(&(authn_config_t){.oidc_username_claim = "email"});
    expect(a, token("{\"email\":\"a@x.io\",\"email_verified\":true}", "RS256", "rsa-1", rsa),
           "a@x.io", 2, "email: no prefix by default");
    expect(a, token("{\"email\":\"a@x.io\"}", "RS256", "rsa-1", rsa), "a@x.io", 0,
           "email without email_verified");
    expect(a, token("{\"email\":\"a@x.io\",\"email_verified\":false}", "RS256", "rsa-1", rsa), NULL,
           0, "email not verified");
    expect(a, token("{\"email\":\"a@x.io\",\"email_verified\":\"true\"}", "RS256", "rsa-1", rsa),
           NULL, 0, "email_verified not a boolean");
    expect(a, token(NULL, "RS256", "rsa-1", rsa), NULL, 0, "no email claim");
    authn_free(a);

    a = flags(&(authn_config_t){.oidc_username_prefix = "-"});
    expect(a, token(NULL, "RS256", "rsa-1", rsa), "alice", 2, "prefix '-' means none");
    authn_free(a);
    a = flags(&(authn_config_t){.oidc_username_prefix = "oidc:", .oidc_username_claim = "email"});
    expect(a, token("{\"email\":\"b@x.io\"}", "RS256", "rsa-1", rsa), "oidc:b@x.io", 2,
           "an explicit prefix applies to email too");
    authn_free(a);

    static const char *const required[] = {"tier=gold", "team=a=b", NULL};
    a = flags(&(authn_config_t){.oidc_required_claims = required});
    expect(a, token("{\"tier\":\"gold\",\"team\":\"a=b\"}", "RS256", "rsa-1", rsa), ISSUER "#alice",
           2, "required claims present");
    expect(a, token("{\"tier\":\"gold\"}", "RS256", "rsa-1", rsa), NULL, 0,
           "a required claim missing");
    expect(a, token("{\"tier\":\"silver\",\"team\":\"a=b\"}", "RS256", "rsa-1", rsa), NULL, 0,
           "a required claim with another value");
    expect(a, token("{\"tier\":[\"gold\"],\"team\":\"a=b\"}", "RS256", "rsa-1", rsa), NULL, 0,
           "a required claim that is not a string");
    authn_free(a);

    static const char *const algs[] = {"ES256", "RS256", NULL};
    a = flags(&(authn_config_t){.oidc_signing_algs = algs});
    expect(a, token(NULL, "ES256", "ec-1", ec), ISSUER "#alice", 2, "ES256 when accepted");
    authn_free(a);
}

static const char *bad_discovery_body;

static const char *
bad_idp(const char *url)
{
    return strstr(url, WELL_KNOWN) != NULL ? bad_discovery_body : "{\"keys\":[]}";
}

static void
broken_providers(void)
{
    static const struct {
        const char *body, *name;
    } cases[] = {
        {NULL, "the discovery document cannot be fetched"},
        {"not json", "a discovery document that is not JSON"},
        {"{\"issuer\":\"https://evil.example\",\"jwks_uri\":\"https://idp.example/keys\"}",
         "a discovery document naming another issuer"},
        {"{\"issuer\":\"" ISSUER "\",\"jwks_uri\":\"http://idp.example/keys\"}",
         "a plain http jwks_uri"},
        {"{\"issuer\":\"" ISSUER "\"}", "no jwks_uri"},
        {"{\"issuer\":\"" ISSUER "\",\"jwks_uri\":\"" ISSUER "/keys\"}", "an empty key set"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        authn_t *a = flags(&(authn_config_t){0});
        bad_discovery_body = cases[i].body;
        char *t = token(NULL, "RS256", "rsa-1", rsa);
        outcome_t o = run_with(a, t, bad_idp);
        tap_is_int(o.result, AUTHN_UNAUTHORIZED, cases[i].name);
        if (!tap_ok(strncmp(o.why, "oidc: ", 6) == 0, "... the log says why"))
            tap_diag("  why: %s", o.why);
        free(t);
        authn_free(a);
    }
}

static void
bad_flags(void)
{
    static const char *const hs[] = {"HS256", NULL};
    static const struct {
        authn_config_t cfg;
        const char *want, *name;
    } cases[] = {
        {{.oidc_issuer_url = "http://idp.example", .oidc_client_id = "k"},
         "URL scheme must be https",
         "an http issuer"},
        {{.oidc_issuer_url = ISSUER, .oidc_client_id = "k", .oidc_signing_algs = hs},
         "unsupported signing algorithm \"HS256\"",
         "HS256"},
        {{.oidc_issuer_url = ISSUER, .oidc_client_id = "k", .oidc_ca_file = "/nonexistent"},
         "--oidc-ca-file",
         "an unreadable CA file"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        authn_t *a = NULL;
        char err[512] = "";
        int rc = authn_new(&cases[i].cfg, &a, err, sizeof(err));
        tap_ok(rc == GW_EINVAL && a == NULL && strstr(err, cases[i].want) != NULL,
               "start-up error: %s (%s)", cases[i].name, err);
    }
}

int
main(void)
{
    clock_ms = test_ms;
    clock_s = test_s;
    rsa = EVP_RSA_gen(2048);
    rsa_other = EVP_RSA_gen(2048);
    ec = EVP_EC_gen("P-256");
    the_jwks = jwks();

    discovery_and_cache();
    bad_tokens();
    prefixes_and_claims();
    broken_providers();
    bad_flags();

    free(the_jwks);
    EVP_PKEY_free(rsa);
    EVP_PKEY_free(rsa_other);
    EVP_PKEY_free(ec);
    return tap_done();
}
