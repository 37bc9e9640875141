/*
 * Answering a pending authentication: each need is started at once (storage reads through
 * the worker's store, HTTPS exchanges on its loop); when the last answer is in, authn decides,
 * possibly asking again.
 */
#include "gw_authn_io.h"

#include <string.h>

#include "gw_err.h"
#include "gw_fetch.h"
#include "gw_log.h"
#include "gw_server.h"
#include "gw_store.h"

typedef struct resolve resolve_t;

/* One need in flight. */
typedef struct {
    resolve_t *rs;
    size_t index;
} need_call_t;

struct resolve {
    gw_req_t *r;
    const authn_t *a;
    authn_pending_t *p;
    authn_answer_t *answers;
    size_t n, outstanding;
    gw_authn_done_fn done;
    void *arg;
};

static void start(resolve_t *rs);

static void
finished(resolve_t *rs)
{
    authn_user_t *user = NULL;
    authn_pending_t *again = NULL;
    char why[256] = "";
    authn_result_t res =
        authn_pending_finish(rs->a, rs->p, rs->answers, &user, &again, why, sizeof(why));

    rs->p = NULL;
    if (res == AUTHN_PENDING) {
        rs->p = again;
        start(rs);
        return;
    }
    if (res == AUTHN_OK)
        gw_arena_defer(rs->r->arena, (void (*)(void *))authn_user_free, user);
    else
        gw_log_debug(rs->r->audit_id, "unauthorized: %s", why);
    rs->done(rs->r, res, user, rs->arg);
}

static void
answered(resolve_t *rs)
{
    if (--rs->outstanding == 0)
        finished(rs);
}

static void
object_read(int err, const gw_obj_t *obj, void *ctx)
{
    need_call_t *c = ctx;
    authn_answer_t *ans = &c->rs->answers[c->index];

    if (err == 0) {
        ans->object = gw_arena_strndup(c->rs->r->arena, (const char *)obj->value, obj->value_len);
        ans->object_len = obj->value_len;
    } else if (err != GW_ENOTFOUND) {
        ans->err = err;
    }
    answered(c->rs);
}

/* A core/v1 object by resource, namespace and name, where kube's storage layout keeps it. As
 * kube's token getters read their informers' caches and look an object up live only when the
 * cache lacks it, any state of the read cache will do, and a miss asks etcd. */
static void
read_object(need_call_t *c, const authn_need_t *n)
{
    gw_req_t *r = c->rs->r;
    const gw_resource_t *res = gw_catalog_find(r->catalog, "", "v1", n->resource);
    char *key = res != NULL ? gw_store_object_key(res->storage_path,
                                                  res->namespaced ? n->namespace : NULL, n->name)
                            : NULL;
    char *coll = res != NULL ? gw_store_collection_prefix(res->storage_path, NULL) : NULL;
    gw_read_opts_t o = {.collection = coll, .relaxed = true, .confirm_missing = true};
    int rc = key != NULL ? gw_store_read(r->store, key, &o, object_read, c) : GW_EINVAL;

    free(coll);
    free(key);
    if (rc != 0)
        object_read(rc, NULL, c);
}

static void
fetched(int err, int status, const char *body, size_t len, void *ctx)
{
    need_call_t *c = ctx;
    authn_answer_t *ans = &c->rs->answers[c->index];

    ans->err = err;
    ans->status = status;
    if (body != NULL) {
        ans->body = gw_arena_strndup(c->rs->r->arena, body, len);
        ans->body_len = len;
    }
    answered(c->rs);
}

/* One HTTPS exchange on the request's loop. */
static void
fetch(need_call_t *c, const authn_need_t *n)
{
    gw_fetch_req_t q = {
        .method = n->method,
        .url = n->url,
        .body = n->body,
        .body_len = n->body != NULL ? strlen(n->body) : 0,
        .ca_pem = n->tls->ca_pem,
        .cert_pem = n->tls->cert_pem,
        .key_pem = n->tls->key_pem,
        .bearer_token = n->tls->bearer_token,
        .timeout_ms = n->tls->timeout_ms,
    };

    gw_fetch(gw_worker_base(c->rs->r->worker), &q, fetched, c);
}

static void
start(resolve_t *rs)
{
    const authn_need_t *needs;
    gw_req_t *r = rs->r;

    rs->n = authn_pending_needs(rs->p, &needs);
    rs->answers = gw_arena_calloc(r->arena, (rs->n ? rs->n : 1) * sizeof(*rs->answers));
    rs->outstanding = rs->n + 1; /* held until every need is started */
    for (size_t i = 0; i < rs->n; i++) {
        need_call_t *c = gw_arena_calloc(r->arena, sizeof(*c));
        *c = (need_call_t){.rs = rs, .index = i};
        if (needs[i].kind == AUTHN_NEED_OBJECT)
            read_object(c, &needs[i]);
        else
            fetch(c, &needs[i]);
    }
    answered(rs);
}

void
gw_authn_resolve(gw_req_t *r, const authn_t *a, authn_pending_t *p, gw_authn_done_fn done,
                 void *arg)
{
    resolve_t *rs = gw_arena_calloc(r->arena, sizeof(*rs));

    *rs = (resolve_t){.r = r, .a = a, .p = p, .done = done, .arg = arg};
    start(rs);
}
