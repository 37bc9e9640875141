#ifndef GATEWAY_ENCODING_GW_PROTOBUF_H
#define GATEWAY_ENCODING_GW_PROTOBUF_H

/*
 * Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf) of built-in kinds,
 * transcoded to and from the JSON documents kgate works on, driven by the catalog's protobuf
 * facts (gateway/catalog/gw_catalog.h, gw_proto_message_t).
 *
 * The envelope is the 4 bytes "k8s\0" followed by a runtime.Unknown message: typeMeta=1
 * {apiVersion=1, kind=2}, raw=2 (the object's own message, without its TypeMeta),
 * contentEncoding=3, contentType=4.
 *
 * JSON from protobuf follows what kube-apiserver's JSON encoding of the decoded Go struct shows,
 * using each field's Go shape from the catalog:
 *   - a field on the wire appears, except a zero scalar ("", 0, false, empty bytes) of a value
 *     (non-pointer) field with omitempty: Go writes every value field, so such zeros stand for
 *     "unset" (a pointer's zero, like replicas: 0, is kept);
 *   - a field absent from the wire appears only when Go's JSON would still show it (the rules
 *     of gw_gozero.h, shared with JSON documents): a value struct as its zero ({} with its own such
 * fields, creationTimestamp: null, "0" for a Quantity, 0 for an IntOrString), a field without
 * omitempty as its zero ("", 0, false; null for a list, map, byte string or pointer);
 *   - apiVersion and kind come from the envelope; Time is RFC 3339 in seconds, MicroTime with
 *     microseconds (an empty Time message is null); byte strings are base64; Quantity strings
 *     pass through uncanonicalized; RawExtension, FieldsV1 and apiextensions JSON carry JSON
 *     (an embedded "k8s\0" envelope is decoded too); invalid UTF-8 in strings becomes U+FFFD as
 *     Go's JSON encoder writes it.
 * Unknown fields are skipped as protobuf does. Every length is checked against the bytes left;
 * messages nest at most GW_PROTOBUF_DEPTH_MAX deep; the JSON produced is bounded by the input
 * size (zero values of absent structs count against a budget), so hostile input cannot make the
 * decoder allocate without bound.
 *
 * Protobuf from JSON writes the fields present in the document (null and unknown keys are
 * skipped) in ascending field numbers, map entries in key order, int-or-string, Time and the
 * envelope as kube-apiserver writes them.
 */

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_catalog.h"

/* The protobuf media type and its watch-stream form. */
#define GW_PROTOBUF_MEDIA_TYPE "application/vnd.kubernetes.protobuf"
#define GW_PROTOBUF_WATCH_MEDIA_TYPE "application/vnd.kubernetes.protobuf;stream=watch"

/* Messages nest at most this deep (embedded envelopes included). */
#define GW_PROTOBUF_DEPTH_MAX 128

/**
 * Decode a protobuf body (the envelope) into the JSON document kube-apiserver would see. The
 * kind's schema comes from typeMeta via gw_catalog_kind_schema. Returns a new document (the
 * caller owns it), or NULL with a one-line reason in err: a missing "k8s\0" prefix, a truncated
 * or malformed message, a missing or unknown apiVersion/kind, a wire type that does not fit the
 * schema. Thread: any.
 */
json_t *gw_protobuf_decode(const gw_catalog_t *c, const uint8_t *data, size_t len, char *err,
                           size_t err_len);

/**
 * Encode doc (which names its apiVersion and kind) into the envelope. On success returns 0 and
 * *out (gw_malloc'd; the caller frees) and *len. Returns GW_EINVAL with a one-line reason in
 * err for an unknown kind or a value that does not fit its schema. Thread: any.
 */
int gw_protobuf_encode(const gw_catalog_t *c, const json_t *doc, uint8_t **out, size_t *len,
                       char *err, size_t err_len);

/**
 * gw_protobuf_encode with the kind's schema given (s must have protobuf facts): for kinds the
 * catalog does not name, such as PartialObjectMetadata. typeMeta still comes from doc.
 * Thread: any.
 */
int gw_protobuf_encode_as(const gw_catalog_t *c, const gw_schema_t *s, const json_t *doc,
                          uint8_t **out, size_t *len, char *err, size_t err_len);

/* Room for an envelope's head: apiVersion and kind are at most 253 + 63 bytes each. */
#define GW_PROTOBUF_HEAD_MAX 768

/* What follows raw in every envelope kube writes: empty contentEncoding and contentType. */
#define GW_PROTOBUF_ENVELOPE_TAIL "\x1a\x00\x22\x00"
#define GW_PROTOBUF_ENVELOPE_TAIL_LEN 4

/**
 * The envelope up to its raw bytes ("k8s\0", typeMeta, raw's tag and length raw_len), for an
 * answer written piece by piece (a streamed list): head, raw_len bytes of message, then
 * GW_PROTOBUF_ENVELOPE_TAIL. Returns the head's length (0 when apiVersion and kind are too long
 * to fit out). Thread: any.
 */
size_t gw_protobuf_envelope_head(const char *api_version, const char *kind, size_t raw_len,
                                 uint8_t out[GW_PROTOBUF_HEAD_MAX]);

/** A length-delimited field's tag and length (at most 16 bytes); returns its length. */
size_t gw_protobuf_field_head(int number, size_t len, uint8_t out[16]);

/**
 * One frame of a protobuf watch stream (GW_PROTOBUF_WATCH_MEDIA_TYPE), as kube-apiserver
 * writes it: a 4-byte big-endian length, then metav1.WatchEvent {type=1, object=2 {raw=1: the
 * object's envelope}} without an envelope of its own. type is "ADDED", "MODIFIED", "DELETED",
 * "BOOKMARK" or "ERROR" (object then a Status). Ownership and errors as gw_protobuf_encode.
 * Thread: any.
 */
int gw_protobuf_encode_watch_event(const gw_catalog_t *c, const char *type, const json_t *object,
                                   uint8_t **out, size_t *len, char *err, size_t err_len);

/** gw_protobuf_encode_watch_event with the object's schema given, as gw_protobuf_encode_as. */
int gw_protobuf_encode_watch_event_as(const gw_catalog_t *c, const gw_schema_t *s, const char *type,
                                      const json_t *object, uint8_t **out, size_t *len, char *err,
                                      size_t err_len);

/**
 * Decode one message of schema s (no envelope; kube's "raw" protobuf). c resolves embedded
 * envelopes and JSONSchemaProps unions and may be NULL when s needs neither. Ownership and
 * errors as gw_protobuf_decode. Thread: any.
 */
json_t *gw_protobuf_decode_raw(const gw_catalog_t *c, const gw_schema_t *s, const uint8_t *data,
                               size_t len, char *err, size_t err_len);

/**
 * Encode value v of schema s as a bare message (no envelope). Ownership and errors as
 * gw_protobuf_encode. Thread: any.
 */
int gw_protobuf_encode_raw(const gw_catalog_t *c, const gw_schema_t *s, const json_t *v,
                           uint8_t **out, size_t *len, char *err, size_t err_len);

#endif
