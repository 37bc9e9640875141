#ifndef GATEWAY_ENCRYPTION_GW_ENCRYPTION_H
#define GATEWAY_ENCRYPTION_GW_ENCRYPTION_H

/*
 * Encryption at rest (--encryption-provider-config), as kube-apiserver 1.32 does it and in its
 * byte formats, so that etcd data moves between kgate and kube-apiserver:
 *
 *   - the configuration is an apiserver.config.k8s.io/v1 EncryptionConfiguration (YAML or
 *     JSON), validated with kube's words; a resource's providers are those of every entry
 *     naming it, in order; lookups go "resource.group", then "*.group", then "*.*";
 *   - the first provider writes; reads try every provider whose prefix the value carries
 *     ("k8s:enc:aescbc:v1:<key>:", "k8s:enc:aesgcm:v1:<key>:", "k8s:enc:secretbox:v1:<key>:";
 *     identity has none and refuses values that start with "k8s:enc:");
 *   - aescbc: a random 16-byte IV, then AES-CBC with PKCS#7 padding; aesgcm: a random 12-byte
 *     nonce, then the AES-GCM seal (tag last) with the etcd key as additional data; secretbox:
 *     a random 24-byte nonce, then XSalsa20-Poly1305 (libsodium's crypto_secretbox_easy);
 *   - kms (apiVersion v2): "k8s:enc:kms:v2:<name>:" then kube's protobuf EncryptedObject; each
 *     value is sealed with AES-256-GCM under a key HKDF-SHA256 derives from a 32-byte seed
 *     and a random 32-byte info stored before the nonce; the seed is encrypted by the plugin
 *     (KMS v2 gRPC on a unix socket) and stored with every value; reads ask the plugin only
 *     for seeds they have not cached. KMS v1 is refused as 1.32 refuses it;
 *   - a resource no entry names is read as kube's encrypt-check identity.
 *
 * A configuration with KMS providers talks to their plugins only once started
 * (gw_enc_config_start): parsing alone never connects.
 */

#include <stdbool.h>
#include <stddef.h>

#include "gw_catalog.h"
#include "gw_transformer.h"

typedef struct gw_enc_config gw_enc_config_t;

/**
 * Parse, validate and compile an EncryptionConfiguration from text (YAML or JSON) with kube's
 * errors ("error while parsing file: ..." / "error while building transformers: ..."); `name`
 * is the file's path, for the messages. Resource paths come from `builtin` (the built-in
 * catalog; NULL: none, every key is then a custom resource's or falls to "*.*"). Returns a new
 * configuration (gw_enc_config_free), or NULL with the reason in err. Thread: any.
 */
gw_enc_config_t *gw_enc_config_parse(const char *text, size_t len, const char *name,
                                     const gw_catalog_t *builtin, char *err, size_t err_len);

/** gw_enc_config_parse of the file at path (kube's messages for a missing or empty file). */
gw_enc_config_t *gw_enc_config_load(const char *path, const gw_catalog_t *builtin, char *err,
                                    size_t err_len);

/**
 * Start c's KMS providers: each connects to its plugin and is primed with a Status (and the
 * seed's Encrypt) inline, blocking up to its timeout when the plugin does not answer, then
 * probed by a thread of its own. Before this a KMS provider neither reads nor writes. Thread:
 * one at a time (start-up, or the reload).
 */
void gw_enc_config_start(gw_enc_config_t *c);

/** Whether c has a KMS provider. Thread: any. */
bool gw_enc_config_uses_kms(const gw_enc_config_t *c);

/**
 * kube's "kms-providers" health check over c's KMS providers (kms-provider-0, -1, ... in file
 * order): true when each one's last probe was healthy, else false with kube's aggregate
 * ("health check for kms-provider-0 failed: ...") in why. Never blocks. Thread: any.
 */
bool gw_enc_config_kms_healthy(const gw_enc_config_t *c, char *why, size_t why_len);

/** Free c (NULL is fine). Nothing may use it any more. */
void gw_enc_config_free(gw_enc_config_t *c);

/**
 * Decrypt a stored value under `key` with c's providers for the key's resource: *out is a view
 * of the plain bytes (identity) or a new buffer; out->stale when a provider or key other than
 * the writing one read it. Returns 0, or GW_EINTERNAL with kube's reason in err. Thread: any.
 */
int gw_enc_decrypt(const gw_enc_config_t *c, const gw_value_key_t *key, const uint8_t *in,
                   size_t len, gw_value_t *out, char *err, size_t err_len);

/** Encrypt a value to store under `key` with the key resource's first provider. Returns 0, or
 *  GW_EINTERNAL with the reason in err. Thread: any. */
int gw_enc_encrypt(const gw_enc_config_t *c, const gw_value_key_t *key, const uint8_t *in,
                   size_t len, gw_value_t *out, char *err, size_t err_len);

typedef struct gw_enc_transformer gw_enc_transformer_t;

/**
 * The value transformer of every store when encryption is configured: `inner` (the storage
 * encoding, borrowed, outliving the result) runs on the plain bytes, c (taken) on the stored
 * ones. The transformer's vtable is gw_enc_transformer_values(t). Thread: main, at start-up.
 */
gw_enc_transformer_t *gw_enc_transformer_new(gw_enc_config_t *c,
                                             const gw_value_transformer_t *inner);

/** The vtable to give the stores; valid as long as t. */
const gw_value_transformer_t *gw_enc_transformer_values(const gw_enc_transformer_t *t);

/**
 * Use c (taken, started) from now on (the automatic reload). Values being transformed finish
 * with the configuration they started with: replaced ones are freed (their KMS clients
 * closed) by gw_enc_transformer_collect once no value is being transformed. Thread: any (one
 * writer at a time).
 */
void gw_enc_transformer_swap(gw_enc_transformer_t *t, gw_enc_config_t *c);

/** Free the replaced configurations when no value is being transformed at this moment (else
 *  a later call will). Thread: the swapping thread. */
void gw_enc_transformer_collect(gw_enc_transformer_t *t);

/** gw_enc_config_kms_healthy of t's current configuration: the health check's function
 *  (arg: t). Thread: any. */
bool gw_enc_transformer_kms_healthy(void *t, char *why, size_t why_len);

/** Free t and every configuration it held, once no store uses it. */
void gw_enc_transformer_free(gw_enc_transformer_t *t);

typedef struct gw_enc_reloader gw_enc_reloader_t;

/**
 * The automatic reload of the configuration file at path into t (borrowed; it must outlive the
 * result), the file's current content taken as what t holds. Thread: main, at start-up.
 */
gw_enc_reloader_t *gw_enc_reloader_new(gw_enc_transformer_t *t, const char *path,
                                       const gw_catalog_t *builtin);

/** Look at the file (a stat): when it changed and its content differs, build and swap in the
 *  new configuration, or keep the current one when it is refused (logged). Both are counted.
 *  Thread: one at a time (worker 0's timer). */
void gw_enc_reload_check(gw_enc_reloader_t *r);

/** Free r (NULL is fine). */
void gw_enc_reloader_free(gw_enc_reloader_t *r);

#endif
