/*
 * Guaranteed update, as kube-apiserver's GuaranteedUpdate: read, let the caller compute the
 * new value, write it with a precondition on the revision that was read, and on conflict
 * start over from the value the failed transaction read back (no extra round trip). The caller
 * sees and commits JSON: the current value comes through from_storage, the new one goes to
 * etcd through to_storage.
 */
#include "gw_store.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_err.h"
#include "gw_store_int.h"

struct gw_store_update {
    gw_store_t *s;
    char *key; /* full etcd key */
    char *rel;
    int max_attempts;
    int conflicts;
    gw_store_mutate_fn mutate;
    gw_store_write_cb done;
    void *ctx;
    bool deciding; /* mutate was called; commit or abort is due */
    bool exists;   /* cur holds the object as last read */
    gw_obj_t cur;  /* its JSON, in cur.owned (mutate may run asynchronously) */
    uint8_t *next; /* the JSON being written */
    size_t next_len;
    int64_t sent_ns;              /* when the etcd request in flight was sent */
    char type[GW_STORE_TYPE_MAX]; /* the etcd metrics' */
};

static void
clear_current(gw_store_update_t *u)
{
    free(u->cur.owned);
    free((char *)u->cur.unreadable);
    u->cur = (gw_obj_t){.key = u->rel};
}

static void
set_current(gw_store_update_t *u, const Mvccpb__KeyValue *kv)
{
    gw_value_t v;

    clear_current(u);
    u->exists = kv != NULL;
    if (kv == NULL)
        return;
    u->cur.unreadable = gw_store__from_storage(
        u->s, u->rel, kv->value.data ? kv->value.data : (const uint8_t *)"", kv->value.len, &v);
    u->cur.stale = v.stale;
    /* Ours to keep: a transcoded buffer as is, a view of the response copied. */
    u->cur.owned = v.owned != NULL ? v.owned : gw_memdup(v.data, v.len);
    u->cur.value = u->cur.owned;
    u->cur.value_len = v.len;
    u->cur.mod_revision = kv->mod_revision;
    u->cur.create_revision = kv->create_revision;
    u->cur.lease = kv->lease;
}

/* The last callback: after it the handle is gone. */
static void
finish(gw_store_update_t *u, int err, const gw_obj_t *obj)
{
    u->s->n_updates--;
    u->done(err, obj, u->ctx);
    clear_current(u);
    free(u->next);
    free(u->key);
    free(u->rel);
    free(u);
}

/* Hand the current object to the caller; `u` may be gone when this returns. */
static void
ask(gw_store_update_t *u)
{
    u->deciding = true;
    u->mutate(u, u->exists ? &u->cur : NULL, u->ctx);
}

static void
read_done(int err, const Etcdserverpb__RangeResponse *resp, void *arg)
{
    gw_store_update_t *u = arg;

    gw_store__etcd_observe("get", u->type, u->sent_ns);
    if (err != 0) {
        finish(u, err, NULL);
        return;
    }
    set_current(u, gw_store__first_kv(resp));
    ask(u);
}

static void
written(gw_store_update_t *u, int64_t rev)
{
    gw_obj_t obj = {
        .key = u->rel,
        .value = u->next,
        .value_len = u->next_len,
        .mod_revision = rev,
        .create_revision = u->exists ? u->cur.create_revision : rev,
        .lease = u->exists ? u->cur.lease : 0,
    };
    finish(u, 0, &obj);
}

static void
txn_done(int err, const Etcdserverpb__TxnResponse *resp, void *arg)
{
    gw_store_update_t *u = arg;

    gw_store__etcd_observe("update", u->type, u->sent_ns);
    if (err != 0) {
        finish(u, err, NULL);
        return;
    }
    if (resp->succeeded) {
        written(u, gw_store__rev(resp->header));
        return;
    }
    set_current(u, gw_store__first_kv(gw_store__txn_range(resp, 0)));
    free(u->next);
    u->next = NULL;
    u->conflicts++;
    if (u->max_attempts > 0 && u->conflicts >= u->max_attempts) {
        finish(u, GW_ECONFLICT, u->exists ? &u->cur : NULL);
        return;
    }
    ask(u);
}

static void
write_next(gw_store_update_t *u, const gw_value_t *stored)
{
    /* Written only if the key is still exactly what mutate saw; an existing key keeps its
     * lease (a Put without one would detach it). */
    etcd_cmp_t cmp = {.key = etcd_str(u->key), .result = ETCD_CMP_EQUAL};
    etcd_op_t put = {.kind = ETCD_OP_PUT,
                     .key = cmp.key,
                     .value = {stored->data, stored->len},
                     .lease = u->exists ? u->cur.lease : 0};
    etcd_op_t get = {.kind = ETCD_OP_RANGE, .key = cmp.key};
    int rc;

    cmp.target = u->exists ? ETCD_CMP_MOD : ETCD_CMP_CREATE;
    cmp.number = u->exists ? u->cur.mod_revision : 0;
    u->sent_ns = gw_monotonic_ns();
    rc = etcd_txn_if(u->s->conn, &cmp, &put, &get, txn_done, u);
    if (rc != 0)
        finish(u, rc, NULL);
}

void
gw_store_update_commit(gw_store_update_t *u, uint8_t *value, size_t len)
{
    gw_value_t stored;
    int rc;

    assert(u->deciding);
    u->deciding = false;
    /* Nothing changed: like kube-apiserver, skip the write and return the object as is. Both
     * sides are JSON (the current value came through from_storage), so a value kube stored as
     * protobuf is seen unchanged without encoding anything, and an unchanged object is never
     * rewritten merely to change its encoding. */
    /* A stale value (an older key or provider) is written again even unchanged: that is how
     * kube's replace of every object re-encrypts it with the current key. */
    if (u->exists && !u->cur.stale && len == u->cur.value_len &&
        (len == 0 || memcmp(value, u->cur.value, len) == 0)) {
        free(value);
        finish(u, 0, &u->cur);
        return;
    }
    u->next = value;
    u->next_len = len;
    rc = gw_store__to_storage(u->s, u->rel, value ? value : (const uint8_t *)"", len, &stored);
    if (rc != 0) {
        finish(u, rc, NULL);
        return;
    }
    write_next(u, &stored); /* may finish u; stored is ours still */
    gw_value_clear(&stored);
}

void
gw_store_update_abort(gw_store_update_t *u, int err)
{
    assert(u->deciding);
    assert(err < 0);
    u->deciding = false;
    finish(u, err, NULL);
}

int
gw_store_guaranteed_update(gw_store_t *s, const char *key, int max_attempts,
                           gw_store_mutate_fn mutate, gw_store_write_cb done, void *ctx)
{
    gw_store_update_t *u;
    int rc;

    if (!gw_store__key_ok(key) || max_attempts < 0 || mutate == NULL || done == NULL)
        return GW_EINVAL;
    u = gw_calloc(1, sizeof(*u));
    u->s = s;
    u->key = gw_store__full_key(s, key);
    u->rel = gw_strdup(key);
    u->max_attempts = max_attempts;
    u->mutate = mutate;
    u->done = done;
    u->ctx = ctx;
    u->sent_ns = gw_monotonic_ns();
    gw_store__etcd_type(key, u->type, sizeof(u->type));
    rc = etcd_range(s->conn, &(etcd_range_req_t){.key = etcd_str(u->key)}, read_done, u);
    if (rc != 0) {
        free(u->key);
        free(u->rel);
        free(u);
        return rc;
    }
    s->n_updates++;
    return 0;
}
