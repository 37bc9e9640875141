/* libFuzzer driver for the JWT primitives. The first byte picks what the rest is:
 *   'j' (or anything else): a compact JWS, parsed and, when it parses, verified with fixed
 *       RSA and P-256 keys (which must refuse it: the fuzzer cannot forge) and checked for
 *       what the parser promises (a supported alg, the signing input a prefix of the token);
 *   'b': base64url text, decoded; what decodes must encode back to text that decodes to the
 *       same bytes;
 *   'k': a JWK (JSON), turned into a key; a key that comes out must give a JWK that gives the
 *       same key again.
 * Builds on its own: clang -fsanitize=fuzzer,address,undefined ... tests/fuzz/fuzz_jwt.c */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_buf.c"
#include "gw_json.c"
#include "authn_jwt.c"
#include "gw_alloc.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static EVP_PKEY *rsa_key, *ec_key;

static void
token(const char *text)
{
    authn_jwt_t *j = NULL;
    const char *why = NULL;

    if (authn_jwt_parse(text, &j, &why) != 0) {
        if (j != NULL || why == NULL)
            abort();
        return;
    }
    if (!authn_jwt_alg_supported(j->alg) || !json_is_object(j->claims) ||
        strncmp(text, j->signing_input, j->signing_input_len) != 0 ||
        text[j->signing_input_len] != '.')
        abort();
    if (authn_jwt_verify(j, rsa_key) == 0 || authn_jwt_verify(j, ec_key) == 0)
        abort();
    long long t;
    (void)authn_jwt_time_claim(j->claims, "exp", &t);
    authn_jwt_free(j);
}

static void
base64url(const char *text, size_t len)
{
    unsigned char *raw = NULL, *again = NULL;
    size_t n = 0, m = 0;

    if (authn_b64url_decode(text, len, &raw, &n) != 0)
        return;
    char *enc = authn_b64url_encode(raw, n);
    if (authn_b64url_decode(enc, strlen(enc), &again, &m) != 0 || m != n ||
        memcmp(raw, again, n) != 0)
        abort();
    free(again);
    free(enc);
    free(raw);
}

static void
jwk(const char *text, size_t len)
{
    json_t *v = json_loadb(text, len, 0, NULL);
    EVP_PKEY *k = v != NULL ? authn_jwk_to_key(v) : NULL;

    if (k != NULL) {
        json_t *back = authn_jwk_from_key(k);
        EVP_PKEY *k2 = back != NULL ? authn_jwk_to_key(back) : NULL;
        if (back != NULL && (k2 == NULL || EVP_PKEY_eq(k, k2) != 1))
            abort();
        EVP_PKEY_free(k2);
        json_decref(back);
    }
    EVP_PKEY_free(k);
    json_decref(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (rsa_key == NULL) {
        rsa_key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
        ec_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    }
    if (size == 0)
        return 0;
    char *text = gw_strndup((const char *)data + 1, size - 1);
    size_t len = strlen(text);
    if (data[0] == 'b')
        base64url(text, len);
    else if (data[0] == 'k')
        jwk(text, len);
    else
        token(text);
    free(text);
    return 0;
}
