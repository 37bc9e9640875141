#ifndef GATEWAY_ENCODING_GW_STORAGE_MEDIA_H
#define GATEWAY_ENCODING_GW_STORAGE_MEDIA_H

/*
 * The storage encodings (--storage-media-type) as value transformers for the store
 * (gateway/storage/gw_transformer.h), as kube-apiserver's storage codec:
 *
 *   - from_storage reads every encoding kube may have written, whatever the setting: a value
 *     starting with "k8s\0" is kube's protobuf envelope (decoded through the catalog), one
 *     starting with '{' (after white space) is JSON and passes untouched, without a copy; any
 *     other is YAML. A transcoded value becomes the compact, key-sorted JSON kgate itself
 *     stores. A value that does not decode is an error (the store hands it up as corrupt); one
 *     encrypted at rest ("k8s:enc:") is refused in the words of kube's encrypt-check identity,
 *     which is what kube reads with when no encryption is configured.
 *   - to_storage writes the configured encoding: JSON untouched; protobuf, the envelope kube
 *     writes (a kind without protobuf facts stays JSON, as kube stores such kinds); YAML.
 *
 * This lives with the encodings, not in gateway/storage: it needs the protobuf and YAML codecs and
 * the catalog, which the storage layer must not know; the watch hub and the controllers, which
 * do not depend on the registry, get it handed down from main.c.
 */

#include "gw_catalog.h"
#include "gw_transformer.h"

typedef enum {
    GW_STORAGE_JSON,     /* application/json (kgate's default) */
    GW_STORAGE_YAML,     /* application/yaml */
    GW_STORAGE_PROTOBUF, /* application/vnd.kubernetes.protobuf (kube-apiserver's default) */
} gw_storage_media_t;

/**
 * The encoding a --storage-media-type value names; "" is the default, JSON. Returns 0, or
 * GW_EINVAL for any other name (gw_config.c has already refused it with kube's message).
 * Thread: any.
 */
int gw_storage_media_parse(const char *name, gw_storage_media_t *out);

/**
 * Fill *t as the transformer that writes `media` and reads them all, kinds resolved in c (the
 * built-in catalog: stored objects may be of versions the served catalog leaves out). *t and
 * c must outlive every store given t. Thread: any.
 */
void gw_storage_media_transformer(gw_value_transformer_t *t, gw_storage_media_t media,
                                  const gw_catalog_t *c);

#endif
