/*
 * The namespace controller's watch across an etcd outage with compaction (driven by
 * test_gw_nsctl_relist.t): while etcd is away from the controller, a namespace is marked for
 * deletion and history is compacted past it. The re-opened watch can only report the
 * compaction; the controller lists again, finds the namespace and removes it.
 */
#include <sys/stat.h>

#include "ctl_harness.h"
#include "gw_catalog.h"
#include "gw_controllers.h"
#include "gw_nsctl.h"

#define WAIT_S 90

static harness_t h;

static bool
exists(const char *key)
{
    result_t r = {0};
    int err = h_get(&h, key, 0, &r);

    result_clear(&r);
    return err != GW_ENOTFOUND; /* an unreachable etcd counts as "still there" */
}

static bool
file_exists(const char *path)
{
    struct stat st;
    return path != NULL && stat(path, &st) == 0;
}

int
main(void)
{
    const char *req = getenv("KGATE_TEST_OUTAGE_REQ");
    const char *done = getenv("KGATE_TEST_OUTAGE_DONE");
    etcd_client_t *client = harness_client();
    size_t n_res;
    gw_nsctl_resource_t *res = gw_controllers_namespaced(gw_catalog_builtin(), &n_res);
    gw_nsctl_t *c;
    FILE *f;
    int waited;

    if (req == NULL || done == NULL)
        tap_skip_all("run through test_gw_nsctl_relist.t");
    harness_open(&h, client, "/registry");
    c = gw_nsctl_start(
        client, h.base,
        &(gw_nsctl_opts_t){
            .etcd_prefix = "/registry", .resources = res, .n_resources = n_res, .recheck_ms = 300});
    harness_run_for(&h, 1000);
    tap_ok(!exists("namespaces/late"), "no namespace late before the outage");
    f = fopen(req, "w");
    if (f != NULL)
        fclose(f);
    for (waited = 0; waited < WAIT_S * 10 && !file_exists(done); waited++)
        harness_run_for(&h, 100);
    tap_ok(file_exists(done), "etcd went away, late was marked, history compacted, etcd is back");
    for (waited = 0; waited < WAIT_S * 10 && exists("namespaces/late"); waited++)
        harness_run_for(&h, 100);
    tap_ok(!exists("namespaces/late"), "the controller listed again and removed late");
    tap_ok(!exists("configmaps/late/cm"), "with its configmap");
    gw_nsctl_stop(c);
    free(res);
    harness_close(&h);
    etcd_client_free(client);
    return tap_done();
}
