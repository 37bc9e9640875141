/*
 * Many timers on one event loop for the price of one libevent event: a min-heap of deadlines.
 * An idle watch among thousands holds a timer for its end and its next bookmark; a libevent
 * event each would cost 144 bytes of heap per watch, a gw_timer_t embedded in the watch costs
 * 24.
 */
#ifndef GW_TIMERS_H
#define GW_TIMERS_H

#include <stddef.h>
#include <stdint.h>

struct event_base;

typedef struct gw_timers gw_timers_t;
typedef struct gw_timer gw_timer_t;

/** Called from the loop once the timer's deadline has passed; the timer is unset by then and
 *  may be set again from here. */
typedef void (*gw_timer_fn)(gw_timer_t *t);

/** A timer, embedded in what it times (container_of finds the owner). Initialise with
 *  gw_timer_init; the fields are the set's. */
struct gw_timer {
    gw_timer_fn fn;
    int64_t due_ms; /* gw_timers_now_ms() time */
    size_t slot;    /* 1 + its place in the heap; 0 while unset */
};

/** A timer set on base. Thread: base's, as every call on the set and its timers. */
gw_timers_t *gw_timers_new(struct event_base *base);

/** Free the set (before its base); timers still set are forgotten, never called. NULL is
 *  fine. */
void gw_timers_free(gw_timers_t *ts);

/** An unset timer that calls fn. */
void gw_timer_init(gw_timer_t *t, gw_timer_fn fn);

/** Set t (again) for due_ms, on the monotonic clock of gw_timers_now_ms. */
void gw_timer_set(gw_timers_t *ts, gw_timer_t *t, int64_t due_ms);

/** Unset t; a no-op when it is not set. */
void gw_timer_cancel(gw_timers_t *ts, gw_timer_t *t);

/** Now, in milliseconds on the monotonic clock. */
int64_t gw_timers_now_ms(void);

#endif
