#ifndef AUTHZ_AUTHZ_RBAC_INT_H
#define AUTHZ_AUTHZ_RBAC_INT_H

/* RBAC internals: rule and subject matching (authz_rbac_match.c), shared with the snapshot. */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "authn.h"
#include "authz.h"

/** kube's RuleAllows: whether one PolicyRule allows the request. */
bool authz__rule_allows(const json_t *rule, const authz_attrs_t *a);

/** kube's appliesToUser: whether a binding's subject names `u`; ns is the binding's namespace
 *  ("" for a ClusterRoleBinding), the default of a ServiceAccount subject's. */
bool authz__subject_applies(const json_t *subject, const authn_user_t *u, const char *ns);

/** One permission of a rule broken down as kube's BreakdownRule does: a verb on one group's
 *  resource (optionally one name), or a verb on one non-resource URL. */
typedef struct {
    const char *verb;
    const char *group, *resource, *name; /* resource permissions; name may be NULL */
    const char *url;                     /* non-resource permissions, else NULL */
} authz__perm_t;

/** kube's ruleCovers for one permission: whether owner (a PolicyRule) grants p. */
bool authz__rule_covers(const json_t *owner, const authz__perm_t *p);

/** Call fn for each permission of `rule` (kube's BreakdownRule); stops at the first false. */
bool authz__breakdown(const json_t *rule, bool (*fn)(const authz__perm_t *p, void *ctx), void *ctx);

/** Whether the string array arr holds s. */
bool authz__has(const json_t *arr, const char *s);

#endif
