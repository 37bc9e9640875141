#ifndef GATEWAY_ADMISSION_GW_ADMISSION_H
#define GATEWAY_ADMISSION_GW_ADMISSION_H

/*
 * The admission chain, as kube-apiserver runs it on every write: the mutating plugins in
 * order (they may change the object), then the kind's own validation (the registry's
 * strategy), then the validating plugins in the same order (they may only refuse). The
 * plugins are kube's, with kube's names; which run is set once at start by
 * --enable-admission-plugins and --disable-admission-plugins.
 *
 * A plugin may finish asynchronously (a read from etcd, a call to an authorizer or a
 * webhook): it calls its callback later, on the request's worker, and the chain goes on from
 * there, as the request filters do.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_req.h"

/** What the request does to the object (kube's admission.Operation). */
typedef enum {
    GW_ADMISSION_CREATE,
    GW_ADMISSION_UPDATE,
    GW_ADMISSION_DELETE,
    GW_ADMISSION_CONNECT,
} gw_admission_op_t;

/** kube's admission.ReinvocationContext (see gw_admission_admit): one per admission of an
 *  object, with a value per plugin that keeps state between the two rounds. */
typedef struct gw_admission_reinvoke gw_admission_reinvoke_t;

/** kube's admission.Attributes, over the documents the handlers already hold. */
typedef struct {
    gw_admission_op_t op;
    gw_req_t *req;                 /* arena, worker, store, authorizer and user of the request */
    const gw_resource_t *resource; /* group, version, resource name and kind */
    const char *subresource;       /* "" for the main resource */
    const char *namespace_;        /* "" for cluster-scoped resources */
    const char *name;              /* "" when not known yet (generateName, deletecollection) */
    json_t *object;                /* create and update: the new object (mutating plugins may
                                      change it); NULL on delete */
    const json_t *old_object;      /* update and delete: the stored object, or NULL */
    const json_t *options;         /* Create/Update/DeleteOptions as given, or NULL */
    bool dry_run;
    gw_admission_reinvoke_t *reinvoke; /* set by gw_admission_admit (NULL before) */
    /* A create whose write can be guarded (gw_store_create_guarded) passes where
     * NamespaceLifecycle may leave the mod_revision of the namespace it found active in the
     * namespaces' read cache (0: it read the namespace live). The write must then hold only
     * while the namespace is still at that revision, and when it is not, run
     * gw_admission_namespace_check before writing. NULL: the namespace is read live. */
    int64_t *ns_revision;
} gw_admission_attrs_t;

/** A plugin's refusal: kube's Status. The message lives in the request's arena; details is
 *  an owned reference (the receiver takes it). A failure to read what the plugin needs is
 *  `err` (a GW_E* code, with `code` 0), for the receiver to word as its own storage errors. */
typedef struct {
    int err;
    int code;
    const char *reason;
    json_t *details;
    char *message;
} gw_admission_err_t;

/** How a plugin or the chain ends: err NULL when admitted. Called on the request's worker,
 *  perhaps before the call that started it returns. */
typedef void (*gw_admission_done_fn)(gw_admission_err_t *err, void *arg);

/** One admission plugin (kube's admission.Interface, MutationInterface, ValidationInterface).
 *  Plugins are const data; each entry point is called only for operations `handles` accepts
 *  and ends by calling `done` exactly once. */
typedef struct {
    const char *name; /* kube's plugin name */
    bool (*handles)(gw_admission_op_t op);
    /** The mutating phase (NULL: the plugin does not mutate). */
    void (*admit)(gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg);
    /** The validating phase (NULL: the plugin does not validate). */
    void (*validate)(const gw_admission_attrs_t *a, gw_admission_done_fn done, void *arg);
} gw_admission_plugin_t;

/** NamespaceLifecycle's check of a create, against the namespace's latest state (etcd's
 *  current revision): `done` gets its refusal (404 gone, 403 terminating) or NULL. For a
 *  create whose guarded write found the namespace changed since a->ns_revision. Thread: the
 *  request's worker. */
void gw_admission_namespace_check(const gw_admission_attrs_t *a, gw_admission_done_fn done,
                                  void *arg);

/** The configured chain: the enabled plugins in kube's order. */
typedef struct gw_admission gw_admission_t;

/**
 * Build the chain from the two flags' lists (either may be empty), as kube-apiserver's
 * AdmissionOptions do: kube's default-on plugins plus `enable`, minus `disable`, in kube's
 * recommended order. An unknown name, or a name in both lists, is an error: NULL with kube's
 * message in err. A plugin kube knows but kgate does not implement is refused the same way
 * when asked for (there is nothing that could enforce it), and left out silently when it is
 * only one of kube's defaults. Returns a chain freed with gw_admission_free. Thread: start-up.
 */
gw_admission_t *gw_admission_new(const char *const *enable, size_t n_enable,
                                 const char *const *disable, size_t n_disable, char *err,
                                 size_t err_len);

/** A chain of exactly these plugins, in this order (at most 64), as gw_admission_new builds
 *  from the flags; the plugins must outlive it. Thread: any. */
gw_admission_t *gw_admission_of(const gw_admission_plugin_t *const *plugins, size_t n);

/** Free a chain from gw_admission_new or gw_admission_of (NULL is fine). Thread: shut-down. */
void gw_admission_free(gw_admission_t *chain);

/** The names of the chain's plugins in order, comma-separated, into out (for the start-up
 *  log and tests). Thread: any. */
void gw_admission_describe(const gw_admission_t *chain, char *out, size_t len);

/**
 * Run the mutating phase: each enabled plugin with an `admit` that handles a->op, in order,
 * until one refuses. `done` gets the refusal or NULL. A NULL chain admits everything.
 * As kube's reinvoker does, when a plugin asked for it (gw_admission_want_reinvoke) the whole
 * mutating phase runs once more, every plugin again, with gw_admission_is_reinvoke true; the
 * plugins decide from their reinvocation value what to do the second time. Thread: the
 * request's worker.
 */
void gw_admission_admit(const gw_admission_t *chain, gw_admission_attrs_t *a,
                        gw_admission_done_fn done, void *arg);

/** Run the validating phase, as gw_admission_admit does the mutating one. a->object must
 *  not change from here on. Thread: the request's worker. */
void gw_admission_validate(const gw_admission_t *chain, gw_admission_attrs_t *a,
                           gw_admission_done_fn done, void *arg);

/** Whether this is the mutating phase's second round. Thread: the request's worker. */
bool gw_admission_is_reinvoke(const gw_admission_attrs_t *a);

/** Ask for a second round of the mutating phase (kube's SetShouldReinvoke); ignored in the
 *  second round. Thread: the request's worker. */
void gw_admission_want_reinvoke(gw_admission_attrs_t *a);

/** A plugin's reinvocation value (by its name), or NULL when it set none. Thread: the
 *  request's worker. */
void *gw_admission_reinvoke_value(const gw_admission_attrs_t *a, const char *plugin);

/** Set a plugin's reinvocation value (it lives as long as the caller makes it: in the
 *  request's arena). At most 8 plugins keep one. Thread: the request's worker. */
void gw_admission_reinvoke_set_value(gw_admission_attrs_t *a, const char *plugin, void *value);

/**
 * kube's admission.NewForbidden: a 403 Forbidden about the attributes' resource and name,
 * "<resource>[.<group>] \"<name>\" is forbidden: <why>", in the request's arena. Thread: the
 * request's worker.
 */
gw_admission_err_t *gw_admission_forbidden(const gw_admission_attrs_t *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** A plugin's error with the given code, reason, details (stolen) and message, in the
 *  request's arena. Thread: the request's worker. */
gw_admission_err_t *gw_admission_error(const gw_admission_attrs_t *a, int code, const char *reason,
                                       json_t *details, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/** kube's ObjectDefaulter as admission plugins see it: apply kind `res`'s defaults to `obj` in
 *  place. */
typedef void (*gw_admission_defaulter_fn)(const gw_resource_t *res, json_t *obj);

/** Give the plugins the registry's defaulter (MutatingAdmissionPolicy defaults what its
 *  mutations leave, as kube's dispatcher does). Set once at start-up, before requests; NULL
 *  (the default) defaults nothing. Thread: main. */
void gw_admission_set_defaulter(gw_admission_defaulter_fn fn);

/** Apply the defaulter (if any) to `obj` of kind `res`. Thread: any. */
void gw_admission_default(const gw_resource_t *res, json_t *obj);

/* ---- the plugins (gw_admission_<name>.c) ------------------------------------------------- */

extern const gw_admission_plugin_t gw_admission_always_admit;
extern const gw_admission_plugin_t gw_admission_always_deny;
extern const gw_admission_plugin_t gw_admission_namespace_lifecycle;
extern const gw_admission_plugin_t gw_admission_service_account;
extern const gw_admission_plugin_t gw_admission_certificate_approval;
extern const gw_admission_plugin_t gw_admission_certificate_signing;
extern const gw_admission_plugin_t gw_admission_validating_policy;
extern const gw_admission_plugin_t gw_admission_owner_references;
extern const gw_admission_plugin_t gw_admission_mutating_policy;
extern const gw_admission_plugin_t gw_admission_mutating_webhook;
extern const gw_admission_plugin_t gw_admission_validating_webhook;

#endif
