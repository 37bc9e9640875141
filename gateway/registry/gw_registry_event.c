/*
 * Events (pkg/apis/core/validation/events.go): kube validates the internal Event, which is the
 * core/v1 shape, so a write through events.k8s.io/v1 is checked in its core form and errors name
 * core's fields (involvedObject, message, source). Every write gets the legacy rules (the
 * involved object's namespace; for an event with an eventTime, the reporting fields and the
 * lengths); writes through events.k8s.io/v1 also get the strict ones: on create a series of at
 * least 2 with a lastObservedTime, eventTime, a type of Normal or Warning and the deprecated
 * fields unset; on update everything but the series and metadata unchanged.
 */
#include "gw_registry_int.h"

#include <stdio.h>
#include <string.h>

#include "gw_names.h"

/* kube's length limits */
#define REPORTING_INSTANCE_MAX 128
#define ACTION_MAX 128
#define REASON_MAX 128
#define NOTE_MAX 1024

static const char *
str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));

    return s != NULL ? s : "";
}

/* A Time or MicroTime left at Go's zero (absent, null or empty). */
static bool
zero_time(const json_t *obj, const char *key)
{
    return str(obj, key)[0] == '\0';
}

static void
at_most(gw_field_errors_t *errs, const char *field, const char *value, size_t max)
{
    char msg[64];

    if (strlen(value) <= max)
        return;
    snprintf(msg, sizeof(msg), "can have at most %zu characters", max);
    gw_ferr_invalid_str(errs, field, "", msg);
}

static void
required_at_most(gw_field_errors_t *errs, const char *field, const char *value, size_t max)
{
    if (value[0] == '\0')
        gw_ferr_required(errs, field, NULL);
    at_most(errs, field, value, max);
}

/* legacyValidateEvent */
static void
legacy(const json_t *ev, gw_field_errors_t *errs)
{
    const char *ns = str(json_object_get(ev, "metadata"), "namespace");
    const char *obj_ns = str(json_object_get(ev, "involvedObject"), "namespace");
    const char *controller = str(ev, "reportingComponent"), *msg;
    bool mismatch;

    if (zero_time(ev, "eventTime"))
        mismatch = obj_ns[0] == '\0' ? ns[0] != '\0' && strcmp(ns, "default") != 0
                                     : strcmp(ns, obj_ns) != 0;
    else
        mismatch =
            obj_ns[0] == '\0' && strcmp(ns, "default") != 0 && strcmp(ns, "kube-system") != 0;
    if (mismatch)
        gw_ferr_invalid_str(errs, "involvedObject.namespace", obj_ns,
                            "does not match event.namespace");
    if (zero_time(ev, "eventTime"))
        return;
    if (controller[0] == '\0') {
        /* IsQualifiedName("") says both that the name is empty and that it does not match
         * (the message any non-matching name, such as "-", gets) */
        gw_ferr_required(errs, "reportingController", NULL);
        gw_ferr_invalid_str(errs, "reportingController", "", "name part must be non-empty");
        gw_ferr_invalid_str(errs, "reportingController", "", gw_valid_qualified_name("-"));
    } else if ((msg = gw_valid_qualified_name(controller)) != NULL) {
        gw_ferr_invalid_str(errs, "reportingController", controller, msg);
    }
    required_at_most(errs, "reportingInstance", str(ev, "reportingInstance"),
                     REPORTING_INSTANCE_MAX);
    required_at_most(errs, "action", str(ev, "action"), ACTION_MAX);
    required_at_most(errs, "reason", str(ev, "reason"), REASON_MAX);
    at_most(errs, "message", str(ev, "message"), NOTE_MAX);
}

/* validateV1EventSeries */
static void
series(const json_t *ev, gw_field_errors_t *errs)
{
    const json_t *s = json_object_get(ev, "series");

    if (!json_is_object(s))
        return;
    if (json_integer_value(json_object_get(s, "count")) < 2)
        gw_ferr_invalid_str(errs, "series.count", "", "should be at least 2");
    if (zero_time(s, "lastObservedTime"))
        gw_ferr_required(errs, "series.lastObservedTime", NULL);
}

static void
strict_create(const json_t *ev, gw_field_errors_t *errs)
{
    static const char *const deprecated[] = {"firstTimestamp", "lastTimestamp"};
    const char *type = str(ev, "type");
    const json_t *source = json_object_get(ev, "source");
    char msg[160];

    series(ev, errs);
    /* eventTime's absence is the schema's required field, reported with the body's checks */
    if (strcmp(type, "Normal") != 0 && strcmp(type, "Warning") != 0) {
        snprintf(msg, sizeof(msg), "has invalid value: %s", type);
        gw_ferr_invalid_str(errs, "type", "", msg);
    }
    for (size_t i = 0; i < 2; i++)
        if (!zero_time(ev, deprecated[i]))
            gw_ferr_invalid_str(errs, deprecated[i], "", "needs to be unset");
    if (json_integer_value(json_object_get(ev, "count")) != 0)
        gw_ferr_invalid_str(errs, "count", "", "needs to be unset");
    if (str(source, "component")[0] != '\0' || str(source, "host")[0] != '\0')
        gw_ferr_invalid_str(errs, "source", "", "needs to be unset");
}

/* A member at Go's zero (absent, null, "", 0, {}) reads as absent: the Go structs kube
 * compares cannot tell them apart. */
static const json_t *
member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    if (json_is_null(v) || (json_is_object(v) && json_object_size(v) == 0) ||
        (json_is_string(v) && json_string_length(v) == 0) ||
        (json_is_integer(v) && json_integer_value(v) == 0))
        return NULL;
    return v;
}

/* Whether member `key` is the same in both, as Go's reflect.DeepEqual sees it. */
static bool
unchanged(const json_t *a, const json_t *b, const char *key)
{
    const json_t *x = member(a, key), *y = member(b, key);

    return x == y || (x != NULL && y != NULL && json_equal(x, y));
}

static void
strict_update(const json_t *ev, const json_t *old, gw_field_errors_t *errs)
{
    /* kube's order; reason is checked twice, as kube does */
    static const char *const immutable[][2] = {
        {"involvedObject", "involvedObject"},
        {"reason", "reason"},
        {"message", "message"},
        {"source", "source"},
        {"firstTimestamp", "firstTimestamp"},
        {"lastTimestamp", "lastTimestamp"},
        {"count", "count"},
        {"reason", "reason"},
        {"type", "type"},
        {"eventTime", "eventTime"},
        {"action", "action"},
        {"related", "related"},
        {"reportingComponent", "reportingController"},
        {"reportingInstance", "reportingInstance"},
    };

    if (!unchanged(ev, old, "series"))
        series(ev, errs);
    for (size_t i = 0; i < sizeof(immutable) / sizeof(immutable[0]); i++) {
        const json_t *v = json_object_get(ev, immutable[i][0]);
        if (!unchanged(ev, old, immutable[i][0]))
            gw_ferr_invalid(errs, immutable[i][1], v != NULL ? v : json_null(),
                            "field is immutable");
    }
}

void
gw_registry__event_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                            gw_field_errors_t *errs)
{
    bool strict = strcmp(res->group, "events.k8s.io") == 0;
    json_t *ev = gw_registry__storage_form(obj), *was = old ? gw_registry__storage_form(old) : NULL;
    const json_t *e = ev != NULL ? ev : obj, *o = was != NULL ? was : old;

    legacy(e, errs);
    if (strict && o == NULL)
        strict_create(e, errs);
    else if (strict)
        strict_update(e, o, errs);
    json_decref(ev);
    json_decref(was);
}

/* ---- the strategy ------------------------------------------------------------------------- */

/* Core and events.k8s.io Events: a PUT creates; each is validated in the core form. */
const gw_strategy_t gw_strategy_event = {
    .name = "event",
    .create_on_update = true,
    .validate = gw_registry__event_validate,
};
