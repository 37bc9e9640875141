/*
 * The admission webhook configurations: kube's validateMutatingWebhookConfiguration and
 * validateValidatingWebhookConfiguration with their validationOptions (every requirement on a
 * create; on an update, each one only when the stored object met it). A webhook's match
 * conditions are compiled by the admission plugin's compiler in its `validating` mode over a
 * document holding only them: no paramKind (no `params`), no variables, the authorizer declared,
 * as kube's stateless compiler compiles them for webhooks.
 */
#include "gw_webhook_config_valid.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gw_admission_rules.h"
#include "gw_alloc.h"
#include "gw_metav1_valid.h"
#include "gw_names.h"
#include "gw_vap_compile.h"
#include "gw_webhook_client_valid.h"

#define MAX_MATCH_CONDITIONS 64
#define REVIEW_VERSIONS "v1, v1beta1"

/* What an update relaxes (kube's validationOptions); every check is on for a create. */
typedef struct {
    bool ignore_match_conditions;
    bool require_no_side_effects;
    bool require_recognized_review_version;
    bool require_unique_names;
    bool allow_invalid_label_values;
    const json_t *old_webhooks; /* the stored webhooks (preexisting expressions), or NULL */
} opts_t;

/* ---- small helpers ------------------------------------------------------------------------ */

/* A pointer field: absent or null is nil. */
static const json_t *
ptr(const json_t *obj, const char *member)
{
    const json_t *v = json_object_get(obj, member);
    return json_is_null(v) ? NULL : v;
}

static const char *
sor(const json_t *obj, const char *member)
{
    const char *s = json_string_value(json_object_get(obj, member));
    return s != NULL ? s : "";
}

static const char *
str_of(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "";
}

static char *
child(const char *path, const char *member)
{
    return gw_sprintf("%s.%s", path, member);
}

static bool
in_set(const char *s, const char *const *set)
{
    for (size_t i = 0; set[i] != NULL; i++)
        if (strcmp(set[i], s) == 0)
            return true;
    return false;
}

/* JSON equality of two members, absent and null alike (Go's nil slice). */
static bool
same(const json_t *a, const json_t *b)
{
    if (a == NULL || json_is_null(a))
        return b == NULL || json_is_null(b);
    return b != NULL && !json_is_null(b) && json_equal(a, b);
}

/* ---- names -------------------------------------------------------------------------------- */

/* Whether s matches IsDNS1123Subdomain's regular expression, whatever its length. */
static bool
subdomain_shape(const char *s)
{
    const char *label = s;

    for (const char *c = s;; c++) {
        if (*c == '.' || *c == '\0') {
            if (c == label || c[-1] == '-' || label[0] == '-')
                return false;
            if (*c == '\0')
                return true;
            label = c + 1;
        } else if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '-')) {
            return false;
        }
    }
}

/* utilvalidation.IsFullyQualifiedName: a DNS subdomain of at least three segments. */
static void
fully_qualified_name(const char *name, const char *path, gw_field_errors_t *errs)
{
    const char *msg = gw_valid_dns1123_subdomain(name);
    size_t dots = 0;

    if (name[0] == '\0') {
        gw_ferr_required(errs, path, NULL);
        return;
    }
    if (msg != NULL) {
        /* a long name can break both rules: kube joins its messages with "," (the regular
         * expression's message is the one a short invalid name gets) */
        char *both = strlen(name) > 253 && !subdomain_shape(name)
                         ? gw_sprintf("%s,%s", msg, gw_valid_dns1123_subdomain("-"))
                         : gw_strdup(msg);
        gw_ferr_invalid_str(errs, path, name, both);
        free(both);
        return;
    }
    for (const char *c = name; *c != '\0'; c++)
        dots += *c == '.';
    if (dots < 2)
        gw_ferr_invalid_str(errs, path, name,
                            "should be a domain with at least three segments separated by dots");
}

/* ValidateQualifiedName: each of IsQualifiedName's messages. */
static void
qualified_name(const char *s, const char *path, gw_field_errors_t *errs)
{
    const char *msgs[4];
    size_t n = gw_valid_qualified_name_all(s, msgs);

    for (size_t i = 0; i < n; i++)
        gw_ferr_invalid_str(errs, path, s, msgs[i]);
}

/* ---- match conditions --------------------------------------------------------------------- */

/* strings.TrimSpace's ASCII white space. */
static const char white[] = " \t\n\v\f\r";

static char *
trim(const char *s)
{
    size_t n;

    s += strspn(s, white);
    n = strlen(s);
    while (n > 0 && strchr(white, s[n - 1]) != NULL)
        n--;
    return gw_strndup(s, n);
}

/* Whether a stored webhook's match condition is `expr` (kube's preexisting expressions). */
static bool
preexisting(const opts_t *o, const char *expr)
{
    size_t i, j;
    const json_t *w, *mc;

    json_array_foreach(o->old_webhooks, i, w)
    {
        json_array_foreach(json_object_get(w, "matchConditions"), j, mc)
        {
            if (strcmp(sor(mc, "expression"), expr) == 0)
                return true;
        }
    }
    return false;
}

static void
match_condition(const opts_t *o, const gw_vap_compiled_t *c, const json_t *mc, size_t i,
                const char *path, gw_field_errors_t *errs)
{
    const char *name = sor(mc, "name");
    char *expr = trim(sor(mc, "expression")), *p = child(path, "expression");
    const char *detail;

    if (expr[0] == '\0') {
        gw_ferr_required(errs, p, NULL);
    } else {
        /* kube compiles, and shows, the trimmed text */
        detail = gw_vap_compile_error(c, GW_VAP_MATCH_CONDITION, i);
        if (detail != NULL && !preexisting(o, expr))
            gw_ferr_invalid_str(errs, p, expr, detail);
    }
    free(p);
    free(expr);
    p = child(path, "name");
    if (name[0] == '\0')
        gw_ferr_required(errs, p, NULL);
    else
        qualified_name(name, p, errs);
    free(p);
}

/* validateMatchConditions: at most 64, each valid, names unique. */
static void
match_conditions(const opts_t *o, const json_t *list, const char *path, gw_field_errors_t *errs)
{
    json_t *doc = json_pack("{s:{s:O}}", "spec", "matchConditions", list);
    gw_vap_compiled_t *c = gw_vap_compile(doc, &(gw_vap_schemas_t){.validating = true});
    size_t i;
    const json_t *mc;

    if (json_array_size(list) > MAX_MATCH_CONDITIONS)
        gw_ferr_too_many(errs, path, json_array_size(list), MAX_MATCH_CONDITIONS);
    json_array_foreach(list, i, mc)
    {
        char *p = gw_sprintf("%s[%zu]", path, i);
        const char *name = sor(mc, "name");
        match_condition(o, c, mc, i, p, errs);
        for (size_t j = 0; name[0] != '\0' && j < i; j++) {
            if (strcmp(sor(json_array_get(list, j), "name"), name) == 0) {
                char *pn = child(p, "name");
                gw_ferr_duplicate(errs, pn, name);
                free(pn);
                break;
            }
        }
        free(p);
    }
    gw_vap_compiled_free(c);
    json_decref(doc);
}

/* ---- one webhook -------------------------------------------------------------------------- */

static void
not_supported(const json_t *wh, const char *member, const char *const *set, const char *path,
              gw_field_errors_t *errs)
{
    const json_t *v = ptr(wh, member);
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    char *p;

    if (v == NULL || in_set(s, set))
        return;
    p = child(path, member);
    gw_ferr_not_supported(errs, p, s, set);
    free(p);
}

static void
side_effects(const opts_t *o, const json_t *wh, const char *path, gw_field_errors_t *errs)
{
    static const char *const none[] = {"None", "NoneOnDryRun", NULL};
    static const char *const all[] = {"None", "NoneOnDryRun", "Some", "Unknown", NULL};
    const char *const *allowed = o->require_no_side_effects ? none : all;
    char *p;

    if (ptr(wh, "sideEffects") == NULL) {
        p = child(path, "sideEffects");
        char *d = o->require_no_side_effects
                      ? gw_strdup("must specify one of None, NoneOnDryRun")
                      : gw_strdup("must specify one of None, NoneOnDryRun, Some, Unknown");
        gw_ferr_required(errs, p, d);
        free(d);
        free(p);
        return;
    }
    not_supported(wh, "sideEffects", allowed, path, errs);
}

static void
timeout(const json_t *wh, const char *path, gw_field_errors_t *errs)
{
    const json_t *t = ptr(wh, "timeoutSeconds");
    json_int_t n = json_integer_value(t);
    char *p;

    if (t == NULL || (n >= 1 && n <= 30))
        return;
    p = child(path, "timeoutSeconds");
    gw_ferr_invalid(errs, p, t, "the timeout value must be between 1 and 30 seconds");
    free(p);
}

static void
selectors(const opts_t *o, const json_t *wh, const char *path, gw_field_errors_t *errs)
{
    static const char *const members[] = {"namespaceSelector", "objectSelector"};

    for (size_t i = 0; i < 2; i++) {
        const json_t *sel = ptr(wh, members[i]);
        char *p = child(path, members[i]);
        if (sel != NULL)
            gw_label_selector_validate(sel, o->allow_invalid_label_values, p, errs);
        free(p);
    }
}

static void
client_config(const json_t *wh, const char *path, gw_field_errors_t *errs)
{
    const json_t *cc = json_object_get(wh, "clientConfig");
    const json_t *url = ptr(cc, "url"), *svc = ptr(cc, "service");
    char *p = child(path, "clientConfig"), *q;

    if ((url == NULL) == (svc == NULL)) {
        gw_ferr_required(errs, p, "exactly one of url or service is required");
    } else if (url != NULL) {
        q = child(p, "url");
        gw_webhook_url_validate(json_is_string(url) ? json_string_value(url) : "", q, errs);
        free(q);
    } else {
        q = child(p, "service");
        gw_webhook_service_validate(svc, q, errs);
        free(q);
    }
    free(p);
}

/* validate{Mutating,Validating}Webhook. */
static void
webhook(const opts_t *o, const json_t *wh, bool mutating, const char *path, gw_field_errors_t *errs)
{
    static const char *const failure[] = {"Fail", "Ignore", NULL};
    static const char *const match[] = {"Equivalent", "Exact", NULL};
    static const char *const reinvocation[] = {"IfNeeded", "Never", NULL};
    char *p = child(path, "name");

    fully_qualified_name(sor(wh, "name"), p, errs);
    free(p);
    p = child(path, "rules");
    gw_admission_rules_validate(json_object_get(wh, "rules"), p, errs);
    free(p);
    not_supported(wh, "failurePolicy", failure, path, errs);
    not_supported(wh, "matchPolicy", match, path, errs);
    side_effects(o, wh, path, errs);
    timeout(wh, path, errs);
    selectors(o, wh, path, errs);
    if (mutating)
        not_supported(wh, "reinvocationPolicy", reinvocation, path, errs);
    client_config(wh, path, errs);
    if (!o->ignore_match_conditions) {
        p = child(path, "matchConditions");
        match_conditions(o, json_object_get(wh, "matchConditions"), p, errs);
        free(p);
    }
}

static bool
accepted_review_version(const char *v)
{
    return strcmp(v, "v1") == 0 || strcmp(v, "v1beta1") == 0;
}

/* validateAdmissionReviewVersions. */
static void
review_versions(const json_t *list, bool require_recognized, const char *path,
                gw_field_errors_t *errs)
{
    bool accepted = false;
    size_t i;
    const json_t *v;

    if (json_array_size(list) == 0) {
        gw_ferr_required(errs, path, "must specify one of " REVIEW_VERSIONS);
        return;
    }
    json_array_foreach(list, i, v)
    {
        const char *s = str_of(v), *msg;
        char *p = gw_sprintf("%s[%zu]", path, i);
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(str_of(json_array_get(list, j)), s) == 0;
        if (dup)
            gw_ferr_invalid_str(errs, p, s, "duplicate version");
        else if ((msg = gw_valid_dns1035_label(s)) != NULL)
            gw_ferr_invalid_str(errs, p, s, msg);
        accepted |= !dup && accepted_review_version(s);
        free(p);
    }
    if (require_recognized && !accepted)
        gw_admission_invalid_strings(errs, path, "[]string", list,
                                     "must include at least one of " REVIEW_VERSIONS);
}

/* ---- the configuration -------------------------------------------------------------------- */

/* Whether every stored webhook has none of the side-effect classes a create refuses. */
static bool
no_side_effects(const json_t *hooks)
{
    size_t i;
    const json_t *w;

    json_array_foreach(hooks, i, w)
    {
        const char *s = sor(w, "sideEffects");
        if (ptr(w, "sideEffects") == NULL ||
            (strcmp(s, "None") != 0 && strcmp(s, "NoneOnDryRun") != 0))
            return false;
    }
    return true;
}

/* Whether every stored webhook with review versions has one kube accepts. */
static bool
accepted_review_versions(const json_t *hooks)
{
    size_t i, j;
    const json_t *w, *v;

    json_array_foreach(hooks, i, w)
    {
        const json_t *list = json_object_get(w, "admissionReviewVersions");
        bool ok = json_array_size(list) == 0;
        json_array_foreach(list, j, v) ok |= accepted_review_version(str_of(v));
        if (!ok)
            return false;
    }
    return true;
}

static bool
unique_names(const json_t *hooks)
{
    for (size_t i = 0; i < json_array_size(hooks); i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(sor(json_array_get(hooks, i), "name"),
                       sor(json_array_get(hooks, j), "name")) == 0)
                return false;
    return true;
}

/* Whether a stored webhook's selector breaks the strict label-value rules. */
static bool
invalid_label_values(const json_t *hooks)
{
    static const char *const members[] = {"namespaceSelector", "objectSelector"};
    size_t i;
    const json_t *w;
    bool bad = false;

    json_array_foreach(hooks, i, w)
    {
        for (size_t k = 0; k < 2 && !bad; k++) {
            gw_field_errors_t e = {0};
            if (ptr(w, members[k]) != NULL)
                gw_label_selector_validate(ptr(w, members[k]), false, "s", &e);
            bad = gw_ferr_count(&e) > 0;
            gw_ferr_clear(&e);
        }
    }
    return bad;
}

/* ignore{Mutating,Validating}WebhookMatchConditions: as many webhooks, none whose match
 * conditions changed. */
static bool
match_conditions_unchanged(const json_t *hooks, const json_t *old)
{
    if (json_array_size(hooks) != json_array_size(old))
        return false;
    for (size_t i = 0; i < json_array_size(hooks); i++)
        if (!same(json_object_get(json_array_get(hooks, i), "matchConditions"),
                  json_object_get(json_array_get(old, i), "matchConditions")))
            return false;
    return true;
}

static opts_t
update_options(const json_t *hooks, const json_t *old)
{
    return (opts_t){.ignore_match_conditions = match_conditions_unchanged(hooks, old),
                    .require_no_side_effects = no_side_effects(old),
                    .require_recognized_review_version = accepted_review_versions(old),
                    .require_unique_names = unique_names(old),
                    .allow_invalid_label_values = invalid_label_values(old),
                    .old_webhooks = old};
}

void
gw_webhook_config_validate(const json_t *obj, const json_t *old, bool mutating,
                           gw_field_errors_t *errs)
{
    const json_t *hooks = json_object_get(obj, "webhooks");
    opts_t o = {.require_no_side_effects = true,
                .require_recognized_review_version = true,
                .require_unique_names = true};
    size_t i;
    const json_t *wh;

    if (old != NULL)
        o = update_options(hooks, json_object_get(old, "webhooks"));
    json_array_foreach(hooks, i, wh)
    {
        char *path = gw_sprintf("webhooks[%zu]", i), *p = child(path, "admissionReviewVersions");
        const char *name = sor(wh, "name");
        webhook(&o, wh, mutating, path, errs);
        review_versions(json_object_get(wh, "admissionReviewVersions"),
                        o.require_recognized_review_version, p, errs);
        free(p);
        for (size_t j = 0; o.require_unique_names && name[0] != '\0' && j < i; j++) {
            if (strcmp(sor(json_array_get(hooks, j), "name"), name) == 0) {
                p = child(path, "name");
                gw_ferr_duplicate(errs, p, name);
                free(p);
                break;
            }
        }
        free(path);
    }
}
