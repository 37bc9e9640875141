#ifndef TESTS_INTEGRATION_STORAGE_STORE_HARNESS_H
#define TESTS_INTEGRATION_STORAGE_STORE_HARNESS_H

/*
 * Helpers shared by the storage integration tests: an etcd client for $KGATE_TEST_ETCD, one
 * event_base + conn + store per thread, and blocking wrappers that run the loop until an
 * asynchronous call has answered. Header-only (static inline) so each test includes it once.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "etcd.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_store.h"
#include "tap.h"

/* A hung test is killed rather than left blocking the suite. */
#define HARNESS_TIMEOUT_S 240

typedef struct {
    struct event_base *base;
    etcd_conn_t *conn;
    gw_store_t *store;
} harness_t;

/** The test's etcd client; skips the whole test when $KGATE_TEST_ETCD is unset. */
static inline etcd_client_t *
harness_client(void)
{
    const char *url = getenv("KGATE_TEST_ETCD");
    etcd_client_t *c = NULL;
    char err[256];

    if (url == NULL || url[0] == '\0')
        tap_skip_all("KGATE_TEST_ETCD is not set");
    alarm(HARNESS_TIMEOUT_S);
    evthread_use_pthreads();
    if (etcd_client_new(&(etcd_config_t){.servers = url}, &c, err, sizeof(err)) != 0) {
        printf("Bail out! etcd client: %s\n", err);
        exit(1);
    }
    return c;
}

/** Open a base, conn and store (prefix) for the calling thread. */
static inline void
harness_open(harness_t *h, etcd_client_t *c, const char *prefix)
{
    h->base = event_base_new();
    h->conn = etcd_conn_new(c, h->base);
    h->store = gw_store_new(h->conn, prefix, NULL);
}

static inline void
harness_close(harness_t *h)
{
    etcd_conn_free(h->conn);
    gw_store_free(h->store);
    event_base_free(h->base);
}

/** Run h's loop until *flag is set. */
static inline void
harness_wait(harness_t *h, const bool *flag)
{
    while (!*flag)
        event_base_loop(h->base, EVLOOP_ONCE);
}

static inline void
sleep_cb_(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    *(bool *)arg = true;
}

/** Run h's loop for ms milliseconds (to see that nothing more arrives). */
static inline void
harness_run_for(harness_t *h, int ms)
{
    bool done = false;
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    struct event *t = evtimer_new(h->base, sleep_cb_, &done);

    evtimer_add(t, &tv);
    harness_wait(h, &done);
    event_free(t);
}

/* ---- results ----------------------------------------------------------------------------- */

/** A copy of one callback's outcome. */
typedef struct {
    bool done;
    int err;
    bool has_obj;
    char *key;
    char *value; /* NUL-terminated copy of the value */
    size_t len;
    int64_t mod;
    int64_t create;
    int64_t lease;
    int64_t rev;
} result_t;

static inline void
result_clear(result_t *r)
{
    free(r->key);
    free(r->value);
    memset(r, 0, sizeof(*r));
}

static inline void
result_set(result_t *r, int err, const gw_obj_t *obj)
{
    result_clear(r);
    r->done = true;
    r->err = err;
    if (obj == NULL)
        return;
    r->has_obj = true;
    r->key = gw_strdup(obj->key);
    r->value = gw_strndup((const char *)obj->value, obj->value_len);
    r->len = obj->value_len;
    r->mod = obj->mod_revision;
    r->create = obj->create_revision;
    r->lease = obj->lease;
}

static inline void
result_obj_cb(int err, const gw_obj_t *obj, void *ctx)
{
    result_set(ctx, err, obj);
}

static inline void
result_rev_cb(int err, int64_t rev, void *ctx)
{
    result_t *r = ctx;

    result_set(r, err, NULL);
    r->rev = rev;
}

/* ---- blocking wrappers: each returns the callback's error (or the start error) ----------- */

static inline int
finish_(harness_t *h, result_t *r, int rc)
{
    if (rc != 0)
        return rc;
    harness_wait(h, &r->done);
    return r->err;
}

static inline int
h_create(harness_t *h, const char *key, const char *val, result_t *r)
{
    result_clear(r);
    return finish_(
        h, r,
        gw_store_create(h->store, key, (const uint8_t *)val, strlen(val), 0, result_obj_cb, r));
}

static inline int
h_update(harness_t *h, const char *key, const char *val, int64_t expected, result_t *r)
{
    result_clear(r);
    return finish_(h, r,
                   gw_store_update(h->store, key, (const uint8_t *)val, strlen(val), expected,
                                   result_obj_cb, r));
}

static inline int
h_delete(harness_t *h, const char *key, int64_t expected, result_t *r)
{
    result_clear(r);
    return finish_(h, r, gw_store_delete(h->store, key, expected, result_obj_cb, r));
}

static inline int
h_get(harness_t *h, const char *key, int64_t rev, result_t *r)
{
    result_clear(r);
    return finish_(h, r, gw_store_get(h->store, key, rev, result_obj_cb, r));
}

/** The store's current revision (-1 on error). */
static inline int64_t
h_rev(harness_t *h)
{
    result_t r = {0};
    int rc = finish_(h, &r, gw_store_current_revision(h->store, result_rev_cb, &r));
    int64_t rev = rc == 0 ? r.rev : -1;

    result_clear(&r);
    return rev;
}

#endif
