/* Service account tokens: issued claims, the OpenID documents, and the authenticator with
 * every bad credential refused (expired, not yet valid, wrong signature, unknown kid, wrong
 * issuer, wrong audience, tampered payload, alg none, malformed header, deleted account,
 * bound objects gone or replaced). */
#include "authn_sa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/pem.h>

#include "authn_int.h"
#include "authn_jwt.h"
#include "gw_err.h"
#include "bio_text.h"
#include "tap.h"

#define ISSUER "https://kgate.test"
#define SA_UID "6d0f0b8c-0000-4000-8000-000000000001"
#define POD_UID "6d0f0b8c-0000-4000-8000-000000000002"

static EVP_PKEY *sign_key, *other_key, *stranger_key; /* stranger: in no key file */
static char err[512];
static char why[256]; /* the last refusal's reason */
/* The cache of accepted tokens is off unless a test turns it on: most tests answer the same
 * token's lookup differently in turn, and want each answer decided. */
static long long cache_ttl_ms = -1;

/* Write text to a fresh temporary file; returns its path (caller unlinks and frees). */
static char *
temp_file(const char *text)
{
    char *path = strdup("/tmp/authn-sa-test.XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        abort();
    close(fd);
    return path;
}

static char *
pem_of(EVP_PKEY *k, bool priv)
{
    BIO *b = BIO_new(BIO_s_mem());
    if (priv)
        PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
    else
        PEM_write_bio_PUBKEY(b, k);
    return bio_text(b);
}

/* An authn_t verifying with the public half of sign_key (and other_key's, in one file when
 * `both`), signing with sign_key. */
static authn_t *
make_authn(bool both, const char *const *audiences, bool lookup)
{
    char *pub = pem_of(sign_key, false), *other = pem_of(other_key, false);
    char *priv = pem_of(sign_key, true);
    char *keys = NULL;
    if (asprintf(&keys, "%s%s", both ? other : "", pub) < 0)
        abort();
    char *key_path = temp_file(keys), *sign_path = temp_file(priv);
    const char *key_files[] = {key_path, NULL};
    const char *issuers[] = {ISSUER, "https://old.kgate.test", NULL};
    authn_config_t cfg = {.sa_key_files = key_files,
                          .sa_signing_key_file = sign_path,
                          .sa_issuers = issuers,
                          .api_audiences = audiences,
                          .sa_extend_expiration = true,
                          .sa_lookup = lookup,
                          .token_cache_ttl_ms = cache_ttl_ms};
    authn_t *a = NULL;
    if (authn_new(&cfg, &a, err, sizeof(err)) != 0)
        tap_diag("authn_new: %s", err);
    unlink(key_path);
    unlink(sign_path);
    free(key_path);
    free(sign_path);
    free(keys);
    free(pub);
    free(other);
    free(priv);
    return a;
}

static const char *const default_auds[] = {ISSUER, "https://old.kgate.test"};

static char *
issue(const authn_t *a, const char *kind, const char *bound_name, const char *bound_uid)
{
    authn_sa_request_t q = {.namespace = "team",
                            .name = "robot",
                            .uid = SA_UID,
                            .audiences = default_auds,
                            .n_audiences = 1,
                            .expiration_seconds = 3600,
                            .bound_kind = kind,
                            .bound_name = bound_name,
                            .bound_uid = bound_uid,
                            .now = (long long)time(NULL)};
    return authn_sa_issue(a, &q);
}

/* A stored object with a uid and, when deleted_ago >= 0, a deletionTimestamp that long ago. */
static char *
object(const char *uid, long deleted_ago)
{
    char ts[32] = "";
    time_t t = time(NULL) - deleted_ago;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
    char *s = NULL;
    if (asprintf(&s, "{\"metadata\":{\"name\":\"x\",\"uid\":\"%s\"%s%s%s}}", uid,
                 deleted_ago >= 0 ? ",\"deletionTimestamp\":\"" : "", deleted_ago >= 0 ? ts : "",
                 deleted_ago >= 0 ? "\"" : "") < 0)
        abort();
    return s;
}

/* The outcome of a token: "401", or the user's "name|uid|groups|extra keys=values", with the
 * stored objects `objects` (one per need, NULL: not found) answering the lookup. `needs` gets
 * "resource/ns/name,..." of what was asked. */
static const char *
outcome(const authn_t *a, const char *token, char *const *objects, char *needs, size_t needs_len)
{
    static char s[1024];
    char *header = NULL;
    if (asprintf(&header, "Bearer %s", token) < 0)
        abort();
    authn_request_t req = {.authorization = header};
    authn_user_t *u = NULL;
    authn_pending_t *p = NULL;
    authn_result_t r = authn_authenticate(a, &req, &u, &p, why, sizeof(why));
    free(header);
    if (needs != NULL)
        needs[0] = '\0';
    if (r == AUTHN_PENDING) {
        const authn_need_t *nd;
        size_t n = authn_pending_needs(p, &nd);
        authn_answer_t ans[4] = {{0}};
        for (size_t i = 0; i < n && i < 4; i++) {
            if (needs != NULL)
                snprintf(needs + strlen(needs), needs_len - strlen(needs), "%s%s/%s/%s",
                         i ? "," : "", nd[i].resource, nd[i].namespace, nd[i].name);
            ans[i].object = objects[i];
            ans[i].object_len = objects[i] ? strlen(objects[i]) : 0;
        }
        authn_pending_t *again = NULL;
        r = authn_pending_finish(a, p, ans, &u, &again, why, sizeof(why));
        authn_pending_free(again);
    }
    if (r != AUTHN_OK)
        return "401";
    int n = snprintf(s, sizeof(s), "%s|%s|", u->name, u->uid);
    for (size_t i = 0; i < u->n_groups; i++)
        n += snprintf(s + n, sizeof(s) - (size_t)n, "%s%s", i ? "," : "", u->groups[i]);
    for (size_t i = 0; i < u->n_extra; i++) {
        const char *k = strrchr(u->extra[i].key, '/');
        n += snprintf(s + n, sizeof(s) - (size_t)n, "|%s=%s", k ? k + 1 : u->extra[i].key,
                      strncmp(u->extra[i].values[0], "JTI=", 4) == 0 ? "JTI"
                                                                     : u->extra[i].values[0]);
    }
    authn_user_free(u);
    return s;
}

#define SA_USER                                                                                    \
    "system:serviceaccount:team:robot|" SA_UID                                                     \
    "|system:serviceaccounts,system:serviceaccounts:team,system:authenticated"

static void
test_issued(const authn_t *a)
{
    char *tok = issue(a, NULL, NULL, NULL);
    authn_jwt_t *j = NULL;
    tap_is_int(authn_jwt_parse(tok, &j, NULL), 0, "issued token parses");
    char *kid = authn_jwt_key_id(sign_key);
    tap_is_str(j->kid, kid, "kid is the signing key's id");
    tap_is_str(j->alg, "RS256", "RSA signs RS256");
    tap_is_str(json_string_value(json_object_get(j->claims, "iss")), ISSUER, "iss: first issuer");
    tap_is_str(json_string_value(json_object_get(j->claims, "sub")),
               "system:serviceaccount:team:robot", "sub");
    tap_is_str(json_string_value(json_array_get(json_object_get(j->claims, "aud"), 0)), ISSUER,
               "aud");
    long long iat = 0, exp = 0, nbf = 0;
    authn_jwt_time_claim(j->claims, "iat", &iat);
    authn_jwt_time_claim(j->claims, "exp", &exp);
    authn_jwt_time_claim(j->claims, "nbf", &nbf);
    tap_ok(exp - iat == 3600 && nbf == iat, "exp one hour after iat, nbf = iat");
    tap_is_int((int)strlen(json_string_value(json_object_get(j->claims, "jti"))), 36, "jti uuid");
    const json_t *k = json_object_get(j->claims, "kubernetes.io");
    tap_is_str(json_string_value(json_object_get(k, "namespace")), "team", "namespace claim");
    tap_is_str(json_string_value(json_object_get(json_object_get(k, "serviceaccount"), "uid")),
               SA_UID, "serviceaccount uid claim");
    authn_jwt_free(j);
    free(kid);

    char needs[256];
    char *sa = object(SA_UID, -1);
    char *objs[] = {sa, NULL};
    tap_is_str(outcome(a, tok, objs, needs, sizeof(needs)), SA_USER "|credential-id=JTI",
               "an issued token authenticates the service account");
    tap_is_str(needs, "serviceaccounts/team/robot", "after looking the account up");
    free(tok);
    free(sa);
}

static void
test_pod_bound(const authn_t *a)
{
    authn_sa_request_t q = {.namespace = "team",
                            .name = "robot",
                            .uid = SA_UID,
                            .audiences = default_auds,
                            .n_audiences = 1,
                            .expiration_seconds = 3607,
                            .bound_kind = "Pod",
                            .bound_name = "web-0",
                            .bound_uid = POD_UID,
                            .node_name = "n1",
                            .node_uid = "node-uid",
                            .now = (long long)time(NULL)};
    char *tok = authn_sa_issue(a, &q);
    authn_jwt_t *j = NULL;
    authn_jwt_parse(tok, &j, NULL);
    long long iat = 0, exp = 0;
    authn_jwt_time_claim(j->claims, "iat", &iat);
    authn_jwt_time_claim(j->claims, "exp", &exp);
    const json_t *k = json_object_get(j->claims, "kubernetes.io");
    tap_ok(exp - iat == 365LL * 24 * 3600, "a 3607 s pod-bound token lives a year");
    tap_ok(json_integer_value(json_object_get(k, "warnafter")) == iat + 3607,
           "warnafter at the requested expiry");
    tap_is_str(json_string_value(json_object_get(json_object_get(k, "node"), "name")), "n1",
               "the pod's node claim");
    authn_jwt_free(j);

    char needs[256];
    char *sa = object(SA_UID, -1), *pod = object(POD_UID, -1), *pod_old = object(POD_UID, 600);
    char *pod_recent = object(POD_UID, 5), *pod_other = object("another-uid", -1);
    char *ok[] = {sa, pod}, *gone[] = {sa, NULL}, *deleted[] = {sa, pod_old},
         *deleting[] = {sa, pod_recent}, *replaced[] = {sa, pod_other};
    tap_is_str(outcome(a, tok, ok, needs, sizeof(needs)),
               SA_USER "|pod-name=web-0|pod-uid=" POD_UID "|credential-id=JTI|node-name=n1|"
                       "node-uid=node-uid",
               "pod-bound token: pod and node extras");
    tap_is_str(needs, "serviceaccounts/team/robot,pods/team/web-0", "the pod looked up");
    tap_is_str(outcome(a, tok, gone, NULL, 0), "401", "pod gone: refused");
    tap_is_str(outcome(a, tok, deleted, NULL, 0), "401", "pod deleted ten minutes ago: refused");
    tap_is_str(outcome(a, tok, deleting, NULL, 0),
               SA_USER "|pod-name=web-0|pod-uid=" POD_UID
                       "|credential-id=JTI|node-name=n1|node-uid=node-uid",
               "pod being deleted within the leeway: accepted as kube does");
    tap_is_str(outcome(a, tok, replaced, NULL, 0), "401", "pod recreated with another uid");
    free(tok);
    q.expiration_seconds = 3600;
    q.bound_kind = "Secret";
    q.bound_name = "s1";
    tok = authn_sa_issue(a, &q);
    tap_is_str(outcome(a, tok, gone, needs, sizeof(needs)), "401", "bound secret gone: refused");
    tap_is_str(needs, "serviceaccounts/team/robot,secrets/team/s1", "the secret looked up");
    free(tok);
    free(sa);
    free(pod);
    free(pod_old);
    free(pod_recent);
    free(pod_other);
}

/* A token signed with `key` over claims, with the header's alg and kid as given. */
static char *
forge(json_t *claims, EVP_PKEY *key, const char *kid)
{
    char *tok = authn_jwt_sign(claims, authn_jwt_key_alg(key), kid, key);
    if (tok == NULL)
        abort();
    json_decref(claims);
    return tok;
}

static json_t *
claims_at(long long iat, long long exp, const char *iss, const char *aud)
{
    return json_pack("{s:s,s:s,s:[s],s:I,s:I,s:I,s:{s:s,s:{s:s,s:s}}}", "iss", iss, "sub",
                     "system:serviceaccount:team:robot", "aud", aud, "iat", (json_int_t)iat, "nbf",
                     (json_int_t)iat, "exp", (json_int_t)exp, "kubernetes.io", "namespace", "team",
                     "serviceaccount", "name", "robot", "uid", SA_UID);
}

static void
test_refused(const authn_t *a)
{
    long long now = (long long)time(NULL);
    char *sa = object(SA_UID, -1), *sa_other = object("other", -1);
    char *ok[] = {sa}, *gone[] = {NULL}, *replaced[] = {sa_other};
    char *kid = authn_jwt_key_id(sign_key), *other_kid = authn_jwt_key_id(stranger_key);
    struct {
        char *token;
        const char *name;
    } cases[] = {
        {forge(claims_at(now - 7200, now - 120, ISSUER, ISSUER), sign_key, kid), "expired"},
        {forge(claims_at(now + 600, now + 4200, ISSUER, ISSUER), sign_key, kid), "not yet valid"},
        {forge(claims_at(now, now + 600, ISSUER, ISSUER), other_key, kid),
         "wrong signature (our kid, another key)"},
        {forge(claims_at(now, now + 600, ISSUER, ISSUER), stranger_key, other_kid), "unknown kid"},
        {forge(claims_at(now, now + 600, ISSUER, ISSUER), stranger_key, NULL), "unknown key"},
        {forge(claims_at(now, now + 600, "https://elsewhere", ISSUER), sign_key, kid),
         "wrong issuer"},
        {forge(claims_at(now, now + 600, ISSUER, "https://vault"), sign_key, kid),
         "wrong audience"},
        {forge(json_pack("{s:s,s:s,s:I}", "iss", ISSUER, "sub", "system:serviceaccount:team:robot",
                         "exp", (json_int_t)(now + 600)),
               sign_key, kid),
         "no kubernetes.io claims"},
        {forge(json_pack("{s:s,s:s,s:I,s:{s:s,s:{s:s,s:s}}}", "iss", ISSUER, "sub",
                         "system:serviceaccount:team:admin", "exp", (json_int_t)(now + 600),
                         "kubernetes.io", "namespace", "team", "serviceaccount", "name", "robot",
                         "uid", SA_UID),
               sign_key, kid),
         "sub disagreeing with the claims"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tap_is_str(outcome(a, cases[i].token, ok, NULL, 0), "401", cases[i].name);
        tap_diag("  %s", why);
        free(cases[i].token);
    }
    char *second = forge(claims_at(now, now + 600, ISSUER, ISSUER), other_key, NULL);
    tap_is_str(outcome(a, second, ok, NULL, 0), SA_USER, "any key of the key file verifies");
    free(second);
    /* Within the leeway: expired 30 s ago still passes, as go-jose's. */
    char *lee = forge(claims_at(now - 3600, now - 30, ISSUER, ISSUER), sign_key, kid);
    tap_is_str(outcome(a, lee, ok, NULL, 0), SA_USER, "expired within the minute of leeway");
    free(lee);

    char *tok = issue(a, NULL, NULL, NULL);
    tap_is_str(outcome(a, tok, gone, NULL, 0), "401", "deleted account refused");
    tap_is_str(outcome(a, tok, replaced, NULL, 0), "401", "account recreated with another uid");
    /* Tampered payload: the namespace changed under the signature. */
    char *dot1 = strchr(tok, '.'), *dot2 = strchr(dot1 + 1, '.');
    unsigned char *raw = NULL;
    size_t raw_len = 0;
    authn_b64url_decode(dot1 + 1, (size_t)(dot2 - dot1 - 1), &raw, &raw_len);
    char *team = strstr((char *)raw, "\"team\"");
    memcpy(team, "\"tean\"", 6);
    char *evil = authn_b64url_encode(raw, raw_len), *tampered = NULL;
    if (asprintf(&tampered, "%.*s.%s%s", (int)(dot1 - tok), tok, evil, dot2) < 0)
        abort();
    tap_is_str(outcome(a, tampered, ok, NULL, 0), "401", "tampered payload refused");
    /* alg none and a malformed header, both with our issuer in the payload. */
    char *none = NULL, *broken = NULL;
    if (asprintf(&none, "eyJhbGciOiJub25lIn0.%.*s.", (int)(dot2 - dot1 - 1), dot1 + 1) < 0 ||
        asprintf(&broken, "eyJhbGciOi.%.*s%s", (int)(dot2 - dot1 - 1), dot1 + 1, dot2) < 0)
        abort();
    tap_is_str(outcome(a, none, ok, NULL, 0), "401", "alg none refused");
    tap_is_str(outcome(a, broken, ok, NULL, 0), "401", "malformed header refused");
    free(none);
    free(broken);
    free(tampered);
    free(evil);
    free(raw);
    free(tok);
    free(kid);
    free(other_kid);
    free(sa);
    free(sa_other);
}

static void
test_documents(const authn_t *a)
{
    json_t *cfg = authn_sa_openid_configuration(a);
    tap_is_str(json_string_value(json_object_get(cfg, "issuer")), ISSUER, "discovery issuer");
    tap_is_str(json_string_value(json_object_get(cfg, "jwks_uri")), ISSUER "/openid/v1/jwks",
               "jwks_uri");
    tap_is_str(
        json_string_value(json_array_get(json_object_get(cfg, "response_types_supported"), 0)),
        "id_token", "response types");
    tap_is_str(
        json_string_value(json_array_get(json_object_get(cfg, "subject_types_supported"), 0)),
        "public", "subject types");
    json_t *algs = json_object_get(cfg, "id_token_signing_alg_values_supported");
    tap_ok(json_array_size(algs) == 2 &&
               strcmp(json_string_value(json_array_get(algs, 0)), "ES256") == 0 &&
               strcmp(json_string_value(json_array_get(algs, 1)), "RS256") == 0,
           "algorithms of both keys, sorted");
    json_t *jwks = authn_sa_jwks(a);
    json_t *keys = json_object_get(jwks, "keys");
    tap_is_int((int)json_array_size(keys), 2, "both keys in the set");
    EVP_PKEY *back = authn_jwk_to_key(json_array_get(keys, 1));
    tap_ok(back != NULL && EVP_PKEY_eq(back, sign_key) == 1, "the signing key's public JWK");
    tap_ok(json_object_get(json_array_get(keys, 1), "d") == NULL, "no private part served");
    EVP_PKEY_free(back);
    json_decref(jwks);
    json_decref(cfg);
}

/* ---- legacy Secret-based tokens ---- */

static char *
legacy_token(EVP_PKEY *key, const char *sub)
{
    json_t *c = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "iss", "kubernetes/serviceaccount",
                          "kubernetes.io/serviceaccount/namespace", "team",
                          "kubernetes.io/serviceaccount/secret.name", "robot-token",
                          "kubernetes.io/serviceaccount/service-account.name", "robot",
                          "kubernetes.io/serviceaccount/service-account.uid", SA_UID, "sub", sub);
    return forge(c, key, NULL);
}

/* A Secret holding `token` (base64 in data.token), optionally being deleted or labelled. */
static char *
secret(const char *token, bool deleting, const char *label)
{
    size_t n = strlen(token);
    char *b64 = malloc(4 * ((n + 2) / 3) + 1);
    EVP_EncodeBlock((unsigned char *)b64, (const unsigned char *)token, (int)n);
    char *s = NULL;
    if (asprintf(&s,
                 "{\"metadata\":{\"name\":\"robot-token\",\"uid\":\"s-uid\"%s%s%s%s},"
                 "\"type\":\"kubernetes.io/service-account-token\",\"data\":{\"token\":\"%s\"}}",
                 deleting ? ",\"deletionTimestamp\":\"2020-01-01T00:00:00Z\"" : "",
                 label ? ",\"labels\":{\"" : "", label ? label : "",
                 label ? "\":\"2024-01-01\"}" : "", b64) < 0)
        abort();
    free(b64);
    return s;
}

static void
test_legacy(const authn_t *a)
{
    char *tok = legacy_token(sign_key, "system:serviceaccount:team:robot");
    char *sa = object(SA_UID, -1), *sa_other = object("other", -1);
    char *good = secret(tok, false, NULL), *other = secret("another-token", false, NULL);
    char *deleting = secret(tok, true, NULL);
    char *marked = secret(tok, false, "kubernetes.io/legacy-token-invalid-since");
    char *ok[] = {good, sa}, *no_secret[] = {NULL, sa}, *mismatch[] = {other, sa},
         *deleted[] = {deleting, sa}, *invalid[] = {marked, sa}, *replaced[] = {good, sa_other};
    char needs[256];

    tap_is_str(outcome(a, tok, ok, needs, sizeof(needs)), SA_USER,
               "a legacy token whose Secret holds it authenticates the account");
    tap_is_str(needs, "secrets/team/robot-token,serviceaccounts/team/robot",
               "after reading the Secret and the account");
    tap_is_str(outcome(a, tok, no_secret, NULL, 0), "401", "legacy: the Secret gone");
    tap_is_str(outcome(a, tok, mismatch, NULL, 0), "401", "legacy: the Secret holds another");
    tap_is_str(outcome(a, tok, deleted, NULL, 0), "401", "legacy: the Secret being deleted");
    tap_is_str(outcome(a, tok, invalid, NULL, 0), "401", "legacy: the Secret marked invalid");
    tap_is_str(outcome(a, tok, replaced, NULL, 0), "401", "legacy: the account recreated");
    char *bad_sub = legacy_token(sign_key, "system:serviceaccount:team:admin");
    tap_is_str(outcome(a, bad_sub, ok, NULL, 0), "401", "legacy: sub naming someone else");
    char *forged = legacy_token(stranger_key, "system:serviceaccount:team:robot");
    tap_is_str(outcome(a, forged, ok, NULL, 0), "401", "legacy: signed by an unknown key");
    free(forged);
    free(bad_sub);
    free(tok);
    free(sa);
    free(sa_other);
    free(good);
    free(other);
    free(deleting);
    free(marked);
}

static void
test_legacy_no_lookup(const authn_t *a)
{
    char *tok = legacy_token(sign_key, "system:serviceaccount:team:robot");
    char needs[256];
    char *none[] = {NULL};

    tap_is_str(outcome(a, tok, none, needs, sizeof(needs)), SA_USER,
               "--service-account-lookup=false: a legacy token needs no lookup");
    tap_is_str(needs, "", "... nothing asked");
    free(tok);
}

static void
test_config(void)
{
    authn_t *a = NULL;
    const char *missing[] = {"/nonexistent/sa.pub", NULL};
    const char *issuers[] = {ISSUER, NULL};
    authn_config_t cfg = {.sa_key_files = missing, .sa_issuers = issuers};
    tap_is_int(authn_new(&cfg, &a, err, sizeof(err)), GW_EINVAL, "missing key file: error");
    tap_ok(strstr(err, "service-account-key-file") != NULL, "naming the flag (%s)", err);
    char *junk = temp_file("not a key\n");
    const char *junk_files[] = {junk, NULL};
    cfg.sa_key_files = junk_files;
    tap_is_int(authn_new(&cfg, &a, err, sizeof(err)), GW_EINVAL, "key file without keys: error");
    cfg.sa_key_files = NULL;
    cfg.sa_signing_key_file = junk;
    tap_is_int(authn_new(&cfg, &a, err, sizeof(err)), GW_EINVAL, "bad signing key: error");
    unlink(junk);
    free(junk);
    /* No issuer: tokens are someone else's, nothing issued. */
    authn_config_t none = {.anonymous = false};
    tap_is_int(authn_new(&none, &a, err, sizeof(err)), 0, "no issuer: fine");
    tap_ok(!authn_sa_can_issue(a) && authn_sa_jwks(a) == NULL, "nothing issued or served");
    authn_free(a);
}

/* With kube's cache: a token accepted after its lookup is accepted again without one; a token
 * refused after its lookup is looked up again. */
static void
test_cached(void)
{
    cache_ttl_ms = 0; /* kube-apiserver's 10 s */
    authn_t *a = make_authn(false, NULL, true);
    cache_ttl_ms = -1;
    char *tok = issue(a, NULL, NULL, NULL), *other = issue(a, NULL, NULL, NULL);
    char *sa = object(SA_UID, -1), *wrong = object("another-uid", -1);
    char *objs[] = {sa, NULL}, *none[] = {NULL, NULL}, *wrongs[] = {wrong, NULL};
    char needs[256];

    tap_is_str(outcome(a, tok, objs, needs, sizeof(needs)), SA_USER "|credential-id=JTI",
               "cached: a token accepted after its lookup");
    tap_is_str(needs, "serviceaccounts/team/robot", "... of the account");
    tap_is_str(outcome(a, tok, none, needs, sizeof(needs)), SA_USER "|credential-id=JTI",
               "... is accepted again while the account is gone, as kube's cache does");
    tap_is_str(needs, "", "... without a lookup");
    tap_is_str(outcome(a, other, wrongs, needs, sizeof(needs)), "401",
               "another token of the account, refused: the account has another uid");
    tap_is_str(outcome(a, other, objs, needs, sizeof(needs)), SA_USER "|credential-id=JTI",
               "... is not remembered refused: checked again, it is accepted");
    tap_is_str(needs, "serviceaccounts/team/robot", "... after a new lookup");
    free(tok);
    free(other);
    free(sa);
    free(wrong);
    authn_free(a);
}

/* The user of `token`, answered from the cache or after a lookup that `objects` answer
 * (NULL: refused). Caller frees. */
static authn_user_t *
user_of(const authn_t *a, const char *token, char *const *objects, bool *looked_up)
{
    char *header = NULL;
    if (asprintf(&header, "Bearer %s", token) < 0)
        abort();
    authn_request_t req = {.authorization = header};
    authn_user_t *u = NULL;
    authn_pending_t *p = NULL, *again = NULL;
    authn_result_t r = authn_authenticate(a, &req, &u, &p, why, sizeof(why));
    free(header);
    *looked_up = r == AUTHN_PENDING;
    if (r == AUTHN_PENDING) {
        authn_answer_t ans[2] = {{.object = objects[0], .object_len = strlen(objects[0])}};
        r = authn_pending_finish(a, p, ans, &u, &again, why, sizeof(why));
        authn_pending_free(again);
    }
    return r == AUTHN_OK ? u : NULL;
}

/* The cache shares one user between the requests of a token: a request that still holds it
 * extends nothing, and the account's deletion counts from the entry's TTL on, as before. */
static void
test_cached_shared(void)
{
    cache_ttl_ms = 200;
    authn_t *a = make_authn(false, NULL, true);
    cache_ttl_ms = -1;
    char *tok = issue(a, NULL, NULL, NULL);
    char *sa = object(SA_UID, -1), *gone = object("another-uid", -1); /* recreated */
    char *objs[] = {sa, NULL}, *gones[] = {gone, NULL};
    bool looked_up = false;

    authn_user_t *first = user_of(a, tok, objs, &looked_up);
    tap_ok(first != NULL && looked_up, "shared: a token accepted after its lookup");
    authn_user_t *second = user_of(a, tok, gones, &looked_up);
    tap_ok(second == first && !looked_up,
           "... the next request gets the same user from the cache, without a lookup");
    authn_user_free(second);
    struct timespec ts = {0, 250 * 1000000L};
    nanosleep(&ts, NULL);
    tap_ok(user_of(a, tok, gones, &looked_up) == NULL && looked_up,
           "past the TTL, while a request still holds the user: looked up again and refused");
    tap_is_str(first->name, "system:serviceaccount:team:robot", "... the holder's user intact");
    tap_is_int((int)first->n_groups, 3, "... groups and all");
    authn_user_free(first);
    free(tok);
    free(sa);
    free(gone);
    authn_free(a);
}

int
main(void)
{
    sign_key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    other_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    stranger_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    authn_t *a = make_authn(true, NULL, true);
    tap_ok(a != NULL && authn_sa_can_issue(a), "configured");
    const char *const *auds = NULL;
    tap_is_int((int)authn_sa_api_audiences(a, &auds), 2, "API audiences default to the issuers");
    test_issued(a);
    test_pod_bound(a);
    test_refused(a);
    test_documents(a);
    test_legacy(a);
    authn_free(a);
    a = make_authn(false, NULL, false);
    test_legacy_no_lookup(a);
    authn_free(a);
    test_cached();
    test_cached_shared();
    test_config();
    EVP_PKEY_free(sign_key);
    EVP_PKEY_free(other_key);
    EVP_PKEY_free(stranger_key);
    return tap_done();
}
