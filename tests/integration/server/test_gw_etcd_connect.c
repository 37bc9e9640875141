/*
 * Start-up's etcd connection on its own thread, against the run's etcd (KGATE_TEST_ETCD): a
 * reachable etcd gives a client that works; an unreachable one the start-up error within the
 * deadline; a malformed --etcd-servers the client's own message; a cancel ends a connection
 * that would have waited for seconds at once.
 */
#include <time.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "gw_clock.h"
#include "gw_err.h"
#include "gw_etcd_connect.h"
#include "tap.h"

#define UNREACHABLE "http://127.0.0.1:1"

static void
status_done(int err, const Etcdserverpb__StatusResponse *resp, void *ctx)
{
    int *out = ctx;

    *out = err == 0 && resp->header != NULL && resp->header->revision > 0 ? 1 : -1;
}

/* The client answers a status call on a conn of the caller's. */
static void
check_usable(etcd_client_t *client)
{
    struct event_base *base = event_base_new();
    etcd_conn_t *conn = etcd_conn_new(client, base);
    int answered = 0;

    tap_is_int(etcd_status(conn, status_done, &answered), 0, "the client takes a status call");
    while (answered == 0)
        event_base_loop(base, EVLOOP_ONCE);
    tap_is_int(answered, 1, "and etcd answers it with a revision");
    etcd_conn_free(conn);
    event_base_free(base);
}

static void
test_reachable(const char *url)
{
    etcd_client_t *client = NULL;
    char err[512] = "";
    gw_etcd_connect_t *c = gw_etcd_connect_start(&(etcd_config_t){.servers = url}, 10000);

    tap_is_int(gw_etcd_connect_wait(c, &client, err, sizeof(err)), 0, "a reachable etcd: 0");
    tap_ok(client != NULL, "with the client");
    if (client != NULL)
        check_usable(client);
    etcd_client_free(client);
}

static void
test_unreachable(void)
{
    etcd_client_t *client = (etcd_client_t *)&client;
    char err[512] = "";
    int64_t from = gw_monotonic_ms();
    gw_etcd_connect_t *c = gw_etcd_connect_start(&(etcd_config_t){.servers = UNREACHABLE}, 700);
    int rc = gw_etcd_connect_wait(c, &client, err, sizeof(err));
    int64_t took = gw_monotonic_ms() - from;

    tap_ok(rc == GW_ETIMEOUT || rc == GW_EUNAVAILABLE, "an unreachable etcd: %s", gw_errname(rc));
#define REACH_MSG "cannot reach etcd at " UNREACHABLE ": "
    tap_ok(strncmp(err, REACH_MSG, sizeof(REACH_MSG) - 1) == 0,
           "the start-up message names the servers: %s", err);
    tap_ok(client == NULL, "and no client");
    tap_ok(took >= 400 && took < 3000, "within the deadline (%lld ms)", (long long)took);
}

static void
test_malformed(void)
{
    etcd_client_t *client = NULL;
    char err[512] = "";
    gw_etcd_connect_t *c = gw_etcd_connect_start(&(etcd_config_t){.servers = "ftp://x:1"}, 10000);

    tap_is_int(gw_etcd_connect_wait(c, &client, err, sizeof(err)), GW_EINVAL,
               "a malformed --etcd-servers: GW_EINVAL");
    tap_ok(err[0] != '\0' && strstr(err, "cannot reach") == NULL,
           "with the client's own message: %s", err);
}

static void
test_cancel(const char *url, const char *what)
{
    int64_t from = gw_monotonic_ms();
    gw_etcd_connect_t *c = gw_etcd_connect_start(&(etcd_config_t){.servers = url}, 10000);
    struct timespec pause = {0, 100 * 1000000L};

    nanosleep(&pause, NULL); /* into the status call's wait, or past it */
    gw_etcd_connect_cancel(c);
    int64_t took = gw_monotonic_ms() - from;
    tap_ok(took < 2000, "a cancel of %s returns at once (%lld ms)", what, (long long)took);
}

int
main(void)
{
    const char *url = getenv("KGATE_TEST_ETCD");

    if (url == NULL)
        tap_skip_all("KGATE_TEST_ETCD is not set (tests/run.sh sets it)");
    evthread_use_pthreads();
    test_reachable(url);
    test_unreachable();
    test_malformed();
    test_cancel(UNREACHABLE, "an unreachable etcd");
    test_cancel(url, "a reachable etcd");
    gw_etcd_connect_cancel(NULL); /* a no-op */
    return tap_done();
}
