#ifndef GATEWAY_REGISTRY_GW_CONTINUE_H
#define GATEWAY_REGISTRY_GW_CONTINUE_H

/*
 * List continue tokens, in kube-apiserver's format (k8s.io/apiserver/pkg/storage/continue.go):
 * base64url without padding of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key>"}, where
 * key is the next page's first etcd key relative to the collection's prefix. Any instance can
 * serve the next page, and kube-apiserver's tokens for the same collection read the same.
 * Pure; thread: any.
 */

#include <stddef.h>
#include <stdint.h>

/** A token for the page starting at `start` (relative key) at `revision`. Caller frees. */
char *gw_continue_encode(int64_t revision, const char *start);

/**
 * Decode a token: 0 with *revision (> 0, or -1: continue at the latest revision, as a 410's
 * inconsistent-continue token asks) and *start (the relative key, cleaned; caller frees), or
 * GW_EINVAL with kube's reason in err (kube answers 400 "invalid continue token: <reason>").
 */
int gw_continue_decode(const char *token, int64_t *revision, char **start, char *err,
                       size_t err_len);

#endif
