#ifndef GATEWAY_STORAGE_GW_COMPACT_H
#define GATEWAY_STORAGE_GW_COMPACT_H

/*
 * Periodic etcd compaction shared by every kgate instance, as kube-apiserver does it: each
 * interval, a transaction on the etcd key "compact_rev_key" (outside --etcd-prefix) succeeds
 * only if the key's version is the one this instance last saw; the winner records the current
 * revision and compacts to the revision it recorded one interval earlier. So, cluster-wide,
 * history is compacted about once per interval no matter how many instances run, and at
 * least one interval of history is always kept.
 */

#include <stdint.h>

#include "etcd.h"

struct event_base;

typedef struct gw_compactor gw_compactor_t;

/**
 * Start compacting every interval_ms through `conn`, the first round one interval from now
 * (as kube-apiserver). The timer runs on `base`, which must be the event_base conn was created
 * on (etcd.h does not expose it). interval_ms <= 0 disables compaction and returns NULL.
 * Thread: conn's.
 */
gw_compactor_t *gw_compactor_start(etcd_conn_t *conn, struct event_base *base, int64_t interval_ms);

/**
 * Run one round now (tests, and the first round at start). cb may be NULL; it fires once when
 * the round is over, with 0 and the revision compacted to (0 when this round compacted nothing:
 * the first round, or another instance won), or an error. A round asked for while one is
 * running starts after it. Thread: conn's.
 */
typedef void (*gw_compact_done_cb)(int err, int64_t compacted_to, void *ctx);
void gw_compactor_run_once(gw_compactor_t *c, gw_compact_done_cb cb, void *ctx);

/** Stop the timer and free; an in-flight round is cancelled: pending run_once callbacks fire
 *  with GW_ECANCELED from inside this call. Thread: conn's. NULL is fine. */
void gw_compactor_stop(gw_compactor_t *c);

#endif
