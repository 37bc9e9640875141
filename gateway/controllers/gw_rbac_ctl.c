/* The RBAC controllers as rounds: the bootstrap policy once, then aggregation passes. */
#include "gw_rbac_ctl.h"

#include <stdlib.h>

#include "gw_alloc.h"
#include "gw_ctl_rounds.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_rbac_aggregate.h"
#include "gw_rbac_bootstrap.h"

#define RESYNC_MS 60000
#define RETRY_MS 2000

static const char *const watched[] = {"clusterroles/", NULL};

struct gw_rbac_ctl {
    gw_ctl_rounds_t *rounds;
    gw_store_t *store; /* the rounds', during a round */
    bool booted;       /* the bootstrap policy was reconciled */
};

static void
aggregated(int err, void *arg)
{
    gw_rbac_ctl_t *c = arg;

    if (gw_ctl_rounds_stopping(c->rounds))
        return;
    if (err != 0)
        gw_log_warn(NULL, "clusterrole aggregation: %s; retrying", gw_strerror(err));
    gw_ctl_rounds_done(c->rounds, err != 0 ? RETRY_MS : RESYNC_MS);
}

static void
booted(int err, void *arg)
{
    gw_rbac_ctl_t *c = arg;

    if (gw_ctl_rounds_stopping(c->rounds))
        return;
    if (err != 0) {
        gw_log_warn(NULL, "rbac bootstrap: %s; retrying", gw_strerror(err));
        gw_ctl_rounds_done(c->rounds, RETRY_MS);
        return;
    }
    c->booted = true;
    gw_log_info(NULL, "rbac bootstrap: the default policy is in place");
    gw_rbac_aggregate(c->store, aggregated, c);
}

static void
round_fn(gw_ctl_rounds_t *rr, gw_store_t *store, void *ctx)
{
    gw_rbac_ctl_t *c = ctx;

    c->rounds = rr;
    c->store = store;
    if (!c->booted)
        gw_rbac_bootstrap_reconcile(store, booted, c);
    else
        gw_rbac_aggregate(store, aggregated, c);
}

gw_rbac_ctl_t *
gw_rbac_ctl_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                  const gw_value_transformer_t *values)
{
    gw_rbac_ctl_t *c = gw_calloc(1, sizeof(*c));

    c->rounds = gw_ctl_rounds_start(client, base,
                                    &(gw_ctl_rounds_opts_t){.name = "rbac-controllers",
                                                            .etcd_prefix = etcd_prefix,
                                                            .values = values,
                                                            .watch = watched,
                                                            .round = round_fn,
                                                            .ctx = c});
    return c;
}

void
gw_rbac_ctl_stop(gw_rbac_ctl_t *c)
{
    if (c == NULL)
        return;
    gw_ctl_rounds_stop(c->rounds);
    free(c);
}
