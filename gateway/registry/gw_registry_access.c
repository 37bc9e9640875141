/*
 * The access reviews of authorization.k8s.io/v1, created, answered 201 and never stored, as
 * kube-apiserver's pkg/registry/authorization does: SelfSubjectAccessReview (may I?),
 * SubjectAccessReview (may they?), LocalSubjectAccessReview (may they, in this namespace?)
 * ask the request's authorizer chain; SelfSubjectRulesReview lists the rules the chain's
 * rule-listing modes (RBAC, AlwaysAllow) give the caller in a namespace.
 */
#include "gw_registry_int.h"

#include <string.h>

#include "authz_rbac.h"
#include "gw_names.h"

static const char *
str(const json_t *o, const char *member)
{
    const char *v = json_string_value(json_object_get(o, member));
    return v != NULL ? v : "";
}

/* The request's review, checked against the kind's schema; NULL when answered. */
static json_t *
access_body(gw_req_t *r)
{
    json_t *body = gw_req_body_object(r, false, NULL);
    gw_fail_t f = {0};
    gw_field_errors_t errs = {0};

    if (body == NULL)
        return NULL; /* answered */
    bool ok = gw_registry__check_object(r, body, NULL, NULL, r->resource->schema, NULL, 0,
                                        GW_FV_IGNORE, false, &errs, &f) &&
              gw_registry__check_namespace(r, body, &f);
    gw_ferr_clear(&errs);
    if (!ok) {
        gw_registry__reply_fail(r, &f);
        return NULL;
    }
    json_t *meta = gw_objmeta_get(body);
    if (json_object_get(meta, "creationTimestamp") == NULL)
        json_object_set_new(meta, "creationTimestamp", json_null());
    return body;
}

static bool
reply_invalid(gw_req_t *r, gw_field_errors_t *errs)
{
    gw_fail_t f = {0};

    if (gw_ferr_count(errs) == 0)
        return false;
    gw_registry__fail_invalid(r, &f, r->resource->group, r->resource->kind, "", errs);
    gw_registry__reply_fail(r, &f);
    return true;
}

/* ---- the subject of a SubjectAccessReview -------------------------------------------------- */

static char **
strings(gw_req_t *r, const json_t *arr, size_t *n)
{
    char **out = gw_arena_calloc(r->arena, (json_array_size(arr) + 1) * sizeof(*out));
    size_t i;
    json_t *v;

    *n = 0;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v))
            out[(*n)++] = gw_arena_strdup(r->arena, json_string_value(v));
    }
    return out;
}

static authn_user_t *
spec_user(gw_req_t *r, const json_t *spec)
{
    authn_user_t *u = gw_arena_calloc(r->arena, sizeof(*u));
    const json_t *extra = json_object_get(spec, "extra");
    const char *k;
    json_t *v;

    u->name = gw_arena_strdup(r->arena, str(spec, "user"));
    u->uid = gw_arena_strdup(r->arena, str(spec, "uid"));
    u->groups = strings(r, json_object_get(spec, "groups"), &u->n_groups);
    u->extra = gw_arena_calloc(r->arena, (json_object_size(extra) + 1) * sizeof(*u->extra));
    json_object_foreach((json_t *)extra, k, v)
    {
        authn_extra_t *e = &u->extra[u->n_extra++];
        e->key = gw_arena_strdup(r->arena, k);
        e->values = strings(r, v, &e->n_values);
    }
    return u;
}

/* ---- selectors in resourceAttributes ------------------------------------------------------- */

static bool
is_op(const char *op, const char *a, const char *b)
{
    return strcmp(op, a) == 0 || strcmp(op, b) == 0;
}

/* kube's metav1 validation of one requirement (field: at path, label: also its key and values),
 * with unknown operators let through as kube does for reviews from newer clients. */
static void
check_requirement(gw_req_t *r, const json_t *q, bool label, const char *path,
                  gw_field_errors_t *errs)
{
    const char *op = str(q, "operator"), *msg;
    const json_t *values = json_object_get(q, "values"), *v;
    size_t i;

    if (!label && *str(q, "key") == '\0')
        gw_ferr_required(errs, gw_arena_sprintf(r->arena, "%s.key", path), "must be specified");
    if (is_op(op, "In", "NotIn") && json_array_size(values) == 0)
        gw_ferr_required(errs, gw_arena_sprintf(r->arena, "%s.values", path),
                         "must be specified when `operator` is 'In' or 'NotIn'");
    else if (is_op(op, "Exists", "DoesNotExist") && json_array_size(values) > 0)
        gw_ferr_forbidden(errs, gw_arena_sprintf(r->arena, "%s.values", path),
                          "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    if (!label)
        return;
    if ((msg = gw_valid_qualified_name(str(q, "key"))) != NULL)
        gw_ferr_invalid_str(errs, gw_arena_sprintf(r->arena, "%s.key", path), str(q, "key"), msg);
    json_array_foreach(values, i, v)
    {
        const char *value = json_string_value(v) != NULL ? json_string_value(v) : "";
        if ((msg = gw_valid_label_value(value)) != NULL)
            gw_ferr_invalid_str(errs, gw_arena_sprintf(r->arena, "%s.values[%zu]", path, i), value,
                                msg);
    }
}

/* kube's validation of resourceAttributes.fieldSelector or .labelSelector: a rawSelector or
 * requirements, not both. */
static void
check_selector(gw_req_t *r, const json_t *ra, const char *member, gw_field_errors_t *errs)
{
    const json_t *sel = json_object_get(ra, member);
    const json_t *reqs = json_object_get(sel, "requirements"), *q;
    const char *raw = str(sel, "rawSelector");
    const char *path = gw_arena_sprintf(r->arena, "spec.resourceAttributes.%s", member);
    size_t i;

    if (!json_is_object(sel))
        return;
    if (*raw != '\0' && json_array_size(reqs) > 0)
        gw_ferr_invalid_str(errs, gw_arena_sprintf(r->arena, "%s.rawSelector", path), raw,
                            "may not specified at the same time as requirements");
    if (*raw == '\0' && json_array_size(reqs) == 0)
        gw_ferr_required(errs, gw_arena_sprintf(r->arena, "%s.requirements", path),
                         gw_arena_sprintf(r->arena,
                                          "when %s is specified, requirements or rawSelector is "
                                          "required",
                                          path));
    json_array_foreach(reqs, i, q)
    {
        check_requirement(r, q, strcmp(member, "labelSelector") == 0,
                          gw_arena_sprintf(r->arena, "%s.requirements[%zu]", path, i), errs);
    }
}

static void
check_selectors(gw_req_t *r, const json_t *spec, gw_field_errors_t *errs)
{
    const json_t *ra = json_object_get(spec, "resourceAttributes");

    check_selector(r, ra, "fieldSelector", errs);
    check_selector(r, ra, "labelSelector", errs);
}

/* fields.EscapeValue: '\\', ',' and '=' escaped. */
static void
append_escaped(gw_req_t *r, char **out, const char *v)
{
    size_t len = strlen(*out);
    char *s = gw_arena_alloc(r->arena, len + 2 * strlen(v) + 1);

    memcpy(s, *out, len);
    for (; *v != '\0'; v++) {
        if (strchr("\\,=", *v) != NULL)
            s[len++] = '\\';
        s[len++] = *v;
    }
    s[len] = '\0';
    *out = s;
}

/*
 * Field requirements as the selector kube makes of them: In and NotIn of one value are k=v and
 * k!=v. Anything else (more values, Exists, DoesNotExist, an unknown operator) leaves kube no
 * selector, and so does a key that would not read back as one (holding ',', '=', '!' or '\').
 * NULL for none.
 */
static const char *
field_requirements(gw_req_t *r, const json_t *reqs)
{
    char *out = gw_arena_strdup(r->arena, "");
    size_t i;
    const json_t *q;

    json_array_foreach(reqs, i, q)
    {
        const char *op = str(q, "operator"), *key = str(q, "key");
        const json_t *values = json_object_get(q, "values");
        const char *value = json_string_value(json_array_get(values, 0));
        if (!is_op(op, "In", "NotIn") || json_array_size(values) != 1 || value == NULL ||
            strpbrk(key, ",=!\\") != NULL)
            return NULL;
        out = gw_arena_sprintf(r->arena, "%s%s%s%s", out, i > 0 ? "," : "", key,
                               strcmp(op, "In") == 0 ? "=" : "!=");
        append_escaped(r, &out, value);
    }
    return *out != '\0' ? out : NULL;
}

/* Label requirements in label-selector syntax, those kube cannot make a requirement of (an
 * unknown operator) dropped; NULL when none is left. */
static const char *
label_requirements(gw_req_t *r, const json_t *reqs)
{
    json_t *known = json_array(), *q;
    size_t i;

    json_array_foreach(reqs, i, q)
    {
        const char *op = str(q, "operator");
        if (is_op(op, "In", "NotIn") || is_op(op, "Exists", "DoesNotExist"))
            json_array_append(known, q);
    }
    json_t *doc = json_pack("{s:o}", "matchExpressions", known);
    char *s = gw_label_selector_string(doc);
    const char *out = s != NULL && *s != '\0' ? gw_arena_strdup(r->arena, s) : NULL;
    free(s);
    json_decref(doc);
    return out;
}

/* A validated selector attribute as the raw string the authorizers read; NULL for none. */
static const char *
selector_of(gw_req_t *r, const json_t *ra, const char *member)
{
    const json_t *sel = json_object_get(ra, member);
    const json_t *reqs = json_object_get(sel, "requirements");

    if (*str(sel, "rawSelector") != '\0')
        return str(sel, "rawSelector");
    if (json_array_size(reqs) == 0)
        return NULL;
    return strcmp(member, "fieldSelector") == 0 ? field_requirements(r, reqs)
                                                : label_requirements(r, reqs);
}

/* ---- asking the authorizers ------------------------------------------------------------------ */

/* kube's ValidateSelfSubjectAccessReviewSpec: exactly one kind of attributes. */
static void
check_attributes(const json_t *spec, gw_field_errors_t *errs)
{
    const json_t *ra = json_object_get(spec, "resourceAttributes");
    const json_t *na = json_object_get(spec, "nonResourceAttributes");

    if (json_is_object(ra) && json_is_object(na))
        gw_ferr_invalid(errs, "spec.nonResourceAttributes", na,
                        "cannot be specified in combination with resourceAttributes");
    else if (!json_is_object(ra) && !json_is_object(na))
        gw_ferr_invalid(errs, "spec.resourceAttributes", json_null(),
                        "exactly one of nonResourceAttributes or resourceAttributes must be "
                        "specified");
}

static authz_attrs_t
attrs_of(gw_req_t *r, const json_t *spec, const authn_user_t *u)
{
    const json_t *ra = json_object_get(spec, "resourceAttributes");
    const json_t *na = json_object_get(spec, "nonResourceAttributes");

    if (!json_is_object(ra))
        return (authz_attrs_t){.user = u, .verb = str(na, "verb"), .path = str(na, "path")};
    return (authz_attrs_t){.user = u,
                           .verb = str(ra, "verb"),
                           .resource_request = true,
                           .api_group = str(ra, "group"),
                           .api_version = str(ra, "version"),
                           .resource = str(ra, "resource"),
                           .subresource = str(ra, "subresource"),
                           .namespace_ = str(ra, "namespace"),
                           .name = str(ra, "name"),
                           .field_selector = selector_of(r, ra, "fieldSelector"),
                           .label_selector = selector_of(r, ra, "labelSelector")};
}

typedef struct {
    gw_req_t *r;
    json_t *review;
} access_t;

/* kube's status: denied only for an explicit denial (not for want of an opinion), and the
 * authorizers' failures as evaluationError. */
static void
decided(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    access_t *a = ctx;
    json_t *status = json_pack("{s:b}", "allowed", decision == AUTHZ_ALLOW);

    if (decision == AUTHZ_DENY)
        json_object_set_new(status, "denied", json_true());
    if (reason != NULL && *reason != '\0')
        json_object_set_new(status, "reason", json_string(reason));
    if (error != NULL)
        json_object_set_new(status, "evaluationError", json_string(error));
    json_object_set_new(a->review, "status", status);
    gw_reply_json(a->r, 201, json_incref(a->review));
}

static void
ask(gw_req_t *r, json_t *review, const authn_user_t *u)
{
    access_t *a = gw_arena_calloc(r->arena, sizeof(*a));
    authz_attrs_t attrs = attrs_of(r, json_object_get(review, "spec"), u);

    *a = (access_t){r, review};
    attrs.io = gw_worker_base(r->worker);
    authz_authorize(r->authz, &attrs, decided, a);
}

static void
self_subject_access(gw_req_t *r)
{
    json_t *review = access_body(r);
    gw_field_errors_t errs = {0};

    if (review == NULL)
        return; /* answered */
    check_attributes(json_object_get(review, "spec"), &errs);
    check_selectors(r, json_object_get(review, "spec"), &errs);
    if (!reply_invalid(r, &errs))
        ask(r, review, r->user);
}

static void
subject_access(gw_req_t *r, bool local)
{
    json_t *review = access_body(r), *spec;
    gw_field_errors_t errs = {0};

    if (review == NULL)
        return; /* answered */
    spec = json_object_get(review, "spec");
    check_attributes(spec, &errs);
    if (*str(spec, "user") == '\0' && json_array_size(json_object_get(spec, "groups")) == 0)
        gw_ferr_invalid_str(&errs, "spec.user", "",
                            "at least one of user or group must be specified");
    check_selectors(r, spec, &errs);
    if (local) {
        const json_t *ra = json_object_get(spec, "resourceAttributes");
        const char *ns = str(gw_objmeta_get(review), "namespace");
        if (json_is_object(json_object_get(spec, "nonResourceAttributes")))
            gw_ferr_invalid(&errs, "spec.nonResourceAttributes",
                            json_object_get(spec, "nonResourceAttributes"),
                            "disallowed on this kind of request");
        else if (json_is_object(ra) && strcmp(str(ra, "namespace"), ns) != 0)
            gw_ferr_invalid_str(&errs, "spec.resourceAttributes.namespace", str(ra, "namespace"),
                                "must match metadata.namespace");
    }
    if (!reply_invalid(r, &errs))
        ask(r, review, spec_user(r, spec));
}

/* ---- SelfSubjectRulesReview ------------------------------------------------------------------ */

static void
copy_list(json_t *to, const char *member, const json_t *from)
{
    if (json_array_size(json_object_get(from, member)) > 0)
        json_object_set(to, member, json_object_get(from, member));
}

/* A PolicyRule as a ResourceRule or a NonResourceRule of the review's status. */
static void
add_rule(const json_t *rule, void *ctx)
{
    json_t *status = ctx;
    json_t *out = json_pack("{s:O}", "verbs", json_object_get(rule, "verbs"));
    bool non_resource = json_array_size(json_object_get(rule, "nonResourceURLs")) > 0;

    if (non_resource) {
        copy_list(out, "nonResourceURLs", rule);
    } else {
        copy_list(out, "apiGroups", rule);
        copy_list(out, "resources", rule);
        copy_list(out, "resourceNames", rule);
    }
    json_array_append_new(
        json_object_get(status, non_resource ? "nonResourceRules" : "resourceRules"), out);
}

static json_t *
rules_status(gw_req_t *r, const char *ns)
{
    json_t *status =
        json_pack("{s:[],s:[],s:b}", "resourceRules", "nonResourceRules", "incomplete", false);

    if (authz_has_mode(r->authz, "AlwaysAllow")) {
        json_t *all =
            json_pack("{s:[s],s:[s],s:[s]}", "verbs", "*", "apiGroups", "*", "resources", "*");
        add_rule(all, status);
        json_decref(all);
        all = json_pack("{s:[s],s:[s]}", "verbs", "*", "nonResourceURLs", "*");
        add_rule(all, status);
        json_decref(all);
    }
    if (authz_has_mode(r->authz, "RBAC")) {
        authz_rbac_snap_t *s = authz_rbac_current();
        if (s == NULL || authz_rbac_visit(s, r->user, ns, add_rule, status) > 0)
            json_object_set_new(status, "incomplete", json_true());
        authz_rbac_snap_unref(s);
    }
    return status;
}

static void
self_subject_rules(gw_req_t *r)
{
    json_t *review = access_body(r);
    const char *ns;

    if (review == NULL)
        return; /* answered */
    ns = str(json_object_get(review, "spec"), "namespace");
    if (*ns == '\0') {
        gw_reply_status(r, 400, "BadRequest", NULL, "no namespace on request");
        return;
    }
    json_object_set_new(review, "status", rules_status(r, ns));
    gw_reply_json(r, 201, json_incref(review));
}

void
gw_registry__access_review(gw_req_t *r)
{
    const char *name = r->resource->name;

    if (strcmp(name, "selfsubjectaccessreviews") == 0)
        self_subject_access(r);
    else if (strcmp(name, "subjectaccessreviews") == 0)
        subject_access(r, false);
    else if (strcmp(name, "localsubjectaccessreviews") == 0)
        subject_access(r, true);
    else if (strcmp(name, "selfsubjectrulesreviews") == 0)
        self_subject_rules(r);
    else
        gw_registry__reply_not_allowed(r);
}
