/*
 * OwnerReferencesPermissionEnforcement (plugin/pkg/admission/gc), a validating plugin on creates
 * and updates: changing an object's ownerReferences on an update needs `delete` on the object
 * (its creator could as well never have created it, so a create needs nothing), and a reference
 * that newly blocks its owner's deletion (blockOwnerDeletion true, new or turned from unset or
 * false) needs `update` on the owner's `finalizers` subresource: asked once for every resource
 * first, then per blocking reference, its owner resolved from its apiVersion and kind through
 * the catalog (kube's RESTMapper). pods/status is exempt (its strategy keeps ownerReferences).
 * Refusals are kube's 403s with the authorizer's reason and error as kube prints them.
 */
#include "gw_admission.h"

#include <stdio.h>
#include <string.h>

#include "authz.h"
#include "gw_server.h"

static bool
on_write(gw_admission_op_t op)
{
    return op == GW_ADMISSION_CREATE || op == GW_ADMISSION_UPDATE;
}

static const json_t *
owner_refs(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "metadata"), "ownerReferences");
}

static const char *
sor(const json_t *o, const char *member)
{
    const char *s = json_string_value(json_object_get(o, member));
    return s != NULL ? s : "";
}

/* Equal references, a member set to null being absent (Go's nil pointer). */
static bool
same_ref(const json_t *a, const json_t *b)
{
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)a, k, v)
    {
        const json_t *w = json_object_get(b, k);
        if (json_is_null(v) ? w != NULL && !json_is_null(w) : w == NULL || !json_equal(v, w))
            return false;
    }
    json_object_foreach((json_t *)b, k, v)
    {
        if (!json_is_null(v) && json_object_get(a, k) == NULL)
            return false;
    }
    return true;
}

/* isChangingOwnerReference. */
static bool
changing(const json_t *obj, const json_t *old)
{
    const json_t *refs = owner_refs(obj), *old_refs = owner_refs(old);

    if (old == NULL)
        return json_array_size(refs) > 0;
    if (json_array_size(refs) != json_array_size(old_refs))
        return true;
    for (size_t i = 0; i < json_array_size(refs); i++)
        if (!same_ref(json_array_get(refs, i), json_array_get(old_refs, i)))
            return true;
    return false;
}

/* newBlockingOwnerDeletionRefs: the blocking references the old object did not have blocking
 * (by uid, the last of a uid counting, as kube's index keeps it), in order. A new array. */
static json_t *
new_blocking(const json_t *obj, const json_t *old)
{
    json_t *out = json_array();
    const json_t *old_refs = owner_refs(old);
    size_t i;
    const json_t *ref;

    json_array_foreach(owner_refs(obj), i, ref)
    {
        const json_t *was = NULL;
        if (!json_is_true(json_object_get(ref, "blockOwnerDeletion")))
            continue;
        for (size_t j = 0; old != NULL && j < json_array_size(old_refs); j++)
            if (strcmp(sor(json_array_get(old_refs, j), "uid"), sor(ref, "uid")) == 0)
                was = json_array_get(old_refs, j);
        if (old == NULL || was == NULL || !json_is_true(json_object_get(was, "blockOwnerDeletion")))
            json_array_append(out, (json_t *)ref);
    }
    return out;
}

/* ---- the authorizer's rounds -------------------------------------------------------------- */

typedef enum { ASK_DELETE, ASK_ANY_FINALIZERS, ASK_OWNER } step_t;

/* One admission's checks, in the request's arena. */
typedef struct {
    const gw_admission_attrs_t *a;
    json_t *blocking; /* the new blocking references (owned) */
    size_t next;      /* the next reference to ask about */
    step_t step;
    gw_admission_done_fn done;
    void *arg;
    bool in_call, answered;
    authz_decision_t decision;
    const char *reason, *error;
} check_t;

static void run(check_t *c);

static void
finish(check_t *c, gw_admission_err_t *err)
{
    json_decref(c->blocking);
    c->done(err, c->arg);
}

static void
verdict(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    check_t *c = ctx;
    gw_arena_t *arena = c->a->req->arena;

    c->answered = true;
    c->decision = decision;
    /* kube prints the reason and the error with %v: "" and <nil> when there are none */
    c->reason = gw_arena_strdup(arena, reason != NULL ? reason : "");
    c->error = gw_arena_strdup(arena, error != NULL && error[0] != '\0' ? error : "<nil>");
    if (!c->in_call)
        run(c);
}

static void
ask(check_t *c, authz_attrs_t *at)
{
    gw_req_t *r = c->a->req;

    at->user = r->user;
    at->resource_request = true;
    at->io = gw_worker_base(r->worker);
    c->answered = false;
    c->in_call = true;
    authz_authorize(r->authz, at, verdict, c);
    c->in_call = false;
    if (c->answered)
        run(c);
}

/* Ask about the next blocking reference's owner, or admit when none is left. */
static void
ask_owner(check_t *c)
{
    const gw_admission_attrs_t *a = c->a;
    const json_t *ref = json_array_get(c->blocking, c->next);
    const char *av = sor(ref, "apiVersion"), *slash = strchr(av, '/');
    const char *group = "", *version = av;
    const gw_resource_t *owner;

    if (ref == NULL) {
        finish(c, NULL);
        return;
    }
    c->next++;
    if (slash != NULL) {
        group = gw_arena_strndup(a->req->arena, av, (size_t)(slash - av));
        version = slash + 1;
    }
    owner = slash != NULL && strchr(slash + 1, '/') != NULL
                ? NULL
                : gw_catalog_find_kind(a->req->catalog, group, version, sor(ref, "kind"));
    if (owner == NULL) {
        const char *why;
        if (slash != NULL && strchr(slash + 1, '/') != NULL)
            why = gw_arena_sprintf(a->req->arena, "unexpected GroupVersion string: %s", av);
        else
            why = gw_arena_sprintf(a->req->arena, "no matches for kind \"%s\" in version \"%s\"",
                                   sor(ref, "kind"), av);
        finish(c, gw_admission_forbidden(a,
                                         "cannot set blockOwnerDeletion in this case because "
                                         "cannot find RESTMapping for APIVersion %s Kind %s: %s",
                                         av, sor(ref, "kind"), why));
        return;
    }
    ask(c, &(authz_attrs_t){.verb = "update",
                            .api_group = owner->group,
                            .api_version = owner->version,
                            .resource = owner->name,
                            .subresource = "finalizers",
                            .namespace_ = owner->namespaced ? a->namespace_ : "",
                            .name = gw_arena_strdup(a->req->arena, sor(ref, "name"))});
}

/* The answer to the question of c->step came; go on. */
static void
run(check_t *c)
{
    bool allowed = c->decision == AUTHZ_ALLOW;

    if (c->step == ASK_DELETE && !allowed) {
        finish(c, gw_admission_forbidden(
                      c->a, "cannot set an ownerRef on a resource you can't delete: %s, %s",
                      c->reason, c->error));
    } else if (c->step == ASK_DELETE && json_array_size(c->blocking) == 0) {
        finish(c, NULL);
    } else if (c->step == ASK_DELETE) {
        c->step = ASK_ANY_FINALIZERS;
        ask(c, &(authz_attrs_t){.verb = "update",
                                .api_group = "*",
                                .api_version = "*",
                                .resource = "*",
                                .subresource = "finalizers",
                                .namespace_ = c->a->namespace_,
                                .name = "*"});
    } else if (c->step == ASK_ANY_FINALIZERS && allowed) {
        finish(c, NULL); /* may finalize anything: no owner needs resolving */
    } else if (c->step == ASK_OWNER && !allowed) {
        finish(c, gw_admission_forbidden(c->a,
                                         "cannot set blockOwnerDeletion if an ownerReference "
                                         "refers to a resource you can't set finalizers on: %s, %s",
                                         c->reason, c->error));
    } else {
        c->step = ASK_OWNER;
        ask_owner(c);
    }
}

static void
validate(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg)
{
    const gw_resource_t *res = a->resource;
    check_t *c;

    if ((res->group[0] == '\0' && strcmp(res->name, "pods") == 0 &&
         strcmp(a->subresource, "status") == 0) ||
        a->req->authz == NULL || !changing(a->object, a->old_object)) {
        done(NULL, arg);
        return;
    }
    c = gw_arena_calloc(a->req->arena, sizeof(*c));
    *c = (check_t){.a = a, .done = done, .arg = arg, .step = ASK_DELETE};
    c->blocking = new_blocking(a->object, a->old_object);
    if (a->op == GW_ADMISSION_CREATE) {
        /* a creator could have not created it: only blocking references are asked about */
        c->decision = AUTHZ_ALLOW;
        run(c);
        return;
    }
    ask(c, &(authz_attrs_t){.verb = "delete",
                            .api_group = res->group,
                            .api_version = res->version,
                            .resource = res->name,
                            .subresource = a->subresource,
                            .namespace_ = a->namespace_,
                            .name = a->name});
}

const gw_admission_plugin_t gw_admission_owner_references = {
    .name = "OwnerReferencesPermissionEnforcement", .handles = on_write, .validate = validate};
