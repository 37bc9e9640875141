/*
 * Field ownership on every write: the scope a request's managedFields entries are recorded
 * under (its apiVersion, subresource and the top-level fields it never owns), and the update
 * tracking that runs on each create, PUT and non-apply PATCH once the object is prepared
 * (kube records it on the decoded and defaulted object; system fields are never owned).
 */
#include "gw_registry_int.h"

#include "gw_objmeta.h"

/* kube's reset fields: a write to the main resource of a kind with a status subresource
 * never owns status; a status write never owns spec. */
static const char *const reset_status[] = {"status", NULL};
static const char *const reset_spec[] = {"spec", NULL};

void
gw_registry__ssa_scope(gw_req_t *r, const gw_subres_strategy_t *sub, gw_ssa_scope_t *s,
                       char now[21])
{
    const gw_resource_t *res = r->resource;

    gw_time_now(now);
    *s = (gw_ssa_scope_t){
        .schema = res->schema,
        .api_version = gw_registry__api_version(r),
        .kind = res->kind,
        .subresource = sub != NULL ? sub->name : NULL,
        .now = now,
    };
    if (sub == NULL && gw_registry__has_status(res))
        s->reset_fields = reset_status;
    else if (sub != NULL && sub->status_write)
        s->reset_fields = reset_spec;
}

void
gw_registry__track(gw_req_t *r, const gw_subres_strategy_t *sub, const gw_write_opts_t *o,
                   const json_t *live, json_t *obj)
{
    gw_ssa_scope_t s;
    char now[21];

    gw_registry__ssa_scope(r, sub, &s, now);
    gw_ssa_update(&s, live, obj, o->field_manager);
}
