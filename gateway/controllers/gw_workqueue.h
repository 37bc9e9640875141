#ifndef GATEWAY_CONTROLLERS_GW_WORKQUEUE_H
#define GATEWAY_CONTROLLERS_GW_WORKQUEUE_H

/*
 * A keyed work queue on one event loop, as client-go's workqueue: controllers add the keys of
 * the objects to look at (a namespace's name, a Secret's key, one fixed key for "everything"),
 * and the queue hands them to the controller's process function one after another.
 *  - a key waits at most once: adding a key that is already waiting does nothing;
 *  - a key is never handed out twice at a time: added while it is being processed, it is
 *    handed out again after gw_workqueue_done;
 *  - gw_workqueue_add_after makes a key wait until a delay has passed (the earliest of several
 *    such adds wins), gw_workqueue_add_rate_limited doubles the delay on every call for that
 *    key until gw_workqueue_forget;
 *  - after gw_workqueue_shutdown nothing is handed out and adds are ignored.
 * Ready keys are handed out in the order they became ready, at most `max_active` at a time,
 * each from the loop (never from inside an add or done call).
 */

#include <stddef.h>
#include <stdint.h>

struct event_base;

typedef struct gw_workqueue gw_workqueue_t;

/** Process `key` (borrowed for the call; copy it to keep it), then call gw_workqueue_done for
 *  it, from inside or from a later callback. Thread: the queue's. */
typedef void (*gw_workqueue_fn)(gw_workqueue_t *q, const char *key, void *ctx);

typedef struct {
    gw_workqueue_fn process;
    void *ctx;
    size_t max_active;     /* keys processed at once; 0: 1 */
    int64_t base_delay_ms; /* gw_workqueue_add_rate_limited's first delay; 0: 5 ms */
    int64_t max_delay_ms;  /* ... and its cap; 0: 1000 s */
} gw_workqueue_opts_t;

/** A new queue on `base` (its loop must keep running); opts is copied. Thread: base's. */
gw_workqueue_t *gw_workqueue_new(struct event_base *base, const gw_workqueue_opts_t *opts);

/** Make `key` (copied) ready now unless it is ready already. Thread: the queue's. */
void gw_workqueue_add(gw_workqueue_t *q, const char *key);

/** Make `key` ready in delay_ms (<= 0: now); an earlier pending delay for it wins. Thread: the
 *  queue's. */
void gw_workqueue_add_after(gw_workqueue_t *q, const char *key, int64_t delay_ms);

/** gw_workqueue_add_after with the key's backoff: base_delay_ms doubled on every call since
 *  the last gw_workqueue_forget of the key, up to max_delay_ms. Thread: the queue's. */
void gw_workqueue_add_rate_limited(gw_workqueue_t *q, const char *key);

/** Reset the key's backoff (its processing succeeded). Thread: the queue's. */
void gw_workqueue_forget(gw_workqueue_t *q, const char *key);

/** The key handed out is processed; if it was added meanwhile it is ready again. Thread: the
 *  queue's. */
void gw_workqueue_done(gw_workqueue_t *q, const char *key);

/** Keys ready now (not counting those being processed or waiting for a delay). */
size_t gw_workqueue_len(const gw_workqueue_t *q);

/** Hand nothing out any more and ignore adds; keys being processed may still be done.
 *  Thread: the queue's. */
void gw_workqueue_shutdown(gw_workqueue_t *q);

/** Free (shutting down first); no process call follows. NULL is fine. Thread: the queue's, not
 *  from inside its process function. */
void gw_workqueue_free(gw_workqueue_t *q);

#endif
