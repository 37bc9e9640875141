/* Unit tests for the per-kind rules of gateway/registry/gw_registry_secret.c and
 * gw_registry_service.c, through the strategy (prepare and validate) over the built-in
 * catalog: a Secret's stringData, its data validation, a Service's cluster IPs on update. */
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
core(const char *name)
{
    return gw_catalog_find(cat, "", "v1", name);
}

/* The member at dotted `path` of d equals the JSON `want` ("absent": no such member). */
static bool
member_is(const json_t *d, const char *path, const char *want)
{
    const json_t *v = d;
    char part[64];
    json_t *w;
    bool ok;

    for (const char *p = path; v != NULL && *p != '\0';) {
        size_t n = strcspn(p, ".");
        snprintf(part, sizeof(part), "%.*s", (int)n, p);
        v = json_object_get(v, part);
        p += n + (p[n] == '.');
    }
    if (strcmp(want, "absent") == 0)
        return v == NULL;
    w = json_loads(want, JSON_DECODE_ANY, NULL);
    ok = v != NULL && w != NULL && json_equal(v, w);
    if (!ok) {
        char *got = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
        tap_diag("  %s: got %s, want %s", path, got ? got : "(absent)", want);
        free(got);
    }
    json_decref(w);
    return ok;
}

/* The one summary line of the kind's validation of obj (over old), "" when valid. */
static char *
validation(const gw_resource_t *r, const json_t *obj, const json_t *old)
{
    gw_field_errors_t errs = {0};
    char *s;

    gw_registry__validate_kind(r, obj, old, &errs);
    s = gw_ferr_count(&errs) ? gw_ferr_summary(&errs) : strdup("");
    gw_ferr_clear(&errs);
    return s;
}

static void
check_validation(const gw_resource_t *r, const json_t *obj, const json_t *old, const char *want,
                 const char *name)
{
    char *got = validation(r, obj, old);
    tap_is_str(got, want, name);
    free(got);
}

static void
test_secret(void)
{
    const gw_resource_t *s = core("secrets");
    json_t *d = doc("{\"data\":{\"a\":\"b2xk\",\"b\":\"a2VlcA==\"},"
                    "\"stringData\":{\"a\":\"new\",\"c\":\"p@ss word\",\"e\":\"\"}}");

    gw_registry__default(s, d);
    gw_registry__prepare_create(s, NULL, d);
    tap_ok(member_is(d, "data",
                     "{\"a\":\"bmV3\",\"b\":\"a2VlcA==\",\"c\":\"cEBzcyB3b3Jk\","
                     "\"e\":\"\"}"),
           "create: stringData merged into data, overriding, base64 with padding");
    tap_ok(member_is(d, "stringData", "absent"), "create: stringData dropped");
    json_decref(d);

    d = doc("{\"stringData\":{\"k\":\"ab\"}}");
    gw_registry__default(s, d);
    gw_registry__prepare_create(s, NULL, d);
    tap_ok(member_is(d, "data", "{\"k\":\"YWI=\"}"), "stringData only: data made");
    json_decref(d);

    json_t *old = doc("{\"metadata\":{\"name\":\"x\"},\"data\":{\"k\":\"YWI=\"}}");
    d = doc("{\"metadata\":{\"name\":\"x\"},\"stringData\":{\"k\":\"abc\"}}");
    gw_registry__default(s, d);
    gw_registry__prepare_update(s, d, old);
    tap_ok(member_is(d, "data", "{\"k\":\"YWJj\"}") && member_is(d, "stringData", "absent"),
           "update: stringData merged and dropped");
    json_decref(d);
    json_decref(old);

    d = doc("{\"stringData\":{}}");
    gw_registry__default(s, d);
    gw_registry__prepare_create(s, NULL, d);
    tap_ok(member_is(d, "stringData", "absent") && member_is(d, "data", "absent"),
           "an empty stringData is only dropped");
    json_decref(d);

    d = doc("{\"data\":{\"bad key\":\"\",\".\":\"\",\"ok-1._\":\"\"}}");
    char *got = validation(s, d, NULL);
    tap_ok(strstr(got, "data[bad key]: Invalid value: \"bad key\": a valid config key must "
                       "consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
                       "or 'KEY_NAME',  or 'key-name', regex used for validation is "
                       "'[-._a-zA-Z0-9]+')") != NULL,
           "a bad data key: kube's IsConfigMapKey message on data[key]");
    tap_ok(strstr(got, "data[.]: Invalid value: \".\": must not be '.'") != NULL,
           "a '.' key is refused");
    tap_ok(strstr(got, "ok-1._") == NULL, "a good key passes");
    free(got);
    json_decref(d);
}

static const char *const svc_old =
    "{\"spec\":{\"type\":\"ClusterIP\",\"clusterIP\":\"10.0.0.10\",\"clusterIPs\":[\"10.0.0.10\"],"
    "\"ipFamilies\":[\"IPv4\"],\"ipFamilyPolicy\":\"SingleStack\",\"selector\":{\"a\":\"b\"}}}";

/* prepare_update then validation of `text` over svc_old. */
static json_t *
svc_update(const char *text, char **summary)
{
    const gw_resource_t *s = core("services");
    json_t *old = doc(svc_old), *d = doc(text);

    gw_registry__default(s, d);
    gw_registry__prepare_update(s, d, old);
    *summary = validation(s, d, old);
    json_decref(old);
    return d;
}

static void
test_service(void)
{
    char *sum;
    json_t *d;

    d = svc_update("{\"spec\":{\"selector\":{\"a\":\"b\"}}}", &sum);
    tap_ok(member_is(d, "spec.clusterIP", "\"10.0.0.10\"") &&
               member_is(d, "spec.clusterIPs", "[\"10.0.0.10\"]"),
           "addresses left out are kept");
    tap_is_str(sum, "", "... and valid");
    free(sum);
    json_decref(d);

    d = svc_update("{\"spec\":{\"clusterIP\":\"10.0.0.11\"}}", &sum);
    tap_is_str(
        sum, "spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.11\"}: may not change once set",
        "a new clusterIP alone: clusterIPs follows it, then may not change once set");
    free(sum);
    json_decref(d);

    d = svc_update("{\"spec\":{\"clusterIP\":\"10.0.0.11\",\"clusterIPs\":[\"10.0.0.12\"]}}", &sum);
    tap_is_str(sum,
               "spec.clusterIPs: Invalid value: []string{\"10.0.0.12\"}: first value must "
               "match `clusterIP`",
               "clusterIPs not following clusterIP: the consistency error alone");
    free(sum);
    json_decref(d);

    d = svc_update("{\"spec\":{\"clusterIP\":\"None\",\"clusterIPs\":[\"None\"]}}", &sum);
    tap_is_str(sum,
               "spec.clusterIPs[0]: Invalid value: []string{\"None\"}: may not change once set",
               "becoming headless: may not change once set");
    free(sum);
    json_decref(d);

    d = svc_update("{\"spec\":{\"clusterIP\":\"\"}}", &sum);
    tap_ok(member_is(d, "spec.clusterIP", "\"10.0.0.10\""),
           "an empty clusterIP is filled in (patchAllocatedValues)");
    free(sum);
    json_decref(d);

    d = svc_update("{\"spec\":{\"clusterIPs\":[\"10.0.0.10\",\"2001:db8::1\"],"
                   "\"clusterIP\":\"10.0.0.10\",\"ipFamilyPolicy\":\"RequireDualStack\"}}",
                   &sum);
    tap_is_str(sum, "", "adding a secondary IP of the other family is allowed");
    free(sum);
    json_decref(d);

    d = svc_update("{\"spec\":{\"clusterIPs\":[\"10.0.0.10\",\"10.0.0.11\"],"
                   "\"clusterIP\":\"10.0.0.10\"}}",
                   &sum);
    tap_is_str(sum,
               "spec.clusterIPs: Invalid value: []string{\"10.0.0.10\", \"10.0.0.11\"}: may "
               "specify no more than one IP for each IP family",
               "two addresses of one family");
    free(sum);
    json_decref(d);

    d = svc_update("{\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"a.example\","
                   "\"clusterIP\":\"10.0.0.10\",\"clusterIPs\":[\"10.0.0.10\"],"
                   "\"ipFamilies\":[\"IPv4\"],\"ipFamilyPolicy\":\"SingleStack\"}}",
                   &sum);
    tap_ok(member_is(d, "spec.clusterIP", "absent") && member_is(d, "spec.clusterIPs", "absent") &&
               member_is(d, "spec.ipFamilies", "absent") &&
               member_is(d, "spec.ipFamilyPolicy", "absent"),
           "to ExternalName: unchanged addresses, families and policy dropped");
    tap_is_str(sum, "", "... and valid");
    free(sum);
    json_decref(d);

    const gw_resource_t *s = core("services");
    json_t *old = doc("{\"spec\":{\"type\":\"NodePort\",\"ports\":[{\"name\":\"http\","
                      "\"port\":80,\"nodePort\":30080},{\"name\":\"b\",\"port\":81,"
                      "\"nodePort\":30081}]}}");
    d = doc("{\"spec\":{\"type\":\"NodePort\",\"ports\":[{\"name\":\"http\",\"port\":80},"
            "{\"name\":\"b\",\"port\":81,\"nodePort\":30080}]}}");
    gw_registry__default(s, d);
    gw_registry__prepare_update(s, d, old);
    tap_ok(member_is(d, "spec.ports",
                     "[{\"name\":\"http\",\"port\":80,\"protocol\":\"TCP\","
                     "\"targetPort\":80},{\"name\":\"b\",\"port\":81,"
                     "\"nodePort\":30080,\"protocol\":\"TCP\",\"targetPort\":81}]"),
           "a node port another port kept is not given back");
    json_decref(d);
    d = doc("{\"spec\":{\"type\":\"NodePort\",\"ports\":[{\"name\":\"http\",\"port\":80}]}}");
    gw_registry__default(s, d);
    gw_registry__prepare_update(s, d, old);
    tap_ok(member_is(d, "spec.ports",
                     "[{\"name\":\"http\",\"port\":80,\"nodePort\":30080,"
                     "\"protocol\":\"TCP\",\"targetPort\":80}]"),
           "a node port left out is kept, by the port's name (patchAllocatedValues)");
    json_decref(d);
    d = doc("{\"spec\":{\"type\":\"ClusterIP\",\"ports\":[{\"name\":\"http\",\"port\":80,"
            "\"nodePort\":30080}]}}");
    gw_registry__default(s, d);
    gw_registry__prepare_update(s, d, old);
    tap_ok(member_is(d, "spec.ports",
                     "[{\"name\":\"http\",\"port\":80,\"protocol\":\"TCP\","
                     "\"targetPort\":80}]"),
           "to ClusterIP: unchanged node ports dropped (dropTypeDependentFields)");
    json_decref(d);
    json_decref(old);

    d = doc("{\"spec\":{\"clusterIP\":\"10.0.0.300\"}}");
    gw_registry__default(s, d);
    gw_registry__prepare_create(s, NULL, d);
    check_validation(s, d, NULL,
                     "spec.clusterIPs[0]: Invalid value: \"10.0.0.300\": must be a valid IP "
                     "address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                     "create: a malformed address");
    json_decref(d);
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_secret();
    test_service();
    return tap_done();
}
