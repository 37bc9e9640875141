#ifndef AUTHN_AUTHN_JWT_H
#define AUTHN_AUTHN_JWT_H

/*
 * JSON Web Tokens in JWS compact form (RFC 7515/7519), the primitives the service account and
 * OIDC / JWT authenticators share: base64url, parsing, signing and verifying with OpenSSL
 * (RS256/384/512, PS256/384/512, ES256/384/512; never "none", never HMAC), keys from PEM and
 * JWK, and kube's key id. Everything here is pure (no I/O, no globals) and thread-safe.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>
#include <openssl/evp.h>

/** A parsed (not yet verified) token. Free with authn_jwt_free. */
typedef struct {
    json_t *header;      /* the JOSE header, a JSON object */
    json_t *claims;      /* the payload, a JSON object */
    const char *alg;     /* header "alg" (borrowed from header); one of the supported ones */
    const char *kid;     /* header "kid" (borrowed), or NULL */
    char *signing_input; /* "<header>.<payload>" as it came, NUL-terminated */
    size_t signing_input_len;
    unsigned char *sig; /* the decoded signature */
    size_t sig_len;
} authn_jwt_t;

/**
 * Base64url without padding (RFC 7515 section 2) of len bytes. Returns a new NUL-terminated
 * string (caller frees). Thread: any.
 */
char *authn_b64url_encode(const void *data, size_t len);

/**
 * Decode base64url text of `len` characters (no padding, no whitespace; as Go's
 * RawURLEncoding, unused trailing bits are ignored). On success returns 0 with *out new (caller
 * frees; NUL-terminated for convenience, the NUL not counted in *out_len); GW_EINVAL on any
 * other character or length. Thread: any.
 */
int authn_b64url_decode(const char *text, size_t len, unsigned char **out, size_t *out_len);

/**
 * Parse a compact JWS: three base64url parts, a header that is a JSON object with a supported
 * "alg" (string "kid" optional; a "crit" header is refused), a payload that is a JSON object.
 * Returns 0 with *out new (caller frees), or GW_EINVAL with *out NULL (why, may be NULL, gets
 * a static reason for the log). Thread: any.
 */
int authn_jwt_parse(const char *token, authn_jwt_t **out, const char **why);

/** Free a parsed token (NULL is fine). Thread: any. */
void authn_jwt_free(authn_jwt_t *j);

/** True when alg is one of the supported signature algorithms. Thread: any. */
bool authn_jwt_alg_supported(const char *alg);

/**
 * Verify j's signature with key (public or private; borrowed). The algorithm must suit the
 * key (RS and PS: RSA; ES256/384/512: EC on P-256/P-384/P-521), so that no token picks how
 * its key is read.
 * Returns 0 when the signature is good, GW_EINVAL otherwise. Thread: any.
 */
int authn_jwt_verify(const authn_jwt_t *j, EVP_PKEY *key);

/**
 * Sign claims (a JSON object, borrowed) with a private key into a compact JWS whose header is
 * {"alg":alg,"kid":kid} (kid omitted when NULL). Returns a new string (caller frees), or NULL
 * when alg does not suit the key. Thread: any.
 */
char *authn_jwt_sign(const json_t *claims, const char *alg, const char *kid, EVP_PKEY *key);

/**
 * The algorithm kube signs with for a key: RS256 for RSA; ES256, ES384, ES512 for EC on
 * P-256, P-384, P-521; NULL for anything else. The string is static. Thread: any.
 */
const char *authn_jwt_key_alg(EVP_PKEY *key);

/**
 * kube's key id: base64url (no padding) of the SHA-256 of the DER SubjectPublicKeyInfo of
 * key's public part. Returns a new string (caller frees), NULL when it cannot be encoded.
 * Thread: any.
 */
char *authn_jwt_key_id(EVP_PKEY *key);

/**
 * Every key in PEM text (public keys, PKCS#1 / PKCS#8 / SEC1 private keys and certificates'
 * public keys, in file order), as kube's keyutil.ParsePublicKeysPEM reads a key file. On
 * success returns 0 with *keys a new array of *n new keys (free with authn_jwt_keys_free);
 * GW_EINVAL when the text holds no key or a block that is not valid. Thread: any.
 */
int authn_jwt_pem_keys(const char *pem, size_t len, EVP_PKEY ***keys, size_t *n);

/**
 * The first private key in PEM text (PKCS#1, PKCS#8 or SEC1), or NULL. Caller frees with
 * EVP_PKEY_free. Thread: any.
 */
EVP_PKEY *authn_jwt_pem_private_key(const char *pem, size_t len);

/** Free an array from authn_jwt_pem_keys (NULL is fine). Thread: any. */
void authn_jwt_keys_free(EVP_PKEY **keys, size_t n);

/**
 * A public key from a JWK (RFC 7517: kty "RSA" with n and e, or kty "EC" with crv P-256,
 * P-384 or P-521 and x, y of the curve's size, on the curve). Returns a new key (caller frees
 * with EVP_PKEY_free), or NULL when the JWK is not valid. Thread: any.
 */
EVP_PKEY *authn_jwk_to_key(const json_t *jwk);

/**
 * The public JWK of key as kube serves it at /openid/v1/jwks: {"use":"sig","kty",...,"kid",
 * "alg", then n and e, or crv, x and y}. Returns a new JSON object (caller decrefs), or NULL
 * for a key that is neither RSA nor EC on a supported curve. Thread: any.
 */
json_t *authn_jwk_from_key(EVP_PKEY *key);

/**
 * Read a NumericDate claim (a JSON number; fractions are truncated as go-jose does). Returns
 * 1 with *out set when present, 0 when absent, GW_EINVAL when present but not a number.
 * Thread: any.
 */
int authn_jwt_time_claim(const json_t *claims, const char *name, long long *out);

#endif
