#ifndef GATEWAY_API_GW_FETCH_H
#define GATEWAY_API_GW_FETCH_H

/*
 * One HTTPS exchange on a worker's event loop: what the authenticators ask of the outside
 * world (an identity provider's discovery document and keys, a TokenReview webhook) and the
 * webhooks the registry calls. HTTP/1.1 through libevent's evhttp client over an OpenSSL
 * bufferevent, one connection per exchange (Connection: close), or kept alive and reused by
 * the exchanges that name the same `reuse`. The server's certificate must chain to the given CAs
 * (or the system's) and name the URL's host (an IP address or a DNS name).
 */

#include <stddef.h>

struct event_base;

/** What to fetch. Borrowed for the call only (everything is copied or used at once). */
typedef struct {
    const char *method;       /* "GET" or "POST" */
    const char *url;          /* https://host[:port][/path][?query] */
    const char *body;         /* POST body, or NULL */
    size_t body_len;          /* its length */
    const char *ca_pem;       /* PEM of the CAs to trust; NULL: the system's */
    const char *cert_pem;     /* client certificate (PEM, may carry its chain), or NULL */
    const char *key_pem;      /* its private key (PEM) */
    const char *bearer_token; /* sent as Authorization: Bearer, or NULL */
    int timeout_ms;           /* per connect/read/write step; 0: 10 s */
    size_t max_body;          /* the largest answer accepted; 0: 4 MiB */
    const char *connect_host; /* where to connect instead of the URL's host (an address that
                                 serves it, e.g. a service's endpoint), or NULL; the
                                 certificate must still name the URL's host */
    int connect_port;         /* the port there (with connect_host) */
    const char *reuse;        /* non-NULL: the connection is kept alive after the answer and
                                 reused by the next exchange of the same `reuse` name to the
                                 same place with the same CAs on the same loop (a reused one
                                 that fails is retried once on a new connection) */
} gw_fetch_req_t;

/**
 * The outcome: err 0 with the HTTP status and the body (borrowed for the call, also
 * NUL-terminated), or err GW_EINVAL (a URL that is not https, unreadable PEM), GW_ETOOLARGE
 * (the answer is over max_body), GW_ETIMEOUT, or GW_EUNAVAILABLE (cannot connect, TLS
 * handshake or certificate refused, connection broken), with status 0 and no body.
 */
typedef void (*gw_fetch_cb)(int err, int status, const char *body, size_t len, void *ctx);

/**
 * Start the exchange on `base`. cb fires exactly once, always later from `base`'s loop (never
 * inside this call), also when the request is refused at once. A host name is resolved with
 * the system's resolver (getaddrinfo, blocking). Thread: the thread running `base`.
 */
void gw_fetch(struct event_base *base, const gw_fetch_req_t *q, gw_fetch_cb cb, void *ctx);

#endif
