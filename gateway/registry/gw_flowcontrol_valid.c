/* FlowSchema and PriorityLevelConfiguration: kube's validation and v1 defaults. */
#include "gw_flowcontrol_valid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_names.h"

#define MAX_PRECEDENCE 10000
#define MAX_QUEUES 10000
#define MAX_HASH_BITS 60

static const char *const verbs_ok[] = {"create", "delete", "deletecollection", "get",   "list",
                                       "patch",  "proxy",  "update",           "watch", NULL};

static char *
path(const char *base, const char *child)
{
    return gw_sprintf("%s.%s", base, child);
}

static char *
idx(const char *base, const char *child, size_t i)
{
    return gw_sprintf("%s.%s[%zu]", base, child, i);
}

static bool
has_star(const json_t *arr)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), "*") == 0)
            return true;
    }
    return false;
}

/* Invalid of a string list, shown as Go shows a []string: []string{"a", "b"}. */
static void
invalid_list(gw_field_errors_t *errs, const char *field, const json_t *arr, const char *detail)
{
    char *shown = gw_strdup("[]string{"), *msg;
    size_t i;
    json_t *v;

    json_array_foreach(arr, i, v)
    {
        char *q = gw_ferr_quote(json_is_string(v) ? json_string_value(v) : "");
        char *next = gw_sprintf("%s%s%s", shown, i > 0 ? ", " : "", q);
        free(q);
        free(shown);
        shown = next;
    }
    msg = gw_sprintf("Invalid value: %s}: %s", shown, detail);
    gw_ferr_add(errs, "FieldValueInvalid", field, msg);
    free(msg);
    free(shown);
}

/* A list of strings: at least one; "*" alone. */
static bool
list_ok(const json_t *arr, const char *base, const char *key, const char *required,
        const char *others, gw_field_errors_t *errs)
{
    char *p = path(base, key);
    bool ok = true;
    if (json_array_size(arr) == 0) {
        gw_ferr_required(errs, p, required);
        ok = false;
    } else if (has_star(arr) && json_array_size(arr) > 1) {
        invalid_list(errs, p, arr, others);
        ok = false;
    }
    free(p);
    return ok;
}

static void
verbs(const json_t *rule, const char *base, gw_field_errors_t *errs)
{
    const json_t *v = json_object_get(rule, "verbs");
    size_t i;
    json_t *x;

    if (!list_ok(v, base, "verbs", "verbs must contain at least one value",
                 "if '*' is present, must not specify other verbs", errs) ||
        has_star(v))
        return;
    json_array_foreach(v, i, x)
    {
        const char *s = json_string_value(x);
        bool known = false;
        for (size_t k = 0; s != NULL && verbs_ok[k] != NULL; k++)
            known |= strcmp(verbs_ok[k], s) == 0;
        if (!known) {
            char *p = path(base, "verbs");
            gw_ferr_not_supported(errs, p, s != NULL ? s : "", verbs_ok);
            free(p);
            return;
        }
    }
}

static void
resource_rule(const json_t *r, const char *base, gw_field_errors_t *errs)
{
    const json_t *ns = json_object_get(r, "namespaces");
    size_t i;
    json_t *v;

    verbs(r, base, errs);
    list_ok(json_object_get(r, "apiGroups"), base, "apiGroups",
            "resource rules must supply at least one api group",
            "if '*' is present, must not specify other api groups", errs);
    list_ok(json_object_get(r, "resources"), base, "resources",
            "resource rules must supply at least one resource",
            "if '*' is present, must not specify other resources", errs);
    if (json_array_size(ns) == 0 && !json_is_true(json_object_get(r, "clusterScope"))) {
        char *p = path(base, "namespaces");
        gw_ferr_required(errs, p,
                         "resource rules that are not cluster scoped must supply at least one "
                         "namespace");
        free(p);
        return;
    }
    if (has_star(ns)) {
        list_ok(ns, base, "namespaces", "", "if '*' is present, must not specify other namespaces",
                errs);
        return;
    }
    json_array_foreach(ns, i, v)
    {
        const char *s = json_string_value(v);
        const char *why = s != NULL ? gw_valid_dns1123_label(s) : "must be a string";
        if (why == NULL)
            continue;
        char *p = idx(base, "namespaces", i);
        char *msg = gw_sprintf("each member of this list must be '*' or a DNS-1123 label; %s", why);
        gw_ferr_invalid(errs, p, v, msg);
        free(msg);
        free(p);
    }
}

static void
nonresource_rule(const json_t *r, const char *base, gw_field_errors_t *errs)
{
    const json_t *urls = json_object_get(r, "nonResourceURLs");
    size_t i;
    json_t *v;

    verbs(r, base, errs);
    if (!list_ok(urls, base, "nonResourceURLs", "nonResourceURLs must contain at least one value",
                 "if '*' is present, must not specify other non-resource URLs", errs) ||
        has_star(urls))
        return;
    json_array_foreach(urls, i, v)
    {
        const char *s = json_string_value(v);
        char *p = idx(base, "nonResourceURLs", i);
        if (s == NULL || s[0] != '/')
            gw_ferr_invalid(errs, p, v, "must start with slash");
        else if (strstr(s, "//") != NULL)
            gw_ferr_invalid(errs, p, v, "must not contain double slash");
        else if (strchr(s, '*') != NULL && (strlen(s) < 2 || strcmp(s + strlen(s) - 2, "/*") != 0 ||
                                            strchr(s, '*') != s + strlen(s) - 1))
            gw_ferr_invalid(errs, p, v, "wildcard can only do suffix glob matching");
        free(p);
    }
}

static void
validate_subject(const json_t *s, const char *base, gw_field_errors_t *errs)
{
    static const char *const kinds[] = {"Group", "ServiceAccount", "User", NULL};
    static const char *const members[] = {"group", "serviceAccount", "user"};
    static const char *const forbidden[] = {"group is forbidden when subject kind is not 'Group'",
                                            ("serviceAccount is forbidden when subject kind is not "
                                             "'ServiceAccount'"),
                                            "user is forbidden when subject kind is not 'User'"};
    static const char *const required[] = {"group is required when subject kind is 'Group'",
                                           ("serviceAccount is required when subject kind is "
                                            "'ServiceAccount'"),
                                           "user is required when subject kind is 'User'"};
    static const char *const names[] = {"groupname is required", NULL, "username is required"};
    const char *kind = json_string_value(json_object_get(s, "kind"));
    int k = -1;

    for (int i = 0; kind != NULL && i < 3; i++) {
        if (strcmp(kinds[i], kind) == 0)
            k = i;
    }
    if (k < 0) {
        char *p = path(base, "kind");
        gw_ferr_not_supported(errs, p, kind != NULL ? kind : "", kinds);
        free(p);
        return;
    }
    const json_t *m = json_object_get(s, members[k]);
    char *mp = path(base, members[k]);
    if (m == NULL || json_is_null(m)) {
        gw_ferr_required(errs, mp, required[k]);
    } else {
        const char *name = json_string_value(json_object_get(m, "name"));
        char *np = path(mp, "name");
        if (name == NULL || *name == '\0')
            gw_ferr_required(errs, np, names[k]);
        free(np);
        if (k == 1) {
            const char *ns = json_string_value(json_object_get(m, "namespace"));
            char *nsp = path(mp, "namespace");
            if (ns == NULL || *ns == '\0')
                gw_ferr_required(errs, nsp, "must specify namespace for service account");
            else if (gw_valid_dns1123_label(ns) != NULL)
                gw_ferr_invalid_str(errs, nsp, ns, gw_valid_dns1123_label(ns));
            free(nsp);
        }
    }
    free(mp);
    for (int i = 0; i < 3; i++) {
        const json_t *other = json_object_get(s, members[i]);
        if (i != k && other != NULL && !json_is_null(other)) {
            char *p = path(base, members[i]);
            gw_ferr_forbidden(errs, p, forbidden[i]);
            free(p);
        }
    }
}

static void
rules_with_subjects(const json_t *prws, const char *base, gw_field_errors_t *errs)
{
    const json_t *subs = json_object_get(prws, "subjects");
    const json_t *rr = json_object_get(prws, "resourceRules");
    const json_t *nr = json_object_get(prws, "nonResourceRules");
    size_t i;
    json_t *v;

    if (json_array_size(subs) == 0) {
        char *p = path(base, "subjects");
        gw_ferr_required(errs, p, "subjects must contain at least one value");
        free(p);
    }
    json_array_foreach(subs, i, v)
    {
        char *p = idx(base, "subjects", i);
        validate_subject(v, p, errs);
        free(p);
    }
    if (json_array_size(rr) == 0 && json_array_size(nr) == 0)
        gw_ferr_required(errs, base,
                         "at least one of resourceRules and nonResourceRules has to be non-empty");
    json_array_foreach(rr, i, v)
    {
        char *p = idx(base, "resourceRules", i);
        resource_rule(v, p, errs);
        free(p);
    }
    json_array_foreach(nr, i, v)
    {
        char *p = idx(base, "nonResourceRules", i);
        nonresource_rule(v, p, errs);
        free(p);
    }
}

void
gw_flowschema_validate(const json_t *fs, gw_field_errors_t *errs)
{
    static const char *const methods[] = {"ByNamespace", "ByUser", NULL};
    const json_t *spec = json_object_get(fs, "spec");
    const json_t *prec = json_object_get(spec, "matchingPrecedence");
    const json_t *dm = json_object_get(spec, "distinguisherMethod");
    const char *pl = json_string_value(
        json_object_get(json_object_get(spec, "priorityLevelConfiguration"), "name"));
    json_int_t p = json_integer_value(prec);
    size_t i;
    json_t *v;

    if (p <= 0)
        gw_ferr_invalid(errs, "spec.matchingPrecedence", prec, "must be a positive value");
    if (p > MAX_PRECEDENCE)
        gw_ferr_invalid(errs, "spec.matchingPrecedence", prec, "must not be greater than 10000");
    if (dm != NULL && !json_is_null(dm)) {
        const char *t = json_string_value(json_object_get(dm, "type"));
        if (t == NULL || (strcmp(t, "ByNamespace") != 0 && strcmp(t, "ByUser") != 0))
            gw_ferr_not_supported(errs, "spec.distinguisherMethod.type", t != NULL ? t : "",
                                  methods);
    }
    if (pl == NULL || *pl == '\0') {
        gw_ferr_required(errs, "spec.priorityLevelConfiguration.name",
                         "must reference a priority level");
    } else {
        const char *why = gw_valid_path_segment_name(pl);
        if (why != NULL)
            gw_ferr_invalid_str(errs, "spec.priorityLevelConfiguration.name", pl, why);
    }
    json_array_foreach(json_object_get(spec, "rules"), i, v)
    {
        char *base = gw_sprintf("spec.rules[%zu]", i);
        rules_with_subjects(v, base, errs);
        free(base);
    }
}

/* ---- priority levels ------------------------------------------------------------------------ */

static int
bits(int n)
{
    int b = 0;
    while ((1LL << b) < n)
        b++;
    return b;
}

static void
queuing(const json_t *q, gw_field_errors_t *errs)
{
    const json_t *ql = json_object_get(q, "queueLengthLimit"), *n = json_object_get(q, "queues"),
                 *h = json_object_get(q, "handSize");
    json_int_t queues = json_integer_value(n), hand = json_integer_value(h);
    char buf[160];

    if (json_integer_value(ql) <= 0)
        gw_ferr_invalid(errs, "spec.limited.limitResponse.queuing.queueLengthLimit", ql,
                        "must be positive");
    if (queues <= 0)
        gw_ferr_invalid(errs, "spec.limited.limitResponse.queuing.queues", n, "must be positive");
    else if (queues > MAX_QUEUES)
        gw_ferr_invalid(errs, "spec.limited.limitResponse.queuing.queues", n,
                        "must not be greater than 10000");
    if (hand <= 0) {
        gw_ferr_invalid(errs, "spec.limited.limitResponse.queuing.handSize", h, "must be positive");
    } else if (hand > queues) {
        snprintf(buf, sizeof(buf), "should not be greater than queues (%lld)", (long long)queues);
        gw_ferr_invalid(errs, "spec.limited.limitResponse.queuing.handSize", h, buf);
    } else if (bits((int)queues) * hand > MAX_HASH_BITS) {
        snprintf(buf, sizeof(buf),
                 "required entropy bits of deckSize %lld and handSize %lld should not be greater "
                 "than %d",
                 (long long)queues, (long long)hand, MAX_HASH_BITS);
        gw_ferr_invalid(errs, "spec.limited.limitResponse.queuing.handSize", h, buf);
    }
}

static void
percent(const json_t *o, const char *key, const char *field, gw_field_errors_t *errs)
{
    const json_t *v = json_object_get(o, key);
    if (v != NULL && json_is_integer(v) &&
        (json_integer_value(v) < 0 || json_integer_value(v) > 100))
        gw_ferr_invalid(errs, field, v, "must be between 0 and 100, inclusive");
}

static void
limited(const json_t *l, gw_field_errors_t *errs)
{
    static const char *const types[] = {"Queue", "Reject", NULL};
    const json_t *ncs = json_object_get(l, "nominalConcurrencyShares");
    const json_t *blp = json_object_get(l, "borrowingLimitPercent");
    const json_t *lr = json_object_get(l, "limitResponse");
    const char *t = json_string_value(json_object_get(lr, "type"));
    const json_t *q = json_object_get(lr, "queuing");

    if (json_integer_value(ncs) < 0)
        gw_ferr_invalid(errs, "spec.limited.nominalConcurrencyShares", ncs,
                        "must be a non-negative integer");
    percent(l, "lendablePercent", "spec.limited.lendablePercent", errs);
    if (blp != NULL && json_is_integer(blp) && json_integer_value(blp) < 0)
        gw_ferr_invalid(errs, "spec.limited.borrowingLimitPercent", blp,
                        "if specified, must be a non-negative integer");
    if (t != NULL && strcmp(t, "Reject") == 0) {
        if (q != NULL && !json_is_null(q))
            gw_ferr_forbidden(errs, "spec.limited.limitResponse.queuing",
                              "must be nil if limited.limitResponse.type is not Limited");
    } else if (t != NULL && strcmp(t, "Queue") == 0) {
        if (q == NULL || json_is_null(q))
            gw_ferr_required(errs, "spec.limited.limitResponse.queuing",
                             "must not be empty if limited.limitResponse.type is Limited");
        else
            queuing(q, errs);
    } else {
        gw_ferr_not_supported(errs, "spec.limited.limitResponse.type", t != NULL ? t : "", types);
    }
}

void
gw_prioritylevel_validate(const json_t *pl, gw_field_errors_t *errs)
{
    static const char *const types[] = {"Exempt", "Limited", NULL};
    const json_t *spec = json_object_get(pl, "spec");
    const char *name = json_string_value(json_object_get(json_object_get(pl, "metadata"), "name"));
    const char *t = json_string_value(json_object_get(spec, "type"));
    const json_t *ex = json_object_get(spec, "exempt"), *lim = json_object_get(spec, "limited");
    bool has_ex = ex != NULL && !json_is_null(ex), has_lim = lim != NULL && !json_is_null(lim);

    if (t != NULL && strcmp(t, "Exempt") == 0) {
        if (has_lim)
            gw_ferr_forbidden(errs, "spec.limited", "must be nil if the type is not Limited");
        if (has_ex) {
            const json_t *ncs = json_object_get(ex, "nominalConcurrencyShares");
            if (json_integer_value(ncs) < 0)
                gw_ferr_invalid(errs, "spec.exempt.nominalConcurrencyShares", ncs,
                                "must be a non-negative integer");
            percent(ex, "lendablePercent", "spec.exempt.lendablePercent", errs);
        }
    } else if (t != NULL && strcmp(t, "Limited") == 0) {
        if (has_ex)
            gw_ferr_forbidden(errs, "spec.exempt", "must be nil if the type is Limited");
        if (!has_lim)
            gw_ferr_required(errs, "spec.limited", "must not be empty when type is Limited");
        else
            limited(lim, errs);
    } else {
        gw_ferr_not_supported(errs, "spec.type", t != NULL ? t : "", types);
    }
    if (name != NULL && t != NULL && (strcmp(name, "exempt") == 0) != (strcmp(t, "Exempt") == 0))
        gw_ferr_invalid_str(errs, "spec.type", t,
                            "type must be 'Exempt' if and only if name is 'exempt'");
}

/* ---- defaults ---------------------------------------------------------------------------------
 */

static void
set_default(json_t *o, const char *key, json_int_t v)
{
    if (o != NULL && json_object_get(o, key) == NULL)
        json_object_set_new(o, key, json_integer(v));
}

void
gw_flowschema_defaults(json_t *fs)
{
    json_t *spec = json_object_get(fs, "spec");
    json_t *p = json_object_get(spec, "matchingPrecedence");
    if (json_is_object(spec) && (p == NULL || (json_is_integer(p) && json_integer_value(p) == 0)))
        json_object_set_new(spec, "matchingPrecedence", json_integer(1000));
}

void
gw_prioritylevel_defaults(json_t *pl)
{
    json_t *spec = json_object_get(pl, "spec");
    json_t *ex = json_object_get(spec, "exempt"), *lim = json_object_get(spec, "limited");
    json_t *q = json_object_get(json_object_get(lim, "limitResponse"), "queuing");

    if (json_is_object(ex)) {
        set_default(ex, "nominalConcurrencyShares", 0);
        set_default(ex, "lendablePercent", 0);
    }
    if (json_is_object(lim)) {
        set_default(lim, "nominalConcurrencyShares", 30);
        set_default(lim, "lendablePercent", 0);
    }
    if (json_is_object(q)) {
        const char *keys[] = {"queues", "handSize", "queueLengthLimit"};
        const json_int_t dflt[] = {64, 8, 50};
        for (int i = 0; i < 3; i++) {
            json_t *v = json_object_get(q, keys[i]);
            if (v == NULL || (json_is_integer(v) && json_integer_value(v) == 0))
                json_object_set_new(q, keys[i], json_integer(dflt[i]));
        }
    }
}
