#ifndef ETCDPROTO_ETCD_H
#define ETCDPROTO_ETCD_H

/*
 * kgate's asynchronous etcd v3 client, on gRPC C core.
 *
 * Two objects:
 *  - etcd_client_t: process-wide. Owns one gRPC channel per configured endpoint, the
 *    completion-queue thread that drives every call, and the failover state.
 *  - etcd_conn_t: one per libevent event_base (i.e. per worker thread). Every call is started
 *    through a conn, and its callback runs on that conn's event_base thread, exactly once,
 *    also on error, deadline or cancel. Starting a call never blocks.
 *
 * Responses are protobuf-c messages (generated from etcdproto/rpc.proto and kv.proto). A
 * response pointer is valid only during the callback; copy what you keep. On error the
 * response pointer is NULL unless stated otherwise.
 *
 * Errors are gw_err.h codes: GW_ECOMPACTED, GW_EFUTUREREV, GW_ETOOLARGE, GW_EUNAVAILABLE,
 * GW_ETIMEOUT, GW_ENOTFOUND (unknown lease), GW_ECANCELED, GW_EINVAL, GW_EINTERNAL.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc.pb-c.h"

struct event_base;

typedef struct etcd_client etcd_client_t;
typedef struct etcd_conn etcd_conn_t;
typedef struct etcd_watch etcd_watch_t;
typedef struct etcd_keepalive etcd_keepalive_t;

/** A byte string that the callee does not own; copied if kept beyond the call. */
typedef struct {
    const uint8_t *data;
    size_t len;
} etcd_bytes_t;

/** etcd_bytes_t over a NUL-terminated string (not including the NUL). */
etcd_bytes_t etcd_str(const char *s);

/* ---- configuration ---------------------------------------------------------------------- */

/** One parsed --etcd-servers entry. */
typedef struct {
    char *host;   /* host name or address literal, without IPv6 brackets */
    int port;     /* 1..65535 */
    bool tls;     /* https:// */
    char *target; /* gRPC target string, e.g. "ipv4:127.0.0.1:2379" or "dns:///h:2379" */
} etcd_endpoint_t;

/**
 * Parse a --etcd-servers value: a comma-separated list of http:// or https:// URLs with a
 * host and an explicit or default (2379) port, no path beyond "/". On success returns 0 and a
 * new array in *out (free with etcd_endpoints_free). On error returns GW_EINVAL and writes a
 * one-line reason into err (which names the bad entry). Thread: any. Pure; fuzzed.
 */
int etcd_endpoints_parse(const char *list, etcd_endpoint_t **out, size_t *n_out, char *err,
                         size_t err_len);

/** Free an array from etcd_endpoints_parse. NULL is fine. */
void etcd_endpoints_free(etcd_endpoint_t *eps, size_t n);

typedef struct {
    const char *servers;     /* --etcd-servers, as etcd_endpoints_parse takes it */
    const char *ca_file;     /* --etcd-cafile: PEM CA bundle for https endpoints, or NULL */
    const char *cert_file;   /* --etcd-certfile: client certificate PEM, or NULL */
    const char *key_file;    /* --etcd-keyfile: client key PEM, or NULL (set with cert_file) */
    int64_t call_timeout_ms; /* deadline of every unary call; 0 = 15000 */
} etcd_config_t;

/**
 * Create the client: parse endpoints, read the TLS files, create channels, start the
 * completion-queue thread. Does not wait for any connection (see etcd_status for a probe).
 * On error returns GW_EINVAL (bad servers list, unreadable/mismatched TLS files) with a
 * one-line reason in err. Thread: the main thread, before any worker uses it; call
 * grpc-related setup nowhere else. Never fork after this.
 */
int etcd_client_new(const etcd_config_t *cfg, etcd_client_t **out, char *err, size_t err_len);

/**
 * Stop the client: cancel everything still running, join the completion-queue thread, free.
 * Every conn must have been freed first. Thread: the thread that created it.
 */
void etcd_client_free(etcd_client_t *c);

/** Number of configured endpoints, and the index of the one calls currently go to. */
size_t etcd_client_endpoint_count(const etcd_client_t *c);
size_t etcd_client_current_endpoint(const etcd_client_t *c);

/**
 * Bind the client to an event_base: completions for calls started through this conn run on
 * the thread that runs `base`. libevent must have been set up for threads
 * (evthread_use_pthreads) before `base` was created. Thread: the base's thread.
 */
etcd_conn_t *etcd_conn_new(etcd_client_t *c, struct event_base *base);

/**
 * Cancel every call, watch and keepalive of this conn; their callbacks fire with GW_ECANCELED
 * before this returns (so ctx pointers can be freed right after). Thread: the conn's thread;
 * from a unary call's callback too, but not from inside a watch or keepalive callback of this
 * conn (asserted: that stream could not finish before this returns).
 */
void etcd_conn_free(etcd_conn_t *conn);

/* ---- unary calls ------------------------------------------------------------------------ */

/*
 * All return 0 when the call was started (the callback will fire exactly once, later, never
 * from inside the starting function) or GW_EINVAL for a malformed request (no callback).
 * Reads (range, status) that fail with GW_EUNAVAILABLE are retried once on each other
 * endpoint; writes are retried on another endpoint only when the failing channel had no
 * connection at the time (so the request cannot have reached etcd).
 */

typedef struct {
    etcd_bytes_t key;
    etcd_bytes_t range_end; /* empty: just key; "\0": all keys >= key; else [key, range_end) */
    int64_t revision;       /* 0 = latest */
    int64_t limit;          /* 0 = no limit */
    bool keys_only;
    bool count_only;
    bool serializable; /* false: linearizable read (what kube-apiserver uses) */
} etcd_range_req_t;

typedef void (*etcd_range_cb)(int err, const Etcdserverpb__RangeResponse *resp, void *ctx);
int etcd_range(etcd_conn_t *conn, const etcd_range_req_t *req, etcd_range_cb cb, void *ctx);

typedef void (*etcd_put_cb)(int err, const Etcdserverpb__PutResponse *resp, void *ctx);
/** Put key=value, optionally attached to a lease (0 = none), returning the previous kv. */
int etcd_put(etcd_conn_t *conn, etcd_bytes_t key, etcd_bytes_t value, int64_t lease, bool prev_kv,
             etcd_put_cb cb, void *ctx);

typedef void (*etcd_delete_cb)(int err, const Etcdserverpb__DeleteRangeResponse *resp, void *ctx);
/** Delete key (range_end as in etcd_range_req_t), optionally returning the deleted kvs. */
int etcd_delete(etcd_conn_t *conn, etcd_bytes_t key, etcd_bytes_t range_end, bool prev_kv,
                etcd_delete_cb cb, void *ctx);

typedef enum {
    ETCD_CMP_VERSION,
    ETCD_CMP_CREATE, /* create_revision */
    ETCD_CMP_MOD,    /* mod_revision */
    ETCD_CMP_VALUE,
} etcd_cmp_target_t;

typedef enum {
    ETCD_CMP_EQUAL,
    ETCD_CMP_GREATER,
    ETCD_CMP_LESS,
    ETCD_CMP_NOT_EQUAL,
} etcd_cmp_result_t;

typedef struct {
    etcd_bytes_t key;
    etcd_cmp_target_t target;
    etcd_cmp_result_t result;
    int64_t number;     /* for VERSION, CREATE, MOD */
    etcd_bytes_t value; /* for VALUE */
} etcd_cmp_t;

typedef enum {
    ETCD_OP_RANGE,
    ETCD_OP_PUT,
    ETCD_OP_DELETE,
} etcd_op_kind_t;

typedef struct {
    etcd_op_kind_t kind;
    etcd_bytes_t key;
    etcd_bytes_t range_end; /* RANGE, DELETE */
    etcd_bytes_t value;     /* PUT */
    int64_t lease;          /* PUT */
    bool prev_kv;           /* PUT, DELETE */
} etcd_op_t;

typedef struct {
    const etcd_cmp_t *cmps;
    size_t n_cmps;
    const etcd_op_t *success;
    size_t n_success;
    const etcd_op_t *failure;
    size_t n_failure;
} etcd_txn_req_t;

typedef void (*etcd_txn_cb)(int err, const Etcdserverpb__TxnResponse *resp, void *ctx);
/** One transaction: if all cmps hold, run success ops, else failure ops (resp->succeeded). */
int etcd_txn(etcd_conn_t *conn, const etcd_txn_req_t *req, etcd_txn_cb cb, void *ctx);

/**
 * The common one-compare transaction: if cmp holds run then_op, else else_op (NULL: nothing).
 * The same as etcd_txn with one compare and one op per branch.
 */
int etcd_txn_if(etcd_conn_t *conn, const etcd_cmp_t *cmp, const etcd_op_t *then_op,
                const etcd_op_t *else_op, etcd_txn_cb cb, void *ctx);

typedef void (*etcd_compact_cb)(int err, const Etcdserverpb__CompactionResponse *resp, void *ctx);
/** Compact history up to `revision` (GW_ECOMPACTED if it already was). */
int etcd_compact(etcd_conn_t *conn, int64_t revision, bool physical, etcd_compact_cb cb, void *ctx);

typedef void (*etcd_status_cb)(int err, const Etcdserverpb__StatusResponse *resp, void *ctx);
/** Maintenance Status of the current endpoint: the readiness probe. */
int etcd_status(etcd_conn_t *conn, etcd_status_cb cb, void *ctx);

typedef void (*etcd_lease_grant_cb)(int err, const Etcdserverpb__LeaseGrantResponse *resp,
                                    void *ctx);
/** Grant a lease of ttl_seconds (id 0 lets etcd choose). */
int etcd_lease_grant(etcd_conn_t *conn, int64_t ttl_seconds, int64_t id, etcd_lease_grant_cb cb,
                     void *ctx);

typedef void (*etcd_lease_revoke_cb)(int err, const Etcdserverpb__LeaseRevokeResponse *resp,
                                     void *ctx);
/** Revoke a lease (GW_ENOTFOUND if unknown); its keys are deleted. */
int etcd_lease_revoke(etcd_conn_t *conn, int64_t id, etcd_lease_revoke_cb cb, void *ctx);

/* ---- streams ---------------------------------------------------------------------------- */

/**
 * Keep a lease alive: sends a keepalive every interval_ms on a LeaseKeepAlive stream (and
 * reopens the stream on another endpoint when it breaks). cb fires with err == 0 and the
 * response for each renewal, and once with a terminal error when the lease is lost
 * (GW_ENOTFOUND: expired or revoked) or with GW_ECANCELED after etcd_keepalive_stop (or
 * GW_EINTERNAL if etcd refuses the stream itself, e.g. permission denied); after a terminal
 * callback the handle is gone. Returns NULL only for a malformed request (lease_id or
 * interval_ms <= 0). Thread: the conn's.
 */
typedef void (*etcd_keepalive_cb)(int err, const Etcdserverpb__LeaseKeepAliveResponse *resp,
                                  void *ctx);
etcd_keepalive_t *etcd_keepalive_start(etcd_conn_t *conn, int64_t lease_id, int64_t interval_ms,
                                       etcd_keepalive_cb cb, void *ctx);
/** Stop; the callback fires once more with GW_ECANCELED (not from inside this call). */
void etcd_keepalive_stop(etcd_keepalive_t *ka);

typedef struct {
    etcd_bytes_t key;
    etcd_bytes_t range_end; /* as in etcd_range_req_t */
    int64_t start_revision; /* 0 = from now */
    bool prev_kv;           /* events carry the previous key-value */
    bool progress_notify;   /* etcd sends periodic empty progress responses */
    bool filter_noput;
    bool filter_nodelete;
} etcd_watch_req_t;

/**
 * Watch callback. err == 0: resp carries events in revision order, or no events (a progress
 * notification: resp->header->revision is the store revision all events up to which were
 * delivered). Terminal callbacks (the watch is over and the handle is gone afterwards):
 *  - GW_ECOMPACTED: the start revision was compacted; resp->compact_revision is set (resp is
 *    non-NULL here).
 *  - GW_ECANCELED: after etcd_watch_cancel or etcd_conn_free.
 *  - GW_EINTERNAL: etcd cancelled the watch for another reason.
 * A broken stream (etcd restart, endpoint down) is NOT reported: the client re-opens the
 * watch, on another endpoint if need be, from the revision after the last one delivered, so
 * the caller sees every event exactly once and in order.
 */
typedef void (*etcd_watch_cb)(int err, const Etcdserverpb__WatchResponse *resp, void *ctx);

/** Start a watch on its own gRPC stream. Returns NULL only for a malformed request. */
etcd_watch_t *etcd_watch_start(etcd_conn_t *conn, const etcd_watch_req_t *req, etcd_watch_cb cb,
                               void *ctx);

/** Ask etcd for a progress notification on this watch (answered through the callback). */
void etcd_watch_request_progress(etcd_watch_t *w);

/** Cancel; the callback fires once more with GW_ECANCELED (not from inside this call). */
void etcd_watch_cancel(etcd_watch_t *w);

#endif
