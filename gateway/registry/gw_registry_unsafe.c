/*
 * The unsafe deletion of a corrupt object (feature gate AllowUnsafeMalformedObjectDeletion,
 * DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential), as kube-apiserver 1.32
 * runs it: the caller must also be allowed the verb `unsafe-delete-ignore-read-errors` on the
 * object; the object must really be unreadable (an object that decodes is refused: the option
 * is for nothing else); it is then removed from etcd as stored, without preconditions,
 * finalizers or graceful deletion, since none of them can be read.
 */
#include "gw_registry_int.h"

#include <stdlib.h>
#include <string.h>

#include "authz.h"
#include "gw_err.h"
#include "gw_log.h"
#include "gw_server.h"

#define UNSAFE_VERB "unsafe-delete-ignore-read-errors"
#define OPTION "ignoreStoreReadErrorWithClusterBreakingPotential"

typedef struct {
    gw_req_t *r;
    const char *name;
    const char *key;
    gw_fail_t fail;
    bool in_call, answered, allowed;
    const char *reason, *error;
} unsafe_t;

static void
reply_removed(gw_req_t *r, const char *name)
{
    /* kube has no object to return, so its handler fills in a Status naming the kind. */
    json_t *status = json_pack("{s:s,s:s,s:{},s:s,s:{s:s,s:s},s:i}", "kind", "Status", "apiVersion",
                               "v1", "metadata", "status", "Success", "details", "name", name,
                               "kind", r->resource->kind, "code", 200);
    gw_reply_json(r, 200, status);
}

static void
removed(int err, const gw_obj_t *obj, void *ctx)
{
    unsafe_t *u = ctx;

    (void)obj;
    if (err != 0) {
        gw_registry__fail_err(u->r, &u->fail, err, u->name);
        gw_registry__reply_fail(u->r, &u->fail);
        return;
    }
    gw_log_warn(u->r->audit_id, "unsafe deletion of the unreadable %s \"%s\"",
                gw_registry__qualified_resource(u->r), u->name);
    reply_removed(u->r, u->name);
}

/* An object that decodes is refused with kube's 422 on the option. */
static void
refuse_readable(unsafe_t *u)
{
    gw_field_errors_t errs = {0};
    const gw_resource_t *res = u->r->resource;

    gw_ferr_add(&errs, "FieldValueInvalid", OPTION,
                "Invalid value: true: is exclusively used to delete corrupt object(s), try "
                "again by removing this option");
    gw_registry__fail_invalid(u->r, &u->fail, res->group, res->name, u->name, &errs);
    gw_registry__reply_fail(u->r, &u->fail);
}

static void
read_done(int err, const gw_obj_t *obj, void *ctx)
{
    unsafe_t *u = ctx;
    json_t *doc = NULL;
    int rc;

    /* a value no provider decrypts is corrupt even when its bytes parse (plain JSON under a
     * configuration without identity), as kube's transformer error makes it */
    if (err == 0 && obj->unreadable == NULL)
        doc = gw_registry__parse_stored((const char *)obj->value, obj->value_len, obj->mod_revision,
                                        NULL);
    if (err != 0) {
        gw_registry__fail_err(u->r, &u->fail, err, u->name);
        gw_registry__reply_fail(u->r, &u->fail);
    } else if (doc != NULL) {
        json_decref(doc);
        refuse_readable(u);
    } else if ((rc = gw_store_delete(u->r->store, u->key, obj->mod_revision, removed, u)) != 0) {
        removed(rc, NULL, u);
    }
}

static void
start_read(unsafe_t *u)
{
    int rc = gw_store_get(u->r->store, u->key, 0, read_done, u);
    if (rc != 0)
        read_done(rc, NULL, u);
}

/* After the check of the extra verb: a 403 in kube's admission words, or on to the read. */
static void
go_on(unsafe_t *u)
{
    gw_req_t *r = u->r;

    if (u->allowed) {
        start_read(u);
        return;
    }
    const char *why = u->error != NULL ? "error while checking permission for \"" UNSAFE_VERB "\", "
                                       : "not permitted to do \"" UNSAFE_VERB "\", reason: ";
    gw_registry__fail(r, &u->fail, 403, "Forbidden", gw_registry__details(r, u->name),
                      "%s \"%s\" is forbidden: %s%s", gw_registry__qualified_resource(r), u->name,
                      why, u->error != NULL ? u->error : u->reason);
    gw_registry__reply_fail(r, &u->fail);
}

static void
authorized(authz_decision_t decision, const char *reason, const char *error, void *ctx)
{
    unsafe_t *u = ctx;

    u->answered = true;
    u->allowed = decision == AUTHZ_ALLOW;
    u->reason = gw_arena_strdup(u->r->arena, reason != NULL ? reason : "");
    u->error = error != NULL ? gw_arena_strdup(u->r->arena, error) : NULL;
    if (!u->in_call)
        go_on(u);
}

void
gw_registry__unsafe_delete(gw_req_t *r, const char *name)
{
    unsafe_t *u = gw_arena_calloc(r->arena, sizeof(*u));
    const gw_reqinfo_t *i = &r->info;
    authz_attrs_t attrs = {.user = r->user,
                           .verb = UNSAFE_VERB,
                           .resource_request = true,
                           .path = i->path,
                           .api_group = i->group,
                           .api_version = i->version,
                           .resource = i->resource,
                           .subresource = i->subresource,
                           .namespace_ = i->namespace_,
                           .name = name,
                           .io = gw_worker_base(r->worker)};

    u->r = r;
    u->name = name;
    u->key = gw_registry__object_key(r, name);
    if (u->key == NULL) {
        gw_registry__fail(r, &u->fail, 400, "BadRequest", NULL, "Name parameter invalid: %s", name);
        gw_registry__reply_fail(r, &u->fail);
        return;
    }
    u->in_call = true;
    authz_authorize(r->authz, &attrs, authorized, u);
    u->in_call = false;
    if (u->answered)
        go_on(u);
}
