/*
 * bench_etcd: throughput and latency of single-key Range and Put, and of the transaction kgate
 * sends for a create (`txn(create_revision(key) == 0) put`, a fresh key per call), closed-loop
 * at several concurrencies, through two clients against the same etcd:
 *  - kgate: etcdproto's client used as the server uses it (an event_base worker with an
 *    etcd_conn_t; completions are handed from the client's completion-queue thread to it);
 *  - baseline: gRPC core driven directly, its completion queue polled by the thread that
 *    starts the next call, with the same protobuf-c encoding.
 * The ratio between the two is what the client's dispatch costs.
 *
 * Usage: bench_etcd [http://host:port] (default: $KGATE_BENCH_ETCD). BENCH_SECONDS sets the
 * measured duration of each row (default 5); a warm-up precedes it.
 */

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>

#include "bench.h"
#include "etcd.h"
#include "gw_alloc.h"
#include "gw_err.h"

#define VALUE_LEN 2048 /* the typical object size kgate stores */
#define CALL_TIMEOUT_S 15
#define RANGE_KEY "/bench/range"

#define TXN_PREFIX "/bench/txn/"

static const int concurrencies[] = {1, 16, 64};
static const int txn_concurrencies[] = {16, 64}; /* what kgate's creates run at (bench_api) */

typedef enum {
    RPC_RANGE, /* the measured operations come first */
    RPC_PUT,
    RPC_TXN,
    RPC_COMPACT,
    RPC_STATUS,
} rpc_t;

static const char *const rpc_names[] = {
    [RPC_RANGE] = "range", [RPC_PUT] = "put", [RPC_TXN] = "txn"};

/* ---- what is read and written ----------------------------------------------------------- */

typedef struct {
    uint8_t value[VALUE_LEN];
    char put_key[MAX_CONC][24]; /* one key per slot, as distinct objects would be */
} workload_t;

static void
workload_init(workload_t *w)
{
    for (size_t i = 0; i < VALUE_LEN; i++)
        w->value[i] = (uint8_t)('a' + i % 26);
    for (int i = 0; i < MAX_CONC; i++)
        snprintf(w->put_key[i], sizeof w->put_key[i], "/bench/put/%02d", i);
}

/* The next create's key: never written before in this run (each txn row's keys are deleted
 * after it, and revisions only grow). */
static const char *
next_txn_key(void)
{
    static char key[40];
    static unsigned long seq;

    snprintf(key, sizeof key, TXN_PREFIX "%010lu", seq++);
    return key;
}

/* A Range must find the seeded key with its whole value, or the row measures nothing. */
static int
check_range(const Etcdserverpb__RangeResponse *r)
{
    if (r->n_kvs != 1 || r->kvs[0]->value.len != VALUE_LEN)
        return GW_EINTERNAL;
    return 0;
}

/* ---- kgate driver ----------------------------------------------------------------------- */

typedef struct {
    evdriver_t ev;
    const workload_t *w;
    econn_t etcd;
} kgate_t;

static void
kgate_range_done(int err, const Etcdserverpb__RangeResponse *resp, void *ctx)
{
    evdriver_done(ctx, err == 0 ? check_range(resp) : err);
}

static void
kgate_put_done(int err, const Etcdserverpb__PutResponse *resp, void *ctx)
{
    (void)resp;
    evdriver_done(ctx, err);
}

/* A create whose key existed measured nothing: an error. */
static void
kgate_txn_done(int err, const Etcdserverpb__TxnResponse *resp, void *ctx)
{
    evdriver_done(ctx, err == 0 && !resp->succeeded ? GW_EEXIST : err);
}

static void
kgate_start(driver_t *d, slot_t *s)
{
    kgate_t *k = (kgate_t *)d;
    int rc;

    if (s->phase->op == RPC_RANGE) {
        etcd_range_req_t req = {.key = etcd_str(RANGE_KEY)};
        rc = etcd_range(k->etcd.conn, &req, kgate_range_done, s);
    } else if (s->phase->op == RPC_TXN) {
        rc = create_txn_start(k->etcd.conn, next_txn_key(), k->w->value, VALUE_LEN, kgate_txn_done,
                              s);
    } else {
        etcd_bytes_t value = {k->w->value, VALUE_LEN};
        rc = etcd_put(k->etcd.conn, etcd_str(k->w->put_key[s->id]), value, 0, false, kgate_put_done,
                      s);
    }
    if (rc != 0)
        die("kgate: cannot start %s: %s", rpc_names[s->phase->op], gw_strerror(rc));
}

static kgate_t *
kgate_new(const char *url, const workload_t *w)
{
    kgate_t *k = gw_calloc(1, sizeof *k);

    k->w = w;
    econn_open(&k->etcd, url);
    k->ev = (evdriver_t){
        .d = {.name = "kgate", .op_names = rpc_names, .start = kgate_start, .run = evdriver_run},
        .base = k->etcd.base,
    };
    return k;
}

static void
kgate_free(kgate_t *k)
{
    econn_close(&k->etcd);
    free(k);
}

/* ---- baseline driver: gRPC core alone --------------------------------------------------- */

static const struct {
    const char *method;
    const ProtobufCMessageDescriptor *resp;
} rpcs[] = {
    [RPC_RANGE] = {"/etcdserverpb.KV/Range", &etcdserverpb__range_response__descriptor},
    [RPC_PUT] = {"/etcdserverpb.KV/Put", &etcdserverpb__put_response__descriptor},
    [RPC_TXN] = {"/etcdserverpb.KV/Txn", &etcdserverpb__txn_response__descriptor},
    [RPC_COMPACT] = {"/etcdserverpb.KV/Compact", &etcdserverpb__compaction_response__descriptor},
    [RPC_STATUS] = {"/etcdserverpb.Maintenance/Status", &etcdserverpb__status_response__descriptor},
};

#define N_RPCS (sizeof rpcs / sizeof rpcs[0])

/* One unary call: everything its single batch of six ops reads or writes. */
typedef struct {
    rpc_t rpc;
    grpc_call *call;
    grpc_byte_buffer *send, *recv;
    grpc_metadata_array initial_md, trailing_md;
    grpc_status_code status;
    grpc_slice details;
} rawcall_t;

typedef struct {
    driver_t d;
    const workload_t *w;
    grpc_channel *channel;
    grpc_completion_queue *cq;
    void *method[N_RPCS]; /* registered once, as a tuned client would */
    rawcall_t calls[MAX_CONC];
} raw_t;

static grpc_byte_buffer *
encode(const ProtobufCMessage *msg)
{
    grpc_slice s = grpc_slice_malloc(protobuf_c_message_get_packed_size(msg));
    protobuf_c_message_pack(msg, GRPC_SLICE_START_PTR(s));
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

static ProtobufCMessage *
decode(grpc_byte_buffer *bb, const ProtobufCMessageDescriptor *desc)
{
    grpc_byte_buffer_reader reader;
    if (!grpc_byte_buffer_reader_init(&reader, bb))
        return NULL;
    grpc_slice s = grpc_byte_buffer_reader_readall(&reader);
    ProtobufCMessage *msg =
        protobuf_c_message_unpack(desc, NULL, GRPC_SLICE_LENGTH(s), GRPC_SLICE_START_PTR(s));
    grpc_slice_unref(s);
    grpc_byte_buffer_reader_destroy(&reader);
    return msg;
}

static void
rawcall_start(raw_t *r, rawcall_t *c, rpc_t rpc, const ProtobufCMessage *req, void *tag)
{
    gpr_timespec deadline = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                         gpr_time_from_seconds(CALL_TIMEOUT_S, GPR_TIMESPAN));

    *c = (rawcall_t){.rpc = rpc, .send = encode(req)};
    grpc_metadata_array_init(&c->initial_md);
    grpc_metadata_array_init(&c->trailing_md);
    c->call = grpc_channel_create_registered_call(r->channel, NULL, GRPC_PROPAGATE_DEFAULTS, r->cq,
                                                  r->method[rpc], deadline, NULL);
    grpc_op ops[] = {
        {.op = GRPC_OP_SEND_INITIAL_METADATA, .flags = GRPC_INITIAL_METADATA_WAIT_FOR_READY},
        {.op = GRPC_OP_SEND_MESSAGE, .data.send_message.send_message = c->send},
        {.op = GRPC_OP_SEND_CLOSE_FROM_CLIENT},
        {.op = GRPC_OP_RECV_INITIAL_METADATA,
         .data.recv_initial_metadata.recv_initial_metadata = &c->initial_md},
        {.op = GRPC_OP_RECV_MESSAGE, .data.recv_message.recv_message = &c->recv},
        {.op = GRPC_OP_RECV_STATUS_ON_CLIENT,
         .data.recv_status_on_client = {.trailing_metadata = &c->trailing_md,
                                        .status = &c->status,
                                        .status_details = &c->details}},
    };
    grpc_call_error e = grpc_call_start_batch(c->call, ops, sizeof ops / sizeof ops[0], tag, NULL);
    if (e != GRPC_CALL_OK)
        die("baseline: grpc_call_start_batch: %d", (int)e);
}

static int
status_err(grpc_status_code status)
{
    switch (status) {
    case GRPC_STATUS_OK:
        return 0;
    case GRPC_STATUS_DEADLINE_EXCEEDED:
        return GW_ETIMEOUT;
    case GRPC_STATUS_UNAVAILABLE:
        return GW_EUNAVAILABLE;
    case GRPC_STATUS_OUT_OF_RANGE:
        return GW_ECOMPACTED;
    default:
        return GW_EINTERNAL;
    }
}

/* Finish a completed call: its error, and on success the decoded response in *resp (free with
 * protobuf_c_message_free_unpacked). Releases everything the call held. */
static int
rawcall_end(rawcall_t *c, ProtobufCMessage **resp)
{
    int err = status_err(c->status);

    *resp = NULL;
    if (err == 0 && c->recv != NULL)
        *resp = decode(c->recv, rpcs[c->rpc].resp);
    if (err == 0 && *resp == NULL)
        err = GW_EINTERNAL;
    grpc_metadata_array_destroy(&c->initial_md);
    grpc_metadata_array_destroy(&c->trailing_md);
    grpc_slice_unref(c->details);
    grpc_byte_buffer_destroy(c->send);
    if (c->recv != NULL)
        grpc_byte_buffer_destroy(c->recv);
    grpc_call_unref(c->call);
    return err;
}

/* One call with nothing else in flight on the queue: set-up, compaction, version probe. */
static int
raw_call_sync(raw_t *r, rpc_t rpc, const ProtobufCMessage *req, ProtobufCMessage **resp)
{
    rawcall_t c;

    rawcall_start(r, &c, rpc, req, &c);
    grpc_event ev = grpc_completion_queue_next(r->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
    assert(ev.type == GRPC_OP_COMPLETE && ev.tag == &c);
    return rawcall_end(&c, resp);
}

/* The create's transaction as etcdproto encodes it: one compare, one put on success. */
static void
raw_start_txn(raw_t *r, slot_t *s)
{
    const char *key = next_txn_key();
    ProtobufCBinaryData k = {strlen(key), (uint8_t *)key};
    Etcdserverpb__Compare cmp = ETCDSERVERPB__COMPARE__INIT, *cmps[] = {&cmp};
    Etcdserverpb__PutRequest put = ETCDSERVERPB__PUT_REQUEST__INIT;
    Etcdserverpb__RequestOp op = ETCDSERVERPB__REQUEST_OP__INIT, *ops[] = {&op};
    Etcdserverpb__TxnRequest txn = ETCDSERVERPB__TXN_REQUEST__INIT;

    cmp.key = k;
    cmp.result = ETCDSERVERPB__COMPARE__COMPARE_RESULT__EQUAL;
    cmp.target = ETCDSERVERPB__COMPARE__COMPARE_TARGET__CREATE;
    cmp.target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_CREATE_REVISION;
    put.key = k;
    put.value = (ProtobufCBinaryData){VALUE_LEN, (uint8_t *)r->w->value};
    op.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_PUT;
    op.request_put = &put;
    txn.n_compare = 1;
    txn.compare = cmps;
    txn.n_success = 1;
    txn.success = ops;
    rawcall_start(r, &r->calls[s->id], RPC_TXN, &txn.base, s);
}

static void
raw_start(driver_t *d, slot_t *s)
{
    raw_t *r = (raw_t *)d;
    Etcdserverpb__RangeRequest range = ETCDSERVERPB__RANGE_REQUEST__INIT;
    Etcdserverpb__PutRequest put = ETCDSERVERPB__PUT_REQUEST__INIT;

    if (s->phase->op == RPC_RANGE) {
        range.key = (ProtobufCBinaryData){strlen(RANGE_KEY), (uint8_t *)RANGE_KEY};
        rawcall_start(r, &r->calls[s->id], RPC_RANGE, &range.base, s);
    } else if (s->phase->op == RPC_TXN) {
        raw_start_txn(r, s);
    } else {
        const char *key = r->w->put_key[s->id];
        put.key = (ProtobufCBinaryData){strlen(key), (uint8_t *)key};
        put.value = (ProtobufCBinaryData){VALUE_LEN, (uint8_t *)r->w->value};
        rawcall_start(r, &r->calls[s->id], RPC_PUT, &put.base, s);
    }
}

static void
raw_run(driver_t *d, phase_t *p)
{
    raw_t *r = (raw_t *)d;

    while (p->inflight > 0) {
        grpc_event ev =
            grpc_completion_queue_next(r->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        assert(ev.type == GRPC_OP_COMPLETE);
        slot_t *s = ev.tag;
        ProtobufCMessage *resp;
        int err = rawcall_end(&r->calls[s->id], &resp);
        if (err == 0 && p->op == RPC_RANGE)
            err = check_range((const Etcdserverpb__RangeResponse *)resp);
        if (err == 0 && p->op == RPC_TXN && !((Etcdserverpb__TxnResponse *)resp)->succeeded)
            err = GW_EEXIST;
        if (resp != NULL)
            protobuf_c_message_free_unpacked(resp, NULL);
        slot_done(s, err);
    }
}

static raw_t *
raw_new(const char *url, const workload_t *w)
{
    raw_t *r = gw_calloc(1, sizeof *r);
    etcd_endpoint_t *eps;
    size_t n;
    char err[256];

    if (etcd_endpoints_parse(url, &eps, &n, err, sizeof err) != 0)
        die("%s", err);
    if (eps[0].tls)
        die("the baseline client speaks plain http only: %s", url);
    r->d =
        (driver_t){.name = "baseline", .op_names = rpc_names, .start = raw_start, .run = raw_run};
    r->w = w;
    grpc_init();
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    r->channel = grpc_channel_create(eps[0].target, creds, NULL);
    grpc_channel_credentials_release(creds);
    r->cq = grpc_completion_queue_create_for_next(NULL);
    for (size_t i = 0; i < N_RPCS; i++)
        r->method[i] = grpc_channel_register_call(r->channel, rpcs[i].method, NULL, NULL);
    etcd_endpoints_free(eps, n);
    return r;
}

static void
raw_free(raw_t *r)
{
    grpc_channel_destroy(r->channel);
    grpc_completion_queue_shutdown(r->cq);
    while (grpc_completion_queue_next(r->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
           GRPC_QUEUE_SHUTDOWN)
        ;
    grpc_completion_queue_destroy(r->cq);
    grpc_shutdown();
    free(r);
}

/* ---- set-up and housekeeping, through the baseline -------------------------------------- */

static void
seed(raw_t *r)
{
    Etcdserverpb__PutRequest put = ETCDSERVERPB__PUT_REQUEST__INIT;
    ProtobufCMessage *resp;

    put.key = (ProtobufCBinaryData){strlen(RANGE_KEY), (uint8_t *)RANGE_KEY};
    put.value = (ProtobufCBinaryData){VALUE_LEN, (uint8_t *)r->w->value};
    int err = raw_call_sync(r, RPC_PUT, &put.base, &resp);
    if (err != 0)
        die("cannot write %s: %s", RANGE_KEY, gw_strerror(err));
    protobuf_c_message_free_unpacked(resp, NULL);
}

/* Compact everything written so far: read throughput drops as revisions pile up, and a row
 * must not pay for the Puts of the rows before it. Physical, so etcd is done before the next
 * row starts. */
static void
compact(raw_t *r)
{
    Etcdserverpb__StatusRequest status = ETCDSERVERPB__STATUS_REQUEST__INIT;
    Etcdserverpb__CompactionRequest req = ETCDSERVERPB__COMPACTION_REQUEST__INIT;
    ProtobufCMessage *resp;

    int err = raw_call_sync(r, RPC_STATUS, &status.base, &resp);
    if (err != 0)
        die("status: %s", gw_strerror(err));
    req.revision = ((Etcdserverpb__StatusResponse *)resp)->header->revision;
    req.physical = true;
    protobuf_c_message_free_unpacked(resp, NULL);
    err = raw_call_sync(r, RPC_COMPACT, &req.base, &resp);
    /* Nothing new since the last compaction: etcd refuses the same revision again. */
    if (err == GW_ECOMPACTED)
        return;
    if (err != 0)
        die("compact: %s", gw_strerror(err));
    protobuf_c_message_free_unpacked(resp, NULL);
}

static void
print_setting(raw_t *r, const char *url, const timing_t *t)
{
    Etcdserverpb__StatusRequest req = ETCDSERVERPB__STATUS_REQUEST__INIT;
    ProtobufCMessage *resp;

    int err = raw_call_sync(r, RPC_STATUS, &req.base, &resp);
    if (err != 0)
        die("status of %s: %s", url, gw_strerror(err));
    printf("etcd %s at %s; %ld CPUs shared by etcd, gRPC and the client under test\n",
           ((Etcdserverpb__StatusResponse *)resp)->version, url, sysconf(_SC_NPROCESSORS_ONLN));
    printf("%d-byte values, linearizable Range of one key, Put of one key per caller, Txn of "
           "kgate's create (put if create_revision == 0) of a fresh key per call; %.1f s per "
           "client and row after %.1f s warm-up; etcd compacted between runs\n\n",
           VALUE_LEN, t->seconds, t->warmup);
    protobuf_c_message_free_unpacked(resp, NULL);
}

/* ---- main ------------------------------------------------------------------------------- */

static void
print_row(rpc_t op, int conc, const result_t *k, const result_t *b)
{
    printf("%-5s  %4d  %11.0f  %7.3f  %7.3f  %14.0f  %7.3f  %7.3f  %21.2f\n", rpc_names[op], conc,
           k->ops_s, k->p50_ms, k->p99_ms, b->ops_s, b->p50_ms, b->p99_ms,
           b->ops_s > 0 ? k->ops_s / b->ops_s : 0.0);
    fflush(stdout);
}

/* One row: op at conc through both clients, etcd compacted after each (and the created keys
 * deleted first). Returns the errors. */
static uint64_t
run_row(kgate_t *kg, raw_t *raw, rpc_t op, int conc, const timing_t *t)
{
    result_t k, b;

    run_phase(&kg->ev.d, op, conc, t, &k);
    if (op == RPC_TXN)
        econn_delete_prefix(&kg->etcd, TXN_PREFIX);
    compact(raw);
    run_phase(&raw->d, op, conc, t, &b);
    if (op == RPC_TXN)
        econn_delete_prefix(&kg->etcd, TXN_PREFIX);
    compact(raw);
    print_row(op, conc, &k, &b);
    return k.errors + b.errors;
}

int
main(int argc, char **argv)
{
    const char *url = argc > 1 ? argv[1] : getenv("KGATE_BENCH_ETCD");
    workload_t w;
    timing_t t;
    uint64_t errors = 0;

    if (url == NULL || argc > 2)
        die("usage: bench_etcd http://host:port (or set KGATE_BENCH_ETCD)");
    parse_timing(&t);
    workload_init(&w);
    raw_t *raw = raw_new(url, &w);
    kgate_t *kg = kgate_new(url, &w);
    seed(raw);
    compact(raw);
    print_setting(raw, url, &t);
    printf("op     conc  kgate ops/s   p50 ms   p99 ms  baseline ops/s   p50 ms   p99 ms  "
           "ratio(kgate/baseline)\n");
    for (rpc_t op = RPC_RANGE; op <= RPC_PUT; op++) {
        for (size_t i = 0; i < sizeof concurrencies / sizeof concurrencies[0]; i++)
            errors += run_row(kg, raw, op, concurrencies[i], &t);
    }
    for (size_t i = 0; i < sizeof txn_concurrencies / sizeof txn_concurrencies[0]; i++)
        errors += run_row(kg, raw, RPC_TXN, txn_concurrencies[i], &t);
    kgate_free(kg);
    raw_free(raw);
    return errors == 0 ? 0 : 1;
}
