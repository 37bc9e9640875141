/* Controllers as rounds: a watch that marks the world changed, a timer that starts rounds. */
#include "gw_ctl_rounds.h"

#include <stdlib.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

#define MAX_WATCHES 4
#define REWATCH_MS 1000 /* pause before watching again after a watch ended */

typedef struct {
    gw_ctl_rounds_t *rr;
    char *key;
    gw_store_watch_t *w;
} watch_t;

struct gw_ctl_rounds {
    char *name;
    etcd_conn_t *conn;
    gw_store_t *store;
    gw_ctl_round_fn round;
    void *ctx;
    watch_t watches[MAX_WATCHES];
    size_t n_watches;
    struct event *wake, *rewatch;
    bool running, dirty, stopping;
};

static void
add_timer(struct event *ev, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(ev, &tv);
}

static void
on_wake(evutil_socket_t fd, short what, void *arg)
{
    gw_ctl_rounds_t *rr = arg;
    (void)fd, (void)what;

    if (rr->running || rr->stopping)
        return;
    rr->running = true;
    rr->dirty = false;
    rr->round(rr, rr->store, rr->ctx);
}

void
gw_ctl_rounds_done(gw_ctl_rounds_t *rr, int64_t next_ms)
{
    if (rr->stopping)
        return;
    rr->running = false;
    add_timer(rr->wake, rr->dirty ? 0 : next_ms);
}

bool
gw_ctl_rounds_stopping(const gw_ctl_rounds_t *rr)
{
    return rr->stopping;
}

/* Something changed: a round soon (after the running one). */
static void
changed(gw_ctl_rounds_t *rr)
{
    rr->dirty = true;
    if (!rr->running)
        add_timer(rr->wake, 0);
}

static void start_watch(watch_t *w);

static void
watched(int err, const gw_watch_event_t *ev, void *arg)
{
    watch_t *w = arg;
    gw_ctl_rounds_t *rr = w->rr;

    if (err == 0) {
        if (ev->type != GW_WATCH_PROGRESS)
            changed(rr);
        return;
    }
    w->w = NULL;
    if (rr->stopping)
        return;
    /* Compacted away or refused: watch again, and look at everything once more. */
    gw_log_info(NULL, "%s: watch ended (%s); watching again", rr->name, gw_strerror(err));
    add_timer(rr->rewatch, REWATCH_MS);
}

static void
start_watch(watch_t *w)
{
    gw_watch_req_t req = {.key = w->key, .is_prefix = true};

    w->w = gw_store_watch(w->rr->store, &req, watched, w);
    if (w->w == NULL)
        abort(); /* well-formed by construction */
}

static void
on_rewatch(evutil_socket_t fd, short what, void *arg)
{
    gw_ctl_rounds_t *rr = arg;
    (void)fd, (void)what;

    for (size_t i = 0; i < rr->n_watches; i++) {
        if (rr->watches[i].w == NULL)
            start_watch(&rr->watches[i]);
    }
    changed(rr);
}

gw_ctl_rounds_t *
gw_ctl_rounds_start(etcd_client_t *client, struct event_base *base,
                    const gw_ctl_rounds_opts_t *opts)
{
    gw_ctl_rounds_t *rr = gw_calloc(1, sizeof(*rr));

    rr->name = gw_strdup(opts->name);
    rr->conn = etcd_conn_new(client, base);
    rr->store = gw_store_new(rr->conn, opts->etcd_prefix, opts->values);
    rr->round = opts->round;
    rr->ctx = opts->ctx;
    rr->wake = evtimer_new(base, on_wake, rr);
    rr->rewatch = evtimer_new(base, on_rewatch, rr);
    if (rr->wake == NULL || rr->rewatch == NULL)
        abort();
    for (size_t i = 0; opts->watch[i] != NULL && i < MAX_WATCHES; i++) {
        rr->watches[i] = (watch_t){.rr = rr, .key = gw_strdup(opts->watch[i])};
        start_watch(&rr->watches[rr->n_watches++]);
    }
    add_timer(rr->wake, 0);
    return rr;
}

void
gw_ctl_rounds_stop(gw_ctl_rounds_t *rr)
{
    if (rr == NULL)
        return;
    rr->stopping = true;
    for (size_t i = 0; i < rr->n_watches; i++) {
        if (rr->watches[i].w != NULL)
            gw_store_watch_stop(rr->watches[i].w);
    }
    etcd_conn_free(rr->conn); /* every callback fires now, and sees `stopping` */
    gw_store_free(rr->store);
    for (size_t i = 0; i < rr->n_watches; i++)
        free(rr->watches[i].key);
    event_free(rr->wake);
    event_free(rr->rewatch);
    free(rr->name);
    free(rr);
}
