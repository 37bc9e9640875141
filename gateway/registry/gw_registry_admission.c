/*
 * The registry's side of the admission chain: the chain kgate was started with, the
 * attributes of a request's write, and a plugin's refusal as the request's failure.
 */
#include "gw_registry_int.h"

#include "gw_registry.h"

static const gw_admission_t *chain;

void
gw_registry_set_admission(const gw_admission_t *c)
{
    chain = c;
    /* plugins that replace the object default it as the decoded body was */
    gw_admission_set_defaulter(gw_registry__default);
}

const gw_admission_t *
gw_registry__admission(void)
{
    return chain;
}

/* The operation's options as kube hands them to admission (meta.k8s.io/v1 *Options). */
static json_t *
options_doc(const char *kind, const gw_write_opts_t *o)
{
    json_t *doc = json_pack("{s:s,s:s}", "kind", kind, "apiVersion", "meta.k8s.io/v1");

    if (o == NULL)
        return doc;
    if (o->dry_run)
        json_object_set_new(doc, "dryRun", json_pack("[s]", "All"));
    if (o->manager_given)
        json_object_set_new(doc, "fieldManager", json_string(o->field_manager));
    return doc;
}

void
gw_registry__admission_attrs(gw_req_t *r, gw_admission_attrs_t *a, gw_admission_op_t op,
                             const char *sub, const char *name, json_t *obj, const json_t *old,
                             const char *options_kind, const gw_write_opts_t *opts)
{
    json_t *options = options_doc(options_kind, opts);

    gw_arena_defer(r->arena, (void (*)(void *))json_decref, options);
    *a = (gw_admission_attrs_t){.op = op,
                                .req = r,
                                .resource = r->resource,
                                .subresource = sub != NULL ? sub : "",
                                .namespace_ = gw_registry__namespace(r),
                                .name = name != NULL ? name : "",
                                .object = obj,
                                .old_object = old,
                                .options = options,
                                .dry_run = opts != NULL && opts->dry_run};
}

void
gw_registry__fail_admission(gw_req_t *r, gw_fail_t *f, gw_admission_err_t *e, const char *name)
{
    if (e->err != 0) {
        json_decref(e->details);
        gw_registry__fail_err(r, f, e->err, name);
        return;
    }
    gw_registry__fail(r, f, e->code, e->reason, e->details, "%s", e->message);
}

/* ---- the POSTs of subresources --------------------------------------------------------------- */

typedef struct {
    gw_req_t *r;
    gw_admission_attrs_t a;
    void (*next)(void *arg);
    void *arg;
} sub_create_t;

static bool
refused(sub_create_t *sc, gw_admission_err_t *e)
{
    gw_fail_t f = {0};

    if (e == NULL)
        return false;
    gw_registry__fail_admission(sc->r, &f, e, sc->a.name);
    gw_registry__reply_fail(sc->r, &f);
    return true;
}

static void
sub_validated(gw_admission_err_t *e, void *arg)
{
    sub_create_t *sc = arg;

    if (!refused(sc, e))
        sc->next(sc->arg);
}

static void
sub_admitted(gw_admission_err_t *e, void *arg)
{
    sub_create_t *sc = arg;

    if (!refused(sc, e))
        gw_admission_validate(chain, &sc->a, sub_validated, sc);
}

void
gw_registry__admit_create(gw_req_t *r, json_t *body, const gw_write_opts_t *opts,
                          void (*next)(void *arg), void *arg)
{
    sub_create_t *sc = gw_arena_calloc(r->arena, sizeof(*sc));
    const char *sub = r->info.subresource;

    sc->r = r;
    sc->next = next;
    sc->arg = arg;
    gw_registry__admission_attrs(r, &sc->a, GW_ADMISSION_CREATE, sub[0] ? sub : NULL,
                                 sub[0] ? r->info.name : gw_objmeta_str(body, "name"), body, NULL,
                                 "CreateOptions", opts);
    gw_admission_admit(chain, &sc->a, sub_admitted, sc);
}
