/* The RBAC snapshot from etcd: the four collections mirrored, each round a new snapshot. */
#include "gw_rbac_cache.h"

#include <stdlib.h>

#include "authz_rbac.h"
#include "gw_alloc.h"
#include "gw_ctl_mirror.h"
#include "gw_log.h"

/* In the order authz_rbac_snap_new takes them. */
static const char *const paths[] = {"roles/", "clusterroles/", "rolebindings/",
                                    "clusterrolebindings/", NULL};

struct gw_rbac_cache {
    gw_ctl_mirror_t *mirror;
    bool synced;
    gw_rbac_cache_synced_fn on_synced;
    void *arg;
};

static void
publish(json_t *const *lists, int64_t revision, void *arg)
{
    gw_rbac_cache_t *c = arg;

    authz_rbac_publish(authz_rbac_snap_new(lists[0], lists[1], lists[2], lists[3]));
    if (!c->synced) {
        c->synced = true;
        gw_log_info(NULL, "rbac: first snapshot at revision %lld", (long long)revision);
        if (c->on_synced != NULL)
            c->on_synced(c->arg);
    }
}

gw_rbac_cache_t *
gw_rbac_cache_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                    const gw_value_transformer_t *values, gw_rbac_cache_synced_fn synced, void *arg)
{
    gw_rbac_cache_t *c = gw_calloc(1, sizeof(*c));

    c->on_synced = synced;
    c->arg = arg;
    c->mirror = gw_ctl_mirror_start(client, base, "rbac", etcd_prefix, values, paths, publish, c);
    return c;
}

void
gw_rbac_cache_stop(gw_rbac_cache_t *c)
{
    if (c == NULL)
        return;
    gw_ctl_mirror_stop(c->mirror);
    free(c);
}
