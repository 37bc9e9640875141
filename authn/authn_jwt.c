/* JSON Web Tokens: base64url, compact JWS, signatures with OpenSSL, keys from PEM and JWK. */
#include "authn_jwt.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_json.h"

/* ---- base64url ----------------------------------------------------------------------------- */

static const char B64URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *
authn_b64url_encode(const void *data, size_t len)
{
    const unsigned char *p = data;
    char *out = gw_malloc(len / 3 * 4 + 5);
    size_t o = 0, i = 0;

    for (; i + 2 < len; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        out[o++] = B64URL[v >> 18 & 63];
        out[o++] = B64URL[v >> 12 & 63];
        out[o++] = B64URL[v >> 6 & 63];
        out[o++] = B64URL[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0);
        out[o++] = B64URL[v >> 18 & 63];
        out[o++] = B64URL[v >> 12 & 63];
        if (i + 1 < len)
            out[o++] = B64URL[v >> 6 & 63];
    }
    out[o] = '\0';
    return out;
}

static int
b64url_value(char c)
{
    const char *at = c != '\0' ? strchr(B64URL, c) : NULL;
    return at != NULL ? (int)(at - B64URL) : -1;
}

int
authn_b64url_decode(const char *text, size_t len, unsigned char **out, size_t *out_len)
{
    /* As Go's RawURLEncoding: no padding, a lone trailing character is malformed. */
    if (len % 4 == 1)
        return GW_EINVAL;
    unsigned char *buf = gw_malloc(len / 4 * 3 + 3);
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64url_value(text[i]);
        if (v < 0) {
            free(buf);
            return GW_EINVAL;
        }
        acc = (acc << 6 | (unsigned)v) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (unsigned char)(acc >> bits);
        }
    }
    buf[o] = '\0';
    *out = buf;
    *out_len = o;
    return 0;
}

/* ---- algorithms ---------------------------------------------------------------------------- */

typedef enum { FAMILY_RS, FAMILY_PS, FAMILY_ES } family_t;

typedef struct {
    const char *name;
    family_t family;
    const char *digest;
    const char *curve; /* ES: the OpenSSL group name */
    size_t coord;      /* ES: bytes of one coordinate */
} alg_t;

static const alg_t ALGS[] = {
    {"RS256", FAMILY_RS, "SHA256", NULL, 0},
    {"RS384", FAMILY_RS, "SHA384", NULL, 0},
    {"RS512", FAMILY_RS, "SHA512", NULL, 0},
    {"PS256", FAMILY_PS, "SHA256", NULL, 0},
    {"PS384", FAMILY_PS, "SHA384", NULL, 0},
    {"PS512", FAMILY_PS, "SHA512", NULL, 0},
    {"ES256", FAMILY_ES, "SHA256", "prime256v1", 32},
    {"ES384", FAMILY_ES, "SHA384", "secp384r1", 48},
    {"ES512", FAMILY_ES, "SHA512", "secp521r1", 66},
};

static const alg_t *
find_alg(const char *name)
{
    for (size_t i = 0; name != NULL && i < sizeof(ALGS) / sizeof(ALGS[0]); i++) {
        if (strcmp(ALGS[i].name, name) == 0)
            return &ALGS[i];
    }
    return NULL;
}

bool
authn_jwt_alg_supported(const char *alg)
{
    return find_alg(alg) != NULL;
}

/* The key's curve (OpenSSL group name) into buf, or "" when it is not an EC key. */
static const char *
key_curve(EVP_PKEY *key, char *buf, size_t len)
{
    buf[0] = '\0';
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC ||
        !EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, buf, len, NULL))
        buf[0] = '\0';
    return buf;
}

/* Whether alg may be used with key: no algorithm confusion between key types or curves. */
static bool
alg_suits(const alg_t *alg, EVP_PKEY *key)
{
    char curve[64];

    if (alg->family == FAMILY_ES)
        return strcmp(key_curve(key, curve, sizeof(curve)), alg->curve) == 0;
    return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA;
}

const char *
authn_jwt_key_alg(EVP_PKEY *key)
{
    char curve[64];

    if (EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA)
        return "RS256";
    key_curve(key, curve, sizeof(curve));
    for (size_t i = 0; i < sizeof(ALGS) / sizeof(ALGS[0]); i++) {
        if (ALGS[i].curve != NULL && strcmp(ALGS[i].curve, curve) == 0)
            return ALGS[i].name;
    }
    return NULL;
}

/* ---- parsing ------------------------------------------------------------------------------- */

void
authn_jwt_free(authn_jwt_t *j)
{
    if (j == NULL)
        return;
    json_decref(j->header);
    json_decref(j->claims);
    free(j->signing_input);
    free(j->sig);
    free(j);
}

/* One base64url part holding a JSON object, or NULL. */
static json_t *
json_part(const char *text, size_t len)
{
    unsigned char *raw = NULL;
    size_t raw_len = 0;
    if (authn_b64url_decode(text, len, &raw, &raw_len) != 0)
        return NULL;
    json_t *v = gw_json_loadb((const char *)raw, raw_len, JSON_REJECT_DUPLICATES, NULL);
    free(raw);
    if (v != NULL && !json_is_object(v)) {
        json_decref(v);
        v = NULL;
    }
    return v;
}

/* The header's checks: a supported alg, a string kid if any, no critical extensions. */
static const char *
check_header(authn_jwt_t *j)
{
    json_t *kid = json_object_get(j->header, "kid");

    j->alg = json_string_value(json_object_get(j->header, "alg"));
    if (j->alg == NULL)
        return "the token header has no alg";
    if (!authn_jwt_alg_supported(j->alg))
        return "the token's signing algorithm is not supported";
    if (kid != NULL && !json_is_string(kid))
        return "the token header's kid is not a string";
    j->kid = json_string_value(kid);
    if (json_object_get(j->header, "crit") != NULL)
        return "the token header has critical extensions";
    return NULL;
}

/* Split the compact form and decode its parts into j; a reason on failure. */
static const char *
parse_parts(const char *token, authn_jwt_t *j)
{
    const char *dot1 = strchr(token, '.');
    const char *dot2 = dot1 != NULL ? strchr(dot1 + 1, '.') : NULL;

    if (dot2 == NULL || strchr(dot2 + 1, '.') != NULL)
        return "the token is not a compact JWS (three parts)";
    j->header = json_part(token, (size_t)(dot1 - token));
    if (j->header == NULL)
        return "the token header is not a base64url JSON object";
    const char *reason = check_header(j);
    if (reason != NULL)
        return reason;
    j->claims = json_part(dot1 + 1, (size_t)(dot2 - dot1 - 1));
    if (j->claims == NULL)
        return "the token payload is not a base64url JSON object";
    if (authn_b64url_decode(dot2 + 1, strlen(dot2 + 1), &j->sig, &j->sig_len) != 0 ||
        j->sig_len == 0)
        return "the token signature is not base64url";
    j->signing_input_len = (size_t)(dot2 - token);
    j->signing_input = gw_strndup(token, j->signing_input_len);
    return NULL;
}

int
authn_jwt_parse(const char *token, authn_jwt_t **out, const char **why)
{
    authn_jwt_t *j = gw_calloc(1, sizeof(*j));
    const char *reason = parse_parts(token, j);

    *out = NULL;
    if (reason != NULL) {
        if (why != NULL)
            *why = reason;
        authn_jwt_free(j);
        return GW_EINVAL;
    }
    *out = j;
    return 0;
}

int
authn_jwt_time_claim(const json_t *claims, const char *name, long long *out)
{
    const json_t *v = json_object_get(claims, name);

    if (v == NULL)
        return 0;
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 1;
    }
    if (!json_is_real(v))
        return GW_EINVAL;
    double d = json_real_value(v);
    /* Far outside any real time: clamp rather than overflow the conversion. */
    *out = d > 4e18 ? 4000000000000000000LL : d < -4e18 ? -4000000000000000000LL : (long long)d;
    return 1;
}

/* ---- signatures ---------------------------------------------------------------------------- */

/* A digest-sign or digest-verify context for alg with key, PSS set up as go-jose does. */
static EVP_MD_CTX *
digest_ctx(const alg_t *alg, EVP_PKEY *key, bool sign)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok = sign ? EVP_DigestSignInit_ex(md, &pctx, alg->digest, NULL, NULL, key, NULL)
                  : EVP_DigestVerifyInit_ex(md, &pctx, alg->digest, NULL, NULL, key, NULL);

    if (ok == 1 && alg->family == FAMILY_PS) {
        ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, sign ? RSA_PSS_SALTLEN_DIGEST
                                                         : RSA_PSS_SALTLEN_AUTO) == 1;
    } else if (alg->family == FAMILY_RS && ok == 1) {
        ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1;
    }
    if (ok != 1) {
        EVP_MD_CTX_free(md);
        return NULL;
    }
    return md;
}

/* A JWS ECDSA signature (R || S, each `coord` bytes) as DER, or NULL. Caller frees. */
static unsigned char *
ecdsa_to_der(const unsigned char *sig, size_t len, size_t coord, size_t *der_len)
{
    if (len != 2 * coord)
        return NULL;
    ECDSA_SIG *s = ECDSA_SIG_new();
    ECDSA_SIG_set0(s, BN_bin2bn(sig, (int)coord, NULL), BN_bin2bn(sig + coord, (int)coord, NULL));
    unsigned char *der = NULL;
    int n = i2d_ECDSA_SIG(s, &der);
    ECDSA_SIG_free(s);
    if (n <= 0)
        return NULL;
    *der_len = (size_t)n;
    return der;
}

int
authn_jwt_verify(const authn_jwt_t *j, EVP_PKEY *key)
{
    const alg_t *alg = find_alg(j->alg);
    const unsigned char *sig = j->sig;
    unsigned char *der = NULL;
    size_t sig_len = j->sig_len;
    int rc = GW_EINVAL;

    if (alg == NULL || !alg_suits(alg, key))
        return GW_EINVAL;
    if (alg->family == FAMILY_ES) {
        der = ecdsa_to_der(j->sig, j->sig_len, alg->coord, &sig_len);
        if (der == NULL)
            return GW_EINVAL;
        sig = der;
    }
    EVP_MD_CTX *md = digest_ctx(alg, key, false);
    if (md != NULL && EVP_DigestVerify(md, sig, sig_len, (const unsigned char *)j->signing_input,
                                       j->signing_input_len) == 1)
        rc = 0;
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    return rc;
}

/* A DER ECDSA signature as JWS's R || S (each `coord` bytes) into out; false if it does not
 * fit. */
static bool
der_to_ecdsa(const unsigned char *der, size_t len, size_t coord, unsigned char *out)
{
    ECDSA_SIG *s = d2i_ECDSA_SIG(NULL, &der, (long)len);
    bool ok = s != NULL && BN_bn2binpad(ECDSA_SIG_get0_r(s), out, (int)coord) == (int)coord &&
              BN_bn2binpad(ECDSA_SIG_get0_s(s), out + coord, (int)coord) == (int)coord;

    ECDSA_SIG_free(s);
    return ok;
}

/* The signature of input as its base64url, or NULL. */
static char *
sign_input(const alg_t *alg, EVP_PKEY *key, const char *input)
{
    EVP_MD_CTX *md = digest_ctx(alg, key, true);
    size_t len = 0;
    unsigned char *sig = NULL;
    char *out = NULL;

    if (md == NULL ||
        EVP_DigestSign(md, NULL, &len, (const unsigned char *)input, strlen(input)) != 1)
        goto out;
    sig = gw_malloc(len);
    if (EVP_DigestSign(md, sig, &len, (const unsigned char *)input, strlen(input)) != 1)
        goto out;
    if (alg->family == FAMILY_ES) {
        unsigned char rs[132];
        if (der_to_ecdsa(sig, len, alg->coord, rs))
            out = authn_b64url_encode(rs, 2 * alg->coord);
    } else {
        out = authn_b64url_encode(sig, len);
    }
out:
    free(sig);
    EVP_MD_CTX_free(md);
    return out;
}

/* The base64url of v's compact JSON. */
static char *
json_b64(const json_t *v)
{
    char *text = gw_json_dumps(v, JSON_COMPACT);
    char *out = authn_b64url_encode(text, strlen(text));
    free(text);
    return out;
}

char *
authn_jwt_sign(const json_t *claims, const char *alg, const char *kid, EVP_PKEY *key)
{
    const alg_t *a = find_alg(alg);
    if (a == NULL || !alg_suits(a, key))
        return NULL;
    json_t *header = json_pack("{ss}", "alg", alg);
    if (kid != NULL)
        json_object_set_new(header, "kid", json_string(kid));
    char *h = json_b64(header), *p = json_b64(claims);
    char *input = gw_sprintf("%s.%s", h, p);
    char *sig = sign_input(a, key, input);
    char *token = sig != NULL ? gw_sprintf("%s.%s", input, sig) : NULL;
    json_decref(header);
    free(h);
    free(p);
    free(input);
    free(sig);
    return token;
}

char *
authn_jwt_key_id(EVP_PKEY *key)
{
    unsigned char *der = NULL, digest[32];
    int len = i2d_PUBKEY(key, &der);

    if (len <= 0)
        return NULL;
    EVP_Digest(der, (size_t)len, digest, NULL, EVP_sha256(), NULL);
    OPENSSL_free(der);
    return authn_b64url_encode(digest, sizeof(digest));
}

/* ---- keys ---------------------------------------------------------------------------------- */

void
authn_jwt_keys_free(EVP_PKEY **keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        EVP_PKEY_free(keys[i]);
    free(keys);
}

/* The key of one PEM block: public keys, private keys (their public part verifies) and
 * certificates, as kube's keyutil reads a key file; NULL for other blocks. */
static EVP_PKEY *
block_key(const char *name, const unsigned char *der, long len, bool *bad)
{
    EVP_PKEY *k = NULL;

    if (strcmp(name, "PUBLIC KEY") == 0) {
        k = d2i_PUBKEY(NULL, &der, len);
    } else if (strcmp(name, "RSA PUBLIC KEY") == 0) {
        k = d2i_PublicKey(EVP_PKEY_RSA, NULL, &der, len);
    } else if (strcmp(name, "RSA PRIVATE KEY") == 0) {
        k = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &der, len);
    } else if (strcmp(name, "EC PRIVATE KEY") == 0) {
        k = d2i_PrivateKey(EVP_PKEY_EC, NULL, &der, len);
    } else if (strcmp(name, "PRIVATE KEY") == 0) {
        k = d2i_AutoPrivateKey(NULL, &der, len);
    } else if (strcmp(name, "CERTIFICATE") == 0) {
        X509 *cert = d2i_X509(NULL, &der, len);
        k = cert != NULL ? X509_get_pubkey(cert) : NULL;
        X509_free(cert);
    } else {
        return NULL;
    }
    *bad = k == NULL;
    return k;
}

/* Every key of the PEM text, private ones only when `private_only`. */
static int
read_keys(const char *pem, size_t len, bool private_only, EVP_PKEY ***keys, size_t *n)
{
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    char *name = NULL, *header = NULL;
    unsigned char *der = NULL;
    long der_len = 0;
    bool bad = false;

    *keys = NULL;
    *n = 0;
    while (!bad && PEM_read_bio(bio, &name, &header, &der, &der_len) == 1) {
        bool is_private = strstr(name, "PRIVATE KEY") != NULL;
        EVP_PKEY *k = !private_only || is_private ? block_key(name, der, der_len, &bad) : NULL;
        if (k != NULL) {
            *keys = gw_realloc(*keys, (*n + 1) * sizeof(**keys));
            (*keys)[(*n)++] = k;
        }
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(der);
    }
    ERR_clear_error();
    BIO_free(bio);
    if (bad || *n == 0) {
        authn_jwt_keys_free(*keys, *n);
        *keys = NULL;
        *n = 0;
        return GW_EINVAL;
    }
    return 0;
}

int
authn_jwt_pem_keys(const char *pem, size_t len, EVP_PKEY ***keys, size_t *n)
{
    return read_keys(pem, len, false, keys, n);
}

EVP_PKEY *
authn_jwt_pem_private_key(const char *pem, size_t len)
{
    EVP_PKEY **keys = NULL, *k = NULL;
    size_t n = 0;

    if (read_keys(pem, len, true, &keys, &n) != 0)
        return NULL;
    k = keys[0];
    keys[0] = NULL;
    authn_jwt_keys_free(keys, n);
    return k;
}

/* ---- JWK ----------------------------------------------------------------------------------- */

/* A base64url member of a JWK as a big number, or NULL. */
static BIGNUM *
jwk_bn(const json_t *jwk, const char *name, size_t want_len)
{
    const char *text = json_string_value(json_object_get(jwk, name));
    unsigned char *raw = NULL;
    size_t len = 0;
    BIGNUM *bn = NULL;

    if (text == NULL || authn_b64url_decode(text, strlen(text), &raw, &len) != 0)
        return NULL;
    if (len > 0 && len <= 2048 && (want_len == 0 || len == want_len))
        bn = BN_bin2bn(raw, (int)len, NULL);
    free(raw);
    return bn;
}

/* A key from OpenSSL parameters, checked as a valid public key. */
static EVP_PKEY *
key_fromdata(const char *type, OSSL_PARAM_BLD *bld)
{
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    EVP_PKEY *key = NULL;

    if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1 ||
        EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1)
        key = NULL;
    EVP_PKEY_CTX_free(ctx);
    if (key != NULL) {
        ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
        if (EVP_PKEY_public_check(ctx) != 1) {
            EVP_PKEY_free(key);
            key = NULL;
        }
        EVP_PKEY_CTX_free(ctx);
    }
    OSSL_PARAM_free(params);
    ERR_clear_error();
    return key;
}

static EVP_PKEY *
rsa_jwk(const json_t *jwk)
{
    BIGNUM *n = jwk_bn(jwk, "n", 0), *e = jwk_bn(jwk, "e", 0);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    EVP_PKEY *key = NULL;

    if (n != NULL && e != NULL && BN_num_bits(e) <= 32 && !BN_is_zero(e) &&
        OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) == 1 &&
        OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) == 1)
        key = key_fromdata("RSA", bld);
    OSSL_PARAM_BLD_free(bld);
    BN_free(n);
    BN_free(e);
    return key;
}

/* The ES algorithm of a JWK curve name ("P-256"...), or NULL. */
static const alg_t *
jwk_curve(const char *crv)
{
    static const char *const names[] = {"P-256", "P-384", "P-521"};

    for (size_t i = 0; crv != NULL && i < 3; i++) {
        if (strcmp(names[i], crv) == 0)
            return &ALGS[6 + i];
    }
    return NULL;
}

static EVP_PKEY *
ec_jwk(const json_t *jwk)
{
    const alg_t *alg = jwk_curve(json_string_value(json_object_get(jwk, "crv")));
    if (alg == NULL)
        return NULL;
    BIGNUM *x = jwk_bn(jwk, "x", alg->coord), *y = jwk_bn(jwk, "y", alg->coord);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    unsigned char point[1 + 2 * 66];
    EVP_PKEY *key = NULL;

    point[0] = 4; /* uncompressed */
    if (x != NULL && y != NULL && BN_bn2binpad(x, point + 1, (int)alg->coord) > 0 &&
        BN_bn2binpad(y, point + 1 + alg->coord, (int)alg->coord) > 0 &&
        OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, alg->curve, 0) == 1 &&
        OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, 1 + 2 * alg->coord) ==
            1)
        key = key_fromdata("EC", bld);
    OSSL_PARAM_BLD_free(bld);
    BN_free(x);
    BN_free(y);
    return key;
}

EVP_PKEY *
authn_jwk_to_key(const json_t *jwk)
{
    const char *kty = json_string_value(json_object_get(jwk, "kty"));

    if (kty != NULL && strcmp(kty, "RSA") == 0)
        return rsa_jwk(jwk);
    if (kty != NULL && strcmp(kty, "EC") == 0)
        return ec_jwk(jwk);
    return NULL;
}

/* A big-number parameter of key as base64url, `pad` bytes wide (0: minimal), or NULL. */
static json_t *
param_b64(EVP_PKEY *key, const char *param, size_t pad)
{
    BIGNUM *bn = NULL;
    json_t *out = NULL;

    if (EVP_PKEY_get_bn_param(key, param, &bn) != 1)
        return NULL;
    size_t len = pad ? pad : (size_t)BN_num_bytes(bn);
    unsigned char *raw = gw_malloc(len + 1);
    if (BN_bn2binpad(bn, raw, (int)len) == (int)len) {
        char *text = authn_b64url_encode(raw, len);
        out = json_string(text);
        free(text);
    }
    free(raw);
    BN_free(bn);
    return out;
}

json_t *
authn_jwk_from_key(EVP_PKEY *key)
{
    const char *algname = authn_jwt_key_alg(key);
    const alg_t *alg = find_alg(algname);
    bool rsa = EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA;
    char *kid = authn_jwt_key_id(key);

    if (alg == NULL || kid == NULL) {
        free(kid);
        return NULL;
    }
    json_t *jwk = json_pack("{ss ss ss ss}", "use", "sig", "kty", rsa ? "RSA" : "EC", "kid", kid,
                            "alg", algname);
    free(kid);
    if (rsa) {
        json_object_set_new(jwk, "n", param_b64(key, OSSL_PKEY_PARAM_RSA_N, 0));
        json_object_set_new(jwk, "e", param_b64(key, OSSL_PKEY_PARAM_RSA_E, 0));
    } else {
        static const char *const crv[] = {"P-256", "P-384", "P-521"};
        json_object_set_new(jwk, "crv", json_string(crv[alg - &ALGS[6]]));
        json_object_set_new(jwk, "x", param_b64(key, OSSL_PKEY_PARAM_EC_PUB_X, alg->coord));
        json_object_set_new(jwk, "y", param_b64(key, OSSL_PKEY_PARAM_EC_PUB_Y, alg->coord));
    }
    return jwk;
}
