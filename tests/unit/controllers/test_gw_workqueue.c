/* The keyed work queue: dedup of waiting keys, no key handed out twice at a time, delayed adds
 * in due order (the earliest delay of a key wins), backoff, shutdown. */
#include "gw_workqueue.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_clock.h"
#include "tap.h"

typedef struct {
    char log[512];  /* keys handed out, space-separated */
    int64_t at[16]; /* when each was handed out */
    size_t n;
    bool hold; /* do not call done: the test does */
    int active, max_active;
} seen_t;

static struct event_base *base;

static void
process(gw_workqueue_t *q, const char *key, void *ctx)
{
    seen_t *s = ctx;

    snprintf(s->log + strlen(s->log), sizeof(s->log) - strlen(s->log), "%s%s",
             s->log[0] != '\0' ? " " : "", key);
    if (s->n < 16)
        s->at[s->n] = gw_monotonic_ms();
    s->n++;
    if (++s->active > s->max_active)
        s->max_active = s->active;
    if (!s->hold) {
        s->active--;
        gw_workqueue_done(q, key);
    }
}

static void
expired_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    *(bool *)arg = true;
}

/* Run the loop until s has seen n keys or ms pass. */
static void
run(seen_t *s, size_t n, int ms)
{
    bool expired = false;
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    struct event *t = evtimer_new(base, expired_cb, &expired);

    evtimer_add(t, &tv);
    while (s->n < n && !expired)
        event_base_loop(base, EVLOOP_ONCE);
    event_free(t);
}

static gw_workqueue_t *
new_queue(seen_t *s, size_t max_active, int64_t base_delay_ms)
{
    memset(s, 0, sizeof(*s));
    return gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = process,
                                                         .ctx = s,
                                                         .max_active = max_active,
                                                         .base_delay_ms = base_delay_ms});
}

static void
test_dedup(void)
{
    seen_t s;
    gw_workqueue_t *q = new_queue(&s, 1, 0);

    gw_workqueue_add(q, "a");
    gw_workqueue_add(q, "b");
    gw_workqueue_add(q, "a");
    tap_is_int((int)gw_workqueue_len(q), 2, "a key added twice waits once");
    tap_is_int((int)s.n, 0, "nothing is handed out from inside an add");
    run(&s, 3, 200);
    tap_is_str(s.log, "a b", "handed out in the order they were added, each once");
    tap_is_int((int)gw_workqueue_len(q), 0, "nothing left");
    gw_workqueue_free(q);
}

static void
test_no_concurrent_key(void)
{
    seen_t s;
    gw_workqueue_t *q = new_queue(&s, 2, 0);

    s.hold = true;
    gw_workqueue_add(q, "a");
    run(&s, 1, 200);
    gw_workqueue_add(q, "a"); /* while a is being processed */
    gw_workqueue_add(q, "b");
    run(&s, 3, 200);
    tap_is_str(s.log, "a b", "a is not handed out again while it is processed; b is");
    tap_is_int(s.max_active, 2, "two keys at once, as max_active allows");
    s.active -= 2;
    gw_workqueue_done(q, "b");
    gw_workqueue_done(q, "a");
    run(&s, 3, 200);
    tap_is_str(s.log, "a b a", "a added while processed is handed out again after done");
    s.active--;
    gw_workqueue_done(q, "a");
    run(&s, 4, 50);
    tap_is_int((int)s.n, 3, "and only once");
    gw_workqueue_free(q);
}

static void
test_delays(void)
{
    seen_t s;
    gw_workqueue_t *q = new_queue(&s, 1, 0);
    int64_t t0 = gw_monotonic_ms();

    gw_workqueue_add_after(q, "c", 150);
    gw_workqueue_add_after(q, "a", 50);
    gw_workqueue_add_after(q, "b", 100);
    gw_workqueue_add_after(q, "a", 300); /* the earlier delay stays */
    gw_workqueue_add_after(q, "d", 400);
    gw_workqueue_add_after(q, "d", 120); /* the earlier delay wins */
    tap_is_int((int)gw_workqueue_len(q), 0, "delayed keys are not ready yet");
    run(&s, 4, 3000);
    tap_is_str(s.log, "a b d c", "delayed keys come in due order");
    tap_ok(s.at[0] - t0 >= 50, "a after its 50 ms (%lld)", (long long)(s.at[0] - t0));
    tap_ok(s.at[1] - t0 >= 100, "b after its 100 ms");
    tap_ok(s.at[2] - t0 >= 120 && s.at[2] - t0 < 400, "d after 120 ms, not 400");
    tap_ok(s.at[3] - t0 >= 150, "c after its 150 ms");
    run(&s, 5, 500);
    tap_is_int((int)s.n, 4, "a's later delay was dropped, not run again");

    gw_workqueue_add_after(q, "now", 0);
    run(&s, 5, 200);
    tap_is_str(s.log, "a b d c now", "no delay: ready at once");
    gw_workqueue_free(q);
}

static void
test_backoff(void)
{
    seen_t s;
    gw_workqueue_t *q = new_queue(&s, 1, 40);
    int64_t t0 = gw_monotonic_ms();

    gw_workqueue_add_rate_limited(q, "r"); /* 40 ms */
    run(&s, 1, 2000);
    tap_ok(s.at[0] - t0 >= 40, "first backoff: the base delay");
    t0 = gw_monotonic_ms();
    gw_workqueue_add_rate_limited(q, "r"); /* 80 ms */
    run(&s, 2, 2000);
    tap_ok(s.at[1] - t0 >= 80, "second: doubled (%lld ms)", (long long)(s.at[1] - t0));
    t0 = gw_monotonic_ms();
    gw_workqueue_add_rate_limited(q, "r"); /* 160 ms */
    run(&s, 3, 2000);
    tap_ok(s.at[2] - t0 >= 160, "third: doubled again");
    gw_workqueue_forget(q, "r");
    t0 = gw_monotonic_ms();
    gw_workqueue_add_rate_limited(q, "r");
    run(&s, 4, 2000);
    tap_ok(s.at[3] - t0 >= 40 && s.n == 4, "after forget: the base delay again");
    gw_workqueue_free(q);
}

static void
test_shutdown(void)
{
    seen_t s;
    gw_workqueue_t *q = new_queue(&s, 1, 0);

    s.hold = true;
    gw_workqueue_add(q, "a");
    run(&s, 1, 200);
    gw_workqueue_add(q, "b");
    gw_workqueue_add_after(q, "c", 10);
    gw_workqueue_shutdown(q);
    gw_workqueue_add(q, "d");
    run(&s, 2, 100);
    tap_is_str(s.log, "a", "after shutdown nothing more is handed out");
    gw_workqueue_done(q, "a"); /* the key in progress may still finish */
    run(&s, 2, 50);
    tap_is_int((int)s.n, 1, "not even what was ready or delayed");
    gw_workqueue_free(q);
    gw_workqueue_free(NULL);
    tap_ok(1, "free after shutdown, and of NULL");
}

int
main(void)
{
    base = event_base_new();
    test_dedup();
    test_no_concurrent_key();
    test_delays();
    test_backoff();
    test_shutdown();
    event_base_free(base);
    return tap_done();
}
