/* The unary calls against a real etcd: KV, transactions, compaction, errors, status, leases;
 * where callbacks run, that each runs once, cancellation by etcd_conn_free and deadlines.
 * Compacts: run by test_etcd_kv.t against an etcd of its own. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

#include "etcd_test.h"

static et_env_t env;
static const char *prefix;

#define KEY(s) et_key(prefix, s)

static Etcdserverpb__RangeResponse *
range_resp(et_result_t *r)
{
    return (Etcdserverpb__RangeResponse *)r->resp;
}

static bool
bytes_is(ProtobufCBinaryData b, const char *s)
{
    return b.len == strlen(s) && (b.len == 0 || memcmp(b.data, s, b.len) == 0);
}

static void
test_put_range(void)
{
    et_result_t r = {0};
    et_result_clear(&r);
    int rc = etcd_put(env.conn, etcd_str(KEY("k1")), etcd_str("v1"), 0, false, et_put_cb, &r);
    tap_is_int(rc, 0, "put started");
    tap_is_int(r.calls, 0, "callback not run from inside the starting call");
    et_wait(&env, &r);
    tap_ok(r.err == 0 && r.calls == 1, "put k1=v1 (%s)", gw_errname(r.err));
    tap_ok(!r.wrong_thread, "put callback ran on the thread running the base");
    int64_t rev1 = r.resp ? ((Etcdserverpb__PutResponse *)r.resp)->header->revision : 0;
    int64_t rev2 = et_put_sync(&env, KEY("k1"), "v2");
    tap_ok(rev1 > 0 && rev2 > rev1, "revisions advance (%lld, %lld)", (long long)rev1,
           (long long)rev2);

    et_result_clear(&r);
    etcd_range_req_t q = {.key = etcd_str(KEY("k1"))};
    etcd_range(env.conn, &q, et_range_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "range latest");
    Etcdserverpb__RangeResponse *rr = range_resp(&r);
    tap_ok(rr && rr->n_kvs == 1 && bytes_is(rr->kvs[0]->value, "v2") &&
               rr->kvs[0]->mod_revision == rev2 && rr->kvs[0]->version == 2,
           "latest value is v2 at its revision, version 2");
    tap_ok(!r.wrong_thread, "range callback on the base's thread");

    et_result_clear(&r);
    q.revision = rev1;
    etcd_range(env.conn, &q, et_range_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "range at an old revision");
    rr = range_resp(&r);
    tap_ok(rr && rr->n_kvs == 1 && bytes_is(rr->kvs[0]->value, "v1"), "old revision shows v1");

    et_result_clear(&r);
    etcd_put(env.conn, etcd_str(KEY("k1")), etcd_str("v3"), 0, true, et_put_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "put with prev_kv");
    Etcdserverpb__PutResponse *pr = (Etcdserverpb__PutResponse *)r.resp;
    tap_ok(pr && pr->prev_kv && bytes_is(pr->prev_kv->value, "v2"), "prev_kv is v2");
    et_result_clear(&r);
}

static void
test_list_options(void)
{
    const char *names[] = {"list/a", "list/b", "list/c", "list/d", "list/e"};
    for (int i = 0; i < 5; i++)
        et_put_sync(&env, KEY(names[i]), "x");
    const char *lp = KEY("list/");
    char lpbuf[256];
    snprintf(lpbuf, sizeof(lpbuf), "%s", lp);
    etcd_range_req_t q = {.key = etcd_str(lpbuf), .range_end = et_prefix_end(lpbuf)};
    et_result_t r = {0};
    et_result_clear(&r);

    q.count_only = true;
    etcd_range(env.conn, &q, et_range_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "count_only");
    tap_ok(range_resp(&r) && range_resp(&r)->count == 5 && range_resp(&r)->n_kvs == 0,
           "count 5, no kvs");

    et_result_clear(&r);
    q.count_only = false;
    q.limit = 2;
    etcd_range(env.conn, &q, et_range_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "limit 2");
    Etcdserverpb__RangeResponse *rr = range_resp(&r);
    tap_ok(rr && rr->n_kvs == 2 && rr->more && rr->count == 5, "two kvs, more, count 5");
    tap_ok(rr && rr->n_kvs == 2 && bytes_is(rr->kvs[0]->key, KEY("list/a")) &&
               bytes_is(rr->kvs[1]->key, KEY("list/b")),
           "in key order");

    et_result_clear(&r);
    q.limit = 0;
    q.keys_only = true;
    etcd_range(env.conn, &q, et_range_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "keys_only");
    rr = range_resp(&r);
    tap_ok(rr && rr->n_kvs == 5 && rr->kvs[4]->value.len == 0 && !rr->more,
           "five keys, no values, no more");

    et_result_clear(&r);
    etcd_delete(env.conn, etcd_str(lpbuf), et_prefix_end(lpbuf), true, et_delete_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "delete range with prev_kv");
    Etcdserverpb__DeleteRangeResponse *dr = (Etcdserverpb__DeleteRangeResponse *)r.resp;
    tap_ok(dr && dr->deleted == 5 && dr->n_prev_kvs == 5 && bytes_is(dr->prev_kvs[0]->value, "x"),
           "deleted 5, with their previous values");
    et_result_clear(&r);
}

static Etcdserverpb__TxnResponse *
run_txn(const etcd_txn_req_t *t, et_result_t *r)
{
    et_result_clear(r);
    if (etcd_txn(env.conn, t, et_txn_cb, r) != 0 || !et_wait(&env, r) || r->err != 0)
        return NULL;
    return (Etcdserverpb__TxnResponse *)r->resp;
}

/* Updates and deletes guarded by mod revision, value and version. */
static void
test_txn_guards(const char *key, int64_t created)
{
    etcd_op_t get = {.kind = ETCD_OP_RANGE, .key = etcd_str(key)};
    et_result_t r = {0};
    Etcdserverpb__TxnResponse *tr;
    etcd_cmp_t at = {
        .key = etcd_str(key), .target = ETCD_CMP_MOD, .result = ETCD_CMP_EQUAL, .number = created};
    etcd_op_t update = {
        .kind = ETCD_OP_PUT, .key = etcd_str(key), .value = etcd_str("two"), .prev_kv = true};
    etcd_txn_req_t u = {&at, 1, &update, 1, &get, 1};
    tr = run_txn(&u, &r);
    tap_ok(tr && tr->succeeded, "update with the right mod revision succeeds");
    tap_ok(tr && tr->n_responses == 1 && tr->responses[0]->response_put->prev_kv &&
               bytes_is(tr->responses[0]->response_put->prev_kv->value, "one"),
           "put inside txn returns prev_kv");
    tr = run_txn(&u, &r);
    tap_ok(tr && !tr->succeeded, "update with a stale mod revision fails");

    etcd_cmp_t val = {.key = etcd_str(key),
                      .target = ETCD_CMP_VALUE,
                      .result = ETCD_CMP_EQUAL,
                      .value = etcd_str("two")};
    etcd_op_t del = {.kind = ETCD_OP_DELETE, .key = etcd_str(key), .prev_kv = true};
    etcd_txn_req_t d = {&val, 1, &del, 1, NULL, 0};
    tr = run_txn(&d, &r);
    tap_ok(tr && tr->succeeded && tr->responses[0]->response_delete_range->deleted == 1,
           "delete guarded by value");
    etcd_cmp_t ver = {
        .key = etcd_str(key), .target = ETCD_CMP_VERSION, .result = ETCD_CMP_GREATER, .number = 0};
    etcd_txn_req_t v = {&ver, 1, NULL, 0, NULL, 0};
    tr = run_txn(&v, &r);
    tap_ok(tr && !tr->succeeded, "version > 0 of a deleted key is false");
    et_result_clear(&r);
}

static void
test_txn(void)
{
    const char *key = KEY("txn/obj");
    etcd_cmp_t absent = {
        .key = etcd_str(key), .target = ETCD_CMP_CREATE, .result = ETCD_CMP_EQUAL, .number = 0};
    etcd_op_t create = {.kind = ETCD_OP_PUT, .key = etcd_str(key), .value = etcd_str("one")};
    etcd_op_t get = {.kind = ETCD_OP_RANGE, .key = etcd_str(key)};
    etcd_txn_req_t t = {&absent, 1, &create, 1, &get, 1};
    et_result_t r = {0};

    Etcdserverpb__TxnResponse *tr = run_txn(&t, &r);
    tap_ok(tr && tr->succeeded && tr->n_responses == 1 &&
               tr->responses[0]->response_case == ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_PUT,
           "create-if-absent succeeds the first time");
    int64_t created = tr ? tr->header->revision : 0;

    tr = run_txn(&t, &r);
    tap_ok(tr && !tr->succeeded && tr->n_responses == 1, "and fails the second time");
    Etcdserverpb__RangeResponse *got =
        tr && tr->n_responses == 1 ? tr->responses[0]->response_range : NULL;
    tap_ok(got && got->n_kvs == 1 && bytes_is(got->kvs[0]->value, "one") &&
               got->kvs[0]->mod_revision == created,
           "failure branch returns the existing object");

    et_result_clear(&r);
    test_txn_guards(key, created);
}

static void
test_errors(void)
{
    et_result_t r = {0};
    et_result_clear(&r);
    int64_t now = et_put_sync(&env, KEY("err/k"), "v");
    etcd_range_req_t q = {.key = etcd_str(KEY("err/k")), .revision = now + 1000};
    etcd_range(env.conn, &q, et_range_cb, &r);
    et_wait(&env, &r);
    tap_ok(r.err == GW_EFUTUREREV && r.resp == NULL,
           "range at a future revision: GW_EFUTUREREV (%s)", gw_errname(r.err));

    size_t big = 2 << 20;
    char *value = malloc(big + 1);
    memset(value, 'x', big);
    value[big] = '\0';
    et_result_clear(&r);
    etcd_put(env.conn, etcd_str(KEY("err/big")), etcd_str(value), 0, false, et_put_cb, &r);
    et_wait(&env, &r);
    tap_ok(r.err == GW_ETOOLARGE, "2 MiB put: GW_ETOOLARGE (%s)", gw_errname(r.err));
    free(value);

    et_result_clear(&r);
    etcd_range_req_t empty = {.key = {NULL, 0}};
    tap_is_int(etcd_range(env.conn, &empty, et_range_cb, &r), GW_EINVAL, "empty key: GW_EINVAL");
    tap_is_int(etcd_put(env.conn, etcd_str("k"), (etcd_bytes_t){NULL, 3}, 0, false, et_put_cb, &r),
               GW_EINVAL, "value with length but no bytes: GW_EINVAL");
    tap_is_int(etcd_compact(env.conn, 0, false, et_compact_cb, &r), GW_EINVAL,
               "compact to revision 0: GW_EINVAL");
    etcd_cmp_t bad = {.key = etcd_str("k"), .target = (etcd_cmp_target_t)9};
    etcd_txn_req_t t = {&bad, 1, NULL, 0, NULL, 0};
    tap_is_int(etcd_txn(env.conn, &t, et_txn_cb, &r), GW_EINVAL, "unknown compare target");
    et_run_for(&env, 50);
    tap_is_int(r.calls, 0, "rejected calls have no callback");
}

static void
test_compact(void)
{
    int64_t old = et_put_sync(&env, KEY("compact/k"), "a");
    int64_t now = et_put_sync(&env, KEY("compact/k"), "b");
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_compact(env.conn, now, true, et_compact_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "compact to the current revision");

    et_result_clear(&r);
    etcd_range_req_t q = {.key = etcd_str(KEY("compact/k")), .revision = old};
    etcd_range(env.conn, &q, et_range_cb, &r);
    et_wait(&env, &r);
    tap_ok(r.err == GW_ECOMPACTED, "range below it: GW_ECOMPACTED (%s)", gw_errname(r.err));

    et_result_clear(&r);
    etcd_compact(env.conn, old, false, et_compact_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == GW_ECOMPACTED, "compacting again: GW_ECOMPACTED");

    et_result_clear(&r);
    q.revision = now;
    etcd_range(env.conn, &q, et_range_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0 && range_resp(&r)->n_kvs == 1 &&
               bytes_is(range_resp(&r)->kvs[0]->value, "b"),
           "the compaction revision itself is still readable");
    et_result_clear(&r);
}

static void
test_status(void)
{
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_status(env.conn, et_status_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "status");
    Etcdserverpb__StatusResponse *s = (Etcdserverpb__StatusResponse *)r.resp;
    tap_ok(s && s->version && strncmp(s->version, "3.", 2) == 0 && s->header->revision > 0 &&
               s->leader != 0,
           "status has version %s, a revision and a leader", s && s->version ? s->version : "?");
    tap_is_int(etcd_client_endpoint_count(env.client), 1, "one endpoint");
    tap_is_int(etcd_client_current_endpoint(env.client), 0, "current endpoint 0");
    et_result_clear(&r);
}

/* ---- leases ----------------------------------------------------------------------------- */

typedef struct {
    int renewals;
    int terminal;
    int err;
    int64_t last_id;
    int64_t last_ttl;
    bool wrong_thread;
} ka_seen_t;

static void
ka_cb(int err, const Etcdserverpb__LeaseKeepAliveResponse *resp, void *ctx)
{
    ka_seen_t *k = ctx;
    if (!pthread_equal(pthread_self(), env.thread))
        k->wrong_thread = true;
    if (err != 0) {
        k->terminal++;
        k->err = err;
        return;
    }
    k->renewals++;
    k->last_id = resp->id;
    k->last_ttl = resp->ttl;
}

static int64_t
grant(int64_t ttl)
{
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_lease_grant(env.conn, ttl, 0, et_grant_cb, &r);
    int64_t id = 0;
    if (et_wait(&env, &r) && r.err == 0)
        id = ((Etcdserverpb__LeaseGrantResponse *)r.resp)->id;
    et_result_clear(&r);
    return id;
}

static int64_t
count_key(const char *key)
{
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_range_req_t q = {.key = etcd_str(key), .count_only = true};
    etcd_range(env.conn, &q, et_range_cb, &r);
    int64_t n = -1;
    if (et_wait(&env, &r) && r.err == 0)
        n = range_resp(&r)->count;
    et_result_clear(&r);
    return n;
}

static void
test_lease(void)
{
    int64_t id = grant(5);
    tap_ok(id > 0, "lease granted (id %lld)", (long long)id);
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_put(env.conn, etcd_str(KEY("lease/k")), etcd_str("v"), id, false, et_put_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "put attached to the lease");

    ka_seen_t k = {0};
    etcd_keepalive_t *ka = etcd_keepalive_start(env.conn, id, 200, ka_cb, &k);
    tap_ok(ka != NULL, "keepalive started");
    et_wait_count(&env, &k.renewals, 4, 10000);
    tap_ok(k.renewals >= 4 && k.terminal == 0, "four renewals (%d)", k.renewals);
    tap_ok(k.last_id == id && k.last_ttl > 0 && k.last_ttl <= 5, "renewal for our lease, ttl %lld",
           (long long)k.last_ttl);
    etcd_keepalive_stop(ka);
    etcd_keepalive_stop(ka);
    tap_is_int(k.terminal, 0, "stop does not call back from inside");
    tap_ok(et_wait_count(&env, &k.terminal, 1, 5000) && k.err == GW_ECANCELED,
           "stopped keepalive ends with GW_ECANCELED");
    et_run_for(&env, 300);
    tap_is_int(k.terminal, 1, "exactly one terminal callback");
    tap_ok(!k.wrong_thread, "keepalive callbacks on the base's thread");

    tap_is_int(count_key(KEY("lease/k")), 1, "key still there");
    et_result_clear(&r);
    etcd_lease_revoke(env.conn, id, et_revoke_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "lease revoked");
    tap_is_int(count_key(KEY("lease/k")), 0, "the key attached to it is gone");

    et_result_clear(&r);
    etcd_lease_revoke(env.conn, id, et_revoke_cb, &r);
    et_wait(&env, &r);
    tap_ok(r.err == GW_ENOTFOUND, "revoking it again: GW_ENOTFOUND (%s)", gw_errname(r.err));

    ka_seen_t gone = {0};
    etcd_keepalive_start(env.conn, id, 200, ka_cb, &gone);
    et_wait_count(&env, &gone.terminal, 1, 5000);
    tap_ok(gone.terminal == 1 && gone.err == GW_ENOTFOUND && gone.renewals == 0,
           "keepalive of a revoked lease ends with GW_ENOTFOUND (%s)", gw_errname(gone.err));
    et_result_clear(&r);
}

/* ---- many calls, cancellation, deadlines -------------------------------------------------- */

#define MANY 500

static void
test_many(void)
{
    static et_result_t rs[MANY];
    char key[64];
    for (int i = 0; i < MANY; i++) {
        et_result_clear(&rs[i]);
        snprintf(key, sizeof(key), "%smany/%03d", prefix, i % 50);
        if (i % 2 == 0) {
            etcd_put(env.conn, etcd_str(key), etcd_str("v"), 0, false, et_put_cb, &rs[i]);
        } else {
            etcd_range_req_t q = {.key = etcd_str(key)};
            etcd_range(env.conn, &q, et_range_cb, &rs[i]);
        }
    }
    int done = 0, ok = 0, twice = 0, wrong = 0;
    for (int tries = 0; tries < 300 && done < MANY; tries++) {
        et_run_for(&env, 100);
        done = ok = 0;
        for (int i = 0; i < MANY; i++) {
            done += rs[i].calls >= 1;
            ok += rs[i].calls == 1 && rs[i].err == 0;
        }
    }
    et_run_for(&env, 200);
    for (int i = 0; i < MANY; i++) {
        twice += rs[i].calls > 1;
        wrong += rs[i].wrong_thread;
        et_result_clear(&rs[i]);
    }
    tap_is_int(done, MANY, "500 concurrent calls all completed");
    tap_is_int(ok, MANY, "all succeeded");
    tap_is_int(twice, 0, "none called back twice");
    tap_is_int(wrong, 0, "all on the base's thread");
}

static int watch_calls, watch_err;

static void
count_watch(int err, const Etcdserverpb__WatchResponse *resp, void *ctx)
{
    (void)resp;
    (void)ctx;
    watch_calls++;
    watch_err = err;
}

static void
test_conn_free_cancels(void)
{
    int64_t id = grant(30); /* first: waiting runs the base, which would serve the new conn */
    etcd_conn_t *conn = etcd_conn_new(env.client, env.base);
    static et_result_t rs[50];
    for (int i = 0; i < 50; i++) {
        et_result_clear(&rs[i]);
        etcd_range_req_t q = {.key = etcd_str(KEY("cancel/x"))};
        etcd_range(conn, &q, et_range_cb, &rs[i]);
    }
    etcd_watch_req_t wq = {.key = etcd_str(KEY("cancel/w"))};
    etcd_watch_start(conn, &wq, count_watch, NULL);
    ka_seen_t k = {0};
    etcd_keepalive_start(conn, id, 1000, ka_cb, &k);
    etcd_conn_free(conn);
    int once = 0, canceled = 0;
    for (int i = 0; i < 50; i++) {
        once += rs[i].calls == 1;
        canceled += rs[i].err == GW_ECANCELED;
    }
    tap_is_int(once, 50, "etcd_conn_free: every outstanding call called back before it returned");
    tap_is_int(canceled, 50, "each with GW_ECANCELED");
    tap_ok(watch_calls == 1 && watch_err == GW_ECANCELED, "the watch too (%d calls, %s)",
           watch_calls, gw_errname(watch_err));
    tap_ok(k.terminal == 1 && k.err == GW_ECANCELED, "and the keepalive");
    et_run_for(&env, 300);
    once = 0;
    for (int i = 0; i < 50; i++) {
        once += rs[i].calls == 1;
        et_result_clear(&rs[i]);
    }
    tap_ok(once == 50 && watch_calls == 1 && k.terminal == 1, "and nothing fires afterwards");
}

/* A peer that accepts TCP connections and never says a word. */
static int
silent_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
        return -1;
    *port = ntohs(sa.sin_port);
    return fd;
}

static void
test_deadline(void)
{
    int port = 0, fd = silent_listener(&port);
    char servers[64], err[256];
    snprintf(servers, sizeof(servers), "http://127.0.0.1:%d", port);
    etcd_config_t cfg = {.servers = servers, .call_timeout_ms = 500};
    et_env_t mute;
    if (!tap_ok(fd >= 0 && et_open(&mute, &cfg, err, sizeof(err)) == 0, "client to a mute peer"))
        return;
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_range_req_t q = {.key = etcd_str("/k")};
    etcd_range(mute.conn, &q, et_range_cb, &r);
    bool called = et_wait_count(&mute, &r.calls, 1, 10000);
    tap_ok(called && (r.err == GW_ETIMEOUT || r.err == GW_EUNAVAILABLE),
           "a mute peer gives GW_ETIMEOUT or GW_EUNAVAILABLE, not a hang (%s)", gw_errname(r.err));
    et_result_clear(&r);
    et_close(&mute);
    close(fd);
}

int
main(void)
{
    const char *url = et_servers_or_skip();
    prefix = et_prefix("kv");
    char err[256];
    etcd_config_t cfg = {.servers = url};
    if (et_open(&env, &cfg, err, sizeof(err)) != 0) {
        tap_ok(0, "client: %s", err);
        return tap_done();
    }
    test_put_range();
    test_list_options();
    test_txn();
    test_errors();
    test_compact();
    test_status();
    test_lease();
    test_many();
    test_conn_free_cancels();
    test_deadline();
    et_close(&env);
    return tap_done();
}
