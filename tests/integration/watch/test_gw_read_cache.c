/*
 * The read caches against a real etcd, through a store with the hooks: the first read of a
 * collection goes to etcd and builds its cache; then gets and list pages come from memory with
 * the same answers etcd gives (compared page by page with reads that bypass the cache), a
 * latest read sees every write made before it (from etcd while writes elsewhere have moved the
 * revision past the cache's), a relaxed read is answered at once, a page
 * pinned to a revision the cache no longer holds goes to etcd, and a collection over its limit
 * is read from etcd. It runs on the shared etcd, under a prefix of its own.
 */
#include "../storage/store_harness.h"

#include "gw_watch.h"

static harness_t h;
static gw_watch_t *svc;
static gw_watch_local_t *local;

typedef struct {
    bool done;
    int err;
    int64_t mod, revision;
    char value[64];
} got_t;

static void
got_cb(int err, const gw_obj_t *obj, void *ctx)
{
    got_t *g = ctx;

    g->done = true;
    g->err = err;
    if (obj != NULL) {
        g->mod = obj->mod_revision;
        g->revision = obj->revision;
        snprintf(g->value, sizeof(g->value), "%.*s", (int)obj->value_len, (const char *)obj->value);
    }
}

/* A read through the hooks: latest, or relaxed with min_rev. */
static got_t
read_key(const char *coll, const char *key, bool relaxed, int64_t min_rev)
{
    got_t g = {0};
    gw_read_opts_t o = {.collection = coll, .relaxed = relaxed, .min_revision = min_rev};

    if (gw_store_read(h.store, key, &o, got_cb, &g) != 0)
        return (got_t){.done = true, .err = GW_EINVAL};
    harness_wait(&h, &g.done);
    return g;
}

/* A page as text: "rev|more|remaining|next|key=mod,..." */
typedef struct {
    bool done;
    int err;
    char text[2048];
} page_t;

static void
page_cb(int err, const gw_list_page_t *p, void *ctx)
{
    page_t *pg = ctx;
    size_t n;

    pg->done = true;
    pg->err = err;
    if (p == NULL)
        return;
    n = (size_t)snprintf(pg->text, sizeof(pg->text), "%lld|%d|%lld|%s|", (long long)p->revision,
                         p->more, (long long)p->remaining, p->next_key ? p->next_key : "-");
    for (size_t i = 0; i < p->n_items && n < sizeof(pg->text); i++)
        n += (size_t)snprintf(pg->text + n, sizeof(pg->text) - n, "%s=%lld,", p->items[i].key,
                              (long long)p->items[i].mod_revision);
}

static page_t
list(const char *coll, const char *prefix, const char *start, int64_t rev, int64_t limit)
{
    page_t pg = {0};
    gw_list_req_t q = {
        .prefix = prefix, .start_key = start, .revision = rev, .limit = limit, .collection = coll};

    if (gw_store_list(h.store, &q, page_cb, &pg) != 0)
        return (page_t){.done = true, .err = GW_EINVAL};
    harness_wait(&h, &pg.done);
    return pg;
}

static int64_t
put(const char *key, const char *value)
{
    result_t r = {0};
    int64_t rev;

    if (h_get(&h, key, 0, &r) == 0)
        h_update(&h, key, value, r.mod, &r);
    else
        h_create(&h, key, value, &r);
    rev = r.err == 0 ? r.mod : -1;
    result_clear(&r);
    return rev;
}

static gw_watch_stats_t
stats(void)
{
    gw_watch_stats_t st = {0};

    gw_watch_stats(svc, &st);
    return st;
}

/* Run the loop until the cache of coll has reached rev (a relaxed read at least that new is
 * answered by the cache), or 15 s. */
static bool
caught_up(const char *coll, const char *key, int64_t rev)
{
    for (int i = 0; i < 1500; i++) {
        long before = stats().cache_reads;
        read_key(coll, key, true, rev);
        if (stats().cache_reads > before)
            return true;
        harness_run_for(&h, 10);
    }
    return false;
}

/* Run the loop until the configmaps cache is built (or 15 s). */
static bool
cache_built(long want)
{
    for (int i = 0; i < 1500 && stats().caches < want; i++)
        harness_run_for(&h, 10);
    return stats().caches >= want;
}

static void
test_build_and_get(void)
{
    int64_t r1 = put("configmaps/a/one", "{\"v\":1}");
    got_t g;

    put("configmaps/b/two", "{\"v\":2}");
    g = read_key("configmaps/", "configmaps/a/one", false, 0);
    tap_ok(g.err == 0 && g.mod == r1, "the first read is answered (by etcd: no cache yet)");
    tap_ok(cache_built(1), "... and builds the collection's cache");
    tap_is_int(stats().cache_objects, 2, "the cache holds the collection's objects");
    int64_t r2 = put("configmaps/a/one", "{\"v\":3}");
    tap_ok(caught_up("configmaps/", "configmaps/a/one", r2), "the write reaches the cache");
    long before = stats().cache_reads;
    g = read_key("configmaps/", "configmaps/a/one", false, 0);
    tap_ok(g.err == 0 && g.mod == r2 && strcmp(g.value, "{\"v\":3}") == 0,
           "a latest read sees the write made just before it");
    tap_ok(g.revision >= r2, "... at a revision not older than that write");
    tap_is_int(stats().cache_reads, before + 1, "... answered by the cache");
    g = read_key("configmaps/", "configmaps/a/absent", false, 0);
    tap_is_int(g.err, GW_ENOTFOUND, "a missing key is not found");
}

static void
test_elsewhere(void)
{
    int64_t other = put("secrets/a/s", "{\"s\":1}");
    long before = stats().cache_etcd;
    got_t g = read_key("configmaps/", "configmaps/b/two", false, 0);

    tap_ok(g.err == 0 && g.revision >= other,
           "after a write elsewhere moved etcd's revision past the cache's, a latest read sees "
           "that revision");
    tap_is_int(stats().cache_etcd, before + 1, "... read from etcd (the cache is behind it)");
    int64_t mine = put("configmaps/b/two", "{\"v\":4}");
    caught_up("configmaps/", "configmaps/b/two", mine);
    before = stats().cache_reads;
    g = read_key("configmaps/", "configmaps/b/two", false, 0);
    tap_ok(g.err == 0 && g.mod == mine && stats().cache_reads == before + 1,
           "once the collection's own write reached the cache, the cache answers again");
    g = read_key("configmaps/", "configmaps/b/two", true, 0);
    tap_ok(g.err == 0 && g.revision > 0, "a relaxed read is answered");
    g = read_key("configmaps/", "configmaps/b/two", true, other + 1000);
    tap_ok(g.err == 0, "a relaxed read newer than the cache goes to etcd");
}

static void
test_pages(void)
{
    char key[64];
    page_t c, e;
    int64_t rev;

    for (int i = 0; i < 7; i++) {
        snprintf(key, sizeof(key), "configmaps/p/o%d", i);
        put(key, "{}");
    }
    c = list("configmaps/", "configmaps/p/", NULL, 0, 3);
    rev = strtoll(c.text, NULL, 10);
    e = list(NULL, "configmaps/p/", NULL, rev, 3);
    tap_ok(c.err == 0 && strcmp(c.text, e.text) == 0, "a first page equals etcd's at its revision");
    if (strcmp(c.text, e.text) != 0)
        tap_diag("cache %s\netcd  %s", c.text, e.text);
    c = list("configmaps/", "configmaps/p/", "configmaps/p/o3", rev, 3);
    e = list(NULL, "configmaps/p/", "configmaps/p/o3", rev, 3);
    tap_ok(c.err == 0 && strcmp(c.text, e.text) == 0, "... and so does the next, pinned to it");
    c = list("configmaps/", "configmaps/", NULL, 0, 0);
    e = list(NULL, "configmaps/", NULL, strtoll(c.text, NULL, 10), 0);
    tap_ok(c.err == 0 && strcmp(c.text, e.text) == 0, "an unlimited list of every namespace too");
    int64_t changed = put("configmaps/p/o1", "{\"changed\":true}");
    caught_up("configmaps/", "configmaps/p/o1", changed);
    long before = stats().cache_etcd;
    c = list("configmaps/", "configmaps/p/", "configmaps/p/o3", rev, 3);
    tap_ok(c.err == 0 && strcmp(c.text, e.text) != 0 && stats().cache_etcd == before + 1,
           "a page pinned to a revision the cache no longer holds is read from etcd");
    e = list(NULL, "configmaps/p/", "configmaps/p/o3", rev, 3);
    tap_ok(strcmp(c.text, e.text) == 0, "... with etcd's answer");
}

static void
test_limit(void)
{
    got_t g;
    long before;

    put("leases/a/1", "{}");
    put("leases/a/2", "{}");
    put("leases/a/3", "{}");
    read_key("leases/", "leases/a/1", false, 0);
    harness_run_for(&h, 300);
    before = stats().cache_etcd;
    g = read_key("leases/", "leases/a/2", false, 0);
    tap_ok(g.err == 0 && stats().cache_etcd > before,
           "a collection over its --watch-cache-sizes limit is read from etcd");
    g = read_key("secrets/", "secrets/a/s", false, 0);
    tap_ok(g.err == 0, "a collection whose limit is 0 has no cache and is read from etcd");
    tap_is_int(stats().caches, 1, "... neither is kept");
}

int
main(void)
{
    etcd_client_t *c = harness_client();
    char *prefix = gw_sprintf("/kgate-readcache-%d", (int)getpid());
    gw_cache_limit_t limits[] = {{"leases/", 2}, {"secrets/", 0}};

    harness_open(&h, c, prefix);
    svc = gw_watch_new(&(gw_watch_config_t){.etcd = c,
                                            .etcd_prefix = prefix,
                                            .workers = 1,
                                            .read_cache = true,
                                            .cache_limits = limits,
                                            .n_cache_limits = 2});
    local = gw_watch_local_new(svc, 0, h.base, h.store);
    gw_store_set_read_cache(h.store, gw_watch_local_read_cache(local), local);
    test_build_and_get();
    test_elsewhere();
    test_pages();
    test_limit();
    etcd_conn_free(h.conn);
    gw_watch_local_free(local);
    gw_watch_free(svc);
    gw_store_free(h.store);
    event_base_free(h.base);
    etcd_client_free(c);
    free(prefix);
    return tap_done();
}
