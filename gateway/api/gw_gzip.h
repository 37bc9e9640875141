#ifndef GATEWAY_API_GW_GZIP_H
#define GATEWAY_API_GW_GZIP_H

/*
 * gzip of response bodies, at kube-apiserver's level (speed over ratio): one compressor for
 * whole answers and for answers written piece by piece. Output goes to an evbuffer, the form
 * every writer of responses hands on. Thread: a compressor belongs to one thread.
 */

#include <stdbool.h>
#include <stddef.h>

struct evbuffer;

typedef struct gw_gzip gw_gzip_t;

/** A new gzip stream (header written with the first output). Aborts when out of memory. */
gw_gzip_t *gw_gzip_new(void);

/**
 * Compress data[0..len) onto the end of `out`. Bytes may stay inside the compressor until a
 * later call; with `finish` everything left and the gzip trailer are written, after which the
 * stream takes nothing more. data may be NULL when len is 0.
 */
void gw_gzip_add(gw_gzip_t *z, const void *data, size_t len, bool finish, struct evbuffer *out);

/** Release a stream, finished or not (NULL is ignored). */
void gw_gzip_free(gw_gzip_t *z);

/** The whole of data[0..len) as one gzip member onto the end of `out`. */
void gw_gzip_all(const void *data, size_t len, struct evbuffer *out);

#endif
