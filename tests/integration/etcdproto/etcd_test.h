#ifndef TESTS_INTEGRATION_ETCDPROTO_ETCD_TEST_H
#define TESTS_INTEGRATION_ETCDPROTO_ETCD_TEST_H

/*
 * Shared by the etcd client's integration tests: an event_base + client + conn on the test's
 * main thread, a bounded "run the loop until this is done" and callbacks that record what
 * they were given (a copy of the response, the thread they ran on, how often they ran).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <protobuf-c/protobuf-c.h>

#include "etcd.h"
#include "gw_err.h"
#include "tap.h"

typedef struct {
    struct event_base *base;
    etcd_client_t *client;
    etcd_conn_t *conn;
    pthread_t thread; /* the one running base */
} et_env_t;

/** What one callback saw. `resp` is a copy the test owns (et_result_clear frees it). */
typedef struct {
    int calls;
    int err;
    bool wrong_thread;
    pthread_t expect_thread;
    ProtobufCMessage *resp;
} et_result_t;

static inline ProtobufCMessage *
et_copy(const ProtobufCMessage *m)
{
    if (m == NULL)
        return NULL;
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    protobuf_c_message_pack(m, buf);
    ProtobufCMessage *copy = protobuf_c_message_unpack(m->descriptor, NULL, n, buf);
    free(buf);
    return copy;
}

static inline void
et_result_clear(et_result_t *r)
{
    if (r->resp != NULL)
        protobuf_c_message_free_unpacked(r->resp, NULL);
    memset(r, 0, sizeof(*r));
    r->expect_thread = pthread_self();
}

static inline void
et_record(et_result_t *r, int err, const ProtobufCMessage *resp)
{
    r->calls++;
    r->err = err;
    if (!pthread_equal(pthread_self(), r->expect_thread))
        r->wrong_thread = true;
    if (r->resp != NULL)
        protobuf_c_message_free_unpacked(r->resp, NULL);
    r->resp = et_copy(resp);
}

#define ET_CB(name, resp_type)                                                                     \
    static inline void name(int err, const resp_type *resp, void *ctx)                             \
    {                                                                                              \
        et_record(ctx, err, resp != NULL ? &resp->base : NULL);                                    \
    }

ET_CB(et_range_cb, Etcdserverpb__RangeResponse)
ET_CB(et_put_cb, Etcdserverpb__PutResponse)
ET_CB(et_delete_cb, Etcdserverpb__DeleteRangeResponse)
ET_CB(et_txn_cb, Etcdserverpb__TxnResponse)
ET_CB(et_compact_cb, Etcdserverpb__CompactionResponse)
ET_CB(et_status_cb, Etcdserverpb__StatusResponse)
ET_CB(et_grant_cb, Etcdserverpb__LeaseGrantResponse)
ET_CB(et_revoke_cb, Etcdserverpb__LeaseRevokeResponse)

static inline void
et_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    *(bool *)arg = true;
}

/** Run the loop until *count >= want or ms pass. Returns whether the count was reached. */
static inline bool
et_wait_count(et_env_t *e, const int *count, int want, int ms)
{
    bool expired = false;
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    struct event *t = evtimer_new(e->base, et_timeout, &expired);
    evtimer_add(t, &tv);
    while (*count < want && !expired)
        event_base_loop(e->base, EVLOOP_ONCE);
    event_free(t);
    return *count >= want;
}

/** Run the loop for ms, whatever happens. */
static inline void
et_run_for(et_env_t *e, int ms)
{
    int never = 0;
    et_wait_count(e, &never, 1, ms);
}

/** Wait (up to 20 s) for one callback into r. */
static inline bool
et_wait(et_env_t *e, et_result_t *r)
{
    return et_wait_count(e, &r->calls, 1, 20000);
}

static inline int
et_open(et_env_t *e, const etcd_config_t *cfg, char *err, size_t err_len)
{
    memset(e, 0, sizeof(*e));
    e->thread = pthread_self();
    int rc = etcd_client_new(cfg, &e->client, err, err_len);
    if (rc != 0)
        return rc;
    e->base = event_base_new();
    e->conn = etcd_conn_new(e->client, e->base);
    return 0;
}

static inline void
et_close(et_env_t *e)
{
    etcd_conn_free(e->conn);
    etcd_client_free(e->client);
    if (e->base != NULL)
        event_base_free(e->base);
    memset(e, 0, sizeof(*e));
}

/** The etcd URL of the run, or skip the whole test. Sets libevent up for threads. */
static inline const char *
et_servers_or_skip(void)
{
    const char *url = getenv("KGATE_TEST_ETCD");
    if (url == NULL || url[0] == '\0')
        tap_skip_all("KGATE_TEST_ETCD is not set");
    evthread_use_pthreads();
    return url;
}

/** A key prefix unique to this process, so runs sharing an etcd do not meet. */
static inline const char *
et_prefix(const char *test)
{
    static char buf[128];
    snprintf(buf, sizeof(buf), "/kgate-test/%s/%d/", test, (int)getpid());
    return buf;
}

/** Key = prefix + suffix, in a static rotating buffer (valid for a few calls). */
static inline const char *
et_key(const char *prefix, const char *suffix)
{
    static char bufs[8][256];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof(bufs[0]), "%s%s", prefix, suffix);
    return b;
}

/** Synchronous put for set-up; returns the new revision or -1. */
static inline int64_t
et_put_sync(et_env_t *e, const char *key, const char *value)
{
    et_result_t r;
    memset(&r, 0, sizeof(r));
    et_result_clear(&r);
    int64_t rev = -1;
    if (etcd_put(e->conn, etcd_str(key), etcd_str(value), 0, false, et_put_cb, &r) == 0 &&
        et_wait(e, &r) && r.err == 0)
        rev = ((Etcdserverpb__PutResponse *)r.resp)->header->revision;
    et_result_clear(&r);
    return rev;
}

/** The prefix's range end ("abc" -> "abd"), in a static buffer. */
static inline etcd_bytes_t
et_prefix_end(const char *prefix)
{
    static char buf[256];
    size_t n = strlen(prefix);
    memcpy(buf, prefix, n);
    buf[n - 1]++;
    return (etcd_bytes_t){(const uint8_t *)buf, n};
}

/* Watch every key under prefix from start (0: now); the prefix is copied into the request
 * before the call returns. */
static inline etcd_watch_t *
et_watch_prefix(et_env_t *e, const char *prefix, int64_t start, etcd_watch_cb cb, void *ctx)
{
    etcd_watch_req_t q = {
        .key = etcd_str(prefix), .range_end = et_prefix_end(prefix), .start_revision = start};
    return etcd_watch_start(e->conn, &q, cb, ctx);
}

/* A put retried every 100 ms, up to `tries` times, while the cluster is unavailable; counts
 * the failed attempts in *failures. The revision, or -1. */
static inline int64_t
et_put_retry(et_env_t *e, const char *key, int tries, int *failures)
{
    for (int i = 0; i < tries; i++) {
        int64_t rev = et_put_sync(e, key, "v");
        if (rev > 0)
            return rev;
        (*failures)++;
        et_run_for(e, 100);
    }
    return -1;
}

#endif
