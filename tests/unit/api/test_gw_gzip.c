/* The response compressor: what it writes inflates back to the bytes given, whole or in
 * pieces of any size, as one gzip member; a stream not finished stays truncated. */
#include "gw_gzip.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <zlib.h>

#include "tap.h"

/* Inflate a gzip member from data[0..len) into a new buffer (*out_len bytes). *end is set when
 * the member ended and *rest to the bytes after it. NULL on a corrupt stream. */
static unsigned char *
gunzip(const unsigned char *data, size_t len, size_t *out_len, bool *end, size_t *rest)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *out = malloc(cap);
    z_stream z = {0};
    int rc = Z_OK;

    if (out == NULL || inflateInit2(&z, 15 + 16) != Z_OK)
        abort();
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    while (rc == Z_OK) {
        if (n == cap && (out = realloc(out, cap *= 2)) == NULL)
            abort();
        z.next_out = out + n;
        z.avail_out = (uInt)(cap - n);
        rc = inflate(&z, Z_NO_FLUSH);
        n = cap - z.avail_out;
    }
    *end = rc == Z_STREAM_END;
    *rest = z.avail_in;
    inflateEnd(&z);
    if (rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        free(out);
        return NULL;
    }
    *out_len = n;
    return out;
}

/* Text that compresses (a JSON list's items) followed by bytes that do not. */
static unsigned char *
sample(size_t text, size_t noise)
{
    unsigned char *b = malloc(text + noise);
    uint32_t x = 12345;

    if (b == NULL)
        abort();
    for (size_t i = 0; i < text; i++)
        b[i] =
            (unsigned char)"{\"metadata\":{\"name\":\"cm-0001\"},\"data\":{\"k\":\"v\"}},"[i % 49];
    for (size_t i = 0; i < noise; i++) {
        x = x * 1103515245 + 12345;
        b[text + i] = (unsigned char)(x >> 16);
    }
    return b;
}

/* Whether buf holds exactly one gzip member of want[0..len). */
static bool
holds(struct evbuffer *buf, const unsigned char *want, size_t len)
{
    size_t n = evbuffer_get_length(buf), got_len = 0, rest = 0;
    const unsigned char *z = evbuffer_pullup(buf, -1);
    bool end = false;
    unsigned char *got =
        n >= 2 && z[0] == 0x1f && z[1] == 0x8b ? gunzip(z, n, &got_len, &end, &rest) : NULL;
    bool ok = got != NULL && end && rest == 0 && got_len == len &&
              (len == 0 || memcmp(got, want, len) == 0);

    free(got);
    return ok;
}

static void
check_whole(void)
{
    size_t len = 1 << 20;
    unsigned char *in = sample(len, 0);
    struct evbuffer *out = evbuffer_new();

    gw_gzip_all(in, len, out);
    tap_ok(holds(out, in, len), "a whole answer inflates back to its bytes");
    tap_ok(evbuffer_get_length(out) < len / 10, "text compresses (%zu bytes from %zu)",
           evbuffer_get_length(out), len);
    evbuffer_free(out);
    out = evbuffer_new();
    gw_gzip_all(NULL, 0, out);
    tap_ok(holds(out, (const unsigned char *)"", 0), "an empty answer is a valid empty member");
    evbuffer_free(out);
    free(in);
}

/* In pieces of growing sizes (empty ones too), random bytes past the 64 KiB output step. */
static void
check_pieces(void)
{
    size_t len = (1 << 19) + (300 << 10), at = 0, step = 0;
    unsigned char *in = sample(1 << 19, 300 << 10);
    struct evbuffer *out = evbuffer_new();
    gw_gzip_t *g = gw_gzip_new();

    while (at < len) {
        size_t n = step % 7 == 3 ? 0 : (step * step * 37) % 150000 + 1;
        if (n > len - at)
            n = len - at;
        gw_gzip_add(g, in + at, n, false, out);
        at += n;
        step++;
    }
    gw_gzip_add(g, NULL, 0, true, out);
    gw_gzip_free(g);
    tap_ok(step > 10, "the input went in %zu pieces", step);
    tap_ok(holds(out, in, len), "pieces inflate back to their concatenation");
    evbuffer_free(out);
    free(in);
}

/* A stream cut short: what was written is a prefix of the bytes, and no member ends there. */
static void
check_unfinished(void)
{
    size_t len = (1 << 18) + (1 << 19), got_len = 0, rest = 0;
    unsigned char *in = sample(1 << 18, 1 << 19), *got;
    struct evbuffer *out = evbuffer_new();
    gw_gzip_t *g = gw_gzip_new();
    bool end = true;

    gw_gzip_add(g, in, len, false, out);
    got = gunzip(evbuffer_pullup(out, -1), evbuffer_get_length(out), &got_len, &end, &rest);
    tap_ok(got != NULL && !end, "an unfinished stream has no end");
    tap_ok(got != NULL && got_len > 0 && got_len <= len && memcmp(got, in, got_len) == 0,
           "... and inflates to a prefix of the bytes (%zu of %zu)", got_len, len);
    free(got);
    gw_gzip_free(g); /* freed unfinished */
    evbuffer_free(out);
    free(in);
}

int
main(void)
{
    check_whole();
    check_pieces();
    check_unfinished();
    return tap_done();
}
