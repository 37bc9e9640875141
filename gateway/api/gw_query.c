/* Percent-decoding and query-string lookup, shared by request info and the request context. */
#include "gw_api_int.h"

#include <string.h>
#include <strings.h>

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

char *
gw_api__unescape(gw_arena_t *a, const char *s, size_t len, bool plus_space)
{
    char *out = gw_arena_alloc(a, len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '%') {
            int hi = i + 2 < len ? hexval(s[i + 1]) : -1;
            int lo = hi >= 0 ? hexval(s[i + 2]) : -1;
            if (lo < 0)
                return NULL; /* truncated or not hex, as Go's unescape refuses it */
            c = (char)(hi * 16 + lo);
            if (c == '\0')
                return NULL; /* cannot live in a C string */
            i += 2;
        } else if (c == '+' && plus_space) {
            c = ' ';
        } else if (c == '\0') {
            return NULL;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return out;
}

const char *
gw_api__query_first(gw_arena_t *a, const char *query, const char *key)
{
    if (query == NULL)
        return NULL;
    size_t klen = strlen(key);
    for (const char *p = query; *p != '\0';) {
        size_t len = strcspn(p, "&");
        size_t nlen = strcspn(p, "=");
        if (nlen > len)
            nlen = len;
        /* Keys are rarely escaped: decode only what could match. */
        bool maybe = nlen == klen || memchr(p, '%', nlen) != NULL;
        char *k = maybe ? gw_api__unescape(a, p, nlen, true) : NULL;
        if (k != NULL && strcmp(k, key) == 0) {
            const char *v =
                nlen < len ? gw_api__unescape(a, p + nlen + 1, len - nlen - 1, true) : "";
            if (v != NULL)
                return v;
        }
        p += len + (p[len] == '&');
    }
    return NULL;
}

bool
gw_api__ieq(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && strncasecmp(s, word, len) == 0;
}
