#ifndef GATEWAY_API_GW_API_INT_H
#define GATEWAY_API_GW_API_INT_H

/* Internals shared by the files of gateway/api/. */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_api.h"
#include "gw_arena.h"
#include "gw_gzip.h"
#include "gw_metrics.h"
#include "gw_negotiate.h"
#include "gw_req.h"
#include "gw_watch.h"

struct event;
struct evbuffer;
struct evbuffer_cb_entry;

/* kube-apiserver compresses responses larger than this when the client accepts gzip. */
#define GW_API_GZIP_MIN (128 * 1024)

/* ---- documents served from memory (gw_docs.c) --------------------------------------------- */

/** A document encoded once: compact JSON bytes and its ETag. */
typedef struct {
    char *key; /* "/version", "/apis/apps/v1", "agg:/apis:v2" (aggregated discovery), ... */
    char *json;
    size_t len;
    char *etag; /* the SHA-512 of json in upper-case hex, quoted, as kube's ETags */
} gw_api__doc_t;

typedef struct {
    gw_api__doc_t *docs; /* sorted by key */
    size_t n;
} gw_api__docs_t;

/** Build every discovery and version document of catalog c. Thread: any. */
void gw_api__docs_build(gw_api__docs_t *d, const gw_catalog_t *c);
void gw_api__docs_free(gw_api__docs_t *d);

/** The document under key, or NULL. Thread: any. */
const gw_api__doc_t *gw_api__docs_find(const gw_api__docs_t *d, const char *key);

/* The documents of one catalog, shared by the requests that hold it (refcounted). */
typedef struct gw_api__docset gw_api__docset_t;

/**
 * The documents of r's catalog, valid until r is freed: the api keeps those of the catalog
 * last asked for and builds them again (a few milliseconds, under the api's lock) when a
 * request holds another one, i.e. once after each new catalog snapshot. Thread: r's.
 */
const gw_api__docs_t *gw_api__docs_of(struct gw_req *r);

/** Drop the api's documents (gw_api_free). */
void gw_api__docs_release(gw_api_t *api);

/* ---- the api and a request's private side --------------------------------------------------- */

typedef struct gw_api__req gw_api__req_t;
struct gw_api__audit;

/* A worker's streams that have work due from its loop (gw_stream.c): one event for all of
 * them, where one each would cost every idle watch an event. */
typedef struct {
    struct event *ev;
    gw_stream_t *first, *last;
} gw_api__wakes_t;

struct gw_api {
    gw_api_config_t cfg;
    char *etcd_prefix;
    gw_store_t **stores;             /* per worker index */
    gw_watch_t *watch;               /* the shared watches (NULL without an etcd client) */
    gw_watch_local_t **watch_locals; /* per worker index */
    gw_stream_t **streams;           /* per worker index: its open streams */
    gw_api__wakes_t *wakes;          /* per worker index */
    _Atomic long open_streams;
    gw_metrics_t *metrics;
    _Atomic int64_t inflight_readonly;
    _Atomic int64_t inflight_mutating;
    pthread_mutex_t docs_lock;
    gw_api__docset_t *docs; /* those of the catalog last asked for, under docs_lock */
};

typedef enum {
    INFLIGHT_NONE,
    INFLIGHT_READONLY,
    INFLIGHT_MUTATING,
} gw_api__inflight_t;

/** What the chain keeps about a request beyond gw_req_t. r is its first member. */
struct gw_api__req {
    gw_req_t r;
    gw_api_t *api;
    bool info_ok;   /* request info parsed (metrics can label the request) */
    bool accept_ok; /* the Accept header allows an answer (else 406 when answering) */
    const char *metrics_subresource; /* non-resource: the route, when one matched */
    const char *component;           /* metrics component label */
    gw_api__inflight_t inflight;
    struct gw_apf_ticket *apf_ticket; /* its priority-and-fairness admission, ended on release */
    struct gw_apf_watch *apf_watch;   /* a watch counted for the mutating work estimator */
    struct event *apf_wake;           /* fired once a queued request is granted its seats */
    struct event *apf_timeout;        /* its wait limit in the queue */
    struct gw_api__audit *audit;      /* the request's audit event; NULL when not audited */
    const char *content_type;         /* replaces the encoder's Content-Type when set */
    const char *body;                 /* gw_req_body's copy, once made */
    size_t body_len;
    size_t resp_bytes; /* the answer's length so far (apiserver_response_sizes) */
    /* authorization in progress */
    bool authz_in_filter;
    bool authz_answered;
    bool authz_allowed;
    char *authz_reason;
    char *authz_error;                /* an authorizer's failure, NULL when none */
    const gw_lifecycle_t *deprecated; /* the served kind is deprecated: its lifecycle, whose
                                         audit annotations the finish adds */
    /* warnings already added, to add each text once as kube does */
    char **warnings;
    size_t n_warnings;
};

#define GW_API_REQ(r) ((gw_api__req_t *)(r))

/** The chain, in order (gw_chain.c). */
extern const gw_filter_t gw_api__filters[];
extern const size_t gw_api__n_filters;

/** A new request on worker w for the evhttp request (gw_req.c). */
gw_req_t *gw_api__req_new(gw_api_t *api, gw_worker_t *w, gw_exchange_t *x, const char *audit_id);

/** Record the request's metrics, release its in-flight slot and free it (gw_req.c). */
void gw_api__req_finish(gw_req_t *r, int code);

/** The same but for the metrics, which the caller records itself (a detached stream at its
 *  end). */
void gw_api__req_release(gw_req_t *r, int code);

/** The labels of r's metrics series, borrowing r's strings; false when r is none (kube counts
 *  only what a route serves). */
bool gw_api__metrics_labels(gw_req_t *r, gw_metrics_labels_t *l);

/** Count one request of series l, answered `code`, that arrived at start_ns (monotonic).
 *  Thread: worker `index`. */
void gw_api__metrics_record(gw_api_t *api, int index, const gw_metrics_labels_t *l, int code,
                            int64_t start_ns);

/** Set kube-apiserver's headers of every response where they are not set yet (gw_req.c). */
void gw_api__default_headers(gw_req_t *r);

/* ---- auditing (gw_audit_req.c) ----------------------------------------------------------------
 */

/** The audit filter: the policy's level for the request and its RequestReceived event; a no-op
 *  without auditing. */
gw_verdict_t gw_api__audit_filter(gw_req_t *r);

/** Authentication failed: the request is audited as kube's failed-authentication audit does it,
 *  with no user and one event, at ResponseStarted, when its 401 goes out. */
void gw_api__audit_unauthorized(gw_req_t *r);

/** The request reached its handler: its body is logged as kube's handlers log it. */
void gw_api__audit_handled(gw_req_t *r);

/** The answer's document (after its PartialObjectMetadata view): a Status gives the event's
 *  responseStatus; at RequestResponse it is the responseObject (a reference is taken). */
void gw_api__audit_response(gw_req_t *r, json_t *doc);

/** The same for an answer of JSON bytes (parsed at RequestResponse only). */
void gw_api__audit_response_bytes(gw_req_t *r, const char *json, size_t len);

/** The answer's status line went out (a streamed answer): ResponseStarted, for long-running
 *  requests. */
void gw_api__audit_started(gw_req_t *r, int code);

/** The answer is complete: ResponseComplete (after ResponseStarted for a long-running request
 *  that had none). From gw_api__req_finish, before r is freed. */
void gw_api__audit_complete(gw_req_t *r, int code);

/** Ask every open stream of worker `index` to end (gw_stream.c). */
void gw_api__streams_stop(gw_api_t *api, int index);

/** The event that runs worker `index`'s streams' due work, on its loop (gw_stream.c); freed
 *  with gw_api__wakes_exit when the worker ends. */
void gw_api__wakes_start(gw_api_t *api, int index, struct event_base *base);
void gw_api__wakes_exit(gw_api_t *api, int index);

/* ---- deprecated kinds (gw_deprecation.c) ------------------------------------------------- */

/** The request reached the handler of r->resource (and r->subresource): when the kind is
 *  deprecated at the server's release, kube's Warning header now and the annotations at the
 *  finish. */
void gw_api__deprecation_mark(gw_req_t *r);

/** The request is finishing: a deprecated kind's audit annotations, which kube's handlers add
 *  when they return. From gw_api__req_finish, before the ResponseComplete event. */
void gw_api__deprecation_finish(gw_req_t *r);

/** The in-flight limit step: API Priority and Fairness, or the max-in-flight limits without
 *  it (gw_apf_filter.c). */
gw_verdict_t gw_api__limit_filter(gw_req_t *r);

/** End r's priority-and-fairness admission and free its events (gw_api__req_release).
 *  Thread: r's. */
void gw_api__apf_end(gw_req_t *r);

/** Run the chain from r->filter_index (gw_chain.c). */
void gw_api__chain_run(gw_req_t *r);

/** Answer a non-resource request from the route table; 404 text when no route (gw_routes.c). */
void gw_api__route(gw_req_t *r);

/** Answer with text/plain as kube's plain-text endpoints do (404 page not found, health). */
void gw_api__reply_text(gw_req_t *r, int code, const char *text, size_t len);

/** Answer 406 NotAcceptable with kube's message. */
void gw_api__reply_not_acceptable(gw_req_t *r);

/** The current negotiation for endpoint ep applied to r (accept, table_version, pretty);
 *  false when the Accept header allows nothing (r keeps JSON for an error answer). */
bool gw_api__negotiate(gw_req_t *r, gw_neg_endpoint_t ep, gw_negotiated_t *out);

/** Answer with a cached document (ETag, If-None-Match -> 304): its bytes as they are with
 *  `raw`, else encoded as negotiated (pretty, YAML). */
void gw_api__reply_doc(gw_req_t *r, const gw_api__doc_t *doc, bool raw);

/** ASCII case-insensitive equality of s[0..len) and the NUL-terminated word. */
bool gw_api__ieq(const char *s, size_t len, const char *word);

#endif
