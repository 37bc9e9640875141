/* Unit tests for kube's Event validation (gateway/registry/gw_registry_event.c) through the
 * strategy over the built-in catalog: the legacy rules every write gets, the strict create and
 * update rules of events.k8s.io/v1, each as kube's aggregate message with core's field names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_catalog.h"
#include "gw_registry_int.h"
#include "tap.h"

static const gw_catalog_t *cat;

static json_t *
doc(const char *text)
{
    json_error_t err;
    json_t *d = json_loads(text, 0, &err);

    if (d == NULL) {
        printf("Bail out! bad test JSON (%s): %s\n", err.text, text);
        exit(1);
    }
    return d;
}

/* The validation of `text` (over `old_text` when not NULL) written through group's events as
 * kube's aggregate message, "" when valid. */
static void
validates(const char *group, const char *text, const char *old_text, const char *want,
          const char *what)
{
    const gw_resource_t *res = gw_catalog_find(cat, group, "v1", "events");
    json_t *obj = doc(text), *old = old_text ? doc(old_text) : NULL;
    gw_field_errors_t errs = {0};
    char *got;

    gw_registry__validate_kind(res, obj, old, &errs);
    got = gw_ferr_count(&errs) ? gw_ferr_summary(&errs) : strdup("");
    tap_is_str(got, want, what);
    free(got);
    gw_ferr_clear(&errs);
    json_decref(obj);
    json_decref(old);
}

#define CORE_EV "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"namespace\":\"ns\"},"
#define NEW_EV                                                                                     \
    "{\"apiVersion\":\"events.k8s.io/"                                                             \
    "v1\",\"kind\":\"Event\",\"metadata\":{\"namespace\":\"default\"},"
#define GOOD                                                                                       \
    "\"eventTime\":\"2026-01-01T00:00:00.000000Z\",\"reportingController\":\"example.com/c\","     \
    "\"reportingInstance\":\"i\",\"action\":\"A\",\"reason\":\"R\",\"type\":\"Normal\","           \
    "\"regarding\":{\"kind\":\"Pod\",\"name\":\"p\",\"namespace\":\"default\"}"

static void
test_legacy(void)
{
    validates("", CORE_EV "\"involvedObject\":{\"namespace\":\"ns\"}}", NULL, "",
              "a core event about an object of its namespace");
    validates("", CORE_EV "\"involvedObject\":{\"namespace\":\"other\"}}", NULL,
              "involvedObject.namespace: Invalid value: \"other\": does not match event.namespace",
              "... of another namespace");
    validates("", CORE_EV "\"involvedObject\":{}}", NULL,
              "involvedObject.namespace: Invalid value: \"\": does not match event.namespace",
              "... of a cluster-scoped object, outside default");
    validates("",
              CORE_EV "\"eventTime\":\"2026-01-01T00:00:00.000000Z\",\"involvedObject\":"
                      "{\"namespace\":\"ns\"},\"reportingComponent\":\"c\","
                      "\"reportingInstance\":\"i\",\"action\":\"a\"}",
              NULL, "reason: Required value", "an event with an eventTime needs a reason");
}

static void
test_strict(void)
{
    validates("events.k8s.io", NEW_EV GOOD "}", NULL, "", "a complete events.k8s.io Event");
    validates("events.k8s.io",
              NEW_EV GOOD ",\"deprecatedSource\":{\"host\":\"h\"},\"deprecatedLastTimestamp\":"
                          "\"2026-01-01T00:00:00Z\",\"series\":{\"count\":1}}",
              NULL,
              "[series.count: Invalid value: \"\": should be at least 2, series.lastObservedTime: "
              "Required value, lastTimestamp: Invalid value: \"\": needs to be unset, source: "
              "Invalid value: \"\": needs to be unset]",
              "the series and the deprecated fields, named as core names them");
    validates("", CORE_EV "\"involvedObject\":{\"namespace\":\"ns\"},\"count\":3,\"type\":\"X\"}",
              NULL, "", "core/v1 writes get none of the strict rules");
    validates("events.k8s.io", NEW_EV GOOD ",\"note\":\"new\"}", NEW_EV GOOD ",\"note\":\"old\"}",
              "message: Invalid value: \"new\": field is immutable",
              "an update through events.k8s.io may not change the note (core's message)");
    validates("events.k8s.io",
              NEW_EV GOOD ",\"series\":{\"count\":5,\"lastObservedTime\":\"2026-01-01T00:00:01."
                          "000000Z\"}}",
              NEW_EV GOOD "}", "", "... but may change the series");
}

int
main(void)
{
    cat = gw_catalog_builtin();
    test_legacy();
    test_strict();
    return tap_done();
}
