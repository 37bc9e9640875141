/* Unit tests for gateway/registry/gw_registry_csr.c and gw_registry_ephemeral.c: what a
 * CertificateSigningRequest update may change through the main resource, status and approval
 * (kube's csr strategies and ValidateCertificateSigningRequest*Update), and
 * ValidatePodEphemeralContainersUpdate's rules. */
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_registry_int.h"
#include "tap.h"

static const gw_catalog_t *cat;

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

static const gw_resource_t *
csrs(void)
{
    return gw_catalog_find(cat, "certificates.k8s.io", "v1", "certificatesigningrequests");
}

/* The aggregate text of what validating obj over old through `sub` finds ("" for nothing). */
static char *
csr_findings(const char *sub, const char *obj_text, const char *old_text)
{
    json_t *obj = doc(obj_text), *old = doc(old_text);
    gw_field_errors_t errs = {0};
    char *out;

    gw_registry__csr_prepare_update(csrs(), sub, obj, old);
    gw_registry__csr_validate_update(csrs(), sub, obj, old, &errs);
    out = gw_ferr_count(&errs) ? gw_ferr_summary(&errs) : strdup("");
    gw_ferr_clear(&errs);
    json_decref(obj);
    json_decref(old);
    return out;
}

static void
findings_are(const char *sub, const char *obj, const char *old, const char *want, const char *name)
{
    char *got = csr_findings(sub, obj, old);

    tap_is_str(got, want, name);
    free(got);
}

#define OLD "{\"spec\":{\"signerName\":\"a/b\"},\"status\":{}}"
#define APPROVED                                                                                   \
    "{\"spec\":{\"signerName\":\"a/b\"},\"status\":{\"conditions\":[{\"type\":\"Approved\","       \
    "\"status\":\"True\"}]}}"

static void
test_csr_rules(void)
{
    json_t *obj = doc("{\"spec\":{\"signerName\":\"x/y\"},\"status\":{\"conditions\":["
                      "{\"type\":\"Approved\",\"status\":\"True\"}]}}");
    json_t *old = doc(OLD);

    gw_registry__csr_prepare_update(csrs(), NULL, obj, old);
    tap_ok(json_equal(obj, old), "the main resource keeps spec and status");
    json_decref(obj);
    obj = doc("{\"spec\":{\"signerName\":\"x/y\"},\"status\":{\"certificate\":\"Yw==\","
              "\"conditions\":[{\"type\":\"Approved\",\"status\":\"True\"}]}}");
    gw_registry__csr_prepare_update(csrs(), "approval", obj, old);
    tap_ok(strcmp(json_string_value(json_object_get(json_object_get(obj, "spec"), "signerName")),
                  "a/b") == 0 &&
               json_object_get(json_object_get(obj, "status"), "certificate") == NULL,
           "approval keeps spec and everything in status but the conditions");
    json_t *c = json_array_get(json_object_get(json_object_get(obj, "status"), "conditions"), 0);
    tap_ok(json_string_length(json_object_get(c, "lastUpdateTime")) == 20 &&
               json_string_length(json_object_get(c, "lastTransitionTime")) == 20,
           "a new condition gets lastUpdateTime and lastTransitionTime");
    json_decref(obj);
    json_decref(old);

    findings_are("approval", APPROVED, OLD, "", "approval may add Approved");
    findings_are("status", APPROVED, OLD,
                 "status.conditions: Forbidden: updates may not add a condition of type "
                 "\"Approved\"",
                 "status may not add Approved");
    findings_are("approval", OLD, APPROVED,
                 "status.conditions: Forbidden: updates may not remove a condition of type "
                 "\"Approved\"",
                 "an Approved condition is never removed");
    findings_are("approval",
                 "{\"status\":{\"conditions\":[{\"type\":\"Denied\",\"status\":\"False\"}]}}", OLD,
                 "status.conditions[0].status: Unsupported value: \"False\": supported values: "
                 "\"True\"",
                 "Denied is only True");
    findings_are("approval",
                 "{\"status\":{\"conditions\":[{\"type\":\"X\",\"status\":\"Maybe\"},"
                 "{\"type\":\"X\",\"status\":\"True\"}]}}",
                 OLD,
                 "[status.conditions[0].status: Unsupported value: \"Maybe\": supported values: "
                 "\"False\", \"True\", \"Unknown\", status.conditions[1].type: Duplicate value: "
                 "\"X\"]",
                 "condition statuses and duplicate types");
    findings_are("status", "{\"status\":{\"certificate\":\"Yw==\"}}", OLD, "",
                 "status may set the certificate");
    findings_are("approval", "{\"status\":{\"certificate\":\"Yw==\"}}", OLD, "",
                 "approval drops a certificate change");
    findings_are("status", "{\"status\":{\"certificate\":\"ZA==\"}}",
                 "{\"status\":{\"certificate\":\"Yw==\"}}",
                 "status.certificate: Forbidden: updates may not modify existing certificate "
                 "content",
                 "a certificate is set once");
}

/* ---- ephemeral containers ----------------------------------------------------------------- */

static char *
ephemeral_findings(const char *obj_text, const char *cur_text)
{
    gw_upd_t u = {.sub = "ephemeralcontainers"};
    json_t *cur = doc(cur_text), *src = doc(obj_text), *obj = gw_registry__ephemeral_into(cur, src);
    gw_field_errors_t errs = {0};
    char *out;

    gw_registry__ephemeral_validate(&u, obj, cur, &errs);
    out = gw_ferr_count(&errs) ? gw_ferr_summary(&errs) : strdup("");
    gw_ferr_clear(&errs);
    json_decref(obj);
    json_decref(src);
    json_decref(cur);
    return out;
}

#define POD "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]%s}}"

static void
ephemeral_is(const char *ecs, const char *cur_ecs, const char *want, const char *name)
{
    char obj[1024], cur[1024];
    char *got;

    snprintf(obj, sizeof(obj), POD, ecs);
    snprintf(cur, sizeof(cur), POD, cur_ecs);
    got = ephemeral_findings(obj, cur);
    tap_is_str(got, want, name);
    free(got);
}

static void
test_ephemeral(void)
{
    json_t *cur = doc("{\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"b\"}},\"spec\":"
                      "{\"containers\":[{\"name\":\"c\"}]}}");
    json_t *src = doc("{\"metadata\":{\"name\":\"p\",\"labels\":{}},\"spec\":{\"containers\":[],"
                      "\"ephemeralContainers\":[{\"name\":\"e\"}]}}");
    json_t *out = gw_registry__ephemeral_into(cur, src);

    tap_ok(json_array_size(json_object_get(json_object_get(out, "spec"), "containers")) == 1 &&
               json_object_size(json_object_get(json_object_get(out, "metadata"), "labels")) == 1 &&
               json_array_size(
                   json_object_get(json_object_get(out, "spec"), "ephemeralContainers")) == 1,
           "only spec.ephemeralContainers comes from the request");
    json_decref(out);
    json_decref(src);
    json_decref(cur);

    ephemeral_is(",\"ephemeralContainers\":[{\"name\":\"e\",\"image\":\"i\"}]", "", "",
                 "a new ephemeral container is fine");
    ephemeral_is("", ",\"ephemeralContainers\":[{\"name\":\"e\",\"image\":\"i\"}]",
                 "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"e\" may "
                 "not be removed\n",
                 "one cannot be removed");
    ephemeral_is(",\"ephemeralContainers\":[{\"name\":\"e\",\"image\":\"j\"}]",
                 ",\"ephemeralContainers\":[{\"name\":\"e\",\"image\":\"i\"}]",
                 "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"e\" may "
                 "not be changed\n",
                 "one cannot be changed");
    ephemeral_is(
        ",\"ephemeralContainers\":[{\"name\":\"c\",\"image\":\"i\",\"lifecycle\":{\"a\":1},"
        "\"volumeMounts\":[{\"name\":\"v\",\"subPath\":\"s\"}]}]",
        "",
        "[spec.ephemeralContainers[0].name: Duplicate value: \"c\", "
        "spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an "
        "Ephemeral Container, spec.ephemeralContainers[0].volumeMounts[0].subPath: "
        "Forbidden: cannot be set for an Ephemeral Container]",
        "duplicate names, forbidden fields and subpaths");
    ephemeral_is(",\"ephemeralContainers\":[{\"name\":\"e\",\"targetContainerName\":\"x\"}]", "",
                 "[spec.ephemeralContainers[0].image: Required value, "
                 "spec.ephemeralContainers[0].targetContainerName: Not found: \"x\"]",
                 "an image is required and the target must exist");
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_csr_rules();
    test_ephemeral();
    return tap_done();
}
