#ifndef GATEWAY_ENCODING_GW_GOJSON_H
#define GATEWAY_ENCODING_GW_GOJSON_H

/*
 * JSON text judged as Go's encoding/json judges it. kube-apiserver reads request bodies with
 * json.Unmarshal (sigs.k8s.io/json is a fork with the same scanner), so a body that is not JSON
 * is answered with encoding/json's SyntaxError text ("unexpected end of JSON input",
 * "invalid character '}' looking for beginning of value"), and text Go takes but a strict
 * parser refuses (invalid UTF-8, unpaired \u surrogates) decodes with U+FFFD in their place.
 * Pure functions; no allocation but the repaired copy gw_gojson_load may parse.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/** Go's deepest nesting of arrays and objects (encoding/json's maxNestingDepth). */
#define GW_GOJSON_MAX_DEPTH 10000

/** Scans `len` bytes of `text` as encoding/json's checkValid does. Returns false when Go
 *  takes the text as one JSON value; true when it does not, with the SyntaxError message
 *  Go's json.Unmarshal returns written to `msg` (NUL-terminated, cut to `msg_len`). Linear
 *  time, no allocation, no recursion. Thread: any. */
bool gw_gojson_syntax_error(const char *text, size_t len, char *msg, size_t msg_len);

/** json_loadb(text, len, flags) that refuses and takes what kube's decoding does: text that
 *  is not JSON to Go fails with Go's message; text Jansson refuses only for its UTF-8 (bad
 *  bytes, unpaired surrogate escapes) is parsed with those replaced by U+FFFD, as Go decodes
 *  it. What Go takes and Jansson still cannot hold (a \u0000 in a string, an integer beyond
 *  int64, a real beyond double, nesting deeper than Jansson's limit, a scalar without
 *  JSON_DECODE_ANY) fails with Jansson's words and position. Returns a new reference or NULL
 *  with `err` set. Thread: any. */
json_t *gw_gojson_load(const char *text, size_t len, size_t flags, char *err, size_t err_len);

/** json.Unmarshal(p[0..n), &map[string]interface{}{}), as kube-apiserver runs it on a
 *  Secret's .dockercfg and .dockerconfigjson: NULL when it succeeds (an object, or null), else
 *  Go's error text (a syntax error, or the type it cannot store). Caller frees. Thread: any. */
char *gw_gojson_unmarshal_map(const unsigned char *p, size_t n);

/** encoding/json's name for the type of JSON value v in its UnmarshalTypeError ("object",
 *  "array", "string", "bool", "number"), as kube's decode errors say it. Static. Thread: any. */
const char *gw_gojson_kind(const json_t *v);

#endif
