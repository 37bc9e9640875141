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
};

/** Full etcd key of a relative key: prefix + rel. Caller frees. */
char *gw_store__full_key(const gw_store_t *s, const char *rel);

/**
 * etcd's "prefix end" of `key`: the smallest key greater than every key starting with it
 * (last byte incremented, trailing 0xff bytes dropped; "\0" when nothing is left, meaning
 * "no upper bound"). Returns a new buffer (caller frees) and its length in *len.
 */
char *gw_store__prefix_end(const char *key, size_t *len);

/** Fill *obj as a view of kv, with a new relative key (free with gw_store__obj_clear). */
void gw_store__obj_init(const gw_store_t *s, const Mvccpb__KeyValue *kv, gw_obj_t *obj);
/** Free the key that gw_store__obj_init allocated. */
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

/** A relative key fit to name an object: non-NULL and non-empty. */
bool gw_store__key_ok(const char *rel);

#endif
