/* Watches against a real etcd: order and content of events, replay from a past revision,
 * progress requests, cancel, compacted start revisions, and catch-up batches over 4 MiB.
 * Compacts: run by test_etcd_watch.t against an etcd of its own. */
#include <stdio.h>

#include "etcd_test.h"

#define MAX_EVENTS 512

typedef struct {
    int type; /* MVCCPB__EVENT__EVENT_TYPE__PUT / DELETE */
    int64_t rev;
    char key[128];
    size_t value_len;
    char prev[32];
    bool has_prev;
} ev_t;

typedef struct {
    int responses;
    int n; /* events */
    ev_t ev[MAX_EVENTS];
    int progress;
    int64_t progress_rev;
    int terminal;
    int err;
    int64_t compact_rev;
    size_t biggest; /* largest response, packed */
    bool wrong_thread;
    bool after_terminal; /* something arrived after the terminal callback */
} seen_t;

static et_env_t env;
static const char *prefix;

#define KEY(s) et_key(prefix, s)

static void
copy_event(ev_t *d, const Mvccpb__Event *e)
{
    memset(d, 0, sizeof(*d));
    d->type = e->type;
    d->rev = e->kv->mod_revision;
    snprintf(d->key, sizeof(d->key), "%.*s", (int)e->kv->key.len, (const char *)e->kv->key.data);
    d->value_len = e->kv->value.len;
    d->has_prev = e->prev_kv != NULL;
    if (e->prev_kv != NULL)
        snprintf(d->prev, sizeof(d->prev), "%.*s", (int)e->prev_kv->value.len,
                 (const char *)e->prev_kv->value.data);
}

static void
watch_cb(int err, const Etcdserverpb__WatchResponse *resp, void *ctx)
{
    seen_t *s = ctx;
    if (!pthread_equal(pthread_self(), env.thread))
        s->wrong_thread = true;
    if (s->terminal > 0)
        s->after_terminal = true;
    if (err != 0) {
        s->terminal++;
        s->err = err;
        s->compact_rev = resp != NULL ? resp->compact_revision : -1;
        return;
    }
    s->responses++;
    size_t size = protobuf_c_message_get_packed_size(&resp->base);
    if (size > s->biggest)
        s->biggest = size;
    if (resp->n_events == 0) {
        s->progress++;
        s->progress_rev = resp->header->revision;
    }
    for (size_t i = 0; i < resp->n_events && s->n < MAX_EVENTS; i++)
        copy_event(&s->ev[s->n++], resp->events[i]);
}

static int64_t
delete_sync(const char *key)
{
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_delete(env.conn, etcd_str(key), (etcd_bytes_t){0}, false, et_delete_cb, &r);
    int64_t rev = -1;
    if (et_wait(&env, &r) && r.err == 0)
        rev = ((Etcdserverpb__DeleteRangeResponse *)r.resp)->header->revision;
    et_result_clear(&r);
    return rev;
}

static etcd_watch_t *
watch_prefix(const char *p, int64_t start, bool prev_kv, seen_t *s)
{
    static char key[256];
    snprintf(key, sizeof(key), "%s", p);
    etcd_watch_req_t q = {.key = etcd_str(key),
                          .range_end = et_prefix_end(key),
                          .start_revision = start,
                          .prev_kv = prev_kv};
    return etcd_watch_start(env.conn, &q, watch_cb, s);
}

/* Cancel and wait for the GW_ECANCELED. */
static void
cancel_and_wait(etcd_watch_t *w, seen_t *s)
{
    etcd_watch_cancel(w);
    et_wait_count(&env, &s->terminal, 1, 10000);
}

/* A watch from "now" needs its created response before writes are sure to be seen. */
static void
settle(void)
{
    et_run_for(&env, 300);
}

static void
test_order(void)
{
    static seen_t s;
    static int64_t want[200];
    static int want_type[200];
    memset(&s, 0, sizeof(s));
    const char *p = KEY("order/");
    char pbuf[128], key[160];
    snprintf(pbuf, sizeof(pbuf), "%s", p);
    etcd_watch_t *w = watch_prefix(pbuf, 0, false, &s);
    tap_ok(w != NULL, "watch started");
    settle();
    for (int i = 0; i < 200; i++) {
        bool del = i % 5 == 4; /* deletes the key the write before put */
        snprintf(key, sizeof(key), "%sk%02d", pbuf, (del ? i - 1 : i) % 17);
        want_type[i] = del ? MVCCPB__EVENT__EVENT_TYPE__DELETE : MVCCPB__EVENT__EVENT_TYPE__PUT;
        want[i] = del ? delete_sync(key) : et_put_sync(&env, key, "v");
    }
    et_wait_count(&env, &s.n, 200, 20000);
    int match = 0;
    for (int i = 0; i < 200 && i < s.n; i++)
        match += s.ev[i].rev == want[i] && s.ev[i].type == want_type[i];
    tap_is_int(s.n, 200, "200 events for 200 writes (puts and deletes)");
    tap_is_int(match, 200, "each at its write's revision and of its kind, in order");
    tap_ok(!s.wrong_thread, "watch callbacks on the base's thread");
    cancel_and_wait(w, &s);
    tap_ok(s.terminal == 1 && s.err == GW_ECANCELED, "cancel: GW_ECANCELED");
    et_put_sync(&env, et_key(pbuf, "k00"), "after");
    et_run_for(&env, 300);
    tap_ok(s.terminal == 1 && !s.after_terminal && s.n == 200, "nothing after the cancel");
}

static void
test_prev_kv_and_replay(void)
{
    static seen_t s, r;
    memset(&s, 0, sizeof(s));
    memset(&r, 0, sizeof(r));
    char pbuf[128];
    snprintf(pbuf, sizeof(pbuf), "%s", KEY("prev/"));
    etcd_watch_t *w = watch_prefix(pbuf, 0, true, &s);
    settle();
    int64_t first = et_put_sync(&env, et_key(pbuf, "x"), "a");
    et_put_sync(&env, et_key(pbuf, "x"), "b");
    int64_t last = delete_sync(et_key(pbuf, "x"));
    et_wait_count(&env, &s.n, 3, 10000);
    tap_is_int(s.n, 3, "three events");
    tap_ok(s.n == 3 && !s.ev[0].has_prev && s.ev[1].has_prev && strcmp(s.ev[1].prev, "a") == 0 &&
               s.ev[2].type == MVCCPB__EVENT__EVENT_TYPE__DELETE && strcmp(s.ev[2].prev, "b") == 0,
           "prev_kv: none for the create, a for the update, b for the delete");
    cancel_and_wait(w, &s);

    w = watch_prefix(pbuf, first, false, &r);
    et_wait_count(&env, &r.n, 3, 10000);
    tap_ok(r.n == 3 && r.ev[0].rev == first && r.ev[2].rev == last && !r.ev[1].has_prev,
           "a watch from a past revision replays the history in order");
    et_put_sync(&env, et_key(pbuf, "x"), "c");
    et_wait_count(&env, &r.n, 4, 10000);
    tap_ok(r.n == 4 && r.ev[3].rev > last, "and goes on with new events");

    int64_t now = et_put_sync(&env, et_key(pbuf, "y"), "d");
    et_wait_count(&env, &r.n, 5, 10000);
    int before = r.progress;
    etcd_watch_request_progress(w);
    et_wait_count(&env, &r.progress, before + 1, 10000);
    tap_ok(r.progress == before + 1 && r.progress_rev >= now,
           "progress request answered with the store revision (%lld >= %lld)",
           (long long)r.progress_rev, (long long)now);
    cancel_and_wait(w, &r);
    tap_ok(r.terminal == 1 && r.err == GW_ECANCELED, "cancelled");
}

static void
test_filters(void)
{
    static seen_t s;
    memset(&s, 0, sizeof(s));
    char key[128];
    snprintf(key, sizeof(key), "%s", KEY("filter"));
    etcd_watch_req_t q = {.key = etcd_str(key), .filter_noput = true};
    etcd_watch_t *w = etcd_watch_start(env.conn, &q, watch_cb, &s);
    settle();
    et_put_sync(&env, key, "1");
    int64_t del = delete_sync(key);
    et_wait_count(&env, &s.n, 1, 10000);
    et_run_for(&env, 200);
    tap_ok(s.n == 1 && s.ev[0].type == MVCCPB__EVENT__EVENT_TYPE__DELETE && s.ev[0].rev == del,
           "filter_noput: only the delete");
    cancel_and_wait(w, &s);

    etcd_watch_req_t bad = {.key = {NULL, 0}};
    tap_ok(etcd_watch_start(env.conn, &bad, watch_cb, &s) == NULL, "empty key: no watch");
}

static void
test_compacted(void)
{
    static seen_t s;
    memset(&s, 0, sizeof(s));
    char pbuf[128];
    snprintf(pbuf, sizeof(pbuf), "%s", KEY("compacted/"));
    int64_t old = et_put_sync(&env, et_key(pbuf, "k"), "1");
    int64_t now = et_put_sync(&env, et_key(pbuf, "k"), "2");
    et_result_t r = {0};
    et_result_clear(&r);
    etcd_compact(env.conn, now, true, et_compact_cb, &r);
    tap_ok(et_wait(&env, &r) && r.err == 0, "compacted to %lld", (long long)now);
    et_result_clear(&r);

    watch_prefix(pbuf, old, false, &s);
    et_wait_count(&env, &s.terminal, 1, 10000);
    tap_ok(s.terminal == 1 && s.err == GW_ECOMPACTED, "watch from a compacted revision: %s",
           gw_errname(s.err));
    tap_is_int(s.compact_rev, now, "  with the compact revision");
    tap_is_int(s.n, 0, "  and no events");
    et_run_for(&env, 200);
    tap_ok(!s.after_terminal, "  and nothing after it");
}

static void
test_big_catch_up(void)
{
    static seen_t s;
    memset(&s, 0, sizeof(s));
    char pbuf[128], key[160];
    snprintf(pbuf, sizeof(pbuf), "%s", KEY("big/"));
    size_t len = 100 * 1024;
    char *value = malloc(len + 1);
    memset(value, 'v', len);
    value[len] = '\0';
    int64_t first = 0;
    for (int i = 0; i < 60; i++) {
        snprintf(key, sizeof(key), "%sk%02d", pbuf, i);
        int64_t rev = et_put_sync(&env, key, value);
        if (i == 0)
            first = rev;
    }
    free(value);
    etcd_watch_t *w = watch_prefix(pbuf, first, false, &s);
    et_wait_count(&env, &s.n, 60, 30000);
    int whole = 0;
    for (int i = 0; i < s.n; i++)
        whole += s.ev[i].value_len == len && s.ev[i].rev == first + i;
    tap_is_int(s.n, 60, "60 events of 100 KiB (6 MiB) from a past revision");
    tap_is_int(whole, 60, "each whole and in order");
    tap_diag("largest watch response: %zu bytes in %d responses", s.biggest, s.responses);
    tap_ok(s.biggest > (4u << 20), "catch-up arrived in responses over 4 MiB");
    cancel_and_wait(w, &s);
}

int
main(void)
{
    const char *url = et_servers_or_skip();
    prefix = et_prefix("watch");
    char err[256];
    etcd_config_t cfg = {.servers = url};
    if (et_open(&env, &cfg, err, sizeof(err)) != 0) {
        tap_ok(0, "client: %s", err);
        return tap_done();
    }
    test_order();
    test_prev_kv_and_replay();
    test_filters();
    test_compacted();
    test_big_catch_up();
    et_close(&env);
    return tap_done();
}
