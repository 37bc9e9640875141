/*
 * The KMS v2 client: one insecure gRPC channel to the plugin's unix socket, and each call a
 * unary batch on a completion queue of its own that the calling thread waits on, so that any
 * thread may call and nothing else needs to poll.
 */
#include "kms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>

#include "gw_alloc.h"
#include "gw_metric.h"

struct kms_client {
    grpc_channel *channel;
    int64_t timeout_ms;
    char *provider;
};

/* ---- kube's apiserver_envelope_encryption_kms_operations_latency_seconds ------------------- */

/* Start 0.1 ms, the last bucket from about 52 s: kube's ExponentialBuckets(0.0001, 2, 20). */
static const double latency_buckets[] = {
    0.0001, 0.0002, 0.0004, 0.0008, 0.0016, 0.0032, 0.0064, 0.0128,  0.0256,  0.0512,
    0.1024, 0.2048, 0.4096, 0.8192, 1.6384, 3.2768, 6.5536, 13.1072, 26.2144, 52.4288,
};
static const char *const latency_labels[] = {"provider_name", "method_name", "grpc_status_code"};
static const gw_metric_desc_t latency_desc = {
    .name = "apiserver_envelope_encryption_kms_operations_latency_seconds",
    .help = "Duration of KMS plugin calls, by gRPC status code.",
    .stability = "ALPHA",
    .type = GW_METRIC_HISTOGRAM,
    .labels = latency_labels,
    .n_labels = 3,
    .buckets = latency_buckets,
    .n_buckets = sizeof(latency_buckets) / sizeof(latency_buckets[0]),
};

/* Go's codes.Code String() names, by gRPC status number. */
static const char *const code_names[] = {
    "OK",       "Canceled",        "Unknown",          "InvalidArgument",   "DeadlineExceeded",
    "NotFound", "AlreadyExists",   "PermissionDenied", "ResourceExhausted", "FailedPrecondition",
    "Aborted",  "OutOfRange",      "Unimplemented",    "Internal",          "Unavailable",
    "DataLoss", "Unauthenticated",
};

static const char *
code_name(grpc_status_code code)
{
    if ((size_t)code < sizeof(code_names) / sizeof(code_names[0]))
        return code_names[code];
    return "Unknown";
}

static double
now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
record_latency(const kms_client_t *c, const char *method, grpc_status_code code, double seconds)
{
    static gw_metric_t *_Atomic family;
    const char *values[] = {c->provider, method, code_name(code)};

    gw_metric_observe(gw_metric_cached(&family, &latency_desc), values, seconds);
}

/* ---- the client ----------------------------------------------------------------------------- */

kms_client_t *
kms_client_new(const char *endpoint, int64_t timeout_ms, const char *provider)
{
    kms_client_t *c = gw_calloc(1, sizeof(*c));
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();

    grpc_init();
    c->channel = grpc_channel_create(endpoint, creds, NULL);
    grpc_channel_credentials_release(creds);
    c->timeout_ms = timeout_ms;
    c->provider = gw_strdup(provider);
    return c;
}

void
kms_client_free(kms_client_t *c)
{
    if (c == NULL)
        return;
    grpc_channel_destroy(c->channel);
    free(c->provider);
    free(c);
    grpc_shutdown();
}

/* Go's status error text; a deadline of ours reads as Go's context error does. */
static void
status_text(grpc_status_code code, grpc_slice details, char *err, size_t err_len)
{
    if (code == GRPC_STATUS_DEADLINE_EXCEEDED) {
        snprintf(err, err_len,
                 "rpc error: code = DeadlineExceeded desc = context deadline exceeded");
        return;
    }
    snprintf(err, err_len, "rpc error: code = %s desc = %.*s", code_name(code),
             (int)GRPC_SLICE_LENGTH(details), (const char *)GRPC_SLICE_START_PTR(details));
}

static ProtobufCMessage *
unpack(const ProtobufCMessageDescriptor *desc, grpc_byte_buffer *bb)
{
    grpc_byte_buffer_reader r;
    ProtobufCMessage *msg;

    if (bb == NULL || !grpc_byte_buffer_reader_init(&r, bb))
        return NULL;
    grpc_slice s = grpc_byte_buffer_reader_readall(&r);
    grpc_byte_buffer_reader_destroy(&r);
    msg = protobuf_c_message_unpack(desc, NULL, GRPC_SLICE_LENGTH(s), GRPC_SLICE_START_PTR(s));
    grpc_slice_unref(s);
    return msg;
}

/* One unary call's state: the batch's buffers and the answer's status. */
typedef struct {
    grpc_byte_buffer *send, *recv;
    grpc_metadata_array initial_md, trailing_md;
    grpc_status_code status;
    grpc_slice details;
} call_t;

/* Start the six-op batch on call; false when gRPC refused it. */
static bool
start_batch(grpc_call *call, call_t *u)
{
    grpc_op ops[6];

    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].flags =
        GRPC_INITIAL_METADATA_WAIT_FOR_READY; /* as kube's client: wait, up to the deadline */
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = u->send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &u->initial_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &u->recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &u->trailing_md;
    ops[5].data.recv_status_on_client.status = &u->status;
    ops[5].data.recv_status_on_client.status_details = &u->details;
    return grpc_call_start_batch(call, ops, 6, u, NULL) == GRPC_CALL_OK;
}

/* Run the batch on a queue of its own and wait for it (the deadline bounds the wait). */
static void
run(kms_client_t *c, const char *method, call_t *u)
{
    grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
    gpr_timespec deadline = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                         gpr_time_from_millis(c->timeout_ms, GPR_TIMESPAN));
    grpc_call *call =
        grpc_channel_create_call(c->channel, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
                                 grpc_slice_from_static_string(method), NULL, deadline, NULL);

    if (!start_batch(call, u)) {
        u->status = GRPC_STATUS_INTERNAL;
        u->details = grpc_slice_from_static_string("grpc_call_start_batch failed");
    } else {
        grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
    }
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
           GRPC_QUEUE_SHUTDOWN)
        ;
    grpc_completion_queue_destroy(cq);
}

/* One unary call of `method` with req; *resp unpacked with desc. 0, or -1 with err. */
static int
unary(kms_client_t *c, const char *method, const ProtobufCMessage *req,
      const ProtobufCMessageDescriptor *desc, ProtobufCMessage **resp, char *err, size_t err_len)
{
    size_t n = protobuf_c_message_get_packed_size(req);
    grpc_slice s = grpc_slice_malloc(n);
    call_t u = {.status = GRPC_STATUS_UNKNOWN};
    double start = now_seconds();

    protobuf_c_message_pack(req, GRPC_SLICE_START_PTR(s));
    u.send = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    grpc_metadata_array_init(&u.initial_md);
    grpc_metadata_array_init(&u.trailing_md);
    u.details = grpc_empty_slice();
    run(c, method, &u);
    *resp = NULL;
    if (u.status == GRPC_STATUS_OK) {
        *resp = unpack(desc, u.recv);
        if (*resp == NULL) {
            u.status = GRPC_STATUS_INTERNAL;
            grpc_slice_unref(u.details);
            u.details =
                grpc_slice_from_static_string("grpc: failed to unmarshal the received message");
        }
    }
    record_latency(c, method, u.status, now_seconds() - start);
    if (u.status != GRPC_STATUS_OK)
        status_text(u.status, u.details, err, err_len);
    grpc_byte_buffer_destroy(u.send);
    if (u.recv != NULL)
        grpc_byte_buffer_destroy(u.recv);
    grpc_metadata_array_destroy(&u.initial_md);
    grpc_metadata_array_destroy(&u.trailing_md);
    grpc_slice_unref(u.details);
    return u.status == GRPC_STATUS_OK ? 0 : -1;
}

int
kms_status(kms_client_t *c, V2__StatusResponse **out, char *err, size_t err_len)
{
    V2__StatusRequest req = V2__STATUS_REQUEST__INIT;

    return unary(c, "/v2.KeyManagementService/Status", &req.base, &v2__status_response__descriptor,
                 (ProtobufCMessage **)out, err, err_len);
}

int
kms_encrypt(kms_client_t *c, const uint8_t *plain, size_t len, const char *uid,
            V2__EncryptResponse **out, char *err, size_t err_len)
{
    V2__EncryptRequest req = V2__ENCRYPT_REQUEST__INIT;

    req.plaintext = (ProtobufCBinaryData){len, (uint8_t *)plain}; /* packing only reads it */
    req.uid = (char *)uid;
    return unary(c, "/v2.KeyManagementService/Encrypt", &req.base,
                 &v2__encrypt_response__descriptor, (ProtobufCMessage **)out, err, err_len);
}

int
kms_decrypt(kms_client_t *c, const V2__DecryptRequest *req, V2__DecryptResponse **out, char *err,
            size_t err_len)
{
    return unary(c, "/v2.KeyManagementService/Decrypt", &req->base,
                 &v2__decrypt_response__descriptor, (ProtobufCMessage **)out, err, err_len);
}
