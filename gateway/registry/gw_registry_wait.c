/*
 * A read asked for a resourceVersion the store has not reached: kube-apiserver's cache waits
 * for it for up to three seconds before answering "Too large resource version". kgate reads
 * etcd directly, so the read is simply tried again every 100 ms until then (another instance's
 * write may bring etcd there).
 */
#include "gw_clock.h"
#include "gw_registry_int.h"

#include <time.h>

#include <event2/event.h>

#include "gw_server.h"

#define WAIT_LIMIT_NS (3 * 1000000000LL)
#define WAIT_STEP_US 100000

typedef struct {
    void (*again)(void *arg);
    void *arg;
} retry_t;

static void
fire(evutil_socket_t fd, short what, void *ctx)
{
    retry_t *t = ctx;

    (void)fd;
    (void)what;
    t->again(t->arg);
}

bool
gw_registry__retry_future(gw_req_t *r, void (*again)(void *arg), void *arg)
{
    struct timeval step = {.tv_sec = 0, .tv_usec = WAIT_STEP_US};
    retry_t *t;

    if (r->gone || gw_monotonic_ns() - r->start_ns >= WAIT_LIMIT_NS)
        return false;
    t = gw_arena_calloc(r->arena, sizeof(*t));
    *t = (retry_t){.again = again, .arg = arg};
    return event_base_once(gw_worker_base(r->worker), -1, EV_TIMEOUT, fire, t, &step) == 0;
}
