#ifndef TESTS_INTEGRATION_CONTROLLERS_CTL_HARNESS_H
#define TESTS_INTEGRATION_CONTROLLERS_CTL_HARNESS_H

/*
 * Helpers shared by the controllers' integration tests, on top of the storage tests' harness:
 * a bounded "run the loop until this holds", and blocking raw etcd calls (leases, keys outside
 * the store's prefix) for setting scenes up and looking at the outcome.
 */

#include "../storage/store_harness.h"

typedef bool (*ctl_pred_fn)(void *arg);

/** Run h's loop until pred(arg) holds or ms pass; returns whether it holds. */
static inline bool
ctl_wait(harness_t *h, ctl_pred_fn pred, void *arg, int ms)
{
    bool expired = false;
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    struct event *t = evtimer_new(h->base, sleep_cb_, &expired);

    evtimer_add(t, &tv);
    while (!pred(arg) && !expired)
        event_base_loop(h->base, EVLOOP_ONCE);
    event_free(t);
    return pred(arg);
}

/* ---- raw etcd --------------------------------------------------------------------------- */

typedef struct {
    bool done;
    int err;
    int64_t lease;   /* grant: the id; range: the key's lease */
    bool found;      /* range: the key exists */
    char value[256]; /* range: the key's value (truncated) */
} ctl_raw_t;

static inline void
ctl_range_cb_(int err, const Etcdserverpb__RangeResponse *resp, void *ctx)
{
    ctl_raw_t *r = ctx;
    const Mvccpb__KeyValue *kv = err == 0 && resp->n_kvs > 0 ? resp->kvs[0] : NULL;

    r->done = true;
    r->err = err;
    r->found = kv != NULL;
    r->lease = kv != NULL ? kv->lease : 0;
    if (kv != NULL)
        snprintf(r->value, sizeof(r->value), "%.*s", (int)kv->value.len,
                 (const char *)kv->value.data);
}

/** The full etcd key `key`: whether it exists, its lease and value. */
static inline ctl_raw_t
ctl_raw_get(harness_t *h, const char *key)
{
    ctl_raw_t r = {0};

    if (etcd_range(h->conn, &(etcd_range_req_t){.key = etcd_str(key)}, ctl_range_cb_, &r) == 0)
        harness_wait(h, &r.done);
    return r;
}

static inline void
ctl_grant_cb_(int err, const Etcdserverpb__LeaseGrantResponse *resp, void *ctx)
{
    ctl_raw_t *r = ctx;

    r->done = true;
    r->err = err;
    r->lease = err == 0 ? resp->id : 0;
}

/** A new lease of ttl_s seconds (never kept alive), or 0. */
static inline int64_t
ctl_grant(harness_t *h, int64_t ttl_s)
{
    ctl_raw_t r = {0};

    if (etcd_lease_grant(h->conn, ttl_s, 0, ctl_grant_cb_, &r) == 0)
        harness_wait(h, &r.done);
    return r.lease;
}

static inline void
ctl_revoke_cb_(int err, const Etcdserverpb__LeaseRevokeResponse *resp, void *ctx)
{
    ctl_raw_t *r = ctx;

    (void)resp;
    r->done = true;
    r->err = err;
}

/** Revoke a lease; returns the error. */
static inline int
ctl_revoke(harness_t *h, int64_t lease)
{
    ctl_raw_t r = {0};
    int rc = etcd_lease_revoke(h->conn, lease, ctl_revoke_cb_, &r);

    if (rc != 0)
        return rc;
    harness_wait(h, &r.done);
    return r.err;
}

static inline void
ctl_put_cb_(int err, const Etcdserverpb__PutResponse *resp, void *ctx)
{
    ctl_raw_t *r = ctx;

    (void)resp;
    r->done = true;
    r->err = err;
}

/** Put the full etcd key `key` = value under `lease` (0: none); returns the error. */
static inline int
ctl_put(harness_t *h, const char *key, const char *value, int64_t lease)
{
    ctl_raw_t r = {0};
    int rc = etcd_put(h->conn, etcd_str(key), etcd_str(value), lease, false, ctl_put_cb_, &r);

    if (rc != 0)
        return rc;
    harness_wait(h, &r.done);
    return r.err;
}

#endif
