/* Unit tests for gateway/admission/gw_vap_typecheck (and the catalog schemas it types with,
 * gw_schema_cel): the kinds a policy's rules resolve to, typed object and params, kube's
 * warning text per kind, and schemas kube types specially (int-or-string, times, recursion). */
#include <stdlib.h>
#include <string.h>

#include "gw_vap_typecheck.h"
#include "tap.h"

static const gw_catalog_t *served;

#define APPS_DEPLOYMENTS                                                                           \
    "{\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"operations\":[\"*\"],"                   \
    "\"resources\":[\"deployments\"]}"
#define CORE_PODS                                                                                  \
    "{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":[\"*\"],"                       \
    "\"resources\":[\"pods\",\"pods/status\",\"nosuch\"]}"

/* A policy over `rules` (a JSON array's items) with validations {expression, messageExpression}
 * given as pairs (a NULL messageExpression leaves it out), and `extra` spec members. */
static json_t *
policy(const char *rules, const char *extra, const char *const *vals, size_t n)
{
    char text[4096];
    snprintf(text, sizeof(text),
             "{\"metadata\":{\"name\":\"p\",\"generation\":1},\"spec\":{\"matchConstraints\":"
             "{\"resourceRules\":[%s]}%s}}",
             rules, extra);
    json_t *p = json_loads(text, 0, NULL);
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_pack("{s:s}", "expression", vals[2 * i]);
        if (vals[2 * i + 1] != NULL)
            json_object_set_new(v, "messageExpression", json_string(vals[2 * i + 1]));
        json_array_append_new(list, v);
    }
    json_object_set_new(json_object_get(p, "spec"), "validations", list);
    return p;
}

static json_t *
check(const char *rules, const char *extra, const char *const *vals, size_t n)
{
    json_t *p = policy(rules, extra, vals, n);
    json_t *w = gw_vap_typecheck(p, served);
    json_decref(p);
    return w;
}

static const char *
at(const json_t *w, size_t i, const char *key)
{
    return json_string_value(json_object_get(json_array_get(w, i), key));
}

static void
test_one_kind(void)
{
    const char *const vals[] = {
        "object.spec.replicas > 1",
        NULL, /* fine */
        "object.spec.replicass > 1",
        "'n ' + object.metadata.nam", /* both wrong */
        "object.spec.strategy.rollingUpdate.maxSurge == 1",
        NULL, /* int-or-string: dyn */
        "object.metadata.creationTimestamp < timestamp('2030-01-01T00:00:00Z')",
        NULL,
        "object.spec.template.spec.containers.all(c, c.image != '')",
        "object.spec.replicas",
    };
    json_t *w = check(APPS_DEPLOYMENTS, "", vals, 5);
    tap_is_int((int)json_array_size(w), 2, "two warnings");
    tap_is_str(at(w, 0, "fieldRef"), "spec.validations[1].expression", "the expression's fieldRef");
    tap_is_str(at(w, 0, "warning"),
               "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n"
               " | object.spec.replicass > 1\n"
               " | ...........^\n",
               "kube's text: the kind, then cel-go's issue");
    tap_is_str(at(w, 1, "fieldRef"), "spec.validations[1].messageExpression",
               "the messageExpression's fieldRef");
    tap_ok(at(w, 1, "warning") != NULL && strstr(at(w, 1, "warning"), "undefined field 'nam'"),
           "metadata is typed as ObjectMeta");
    tap_ok(at(w, 2, "fieldRef") == NULL,
           "no return type is enforced (an int messageExpression is no warning)");
    json_decref(w);
}

static void
test_kinds(void)
{
    const char *const vals[] = {"object.spec.replicas > 1", NULL};
    json_t *w = check(APPS_DEPLOYMENTS "," CORE_PODS, "", vals, 1);
    tap_is_int((int)json_array_size(w), 1, "one warning for the expression");
    tap_is_str(at(w, 0, "warning"),
               "/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'replicas'\n"
               " | object.spec.replicas > 1\n"
               " | ...........^\n",
               "only the kind lacking the field; subresources and unknown resources are skipped");
    json_decref(w);

    const char *const bad[] = {"object.nosuch", NULL};
    w = check(APPS_DEPLOYMENTS "," CORE_PODS, "", bad, 1);
    const char *text = at(w, 0, "warning");
    tap_ok(text != NULL && strncmp(text, "/v1, Kind=Pod: ", 15) == 0 &&
               strstr(text, "\n\napps/v1, Kind=Deployment: ") != NULL,
           "a paragraph per kind, core first, separated by a blank line");
    json_decref(w);

    w = check("{\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"operations\":[\"*\"],"
              "\"resources\":[\"*\"]}",
              "", bad, 1);
    tap_is_int((int)json_array_size(w), 0, "a wildcard resource resolves no kind: no warnings");
    json_decref(w);
    w = check("{\"apiGroups\":[\"*\"],\"apiVersions\":[\"v1\"],\"operations\":[\"*\"],"
              "\"resources\":[\"deployments\"]}",
              "", bad, 1);
    tap_is_int((int)json_array_size(w), 0, "a wildcard group skips the rule");
    json_decref(w);
}

static void
test_params(void)
{
    const char *const vals[] = {"params.data.x == object.metadata.name", NULL, "params.dta", NULL};
    json_t *w = check(APPS_DEPLOYMENTS,
                      ",\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}", vals, 2);
    tap_is_int((int)json_array_size(w), 1, "params typed as the ConfigMap");
    tap_ok(at(w, 0, "warning") && strstr(at(w, 0, "warning"), "undefined field 'dta'"),
           "an unknown param field");
    json_decref(w);
    w = check(APPS_DEPLOYMENTS,
              ",\"paramKind\":{\"apiVersion\":\"example.com/v1\",\"kind\":\"Nothing\"}", vals, 1);
    tap_ok(json_array_size(w) == 1 &&
               strstr(at(w, 0, "warning"), "undeclared reference to 'params'"),
           "an unknown param kind leaves params undeclared, as kube's checker does");
    json_decref(w);
}

static void
test_variables_and_recursion(void)
{
    const char *const vals[] = {"variables.r > 2", NULL, "variables.r.size() > 0", NULL};
    json_t *w =
        check(APPS_DEPLOYMENTS,
              ",\"variables\":[{\"name\":\"r\",\"expression\":\"object.spec.replicas\"}]", vals, 2);
    tap_is_int((int)json_array_size(w), 1, "variables are typed by their expressions");
    tap_is_str(at(w, 0, "fieldRef"), "spec.validations[1].expression", "an int has no size()");
    json_decref(w);

    const char *const crd[] = {
        "object.spec.versions.all(v, v.schema.openAPIV3Schema.type == 'object')", NULL};
    w = check("{\"apiGroups\":[\"apiextensions.k8s.io\"],\"apiVersions\":[\"v1\"],"
              "\"operations\":[\"*\"],\"resources\":[\"customresourcedefinitions\"]}",
              "", crd, 1);
    tap_is_int((int)json_array_size(w), 0, "a recursive schema types its first level");
    json_decref(w);
}

int
main(void)
{
    char err[256];
    if (gw_catalog_configure(gw_catalog_builtin(), NULL, &served, err, sizeof(err)) != 0) {
        tap_diag("%s", err);
        return 1;
    }
    test_one_kind();
    test_kinds();
    test_params();
    test_variables_and_recursion();
    return tap_done();
}
