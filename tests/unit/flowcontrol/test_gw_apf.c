/* Unit tests for gateway/flowcontrol: matching, the dealer, kube's bootstrap objects, and the
 * dispatcher's limits, rejections, queues and fair order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gw_apf.h"
#include "gw_clock.h"
#include "tap.h"

#define MS 1000000LL

static const char *const authed[] = {"system:authenticated"};

static gw_apf_digest_t
res(const char *user, const char *verb, const char *group, const char *resource, const char *sub,
    const char *ns)
{
    return (gw_apf_digest_t){.user = user,
                             .groups = authed,
                             .n_groups = 1,
                             .is_resource = true,
                             .verb = verb,
                             .path = "",
                             .api_group = group,
                             .resource = resource,
                             .subresource = sub,
                             .namespace_ = ns};
}

static json_t *
fs_with(const char *rules_json)
{
    json_error_t e;
    json_t *rules = json_loads(rules_json, 0, &e);
    return json_pack("{s:{s:s},s:{s:{s:s},s:i,s:o}}", "metadata", "name", "t", "spec",
                     "priorityLevelConfiguration", "name", "global-default", "matchingPrecedence",
                     500, "rules", rules);
}

static void
test_matching(void)
{
    json_t *fs =
        fs_with("[{\"subjects\":[{\"kind\":\"ServiceAccount\",\"serviceAccount\":"
                "{\"namespace\":\"ns1\",\"name\":\"*\"}}],\"resourceRules\":[{\"verbs\":"
                "[\"get\",\"update\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/status\"],"
                "\"namespaces\":[\"ns1\"]}]}]");
    gw_apf_digest_t d = res("system:serviceaccount:ns1:bot", "update", "", "pods", "status", "ns1");

    tap_ok(gw_apf_fs_matches(fs, &d), "a ServiceAccount * subject matches an account of its ns");
    d.user = "system:serviceaccount:ns2:bot";
    tap_ok(!gw_apf_fs_matches(fs, &d), "but not one of another namespace");
    d.user = "system:serviceaccount:ns1:bot";
    d.subresource = "";
    tap_ok(!gw_apf_fs_matches(fs, &d), "pods/status does not match the pods themselves");
    d.subresource = "status";
    d.verb = "delete";
    tap_ok(!gw_apf_fs_matches(fs, &d), "a verb the rule lacks does not match");
    d.verb = "get";
    d.namespace_ = "";
    tap_ok(!gw_apf_fs_matches(fs, &d), "a cluster-scoped request needs clusterScope");
    json_decref(fs);

    fs = fs_with(
        "[{\"subjects\":[{\"kind\":\"User\",\"user\":{\"name\":\"alice\"}}],"
        "\"nonResourceRules\":[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz/*\"]}]}]");
    d = res("alice", "get", "", "", "", "");
    d.is_resource = false;
    d.path = "/healthz/etcd";
    tap_ok(gw_apf_fs_matches(fs, &d), "a /prefix/* URL matches a path under it");
    d.path = "/readyz";
    tap_ok(!gw_apf_fs_matches(fs, &d), "and not another path");
    d.path = "/healthz/etcd";
    d.user = "bob";
    tap_ok(!gw_apf_fs_matches(fs, &d), "a User subject matches that user only");
    json_decref(fs);
}

static void
test_distinguisher_and_deal(void)
{
    json_t *fss = gw_apf_bootstrap_flowschemas(false);
    json_t *kcm = NULL;
    size_t i;
    json_t *v;
    json_array_foreach(fss, i, v)
    {
        if (strcmp(json_string_value(json_object_get(json_object_get(v, "metadata"), "name")),
                   "kube-controller-manager") == 0)
            kcm = v;
    }
    gw_apf_digest_t d = res("system:kube-controller-manager", "list", "", "pods", "", "ns1");
    tap_ok(kcm != NULL && strcmp(gw_apf_distinguisher(kcm, &d), "ns1") == 0,
           "kube-controller-manager's flows are by namespace");
    tap_ok(json_array_size(fss) == 11, "kube 1.32 suggests 11 FlowSchemas (%zu)",
           json_array_size(fss));
    json_decref(fss);

    int hand[8];
    int ok = 1;
    for (uint64_t h = 1; h < 2000; h += 7) {
        gw_apf_deal(gw_apf_flow_hash("global-default", "u") * h, 128, 6, hand);
        for (int a = 0; a < 6; a++) {
            ok &= hand[a] >= 0 && hand[a] < 128;
            for (int b = 0; b < a; b++)
                ok &= hand[a] != hand[b];
        }
    }
    tap_ok(ok, "every hand holds distinct cards of the deck");
    gw_apf_deal(0, 10, 3, hand);
    tap_ok(hand[0] == 0 && hand[1] == 1 && hand[2] == 2, "hash 0 deals the first cards");
    tap_ok(gw_apf_flow_hash("a", "b") == gw_apf_flow_hash("a", "b") &&
               gw_apf_flow_hash("a", "b") != gw_apf_flow_hash("ab", ""),
           "the flow hash separates FlowSchema name and distinguisher");
}

static int order[32], n_order;

static void
wake(void *ctx)
{
    order[n_order++] = (int)(intptr_t)ctx;
}

static void
test_dispatch(void)
{
    /* ServerCL 3: global-default's NominalCL = ceil(3*20/245) = 1 */
    gw_apf_t *a = gw_apf_new(3);
    json_t *pls = gw_apf_bootstrap_levels(false), *fss = gw_apf_bootstrap_flowschemas(false);
    gw_apf_ticket_t *t[16];
    gw_apf_digest_t flood = res("flooder", "list", "", "configmaps", "", "x");
    gw_apf_digest_t victim = res("victim", "list", "", "configmaps", "", "x");
    int64_t now = 1000 * MS;
    bool waits = true;

    gw_apf_configure(a, fss, pls);
    tap_ok(gw_apf_admit(a, &flood, 1, now, wake, (void *)0, &t[0]) == GW_APF_EXECUTE,
           "the first request executes at once");
    tap_ok(strcmp(gw_apf_ticket_fs(t[0]), "global-default") == 0 &&
               strcmp(gw_apf_ticket_pl(t[0]), "global-default") == 0,
           "an authenticated user lands in global-default");
    for (intptr_t i = 1; i <= 12; i++)
        waits &= gw_apf_admit(a, &flood, 1, now, wake, (void *)i, &t[i]) == GW_APF_QUEUED;
    tap_ok(waits, "12 more of the flooder's wait (one seat)");
    tap_ok(gw_apf_admit(a, &victim, 1, now + MS, wake, (void *)13, &t[13]) == GW_APF_QUEUED,
           "the victim, coming last, waits too");
    /* each dispatched request runs 100 ms */
    int running = 0;
    for (int step = 1; step <= 13; step++) {
        gw_apf_done(a, t[running], now + step * 100 * MS);
        running = order[n_order - 1];
    }
    int at = -1;
    for (int i = 0; i < n_order; i++) {
        if (order[i] == 13)
            at = i;
    }
    tap_ok(n_order == 13, "every waiting request was dispatched, one per seat freed");
    /* FIFO would serve it 13th; fair queuing after at most one request of each of the
     * flooder's queues (its hand of 6) */
    tap_ok(at >= 0 && at < 7, "the victim is served before the flooder's backlog (at %d)", at);
    gw_apf_done(a, t[running], now + 1500 * MS);
    tap_ok(gw_apf_admit(a, &flood, 1, now + 2000 * MS, wake, (void *)1, &t[1]) == GW_APF_EXECUTE &&
               gw_apf_admit(a, &flood, 1, now + 2000 * MS, wake, (void *)2, &t[2]) == GW_APF_QUEUED,
           "an idle level executes at once again, and queues past its seat");
    tap_ok(gw_apf_cancel(a, t[2], now + 2200 * MS), "a waiting request times out");
    tap_ok(strcmp(gw_apf_ticket_reason(t[2]), GW_APF_REASON_TIMEOUT) == 0, "reason time-out");
    tap_ok(!gw_apf_cancel(a, t[1], now + 2200 * MS), "an executing one does not");
    gw_apf_done(a, t[1], now + 2300 * MS);
    gw_apf_done(a, t[2], now + 2300 * MS);
    gw_apf_digest_t masters = flood;
    const char *const groups[] = {"system:masters", "system:authenticated"};
    masters.groups = groups;
    masters.n_groups = 2;
    tap_ok(gw_apf_admit(a, &masters, 1, now, wake, (void *)14, &t[14]) == GW_APF_EXECUTE &&
               strcmp(gw_apf_ticket_pl(t[14]), "exempt") == 0,
           "system:masters is exempt");
    gw_apf_done(a, t[14], now);

    /* a Reject level of no nominal seats */
    json_t *pl = json_pack("{s:{s:s,s:s},s:{s:s,s:{s:i,s:{s:s}}}}", "metadata", "name", "rej",
                           "uid", "u-rej", "spec", "type", "Limited", "limited",
                           "nominalConcurrencyShares", 0, "limitResponse", "type", "Reject");
    json_array_append_new(pls, pl);
    json_array_append_new(fss, fs_with("[{\"subjects\":[{\"kind\":\"User\",\"user\":{\"name\":"
                                       "\"flooder\"}}],\"resourceRules\":[{\"verbs\":[\"*\"],"
                                       "\"apiGroups\":[\"*\"],\"resources\":[\"*\"],"
                                       "\"namespaces\":[\"*\"]}]}]"));
    json_object_set_new(json_object_get(json_object_get(json_array_get(fss, 11), "spec"),
                                        "priorityLevelConfiguration"),
                        "name", json_string("rej"));
    gw_apf_configure(a, fss, pls);
    tap_ok(gw_apf_admit(a, &flood, 1, now, wake, (void *)15, &t[15]) == GW_APF_REJECT,
           "a Reject level without seats rejects");
    tap_ok(strcmp(gw_apf_ticket_reason(t[15]), GW_APF_REASON_CONCURRENCY) == 0 &&
               strcmp(gw_apf_ticket_pl_uid(t[15]), "u-rej") == 0,
           "reason concurrency-limit, the level's uid");
    gw_apf_done(a, t[15], now);
    json_decref(pls);
    json_decref(fss);
    gw_apf_free(a);
}

static void
test_allocate(void)
{
    gw_apf_alloc_item_t even[] = {{5, 1, 10}, {5, 1, 10}};
    gw_apf_alloc_item_t capped[] = {{1, 0, 1}, {9, 0, 100}};
    gw_apf_alloc_item_t floors[] = {{2, 2, 8}, {0, 0, 8}};
    gw_apf_alloc_item_t broken[] = {{1, 2, 8}};
    double got[2] = {-1, -1}, fair = 0;

    tap_ok(gw_apf_allocate(10, even, 2, got, &fair) && got[0] == 5 && got[1] == 5 && fair == 1,
           "equal targets share equally (fair fraction 1)");
    tap_ok(gw_apf_allocate(20, capped, 2, got, &fair) && got[0] == 1 && fabs(got[1] - 19) < 1e-9,
           "an item held at its upper bound leaves the rest to the other");
    tap_ok(gw_apf_allocate(7, floors, 2, got, &fair) && got[0] == 7 - got[1] && got[1] < 0.01,
           "a target of 0 counts as 0.001: nearly all goes to the other");
    tap_ok(gw_apf_allocate(2, floors, 2, got, &fair) && got[0] == 2 && got[1] == 0,
           "lower bounds that sum to what is shared are the answer");
    tap_ok(!gw_apf_allocate(1, floors, 2, got, &fair), "lower bounds above the sum: impossible");
    tap_ok(!gw_apf_allocate(5, broken, 1, got, &fair), "a target below its lower bound is refused");
}

typedef struct {
    const char *name;
    gw_apf_level_stats_t s;
} find_t;

static void
find_level(const gw_apf_level_stats_t *s, void *ctx)
{
    find_t *f = ctx;
    if (strcmp(s->name, f->name) == 0)
        f->s = *s;
}

static gw_apf_level_stats_t
level_of(gw_apf_t *a, const char *name)
{
    find_t f = {.name = name};
    gw_apf_each_level(a, find_level, &f);
    return f.s;
}

static json_t *
limited(const char *name, int shares, int lendable)
{
    return json_pack("{s:{s:s},s:{s:s,s:{s:i,s:i,s:{s:s,s:{s:i,s:i,s:i}}}}}", "metadata", "name",
                     name, "spec", "type", "Limited", "limited", "nominalConcurrencyShares", shares,
                     "lendablePercent", lendable, "limitResponse", "type", "Queue", "queuing",
                     "queues", 16, "handSize", 4, "queueLengthLimit", 50);
}

static void
test_borrowing(void)
{
    /* ServerCL 6 over 20 shares: catch-all (5) 2 seats, busy (5) 2, idle (10) 3 lending all */
    gw_apf_t *a = gw_apf_new(6);
    json_t *pls = json_pack("[o,o]", limited("busy", 5, 0), limited("idle", 10, 100));
    json_t *fss = json_pack("[o]", fs_with("[{\"subjects\":[{\"kind\":\"User\",\"user\":"
                                           "{\"name\":\"flooder\"}}],\"resourceRules\":["
                                           "{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],"
                                           "\"resources\":[\"*\"],\"namespaces\":[\"*\"]}]}]"));
    gw_apf_digest_t flood = res("flooder", "list", "", "configmaps", "", "x");
    gw_apf_ticket_t *t[24];
    int64_t now;

    json_object_set_new(json_object_get(json_object_get(json_array_get(fss, 0), "spec"),
                                        "priorityLevelConfiguration"),
                        "name", json_string("busy"));
    gw_apf_configure(a, fss, pls);
    now = gw_monotonic_ns() + MS; /* the configuration's demand figures start at its clock */
    gw_apf_level_stats_t busy = level_of(a, "busy"), idle = level_of(a, "idle");
    tap_ok(busy.nominal_seats == 2 && busy.lower_seats == 2 && busy.upper_seats == 8,
           "busy: 2 nominal seats, lends none, may borrow the server's 6 (%d %d %d)",
           busy.nominal_seats, busy.lower_seats, busy.upper_seats);
    tap_ok(idle.nominal_seats == 3 && idle.lower_seats == 0,
           "idle: 3 nominal seats, lends them all");
    /* what is shared among levels without demand goes by their lower bounds */
    tap_ok(idle.current_seats == 0, "an idle level that lends everything keeps no seat (%d)",
           idle.current_seats);
    n_order = 0;
    for (intptr_t i = 0; i < 20; i++)
        gw_apf_admit(a, &flood, 1, now, wake, (void *)i, &t[i]);
    int before = level_of(a, "busy").executing;
    gw_apf_adjust(a, now + 10000 * MS);
    busy = level_of(a, "busy");
    tap_ok(busy.current_seats == 5,
           "after 10 s of demand for 20 seats, busy gets all but catch-all's 2 (%d)",
           busy.current_seats);
    tap_ok(busy.executing == 5 && busy.executing > busy.nominal_seats && n_order == 5 - before,
           "and runs 5 requests at once, more than its nominal 2 (%d, %d woken)", busy.executing,
           n_order);
    for (int i = 0; i < 20; i++)
        gw_apf_done(a, t[i], now + 10001 * MS);
    gw_apf_adjust(a, now + 20000 * MS);
    tap_ok(level_of(a, "busy").current_seats >= 2, "a level never drops below its lower bound");
    json_decref(pls);
    json_decref(fss);
    gw_apf_free(a);
}

static void
test_work_estimate(void)
{
    /* ServerCL 600: global-default's NominalCL is 49, so one request takes at most
     * min(ceil(49 * 0.15), 49 / 6) = 8 seats there */
    gw_apf_t *a = gw_apf_new(600);
    json_t *pls = gw_apf_bootstrap_levels(false), *fss = gw_apf_bootstrap_flowschemas(false);
    gw_apf_digest_t watch = res("w", "watch", "", "configmaps", "", "x");
    gw_apf_digest_t create = res("u", "create", "", "configmaps", "", "x");
    gw_apf_digest_t list = res("u", "list", "", "configmaps", "", "x");
    gw_apf_watch_t *w[120];
    gw_apf_ticket_t *t;

    gw_apf_configure(a, fss, pls);
    gw_apf_admit(a, &list, 10, gw_monotonic_ns(), wake, NULL, &t);
    tap_ok(gw_apf_ticket_seats(t) == 8, "a LIST of 10 seats is held to global-default's 8 (%d)",
           gw_apf_ticket_seats(t));
    tap_ok(gw_apf_done(a, t, gw_monotonic_ns()) == 0, "and gives them back when it ends");
    for (int i = 0; i < 25; i++)
        w[i] = gw_apf_watch_register(a, &watch);
    tap_ok(gw_apf_watch_count(a, &create) == 25, "25 watches of configmaps in x see a create");
    create.namespace_ = "y";
    tap_ok(gw_apf_watch_count(a, &create) == 0, "none sees one in another namespace");
    create.namespace_ = "x";
    int64_t now = gw_monotonic_ns();
    gw_apf_admit(a, &create, 1, now, wake, NULL, &t);
    tap_ok(gw_apf_ticket_seats(t) == 3, "a create seen by 25 watches takes ceil(25/10) = 3 seats");
    int64_t linger = gw_apf_done(a, t, now + MS);
    tap_ok(linger == 5 * MS, "kept 5 ms past its end (%lld ns)", (long long)linger);
    tap_ok(level_of(a, "global-default").seats_executing == 3 &&
               level_of(a, "global-default").executing == 0,
           "meanwhile its seats stay taken, though it no longer executes");
    gw_apf_expire(a, now + 6 * MS);
    tap_ok(level_of(a, "global-default").seats_executing == 0, "then they go back");
    for (int i = 25; i < 120; i++)
        w[i] = gw_apf_watch_register(a, &watch);
    gw_apf_admit(a, &create, 1, now, wake, NULL, &t);
    tap_ok(gw_apf_ticket_seats(t) == 8, "120 watches: 12 seats, held to the level's 8");
    linger = gw_apf_done(a, t, now);
    tap_ok(linger == 7500000, "the same work spread over 8 seats: 12 * 5 ms / 8 (%lld ns)",
           (long long)linger);
    for (int i = 0; i < 120; i++)
        gw_apf_watch_forget(a, w[i]);
    tap_ok(gw_apf_watch_count(a, &create) == 0, "forgotten watches count no more");
    json_decref(pls);
    json_decref(fss);
    gw_apf_free(a); /* the lingering ticket goes with it */
}

int
main(void)
{
    test_matching();
    test_distinguisher_and_deal();
    test_dispatch();
    test_allocate();
    test_borrowing();
    test_work_estimate();
    return tap_done();
}
