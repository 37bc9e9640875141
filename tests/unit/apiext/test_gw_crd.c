/* Unit tests for gateway/apiext/gw_crd.c: a stored CRD compiled into the resources it serves
 * (names as accepted, served versions only, subresources, storage path and version hash,
 * selectable fields, scale paths, deprecation warnings, defaults), and the CRDs it refuses. */
#include "crd_test_util.h"
#include "gw_crd.h"

#define ACCEPTED                                                                                   \
    "\"status\":{\"acceptedNames\":{\"plural\":\"widgets\",\"singular\":\"widget\","               \
    "\"kind\":\"Widget\",\"listKind\":\"WidgetList\",\"shortNames\":[\"wd\"],"                     \
    "\"categories\":[\"all\"]},\"conditions\":[{\"type\":\"NamesAccepted\",\"status\":\"True\"}]}"

static const char *const crd_text =
    "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
    "\"metadata\":{\"name\":\"widgets.example.com\",\"uid\":\"u-1\"},"
    "\"spec\":{\"group\":\"example.com\",\"scope\":\"Namespaced\","
    "\"names\":{\"plural\":\"widgets\",\"singular\":\"widget\",\"kind\":\"Widget\"},"
    "\"versions\":["
    "{\"name\":\"v1alpha1\",\"served\":false,\"storage\":false},"
    "{\"name\":\"v1beta1\",\"served\":true,\"storage\":false,\"deprecated\":true},"
    "{\"name\":\"v1\",\"served\":true,\"storage\":true,"
    " \"selectableFields\":[{\"jsonPath\":\".spec.color\"}],"
    " \"subresources\":{\"status\":{},\"scale\":{\"specReplicasPath\":\".spec.replicas\","
    "   \"statusReplicasPath\":\".status.replicas\",\"labelSelectorPath\":\".status.sel\"}},"
    " \"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{\"spec\":{"
    "   \"type\":\"object\",\"properties\":{\"color\":{\"type\":\"string\",\"default\":\"red\"},"
    "   \"replicas\":{\"type\":\"integer\"}}}}}}}]}," ACCEPTED "}";

static gw_crd_t *
compile_crd(const char *text, char *err, size_t len)
{
    json_t *j = parse(text);
    gw_crd_t *c = gw_crd_compile(j, 7, gw_catalog_builtin(), err, len);
    json_decref(j);
    return c;
}

static const gw_resource_t *
version(const gw_crd_t *c, const char *name)
{
    const gw_resource_t *const *rs;
    size_t n = gw_crd_resources(c, &rs);

    for (size_t i = 0; i < n; i++) {
        if (strcmp(rs[i]->version, name) == 0)
            return rs[i];
    }
    return NULL;
}

static void
test_resources(void)
{
    char err[256] = "";
    gw_crd_t *c = compile_crd(crd_text, err, sizeof(err));
    const gw_resource_t *const *rs;
    const gw_resource_t *v1, *beta;
    const gw_crd_version_t *cv;

    tap_ok(c != NULL, "a CRD with accepted names compiles (%s)", err);
    if (c == NULL)
        return;
    tap_ok(gw_crd_resources(c, &rs) == 2, "its two served versions are resources");
    tap_ok(version(c, "v1alpha1") == NULL, "an unserved version is not");
    v1 = version(c, "v1");
    beta = version(c, "v1beta1");
    tap_ok(strcmp(v1->name, "widgets") == 0 && strcmp(v1->kind, "Widget") == 0 &&
               strcmp(v1->list_kind, "WidgetList") == 0 && strcmp(v1->singular, "widget") == 0,
           "names as accepted");
    tap_ok(v1->n_short_names == 1 && strcmp(v1->short_names[0], "wd") == 0 &&
               v1->n_categories == 1 && strcmp(v1->categories[0], "all") == 0,
           "short names and categories as accepted");
    tap_ok(v1->namespaced && strcmp(v1->api_version, "example.com/v1") == 0 &&
               strcmp(v1->storage_path, "example.com/widgets") == 0,
           "scope, apiVersion and storage path");
    tap_ok(v1->storage_version_hash != NULL && strlen(v1->storage_version_hash) == 12 &&
               strcmp(v1->storage_version_hash, beta->storage_version_hash) == 0,
           "one storage version hash for every version (%s)", v1->storage_version_hash);
    tap_ok(v1->n_subresources == 2 && strcmp(v1->subresources[0].name, "status") == 0 &&
               strcmp(v1->subresources[1].kind, "Scale") == 0 &&
               strcmp(v1->subresources[1].group, "autoscaling") == 0,
           "status and scale subresources");
    tap_ok(beta->n_subresources == 0, "v1beta1 has none");
    tap_ok(v1->custom != NULL && strcmp(v1->custom->storage_version, "v1") == 0 &&
               strcmp(v1->custom->crd_uid, "u-1") == 0,
           "the custom facts: storage version, CRD uid");
    cv = gw_crd_version_of(v1);
    tap_ok(cv != NULL && cv->has_scale && strcmp(cv->spec_replicas, ".spec.replicas") == 0 &&
               strcmp(cv->label_selector, ".status.sel") == 0,
           "scale paths");
    tap_ok(cv->field_labels[0] && strcmp(cv->field_labels[2], "spec.color") == 0 &&
               cv->field_labels[3] == NULL,
           "field labels: metadata's two, then spec.color");
    tap_ok(cv->has_defaults && !gw_crd_version_of(beta)->has_defaults,
           "v1's schema has defaults, v1beta1's none");
    tap_ok(v1->custom->deprecation_warning == NULL, "v1 is not deprecated");
    tap_ok(beta->custom->deprecation_warning != NULL &&
               strcmp(beta->custom->deprecation_warning,
                      "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget") == 0,
           "v1beta1's default deprecation warning names v1");
    tap_ok(gw_crd_revision(c) == 7 && strcmp(gw_crd_uid(c), "u-1") == 0 && !gw_crd_terminating(c),
           "revision, uid, not terminating");
    tap_ok(gw_crd_ref(c) == c, "a reference");
    gw_crd_unref(c);
    gw_crd_unref(c);
}

static void
test_refused(void)
{
    char err[256] = "";
    json_t *j = parse(crd_text);
    gw_crd_t *c;

    json_object_set_new(json_object_get(j, "status"), "conditions", json_array());
    c = gw_crd_compile(j, 1, gw_catalog_builtin(), err, sizeof(err));
    tap_ok(c == NULL && strstr(err, "not accepted") != NULL, "names not accepted: not served (%s)",
           err);
    json_decref(j);
    c = compile_crd("{\"spec\":{\"group\":\"g.io\",\"names\":{\"plural\":\"x\",\"kind\":\"X\"},"
                    "\"versions\":[{\"name\":\"v1\",\"served\":false}]}," ACCEPTED "}",
                    err, sizeof(err));
    tap_ok(c == NULL && strstr(err, "no served version") != NULL, "no served version (%s)", err);
    c = compile_crd("{\"spec\":{\"versions\":[]}," ACCEPTED "}", err, sizeof(err));
    tap_ok(c == NULL, "no group or names: not served (%s)", err);
    c = compile_crd("[1,2]", err, sizeof(err));
    tap_ok(c == NULL, "not an object: not served");
}

static void
test_terminating_and_warning(void)
{
    char err[256] = "";
    json_t *j = parse(crd_text);
    json_t *v = json_array_get(json_object_get(json_object_get(j, "spec"), "versions"), 1);
    gw_crd_t *c;

    json_object_set_new(json_object_get(j, "metadata"), "deletionTimestamp",
                        json_string("2026-01-01T00:00:00Z"));
    json_object_set_new(v, "deprecationWarning", json_string("use v1, really"));
    c = gw_crd_compile(j, 2, gw_catalog_builtin(), err, sizeof(err));
    tap_ok(c != NULL && gw_crd_terminating(c), "a CRD being deleted is still served, terminating");
    tap_ok(c != NULL &&
               strcmp(version(c, "v1beta1")->custom->deprecation_warning, "use v1, really") == 0,
           "the CRD's own deprecation warning wins");
    gw_crd_unref(c);
    json_decref(j);
}

int
main(void)
{
    test_resources();
    test_refused();
    test_terminating_and_warning();
    return tap_done();
}
