/*
 * Leader election against an etcd of its own (test_gw_leader.t starts it and passes its pid,
 * so that the test can freeze it). Three candidates, each with its own etcd conn, stand for
 * three kgate instances: exactly one leads; stopping it hands over; a lease revoked from
 * outside makes its holder report the loss; a key held by a dead instance is taken over when
 * that lease expires; a leader that cannot reach etcd steps down.
 */
#include <signal.h>

#include "ctl_harness.h"
#include "gw_leader.h"

#define N 3
#define TTL_S 2
#define WAIT_MS 20000

typedef struct {
    gw_leader_t *l;
    char id[32];
    int elected;
    int lost;
    int lost_mark; /* has_lost: losses counted before the scenario */
    bool leading;
    bool stop_on_lost; /* stop itself from inside on_lost */
} cand_t;

static harness_t h;
static etcd_client_t *client;
static char key[128];
static cand_t cands[N];

static void
on_elected(gw_leader_t *l, void *ctx)
{
    cand_t *c = ctx;

    (void)l;
    c->elected++;
    c->leading = true;
}

static void
on_lost(gw_leader_t *l, void *ctx)
{
    cand_t *c = ctx;

    c->lost++;
    c->leading = false;
    if (c->stop_on_lost) {
        gw_leader_stop(l);
        c->l = NULL;
    }
}

static void
start(cand_t *c, int i)
{
    snprintf(c->id, sizeof(c->id), "instance-%d", i);
    c->l = gw_leader_start(client, h.base,
                           &(gw_leader_opts_t){.key = key,
                                               .identity = c->id,
                                               .ttl_s = TTL_S,
                                               .on_elected = on_elected,
                                               .on_lost = on_lost,
                                               .ctx = c});
}

static void
stop(cand_t *c)
{
    gw_leader_stop(c->l);
    c->l = NULL;
    c->leading = false;
}

static int
n_leading(void)
{
    int n = 0;

    for (int i = 0; i < N; i++)
        n += cands[i].l != NULL && cands[i].leading;
    return n;
}

static cand_t *
leader(void)
{
    for (int i = 0; i < N; i++)
        if (cands[i].l != NULL && cands[i].leading)
            return &cands[i];
    return NULL;
}

static bool
one_leads(void *arg)
{
    (void)arg;
    return n_leading() == 1;
}

static bool
has_lost(void *arg)
{
    cand_t *c = arg;
    return c->lost > c->lost_mark;
}

static void
test_key_names(void)
{
    char *a = gw_leader_key("/registry", "x");
    char *b = gw_leader_key("/registry/", "x");
    char *c = gw_leader_key("/", "x");

    tap_is_str(a, "/kgate/leader/registry/x", "election key under the prefix's name");
    tap_is_str(b, "/kgate/leader/registry/x", "a trailing slash in the prefix is ignored");
    tap_is_str(c, "/kgate/leader/x", "prefix \"/\"");
    tap_ok(gw_leader_start(client, h.base, &(gw_leader_opts_t){.identity = "x"}) == NULL,
           "no key: refused");
    free(a);
    free(b);
    free(c);
}

/* Exactly one of three leads, stays the only one, and its identity is the key's value. */
static void
test_one_leader(void)
{
    cand_t *c;
    ctl_raw_t kv;

    for (int i = 0; i < N; i++)
        start(&cands[i], i);
    tap_ok(ctl_wait(&h, one_leads, NULL, WAIT_MS), "one of three candidates leads");
    harness_run_for(&h, 1500);
    tap_is_int(n_leading(), 1, "still exactly one after a while");
    c = leader();
    kv = ctl_raw_get(&h, key);
    tap_ok(c != NULL && kv.found && strcmp(kv.value, c->id) == 0,
           "the key holds the leader's identity");
    tap_ok(kv.lease != 0, "the key is held under a lease");
    tap_ok(c != NULL && gw_leader_is_leader(c->l), "gw_leader_is_leader agrees");
}

/* Stopping the leader revokes its lease: another takes over (no waiting for the TTL). */
static void
test_handover_on_stop(void)
{
    cand_t *old = leader();
    cand_t *next;
    ctl_raw_t kv;

    stop(old);
    tap_ok(ctl_wait(&h, one_leads, NULL, WAIT_MS), "a stopped leader is succeeded");
    next = leader();
    kv = ctl_raw_get(&h, key);
    tap_ok(next != NULL && next != old && strcmp(kv.value, next->id) == 0,
           "by another candidate, whose identity the key now holds");
    tap_is_int(old->lost, 0, "stop does not report a loss to its owner");
    start(old, (int)(old - cands)); /* back in the race for the next scenarios */
}

/* Revoking the leader's lease from outside: the holder reports the loss; someone leads. */
static void
test_revoked_lease(void)
{
    cand_t *c = leader();
    ctl_raw_t kv = ctl_raw_get(&h, key);

    c->lost_mark = c->lost;
    c->stop_on_lost = true;
    tap_is_int(ctl_revoke(&h, kv.lease), 0, "revoke the leader's lease from outside");
    tap_ok(ctl_wait(&h, has_lost, c, WAIT_MS) && c->lost == c->lost_mark + 1,
           "the former leader reports the loss");
    tap_ok(c->l == NULL, "and could stop itself from inside on_lost");
    tap_ok(ctl_wait(&h, one_leads, NULL, WAIT_MS), "another candidate leads");
    start(c, (int)(c - cands));
    c->stop_on_lost = false;
}

/* A dead instance's key: nobody leads until its lease expires, then someone does. */
static void
test_expired_holder(void)
{
    int64_t dead;
    ctl_raw_t kv;

    for (int i = 0; i < N; i++)
        stop(&cands[i]);
    dead = ctl_grant(&h, TTL_S);
    tap_is_int(ctl_put(&h, key, "dead-instance", dead), 0, "a dead instance holds the key");
    for (int i = 0; i < N; i++)
        start(&cands[i], i);
    harness_run_for(&h, 500);
    tap_is_int(n_leading(), 0, "nobody leads while its lease lives");
    tap_ok(ctl_wait(&h, one_leads, NULL, WAIT_MS), "one leads once the lease expired");
    kv = ctl_raw_get(&h, key);
    tap_ok(kv.found && strcmp(kv.value, "dead-instance") != 0, "the key changed hands");
}

/* etcd frozen: no renewal comes, so the leader steps down within its renew deadline. */
static void
test_step_down(pid_t etcd_pid)
{
    cand_t *c = leader();

    c->lost_mark = c->lost;
    kill(etcd_pid, SIGSTOP);
    tap_ok(ctl_wait(&h, has_lost, c, WAIT_MS) && c->lost == c->lost_mark + 1,
           "a leader that cannot renew steps down");
    tap_is_int(n_leading(), 0, "nobody leads while etcd is unreachable");
    kill(etcd_pid, SIGCONT);
    tap_ok(ctl_wait(&h, one_leads, NULL, WAIT_MS), "one leads again once etcd is back");
}

int
main(void)
{
    const char *pid = getenv("KGATE_TEST_ETCD_PID");

    client = harness_client();
    harness_open(&h, client, "/unused");
    snprintf(key, sizeof(key), "/kgate-test/leader/%d/election", (int)getpid());
    test_key_names();
    test_one_leader();
    test_handover_on_stop();
    test_revoked_lease();
    test_expired_holder();
    if (pid != NULL)
        test_step_down((pid_t)atoi(pid));
    else
        tap_diag("KGATE_TEST_ETCD_PID not set: the step-down scenario needs to freeze etcd");
    for (int i = 0; i < N; i++)
        stop(&cands[i]);
    tap_ok(!ctl_raw_get(&h, key).found, "the last leader's release deleted the key");
    harness_close(&h);
    etcd_client_free(client);
    return tap_done();
}
