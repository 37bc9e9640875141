#ifndef GATEWAY_REGISTRY_GW_REGISTRY_INT_H
#define GATEWAY_REGISTRY_GW_REGISTRY_INT_H

/* Internals shared by the gw_registry*.c files. Thread: the request's worker, as gw_req.h. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_admission.h"
#include "gw_buf.h"
#include "gw_json_strings.h"
#include "gw_objmeta.h"
#include "gw_req.h"
#include "gw_selector.h"
#include "gw_ssa.h"
#include "gw_strategy.h"
#include "gw_table.h"
#include "gw_time.h"
#include "gw_uuid.h"

/* ---- verbs (gw_registry_<verb>.c) --------------------------------------------------------- */

/* Each handles r for its verb (resource resolved, scope checked by gw_registry_handle) and
 * answers exactly once, now or from a storage callback. Thread: r's worker. */
void gw_registry__get(gw_req_t *r);
void gw_registry__list(gw_req_t *r);
void gw_registry__create(gw_req_t *r);
void gw_registry__update(gw_req_t *r);
void gw_registry__patch(gw_req_t *r);
void gw_registry__delete(gw_req_t *r);
void gw_registry__deletecollection(gw_req_t *r);

/* ---- garbage collection (gw_registry_gc.c) ---- */

/** A kind's DefaultGarbageCollectionPolicy through the version it is requested in. */
typedef enum {
    GW_GC_DELETE_DEPENDENTS, /* background: no finalizer unless asked for */
    GW_GC_ORPHAN,            /* `orphan` unless asked otherwise (rc in v1, jobs in batch/v1) */
    GW_GC_UNSUPPORTED,       /* never a garbage collector's finalizer (events) */
} gw_gc_policy_t;

/** The policy of res (its group, version and resource). Pure; thread: any. */
gw_gc_policy_t gw_registry__gc_policy(const gw_resource_t *res);

/** deletionFinalizersForGarbageCollection: set meta's finalizers (the object's metadata,
 *  changed in place) for a delete with `propagation` (NULL: unset) and orphanDependents (-1
 *  unset, 0, 1) under `policy`. Pure; thread: any. */
void gw_registry__gc_finalizers(gw_gc_policy_t policy, const char *propagation,
                                int orphan_dependents, json_t *meta);

/** The Job registry's warning on a DELETE or deletecollection of jobs that leaves the
 *  propagation to batch/v1's orphaning default. Thread: r's worker. */
void gw_registry__gc_warn(gw_req_t *r, const char *propagation, int orphan_dependents);
/** DELETE of an object that cannot be read, once the options allow it
 *  (gw_registry_unsafe.c): authorizes the extra verb, refuses a readable object, answers. */
void gw_registry__unsafe_delete(gw_req_t *r, const char *name);
/** POST of a virtual kind (a review: answered, never stored). */
void gw_registry__review(gw_req_t *r);
/** POST of an authorization.k8s.io access or rules review (gw_registry_access.c). */
void gw_registry__access_review(gw_req_t *r);
/** GET, PUT and PATCH on the status, scale and finalize subresources. */
void gw_registry__subresource(gw_req_t *r);
/** POST of serviceaccounts/token: a TokenRequest (gw_registry_token.c). */
void gw_registry__token(gw_req_t *r);

/* ---- the generic store's strategy steps (gw_registry_strategy.c) ------------------------ */

/** The strategy of a resource (gw_strategy_of). */
const gw_strategy_t *gw_registry__strategy(const gw_resource_t *res);

/** Whether the resource has a status subresource. */
bool gw_registry__has_status(const gw_resource_t *res);

/** The defaults kube's decoding gives an object of res (a request's body, a patch's result),
 *  before admission sees it. */
void gw_registry__default(const gw_resource_t *res, json_t *obj);

/** PrepareForCreate: the status reset (or the kind's initial status), the
 *  strategy's prepare_create (user: who creates; may be NULL), generation 1 for kinds that
 *  keep one; then gw_registry__complete. */
void gw_registry__prepare_create(const gw_resource_t *res, const authn_user_t *user, json_t *obj);

/** Give a prepared object of res every field Go's JSON shows though the document lacks it
 *  (gw_gozero.h), as kube-apiserver's decoding into its Go struct does before validation and
 *  storage. */
void gw_registry__complete(const gw_resource_t *res, json_t *obj);

/**
 * PrepareForUpdate on the main resource: the strategy's prepare_update, status
 * kept from `old` for kinds with a status subresource, generation bumped when anything outside
 * metadata and status changed (kinds that keep one).
 */
void gw_registry__prepare_update(const gw_resource_t *res, json_t *obj, const json_t *old);

/** The strategy's own validation (a Secret's or ConfigMap's data and, on update, immutability;
 *  a Service's cluster IPs; a binding's roleRef) after the metadata's; old is NULL on a create.
 *  Where kube answers some of these findings alone (a Service's addresses, checked before
 *  anything else), errs is left holding only them. */
void gw_registry__validate_kind(const gw_resource_t *res, const json_t *obj, const json_t *old,
                                gw_field_errors_t *errs);

/* ---- per-kind rules (gw_registry_secret.c, gw_registry_configmap.c, gw_registry_service.c) - */

/* core.MaxSecretSize: the most a Secret's data, or a ConfigMap's data and binaryData, hold */
#define GW_MAX_SECRET_SIZE (1024 * 1024)

/* kube's message for a change to an object whose `immutable` is true */
#define GW_IMMUTABLE_WHEN_SET "field is immutable when `immutable` is set"

/** A Secret's stringData merged into data (base64, overriding the same keys) and dropped. */
void gw_registry__secret_prepare(json_t *obj);

/** ValidateSecret (old NULL) or ValidateSecretUpdate, past the metadata: type and immutable
 *  rules on update, data keys (IsConfigMapKey) and the 1 MiB total, then the type's own rules
 *  (service-account-token, dockercfg, dockerconfigjson, basic-auth, ssh-auth, tls), in kube's
 *  order and words. */
void gw_registry__secret_validate(const json_t *obj, const json_t *old, gw_field_errors_t *errs);

/** ValidateConfigMap (old NULL) or ValidateConfigMapUpdate, past the metadata. */
void gw_registry__configmap_validate(const json_t *obj, const json_t *old, gw_field_errors_t *errs);

/** Whether old has `immutable: true`; if so, a Forbidden on `immutable` when obj unsets it. */
bool gw_registry__immutable_kept(const json_t *obj, const json_t *old, gw_field_errors_t *errs);

/** The number of bytes a []byte's base64 JSON value holds (0 for null). */
size_t gw_registry__bytes_len(const json_t *v);

/** Two maps of []byte values (base64 strings) hold the same keys and bytes; an absent map is
 *  an empty one. */
bool gw_registry__bytes_maps_equal(const json_t *a, const json_t *b);

/** ValidateEventCreate / ValidateEventUpdate (old NULL on a create) of a core or
 *  events.k8s.io/v1 Event (res says which: the strict rules are events.k8s.io's), checked in
 *  the core form kube validates. */
void gw_registry__event_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                                 gw_field_errors_t *errs);

/** dropTypeDependentFields on a Service update (after the defaults filled in its addresses). */
void gw_registry__service_prepare_update(json_t *obj, const json_t *old);

/** A Service's cluster IP rules (old NULL on a create); false when kube reports what it found
 *  alone (the addresses are checked before the rest of the object). */
bool gw_registry__service_validate(const json_t *obj, const json_t *old, gw_field_errors_t *errs);

/** kube's warnings for a write of obj over old (NULL: a create): the metadata's, then the
 *  strategy's (once per request). */
void gw_registry__warnings(gw_req_t *r, const json_t *obj, const json_t *old);

/** The strategy's Canonicalize of a validated object, before it is stored. */
void gw_registry__canonicalize(const gw_resource_t *res, json_t *obj);

/** Whether this update must delete the object (kube's ShouldDeleteDuringUpdate, or the
 *  strategy's own, such as the namespace one that also waits for spec.finalizers). */
bool gw_registry__delete_on_update(const gw_resource_t *res, const json_t *obj, const json_t *old);

/* ---- failures (gw_registry_fail.c) -------------------------------------------------------- */

/** A Status failure prepared where the request cannot be answered yet (inside a guaranteed
 *  update); replied later with gw_registry__reply_fail. */
typedef struct gw_fail {
    int code; /* 0: nothing failed */
    const char *reason;
    json_t *details; /* owned (the arena releases it) */
    char *message;   /* in the arena */
} gw_fail_t;

/** Record a failure (the first one wins). details is stolen. */
void gw_registry__fail(gw_req_t *r, gw_fail_t *f, int code, const char *reason, json_t *details,
                       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/** Record a gw_err error about object `name` as gw_reply_error would word it. */
void gw_registry__fail_err(gw_req_t *r, gw_fail_t *f, int err, const char *name);

/** Record kube's answer to a stored value its transformer refused (gw_obj_t.unreadable: a
 *  value no encryption provider can decrypt, or a corrupt one): 500 InternalError, "Internal
 *  error occurred: " and the transformer's words, as kube's storage InternalError. */
/** Answer a failed write: a value the transformer refused (gw_store_value_error) as kube's 500
 *  "Internal error occurred: <why>", anything else as gw_reply_error. Thread: the request's,
 *  right after the write failed. */
void gw_registry__reply_write_error(gw_req_t *r, int err, const char *name);

void gw_registry__fail_unreadable(gw_req_t *r, gw_fail_t *f, const char *why);

/** Record kube's 422 Invalid for field errors (the errors are cleared). `kind` and `group`
 *  name what is invalid (the object's kind, or e.g. "CreateOptions" in "meta.k8s.io"). */
void gw_registry__fail_invalid(gw_req_t *r, gw_fail_t *f, const char *group, const char *kind,
                               const char *name, gw_field_errors_t *errs);

/** Answer a recorded failure. Finishes the request. */
void gw_registry__reply_fail(gw_req_t *r, const gw_fail_t *f);

/** {name, group (when not core), kind: <resource>} as kube's errors carry them. */
json_t *gw_registry__details(gw_req_t *r, const char *name);

/** "<resource>" or "<resource>.<group>", as kube's messages name the request's resource. */
const char *gw_registry__qualified_resource(gw_req_t *r);

/** "<Kind>" or "<Kind>.<group>", as kube's Invalid messages name a kind. */
const char *gw_registry__qualified_kind(gw_req_t *r);

/* ---- request bodies and options (gw_registry_body.c) -------------------------------------- */

typedef enum {
    GW_FV_WARN, /* the default */
    GW_FV_IGNORE,
    GW_FV_STRICT,
} gw_fieldval_mode_t;

/** The write options every mutating verb takes, read from the query. */
typedef struct {
    bool dry_run;
    gw_fieldval_mode_t field_validation;
    const char *field_manager; /* fieldManager, else the User-Agent's product ("kubectl");
                                  never NULL, may be "" (in the arena) */
    bool manager_given;        /* fieldManager was in the query */
    bool force, force_given;   /* force (PatchOptions only) */
} gw_write_opts_t;

/**
 * Read dryRun, fieldValidation, fieldManager (and force for "PatchOptions"); on a bad value
 * record kube's 422 for `options_kind` ("CreateOptions", "UpdateOptions", "PatchOptions",
 * "DeleteOptions") and return false.
 */
bool gw_registry__write_opts(gw_req_t *r, const char *options_kind, gw_write_opts_t *o,
                             gw_fail_t *f);

/* ---- admission (gw_registry_admission.c) ------------------------------------------------- */

/** The chain set by gw_registry_set_admission (NULL: nothing is asked). */
const gw_admission_t *gw_registry__admission(void);

/** Fill *a for r's write of object `name` on subresource `sub` (NULL: the main resource): the
 *  new and stored objects (either may be NULL; both must outlive the admission), and the
 *  operation's options as kube passes them (`options_kind` "CreateOptions", ...). */
void gw_registry__admission_attrs(gw_req_t *r, gw_admission_attrs_t *a, gw_admission_op_t op,
                                  const char *sub, const char *name, json_t *obj, const json_t *old,
                                  const char *options_kind, const gw_write_opts_t *opts);

/** Both admission phases for a POST that is not the generic create (pods/eviction,
 *  pods/binding and bindings, serviceaccounts/token) of the checked `body`, then next(arg); a
 *  refusal is answered instead. */
void gw_registry__admit_create(gw_req_t *r, json_t *body, const gw_write_opts_t *opts,
                               void (*next)(void *arg), void *arg);

/** Record a plugin's refusal (taking its details), or word its storage error as
 *  gw_registry__fail_err does for `name`. */
void gw_registry__fail_admission(gw_req_t *r, gw_fail_t *f, gw_admission_err_t *e,
                                 const char *name);

/**
 * kube's decoding checks of an object for the request's kind (or `kind`/`api_version` when not
 * NULL, e.g. a Scale): apiVersion and kind must match (absent ones are filled in); then field
 * validation against `schema`: unknown fields pruned, unknown and duplicate fields (duplicates
 * from `raw`, the body text, when given) warned about or refused per mode, type errors refused.
 * Missing required fields go to `errs` (reported with the other 422 findings). Warnings are
 * only added when `warn` is true (once per request). Returns false with a 400 recorded.
 */
bool gw_registry__check_object(gw_req_t *r, json_t *obj, const char *api_version, const char *kind,
                               const gw_schema_t *schema, const char *raw, size_t raw_len,
                               gw_fieldval_mode_t mode, bool warn, gw_field_errors_t *errs,
                               gw_fail_t *f);

/** The namespace the object must carry: the URL's for namespaced resources (set when absent,
 *  400 when different), none for cluster-scoped ones (dropped). False with a 400 recorded. */
bool gw_registry__check_namespace(gw_req_t *r, json_t *obj, gw_fail_t *f);

/** Add kube's warnings for an object's metadata (once per request). */
void gw_registry__meta_warnings(gw_req_t *r, const json_t *obj);

/** The canonical stored bytes of obj (resourceVersion and selfLink dropped, keys sorted, so
 *  that equal objects give equal bytes and a no-op update writes nothing), in its kind's
 *  storage version (obj itself stays in its own). Caller frees. */
char *gw_registry__encode(json_t *obj, size_t *len);

/** gw_registry__encode of an object of res: a custom resource's is stored in its CRD's storage
 *  version. */
char *gw_registry__encode_for(const gw_resource_t *res, json_t *obj, size_t *len);

/* ---- reads of a future resourceVersion (gw_registry_wait.c) ------------------------------ */

/** Arrange for again(arg) to run 100 ms from now, on r's worker, while r is younger than 3 s
 *  (kube's wait for a resourceVersion its cache has not reached); false when the wait is over
 *  and the read should answer "Too large resource version". */
bool gw_registry__retry_future(gw_req_t *r, void (*again)(void *arg), void *arg);

/* ---- field ownership (gw_registry_managed.c) ---------------------------------------------- */

/** The scope of r's managedFields entries for subresource `sub` (NULL: the main resource);
 *  `now` receives the time it names. */
void gw_registry__ssa_scope(gw_req_t *r, const gw_subres_strategy_t *sub, gw_ssa_scope_t *s,
                            char now[21]);

/** Record a non-apply write of obj over live (NULL: a create) by o's field manager in obj's
 *  metadata.managedFields. */
void gw_registry__track(gw_req_t *r, const gw_subres_strategy_t *sub, const gw_write_opts_t *o,
                        const json_t *live, json_t *obj);

/* ---- the update engine (gw_registry_update.c) --------------------------------------------- */

typedef struct gw_upd gw_upd_t;

/**
 * One PUT or PATCH (main resource or subresource) as kube's generic store runs it: a guaranteed
 * update that derives the request's object from the current one on every attempt, checks the
 * resourceVersion, prepares and validates it, and writes it, deletes it (finalizers gone), or
 * for a dry run only answers with it.
 */
struct gw_upd {
    gw_req_t *r;
    const char *name, *key;
    gw_write_opts_t opts;
    const char *sub; /* NULL for the main resource, or "status", "scale", "finalize" */
    const gw_subres_strategy_t *subres; /* sub's rules (gw_registry__upd_sub); NULL for the main
                                           resource */
    bool allow_create;
    bool applied; /* derive ran a server-side apply, which recorded managedFields itself */
    /* The object the request asks for, given the current one (with its resourceVersion; NULL
     * when missing): a new document in *out, or false with u->fail recorded (a document left
     * in *out is released either way). */
    bool (*derive)(gw_upd_t *u, const json_t *cur, json_t **out);
    /* The answer's document for the stored object (e.g. its Scale); NULL: the object. */
    json_t *(*present)(gw_upd_t *u, const json_t *obj);
    void *arg;                  /* the verb's own state (body, patch) */
    gw_field_errors_t req_errs; /* required fields missing, found by derive */
    bool warned;                /* request warnings added (once) */
    gw_fail_t fail;
    /* decided inside the update */
    gw_store_update_t *su;
    json_t *result;            /* the object answered without a write (dry run, delete) */
    json_t *checked_obj;       /* validated, waiting on RBAC's escalation check, with */
    const json_t *checked_cur; /* the current object it updates (NULL: a create) */
    int64_t checked_rev;
    gw_admission_attrs_t adm; /* this attempt's admission attributes */
    bool created, delete_now;
    int64_t delete_rev;
    int deletes;
    json_t *converting;           /* [an object] on its way through the conversion webhook */
    const gw_obj_t *conv_current; /* the current object while it is converted */
};

/** A new engine for the request's object r->info.name (allocated in the arena). */
gw_upd_t *gw_registry__upd_new(gw_req_t *r);

/** Run it; answers the request. */
void gw_registry__upd_run(gw_upd_t *u);

/** kube's checkName for a body: its name must be the URL's and its namespace (when set) the
 *  request's; false with a 400 recorded. */
bool gw_registry__check_name(gw_upd_t *u, const json_t *obj);

/* ---- deletes for other verbs (gw_registry_delete.c) ------------------------------------- */

/** What an inner delete ended in: f->code 0 on success (`deleted`: removed, else only marked
 *  for a graceful deletion or finalizers). */
typedef void (*gw_registry__deleted_fn)(gw_req_t *r, const gw_fail_t *f, bool deleted, void *arg);

/** Delete object `name` of r's resource as a DELETE with `options` (a DeleteOptions document,
 *  referenced, validated as kube's ValidateDeleteOptions) would; fn runs once, maybe later. */
void gw_registry__delete_object(gw_req_t *r, json_t *options, const char *name,
                                gw_registry__deleted_fn fn, void *arg);

/* ---- pods/eviction, pods/binding and bindings (gw_registry_eviction.c, _binding.c) ------ */

/** kube's answer to an error that is no API status (a plain Go error from a REST handler):
 *  a Failure with `code` and `message` and no reason. Finishes the request. */
void gw_registry__reply_plain_error(gw_req_t *r, int code, const char *message);

/** POST of pods/eviction: kube's EvictionREST (PodDisruptionBudgets honoured). */
void gw_registry__eviction(gw_req_t *r);

/** POST of pods/binding or of a Binding to the bindings collection: kube's BindingREST. */
void gw_registry__binding(gw_req_t *r);

/** kube's podutil.UpdatePodCondition: set cond (stolen) in pod's status.conditions, replacing
 *  the condition of its type and keeping that one's lastTransitionTime when the status stays. */
void gw_registry__pod_condition(json_t *pod, json_t *cond);

/* ---- CertificateSigningRequests (gw_registry_csr.c) -------------------------------------- */

/** PrepareForCreate: spec.username, uid, groups and extra from the requesting user (what the
 *  client sent is dropped), status empty. Nothing for other kinds. */
void gw_registry__csr_prepare_create(const gw_resource_t *res, const authn_user_t *user,
                                     json_t *obj);

/** PrepareForUpdate of the main resource (sub NULL), status or approval: what each may change
 *  (spec never; status: certificate and conditions, Approved/Denied kept; approval: the
 *  conditions), condition timestamps filled. Nothing for other kinds. */
void gw_registry__csr_prepare_update(const gw_resource_t *res, const char *sub, json_t *obj,
                                     const json_t *old);

/** kube's ValidateCertificateSigningRequest(Status|Approval)Update findings into errs. */
void gw_registry__csr_validate_update(const gw_resource_t *res, const char *sub, const json_t *obj,
                                      const json_t *old, gw_field_errors_t *errs);

/* ---- pods/ephemeralcontainers (gw_registry_ephemeral.c) --------------------------------- */

/** `cur` with spec.ephemeralContainers, name, namespace, uid and resourceVersion of `src`
 *  (kube's dropNonEphemeralContainerUpdates). New document. */
json_t *gw_registry__ephemeral_into(const json_t *cur, const json_t *src);

/** Defaults of the ephemeral containers (the subresource's decoding), for u->sub
 *  "ephemeralcontainers" only. */

/** ValidatePodEphemeralContainersUpdate's findings into errs (u->sub "ephemeralcontainers"). */
void gw_registry__ephemeral_validate(gw_upd_t *u, const json_t *obj, const json_t *cur,
                                     gw_field_errors_t *errs);

/* ---- subresources (gw_registry_subres.c) -------------------------------------------------- */

/** The autoscaling/v1 Scale of a scalable object (new document). */
json_t *gw_registry__scale_of(gw_upd_t *u, const json_t *obj);

/** The object `cur` with a Scale's spec.replicas and resourceVersion applied, after kube's
 *  checks of the Scale (422 for bad replicas, 409 for a uid that is not the object's). */
bool gw_registry__scale_into(gw_upd_t *u, const json_t *cur, const json_t *scale, json_t **out);

/** `cur` with the status and resourceVersion of `src`: what a status update may change. */
json_t *gw_registry__status_into(const json_t *cur, const json_t *src);

/** PATCH of the main resource (sub NULL) or of a subresource whose writes the update engine
 *  derives (status, scale, ephemeralcontainers forms). */
void gw_registry__patch_target(gw_req_t *r, const gw_subres_strategy_t *sub);

/* ---- listing (gw_registry_list.c) --------------------------------------------------------- */

typedef struct gw_lister gw_lister_t;

/** Called once the whole list is read: `body` is the <Kind>List JSON (or NULL when a Table is
 *  being built: then `table_items` holds the item documents and `list_meta` the ListMeta);
 *  `names` the listed objects' names when asked for. The lister replied to errors itself. */
typedef void (*gw_list_done_fn)(gw_req_t *r, const gw_buf_t *body, json_t *table_items,
                                json_t *list_meta, json_t *names, void *arg);

/**
 * List the request's collection as kube's list does (labelSelector, fieldSelector, limit,
 * continue, resourceVersion, resourceVersionMatch), paging through etcd at one revision.
 * With `table` the items are collected as documents for a Table; with `names` their names
 * are gathered too (deletecollection). Errors are answered here; otherwise done is called.
 */
void gw_registry__list_run(gw_req_t *r, bool table, bool names, gw_list_done_fn done, void *arg);

/* ---- list answers piece by piece (gw_registry_items.c) ------------------------------------ */

/** How a list answer is written: JSON or protobuf, of the objects or their metadata. */
typedef struct {
    gw_req_t *r;
    bool protobuf;                  /* the protobuf envelope; else JSON */
    bool partial;                   /* PartialObjectMetadataList */
    const char *kind;               /* the list's kind ("ConfigMapList") */
    const char *api_version;        /* and apiVersion */
    const gw_schema_t *item_schema; /* protobuf: each item's message */
} gw_items_t;

/** The list form r negotiated (JSON or protobuf, PartialObjectMetadataList or not) when
 *  `negotiated`, else plain JSON of the objects (answers that are re-encoded later). */
void gw_registry__items_init(gw_items_t *it, gw_req_t *r, bool negotiated);

/** Append one stored object to b as an item (after a comma in JSON when b is not empty);
 *  false when its bytes cannot be read or encoded. Thread: r's worker. */
bool gw_registry__items_add(const gw_items_t *it, gw_buf_t *b, const gw_obj_t *obj);

/** gw_registry__items_add of an object already parsed (and converted), with its
 *  resourceVersion. Thread: r's worker. */
bool gw_registry__items_add_doc(const gw_items_t *it, gw_buf_t *b, const json_t *doc);

/** Append the answer's head: JSON up to "items":[; protobuf the envelope's head, whose raw
 *  length counts the ListMeta and items_len bytes of items, then the ListMeta. */
void gw_registry__items_head(const gw_items_t *it, gw_buf_t *b, const json_t *meta,
                             size_t items_len);

/** Append what closes the answer after its items. */
void gw_registry__items_tail(const gw_items_t *it, gw_buf_t *b);

/** The answer's Content-Type. */
const char *gw_registry__items_type(const gw_items_t *it);

/** The request's labelSelector and fieldSelector (field keys checked against the kind's
 *  selectable fields); false after answering 400 (what was parsed is left in the selectors for
 *  the caller to clear). */
bool gw_registry__parse_selectors(gw_req_t *r, gw_selector_t *labels, gw_selector_t *fields);

/* ---- selectable fields (gw_registry_fields.c) --------------------------------------------- */

/** The fields a field selector may name for the resource (kube's field label conversion),
 *  NULL-terminated (static: it also identifies the kind to gw_registry__field_text). */
const char *const *gw_registry__selectable_fields(const gw_resource_t *res);

/** Whether a field selector may name `label`; false with kube's message in msg. */
bool gw_registry__field_supported(const gw_resource_t *res, const char *label, char *msg,
                                  size_t len);

/** The value a field selector on `label` reads in doc, as kube's GetAttrs computes it, for the
 *  kind whose selectable fields are `labels`: malloc'd, caller frees; NULL when the kind's
 *  field set has no such field (it compares as ""). Thread: any. Pure. */
char *gw_registry__field_text(const char *const *labels, const char *label, const json_t *doc);

/** The value at a dotted field path ("spec.replicas") of doc, or NULL. Borrowed. Thread: any. */
const json_t *gw_registry__field_at(const json_t *doc, const char *path);

/** Whether the kind's field values need the whole object (renamed or derived fields), not only
 *  the members named by the labels' first segments. */
bool gw_registry__fields_whole(const gw_resource_t *res);

/** The relative prefix the request's collection lives under (its namespace, or all of them
 *  unless `fields` names one namespace), in the arena; NULL when it cannot be a key. */
const char *gw_registry__collection_prefix(gw_req_t *r, const gw_selector_t *fields);

/* ---- watching (gw_registry_watch.c) -------------------------------------------------------- */

/** WATCH of a collection (or of one object by name): a stream of watch events. */
void gw_registry__watch(gw_req_t *r);

/* ---- request helpers (gw_registry.c) ------------------------------------------------------ */

/** The relative etcd key of object `name` in the request's namespace, in the arena; NULL when
 *  a segment cannot be a key. */
const char *gw_registry__object_key(gw_req_t *r, const char *name);

/** The relative prefix of the request resource's whole collection (all namespaces), in the
 *  arena: what names its read cache (gw_read_opts_t.collection). */
const char *gw_registry__collection(gw_req_t *r);

/** The namespace objects of the request's resource live in ("" when cluster-scoped). */
const char *gw_registry__namespace(gw_req_t *r);

/** "group/version" (or "v1") of the request's resource, in the arena. */
const char *gw_registry__api_version(gw_req_t *r);

/* ---- stored bytes (gw_registry_json.c) ---------------------------------------------------- */

/**
 * Where `"resourceVersion":"<rv>"` goes in stored object bytes without parsing them: *at is
 * the offset just after the '{' that opens the top-level "metadata" object, *empty whether
 * that object has no members. False when the bytes do not have that simple shape (no
 * top-level metadata object, escaped keys) or metadata already holds a resourceVersion: the
 * caller then goes through Jansson. Thread: any. Pure.
 */
bool gw_registry__rv_splice_point(const char *json, size_t len, size_t *at, bool *empty);

/**
 * The stored object `json` with metadata.resourceVersion set to rev (as a string), in its
 * kind's storage version (gw_convert.h), as new malloc'd bytes (caller frees) of *out_len
 * bytes; NULL when json is not a JSON object. Splices when it can, parses otherwise: the shared
 * watches' encoding. Thread: any.
 */
char *gw_registry__with_rv(const char *json, size_t len, int64_t rev, size_t *out_len);

/**
 * Parse stored bytes into a new document with metadata.resourceVersion = rev (rev <= 0: none
 * set), converted to the version of `as` (the request's resource; NULL: the kind's storage
 * version) and completed with what Go's JSON shows. NULL when the bytes are not a JSON object.
 * Caller decrefs. Thread: any.
 */
json_t *gw_registry__parse_stored(const char *json, size_t len, int64_t rev,
                                  const gw_resource_t *as);

/** obj (a write's object) in its kind's storage version, converted and completed with what
 *  Go's JSON shows, as a new document; NULL when obj is in its storage version already (or of
 *  a kind with one version). Thread: any. */
json_t *gw_registry__storage_form(const json_t *obj);

/** Whether a custom resource's stored objects are rewritten when res serves them (its CRD has
 *  several versions, so an object may be stored in any, or its schema has defaults); false for
 *  built-ins. */
bool gw_registry__custom_rewrites(const gw_resource_t *res);

/** The value at a simple JSON path (".spec.replicas": dot-separated fields) of obj, or NULL.
 *  Borrowed. Thread: any. */
const json_t *gw_registry__custom_path(const json_t *obj, const char *path);

/** A document parsed as stored (gw_registry__parse_stored with NULL) shown as `as` instead:
 *  converted and completed when it is another version. Thread: any. */
void gw_registry__serve_as(json_t *doc, const gw_resource_t *as);

/**
 * Only the top-level members `names` (n of them) of stored bytes, parsed into a new object
 * (members absent from the bytes are absent from it): what a selector looks at, without
 * parsing the rest. NULL when the bytes are not of the plain shape the scanner reads (the
 * caller parses them whole). Caller decrefs. Thread: any.
 */
json_t *gw_registry__parse_members(const char *json, size_t len, const char *const *names,
                                   size_t n);

/** {"metadata": {"labels": ...}} of stored bytes, the rest unparsed (what a label selector
 *  reads); NULL as gw_registry__parse_members. Caller decrefs. Thread: any. */
json_t *gw_registry__parse_labels(const char *json, size_t len);

/** Append a stored object with its resourceVersion, as gw_registry__parse_stored shows it as
 *  `as` (spliced into the bytes when nothing else changes); false when the bytes are not a JSON
 *  object. */
bool gw_registry__buf_obj(gw_buf_t *b, const gw_obj_t *obj, const gw_resource_t *as);

/* ---- conversion webhooks (gw_registry_conversion.c) ------------------------------------ */

/** Whether res is a custom resource whose CRD converts through a webhook. Thread: any. */
bool gw_registry__converts_by_webhook(const gw_resource_t *res);

/** Whether obj (an object of r's kind) must go through the webhook to be in apiVersion `to`. */
bool gw_registry__webhook_needed(const gw_resource_t *res, const json_t *obj, const char *to);

/** Where a conversion ends: err NULL with the objects converted in place, or kube's message. */
typedef void (*gw_registry_converted_fn)(gw_req_t *r, const char *err, void *arg);

/**
 * Convert the objects of the array objs (of r->resource's kind) that are not in apiVersion
 * `to` through the CRD's webhook, in one ConversionReview (list: a page of a list, named by
 * its list kind in errors); the converted objects replace them in objs, defaulted by the
 * served version's schema. done fires exactly once, maybe at once (nothing to convert), else
 * later on r's worker; objs must live until then. Thread: r's worker.
 */
void gw_registry__webhook_convert(gw_req_t *r, json_t *objs, const char *to, bool list,
                                  gw_registry_converted_fn done, void *arg);

/** gw_registry__reply_doc of an object of r's kind that may be in another version (a stored
 *  one): converted first by the CRD's webhook when it must be. doc is borrowed. */
void gw_registry__reply_doc_as(gw_req_t *r, int code, json_t *doc);

/** Answer a failed conversion as kube's handlers answer its plain error: 500, no reason. */
void gw_registry__reply_conversion_error(gw_req_t *r, const char *err);

/** The apiVersion objects of a custom resource are stored in (in r's arena); NULL for a
 *  built-in one. */
const char *gw_registry__storage_api_version(gw_req_t *r);

/* ---- replies (gw_registry_reply.c) -------------------------------------------------------- */

/** The Table of items (documents of r's version) with list_meta: the printer of the kind's
 *  storage version, as kube prints every version with its internal type's. Caller decrefs. */
json_t *gw_registry__table_of(gw_req_t *r, const json_t *items, const json_t *list_meta,
                              gw_table_include_t include);

/** Answer with a stored object (its resourceVersion spliced in), as JSON or as a Table when
 *  negotiated. Finishes the request. */
void gw_registry__reply_obj(gw_req_t *r, int code, const gw_obj_t *obj);

/** Answer with an object document (a Table when negotiated); doc stays the caller's.
 *  Finishes the request. */
void gw_registry__reply_doc(gw_req_t *r, int code, json_t *doc);

/** The Table of `items` (a JSON array) for the request, or NULL after replying 400 for a bad
 *  includeObject. list_meta may be NULL. */
json_t *gw_registry__table(gw_req_t *r, const json_t *items, const json_t *list_meta);

/** Answer 404 NotFound "the server could not find the requested resource" (a path kube-apiserver
 *  serves no route for). Finishes the request. */
void gw_registry__reply_no_route(gw_req_t *r);

/** Answer 405 MethodNotAllowed for a verb the resource does not serve. Finishes the request. */
void gw_registry__reply_not_allowed(gw_req_t *r);

/** Answer a Status success (a delete of a kind that does not return the object). */
void gw_registry__reply_success(gw_req_t *r, int code, const char *name, const char *uid);

/** A whole decimal int64 query value ("12"; not "", "1x" or out of range). */
bool gw_registry__parse_int(const char *s, int64_t *out);

#endif
