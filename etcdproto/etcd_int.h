#ifndef ETCDPROTO_ETCD_INT_H
#define ETCDPROTO_ETCD_INT_H

/*
 * Internals shared by the files of etcdproto/. Not for use outside this folder (tests may).
 *
 * The moving parts:
 *  - The client owns the gRPC channels and one completion queue, drained by one thread. That
 *    thread never runs user code: each completed batch carries an etcd__op_t tag, which it
 *    appends to the owning conn's completion list before making the conn's event active.
 *  - The conn's event runs on its event_base thread and calls each op's `complete`, which is
 *    where call state changes and user callbacks happen. All call, watch and keepalive state
 *    is therefore touched by one thread only (the conn's), except the completion list.
 *  - Every call, watch and keepalive is on its conn's live list until its terminal callback
 *    has run and gRPC has returned all of its tags; etcd_conn_free cancels the list and
 *    drains completions until it is empty.
 */

#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/time.h>

#include <grpc/grpc.h>
#include <protobuf-c/protobuf-c.h>

#include "etcd.h"

#define ETCD__CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* ---- completion tags (etcd_conn.c) -------------------------------------------------------- */

typedef struct etcd__op etcd__op_t;

/** One outstanding gRPC batch: its tag. `complete` runs on the conn's thread with `ok` set to
 *  the batch's success flag. */
struct etcd__op {
    etcd__op_t *next; /* in the conn's completion list */
    etcd_conn_t *conn;
    void (*complete)(etcd__op_t *op);
    bool ok;
};

typedef struct etcd__live etcd__live_t;

/** A call, watch or keepalive that its conn must cancel and wait for when freed. */
struct etcd__live {
    etcd__live_t *prev;
    etcd__live_t *next;
    /** Start cancelling: cancel the gRPC call; if nothing is outstanding, finish (deliver
     *  GW_ECANCELED, untrack, free) right away. Runs on the conn's thread. */
    void (*cancel)(etcd__live_t *live);
};

struct etcd_conn {
    etcd_client_t *client;
    struct event_base *base;
    struct event *ev; /* made active by the completion-queue thread */
    pthread_mutex_t lock;
    pthread_cond_t posted; /* signalled with each completion, for etcd_conn_free */
    etcd__op_t *head;      /* completions not yet run; under lock */
    etcd__op_t *tail;
    etcd__live_t live; /* sentinel of the live list; conn thread only */
    bool closing;      /* etcd_conn_free has begun: everything ends with GW_ECANCELED */
    int in_stream_cb;  /* inside a watch or keepalive callback (etcd_conn_free must not be) */
    bool dispatching;  /* inside the event callback: it frees the conn if asked to */
    bool freed;
};

/** Queue a completed op for its conn's thread and wake that thread. Thread: any (the
 *  completion-queue thread, or the conn's thread for calls that could not start). */
void etcd__conn_post(etcd__op_t *op);

/** Add to / remove from the conn's live list. Thread: the conn's. */
void etcd__conn_track(etcd_conn_t *conn, etcd__live_t *live, void (*cancel)(etcd__live_t *));
void etcd__conn_untrack(etcd__live_t *live);

/* ---- client (etcd_client.c) --------------------------------------------------------------- */

struct etcd_client {
    etcd_endpoint_t *eps;
    size_t n_eps;
    grpc_channel **channels;
    grpc_completion_queue *cq;
    pthread_t cq_thread;
    atomic_size_t current;
    atomic_int n_conns; /* conns not yet freed: etcd_client_free asserts there are none */
    int64_t call_timeout_ms;
};

/** Index of the endpoint new calls and streams should use. Thread: any. */
size_t etcd__client_pick(etcd_client_t *c);

/** Endpoint `failed` answered UNAVAILABLE: if it is still the current one, move to the next
 *  endpoint whose channel is not in TRANSIENT_FAILURE. Thread: any. */
void etcd__client_failover(etcd_client_t *c, size_t failed);

/** Whether endpoint i's channel has a connection right now. Thread: any. */
bool etcd__client_ready(etcd_client_t *c, size_t i);

/** Absolute deadline `ms` from now, or infinite for ms <= 0. */
gpr_timespec etcd__deadline(int64_t ms);

/* ---- TLS material (etcd_tls.c) ---------------------------------------------------------- */

/** PEM contents read from the --etcd-* files; NULL members were not given. */
typedef struct {
    char *ca;
    char *cert;
    char *key;
} etcd__tls_t;

/** Read and check the TLS files: readable, parseable, certificate matching key, both or
 *  neither of cert and key, and a CA when `need_ca` (some endpoint is https). On error
 *  returns GW_EINVAL with a one-line reason in err and nothing to free. */
int etcd__tls_load(const char *ca_file, const char *cert_file, const char *key_file, bool need_ca,
                   etcd__tls_t *out, char *err, size_t err_len);

/** gRPC TLS credentials from loaded material (tls->ca set). Caller releases them. */
grpc_channel_credentials *etcd__tls_credentials(const etcd__tls_t *tls);

/** Wipe and free the material. */
void etcd__tls_free(etcd__tls_t *tls);

/* ---- errors (etcd_errors.c) --------------------------------------------------------------- */

/** Map a final gRPC status and its message (not NUL-terminated) to a gw_err.h code. Pure. */
int etcd__err_from_status(grpc_status_code code, const char *msg, size_t msg_len);

/** Whether a stream that ended with `code` would end the same way if opened again (a request
 *  or configuration problem rather than a lost connection or member). Pure. */
bool etcd__status_permanent(grpc_status_code code);

/** Map and log a non-OK final status with the method and etcd's message: at warn, or at debug
 *  when `quiet` (a stream failing again while its endpoint is still away). */
int etcd__status_err(const char *method, grpc_status_code code, grpc_slice details, bool quiet);

/* ---- messages (etcd_unary.c) -------------------------------------------------------------- */

/** A protobuf bytes field viewing `b` (no copy; etcd treats empty and absent alike). */
ProtobufCBinaryData etcd__pb_bytes(etcd_bytes_t b);

/** Serialise a message into a new byte buffer (caller destroys it). */
grpc_byte_buffer *etcd__pack(const ProtobufCMessage *msg);

/** Parse a received byte buffer; NULL when it is not a valid `desc` message. Caller frees with
 *  protobuf_c_message_free_unpacked. */
ProtobufCMessage *etcd__unpack(const ProtobufCMessageDescriptor *desc, grpc_byte_buffer *bb);

/** A `deliver` function for etcd__method_t: turns the stored callback back into its real type
 *  (a round trip through another function pointer type is well defined; calling through the
 *  wrong type is not). */
#define ETCD__DELIVER(name, cb_type, resp_type)                                                    \
    static void name(void (*cb)(void), int err, const ProtobufCMessage *resp, void *ctx)           \
    {                                                                                              \
        ((cb_type)cb)(err, (const resp_type *)resp, ctx);                                          \
    }

/** One unary RPC. `deliver` casts the stored callback back to its real type. */
typedef struct {
    const char *path; /* e.g. "/etcdserverpb.KV/Range" */
    const ProtobufCMessageDescriptor *resp_desc;
    bool read; /* retried on every other endpoint when unavailable */
    void (*deliver)(void (*cb)(void), int err, const ProtobufCMessage *resp, void *ctx);
} etcd__method_t;

/** Start a unary call of `m` with request `req` (packed here; not kept). The callback `cb`
 *  (of m's type) fires exactly once on the conn's thread. Returns 0. Thread: the conn's. */
int etcd__unary_start(etcd_conn_t *conn, const etcd__method_t *m, const ProtobufCMessage *req,
                      void (*cb)(void), void *ctx);

/* ---- bidirectional streams (etcd_stream.c) ------------------------------------------------ */

typedef struct etcd__stream etcd__stream_t;

/** What a stream tells its owner (a watch or a keepalive). Both run on the conn's thread. */
typedef struct {
    /** One message arrived (owned by the stream, valid during the call). */
    void (*on_message)(etcd__stream_t *s, const ProtobufCMessage *msg);
    /** The stream is over and gRPC holds none of its tags: err is the mapped final status
     *  (GW_ECANCELED after etcd__stream_cancel); s->status is the raw one. The owner may free
     *  or reopen it. */
    void (*on_closed)(etcd__stream_t *s, int err);
} etcd__stream_ops_t;

struct etcd__stream {
    etcd_conn_t *conn;
    const etcd__stream_ops_t *ops;
    const char *path;
    const ProtobufCMessageDescriptor *recv_desc;
    grpc_call *call;    /* NULL when not open */
    size_t endpoint;    /* where it was opened */
    etcd__op_t send_op; /* the one outstanding SEND_MESSAGE (first with initial metadata) */
    etcd__op_t recv_op; /* the one outstanding RECV_MESSAGE (first with initial metadata) */
    etcd__op_t status_op;
    int outstanding; /* batches gRPC still holds */
    bool first_send; /* the next send also carries the initial metadata */
    bool first_recv; /* the next receive also takes the initial metadata */
    bool cancelled;
    bool quiet;  /* set by the owner: log the end at debug (it is retrying an absent endpoint) */
    bool broken; /* a batch failed: stop sending, wait for the status */
    grpc_byte_buffer *send_buf; /* being sent; NULL when no send is outstanding */
    grpc_byte_buffer **queue;   /* writes waiting for the outstanding send */
    size_t queue_len;
    size_t queue_cap;
    grpc_byte_buffer *recv_buf;
    grpc_metadata_array initial_md;
    grpc_metadata_array trailing_md;
    grpc_status_code status;
    grpc_slice details;
};

/** Prepare a stream of RPC `path` whose responses are `recv_desc` messages. Not opened. */
void etcd__stream_init(etcd__stream_t *s, etcd_conn_t *conn, const char *path,
                       const ProtobufCMessageDescriptor *recv_desc, const etcd__stream_ops_t *ops);

/** Open the stream on the current endpoint and send `first` on it. Thread: the conn's. */
void etcd__stream_open(etcd__stream_t *s, const ProtobufCMessage *first);

/** Queue a message after the ones already queued (dropped if the stream is broken). */
void etcd__stream_send(etcd__stream_t *s, const ProtobufCMessage *msg);

/** Cancel the gRPC call; on_closed follows with GW_ECANCELED. No-op when not open. */
void etcd__stream_cancel(etcd__stream_t *s);

/** Whether the stream is open (on_closed has not run since etcd__stream_open). */
bool etcd__stream_is_open(const etcd__stream_t *s);

/** Free what the stream keeps across opens; it must not be open. */
void etcd__stream_cleanup(etcd__stream_t *s);

/** Delay before reopen attempt `attempt`: at once, then 100 ms doubling up to 2 s. */
struct timeval etcd__backoff(unsigned attempt);

#endif
