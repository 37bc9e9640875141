#ifndef GATEWAY_BASE_GW_JSON_H
#define GATEWAY_BASE_GW_JSON_H

/*
 * Jansson documents read from and written to text in one pass over the bytes. Jansson's own
 * json_loadb and json_dumps go through a character stream and a string buffer a byte at a
 * time; every create, update and reply parses or writes its object once or more, so these do
 * the common case directly: the same documents, the same bytes out. Anything outside that
 * case (text Jansson refuses, escapes Jansson rejects, numbers it cannot hold, flags other
 * than the ones named below) is handed to Jansson itself, so results, errors and their
 * positions are always Jansson's.
 */

#include <stddef.h>

#include <jansson.h>

#include "gw_buf.h"

/** json_loadb(text, len, flags, err) with the same result: a new reference, or NULL with
 *  Jansson's error in `err` (may be NULL). `flags` may be anything json_loadb takes; 0 and
 *  JSON_DECODE_ANY take the fast path. Thread: any. */
json_t *gw_json_loadb(const char *text, size_t len, size_t flags, json_error_t *err);

/** The object json_loadb(text, len, 0) reads, with only its members named in keys (n_keys of
 *  them): the others are checked as Jansson checks them but never built. A key
 *  "<member>.<name>" keeps, of an object member, only the members so named (at any depth:
 *  "metadata.a.b"; at most 32 per member), and a member that is not an object whole. NULL
 *  where json_loadb fails or reads something other than an object. For readers of a few fields
 *  of whole stored objects. Thread: any. */
json_t *gw_json_load_members(const char *text, size_t len, const char *const *keys, size_t n_keys);

/** json_dumps(doc, flags) with the same bytes: a malloc'd NUL-terminated string the caller
 *  frees, or NULL where json_dumps fails. JSON_INDENT, JSON_COMPACT, JSON_ENCODE_ANY,
 *  JSON_PRESERVE_ORDER, JSON_SORT_KEYS and JSON_REAL_PRECISION take the fast path; other flags
 *  (ASCII output, escaped slashes, embedding) are Jansson's. Thread: any (doc not changed
 * meanwhile). */
char *gw_json_dumps(const json_t *doc, size_t flags);

/** gw_json_dumps appended to `out`; returns 0, or -1 (out unchanged) where json_dumps fails.
 *  Thread: any. */
int gw_json_dump_buf(const json_t *doc, size_t flags, gw_buf_t *out);

/** Length of the UTF-8 sequence at p, n bytes readable (n >= 1): no overlong forms, no
 *  surrogates, nothing above U+10FFFF (Jansson's utf8_check_full and Go's utf8.DecodeRune
 *  agree on these); 0 when p does not start one. Thread: any. */
size_t gw_utf8_len(const unsigned char *p, size_t n);

/** The first byte from p on (before end) that ends a run of plain JSON string text (a quote,
 *  a backslash, a control or a non-ASCII byte), or end: for scanners of JSON text, which
 *  pass over the run 8 bytes at a time. Thread: any. */
const char *gw_json_plain_run(const char *p, const char *end);

#endif
