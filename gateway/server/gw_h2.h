#ifndef GATEWAY_SERVER_GW_H2_H
#define GATEWAY_SERVER_GW_H2_H

/*
 * HTTP/2 connections (RFC 9113, over TLS after ALPN "h2"): one libnghttp2 server session per
 * connection, driven from the connection's bufferevent, each request stream handed out as a
 * gw_exchange_t (gw_exchange.h) so the API layer answers it as it answers HTTP/1.1.
 *
 * Output is bounded: frames are serialized into the bufferevent's output only while it holds
 * less than GW_H2_OUTPUT_HIGH bytes; the rest of an answer waits in its stream, where
 * gw_exchange_queued sees it. Requests are collected whole (headers and body) before dispatch.
 *
 * Callbacks: dispatch runs while the module reads the connection (from the loop, never inside
 * a call the owner or a handler made); an exchange's on_drained runs while the module writes;
 * on_gone runs from the loop, inside gw_h2_conn_free, or inside gw_exchange_on_gone when the
 * client already left. `closed` runs from the loop alone.
 *
 * Thread: a connection and its exchanges belong to the thread of the bufferevent's event_base.
 */

#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "gw_exchange.h"

struct bufferevent;
struct sockaddr;

/* Serialized frames stop once the connection's output holds this much; one more DATA frame
 * (16 KiB at most, as we never raise the frame size) may pass it. */
#define GW_H2_OUTPUT_HIGH (64 * 1024)

typedef struct gw_h2_conn gw_h2_conn_t;

typedef struct {
    uint32_t max_streams;   /* SETTINGS_MAX_CONCURRENT_STREAMS we announce */
    size_t max_header_list; /* bytes of a request's header list (name + value + 32 per field,
                               as RFC 9113 counts them); past it the stream is answered 431 */
    size_t max_body;        /* a body past this is answered 413 by the module, not dispatched */
    int write_timeout_s;    /* output that does not move for this long drops the connection */
    int preface_timeout_s;  /* a client that has not sent its preface and SETTINGS by then is
                               dropped; 0: GW_SERVER_READ_TIMEOUT_S. No read timeout after. */
    void (*dispatch)(gw_exchange_t *x, void *arg); /* a request is complete: answer it (may run
                                                      inside the module's own calls) */
    void (*closed)(void *arg); /* the connection is over (c is freed): the owner frees the bev */
    void *arg;
    SSL *ssl;                    /* for gw_exchange_ssl (NULL over plain sockets) */
    const struct sockaddr *peer; /* for gw_exchange_peer; must outlive every exchange */
} gw_h2_config_t;

/**
 * Take over bev (connected, TLS done): its callbacks, watermarks and timeouts become the
 * module's; bev stays the caller's, who frees it only after `closed` or after gw_h2_conn_free.
 * Bytes already in bev's input (the client's preface, read with the TLS handshake) are
 * processed from the loop right after this returns, never inside it. Queues our SETTINGS.
 * cfg is copied. Thread: bev's event_base thread.
 */
gw_h2_conn_t *gw_h2_conn_new(struct bufferevent *bev, const gw_h2_config_t *cfg);

/**
 * Graceful end (server drain, --goaway-chance): a GOAWAY naming the last stream received;
 * streams in progress finish, then the connection closes and `closed` is called from the loop.
 * Idempotent; may be called from inside dispatch. Thread: the connection's.
 */
void gw_h2_conn_goaway(gw_h2_conn_t *c);

/** The HTTP/2 connection x arrived on, or NULL for an HTTP/1.1 exchange or one whose client
 *  has left (stream reset, connection gone). Thread: the exchange's. */
gw_h2_conn_t *gw_h2_conn_of(gw_exchange_t *x);

/** Streams open on c (for metrics): requests being read or answered. Thread: c's. */
size_t gw_h2_conn_streams(const gw_h2_conn_t *c);

/** Streams open on every connection of the process (for metrics). Thread: any. */
long gw_h2_open_streams(void);

/**
 * The owner is going away now (worker shutdown): c lets go of bev (its callbacks are cleared
 * here, and it is never touched again) and is freed; exchanges not yet answered see their
 * client gone (their on_gone callbacks run inside this call) and are freed when answered.
 * `closed` is not called. Not from inside dispatch. Thread: c's.
 */
void gw_h2_conn_free(gw_h2_conn_t *c);

#endif
