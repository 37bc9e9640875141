/*
 * Mailboxes between the hub thread and the workers: a locked FIFO whose receiving loop is
 * woken with event_active, and drained whole on each wake so that a burst costs one wake-up.
 */
#include "gw_watch_int.h"

#include <stdlib.h>

#include <event2/event.h>

#include "gw_alloc.h"

typedef struct {
    gw_watch__mailbox_t *mb;
    gw_watch__deliver_fn deliver;
    void *arg;
} wake_ctx_t;

static void
on_wake(evutil_socket_t fd, short what, void *arg)
{
    wake_ctx_t *c = arg;
    gw_watch__msg_t *m, *next;

    (void)fd;
    (void)what;
    pthread_mutex_lock(&c->mb->lock);
    m = c->mb->head;
    c->mb->head = c->mb->tail = NULL;
    pthread_mutex_unlock(&c->mb->lock);
    for (; m != NULL; m = next) {
        next = m->next;
        c->deliver(m, c->arg);
    }
}

void
gw_watch__mailbox_init(gw_watch__mailbox_t *mb)
{
    pthread_mutex_init(&mb->lock, NULL);
    mb->head = mb->tail = NULL;
    mb->wake = NULL;
    mb->closed = true;
}

void
gw_watch__mailbox_open(gw_watch__mailbox_t *mb, struct event_base *base,
                       gw_watch__deliver_fn deliver, void *arg)
{
    wake_ctx_t *c = gw_calloc(1, sizeof(*c));
    struct event *wake = event_new(base, -1, 0, on_wake, c);

    if (wake == NULL)
        abort();
    *c = (wake_ctx_t){.mb = mb, .deliver = deliver, .arg = arg};
    pthread_mutex_lock(&mb->lock);
    mb->wake = wake;
    mb->closed = false;
    pthread_mutex_unlock(&mb->lock);
}

bool
gw_watch__mailbox_post(gw_watch__mailbox_t *mb, gw_watch__msg_t *m)
{
    bool was_empty;

    m->next = NULL;
    pthread_mutex_lock(&mb->lock);
    if (mb->closed) {
        pthread_mutex_unlock(&mb->lock);
        return false;
    }
    was_empty = mb->head == NULL;
    if (was_empty)
        mb->head = m;
    else
        mb->tail->next = m;
    mb->tail = m;
    /* Under the lock, so that the receiver cannot free the event meanwhile (it closes first). */
    if (was_empty)
        event_active(mb->wake, EV_TIMEOUT, 0);
    pthread_mutex_unlock(&mb->lock);
    return true;
}

gw_watch__msg_t *
gw_watch__mailbox_close(gw_watch__mailbox_t *mb)
{
    gw_watch__msg_t *m;
    struct event *wake;

    pthread_mutex_lock(&mb->lock);
    mb->closed = true;
    m = mb->head;
    mb->head = mb->tail = NULL;
    wake = mb->wake;
    mb->wake = NULL;
    pthread_mutex_unlock(&mb->lock);
    if (wake != NULL) {
        free(event_get_callback_arg(wake));
        event_free(wake);
    }
    return m;
}

void
gw_watch__mailbox_cleanup(gw_watch__mailbox_t *mb)
{
    gw_watch__msg_t *m = gw_watch__mailbox_close(mb), *next;

    for (; m != NULL; m = next) {
        next = m->next;
        gw_watch__msg_free(m);
    }
    pthread_mutex_destroy(&mb->lock);
}

gw_watch__msg_t *
gw_watch__msg_new(gw_watch__msg_kind_t kind)
{
    gw_watch__msg_t *m = gw_calloc(1, sizeof(*m));

    m->kind = kind;
    return m;
}

void
gw_watch__msg_free(gw_watch__msg_t *m)
{
    if (m->hub != NULL)
        gw_watch__hub_unref(m->hub);
    gw_wev_unref(m->ev);
    for (size_t i = 0; i < m->n_evs; i++)
        gw_wev_unref(m->evs[i]);
    free(m->evs);
    free(m->collection);
    free(m);
}
