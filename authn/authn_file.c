/* Files and base64 for the authenticators' configurations (kubeconfigs, CA bundles). */
#include "authn_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "gw_alloc.h"
#include "gw_file.h"

#define MAX_FILE (16u << 20)

char *
authn__file_read(const char *path, size_t *len)
{
    return gw_file_read(path, MAX_FILE, len);
}

char *
authn__file_resolve(const char *dir, const char *name)
{
    if (name[0] == '/' || dir == NULL || dir[0] == '\0')
        return gw_strdup(name);
    return gw_sprintf("%s/%s", dir, name);
}

char *
authn__base64_decode(const char *text, size_t *len)
{
    size_t n = strlen(text), m = 0;
    char *clean = gw_malloc(n + 1);

    for (size_t i = 0; i < n; i++) {
        if (text[i] != '\n' && text[i] != '\r')
            clean[m++] = text[i];
    }
    clean[m] = '\0';
    /* EVP_DecodeBlock wants whole quanta and counts padding as output bytes */
    unsigned char *out = gw_malloc(m / 4 * 3 + 1);
    int got = m % 4 == 0 ? EVP_DecodeBlock(out, (const unsigned char *)clean, (int)m) : -1;
    if (got >= 0 && m > 0 && clean[m - 1] == '=')
        got -= m > 1 && clean[m - 2] == '=' ? 2 : 1;
    free(clean);
    if (got < 0) {
        free(out);
        return NULL;
    }
    out[got] = '\0';
    *len = (size_t)got;
    return (char *)out;
}
