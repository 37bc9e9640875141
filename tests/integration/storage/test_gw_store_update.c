/*
 * Guaranteed update against a real etcd: many concurrent increments from
 * several threads end at exactly their number; abort, no-op commit, absent key,
 * lease and max_attempts paths.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "store_harness.h"

#define THREADS 4
#define PER_THREAD 50
#define TOTAL (THREADS * PER_THREAD)

static char prefix[64];
static etcd_client_t *client;

/* ---- concurrent increments
 * ---------------------------------------------------------------- */

static pthread_barrier_t start_line;
static atomic_int mutate_calls;
static atomic_int failures;
static atomic_int seen_values[TOTAL + 1]; /* how often each counter value was written */

typedef struct {
    harness_t h;
    int done;
    bool all_done;
} worker_t;

/* The decimal number in an object's value (values are not NUL-terminated). */
static long
number(const gw_obj_t *obj)
{
    char *s = obj ? gw_strndup((const char *)obj->value, obj->value_len) : NULL;
    long n = s ? strtol(s, NULL, 10) : 0;

    free(s);
    return n;
}

static void
incr(gw_store_update_t *u, const gw_obj_t *cur, void *ctx)
{
    char *next = gw_sprintf("%ld", number(cur) + 1);

    (void)ctx;
    atomic_fetch_add(&mutate_calls, 1);
    gw_store_update_commit(u, (uint8_t *)next, strlen(next));
}

static void
incr_done(int err, const gw_obj_t *obj, void *ctx)
{
    worker_t *w = ctx;
    long v = number(obj);

    if (err != 0 || v < 1 || v > TOTAL)
        atomic_fetch_add(&failures, 1);
    else
        atomic_fetch_add(&seen_values[v], 1);
    w->all_done = ++w->done == PER_THREAD;
}

static void *
worker_main(void *arg)
{
    worker_t *w = arg;

    harness_open(&w->h, client, prefix);
    pthread_barrier_wait(&start_line);
    for (int i = 0; i < PER_THREAD; i++) {
        if (gw_store_guaranteed_update(w->h.store, "gu/counter", 0, incr, incr_done, w) != 0)
            atomic_fetch_add(&failures, 1);
    }
    harness_wait(&w->h, &w->all_done);
    harness_close(&w->h);
    return NULL;
}

static void
test_concurrent(harness_t *h)
{
    pthread_t tids[THREADS];
    worker_t workers[THREADS] = {0};
    result_t r = {0};
    bool each_once = true;

    pthread_barrier_init(&start_line, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&tids[i], NULL, worker_main, &workers[i]);
    for (int i = 0; i < THREADS; i++)
        pthread_join(tids[i], NULL);
    pthread_barrier_destroy(&start_line);
    tap_is_int(atomic_load(&failures), 0, "every increment succeeded");
    tap_is_int(h_get(h, "gu/counter", 0, &r), 0, "read the counter");
    tap_is_str(r.value, "200", "200 concurrent increments from 4 threads give exactly 200");
    for (int v = 1; v <= TOTAL; v++)
        each_once = each_once && atomic_load(&seen_values[v]) == 1;
    tap_ok(each_once, "each value 1..200 was the result of exactly one update");
    tap_ok(atomic_load(&mutate_calls) >= TOTAL, "mutate ran once per attempt (%d attempts)",
           atomic_load(&mutate_calls));
    result_clear(&r);
}

/* ---- single-update paths
 * ------------------------------------------------------------------ */

typedef struct {
    harness_t *h;
    int calls;
    bool saw_null;
    int64_t seen_mod;
    char *seen_value;
    int conflicts_to_make; /* mutate writes behind our back this many times first
                            */
    int abort_with;
    bool same_bytes;
    result_t *res; /* the done callback's outcome */
} mutator_t;

static void
note_current(mutator_t *m, const gw_obj_t *cur)
{
    m->calls++;
    m->saw_null = cur == NULL;
    m->seen_mod = cur ? cur->mod_revision : 0;
    free(m->seen_value);
    m->seen_value = cur ? gw_strndup((const char *)cur->value, cur->value_len) : NULL;
}

typedef struct {
    gw_store_update_t *u;
    mutator_t *m;
} pending_t;

/* The conflicting write has landed: now commit, which must fail its
 * precondition. */
static void
commit_after_conflict(int err, const gw_obj_t *obj, void *ctx)
{
    pending_t *p = ctx;
    char *v = gw_sprintf("attempt-%d", p->m->calls);

    (void)obj;
    if (err != 0)
        tap_diag("conflicting write failed: %s", gw_errname(err));
    gw_store_update_commit(p->u, (uint8_t *)v, strlen(v));
    free(p);
}

static void
mutate(gw_store_update_t *u, const gw_obj_t *cur, void *ctx)
{
    mutator_t *m = ctx;

    note_current(m, cur);
    if (m->abort_with != 0) {
        gw_store_update_abort(u, m->abort_with);
    } else if (m->same_bytes) {
        gw_store_update_commit(u, gw_memdup(cur->value, cur->value_len), cur->value_len);
    } else if (m->conflicts_to_make > 0) {
        /* Asynchronous mutate: someone else writes first, then we commit. */
        pending_t *p = gw_malloc(sizeof(*p));
        char *other = gw_sprintf("theirs-%d", m->conflicts_to_make--);
        *p = (pending_t){.u = u, .m = m};
        gw_store_update(m->h->store, cur->key, (const uint8_t *)other, strlen(other),
                        cur->mod_revision, commit_after_conflict, p);
        free(other);
    } else {
        char *v = gw_sprintf("mine-%d", m->calls);
        gw_store_update_commit(u, (uint8_t *)v, strlen(v));
    }
}

static void
mutator_done(int err, const gw_obj_t *obj, void *ctx)
{
    mutator_t *m = ctx;

    result_set(m->res, err, obj);
}

/* One ctx serves mutate and done alike: the mutator, which points at the
 * result. */
static int
h_guaranteed(harness_t *h, const char *key, int max_attempts, mutator_t *m, result_t *r)
{
    result_clear(r);
    m->h = h;
    m->calls = 0;
    m->res = r;
    int rc = gw_store_guaranteed_update(h->store, key, max_attempts, mutate, mutator_done, m);
    if (rc != 0)
        return rc;
    harness_wait(h, &r->done);
    return r->err;
}

static void
test_paths(harness_t *h)
{
    mutator_t m = {0};
    result_t r = {0}, before = {0}, after = {0};

    tap_is_int(h_guaranteed(h, "gu/fresh", 0, &m, &r), 0, "guaranteed update of an absent key");
    tap_ok(m.calls == 1 && m.saw_null, "mutate saw no current object");
    tap_ok(r.create == r.mod && r.mod > 0, "it was created");
    tap_is_str(r.value, "mine-1", "with the committed value");

    h_get(h, "gu/counter", 0, &before);
    m = (mutator_t){.abort_with = GW_EINVAL};
    tap_is_int(h_guaranteed(h, "gu/counter", 0, &m, &r), GW_EINVAL, "abort: done gets its code");
    tap_ok(!r.has_obj && m.calls == 1, "abort: no object, one attempt");
    free(m.seen_value);
    m = (mutator_t){.same_bytes = true};
    tap_is_int(h_guaranteed(h, "gu/counter", 0, &m, &r), 0, "no-op commit succeeds");
    tap_ok(r.mod == before.mod && strcmp(r.value, before.value) == 0,
           "no-op commit returns the current object");
    h_get(h, "gu/counter", 0, &after);
    tap_ok(after.mod == before.mod, "abort and no-op commit wrote nothing (mod revision %lld)",
           (long long)after.mod);

    free(m.seen_value);
    m = (mutator_t){.conflicts_to_make = 2};
    tap_is_int(h_guaranteed(h, "gu/fresh", 0, &m, &r), 0, "two conflicts, then success");
    tap_is_int(m.calls, 3, "mutate ran three times");
    tap_is_str(m.seen_value, "theirs-1", "the retry saw the value the failed txn read back");
    tap_is_str(r.value, "mine-3", "the third commit was written");

    free(m.seen_value);
    m = (mutator_t){.conflicts_to_make = 5};
    tap_is_int(h_guaranteed(h, "gu/fresh", 3, &m, &r), GW_ECONFLICT,
               "max_attempts 3 with endless conflicts: ECONFLICT");
    tap_is_int(m.calls, 3, "... after exactly three attempts");
    tap_ok(r.has_obj && r.value && strcmp(r.value, "theirs-3") == 0,
           "... returning the current object");

    tap_is_int(gw_store_guaranteed_update(h->store, "", 0, mutate, mutator_done, &m), GW_EINVAL,
               "empty key: EINVAL");
    tap_is_int(gw_store_guaranteed_update(h->store, "x", -1, mutate, mutator_done, &m), GW_EINVAL,
               "negative max_attempts: EINVAL");
    free(m.seen_value);
    result_clear(&r);
    result_clear(&before);
    result_clear(&after);
}

/* ---- leases
 * -------------------------------------------------------------------------------
 */

static void
lease_cb(int err, const Etcdserverpb__LeaseGrantResponse *resp, void *ctx)
{
    result_t *r = ctx;

    result_set(r, err, NULL);
    r->lease = err == 0 ? resp->id : 0;
}

static void
revoke_cb(int err, const Etcdserverpb__LeaseRevokeResponse *resp, void *ctx)
{
    (void)resp;
    result_set(ctx, err, NULL);
}

static void
test_lease(harness_t *h)
{
    result_t l = {0}, r = {0};
    mutator_t m = {0};
    int64_t lease;

    etcd_lease_grant(h->conn, 60, 0, lease_cb, &l);
    harness_wait(h, &l.done);
    lease = l.lease;
    tap_ok(l.err == 0 && lease != 0, "granted a lease");
    gw_store_create(h->store, "gu/leased", (const uint8_t *)"a", 1, lease, result_obj_cb, &r);
    harness_wait(h, &r.done);
    tap_ok(r.err == 0 && r.lease == lease, "create under a lease reports it");
    tap_is_int(h_guaranteed(h, "gu/leased", 0, &m, &r), 0, "guaranteed update of a leased key");
    tap_ok(r.lease == lease, "the result keeps the lease");
    h_get(h, "gu/leased", 0, &r);
    tap_ok(r.lease == lease, "the stored key keeps the lease");
    result_clear(&l);
    etcd_lease_revoke(h->conn, lease, revoke_cb, &l);
    harness_wait(h, &l.done);
    tap_is_int(h_get(h, "gu/leased", 0, &r), GW_ENOTFOUND, "revoking the lease removed the key");
    free(m.seen_value);
    result_clear(&l);
    result_clear(&r);
}

int
main(void)
{
    harness_t h;

    client = harness_client();
    snprintf(prefix, sizeof(prefix), "/registry-test-%d", (int)getpid());
    harness_open(&h, client, prefix);
    test_concurrent(&h);
    test_paths(&h);
    test_lease(&h);
    harness_close(&h);
    etcd_client_free(client);
    return tap_done();
}
