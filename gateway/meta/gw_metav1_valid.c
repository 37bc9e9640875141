/* metav1 validation of label selectors and conditions (apimachinery's
 * pkg/apis/meta/v1/validation), in kube's order and words. */
#include "gw_metav1_valid.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_names.h"

#define CONDITION_REASON_FMT "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
#define CONDITION_REASON_MSG                                                                       \
    "a condition reason must start with alphabetic character, optionally followed by a string "    \
    "of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' "     \
    "(e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or "                    \
    "'ReasonA:ReasonB', regex used for validation is '" CONDITION_REASON_FMT "')"
#define MAX_REASON_LEN 1024
#define MAX_MESSAGE_LEN (32 * 1024)

static const char *
str_or_empty(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "";
}

/* ValidateLabelName: a qualified name. */
static void
label_name(const char *name, const char *path, gw_field_errors_t *errs)
{
    const char *msgs[4];
    size_t n = gw_valid_qualified_name_all(name, msgs);

    for (size_t i = 0; i < n; i++)
        gw_ferr_invalid_str(errs, path, name, msgs[i]);
}

static void
requirement(const json_t *req, bool allow_invalid_values, const char *path, gw_field_errors_t *errs)
{
    const json_t *op = json_object_get(req, "operator");
    const json_t *values = json_object_get(req, "values");
    const char *o = str_or_empty(op);
    char *p;

    if (strcmp(o, "In") == 0 || strcmp(o, "NotIn") == 0) {
        if (json_array_size(values) == 0) {
            p = gw_sprintf("%s.values", path);
            gw_ferr_required(errs, p, "must be specified when `operator` is 'In' or 'NotIn'");
            free(p);
        }
    } else if (strcmp(o, "Exists") == 0 || strcmp(o, "DoesNotExist") == 0) {
        if (json_array_size(values) > 0) {
            p = gw_sprintf("%s.values", path);
            gw_ferr_forbidden(errs, p,
                              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
            free(p);
        }
    } else {
        p = gw_sprintf("%s.operator", path);
        gw_ferr_invalid_str(errs, p, o, "not a valid selector operator");
        free(p);
    }
    p = gw_sprintf("%s.key", path);
    label_name(str_or_empty(json_object_get(req, "key")), p, errs);
    free(p);
    if (allow_invalid_values)
        return;
    size_t i;
    const json_t *v;
    json_array_foreach(values, i, v)
    {
        const char *msg = gw_valid_label_value(str_or_empty(v));
        if (msg != NULL) {
            p = gw_sprintf("%s.values[%zu]", path, i);
            gw_ferr_invalid_str(errs, p, str_or_empty(v), msg);
            free(p);
        }
    }
}

void
gw_label_selector_validate(const json_t *sel, bool allow_invalid_values, const char *path,
                           gw_field_errors_t *errs)
{
    const json_t *labels, *exprs, *v;
    const char *k;
    char *p;
    size_t i;

    if (!json_is_object(sel))
        return;
    labels = json_object_get(sel, "matchLabels");
    p = gw_sprintf("%s.matchLabels", path);
    json_object_foreach((json_t *)labels, k, v)
    {
        const char *msg;
        label_name(k, p, errs);
        if ((msg = gw_valid_label_value(str_or_empty(v))) != NULL)
            gw_ferr_invalid_str(errs, p, str_or_empty(v), msg);
    }
    free(p);
    exprs = json_object_get(sel, "matchExpressions");
    json_array_foreach(exprs, i, v)
    {
        p = gw_sprintf("%s.matchExpressions[%zu]", path, i);
        requirement(v, allow_invalid_values, p, errs);
        free(p);
    }
}

/* ---- conditions --------------------------------------------------------------------------- */

/* [A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])? */
static bool
valid_reason(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || !isalpha((unsigned char)s[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool last = i + 1 == n;
        if (!isalnum(c) && c != '_' && (last || (c != ',' && c != ':')))
            return false;
    }
    return true;
}

static void
condition(const json_t *c, const char *path, gw_field_errors_t *errs)
{
    static const char *const statuses[] = {"False", "True", "Unknown", NULL};
    const char *status = str_or_empty(json_object_get(c, "status"));
    const char *reason = str_or_empty(json_object_get(c, "reason"));
    const char *ltt = str_or_empty(json_object_get(c, "lastTransitionTime"));
    json_int_t gen = json_integer_value(json_object_get(c, "observedGeneration"));
    char *p = gw_sprintf("%s.type", path);

    label_name(str_or_empty(json_object_get(c, "type")), p, errs);
    free(p);
    if (strcmp(status, "True") != 0 && strcmp(status, "False") != 0 &&
        strcmp(status, "Unknown") != 0) {
        p = gw_sprintf("%s.status", path);
        gw_ferr_not_supported(errs, p, status, statuses);
        free(p);
    }
    if (gen < 0) {
        json_t *v = json_integer(gen);
        p = gw_sprintf("%s.observedGeneration", path);
        gw_ferr_invalid(errs, p, v, "must be greater than or equal to zero");
        free(p);
        json_decref(v);
    }
    if (ltt[0] == '\0') {
        p = gw_sprintf("%s.lastTransitionTime", path);
        gw_ferr_required(errs, p, "must be set");
        free(p);
    }
    p = gw_sprintf("%s.reason", path);
    if (reason[0] == '\0') {
        gw_ferr_required(errs, p, "must be set");
    } else {
        if (!valid_reason(reason))
            gw_ferr_invalid_str(errs, p, reason, CONDITION_REASON_MSG);
        if (strlen(reason) > MAX_REASON_LEN)
            gw_ferr_too_long(errs, p, MAX_REASON_LEN);
    }
    free(p);
    if (strlen(str_or_empty(json_object_get(c, "message"))) > MAX_MESSAGE_LEN) {
        p = gw_sprintf("%s.message", path);
        gw_ferr_too_long(errs, p, MAX_MESSAGE_LEN);
        free(p);
    }
}

void
gw_conditions_validate(const json_t *conds, const char *path, gw_field_errors_t *errs)
{
    size_t i;
    const json_t *c;

    json_array_foreach(conds, i, c)
    {
        const char *type = str_or_empty(json_object_get(c, "type"));
        char *p;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(str_or_empty(json_object_get(json_array_get(conds, j), "type")), type) ==
                0) {
                p = gw_sprintf("%s[%zu].type", path, i);
                gw_ferr_duplicate(errs, p, type);
                free(p);
                break;
            }
        }
        p = gw_sprintf("%s[%zu]", path, i);
        condition(c, p, errs);
        free(p);
    }
}
