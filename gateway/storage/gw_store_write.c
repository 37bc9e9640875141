/* Writes with preconditions: create, update, delete, each one etcd transaction. Values go to
 * etcd through the store's to_storage; results report the caller's JSON (or, for a failed
 * precondition and a delete, the stored value through from_storage). */
#include "gw_store.h"

#include <stdlib.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_err.h"
#include "gw_store_int.h"

typedef struct {
    gw_store_t *s;
    gw_store_write_cb cb;
    void *ctx;
    char *rel;
    uint8_t *value; /* what create/update wrote, for the result */
    size_t len;
    int64_t lease;
    int64_t guard_revision; /* a guarded create's */
    const char *operation;  /* the etcd metrics' */
    int64_t start_ns;
} write_op_t;

static write_op_t *
op_new(gw_store_t *s, const char *rel, const uint8_t *value, size_t len, gw_store_write_cb cb,
       void *ctx)
{
    write_op_t *op = gw_calloc(1, sizeof(*op));

    op->s = s;
    op->cb = cb;
    op->ctx = ctx;
    op->rel = gw_strdup(rel);
    op->value = gw_memdup(value, len);
    op->len = len;
    op->start_ns = gw_monotonic_ns();
    return op;
}

static void
op_free(write_op_t *op)
{
    if (op->operation != NULL) {
        char type[GW_STORE_TYPE_MAX];
        gw_store__etcd_type(op->rel, type, sizeof(type));
        gw_store__etcd_observe(op->operation, type, op->start_ns);
    }
    free(op->rel);
    free(op->value);
    free(op);
}

/* Report what create/update stored: the written bytes at the transaction's revision. */
static void
report_written(write_op_t *op, int64_t rev, int64_t create_rev)
{
    gw_obj_t obj = {
        .key = op->rel,
        .value = op->value,
        .value_len = op->len,
        .mod_revision = rev,
        .create_revision = create_rev,
        .lease = op->lease,
    };
    op->cb(0, &obj, op->ctx);
}

/* A failed precondition: the failure branch read the key, so tell gone from changed. */
static void
report_failed(write_op_t *op, const Etcdserverpb__TxnResponse *resp)
{
    const Mvccpb__KeyValue *kv = gw_store__first_kv(gw_store__txn_range(resp, 0));
    gw_obj_t cur;

    if (kv == NULL) {
        op->cb(GW_ENOTFOUND, NULL, op->ctx);
        return;
    }
    gw_store__obj_init(op->s, kv, &cur);
    op->cb(GW_ECONFLICT, &cur, op->ctx);
    gw_store__obj_clear(&cur);
}

static int
start_txn(write_op_t *op, const etcd_cmp_t *cmp, const etcd_op_t *then_op, const etcd_op_t *else_op,
          etcd_txn_cb done)
{
    int rc = etcd_txn_if(op->s->conn, cmp, then_op, else_op, done, op);

    if (rc != 0) {
        op->operation = NULL; /* no request was made */
        op_free(op);
    }
    return rc;
}

/* ---- create ----------------------------------------------------------------------------- */

static void
create_done(int err, const Etcdserverpb__TxnResponse *resp, void *arg)
{
    write_op_t *op = arg;

    if (err == 0 && !resp->succeeded)
        err = GW_EEXIST;
    if (err != 0) {
        op->cb(err, NULL, op->ctx);
    } else {
        int64_t rev = gw_store__rev(resp->header);
        report_written(op, rev, rev);
    }
    op_free(op);
}

/* What both creates check and make first: the value in its stored form and the operation
 * that reports the write. */
static int
create_prepare(gw_store_t *s, const char *key, const uint8_t *value, size_t len,
               gw_store_write_cb cb, void *ctx, gw_value_t *stored, write_op_t **op)
{
    int rc;

    if (!gw_store__key_ok(key) || (value == NULL && len > 0))
        return GW_EINVAL;
    rc = gw_store__to_storage(s, key, value ? value : (const uint8_t *)"", len, stored);
    if (rc != 0)
        return rc;
    *op = op_new(s, key, value, len, cb, ctx);
    (*op)->operation = "create";
    return 0;
}

int
gw_store_create(gw_store_t *s, const char *key, const uint8_t *value, size_t len, int64_t lease,
                gw_store_write_cb cb, void *ctx)
{
    gw_value_t stored;
    write_op_t *op;
    char *full;
    int rc;

    if (lease < 0)
        return GW_EINVAL;
    rc = create_prepare(s, key, value, len, cb, ctx, &stored, &op);
    if (rc != 0)
        return rc;
    op->lease = lease;
    full = gw_store__full_key(s, key);
    /* kube-apiserver's create: only if the key has never been created (or was deleted). */
    etcd_cmp_t cmp = {.key = etcd_str(full), .target = ETCD_CMP_CREATE, .result = ETCD_CMP_EQUAL};
    etcd_op_t put = {
        .kind = ETCD_OP_PUT, .key = cmp.key, .value = {stored.data, stored.len}, .lease = lease};
    rc = start_txn(op, &cmp, &put, NULL, create_done);
    gw_value_clear(&stored); /* etcd copied the request */
    free(full);
    return rc;
}

/* The guarded create failed: the failure branch read the guard's key, so tell a guard that
 * moved (GW_ECONFLICT) from a key that exists (GW_EEXIST). */
static void
guarded_create_done(int err, const Etcdserverpb__TxnResponse *resp, void *arg)
{
    write_op_t *op = arg;
    const Mvccpb__KeyValue *guard;

    if (err == 0 && !resp->succeeded) {
        guard = gw_store__first_kv(gw_store__txn_range(resp, 0));
        err = guard == NULL || guard->mod_revision != op->guard_revision ? GW_ECONFLICT : GW_EEXIST;
        op->cb(err, NULL, op->ctx);
        op_free(op);
        return;
    }
    create_done(err, resp, arg);
}

int
gw_store_create_guarded(gw_store_t *s, const char *key, const uint8_t *value, size_t len,
                        const char *guard_key, int64_t guard_revision, gw_store_write_cb cb,
                        void *ctx)
{
    gw_value_t stored;
    write_op_t *op;
    char *full, *guard;
    int rc;

    if (!gw_store__key_ok(guard_key) || guard_revision <= 0)
        return GW_EINVAL;
    rc = create_prepare(s, key, value, len, cb, ctx, &stored, &op);
    if (rc != 0)
        return rc;
    op->guard_revision = guard_revision;
    full = gw_store__full_key(s, key);
    guard = gw_store__full_key(s, guard_key);
    etcd_cmp_t cmps[] = {
        {.key = etcd_str(full), .target = ETCD_CMP_CREATE, .result = ETCD_CMP_EQUAL},
        {.key = etcd_str(guard),
         .target = ETCD_CMP_MOD,
         .result = ETCD_CMP_EQUAL,
         .number = guard_revision},
    };
    etcd_op_t put = {.kind = ETCD_OP_PUT, .key = cmps[0].key, .value = {stored.data, stored.len}};
    etcd_op_t get = {.kind = ETCD_OP_RANGE, .key = cmps[1].key};
    etcd_txn_req_t req = {.cmps = cmps,
                          .n_cmps = 2,
                          .success = &put,
                          .n_success = 1,
                          .failure = &get,
                          .n_failure = 1};
    rc = etcd_txn(s->conn, &req, guarded_create_done, op);
    if (rc != 0)
        op_free(op);
    gw_value_clear(&stored); /* etcd copied the request */
    free(full);
    free(guard);
    return rc;
}

/* ---- update ----------------------------------------------------------------------------- */

static void
update_done(int err, const Etcdserverpb__TxnResponse *resp, void *arg)
{
    write_op_t *op = arg;

    if (err != 0) {
        op->cb(err, NULL, op->ctx);
    } else if (!resp->succeeded) {
        report_failed(op, resp);
    } else {
        const Etcdserverpb__PutResponse *put = gw_store__txn_put(resp, 0);
        int64_t rev = gw_store__rev(resp->header);
        report_written(op, rev, put && put->prev_kv ? put->prev_kv->create_revision : rev);
    }
    op_free(op);
}

int
gw_store_update(gw_store_t *s, const char *key, const uint8_t *value, size_t len,
                int64_t expected_revision, gw_store_write_cb cb, void *ctx)
{
    gw_value_t stored;
    write_op_t *op;
    char *full;
    int rc;

    /* mod_revision 0 would match a missing key and turn the update into a create. */
    if (!gw_store__key_ok(key) || (value == NULL && len > 0) || expected_revision <= 0)
        return GW_EINVAL;
    rc = gw_store__to_storage(s, key, value ? value : (const uint8_t *)"", len, &stored);
    if (rc != 0)
        return rc;
    op = op_new(s, key, value, len, cb, ctx);
    op->operation = "update";
    full = gw_store__full_key(s, key);
    etcd_cmp_t cmp = {.key = etcd_str(full),
                      .target = ETCD_CMP_MOD,
                      .result = ETCD_CMP_EQUAL,
                      .number = expected_revision};
    /* prev_kv gives the create_revision of the object we replaced. */
    etcd_op_t put = {
        .kind = ETCD_OP_PUT, .key = cmp.key, .value = {stored.data, stored.len}, .prev_kv = true};
    etcd_op_t get = {.kind = ETCD_OP_RANGE, .key = cmp.key};
    rc = start_txn(op, &cmp, &put, &get, update_done);
    gw_value_clear(&stored); /* etcd copied the request */
    free(full);
    return rc;
}

/* ---- delete ----------------------------------------------------------------------------- */

static void
delete_done(int err, const Etcdserverpb__TxnResponse *resp, void *arg)
{
    write_op_t *op = arg;
    const Etcdserverpb__DeleteRangeResponse *del = err == 0 ? gw_store__txn_delete(resp, 0) : NULL;
    gw_obj_t last;

    if (err != 0) {
        op->cb(err, NULL, op->ctx);
    } else if (!resp->succeeded) {
        report_failed(op, resp);
    } else if (del == NULL || del->n_prev_kvs == 0) {
        op->cb(GW_ENOTFOUND, NULL, op->ctx);
    } else {
        /* As kube-apiserver: the last value, stamped with the deletion's revision. */
        gw_store__obj_init(op->s, del->prev_kvs[0], &last);
        last.mod_revision = gw_store__rev(resp->header);
        op->cb(0, &last, op->ctx);
        gw_store__obj_clear(&last);
    }
    op_free(op);
}

int
gw_store_delete(gw_store_t *s, const char *key, int64_t expected_revision, gw_store_write_cb cb,
                void *ctx)
{
    write_op_t *op;
    char *full;
    int rc;

    if (!gw_store__key_ok(key) || expected_revision < 0)
        return GW_EINVAL;
    op = op_new(s, key, NULL, 0, cb, ctx);
    op->operation = "delete";
    full = gw_store__full_key(s, key);
    /* Without a precondition the compare only asks that the key exists. */
    etcd_cmp_t cmp = {.key = etcd_str(full),
                      .target = ETCD_CMP_MOD,
                      .result = expected_revision ? ETCD_CMP_EQUAL : ETCD_CMP_GREATER,
                      .number = expected_revision};
    etcd_op_t del = {.kind = ETCD_OP_DELETE, .key = cmp.key, .prev_kv = true};
    etcd_op_t get = {.kind = ETCD_OP_RANGE, .key = cmp.key};
    rc = start_txn(op, &cmp, &del, &get, delete_done);
    free(full);
    return rc;
}
