#ifndef GATEWAY_ENCRYPTION_GW_ENC_INT_H
#define GATEWAY_ENCRYPTION_GW_ENC_INT_H

/* Shared between gw_enc_config.c (building), gw_enc_cipher.c (the ciphers) and
 * gw_enc_transform.c (choosing and chaining providers). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_encryption.h"

#define GW_ENC_MAX_KEY 32 /* AES-256 and secretbox keys */

typedef enum {
    GW_ENC_IDENTITY,
    GW_ENC_AESCBC,
    GW_ENC_AESGCM,
    GW_ENC_SECRETBOX,
} gw_enc_kind_t;

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

/** Initialize the cipher libraries once (libsodium); false when they cannot run. */
bool gw_enc__init(void);

#endif
