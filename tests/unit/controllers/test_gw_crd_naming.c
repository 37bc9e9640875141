/* The CRD naming decision (kube's naming_controller_test.go TestSync cases, plus the group's
 * built-in resources counting as taken), the settled check, SetCRDCondition's time rule and the
 * minimal structural check. */
#include "gw_crd_naming.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_crd_int.h"
#include "tap.h"

/* names: plural, singular, kind, listKind, then short names ("" ends them); absent when NULL. */
static json_t *
names(const char *plural, const char *singular, const char *kind, const char *list_kind,
      const char *shorts)
{
    json_t *n = json_object();
    char buf[128];

    json_object_set_new(n, "plural", json_string(plural));
    json_object_set_new(n, "singular", json_string(singular));
    json_object_set_new(n, "kind", json_string(kind));
    json_object_set_new(n, "listKind", json_string(list_kind));
    if (shorts != NULL && shorts[0] != '\0') {
        json_t *list = json_array();
        snprintf(buf, sizeof(buf), "%s", shorts);
        for (char *save, *s = strtok_r(buf, ",", &save); s != NULL; s = strtok_r(NULL, ",", &save))
            json_array_append_new(list, json_string(s));
        json_object_set_new(n, "shortNames", list);
    }
    return n;
}

/* kube's newCRD("<plural>.<group>"): spec.names.plural from the name; then optional spec
 * names, status names and conditions (each taken). */
static json_t *
crd(const char *name, json_t *spec_names, json_t *status_names, json_t *conditions)
{
    const char *dot = strchr(name, '.');
    json_t *o = json_pack("{s:{s:s},s:{s:s},s:{}}", "metadata", "name", name, "spec", "group",
                          dot + 1, "status");
    if (spec_names == NULL)
        spec_names = json_pack("{s:s%}", "plural", name, (size_t)(dot - name));
    json_object_set_new(json_object_get(o, "spec"), "names", spec_names);
    if (status_names != NULL)
        json_object_set_new(json_object_get(o, "status"), "acceptedNames", status_names);
    if (conditions != NULL)
        json_object_set_new(json_object_get(o, "status"), "conditions", conditions);
    return o;
}

static json_t *
cond(const char *type, const char *status, const char *reason, const char *message)
{
    return json_pack("{s:s,s:s,s:s,s:s}", "type", type, "status", status, "reason", reason,
                     "message", message);
}

#define ACCEPTED() cond("NamesAccepted", "True", "NoConflicts", "no conflicts found")
#define NOT_ACCEPTED() cond("NamesAccepted", "False", "NotAccepted", "not all names are accepted")
#define INSTALLING()                                                                               \
    cond("Established", "False", "Installing", "the initial names have been accepted")
#define NOT_ESTABLISHED() cond("Established", "False", "NotAccepted", "not all names are accepted")
#define CONFLICT(reason, msg) cond("NamesAccepted", "False", reason, msg)

/* The expected acceptedNames as the controller writes them: plural and kind always, the
 * other members when not empty. */
static json_t *
written_form(json_t *n)
{
    static const char *const optional[] = {"singular", "listKind"};

    for (size_t i = 0; i < 2; i++)
        if (strcmp(json_string_value(json_object_get(n, optional[i])), "") == 0)
            json_object_del(n, optional[i]);
    return n;
}

static bool
same_cond(const json_t *want, const json_t *got)
{
    static const char *const m[] = {"type", "status", "reason", "message"};

    for (size_t i = 0; i < 4; i++)
        if (!json_equal(json_object_get(want, m[i]), json_object_get(got, m[i])))
            return false;
    return true;
}

static void
diag_json(const char *what, const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT);
    tap_diag("%s: %s", what, s);
    free(s);
}

/* One case: `in` against `existing` (an array of CRDs; those of in's group hold names). */
static void
check(const char *title, json_t *in, json_t *existing, json_t *want_names, json_t *want_accepted,
      json_t *want_established, const gw_catalog_t *catalog)
{
    json_t *resources = json_object(), *kinds = json_object();
    const char *group = json_string_value(json_object_get(json_object_get(in, "spec"), "group"));
    gw_crd_names_t got;

    for (size_t i = 0; i < json_array_size(existing); i++) {
        const json_t *e = json_array_get(existing, i);
        if (strcmp(json_string_value(json_object_get(json_object_get(e, "spec"), "group")),
                   group) == 0)
            gw_crd_naming_hold(json_object_get(json_object_get(e, "status"), "acceptedNames"),
                               resources, kinds);
    }
    gw_crd_naming_builtin(catalog, group, resources, kinds);
    gw_crd_naming_compute(in, resources, kinds, &got);
    if (!tap_ok(json_equal(got.names, written_form(want_names)), "%s: accepted names", title)) {
        diag_json("got", got.names);
        diag_json("want", want_names);
    }
    if (!tap_ok(same_cond(want_accepted, got.accepted), "%s: NamesAccepted", title))
        diag_json("got", got.accepted);
    if (!tap_ok(same_cond(want_established, got.established), "%s: Established", title))
        diag_json("got", got.established);
    gw_crd_names_clear(&got);
    json_decref(resources);
    json_decref(kinds);
    json_decref(in);
    json_decref(existing);
    json_decref(want_names);
    json_decref(want_accepted);
    json_decref(want_established);
}

#define FULL()                                                                                     \
    names("alfa", "delta-singular", "echo-kind", "foxtrot-listkind",                               \
          "golf-shortname-1,hotel-shortname-2")
#define ONE(x) json_pack("[o]", x)

static void
test_kube_cases(void)
{
    check("first resource", crd("alfa.bravo.com", NULL, NULL, NULL), json_array(),
          names("alfa", "", "", "", NULL), ACCEPTED(), INSTALLING(), NULL);
    check("different groups", crd("alfa.bravo.com", FULL(), NULL, NULL),
          ONE(crd("alfa.charlie.com", NULL, FULL(), NULL)), FULL(), ACCEPTED(), INSTALLING(), NULL);
    check("conflict plural to singular", crd("alfa.bravo.com", FULL(), NULL, NULL),
          ONE(crd("india.bravo.com", NULL, names("india", "alfa", "", "", NULL), NULL)),
          names("", "delta-singular", "echo-kind", "foxtrot-listkind",
                "golf-shortname-1,hotel-shortname-2"),
          CONFLICT("PluralConflict", "\"alfa\" is already in use"), NOT_ESTABLISHED(), NULL);
    check(
        "conflict singular to shortName", crd("alfa.bravo.com", FULL(), NULL, NULL),
        ONE(crd("india.bravo.com", NULL, names("india", "indias", "", "", "delta-singular"), NULL)),
        names("alfa", "", "echo-kind", "foxtrot-listkind", "golf-shortname-1,hotel-shortname-2"),
        CONFLICT("SingularConflict", "\"delta-singular\" is already in use"), NOT_ESTABLISHED(),
        NULL);
    check("conflict on shortName to shortName", crd("alfa.bravo.com", FULL(), NULL, NULL),
          ONE(crd("india.bravo.com", NULL, names("india", "indias", "", "", "hotel-shortname-2"),
                  NULL)),
          names("alfa", "delta-singular", "echo-kind", "foxtrot-listkind", NULL),
          CONFLICT("ShortNamesConflict", "\"hotel-shortname-2\" is already in use"),
          NOT_ESTABLISHED(), NULL);
    check("conflict on kind to listkind", crd("alfa.bravo.com", FULL(), NULL, NULL),
          ONE(crd("india.bravo.com", NULL, names("india", "indias", "", "echo-kind", NULL), NULL)),
          names("alfa", "delta-singular", "", "foxtrot-listkind",
                "golf-shortname-1,hotel-shortname-2"),
          CONFLICT("KindConflict", "\"echo-kind\" is already in use"), NOT_ESTABLISHED(), NULL);
    check("conflict on listkind to kind", crd("alfa.bravo.com", FULL(), NULL, NULL),
          ONE(crd("india.bravo.com", NULL, names("india", "indias", "foxtrot-listkind", "", NULL),
                  NULL)),
          names("alfa", "delta-singular", "echo-kind", "", "golf-shortname-1,hotel-shortname-2"),
          CONFLICT("ListKindConflict", "\"foxtrot-listkind\" is already in use"), NOT_ESTABLISHED(),
          NULL);
    check("no conflict on resource and kind", crd("alfa.bravo.com", FULL(), NULL, NULL),
          ONE(crd("india.bravo.com", NULL, names("india", "echo-kind", "", "", NULL), NULL)),
          FULL(), ACCEPTED(), INSTALLING(), NULL);
}

#define OLD()                                                                                      \
    names("zulu", "yankee-singular", "xray-kind", "whiskey-listkind",                              \
          "victor-shortname-1,uniform-shortname-2")

static void
test_kube_merges(void)
{
    check("merge on conflicts", crd("alfa.bravo.com", FULL(), OLD(), NULL),
          ONE(crd("india.bravo.com", NULL,
                  names("india", "indias", "foxtrot-listkind", "", "delta-singular"), NULL)),
          names("alfa", "yankee-singular", "echo-kind", "whiskey-listkind",
                "golf-shortname-1,hotel-shortname-2"),
          CONFLICT("ListKindConflict", "\"foxtrot-listkind\" is already in use"), NOT_ESTABLISHED(),
          NULL);
    check(
        "merge on conflicts shortNames as one", crd("alfa.bravo.com", FULL(), OLD(), NULL),
        ONE(crd("india.bravo.com", NULL,
                names("india", "indias", "foxtrot-listkind", "", "delta-singular,golf-shortname-1"),
                NULL)),
        names("alfa", "yankee-singular", "echo-kind", "whiskey-listkind",
              "victor-shortname-1,uniform-shortname-2"),
        CONFLICT("ListKindConflict", "\"foxtrot-listkind\" is already in use"), NOT_ESTABLISHED(),
        NULL);
    check("no conflicts on self", crd("alfa.bravo.com", FULL(), FULL(), NULL),
          ONE(crd("alfa.bravo.com", FULL(), FULL(), NULL)), FULL(), ACCEPTED(), INSTALLING(), NULL);
    check("no conflicts on self, remove shortname",
          crd("alfa.bravo.com",
              names("alfa", "delta-singular", "echo-kind", "foxtrot-listkind", "golf-shortname-1"),
              FULL(), NULL),
          ONE(crd("alfa.bravo.com", FULL(), FULL(), NULL)),
          names("alfa", "delta-singular", "echo-kind", "foxtrot-listkind", "golf-shortname-1"),
          ACCEPTED(), INSTALLING(), NULL);
}

static void
test_kube_conditions(void)
{
    check("installing before with true condition",
          crd("alfa.bravo.com", NULL, NULL, ONE(ACCEPTED())), json_array(),
          names("alfa", "", "", "", NULL), ACCEPTED(), INSTALLING(), NULL);
    check("not installing before with false condition",
          crd("alfa.bravo.com", NULL, NULL, ONE(NOT_ACCEPTED())), json_array(),
          names("alfa", "", "", "", NULL), ACCEPTED(), INSTALLING(), NULL);
    check("conflicting, installing before with true condition",
          crd("alfa.bravo.com", FULL(), NULL, ONE(ACCEPTED())),
          ONE(crd("india.bravo.com", NULL, names("india", "alfa", "", "", NULL), NULL)),
          names("", "delta-singular", "echo-kind", "foxtrot-listkind",
                "golf-shortname-1,hotel-shortname-2"),
          CONFLICT("PluralConflict", "\"alfa\" is already in use"), NOT_ESTABLISHED(), NULL);
    check("conflicting, not installing before with false condition",
          crd("alfa.bravo.com", FULL(), NULL, ONE(NOT_ACCEPTED())),
          ONE(crd("india.bravo.com", NULL, names("india", "alfa", "", "", NULL), NULL)),
          names("", "delta-singular", "echo-kind", "foxtrot-listkind",
                "golf-shortname-1,hotel-shortname-2"),
          CONFLICT("PluralConflict", "\"alfa\" is already in use"), NOT_ESTABLISHED(), NULL);
    check(
        "an established CRD keeps its Established condition",
        crd("alfa.bravo.com", FULL(), NULL,
            ONE(cond("Established", "True", "InitialNamesAccepted",
                     "the initial names have been accepted"))),
        ONE(crd("india.bravo.com", NULL, names("india", "alfa", "", "", NULL), NULL)),
        names("", "delta-singular", "echo-kind", "foxtrot-listkind",
              "golf-shortname-1,hotel-shortname-2"),
        CONFLICT("PluralConflict", "\"alfa\" is already in use"),
        cond("Established", "True", "InitialNamesAccepted", "the initial names have been accepted"),
        NULL);
}

static void
test_several_short_names(void)
{
    check(
        "two short names taken: one aggregate message, in request order",
        crd("alfa.bravo.com",
            names("alfa", "delta-singular", "echo-kind", "foxtrot-listkind", "golf,hotel"), NULL,
            NULL),
        ONE(crd("india.bravo.com", NULL, names("india", "indias", "", "", "hotel,golf"), NULL)),
        names("alfa", "delta-singular", "echo-kind", "foxtrot-listkind", NULL),
        CONFLICT("ShortNamesConflict", "[\"golf\" is already in use, \"hotel\" is already in use]"),
        NOT_ESTABLISHED(), NULL);
}

/* Beyond kube: the built-in resources the server serves in the group count as taken. */
static void
test_builtin(void)
{
    const gw_catalog_t *cat = gw_catalog_builtin();

    check("a built-in plural and singular of the group are taken",
          crd("jobs.batch", names("jobs", "job", "MyJob", "MyJobList", NULL), NULL, NULL),
          json_array(), names("", "", "MyJob", "MyJobList", NULL),
          CONFLICT("SingularConflict", "\"job\" is already in use"), NOT_ESTABLISHED(), cat);
    check("a built-in kind of the group is taken",
          crd("crons.batch", names("crons", "cron", "CronJob", "CronList", NULL), NULL, NULL),
          json_array(), names("crons", "cron", "", "CronList", NULL),
          CONFLICT("KindConflict", "\"CronJob\" is already in use"), NOT_ESTABLISHED(), cat);
    check("a built-in short name of the group is taken",
          crd("crons.batch", names("crons", "cron", "Cron", "CronList", "cj"), NULL, NULL),
          json_array(), names("crons", "cron", "Cron", "CronList", NULL),
          CONFLICT("ShortNamesConflict", "\"cj\" is already in use"), NOT_ESTABLISHED(), cat);
    check("another group's built-in names are free",
          crd("jobs.example.com", names("jobs", "job", "Job", "JobList", "cj"), NULL, NULL),
          json_array(), names("jobs", "job", "Job", "JobList", "cj"), ACCEPTED(), INSTALLING(),
          cat);
}

static void
test_settled(void)
{
    json_t *c = crd("alfa.bravo.com", FULL(), FULL(), NULL);

    tap_ok(gw_crd_naming_settled(c), "spec names equal to the accepted names are settled");
    json_object_set_new(json_object_get(json_object_get(c, "spec"), "names"), "categories",
                        json_array());
    tap_ok(gw_crd_naming_settled(c), "an empty list and an absent one are the same");
    json_object_set_new(json_object_get(json_object_get(c, "spec"), "names"), "kind",
                        json_string("Other"));
    tap_ok(!gw_crd_naming_settled(c), "a changed kind is not settled");
    json_decref(c);
    c = crd("alfa.bravo.com", NULL, NULL, NULL);
    tap_ok(!gw_crd_naming_settled(c), "a new CRD is not settled");
    json_decref(c);
}

static void
test_set_condition(void)
{
    json_t *c = crd("alfa.bravo.com", NULL, NULL, NULL);
    const json_t *got;

    gw_crd__set_condition(c, "Terminating", "True", "A", "a", "2024-01-01T00:00:00Z");
    gw_crd__set_condition(c, "Terminating", "True", "B", "b", "2024-01-02T00:00:00Z");
    got = gw_crd__condition(c, "Terminating");
    tap_ok(strcmp(json_string_value(json_object_get(got, "lastTransitionTime")),
                  "2024-01-01T00:00:00Z") == 0 &&
               strcmp(json_string_value(json_object_get(got, "reason")), "B") == 0,
           "an unchanged status keeps its lastTransitionTime, reason and message are replaced");
    gw_crd__set_condition(c, "Terminating", "False", "C", "c", "2024-01-03T00:00:00Z");
    tap_ok(strcmp(json_string_value(json_object_get(got, "lastTransitionTime")),
                  "2024-01-03T00:00:00Z") == 0,
           "a changed status takes the new time");
    gw_crd__set_condition(c, "Established", "True", "D", "d", "2024-01-04T00:00:00Z");
    char *s = json_dumps(json_object_get(json_object_get(c, "status"), "conditions"), JSON_COMPACT);
    tap_ok(strcmp(s, "[{\"type\":\"Terminating\",\"status\":\"False\",\"lastTransitionTime\":"
                     "\"2024-01-03T00:00:00Z\",\"reason\":\"C\",\"message\":\"c\"},{\"type\":"
                     "\"Established\",\"status\":\"True\",\"lastTransitionTime\":\"2024-01-04T00:"
                     "00:00Z\",\"reason\":\"D\",\"message\":\"d\"}]") == 0,
           "conditions are appended in kube's member order");
    free(s);
    gw_crd__remove_condition(c, "Terminating");
    tap_ok(gw_crd__condition(c, "Terminating") == NULL && gw_crd__condition_true(c, "Established"),
           "a condition is removed, the others stay");
    json_decref(c);
}

static void
structural(const char *title, const char *schema, const char *want)
{
    json_t *c = json_pack("{s:{s:[{s:s,s:{s:o}}]}}", "spec", "versions", "name", "v1", "schema",
                          "openAPIV3Schema", json_loads(schema, 0, NULL));
    char *got = gw_crd__nonstructural(c);

    if (!tap_ok(want == NULL ? got == NULL : got != NULL && strcmp(got, want) == 0, "%s", title))
        tap_diag("got %s", got != NULL ? got : "(none)");
    free(got);
    json_decref(c);
}

static void
test_structural(void)
{
    structural("a typed schema is structural",
               "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":"
               "{\"n\":{\"x-kubernetes-int-or-string\":true},\"any\":{"
               "\"x-kubernetes-preserve-unknown-fields\":true}}}}}",
               NULL);
    structural("a field without type",
               "{\"type\":\"object\",\"properties\":{\"spec\":{\"properties\":{}}}}",
               "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: "
               "must not be empty for specified object fields");
    structural("several, sorted, within brackets",
               "{\"properties\":{\"b\":{\"type\":\"array\",\"items\":{}}}}",
               "[spec.versions[0].schema.openAPIV3Schema.properties[b].items.type: Required "
               "value: must not be empty for specified array items, "
               "spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty "
               "at the root]");
}

/* A self-signed CA certificate's PEM, base64 as a CRD's caBundle holds it. */
static const char ca_b64[] =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJjRENDQVJXZ0F3SUJBZ0lVYXN3UVBsRDdiWWUr"
    "TzFCY2QyazJZU1VnUG13d0NnWUlLb1pJemowRUF3SXcKRFRFTE1Ba0dBMVVFQXd3Q1kyRXdIaGNOTWpZ"
    "eE1USTVNRFEwTmpJeVdoY05Nell4TVRJMk1EUTBOakl5V2pBTgpNUXN3Q1FZRFZRUUREQUpqWVRCWk1C"
    "TUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQk9KYnh1TzFEMHE5CnNQVitTS2Ira2VPQXdwNlhR"
    "NVBWMW8zYmZPR1BtVm8zTGVzMkY4VXEvQnc3ejYvdzFnb0x0OC9BSVhldWFReksKN0VNaWV1bVJvdVNq"
    "VXpCUk1CMEdBMVVkRGdRV0JCUWVzeTExa2ZLSEdFcEZndFJMOGhWT0JaMkp1REFmQmdOVgpIU01FR0RB"
    "V2dCUWVzeTExa2ZLSEdFcEZndFJMOGhWT0JaMkp1REFQQmdOVkhSTUJBZjhFQlRBREFRSC9NQW9HCkND"
    "cUdTTTQ5QkFNQ0Ewa0FNRVlDSVFEZGIrNENhUVdWUm83L1IzMGxPODJFMVp4Skh3YUVwRVFSczJyRDB6"
    "UUQKeFFJaEFMUTE4cGdYZUlRWDJhdlRuVTEvTnhuenRmOGZhcEJDNmRseVozTmFKdStQCi0tLS0tRU5E"
    "IENFUlRJRklDQVRFLS0tLS0K";

static bool
ca_ok(const char *bundle)
{
    json_t *c = json_pack("{s:{s:{s:s,s:{s:{}}}}}", "spec", "conversion", "strategy", "Webhook",
                          "webhook", "clientConfig");
    if (bundle != NULL)
        json_object_set_new(
            json_object_get(
                json_object_get(json_object_get(json_object_get(c, "spec"), "conversion"),
                                "webhook"),
                "clientConfig"),
            "caBundle", json_string(bundle));
    bool ok = gw_crd__ca_bundle_ok(c);
    json_decref(c);
    return ok;
}

static void
test_ca_bundle(void)
{
    tap_ok(ca_ok(NULL), "a conversion webhook without a CA bundle may be established");
    tap_ok(ca_ok(ca_b64), "a CA bundle holding a certificate is valid");
    tap_ok(!ca_ok("Zm9v"), "a CA bundle without PEM is invalid");
    /* "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n" */
    tap_ok(
        !ca_ok("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkFBQUEKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="),
        "a CA bundle whose certificate does not parse is invalid");
    tap_ok(!ca_ok("Zm9"), "a CA bundle that is not base64 is invalid");
}

int
main(void)
{
    test_kube_cases();
    test_kube_merges();
    test_kube_conditions();
    test_several_short_names();
    test_builtin();
    test_settled();
    test_set_condition();
    test_structural();
    test_ca_bundle();
    return tap_done();
}
