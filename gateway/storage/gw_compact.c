/*
 * kube-apiserver's compactor (k8s.io/apiserver/pkg/storage/etcd3/compact.go), on a libevent
 * timer. State per instance: the version of "compact_rev_key" it last saw (compact_time) and
 * the revision it will compact to when it next wins a round (rev, 0 before the first win).
 */
#include "gw_compact.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_store_int.h"

#define COMPACT_REV_KEY "compact_rev_key"

typedef struct waiter waiter_t;
struct waiter {
    waiter_t *next;
    gw_compact_done_cb cb;
    void *ctx;
};

/* One round in flight. Outlives its compactor when stopped mid-round (c becomes NULL). */
typedef struct {
    gw_compactor_t *c;
    waiter_t *waiters;
    int64_t compacting; /* revision of the Compact call in flight, if any */
} round_t;

struct gw_compactor {
    etcd_conn_t *conn;
    struct event *timer;
    int64_t compact_time; /* version of compact_rev_key last seen */
    int64_t rev;          /* revision to compact to at the next win; 0 = nothing yet */
    round_t *running;
    waiter_t *queued; /* run_once callers for the round after the running one */
    bool rerun;       /* a round was asked for while one was running */
};

static void round_start(gw_compactor_t *c);

static void
notify(waiter_t *w, int err, int64_t compacted_to)
{
    while (w != NULL) {
        waiter_t *next = w->next;
        if (w->cb != NULL)
            w->cb(err, compacted_to, w->ctx);
        free(w);
        w = next;
    }
}

/* The round is over: start a queued one, then tell this round's callers (who may stop c). */
static void
round_end(round_t *r, int err, int64_t compacted_to)
{
    gw_compactor_t *c = r->c;
    waiter_t *waiters = r->waiters;

    free(r);
    if (c != NULL) {
        c->running = NULL;
        if (c->rerun) {
            c->rerun = false;
            round_start(c);
        }
    }
    notify(waiters, err, compacted_to);
}

static void
compact_done(int err, const Etcdserverpb__CompactionResponse *resp, void *arg)
{
    round_t *r = arg;
    (void)resp;

    /* Another instance (or an operator) compacted at least as far: our goal is met. */
    if (err == GW_ECOMPACTED)
        err = 0;
    if (err != 0)
        gw_log_warn(NULL, "etcd compaction to revision %lld failed: %s", (long long)r->compacting,
                    gw_strerror(err));
    round_end(r, err, err == 0 ? r->compacting : 0);
}

/* We won the round: record it and compact to what we recorded one round earlier. */
static void
won(round_t *r, int64_t cur_rev)
{
    gw_compactor_t *c = r->c;
    int64_t target = c->rev;
    int rc;

    c->compact_time++;
    c->rev = cur_rev;
    if (target == 0) {
        round_end(r, 0, 0); /* first round: nothing recorded yet, nothing to compact */
        return;
    }
    gw_log_info(NULL, "etcd: compacting history up to revision %lld", (long long)target);
    r->compacting = target;
    rc = etcd_compact(c->conn, target, false, compact_done, r);
    if (rc != 0)
        round_end(r, rc, 0);
}

static void
txn_done(int err, const Etcdserverpb__TxnResponse *resp, void *arg)
{
    round_t *r = arg;
    const Mvccpb__KeyValue *kv;
    int64_t cur_rev;

    if (r->c == NULL || err != 0) {
        round_end(r, r->c == NULL ? GW_ECANCELED : err, 0);
        return;
    }
    cur_rev = gw_store__rev(resp->header);
    if (resp->succeeded) {
        won(r, cur_rev);
        return;
    }
    /* Another instance won: adopt its version, and compact next time to today's revision. */
    kv = gw_store__first_kv(gw_store__txn_range(resp, 0));
    r->c->compact_time = kv ? kv->version : 0;
    r->c->rev = cur_rev;
    round_end(r, 0, 0);
}

static void
round_start(gw_compactor_t *c)
{
    round_t *r = gw_calloc(1, sizeof(*r));
    char *rev = gw_sprintf("%lld", (long long)c->rev);
    etcd_bytes_t key = etcd_str(COMPACT_REV_KEY);
    etcd_cmp_t cmp = {.key = key,
                      .target = ETCD_CMP_VERSION,
                      .result = ETCD_CMP_EQUAL,
                      .number = c->compact_time};
    etcd_op_t put = {.kind = ETCD_OP_PUT, .key = key, .value = etcd_str(rev)};
    etcd_op_t get = {.kind = ETCD_OP_RANGE, .key = key};
    int rc;

    r->c = c;
    r->waiters = c->queued;
    c->queued = NULL;
    c->running = r;
    rc = etcd_txn_if(c->conn, &cmp, &put, &get, txn_done, r);
    free(rev);
    if (rc != 0)
        round_end(r, rc, 0);
}

void
gw_compactor_run_once(gw_compactor_t *c, gw_compact_done_cb cb, void *ctx)
{
    waiter_t *w = gw_calloc(1, sizeof(*w));
    waiter_t **tail = &c->queued;

    w->cb = cb;
    w->ctx = ctx;
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = w;
    if (c->running != NULL)
        c->rerun = true;
    else
        round_start(c);
}

static void
on_tick(evutil_socket_t fd, short what, void *arg)
{
    gw_compactor_t *c = arg;
    (void)fd;
    (void)what;

    /* A round still running when the next is due (etcd slow or down): skip this one. */
    if (c->running == NULL)
        round_start(c);
}

gw_compactor_t *
gw_compactor_start(etcd_conn_t *conn, struct event_base *base, int64_t interval_ms)
{
    gw_compactor_t *c;
    struct timeval tv = {.tv_sec = interval_ms / 1000, .tv_usec = (interval_ms % 1000) * 1000};

    if (interval_ms <= 0)
        return NULL;
    c = gw_calloc(1, sizeof(*c));
    c->conn = conn;
    c->timer = event_new(base, -1, EV_PERSIST, on_tick, c);
    assert(c->timer != NULL);
    event_add(c->timer, &tv);
    return c;
}

void
gw_compactor_stop(gw_compactor_t *c)
{
    waiter_t *waiters = c ? c->queued : NULL;

    if (c == NULL)
        return;
    event_free(c->timer);
    /* The etcd call cannot be recalled: orphan the round, which frees itself when it ends. */
    if (c->running != NULL) {
        c->running->c = NULL;
        notify(c->running->waiters, GW_ECANCELED, 0);
        c->running->waiters = NULL;
    }
    free(c);
    notify(waiters, GW_ECANCELED, 0);
}
