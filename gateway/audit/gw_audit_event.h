#ifndef GATEWAY_AUDIT_GW_AUDIT_EVENT_H
#define GATEWAY_AUDIT_GW_AUDIT_EVENT_H

/*
 * One audit.k8s.io/v1 Event, and its encoding as one line of kube's log backend in the json
 * format: the fields in the Go struct's order, empty ones left out where kube's omitempty
 * leaves them out, strings escaped as Go's encoding/json escapes them, times as metav1.MicroTime
 * ("2006-01-02T15:04:05.000000Z"). The event is filled by the request it describes and encoded
 * at each stage. Pure; thread: any.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_audit_policy.h"

/** authentication.k8s.io/v1 UserInfo (borrowed strings). */
typedef struct {
    const char *name; /* NULL: no user */
    const char *uid;  /* "" or NULL: none */
    const char *const *groups;
    size_t n_groups;
    const json_t *extra; /* an object of string arrays, or NULL */
} gw_audit_user_t;

/** audit.k8s.io/v1 ObjectReference (borrowed; "" or NULL for an absent field). */
typedef struct {
    const char *resource, *namespace_, *name, *uid, *api_group, *api_version, *resource_version,
        *subresource;
} gw_audit_objref_t;

typedef struct {
    gw_audit_level_t level;
    const char *audit_id;
    const char *request_uri;
    const char *verb;
    gw_audit_user_t user;
    const gw_audit_user_t *impersonated; /* NULL when none */
    const char *const *source_ips;
    size_t n_source_ips;
    const char *user_agent;              /* NULL or "": none */
    const gw_audit_objref_t *object_ref; /* NULL: a non-resource request */
    int code;                            /* 0: no response status yet */
    const json_t *status;                /* a metav1.Status answer, or NULL */
    const json_t *request_object;        /* written at Request and above; NULL: none */
    const json_t *response_object;       /* written at RequestResponse; NULL: none */
    bool omit_managed_fields;            /* leave metadata.managedFields out of both */
    int64_t received_us;                 /* wall clock, microseconds since the epoch */
    const json_t *annotations;           /* an object of strings, or NULL */
} gw_audit_event_t;

/**
 * Encode ev at `stage` (stageTimestamp `stage_us`; RequestReceived uses the received time, as
 * kube does) as one JSON line ending in '\n', into a new buffer of *len bytes that the caller
 * frees. Thread: any.
 */
char *gw_audit_event_encode(const gw_audit_event_t *ev, gw_audit_stage_t stage, int64_t stage_us,
                            size_t *len);

/** metav1.MicroTime's text of `us` microseconds since the epoch, into out (28 bytes and the
 *  NUL at least). Returns out. */
char *gw_audit_micro_time(int64_t us, char *out, size_t len);

/** Write v as Go's encoding/json writes it (HTML-safe escaping, object keys in their order;
 *  `omit_mf`: without metadata.managedFields, in items too). */
struct gw_buf;
void gw_audit_json_write(struct gw_buf *b, const json_t *v, bool omit_mf);

#endif
