/* One decoder for query strings and paths, with Go's net/url rules. */
#include "gw_query.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool
gw_unescape(char *out, const char *s, size_t len, bool plus_space)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '%') {
            int hi = i + 2 < len ? hexval(s[i + 1]) : -1;
            int lo = hi >= 0 ? hexval(s[i + 2]) : -1;
            if (lo < 0)
                return false; /* truncated or not hex, as Go's unescape refuses it */
            c = (char)(hi * 16 + lo);
            i += 2;
        } else if (c == '+' && plus_space) {
            c = ' ';
        }
        if (c == '\0')
            return false;
        out[n++] = c;
    }
    out[n] = '\0';
    return true;
}

/* The decoded copy of s[0..len), in a or on the heap; NULL when it does not decode. */
static char *
decode(gw_arena_t *a, const char *s, size_t len)
{
    char *out = a != NULL ? gw_arena_alloc(a, len + 1) : gw_malloc(len + 1);

    if (gw_unescape(out, s, len, true))
        return out;
    if (a == NULL)
        free(out);
    return NULL;
}

/* Whether the parameter p[0..len) with its key p[0..klen) is `key`. Keys are rarely escaped:
 * only what could match is decoded. */
static bool
key_is(const char *p, size_t klen, const char *key)
{
    size_t want = strlen(key);

    if (memchr(p, '%', klen) == NULL && memchr(p, '+', klen) == NULL)
        return klen == want && memcmp(p, key, klen) == 0;
    char *k = decode(NULL, p, klen);
    bool same = k != NULL && strcmp(k, key) == 0;
    free(k);
    return same;
}

char *
gw_query_next(gw_arena_t *a, const char *query, const char *key, size_t *pos)
{
    size_t qlen = query != NULL ? strlen(query) : 0;

    while (*pos < qlen) {
        const char *p = query + *pos;
        size_t len = strcspn(p, "&");
        *pos += len + (p[len] == '&');
        if (memchr(p, ';', len) != NULL)
            continue; /* Go 1.17+ refuses ';' as a separator and drops the parameter */
        size_t klen = strcspn(p, "=");
        if (klen > len)
            klen = len;
        if (!key_is(p, klen, key))
            continue;
        char *v = klen < len ? decode(a, p + klen + 1, len - klen - 1) : decode(a, "", 0);
        if (v != NULL)
            return v;
    }
    return NULL;
}

const char *
gw_query_get(gw_arena_t *a, const char *query, const char *key)
{
    size_t pos = 0;

    return gw_query_next(a, query, key, &pos);
}
