/* The Webhook authorizers' exchanges (gw_authz_io.h): gw_fetch with kube's retries. */
#include "gw_authz_io.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_fetch.h"

#define WEBHOOK_ATTEMPTS 5     /* kube's webhook client: tries of one authorization review */
#define WEBHOOK_BACKOFF_MS 500 /* its first wait, then x1.5 each time, +-20 % */

/* One authorization review, tried again as kube's webhook client does (authz_https_fn). */
typedef struct {
    struct event_base *base;
    struct event *timer;
    const char *url;        /* the authorizer's, valid until cb */
    const authn_tls_t *tls; /* likewise */
    char *body;
    int attempt; /* attempts made */
    authz_https_cb cb;
    void *ctx;
} review_try_t;

/* kube's DefaultShouldRetry: too many requests, internal error, gateway timeout, a refused or
 * broken connection (GW_EUNAVAILABLE, which also covers a failed TLS handshake). */
static bool
retryable(int err, int status)
{
    return err == GW_EUNAVAILABLE ||
           (err == 0 && (status == 429 || status == 500 || status == 504));
}

static void try_review(review_try_t *t);

static void
retry_review(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    try_review(arg);
}

static void
review_tried(int err, int status, const char *body, size_t len, void *ctx)
{
    review_try_t *t = ctx;

    if (retryable(err, status) && t->attempt < WEBHOOK_ATTEMPTS) {
        double ms = WEBHOOK_BACKOFF_MS * (0.8 + 0.4 * ((double)random() / RAND_MAX));
        for (int i = 1; i < t->attempt; i++)
            ms *= 1.5;
        struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((int64_t)ms % 1000 * 1000)};
        evtimer_add(t->timer, &tv);
        return;
    }
    t->cb(err, status, body, len, t->ctx);
    event_free(t->timer);
    free(t->body);
    free(t);
}

static void
try_review(review_try_t *t)
{
    gw_fetch_req_t q = {.method = "POST",
                        .url = t->url,
                        .body = t->body,
                        .body_len = strlen(t->body),
                        .ca_pem = t->tls->ca_pem,
                        .cert_pem = t->tls->cert_pem,
                        .key_pem = t->tls->key_pem,
                        .bearer_token = t->tls->bearer_token,
                        .timeout_ms = t->tls->timeout_ms};
    t->attempt++;
    gw_fetch(t->base, &q, review_tried, t);
}

void
gw_authz_https(void *io, const char *url, const char *body, const authn_tls_t *tls,
               authz_https_cb cb, void *ctx)
{
    review_try_t *t = gw_calloc(1, sizeof(*t));

    *t = (review_try_t){
        .base = io, .url = url, .tls = tls, .body = gw_strdup(body), .cb = cb, .ctx = ctx};
    t->timer = evtimer_new(t->base, retry_review, t);
    try_review(t);
}
