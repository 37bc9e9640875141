#ifndef GATEWAY_ENCRYPTION_GW_ENC_INT_H
#define GATEWAY_ENCRYPTION_GW_ENC_INT_H

/* Shared between gw_enc_config.c (building), gw_enc_cipher.c (the ciphers) and
 * gw_enc_transform.c (choosing and chaining providers). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_encryption.h"
#include "kms_object.pb-c.h"

#define GW_ENC_MAX_KEY 32 /* AES-256 and secretbox keys */

typedef enum {
    GW_ENC_IDENTITY,
    GW_ENC_AESCBC,
    GW_ENC_AESGCM,
    GW_ENC_SECRETBOX,
    GW_ENC_KMS, /* KMS v2: the prefix names the provider; no keys */
} gw_enc_kind_t;

typedef struct gw_enc_kms gw_enc_kms_t;

typedef struct {
    char *name; /* the key's name: the stored prefix is "<provider prefix><name>:" */
    uint8_t secret[GW_ENC_MAX_KEY];
    size_t secret_len;
} gw_enc_key_t;

typedef struct {
    gw_enc_kind_t kind;
    const char *prefix; /* "k8s:enc:aescbc:v1:", ...; "" for identity */
    gw_enc_key_t *keys;
    size_t n_keys;
    char *kms_prefix;  /* KMS: "k8s:enc:kms:v2:<name>:", owned (prefix points to it) */
    gw_enc_kms_t *kms; /* KMS: the plugin's client, state and probe, owned */
} gw_enc_provider_t;

/* The providers a group-resource reads with, the first writing (borrowed from the config). */
typedef struct {
    char *group;    /* "" core, "*" any */
    char *resource; /* "*" any */
    const gw_enc_provider_t **providers;
    size_t n;
} gw_enc_chain_t;

/* A built-in resource's etcd path and the group-resource it stores. */
typedef struct {
    const char *path; /* "secrets", "services/specs", ... (the catalog's) */
    size_t path_len;
    const char *group, *resource;
} gw_enc_path_t;

struct gw_enc_config {
    gw_enc_provider_t *providers; /* every entry's, in file order */
    size_t n_providers;
    gw_enc_chain_t *chains; /* one per group-resource named, in first-mention order */
    size_t n_chains;
    gw_enc_path_t *paths; /* the built-in resources' paths, longest first */
    size_t n_paths;
};

/** One cipher's decryption of `in` (after the provider and key prefixes) with key k; aad is the
 *  etcd key (aesgcm only). 0, or GW_EINTERNAL with kube's words in err. */
int gw_enc__open(gw_enc_kind_t kind, const gw_enc_key_t *k, const gw_value_key_t *aad,
                 const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len);

/** One cipher's encryption, written after `head` (hlen bytes: the prefixes) into a new
 *  buffer. 0, or GW_EINTERNAL with the reason in err. */
int gw_enc__seal(gw_enc_kind_t kind, const gw_enc_key_t *k, const gw_value_key_t *aad,
                 const char *head, size_t hlen, const uint8_t *in, size_t len, gw_value_t *out,
                 char *err, size_t err_len);

/* ---- KMS v2 (gw_enc_kms.c: the provider; gw_enc_kms_envelope.c: kube's envelope) ------ */

#define GW_KMS_SEED 32 /* the DEK seed, and each derived AES-256 key */
#define GW_KMS_INFO 32 /* the random HKDF info stored before each value's nonce */
#define GW_KMS_HASH 32 /* a DEK-source cache key: SHA-256 of kube's cache key bytes */

/** A KMS v2 provider named `name` over the plugin at endpoint with a per-call timeout;
 *  nothing is called until gw_enc__kms_start (until then it neither reads nor writes).
 *  Thread: any. */
gw_enc_kms_t *gw_enc__kms_new(const char *name, const char *endpoint, int64_t timeout_ms);

/** Connect: Status is probed once now (blocking up to the timeout, as kube primes it), then by
 *  a thread of its own (every minute when healthy, every 10 s when not). A second call does
 *  nothing. Thread: one at a time. */
void gw_enc__kms_start(gw_enc_kms_t *k);

/** Stop the probe thread (waiting for a call in flight) and free k (NULL is fine). */
void gw_enc__kms_free(gw_enc_kms_t *k);

/** Decrypt a KMS value (after the provider prefix): a Decrypt call only when the DEK source is
 *  not cached (blocking up to the timeout). out->stale when another key ID wrote it. 0, or
 *  GW_EINTERNAL with kube's words. Thread: any. */
int gw_enc__kms_open(gw_enc_kms_t *k, const gw_value_key_t *aad, const uint8_t *in, size_t len,
                     gw_value_t *out, char *err, size_t err_len);

/** Encrypt with the current seed after `head` (the prefix); never calls the plugin. 0, or
 *  GW_EINTERNAL with kube's words (no seed yet, or it expired). Thread: any. */
int gw_enc__kms_seal(gw_enc_kms_t *k, const gw_value_key_t *aad, const char *head, size_t hlen,
                     const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len);

/** kube's probe of the provider: true when healthy, else false with kube's reason in why. The
 *  last probe's result; one older than kube's TTL (20 s healthy, 3 s not) wakes the probe
 *  thread, so that the next look sees a fresh one. Thread: any; never blocks on the plugin. */
bool gw_enc__kms_check(gw_enc_kms_t *k, char *why, size_t why_len);

/** kube's ValidateKeyID: NULL when valid, else its metric code ("empty", "too_long") and the
 *  message in err. */
const char *gw_kms__validate_key_id(const char *key_id, char *err, size_t err_len);

/** kube's ValidateEncryptedObject: true, or false with kube's message in err. */
bool gw_kms__validate(const V2__EncryptedObject *o, char *err, size_t err_len);

/** Unpack and validate a stored EncryptedObject (free with v2__encrypted_object__free_unpacked),
 *  or NULL with kube's message. Thread: any. */
V2__EncryptedObject *gw_kms__decode(const uint8_t *in, size_t len, char *err, size_t err_len);

/** The DEK-source cache's key of o: SHA-256 of kube's generateCacheKey bytes (the source type,
 *  the encrypted source, the key ID, the annotations sorted by key). */
void gw_kms__cache_key(const V2__EncryptedObject *o, uint8_t out[GW_KMS_HASH]);

/** kube's per-value key: HKDF-Expand(SHA-256, seed, info) to 32 bytes. */
void gw_kms__derive(const uint8_t *seed, size_t seed_len, const uint8_t info[GW_KMS_INFO],
                    uint8_t key[GW_KMS_SEED]);

/** Seal under a seed as kube's HKDF extended-nonce GCM: a random 32-byte info, then the
 *  12-byte nonce and AES-256-GCM seal (the etcd key as additional data) with the key derived
 *  from it; *out a new buffer. 0, or GW_EINTERNAL. */
int gw_kms__seed_seal(const uint8_t *seed, size_t seed_len, const gw_value_key_t *aad,
                      const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len);

/** Open what gw_kms__seed_seal wrote. 0, or GW_EINTERNAL with Go's words. */
int gw_kms__seed_open(const uint8_t *seed, size_t seed_len, const gw_value_key_t *aad,
                      const uint8_t *in, size_t len, gw_value_t *out, char *err, size_t err_len);

/** Count one transformation as kube's apiserver_storage_transformation_operations_total and
 *  (when it succeeded, err NULL) _duration_seconds since start_ns (gw_monotonic_ns): type
 *  "from_storage" or "to_storage", the transformer's prefix ("identity" for identity's reads).
 *  Thread: any. */
void gw_enc__record(const char *type, const char *prefix, int64_t start_ns, const char *err);

/** Initialize the cipher libraries once (libsodium); false when they cannot run. */
bool gw_enc__init(void);

#endif
