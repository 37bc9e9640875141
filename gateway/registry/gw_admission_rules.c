/*
 * The rules and match resources of the admission configurations (validateRule,
 * validateRuleWithOperations, validateNamedRuleWithOperations, validateMatchResources), in
 * kube's order and words.
 */
#include "gw_admission_rules.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_metav1_valid.h"
#include "gw_names.h"

static const char *
str_or_empty(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "";
}

char *
gw_admission_go_strings(const char *go_type, const json_t *arr)
{
    char *out = gw_sprintf("%s{", go_type);
    size_t i;
    const json_t *v;

    json_array_foreach(arr, i, v)
    {
        char *q = gw_ferr_quote(str_or_empty(v));
        char *next = gw_sprintf("%s%s%s", out, i > 0 ? ", " : "", q);
        free(q);
        free(out);
        out = next;
    }
    char *done = gw_sprintf("%s}", out);
    free(out);
    return done;
}

void
gw_admission_invalid_strings(gw_field_errors_t *errs, const char *path, const char *go_type,
                             const json_t *arr, const char *detail)
{
    char *shown = gw_admission_go_strings(go_type, arr);
    char *msg = gw_sprintf("Invalid value: %s: %s", shown, detail);

    gw_ferr_add(errs, "FieldValueInvalid", path, msg);
    free(msg);
    free(shown);
}

static bool
has_wildcard(const json_t *arr)
{
    size_t i;
    const json_t *v;

    json_array_foreach(arr, i, v)
    {
        if (strcmp(str_or_empty(v), "*") == 0)
            return true;
    }
    return false;
}

/* Whether `s` is one of the first n strings of `set`. */
static bool
in_list(const json_t *set, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(str_or_empty(json_array_get(set, i)), s) == 0)
            return true;
    return false;
}

/* Whether some resource before index `end` is "<part>/" followed by a wildcard, or with
 * want_sub a wildcard followed by "/<part>". */
static bool
seen_wildcard(const json_t *resources, size_t end, const char *part, size_t len, bool want_sub)
{
    for (size_t j = 0; j < end; j++) {
        const char *r = str_or_empty(json_array_get(resources, j));
        const char *slash = strchr(r, '/');
        if (slash == NULL)
            continue;
        if (!want_sub && strcmp(slash + 1, "*") == 0 && (size_t)(slash - r) == len &&
            strncmp(r, part, len) == 0)
            return true;
        if (want_sub && slash - r == 1 && r[0] == '*' && strcmp(slash + 1, part) == 0)
            return true;
    }
    return false;
}

/* validateResources: subresources allowed, with kube's wildcard rules. */
static void
resources_with_sub(const json_t *resources, const char *path, gw_field_errors_t *errs)
{
    bool double_wild = false, single_wild = false, plain = false;
    size_t i;
    const json_t *v;

    if (json_array_size(resources) == 0)
        gw_ferr_required(errs, path, NULL);
    json_array_foreach(resources, i, v)
    {
        const char *rs = str_or_empty(v), *slash = strchr(rs, '/');
        char *p = gw_sprintf("%s[%zu]", path, i);
        if (rs[0] == '\0') {
            gw_ferr_required(errs, p, NULL);
        } else {
            double_wild |= strcmp(rs, "*/*") == 0;
            single_wild |= strcmp(rs, "*") == 0;
            if (slash == NULL) {
                /* kube keeps only the last one's answer */
                plain = strcmp(rs, "*") != 0;
            } else {
                size_t rl = (size_t)(slash - rs);
                if (seen_wildcard(resources, i, rs, rl, false)) {
                    char *res = gw_sprintf("%.*s", (int)rl, rs);
                    char *d = gw_sprintf("if '%s/*' is present, must not specify %s", res, rs);
                    gw_ferr_invalid_str(errs, p, rs, d);
                    free(d);
                    free(res);
                }
                if (seen_wildcard(resources, i, slash + 1, 0, true)) {
                    char *d =
                        gw_sprintf("if '*/%s' is present, must not specify %s", slash + 1, rs);
                    gw_ferr_invalid_str(errs, p, rs, d);
                    free(d);
                }
            }
        }
        free(p);
    }
    if (json_array_size(resources) > 1 && double_wild)
        gw_admission_invalid_strings(errs, path, "[]string", resources,
                                     "if '*/*' is present, must not specify other resources");
    if (single_wild && plain)
        gw_admission_invalid_strings(
            errs, path, "[]string", resources,
            "if '*' is present, must not specify other resources without subresources");
}

static void
strings_rule(const json_t *rule, const char *member, const char *path, const char *wild_msg,
             bool each_required, gw_field_errors_t *errs)
{
    const json_t *arr = json_object_get(rule, member);
    char *p = gw_sprintf("%s%s%s", path, path[0] ? "." : "", member);
    size_t i;
    const json_t *v;

    if (json_array_size(arr) == 0)
        gw_ferr_required(errs, p, NULL);
    if (json_array_size(arr) > 1 && has_wildcard(arr))
        gw_admission_invalid_strings(errs, p, "[]string", arr, wild_msg);
    if (each_required) {
        json_array_foreach(arr, i, v)
        {
            if (str_or_empty(v)[0] == '\0') {
                char *pi = gw_sprintf("%s[%zu]", p, i);
                gw_ferr_required(errs, pi, NULL);
                free(pi);
            }
        }
    }
    free(p);
}

/* validateRule with allowSubResource. */
static void
rule_body(const json_t *rule, const char *path, gw_field_errors_t *errs)
{
    static const char *const scopes[] = {"*", "Cluster", "Namespaced", NULL};
    const json_t *scope = json_object_get(rule, "scope");
    char *p;

    strings_rule(rule, "apiGroups", path, "if '*' is present, must not specify other API groups",
                 false, errs);
    strings_rule(rule, "apiVersions", path,
                 "if '*' is present, must not specify other API versions", true, errs);
    p = gw_sprintf("%s%sresources", path, path[0] ? "." : "");
    resources_with_sub(json_object_get(rule, "resources"), p, errs);
    free(p);
    if (json_is_string(scope)) {
        const char *s = json_string_value(scope);
        if (strcmp(s, "*") != 0 && strcmp(s, "Cluster") != 0 && strcmp(s, "Namespaced") != 0) {
            p = gw_sprintf("%s%sscope", path, path[0] ? "." : "");
            gw_ferr_not_supported(errs, p, s, scopes);
            free(p);
        }
    }
}

void
gw_admission_rule_validate(const json_t *rule, const char *path, gw_field_errors_t *errs)
{
    static const char *const ops[] = {"*", "CONNECT", "CREATE", "DELETE", "UPDATE", NULL};
    const json_t *arr = json_object_get(rule, "operations");
    char *p = gw_sprintf("%s%soperations", path, path[0] ? "." : "");
    size_t i;
    const json_t *v;

    if (json_array_size(arr) == 0)
        gw_ferr_required(errs, p, NULL);
    if (json_array_size(arr) > 1 && has_wildcard(arr))
        gw_admission_invalid_strings(errs, p, "[]admissionregistration.OperationType", arr,
                                     "if '*' is present, must not specify other operations");
    json_array_foreach(arr, i, v)
    {
        bool ok = false;
        for (size_t k = 0; ops[k] != NULL; k++)
            ok |= strcmp(ops[k], str_or_empty(v)) == 0;
        if (!ok) {
            char *pi = gw_sprintf("%s[%zu]", p, i);
            gw_ferr_not_supported(errs, pi, str_or_empty(v), ops);
            free(pi);
        }
    }
    free(p);
    rule_body(rule, path, errs);
}

void
gw_admission_rules_validate(const json_t *rules, const char *path, gw_field_errors_t *errs)
{
    size_t i;
    const json_t *r;

    json_array_foreach(rules, i, r)
    {
        char *p = gw_sprintf("%s[%zu]", path, i);
        gw_admission_rule_validate(r, p, errs);
        free(p);
    }
}

void
gw_admission_named_rule_validate(const json_t *rule, const char *path, gw_field_errors_t *errs)
{
    const json_t *names = json_object_get(rule, "resourceNames");
    size_t i;
    const json_t *v;

    json_array_foreach(names, i, v)
    {
        const char *n = str_or_empty(v), *msg = gw_valid_path_segment_name(n);
        char *p = gw_sprintf("%s.resourceNames[%zu]", path, i);
        if (msg != NULL)
            gw_ferr_invalid_str(errs, p, n, msg);
        if (in_list(names, i, n))
            gw_ferr_duplicate(errs, p, n);
        free(p);
    }
    gw_admission_rule_validate(rule, path, errs);
}

void
gw_admission_failure_policy_validate(const char *value, const char *path, gw_field_errors_t *errs)
{
    static const char *const policies[] = {"Fail", "Ignore", NULL};

    if (strcmp(value, "Fail") != 0 && strcmp(value, "Ignore") != 0)
        gw_ferr_not_supported(errs, path, value, policies);
}

/* A pointer field: absent or null is nil. */
static const json_t *
ptr(const json_t *obj, const char *member)
{
    const json_t *v = json_object_get(obj, member);
    return json_is_null(v) ? NULL : v;
}

static void
selector(const json_t *mr, const char *member, const char *path, gw_field_errors_t *errs)
{
    char *p = gw_sprintf("%s.%s", path, member);

    if (ptr(mr, member) == NULL)
        gw_ferr_required(errs, p, NULL);
    else
        gw_label_selector_validate(ptr(mr, member), false, p, errs);
    free(p);
}

static void
named_rules(const json_t *mr, const char *member, const char *path, gw_field_errors_t *errs)
{
    size_t i;
    const json_t *r;

    json_array_foreach(json_object_get(mr, member), i, r)
    {
        char *p = gw_sprintf("%s.%s[%zu]", path, member, i);
        gw_admission_named_rule_validate(r, p, errs);
        free(p);
    }
}

void
gw_admission_match_resources_validate(const json_t *mr, const char *path, gw_field_errors_t *errs)
{
    static const char *const policies[] = {"Equivalent", "Exact", NULL};
    const json_t *mp;
    char *p;

    if (mr == NULL || json_is_null(mr))
        return;
    mp = ptr(mr, "matchPolicy");
    p = gw_sprintf("%s.matchPolicy", path);
    if (mp == NULL)
        gw_ferr_required(errs, p, NULL);
    else if (strcmp(str_or_empty(mp), "Exact") != 0 && strcmp(str_or_empty(mp), "Equivalent") != 0)
        gw_ferr_not_supported(errs, p, str_or_empty(mp), policies);
    free(p);
    selector(mr, "namespaceSelector", path, errs);
    selector(mr, "objectSelector", path, errs);
    named_rules(mr, "resourceRules", path, errs);
    named_rules(mr, "excludeResourceRules", path, errs);
}
