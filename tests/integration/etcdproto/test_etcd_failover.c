/* Failover between endpoints of a three-member cluster (started by test_etcd_failover.t):
 * a dead first endpoint is skipped; killing the member calls go to moves them to the next
 * one, and a watch carries on across the switch with every event once and in order. */
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>

#include "etcd_test.h"

#define N_PUTS 60
#define MAX_EVENTS 256

typedef struct {
    int n;
    int64_t rev[MAX_EVENTS];
    char key[MAX_EVENTS][96];
    int terminal;
    int err;
} seen_t;

static et_env_t env;
static const char *prefix;
static char urls[3][64];
static int pids[3];

static void
watch_cb(int err, const Etcdserverpb__WatchResponse *resp, void *ctx)
{
    seen_t *s = ctx;
    if (err != 0) {
        s->terminal++;
        s->err = err;
        return;
    }
    for (size_t i = 0; i < resp->n_events && s->n < MAX_EVENTS; i++) {
        const Mvccpb__KeyValue *kv = resp->events[i]->kv;
        s->rev[s->n] = kv->mod_revision;
        snprintf(s->key[s->n], sizeof(s->key[0]), "%.*s", (int)kv->key.len,
                 (const char *)kv->key.data);
        s->n++;
    }
}

static bool
range_ok(const char *key)
{
    for (int i = 0; i < 200; i++) {
        et_result_t r = {0};
        et_result_clear(&r);
        etcd_range_req_t q = {.key = etcd_str(key)};
        etcd_range(env.conn, &q, et_range_cb, &r);
        bool ok =
            et_wait(&env, &r) && r.err == 0 && ((Etcdserverpb__RangeResponse *)r.resp)->n_kvs == 1;
        et_result_clear(&r);
        if (ok)
            return true;
        et_run_for(&env, 100);
    }
    return false;
}

static int
dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    getsockname(fd, (struct sockaddr *)&sa, &len);
    close(fd); /* nobody listens there now */
    return ntohs(sa.sin_port);
}

static void
test_dead_first(void)
{
    char servers[160], err[256];
    snprintf(servers, sizeof(servers), "http://127.0.0.1:%d,%s", dead_port(), urls[1]);
    etcd_config_t cfg = {.servers = servers};
    if (!tap_ok(et_open(&env, &cfg, err, sizeof(err)) == 0, "client with a dead first endpoint"))
        return;
    static seen_t s;
    memset(&s, 0, sizeof(s));
    char p[128];
    snprintf(p, sizeof(p), "%s", et_key(prefix, "dead/"));
    et_watch_prefix(&env, p, 0, watch_cb, &s);

    et_result_t r = {0};
    et_result_clear(&r);
    etcd_status(env.conn, et_status_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "status succeeds through the second endpoint");
    int64_t rev = et_put_sync(&env, et_key(p, "k"), "v");
    tap_ok(rev > 0, "a put succeeds (the dead channel never had a connection)");
    tap_ok(range_ok(et_key(p, "k")), "a range succeeds");
    tap_is_int(etcd_client_current_endpoint(env.client), 1, "calls now go to endpoint 1");
    et_wait_count(&env, &s.n, 1, 10000);
    tap_ok(s.n == 1 && s.rev[0] == rev, "the watch moved over too and saw the put");
    et_result_clear(&r);
    et_close(&env);
}

/* What the live watch saw must be exactly etcd's history of the prefix, which a new watch from
 * the first put replays, and must hold every acknowledged put. */
static void
check_history(const char *p, const seen_t *live, const int64_t *put_rev)
{
    static seen_t replay;
    int64_t last = put_rev[N_PUTS - 1];
    for (int i = 0; i < 200 && (live->n == 0 || live->rev[live->n - 1] < last); i++)
        et_run_for(&env, 100);
    et_watch_prefix(&env, p, put_rev[0], watch_cb, &replay);
    for (int i = 0; i < 200 && (replay.n == 0 || replay.rev[replay.n - 1] < last); i++)
        et_run_for(&env, 100);
    int same = live->n == replay.n;
    for (int i = 0; same && i < live->n; i++)
        same = live->rev[i] == replay.rev[i] && strcmp(live->key[i], replay.key[i]) == 0;
    tap_ok(live->n >= N_PUTS && same,
           "the watch saw all %d events once, in order, across the switch (history has %d)",
           live->n, replay.n);
    int found = 0;
    for (int i = 0, j = 0; i < N_PUTS; i++) {
        while (j < live->n && live->rev[j] < put_rev[i])
            j++;
        found += j < live->n && live->rev[j] == put_rev[i];
    }
    tap_is_int(found, N_PUTS, "including each acknowledged put");
}

static void
test_kill_current(void)
{
    char servers[160], err[256];
    snprintf(servers, sizeof(servers), "%s,%s", urls[0], urls[1]);
    etcd_config_t cfg = {.servers = servers, .call_timeout_ms = 5000};
    if (!tap_ok(et_open(&env, &cfg, err, sizeof(err)) == 0, "client on members 0 and 1"))
        return;
    static seen_t live;
    static int64_t put_rev[N_PUTS];
    char p[128], key[160];
    snprintf(p, sizeof(p), "%s", et_key(prefix, "kill/"));
    etcd_watch_t *w = et_watch_prefix(&env, p, 0, watch_cb, &live);
    et_run_for(&env, 300);

    int failures = 0, ok = 0;
    for (int i = 0; i < N_PUTS; i++) {
        if (i == N_PUTS / 3) {
            tap_is_int(etcd_client_current_endpoint(env.client), 0, "calls go to member 0");
            tap_ok(kill(pids[0], SIGKILL) == 0, "member 0 killed");
        }
        snprintf(key, sizeof(key), "%sk%02d", p, i);
        put_rev[i] = et_put_retry(&env, key, 200, &failures);
        ok += put_rev[i] > 0;
    }
    tap_is_int(ok, N_PUTS, "every put eventually succeeded");
    tap_diag("%d failed attempts around the kill", failures);
    tap_ok(range_ok(key), "ranges succeed");
    tap_is_int(etcd_client_current_endpoint(env.client), 1, "calls now go to member 1");

    check_history(p, &live, put_rev);
    tap_is_int(live.terminal, 0, "the switch was not reported to the watcher");
    etcd_watch_cancel(w);
    et_close(&env);
}

static void
split_env(void)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", getenv("KGATE_TEST_ETCD_URLS"));
    char *save = NULL;
    int i = 0;
    for (char *t = strtok_r(buf, ",", &save); t && i < 3; t = strtok_r(NULL, ",", &save))
        snprintf(urls[i++], sizeof(urls[0]), "%s", t);
    sscanf(getenv("KGATE_TEST_ETCD_PIDS"), "%d %d %d", &pids[0], &pids[1], &pids[2]);
}

int
main(void)
{
    if (getenv("KGATE_TEST_ETCD_URLS") == NULL || getenv("KGATE_TEST_ETCD_PIDS") == NULL)
        tap_skip_all("needs the cluster of test_etcd_failover.t");
    evthread_use_pthreads();
    prefix = et_prefix("failover");
    split_env();
    test_dead_first();
    test_kill_current();
    return tap_done();
}
