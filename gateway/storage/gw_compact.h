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

typedef struct gw_compactor gw_compactor_t;

/**
 * Start compacting every interval_ms through `conn` (the timer runs on conn's event_base).
 * interval_ms == 0 disables compaction and returns NULL. Thread: conn's.
 */
gw_compactor_t *gw_compactor_start(etcd_conn_t *conn, int64_t interval_ms);

/** Run one round now (tests, and the first round at start). cb may be NULL. */
typedef void (*gw_compact_done_cb)(int err, int64_t compacted_to, void *ctx);
void gw_compactor_run_once(gw_compactor_t *c, gw_compact_done_cb cb, void *ctx);

/** Stop the timer and free; an in-flight round is cancelled. Thread: conn's. NULL is fine. */
void gw_compactor_stop(gw_compactor_t *c);

#endif
