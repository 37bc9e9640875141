/* Unit tests for the field selector labels gateway/apiext/gw_crd.c compiles for a custom
 * resource: metadata.name, metadata.namespace for a namespaced kind only (kube's crConverter
 * refuses it for a cluster-scoped one), then the version's selectableFields; and the registry's
 * answer to a label the kind does not have, in kube's words. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_crd.h"
#include "gw_registry_int.h"
#include "tap.h"

/* A CRD of scope `scope` with accepted names and one served version selecting .spec.zone. */
static json_t *
crd(const char *scope)
{
    json_error_t e;
    json_t *v = json_pack_ex(
        &e, 0,
        "{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:{s:s, s:s}, s:[{s:s, s:b, s:b, s:[{s:s}], "
        "s:{s:{s:s, s:{s:{s:s, s:{s:{s:s}}}}}}}]}, s:{s:[{s:s, s:s}], s:{s:s, s:s, s:s, s:s}}}",
        "apiVersion", "apiextensions.k8s.io/v1", "kind", "CustomResourceDefinition", "metadata",
        "name", "gates.example.com", "uid", "u-1", "spec", "group", "example.com", "scope", scope,
        "names", "plural", "gates", "kind", "Gate", "versions", "name", "v1", "served", 1,
        "storage", 1, "selectableFields", "jsonPath", ".spec.zone", "schema", "openAPIV3Schema",
        "type", "object", "properties", "spec", "type", "object", "properties", "zone", "type",
        "string", "status", "conditions", "type", "Established", "status", "True", "acceptedNames",
        "plural", "gates", "singular", "gate", "kind", "Gate", "listKind", "GateList");
    if (v == NULL)
        tap_diag("json_pack: %s", e.text);
    return v;
}

/* The labels of scope's only version, comma-separated (static buffer). */
static const char *
labels_of(const char *scope, char *msg, size_t len)
{
    static char out[256];
    json_t *def = crd(scope);
    char err[256] = "";
    gw_crd_t *c = gw_crd_compile(def, 7, gw_catalog_builtin(), err, sizeof err);
    const gw_resource_t *const *rs;

    out[0] = '\0';
    if (c == NULL || gw_crd_resources(c, &rs) != 1) {
        tap_diag("gw_crd_compile(%s): %s", scope, err);
        json_decref(def);
        return out;
    }
    for (const char *const *f = gw_crd_version_of(rs[0])->field_labels; *f != NULL; f++) {
        strcat(out, out[0] != '\0' ? "," : "");
        strcat(out, *f);
    }
    if (gw_registry__field_supported(rs[0], "metadata.namespace", msg, len))
        snprintf(msg, len, "supported");
    gw_crd_unref(c);
    json_decref(def);
    return out;
}

int
main(void)
{
    char msg[128] = "";

    tap_is_str(labels_of("Namespaced", msg, sizeof msg),
               "metadata.name,metadata.namespace,spec.zone", "a namespaced kind's labels");
    tap_is_str(msg, "supported", "metadata.namespace is supported there");
    tap_is_str(labels_of("Cluster", msg, sizeof msg), "metadata.name,spec.zone",
               "a cluster-scoped kind has no metadata.namespace");
    tap_is_str(msg, "field label not supported: metadata.namespace",
               "naming it is refused in kube's words");
    return tap_done();
}
