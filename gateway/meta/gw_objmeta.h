#ifndef GATEWAY_REGISTRY_GW_OBJMETA_H
#define GATEWAY_REGISTRY_GW_OBJMETA_H

/*
 * Object metadata as kube-apiserver's generic registry treats it (k8s.io/apiserver/pkg/registry/
 * rest: FillObjectMetaSystemFields, BeforeCreate, BeforeUpdate; k8s.io/apimachinery's
 * ValidateObjectMeta and ValidateObjectMetaUpdate), on Jansson documents, and kube's field
 * errors (field.ErrorList) with their exact wording. Pure but for the random sources of uid and
 * generateName; thread: any.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* ---- field errors ----------------------------------------------------------------------- */

/** A field.ErrorList kept as metav1.StatusCause documents ({reason, message, field}). */
typedef struct {
    json_t *causes; /* an array, created on the first error; NULL while there is none */
} gw_field_errors_t;

/** Add an error as it is: cause `reason` ("FieldValueInvalid", ...), field and message (the
 *  part after "<field>: "). */
void gw_ferr_add(gw_field_errors_t *e, const char *reason, const char *field, const char *message);

/** Release the causes (the struct itself is the caller's). */
void gw_ferr_clear(gw_field_errors_t *e);

/** Invalid value: `<field>: Invalid value: <value>: <detail>`; the value is shown as kube shows
 *  it (strings quoted as Go's %q, numbers and booleans bare, null as null). */
void gw_ferr_invalid(gw_field_errors_t *e, const char *field, const json_t *value,
                     const char *detail);

/** The same for a string value. */
void gw_ferr_invalid_str(gw_field_errors_t *e, const char *field, const char *value,
                         const char *detail);

/** `<field>: Required value[: <detail>]` (detail may be NULL). */
void gw_ferr_required(gw_field_errors_t *e, const char *field, const char *detail);

/** `<field>: Forbidden: <detail>`. */
void gw_ferr_forbidden(gw_field_errors_t *e, const char *field, const char *detail);

/** `<field>: Unsupported value: "<value>": supported values: "a", "b"` (supported is
 *  NULL-terminated). */
void gw_ferr_not_supported(gw_field_errors_t *e, const char *field, const char *value,
                           const char *const *supported);

/** `<field>: Too long: may not be more than <max> bytes`. */
void gw_ferr_too_long(gw_field_errors_t *e, const char *field, size_t max);

/** `<field>: Duplicate value: "<value>"`. */
void gw_ferr_duplicate(gw_field_errors_t *e, const char *field, const char *value);

/** `<field>: Too many: <actual>: must have at most <max> items` (field.TooMany). */
void gw_ferr_too_many(gw_field_errors_t *e, const char *field, size_t actual, size_t max);

/** Go's %q of s (what kube's field errors show of a string), malloc'd; the caller frees it. */
char *gw_ferr_quote(const char *s);

/** Number of errors recorded. */
size_t gw_ferr_count(const gw_field_errors_t *e);

/**
 * kube's aggregate text of the list: the one error ("metadata.name: Required value: ...") or
 * "[e1, e2]" for several; what follows `<Kind> "<name>" is invalid: ` in a 422. Caller frees.
 */
char *gw_ferr_summary(const gw_field_errors_t *e);

/* ---- names ------------------------------------------------------------------------------ */

/** How a kind's names are validated (its strategy's ValidateNameFunc). */
typedef enum {
    GW_NAME_SUBDOMAIN,    /* DNS-1123 subdomain: most kinds */
    GW_NAME_LABEL,        /* DNS-1123 label: namespaces */
    GW_NAME_DNS1035,      /* DNS-1035 label: services */
    GW_NAME_PATH_SEGMENT, /* any path segment: RBAC kinds and a few others */
} gw_name_rule_t;

/**
 * kube's name check, or with `prefix` its generateName check (a trailing '-' is allowed).
 * NULL when valid, else the message. Thread: any.
 */
const char *gw_objmeta_check_name(gw_name_rule_t rule, const char *name, bool prefix);

/** generateName's result: base (cut to 58 characters) plus 5 random characters from kube's
 *  alphabet "bcdfghjklmnpqrstvwxz2456789". Caller frees. */
char *gw_objmeta_generate_name(const char *base);

/* ---- preparation ------------------------------------------------------------------------ */

/** The object's metadata object, created (empty) when missing or not an object. */
json_t *gw_objmeta_get(json_t *obj);

/** A string member of metadata, or NULL. */
const char *gw_objmeta_str(const json_t *obj, const char *member);

/**
 * Create-time system fields: uid and creationTimestamp set (now), deletionTimestamp and
 * deletionGracePeriodSeconds removed (FillObjectMetaSystemFields and BeforeCreate).
 */
void gw_objmeta_prepare_create(json_t *obj, const char *uid, const char *now);

/**
 * BeforeUpdate's carry-overs from the stored object `old`: generation (requests cannot set it),
 * uid when the update has none, creationTimestamp, deletionTimestamp once set, and
 * deletionGracePeriodSeconds when the update drops it.
 */
void gw_objmeta_prepare_update(json_t *obj, const json_t *old);

/** Drop what is never stored: metadata.resourceVersion and metadata.selfLink (kube's
 *  PrepareObjectForStorage). */
void gw_objmeta_strip_for_storage(json_t *obj);

/* ---- validation ------------------------------------------------------------------------- */

/**
 * ValidateObjectMeta: name (or generateName) by `rule`, namespace presence by scope, labels,
 * annotations (keys and total size), finalizers, generation, ownerReferences basics.
 */
void gw_objmeta_validate(const json_t *obj, bool namespaced, gw_name_rule_t rule,
                         gw_field_errors_t *errs);

/** ValidateObjectMetaUpdate's immutable fields: name, namespace, uid, creationTimestamp,
 *  deletionTimestamp, deletionGracePeriodSeconds (after gw_objmeta_prepare_update). */
void gw_objmeta_validate_update(const json_t *obj, const json_t *old, gw_field_errors_t *errs);

/**
 * Warnings kube attaches to a write for its metadata (finalizer names that are neither standard
 * nor domain-qualified). Calls warn(text, arg) once per warning.
 */
void gw_objmeta_warnings(const json_t *obj, void (*warn)(const char *text, void *arg), void *arg);

/** Whether o's metadata.deletionTimestamp is set (non-null). Thread: any. */
bool gw_objmeta_deleting(const json_t *o);

#endif
