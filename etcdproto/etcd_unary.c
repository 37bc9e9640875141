/*
 * The one unary path every request/response RPC takes: pack, one batch of six ops with a
 * deadline, unpack, map the status. Calls fail fast (no WAIT_FOR_READY) so that an endpoint
 * that is down costs a retry elsewhere, not a deadline.
 */
#include "etcd.h"

#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>

#include "etcd_int.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

typedef struct {
    etcd__op_t op;
    etcd__live_t live;
    const etcd__method_t *m;
    void (*cb)(void);
    void *ctx;
    grpc_slice req; /* the packed request, kept for retries */
    size_t first;   /* endpoint of the first attempt */
    size_t endpoint;
    size_t attempts;
    bool was_ready; /* the channel had a connection when this attempt started */
    grpc_call *call;
    grpc_byte_buffer *send_buf;
    grpc_byte_buffer *recv_buf;
    grpc_metadata_array initial_md;
    grpc_metadata_array trailing_md;
    grpc_status_code status;
    grpc_slice details;
} unary_t;

etcd_bytes_t
etcd_str(const char *s)
{
    return (etcd_bytes_t){(const uint8_t *)s, strlen(s)};
}

ProtobufCBinaryData
etcd__pb_bytes(etcd_bytes_t b)
{
    /* protobuf-c's bytes type is not const-qualified; packing only reads it. */
    return (ProtobufCBinaryData){b.len, (uint8_t *)b.data};
}

grpc_byte_buffer *
etcd__pack(const ProtobufCMessage *msg)
{
    size_t n = protobuf_c_message_get_packed_size(msg);
    grpc_slice s = grpc_slice_malloc(n);
    protobuf_c_message_pack(msg, GRPC_SLICE_START_PTR(s));
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

ProtobufCMessage *
etcd__unpack(const ProtobufCMessageDescriptor *desc, grpc_byte_buffer *bb)
{
    grpc_byte_buffer_reader r;
    if (bb == NULL || !grpc_byte_buffer_reader_init(&r, bb))
        return NULL;
    grpc_slice s = grpc_byte_buffer_reader_readall(&r);
    grpc_byte_buffer_reader_destroy(&r);
    ProtobufCMessage *msg =
        protobuf_c_message_unpack(desc, NULL, GRPC_SLICE_LENGTH(s), GRPC_SLICE_START_PTR(s));
    grpc_slice_unref(s);
    return msg;
}

/* Complete an attempt that never reached gRPC, through the conn like any other. */
static void
post_failure(unary_t *u, grpc_status_code code, const char *why)
{
    u->status = code;
    u->details = grpc_slice_from_static_string(why);
    etcd__conn_post(&u->op);
}

static void
start_attempt(unary_t *u)
{
    etcd_client_t *c = u->op.conn->client;
    u->endpoint = (u->first + u->attempts) % c->n_eps;
    u->attempts++;
    grpc_metadata_array_init(&u->initial_md);
    grpc_metadata_array_init(&u->trailing_md);
    u->details = grpc_empty_slice();
    if (u->op.conn->closing) {
        post_failure(u, GRPC_STATUS_CANCELLED, "connection is closing");
        return;
    }
    u->was_ready = etcd__client_ready(c, u->endpoint);
    u->call = grpc_channel_create_call(c->channels[u->endpoint], NULL, GRPC_PROPAGATE_DEFAULTS,
                                       c->cq, grpc_slice_from_static_string(u->m->path), NULL,
                                       etcd__deadline(c->call_timeout_ms), NULL);
    u->send_buf = grpc_raw_byte_buffer_create(&u->req, 1);
    grpc_op ops[6];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = u->send_buf;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &u->initial_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &u->recv_buf;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &u->trailing_md;
    ops[5].data.recv_status_on_client.status = &u->status;
    ops[5].data.recv_status_on_client.status_details = &u->details;
    if (grpc_call_start_batch(u->call, ops, 6, &u->op, NULL) != GRPC_CALL_OK)
        post_failure(u, GRPC_STATUS_INTERNAL, "grpc_call_start_batch failed");
}

static void
end_attempt(unary_t *u)
{
    if (u->call != NULL)
        grpc_call_unref(u->call);
    u->call = NULL;
    grpc_byte_buffer_destroy(u->send_buf);
    grpc_byte_buffer_destroy(u->recv_buf);
    u->send_buf = u->recv_buf = NULL;
    grpc_metadata_array_destroy(&u->initial_md);
    grpc_metadata_array_destroy(&u->trailing_md);
    grpc_slice_unref(u->details);
}

/* Reads go once to each endpoint; a write only when this attempt cannot have reached etcd. */
static bool
may_retry(const unary_t *u)
{
    const etcd_conn_t *conn = u->op.conn;
    return !conn->closing && u->attempts < conn->client->n_eps && (u->m->read || !u->was_ready);
}

static int
attempt_result(unary_t *u, ProtobufCMessage **resp)
{
    *resp = NULL;
    if (u->op.conn->closing)
        return GW_ECANCELED;
    int err = etcd__status_err(u->m->path, u->status, u->details, false);
    if (err != 0)
        return err;
    *resp = etcd__unpack(u->m->resp_desc, u->recv_buf);
    if (*resp != NULL)
        return 0;
    gw_log_warn(NULL, "etcd %s: response does not parse", u->m->path);
    return GW_EINTERNAL;
}

static void
unary_complete(etcd__op_t *op)
{
    unary_t *u = ETCD__CONTAINER_OF(op, unary_t, op);
    ProtobufCMessage *resp;
    int err = attempt_result(u, &resp);
    end_attempt(u);
    if (err == GW_EUNAVAILABLE) {
        etcd__client_failover(u->op.conn->client, u->endpoint);
        if (may_retry(u)) {
            start_attempt(u);
            return;
        }
    }
    /* Untracked first: the callback may free the conn, which must not wait for us. */
    etcd__conn_untrack(&u->live);
    u->m->deliver(u->cb, err, resp, u->ctx);
    if (resp != NULL)
        protobuf_c_message_free_unpacked(resp, NULL);
    grpc_slice_unref(u->req);
    free(u);
}

static void
unary_cancel(etcd__live_t *live)
{
    unary_t *u = ETCD__CONTAINER_OF(live, unary_t, live);
    if (u->call != NULL)
        grpc_call_cancel(u->call, NULL);
}

int
etcd__unary_start(etcd_conn_t *conn, const etcd__method_t *m, const ProtobufCMessage *req,
                  void (*cb)(void), void *ctx)
{
    unary_t *u = gw_calloc(1, sizeof(*u));
    u->op.conn = conn;
    u->op.complete = unary_complete;
    u->m = m;
    u->cb = cb;
    u->ctx = ctx;
    u->req = grpc_slice_malloc(protobuf_c_message_get_packed_size(req));
    protobuf_c_message_pack(req, GRPC_SLICE_START_PTR(u->req));
    u->first = etcd__client_pick(conn->client);
    etcd__conn_track(conn, &u->live, unary_cancel);
    start_attempt(u);
    return 0;
}
