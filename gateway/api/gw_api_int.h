#ifndef GATEWAY_API_GW_API_INT_H
#define GATEWAY_API_GW_API_INT_H

/* Internals shared by the files of gateway/api/. */

#include <stdbool.h>
#include <stddef.h>

#include "gw_arena.h"

/**
 * Percent-decode s[0..len) into the arena; with plus_space a '+' becomes a space (query
 * strings), otherwise it stays (paths). NULL for a malformed escape or a decoded NUL byte.
 */
char *gw_api__unescape(gw_arena_t *a, const char *s, size_t len, bool plus_space);

/**
 * The first value of parameter `key` in a raw query string (may be NULL), decoded as Go's
 * url.ParseQuery does ('&'-separated, '+' is a space), in the arena; "" for a parameter
 * without '='; NULL when absent. Pairs that do not decode are skipped, as Go drops them.
 */
const char *gw_api__query_first(gw_arena_t *a, const char *query, const char *key);

/** ASCII case-insensitive equality of s[0..len) and the NUL-terminated word. */
bool gw_api__ieq(const char *s, size_t len, const char *word);

#endif
