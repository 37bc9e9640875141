/* Unit tests for gateway/meta/gw_objmeta: system fields, kube's ObjectMeta validation and
 * the wording of its field errors. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "gw_objmeta.h"
#include "tap.h"

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

/* The aggregate text of validating `text` (NULL when valid). */
static char *
validate(const char *text, bool namespaced, gw_name_rule_t rule)
{
    gw_field_errors_t e = {0};
    json_t *d = doc(text);
    char *s;

    gw_objmeta_validate(d, namespaced, rule, &e);
    s = gw_ferr_count(&e) ? gw_ferr_summary(&e) : NULL;
    gw_ferr_clear(&e);
    json_decref(d);
    return s;
}

static void
is_validation(const char *text, bool namespaced, gw_name_rule_t rule, const char *want,
              const char *name)
{
    char *got = validate(text, namespaced, rule);

    tap_is_str(got, want, name);
    free(got);
}

static void
test_field_errors(void)
{
    gw_field_errors_t e = {0};
    const char *sup[] = {"Ignore", "Strict", NULL};
    json_t *c, *n = json_integer(-3);
    char *s;

    gw_ferr_invalid_str(&e, "metadata.name", "A\"b", "bad");
    tap_is_int(gw_ferr_count(&e), 1, "one error");
    c = json_array_get(e.causes, 0);
    tap_is_str(json_string_value(json_object_get(c, "reason")), "FieldValueInvalid", "reason");
    tap_is_str(json_string_value(json_object_get(c, "message")), "Invalid value: \"A\\\"b\": bad",
               "message quotes the value as Go's %q");
    tap_is_str(json_string_value(json_object_get(c, "field")), "metadata.name", "field");
    s = gw_ferr_summary(&e);
    tap_is_str(s, "metadata.name: Invalid value: \"A\\\"b\": bad", "one error: its text alone");
    free(s);
    gw_ferr_invalid(&e, "spec.replicas", n, "must be greater than or equal to 0");
    gw_ferr_required(&e, "metadata.namespace", NULL);
    gw_ferr_forbidden(&e, "x", "not allowed");
    gw_ferr_not_supported(&e, "fieldValidation", "foo", sup);
    gw_ferr_too_long(&e, "metadata.annotations", 262144);
    s = gw_ferr_summary(&e);
    tap_is_str(s,
               "[metadata.name: Invalid value: \"A\\\"b\": bad, spec.replicas: Invalid value: -3: "
               "must be greater than or equal to 0, metadata.namespace: Required value, x: "
               "Forbidden: not allowed, fieldValidation: Unsupported value: \"foo\": supported "
               "values: \"Ignore\", \"Strict\", metadata.annotations: Too long: may not be more "
               "than 262144 bytes]",
               "several errors: bracketed, comma-separated");
    free(s);
    tap_is_str(json_string_value(json_object_get(json_array_get(e.causes, 4), "reason")),
               "FieldValueNotSupported", "NotSupported reason");
    json_decref(n);
    gw_ferr_clear(&e);
    tap_ok(e.causes == NULL && gw_ferr_count(&e) == 0, "clear");
}

static void
test_names(void)
{
    regex_t re;
    char *g;
    char longbase[80];

    tap_ok(gw_objmeta_check_name(GW_NAME_SUBDOMAIN, "a.b-c", false) == NULL, "subdomain ok");
    tap_ok(gw_objmeta_check_name(GW_NAME_SUBDOMAIN, "web-", false) != NULL,
           "a name may not end in '-'");
    tap_ok(gw_objmeta_check_name(GW_NAME_SUBDOMAIN, "web-", true) == NULL,
           "... a generateName may");
    tap_ok(gw_objmeta_check_name(GW_NAME_LABEL, "a.b", false) != NULL, "label: no dots");
    tap_ok(gw_objmeta_check_name(GW_NAME_DNS1035, "1abc", false) != NULL,
           "dns1035: starts with a letter");
    tap_ok(gw_objmeta_check_name(GW_NAME_PATH_SEGMENT, "system:admin", false) == NULL,
           "path segment: colons ok");
    tap_is_str(gw_objmeta_check_name(GW_NAME_PATH_SEGMENT, "a/b", true), "may not contain '/'",
               "path segment prefix: no '/'");

    regcomp(&re, "^web-[bcdfghjklmnpqrstvwxz2456789]{5}$", REG_EXTENDED | REG_NOSUB);
    g = gw_objmeta_generate_name("web-");
    tap_ok(regexec(&re, g, 0, NULL, 0) == 0, "generateName: prefix + 5 from kube's alphabet (%s)",
           g);
    free(g);
    regfree(&re);
    memset(longbase, 'x', 70);
    longbase[70] = '\0';
    g = gw_objmeta_generate_name(longbase);
    tap_is_int(strlen(g), 63, "a long prefix is cut to 58 characters");
    free(g);
}

static void
test_system_fields(void)
{
    json_t *d;

    d = doc("{\"metadata\":{\"name\":\"a\",\"uid\":\"x\",\"deletionTimestamp\":\"t\","
            "\"deletionGracePeriodSeconds\":3,\"resourceVersion\":\"9\",\"selfLink\":\"/s\"}}");
    gw_objmeta_prepare_create(d, "u-1", "2024-01-02T03:04:05Z");
    tap_is_str(gw_objmeta_str(d, "uid"), "u-1", "create sets uid");
    tap_is_str(gw_objmeta_str(d, "creationTimestamp"), "2024-01-02T03:04:05Z",
               "create sets creationTimestamp");
    tap_ok(json_object_get(json_object_get(d, "metadata"), "deletionTimestamp") == NULL &&
               json_object_get(json_object_get(d, "metadata"), "deletionGracePeriodSeconds") ==
                   NULL,
           "create clears the deletion fields");
    gw_objmeta_strip_for_storage(d);
    tap_ok(gw_objmeta_str(d, "resourceVersion") == NULL && gw_objmeta_str(d, "selfLink") == NULL,
           "storage drops resourceVersion and selfLink");
    json_decref(d);

    d = doc("{}");
    gw_objmeta_get(d);
    tap_ok(json_is_object(json_object_get(d, "metadata")), "metadata created when missing");
    json_decref(d);
}

static void
test_update_carry(void)
{
    json_t *old = doc("{\"metadata\":{\"name\":\"a\",\"uid\":\"u\",\"generation\":4,"
                      "\"creationTimestamp\":\"c\",\"deletionTimestamp\":\"d\","
                      "\"deletionGracePeriodSeconds\":0}}");
    json_t *d =
        doc("{\"metadata\":{\"name\":\"a\",\"generation\":99,\"creationTimestamp\":\"z\"}}");
    gw_field_errors_t e = {0};
    char *s;

    gw_objmeta_prepare_update(d, old);
    tap_is_int(json_integer_value(json_object_get(json_object_get(d, "metadata"), "generation")), 4,
               "generation cannot be set by a request");
    tap_is_str(gw_objmeta_str(d, "uid"), "u", "a missing uid is the stored one");
    tap_is_str(gw_objmeta_str(d, "creationTimestamp"), "c", "creationTimestamp kept");
    tap_is_str(gw_objmeta_str(d, "deletionTimestamp"), "d", "deletionTimestamp kept");
    gw_objmeta_validate_update(d, old, &e);
    tap_is_int(gw_ferr_count(&e), 0, "nothing immutable changed");
    json_object_set_new(json_object_get(d, "metadata"), "uid", json_string("other"));
    json_object_set_new(json_object_get(d, "metadata"), "finalizers", json_pack("[s]", "new.io/f"));
    gw_objmeta_validate_update(d, old, &e);
    s = gw_ferr_summary(&e);
    tap_is_str(s,
               "[metadata.finalizers: Forbidden: no new finalizers can be added if the object "
               "is being deleted, found new finalizers []string{\"new.io/f\"}, metadata.uid: "
               "Invalid value: \"other\": field is immutable]",
               "a new uid and a new finalizer while deleting are refused");
    free(s);
    gw_ferr_clear(&e);
    json_decref(d);
    json_decref(old);
}

static void
test_validate(void)
{
    is_validation("{\"metadata\":{\"name\":\"ok\",\"namespace\":\"ns\"}}", true, GW_NAME_SUBDOMAIN,
                  NULL, "a valid object");
    is_validation("{\"metadata\":{\"namespace\":\"ns\"}}", true, GW_NAME_SUBDOMAIN,
                  "metadata.name: Required value: name or generateName is required",
                  "name missing");
    is_validation("{}", false, GW_NAME_SUBDOMAIN,
                  "metadata.name: Required value: name or generateName is required",
                  "no metadata at all");
    is_validation("{\"metadata\":{\"name\":\"ok\"}}", true, GW_NAME_SUBDOMAIN,
                  "metadata.namespace: Required value", "namespaced object without a namespace");
    is_validation("{\"metadata\":{\"name\":\"ok\",\"namespace\":\"x\"}}", false, GW_NAME_SUBDOMAIN,
                  "metadata.namespace: Forbidden: not allowed on this type",
                  "cluster-scoped object with a namespace");
    is_validation("{\"metadata\":{\"name\":\"a.b\"}}", false, GW_NAME_LABEL,
                  "metadata.name: Invalid value: \"a.b\": must not contain dots",
                  "namespace names are labels");
    is_validation("{\"metadata\":{\"name\":\"x\",\"generation\":-1}}", false, GW_NAME_SUBDOMAIN,
                  "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
                  "negative generation");
    is_validation("{\"metadata\":{\"name\":\"x\",\"finalizers\":[\"orphan\","
                  "\"foregroundDeletion\"]}}",
                  false, GW_NAME_SUBDOMAIN,
                  "metadata.finalizers: Invalid value: [\"orphan\",\"foregroundDeletion\"]: "
                  "finalizer orphan and foregroundDeletion cannot be both set",
                  "orphan with foregroundDeletion");
    is_validation("{\"metadata\":{\"name\":\"x\",\"ownerReferences\":[{\"kind\":\"K\","
                  "\"name\":\"n\",\"uid\":\"u\"}]}}",
                  false, GW_NAME_SUBDOMAIN,
                  "metadata.ownerReferences.apiVersion: Invalid value: \"\": version must not "
                  "be empty",
                  "owner reference without apiVersion");
}

static void
test_validate_maps(void)
{
    char *s = validate("{\"metadata\":{\"name\":\"x\",\"labels\":{\"-k\":\"v\",\"ok\":\"-v\"},"
                       "\"annotations\":{\"Good/Key\":\"\",\"bad key\":\"\"}}}",
                       false, GW_NAME_SUBDOMAIN);

    tap_ok(s != NULL && strstr(s, "metadata.labels: Invalid value: \"-k\": name part must") != NULL,
           "a bad label key");
    tap_ok(s != NULL &&
               strstr(s, "metadata.labels: Invalid value: \"-v\": a valid label must") != NULL,
           "a bad label value");
    tap_ok(s != NULL && strstr(s, "metadata.annotations: Invalid value: \"bad key\"") != NULL,
           "a bad annotation key");
    tap_ok(s != NULL && strstr(s, "Good/Key") == NULL, "annotation keys are checked lowercased");
    free(s);

    json_t *d = doc("{\"metadata\":{\"name\":\"x\",\"annotations\":{}}}");
    char *big = malloc(300 * 1024);
    gw_field_errors_t e = {0};
    memset(big, 'v', 300 * 1024 - 1);
    big[300 * 1024 - 1] = '\0';
    json_object_set_new(json_object_get(json_object_get(d, "metadata"), "annotations"), "k",
                        json_string(big));
    gw_objmeta_validate(d, false, GW_NAME_SUBDOMAIN, &e);
    s = gw_ferr_summary(&e);
    tap_is_str(s, "metadata.annotations: Too long: may not be more than 262144 bytes",
               "annotations over 256 KiB");
    free(s);
    free(big);
    gw_ferr_clear(&e);
    json_decref(d);
}

static int n_warnings;
static char last_warning[512];

static void
on_warning(const char *text, void *arg)
{
    (void)arg;
    n_warnings++;
    snprintf(last_warning, sizeof(last_warning), "%s", text);
}

static void
test_warnings(void)
{
    json_t *d = doc("{\"metadata\":{\"finalizers\":[\"kubernetes\",\"a.io/b\",\"mine\"]}}");

    gw_objmeta_warnings(d, on_warning, NULL);
    tap_is_int(n_warnings, 1, "one warning: the unqualified, non-standard finalizer");
    tap_is_str(last_warning,
               "metadata.finalizers: \"mine\": prefer a domain-qualified finalizer name "
               "including a path (/) to avoid accidental conflicts with other finalizer writers",
               "... in kube's words");
    json_decref(d);
}

int
main(void)
{
    test_field_errors();
    test_names();
    test_system_fields();
    test_update_carry();
    test_validate();
    test_validate_maps();
    test_warnings();
    return tap_done();
}
