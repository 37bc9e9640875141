/* The bounded buffer of audit events and its writer thread. */
#include "gw_audit_log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "gw_alloc.h"
#include "gw_log.h"

typedef struct {
    char *line;
    size_t len;
} item_t;

struct gw_audit_log {
    gw_audit_file_t *file;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    item_t *ring;
    size_t cap, head, n; /* guarded by mu */
    bool stopping;       /* guarded by mu */
    _Atomic uint64_t dropped, failed;
    _Atomic int64_t last_drop_log; /* seconds: a full buffer is logged once a second */
};

/* Write a batch taken out of the ring, outside the lock. */
static void
write_batch(gw_audit_log_t *l, item_t *batch, size_t n)
{
    char err[256];
    for (size_t i = 0; i < n; i++) {
        if (gw_audit_file_write(l->file, batch[i].line, batch[i].len, err, sizeof(err)) != 0) {
            atomic_fetch_add(&l->failed, 1);
            gw_log_error(NULL, "Error in audit plugin 'log' affecting 1 audit events: %s", err);
        }
        free(batch[i].line);
    }
}

static void *
writer(void *arg)
{
    gw_audit_log_t *l = arg;
    item_t *batch = gw_calloc(l->cap, sizeof(item_t));
    for (;;) {
        size_t n = 0;
        pthread_mutex_lock(&l->mu);
        while (l->n == 0 && !l->stopping)
            pthread_cond_wait(&l->cv, &l->mu);
        if (l->n == 0 && l->stopping) {
            pthread_mutex_unlock(&l->mu);
            break;
        }
        for (; l->n > 0; n++) {
            batch[n] = l->ring[l->head];
            l->head = (l->head + 1) % l->cap;
            l->n--;
        }
        pthread_mutex_unlock(&l->mu);
        write_batch(l, batch, n);
    }
    free(batch);
    return NULL;
}

gw_audit_log_t *
gw_audit_log_start(gw_audit_file_t *f, size_t capacity)
{
    gw_audit_log_t *l = gw_calloc(1, sizeof(*l));
    l->file = f;
    l->cap = capacity > 0 ? capacity : 1;
    l->ring = gw_calloc(l->cap, sizeof(item_t));
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    if (pthread_create(&l->thread, NULL, writer, l) != 0)
        abort(); /* no thread at start-up: nothing sensible to go on with */
    return l;
}

static void
log_drop(gw_audit_log_t *l)
{
    int64_t now = (int64_t)time(NULL);
    int64_t last = atomic_load(&l->last_drop_log);
    if (now != last && atomic_compare_exchange_strong(&l->last_drop_log, &last, now))
        gw_log_error(NULL, "Error in audit plugin 'buffered' affecting 1 audit events: audit "
                           "buffer queue blocked");
}

bool
gw_audit_log_submit(gw_audit_log_t *l, char *line, size_t len)
{
    bool queued = false;
    pthread_mutex_lock(&l->mu);
    if (l->n < l->cap && !l->stopping) {
        l->ring[(l->head + l->n) % l->cap] = (item_t){line, len};
        l->n++;
        queued = true;
        pthread_cond_signal(&l->cv);
    }
    pthread_mutex_unlock(&l->mu);
    if (!queued) {
        free(line);
        atomic_fetch_add(&l->dropped, 1);
        log_drop(l);
    }
    return queued;
}

uint64_t
gw_audit_log_dropped(const gw_audit_log_t *l)
{
    return atomic_load(&((gw_audit_log_t *)l)->dropped);
}

uint64_t
gw_audit_log_failed(const gw_audit_log_t *l)
{
    return atomic_load(&((gw_audit_log_t *)l)->failed);
}

void
gw_audit_log_stop(gw_audit_log_t *l)
{
    if (l == NULL)
        return;
    pthread_mutex_lock(&l->mu);
    l->stopping = true;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
    pthread_join(l->thread, NULL);
    gw_audit_file_close(l->file);
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv);
    free(l->ring);
    free(l);
}
