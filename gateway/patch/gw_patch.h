#ifndef GATEWAY_PATCH_GW_PATCH_H
#define GATEWAY_PATCH_GW_PATCH_H

/*
 * JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386) on Jansson documents. Pure functions:
 * the input document is never modified; the result is a new document.
 */

#include <stddef.h>

#include <jansson.h>

/** kube-apiserver refuses a JSON patch of more operations with a 413 ("The allowed maximum
 *  operations in a JSON patch is 10000, got N"); the caller counts before applying. */
#define GW_JSON_PATCH_MAX_OPS 10000

/**
 * Apply an RFC 6902 patch (a JSON array of operations: add, remove, replace, move, copy,
 * test; JSON Pointer with ~0/~1 escapes; "-" appends). Returns a new document (caller
 * decrefs), or NULL with a one-line reason in err (kube-apiserver answers 422 for a patch that
 * fails to apply, 400 for one that is not a valid patch; *bad_request tells which).
 * Thread: any.
 */
json_t *gw_json_patch(const json_t *doc, const json_t *patch, int *bad_request, char *err,
                      size_t err_len);

/** Apply an RFC 7386 merge patch: objects merge recursively, null deletes, anything else
 *  replaces. Returns a new document (caller decrefs). Thread: any. */
json_t *gw_merge_patch(const json_t *doc, const json_t *patch);

#endif
