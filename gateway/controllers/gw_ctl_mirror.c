/* Collections read at one revision per round, handed to a publisher (see gw_ctl_mirror.h). */
#include "gw_ctl_mirror.h"

#include <stdlib.h>

#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_ctl_rounds.h"
#include "gw_err.h"
#include "gw_log.h"

#define RESYNC_MS 60000
#define RETRY_MS 1000
#define MAX_PATHS 8

struct gw_ctl_mirror {
    gw_ctl_rounds_t *rounds;
    gw_store_t *store; /* the rounds', during a round */
    const char *name;
    const char *const *paths;
    size_t n;
    json_t *lists[MAX_PATHS];
    size_t at;        /* the collection being read */
    int64_t revision; /* the first list's, which the others are read at */
    gw_ctl_mirror_fn publish;
    void *arg;
};

static void read_next(gw_ctl_mirror_t *m);

static void
clear_lists(gw_ctl_mirror_t *m)
{
    for (size_t i = 0; i < m->n; i++) {
        json_decref(m->lists[i]);
        m->lists[i] = NULL;
    }
}

static void
failed(gw_ctl_mirror_t *m)
{
    clear_lists(m);
    gw_ctl_rounds_done(m->rounds, RETRY_MS);
}

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_ctl_mirror_t *m = arg;

    if (gw_ctl_rounds_stopping(m->rounds)) {
        clear_lists(m);
        return;
    }
    if (err != 0) {
        gw_log_warn(NULL, "%s: reading %s failed: %s", m->name, m->paths[m->at], gw_strerror(err));
        failed(m);
        return;
    }
    json_t *items = json_array();
    for (size_t i = 0; i < page->n_items; i++) {
        json_t *o = gw_ctl__parse(&page->items[i]);
        if (o != NULL)
            json_array_append_new(items, o);
    }
    m->lists[m->at++] = items;
    m->revision = page->revision;
    read_next(m);
}

static void
read_next(gw_ctl_mirror_t *m)
{
    if (m->at == m->n) {
        m->publish(m->lists, m->revision, m->arg);
        clear_lists(m);
        gw_ctl_rounds_done(m->rounds, RESYNC_MS);
        return;
    }
    gw_list_req_t req = {.prefix = m->paths[m->at], .revision = m->at > 0 ? m->revision : 0};
    if (gw_store_list(m->store, &req, listed, m) != 0)
        failed(m);
}

static void
round_fn(gw_ctl_rounds_t *rr, gw_store_t *store, void *ctx)
{
    gw_ctl_mirror_t *m = ctx;

    m->rounds = rr;
    m->store = store;
    m->at = 0;
    read_next(m);
}

gw_ctl_mirror_t *
gw_ctl_mirror_start(etcd_client_t *client, struct event_base *base, const char *name,
                    const char *etcd_prefix, const gw_value_transformer_t *values,
                    const char *const *paths, gw_ctl_mirror_fn publish, void *arg)
{
    gw_ctl_mirror_t *m = gw_calloc(1, sizeof(*m));

    m->name = name;
    m->paths = paths;
    while (paths[m->n] != NULL)
        m->n++;
    if (m->n > MAX_PATHS)
        abort(); /* a programming error: the callers' path lists are constants */
    m->publish = publish;
    m->arg = arg;
    m->rounds = gw_ctl_rounds_start(client, base,
                                    &(gw_ctl_rounds_opts_t){.name = name,
                                                            .etcd_prefix = etcd_prefix,
                                                            .values = values,
                                                            .watch = paths,
                                                            .round = round_fn,
                                                            .ctx = m});
    return m;
}

void
gw_ctl_mirror_stop(gw_ctl_mirror_t *m)
{
    if (m == NULL)
        return;
    gw_ctl_rounds_stop(m->rounds);
    clear_lists(m);
    free(m);
}
