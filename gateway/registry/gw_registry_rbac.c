/*
 * RBAC's own rules on writes of its four kinds, as kube-apiserver's pkg/registry/rbac does:
 * a binding's roleRef and subjects are checked (pkg/apis/rbac/validation) and its roleRef
 * cannot change, and nobody grants what they do not hold. A Role or
 * ClusterRole needs its rules covered by the writer's own at that scope, or the `escalate`
 * verb on it; a binding needs the referenced role's rules covered, or the `bind` verb on that
 * role. Members of system:masters skip both checks.
 */
#include "gw_registry_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authz_rbac.h"
#include "gw_alloc.h"
#include "gw_server.h"

#define RBAC_GROUP "rbac.authorization.k8s.io"
#define PRIVILEGED_GROUP "system:masters"

/* Which of the four kinds a strategy is for (each has its own, below). */
typedef enum { ROLE, CLUSTER_ROLE, BINDING, CLUSTER_BINDING } rbac_kind_t;

static const char *
str(const json_t *o, const char *member)
{
    const char *v = json_string_value(json_object_get(o, member));
    return v != NULL ? v : "";
}

/* kube's ValidateRoleBinding / ValidateClusterRoleBinding on roleRef. */
static void
validate_role_ref(rbac_kind_t k, const json_t *ref, gw_field_errors_t *errs)
{
    static const char *const groups[] = {RBAC_GROUP, NULL};
    static const char *const any_role[] = {"Role", "ClusterRole", NULL};
    static const char *const cluster_role[] = {"ClusterRole", NULL};
    const char *kind = str(ref, "kind");
    bool kind_ok = strcmp(kind, "ClusterRole") == 0 || (k == BINDING && strcmp(kind, "Role") == 0);

    if (strcmp(str(ref, "apiGroup"), RBAC_GROUP) != 0)
        gw_ferr_not_supported(errs, "roleRef.apiGroup", str(ref, "apiGroup"), groups);
    if (!kind_ok)
        gw_ferr_not_supported(errs, "roleRef.kind", kind, k == BINDING ? any_role : cluster_role);
    if (*str(ref, "name") == '\0')
        gw_ferr_required(errs, "roleRef.name", NULL);
}

/* "subjects[<i>].<member>" into buf. */
static const char *
subject_field(char *buf, size_t len, size_t i, const char *member)
{
    snprintf(buf, len, "subjects[%zu].%s", i, member);
    return buf;
}

/* kube's ValidateRoleBindingSubject; a ClusterRoleBinding's service accounts need a
 * namespace. */
static void
validate_subject(const json_t *s, size_t i, bool namespaced, gw_field_errors_t *errs)
{
    static const char *const rbac_group[] = {RBAC_GROUP, NULL};
    static const char *const core_group[] = {"", NULL};
    static const char *const kinds[] = {"ServiceAccount", "User", "Group", NULL};
    const char *kind = str(s, "kind"), *group = str(s, "apiGroup");
    char f[64];

    if (*str(s, "name") == '\0')
        gw_ferr_required(errs, subject_field(f, sizeof(f), i, "name"), NULL);
    if (strcmp(kind, "ServiceAccount") == 0) {
        if (*group != '\0')
            gw_ferr_not_supported(errs, subject_field(f, sizeof(f), i, "apiGroup"), group,
                                  core_group);
        if (!namespaced && *str(s, "namespace") == '\0')
            gw_ferr_required(errs, subject_field(f, sizeof(f), i, "namespace"), NULL);
    } else if (strcmp(kind, "User") == 0 || strcmp(kind, "Group") == 0) {
        if (strcmp(group, RBAC_GROUP) != 0)
            gw_ferr_not_supported(errs, subject_field(f, sizeof(f), i, "apiGroup"), group,
                                  rbac_group);
    } else {
        gw_ferr_not_supported(errs, subject_field(f, sizeof(f), i, "kind"), kind, kinds);
    }
}

/* A binding's roleRef and subjects as kube validates them, and its roleRef unchanged on update
 * (old != NULL). */
static void
validate_binding(rbac_kind_t k, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    const json_t *ref = json_object_get(obj, "roleRef");
    size_t i;
    json_t *s;

    validate_role_ref(k, ref, errs);
    json_array_foreach(json_object_get(obj, "subjects"), i, s)
    {
        validate_subject(s, i, k == BINDING, errs);
    }
    if (old == NULL || json_equal(ref, json_object_get(old, "roleRef")))
        return;
    char *msg = gw_sprintf("Invalid value: rbac.RoleRef{APIGroup:\"%s\", Kind:\"%s\", "
                           "Name:\"%s\"}: cannot change roleRef",
                           str(ref, "apiGroup"), str(ref, "kind"), str(ref, "name"));
    gw_ferr_add(errs, "FieldValueInvalid", "roleRef", msg);
    free(msg);
}

/* ---- escalation --------------------------------------------------------------------------- */

static bool
privileged(const authn_user_t *u)
{
    for (size_t i = 0; u != NULL && i < u->n_groups; i++) {
        if (strcmp(u->groups[i], PRIVILEGED_GROUP) == 0)
            return true;
    }
    return false;
}

/* One escalation check: the verb (`escalate` or `bind`) is asked of the whole chain, which
 * may answer later (a webhook); then, if it is not granted, the rules must be covered. */
typedef struct {
    gw_req_t *r;
    rbac_kind_t kind;
    const json_t *obj;
    gw_fail_t *f;
    gw_strategy_done_fn done;
    void *arg;
    bool in_call, answered, allowed;
} esc_t;

static void after_verb(esc_t *e);

static void
verdict(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    esc_t *e = ctx;
    (void)reason, (void)error;

    e->answered = true;
    e->allowed = decision == AUTHZ_ALLOW;
    if (!e->in_call)
        after_verb(e);
}

/* Ask the chain for `verb` on the named RBAC resource; after_verb follows. */
static void
ask_verb(esc_t *e, const char *verb, const char *resource, const char *ns, const char *name)
{
    gw_req_t *r = e->r;
    authz_attrs_t a = {.user = r->user,
                       .verb = verb,
                       .resource_request = true,
                       .api_group = RBAC_GROUP,
                       .api_version = "*",
                       .resource = resource,
                       .subresource = "",
                       .namespace_ = ns,
                       .name = name,
                       .io = gw_worker_base(r->worker)};

    e->in_call = true;
    authz_authorize(r->authz, &a, verdict, e);
    e->in_call = false;
    if (e->answered)
        after_verb(e);
}

/* kube's ConfirmNoEscalation: false with the 403 recorded. */
static bool
confirm(gw_req_t *r, const char *name, const char *ns, const json_t *rules, const char *why,
        gw_fail_t *f)
{
    authz_rbac_snap_t *s = authz_rbac_current();
    char *missing = NULL;
    bool ok = s != NULL && authz_rbac_covers(s, r->user, ns, rules, &missing);

    if (!ok)
        gw_registry__fail(r, f, 403, "Forbidden", gw_registry__details(r, name),
                          "%s \"%s\" is forbidden: %s", gw_registry__qualified_resource(r), name,
                          why != NULL       ? why
                          : missing != NULL ? missing
                                            : "no RBAC policy yet");
    free(missing);
    authz_rbac_snap_unref(s);
    return ok;
}

/* Without `escalate`: a role's rules must be covered (all of them for an aggregating role). */
static bool
role_covered(esc_t *e)
{
    gw_req_t *r = e->r;
    const json_t *obj = e->obj;
    const char *name = str(gw_objmeta_get((json_t *)obj), "name");
    const char *ns = e->kind == ROLE ? str(gw_objmeta_get((json_t *)obj), "namespace") : "";

    if (json_is_object(json_object_get(obj, "aggregationRule"))) {
        json_t *all =
            json_pack("[{s:[s],s:[s],s:[s]},{s:[s],s:[s]}]", "apiGroups", "*", "resources", "*",
                      "verbs", "*", "nonResourceURLs", "*", "verbs", "*");
        bool ok = confirm(r, name, "", all,
                          "must have cluster-admin privileges to use the aggregationRule", e->f);
        json_decref(all);
        if (!ok)
            return false;
    }
    return confirm(r, name, ns, json_object_get(obj, "rules"), NULL, e->f);
}

/* Without `bind`: the referenced role must exist and its rules be covered. */
static bool
binding_covered(esc_t *e)
{
    gw_req_t *r = e->r;
    const char *name = str(gw_objmeta_get((json_t *)e->obj), "name");
    const char *ns = e->kind == BINDING ? str(gw_objmeta_get((json_t *)e->obj), "namespace") : "";
    const json_t *ref = json_object_get(e->obj, "roleRef");
    const char *kind = str(ref, "kind");
    authz_rbac_snap_t *s = authz_rbac_current();
    const json_t *rules = s != NULL ? authz_rbac_role_rules(s, ns, kind, str(ref, "name")) : NULL;
    bool ok = rules != NULL;

    if (!ok)
        gw_registry__fail(r, e->f, 400, "BadRequest", NULL,
                          "%s.rbac.authorization.k8s.io \"%s\" not found",
                          strcmp(kind, "Role") == 0 ? "role" : "clusterrole", str(ref, "name"));
    else
        ok = confirm(r, name, ns, rules, NULL, e->f);
    authz_rbac_snap_unref(s);
    return ok;
}

static void
after_verb(esc_t *e)
{
    bool role = e->kind == ROLE || e->kind == CLUSTER_ROLE;
    e->done(e->allowed || (role ? role_covered(e) : binding_covered(e)), e->arg);
}

/* An update that changes none of what the check is about needs none. */
static bool
unchanged(rbac_kind_t k, const json_t *obj, const json_t *old)
{
    static const char *const role_fields[] = {"rules", "aggregationRule"};
    static const char *const binding_fields[] = {"roleRef", "subjects"};
    const char *const *fields = k == ROLE || k == CLUSTER_ROLE ? role_fields : binding_fields;

    if (old == NULL)
        return false;
    for (size_t i = 0; i < 2; i++) {
        if (!json_equal(json_object_get(obj, fields[i]), json_object_get(old, fields[i])))
            return false;
    }
    return true;
}

/* Escalation prevention on a create (old NULL) or update of kind k: done(true) when the writer
 * may, else done(false) with kube's 403 (or 400 for a missing role) recorded in f. The
 * `escalate` or `bind` verb is asked of the whole chain, so done may run later. */
static void
escalation(rbac_kind_t k, gw_req_t *r, const json_t *obj, const json_t *old, gw_fail_t *f,
           gw_strategy_done_fn done, void *arg)
{
    const json_t *ref = json_object_get(obj, "roleRef");
    const char *ns =
        k == ROLE || k == BINDING ? str(gw_objmeta_get((json_t *)obj), "namespace") : "";
    esc_t *e;

    if (privileged(r->user) || unchanged(k, obj, old)) {
        done(true, arg);
        return;
    }
    e = gw_arena_calloc(r->arena, sizeof(*e));
    *e = (esc_t){.r = r, .kind = k, .obj = obj, .f = f, .done = done, .arg = arg};
    if (k == ROLE || k == CLUSTER_ROLE)
        ask_verb(e, "escalate", r->resource->name, ns, r->info.name);
    else
        ask_verb(e, "bind", strcmp(str(ref, "kind"), "Role") == 0 ? "roles" : "clusterroles", ns,
                 str(ref, "name"));
}

/* ---- the strategies ----------------------------------------------------------------------- */

static void
validate_rolebinding(const gw_resource_t *res, const json_t *obj, const json_t *old,
                     gw_field_errors_t *errs)
{
    (void)res;
    validate_binding(BINDING, obj, old, errs);
}

static void
validate_clusterrolebinding(const gw_resource_t *res, const json_t *obj, const json_t *old,
                            gw_field_errors_t *errs)
{
    (void)res;
    validate_binding(CLUSTER_BINDING, obj, old, errs);
}

static void
check_role(gw_req_t *r, const json_t *obj, const json_t *old, gw_fail_t *f,
           gw_strategy_done_fn done, void *arg)
{
    escalation(ROLE, r, obj, old, f, done, arg);
}

static void
check_clusterrole(gw_req_t *r, const json_t *obj, const json_t *old, gw_fail_t *f,
                  gw_strategy_done_fn done, void *arg)
{
    escalation(CLUSTER_ROLE, r, obj, old, f, done, arg);
}

static void
check_rolebinding(gw_req_t *r, const json_t *obj, const json_t *old, gw_fail_t *f,
                  gw_strategy_done_fn done, void *arg)
{
    escalation(BINDING, r, obj, old, f, done, arg);
}

static void
check_clusterrolebinding(gw_req_t *r, const json_t *obj, const json_t *old, gw_fail_t *f,
                         gw_strategy_done_fn done, void *arg)
{
    escalation(CLUSTER_BINDING, r, obj, old, f, done, arg);
}

/* Every RBAC kind: names are path segments, a PUT creates, writes pass the escalation check. */
#define RBAC_STRATEGY .name_rule = GW_NAME_PATH_SEGMENT, .create_on_update = true

const gw_strategy_t gw_strategy_role = {.name = "role", RBAC_STRATEGY, .check_write = check_role};

const gw_strategy_t gw_strategy_clusterrole = {
    .name = "clusterrole", RBAC_STRATEGY, .check_write = check_clusterrole};

const gw_strategy_t gw_strategy_rolebinding = {.name = "rolebinding",
                                               RBAC_STRATEGY,
                                               .validate = validate_rolebinding,
                                               .check_write = check_rolebinding};

const gw_strategy_t gw_strategy_clusterrolebinding = {.name = "clusterrolebinding",
                                                      RBAC_STRATEGY,
                                                      .validate = validate_clusterrolebinding,
                                                      .check_write = check_clusterrolebinding};
