#ifndef GATEWAY_SERVER_GW_EXCHANGE_INT_H
#define GATEWAY_SERVER_GW_EXCHANGE_INT_H

/*
 * What a transport fills in for an exchange (gw_exchange.h): the request as parsed, read through
 * plain getters, and the answer's operations, which each protocol implements (gw_worker.c for
 * HTTP/1.1 over evhttp, gw_h2.c for HTTP/2 streams).
 */

#include "gw_exchange.h"

typedef struct {
    void (*reply)(gw_exchange_t *x, int code, struct evbuffer *body);
    void (*reply_start)(gw_exchange_t *x, int code);
    void (*reply_chunk)(gw_exchange_t *x, struct evbuffer *data);
    void (*reply_ref)(gw_exchange_t *x, const void *data, size_t len,
                      gw_exchange_release_fn release, void *arg);
    void (*reply_end)(gw_exchange_t *x);
    size_t (*queued)(gw_exchange_t *x);
    void (*on_drained)(gw_exchange_t *x, gw_exchange_fn fn, void *arg);
    void (*on_gone)(gw_exchange_t *x, gw_exchange_fn fn, void *arg);
    void (*long_running)(gw_exchange_t *x);
    void (*release_request)(gw_exchange_t *x); /* NULL: the transport keeps it */
} gw_exchange_ops_t;

/* Embedded first in each transport's own exchange; the strings and lists are the transport's
 * and stay valid until the answer ends the exchange. */
struct gw_exchange {
    const gw_exchange_ops_t *ops;
    gw_http_version_t version;
    const char *method;
    const char *target;
    const char *path;  /* at least "/" */
    const char *query; /* NULL without '?' */
    struct evkeyvalq *input_headers;
    struct evkeyvalq *output_headers;
    struct evbuffer *body;
    SSL *ssl;
    const struct sockaddr *peer;
};

#endif
