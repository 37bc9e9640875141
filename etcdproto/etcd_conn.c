/*
 * The per-event_base dispatcher. The completion-queue thread appends finished batches to a
 * mutex-protected list and makes the conn's event active; the event runs them on the base's
 * thread. A conn also tracks everything started through it, so that freeing it can cancel
 * them all and wait until each has delivered its last callback.
 */
#include "etcd.h"

#include <assert.h>
#include <stdlib.h>

#include <event2/event.h>

#include "etcd_int.h"
#include "gw_alloc.h"

/* Completions run per activation before yielding to the loop's other events. */
#define DISPATCH_BATCH 256

static etcd__op_t *
pop(etcd_conn_t *conn)
{
    pthread_mutex_lock(&conn->lock);
    etcd__op_t *op = conn->head;
    if (op != NULL) {
        conn->head = op->next;
        if (conn->head == NULL)
            conn->tail = NULL;
    }
    pthread_mutex_unlock(&conn->lock);
    return op;
}

static void
conn_destroy(etcd_conn_t *conn)
{
    atomic_fetch_sub(&conn->client->n_conns, 1);
    event_free(conn->ev);
    pthread_cond_destroy(&conn->posted);
    pthread_mutex_destroy(&conn->lock);
    free(conn);
}

/* The conn's event: run what has completed, then let other events have a turn. */
static void
dispatch(evutil_socket_t fd, short what, void *arg)
{
    etcd_conn_t *conn = arg;
    etcd__op_t *op = NULL;
    (void)fd;
    (void)what;
    conn->dispatching = true;
    for (int i = 0; i < DISPATCH_BATCH && !conn->freed; i++) {
        op = pop(conn);
        if (op == NULL)
            break;
        op->complete(op);
    }
    conn->dispatching = false;
    if (conn->freed) {
        conn_destroy(conn); /* etcd_conn_free ran inside a callback and left this to us */
        return;
    }
    if (op != NULL)
        event_active(conn->ev, 0, 0); /* more may be waiting: come back after other events */
}

void
etcd__conn_post(etcd__op_t *op)
{
    etcd_conn_t *conn = op->conn;
    op->next = NULL;
    /* Everything under the lock, event_active included: once etcd_conn_free has seen the
     * last completion under this lock, no thread touches the conn any more. */
    pthread_mutex_lock(&conn->lock);
    if (conn->tail != NULL)
        conn->tail->next = op;
    else
        conn->head = op;
    conn->tail = op;
    pthread_cond_signal(&conn->posted);
    event_active(conn->ev, 0, 0);
    pthread_mutex_unlock(&conn->lock);
}

void
etcd__conn_track(etcd_conn_t *conn, etcd__live_t *live, void (*cancel)(etcd__live_t *))
{
    live->cancel = cancel;
    live->next = conn->live.next;
    live->prev = &conn->live;
    conn->live.next->prev = live;
    conn->live.next = live;
}

void
etcd__conn_untrack(etcd__live_t *live)
{
    live->prev->next = live->next;
    live->next->prev = live->prev;
    live->prev = live->next = live;
}

etcd_conn_t *
etcd_conn_new(etcd_client_t *c, struct event_base *base)
{
    etcd_conn_t *conn = gw_calloc(1, sizeof(*conn));
    conn->client = c;
    conn->base = base;
    conn->ev = event_new(base, -1, 0, dispatch, conn);
    assert(conn->ev != NULL);
    pthread_mutex_init(&conn->lock, NULL);
    pthread_cond_init(&conn->posted, NULL);
    conn->live.next = conn->live.prev = &conn->live;
    atomic_fetch_add(&c->n_conns, 1);
    return conn;
}

/* Wait for the next completion and run it (etcd_conn_free's own little loop). */
static void
run_next(etcd_conn_t *conn)
{
    pthread_mutex_lock(&conn->lock);
    while (conn->head == NULL)
        pthread_cond_wait(&conn->posted, &conn->lock);
    pthread_mutex_unlock(&conn->lock);
    etcd__op_t *op = pop(conn);
    op->complete(op);
}

void
etcd_conn_free(etcd_conn_t *conn)
{
    if (conn == NULL)
        return;
    /* Inside a stream callback, that stream cannot finish before we return (etcd.h). */
    assert(conn->in_stream_cb == 0);
    conn->closing = true;
    /* Each cancel either finishes its object now or makes gRPC return its tags soon. */
    for (etcd__live_t *l = conn->live.next, *next; l != &conn->live; l = next) {
        next = l->next;
        l->cancel(l);
    }
    while (conn->live.next != &conn->live)
        run_next(conn);
    /* The last post may still be inside its critical section: wait it out. */
    pthread_mutex_lock(&conn->lock);
    assert(conn->head == NULL);
    pthread_mutex_unlock(&conn->lock);
    if (conn->dispatching)
        conn->freed = true;
    else
        conn_destroy(conn);
}
