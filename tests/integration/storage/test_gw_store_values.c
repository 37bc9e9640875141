/*
 * The store's value transformer against a real etcd: every value leaving the store (get, list,
 * a failed transaction's current object, a deletion's last value, a guaranteed update's
 * current value and result, watch events and their previous values) comes through
 * from_storage, every write through to_storage; values needing no change pass uncopied; a value
 * from_storage refuses is handed up as stored; one to_storage refuses is not written.
 *
 * The transformer here is a toy with the shape of a real one: it stores "T:" + the JSON, reads
 * "T:" values into new buffers (so ownership is exercised under ASan), passes any other value
 * as it is, and refuses "T:!" values and JSON starting with "{refuse".
 */
#include "store_harness.h"

static char prefix[64];
static int reads, writes;
static char last_key[256]; /* the etcd key the toy last wrote under, joined */

static void
note_key(const gw_value_key_t *key)
{
    snprintf(last_key, sizeof(last_key), "%.*s%s", (int)key->prefix_len, key->prefix, key->rel);
}

static int
toy_from(const gw_value_transformer_t *t, const gw_value_key_t *key, const uint8_t *in, size_t len,
         gw_value_t *out, char *err, size_t err_len)
{
    (void)t;
    note_key(key);
    reads++;
    if (len < 2 || memcmp(in, "T:", 2) != 0) {
        gw_value_view(out, in, len);
        return 0;
    }
    if (len > 2 && in[2] == '!') {
        snprintf(err, err_len, "a broken toy value");
        return GW_EINTERNAL;
    }
    out->owned = gw_memdup(in + 2, len - 2);
    out->data = out->owned;
    out->len = len - 2;
    return 0;
}

static int
toy_to(const gw_value_transformer_t *t, const gw_value_key_t *key, const uint8_t *in, size_t len,
       gw_value_t *out, char *err, size_t err_len)
{
    (void)t;
    note_key(key);
    writes++;
    if (len >= 7 && memcmp(in, "{refuse", 7) == 0) {
        snprintf(err, err_len, "refused");
        return GW_EINVAL;
    }
    out->owned = gw_malloc(len + 2);
    memcpy(out->owned, "T:", 2);
    memcpy(out->owned + 2, in, len);
    out->data = out->owned;
    out->len = len + 2;
    return 0;
}

static const gw_value_transformer_t toy = {.from_storage = toy_from, .to_storage = toy_to};

static harness_t h;    /* through the toy */
static harness_t rawh; /* the same keys as etcd holds them */

static void
raw_is(const char *key, const char *want, const char *name)
{
    result_t r = {0};
    int rc = h_get(&rawh, key, 0, &r);

    tap_ok(rc == 0 && r.value && strcmp(r.value, want) == 0, "%s", name);
    if (rc != 0 || r.value == NULL || strcmp(r.value, want) != 0)
        tap_diag("etcd holds %s (%s)", r.value ? r.value : "(nothing)", gw_errname(rc));
    result_clear(&r);
}

static void
test_writes_and_reads(void)
{
    result_t r = {0};
    int64_t rev;

    tap_is_int(h_create(&h, "v/a", "{a1}", &r), 0, "create through the toy");
    tap_is_str(r.value, "{a1}", "... answers the caller's JSON");
    raw_is("v/a", "T:{a1}", "... etcd holds to_storage's bytes");
    char want_key[256];
    snprintf(want_key, sizeof(want_key), "%s/v/a", prefix);
    tap_is_str(last_key, want_key, "... to_storage was given the full etcd key");
    rev = r.mod;
    tap_is_int(h_get(&h, "v/a", 0, &r), 0, "get");
    tap_is_str(r.value, "{a1}", "... comes through from_storage");
    tap_is_int(h_update(&h, "v/a", "{a2}", rev, &r), 0, "update");
    tap_is_str(r.value, "{a2}", "... answers the JSON");
    raw_is("v/a", "T:{a2}", "... etcd holds the transformed bytes");
    tap_is_int(h_update(&h, "v/a", "{a3}", rev, &r), GW_ECONFLICT, "a stale update conflicts");
    tap_is_str(r.value, "{a2}", "... the current object through from_storage");
    tap_is_int(h_create(&rawh, "v/plain", "{plain}", &r), 0, "a value written without the toy");
    tap_is_int(h_get(&h, "v/plain", 0, &r), 0, "... is read");
    tap_is_str(r.value, "{plain}", "... as it is");
    tap_is_int(h_create(&h, "v/no", "{refuse}", &r), GW_EINVAL,
               "create of a value to_storage refuses: its error, at once");
    tap_is_int(h_get(&rawh, "v/no", 0, &r), GW_ENOTFOUND, "... nothing written");
    tap_is_int(h_update(&h, "v/a", "{refuse}", r.mod ? r.mod : 1, &r), GW_EINVAL,
               "update of a value to_storage refuses: its error, at once");
    tap_is_int(h_create(&rawh, "v/bad", "T:!x", &r), 0, "a value from_storage refuses");
    tap_is_int(h_get(&h, "v/bad", 0, &r), 0, "... is read");
    tap_is_str(r.value, "T:!x", "... handed up as stored (a corrupt object)");
    result_clear(&r);
}

typedef struct {
    result_t items[8];
    size_t n;
    bool done;
} page_t;

static void
page_cb(int err, const gw_list_page_t *page, void *ctx)
{
    page_t *p = ctx;

    for (size_t i = 0; err == 0 && i < page->n_items && i < 8; i++)
        result_set(&p->items[i], 0, &page->items[i]);
    p->n = err == 0 ? page->n_items : 0;
    p->done = true;
}

static void
test_list(void)
{
    page_t p = {0};
    gw_list_req_t req = {.prefix = "v/"};

    tap_is_int(gw_store_list(h.store, &req, page_cb, &p), 0, "list");
    harness_wait(&h, &p.done);
    tap_is_int(p.n, 3, "... three items");
    tap_is_str(p.items[0].value, "{a2}", "... a transcoded one");
    tap_is_str(p.items[1].value, "T:!x", "... a refused one as stored");
    tap_is_str(p.items[2].value, "{plain}", "... a plain one");
    for (size_t i = 0; i < 8; i++)
        result_clear(&p.items[i]);
}

typedef struct {
    const char *want_cur; /* what mutate must see */
    const char *next;     /* what it commits */
    bool saw;
    result_t r;
} gu_t;

static void
gu_mutate(gw_store_update_t *u, const gw_obj_t *cur, void *ctx)
{
    gu_t *g = ctx;

    g->saw = cur != NULL && cur->value_len == strlen(g->want_cur) &&
             memcmp(cur->value, g->want_cur, cur->value_len) == 0;
    gw_store_update_commit(u, (uint8_t *)gw_strdup(g->next), strlen(g->next));
}

static void
gu_done(int err, const gw_obj_t *obj, void *ctx)
{
    result_set(&((gu_t *)ctx)->r, err, obj);
}

static int
gu(const char *key, gu_t *g)
{
    if (gw_store_guaranteed_update(h.store, key, 0, gu_mutate, gu_done, g) != 0)
        return -100;
    harness_wait(&h, &g->r.done);
    return g->r.err;
}

static void
test_guaranteed_update(void)
{
    result_t before = {0};
    gu_t same = {.want_cur = "{a2}", .next = "{a2}"};
    gu_t change = {.want_cur = "{a2}", .next = "{a4}"};
    gu_t refused = {.want_cur = "{a4}", .next = "{refuse}"};
    int w;

    h_get(&h, "v/a", 0, &before);
    w = writes;
    tap_is_int(gu("v/a", &same), 0, "guaranteed update committing the same JSON");
    tap_ok(same.saw, "... mutate saw the current value through from_storage");
    tap_ok(same.r.mod == before.mod && writes == w, "... nothing encoded, nothing written");
    tap_is_str(same.r.value, "{a2}", "... the current object");
    tap_is_int(gu("v/a", &change), 0, "guaranteed update with a change");
    tap_is_str(change.r.value, "{a4}", "... answers the JSON");
    raw_is("v/a", "T:{a4}", "... etcd holds the transformed bytes");
    tap_is_int(gu("v/a", &refused), GW_EINVAL, "a value to_storage refuses ends the update");
    raw_is("v/a", "T:{a4}", "... nothing written");
    result_clear(&before);
    result_clear(&same.r);
    result_clear(&change.r);
    result_clear(&refused.r);
}

typedef struct {
    result_t obj[4], prev[4];
    gw_watch_type_t type[4];
    int n;
} events_t;

static void
on_event(int err, const gw_watch_event_t *ev, void *ctx)
{
    events_t *e = ctx;

    if (err != 0 || ev->type == GW_WATCH_PROGRESS || e->n >= 4)
        return;
    e->type[e->n] = ev->type;
    if (ev->obj)
        result_set(&e->obj[e->n], 0, ev->obj);
    if (ev->prev)
        result_set(&e->prev[e->n], 0, ev->prev);
    e->n++;
}

static void
test_watch(void)
{
    events_t e = {0};
    gw_watch_req_t req = {.key = "w/", .is_prefix = true, .prev_values = true};
    gw_store_watch_t *w = gw_store_watch(h.store, &req, on_event, &e);
    result_t r = {0};

    tap_ok(w != NULL, "watch");
    h_create(&rawh, "w/x", "T:{w1}", &r);
    h_update(&rawh, "w/x", "T:{w2}", r.mod, &r);
    h_delete(&rawh, "w/x", 0, &r);
    for (int i = 0; i < 100 && e.n < 3; i++)
        harness_run_for(&h, 20);
    tap_is_int(e.n, 3, "three events for values written behind the store's back");
    tap_ok(e.type[0] == GW_WATCH_ADDED && e.obj[0].value && !strcmp(e.obj[0].value, "{w1}"),
           "ADDED through from_storage");
    tap_ok(e.type[1] == GW_WATCH_MODIFIED && e.obj[1].value && !strcmp(e.obj[1].value, "{w2}") &&
               e.prev[1].value && !strcmp(e.prev[1].value, "{w1}"),
           "MODIFIED, its previous value too");
    tap_ok(e.type[2] == GW_WATCH_DELETED && e.obj[2].value && !strcmp(e.obj[2].value, "{w2}") &&
               e.prev[2].value && !strcmp(e.prev[2].value, "{w2}"),
           "DELETED with the last value");
    gw_store_watch_stop(w);
    harness_run_for(&h, 50);
    for (int i = 0; i < 4; i++) {
        result_clear(&e.obj[i]);
        result_clear(&e.prev[i]);
    }
    result_clear(&r);
}

static void
test_delete(void)
{
    result_t r = {0};

    tap_is_int(h_delete(&h, "v/a", 0, &r), 0, "delete");
    tap_is_str(r.value, "{a4}", "... its last value through from_storage");
    result_clear(&r);
}

int
main(void)
{
    etcd_client_t *c = harness_client();

    snprintf(prefix, sizeof(prefix), "/test-values-%d", (int)getpid());
    harness_open(&h, c, prefix);
    gw_store_free(h.store);
    h.store = gw_store_new(h.conn, prefix, &toy);
    harness_open(&rawh, c, prefix);
    test_writes_and_reads();
    test_list();
    test_guaranteed_update();
    test_watch();
    test_delete();
    tap_ok(reads > 0 && writes > 0, "the toy was used both ways");
    harness_close(&h);
    harness_close(&rawh);
    etcd_client_free(c);
    return tap_done();
}
