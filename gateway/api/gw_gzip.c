/* gzip of response bodies through zlib: a deflate stream with the gzip wrapper. */
#include "gw_gzip.h"

#include <limits.h>
#include <stdlib.h>

#include <event2/buffer.h>
#include <zlib.h>

#include "gw_alloc.h"

#define GZIP_LEVEL 1          /* kube-apiserver's: speed over ratio */
#define GZIP_WINDOW (15 + 16) /* the largest window, with the gzip header and trailer */
#define OUT_STEP (64 * 1024)  /* output space reserved per round */

struct gw_gzip {
    z_stream z;
};

gw_gzip_t *
gw_gzip_new(void)
{
    gw_gzip_t *g = gw_calloc(1, sizeof(*g));

    if (deflateInit2(&g->z, GZIP_LEVEL, Z_DEFLATED, GZIP_WINDOW, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort(); /* only out of memory */
    return g;
}

void
gw_gzip_add(gw_gzip_t *g, const void *data, size_t len, bool finish, struct evbuffer *out)
{
    struct evbuffer_iovec v;
    int rc;

    /* zlib counts input in uInt: a larger piece goes in parts. */
    while (len > UINT_MAX) {
        gw_gzip_add(g, data, UINT_MAX, false, out);
        data = (const char *)data + UINT_MAX;
        len -= UINT_MAX;
    }
    g->z.next_in = (Bytef *)data;
    g->z.avail_in = (uInt)len;
    do {
        if (evbuffer_reserve_space(out, OUT_STEP, &v, 1) != 1)
            abort();
        g->z.next_out = v.iov_base;
        g->z.avail_out = (uInt)v.iov_len;
        rc = deflate(&g->z, finish ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_ERROR)
            abort(); /* a finished stream given more: a defect */
        v.iov_len -= g->z.avail_out;
        evbuffer_commit_space(out, &v, 1);
    } while (g->z.avail_out == 0 || (finish && rc != Z_STREAM_END));
}

void
gw_gzip_free(gw_gzip_t *g)
{
    if (g == NULL)
        return;
    deflateEnd(&g->z);
    free(g);
}

void
gw_gzip_all(const void *data, size_t len, struct evbuffer *out)
{
    gw_gzip_t *g = gw_gzip_new();

    gw_gzip_add(g, data, len, true, out);
    gw_gzip_free(g);
}
