/* kube's apiserver_<config>_config_controller_automatic_reload* families of the configuration
 * files kube-apiserver reloads on its own (--authentication-config, --authorization-config):
 * each attempt counted by status, and when the last of each status happened, labelled with the
 * hash of this host's apiserver identity. */
#include <time.h>

#include "gw_metric.h"
#include "gw_uuid.h"

static const char *const labels[] = {"status", "apiserver_id_hash"};

#define RELOAD_FAMILIES(config, what)                                                              \
    {                                                                                              \
        {                                                                                          \
            .name = "apiserver_" config "_config_controller_automatic_reloads_total",              \
            .help = "Automatic reloads of the " what " configuration, by status and apiserver "    \
                    "identity.",                                                                   \
            .stability = "ALPHA",                                                                  \
            .type = GW_METRIC_COUNTER,                                                             \
            .labels = labels,                                                                      \
            .n_labels = 2,                                                                         \
        },                                                                                         \
            {                                                                                      \
                .name = "apiserver_" config                                                        \
                        "_config_controller_automatic_reload_last_timestamp_seconds",              \
                .help =                                                                            \
                    "When the " what " configuration was last reloaded, by status and apiserver "  \
                    "identity.",                                                                   \
                .stability = "ALPHA",                                                              \
                .type = GW_METRIC_GAUGE,                                                           \
                .labels = labels,                                                                  \
                .n_labels = 2,                                                                     \
            },                                                                                     \
    }

static const gw_metric_desc_t descs[][2] = {
    [GW_RELOAD_AUTHENTICATION] = RELOAD_FAMILIES("authentication", "authentication"),
    [GW_RELOAD_AUTHORIZATION] = RELOAD_FAMILIES("authorization", "authorization"),
};

void
gw_metric_reload(gw_reload_config_t config, bool ok)
{
    static gw_metric_t *_Atomic families[sizeof(descs) / sizeof(descs[0])][2];
    char id_hash[80];

    gw_apiserver_id_hash(id_hash, sizeof(id_hash));
    const char *v[] = {ok ? "success" : "failure", id_hash};
    gw_metric_add(gw_metric_cached(&families[config][0], &descs[config][0]), v, 1);
    gw_metric_set(gw_metric_cached(&families[config][1], &descs[config][1]), v, (double)time(NULL));
}
