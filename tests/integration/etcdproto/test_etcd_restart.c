/* A single-endpoint client across an etcd restart (driven by test_etcd_restart.t): calls fail
 * while etcd is down and succeed again once it is back; the watch and the keepalive are
 * re-opened behind the caller's back, the watch without losing or repeating an event. */
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "etcd_test.h"

#define MAX_EVENTS 64

typedef struct {
    int n;
    int64_t rev[MAX_EVENTS];
    int terminal;
} seen_t;

static et_env_t env;

static void
watch_cb(int err, const Etcdserverpb__WatchResponse *resp, void *ctx)
{
    seen_t *s = ctx;
    if (err != 0) {
        s->terminal++;
        return;
    }
    for (size_t i = 0; i < resp->n_events && s->n < MAX_EVENTS; i++)
        s->rev[s->n++] = resp->events[i]->kv->mod_revision;
}

typedef struct {
    int renewals;
    int terminal;
} ka_seen_t;

static void
ka_cb(int err, const Etcdserverpb__LeaseKeepAliveResponse *resp, void *ctx)
{
    ka_seen_t *k = ctx;
    (void)resp;
    if (err != 0)
        k->terminal++;
    else
        k->renewals++;
}

static bool
file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int64_t
grant(int64_t ttl)
{
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_lease_grant(env.conn, ttl, 0, et_grant_cb, &r);
    int64_t id =
        et_wait(&env, &r) && r.err == 0 ? ((Etcdserverpb__LeaseGrantResponse *)r.resp)->id : 0;
    et_result_clear(&r);
    return id;
}

/* Ask the .t script to restart etcd; put through the outage; wait until it is back. */
static void
restart_etcd(const char *p, int64_t *revs, int from, int to)
{
    char key[160];
    int failures = 0;
    FILE *f = fopen(getenv("KGATE_TEST_RESTART_REQ"), "w");
    fclose(f);
    for (int i = 0; i < 300 && !file_exists(getenv("KGATE_TEST_RESTART_DONE")); i++)
        et_run_for(&env, 100);
    tap_ok(file_exists(getenv("KGATE_TEST_RESTART_DONE")), "etcd was restarted");
    for (int i = from; i < to; i++) {
        snprintf(key, sizeof(key), "%sk%02d", p, i);
        revs[i] = et_put_retry(&env, key, 300, &failures);
    }
    tap_diag("%d failed put attempts after the restart", failures);
}

/* The live watch must have seen exactly the history a new watch from the first put replays. */
static void
check_history(const char *p, const seen_t *live, const int64_t *revs)
{
    static seen_t replay;
    for (int i = 0; i < 300 && (live->n == 0 || live->rev[live->n - 1] < revs[19]); i++)
        et_run_for(&env, 100);
    et_watch_prefix(&env, p, revs[0], watch_cb, &replay);
    for (int i = 0; i < 300 && (replay.n == 0 || replay.rev[replay.n - 1] < revs[19]); i++)
        et_run_for(&env, 100);
    bool same = live->n == replay.n && live->n >= 20;
    for (int i = 0; same && i < live->n; i++)
        same = live->rev[i] == replay.rev[i];
    tap_ok(same, "the watch saw each of the %d events once, in order, across the restart",
           replay.n);
}

int
main(void)
{
    const char *url = et_servers_or_skip();
    if (getenv("KGATE_TEST_RESTART_REQ") == NULL || getenv("KGATE_TEST_RESTART_DONE") == NULL)
        tap_skip_all("needs test_etcd_restart.t");
    char err[256], p[128], key[160];
    etcd_config_t cfg = {.servers = url, .call_timeout_ms = 3000};
    if (!tap_ok(et_open(&env, &cfg, err, sizeof(err)) == 0, "client"))
        return tap_done();
    snprintf(p, sizeof(p), "%s", et_prefix("restart"));
    static seen_t live;
    static int64_t revs[20];
    ka_seen_t k = {0};
    int64_t id = grant(20);
    etcd_keepalive_start(env.conn, id, 300, ka_cb, &k);
    etcd_watch_t *w = et_watch_prefix(&env, p, 0, watch_cb, &live);
    et_run_for(&env, 300);
    int failures = 0;
    for (int i = 0; i < 10; i++) {
        snprintf(key, sizeof(key), "%sk%02d", p, i);
        revs[i] = et_put_retry(&env, key, 300, &failures);
    }
    restart_etcd(p, revs, 10, 20);
    int ok = 0;
    for (int i = 0; i < 20; i++)
        ok += revs[i] > 0;
    tap_is_int(ok, 20, "puts before and after the restart succeeded");

    check_history(p, &live, revs);
    tap_is_int(live.terminal, 0, "and the restart was not reported to it");

    int before = k.renewals;
    et_wait_count(&env, &k.renewals, before + 3, 20000);
    tap_ok(k.renewals >= before + 3 && k.terminal == 0,
           "the keepalive renews again after the restart (%d renewals in all)", k.renewals);
    etcd_watch_cancel(w);
    et_close(&env);
    tap_ok(live.terminal == 1 && k.terminal == 1, "cancel and close end both");
    return tap_done();
}
