/*
 * The compactor against its own etcd (test_gw_compact.t starts one): two compactors on two
 * conns stand for two kgate instances. Each round exactly one wins, the first win compacts
 * nothing, and every later win compacts to the revision its instance recorded one round
 * earlier. Also: a watch from a compacted revision, queued and cancelled rounds, the timer.
 */
#include "gw_compact.h"
#include "store_harness.h"

#define HOUR_MS 3600000

typedef struct {
    harness_t h;
    gw_compactor_t *c;
    int64_t recorded; /* store revision right after this instance's last round */
} instance_t;

typedef struct {
    bool done;
    int err;
    int64_t compacted_to;
} round_result_t;

static void
round_cb(int err, int64_t compacted_to, void *ctx)
{
    round_result_t *r = ctx;

    r->done = true;
    r->err = err;
    r->compacted_to = compacted_to;
}

static void
version_cb(int err, const Etcdserverpb__RangeResponse *resp, void *ctx)
{
    result_t *r = ctx;

    result_set(r, err, NULL);
    r->rev = err == 0 && resp->n_kvs > 0 ? resp->kvs[0]->version : 0;
}

/* Version of "compact_rev_key": how many rounds have been won, cluster-wide. */
static int64_t
key_version(harness_t *h)
{
    result_t r = {0};
    etcd_range_req_t q = {.key = etcd_str("compact_rev_key")};

    if (etcd_range(h->conn, &q, version_cb, &r) != 0)
        return -1;
    harness_wait(h, &r.done);
    return r.err == 0 ? r.rev : -1;
}

static round_result_t
run_round(instance_t *in)
{
    round_result_t r = {0};

    gw_compactor_run_once(in->c, round_cb, &r);
    harness_wait(&in->h, &r.done);
    in->recorded = h_rev(&in->h);
    return r;
}

/* Some history between rounds, so each compaction removes something. */
static void
churn(harness_t *h, int64_t *mod)
{
    result_t r = {0};

    h_update(h, "c/obj", "v", *mod, &r);
    *mod = r.mod;
    result_clear(&r);
}

static void
check_compacted_to(harness_t *h, int64_t rev, int round)
{
    result_t r = {0};

    tap_ok(h_get(h, "c/obj", rev - 1, &r) == GW_ECOMPACTED,
           "round %d: revision %lld, just before the compaction point, is gone", round,
           (long long)rev - 1);
    tap_ok(h_get(h, "c/obj", rev, &r) == 0, "round %d: the compaction point %lld is readable",
           round, (long long)rev);
    result_clear(&r);
}

static void
test_rounds(instance_t *in, int64_t *mod)
{
    for (int round = 1; round <= 4; round++) {
        /* Alternate who goes first: the first to run in a round is the one in sync. */
        instance_t *first = &in[(round + 1) % 2], *second = &in[round % 2];
        int64_t expect = first->recorded, v0 = key_version(&in[0].h);

        churn(&first->h, mod);
        round_result_t r1 = run_round(first);
        churn(&second->h, mod);
        round_result_t r2 = run_round(second);
        tap_ok(r1.err == 0 && r2.err == 0, "round %d: both rounds ran", round);
        tap_is_int(key_version(&in[0].h) - v0, 1, "exactly one instance won the round");
        tap_is_int(r2.compacted_to, 0, "the loser compacted nothing");
        if (round == 1) {
            tap_is_int(r1.compacted_to, 0, "the first win compacts nothing");
            continue;
        }
        tap_is_int(r1.compacted_to, expect, "the winner compacts to what it recorded last round");
        check_compacted_to(&first->h, r1.compacted_to, round);
    }
}

static void
watch_cb(int err, const gw_watch_event_t *ev, void *ctx)
{
    result_t *r = ctx;

    if (err == 0)
        return;
    result_set(r, err, NULL);
    r->rev = ev ? ev->revision : -1;
}

static void
test_watch_compacted(instance_t *in)
{
    result_t r = {0};
    int64_t compacted;
    gw_watch_req_t req = {.key = "c/", .is_prefix = true, .after_revision = 1};
    round_result_t rr;

    /* Instance 0 lost the last round, so it is in sync and wins this one. */
    rr = run_round(&in[0]);
    compacted = rr.compacted_to;
    tap_ok(compacted > 1, "compacted to %lld", (long long)compacted);
    tap_ok(gw_store_watch(in[0].h.store, &req, watch_cb, &r) != NULL, "watch from revision 2");
    harness_wait(&in[0].h, &r.done);
    tap_is_int(r.err, GW_ECOMPACTED, "a watch from a compacted revision ends with ECOMPACTED");
    tap_is_int(r.rev, compacted, "... reporting the compacted revision");
    result_clear(&r);
}

static void
test_queue_and_cancel(instance_t *in)
{
    round_result_t a = {0}, b = {0}, c = {0};
    int64_t v0 = key_version(&in[0].h);

    gw_compactor_run_once(in[0].c, round_cb, &a);
    gw_compactor_run_once(in[0].c, round_cb, &b);
    harness_wait(&in[0].h, &b.done);
    tap_ok(a.done && a.err == 0 && b.err == 0, "a round asked for during another runs after it");
    tap_is_int(key_version(&in[0].h) - v0, 2, "... and both won");

    gw_compactor_run_once(in[1].c, round_cb, &c);
    gw_compactor_stop(in[1].c);
    in[1].c = NULL;
    tap_ok(c.done && c.err == GW_ECANCELED, "stop cancels the round in flight");
    harness_run_for(&in[1].h, 300); /* let the orphaned etcd call come back */
}

static void
test_timer(etcd_client_t *client)
{
    harness_t h;
    gw_compactor_t *c;
    int64_t v0;
    int waited = 0;

    harness_open(&h, client, "/registry");
    tap_ok(gw_compactor_start(h.conn, h.base, 0) == NULL, "interval 0 disables compaction");
    v0 = key_version(&h);
    c = gw_compactor_start(h.conn, h.base, 200);
    /* First tick learns the key's version, the second wins. */
    while (key_version(&h) <= v0 && waited < 20000) {
        harness_run_for(&h, 100);
        waited += 100;
    }
    tap_ok(key_version(&h) > v0, "the timer runs rounds on its own");
    gw_compactor_stop(c);
    harness_close(&h);
}

int
main(void)
{
    etcd_client_t *client = harness_client();
    instance_t in[2] = {0};
    result_t r = {0};
    int64_t mod;

    for (int i = 0; i < 2; i++) {
        harness_open(&in[i].h, client, "/registry");
        in[i].c = gw_compactor_start(in[i].h.conn, in[i].h.base, HOUR_MS);
    }
    h_create(&in[0].h, "c/obj", "v", &r);
    mod = r.mod;
    test_rounds(in, &mod);
    test_watch_compacted(in);
    test_queue_and_cancel(in);
    for (int i = 0; i < 2; i++) {
        gw_compactor_stop(in[i].c);
        harness_close(&in[i].h);
    }
    test_timer(client);
    result_clear(&r);
    etcd_client_free(client);
    return tap_done();
}
