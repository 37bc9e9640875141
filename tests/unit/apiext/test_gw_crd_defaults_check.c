/* Unit tests for gateway/apiext/gw_crd_defaults_check.c: a CRD's defaults checked against the
 * schema they sit in, as kube's CRD validation does (pruned already, valid, errors under
 * "<path>.default"). */
#include "crd_test_util.h"

static char *
check(const char *schema)
{
    json_t *s = parse(schema);
    gw_field_errors_t errs = {0};
    char *out;

    gw_crd_defaults_check(s, "spec.validation.openAPIV3Schema", &errs);
    out = errs.causes ? json_dumps(errs.causes, JSON_COMPACT) : NULL;
    gw_ferr_clear(&errs);
    json_decref(s);
    return out;
}

static bool
has(const char *text, const char *field, const char *part)
{
    json_t *a = text ? json_loads(text, 0, NULL) : NULL;
    size_t i;
    json_t *c;
    bool found = false;

    json_array_foreach(a, i, c)
    {
        const char *f = json_string_value(json_object_get(c, "field"));
        const char *m = json_string_value(json_object_get(c, "message"));
        if (f && m && strcmp(f, field) == 0 && strstr(m, part) != NULL)
            found = true;
    }
    json_decref(a);
    if (!found)
        tap_diag("no %s: ...%s... in %s", field, part, text ? text : "(none)");
    return found;
}

int
main(void)
{
    char *r;

    r = check("{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
              "\"replicas\":{\"type\":\"integer\",\"minimum\":1,\"default\":1},"
              "\"mode\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"default\":\"a\"},"
              "\"tpl\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}},"
              "\"default\":{\"x\":\"y\"}}}}}}");
    tap_ok(r == NULL, "valid, pruned defaults pass (%s)", r ? r : "");
    free(r);

    r = check("{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
              "\"replicas\":{\"type\":\"integer\",\"maximum\":10,\"default\":20}}}}}");
    tap_ok(has(r, "spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default",
               "less than or equal to 10"),
           "a default over the maximum is invalid at <path>.default");
    free(r);

    r = check("{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
              "\"mode\":{\"type\":\"string\",\"default\":5}}}}}");
    tap_ok(has(r, "spec.validation.openAPIV3Schema.properties[spec].properties[mode].default",
               "must be of type string"),
           "a default of the wrong type is invalid");
    free(r);

    r = check("{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
              "\"tpl\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}},"
              "\"default\":{\"x\":\"y\",\"extra\":1}}}}}}");
    tap_ok(has(r, "spec.validation.openAPIV3Schema.properties[spec].properties[tpl].default",
               "must not have unknown fields"),
           "a default with unknown fields must be pruned already");
    free(r);

    r = check("{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
              "\"l\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"maxLength\":2,"
              "\"default\":\"long\"}}}}}}");
    tap_ok(has(r, "spec.validation.openAPIV3Schema.properties[spec].properties[l].items.default",
               "may not be more than 2"),
           "a default inside items is checked too");
    free(r);
    return tap_done();
}
