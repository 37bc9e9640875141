#ifndef GATEWAY_REGISTRY_GW_STRATEGY_H
#define GATEWAY_REGISTRY_GW_STRATEGY_H

/*
 * Per-kind strategies: what kube-apiserver's RESTCreateStrategy, RESTUpdateStrategy and
 * RESTDeleteStrategy (pkg/registry/<group>/<kind>/strategy.go) decide for one kind, as a const
 * table of data and hooks. A NULL hook is the generic store's behaviour; a kind with no rules
 * of its own has gw_strategy_generic. Each resource's strategy is resolved once, at start-up
 * (gw_strategy_resolve), into gw_resource_t.strategy; the engines (create, update, patch,
 * delete, subresources) ask the strategy instead of comparing names.
 *
 * Hooks run on the request's worker; they are pure functions of their arguments unless said.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "authn.h"
#include "gw_catalog.h"
#include "gw_objmeta.h"
#include "gw_store.h"

typedef struct gw_req gw_req_t;
typedef struct gw_upd gw_upd_t;
struct gw_fail;

/** An asynchronous check's answer: ok, or false with the failure recorded. */
typedef void (*gw_strategy_done_fn)(bool ok, void *arg);

/**
 * A check of a write that may wait on an authorizer (RBAC's escalation check): done(true) when the
 * writer may, else done(false) with kube's answer recorded in f. old is NULL on a create. done may
 * run later, on r's worker; obj and old must live until then.
 */
typedef void (*gw_strategy_check_fn)(gw_req_t *r, const json_t *obj, const json_t *old,
                                     struct gw_fail *f, gw_strategy_done_fn done, void *arg);

/** What a write to a subresource changes, which decides how the engines derive its object. */
typedef enum {
    GW_SUBRES_STATUS,    /* GET: the object; PUT/PATCH change .status only (status, approval) */
    GW_SUBRES_SCALE,     /* the autoscaling/v1 Scale view; PUT/PATCH set spec.replicas */
    GW_SUBRES_FINALIZE,  /* PUT of the whole object, of which the kind keeps what it allows */
    GW_SUBRES_EPHEMERAL, /* GET: the object; PUT/PATCH change spec.ephemeralContainers only */
    GW_SUBRES_HANDLER,   /* its own endpoint (handle), for every verb (token, eviction) */
} gw_subres_form_t;

/** One subresource's rules (a NULL hook: nothing beyond the form). */
typedef struct {
    const char *name; /* as the catalog names it: "status", "scale", "finalize", ... */
    gw_subres_form_t form;
    bool main_prepare; /* the main resource's PrepareForUpdate runs (scale: spec changes) */
    bool status_write; /* kube's status endpoint: its writes never own spec, and an apply
                          records its own managedFields */
    /* GW_SUBRES_HANDLER: answers the request (exactly once). */
    void (*handle)(gw_req_t *r);
    /* PrepareForUpdate of the subresource's object (u->sub names it). */
    void (*prepare_update)(gw_upd_t *u, json_t *obj, const json_t *old);
    /* ValidateUpdate of the subresource's object, into errs. */
    void (*validate_update)(gw_upd_t *u, const json_t *obj, const json_t *old,
                            gw_field_errors_t *errs);
} gw_subres_strategy_t;

/** A kind's strategy. Zero values and NULL hooks are the generic store's behaviour. */
typedef struct gw_strategy {
    const char *name; /* what it is for ("pod", "generic"), for logs and tests */
    /* ---- data ---- */
    gw_name_rule_t name_rule;       /* metadata.name's rule (ValidateObjectMeta's nameFn) */
    bool create_on_update;          /* AllowCreateOnUpdate: a PUT of a missing object creates it */
    bool conditional_update;        /* !AllowUnconditionalUpdate: a PUT needs a resourceVersion */
    bool keep_status_on_create;     /* status may be set on create (nodes) */
    const char *initial_status;     /* status on create as JSON text; NULL: {} */
    bool graceful;                  /* graceful deletion: grace period, deletionTimestamp (pods) */
    bool generation_on_annotations; /* annotation changes bump generation too (deployments) */
    bool generation_on_status;      /* status changes bump generation too, when no status
                                       subresource owns it (custom resources) */
    bool own_required;              /* the kind's validation says what is required, at its own
                                       paths (CRDs: the internal form's), not the schema */
    /* ---- create and update ---- */
    /* PrepareForCreate, after the defaults and the status reset (user: who creates). */
    void (*prepare_create)(const gw_resource_t *res, const authn_user_t *user, json_t *obj);
    /* PrepareForUpdate of the main resource, after the defaults; the status is kept from old
     * after it, for kinds with a status subresource. */
    void (*prepare_update)(const gw_resource_t *res, json_t *obj, const json_t *old);
    /* PrepareForUpdate's part that writes the status kept from old (CRDs add their storage
     * version to status.storedVersions), after it was kept. */
    void (*prepare_update_status)(const gw_resource_t *res, json_t *obj, const json_t *old);
    /* The kind's own validation after ObjectMeta's (old NULL on a create); runs for every
     * write, subresources included. */
    void (*validate)(const gw_resource_t *res, const json_t *obj, const json_t *old,
                     gw_field_errors_t *errs);
    /* ValidateUpdate's rules that only a main-resource update has. */
    void (*validate_update)(const gw_resource_t *res, const json_t *obj, const json_t *old,
                            gw_field_errors_t *errs);
    /* WarningsOnCreate / WarningsOnUpdate (old NULL on a create), added to r. */
    void (*warnings)(gw_req_t *r, const json_t *obj, const json_t *old);
    /* Canonicalize: the validated object's normal form before it is stored. */
    void (*canonicalize)(const gw_resource_t *res, json_t *obj);
    /* A check of a validated create or main-resource update, after the validating admission
     * plugins, that may wait on the authorizer (RBAC's escalation check, as kube's
     * policy-based storage makes it). */
    gw_strategy_check_fn check_write;
    /* ---- delete ---- */
    /* Whether an update deletes the object (ShouldDeleteDuringUpdate); NULL: no finalizers
     * left on an object being deleted without a grace period. */
    bool (*delete_on_update)(const json_t *obj, const json_t *old);
    /* The first DELETE of an object not being deleted yet, when the kind marks it instead
     * (CRDs: deletionTimestamp, a finalizer, a condition): `obj` is changed in place and
     * written in the delete's guaranteed update (after its preconditions and validating
     * admission), and the DELETE answers with it; later DELETEs are the generic store's. Not
     * for deletecollection, which kube's generic store runs itself. */
    void (*mark_on_first_delete)(json_t *obj);
    /* The kind's own DELETE (namespaces): the same contract as gw_namespace_begin_delete. */
    int (*on_delete)(gw_store_t *s, const char *name, const json_t *options,
                     void (*cb)(int err, const gw_obj_t *obj, bool deleted, void *ctx), void *ctx);
    /* ---- subresources ---- */
    /* The kind's own subresource rules, looked up before the generic status and scale. */
    const gw_subres_strategy_t *subresources;
    size_t n_subresources;
} gw_strategy_t;

/* The strategies (gw_strategy.c and the kinds' files). */
extern const gw_strategy_t gw_strategy_generic;
extern const gw_strategy_t gw_strategy_pod;
extern const gw_strategy_t gw_strategy_namespace;
extern const gw_strategy_t gw_strategy_service;
extern const gw_strategy_t gw_strategy_secret;
extern const gw_strategy_t gw_strategy_configmap;
extern const gw_strategy_t gw_strategy_event;
extern const gw_strategy_t gw_strategy_role;
extern const gw_strategy_t gw_strategy_clusterrole;
extern const gw_strategy_t gw_strategy_rolebinding;
extern const gw_strategy_t gw_strategy_clusterrolebinding;
extern const gw_strategy_t gw_strategy_csr;
extern const gw_strategy_t gw_strategy_serviceaccount;
extern const gw_strategy_t gw_strategy_validating_admission_policy;
extern const gw_strategy_t gw_strategy_validating_admission_policy_binding;
extern const gw_strategy_t gw_strategy_flowschema;
extern const gw_strategy_t gw_strategy_prioritylevel;
extern const gw_strategy_t gw_strategy_mutating_webhook_configuration;
extern const gw_strategy_t gw_strategy_validating_webhook_configuration;
extern const gw_strategy_t gw_strategy_mutating_admission_policy;
extern const gw_strategy_t gw_strategy_mutating_admission_policy_binding;
extern const gw_strategy_t gw_strategy_custom;
extern const gw_strategy_t gw_strategy_crd;

/** The strategy kube gives (group, resource): a kind's own, else gw_strategy_generic. Never
 *  NULL. Thread: any. Pure. */
const gw_strategy_t *gw_strategy_lookup(const char *group, const char *resource);

/** Give every resource of c's universe (the built-in catalog, which every configured catalog's
 *  resources are) its strategy. Thread: main, at start-up, before workers serve. */
void gw_strategy_resolve(const gw_catalog_t *c);

/** The strategy of res: the one resolved at start-up (looked up for a resource built outside
 *  a resolved catalog). Never NULL. Thread: any. */
const gw_strategy_t *gw_strategy_of(const gw_resource_t *res);

/** The rules of res's subresource `name`: the kind's own, else the generic status and scale;
 *  NULL when nothing serves it (the connect subresources). Thread: any. */
const gw_subres_strategy_t *gw_strategy_subresource(const gw_resource_t *res, const char *name);

#endif
