#ifndef GATEWAY_SERVER_GW_H2_INT_H
#define GATEWAY_SERVER_GW_H2_INT_H

/*
 * Shared by gw_h2.c (the connection: its session, input, output and end) and gw_h2_stream.c
 * (a stream: the request it collects and the exchange that answers it).
 */

#include "gw_h2.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/keyvalq_struct.h>
#include <nghttp2/nghttp2.h>

#include "gw_exchange_int.h"

typedef struct gw_h2__stream gw_h2__stream_t;

struct gw_h2_conn {
    struct bufferevent *bev;
    nghttp2_session *session;
    gw_h2_config_t cfg;
    struct event *kick;       /* work due from the loop: held input, output, the end */
    gw_h2__stream_t *streams; /* the streams the session holds open */
    size_t nstreams;
    bool goaway;       /* gw_h2_conn_goaway was called */
    bool closing;      /* no more input; closes once its output is written */
    bool preface_seen; /* the client's SETTINGS arrived: no read timeout any more */
    bool busy;         /* inside conn_drive */
    bool lost;         /* the bufferevent reported an error while busy */
};

/*
 * One request stream. It outlives the session's stream when it was dispatched and is not yet
 * answered (the handler still holds it), and the session's stream may outlive the answer while
 * its bytes are sent; it is freed when both are over.
 */
typedef struct gw_h2__piece gw_h2__piece_t;

struct gw_h2__stream {
    gw_exchange_t x;    /* first: what the handler holds */
    gw_h2_conn_t *conn; /* NULL once the client left (stream closed early, connection over) */
    int32_t id;
    gw_h2__stream_t *prev, *next;
    struct evkeyvalq in, out;
    char *method, *target, *authority; /* pseudo-headers, until the request is dispatched */
    char *request_line;    /* then method, target and path, one block (x points into it) */
    struct evbuffer *body; /* the request body, from its first byte until the answer starts */
    /* The answer's bytes not yet framed into the connection, in order: pieces of `copied`
     * (bytes handed over in buffers) and pieces lent by the handler. An idle watch holds
     * neither. */
    gw_h2__piece_t *pieces, *pieces_tail;
    struct evbuffer *copied;
    size_t pending;      /* bytes in the pieces */
    size_t header_bytes; /* of the header block being read */
    bool too_large;      /* its header list passed the limit */
    bool has_host;
    bool headers_done; /* the request's header block is in (what follows: trailers) */
    bool request_done; /** END_STREAM received */
    bool refused;      /* answered by the module itself (4xx/5xx), never dispatched */
    bool dispatched;
    bool head;
    bool submitted;  /* the answer's HEADERS are queued */
    bool providing;  /* nghttp2 holds a data provider of the stream (ended while idle) */
    bool last_piece; /* the provider's last frame is being sent: it ends once that is out */
    bool eof;        /* nothing follows pending */
    bool ended;      /* the handler's answer ended (or the module's was queued) */
    bool close_conn; /* its answer asked to close the connection: GOAWAY once it is sent */
    gw_exchange_fn drained, gone;
    void *drained_arg, *gone_arg;
};

/** The exchange operations of an HTTP/2 stream (gw_h2_stream.c). Everything declared here runs
 *  on the connection's thread. */
extern const gw_exchange_ops_t gw_h2__ops;

/** Has the work queued in c's session (answers, GOAWAY) written from the loop. */
void gw_h2__kick(gw_h2_conn_t *c);

/** A stream the session opened (a request's first HEADERS). */
gw_h2__stream_t *gw_h2__stream_new(gw_h2_conn_t *c, int32_t id);

/** The session closed the stream, or the connection is over: s lets go of the connection and is
 *  freed, unless its handler still holds it (dispatched, not yet answered): then its client has
 *  left, which on_gone hears now. */
void gw_h2__stream_detach(gw_h2__stream_t *s);

/** One request header field (pseudo-header or not), as the session's callback hands it. */
void gw_h2__stream_header(gw_h2__stream_t *s, const uint8_t *name, size_t namelen,
                          const uint8_t *value, size_t valuelen);

/** The request's header block is complete: answer it with an error now if it is one. */
void gw_h2__stream_headers_done(gw_h2__stream_t *s);

/** A piece of the request body. */
void gw_h2__stream_data(gw_h2__stream_t *s, const uint8_t *data, size_t len);

/** END_STREAM received: the request is complete, dispatch it unless already answered. */
void gw_h2__stream_request_done(gw_h2__stream_t *s);

/** A DATA frame of s went out (nghttp2's on_frame_send): when it ended s's provider while
 *  the answer goes on, bytes queued since get a new one. */
void gw_h2__stream_frame_sent(gw_h2__stream_t *s);

/** nghttp2's send_data_callback: a DATA frame of the stream's pending bytes into the output. */
int gw_h2__send_data(nghttp2_session *session, nghttp2_frame *frame, const uint8_t *framehd,
                     size_t length, nghttp2_data_source *source, void *user_data);

#endif
