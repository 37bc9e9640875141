/* The ciphers of the aescbc, aesgcm and secretbox providers, in kube's byte formats and words. */
#include "gw_enc_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sodium.h>

#include "gw_alloc.h"
#include "gw_err.h"

#define AES_BLOCK 16
#define GCM_NONCE 12
#define GCM_TAG 16
#define BOX_NONCE crypto_secretbox_NONCEBYTES
#define BOX_MAC crypto_secretbox_MACBYTES

/* kube's messages (Go's crypto/cipher and kube's aes and secretbox transformers) */
#define SHORT "the stored data was shorter than the required size"

bool
gw_enc__init(void)
{
    return sodium_init() >= 0;
}

static int
fail(char *err, size_t err_len, const char *why)
{
    snprintf(err, err_len, "%s", why);
    return GW_EINTERNAL;
}

static const EVP_CIPHER *
aes_cipher(gw_enc_kind_t kind, size_t key_len)
{
    bool cbc = kind == GW_ENC_AESCBC;

    switch (key_len) {
    case 16:
        return cbc ? EVP_aes_128_cbc() : EVP_aes_128_gcm();
    case 24:
        return cbc ? EVP_aes_192_cbc() : EVP_aes_192_gcm();
    default:
        return cbc ? EVP_aes_256_cbc() : EVP_aes_256_gcm();
    }
}

/* A new buffer of head then room for n more bytes; *body points after head. */
static uint8_t *
with_head(const char *head, size_t hlen, size_t n, uint8_t **body)
{
    uint8_t *b = gw_malloc(hlen + n + 1);

    memcpy(b, head, hlen);
    *body = b + hlen;
    return b;
}

static void
own(gw_value_t *out, uint8_t *buf, size_t len)
{
    *out = (gw_value_t){.data = buf, .len = len, .owned = buf};
}

/* ---- aescbc ---------------------------------------------------------------------------- */

static int
cbc_open(const gw_enc_key_t *k, const uint8_t *in, size_t len, gw_value_t *out, char *err,
         size_t err_len)
{
    EVP_CIPHER_CTX *ctx;
    uint8_t *plain;
    int n = 0, fin = 0;
    size_t pad, size;

    if (len < AES_BLOCK)
        return fail(err, err_len, SHORT);
    if ((len - AES_BLOCK) % AES_BLOCK != 0)
        return fail(err, err_len, "the stored data is not a multiple of the block size");
    if (len == AES_BLOCK)
        return fail(err, err_len, "invalid PKCS7 data (empty or not padded)");
    plain = gw_malloc(len);
    ctx = EVP_CIPHER_CTX_new();
    /* padding checked here, as kube does, to answer with its words */
    if (ctx == NULL ||
        EVP_DecryptInit_ex(ctx, aes_cipher(GW_ENC_AESCBC, k->secret_len), NULL, k->secret, in) !=
            1 ||
        EVP_CIPHER_CTX_set_padding(ctx, 0) != 1 ||
        EVP_DecryptUpdate(ctx, plain, &n, in + AES_BLOCK, (int)(len - AES_BLOCK)) != 1 ||
        EVP_DecryptFinal_ex(ctx, plain + n, &fin) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        free(plain);
        return fail(err, err_len, "AES-CBC decryption failed");
    }
    EVP_CIPHER_CTX_free(ctx);
    size = (size_t)(n + fin);
    pad = plain[size - 1];
    if (pad == 0 || pad > size) {
        free(plain);
        return fail(err, err_len, "invalid PKCS7 data (empty or not padded)");
    }
    for (size_t i = size - pad; i < size; i++) {
        if (plain[i] != pad) {
            free(plain);
            return fail(err, err_len, "invalid padding on input");
        }
    }
    own(out, plain, size - pad);
    return 0;
}

static int
cbc_seal(const gw_enc_key_t *k, const char *head, size_t hlen, const uint8_t *in, size_t len,
         gw_value_t *out, char *err, size_t err_len)
{
    size_t pad = AES_BLOCK - len % AES_BLOCK, total = AES_BLOCK + len + pad;
    uint8_t *body, *buf = with_head(head, hlen, total, &body);
    EVP_CIPHER_CTX *ctx;
    int n = 0, fin = 0;

    if (RAND_bytes(body, AES_BLOCK) != 1) {
        free(buf);
        return fail(err, err_len, "unable to read sufficient random bytes");
    }
    memcpy(body + AES_BLOCK, in, len);
    memset(body + AES_BLOCK + len, (int)pad, pad);
    ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL ||
        EVP_EncryptInit_ex(ctx, aes_cipher(GW_ENC_AESCBC, k->secret_len), NULL, k->secret, body) !=
            1 ||
        EVP_CIPHER_CTX_set_padding(ctx, 0) != 1 ||
        EVP_EncryptUpdate(ctx, body + AES_BLOCK, &n, body + AES_BLOCK, (int)(len + pad)) != 1 ||
        EVP_EncryptFinal_ex(ctx, body + AES_BLOCK + n, &fin) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        free(buf);
        return fail(err, err_len, "AES-CBC encryption failed");
    }
    EVP_CIPHER_CTX_free(ctx);
    own(out, buf, hlen + total);
    return 0;
}

/* ---- aesgcm ---------------------------------------------------------------------------- */

/* The etcd key as additional data: fed in its two parts, which join into it. */
static bool
gcm_aad(EVP_CIPHER_CTX *ctx, const gw_value_key_t *aad, bool enc)
{
    int n;
    int (*update)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *, int) =
        enc ? EVP_EncryptUpdate : EVP_DecryptUpdate;
    size_t rel_len = strlen(aad->rel);

    if (aad->prefix_len > 0 &&
        update(ctx, NULL, &n, (const uint8_t *)aad->prefix, (int)aad->prefix_len) != 1)
        return false;
    return rel_len == 0 || update(ctx, NULL, &n, (const uint8_t *)aad->rel, (int)rel_len) == 1;
}

static int
gcm_open(const gw_enc_key_t *k, const gw_value_key_t *aad, const uint8_t *in, size_t len,
         gw_value_t *out, char *err, size_t err_len)
{
    EVP_CIPHER_CTX *ctx;
    uint8_t *plain;
    size_t body;
    int n = 0, fin = 0;
    bool ok;

    if (len < GCM_NONCE)
        return fail(err, err_len, SHORT);
    if (len < GCM_NONCE + GCM_TAG) /* Go's AEAD.Open */
        return fail(err, err_len, "cipher: message authentication failed");
    body = len - GCM_NONCE - GCM_TAG;
    plain = gw_malloc(body + 1);
    ctx = EVP_CIPHER_CTX_new();
    ok = ctx != NULL &&
         EVP_DecryptInit_ex(ctx, aes_cipher(GW_ENC_AESGCM, k->secret_len), NULL, k->secret, in) ==
             1 &&
         gcm_aad(ctx, aad, false) &&
         EVP_DecryptUpdate(ctx, plain, &n, in + GCM_NONCE, (int)body) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, GCM_TAG, (void *)(in + GCM_NONCE + body)) ==
             1 &&
         EVP_DecryptFinal_ex(ctx, plain + n, &fin) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) {
        free(plain);
        return fail(err, err_len, "cipher: message authentication failed");
    }
    own(out, plain, (size_t)(n + fin));
    return 0;
}

static int
gcm_seal(const gw_enc_key_t *k, const gw_value_key_t *aad, const char *head, size_t hlen,
         const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len)
{
    size_t total = GCM_NONCE + len + GCM_TAG;
    uint8_t *body, *buf = with_head(head, hlen, total, &body);
    EVP_CIPHER_CTX *ctx;
    int n = 0, fin = 0;
    bool ok;

    if (RAND_bytes(body, GCM_NONCE) != 1) {
        free(buf);
        return fail(err, err_len, "failed to write nonce for AES-GCM");
    }
    ctx = EVP_CIPHER_CTX_new();
    ok = ctx != NULL &&
         EVP_EncryptInit_ex(ctx, aes_cipher(GW_ENC_AESGCM, k->secret_len), NULL, k->secret, body) ==
             1 &&
         gcm_aad(ctx, aad, true) &&
         EVP_EncryptUpdate(ctx, body + GCM_NONCE, &n, in, (int)len) == 1 &&
         EVP_EncryptFinal_ex(ctx, body + GCM_NONCE + n, &fin) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, GCM_TAG, body + GCM_NONCE + len) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) {
        free(buf);
        return fail(err, err_len, "AES-GCM encryption failed");
    }
    own(out, buf, hlen + total);
    return 0;
}

/* ---- secretbox ------------------------------------------------------------------------- */

static int
box_open(const gw_enc_key_t *k, const uint8_t *in, size_t len, gw_value_t *out, char *err,
         size_t err_len)
{
    uint8_t *plain;

    if (len < BOX_NONCE + BOX_MAC)
        return fail(err, err_len, SHORT);
    plain = gw_malloc(len - BOX_NONCE - BOX_MAC + 1);
    if (crypto_secretbox_open_easy(plain, in + BOX_NONCE, len - BOX_NONCE, in, k->secret) != 0) {
        free(plain);
        /* kube's secretbox transformer says this of any failed Open */
        return fail(err, err_len, "output array was not large enough for encryption");
    }
    own(out, plain, len - BOX_NONCE - BOX_MAC);
    return 0;
}

static int
box_seal(const gw_enc_key_t *k, const char *head, size_t hlen, const uint8_t *in, size_t len,
         gw_value_t *out)
{
    size_t total = BOX_NONCE + BOX_MAC + len;
    uint8_t *body, *buf = with_head(head, hlen, total, &body);

    randombytes_buf(body, BOX_NONCE);
    crypto_secretbox_easy(body + BOX_NONCE, in, len, body, k->secret);
    own(out, buf, hlen + total);
    return 0;
}

/* ---- dispatch -------------------------------------------------------------------------- */

int
gw_enc__open(gw_enc_kind_t kind, const gw_enc_key_t *k, const gw_value_key_t *aad,
             const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len)
{
    switch (kind) {
    case GW_ENC_AESCBC:
        return cbc_open(k, in, len, out, err, err_len);
    case GW_ENC_AESGCM:
        return gcm_open(k, aad, in, len, out, err, err_len);
    case GW_ENC_SECRETBOX:
        return box_open(k, in, len, out, err, err_len);
    default:
        gw_value_view(out, in, len);
        return 0;
    }
}

int
gw_enc__seal(gw_enc_kind_t kind, const gw_enc_key_t *k, const gw_value_key_t *aad, const char *head,
             size_t hlen, const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len)
{
    switch (kind) {
    case GW_ENC_AESCBC:
        return cbc_seal(k, head, hlen, in, len, out, err, err_len);
    case GW_ENC_AESGCM:
        return gcm_seal(k, aad, head, hlen, in, len, out, err, err_len);
    case GW_ENC_SECRETBOX:
        return box_seal(k, head, hlen, in, len, out);
    default:
        gw_value_view(out, in, len);
        return 0;
    }
}
