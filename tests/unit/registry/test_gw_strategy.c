/* Unit tests for gateway/registry/gw_strategy.c and the per-kind strategies against the
 * built-in catalog: which strategy each resource resolves to (once, into the resource), the
 * subresource rules, and per-kind behaviour reached through the vtable. */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_registry_int.h"
#include "gw_strategy.h"
#include "tap.h"

static const gw_catalog_t *cat;

static const gw_resource_t *
res(const char *group, const char *version, const char *name)
{
    const gw_resource_t *r = gw_catalog_find(cat, group, version, name);

    if (r == NULL) {
        printf("Bail out! %s/%s %s is not in the catalog\n", group, version, name);
        exit(1);
    }
    return r;
}

static json_t *
doc(const char *text)
{
    json_t *d = json_loads(text, 0, NULL);

    if (d == NULL) {
        printf("Bail out! bad test JSON: %s\n", text);
        exit(1);
    }
    return d;
}

/* ---- resolution --------------------------------------------------------------------------- */

static void
test_resolution(void)
{
    const gw_resource_t *pods = res("", "v1", "pods");
    size_t unresolved = 0;

    tap_ok(pods->strategy == NULL, "before resolution a resource has no strategy");
    tap_ok(gw_strategy_of(pods) == &gw_strategy_pod, "an unresolved resource is looked up");
    gw_strategy_resolve(cat);
    for (size_t i = 0; i < gw_catalog_count(cat); i++) {
        if (gw_catalog_at(cat, i)->strategy == NULL) {
            tap_diag("  %s/%s %s has no strategy", gw_catalog_at(cat, i)->group,
                     gw_catalog_at(cat, i)->version, gw_catalog_at(cat, i)->name);
            unresolved++;
        }
    }
    tap_is_int(unresolved, 0, "every catalog resource resolves to a strategy");
    tap_ok(pods->strategy == &gw_strategy_pod, "pods resolve to the pod strategy");
    tap_ok(gw_strategy_of(pods)->graceful, "pods: graceful deletion");
    tap_ok(gw_strategy_of(res("", "v1", "services")) == &gw_strategy_service &&
               gw_strategy_of(res("", "v1", "services"))->create_on_update,
           "services: the service strategy, create-on-update");
    tap_ok(gw_strategy_of(res("apps", "v1", "replicasets")) == &gw_strategy_generic,
           "a kind without rules of its own: the generic strategy");
    tap_ok(!gw_strategy_generic.graceful && !gw_strategy_generic.create_on_update &&
               gw_strategy_generic.name_rule == GW_NAME_SUBDOMAIN,
           "the generic strategy: subdomain names, no create-on-update, no graceful delete");
    tap_ok(gw_strategy_lookup("example.com", "widgets") == &gw_strategy_generic,
           "an unknown group/resource: the generic strategy");
    tap_ok(gw_strategy_of(res("events.k8s.io", "v1", "events")) == &gw_strategy_event &&
               gw_strategy_of(res("", "v1", "events")) == &gw_strategy_event,
           "core and events.k8s.io events share the event strategy");
    tap_ok(gw_strategy_of(res("apiextensions.k8s.io", "v1", "customresourcedefinitions"))
               ->conditional_update,
           "CRDs: no unconditional update");
    tap_ok(gw_strategy_of(res("rbac.authorization.k8s.io", "v1", "clusterroles"))->check_write !=
               NULL,
           "cluster roles: a check of the write (the escalation check)");
    tap_ok(gw_strategy_of(res("", "v1", "namespaces"))->on_delete != NULL &&
               gw_strategy_of(res("", "v1", "pods"))->on_delete == NULL,
           "namespaces delete through their own registry, pods through the generic store");
}

/* ---- subresources ------------------------------------------------------------------------- */

static void
test_subresources(void)
{
    const gw_subres_strategy_t *s;

    s = gw_strategy_subresource(res("apps", "v1", "deployments"), "scale");
    tap_ok(s != NULL && s->form == GW_SUBRES_SCALE && s->main_prepare,
           "deployments/scale: the Scale view through the main strategy");
    s = gw_strategy_subresource(res("apps", "v1", "deployments"), "status");
    tap_ok(s != NULL && s->form == GW_SUBRES_STATUS && s->status_write && s->prepare_update == NULL,
           "deployments/status: the generic status");
    s = gw_strategy_subresource(res("", "v1", "pods"), "ephemeralcontainers");
    tap_ok(s != NULL && s->form == GW_SUBRES_EPHEMERAL && s->validate_update != NULL,
           "pods/ephemeralcontainers: its own form and validation");
    s = gw_strategy_subresource(res("", "v1", "pods"), "eviction");
    tap_ok(s != NULL && s->form == GW_SUBRES_HANDLER && s->handle != NULL,
           "pods/eviction: its own endpoint");
    tap_ok(gw_strategy_subresource(res("", "v1", "pods"), "log") == NULL,
           "pods/log: nothing serves it");
    s = gw_strategy_subresource(res("", "v1", "namespaces"), "finalize");
    tap_ok(s != NULL && s->form == GW_SUBRES_FINALIZE, "namespaces/finalize");
    s = gw_strategy_subresource(res("", "v1", "serviceaccounts"), "token");
    tap_ok(s != NULL && s->form == GW_SUBRES_HANDLER, "serviceaccounts/token: its own endpoint");
    s = gw_strategy_subresource(res("certificates.k8s.io", "v1", "certificatesigningrequests"),
                                "approval");
    tap_ok(s != NULL && s->form == GW_SUBRES_STATUS && !s->status_write &&
               s->validate_update != NULL,
           "CSR approval: written as status, with its own validation (its check is an admission "
           "plugin)");
    s = gw_strategy_subresource(res("certificates.k8s.io", "v1", "certificatesigningrequests"),
                                "status");
    tap_ok(s != NULL && s->status_write && s->prepare_update != NULL,
           "CSR status: the kind's own status rules, not the generic ones");
}

/* ---- per-kind behaviour through the vtable ------------------------------------------------ */

static void
test_pod(void)
{
    const gw_resource_t *pods = res("", "v1", "pods");
    const gw_strategy_t *st = gw_strategy_of(pods);
    json_t *d = doc("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                    "\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]},"
                    "\"status\":{\"phase\":\"Running\"}}");
    const json_t *status;

    st->prepare_create(pods, NULL, d);
    status = json_object_get(d, "status");
    tap_is_str(json_string_value(json_object_get(status, "phase")), "Pending",
               "pod prepare_create: phase Pending");
    tap_is_str(json_string_value(json_object_get(status, "qosClass")), "Guaranteed",
               "pod prepare_create: limits only: Guaranteed");
    json_decref(d);

    d = doc("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}");
    gw_registry__prepare_create(pods, NULL, d);
    tap_is_str(json_string_value(json_object_get(json_object_get(d, "status"), "qosClass")),
               "BestEffort", "pod create through the engine: BestEffort without resources");
    json_decref(d);
}

static void
test_namespace(void)
{
    const gw_resource_t *ns = res("", "v1", "namespaces");
    const gw_strategy_t *st = gw_strategy_of(ns);
    json_t *d = doc("{\"metadata\":{\"name\":\"team\"},\"spec\":{\"finalizers\":[\"x\"]}}");
    json_t *old, *upd;
    const json_t *fin;

    st->prepare_create(ns, NULL, d);
    fin = json_object_get(json_object_get(d, "spec"), "finalizers");
    tap_ok(json_array_size(fin) == 2 &&
               strcmp(json_string_value(json_array_get(fin, 1)), "kubernetes") == 0,
           "namespace prepare_create: the kubernetes finalizer appended");
    tap_is_str(
        json_string_value(json_object_get(json_object_get(json_object_get(d, "metadata"), "labels"),
                                          "kubernetes.io/metadata.name")),
        "team", "namespace prepare_create: the name label");
    tap_is_str(json_string_value(json_object_get(json_object_get(d, "status"), "phase")), "Active",
               "namespace prepare_create: phase Active");

    old = doc("{\"metadata\":{\"name\":\"team\",\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"},"
              "\"spec\":{\"finalizers\":[\"kubernetes\"]}}");
    upd = doc("{\"metadata\":{\"name\":\"team\"},\"spec\":{}}");
    tap_ok(!st->delete_on_update(old, old),
           "namespace delete_on_update: not while spec.finalizers are left");
    tap_ok(st->delete_on_update(upd, old) && gw_registry__delete_on_update(ns, upd, old),
           "namespace delete_on_update: once they are gone (also through the engine)");
    json_decref(old);
    json_decref(upd);
    json_decref(d);
}

/* The findings of a strategy's validate on a binding, as one string. */
static char *
binding_findings(const char *group, const char *name, const char *text, const char *old_text)
{
    const gw_resource_t *r = res(group, "v1", name);
    json_t *d = doc(text), *old = old_text ? doc(old_text) : NULL;
    gw_field_errors_t errs = {0};
    char *out;

    gw_strategy_of(r)->validate(r, d, old, &errs);
    out = gw_ferr_count(&errs) ? gw_ferr_summary(&errs) : strdup("");
    gw_ferr_clear(&errs);
    json_decref(d);
    json_decref(old);
    return out;
}

#define RBAC "rbac.authorization.k8s.io"
#define BINDING                                                                                    \
    "{\"metadata\":{\"name\":\"b\"},\"roleRef\":{\"apiGroup\":\"" RBAC "\","                       \
    "\"kind\":\"%s\",\"name\":\"%s\"}}"

static void
test_rbac(void)
{
    char good[256], bad[256], other[256];
    char *f;

    snprintf(good, sizeof(good), BINDING, "ClusterRole", "view");
    snprintf(bad, sizeof(bad), BINDING, "Role", "view");
    snprintf(other, sizeof(other), BINDING, "ClusterRole", "edit");
    tap_ok(gw_strategy_of(res(RBAC, "v1", "roles"))->validate == NULL,
           "roles: no validation of their own");
    f = binding_findings(RBAC, "clusterrolebindings", good, NULL);
    tap_is_str(f, "", "clusterrolebinding validate: a ClusterRole reference is fine");
    free(f);
    f = binding_findings(RBAC, "clusterrolebindings", bad, NULL);
    tap_ok(strstr(f, "roleRef.kind") != NULL && strstr(f, "Unsupported value") != NULL,
           "clusterrolebinding validate: a Role reference is refused");
    tap_diag("  %s", f);
    free(f);
    f = binding_findings(RBAC, "rolebindings", bad, NULL);
    tap_is_str(f, "", "rolebinding validate: a Role reference is fine");
    free(f);
    f = binding_findings(RBAC, "clusterrolebindings", other, good);
    tap_ok(strstr(f, "cannot change roleRef") != NULL,
           "clusterrolebinding validate: roleRef may not change");
    free(f);
}

static void
test_csr(void)
{
    const gw_resource_t *csrs = res("certificates.k8s.io", "v1", "certificatesigningrequests");
    char name[] = "alice", uid[] = "", group[] = "system:authenticated";
    char *groups[] = {group};
    authn_user_t user = {.name = name, .uid = uid, .groups = groups, .n_groups = 1};
    json_t *d = doc("{\"metadata\":{\"name\":\"c\"},\"spec\":{\"username\":\"mallory\","
                    "\"signerName\":\"example.com/s\"},\"status\":{\"conditions\":[]}}");
    json_t *old;
    const json_t *spec;

    gw_registry__prepare_create(csrs, &user, d);
    spec = json_object_get(d, "spec");
    tap_is_str(json_string_value(json_object_get(spec, "username")), "alice",
               "CSR prepare_create: the requesting user, not what the client sent");
    tap_ok(json_array_size(json_object_get(spec, "groups")) == 1 &&
               json_object_get(spec, "uid") == NULL,
           "CSR prepare_create: the user's groups, no empty uid");
    tap_ok(json_object_size(json_object_get(d, "status")) == 0, "CSR prepare_create: status {}");
    json_decref(d);

    /* A main update keeps spec and status; a stored object without status reads as {}. */
    old = doc("{\"metadata\":{\"name\":\"c\"},\"spec\":{\"username\":\"alice\","
              "\"signerName\":\"example.com/s\"}}");
    d = doc("{\"metadata\":{\"name\":\"c\"},\"spec\":{\"username\":\"mallory\","
            "\"signerName\":\"example.com/s\"},\"status\":{\"certificate\":\"Yw==\"}}");
    gw_registry__prepare_update(csrs, d, old);
    gw_registry__complete(csrs, d);
    tap_is_str(json_string_value(json_object_get(json_object_get(d, "spec"), "username")), "alice",
               "CSR update: spec stays");
    tap_ok(json_is_object(json_object_get(d, "status")) &&
               json_object_get(json_object_get(d, "status"), "certificate") == NULL,
           "CSR update: status stays (empty)");
    json_decref(old);
    json_decref(d);
}

static void
test_secret_and_service(void)
{
    const gw_resource_t *secrets = res("", "v1", "secrets");
    const gw_resource_t *services = res("", "v1", "services");
    json_t *d = doc("{\"metadata\":{\"name\":\"s\"},\"stringData\":{\"k\":\"v\"}}"), *want;

    gw_strategy_of(secrets)->prepare_create(secrets, NULL, d);
    tap_ok(json_object_get(d, "stringData") == NULL &&
               strcmp(json_string_value(json_object_get(json_object_get(d, "data"), "k")),
                      "dg==") == 0,
           "secret prepare_create: stringData merged into data");
    json_decref(d);

    d = doc("{\"metadata\":{\"name\":\"svc\"},\"spec\":{\"ports\":[{\"port\":80}]},"
            "\"status\":{\"x\":1}}");
    gw_registry__prepare_create(services, NULL, d);
    want = doc("{\"loadBalancer\":{}}");
    tap_ok(json_equal(json_object_get(d, "status"), want),
           "service create: the strategy's initial status");
    json_decref(want);
    tap_ok(gw_strategy_of(services)->name_rule == GW_NAME_DNS1035, "services: DNS-1035 names");
    json_decref(d);
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_resolution();
    test_subresources();
    test_pod();
    test_namespace();
    test_rbac();
    test_csr();
    test_secret_and_service();
    return tap_done();
}
