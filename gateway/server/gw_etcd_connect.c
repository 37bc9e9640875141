/* Start-up's etcd connection on a thread of its own: create the client, then ask etcd's status
 * until it answers, retrying every PROBE_RETRY_MS within the deadline. Every wait of that thread
 * is a loop of its own event_base, which a cancel ends at once. */
#include "gw_etcd_connect.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_err.h"

#define PROBE_RETRY_MS 500

struct gw_etcd_connect {
    etcd_config_t cfg;
    int64_t timeout_ms;
    pthread_t thread;
    struct event_base *base; /* the thread's waits */
    struct event *wake;      /* ends the wait in progress: a timer, or made active by cancel */
    _Atomic bool cancelled;
    /* Written by the thread, read once it is joined. */
    etcd_client_t *client;
    int rc;
    char err[512];
    bool answered; /* the status call in flight was answered, with status_err */
    int status_err;
};

static void
wake_up(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    event_base_loopbreak(arg);
}

static void
status_done(int err, const Etcdserverpb__StatusResponse *resp, void *ctx)
{
    gw_etcd_connect_t *c = ctx;

    (void)resp;
    c->answered = true;
    c->status_err = err;
    event_base_loopbreak(c->base);
}

/* Run the thread's loop until a status answer, a cancel, or ms pass. */
static void
wait_ms(gw_etcd_connect_t *c, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

    evtimer_add(c->wake, &tv);
    event_base_loop(c->base, EVLOOP_NO_EXIT_ON_EMPTY);
    evtimer_del(c->wake);
}

/* Ask etcd for its status until it answers, for at most the deadline. */
static int
probe(gw_etcd_connect_t *c)
{
    etcd_conn_t *conn = etcd_conn_new(c->client, c->base);
    int64_t end = gw_monotonic_ms() + c->timeout_ms;
    int rc = GW_ECANCELED;

    while (!atomic_load(&c->cancelled)) {
        c->answered = false;
        if (etcd_status(conn, status_done, c) != 0) {
            rc = GW_EINVAL;
            break;
        }
        wait_ms(c, end - gw_monotonic_ms());
        rc = c->answered ? c->status_err : GW_ETIMEOUT;
        if (rc == 0 || rc == GW_ETIMEOUT || end - gw_monotonic_ms() < PROBE_RETRY_MS)
            break;
        wait_ms(c, PROBE_RETRY_MS); /* only the timer or a cancel ends this one */
    }
    etcd_conn_free(conn); /* cancels a call still waiting; its callback fires here */
    return rc;
}

static void *
connect_main(void *arg)
{
    gw_etcd_connect_t *c = arg;

    c->rc = etcd_client_new(&c->cfg, &c->client, c->err, sizeof(c->err));
    if (c->rc != 0)
        return NULL;
    c->rc = probe(c);
    if (c->rc != 0)
        snprintf(c->err, sizeof(c->err), "cannot reach etcd at %s: %s", c->cfg.servers,
                 gw_strerror(c->rc));
    return NULL;
}

gw_etcd_connect_t *
gw_etcd_connect_start(const etcd_config_t *cfg, int64_t timeout_ms)
{
    gw_etcd_connect_t *c = gw_calloc(1, sizeof(*c));

    c->cfg = *cfg;
    c->timeout_ms = timeout_ms;
    atomic_init(&c->cancelled, false);
    c->base = event_base_new();
    if (c->base == NULL)
        abort();
    c->wake = evtimer_new(c->base, wake_up, c->base);
    if (c->wake == NULL || pthread_create(&c->thread, NULL, connect_main, c) != 0)
        abort();
    return c;
}

/* Join c's thread and free c; its client is the caller's. */
static void
join_free(gw_etcd_connect_t *c)
{
    pthread_join(c->thread, NULL);
    event_free(c->wake);
    event_base_free(c->base);
}

int
gw_etcd_connect_wait(gw_etcd_connect_t *c, etcd_client_t **client, char *err, size_t err_len)
{
    int rc;

    join_free(c);
    rc = c->rc;
    *client = NULL;
    if (rc == 0)
        *client = c->client;
    else
        etcd_client_free(c->client);
    if (rc != 0)
        snprintf(err, err_len, "%s", c->err);
    free(c);
    return rc;
}

void
gw_etcd_connect_cancel(gw_etcd_connect_t *c)
{
    if (c == NULL)
        return;
    atomic_store(&c->cancelled, true);
    event_active(c->wake, EV_TIMEOUT, 0);
    join_free(c);
    etcd_client_free(c->client);
    free(c);
}
