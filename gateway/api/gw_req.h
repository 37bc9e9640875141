#ifndef GATEWAY_API_GW_REQ_H
#define GATEWAY_API_GW_REQ_H

/*
 * A request on its way through kgate: the context every filter and handler shares, the filter
 * chain, and the ways to answer.
 *
 * The chain (gw_chain.c, in order): request info -> authentication -> audit -> impersonation ->
 * authorization -> in-flight limit -> resource resolution -> the resource handler main.c
 * hands in (the registry's gw_registry_handle) or, for non-resource paths, the route table
 * (health, /version, discovery, OpenAPI, /metrics).
 * Each filter returns a verdict: GW_NEXT (go on), GW_DONE (it replied; the chain ends), or
 * GW_SUSPEND (it started asynchronous work and will call gw_chain_resume() later, on the same
 * worker, to go on). The body type of a PATCH is gw_req_patch_type's (gw_negotiate.h).
 *
 * A request is answered exactly once, by one of the gw_reply_* functions; replying finishes
 * it: metrics are recorded and r (with its arena) is freed, so r must not be used afterwards.
 * If the client disconnects first, r->gone becomes true; asynchronous work still completes and
 * still replies (the reply is then discarded), so ownership stays simple.
 * Thread: everything here runs on the request's worker thread.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "authn.h"
#include "authz.h"
#include "gw_arena.h"
#include "gw_catalog.h"
#include "gw_exchange.h"
#include "gw_reqinfo.h"
#include "gw_server.h"
#include "gw_store.h"

struct gw_watch_local;

/** Response media types kgate can produce. */
typedef enum {
    GW_MEDIA_JSON,
    GW_MEDIA_YAML,
    GW_MEDIA_PROTOBUF, /* application/vnd.kubernetes.protobuf (kinds with a protobuf form) */
    GW_MEDIA_CBOR,     /* application/cbor (feature gate CBORServingAndStorage) */
    GW_MEDIA_TABLE,    /* application/json;as=Table;g=meta.k8s.io;v=v1 (or v1beta1) */
    GW_MEDIA_TEXT,     /* text/plain (health) */
} gw_media_t;

/** What a resource answer is converted to before it is encoded. */
typedef enum {
    GW_AS_OBJECT,       /* the object or list itself */
    GW_AS_PARTIAL,      /* PartialObjectMetadata: one object's metadata (get, watch events) */
    GW_AS_PARTIAL_LIST, /* PartialObjectMetadataList (list) */
} gw_as_t;

typedef struct gw_req gw_req_t;

struct gw_req {
    gw_exchange_t *x; /* the request as received, and its answer */
    gw_worker_t *worker;
    const char *audit_id;
    gw_arena_t *arena;              /* owns everything request-scoped; freed after the reply */
    gw_store_t *store;              /* the worker's store */
    struct gw_watch_local *watches; /* the worker's side of the shared watches (gw_watch.h) */
    const gw_catalog_t *catalog;    /* the catalog in force when the request arrived */
    const authn_t *authn;           /* the authenticators (TokenRequest, TokenReview) */
    const authz_t *authz;           /* the authorizers (access reviews, RBAC escalation) */
    bool unsafe_delete;             /* feature gate AllowUnsafeMalformedObjectDeletion */
    bool cbor;                      /* feature gate CBORServingAndStorage */
    int64_t start_ns;               /* monotonic arrival time, for metrics and timeouts */

    gw_reqinfo_t info;                   /* set by the request-info filter */
    const authn_user_t *user;            /* set by authentication */
    const gw_resource_t *resource;       /* set by resolution for resource requests */
    const gw_subresource_t *subresource; /* ditto, when the path names one */

    gw_media_t accept;         /* negotiated response type */
    const char *table_version; /* "v1" or "v1beta1" when accept is GW_MEDIA_TABLE */
    gw_as_t as;                /* a PartialObjectMetadata answer */
    const char *as_version;    /* its meta.k8s.io version ("v1", "v1beta1") */
    bool pretty;               /* ?pretty=true or a browser-like Accept */
    bool gzip;                 /* the client accepts gzip and compression is enabled */

    bool gone;           /* the client disconnected */
    size_t filter_index; /* chain position (the chain's own) */
    bool long_running;   /* watch and similar: exempt from in-flight limits */
    bool mutating;       /* counts against --max-mutating-requests-inflight */
};

/* ---- the chain -------------------------------------------------------------------------- */

typedef enum {
    GW_NEXT,
    GW_DONE,
    GW_SUSPEND,
} gw_verdict_t;

typedef struct {
    const char *name;
    gw_verdict_t (*run)(gw_req_t *r);
} gw_filter_t;

/** Continue the chain after a filter returned GW_SUSPEND, with the filter after it. */
void gw_chain_resume(gw_req_t *r);

/* ---- request data ----------------------------------------------------------------------- */

/** First value of query parameter `key` (decoded, in the arena), or NULL when absent. A
 *  parameter given without '=' has the value "". */
const char *gw_req_query(gw_req_t *r, const char *key);

/** A request header (first occurrence), or NULL. */
const char *gw_req_header(gw_req_t *r, const char *name);

/** The request body as bytes (NUL-terminated, in the arena) and its length. */
const char *gw_req_body(gw_req_t *r, size_t *len);

/** kube's summarizeData of a request body: "<empty>", up to 30 bytes as text when it starts
 *  with '{', else as hex, " ..." when cut (in the arena). Thread: r's worker. */
const char *gw_req_body_summary(gw_req_t *r, const char *body, size_t len);

/**
 * Decode the request body into a JSON document according to its Content-Type (JSON, or YAML
 * converted to JSON). Duplicate and unknown-field handling is the caller's (see
 * gw_fieldval.h). On error replies 400/415 itself and returns NULL (the request is then
 * finished). The document is owned by the arena. `allow_empty` lets an empty body through as
 * NULL with *empty set (delete options).
 */
json_t *gw_req_body_object(gw_req_t *r, bool allow_empty, bool *empty);

/** Add a `Warning: 299 - "<text>"` response header (text escaped as kube-apiserver does). */
void gw_req_warning(gw_req_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Set a response header (e.g. Location, Retry-After, ETag). */
void gw_req_set_header(gw_req_t *r, const char *name, const char *value);

/**
 * Add an annotation to the request's audit event, as kube's audit.AddAuditAnnotation: the first
 * value of a key stays (a later different value is dropped with a log line). A no-op when the
 * request is not audited (no policy, or level None), so callers need not check.
 */
void gw_req_audit_annotate(gw_req_t *r, const char *key, const char *value);

/** gw_req_audit_annotate for an event of level Request or more only (kube's
 *  AddAnnotationWithLevel(..., LevelRequest): a mutating webhook's patch). */
void gw_req_audit_annotate_at_request(gw_req_t *r, const char *key, const char *value);

/** The watch r serves is initialised: its initial events are written and it follows changes
 *  now. Priority and fairness gets the seats back that a watch sending initial events held
 *  until now (kube's); a no-op otherwise. Thread: r's worker. */
void gw_req_watch_initialized(gw_req_t *r);

/* ---- answers ---------------------------------------------------------------------------- */

/**
 * Answer with an object (a JSON document; the reply takes a reference and encodes it as
 * negotiated: JSON, YAML, pretty, gzip; for GW_MEDIA_TABLE the handler builds the Table
 * itself and passes it here). Finishes the request.
 */
void gw_reply_json(gw_req_t *r, int code, json_t *doc);

/**
 * Answer with already-encoded JSON bytes (e.g. an object as stored, spliced). Converted if the
 * negotiated type is YAML or pretty JSON. Finishes the request.
 */
void gw_reply_json_bytes(gw_req_t *r, int code, const char *json, size_t len);

/* ---- streamed answers (watches, large lists) ------------------------------------------------ */

/*
 * A streamed answer is the one writer of its body: handlers hand it encoded bytes, and it owns
 * what the transport needs (compression, framing as chunks, what is queued on the connection).
 * Bytes added are held until a flush sends them; a producer that must not run ahead of its
 * client passes a high-water mark to gw_stream_flush and waits for its resume callback.
 */

/** Bytes queued on a connection beyond which a streamed list waits for its client. */
#define GW_STREAM_HIGH_WATER (256 * 1024)

/** A streamed answer, from gw_stream_start to gw_stream_end or gw_stream_cut. */
typedef struct gw_stream gw_stream_t;

/** Called when a stream must end: its client left (nothing more reaches it) or the server is
 *  shutting down. The holder ends the stream with gw_stream_end, at once or soon after. */
typedef void (*gw_stream_stop_fn)(void *arg);

/** Called once what was queued on the connection has been sent. */
typedef void (*gw_stream_drained_fn)(void *arg);

/** Releases bytes lent to gw_stream_add_ref, once the stream is done with them. */
typedef void (*gw_stream_cleanup_fn)(const void *data, size_t len, void *arg);

/**
 * Start a streamed 200 answer of `content_type`, gzipped when `gzip` (Content-Encoding and Vary
 * set): the headers go out now and the body follows with gw_stream_add and gw_stream_flush until
 * gw_stream_end or gw_stream_cut. While it is open the connection is exempt from the server's
 * read timeout (a watch client sends nothing) and reads no more than a request's headers' worth
 * of input. `stop` is called once, from the loop (never from inside another call of this API),
 * when the stream must end. The stream is r's until it ends (it frees itself then). Thread: r's
 * worker, as every call on the stream.
 */
gw_stream_t *gw_stream_start(gw_req_t *r, const char *content_type, bool gzip,
                             gw_stream_stop_fn stop, void *arg);

/**
 * Let the request go while its stream goes on (a long-running answer that needs nothing more
 * of the request: an idle watch then costs its stream, not its request's arena). r is
 * finished and freed now, except for its metrics, which the stream's end records with the
 * whole duration; the stream keeps a reference to r's catalog until then. Returns false, and
 * keeps r, when r must last as long as its answer (its audit event is written at the end).
 */
bool gw_stream_detach(gw_stream_t *s);

/** The catalog the stream's request was served from (valid until the stream ends). */
const gw_catalog_t *gw_stream_catalog(const gw_stream_t *s);

/** The stream's request's audit ID, for logs (valid until the stream ends). */
const char *gw_stream_audit_id(const gw_stream_t *s);

/** Whether r's answer can be streamed at all: a GET's can (a HEAD's has no body). */
bool gw_stream_allowed(gw_req_t *r);

/** Add a copy of data[0..len) to the body (compressed when the stream is); sent by the next
 *  flush. Dropped once the client is gone. */
void gw_stream_add(gw_stream_t *s, const void *data, size_t len);

/**
 * Add data[0..len) to the body without copying it when the stream is not compressed (bytes
 * shared between streams, such as a watch event's); `cleanup(data, len, arg)` is called once
 * the stream no longer needs them (at once when they were compressed, or the client is gone).
 */
void gw_stream_add_ref(gw_stream_t *s, const void *data, size_t len, gw_stream_cleanup_fn cleanup,
                       void *arg);

/**
 * Send what was added since the last flush (one chunk). Returns false to go on producing. With
 * `resume` set and more than `high_water` bytes then queued on the connection, returns true:
 * the producer waits, and `resume` is called (from the loop) once everything queued is sent;
 * it replaces an earlier resume not yet called. Once the client is gone, nothing is sent, false
 * is returned and no resume is called (the stream's stop callback is).
 */
bool gw_stream_flush(gw_stream_t *s, size_t high_water, gw_stream_drained_fn resume, void *arg);

/** Bytes queued on the connection and not yet sent (0 once the client is gone). */
size_t gw_stream_queued(const gw_stream_t *s);

/** End the stream complete: what was added is sent, with a compressed body's end, then the
 *  body's end (the last chunk, when the client is still there). Finishes the request and frees
 *  the stream. */
void gw_stream_end(gw_stream_t *s);

/**
 * End the stream short of its end (a failure once the answer is under way): what was added
 * since the last flush is dropped and a compressed body is left unfinished, so that the
 * client's decoder reports a truncated answer. Finishes the request and frees the stream.
 */
void gw_stream_cut(gw_stream_t *s);

/** Answer with bytes of a given content type as they are (OpenAPI documents, metrics). */
void gw_reply_raw(gw_req_t *r, int code, const char *content_type, const void *data, size_t len);

/**
 * Answer with a metav1.Status failure: code, kube reason ("NotFound", "AlreadyExists",
 * "Conflict", "Invalid", "BadRequest", "Forbidden", "MethodNotAllowed", "NotAcceptable",
 * "UnsupportedMediaType", "RequestEntityTooLarge", "TooManyRequests", "Expired", "Gone",
 * "Timeout", "InternalError", "ServiceUnavailable", "Unauthorized"), details (may be NULL;
 * the reply takes a reference: {name, group, kind, causes:[{reason,message,field}]}) and a
 * message. Finishes the request.
 */
void gw_reply_status(gw_req_t *r, int code, const char *reason, json_t *details, const char *fmt,
                     ...) __attribute__((format(printf, 5, 6)));

/**
 * Answer a gw_err.h error about the object `name` (may be "" or NULL) of the request's
 * resource, with kube-apiserver's reason, code and message for it: GW_ENOTFOUND ->
 * 404 `<resource>[.<group>] "<name>" not found`, GW_EEXIST -> 409 AlreadyExists, GW_ECONFLICT
 * -> 409 Conflict ("the object has been modified; please apply your changes to the latest
 * version and try again"), GW_ECOMPACTED -> 410 Expired, GW_EFUTUREREV -> 504 Timeout with
 * "Too large resource version" and Retry-After, GW_ETOOLARGE -> 413, GW_EUNAVAILABLE /
 * GW_ETIMEOUT -> 504/503, others -> 500 InternalError. Finishes the request.
 */
void gw_reply_error(gw_req_t *r, int err, const char *name);

#endif
