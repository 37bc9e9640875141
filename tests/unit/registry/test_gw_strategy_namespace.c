/* The namespace strategy helpers on JSON documents: the name label, create and update
 * preparation, and when an update deletes a finalized namespace. */
#include <jansson.h>
#include <string.h>

#include "gw_strategy_namespace.h"
#include "tap.h"

static json_t *
doc(const char *text)
{
    json_t *o = json_loads(text, 0, NULL);

    if (o == NULL) {
        printf("Bail out! bad test JSON: %s\n", text);
        exit(1);
    }
    return o;
}

/* Whether o's compact form equals `want` after key sorting. */
static bool
same(const json_t *o, const char *want)
{
    json_t *w = doc(want);
    bool eq = json_equal(o, w);

    if (!eq) {
        char *got = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
        tap_diag("  got %s", got);
        free(got);
    }
    json_decref(w);
    return eq;
}

static void
test_prepare(void)
{
    json_t *a = doc("{\"metadata\":{\"name\":\"x\"}}");
    json_t *b = doc("{\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":\"b\","
                    "\"kubernetes.io/metadata.name\":\"wrong\"}}}");
    json_t *c = doc("{\"metadata\":{\"generateName\":\"x-\"}}");

    gw_namespace_prepare(a);
    gw_namespace_prepare(b);
    gw_namespace_prepare(c);
    tap_ok(same(a, "{\"metadata\":{\"name\":\"x\",\"labels\":"
                   "{\"kubernetes.io/metadata.name\":\"x\"}}}"),
           "the label is added, with labels created");
    tap_ok(same(b, "{\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":\"b\","
                   "\"kubernetes.io/metadata.name\":\"x\"}}}"),
           "a wrong value is corrected, other labels stay");
    tap_ok(same(c, "{\"metadata\":{\"generateName\":\"x-\"}}"), "no name yet: nothing");
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

static void
test_prepare_create(void)
{
    json_t *a = doc("{\"metadata\":{\"name\":\"x\"},\"status\":{\"phase\":\"Terminating\"}}");
    json_t *b = doc("{\"metadata\":{\"name\":\"y\"},\"spec\":{\"finalizers\":[\"a.io/b\"]}}");
    json_t *c = doc("{\"metadata\":{\"name\":\"z\"},\"spec\":{\"finalizers\":[\"kubernetes\"]}}");

    gw_namespace_prepare_create(a);
    gw_namespace_prepare_create(b);
    gw_namespace_prepare_create(c);
    tap_ok(same(a, "{\"metadata\":{\"name\":\"x\",\"labels\":{\"kubernetes.io/metadata.name\":"
                   "\"x\"}},\"spec\":{\"finalizers\":[\"kubernetes\"]},"
                   "\"status\":{\"phase\":\"Active\"}}"),
           "create: Active, the kubernetes finalizer, the label");
    tap_ok(same(json_object_get(b, "spec"), "{\"finalizers\":[\"a.io/b\",\"kubernetes\"]}"),
           "kubernetes is appended to other finalizers");
    tap_ok(same(json_object_get(c, "spec"), "{\"finalizers\":[\"kubernetes\"]}"),
           "and never twice");
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

static void
test_prepare_update(void)
{
    json_t *old = doc("{\"metadata\":{\"name\":\"x\"},\"spec\":{\"finalizers\":[\"kubernetes\"]},"
                      "\"status\":{\"phase\":\"Active\"}}");
    json_t *nu = doc("{\"metadata\":{\"name\":\"x\"},\"spec\":{\"finalizers\":[]},"
                     "\"status\":{\"phase\":\"Terminating\"}}");
    json_t *bare_old = doc("{\"metadata\":{\"name\":\"x\"}}");
    json_t *nu2 = doc("{\"metadata\":{\"name\":\"x\"},\"spec\":{\"finalizers\":[\"a\"]},"
                      "\"status\":{\"phase\":\"Active\"}}");

    gw_namespace_prepare_update(nu, old);
    gw_namespace_prepare_update(nu2, bare_old);
    tap_ok(same(nu, "{\"metadata\":{\"name\":\"x\",\"labels\":{\"kubernetes.io/metadata.name\":"
                    "\"x\"}},\"spec\":{\"finalizers\":[\"kubernetes\"]},"
                    "\"status\":{\"phase\":\"Active\"}}"),
           "update keeps the stored spec.finalizers and status");
    tap_ok(same(nu2, "{\"metadata\":{\"name\":\"x\",\"labels\":{\"kubernetes.io/metadata.name\":"
                     "\"x\"}},\"spec\":{}}"),
           "fields the stored object lacks are dropped");
    json_decref(old);
    json_decref(nu);
    json_decref(bare_old);
    json_decref(nu2);
}

static void
test_should_delete(void)
{
    json_t *deleting = doc("{\"metadata\":{\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"}}");
    json_t *graceful = doc("{\"metadata\":{\"deletionTimestamp\":\"2024-01-01T00:00:00Z\","
                           "\"deletionGracePeriodSeconds\":30}}");
    json_t *active = doc("{\"metadata\":{}}");
    json_t *empty = doc("{\"metadata\":{},\"spec\":{\"finalizers\":[]}}");
    json_t *spec_left = doc("{\"metadata\":{},\"spec\":{\"finalizers\":[\"kubernetes\"]}}");
    json_t *meta_left = doc("{\"metadata\":{\"finalizers\":[\"a\"]},\"spec\":{}}");

    tap_ok(gw_namespace_should_delete_on_update(empty, deleting),
           "finalized and being deleted: the update deletes");
    tap_ok(!gw_namespace_should_delete_on_update(empty, active), "not being deleted: no");
    tap_ok(!gw_namespace_should_delete_on_update(spec_left, deleting), "spec.finalizers left: no");
    tap_ok(!gw_namespace_should_delete_on_update(meta_left, deleting),
           "metadata.finalizers left: no");
    tap_ok(!gw_namespace_should_delete_on_update(empty, graceful), "a grace period left: no");
    json_decref(deleting);
    json_decref(graceful);
    json_decref(active);
    json_decref(empty);
    json_decref(spec_left);
    json_decref(meta_left);
}

int
main(void)
{
    test_prepare();
    test_prepare_create();
    test_prepare_update();
    test_should_delete();
    return tap_done();
}
