#ifndef GATEWAY_REGISTRY_GW_REGISTRY_INT_H
#define GATEWAY_REGISTRY_GW_REGISTRY_INT_H

/* Internals shared by the gw_registry*.c files. Thread: the request's worker, as gw_req.h. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_req.h"

/* ---- verbs (gw_registry_<verb>.c) --------------------------------------------------------- */

void gw_registry__get(gw_req_t *r);

/* ---- request helpers (gw_registry.c) ------------------------------------------------------ */

/** The relative etcd key of the object the request names (r->info.name in its namespace), in
 *  the arena; NULL when a segment cannot be a key (the caller answers 400). */
const char *gw_registry__object_key(gw_req_t *r, const char *name);

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
 * The stored object `json` with metadata.resourceVersion set to rev (as a string), as new
 * malloc'd bytes (caller frees) of *out_len bytes; NULL when json is not a JSON object.
 * Splices when it can, parses otherwise. Thread: any.
 */
char *gw_registry__with_rv(const char *json, size_t len, int64_t rev, size_t *out_len);

/**
 * Parse stored bytes into a new document with metadata.resourceVersion = rev (rev <= 0: none
 * set). NULL when the bytes are not a JSON object. Caller decrefs. Thread: any.
 */
json_t *gw_registry__parse_stored(const char *json, size_t len, int64_t rev);

/* ---- replies (gw_registry_reply.c) -------------------------------------------------------- */

/** Answer with a stored object (its resourceVersion spliced in), as JSON or as a Table when
 *  negotiated. Finishes the request. */
void gw_registry__reply_obj(gw_req_t *r, int code, const gw_obj_t *obj);

/** Answer 404 NotFound "the server could not find the requested resource" (a path kube-apiserver
 *  serves no route for). Finishes the request. */
void gw_registry__reply_no_route(gw_req_t *r);

/** Answer 405 MethodNotAllowed for a verb the resource does not serve. Finishes the request. */
void gw_registry__reply_not_allowed(gw_req_t *r);

#endif
