#ifndef AUTHZ_AUTHZ_ABAC_H
#define AUTHZ_AUTHZ_ABAC_H

/*
 * ABAC: a fixed list of policies read at start-up from --authorization-policy-file, one JSON
 * Policy (abac.authorization.kubernetes.io/v1beta1, or the unversioned format: a line without
 * apiVersion, converted as kube converts it) per line, matched as kube's ABAC authorizer
 * (pkg/auth/authorizer/abac) does. It allows or has no opinion. The process holds
 * one policy list, set on the main thread before the workers start and read-only afterwards.
 */

#include <stdbool.h>
#include <stddef.h>

#include "authz.h"

typedef struct authz_abac authz_abac_t;

/**
 * Policies from `text` (the file's contents; `path` names it in errors). Blank lines and lines
 * starting with '#' are skipped. A line that is neither a v1beta1 nor an unversioned Policy
 * -> GW_EINVAL with kube's
 * "error reading policy file PATH, line N: LINE: why" in err. The caller frees *out.
 * Thread: any.
 */
int authz_abac_parse(const char *path, const char *text, authz_abac_t **out, char *err,
                     size_t err_len);

/** Free a policy list (NULL is fine). Thread: any. */
void authz_abac_free(authz_abac_t *pl);

/** Whether some policy of pl allows attrs. Thread: any. */
bool authz_abac_allows(const authz_abac_t *pl, const authz_attrs_t *attrs);

/**
 * Read the policy file at `path` and make it the process's policy list, which the "ABAC" mode
 * consults (until then it has no opinion). An unreadable file or a bad line -> an error code
 * and the reason in err. Thread: main, at start-up.
 */
int authz_abac_use_file(const char *path, char *err, size_t err_len);

/** The "ABAC" mode of the chain; its free() drops the process's policy list. */
extern authz_authorizer_t authz_abac_authorizer;

#endif
