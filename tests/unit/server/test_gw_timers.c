/* The timer set on a real event loop: order, re-setting and cancelling (from a callback too),
 * a heap of thousands kept in order, and timers forgotten when the set goes. */
#include "gw_timers.h"

#include <stddef.h>
#include <stdlib.h>

#include <event2/event.h>

#include "tap.h"

#define MANY 5000

typedef struct {
    gw_timer_t t;
    int id;
} owner_t;

static struct event_base *base;
static gw_timers_t *ts;
static int fired[MANY + 16], n_fired;
static owner_t *cancel_from_cb; /* a timer the next callback cancels */
static owner_t *reset_in_cb;    /* a timer that sets itself again once */

static void
on_fire(gw_timer_t *t)
{
    owner_t *o = (owner_t *)((char *)t - offsetof(owner_t, t));

    fired[n_fired++] = o->id;
    if (cancel_from_cb != NULL) {
        gw_timer_cancel(ts, &cancel_from_cb->t);
        cancel_from_cb = NULL;
    }
    if (o == reset_in_cb) {
        reset_in_cb = NULL;
        gw_timer_set(ts, t, gw_timers_now_ms() + 5);
    }
    if (n_fired == MANY + 16)
        event_base_loopbreak(base);
}

static void
run_for(int ms)
{
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    event_base_loopexit(base, &tv);
    event_base_dispatch(base);
}

static void
test_order(void)
{
    owner_t o[5];
    int64_t now = gw_timers_now_ms();
    int want[] = {2, 0, 4, 3};

    n_fired = 0;
    for (int i = 0; i < 5; i++) {
        o[i].id = i;
        gw_timer_init(&o[i].t, on_fire);
    }
    gw_timer_set(ts, &o[0].t, now + 20);
    gw_timer_set(ts, &o[1].t, now + 30);
    gw_timer_set(ts, &o[2].t, now + 10);
    gw_timer_set(ts, &o[3].t, now + 500); /* set again below: only the last deadline holds */
    gw_timer_set(ts, &o[4].t, now + 40);
    gw_timer_set(ts, &o[3].t, now + 50);
    gw_timer_cancel(ts, &o[1].t);
    gw_timer_cancel(ts, &o[1].t); /* twice is harmless */
    run_for(150);
    tap_is_int(n_fired, 4, "four of five fire (one cancelled)");
    int in_order = n_fired == 4;
    for (int i = 0; i < 4 && in_order; i++)
        in_order = fired[i] == want[i];
    tap_ok(in_order, "earliest deadline first, a re-set timer at its new deadline");
    tap_ok(o[3].t.slot == 0, "a timer that fired is unset");
}

static void
test_callbacks(void)
{
    owner_t a = {.id = 1}, b = {.id = 2}, c = {.id = 3};
    int64_t now = gw_timers_now_ms();

    n_fired = 0;
    gw_timer_init(&a.t, on_fire);
    gw_timer_init(&b.t, on_fire);
    gw_timer_init(&c.t, on_fire);
    gw_timer_set(ts, &a.t, now + 5);
    gw_timer_set(ts, &b.t, now + 5); /* due with a: a's callback cancels it */
    gw_timer_set(ts, &c.t, now + 10);
    cancel_from_cb = &b;
    reset_in_cb = &c;
    run_for(100);
    tap_is_int(n_fired, 3, "a callback cancels a timer due at once; another sets itself again");
    tap_ok(n_fired == 3 && fired[0] == 1 && fired[1] == 3 && fired[2] == 3,
           "... the re-set timer fires a second time");
}

static void
test_many(void)
{
    owner_t *o = calloc(MANY, sizeof(*o));
    int64_t now = gw_timers_now_ms();
    int sorted = 1;

    n_fired = 0;
    srandom(7);
    for (int i = 0; i < MANY; i++) {
        o[i].id = i;
        gw_timer_init(&o[i].t, on_fire);
        gw_timer_set(ts, &o[i].t, now + 1 + random() % 40);
    }
    for (int i = 0; i < MANY; i += 3) /* every third goes */
        gw_timer_cancel(ts, &o[i].t);
    run_for(300);
    tap_is_int(n_fired, MANY - (MANY + 2) / 3, "thousands: each one not cancelled fires once");
    for (int i = 1; i < n_fired; i++)
        sorted &= o[fired[i - 1]].t.due_ms <= o[fired[i]].t.due_ms;
    tap_ok(sorted, "... in deadline order");
    free(o);
}

static void
test_free_with_timers_set(void)
{
    owner_t a = {.id = 1};

    gw_timer_init(&a.t, on_fire);
    gw_timer_set(ts, &a.t, gw_timers_now_ms() + 1000);
    gw_timers_free(ts);
    tap_ok(a.t.slot == 0, "freeing the set forgets a timer still set");
    ts = NULL;
}

int
main(void)
{
    base = event_base_new();
    ts = gw_timers_new(base);
    test_order();
    test_callbacks();
    test_many();
    test_free_with_timers_set();
    gw_timers_free(NULL);
    event_base_free(base);
    return tap_done();
}
