/*
 * The keyed work queue (see gw_workqueue.h). A key is "dirty" from the add that makes it ready
 * until it is handed out; a dirty key that is not being processed sits in the ready list. Keys
 * waiting for a delay sit in an array (queues are small: a controller's keys), the earliest
 * due arming one timer.
 */
#include "gw_workqueue.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <jansson.h>

#include "gw_alloc.h"
#include "gw_clock.h"

#define DEFAULT_BASE_DELAY_MS 5
#define DEFAULT_MAX_DELAY_MS 1000000

typedef struct ready {
    struct ready *next;
    char *key;
} ready_t;

typedef struct {
    char *key;
    int64_t due_ms;
    uint64_t seq; /* order of the adds, among keys due at the same time */
} waiting_t;

struct gw_workqueue {
    gw_workqueue_opts_t o;
    ready_t *head, *tail; /* dirty keys not being processed, in order */
    size_t n_ready;
    json_t *dirty;    /* key -> true: ready, or added while being processed */
    json_t *active;   /* key -> true: handed out, not yet done */
    json_t *failures; /* key -> the number of rate-limited adds since the last forget */
    waiting_t *waiting;
    size_t n_waiting, cap_waiting;
    uint64_t seq;
    struct event *dispatch, *timer;
    bool shut;
};

static void
push_ready(gw_workqueue_t *q, const char *key)
{
    ready_t *r = gw_calloc(1, sizeof(*r));

    r->key = gw_strdup(key);
    if (q->tail != NULL)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
    q->n_ready++;
    event_active(q->dispatch, 0, 0);
}

/* Hand out ready keys while fewer than max_active are being processed. */
static void
on_dispatch(evutil_socket_t fd, short what, void *arg)
{
    gw_workqueue_t *q = arg;
    (void)fd, (void)what;

    while (!q->shut && q->head != NULL && json_object_size(q->active) < q->o.max_active) {
        ready_t *r = q->head;
        q->head = r->next;
        if (q->head == NULL)
            q->tail = NULL;
        q->n_ready--;
        json_object_del(q->dirty, r->key);
        json_object_set_new(q->active, r->key, json_true());
        q->o.process(q, r->key, q->o.ctx);
        free(r->key);
        free(r);
    }
}

void
gw_workqueue_add(gw_workqueue_t *q, const char *key)
{
    if (q->shut || json_object_get(q->dirty, key) != NULL)
        return;
    json_object_set_new(q->dirty, key, json_true());
    if (json_object_get(q->active, key) == NULL)
        push_ready(q, key);
}

void
gw_workqueue_done(gw_workqueue_t *q, const char *key)
{
    if (json_object_get(q->active, key) == NULL)
        return;
    json_object_del(q->active, key);
    if (!q->shut && json_object_get(q->dirty, key) != NULL)
        push_ready(q, key);
    else if (!q->shut && q->head != NULL)
        event_active(q->dispatch, 0, 0); /* a slot is free */
}

/* ---- delays ------------------------------------------------------------------------------ */

/* The waiting entry due first (ties: added first), or NULL. */
static waiting_t *
earliest(gw_workqueue_t *q)
{
    waiting_t *best = NULL;

    for (size_t i = 0; i < q->n_waiting; i++) {
        waiting_t *w = &q->waiting[i];
        if (best == NULL || w->due_ms < best->due_ms ||
            (w->due_ms == best->due_ms && w->seq < best->seq))
            best = w;
    }
    return best;
}

static void
arm(gw_workqueue_t *q)
{
    waiting_t *w = earliest(q);
    int64_t ms;

    event_del(q->timer);
    if (w == NULL || q->shut)
        return;
    ms = w->due_ms - gw_monotonic_ms();
    ms = ms > 0 ? ms : 0;
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    evtimer_add(q->timer, &tv);
}

/* The timer: every key now due becomes ready, earliest first. */
static void
on_timer(evutil_socket_t fd, short what, void *arg)
{
    gw_workqueue_t *q = arg;
    int64_t now = gw_monotonic_ms();
    waiting_t *w;
    (void)fd, (void)what;

    while ((w = earliest(q)) != NULL && w->due_ms <= now) {
        char *key = w->key;
        *w = q->waiting[--q->n_waiting];
        gw_workqueue_add(q, key);
        free(key);
    }
    arm(q);
}

void
gw_workqueue_add_after(gw_workqueue_t *q, const char *key, int64_t delay_ms)
{
    int64_t due = gw_monotonic_ms() + delay_ms;

    if (q->shut)
        return;
    if (delay_ms <= 0) {
        gw_workqueue_add(q, key);
        return;
    }
    for (size_t i = 0; i < q->n_waiting; i++) {
        if (strcmp(q->waiting[i].key, key) != 0)
            continue;
        if (due < q->waiting[i].due_ms) {
            q->waiting[i].due_ms = due;
            arm(q);
        }
        return;
    }
    if (q->n_waiting == q->cap_waiting) {
        q->cap_waiting = q->cap_waiting > 0 ? 2 * q->cap_waiting : 8;
        q->waiting = gw_realloc(q->waiting, q->cap_waiting * sizeof(*q->waiting));
    }
    q->waiting[q->n_waiting++] = (waiting_t){gw_strdup(key), due, q->seq++};
    arm(q);
}

void
gw_workqueue_add_rate_limited(gw_workqueue_t *q, const char *key)
{
    json_int_t n = json_integer_value(json_object_get(q->failures, key));
    int64_t delay = q->o.base_delay_ms;

    for (json_int_t i = 0; i < n && delay < q->o.max_delay_ms; i++)
        delay *= 2;
    if (delay > q->o.max_delay_ms)
        delay = q->o.max_delay_ms;
    json_object_set_new(q->failures, key, json_integer(n + 1));
    gw_workqueue_add_after(q, key, delay);
}

void
gw_workqueue_forget(gw_workqueue_t *q, const char *key)
{
    json_object_del(q->failures, key);
}

/* ---- life ---------------------------------------------------------------------------------- */

gw_workqueue_t *
gw_workqueue_new(struct event_base *base, const gw_workqueue_opts_t *opts)
{
    gw_workqueue_t *q = gw_calloc(1, sizeof(*q));

    q->o = *opts;
    q->o.max_active = opts->max_active > 0 ? opts->max_active : 1;
    q->o.base_delay_ms = opts->base_delay_ms > 0 ? opts->base_delay_ms : DEFAULT_BASE_DELAY_MS;
    q->o.max_delay_ms = opts->max_delay_ms > 0 ? opts->max_delay_ms : DEFAULT_MAX_DELAY_MS;
    q->dirty = json_object();
    q->active = json_object();
    q->failures = json_object();
    q->dispatch = event_new(base, -1, 0, on_dispatch, q);
    q->timer = evtimer_new(base, on_timer, q);
    if (q->dispatch == NULL || q->timer == NULL)
        abort();
    return q;
}

size_t
gw_workqueue_len(const gw_workqueue_t *q)
{
    return q->n_ready;
}

void
gw_workqueue_shutdown(gw_workqueue_t *q)
{
    q->shut = true;
    event_del(q->timer);
    event_del(q->dispatch);
}

void
gw_workqueue_free(gw_workqueue_t *q)
{
    if (q == NULL)
        return;
    gw_workqueue_shutdown(q);
    while (q->head != NULL) {
        ready_t *r = q->head;
        q->head = r->next;
        free(r->key);
        free(r);
    }
    for (size_t i = 0; i < q->n_waiting; i++)
        free(q->waiting[i].key);
    free(q->waiting);
    json_decref(q->dirty);
    json_decref(q->active);
    json_decref(q->failures);
    event_free(q->dispatch);
    event_free(q->timer);
    free(q);
}
