/* Version 4 UUIDs from the kernel's generator. */
#include "gw_uuid.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/sha.h>

void
gw_uuid_v4(char out[GW_UUID_LEN + 1])
{
    unsigned char b[16];
    size_t got = 0;

    while (got < sizeof(b)) {
        ssize_t r = getrandom(b + got, sizeof(b) - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            abort(); /* the kernel's generator cannot fail once seeded */
        got += (size_t)r;
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    /* written by hand: every request takes one (its Audit-ID), and printf's 16 conversions
     * were about 2% of a small GET's instructions */
    for (size_t i = 0, o = 0; i < sizeof(b); i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = "0123456789abcdef"[b[i] >> 4];
        out[o++] = "0123456789abcdef"[b[i] & 0xf];
    }
    out[GW_UUID_LEN] = '\0';
}

void
gw_apiserver_id(const char *host, char *out, size_t len)
{
    uint8_t in[16 + 256] = {0}, sha1[SHA_DIGEST_LENGTH];
    size_t n = strnlen(host, 256);

    memcpy(in + 16, host, n); /* the nil namespace's 16 zero bytes, then the name */
    SHA1(in, 16 + n, sha1);
    sha1[6] = (uint8_t)((sha1[6] & 0x0f) | 0x50); /* version 5 */
    sha1[8] = (uint8_t)((sha1[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, len,
             "apiserver-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             sha1[0], sha1[1], sha1[2], sha1[3], sha1[4], sha1[5], sha1[6], sha1[7], sha1[8],
             sha1[9], sha1[10], sha1[11], sha1[12], sha1[13], sha1[14], sha1[15]);
}

void
gw_apiserver_id_hash(char *out, size_t len)
{
    char host[256] = "", id[64];
    uint8_t sha256[SHA256_DIGEST_LENGTH];

    gethostname(host, sizeof(host) - 1);
    gw_apiserver_id(host, id, sizeof(id));
    SHA256((const uint8_t *)id, strlen(id), sha256);
    size_t at = (size_t)snprintf(out, len, "sha256:");
    for (size_t i = 0; i < sizeof(sha256) && at + 2 < len; i++, at += 2)
        snprintf(out + at, len - at, "%02x", sha256[i]);
}
