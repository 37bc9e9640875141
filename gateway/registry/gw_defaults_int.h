#ifndef GATEWAY_REGISTRY_GW_DEFAULTS_INT_H
#define GATEWAY_REGISTRY_GW_DEFAULTS_INT_H

/* Internals shared by the gw_defaults*.c files. Pure; thread: any. */

#include <stdbool.h>

#include <jansson.h>

/* ---- field defaults as data (gw_defaults.c) ------------------------------------------------ */

typedef enum {
    GW_DEF_STR,
    GW_DEF_INT,
    GW_DEF_BOOL,
    GW_DEF_OBJ, /* an empty object: a pointer to a struct whose fields all default to zero */
} gw_def_type_t;

/**
 * One defaulted field. Go decides what "unset" means by the field's type: a pointer is unset
 * when nil (absent or null in JSON); a plain value also when it holds its zero value ("", 0,
 * false), which kube's defaulters test for (`if obj.DNSPolicy == ""`).
 */
typedef struct {
    const char *key; /* NULL ends a table */
    gw_def_type_t type;
    bool zero_is_unset;
    const char *s;
    long long i;
} gw_def_t;

/* clang-format off */
#define GW_ZERO_STR(k, v) {.key = (k), .type = GW_DEF_STR, .zero_is_unset = true, .s = (v)}
#define GW_ZERO_INT(k, v) {.key = (k), .type = GW_DEF_INT, .zero_is_unset = true, .i = (v)}
#define GW_NIL_STR(k, v) {.key = (k), .type = GW_DEF_STR, .s = (v)}
#define GW_NIL_INT(k, v) {.key = (k), .type = GW_DEF_INT, .i = (v)}
#define GW_NIL_BOOL(k, v) {.key = (k), .type = GW_DEF_BOOL, .i = (v)}
#define GW_NIL_OBJ(k) {.key = (k), .type = GW_DEF_OBJ}
#define GW_DEF_END {.key = NULL}
/* clang-format on */

/** Whether member `key` of `o` is unset: absent or null. */
bool gw_defaults__nil(const json_t *o, const char *key);

/** Whether member `key` of `o` is absent, null or Go's zero value ("", 0, 0.0, false). */
bool gw_defaults__zero(const json_t *o, const char *key);

/** Set every field of `defs` that `o` leaves unset (nothing when `o` is not an object). */
void gw_defaults__fill(json_t *o, const gw_def_t *defs);

/** Member `key` of `o` as an object, created empty when unset (Go's plain struct fields, which
 *  always exist); NULL when `o` is not an object or the member is not one. */
json_t *gw_defaults__member(json_t *o, const char *key);

/** Set member `key` of `o` to `v` (stolen) when it is unset (absent or null). */
void gw_defaults__set_nil(json_t *o, const char *key, json_t *v);

/** Whether member `key` of `o` is the string `value`. */
bool gw_defaults__is(const json_t *o, const char *key, const char *value);

/** Set member `key` of `o` to a copy of `from` when `from` is a non-empty object and the member
 *  is an empty one or unset (kube's "selector and labels from the template's labels"). */
void gw_defaults__copy_if_empty(json_t *o, const char *key, const json_t *from);

/** Call fn(node, arg) on every object `path` reaches from `root`. The path is dotted member
 *  names; a name ending in "[]" goes through each element of that array ("subsets[].ports[]").
 *  Nothing is created on the way. */
void gw_defaults__each(json_t *root, const char *path, void (*fn)(json_t *node, const void *arg),
                       const void *arg);

/** gw_defaults__fill on every object `path` reaches from `root`. */
void gw_defaults__fill_at(json_t *root, const char *path, const gw_def_t *defs);

/* ---- pods (gw_defaults_pod.c) ------------------------------------------------------------- */

/** A PodSpec wherever it is: SetDefaults_PodSpec, its volumes, its containers, init and
 *  ephemeral containers (probes, ports, env, lifecycle handlers). */
void gw_defaults__pod_spec(json_t *spec);

/** A PodTemplateSpec (its spec, when it has one). */
void gw_defaults__pod_template(json_t *tmpl);

/** What kube defaults on Pods alone (SetDefaults_Pod): requests from limits, enableServiceLinks,
 *  host ports under hostNetwork. */
void gw_defaults__pod_only(json_t *spec);

/** The defaults of every volume source in `src`, the object holding them (a pod volume, or a
 *  PersistentVolume's spec, which shares hostPath, iscsi, rbd, azureDisk and scaleIO). */
void gw_defaults__volume_sources(json_t *src);

/** A PersistentVolumeClaim, or a StatefulSet's claim template: status phase and volumeMode. */
void gw_defaults__pvc(json_t *pvc);

/* ---- kinds (gw_defaults_core.c, gw_defaults_apps.c, gw_defaults_apis.c) ------------------- */

/* Each defaults one kind's object, for the kinds whose rules are more than a table of fields
 * (gw_defaults.c holds those tables). Pod templates are the table's business, not theirs. */
typedef void gw_kind_defaults_fn(json_t *obj);

gw_kind_defaults_fn gw_defaults__pod, gw_defaults__replication_controller,
    gw_defaults__persistent_volume, gw_defaults__limit_range, gw_defaults__node;

/** A Service; `old` is the stored one an update replaces, or NULL (kube's IP field rules). */
void gw_defaults__service(json_t *svc);

gw_kind_defaults_fn gw_defaults__deployment, gw_defaults__stateful_set, gw_defaults__daemon_set,
    gw_defaults__job;

gw_kind_defaults_fn gw_defaults__network_policy, gw_defaults__role_binding, gw_defaults__hpa_v2,
    gw_defaults__csi_driver, gw_defaults__validating_webhooks, gw_defaults__mutating_webhooks,
    gw_defaults__admission_policy, gw_defaults__admission_policy_binding, gw_defaults__crd;

#endif
