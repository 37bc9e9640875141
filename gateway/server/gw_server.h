#ifndef GATEWAY_SERVER_GW_SERVER_H
#define GATEWAY_SERVER_GW_SERVER_H

/*
 * kgate's HTTPS front: W worker threads, each with its own event_base, evhttp and etcd conn,
 * all accepting from one listening socket. Every request is handed to one handler, and its
 * response carries an Audit-ID header: the client's own when it sent a usable one (printable,
 * no spaces, at most GW_AUDIT_ID_MAX bytes), as kube-apiserver echoes it, else a fresh UUID;
 * only the errors evhttp sends by itself for malformed or oversized requests (400, 413, 405)
 * have none.
 *
 * Limits on every connection: request headers up to GW_SERVER_MAX_HEADERS bytes, bodies up to
 * GW_SERVER_HARD_MAX_BODY bytes (evhttp refuses larger ones itself; the handler enforces the
 * API's own GW_SERVER_MAX_BODY so that it can answer with a proper error), and an idle/read
 * timeout of GW_SERVER_READ_TIMEOUT_S seconds.
 *
 * TLS clients that offer HTTP/2 (ALPN "h2", as client-go, kubectl and Helm do) get it: evhttp
 * accepts every connection, and one whose handshake chose h2 is taken from it to an HTTP/2
 * session (gw_h2.h) whose streams reach the same handler. Others speak HTTP/1.1 with evhttp.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "etcd.h"
#include "gw_exchange.h"
#include "gw_timers.h"

struct event_base;

#define GW_SERVER_MAX_HEADERS (64 * 1024)
#define GW_SERVER_MAX_BODY (3 * 1024 * 1024)
#define GW_SERVER_HARD_MAX_BODY (2 * GW_SERVER_MAX_BODY)
#define GW_SERVER_READ_TIMEOUT_S 60
#define GW_AUDIT_ID_MAX 128

typedef struct gw_server gw_server_t;
typedef struct gw_worker gw_worker_t;

/**
 * A request handler. Runs on worker w's thread with the request's Audit-ID (already set as a
 * response header; valid during this call only). It must answer x exactly once, now or later
 * from the same thread (gw_exchange.h).
 */
typedef void (*gw_handler_fn)(gw_exchange_t *x, const char *audit_id, gw_worker_t *w, void *data);

/** Called on each worker's thread: after its etcd conn exists / before it is freed. */
typedef void (*gw_worker_hook_fn)(gw_worker_t *w, void *arg);

typedef struct {
    const char *bind_address; /* IPv4 or IPv6 literal */
    int port;
    int workers;                /* >= 1 */
    SSL_CTX *tls;               /* borrowed; must outlive the server; its ALPN callback becomes the
                                   server's (h2, then http/1.1) */
    uint32_t http2_max_streams; /* streams an HTTP/2 client may open at once (0: Go's 250) */
    etcd_client_t *etcd;        /* borrowed; must outlive the server */
    gw_handler_fn handler;      /* every request goes here */
    void *handler_data;
    gw_worker_hook_fn on_start; /* may be NULL */
    gw_worker_hook_fn on_drain; /* may be NULL; when the drain begins (listener closed): end
                                   long-running requests (watches) now */
    gw_worker_hook_fn on_stop;  /* may be NULL */
    gw_worker_hook_fn on_exit;  /* may be NULL; after the worker's etcd conn is freed (every
                                   etcd callback has fired) and before its evhttp is */
    void *hook_arg;
} gw_server_opts_t;

/**
 * Raise the process's soft limit on open descriptors to its hard limit (as Go's runtime does
 * for kube-apiserver: each watch holds a connection), bind the listening socket (TCP_NODELAY,
 * inherited by accepted sockets) and start the workers; returns once every worker serves. On error
 * (the address cannot be bound) returns GW_EINVAL with a one-line reason in err and nothing is left
 * running. evthread_use_pthreads() must have been called. SIGPIPE should be ignored by the process.
 * Thread: the main thread.
 */
int gw_server_start(const gw_server_opts_t *opts, gw_server_t **out, char *err, size_t err_len);

/**
 * Stop accepting, let the requests in progress finish for at most drain_ms (responses sent
 * meanwhile ask clients to close their connections), then close every connection, run
 * on_stop and free each worker's etcd conn on its thread, join the workers and free the
 * server. Thread: the thread that started it.
 */
void gw_server_stop(gw_server_t *s, int64_t drain_ms);

/** What the HTTP front has served, process-wide (every server in the process). */
typedef struct {
    long http1_requests, http2_requests; /* requests received, by protocol */
    long http2_connections;              /* HTTP/2 connections open */
    long http2_streams;                  /* HTTP/2 streams open (requests read or answered) */
} gw_server_http_stats_t;

/** Fill out with the counts so far. Thread: any. */
void gw_server_http_stats(gw_server_http_stats_t *out);

/** The worker's index (0..workers-1). Thread: any. */
int gw_worker_index(const gw_worker_t *w);

/** The worker's event_base. Thread: any; use it only from the worker's thread. */
struct event_base *gw_worker_base(const gw_worker_t *w);

/** The worker's timer set (gw_timers.h). Thread: the worker's. */
gw_timers_t *gw_worker_timers(const gw_worker_t *w);

/** The worker's etcd conn: calls started on it complete on this worker. Thread: the worker's. */
etcd_conn_t *gw_worker_etcd(const gw_worker_t *w);

#endif
