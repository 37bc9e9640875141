#ifndef GATEWAY_SERVER_GW_SERVER_INT_H
#define GATEWAY_SERVER_GW_SERVER_INT_H

/* Internals shared by gw_server.c (process side) and gw_worker.c (thread side). */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gw_exchange.h"
#include "gw_server.h"

struct event;
struct evhttp;
struct evhttp_bound_socket;
struct evhttp_request;

struct gw_worker {
    gw_server_t *srv;
    int index;
    int listen_fd; /* this worker's dup of the listening socket, owned by its evhttp */
    pthread_t thread;
    struct event_base *base;
    gw_timers_t *timers; /* the many timers of what the worker serves (watches) */
    struct evhttp *http;
    struct evhttp_bound_socket *bound;
    etcd_conn_t *etcd;
    struct event *stop_ev;  /* activated by gw_server_stop from another thread */
    struct event *drain_ev; /* polls until the requests in progress are done */
    int64_t drain_deadline_ms;
    int64_t drain_ms; /* written before stop_ev is activated */
    bool draining;
    int active; /* HTTP/1.1 requests dispatched and not yet finished; worker thread only */
    struct h2_link *h2_conns; /* this worker's HTTP/2 connections (gw_worker.c) */
};

struct gw_server {
    gw_server_opts_t opts;
    int listen_fd;
    gw_worker_t *workers;
    int n_workers;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ready; /* workers serving so far, under lock */
};

/** Make the server's ALPN choice on ctx: h2 when the client offers it, else http/1.1 (or no
 *  ALPN). Thread: before the workers start. */
void gw_server__alpn_setup(SSL_CTX *ctx);

/** Thread body of one worker: set up, serve until stopped, tear down. */
void *gw_server__worker_main(void *arg);

/**
 * Call gone(arg) if req's connection closes before req is answered (evhttp notices a peer
 * that left while it writes a response, or at once while a streamed response is open). The
 * callback is dropped when req completes, or by passing gone NULL (do that before answering);
 * at most one per request. req must still be answered (evhttp then frees it without sending).
 * Thread: the request's worker (gw_worker.c).
 */
void gw_server__on_gone(struct evhttp_request *req, void (*gone)(void *arg), void *arg);

/** The exchange of an HTTP/1.1 request (gw_http1.c): evhttp's parts, seen through
 *  gw_exchange.h; freed by its answer. Thread: the request's worker. */
gw_exchange_t *gw_server__http1_exchange(struct evhttp_request *req);

#endif
