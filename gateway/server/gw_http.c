#include "gw_http.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/http.h>
#include <openssl/rand.h>

#include "gw_alloc.h"

void
gw_uuid_v4(char out[GW_UUID_LEN + 1])
{
    uint8_t b[16];
    /* OpenSSL's generator is per thread and never fails once seeded at startup. */
    if (RAND_bytes(b, sizeof(b)) != 1)
        abort();
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, GW_UUID_LEN + 1,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
}

static char *
decode(const char *s, size_t len)
{
    char *raw = gw_strndup(s, len);
    char *dec = evhttp_uridecode(raw, 1, NULL);
    free(raw);
    if (dec == NULL)
        abort(); /* evhttp_uridecode fails only when out of memory */
    return dec;
}

char *
gw_query_next(const char *query, const char *key, size_t *pos)
{
    if (query == NULL)
        return NULL;
    size_t qlen = strlen(query);
    while (*pos < qlen) {
        const char *p = query + *pos;
        size_t len = strcspn(p, "&");
        *pos += len + (p[len] == '&');
        size_t klen = strcspn(p, "=");
        if (klen > len)
            klen = len;
        char *k = decode(p, klen);
        int match = strcmp(k, key) == 0;
        free(k);
        if (match)
            return klen < len ? decode(p + klen + 1, len - klen - 1) : gw_strdup("");
    }
    return NULL;
}
