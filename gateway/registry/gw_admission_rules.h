#ifndef GATEWAY_REGISTRY_GW_ADMISSION_RULES_H
#define GATEWAY_REGISTRY_GW_ADMISSION_RULES_H

/*
 * The admission configurations' shared rules, as pkg/apis/admissionregistration/validation
 * validates them: RuleWithOperations (operations, apiGroups, apiVersions, resources with their
 * wildcards, scope), NamedRuleWithOperations (resourceNames) and MatchResources (matchPolicy,
 * the selectors, resourceRules, excludeResourceRules). The admission policies use them; the
 * webhook configurations' `rules` are a list of RuleWithOperations. Pure; thread: any.
 */

#include <jansson.h>

#include "gw_objmeta.h"

/** validateRuleWithOperations of `rule` at `path` (errors appended to errs). */
void gw_admission_rule_validate(const json_t *rule, const char *path, gw_field_errors_t *errs);

/** validateRuleWithOperations of each element of `rules` (an array; NULL: none), at
 *  `path`[i]: a webhook's `rules`. */
void gw_admission_rules_validate(const json_t *rules, const char *path, gw_field_errors_t *errs);

/** validateNamedRuleWithOperations: resourceNames (path segment names, no duplicates), then
 *  the rule. */
void gw_admission_named_rule_validate(const json_t *rule, const char *path,
                                      gw_field_errors_t *errs);

/** validateMatchResources of `mr` (NULL or JSON null: nothing) at `path`. */
void gw_admission_match_resources_validate(const json_t *mr, const char *path,
                                           gw_field_errors_t *errs);

/** NotSupported unless `value` is "Fail" or "Ignore" (the supported failure policies). */
void gw_admission_failure_policy_validate(const char *value, const char *path,
                                          gw_field_errors_t *errs);

/** Go's %#v of a string slice of Go type `go_type` ("[]string",
 *  "[]admissionregistration.OperationType"): `[]string{"a", "b"}`. malloc'd. */
char *gw_admission_go_strings(const char *go_type, const json_t *arr);

/** An Invalid error whose value is a string slice shown as gw_admission_go_strings does. */
void gw_admission_invalid_strings(gw_field_errors_t *errs, const char *path, const char *go_type,
                                  const json_t *arr, const char *detail);

#endif
