/* kube's KMS v2 envelope without the plugin: the EncryptedObject's validation and decoding in
 * kube's words, the key of the DEK-source cache, and the HKDF extended-nonce AES-GCM seal of a
 * value under a seed (k8s.io/apiserver .../encrypt/aes/aes_extended_nonce.go). */
#include "gw_enc_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_names.h"
#include "gw_objmeta.h"

#define KEY_ID_MAX 1024       /* kube's KeyIDMaxSize */
#define DEK_SOURCE_MAX 1024   /* encryptedDEKSourceMaxSize */
#define ANNOTATIONS_MAX 32768 /* annotationsMaxSize */
#define SHORT "the stored data was shorter than the required size"

static int
refuse(char *err, size_t err_len, const char *why)
{
    snprintf(err, err_len, "%s", why);
    return GW_EINTERNAL;
}

/* ---- validation ----------------------------------------------------------------------------- */

const char *
gw_kms__validate_key_id(const char *key_id, char *err, size_t err_len)
{
    size_t n = strlen(key_id);

    if (n == 0) {
        snprintf(err, err_len, "keyID is empty");
        return "empty";
    }
    if (n > KEY_ID_MAX) {
        snprintf(err, err_len, "keyID is %zu bytes, which exceeds the max size of %d", n,
                 KEY_ID_MAX);
        return "too_long";
    }
    return NULL;
}

/* field.Invalid's text: the value as Go's %q shows it. */
static char *
invalid(const char *value, const char *msg)
{
    char *q = gw_ferr_quote(value), *why = gw_sprintf("annotations: Invalid value: %s: %s", q, msg);

    free(q);
    return why;
}

/* kube's IsFullyQualifiedDomainName on an annotation key: NULL, or the field error. */
static char *
fqdn_error(const char *key)
{
    size_t n = strlen(key);
    char *name, *why = NULL;
    const char *msg;

    if (n == 0)
        return gw_strdup("annotations: Required value");
    name = gw_strndup(key, key[n - 1] == '.' ? n - 1 : n);
    if ((msg = gw_valid_dns1123_subdomain(name)) != NULL)
        why = invalid(name, msg);
    else if (strchr(name, '.') == NULL)
        why = invalid(name, "should be a domain with at least two segments separated by dots");
    for (char *label = name, *dot; why == NULL && label != NULL; label = dot ? dot + 1 : NULL) {
        dot = strchr(label, '.');
        if (dot != NULL)
            *dot = '\0';
        if ((msg = gw_valid_dns1123_label(label)) != NULL)
            why = invalid(label, msg);
    }
    free(name);
    return why;
}

/* kube's validateAnnotations: the errors as its aggregate prints them. */
static bool
check_annotations(const V2__EncryptedObject *o, char *err, size_t err_len)
{
    char *errs[3];
    size_t n = 0, total = 0, at = 0;

    for (size_t i = 0; i < o->n_annotations; i++) {
        char *why = fqdn_error(o->annotations[i]->key);
        if (why != NULL && n < 2)
            errs[n++] = why;
        else
            free(why);
        total += strlen(o->annotations[i]->key) + o->annotations[i]->value.len;
    }
    if (total > ANNOTATIONS_MAX)
        errs[n++] = gw_sprintf("total size of annotations is %zu, which exceeds the max size of %d",
                               total, ANNOTATIONS_MAX);
    if (n == 0)
        return true;
    at = (size_t)snprintf(err, err_len, "failed to validate annotations: %s", n > 1 ? "[" : "");
    for (size_t i = 0; i < n; i++) {
        if (at < err_len)
            at += (size_t)snprintf(err + at, err_len - at, "%s%s", i ? ", " : "", errs[i]);
        free(errs[i]);
    }
    if (n > 1 && at < err_len)
        snprintf(err + at, err_len - at, "]");
    return false;
}

bool
gw_kms__validate(const V2__EncryptedObject *o, char *err, size_t err_len)
{
    char why[256];

    if (o->encrypteddeksourcetype != V2__ENCRYPTED_DEKSOURCE_TYPE__AES_GCM_KEY &&
        o->encrypteddeksourcetype !=
            V2__ENCRYPTED_DEKSOURCE_TYPE__HKDF_SHA256_XNONCE_AES_GCM_SEED) {
        snprintf(err, err_len, "unknown encryptedDEKSourceType: %d",
                 (int)o->encrypteddeksourcetype);
        return false;
    }
    if (o->encrypteddata.len == 0) {
        snprintf(err, err_len, "encrypted data is empty");
        return false;
    }
    if (o->encrypteddeksource.len == 0 || o->encrypteddeksource.len > DEK_SOURCE_MAX) {
        if (o->encrypteddeksource.len == 0)
            snprintf(why, sizeof(why), "encrypted DEK source is empty");
        else
            snprintf(why, sizeof(why),
                     "encrypted DEK source is %zu bytes, which exceeds the max size of %d",
                     o->encrypteddeksource.len, DEK_SOURCE_MAX);
        snprintf(err, err_len, "failed to validate encrypted DEK source: %s", why);
        return false;
    }
    if (gw_kms__validate_key_id(o->keyid, why, sizeof(why)) != NULL) {
        snprintf(err, err_len, "failed to validate key id: %s", why);
        return false;
    }
    return check_annotations(o, err, err_len);
}

V2__EncryptedObject *
gw_kms__decode(const uint8_t *in, size_t len, char *err, size_t err_len)
{
    V2__EncryptedObject *o = v2__encrypted_object__unpack(NULL, len, in);

    if (o == NULL) {
        snprintf(err, err_len, "proto: cannot parse invalid wire-format data");
        return NULL;
    }
    if (!gw_kms__validate(o, err, err_len)) {
        v2__encrypted_object__free_unpacked(o, NULL);
        return NULL;
    }
    return o;
}

/* ---- the cache key ------------------------------------------------------------------------- */

static void
put_u32(EVP_MD_CTX *h, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    EVP_DigestUpdate(h, b, 4);
}

/* A uint16 length then the bytes, as cryptobyte's AddUint16LengthPrefixed. */
static void
put_u16_bytes(EVP_MD_CTX *h, const void *p, size_t n)
{
    uint8_t b[2] = {(uint8_t)(n >> 8), (uint8_t)n};
    EVP_DigestUpdate(h, b, 2);
    if (n > 0)
        EVP_DigestUpdate(h, p, n);
}

static int
by_key(const void *a, const void *b)
{
    const V2__EncryptedObject__AnnotationsEntry *x =
        *(V2__EncryptedObject__AnnotationsEntry *const *)a;
    const V2__EncryptedObject__AnnotationsEntry *y =
        *(V2__EncryptedObject__AnnotationsEntry *const *)b;
    return strcmp(x->key, y->key);
}

void
gw_kms__cache_key(const V2__EncryptedObject *o, uint8_t out[GW_KMS_HASH])
{
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    V2__EncryptedObject__AnnotationsEntry **sorted;

    if (h == NULL)
        abort();
    EVP_DigestInit_ex(h, EVP_sha256(), NULL);
    put_u32(h, (uint32_t)o->encrypteddeksourcetype);
    put_u16_bytes(h, o->encrypteddeksource.data, o->encrypteddeksource.len);
    put_u16_bytes(h, o->keyid, strlen(o->keyid));
    if (o->n_annotations > 0) {
        put_u32(h, (uint32_t)o->n_annotations);
        sorted = gw_malloc(o->n_annotations * sizeof(*sorted));
        memcpy(sorted, o->annotations, o->n_annotations * sizeof(*sorted));
        qsort(sorted, o->n_annotations, sizeof(*sorted), by_key);
        for (size_t i = 0; i < o->n_annotations; i++) {
            put_u16_bytes(h, sorted[i]->key, strlen(sorted[i]->key));
            put_u16_bytes(h, sorted[i]->value.data, sorted[i]->value.len);
        }
        free(sorted);
    }
    EVP_DigestFinal_ex(h, out, NULL);
    EVP_MD_CTX_free(h);
}

/* ---- HKDF extended-nonce AES-GCM ----------------------------------------------------------- */

void
gw_kms__derive(const uint8_t *seed, size_t seed_len, const uint8_t info[GW_KMS_INFO],
               uint8_t key[GW_KMS_SEED])
{
    /* HKDF-Expand (RFC 5869) of one SHA-256 block, the seed as the pseudorandom key: kube
     * expands only (no extract step). */
    uint8_t msg[GW_KMS_INFO + 1];
    unsigned int n = 0;

    memcpy(msg, info, GW_KMS_INFO);
    msg[GW_KMS_INFO] = 1;
    HMAC(EVP_sha256(), seed, (int)seed_len, msg, sizeof(msg), key, &n);
}

int
gw_kms__seed_seal(const uint8_t *seed, size_t seed_len, const gw_value_key_t *aad,
                  const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len)
{
    uint8_t info[GW_KMS_INFO];
    gw_enc_key_t k = {.secret_len = GW_KMS_SEED};
    int rc;

    if (RAND_bytes(info, sizeof(info)) != 1)
        return refuse(err, err_len, "failed to generate info for KDF: crypto/rand: read failed");
    gw_kms__derive(seed, seed_len, info, k.secret);
    /* info, then AES-GCM's nonce and seal: the info goes first as the seal's head */
    rc = gw_enc__seal(GW_ENC_AESGCM, &k, aad, (const char *)info, sizeof(info), in, len, out, err,
                      err_len);
    OPENSSL_cleanse(k.secret, sizeof(k.secret));
    return rc;
}

int
gw_kms__seed_open(const uint8_t *seed, size_t seed_len, const gw_value_key_t *aad,
                  const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len)
{
    gw_enc_key_t k = {.secret_len = GW_KMS_SEED};
    int rc;

    if (len < GW_KMS_INFO)
        return refuse(err, err_len, SHORT);
    gw_kms__derive(seed, seed_len, in, k.secret);
    rc = gw_enc__open(GW_ENC_AESGCM, &k, aad, in + GW_KMS_INFO, len - GW_KMS_INFO, out, err,
                      err_len);
    OPENSSL_cleanse(k.secret, sizeof(k.secret));
    return rc;
}
