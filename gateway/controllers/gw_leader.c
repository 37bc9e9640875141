/*
 * Leader election on an etcd key held under a lease. A candidate is always in one of:
 *   no lease (granting) -> lease held: campaigning -> leading or following (watching the key)
 * and losing the lease (expired, revoked, renew deadline passed) sends it back to granting.
 *
 * Every etcd call carries an op_t naming the lease epoch it was started in; a lease change
 * bumps the epoch, so answers that arrive for an abandoned lease are dropped rather than
 * untangled. Leadership changes are reported from an event of their own, so owners may stop
 * the candidate from their callbacks.
 */
#include "gw_leader.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

#define RETRY_MS 1000
#define RELEASE_WAIT_MS 3000

/* One etcd call or stream, tied to the lease epoch it was started in. */
typedef struct {
    gw_leader_t *l;
    uint64_t epoch;
    bool dead; /* a watch we cancelled: its last callbacks do not matter */
} op_t;

struct gw_leader {
    etcd_client_t *client;
    etcd_conn_t *conn; /* ours: freeing it cancels every call of this candidate at once */
    char *key;
    char *identity;
    int64_t ttl_s;
    gw_leader_fn on_elected;
    gw_leader_fn on_lost;
    void *ctx;

    uint64_t epoch;       /* bumped whenever the lease is given up */
    int64_t lease;        /* 0: none (a grant is on its way) */
    etcd_keepalive_t *ka; /* renewing `lease` */
    etcd_watch_t *watch;  /* watching the key for its deletion, or NULL */
    op_t *watch_op;       /* the watch's callback context */
    bool leading;
    uint64_t term; /* elections won so far */
    bool failing;  /* a failure streak was logged */

    bool reported; /* leadership as last reported to the owner */
    uint64_t reported_term;
    bool reporting; /* inside on_elected / on_lost */
    bool stopping;
    bool stopped; /* stopped from inside a report: freed when it returns */

    struct event *retry;    /* grant or campaign again after a failure */
    struct event *deadline; /* renew deadline: step down when no renewal came */
    struct event *notify;   /* report a leadership change */
};

static void grant(gw_leader_t *l);
static void campaign(gw_leader_t *l);

static op_t *
op_new(gw_leader_t *l)
{
    op_t *op = gw_malloc(sizeof(*op));
    op->l = l;
    op->epoch = l->epoch;
    op->dead = false;
    return op;
}

/* Whether an answer still matters; frees op when it does not and `last` says it is the
 * call's final callback. */
static bool
op_current(op_t *op, bool last)
{
    bool current = !op->dead && !op->l->stopping && op->epoch == op->l->epoch;
    if (last)
        free(op);
    return current;
}

static void
add_timer(struct event *ev, int64_t ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    evtimer_add(ev, &tv);
}

static void
set_leading(gw_leader_t *l, bool leading)
{
    if (leading && !l->leading)
        l->term++;
    l->leading = leading;
    event_active(l->notify, EV_TIMEOUT, 0);
}

/* A call failed for a transport reason: log once per streak, try again in a second. */
static void
failed(gw_leader_t *l, const char *what, int err)
{
    if (!l->failing)
        gw_log_warn(NULL, "leader election %s: %s failed: %s; retrying", l->key, what,
                    gw_strerror(err));
    l->failing = true;
    add_timer(l->retry, RETRY_MS);
}

static void
succeeded(gw_leader_t *l)
{
    if (l->failing)
        gw_log_info(NULL, "leader election %s: etcd answers again", l->key);
    l->failing = false;
}

static void
on_retry(evutil_socket_t fd, short what, void *arg)
{
    gw_leader_t *l = arg;
    (void)fd, (void)what;
    if (l->lease == 0)
        grant(l);
    else
        campaign(l);
}

static void
revoked(int err, const Etcdserverpb__LeaseRevokeResponse *resp, void *arg)
{
    (void)err, (void)resp;
    free(arg); /* best effort: an abandoned lease expires on its own anyway */
}

static void
stop_watch(gw_leader_t *l)
{
    if (l->watch == NULL)
        return;
    l->watch_op->dead = true;
    etcd_watch_cancel(l->watch);
    l->watch = NULL;
    l->watch_op = NULL;
}

/* The lease is gone or no longer trusted: stop leading, abandon it and start over. */
static void
drop_lease(gw_leader_t *l, bool revoke)
{
    l->epoch++;
    if (l->ka != NULL)
        etcd_keepalive_stop(l->ka);
    l->ka = NULL;
    stop_watch(l);
    evtimer_del(l->deadline);
    if (revoke && l->lease != 0) {
        op_t *op = op_new(l);
        if (etcd_lease_revoke(l->conn, l->lease, revoked, op) != 0)
            free(op);
    }
    l->lease = 0;
    if (l->leading)
        set_leading(l, false);
    grant(l);
}

/* ---- the key ----------------------------------------------------------------------------- */

static void
watched(int err, const Etcdserverpb__WatchResponse *resp, void *arg)
{
    op_t *op = arg;
    gw_leader_t *l = op->l;
    bool deleted = false;

    if (!op_current(op, err != 0))
        return;
    if (err != 0) { /* compacted away or refused: read the key afresh */
        l->watch = NULL;
        l->watch_op = NULL;
        failed(l, "watch", err);
        return;
    }
    for (size_t i = 0; i < resp->n_events; i++)
        deleted = deleted || resp->events[i]->type == MVCCPB__EVENT__EVENT_TYPE__DELETE;
    if (!deleted)
        return;
    /* The key is free: whoever held it (we too, if our lease was revoked) lost it. */
    stop_watch(l);
    if (l->leading)
        set_leading(l, false);
    campaign(l);
}

/* Watch the key for its deletion, from the revision after the one the campaign read. */
static void
watch_key(gw_leader_t *l, int64_t read_rev)
{
    etcd_watch_req_t req = {
        .key = etcd_str(l->key),
        .start_revision = read_rev + 1,
        .filter_noput = true,
    };
    assert(l->watch == NULL);
    l->watch_op = op_new(l);
    l->watch = etcd_watch_start(l->conn, &req, watched, l->watch_op);
    if (l->watch == NULL)
        abort(); /* the request is well-formed by construction */
}

/* The holder's lease in a campaign's failure branch (a range of the key), or 0. */
static int64_t
holder_lease(const Etcdserverpb__TxnResponse *resp)
{
    const Etcdserverpb__ResponseOp *r = resp->n_responses > 0 ? resp->responses[0] : NULL;

    if (r == NULL || r->response_case != ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_RANGE ||
        r->response_range->n_kvs == 0)
        return 0;
    return r->response_range->kvs[0]->lease;
}

static void
campaigned(int err, const Etcdserverpb__TxnResponse *resp, void *arg)
{
    op_t *op = arg;
    gw_leader_t *l = op->l;

    if (!op_current(op, true))
        return;
    if (err == GW_ENOTFOUND) { /* etcd no longer knows our lease */
        drop_lease(l, false);
        return;
    }
    if (err != 0) {
        failed(l, "campaign", err);
        return;
    }
    succeeded(l);
    /* Holding the key under our own lease also means we lead: an earlier attempt that
     * timed out on our side may have been applied. */
    if (resp->succeeded || holder_lease(resp) == l->lease)
        set_leading(l, true);
    watch_key(l, resp->header != NULL ? resp->header->revision : 0);
}

/* txn(create_revision(key) == 0) put(key, identity, lease) else range(key). */
static void
campaign(gw_leader_t *l)
{
    etcd_bytes_t key = etcd_str(l->key);
    etcd_cmp_t cmp = {.key = key, .target = ETCD_CMP_CREATE, .result = ETCD_CMP_EQUAL};
    etcd_op_t put = {
        .kind = ETCD_OP_PUT, .key = key, .value = etcd_str(l->identity), .lease = l->lease};
    etcd_op_t get = {.kind = ETCD_OP_RANGE, .key = key};
    etcd_txn_req_t txn = {.cmps = &cmp,
                          .n_cmps = 1,
                          .success = &put,
                          .n_success = 1,
                          .failure = &get,
                          .n_failure = 1};
    op_t *op = op_new(l);

    evtimer_del(l->retry); /* one step at a time */
    if (etcd_txn(l->conn, &txn, campaigned, op) != 0)
        abort(); /* well-formed by construction */
}

/* ---- the lease --------------------------------------------------------------------------- */

static void
arm_deadline(gw_leader_t *l)
{
    /* Two thirds of the TTL, as kube's renew deadline (10 s of 15 s). */
    add_timer(l->deadline, l->ttl_s * 2000 / 3);
}

static void
on_deadline(evutil_socket_t fd, short what, void *arg)
{
    gw_leader_t *l = arg;
    (void)fd, (void)what;
    gw_log_warn(NULL, "leader election %s: lease %lld not renewed for %lld ms; giving it up",
                l->key, (long long)l->lease, (long long)(l->ttl_s * 2000 / 3));
    drop_lease(l, true);
}

static void
kept(int err, const Etcdserverpb__LeaseKeepAliveResponse *resp, void *arg)
{
    op_t *op = arg;
    gw_leader_t *l = op->l;
    (void)resp;

    if (!op_current(op, err != 0))
        return;
    if (err == 0) {
        arm_deadline(l);
        return;
    }
    gw_log_info(NULL, "leader election %s: lease %lld lost (%s)", l->key, (long long)l->lease,
                gw_strerror(err));
    l->ka = NULL; /* the keepalive is over */
    drop_lease(l, err != GW_ENOTFOUND);
}

static void
granted(int err, const Etcdserverpb__LeaseGrantResponse *resp, void *arg)
{
    op_t *op = arg;
    gw_leader_t *l = op->l;
    op_t *ka_op;

    if (!op_current(op, true))
        return;
    if (err != 0) {
        failed(l, "lease grant", err);
        return;
    }
    succeeded(l);
    l->lease = resp->id;
    ka_op = op_new(l);
    l->ka = etcd_keepalive_start(l->conn, l->lease, l->ttl_s * 1000 / 3, kept, ka_op);
    if (l->ka == NULL)
        abort(); /* the lease id and interval are positive */
    arm_deadline(l);
    campaign(l);
}

static void
grant(gw_leader_t *l)
{
    op_t *op = op_new(l);

    evtimer_del(l->retry); /* one step at a time */
    if (etcd_lease_grant(l->conn, l->ttl_s, 0, granted, op) != 0)
        abort(); /* the TTL is positive */
}

/* ---- owner ------------------------------------------------------------------------------- */

static void
destroy(gw_leader_t *l)
{
    event_free(l->retry);
    event_free(l->deadline);
    event_free(l->notify);
    free(l->key);
    free(l->identity);
    free(l);
}

/* Tell the owner what changed since the last report. A loss and a new term in between two
 * reports are both told, in order. Returns false when the owner stopped l meanwhile. */
static bool
report_one(gw_leader_t *l, bool elected)
{
    gw_leader_fn fn = elected ? l->on_elected : l->on_lost;

    l->reported = elected;
    l->reported_term = l->term;
    gw_log_info(NULL, "leader election %s: %s as %s", l->key,
                elected ? "leading" : "no longer leading", l->identity);
    if (fn == NULL)
        return true;
    l->reporting = true;
    fn(l, l->ctx);
    l->reporting = false;
    return !l->stopped;
}

static void
on_notify(evutil_socket_t fd, short what, void *arg)
{
    gw_leader_t *l = arg;
    (void)fd, (void)what;

    if (l->reported && (!l->leading || l->reported_term != l->term) && !report_one(l, false)) {
        destroy(l);
        return;
    }
    if (!l->reported && l->leading && !report_one(l, true))
        destroy(l);
}

char *
gw_leader_key(const char *etcd_prefix, const char *name)
{
    size_t n = strlen(etcd_prefix);

    while (n > 0 && etcd_prefix[n - 1] == '/')
        n--;
    return gw_sprintf("/kgate/leader%s%.*s/%s", n > 0 && etcd_prefix[0] != '/' ? "/" : "", (int)n,
                      etcd_prefix, name);
}

gw_leader_t *
gw_leader_start(etcd_client_t *client, struct event_base *base, const gw_leader_opts_t *opts)
{
    gw_leader_t *l;

    if (opts->key == NULL || opts->key[0] == '\0' || opts->identity == NULL ||
        opts->identity[0] == '\0' || opts->ttl_s < 0)
        return NULL;
    l = gw_calloc(1, sizeof(*l));
    l->client = client;
    l->conn = etcd_conn_new(client, base);
    l->key = gw_strdup(opts->key);
    l->identity = gw_strdup(opts->identity);
    l->ttl_s = opts->ttl_s > 0 ? opts->ttl_s : GW_LEADER_TTL_S;
    l->on_elected = opts->on_elected;
    l->on_lost = opts->on_lost;
    l->ctx = opts->ctx;
    l->retry = evtimer_new(base, on_retry, l);
    l->deadline = evtimer_new(base, on_deadline, l);
    l->notify = event_new(base, -1, 0, on_notify, l);
    if (l->retry == NULL || l->deadline == NULL || l->notify == NULL)
        abort();
    grant(l);
    return l;
}

bool
gw_leader_is_leader(const gw_leader_t *l)
{
    return l->reported;
}

static void
revoke_done(int err, const Etcdserverpb__LeaseRevokeResponse *resp, void *arg)
{
    (void)resp;
    *(int *)arg = err;
}

static void
revoke_deadline(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    *(int *)arg = GW_ETIMEOUT;
}

/* Revoke the lease and wait for the answer, on a private loop: the caller's may be ending. */
static void
release(etcd_client_t *client, int64_t lease, const char *key)
{
    int result = 1; /* no answer yet */
    struct event_base *base = event_base_new();
    etcd_conn_t *conn = etcd_conn_new(client, base);
    struct event *deadline = evtimer_new(base, revoke_deadline, &result);

    add_timer(deadline, RELEASE_WAIT_MS);
    if (etcd_lease_revoke(conn, lease, revoke_done, &result) == 0) {
        while (result == 1)
            event_base_loop(base, EVLOOP_ONCE);
    }
    etcd_conn_free(conn); /* a revoke still running is cancelled: its callback fires here */
    if (result != 0 && result != GW_ENOTFOUND)
        gw_log_warn(NULL, "leader election %s: releasing lease %lld failed: %s", key,
                    (long long)lease, gw_strerror(result));
    event_free(deadline);
    event_base_free(base);
}

void
gw_leader_stop(gw_leader_t *l)
{
    if (l == NULL)
        return;
    l->stopping = true;
    etcd_conn_free(l->conn); /* every callback fires now, and sees `stopping` */
    l->conn = NULL;
    if (l->lease != 0)
        release(l->client, l->lease, l->key);
    event_del(l->retry);
    event_del(l->deadline);
    event_del(l->notify);
    if (l->reporting)
        l->stopped = true; /* on_notify frees it when the owner's callback returns */
    else
        destroy(l);
}
