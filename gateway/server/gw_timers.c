/* The timer set: a binary min-heap of deadlines, and one libevent timer armed for the first. */
#include "gw_timers.h"

#include <stdlib.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_clock.h"

struct gw_timers {
    struct event *ev;
    gw_timer_t **heap;
    size_t n, cap;
    int64_t armed_ms; /* the deadline ev is set for; -1: none */
};

int64_t
gw_timers_now_ms(void)
{
    return gw_monotonic_ns() / 1000000;
}

static void
place(gw_timers_t *ts, size_t i, gw_timer_t *t)
{
    ts->heap[i] = t;
    t->slot = i + 1;
}

static void
sift_up(gw_timers_t *ts, size_t i)
{
    gw_timer_t *t = ts->heap[i];

    while (i > 0 && ts->heap[(i - 1) / 2]->due_ms > t->due_ms) {
        place(ts, i, ts->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    place(ts, i, t);
}

static void
sift_down(gw_timers_t *ts, size_t i)
{
    gw_timer_t *t = ts->heap[i];

    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= ts->n)
            break;
        if (c + 1 < ts->n && ts->heap[c + 1]->due_ms < ts->heap[c]->due_ms)
            c++;
        if (ts->heap[c]->due_ms >= t->due_ms)
            break;
        place(ts, i, ts->heap[c]);
        i = c;
    }
    place(ts, i, t);
}

/* The libevent timer follows the first deadline. */
static void
rearm(gw_timers_t *ts)
{
    int64_t due = ts->n > 0 ? ts->heap[0]->due_ms : -1, wait;
    struct timeval tv;

    if (due == ts->armed_ms)
        return;
    ts->armed_ms = due;
    if (due < 0) {
        evtimer_del(ts->ev);
        return;
    }
    wait = due - gw_timers_now_ms();
    if (wait < 0)
        wait = 0;
    tv.tv_sec = (time_t)(wait / 1000);
    tv.tv_usec = (suseconds_t)(wait % 1000 * 1000);
    evtimer_add(ts->ev, &tv);
}

static void
unlink_timer(gw_timers_t *ts, gw_timer_t *t)
{
    size_t i = t->slot - 1;
    gw_timer_t *last = ts->heap[--ts->n];

    t->slot = 0;
    if (i == ts->n)
        return;
    place(ts, i, last);
    if (i > 0 && ts->heap[(i - 1) / 2]->due_ms > last->due_ms)
        sift_up(ts, i);
    else
        sift_down(ts, i);
}

/* Every timer due by now, earliest first; each may set or cancel timers, itself included. */
static void
on_timer(evutil_socket_t fd, short what, void *arg)
{
    gw_timers_t *ts = arg;
    int64_t now = gw_timers_now_ms();

    (void)fd;
    (void)what;
    ts->armed_ms = -1;
    while (ts->n > 0 && ts->heap[0]->due_ms <= now) {
        gw_timer_t *t = ts->heap[0];
        unlink_timer(ts, t);
        t->fn(t);
    }
    rearm(ts);
}

gw_timers_t *
gw_timers_new(struct event_base *base)
{
    gw_timers_t *ts = gw_calloc(1, sizeof(*ts));

    ts->ev = evtimer_new(base, on_timer, ts);
    if (ts->ev == NULL)
        abort();
    ts->armed_ms = -1;
    return ts;
}

void
gw_timers_free(gw_timers_t *ts)
{
    if (ts == NULL)
        return;
    for (size_t i = 0; i < ts->n; i++)
        ts->heap[i]->slot = 0;
    event_free(ts->ev);
    free(ts->heap);
    free(ts);
}

void
gw_timer_init(gw_timer_t *t, gw_timer_fn fn)
{
    t->fn = fn;
    t->due_ms = 0;
    t->slot = 0;
}

void
gw_timer_set(gw_timers_t *ts, gw_timer_t *t, int64_t due_ms)
{
    if (t->slot != 0)
        unlink_timer(ts, t);
    if (ts->n == ts->cap) {
        ts->cap = ts->cap != 0 ? ts->cap * 2 : 64;
        ts->heap = gw_realloc(ts->heap, ts->cap * sizeof(*ts->heap));
    }
    t->due_ms = due_ms;
    ts->heap[ts->n++] = t;
    sift_up(ts, ts->n - 1);
    rearm(ts);
}

void
gw_timer_cancel(gw_timers_t *ts, gw_timer_t *t)
{
    if (t->slot == 0)
        return;
    unlink_timer(ts, t);
    rearm(ts);
}
