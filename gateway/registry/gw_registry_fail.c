/*
 * Failures prepared ahead of the reply. Inside a guaranteed update the handler cannot answer
 * (the update must be committed or aborted first), so the Status is recorded and answered
 * from the update's completion.
 */
#include "gw_registry_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_err.h"

void
gw_registry__fail(gw_req_t *r, gw_fail_t *f, int code, const char *reason, json_t *details,
                  const char *fmt, ...)
{
    va_list ap;
    char *msg;

    if (f->code != 0) {
        json_decref(details);
        return;
    }
    va_start(ap, fmt);
    if (vasprintf(&msg, fmt, ap) < 0)
        abort();
    va_end(ap);
    f->code = code;
    f->reason = reason;
    f->message = gw_arena_strdup(r->arena, msg);
    free(msg);
    f->details = details;
    if (details != NULL)
        gw_arena_defer(r->arena, (void (*)(void *))json_decref, details);
}

/* The status and wording gw_reply_error gives, for the cases a handler records. */
void
gw_registry__fail_err(gw_req_t *r, gw_fail_t *f, int err, const char *name)
{
    const char *qr = gw_registry__qualified_resource(r);

    switch (err) {
    case GW_ENOTFOUND:
        gw_registry__fail(r, f, 404, "NotFound", gw_registry__details(r, name),
                          "%s \"%s\" not found", qr, name);
        break;
    case GW_EEXIST:
        gw_registry__fail(r, f, 409, "AlreadyExists", gw_registry__details(r, name),
                          "%s \"%s\" already exists", qr, name);
        break;
    case GW_ECONFLICT:
        gw_registry__fail(r, f, 409, "Conflict", gw_registry__details(r, name),
                          "Operation cannot be fulfilled on %s \"%s\": the object has been "
                          "modified; please apply your changes to the latest version and try "
                          "again",
                          qr, name);
        break;
    default:
        /* Transport and internal errors: answered by gw_reply_error at reply time. */
        f->code = err < 0 ? err : -err;
        f->reason = NULL;
        f->message = gw_arena_strdup(r->arena, name);
        break;
    }
}

void
gw_registry__fail_invalid(gw_req_t *r, gw_fail_t *f, const char *group, const char *kind,
                          const char *name, gw_field_errors_t *errs)
{
    char *summary = gw_ferr_summary(errs);
    json_t *details = json_pack("{s:s,s:s,s:O}", "name", name, "kind", kind, "causes",
                                errs->causes ? errs->causes : json_array());
    const char *qk = group[0] ? gw_arena_sprintf(r->arena, "%s.%s", kind, group) : kind;

    if (group[0] != '\0')
        json_object_set_new(details, "group", json_string(group));
    if (name[0] == '\0')
        json_object_del(details, "name");
    gw_registry__fail(r, f, 422, "Invalid", details, "%s \"%s\" is invalid: %s", qk, name, summary);
    free(summary);
    gw_ferr_clear(errs);
}

void
gw_registry__reply_fail(gw_req_t *r, const gw_fail_t *f)
{
    if (f->code < 0) {
        gw_reply_error(r, f->code, f->message);
        return;
    }
    gw_reply_status(r, f->code, f->reason, json_incref(f->details), "%s", f->message);
}

json_t *
gw_registry__details(gw_req_t *r, const char *name)
{
    json_t *d = json_object();

    if (name != NULL && name[0] != '\0')
        json_object_set_new(d, "name", json_string(name));
    if (r->resource->group[0] != '\0')
        json_object_set_new(d, "group", json_string(r->resource->group));
    json_object_set_new(d, "kind", json_string(r->resource->name));
    return d;
}

const char *
gw_registry__qualified_resource(gw_req_t *r)
{
    if (r->resource->group[0] == '\0')
        return r->resource->name;
    return gw_arena_sprintf(r->arena, "%s.%s", r->resource->name, r->resource->group);
}

const char *
gw_registry__qualified_kind(gw_req_t *r)
{
    if (r->resource->group[0] == '\0')
        return r->resource->kind;
    return gw_arena_sprintf(r->arena, "%s.%s", r->resource->kind, r->resource->group);
}

void
gw_registry__reply_write_error(gw_req_t *r, int err, const char *name)
{
    const char *why = err == GW_EINTERNAL ? gw_store_value_error() : NULL;
    gw_fail_t f = {0};

    if (why == NULL) {
        gw_reply_error(r, err, name);
        return;
    }
    gw_registry__fail_unreadable(r, &f, why); /* kube's NewInternalError of the reason */
    gw_registry__reply_fail(r, &f);
}

void
gw_registry__fail_unreadable(gw_req_t *r, gw_fail_t *f, const char *why)
{
    gw_registry__fail(r, f, 500, "InternalError",
                      json_pack("{s:[{s:s}]}", "causes", "message", why),
                      "Internal error occurred: %s", why);
}
