#ifndef GATEWAY_ENCODING_GW_PROTOBUF_INT_H
#define GATEWAY_ENCODING_GW_PROTOBUF_INT_H

/* Internals shared by the protobuf codec's files: the wire format, times, base64, UTF-8. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_buf.h"
#include "gw_catalog.h"

/* Wire types. */
enum {
    GW_PB_VARINT = 0,
    GW_PB_FIXED64 = 1,
    GW_PB_BYTES = 2,
    GW_PB_GROUP_START = 3,
    GW_PB_GROUP_END = 4,
    GW_PB_FIXED32 = 5,
};

/* The envelope's 4-byte prefix. */
#define GW_PB_MAGIC "k8s\0"
#define GW_PB_MAGIC_LEN 4

/* The definition the JSONSchemaProps unions (GW_PROTO_SCHEMA_OR_*) carry. */
#define GW_PB_JSON_SCHEMA_PROPS                                                                    \
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"

/* A message being read: the bytes not consumed yet. */
typedef struct {
    const uint8_t *p;
    const uint8_t *end;
} gw_protobuf__reader_t;

/* A reader over the n bytes at p (p may be NULL when n is 0: nothing to read). */
static inline gw_protobuf__reader_t
gw_protobuf__reader(const uint8_t *p, size_t n)
{
    return (gw_protobuf__reader_t){p, p != NULL ? p + n : p};
}

/* One field read off the wire: its number, wire type and value. */
typedef struct {
    int number;
    int wire;
    uint64_t u;       /* VARINT, FIXED64, FIXED32 */
    const uint8_t *p; /* BYTES */
    size_t n;
} gw_protobuf__field_t;

/**
 * Read the next field of r into f, skipping groups as protobuf parsers do. Returns 1 with f
 * filled, 0 at the end of the message, or -1 with a static reason in *why (a truncated or
 * overlong varint, a length past the end, field number 0, a stray end-group).
 */
int gw_protobuf__next(gw_protobuf__reader_t *r, gw_protobuf__field_t *f, const char **why);

/** The wire form of s: its catalog fact, else the special JSON types recognised by schema
 *  type (int-or-string, quantity, time), else plain. */
gw_proto_type_t gw_protobuf__wire_type(const gw_schema_t *s);

/** Read one varint; false when truncated or longer than 10 bytes. */
bool gw_protobuf__varint(gw_protobuf__reader_t *r, uint64_t *v);

/* A message being written: the base's growable buffer (its bytes are (uint8_t *)data). */
typedef gw_buf_t gw_protobuf__buf_t;

void gw_protobuf__put(gw_protobuf__buf_t *b, const void *p, size_t n);
void gw_protobuf__put_varint(gw_protobuf__buf_t *b, uint64_t v);
void gw_protobuf__put_tag(gw_protobuf__buf_t *b, int number, int wire);
/** A length-delimited field: tag, length, bytes. */
void gw_protobuf__put_bytes(gw_protobuf__buf_t *b, int number, const void *p, size_t n);
/** Open a length-delimited field; returns where its body starts, for gw_protobuf__end. */
size_t gw_protobuf__begin(gw_protobuf__buf_t *b, int number);
/** Close the field opened at start: slides the body over to put its length before it. */
void gw_protobuf__end(gw_protobuf__buf_t *b, size_t start);

/** Go's time.Unix(sec, nanos) as metav1 writes it: RFC 3339 in UTC, with 6 fraction digits
 *  when micro (MicroTime). out holds at least 48 bytes. */
void gw_protobuf__format_time(int64_t sec, int64_t nanos, bool micro, char *out);
/** Parse an RFC 3339 date-time into Unix seconds and nanoseconds; false when malformed. */
bool gw_protobuf__parse_time(const char *s, int64_t *sec, int32_t *nanos);
/** Go's time.Duration.String() of ns ("1h2m3.5s", "300ms", "0s"). out holds 40 bytes. */
void gw_protobuf__format_duration(int64_t ns, char *out);
/** Go's time.ParseDuration; false when malformed or out of range. */
bool gw_protobuf__parse_duration(const char *s, int64_t *ns);

/** Standard base64 (padded) of p[0..n) as a new JSON string. */
json_t *gw_protobuf__base64(const uint8_t *p, size_t n);
/** Decode standard base64 as Go's encoding/json does for []byte; false when malformed. *out is
 *  gw_malloc'd (the caller frees). */
bool gw_protobuf__unbase64(const char *s, size_t n, uint8_t **out, size_t *out_len);

/** p[0..n) as a JSON string, each byte of an invalid UTF-8 sequence replaced by U+FFFD as
 *  Go's JSON encoder writes it. */
json_t *gw_protobuf__string(const uint8_t *p, size_t n);

/** Replace each control byte of the NUL-terminated s with '?': error messages quote names from
 *  the wire and must stay on one line. */
void gw_protobuf__one_line(char *s);

#endif
