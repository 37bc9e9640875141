#ifndef GATEWAY_SERVER_GW_EXCHANGE_H
#define GATEWAY_SERVER_GW_EXCHANGE_H

/*
 * One request and its answer, whichever protocol carries it: an HTTP/1.1 request on its
 * connection (evhttp), or an HTTP/2 stream (gw_h2.c). The API layer reads the request and
 * writes the answer through these calls only, so the filters, handlers and streamed writers are
 * the same for both protocols.
 *
 * Life: the server hands an exchange to the handler with the request complete (headers and
 * body). The handler answers it exactly once, whole (gw_exchange_reply) or streamed
 * (gw_exchange_reply_start, _chunk..., _end); the answer's last call hands the exchange back to
 * its transport, and the caller must not use it afterwards. A client that leaves (its
 * connection closes, or it resets its stream) does not free the exchange: it still must be
 * answered (the answer is then dropped), so the handler's ownership stays simple.
 *
 * Header lists are libevent's `struct evkeyvalq`, read and written with evhttp_find_header,
 * evhttp_add_header and evhttp_remove_header (names compare case-insensitively). An HTTP/2
 * request's pseudo-headers are not in the list (its :authority is, as Host); an HTTP/2 answer
 * leaves out what HTTP/2 forbids (Connection, Keep-Alive, Transfer-Encoding, ...).
 *
 * Thread: everything here runs on the exchange's worker thread.
 */

#include <stdbool.h>
#include <stddef.h>

#include <openssl/ssl.h>

struct evbuffer;
struct evkeyvalq;
struct sockaddr;

typedef struct gw_exchange gw_exchange_t;

/** A notification about an exchange (its client left; its answer drained). It may run inside
 *  the transport's own calls: note what happened and act from the loop. */
typedef void (*gw_exchange_fn)(void *arg);

/** Gives back bytes lent to an answer (gw_exchange_reply_ref) once they are sent or dropped. */
typedef void (*gw_exchange_release_fn)(const void *data, size_t len, void *arg);

/** The protocol of the exchange's connection. */
typedef enum {
    GW_HTTP_1_1,
    GW_HTTP_2,
} gw_http_version_t;

/** The exchange's protocol. */
gw_http_version_t gw_exchange_version(const gw_exchange_t *x);

/** The request method as sent ("GET", "POST", ...). Valid until the answer. */
const char *gw_exchange_method(const gw_exchange_t *x);

/** The request target as sent (origin form: path, then '?' and the query when there is one).
 *  Valid until the answer. */
const char *gw_exchange_target(const gw_exchange_t *x);

/** The target's path, not decoded (at least "/"). Valid until the answer. */
const char *gw_exchange_path(const gw_exchange_t *x);

/** The target's query (after '?', not decoded), or NULL without one. Valid until the answer. */
const char *gw_exchange_query(const gw_exchange_t *x);

/** The request's headers in the order sent; the list is the exchange's (a handler may remove
 *  from it what it no longer needs). Valid until the answer; emptied when a streamed answer
 *  starts (it may last an hour), so copy first what is needed later. */
struct evkeyvalq *gw_exchange_input_headers(gw_exchange_t *x);

/** The request body, complete; the handler may drain it. Valid until the answer. */
struct evbuffer *gw_exchange_body(gw_exchange_t *x);

/** The connection's TLS state (the client's certificate), or NULL over plain TCP. */
SSL *gw_exchange_ssl(const gw_exchange_t *x);

/** The client's address, or NULL when unknown. Valid until the answer. */
const struct sockaddr *gw_exchange_peer(const gw_exchange_t *x);

/** The answer's headers, to add to before the answer starts (emptied once it has). */
struct evkeyvalq *gw_exchange_output_headers(gw_exchange_t *x);

/**
 * Answer whole: status `code` and the bytes of `body` (may be NULL: no body; its bytes are
 * taken, leaving it empty), with their Content-Length. Ends the exchange.
 */
void gw_exchange_reply(gw_exchange_t *x, int code, struct evbuffer *body);

/** Start a streamed answer of status `code`: its headers go out now, without a length. */
void gw_exchange_reply_start(gw_exchange_t *x, int code);

/** Queue the bytes of `data` (taken, leaving it empty) as the streamed answer's next piece. */
void gw_exchange_reply_chunk(gw_exchange_t *x, struct evbuffer *data);

/**
 * Queue `len` bytes at `data`, lent (not copied), as the streamed answer's next piece, after
 * what was queued before; release(data, len, arg) once they are written or dropped, possibly
 * from inside this call. Thousands of streams may hold the same bytes: an HTTP/2 stream keeps a
 * few words per piece lent, not a buffer.
 */
void gw_exchange_reply_ref(gw_exchange_t *x, const void *data, size_t len,
                           gw_exchange_release_fn release, void *arg);

/** End a streamed answer: what was queued goes out, then its end. Ends the exchange. */
void gw_exchange_reply_end(gw_exchange_t *x);

/** Bytes of this answer queued and not yet written to the client's socket (HTTP/1.1: of the
 *  connection's output; HTTP/2: of this stream's, beside what flow control holds back). 0 once
 *  the client left. */
size_t gw_exchange_queued(gw_exchange_t *x);

/**
 * Call fn(arg) each time the streamed answer's queued bytes drop to 0 (fn NULL: no longer).
 * Set it after gw_exchange_reply_start; dropped when the exchange ends.
 */
void gw_exchange_on_drained(gw_exchange_t *x, gw_exchange_fn fn, void *arg);

/**
 * Call fn(arg) once if the client leaves before the exchange ends (its connection closes, or it
 * resets the stream); at once, from inside this call, when it has already left. fn NULL drops
 * it. The exchange must still be answered.
 */
void gw_exchange_on_gone(gw_exchange_t *x, gw_exchange_fn fn, void *arg);

/**
 * A streamed answer that may last (a watch): while it is open the client need not send
 * anything (no read timeout), yet one that takes nothing for the server's write timeout is
 * dropped, and a client that keeps sending is not read beyond a request's headers' worth (HTTP/
 * 1.1; an HTTP/2 connection's other streams go on). Call after gw_exchange_reply_start.
 */
void gw_exchange_long_running(gw_exchange_t *x);

/**
 * The handler reads nothing more of the request (its line, query, headers and body) while it
 * goes on answering: the transport may free them. Afterwards method, target and path are ""
 * and the query NULL. Call after gw_exchange_reply_start.
 */
void gw_exchange_release_request(gw_exchange_t *x);

#endif
