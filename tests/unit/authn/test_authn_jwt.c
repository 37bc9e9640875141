/* JWT primitives: base64url, compact JWS parsing with hostile inputs, every algorithm signed
 * and verified, algorithm confusion, keys from PEM and JWK, kube's key id. */
#include "authn_jwt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include "gw_err.h"
#include "bio_text.h"
#include "tap.h"

/* tap_is_int with a formatted name. */
#define is_int_f(got, want, ...) tap_ok((long long)(got) == (long long)(want), __VA_ARGS__)

static EVP_PKEY *rsa_key, *p256_key, *p384_key, *p521_key;

static void
test_b64url(void)
{
    static const struct {
        const char *raw, *enc;
    } vec[] = {{"", ""},        {"f", "Zg"},        {"fo", "Zm8"},
               {"foo", "Zm9v"}, {"foob", "Zm9vYg"}, {"\xfb\xff", "-_8"}};
    for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
        char *e = authn_b64url_encode(vec[i].raw, strlen(vec[i].raw));
        tap_is_str(e, vec[i].enc, "base64url encode");
        unsigned char *d = NULL;
        size_t n = 0;
        tap_is_int(authn_b64url_decode(e, strlen(e), &d, &n), 0, "base64url decode");
        tap_ok(n == strlen(vec[i].raw) && memcmp(d, vec[i].raw, n) == 0, "round trip '%s'", e);
        free(d);
        free(e);
    }
    static const char *const bad[] = {"Zg==", "Zm9v+", "Zm/v", "Z", "Zm9vY", "Zm 9", "Zm9\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unsigned char *d = NULL;
        size_t n = 0;
        tap_is_int(authn_b64url_decode(bad[i], strlen(bad[i]), &d, &n), GW_EINVAL,
                   "base64url refuses padding, standard alphabet, bad length, whitespace");
    }
}

static EVP_PKEY *
key_for(const char *alg)
{
    if (alg[0] != 'E')
        return rsa_key;
    return strcmp(alg, "ES256") == 0 ? p256_key : strcmp(alg, "ES384") == 0 ? p384_key : p521_key;
}

/* Sign, parse and verify with every algorithm; a flipped bit anywhere fails. */
static void
test_algorithms(void)
{
    static const char *const algs[] = {"RS256", "RS384", "RS512", "PS256", "PS384",
                                       "PS512", "ES256", "ES384", "ES512"};
    json_t *claims = json_pack("{ss si}", "sub", "someone", "exp", 2000000000);
    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
        EVP_PKEY *key = key_for(algs[i]);
        char *tok = authn_jwt_sign(claims, algs[i], "k1", key);
        authn_jwt_t *j = NULL;
        tap_ok(tok != NULL, "%s signs", algs[i]);
        is_int_f(authn_jwt_parse(tok, &j, NULL), 0, "%s parses", algs[i]);
        tap_is_str(j->alg, algs[i], "alg read");
        tap_is_str(j->kid, "k1", "kid read");
        tap_is_str(json_string_value(json_object_get(j->claims, "sub")), "someone", "claims");
        is_int_f(authn_jwt_verify(j, key), 0, "%s verifies", algs[i]);
        EVP_PKEY *other = key == rsa_key ? p256_key : rsa_key;
        is_int_f(authn_jwt_verify(j, other), GW_EINVAL, "%s refuses another key type", algs[i]);
        j->sig[j->sig_len / 2] ^= 1;
        is_int_f(authn_jwt_verify(j, key), GW_EINVAL, "%s refuses a changed signature", algs[i]);
        authn_jwt_free(j);
        free(tok);
    }
    /* An EC signature checked against a key on another curve, a token claiming ES384 for a
     * P-256 key, and signing with a mismatched algorithm. */
    char *tok = authn_jwt_sign(claims, "ES256", NULL, p256_key);
    authn_jwt_t *j = NULL;
    authn_jwt_parse(tok, &j, NULL);
    tap_ok(j->kid == NULL, "no kid when none is given");
    tap_is_int(authn_jwt_verify(j, p384_key), GW_EINVAL, "ES256 token refused with a P-384 key");
    authn_jwt_free(j);
    free(tok);
    tap_ok(authn_jwt_sign(claims, "ES384", NULL, p256_key) == NULL, "ES384 with P-256 not signed");
    tap_ok(authn_jwt_sign(claims, "HS256", NULL, rsa_key) == NULL, "HS256 not signed");
    json_decref(claims);
}

/* A token from raw header and payload JSON and a signature text. */
static char *
raw_token(const char *header, const char *payload, const char *sig)
{
    char *h = authn_b64url_encode(header, strlen(header));
    char *p = authn_b64url_encode(payload, strlen(payload));
    char *t = NULL;
    if (asprintf(&t, "%s.%s.%s", h, p, sig) < 0)
        abort();
    free(h);
    free(p);
    return t;
}

static void
test_hostile(void)
{
    static const struct {
        const char *header, *payload, *sig, *name;
    } cases[] = {
        {"{\"alg\":\"none\"}", "{}", "AAAA", "alg none"},
        {"{\"alg\":\"HS256\"}", "{}", "AAAA", "alg HS256"},
        {"{\"alg\":\"rs256\"}", "{}", "AAAA", "alg in the wrong case"},
        {"{}", "{}", "AAAA", "no alg"},
        {"{\"alg\":256}", "{}", "AAAA", "alg not a string"},
        {"[\"RS256\"]", "{}", "AAAA", "header an array"},
        {"{\"alg\":\"RS256\"", "{}", "AAAA", "header truncated JSON"},
        {"{\"alg\":\"RS256\",\"alg\":\"none\"}", "{}", "AAAA", "duplicate alg"},
        {"{\"alg\":\"RS256\",\"kid\":7}", "{}", "AAAA", "kid not a string"},
        {"{\"alg\":\"RS256\",\"crit\":[\"b64\"]}", "{}", "AAAA", "critical extension"},
        {"{\"alg\":\"RS256\"}", "\"sub\"", "AAAA", "payload a string"},
        {"{\"alg\":\"RS256\"}", "{\"a\":", "AAAA", "payload truncated"},
        {"{\"alg\":\"RS256\"}", "{}", "", "empty signature"},
        {"{\"alg\":\"RS256\"}", "{}", "AA=A", "signature padded"},
        {"{\"alg\":\"RS256\"}", "{}", "AAAA.AAAA", "four parts"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *t = raw_token(cases[i].header, cases[i].payload, cases[i].sig);
        authn_jwt_t *j = (authn_jwt_t *)1;
        const char *why = NULL;
        is_int_f(authn_jwt_parse(t, &j, &why), GW_EINVAL, "refused: %s", cases[i].name);
        tap_ok(j == NULL && why != NULL, "no token and a reason (%s)", why ? why : "-");
        free(t);
    }
    static const char *const shapes[] = {"",    ".",        "..",          "a.b",
                                         "abc", "e30.e30.", "!!.e30.AAAA", "e30.e30.AAAA"};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        authn_jwt_t *j = NULL;
        is_int_f(authn_jwt_parse(shapes[i], &j, NULL), GW_EINVAL, "refused '%s'", shapes[i]);
    }
    /* A payload swapped under a valid signature. */
    json_t *claims = json_pack("{ss}", "sub", "alice");
    char *tok = authn_jwt_sign(claims, "RS256", NULL, rsa_key);
    char *evil = authn_b64url_encode("{\"sub\":\"admin\"}", 15);
    char *dot1 = strchr(tok, '.'), *dot2 = strchr(dot1 + 1, '.');
    char *swapped = NULL;
    if (asprintf(&swapped, "%.*s.%s%s", (int)(dot1 - tok), tok, evil, dot2) < 0)
        abort();
    authn_jwt_t *j = NULL;
    tap_is_int(authn_jwt_parse(swapped, &j, NULL), 0, "tampered token parses");
    tap_is_int(authn_jwt_verify(j, rsa_key), GW_EINVAL, "tampered payload refused");
    authn_jwt_free(j);
    free(swapped);
    free(evil);
    free(tok);
    json_decref(claims);
}

/* PEM text of a key (private when `priv`). Caller frees. */
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

static void
test_pem(void)
{
    char *a = pem_of(rsa_key, false), *b = pem_of(p256_key, true);
    char *both = NULL;
    if (asprintf(&both,
                 "junk\n%s-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n"
                 "-----END EC PARAMETERS-----\n%s",
                 a, b) < 0)
        abort();
    EVP_PKEY **keys = NULL;
    size_t n = 0;
    tap_is_int(authn_jwt_pem_keys(both, strlen(both), &keys, &n), 0, "two keys in one file");
    tap_is_int((int)n, 2, "both read, the parameters skipped");
    tap_ok(n == 2 && EVP_PKEY_eq(keys[0], rsa_key) == 1 && EVP_PKEY_eq(keys[1], p256_key) == 1,
           "in file order");
    authn_jwt_keys_free(keys, n);
    EVP_PKEY *priv = authn_jwt_pem_private_key(both, strlen(both));
    tap_ok(priv != NULL && EVP_PKEY_eq(priv, p256_key) == 1, "the first private key");
    EVP_PKEY_free(priv);
    tap_ok(authn_jwt_pem_private_key(a, strlen(a)) == NULL, "no private key in a public file");
    const char *garbage = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
    tap_is_int(authn_jwt_pem_keys(garbage, strlen(garbage), &keys, &n), GW_EINVAL,
               "a broken key block is an error");
    tap_is_int(authn_jwt_pem_keys("hello", 5, &keys, &n), GW_EINVAL, "no key is an error");
    free(both);
    free(a);
    free(b);
}

/* kube's key id computed independently: standard base64 of SHA-256 of the DER SPKI, made
 * URL-safe and unpadded. */
static void
test_key_id(void)
{
    unsigned char *der = NULL, digest[32], b64[64];
    int len = i2d_PUBKEY(rsa_key, &der);
    EVP_Digest(der, (size_t)len, digest, NULL, EVP_sha256(), NULL);
    OPENSSL_free(der);
    EVP_EncodeBlock(b64, digest, 32);
    for (unsigned char *c = b64; *c; c++)
        *c = *c == '+' ? '-' : *c == '/' ? '_' : *c == '=' ? '\0' : *c;
    char *kid = authn_jwt_key_id(rsa_key);
    tap_is_str(kid, (const char *)b64, "key id is base64url(SHA-256(SPKI))");
    tap_is_int((int)strlen(kid), 43, "43 characters");
    free(kid);
    tap_is_str(authn_jwt_key_alg(rsa_key), "RS256", "RSA signs RS256");
    tap_is_str(authn_jwt_key_alg(p384_key), "ES384", "P-384 signs ES384");
}

static void
test_jwk(void)
{
    EVP_PKEY *keys[] = {rsa_key, p256_key, p384_key, p521_key};
    for (size_t i = 0; i < 4; i++) {
        json_t *jwk = authn_jwk_from_key(keys[i]);
        EVP_PKEY *back = authn_jwk_to_key(jwk);
        tap_ok(back != NULL && EVP_PKEY_eq(back, keys[i]) == 1, "JWK round trip %s",
               json_string_value(json_object_get(jwk, "alg")));
        EVP_PKEY_free(back);
        json_decref(jwk);
    }
    json_t *jwk = authn_jwk_from_key(p256_key);
    tap_is_str(json_string_value(json_object_get(jwk, "use")), "sig", "use sig");
    tap_is_str(json_string_value(json_object_get(jwk, "crv")), "P-256", "crv");
    tap_is_int((int)strlen(json_string_value(json_object_get(jwk, "x"))), 43, "x is 32 bytes");
    json_t *off = json_deep_copy(jwk);
    const char *y = json_string_value(json_object_get(jwk, "y"));
    char *y2 = strdup(y);
    y2[5] = y2[5] == 'A' ? 'B' : 'A';
    json_object_set_new(off, "y", json_string(y2));
    tap_ok(authn_jwk_to_key(off) == NULL, "a point off the curve is refused");
    json_object_set_new(off, "y", json_string("AQAB"));
    tap_ok(authn_jwk_to_key(off) == NULL, "a short coordinate is refused");
    json_object_set_new(off, "crv", json_string("P-192"));
    tap_ok(authn_jwk_to_key(off) == NULL, "an unknown curve is refused");
    json_t *oct = json_pack("{ss ss}", "kty", "oct", "k", "AAAA");
    tap_ok(authn_jwk_to_key(oct) == NULL, "a symmetric key is refused");
    json_t *rsa = json_pack("{ss ss ss}", "kty", "RSA", "n", "!!", "e", "AQAB");
    tap_ok(authn_jwk_to_key(rsa) == NULL, "a broken modulus is refused");
    json_decref(rsa);
    json_decref(oct);
    json_decref(off);
    json_decref(jwk);
    free(y2);
}

static void
test_times(void)
{
    json_t *c =
        json_loads("{\"exp\":1700000000,\"nbf\":1.7e9,\"iat\":\"x\",\"big\":1e300}", 0, NULL);
    long long v = 0;
    tap_is_int(authn_jwt_time_claim(c, "exp", &v), 1, "integer time");
    tap_ok(v == 1700000000LL, "its value");
    tap_is_int(authn_jwt_time_claim(c, "nbf", &v), 1, "real time");
    tap_ok(v == 1700000000LL, "truncated");
    tap_is_int(authn_jwt_time_claim(c, "iat", &v), GW_EINVAL, "a string is no time");
    tap_is_int(authn_jwt_time_claim(c, "none", &v), 0, "absent");
    tap_is_int(authn_jwt_time_claim(c, "big", &v), 1, "huge time clamped");
    json_decref(c);
}

int
main(void)
{
    rsa_key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    p256_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    p384_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
    p521_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-521");
    test_b64url();
    test_algorithms();
    test_hostile();
    test_pem();
    test_key_id();
    test_jwk();
    test_times();
    EVP_PKEY_free(rsa_key);
    EVP_PKEY_free(p256_key);
    EVP_PKEY_free(p384_key);
    EVP_PKEY_free(p521_key);
    return tap_done();
}
