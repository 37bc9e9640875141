/*
 * The shared watches against a real etcd (an etcd of its own: the test compacts it): fan-out of
 * one etcd watch to watchers on two workers, replay from the hub's window, a start older than
 * the window caught up from etcd and handed over to the hub without a gap or a repeat, key
 * prefixes, bookmarks from progress notifications, a compacted start, and the hub going away
 * after its last watcher.
 */
#include "../storage/store_harness.h"

#include "gw_registry_int.h"
#include "gw_watch.h"

#define MAX_EVENTS 64
#define WAIT_MS 15000

static const char *const fields[] = {"metadata.name", "spec.absent", "metadata.namespace", NULL};

typedef struct {
    gw_watcher_t *w;
    int n;
    int64_t revs[MAX_EVENTS];
    gw_watch_type_t types[MAX_EVENTS];
    char keys[MAX_EVENTS][64];
    char names[MAX_EVENTS][32];
    int64_t progress;
    bool ended;
    int err;
    int64_t end_rev;
} rec_t;

static harness_t h;
static gw_watch_t *svc;
static gw_watch_local_t *locals[2];

static void
on_note(const gw_watcher_note_t *n, void *ctx)
{
    rec_t *r = ctx;

    if (n->kind == GW_WATCHER_PROGRESS) {
        r->progress = n->rev;
    } else if (n->kind == GW_WATCHER_END) {
        r->ended = true;
        r->err = n->err;
        r->end_rev = n->rev;
        r->w = NULL;
    } else if (r->n < MAX_EVENTS) {
        r->revs[r->n] = n->ev->rev;
        r->types[r->n] = n->ev->type;
        snprintf(r->keys[r->n], sizeof(r->keys[0]), "%s", n->ev->key);
        snprintf(r->names[r->n], sizeof(r->names[0]), "%s",
                 n->ev->cur.values ? n->ev->cur.values[0] : n->ev->old.values[0]);
        r->n++;
    }
}

static void
start(rec_t *r, int local, int64_t after, const char *key_prefix)
{
    gw_watcher_req_t q = {.collection = "configmaps/",
                          .key_prefix = key_prefix,
                          .after_rev = after,
                          .fields = fields,
                          .encode = gw_registry__with_rv};

    memset(r, 0, sizeof(*r));
    r->w = gw_watcher_start(locals[local], &q, on_note, r);
}

static void
stop(rec_t *r)
{
    if (r->w != NULL)
        gw_watcher_stop(r->w);
    r->w = NULL;
}

typedef bool (*pred_fn)(void *arg);

/* Run the loop until pred holds or WAIT_MS pass; returns pred's last answer. */
static bool
wait_for(pred_fn pred, void *arg)
{
    for (int i = 0; i < WAIT_MS / 10 && !pred(arg); i++)
        harness_run_for(&h, 10);
    return pred(arg);
}

typedef struct {
    rec_t *recs;
    int n_recs;
    int events;
} want_t;

static bool
have_events(void *arg)
{
    want_t *w = arg;

    for (int i = 0; i < w->n_recs; i++) {
        if (w->recs[i].n < w->events && !w->recs[i].ended)
            return false;
    }
    return true;
}

static bool
events_are(rec_t *r, int n, int64_t *revs)
{
    want_t w = {r, 1, n};

    wait_for(have_events, &w);
    if (r->n != n) {
        tap_diag("got %d events, want %d", r->n, n);
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (r->revs[i] != revs[i]) {
            tap_diag("event %d at %lld, want %lld", i, (long long)r->revs[i], (long long)revs[i]);
            return false;
        }
    }
    return true;
}

static long
stat_of(int which)
{
    gw_watch_stats_t st;

    gw_watch_stats(svc, &st);
    return which == 0   ? st.hubs
           : which == 1 ? st.catchups
           : which == 2 ? st.watchers
                        : st.catchups_total;
}

typedef struct {
    int which;
    long want;
} stat_want_t;

static bool
stat_is(void *arg)
{
    stat_want_t *s = arg;

    return stat_of(s->which) == s->want;
}

static bool
wait_stat(int which, long want)
{
    stat_want_t s = {which, want};

    return wait_for(stat_is, &s);
}

static char *
cm(const char *ns, const char *name, const char *value)
{
    return gw_sprintf("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
                      "\"namespace\":\"%s\"},\"data\":{\"k\":\"%s\"}}",
                      name, ns, value);
}

/* Write configmaps/<ns>/<name> (create or update); returns the revision. */
static int64_t
put(const char *ns, const char *name, const char *value)
{
    result_t r = {0};
    char *key = gw_sprintf("configmaps/%s/%s", ns, name), *val = cm(ns, name, value);
    int64_t rev;

    if (h_get(&h, key, 0, &r) == 0)
        h_update(&h, key, val, r.mod, &r);
    else
        h_create(&h, key, val, &r);
    rev = r.err == 0 ? r.mod : -1;
    result_clear(&r);
    free(key);
    free(val);
    return rev;
}

static int64_t
del(const char *ns, const char *name)
{
    result_t r = {0};
    char *key = gw_sprintf("configmaps/%s/%s", ns, name);
    int64_t rev = h_delete(&h, key, 0, &r) == 0 ? r.mod : -1;

    result_clear(&r);
    free(key);
    return rev;
}

static int64_t revs[16];
static int n_revs;

static void
test_fan_out(void)
{
    rec_t r[6];
    int64_t from = h_rev(&h);
    want_t all = {r, 6, 3};

    for (int i = 0; i < 6; i++)
        start(&r[i], i % 2, from, NULL);
    revs[n_revs++] = put("ns1", "a", "1");
    revs[n_revs++] = put("ns1", "a", "2");
    revs[n_revs++] = del("ns1", "a");
    wait_for(have_events, &all);
    bool same = true;
    for (int i = 0; i < 6; i++) {
        same = same && r[i].n == 3 && r[i].revs[0] == revs[0] && r[i].revs[1] == revs[1] &&
               r[i].revs[2] == revs[2];
    }
    tap_ok(same, "six watchers on two workers each get the three changes, in order");
    tap_ok(r[0].types[0] == GW_WATCH_ADDED && r[0].types[1] == GW_WATCH_MODIFIED &&
               r[0].types[2] == GW_WATCH_DELETED,
           "ADDED, MODIFIED, DELETED");
    tap_ok(strcmp(r[0].names[2], "a") == 0, "the deletion carries the last state");
    tap_is_int(stat_of(0), 1, "one etcd watch serves them all");
    tap_is_int(stat_of(1), 0, "no catch-up watch");
    for (int i = 0; i < 6; i++)
        stop(&r[i]);
}

static void
test_window(void)
{
    rec_t r;

    /* Five changes in all, the window keeps four: the first one has left it. */
    revs[n_revs++] = put("ns1", "b", "1");
    revs[n_revs++] = put("ns2", "c", "1");
    start(&r, 1, revs[1], NULL);
    tap_ok(events_are(&r, 3, &revs[2]), "a start inside the window is replayed from it");
    tap_is_int(stat_of(1), 0, "... without reading etcd again");
    stop(&r);
}

static void
test_catch_up(void)
{
    rec_t r, ns2;

    start(&r, 0, revs[0] - 1, NULL);
    start(&ns2, 1, revs[0] - 1, "configmaps/ns2/");
    tap_ok(events_are(&r, 5, revs), "a start older than the window catches up from etcd");
    tap_ok(events_are(&ns2, 1, &revs[4]), "a key prefix keeps only its namespace's events");
    tap_is_int(stat_of(3), 2, "... on watches of their own");
    revs[n_revs++] = put("ns2", "c", "2");
    tap_ok(events_are(&r, 6, revs), "the next change arrives once");
    tap_ok(wait_stat(1, 0), "and the catch-up watches handed over to the hub");
    revs[n_revs++] = put("ns1", "b", "2");
    tap_ok(events_are(&r, 7, revs), "later changes come from the hub, none missed or repeated");
    tap_ok(ns2.n == 2 && ns2.revs[1] == revs[5], "the namespace watcher saw its own");
    stop(&r);
    stop(&ns2);
}

static bool
progressed(void *arg)
{
    rec_t *r = arg;
    return r->progress > revs[n_revs - 1];
}

static void
test_progress(void)
{
    rec_t r;
    result_t res = {0};

    start(&r, 0, revs[n_revs - 1], NULL);
    h_create(&h, "secrets/ns1/elsewhere", "{}", &res);
    result_clear(&res);
    tap_ok(wait_for(progressed, &r), "a quiet collection is bookmarked past its last change");
    tap_ok(r.n == 0, "with no event");
    stop(&r);
}

static void
test_linger(void)
{
    tap_ok(wait_stat(2, 0), "stopped watchers are freed");
    tap_ok(wait_stat(0, 0), "the hub stops after its linger once nobody watches");
}

static bool
ended(void *arg)
{
    return ((rec_t *)arg)->ended;
}

static void
compact_cb(int err, const Etcdserverpb__CompactionResponse *resp, void *ctx)
{
    (void)resp;
    result_set(ctx, err, NULL);
}

static void
test_compacted(void)
{
    rec_t r, recent;
    result_t res = {0};
    int64_t now = put("ns3", "d", "1");

    etcd_compact(h.conn, now, true, compact_cb, &res);
    harness_wait(&h, &res.done);
    tap_is_int(res.err, 0, "etcd compacted");
    result_clear(&res);
    /* Both subscribe at once: the hub starts from the older start, which etcd refuses. */
    start(&r, 0, revs[0], NULL);
    start(&recent, 1, now, NULL);
    tap_ok(wait_for(ended, &r) && r.err == GW_ECOMPACTED && r.end_rev == now,
           "a start etcd compacted away ends with GW_ECOMPACTED and the compacted revision");
    int64_t later = put("ns3", "d", "2");
    tap_ok(events_are(&recent, 1, &later), "a recent start on the same hub goes on");
    stop(&recent);
}

int
main(void)
{
    etcd_client_t *c = harness_client();
    char *prefix = gw_sprintf("/kgate-watch-%d", (int)getpid());

    harness_open(&h, c, prefix);
    svc = gw_watch_new(&(gw_watch_config_t){.etcd = c,
                                            .etcd_prefix = prefix,
                                            .workers = 2,
                                            .window_events = 4,
                                            .linger_ms = 200,
                                            .progress_ms = 150});
    locals[0] = gw_watch_local_new(svc, 0, h.base, h.store);
    locals[1] = gw_watch_local_new(svc, 1, h.base, h.store);
    test_fan_out();
    test_window();
    test_catch_up();
    test_progress();
    test_linger();
    test_compacted();
    etcd_conn_free(h.conn);
    gw_watch_local_free(locals[0]);
    gw_watch_local_free(locals[1]);
    gw_watch_free(svc);
    gw_store_free(h.store);
    event_base_free(h.base);
    etcd_client_free(c);
    free(prefix);
    return tap_done();
}
