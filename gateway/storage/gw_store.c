/* The store object, its shared helpers, and the reads: current revision, get, list. */
#include "gw_store.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_clock.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_store_int.h"

gw_store_t *
gw_store_new(etcd_conn_t *conn, const char *prefix, const gw_value_transformer_t *values)
{
    gw_store_t *s = gw_calloc(1, sizeof(*s));
    size_t len = strlen(prefix);

    while (len > 0 && prefix[len - 1] == '/')
        len--;
    s->conn = conn;
    s->prefix = gw_sprintf("%.*s/", (int)len, prefix);
    s->prefix_len = len + 1;
    s->values = values;
    return s;
}

const char *
gw_store_prefix(const gw_store_t *s)
{
    return s->prefix;
}

void
gw_store_free(gw_store_t *s)
{
    if (s == NULL)
        return;
    /* A mutate callback that never commits nor aborts would leave its update hanging. */
    assert(s->n_updates == 0);
    free(s->prefix);
    free(s);
}

/* ---- helpers shared by the other gw_store*.c files -------------------------------------- */

char *
gw_store__full_key(const gw_store_t *s, const char *rel)
{
    return gw_sprintf("%s%s", s->prefix, rel);
}

char *
gw_store__prefix_end(const char *key, size_t *len)
{
    size_t n = strlen(key);
    char *end = gw_memdup(key, n + 1);

    while (n > 0 && (unsigned char)end[n - 1] == 0xff)
        n--;
    if (n == 0) {
        end[0] = '\0';
        *len = 1;
        return end;
    }
    end[n - 1] = (char)((unsigned char)end[n - 1] + 1);
    end[n] = '\0';
    *len = n;
    return end;
}

/* The key a value is stored under, as transformers see it. */
static gw_value_key_t
value_key(const gw_store_t *s, const char *rel)
{
    return (gw_value_key_t){.prefix = s->prefix, .prefix_len = s->prefix_len, .rel = rel};
}

char *
gw_store__from_storage(const gw_store_t *s, const char *rel, const uint8_t *in, size_t len,
                       gw_value_t *out)
{
    char why[256] = "";
    gw_value_key_t key = value_key(s, rel);

    if (s->values == NULL) {
        gw_value_view(out, in, len);
        return NULL;
    }
    *out = (gw_value_t){.data = NULL}; /* a transformer may set only what it uses */
    if (s->values->from_storage(s->values, &key, in, len, out, why, sizeof(why)) == 0)
        return NULL;
    /* Handed up as stored: a corrupt object to every layer above, as kube treats it. */
    gw_log_warn(NULL, "stored value of %s cannot be decoded: %s", rel, why);
    gw_value_view(out, in, len);
    return gw_strdup(why);
}

/* The reason of this thread's last refused to_storage (gw_store_value_error). */
static _Thread_local char value_error[512];

const char *
gw_store_value_error(void)
{
    return value_error[0] != '\0' ? value_error : NULL;
}

int
gw_store__to_storage(const gw_store_t *s, const char *rel, const uint8_t *json, size_t len,
                     gw_value_t *out)
{
    int rc;

    value_error[0] = '\0';
    if (s->values == NULL) {
        gw_value_view(out, json, len);
        return 0;
    }
    gw_value_key_t key = value_key(s, rel);

    rc = s->values->to_storage(s->values, &key, json, len, out, value_error, sizeof(value_error));
    if (rc != 0)
        gw_log_warn(NULL, "value of %s cannot be encoded for storage: %s", rel, value_error);
    else
        value_error[0] = '\0';
    return rc;
}

char *
gw_store__rel_key(const gw_store_t *s, const Mvccpb__KeyValue *kv)
{
    const char *k = (const char *)kv->key.data;
    size_t n = kv->key.len;

    /* Every key we read lies under the prefix; strip it so callers see relative keys. */
    if (n >= s->prefix_len && memcmp(k, s->prefix, s->prefix_len) == 0) {
        k += s->prefix_len;
        n -= s->prefix_len;
    }
    return gw_strndup(n ? k : "", n);
}

void
gw_store__obj_init(const gw_store_t *s, const Mvccpb__KeyValue *kv, gw_obj_t *obj)
{
    gw_value_t v;

    obj->key = gw_store__rel_key(s, kv);
    /* protobuf-c gives NULL for an empty value; callers get a pointer they can always use. */
    obj->unreadable = gw_store__from_storage(
        s, obj->key, kv->value.data ? kv->value.data : (const uint8_t *)"", kv->value.len, &v);
    obj->stale = v.stale;
    obj->value = v.data;
    obj->value_len = v.len;
    obj->owned = v.owned;
    obj->mod_revision = kv->mod_revision;
    obj->create_revision = kv->create_revision;
    obj->lease = kv->lease;
    obj->revision = 0;
}

void
gw_store__obj_clear(gw_obj_t *obj)
{
    free((char *)obj->key);
    free(obj->owned);
    free((char *)obj->unreadable);
    obj->key = NULL;
    obj->owned = NULL;
    obj->unreadable = NULL;
}

int64_t
gw_store__rev(const Etcdserverpb__ResponseHeader *h)
{
    return h ? h->revision : 0;
}

static const Etcdserverpb__ResponseOp *
txn_op(const Etcdserverpb__TxnResponse *r, size_t i, Etcdserverpb__ResponseOp__ResponseCase c)
{
    if (r == NULL || i >= r->n_responses || r->responses[i]->response_case != c)
        return NULL;
    return r->responses[i];
}

const Etcdserverpb__RangeResponse *
gw_store__txn_range(const Etcdserverpb__TxnResponse *r, size_t i)
{
    const Etcdserverpb__ResponseOp *op =
        txn_op(r, i, ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_RANGE);
    return op ? op->response_range : NULL;
}

const Etcdserverpb__PutResponse *
gw_store__txn_put(const Etcdserverpb__TxnResponse *r, size_t i)
{
    const Etcdserverpb__ResponseOp *op =
        txn_op(r, i, ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_PUT);
    return op ? op->response_put : NULL;
}

const Etcdserverpb__DeleteRangeResponse *
gw_store__txn_delete(const Etcdserverpb__TxnResponse *r, size_t i)
{
    const Etcdserverpb__ResponseOp *op =
        txn_op(r, i, ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_DELETE_RANGE);
    return op ? op->response_delete_range : NULL;
}

const Mvccpb__KeyValue *
gw_store__first_kv(const Etcdserverpb__RangeResponse *r)
{
    return r != NULL && r->n_kvs > 0 ? r->kvs[0] : NULL;
}

bool
gw_store__key_ok(const char *rel)
{
    return rel != NULL && rel[0] != '\0';
}

/* ---- current revision ------------------------------------------------------------------- */

typedef struct {
    gw_store_rev_cb cb;
    void *ctx;
} rev_op_t;

static void
rev_done(int err, const Etcdserverpb__RangeResponse *resp, void *arg)
{
    rev_op_t *op = arg;

    op->cb(err, err == 0 ? gw_store__rev(resp->header) : 0, op->ctx);
    free(op);
}

int
gw_store_current_revision(gw_store_t *s, gw_store_rev_cb cb, void *ctx)
{
    rev_op_t *op = gw_malloc(sizeof(*op));
    /* Any key will do: a linearizable count of one key costs etcd next to nothing. */
    etcd_range_req_t q = {.key = etcd_str(s->prefix), .count_only = true};
    int rc;

    op->cb = cb;
    op->ctx = ctx;
    rc = etcd_range(s->conn, &q, rev_done, op);
    if (rc != 0)
        free(op);
    return rc;
}

/* ---- get -------------------------------------------------------------------------------- */

typedef struct {
    gw_store_t *s;
    gw_store_get_cb cb;
    void *ctx;
    int64_t start_ns;
    char type[GW_STORE_TYPE_MAX]; /* the etcd metrics' */
} get_op_t;

static void
get_done(int err, const Etcdserverpb__RangeResponse *resp, void *arg)
{
    get_op_t *op = arg;
    const Mvccpb__KeyValue *kv = err == 0 ? gw_store__first_kv(resp) : NULL;
    gw_obj_t obj;

    gw_store__etcd_observe("get", op->type, op->start_ns);
    if (err == 0 && kv == NULL)
        err = GW_ENOTFOUND;
    if (err != 0) {
        op->cb(err, NULL, op->ctx);
        free(op);
        return;
    }
    gw_store__obj_init(op->s, kv, &obj);
    obj.revision = gw_store__rev(resp->header);
    op->cb(0, &obj, op->ctx);
    gw_store__obj_clear(&obj);
    free(op);
}

int
gw_store_get(gw_store_t *s, const char *key, int64_t revision, gw_store_get_cb cb, void *ctx)
{
    get_op_t *op;
    char *full;
    int rc;

    if (!gw_store__key_ok(key) || revision < 0)
        return GW_EINVAL;
    op = gw_malloc(sizeof(*op));
    *op = (get_op_t){.s = s, .cb = cb, .ctx = ctx, .start_ns = gw_monotonic_ns()};
    gw_store__etcd_type(key, op->type, sizeof(op->type));
    full = gw_store__full_key(s, key);
    rc = etcd_range(s->conn, &(etcd_range_req_t){.key = etcd_str(full), .revision = revision},
                    get_done, op);
    free(full);
    if (rc != 0)
        free(op);
    return rc;
}

int
gw_store_read(gw_store_t *s, const char *key, const gw_read_opts_t *o, gw_store_get_cb cb,
              void *ctx)
{
    if (!gw_store__key_ok(key))
        return GW_EINVAL;
    if (o->collection != NULL && s->cache != NULL && s->cache->get(s->cache_impl, key, o, cb, ctx))
        return 0;
    return gw_store_get(s, key, 0, cb, ctx);
}

void
gw_store_set_read_cache(gw_store_t *s, const gw_read_cache_ops_t *ops, void *impl)
{
    s->cache = ops;
    s->cache_impl = impl;
}

/* ---- list ------------------------------------------------------------------------------- */

typedef struct {
    gw_store_t *s;
    gw_store_list_cb cb;
    void *ctx;
    int64_t revision;
    int64_t limit;
    int64_t start_ns;
    char type[GW_STORE_TYPE_MAX]; /* the etcd metrics' */
} list_op_t;

static void
list_deliver(list_op_t *op, const Etcdserverpb__RangeResponse *resp)
{
    /* One kv past the page is fetched on purpose: its key is the exact (inclusive) start of
     * the next page, so pages at one revision neither skip nor repeat a key. */
    bool more = op->limit > 0 && resp->n_kvs > (size_t)op->limit;
    size_t n = more ? (size_t)op->limit : resp->n_kvs;
    gw_obj_t *items = gw_calloc(n ? n : 1, sizeof(*items));
    char *next = more ? gw_store__rel_key(op->s, resp->kvs[n]) : NULL; /* its key only */
    gw_list_page_t page = {.items = items, .n_items = n, .more = more, .next_key = next};

    for (size_t i = 0; i < n; i++)
        gw_store__obj_init(op->s, resp->kvs[i], &items[i]);
    page.revision = op->revision ? op->revision : gw_store__rev(resp->header);
    page.remaining = resp->count - (int64_t)n;
    op->cb(0, &page, op->ctx);
    for (size_t i = 0; i < n; i++)
        gw_store__obj_clear(&items[i]);
    free(next);
    free(items);
}

static void
list_done(int err, const Etcdserverpb__RangeResponse *resp, void *arg)
{
    list_op_t *op = arg;

    gw_store__etcd_observe("list", op->type, op->start_ns);
    if (err != 0)
        op->cb(err, NULL, op->ctx);
    else
        list_deliver(op, resp);
    free(op);
}

static bool
list_req_ok(const gw_list_req_t *req)
{
    /* "" is the whole store (every collection under --etcd-prefix) */
    if (req->prefix == NULL || req->revision < 0)
        return false;
    if (req->limit < 0 || req->limit == INT64_MAX)
        return false;
    /* A start key outside the collection would read another collection. */
    return req->start_key == NULL || strncmp(req->start_key, req->prefix, strlen(req->prefix)) == 0;
}

int
gw_store_list(gw_store_t *s, const gw_list_req_t *req, gw_store_list_cb cb, void *ctx)
{
    etcd_range_req_t q = {.revision = req->revision};
    char *from, *prefix, *end;
    size_t end_len;
    list_op_t *op;
    int rc;

    if (!list_req_ok(req))
        return GW_EINVAL;
    if (req->collection != NULL && s->cache != NULL && s->cache->list(s->cache_impl, req, cb, ctx))
        return 0;
    from = gw_store__full_key(s, req->start_key ? req->start_key : req->prefix);
    prefix = gw_store__full_key(s, req->prefix);
    end = gw_store__prefix_end(prefix, &end_len);
    q.key = etcd_str(from);
    q.range_end = (etcd_bytes_t){(const uint8_t *)end, end_len};
    q.limit = req->limit ? req->limit + 1 : 0;
    op = gw_malloc(sizeof(*op));
    *op = (list_op_t){.s = s,
                      .cb = cb,
                      .ctx = ctx,
                      .revision = req->revision,
                      .limit = req->limit,
                      .start_ns = gw_monotonic_ns()};
    gw_store__etcd_type(req->prefix, op->type, sizeof(op->type));
    rc = etcd_range(s->conn, &q, list_done, op);
    if (rc != 0)
        free(op);
    free(from);
    free(prefix);
    free(end);
    return rc;
}
