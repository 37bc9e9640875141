#ifndef GATEWAY_STORAGE_GW_TRANSFORMER_H
#define GATEWAY_STORAGE_GW_TRANSFORMER_H

/*
 * The value transformer: what stands between the JSON documents the layers above work on and
 * the bytes etcd holds, as kube-apiserver's value transformers do. A store is given one at
 * start-up (gw_store_new); every value it reads goes through from_storage and every value it
 * writes through to_storage, with the value's etcd key: encryption at rest authenticates the
 * key with the value (AES-GCM's additional data) and chooses its providers by the resource the
 * key belongs to. The storage encoding (--storage-media-type) is the innermost transformer;
 * encryption at rest (gateway/encryption) wraps it when --encryption-provider-config is given.
 *
 * Implementations live above the storage layer (the encodings need the codec and the catalog):
 * see gateway/encoding/gw_storage_media.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A value on its way in or out: a view of the input when nothing had to change (owned is
 *  NULL), else a new buffer (owned == data; free it with gw_value_clear). stale (from_storage
 *  only): the value was read by other means than those a write would use now (an older key or
 *  provider), so writing it again is not a no-op even when the document is the same, as kube's
 *  transformers report it. */
typedef struct {
    const uint8_t *data;
    size_t len;
    uint8_t *owned;
    bool stale;
} gw_value_t;

typedef struct gw_value_transformer gw_value_transformer_t;

/** The etcd key a value is stored under, in two parts that join into it: the store's prefix
 *  ("/registry/", its trailing slash included) and the key relative to it
 *  ("secrets/default/s1"). Both borrowed and NUL-terminated. */
typedef struct {
    const char *prefix;
    size_t prefix_len;
    const char *rel;
} gw_value_key_t;

/**
 * One direction of a transformer: `in` (borrowed, len bytes, not NUL-terminated), stored or to
 * be stored under `key`, becomes *out. Returns 0, or a negative GW_E* code with a one-line
 * reason in err (then *out is unset): the reason is what a read of the value answers (kube's
 * words: "no matching prefix found", "cipher: message authentication failed", ...).
 * Must not allocate when the value needs no change (the common JSON path stays zero-copy).
 * Thread: any (transformers are immutable and shared by every worker).
 */
typedef int (*gw_value_transform_fn)(const gw_value_transformer_t *t, const gw_value_key_t *key,
                                     const uint8_t *in, size_t len, gw_value_t *out, char *err,
                                     size_t err_len);

/** The const vtable; an instance outlives every store it is given to. */
struct gw_value_transformer {
    gw_value_transform_fn from_storage; /* stored bytes -> the JSON document's bytes */
    gw_value_transform_fn to_storage;   /* the JSON document's bytes -> the bytes to store */
    const void *ctx;                    /* the implementation's own state */
};

/** *out as a view of in (no change). Thread: any. */
void gw_value_view(gw_value_t *out, const uint8_t *in, size_t len);

/** Free what *v owns and empty it. Thread: any. */
void gw_value_clear(gw_value_t *v);

#endif
