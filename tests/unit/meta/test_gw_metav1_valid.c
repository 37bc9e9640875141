/* Unit tests for gateway/meta/gw_metav1_valid: ValidateLabelSelector and ValidateConditions
 * with kube's paths, messages and order, and the new field error helpers (Duplicate, TooMany,
 * Go's quoting). */
#include <stdlib.h>
#include <string.h>

#include "gw_metav1_valid.h"
#include "tap.h"

static json_t *
doc(const char *text)
{
    json_t *d = json_loads(text, JSON_DECODE_ANY, NULL);

    if (d == NULL) {
        printf("Bail out! bad test JSON: %s\n", text);
        exit(1);
    }
    return d;
}

static void
is_summary(gw_field_errors_t *e, const char *want, const char *name)
{
    char *got = gw_ferr_count(e) ? gw_ferr_summary(e) : strdup("");

    tap_is_str(got, want, name);
    free(got);
    gw_ferr_clear(e);
}

static void
selector(const char *text, bool allow_invalid, const char *want, const char *name)
{
    gw_field_errors_t e = {0};
    json_t *d = doc(text);

    gw_label_selector_validate(d, allow_invalid, "s", &e);
    is_summary(&e, want, name);
    json_decref(d);
}

static void
conditions(const char *text, const char *want, const char *name)
{
    gw_field_errors_t e = {0};
    json_t *d = doc(text);

    gw_conditions_validate(d, "c", &e);
    is_summary(&e, want, name);
    json_decref(d);
}

#define VALUE_MSG                                                                                  \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "             \
    "'my_value',  or '12345', regex used for validation is "                                       \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

static void
test_selectors(void)
{
    selector("null", false, "", "a nil selector has nothing to check");
    selector("{}", false, "", "an empty selector is valid");
    selector("{\"matchLabels\":{\"a\":\"-x\"}}", false,
             "s.matchLabels: Invalid value: \"-x\": " VALUE_MSG, "a matchLabels value");
    selector("{\"matchExpressions\":[{\"key\":\"/k\",\"operator\":\"NotIn\",\"values\":[]},"
             "{\"key\":\"k\",\"operator\":\"DoesNotExist\",\"values\":[\"v\"]},"
             "{\"key\":\"k\",\"operator\":\"In\",\"values\":[\"ok\",\"-\"]}]}",
             false,
             "[s.matchExpressions[0].values: Required value: must be specified when `operator` "
             "is 'In' or 'NotIn', s.matchExpressions[0].key: Invalid value: \"/k\": prefix part "
             "must be non-empty, s.matchExpressions[1].values: Forbidden: may not be specified "
             "when `operator` is 'Exists' or 'DoesNotExist', s.matchExpressions[2].values[1]: "
             "Invalid value: \"-\": " VALUE_MSG "]",
             "requirements: values per operator, then the key, then each value");
    selector("{\"matchExpressions\":[{\"key\":\"k\",\"operator\":\"In\",\"values\":[\"-\"]}]}",
             true, "", "AllowInvalidLabelValueInSelector skips the values");
}

static void
test_conditions(void)
{
    char *big = malloc(33 * 1024 + 64), *text;

    conditions("[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":"
               "\"2024-01-01T00:00:00Z\",\"reason\":\"A,B:C_\"}]",
               "", "a valid condition");
    conditions("[{}]",
               "[c[0].type: Invalid value: \"\": name part must be non-empty, c[0].type: Invalid "
               "value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', "
               "and must start and end with an alphanumeric character (e.g. 'MyName',  or "
               "'my.name',  or '123-abc', regex used for validation is "
               "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), c[0].status: "
               "Unsupported value: \"\": supported values: \"False\", \"True\", \"Unknown\", "
               "c[0].lastTransitionTime: Required value: must be set, c[0].reason: Required "
               "value: must be set]",
               "an empty condition: both of IsQualifiedName's messages for its type");
    memset(big, 'm', 32 * 1024 + 1);
    big[32 * 1024 + 1] = '\0';
    if (asprintf(&text,
                 "[{\"type\":\"A\",\"status\":\"True\",\"lastTransitionTime\":\"t\","
                 "\"reason\":\"R,\",\"message\":\"%s\"}]",
                 big) < 0)
        abort();
    conditions(text,
               "[c[0].reason: Invalid value: \"R,\": a condition reason must start with "
               "alphabetic character, optionally followed by a string of alphanumeric "
               "characters or '_,:', and must end with an alphanumeric character or '_' (e.g. "
               "'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or "
               "'ReasonA:ReasonB', regex used for validation is "
               "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?'), c[0].message: Too long: may not be "
               "more than 32768 bytes]",
               "a reason ending in ',' and a message over 32 KiB");
    free(text);
    free(big);
}

static void
test_helpers(void)
{
    gw_field_errors_t e = {0};
    char *q = gw_ferr_quote("a\"b\\c\nd\x01");

    tap_is_str(q, "\"a\\\"b\\\\c\\nd\\x01\"", "Go's quoting of a string");
    free(q);
    gw_ferr_duplicate(&e, "f", "x");
    gw_ferr_too_many(&e, "g", 3, 1);
    gw_ferr_too_many(&e, "h", 65, 64);
    is_summary(&e,
               "[f: Duplicate value: \"x\", g: Too many: 3: must have at most 1 item, h: Too "
               "many: 65: must have at most 64 items]",
               "Duplicate and TooMany as kube words them");
}

int
main(void)
{
    test_selectors();
    test_conditions();
    test_helpers();
    return tap_done();
}
