#ifndef GATEWAY_BASE_GW_QUERY_H
#define GATEWAY_BASE_GW_QUERY_H

/* Percent-decoding and query-string lookup, read the way kube reads them: Go's
 * url.ParseQuery and url.PathUnescape. Thread: any. */

#include <stdbool.h>
#include <stddef.h>

#include "gw_arena.h"

/**
 * Percent-decode the len bytes at s into out, which holds at least len + 1 bytes, and end it
 * with a NUL. '+' becomes a space when plus_space (query components), and stays '+' otherwise
 * (paths). False, with out unspecified, when a '%' is not followed by two hex digits (Go's
 * "invalid URL escape") or the text holds a NUL (raw or %00), which no C string can carry.
 */
bool gw_unescape(char *out, const char *s, size_t len, bool plus_space);

/**
 * The next value of parameter `key` in the raw query string `query` (NULL reads as empty),
 * from *pos on (0 at first), advancing *pos past it. As url.ParseQuery: parameters are split
 * at '&'; one containing ';' is dropped; key and value are split at the first '=' (no '='
 * gives the value ""), then decoded with '+' as a space; a parameter whose key or value does
 * not decode is dropped and the search goes on. Returns the decoded value, allocated in a
 * (or with malloc when a is NULL: the caller frees it), or NULL when there is none left.
 */
char *gw_query_next(gw_arena_t *a, const char *query, const char *key, size_t *pos);

/** The first value of `key` in `query`, as gw_query_next from the start; allocated in a. */
const char *gw_query_get(gw_arena_t *a, const char *query, const char *key);

#endif
