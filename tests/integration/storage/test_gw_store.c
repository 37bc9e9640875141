/*
 * The store against a real etcd: reads, writes with preconditions, list paging, and paging at
 * a pinned revision while another thread keeps writing to the same collection.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "store_harness.h"

static char prefix[64];
static etcd_client_t *client;

/* ---- get / create / update / delete ------------------------------------------------------ */

static void
test_create_get(harness_t *h)
{
    result_t a = {0}, r = {0};
    int64_t rev0 = h_rev(h);

    tap_ok(rev0 > 0, "current revision is positive (%lld)", (long long)rev0);
    tap_is_int(h_create(h, "widgets/ns1/a", "{\"v\":1}", &a), 0, "create");
    tap_is_str(a.key, "widgets/ns1/a", "create returns the relative key");
    tap_is_str(a.value, "{\"v\":1}", "create returns the value");
    tap_ok(a.mod > rev0 && a.create == a.mod, "create: mod = create revision, after the start");
    tap_ok(h_rev(h) >= a.mod, "current revision is at least the create's");

    tap_is_int(h_get(h, "widgets/ns1/a", 0, &r), 0, "get");
    tap_is_str(r.value, "{\"v\":1}", "get returns the value");
    tap_ok(r.mod == a.mod && r.create == a.mod, "get returns the revisions");

    tap_is_int(h_create(h, "widgets/ns1/a", "{\"v\":9}", &r), GW_EEXIST, "create twice: EEXIST");
    tap_ok(!r.has_obj, "no object with EEXIST");
    tap_is_int(h_get(h, "widgets/ns1/a", 0, &r), 0, "get after failed create");
    tap_is_str(r.value, "{\"v\":1}", "failed create changed nothing");

    tap_is_int(h_get(h, "widgets/ns1/missing", 0, &r), GW_ENOTFOUND, "get missing: ENOTFOUND");
    tap_is_int(h_get(h, "widgets/ns1/a", h_rev(h) + 1000, &r), GW_EFUTUREREV,
               "get at a future revision: EFUTUREREV");
    tap_is_int(gw_store_get(h->store, "", 0, result_obj_cb, &r), GW_EINVAL, "empty key: EINVAL");
    tap_is_int(gw_store_get(h->store, NULL, 0, result_obj_cb, &r), GW_EINVAL, "NULL key: EINVAL");
    result_clear(&a);
    result_clear(&r);
}

static int
h_create_guarded(harness_t *h, const char *key, const char *val, const char *guard, int64_t rev,
                 result_t *r)
{
    result_clear(r);
    return finish_(h, r,
                   gw_store_create_guarded(h->store, key, (const uint8_t *)val, strlen(val), guard,
                                           rev, result_obj_cb, r));
}

/* A create guarded by another key's mod_revision: written while the guard holds; a guard that
 * moved or is gone wins over a key that exists. */
static void
test_create_guarded(harness_t *h)
{
    result_t g = {0}, r = {0}, u = {0};

    h_create(h, "guards/g", "{}", &g);
    tap_is_int(h_create_guarded(h, "widgets/ns1/g1", "one", "guards/g", g.mod, &r), 0,
               "guarded create while the guard holds");
    tap_ok(r.has_obj && r.mod > g.mod && r.create == r.mod, "... returns the written object");
    tap_is_int(h_create_guarded(h, "widgets/ns1/g1", "two", "guards/g", g.mod, &r), GW_EEXIST,
               "guard holds, key exists: EEXIST");
    h_update(h, "guards/g", "{\"x\":1}", g.mod, &u);
    tap_is_int(h_create_guarded(h, "widgets/ns1/g2", "one", "guards/g", g.mod, &r), GW_ECONFLICT,
               "guard moved: ECONFLICT");
    tap_ok(!r.has_obj, "... without an object");
    tap_is_int(h_get(h, "widgets/ns1/g2", 0, &r), GW_ENOTFOUND, "... and nothing written");
    tap_is_int(h_create_guarded(h, "widgets/ns1/g1", "two", "guards/g", g.mod, &r), GW_ECONFLICT,
               "guard moved and key exists: ECONFLICT");
    tap_is_int(h_create_guarded(h, "widgets/ns1/g2", "one", "guards/none", g.mod, &r), GW_ECONFLICT,
               "guard missing: ECONFLICT");
    tap_is_int(h_create_guarded(h, "widgets/ns1/g2", "one", "guards/g", 0, &r), GW_EINVAL,
               "guard revision 0: EINVAL");
    tap_is_int(h_create_guarded(h, "widgets/ns1/g2", "one", "guards/g", u.mod, &r), 0,
               "the guard's new revision holds");
    result_clear(&g);
    result_clear(&u);
    result_clear(&r);
}

static void
test_update(harness_t *h)
{
    result_t a = {0}, u = {0}, r = {0};

    h_create(h, "widgets/ns1/u", "one", &a);
    tap_is_int(h_update(h, "widgets/ns1/u", "two", a.mod, &u), 0, "update at the right revision");
    tap_is_str(u.value, "two", "update returns the new value");
    tap_ok(u.mod > a.mod && u.create == a.mod, "update: new mod revision, same create revision");

    tap_is_int(h_get(h, "widgets/ns1/u", a.mod, &r), 0, "get at the old revision");
    tap_is_str(r.value, "one", "get at a revision sees the value as it was");
    tap_is_int(h_get(h, "widgets/ns1/u", 0, &r), 0, "get latest");
    tap_is_str(r.value, "two", "get latest sees the update");

    tap_is_int(h_update(h, "widgets/ns1/u", "three", a.mod, &r), GW_ECONFLICT,
               "update at a stale revision: ECONFLICT");
    tap_ok(r.has_obj && r.mod == u.mod, "the conflict returns the current object");
    tap_is_str(r.value, "two", "... with its current value");
    tap_is_int(h_update(h, "widgets/ns1/nope", "x", a.mod, &r), GW_ENOTFOUND,
               "update of a missing key: ENOTFOUND");
    tap_is_int(h_update(h, "widgets/ns1/u", "x", 0, &r), GW_EINVAL,
               "update without an expected revision: EINVAL");
    result_clear(&a);
    result_clear(&u);
    result_clear(&r);
}

static void
test_delete(harness_t *h)
{
    result_t a = {0}, u = {0}, d = {0}, r = {0};

    h_create(h, "widgets/ns1/d", "first", &a);
    h_update(h, "widgets/ns1/d", "last", a.mod, &u);
    tap_is_int(h_delete(h, "widgets/ns1/d", a.mod, &r), GW_ECONFLICT,
               "delete at a stale revision: ECONFLICT");
    tap_ok(r.has_obj && r.mod == u.mod, "the conflict returns the current object");
    tap_is_int(h_delete(h, "widgets/ns1/d", u.mod, &d), 0, "delete at the right revision");
    tap_is_str(d.value, "last", "delete returns the last value");
    tap_ok(d.mod > u.mod && d.create == a.mod, "delete returns the deletion's revision");
    tap_is_int(h_get(h, "widgets/ns1/d", 0, &r), GW_ENOTFOUND, "deleted: get ENOTFOUND");
    tap_is_int(h_get(h, "widgets/ns1/d", d.mod, &r), GW_ENOTFOUND,
               "absent at the deletion revision");
    tap_is_int(h_get(h, "widgets/ns1/d", d.mod - 1, &r), 0, "present just before it");
    tap_is_int(h_delete(h, "widgets/ns1/d", 0, &r), GW_ENOTFOUND, "delete missing: ENOTFOUND");
    tap_is_int(h_delete(h, "widgets/ns1/d", u.mod, &r), GW_ENOTFOUND,
               "delete missing with a precondition: ENOTFOUND");

    h_create(h, "widgets/ns1/d", "again", &a);
    tap_ok(a.create > d.mod, "re-create after delete gets a new create revision");
    tap_is_int(h_delete(h, "widgets/ns1/d", 0, &d), 0, "delete without a precondition");
    tap_is_str(d.value, "again", "... returns the last value");
    tap_ok(d.mod > a.mod, "... at the deletion's revision");
    result_clear(&a);
    result_clear(&u);
    result_clear(&d);
    result_clear(&r);
}

static void
test_revision_monotonic(harness_t *h)
{
    result_t r = {0};
    int64_t prev = h_rev(h);
    bool ok = prev > 0;

    for (int i = 0; i < 5; i++) {
        char key[64];
        snprintf(key, sizeof(key), "revs/r%d", i);
        h_create(h, key, "x", &r);
        int64_t now = h_rev(h);
        ok = ok && now >= r.mod && r.mod > prev;
        prev = now;
    }
    tap_ok(ok, "current revision never goes back and follows every write");
    result_clear(&r);
}

/* ---- lists -------------------------------------------------------------------------------- */

typedef struct {
    bool done;
    int err;
    size_t n;
    char **keys;
    char **values;
    int64_t *mods;
    int64_t rev;
    bool more;
    int64_t remaining;
    char *next;
} page_t;

static void
page_clear(page_t *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->keys[i]);
        free(p->values[i]);
    }
    free(p->keys);
    free(p->values);
    free(p->mods);
    free(p->next);
    memset(p, 0, sizeof(*p));
}

static void
page_cb(int err, const gw_list_page_t *pg, void *ctx)
{
    page_t *p = ctx;

    p->done = true;
    p->err = err;
    if (err != 0)
        return;
    p->n = pg->n_items;
    p->keys = gw_calloc(p->n + 1, sizeof(char *));
    p->values = gw_calloc(p->n + 1, sizeof(char *));
    p->mods = gw_calloc(p->n + 1, sizeof(int64_t));
    for (size_t i = 0; i < p->n; i++) {
        p->keys[i] = gw_strdup(pg->items[i].key);
        p->values[i] = gw_strndup((const char *)pg->items[i].value, pg->items[i].value_len);
        p->mods[i] = pg->items[i].mod_revision;
    }
    p->rev = pg->revision;
    p->more = pg->more;
    p->remaining = pg->remaining;
    p->next = pg->next_key ? gw_strdup(pg->next_key) : NULL;
}

static int
h_list(harness_t *h, const gw_list_req_t *req, page_t *p)
{
    int rc;

    page_clear(p);
    rc = gw_store_list(h->store, req, page_cb, p);
    if (rc != 0)
        return rc;
    harness_wait(h, &p->done);
    return p->err;
}

/* Page through a collection with `limit`; check counters and keys against want[0..n). */
static void
check_paging(harness_t *h, const char *coll, int64_t limit, const char *const *want, size_t n)
{
    gw_list_req_t req = {.prefix = coll, .limit = limit};
    page_t p = {0};
    size_t seen = 0;
    bool keys_ok = true, counts_ok = true, pinned = true;
    char *start = NULL;
    int64_t rev = 0;

    for (int pages = 0; pages < 100; pages++) {
        req.start_key = start;
        req.revision = rev;
        if (h_list(h, &req, &p) != 0)
            break;
        if (rev == 0)
            rev = p.rev;
        pinned = pinned && p.rev == rev;
        for (size_t i = 0; i < p.n; i++)
            keys_ok = keys_ok && seen + i < n && strcmp(p.keys[i], want[seen + i]) == 0;
        seen += p.n;
        counts_ok = counts_ok && p.remaining == (int64_t)(n - seen) && p.more == (seen < n) &&
                    (p.next != NULL) == p.more && (!p.more || strcmp(p.next, want[seen]) == 0);
        free(start);
        start = p.next ? gw_strdup(p.next) : NULL;
        if (!p.more)
            break;
    }
    tap_ok(keys_ok && seen == n, "%s limit %lld: every key once, in order (%zu of %zu)", coll,
           (long long)limit, seen, n);
    tap_ok(counts_ok, "%s limit %lld: remaining, more and next_key agree", coll, (long long)limit);
    tap_ok(pinned, "%s limit %lld: later pages report the pinned revision", coll, (long long)limit);
    free(start);
    page_clear(&p);
}

static void
test_list(harness_t *h)
{
    const char *all[16];
    char *ns1[10], *ns2[5];
    result_t r = {0};
    page_t p = {0};
    size_t n_all = 0;

    /* ns10 sorts between ns1 and ns2: a namespace prefix must not take it in. */
    for (int i = 0; i < 10; i++) {
        ns1[i] = gw_sprintf("items/ns1/o-%02d", i);
        h_create(h, ns1[i], "v", &r);
        all[n_all++] = ns1[i];
    }
    all[n_all++] = "items/ns10/o-00";
    h_create(h, "items/ns10/o-00", "v", &r);
    for (int i = 0; i < 5; i++) {
        ns2[i] = gw_sprintf("items/ns2/o-%02d", i);
        h_create(h, ns2[i], "v", &r);
        all[n_all++] = ns2[i];
    }
    check_paging(h, "items/ns1/", 3, (const char *const *)ns1, 10);
    check_paging(h, "items/ns1/", 10, (const char *const *)ns1, 10);
    check_paging(h, "items/ns1/", 1, (const char *const *)ns1, 10);
    check_paging(h, "items/ns2/", 0, (const char *const *)ns2, 5);
    check_paging(h, "items/", 4, all, n_all);
    check_paging(h, "items/", 0, all, n_all);
    check_paging(h, "items/ns3/", 2, NULL, 0);

    gw_list_req_t req = {.prefix = ""};
    bool found = false;
    tap_is_int(h_list(h, &req, &p), 0, "the empty prefix lists the whole store");
    for (size_t i = 0; i < p.n; i++)
        found = found || strcmp(p.keys[i], "items/ns10/o-00") == 0;
    tap_ok(p.n >= n_all && found, "every collection's keys, relative (%zu)", p.n);

    req = (gw_list_req_t){.prefix = "items/ns1/", .start_key = "items/ns2/o-00"};
    tap_is_int(h_list(h, &req, &p), GW_EINVAL, "start key outside the collection: EINVAL");
    req = (gw_list_req_t){.prefix = "items/ns1/", .limit = -1};
    tap_is_int(h_list(h, &req, &p), GW_EINVAL, "negative limit: EINVAL");
    req = (gw_list_req_t){.prefix = "items/ns1/", .revision = h_rev(h) + 1000};
    tap_is_int(h_list(h, &req, &p), GW_EFUTUREREV, "list at a future revision: EFUTUREREV");
    for (int i = 0; i < 10; i++)
        free(ns1[i]);
    for (int i = 0; i < 5; i++)
        free(ns2[i]);
    result_clear(&r);
    page_clear(&p);
}

/* ---- paging at a pinned revision under concurrent writes ---------------------------------- */

#define PIN_N 200
#define PIN_LIMIT 7

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int writes;
    atomic_bool stop;
} writer = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false};

static void
writer_step(harness_t *h, int i, result_t *r)
{
    char key[64];

    switch (i % 3) {
    case 0: /* a new key between two listed ones */
        snprintf(key, sizeof(key), "pin/ns/obj-%03d-new-%d", (i * 37) % PIN_N, i);
        h_create(h, key, "new", r);
        break;
    case 1: /* a listed object changes */
        snprintf(key, sizeof(key), "pin/ns/obj-%03d", (i * 13) % PIN_N);
        if (h_get(h, key, 0, r) == 0)
            h_update(h, key, "changed", r->mod, r);
        break;
    default: /* a listed object goes away */
        snprintf(key, sizeof(key), "pin/ns/obj-%03d", PIN_N - 1 - (i / 3) % PIN_N);
        h_delete(h, key, 0, r);
    }
}

static void *
writer_main(void *arg)
{
    harness_t h;
    result_t r = {0};

    (void)arg;
    harness_open(&h, client, prefix);
    for (int i = 0; !atomic_load(&writer.stop); i++) {
        writer_step(&h, i, &r);
        pthread_mutex_lock(&writer.lock);
        writer.writes++;
        pthread_cond_broadcast(&writer.cond);
        pthread_mutex_unlock(&writer.lock);
    }
    result_clear(&r);
    harness_close(&h);
    return NULL;
}

static void
wait_writes(int n)
{
    pthread_mutex_lock(&writer.lock);
    while (writer.writes < n)
        pthread_cond_wait(&writer.cond, &writer.lock);
    pthread_mutex_unlock(&writer.lock);
}

/* Check one page of the pinned walk against the objects as created; returns items seen. */
static size_t
check_pinned_page(const page_t *p, size_t seen, int64_t rev, bool *ok)
{
    for (size_t i = 0; i < p->n; i++) {
        char key[64], val[16];
        snprintf(key, sizeof(key), "pin/ns/obj-%03zu", seen + i);
        snprintf(val, sizeof(val), "v0-%03zu", seen + i);
        *ok = *ok && seen + i < PIN_N && strcmp(p->keys[i], key) == 0 &&
              strcmp(p->values[i], val) == 0 && p->mods[i] <= rev;
    }
    seen += p->n;
    *ok = *ok && p->remaining == (int64_t)(PIN_N - seen) && p->more == (seen < PIN_N);
    return seen;
}

static void
test_pinned_paging(harness_t *h)
{
    gw_list_req_t req = {.prefix = "pin/ns/", .limit = PIN_LIMIT};
    pthread_t tid;
    result_t r = {0};
    page_t p = {0};
    size_t seen = 0;
    bool ok = true;
    char *start = NULL;
    int pages = 0;

    for (int i = 0; i < PIN_N; i++) {
        char key[64], val[16];
        snprintf(key, sizeof(key), "pin/ns/obj-%03d", i);
        snprintf(val, sizeof(val), "v0-%03d", i);
        h_create(h, key, val, &r);
    }
    tap_is_int(h_list(h, &req, &p), 0, "pinned walk: first page");
    req.revision = p.rev;
    seen = check_pinned_page(&p, 0, req.revision, &ok);
    pthread_create(&tid, NULL, writer_main, NULL);
    while (ok && p.more && pages++ < 100) {
        /* Let the writer get ahead before each page, so every page races with writes. */
        wait_writes(3 * pages);
        free(start);
        start = gw_strdup(p.next);
        req.start_key = start;
        if (h_list(h, &req, &p) != 0)
            ok = false;
        else
            seen = check_pinned_page(&p, seen, req.revision, &ok);
    }
    atomic_store(&writer.stop, true);
    pthread_join(tid, NULL);
    tap_ok(ok && seen == PIN_N, "pinned walk: exactly the %d objects as of revision %lld", PIN_N,
           (long long)req.revision);
    tap_ok(writer.writes >= 3 * pages, "the collection changed during the walk (%d writes)",
           writer.writes);
    tap_is_int(h_get(h, "pin/ns/obj-199", 0, &r), GW_ENOTFOUND, "a listed object is gone by now");
    tap_is_int(h_get(h, "pin/ns/obj-013", 0, &r), 0, "a listed object...");
    tap_is_str(r.value, "changed", "... has changed by now");
    free(start);
    result_clear(&r);
    page_clear(&p);
}

int
main(void)
{
    harness_t h;

    client = harness_client();
    snprintf(prefix, sizeof(prefix), "/registry-test-%d", (int)getpid());
    harness_open(&h, client, prefix);
    test_create_get(&h);
    test_create_guarded(&h);
    test_update(&h);
    test_delete(&h);
    test_revision_monotonic(&h);
    test_list(&h);
    test_pinned_paging(&h);
    harness_close(&h);
    etcd_client_free(client);
    return tap_done();
}
