#ifndef GATEWAY_ENCODING_GW_CBOR_H
#define GATEWAY_ENCODING_GW_CBOR_H

/*
 * CBOR (RFC 8949) as kube-apiserver v1.32 writes and reads it (application/cbor, feature gate
 * CBORServingAndStorage): the JSON documents kgate works on, transcoded both ways. Pure: no
 * I/O, no global state; every function may run on any thread.
 *
 * Writing follows apimachinery's cbor serializer: the self-described tag 55799 (d9 d9 f7)
 * first, then the document with every string (values and map keys) as a byte string, map keys
 * in bytewise-lexical order of their encodings, integers in their shortest head, floats in the
 * shortest of float16/32/64 that keeps the value, Go []byte (schema format "byte") as tag 22
 * over the raw bytes, and definite lengths only.
 *
 * Reading follows its decoder options: the self-described tag is optional (clients writing
 * apply-patch+cbor bodies leave it off), indefinite lengths are accepted, text strings must be
 * valid UTF-8, duplicate map keys, NaN, infinities, undefined, simple values other than
 * false/true/null and bignums are rejected; at most 64 nested arrays/maps/tags and 1024
 * elements or pairs per array or map.
 */

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_catalog.h"

/* The head of tag 55799 ("self-described CBOR") that starts everything kube's serializer
   writes, and so every frame of an application/cbor-seq watch stream. */
#define GW_CBOR_SELF_DESCRIBED "\xd9\xd9\xf7"
#define GW_CBOR_SELF_DESCRIBED_LEN 3

/* kube's decoder limits (MaxNestedLevels, MaxArrayElements, MaxMapPairs). */
#define GW_CBOR_MAX_DEPTH 64
#define GW_CBOR_MAX_ELEMENTS 1024

/**
 * Encode doc as kube's serializer does: d9 d9 f7, then the document. s is the schema of doc's
 * kind (may be NULL); it marks the strings that are Go []byte (format "byte": base64 in JSON,
 * tag 22 over the decoded bytes in CBOR) and the numbers that are Go floats (type number: a
 * JSON integer there goes out as a float, as kube's typed encoder writes a float64). Returns 0
 * and a new buffer in *out (caller frees with free()) of *len bytes, or GW_EINVAL with a
 * one-line reason in err (a byte string that is not base64, a NaN or infinite number).
 * Thread: any.
 */
int gw_cbor_encode(const json_t *doc, const gw_schema_t *s, uint8_t **out, size_t *len, char *err,
                   size_t err_len);

/**
 * One frame of an application/cbor-seq watch stream, as kube writes it: d9 d9 f7, then the
 * map {"type": type, "object": object} where object is the whole of a gw_cbor_encode result
 * (kube embeds the object's own encoding, self-described tag included, as a RawExtension), so
 * an object encoded once serves every watcher. Returns a new buffer (caller frees with free())
 * of *len bytes. Thread: any.
 */
uint8_t *gw_cbor_encode_watch_event(const char *type, const uint8_t *object, size_t object_len,
                                    size_t *len);

/**
 * Decode one CBOR data item that must be a map (an object, a list, a patch) into the JSON
 * document kube's decoder would see: byte and text strings become strings (a byte string's
 * invalid UTF-8 bytes become U+FFFD, as Go's JSON writes them), a byte string under tag 22,
 * 21 or 23 becomes its base64, base64url or hex text, integers become JSON integers, floats
 * JSON reals (also when integral: kube keeps them float64), tag 1 an RFC 3339 string, other
 * tags their content. A top-level null gives an empty object (kube then misses the kind).
 * Returns a new reference, or NULL with kube's message in err (fxamacker/cbor's words:
 * "unexpected EOF", "cbor: found duplicate map key ...", "cbor: exceeded max nested level
 * 64", "cbor: N bytes of extraneous data starting at index I", ...); of several errors, the
 * one kube reports (syntax, limits, NaN/infinity and bignums anywhere first, then the first in
 * document order, a duplicate key being what its own map reports). Hostile input is safe:
 * work and memory are bounded by len. Thread: any.
 */
json_t *gw_cbor_decode(const uint8_t *data, size_t len, char *err, size_t err_len);

/**
 * The first pass of gw_cbor_decode alone: whether data is one well-formed item within kube's
 * limits, without NaN, infinities or bignums. 0, or GW_EINVAL with the message in err. kube's
 * decode of a built-in (typed) kind reads apiVersion and kind first and reports its failures as
 * "unable to determine group/version/kind: <message>"; those are these failures (the rest of
 * the document is skipped unread there), so a caller can tell them apart. kube wraps a request
 * body's decode error in a 400 BadRequest with the message as it is; an apply-patch+cbor
 * body's as "error decoding patch: <message>". Thread: any.
 */
int gw_cbor_check(const uint8_t *data, size_t len, char *err, size_t err_len);

#endif
