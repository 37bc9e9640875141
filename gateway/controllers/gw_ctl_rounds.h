#ifndef GATEWAY_CONTROLLERS_GW_CTL_ROUNDS_H
#define GATEWAY_CONTROLLERS_GW_CTL_ROUNDS_H

/*
 * A controller run as rounds, for the small ones that look at a whole (small) collection at
 * once, as kube's informer-driven controllers resync: a round runs at start, again at once
 * after any change under the watched keys, and otherwise when the previous round asked
 * (a periodic resync, the next expiration). One round at a time; a change during a round
 * makes another follow it. Everything runs on one event loop through the rounds' own etcd
 * conn, so stopping cancels all of it.
 */

#include <stdbool.h>
#include <stdint.h>

#include "etcd.h"
#include "gw_store.h"

struct event_base;

typedef struct gw_ctl_rounds gw_ctl_rounds_t;

/** One round over `store` (the rounds' own). It must end with gw_ctl_rounds_done, from inside
 *  or from a later callback, also when its I/O fails or is canceled. */
typedef void (*gw_ctl_round_fn)(gw_ctl_rounds_t *rr, gw_store_t *store, void *ctx);

typedef struct {
    const char *name;                     /* for the log, e.g. "tokencleaner" */
    const char *etcd_prefix;              /* --etcd-prefix */
    const gw_value_transformer_t *values; /* the store's (borrowed; NULL: values as stored) */
    const char *const *watch;             /* relative key prefixes to watch, NULL-ended */
    gw_ctl_round_fn round;
    void *ctx;
} gw_ctl_rounds_opts_t;

/** Start (the first round runs from base's loop soon). opts is copied. Thread: base's. */
gw_ctl_rounds_t *gw_ctl_rounds_start(etcd_client_t *client, struct event_base *base,
                                     const gw_ctl_rounds_opts_t *opts);

/** The round is over; the next runs within next_ms (at once when something changed
 *  meanwhile). A no-op once stopping. Thread: base's. */
void gw_ctl_rounds_done(gw_ctl_rounds_t *rr, int64_t next_ms);

/** Whether stop has begun: a round's callbacks then fire with errors and should do nothing
 *  but end. Thread: base's. */
bool gw_ctl_rounds_stopping(const gw_ctl_rounds_t *rr);

/** Stop and free: outstanding I/O callbacks fire (canceled) before this returns; the round's
 *  context may be freed afterwards. NULL is fine. Thread: base's. */
void gw_ctl_rounds_stop(gw_ctl_rounds_t *rr);

#endif
