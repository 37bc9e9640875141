/*
 * A bidirectional stream, as watches and lease keepalives use it. gRPC allows one outstanding
 * send and one outstanding receive per call, so writes wait in a queue and the receive is
 * re-armed after each message. The final status is asked for when the stream opens and
 * arrives when the call ends; the owner hears about the end only once gRPC has handed back
 * every tag, so it may free or reopen the stream from on_closed.
 */
#include "etcd.h"

#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/slice.h>

#include "etcd_int.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS 2000

static void send_complete(etcd__op_t *op);
static void recv_complete(etcd__op_t *op);
static void status_complete(etcd__op_t *op);

struct timeval
etcd__backoff(unsigned attempt)
{
    int64_t ms = 0;
    if (attempt > 0)
        ms = attempt > 5 ? BACKOFF_MAX_MS : (int64_t)BACKOFF_FIRST_MS << (attempt - 1);
    if (ms > BACKOFF_MAX_MS)
        ms = BACKOFF_MAX_MS;
    return (struct timeval){ms / 1000, (ms % 1000) * 1000};
}

void
etcd__stream_init(etcd__stream_t *s, etcd_conn_t *conn, const char *path,
                  const ProtobufCMessageDescriptor *recv_desc, const etcd__stream_ops_t *ops)
{
    memset(s, 0, sizeof(*s));
    s->conn = conn;
    s->path = path;
    s->recv_desc = recv_desc;
    s->ops = ops;
    s->send_op = (etcd__op_t){.conn = conn, .complete = send_complete};
    s->recv_op = (etcd__op_t){.conn = conn, .complete = recv_complete};
    s->status_op = (etcd__op_t){.conn = conn, .complete = status_complete};
}

static void
start_batch(etcd__stream_t *s, const grpc_op *ops, size_t n, etcd__op_t *tag)
{
    s->outstanding++;
    if (grpc_call_start_batch(s->call, ops, n, tag, NULL) == GRPC_CALL_OK)
        return;
    /* Only a bug of ours gets here; end the stream through the normal path. */
    gw_log_error(NULL, "etcd %s: grpc_call_start_batch failed", s->path);
    grpc_call_cancel_with_status(s->call, GRPC_STATUS_INTERNAL, "batch rejected", NULL);
    tag->ok = false;
    etcd__conn_post(tag);
}

static void
send_buffer(etcd__stream_t *s, grpc_byte_buffer *bb)
{
    grpc_op ops[2];
    size_t n = 0;
    memset(ops, 0, sizeof(ops));
    if (s->first_send)
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    s->first_send = false;
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n++].data.send_message.send_message = bb;
    s->send_buf = bb;
    start_batch(s, ops, n, &s->send_op);
}

static void
arm_recv(etcd__stream_t *s)
{
    grpc_op ops[2];
    size_t n = 0;
    memset(ops, 0, sizeof(ops));
    if (s->first_recv) {
        ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
        ops[n++].data.recv_initial_metadata.recv_initial_metadata = &s->initial_md;
    }
    s->first_recv = false;
    ops[n].op = GRPC_OP_RECV_MESSAGE;
    ops[n++].data.recv_message.recv_message = &s->recv_buf;
    start_batch(s, ops, n, &s->recv_op);
}

static void
arm_status(etcd__stream_t *s)
{
    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    op.data.recv_status_on_client.trailing_metadata = &s->trailing_md;
    op.data.recv_status_on_client.status = &s->status;
    op.data.recv_status_on_client.status_details = &s->details;
    start_batch(s, &op, 1, &s->status_op);
}

void
etcd__stream_open(etcd__stream_t *s, const ProtobufCMessage *first)
{
    etcd_client_t *c = s->conn->client;
    s->endpoint = etcd__client_pick(c);
    s->call = grpc_channel_create_call(c->channels[s->endpoint], NULL, GRPC_PROPAGATE_DEFAULTS,
                                       c->cq, grpc_slice_from_static_string(s->path), NULL,
                                       gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
    s->cancelled = s->broken = false;
    s->first_send = s->first_recv = true;
    s->status = GRPC_STATUS_OK;
    s->details = grpc_empty_slice();
    grpc_metadata_array_init(&s->initial_md);
    grpc_metadata_array_init(&s->trailing_md);
    arm_status(s);
    arm_recv(s);
    send_buffer(s, etcd__pack(first));
    if (s->conn->closing)
        etcd__stream_cancel(s); /* started from a callback during etcd_conn_free */
}

void
etcd__stream_send(etcd__stream_t *s, const ProtobufCMessage *msg)
{
    if (s->call == NULL || s->broken || s->cancelled)
        return;
    grpc_byte_buffer *bb = etcd__pack(msg);
    if (s->send_buf == NULL) {
        send_buffer(s, bb);
        return;
    }
    if (s->queue_len == s->queue_cap) {
        s->queue_cap = s->queue_cap ? s->queue_cap * 2 : 4;
        s->queue = gw_realloc(s->queue, s->queue_cap * sizeof(*s->queue));
    }
    s->queue[s->queue_len++] = bb;
}

void
etcd__stream_cancel(etcd__stream_t *s)
{
    if (s->call == NULL || s->cancelled)
        return;
    s->cancelled = true;
    grpc_call_cancel(s->call, NULL);
}

bool
etcd__stream_is_open(const etcd__stream_t *s)
{
    return s->call != NULL;
}

static void
drop_queue(etcd__stream_t *s)
{
    for (size_t i = 0; i < s->queue_len; i++)
        grpc_byte_buffer_destroy(s->queue[i]);
    s->queue_len = 0;
}

void
etcd__stream_cleanup(etcd__stream_t *s)
{
    drop_queue(s);
    free(s->queue);
    s->queue = NULL;
    s->queue_cap = 0;
}

/* When the last tag is back: release the call and tell the owner. */
static void
maybe_closed(etcd__stream_t *s)
{
    if (s->outstanding > 0)
        return;
    grpc_call_unref(s->call);
    s->call = NULL;
    int err =
        s->cancelled ? GW_ECANCELED : etcd__status_err(s->path, s->status, s->details, s->quiet);
    if (err == GW_EUNAVAILABLE)
        etcd__client_failover(s->conn->client, s->endpoint);
    drop_queue(s);
    grpc_metadata_array_destroy(&s->initial_md);
    grpc_metadata_array_destroy(&s->trailing_md);
    grpc_slice_unref(s->details);
    s->details = grpc_empty_slice();
    s->ops->on_closed(s, err); /* last: the owner may free s */
}

static void
send_complete(etcd__op_t *op)
{
    etcd__stream_t *s = ETCD__CONTAINER_OF(op, etcd__stream_t, send_op);
    s->outstanding--;
    grpc_byte_buffer_destroy(s->send_buf);
    s->send_buf = NULL;
    if (!op->ok)
        s->broken = true;
    if (!s->broken && !s->cancelled && s->queue_len > 0) {
        grpc_byte_buffer *next = s->queue[0];
        memmove(s->queue, s->queue + 1, --s->queue_len * sizeof(*s->queue));
        send_buffer(s, next);
    }
    maybe_closed(s);
}

static void
recv_complete(etcd__op_t *op)
{
    etcd__stream_t *s = ETCD__CONTAINER_OF(op, etcd__stream_t, recv_op);
    grpc_byte_buffer *bb = s->recv_buf;
    s->recv_buf = NULL;
    ProtobufCMessage *msg = op->ok ? etcd__unpack(s->recv_desc, bb) : NULL;
    if (op->ok && bb != NULL && msg == NULL) {
        gw_log_warn(NULL, "etcd %s: response does not parse", s->path);
        grpc_call_cancel_with_status(s->call, GRPC_STATUS_INTERNAL, "bad response", NULL);
    }
    grpc_byte_buffer_destroy(bb);
    if (msg == NULL)
        s->broken = true; /* a NULL message is the server ending the stream */
    else if (!s->cancelled) {
        s->conn->in_stream_cb++;
        s->ops->on_message(s, msg);
        s->conn->in_stream_cb--;
    }
    if (msg != NULL)
        protobuf_c_message_free_unpacked(msg, NULL);
    s->outstanding--;
    if (!s->broken && !s->cancelled)
        arm_recv(s);
    maybe_closed(s);
}

static void
status_complete(etcd__op_t *op)
{
    etcd__stream_t *s = ETCD__CONTAINER_OF(op, etcd__stream_t, status_op);
    s->outstanding--;
    s->broken = true;
    maybe_closed(s);
}
