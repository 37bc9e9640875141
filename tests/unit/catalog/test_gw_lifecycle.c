/* Prerelease lifecycle facts of the catalog's kinds and kube's deprecation warnings from them. */
#include "gw_lifecycle.h"

#include <string.h>

#include "tap.h"

static const gw_catalog_t *universe;

static const gw_lifecycle_t *
kind_lifecycle(const char *group, const char *version, const char *kind)
{
    for (size_t i = 0; i < gw_catalog_count(universe); i++) {
        const gw_resource_t *r = gw_catalog_at(universe, i);
        if (strcmp(r->group, group) == 0 && strcmp(r->version, version) == 0 &&
            strcmp(r->kind, kind) == 0)
            return r->lifecycle;
    }
    return NULL;
}

static void
test_facts(void)
{
    const gw_lifecycle_t *vap =
        kind_lifecycle("admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy");
    tap_ok(vap != NULL, "v1beta1 ValidatingAdmissionPolicy has a lifecycle");
    if (vap != NULL) {
        tap_is_int(vap->introduced.minor, 28, "introduced in 1.28");
        tap_is_int(vap->deprecated.minor, 31, "deprecated by default 3 minors later");
        tap_is_int(vap->removed.minor, 34, "removed by default 3 minors after that");
        tap_is_str(vap->replacement_version, "v1", "replaced by v1");
        tap_is_str(vap->replacement_kind, "ValidatingAdmissionPolicy", "of the same kind");
    }
    const gw_lifecycle_t *cs = kind_lifecycle("", "v1", "ComponentStatus");
    tap_ok(cs != NULL && cs->deprecated.major == 1 && cs->deprecated.minor == 19,
           "v1 ComponentStatus deprecated in 1.19");
    tap_ok(cs != NULL && cs->removed.major == 0 && cs->removed.minor == 0,
           "a GA kind gets no default removal");
    const gw_lifecycle_t *ctb =
        kind_lifecycle("certificates.k8s.io", "v1alpha1", "ClusterTrustBundle");
    tap_ok(ctb != NULL && ctb->deprecated.minor == 31 && ctb->removed.minor == 34,
           "a stated deprecation moves the default removal with it");
    tap_ok(kind_lifecycle("apps", "v1", "Deployment") == NULL, "GA kinds have none");
    tap_ok(kind_lifecycle("internal.apiserver.k8s.io", "v1alpha1", "StorageVersion") == NULL,
           "a package without generated lifecycle has none");

    const gw_resource_t *r = gw_catalog_find(universe, "admissionregistration.k8s.io", "v1beta1",
                                             "validatingadmissionpolicies");
    const gw_subresource_t *st = r != NULL ? gw_resource_subresource(r, "status") : NULL;
    tap_ok(st != NULL && st->lifecycle == vap, "status shares its parent kind's lifecycle");
    r = gw_catalog_find(universe, "apps", "v1", "deployments");
    const gw_subresource_t *scale = r != NULL ? gw_resource_subresource(r, "scale") : NULL;
    tap_ok(scale != NULL && scale->lifecycle == NULL, "scale is autoscaling/v1 Scale's: none");
}

static void
test_deprecated(void)
{
    gw_release_t now = gw_lifecycle_server_release();
    tap_ok(now.major == 1 && now.minor == 32, "the server's release is 1.32");
    gw_lifecycle_t l = {.group = "g", .version = "v1beta1", .kind = "K"};
    tap_ok(!gw_lifecycle_deprecated(&l, now), "no stated deprecation: not deprecated");
    tap_ok(!gw_lifecycle_deprecated(NULL, now), "no lifecycle: not deprecated");
    l.deprecated = (gw_release_t){1, 32};
    tap_ok(gw_lifecycle_deprecated(&l, now), "deprecated in the current release");
    l.deprecated = (gw_release_t){1, 33};
    tap_ok(!gw_lifecycle_deprecated(&l, now), "a later release: not yet");
    tap_ok(gw_lifecycle_deprecated(&l, (gw_release_t){0, 0}), "no current release: deprecated");
    tap_ok(gw_lifecycle_deprecated(&l, (gw_release_t){2, 0}), "a later major");
    l.deprecated = (gw_release_t){2, 1};
    tap_ok(!gw_lifecycle_deprecated(&l, (gw_release_t){1, 40}), "an earlier major");

    const gw_lifecycle_t *mapol =
        kind_lifecycle("admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicy");
    tap_ok(mapol != NULL && !gw_lifecycle_deprecated(mapol, now),
           "alpha introduced in 1.32 is not deprecated until 1.35");
    const gw_lifecycle_t *vac =
        kind_lifecycle("storage.k8s.io", "v1alpha1", "VolumeAttributesClass");
    tap_ok(gw_lifecycle_deprecated(vac, now), "alpha introduced in 1.29 is deprecated in 1.32");
}

static void
test_messages(void)
{
    char buf[512], rel[32];
    const gw_lifecycle_t *vap =
        kind_lifecycle("admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy");
    tap_is_str(gw_lifecycle_warning(vap, buf, sizeof(buf)),
               "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy is deprecated in "
               "v1.31+, unavailable in v1.34+; use admissionregistration.k8s.io/v1 "
               "ValidatingAdmissionPolicy",
               "removal and replacement");
    tap_is_str(gw_lifecycle_removed_release(vap, rel, sizeof(rel)), "1.34", "removed release");
    const gw_lifecycle_t *cs = kind_lifecycle("", "v1", "ComponentStatus");
    tap_is_str(gw_lifecycle_warning(cs, buf, sizeof(buf)),
               "v1 ComponentStatus is deprecated in v1.19+", "core kind, no removal");
    tap_is_str(gw_lifecycle_removed_release(cs, rel, sizeof(rel)), "", "no removed release");
    const gw_lifecycle_t *vac =
        kind_lifecycle("storage.k8s.io", "v1alpha1", "VolumeAttributesClass");
    tap_is_str(gw_lifecycle_warning(vac, buf, sizeof(buf)),
               "storage.k8s.io/v1alpha1 VolumeAttributesClass is deprecated in v1.32+, "
               "unavailable in v1.35+",
               "removal without replacement");
    gw_lifecycle_t core_repl = {.group = "",
                                .version = "v1beta1",
                                .kind = "K",
                                .deprecated = {1, 20},
                                .replacement_group = "",
                                .replacement_version = "v1",
                                .replacement_kind = "K"};
    tap_is_str(gw_lifecycle_warning(&core_repl, buf, sizeof(buf)),
               "v1beta1 K is deprecated in v1.20+; use v1 K", "replacement without removal");
    tap_is_str(gw_lifecycle_warning(NULL, buf, sizeof(buf)), "", "no lifecycle, no text");
    gw_lifecycle_t none = {.group = "g", .version = "v1", .kind = "K"};
    tap_is_str(gw_lifecycle_warning(&none, buf, sizeof(buf)), "", "no deprecation, no text");
}

int
main(void)
{
    universe = gw_catalog_builtin();
    test_facts();
    test_deprecated();
    test_messages();
    return tap_done();
}
