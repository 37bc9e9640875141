/*
 * The strategies of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * (pkg/registry/admissionregistration/validatingadmissionpolicy{,binding}/strategy.go):
 * conditional updates, the policy's status reset on create and kept on main-resource updates
 * (the generic store's, through the status subresource the catalog serves), Validate on create,
 * ValidateUpdate on main-resource updates, the status subresource's own ValidateUpdate, and
 * the authorization of what they refer to (authz.go: a policy's writer must be able to get every
 * object of its paramKind, a binding's writer the object its paramRef names). The rules
 * themselves are gw_admission_policy_valid.h's.
 */
#include "gw_admission_policy_int.h"
#include "gw_admission_policy_valid.h"
#include "gw_registry_int.h"

#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_server.h"

#define PRIVILEGED_GROUP "system:masters"

/* Validate: a create only; an update of the main resource is ValidateUpdate's and one of the
 * status the subresource's. */
static void
policy_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                gw_field_errors_t *errs)
{
    (void)res;
    if (old == NULL)
        gw_vap_validate(obj, errs);
}

static void
policy_validate_update(const gw_resource_t *res, const json_t *obj, const json_t *old,
                       gw_field_errors_t *errs)
{
    (void)res;
    gw_vap_validate_update(obj, old, errs);
}

static void
status_validate_update(gw_upd_t *u, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    (void)u;
    (void)old;
    gw_vap_validate_status(obj, errs);
}

static const gw_subres_strategy_t policy_subresources[] = {
    {.name = "status",
     .form = GW_SUBRES_STATUS,
     .status_write = true,
     .validate_update = status_validate_update},
};

/* ---- paramKind authorization ---------------------------------------------------------------- */

/* One authorization of a policy's paramKind, answered possibly later (a webhook). */
typedef struct {
    gw_req_t *r;
    const json_t *obj;
    gw_fail_t *f;
    gw_strategy_done_fn done;
    void *arg;
    bool in_call, answered, allowed;
    bool binding; /* a binding's paramRef, else a policy's paramKind */
} pk_check_t;

static const char *
sor(const json_t *o, const char *member)
{
    const char *s = json_string_value(json_object_get(o, member));
    return s != NULL ? s : "";
}

/* EscalationAllowed: system:masters skips the check. */
static bool
privileged(const authn_user_t *u)
{
    for (size_t i = 0; u != NULL && i < u->n_groups; i++)
        if (strcmp(u->groups[i], PRIVILEGED_GROUP) == 0)
            return true;
    return false;
}

/* Go's %v of the request's *user.DefaultInfo: &{name uid [groups] map[key:[values]]}. */
static char *
go_user(const authn_user_t *u)
{
    char *out = gw_sprintf("&{%s %s [", u->name, u->uid != NULL ? u->uid : ""), *next;
    size_t *order = gw_calloc(u->n_extra + 1, sizeof(*order));

    for (size_t i = 0; i < u->n_groups; i++) {
        next = gw_sprintf("%s%s%s", out, i ? " " : "", u->groups[i]);
        free(out);
        out = next;
    }
    next = gw_sprintf("%s] map[", out);
    free(out);
    out = next;
    /* Go prints a map's keys sorted */
    for (size_t i = 0; i < u->n_extra; i++) {
        size_t j = i;
        order[i] = i;
        while (j > 0 && strcmp(u->extra[order[j - 1]].key, u->extra[i].key) > 0) {
            order[j] = order[j - 1];
            order[--j] = i;
        }
    }
    for (size_t i = 0; i < u->n_extra; i++) {
        const authn_extra_t *e = &u->extra[order[i]];
        next = gw_sprintf("%s%s%s:[", out, i ? " " : "", e->key);
        free(out);
        out = next;
        for (size_t k = 0; k < e->n_values; k++) {
            next = gw_sprintf("%s%s%s", out, k ? " " : "", e->values[k]);
            free(out);
            out = next;
        }
        next = gw_sprintf("%s]", out);
        free(out);
        out = next;
    }
    next = gw_sprintf("%s]}", out);
    free(out);
    free(order);
    return out = next;
}

static void
pk_after(pk_check_t *c)
{
    const json_t *pk = json_object_get(json_object_get(c->obj, "spec"), "paramKind");
    gw_field_errors_t errs = {0};
    char *who, *msg;

    if (c->allowed) {
        c->done(true, c->arg);
        return;
    }
    who = go_user(c->r->user);
    if (c->binding)
        msg = gw_sprintf("Forbidden: user %s does not have \"get\" permission on the object "
                         "referenced by paramRef",
                         who);
    else
        msg = gw_sprintf("Forbidden: user %s must have \"get\" permission on all objects of the "
                         "referenced paramKind (kind=%s, apiVersion=%s)",
                         who, sor(pk, "kind"), sor(pk, "apiVersion"));
    gw_ferr_add(&errs, "FieldValueForbidden", c->binding ? "spec.paramRef" : "spec.paramKind", msg);
    gw_registry__fail_invalid(c->r, c->f, c->r->resource->group, c->r->resource->kind,
                              sor(json_object_get(c->obj, "metadata"), "name"), &errs);
    free(msg);
    free(who);
    c->done(false, c->arg);
}

static void
pk_verdict(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    pk_check_t *c = ctx;
    (void)reason, (void)error;

    c->answered = true;
    c->allowed = decision == AUTHZ_ALLOW;
    if (!c->in_call)
        pk_after(c);
}

/* The group, version and resource to authorize: "*" where the apiVersion does not parse (or
 * the kind is not served), as kube's authorize defaults them. Strings in r's arena. */
static void
pk_target(gw_req_t *r, const json_t *pk, const char **group, const char **version,
          const char **resource)
{
    const char *av = sor(pk, "apiVersion"), *slash = strchr(av, '/');
    const gw_resource_t *res;

    *group = *version = *resource = "*";
    if (av[0] == '\0' || strcmp(av, "/") == 0) {
        *group = *version = "";
    } else if (slash == NULL) {
        *group = "";
        *version = av;
    } else if (strchr(slash + 1, '/') == NULL) {
        *group = gw_arena_strndup(r->arena, av, (size_t)(slash - av));
        *version = slash + 1;
    } else {
        return;
    }
    res = gw_catalog_find_kind(r->catalog, *group, *version, sor(pk, "kind"));
    if (res != NULL)
        *resource = res->name;
}

/* Ask the chain; pk_after follows, now or later. */
static void
pk_ask(pk_check_t *c, const authz_attrs_t *a)
{
    c->in_call = true;
    authz_authorize(c->r->authz, a, pk_verdict, c);
    c->in_call = false;
    if (c->answered)
        pk_after(c);
}

/* authorizeCreate / authorizeUpdate: a paramKind that is new or changed needs `get` on every
 * object of its kind. */
void
gw_policy__check_param_kind(gw_req_t *r, const json_t *obj, const json_t *old, gw_fail_t *f,
                            gw_strategy_done_fn done, void *arg)
{
    const json_t *pk = json_object_get(json_object_get(obj, "spec"), "paramKind");
    const json_t *opk = json_object_get(json_object_get(old, "spec"), "paramKind");
    pk_check_t *c;
    authz_attrs_t a = {.user = r->user,
                       .verb = "get",
                       .resource_request = true,
                       .subresource = "",
                       .namespace_ = "*",
                       .name = "*",
                       .io = gw_worker_base(r->worker)};

    if (!json_is_object(pk) || privileged(r->user) ||
        (json_is_object(opk) && strcmp(sor(pk, "kind"), sor(opk, "kind")) == 0 &&
         strcmp(sor(pk, "apiVersion"), sor(opk, "apiVersion")) == 0)) {
        done(true, arg);
        return;
    }
    pk_target(r, pk, &a.api_group, &a.api_version, &a.resource);
    c = gw_arena_calloc(r->arena, sizeof(*c));
    *c = (pk_check_t){.r = r, .obj = obj, .f = f, .done = done, .arg = arg};
    pk_ask(c, &a);
}

const gw_strategy_t gw_strategy_validating_admission_policy = {
    .name = "validatingadmissionpolicy",
    .conditional_update = true,
    .validate = policy_validate,
    .validate_update = policy_validate_update,
    .check_write = gw_policy__check_param_kind,
    .subresources = policy_subresources,
    .n_subresources = sizeof(policy_subresources) / sizeof(policy_subresources[0]),
};

/* A binding validates alike on create and update. */
static void
binding_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                 gw_field_errors_t *errs)
{
    (void)res;
    (void)old;
    gw_vapb_validate(obj, errs);
}

/* The binding's policy was read (or not): authorize `get` on the paramRef's object, of the
 * policy's paramKind when it has one, else of every group, version and resource. */
static void
policy_read(int err, const gw_obj_t *obj, void *ctx)
{
    pk_check_t *c = ctx;
    gw_req_t *r = c->r;
    const json_t *ref = json_object_get(json_object_get(c->obj, "spec"), "paramRef");
    json_t *policy =
        err == 0 ? gw_registry__parse_stored((const char *)obj->value, obj->value_len, 0, NULL)
                 : NULL;
    const json_t *pk = json_object_get(json_object_get(policy, "spec"), "paramKind");
    authz_attrs_t a = {.user = r->user,
                       .verb = "get",
                       .resource_request = true,
                       .subresource = "",
                       .namespace_ = gw_arena_strdup(r->arena, sor(ref, "namespace")),
                       .name = gw_arena_strdup(r->arena, sor(ref, "name")),
                       .api_group = "*",
                       .api_version = "*",
                       .resource = "*",
                       .io = gw_worker_base(r->worker)};

    if (json_is_object(pk)) {
        const char *g, *v, *res;
        pk_target(r, pk, &g, &v, &res);
        a.api_group = gw_arena_strdup(r->arena, g);
        a.api_version = gw_arena_strdup(r->arena, v);
        a.resource = gw_arena_strdup(r->arena, res);
    }
    json_decref(policy);
    pk_ask(c, &a);
}

/* The binding's authorizeCreate / authorizeUpdate: a new or changed paramRef (or policy)
 * needs `get` on the object it refers to. */
void
gw_policy__check_param_ref(gw_req_t *r, const json_t *obj, const json_t *old, gw_fail_t *f,
                           gw_strategy_done_fn done, void *arg)
{
    const json_t *spec = json_object_get(obj, "spec"), *ospec = json_object_get(old, "spec");
    const json_t *ref = json_object_get(spec, "paramRef"),
                 *oref = json_object_get(ospec, "paramRef");
    pk_check_t *c;
    char *path, *key;
    int rc;

    /* kube compares the ParamRef structs, whose selector and parameterNotFoundAction are
     * pointers: set, they never compare equal */
    if (!json_is_object(ref) || privileged(r->user) ||
        (json_is_object(oref) && json_equal(ref, oref) &&
         json_object_get(ref, "selector") == NULL &&
         json_object_get(ref, "parameterNotFoundAction") == NULL &&
         strcmp(sor(spec, "policyName"), sor(ospec, "policyName")) == 0)) {
        done(true, arg);
        return;
    }
    c = gw_arena_calloc(r->arena, sizeof(*c));
    *c = (pk_check_t){.r = r, .obj = obj, .f = f, .done = done, .arg = arg, .binding = true};
    /* the binding's own kind of policy */
    path = gw_store_resource_path(r->resource->group,
                                  strncmp(r->resource->name, "mutating", 8) == 0
                                      ? "mutatingadmissionpolicies"
                                      : "validatingadmissionpolicies",
                                  false);
    key = gw_store_object_key(path, NULL, sor(spec, "policyName"));
    free(path);
    rc = key != NULL ? gw_store_get(r->store, key, 0, policy_read, c) : GW_EINVAL;
    free(key);
    if (rc != 0)
        policy_read(rc, NULL, c);
}

const gw_strategy_t gw_strategy_validating_admission_policy_binding = {
    .name = "validatingadmissionpolicybinding",
    .conditional_update = true,
    .validate = binding_validate,
    .check_write = gw_policy__check_param_ref,
};
