/*
 * Watches against a real etcd: event types and order, previous values, deletions carrying the
 * last value at the deletion's revision, replay from a past revision, progress, and stop.
 */
#include "store_harness.h"

#define MAX_EVENTS 32

typedef struct {
    gw_watch_type_t type;
    int64_t revision;
    result_t obj; /* has_obj false when the event had none */
    result_t prev;
} event_copy_t;

typedef struct {
    harness_t *h;
    gw_store_watch_t *w;
    event_copy_t ev[MAX_EVENTS];
    int n;        /* object events */
    int progress; /* progress events */
    int64_t progress_rev;
    int terminal; /* terminal callbacks */
    int terminal_err;
    bool ended;
    bool stop_on_first;
} watcher_t;

static void
on_event(int err, const gw_watch_event_t *ev, void *ctx)
{
    watcher_t *wt = ctx;

    if (err != 0) {
        wt->terminal++;
        wt->terminal_err = err;
        wt->ended = true;
        return;
    }
    if (ev->type == GW_WATCH_PROGRESS) {
        wt->progress++;
        wt->progress_rev = ev->revision;
        return;
    }
    if (wt->n == MAX_EVENTS)
        return;
    event_copy_t *c = &wt->ev[wt->n++];
    c->type = ev->type;
    c->revision = ev->revision;
    result_set(&c->obj, 0, ev->obj);
    result_set(&c->prev, 0, ev->prev);
    if (wt->stop_on_first)
        gw_store_watch_stop(wt->w);
}

static void
watcher_start(watcher_t *wt, harness_t *h, const gw_watch_req_t *req)
{
    memset(wt, 0, sizeof(*wt));
    wt->h = h;
    wt->w = gw_store_watch(h->store, req, on_event, wt);
}

static void
watcher_wait_events(watcher_t *wt, int n)
{
    while (wt->n < n && !wt->ended)
        event_base_loop(wt->h->base, EVLOOP_ONCE);
}

/* Stop and wait for the terminal callback; then check that nothing else arrives. */
static void
watcher_stop(watcher_t *wt, const char *what)
{
    int n = wt->n;

    gw_store_watch_stop(wt->w);
    harness_wait(wt->h, &wt->ended);
    harness_run_for(wt->h, 300);
    tap_ok(wt->terminal == 1 && wt->terminal_err == GW_ECANCELED,
           "%s: stop ends with one GW_ECANCELED", what);
    tap_is_int(wt->n, n, "no event after stop");
    for (int i = 0; i < wt->n; i++) {
        result_clear(&wt->ev[i].obj);
        result_clear(&wt->ev[i].prev);
    }
}

static bool
is_event(const event_copy_t *e, gw_watch_type_t type, const char *key, const char *value,
         int64_t rev)
{
    return e->type == type && e->revision == rev && e->obj.has_obj &&
           strcmp(e->obj.key, key) == 0 && strcmp(e->obj.value, value) == 0 && e->obj.mod == rev;
}

typedef struct {
    result_t ca, ua, da, cb;
} writes_t;

/* create a, update a, delete a, create b; plus writes the watch must not see. */
static void
write_sequence(harness_t *h, writes_t *w)
{
    result_t r = {0};

    h_create(h, "w/ns/a", "a1", &w->ca);
    h_create(h, "w/nsx/a", "elsewhere", &r);
    h_update(h, "w/ns/a", "a2", w->ca.mod, &w->ua);
    h_create(h, "w/other", "elsewhere", &r);
    h_delete(h, "w/ns/a", 0, &w->da);
    h_create(h, "w/ns/b", "b1", &w->cb);
    result_clear(&r);
}

static void
check_sequence(watcher_t *wt, const writes_t *w, int from)
{
    const event_copy_t *e = &wt->ev[0];
    int i = 0;

    if (from <= 0) {
        tap_ok(is_event(&e[i], GW_WATCH_ADDED, "w/ns/a", "a1", w->ca.mod) && !e[i].prev.has_obj,
               "ADDED a with its value and revision, no previous value");
        i++;
    }
    tap_ok(is_event(&e[i], GW_WATCH_MODIFIED, "w/ns/a", "a2", w->ua.mod),
           "MODIFIED a with the new value and revision");
    tap_ok(e[i].prev.has_obj && strcmp(e[i].prev.value, "a1") == 0 && e[i].prev.mod == w->ca.mod,
           "... and the previous value");
    i++;
    tap_ok(is_event(&e[i], GW_WATCH_DELETED, "w/ns/a", "a2", w->da.mod),
           "DELETED a: last value, stamped with the deletion revision");
    tap_ok(e[i].prev.has_obj && e[i].prev.mod == w->ua.mod,
           "... previous value keeps its own revision");
    i++;
    tap_ok(is_event(&e[i], GW_WATCH_ADDED, "w/ns/b", "b1", w->cb.mod), "ADDED b");
}

static void
test_watch_live(harness_t *h, writes_t *w)
{
    watcher_t wt;
    gw_watch_req_t req = {.key = "w/ns/", .is_prefix = true, .prev_values = true};

    req.after_revision = h_rev(h);
    watcher_start(&wt, h, &req);
    tap_ok(wt.w != NULL, "watch started");
    write_sequence(h, w);
    watcher_wait_events(&wt, 4);
    tap_is_int(wt.n, 4, "four events, none from outside the prefix");
    check_sequence(&wt, w, 0);
    gw_store_watch_request_progress(wt.w);
    while (wt.progress == 0 && !wt.ended)
        event_base_loop(h->base, EVLOOP_ONCE);
    tap_ok(wt.progress > 0 && wt.progress_rev >= w->cb.mod,
           "requested progress: PROGRESS at a revision past the last event (%lld)",
           (long long)wt.progress_rev);
    tap_is_int(wt.n, 4, "nothing else arrived");
    watcher_stop(&wt, "live watch");
}

static void
test_watch_replay(harness_t *h, const writes_t *w)
{
    watcher_t wt;
    gw_watch_req_t req = {.key = "w/ns/", .is_prefix = true, .prev_values = true};

    req.after_revision = w->ca.mod;
    watcher_start(&wt, h, &req);
    watcher_wait_events(&wt, 3);
    harness_run_for(h, 300);
    tap_is_int(wt.n, 3, "replay from a past revision: exactly the three events after it");
    check_sequence(&wt, w, 1);
    watcher_stop(&wt, "replaying watch");
}

static void
test_watch_no_prev(harness_t *h, const writes_t *w)
{
    watcher_t wt;
    gw_watch_req_t req = {.key = "w/ns/a", .after_revision = w->ca.mod - 1};

    watcher_start(&wt, h, &req);
    watcher_wait_events(&wt, 3);
    tap_is_int(wt.n, 3, "single-key watch sees only that key");
    tap_ok(wt.ev[1].type == GW_WATCH_MODIFIED && !wt.ev[1].prev.has_obj,
           "without prev values MODIFIED has no previous value");
    tap_ok(wt.ev[2].type == GW_WATCH_DELETED && !wt.ev[2].obj.has_obj &&
               wt.ev[2].revision == w->da.mod,
           "without prev values DELETED has no object, only its revision");
    watcher_stop(&wt, "single-key watch");
}

/* The empty prefix: every key of the store, the ones other watches leave out included. */
static void
test_watch_whole_store(harness_t *h, const writes_t *w)
{
    watcher_t wt;
    gw_watch_req_t req = {.key = "", .is_prefix = true, .after_revision = w->ca.mod - 1};

    watcher_start(&wt, h, &req);
    tap_ok(wt.w != NULL, "a prefix watch of \"\" is the whole store");
    watcher_wait_events(&wt, 6);
    harness_run_for(h, 300);
    tap_is_int(wt.n, 6, "every write of the sequence, inside w/ns/ or not");
    tap_ok(wt.n == 6 && strcmp(wt.ev[1].obj.key, "w/nsx/a") == 0 &&
               strcmp(wt.ev[3].obj.key, "w/other") == 0,
           "with its relative keys");
    watcher_stop(&wt, "whole-store watch");
}

static void
test_watch_stop_inside(harness_t *h, const writes_t *w)
{
    watcher_t wt;
    gw_watch_req_t req = {.key = "w/ns/", .is_prefix = true, .after_revision = w->ca.mod - 1};

    watcher_start(&wt, h, &req);
    wt.stop_on_first = true;
    harness_wait(h, &wt.ended);
    harness_run_for(h, 300);
    tap_ok(wt.n == 1 && wt.terminal == 1 && wt.terminal_err == GW_ECANCELED,
           "stop from inside an event: no further event, one GW_ECANCELED");
    result_clear(&wt.ev[0].obj);
    result_clear(&wt.ev[0].prev);
}

int
main(void)
{
    etcd_client_t *client = harness_client();
    harness_t h;
    writes_t w = {0};
    char prefix[64];

    snprintf(prefix, sizeof(prefix), "/registry-test-%d", (int)getpid());
    harness_open(&h, client, prefix);
    gw_watch_req_t bad = {.key = ""};
    tap_ok(gw_store_watch(h.store, &bad, on_event, NULL) == NULL, "empty key: no watch");
    test_watch_live(&h, &w);
    test_watch_replay(&h, &w);
    test_watch_no_prev(&h, &w);
    test_watch_whole_store(&h, &w);
    test_watch_stop_inside(&h, &w);
    result_clear(&w.ca);
    result_clear(&w.ua);
    result_clear(&w.da);
    result_clear(&w.cb);
    harness_close(&h);
    etcd_client_free(client);
    return tap_done();
}
