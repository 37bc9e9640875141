#ifndef GATEWAY_API_GW_WEBHOOK_H
#define GATEWAY_API_GW_WEBHOOK_H

/*
 * The call of a webhook named by a client config (a URL, or a Service with a namespace, name,
 * path and port, and a CA bundle), as kube-apiserver's webhook client makes it: a JSON POST
 * over HTTPS with a 30 s timeout (a deadline: a silent server times out too). A service is
 * reached at a ready address of its EndpointSlices (those labelled
 * kubernetes.io/service-name=<service>), or of its Endpoints when it has no slice (kube-apiserver
 * with --enable-aggregator-routing=true), the certificate checked against
 * "<service>.<namespace>.svc". Conversion and admission webhooks use it.
 * Everything runs on the calling worker's event loop (store reads, then gw_fetch); the
 * connection to a named webhook is kept alive and reused by its next call on that loop.
 */

#include <stddef.h>

#include "gw_store.h"

struct event_base;

/** Where a webhook is. Borrowed for the call only. */
typedef struct {
    const char *url;           /* https URL, or NULL for a service */
    const char *svc_namespace; /* the service: namespace, name, path ("" or NULL: none) */
    const char *svc_name;
    const char *svc_path;
    int svc_port;       /* its port (kube's default 443) */
    const char *ca_pem; /* the CA bundle (PEM), or NULL: the system's CAs */
    int timeout_ms;     /* 0: kube's 30 s */
    const char *name;   /* the webhook's name: calls of one name reuse a kept-alive connection
                           (kube's client per webhook); NULL: none kept */
} gw_webhook_target_t;

/**
 * The outcome: err 0 with the HTTP status and body (borrowed for the callback), or a negative
 * GW_E* code with `why`, the failure in Go's net/http words as kube's errors quote it
 * (`Post "https://host:port/path?timeout=30s": dial tcp host:port: connect: connection
 * refused`, `...: services "x" not found`).
 */
typedef void (*gw_webhook_cb)(int err, int status, const char *body, size_t len, const char *why,
                              void *ctx);

/**
 * POST body (JSON) to the webhook. cb fires exactly once, later, from `base`'s loop. store
 * reads a service's Service and Endpoints. Thread: the thread running `base` (a worker).
 */
void gw_webhook_post(struct event_base *base, gw_store_t *store, const gw_webhook_target_t *t,
                     const char *body, size_t len, gw_webhook_cb cb, void *ctx);

#endif
