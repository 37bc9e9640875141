/* Unit tests for gateway/catalog/gw_catalog_custom.c: kube's version order, snapshots that
 * extend a catalog with custom resources (lookups, groups and their order, kind schemas), their
 * references and owner release, and the process's current catalog. */
#include <string.h>

#include "gw_catalog.h"
#include "tap.h"

static void
test_version_order(void)
{
    /* kube's CompareKubeAwareVersionStrings examples, in priority order */
    static const char *const order[] = {"v10",     "v2",        "v1",        "v11beta2", "v10beta3",
                                        "v3beta1", "v12alpha1", "v11alpha2", "foo1",     "foo10"};
    size_t n = sizeof(order) / sizeof(order[0]);
    bool ok = true;

    for (size_t i = 0; i + 1 < n; i++) {
        if (gw_catalog_version_cmp(order[i], order[i + 1]) >= 0 ||
            gw_catalog_version_cmp(order[i + 1], order[i]) <= 0) {
            tap_diag("%s should come before %s", order[i], order[i + 1]);
            ok = false;
        }
    }
    tap_ok(ok, "kube's version priority: GA, beta, alpha, then other names");
    tap_ok(gw_catalog_version_cmp("v1", "v1") == 0, "equal versions compare equal");
    tap_ok(gw_catalog_version_cmp("v01", "v1") > 0, "a leading zero is not kube-like");
}

static int released;

static void
release(void *ctx)
{
    released += *(int *)ctx;
}

static gw_resource_t
custom(const char *group, const char *version, const char *name, const char *kind,
       const gw_custom_t *facts)
{
    const gw_schema_t *s =
        gw_catalog_definition(gw_catalog_builtin(), "io.k8s.api.core.v1.ConfigMap");
    return (gw_resource_t){.group = group,
                           .version = version,
                           .api_version = "x",
                           .name = name,
                           .kind = kind,
                           .schema = s,
                           .custom = facts};
}

static void
test_extend(void)
{
    const gw_catalog_t *base = NULL, *snap;
    char err[128];
    gw_custom_t facts = {.crd_name = "widgets.b.io"};
    gw_resource_t rs[] = {custom("b.io", "v1beta1", "widgets", "Widget", &facts),
                          custom("b.io", "v1", "widgets", "Widget", &facts),
                          custom("a.io", "v1", "gadgets", "Gadget", &facts),
                          custom("apps", "v1", "things", "Thing", &facts)};
    const gw_resource_t *ptrs[] = {&rs[0], &rs[1], &rs[2], &rs[3]};
    int weight = 1;
    size_t ngroups;
    const gw_group_t *g;

    tap_ok(gw_catalog_configure(gw_catalog_builtin(), NULL, &base, err, sizeof(err)) == 0,
           "the default catalog");
    ngroups = gw_catalog_group_count(base);
    snap = gw_catalog_extend(base, ptrs, 4, (gw_catalog_owner_t){release, &weight});
    tap_ok(gw_catalog_count(snap) == gw_catalog_count(base) + 4, "four more resources");
    tap_ok(gw_catalog_find(snap, "b.io", "v1", "widgets") == &rs[1] &&
               gw_catalog_find_kind(snap, "a.io", "v1", "Gadget") == &rs[2] &&
               gw_catalog_find(snap, "apps", "v1", "deployments") != NULL,
           "custom and built-in resources are found");
    tap_ok(gw_catalog_find(base, "b.io", "v1", "widgets") == NULL, "the base is unchanged");
    tap_ok(gw_catalog_group_count(snap) == ngroups + 2, "two new groups");
    g = gw_catalog_group_at(snap, ngroups);
    tap_ok(strcmp(g->name, "a.io") == 0 &&
               strcmp(gw_catalog_group_at(snap, ngroups + 1)->name, "b.io") == 0,
           "custom groups after the built-in ones, by name");
    g = gw_catalog_group(snap, "b.io");
    tap_ok(g->n_versions == 2 && strcmp(g->versions[0], "v1") == 0 &&
               strcmp(g->versions[1], "v1beta1") == 0,
           "a custom group's versions in kube's order");
    g = gw_catalog_group(snap, "apps");
    tap_ok(g->n_versions == gw_catalog_group(base, "apps")->n_versions,
           "a custom resource in a built-in group/version joins it");
    tap_ok(gw_catalog_kind_schema(snap, "b.io", "v1", "Widget") == rs[1].schema &&
               gw_catalog_kind_schema(snap, "b.io", "v1", "Nope") == NULL &&
               gw_catalog_kind_schema(base, "b.io", "v1", "Widget") == NULL,
           "kind schemas of custom kinds");
    tap_ok(gw_catalog_base(snap) == base && gw_catalog_base(base) == base, "the base");

    gw_catalog_publish(snap);
    gw_catalog_unref(snap);
    tap_ok(released == 0, "published: alive");
    snap = gw_catalog_current();
    tap_ok(snap != NULL && gw_catalog_find(snap, "a.io", "v1", "gadgets") != NULL,
           "the current catalog is the snapshot");
    gw_catalog_publish(base);
    tap_ok(released == 0, "a request's reference keeps it after another is published");
    gw_catalog_unref(snap);
    tap_ok(released == 1, "the last reference releases the owner once");
    gw_catalog_unref(base); /* a no-op for lifetime catalogs */
    snap = gw_catalog_current();
    tap_ok(snap == base, "the base is current again");
    gw_catalog_unref(snap);
}

static void
test_empty(void)
{
    const gw_catalog_t *base = gw_catalog_builtin();
    const gw_catalog_t *snap = gw_catalog_extend(base, NULL, 0, (gw_catalog_owner_t){0});

    tap_ok(gw_catalog_count(snap) == gw_catalog_count(base) &&
               gw_catalog_group_count(snap) == gw_catalog_group_count(base),
           "an empty snapshot serves what its base does");
    gw_catalog_unref(snap);
}

int
main(void)
{
    test_version_order();
    test_extend();
    test_empty();
    return tap_done();
}
