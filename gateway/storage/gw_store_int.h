#ifndef GATEWAY_STORAGE_GW_STORE_INT_H
#define GATEWAY_STORAGE_GW_STORE_INT_H

/* Internals shared by the gw_store*.c files. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etcd.h"
#include "gw_store.h"

struct gw_store {
    etcd_conn_t *conn;
    char *prefix; /* --etcd-prefix plus one '/': every full key starts with it */
    size_t prefix_len;
    size_t n_updates; /* guaranteed updates not yet done (checked by gw_store_free) */
    const gw_value_transformer_t *values; /* NULL: values pass as they are */
    const gw_read_cache_ops_t *cache;     /* the read cache in front of etcd, or NULL */
    void *cache_impl;
};

/** Full etcd key of a relative key: prefix + rel. Caller frees. */
char *gw_store__full_key(const gw_store_t *s, const char *rel);

/**
 * etcd's "prefix end" of `key`: the smallest key greater than every key starting with it
 * (last byte incremented, trailing 0xff bytes dropped; "\0" when nothing is left, meaning
 * "no upper bound"). Returns a new buffer (caller frees) and its length in *len.
 */
char *gw_store__prefix_end(const char *key, size_t *len);

/**
 * The JSON document of a stored value (relative key `rel`): a view of `in` when it needs no
 * change, else a new buffer in out->owned. Never fails: a value the transformer refuses is
 * logged and handed up as stored (no JSON reader takes it: a corrupt object), and the
 * transformer's reason returned as a new string (caller frees); NULL when it was read.
 */
char *gw_store__from_storage(const gw_store_t *s, const char *rel, const uint8_t *in, size_t len,
                             gw_value_t *out);

/** The bytes to store for a JSON document: a view of it or a new buffer (gw_value_clear).
 *  Returns 0 or the transformer's error (logged). */
int gw_store__to_storage(const gw_store_t *s, const char *rel, const uint8_t *json, size_t len,
                         gw_value_t *out);

/** kv's key relative to the prefix, as a new string (caller frees). */
char *gw_store__rel_key(const gw_store_t *s, const Mvccpb__KeyValue *kv);

/** Fill *obj from kv: a new relative key and the value through from_storage (free both with
 *  gw_store__obj_clear). */
void gw_store__obj_init(const gw_store_t *s, const Mvccpb__KeyValue *kv, gw_obj_t *obj);
/** Free the key and the transcoded value that gw_store__obj_init allocated. */
void gw_store__obj_clear(gw_obj_t *obj);

/** The revision in a response header, 0 if the header is missing. */
int64_t gw_store__rev(const Etcdserverpb__ResponseHeader *h);

/** The i-th response of a transaction if it is a range (or put, or delete) response, else
 *  NULL. */
const Etcdserverpb__RangeResponse *gw_store__txn_range(const Etcdserverpb__TxnResponse *r,
                                                       size_t i);
const Etcdserverpb__PutResponse *gw_store__txn_put(const Etcdserverpb__TxnResponse *r, size_t i);
const Etcdserverpb__DeleteRangeResponse *gw_store__txn_delete(const Etcdserverpb__TxnResponse *r,
                                                              size_t i);

/** The first kv of a range response, or NULL when there is none. */
const Mvccpb__KeyValue *gw_store__first_kv(const Etcdserverpb__RangeResponse *r);

/** The size of an etcd metric's type label (gw_store__etcd_type). */
#define GW_STORE_TYPE_MAX 96

/** kube's `type` label of the etcd metrics for relative key rel: its group resource
 *  ("deployments.apps"), into out (GW_STORE_TYPE_MAX bytes). Thread: any. */
void gw_store__etcd_type(const char *rel, char *out, size_t out_len);

/** Record one etcd request of `operation` ("get", "list", "create", "update", "delete") for
 *  `type`, begun at start_ns (gw_monotonic_ns): etcd_request_duration_seconds and
 *  etcd_requests_total. Thread: any. */
void gw_store__etcd_observe(const char *operation, const char *type, int64_t start_ns);

/** A relative key fit to name an object: non-NULL and non-empty. */
bool gw_store__key_ok(const char *rel);

#endif
