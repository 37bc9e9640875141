/*
 * The typed unary calls of the KV and Maintenance services: each builds its request on the
 * stack, checks what etcd would reject anyway, and hands it to the unary path.
 */
#include "etcd.h"

#include <stdlib.h>

#include "etcd_int.h"
#include "gw_alloc.h"
#include "gw_err.h"

ETCD__DELIVER(deliver_range, etcd_range_cb, Etcdserverpb__RangeResponse)
ETCD__DELIVER(deliver_put, etcd_put_cb, Etcdserverpb__PutResponse)
ETCD__DELIVER(deliver_delete, etcd_delete_cb, Etcdserverpb__DeleteRangeResponse)
ETCD__DELIVER(deliver_txn, etcd_txn_cb, Etcdserverpb__TxnResponse)
ETCD__DELIVER(deliver_compact, etcd_compact_cb, Etcdserverpb__CompactionResponse)
ETCD__DELIVER(deliver_status, etcd_status_cb, Etcdserverpb__StatusResponse)

static const etcd__method_t m_range = {
    "/etcdserverpb.KV/Range", &etcdserverpb__range_response__descriptor, true, deliver_range};
static const etcd__method_t m_put = {"/etcdserverpb.KV/Put",
                                     &etcdserverpb__put_response__descriptor, false, deliver_put};
static const etcd__method_t m_delete = {"/etcdserverpb.KV/DeleteRange",
                                        &etcdserverpb__delete_range_response__descriptor, false,
                                        deliver_delete};
static const etcd__method_t m_txn = {"/etcdserverpb.KV/Txn",
                                     &etcdserverpb__txn_response__descriptor, false, deliver_txn};
static const etcd__method_t m_compact = {"/etcdserverpb.KV/Compact",
                                         &etcdserverpb__compaction_response__descriptor, false,
                                         deliver_compact};
static const etcd__method_t m_status = {"/etcdserverpb.Maintenance/Status",
                                        &etcdserverpb__status_response__descriptor, true,
                                        deliver_status};

static bool
bad_bytes(etcd_bytes_t b)
{
    return b.data == NULL && b.len > 0;
}

/* etcd refuses an empty key; a non-empty one must have its bytes. */
static bool
bad_key(etcd_bytes_t key)
{
    return key.len == 0 || key.data == NULL;
}

int
etcd_range(etcd_conn_t *conn, const etcd_range_req_t *req, etcd_range_cb cb, void *ctx)
{
    if (bad_key(req->key) || bad_bytes(req->range_end) || req->revision < 0 || req->limit < 0)
        return GW_EINVAL;
    Etcdserverpb__RangeRequest r = ETCDSERVERPB__RANGE_REQUEST__INIT;
    r.key = etcd__pb_bytes(req->key);
    r.range_end = etcd__pb_bytes(req->range_end);
    r.revision = req->revision;
    r.limit = req->limit;
    r.keys_only = req->keys_only;
    r.count_only = req->count_only;
    r.serializable = req->serializable;
    return etcd__unary_start(conn, &m_range, &r.base, (void (*)(void))cb, ctx);
}

int
etcd_put(etcd_conn_t *conn, etcd_bytes_t key, etcd_bytes_t value, int64_t lease, bool prev_kv,
         etcd_put_cb cb, void *ctx)
{
    if (bad_key(key) || bad_bytes(value) || lease < 0)
        return GW_EINVAL;
    Etcdserverpb__PutRequest r = ETCDSERVERPB__PUT_REQUEST__INIT;
    r.key = etcd__pb_bytes(key);
    r.value = etcd__pb_bytes(value);
    r.lease = lease;
    r.prev_kv = prev_kv;
    return etcd__unary_start(conn, &m_put, &r.base, (void (*)(void))cb, ctx);
}

int
etcd_delete(etcd_conn_t *conn, etcd_bytes_t key, etcd_bytes_t range_end, bool prev_kv,
            etcd_delete_cb cb, void *ctx)
{
    if (bad_key(key) || bad_bytes(range_end))
        return GW_EINVAL;
    Etcdserverpb__DeleteRangeRequest r = ETCDSERVERPB__DELETE_RANGE_REQUEST__INIT;
    r.key = etcd__pb_bytes(key);
    r.range_end = etcd__pb_bytes(range_end);
    r.prev_kv = prev_kv;
    return etcd__unary_start(conn, &m_delete, &r.base, (void (*)(void))cb, ctx);
}

int
etcd_compact(etcd_conn_t *conn, int64_t revision, bool physical, etcd_compact_cb cb, void *ctx)
{
    if (revision <= 0)
        return GW_EINVAL;
    Etcdserverpb__CompactionRequest r = ETCDSERVERPB__COMPACTION_REQUEST__INIT;
    r.revision = revision;
    r.physical = physical;
    return etcd__unary_start(conn, &m_compact, &r.base, (void (*)(void))cb, ctx);
}

int
etcd_status(etcd_conn_t *conn, etcd_status_cb cb, void *ctx)
{
    Etcdserverpb__StatusRequest r = ETCDSERVERPB__STATUS_REQUEST__INIT;
    return etcd__unary_start(conn, &m_status, &r.base, (void (*)(void))cb, ctx);
}

/* ---- transactions --------------------------------------------------------------------------- */

/* A RequestOp and the one request it points to. */
typedef struct {
    Etcdserverpb__RequestOp op;
    union {
        Etcdserverpb__RangeRequest range;
        Etcdserverpb__PutRequest put;
        Etcdserverpb__DeleteRangeRequest del;
    } u;
} op_slot_t;

static bool
bad_op(const etcd_op_t *o)
{
    if (bad_key(o->key) || bad_bytes(o->range_end) || bad_bytes(o->value))
        return true;
    return o->kind != ETCD_OP_RANGE && o->kind != ETCD_OP_PUT && o->kind != ETCD_OP_DELETE;
}

static void
fill_op(op_slot_t *s, const etcd_op_t *o)
{
    Etcdserverpb__RequestOp init = ETCDSERVERPB__REQUEST_OP__INIT;
    s->op = init;
    if (o->kind == ETCD_OP_RANGE) {
        s->u.range = (Etcdserverpb__RangeRequest)ETCDSERVERPB__RANGE_REQUEST__INIT;
        s->u.range.key = etcd__pb_bytes(o->key);
        s->u.range.range_end = etcd__pb_bytes(o->range_end);
        s->op.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_RANGE;
        s->op.request_range = &s->u.range;
    } else if (o->kind == ETCD_OP_PUT) {
        s->u.put = (Etcdserverpb__PutRequest)ETCDSERVERPB__PUT_REQUEST__INIT;
        s->u.put.key = etcd__pb_bytes(o->key);
        s->u.put.value = etcd__pb_bytes(o->value);
        s->u.put.lease = o->lease;
        s->u.put.prev_kv = o->prev_kv;
        s->op.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_PUT;
        s->op.request_put = &s->u.put;
    } else {
        s->u.del = (Etcdserverpb__DeleteRangeRequest)ETCDSERVERPB__DELETE_RANGE_REQUEST__INIT;
        s->u.del.key = etcd__pb_bytes(o->key);
        s->u.del.range_end = etcd__pb_bytes(o->range_end);
        s->u.del.prev_kv = o->prev_kv;
        s->op.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_DELETE_RANGE;
        s->op.request_delete_range = &s->u.del;
    }
}

static bool
bad_cmp(const etcd_cmp_t *c)
{
    if (bad_key(c->key) || bad_bytes(c->value))
        return true;
    return (unsigned)c->target > ETCD_CMP_VALUE || (unsigned)c->result > ETCD_CMP_NOT_EQUAL;
}

static void
fill_cmp(Etcdserverpb__Compare *pc, const etcd_cmp_t *c)
{
    static const Etcdserverpb__Compare__CompareResult results[] = {
        [ETCD_CMP_EQUAL] = ETCDSERVERPB__COMPARE__COMPARE_RESULT__EQUAL,
        [ETCD_CMP_GREATER] = ETCDSERVERPB__COMPARE__COMPARE_RESULT__GREATER,
        [ETCD_CMP_LESS] = ETCDSERVERPB__COMPARE__COMPARE_RESULT__LESS,
        [ETCD_CMP_NOT_EQUAL] = ETCDSERVERPB__COMPARE__COMPARE_RESULT__NOT_EQUAL,
    };
    *pc = (Etcdserverpb__Compare)ETCDSERVERPB__COMPARE__INIT;
    pc->key = etcd__pb_bytes(c->key);
    pc->result = results[c->result];
    switch (c->target) {
    case ETCD_CMP_VERSION:
        pc->target = ETCDSERVERPB__COMPARE__COMPARE_TARGET__VERSION;
        pc->target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_VERSION;
        pc->version = c->number;
        break;
    case ETCD_CMP_CREATE:
        pc->target = ETCDSERVERPB__COMPARE__COMPARE_TARGET__CREATE;
        pc->target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_CREATE_REVISION;
        pc->create_revision = c->number;
        break;
    case ETCD_CMP_MOD:
        pc->target = ETCDSERVERPB__COMPARE__COMPARE_TARGET__MOD;
        pc->target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_MOD_REVISION;
        pc->mod_revision = c->number;
        break;
    case ETCD_CMP_VALUE:
        pc->target = ETCDSERVERPB__COMPARE__COMPARE_TARGET__VALUE;
        pc->target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_VALUE;
        pc->value = etcd__pb_bytes(c->value);
        break;
    }
}

static bool
bad_txn(const etcd_txn_req_t *req)
{
    if ((req->n_cmps && !req->cmps) || (req->n_success && !req->success) ||
        (req->n_failure && !req->failure))
        return true;
    for (size_t i = 0; i < req->n_cmps; i++) {
        if (bad_cmp(&req->cmps[i]))
            return true;
    }
    for (size_t i = 0; i < req->n_success; i++) {
        if (bad_op(&req->success[i]))
            return true;
    }
    for (size_t i = 0; i < req->n_failure; i++) {
        if (bad_op(&req->failure[i]))
            return true;
    }
    return false;
}

/* Fill n slots from ops and point ptrs at them. */
static void
fill_ops(op_slot_t *slots, Etcdserverpb__RequestOp **ptrs, const etcd_op_t *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fill_op(&slots[i], &ops[i]);
        ptrs[i] = &slots[i].op;
    }
}

int
etcd_txn(etcd_conn_t *conn, const etcd_txn_req_t *req, etcd_txn_cb cb, void *ctx)
{
    if (bad_txn(req))
        return GW_EINVAL;
    size_t n_ops = req->n_success + req->n_failure;
    Etcdserverpb__Compare *cmps = gw_calloc(req->n_cmps, sizeof(*cmps));
    Etcdserverpb__Compare **cmp_ptrs = gw_calloc(req->n_cmps, sizeof(*cmp_ptrs));
    op_slot_t *slots = gw_calloc(n_ops, sizeof(*slots));
    Etcdserverpb__RequestOp **op_ptrs = gw_calloc(n_ops, sizeof(*op_ptrs));
    for (size_t i = 0; i < req->n_cmps; i++) {
        fill_cmp(&cmps[i], &req->cmps[i]);
        cmp_ptrs[i] = &cmps[i];
    }
    fill_ops(slots, op_ptrs, req->success, req->n_success);
    fill_ops(slots + req->n_success, op_ptrs + req->n_success, req->failure, req->n_failure);

    Etcdserverpb__TxnRequest r = ETCDSERVERPB__TXN_REQUEST__INIT;
    r.n_compare = req->n_cmps;
    r.compare = cmp_ptrs;
    r.n_success = req->n_success;
    r.success = op_ptrs;
    r.n_failure = req->n_failure;
    r.failure = op_ptrs + req->n_success;
    int rc = etcd__unary_start(conn, &m_txn, &r.base, (void (*)(void))cb, ctx);
    free(cmps);
    free(cmp_ptrs);
    free(slots);
    free(op_ptrs);
    return rc;
}

int
etcd_txn_if(etcd_conn_t *conn, const etcd_cmp_t *cmp, const etcd_op_t *then_op,
            const etcd_op_t *else_op, etcd_txn_cb cb, void *ctx)
{
    etcd_txn_req_t req = {.cmps = cmp,
                          .n_cmps = 1,
                          .success = then_op,
                          .n_success = 1,
                          .failure = else_op,
                          .n_failure = else_op != NULL};
    return etcd_txn(conn, &req, cb, ctx);
}
