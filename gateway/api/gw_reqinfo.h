#ifndef GATEWAY_API_GW_REQINFO_H
#define GATEWAY_API_GW_REQINFO_H

/*
 * Request info: what a request asks for, read from its method, path and query alone, as
 * kube-apiserver's RequestInfoFactory does (spec 5.4's verb mapping):
 *   /api/v1/namespaces/{ns}/{resource}/{name}/{subresource}
 *   /apis/{group}/{version}/{resource}/{name}
 *   /apis/{group}/{version}/watch/... (legacy watch paths)
 * GET on a collection is list (watch with ?watch=1|true), GET on an object is get, POST is
 * create, PUT update, PATCH patch, DELETE on an object delete and on a collection
 * deletecollection. Namespaces are the one resource whose name segment may be followed by a
 * subresource (status, finalize) rather than by a namespaced collection.
 * Anything else (/healthz, /version, /api, /apis, /apis/{group}, /openapi/...) is a
 * non-resource request whose verb is the lowercase HTTP method.
 */

#include <stdbool.h>

#include "gw_arena.h"

typedef struct {
    bool is_resource;       /* a resource request (else: non-resource, path only) */
    const char *verb;       /* see above */
    const char *path;       /* the decoded path */
    const char *api_prefix; /* "api" or "apis" (resource requests) */
    const char *group;      /* "" for core */
    const char *version;
    const char *namespace_; /* "" when cluster-scoped or all namespaces */
    const char *resource;
    const char *subresource; /* "" when none */
    const char *name;        /* "" when none */
} gw_reqinfo_t;

/**
 * Fill *out from method ("GET", ...), the raw request path (percent-encoded, without the query)
 * and the raw query (may be NULL). Strings are allocated in arena a. Returns 0, or GW_EINVAL
 * for a path that cannot be decoded or has empty or "."/".." segments (the caller answers 400
 * or 404). Thread: any. Pure; fuzzed.
 */
int gw_reqinfo_parse(gw_arena_t *a, const char *method, const char *raw_path, const char *query,
                     gw_reqinfo_t *out);

/** kube's BasicLongRunningRequestCheck: the watch and proxy verbs and the streaming
 *  subresources (attach, exec, proxy, log, portforward) of resource requests. Pure. */
bool gw_reqinfo_long_running(const gw_reqinfo_t *i);

#endif
