#ifndef GATEWAY_SERVER_GW_HTTP_H
#define GATEWAY_SERVER_GW_HTTP_H

/* Small HTTP helpers shared by the server's handlers. */

#include <stddef.h>

/** Length of a UUID in text form, without the NUL. */
#define GW_UUID_LEN 36

/**
 * Write a random (version 4) UUID and a NUL into out, e.g. for the Audit-ID header.
 * Thread: any.
 */
void gw_uuid_v4(char out[GW_UUID_LEN + 1]);

/**
 * Find the next occurrence of parameter `key` in a raw query string (may be NULL), starting at
 * *pos (0 at first) and advancing it. A parameter without '=' has the value "". Keys and values
 * are percent-decoded ('+' as space). Returns the value (caller frees) or NULL when there is
 * none left. Thread: any.
 */
char *gw_query_next(const char *query, const char *key, size_t *pos);

#endif
