/* The RBAC snapshot from etcd, as rounds: each reads the four collections at one revision. */
#include "gw_rbac_cache.h"

#include <stdlib.h>

#include "authz_rbac.h"
#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_ctl_rounds.h"
#include "gw_err.h"
#include "gw_log.h"

#define RESYNC_MS 60000
#define RETRY_MS 1000
#define N_KINDS 4

/* In the order authz_rbac_snap_new takes them. */
static const char *const paths[N_KINDS + 1] = {"roles/", "clusterroles/", "rolebindings/",
                                               "clusterrolebindings/", NULL};

struct gw_rbac_cache {
    gw_ctl_rounds_t *rounds;
    gw_store_t *store; /* the rounds', during a round */
    json_t *lists[N_KINDS];
    size_t at;        /* the collection being read */
    int64_t revision; /* the first list's, which the others are read at */
    bool synced;
    gw_rbac_cache_synced_fn on_synced;
    void *arg;
};

static void read_next(gw_rbac_cache_t *c);

static void
clear_lists(gw_rbac_cache_t *c)
{
    for (size_t i = 0; i < N_KINDS; i++) {
        json_decref(c->lists[i]);
        c->lists[i] = NULL;
    }
}

static void
publish(gw_rbac_cache_t *c)
{
    authz_rbac_publish(authz_rbac_snap_new(c->lists[0], c->lists[1], c->lists[2], c->lists[3]));
    clear_lists(c);
    if (!c->synced) {
        c->synced = true;
        gw_log_info(NULL, "rbac: first snapshot at revision %lld", (long long)c->revision);
        if (c->on_synced != NULL)
            c->on_synced(c->arg);
    }
}

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_rbac_cache_t *c = arg;

    if (gw_ctl_rounds_stopping(c->rounds)) {
        clear_lists(c);
        return;
    }
    if (err != 0) {
        gw_log_warn(NULL, "rbac: reading %s failed: %s", paths[c->at], gw_strerror(err));
        clear_lists(c);
        gw_ctl_rounds_done(c->rounds, RETRY_MS);
        return;
    }
    json_t *items = json_array();
    for (size_t i = 0; i < page->n_items; i++) {
        json_t *o = gw_ctl__parse(&page->items[i]);
        if (o != NULL)
            json_array_append_new(items, o);
    }
    c->lists[c->at++] = items;
    c->revision = page->revision;
    read_next(c);
}

static void
read_next(gw_rbac_cache_t *c)
{
    if (c->at == N_KINDS) {
        publish(c);
        gw_ctl_rounds_done(c->rounds, RESYNC_MS);
        return;
    }
    gw_list_req_t req = {.prefix = paths[c->at], .revision = c->at > 0 ? c->revision : 0};
    int rc = gw_store_list(c->store, &req, listed, c);
    if (rc != 0) {
        clear_lists(c);
        gw_ctl_rounds_done(c->rounds, RETRY_MS);
    }
}

static void
round_fn(gw_ctl_rounds_t *rr, gw_store_t *store, void *ctx)
{
    gw_rbac_cache_t *c = ctx;

    c->rounds = rr;
    c->store = store;
    c->at = 0;
    read_next(c);
}

gw_rbac_cache_t *
gw_rbac_cache_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                    gw_rbac_cache_synced_fn synced, void *arg)
{
    gw_rbac_cache_t *c = gw_calloc(1, sizeof(*c));

    c->on_synced = synced;
    c->arg = arg;
    c->rounds = gw_ctl_rounds_start(client, base,
                                    &(gw_ctl_rounds_opts_t){.name = "rbac",
                                                            .etcd_prefix = etcd_prefix,
                                                            .watch = paths,
                                                            .round = round_fn,
                                                            .ctx = c});
    return c;
}

void
gw_rbac_cache_stop(gw_rbac_cache_t *c)
{
    if (c == NULL)
        return;
    gw_ctl_rounds_stop(c->rounds);
    clear_lists(c);
    free(c);
}
