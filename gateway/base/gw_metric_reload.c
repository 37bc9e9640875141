/* kube's apiserver_<config>_config_controller_automatic_reload* families of the configuration
 * files kube-apiserver reloads on its own (--authentication-config, --authorization-config,
 * --encryption-provider-config-automatic-reload): each attempt counted by status, and when the
 * last of each status happened, labelled with the hash of this host's apiserver identity; the
 * encryption configuration also in the two counters 1.30 deprecated (hidden from 1.31 on). */
#include <time.h>

#include "gw_metric.h"
#include "gw_uuid.h"

static const char *const labels[] = {"status", "apiserver_id_hash"};
static const char *const id_label[] = {"apiserver_id_hash"};

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
    [GW_RELOAD_ENCRYPTION] = RELOAD_FAMILIES("encryption", "encryption"),
};

#define DEPRECATED_COUNTER(outcome, what)                                                          \
    {                                                                                              \
        .name = "apiserver_encryption_config_controller_automatic_reload_" outcome "_total",       \
        .help = "Automatic reloads of the encryption configuration that " what ", by apiserver "   \
                "identity.",                                                                       \
        .stability = "ALPHA", .type = GW_METRIC_COUNTER, .labels = id_label, .n_labels = 1,        \
        .deprecated = "1.30",                                                                      \
    }

/* by ok: the failures', then the successes' */
static const gw_metric_desc_t encryption_deprecated[] = {
    DEPRECATED_COUNTER("failures", "failed"), DEPRECATED_COUNTER("success", "succeeded")};

void
gw_metric_reload(gw_reload_config_t config, bool ok)
{
    static gw_metric_t *_Atomic families[sizeof(descs) / sizeof(descs[0])][2];
    char id_hash[80];

    gw_apiserver_id_hash(id_hash, sizeof(id_hash));
    const char *v[] = {ok ? "success" : "failure", id_hash};
    gw_metric_add(gw_metric_cached(&families[config][0], &descs[config][0]), v, 1);
    gw_metric_set(gw_metric_cached(&families[config][1], &descs[config][1]), v, (double)time(NULL));
    if (config == GW_RELOAD_ENCRYPTION) {
        static gw_metric_t *_Atomic deprecated[2];
        gw_metric_add(gw_metric_cached(&deprecated[ok], &encryption_deprecated[ok]), v + 1, 1);
    }
}
