/*
 * Two instances' controllers on one etcd prefix: the initial namespaces appear, exactly one
 * instance runs the namespace controller and removes deleted namespaces, and when it stops
 * the other takes over at once and carries on.
 */
#include "ctl_harness.h"
#include "gw_catalog.h"
#include "gw_controllers.h"
#include "gw_leader.h"
#include "gw_namespace.h"
#include "gw_strategy_namespace.h"

#define WAIT_MS 30000

static harness_t h;
static etcd_client_t *client;
static char prefix[64];
static gw_controllers_t *inst[2];

static int
n_leading(void)
{
    return (inst[0] != NULL && gw_controllers_leading(inst[0])) +
           (inst[1] != NULL && gw_controllers_leading(inst[1]));
}

static bool
one_leads(void *arg)
{
    (void)arg;
    return n_leading() == 1;
}

static bool
exists(const char *key)
{
    result_t r = {0};
    int err = h_get(&h, key, 0, &r);

    result_clear(&r);
    return err == 0;
}

static bool
all_initial(void *arg)
{
    (void)arg;
    for (size_t i = 0; gw_namespace_initial[i] != NULL; i++) {
        char key[64];
        snprintf(key, sizeof(key), "namespaces/%s", gw_namespace_initial[i]);
        if (!exists(key))
            return false;
    }
    return true;
}

static bool
gone(void *key)
{
    return !exists(key);
}

static void
deleted_cb(int err, const gw_obj_t *obj, bool deleted, void *ctx)
{
    (void)deleted;
    result_set(ctx, err, obj);
}

/* A namespace with one configmap, then its DELETE; true when both were done. */
static bool
doomed_namespace(const char *name)
{
    result_t r = {0};
    char key[128], *ns = gw_sprintf("{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"finalizers\":"
                                    "[\"kubernetes\"]},\"status\":{\"phase\":\"Active\"}}",
                                    name);
    bool ok;

    snprintf(key, sizeof(key), "namespaces/%s", name);
    ok = h_create(&h, key, ns, &r) == 0;
    snprintf(key, sizeof(key), "configmaps/%s/cm", name);
    ok = ok && h_create(&h, key, "{\"metadata\":{\"name\":\"cm\"}}", &r) == 0;
    result_clear(&r);
    ok = ok && gw_namespace_begin_delete(h.store, name, NULL, deleted_cb, &r) == 0;
    if (ok)
        harness_wait(&h, &r.done);
    ok = ok && r.err == 0;
    result_clear(&r);
    free(ns);
    return ok;
}

int
main(void)
{
    const gw_catalog_t *cat;
    char *key;
    int first;
    static char ns_x[] = "namespaces/x", ns_y[] = "namespaces/y";

    client = harness_client();
    cat = gw_catalog_builtin();
    snprintf(prefix, sizeof(prefix), "/kgate-test/controllers/%d", (int)getpid());
    harness_open(&h, client, prefix);
    inst[0] = gw_controllers_start(client, h.base, prefix, NULL, cat);
    inst[1] = gw_controllers_start(client, h.base, prefix, NULL, cat);
    tap_ok(ctl_wait(&h, all_initial, NULL, WAIT_MS), "the initial namespaces are created");
    tap_ok(ctl_wait(&h, one_leads, NULL, WAIT_MS), "one instance runs the namespace controller");
    harness_run_for(&h, 1000);
    tap_is_int(n_leading(), 1, "and only one");
    key = gw_leader_key(prefix, "namespace-controller");
    tap_ok(ctl_raw_get(&h, key).found, "its election key is outside the prefix: %s", key);

    tap_ok(doomed_namespace("x"), "namespace x with a configmap is deleted");
    tap_ok(ctl_wait(&h, gone, ns_x, WAIT_MS), "the leader removes it");
    tap_ok(!exists("configmaps/x/cm"), "with its content");

    first = gw_controllers_leading(inst[0]) ? 0 : 1;
    gw_controllers_stop(inst[first]);
    inst[first] = NULL;
    tap_ok(ctl_wait(&h, one_leads, NULL, WAIT_MS), "the leader stops: the other takes over");
    tap_ok(doomed_namespace("y"), "namespace y is deleted");
    tap_ok(ctl_wait(&h, gone, ns_y, WAIT_MS), "the new leader removes it");

    gw_controllers_stop(inst[1 - first]);
    tap_ok(!ctl_raw_get(&h, key).found, "the last instance's stop releases the election");
    free(key);
    harness_close(&h);
    etcd_client_free(client);
    return tap_done();
}
