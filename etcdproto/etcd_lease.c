/*
 * Leases: grant and revoke are unary calls; a keepalive is a LeaseKeepAlive stream on which a
 * timer sends the lease id every interval. etcd answers an unknown (expired or revoked) lease
 * with a TTL of 0 rather than an error, which ends the keepalive with GW_ENOTFOUND. A broken
 * stream is opened again on the current endpoint after a backoff, and renewal resumes.
 */
#include "etcd.h"

#include <stdlib.h>

#include <event2/event.h>

#include "etcd_int.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_log.h"

ETCD__DELIVER(deliver_grant, etcd_lease_grant_cb, Etcdserverpb__LeaseGrantResponse)
ETCD__DELIVER(deliver_revoke, etcd_lease_revoke_cb, Etcdserverpb__LeaseRevokeResponse)

static const etcd__method_t m_grant = {"/etcdserverpb.Lease/LeaseGrant",
                                       &etcdserverpb__lease_grant_response__descriptor, false,
                                       deliver_grant};
static const etcd__method_t m_revoke = {"/etcdserverpb.Lease/LeaseRevoke",
                                        &etcdserverpb__lease_revoke_response__descriptor, false,
                                        deliver_revoke};
static const char keepalive_path[] = "/etcdserverpb.Lease/LeaseKeepAlive";

int
etcd_lease_grant(etcd_conn_t *conn, int64_t ttl_seconds, int64_t id, etcd_lease_grant_cb cb,
                 void *ctx)
{
    if (ttl_seconds <= 0 || id < 0)
        return GW_EINVAL;
    Etcdserverpb__LeaseGrantRequest r = ETCDSERVERPB__LEASE_GRANT_REQUEST__INIT;
    r.ttl = ttl_seconds;
    r.id = id;
    return etcd__unary_start(conn, &m_grant, &r.base, (void (*)(void))cb, ctx);
}

int
etcd_lease_revoke(etcd_conn_t *conn, int64_t id, etcd_lease_revoke_cb cb, void *ctx)
{
    if (id <= 0)
        return GW_EINVAL;
    Etcdserverpb__LeaseRevokeRequest r = ETCDSERVERPB__LEASE_REVOKE_REQUEST__INIT;
    r.id = id;
    return etcd__unary_start(conn, &m_revoke, &r.base, (void (*)(void))cb, ctx);
}

/* ---- keepalive -------------------------------------------------------------------------- */

struct etcd_keepalive {
    etcd__live_t live;
    etcd__stream_t stream;
    int64_t id;
    etcd_keepalive_cb cb;
    void *ctx;
    struct event *tick;   /* every interval: send the id */
    struct event *reopen; /* backoff before reopening the stream */
    unsigned attempt;     /* reopens since the last response */
    bool stopped;         /* etcd_keepalive_stop or etcd_conn_free */
    bool ended;           /* a terminal callback was delivered */
};

static void
send_id(etcd_keepalive_t *ka, bool open)
{
    Etcdserverpb__LeaseKeepAliveRequest r = ETCDSERVERPB__LEASE_KEEP_ALIVE_REQUEST__INIT;
    r.id = ka->id;
    ka->stream.quiet = ka->attempt > 0;
    if (open)
        etcd__stream_open(&ka->stream, &r.base);
    else
        etcd__stream_send(&ka->stream, &r.base);
}

static void
finish(etcd_keepalive_t *ka, int err)
{
    etcd__conn_untrack(&ka->live);
    if (!ka->ended)
        ka->cb(err, NULL, ka->ctx);
    event_free(ka->tick);
    event_free(ka->reopen);
    etcd__stream_cleanup(&ka->stream);
    free(ka);
}

static void
on_message(etcd__stream_t *s, const ProtobufCMessage *msg)
{
    etcd_keepalive_t *ka = ETCD__CONTAINER_OF(s, etcd_keepalive_t, stream);
    const Etcdserverpb__LeaseKeepAliveResponse *r =
        (const Etcdserverpb__LeaseKeepAliveResponse *)msg;
    if (ka->ended || ka->stopped)
        return;
    ka->attempt = 0;
    if (r->ttl > 0) {
        ka->cb(0, r, ka->ctx);
        return;
    }
    ka->ended = true; /* the lease expired or was revoked: nothing left to renew */
    event_del(ka->tick);
    etcd__stream_cancel(&ka->stream);
    ka->cb(GW_ENOTFOUND, NULL, ka->ctx);
}

static void
on_closed(etcd__stream_t *s, int err)
{
    etcd_keepalive_t *ka = ETCD__CONTAINER_OF(s, etcd_keepalive_t, stream);
    if (ka->ended || ka->stopped) {
        finish(ka, GW_ECANCELED);
        return;
    }
    if (etcd__status_permanent(s->status)) {
        finish(ka, GW_EINTERNAL);
        return;
    }
    GW_LOG_AT(ka->attempt > 0 ? GW_LOG_DEBUG : GW_LOG_INFO, NULL,
              "etcd keepalive stream for lease %lld ended (%s); reopening", (long long)ka->id,
              gw_errname(err));
    struct timeval tv = etcd__backoff(ka->attempt++);
    evtimer_add(ka->reopen, &tv);
}

static const etcd__stream_ops_t keepalive_ops = {.on_message = on_message, .on_closed = on_closed};

static void
tick(evutil_socket_t fd, short what, void *arg)
{
    etcd_keepalive_t *ka = arg;
    (void)fd;
    (void)what;
    if (etcd__stream_is_open(&ka->stream))
        send_id(ka, false);
}

static void
reopen(evutil_socket_t fd, short what, void *arg)
{
    etcd_keepalive_t *ka = arg;
    (void)fd;
    (void)what;
    if (ka->stopped)
        finish(ka, GW_ECANCELED);
    else
        send_id(ka, true);
}

static void
live_cancel(etcd__live_t *live)
{
    etcd_keepalive_t *ka = ETCD__CONTAINER_OF(live, etcd_keepalive_t, live);
    ka->stopped = true;
    event_del(ka->tick);
    if (etcd__stream_is_open(&ka->stream))
        etcd__stream_cancel(&ka->stream);
    else
        finish(ka, GW_ECANCELED);
}

etcd_keepalive_t *
etcd_keepalive_start(etcd_conn_t *conn, int64_t lease_id, int64_t interval_ms, etcd_keepalive_cb cb,
                     void *ctx)
{
    if (lease_id <= 0 || interval_ms <= 0 || cb == NULL)
        return NULL;
    etcd_keepalive_t *ka = gw_calloc(1, sizeof(*ka));
    ka->id = lease_id;
    ka->cb = cb;
    ka->ctx = ctx;
    ka->tick = event_new(conn->base, -1, EV_PERSIST, tick, ka);
    ka->reopen = evtimer_new(conn->base, reopen, ka);
    struct timeval tv = {interval_ms / 1000, (interval_ms % 1000) * 1000};
    event_add(ka->tick, &tv);
    etcd__stream_init(&ka->stream, conn, keepalive_path,
                      &etcdserverpb__lease_keep_alive_response__descriptor, &keepalive_ops);
    etcd__conn_track(conn, &ka->live, live_cancel);
    send_id(ka, true);
    return ka;
}

void
etcd_keepalive_stop(etcd_keepalive_t *ka)
{
    if (ka->stopped || ka->ended)
        return;
    ka->stopped = true;
    event_del(ka->tick);
    if (etcd__stream_is_open(&ka->stream))
        etcd__stream_cancel(&ka->stream);
    else
        event_active(ka->reopen, EV_TIMEOUT, 0);
}
