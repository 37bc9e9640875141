#ifndef GATEWAY_APIEXT_GW_CRD_RULES_H
#define GATEWAY_APIEXT_GW_CRD_RULES_H

/*
 * x-kubernetes-validations: the CEL rules of a CRD version's schema, as kube-apiserver 1.32's
 * apiextensions-apiserver compiles them (pkg/apiserver/schema/cel/compilation.go), evaluates
 * them against custom objects (validation.go) and checks them when a CRD is written
 * (pkg/apis/apiextensions/validation: compile errors, estimated cost limits, where transition
 * rules may be).
 *
 * Each node's rules see `self` typed by the node's schema (a resource root or an embedded
 * resource with apiVersion, kind, metadata.name and metadata.generateName only) and, for
 * transition rules, `oldSelf` of the same type (an optional one under optionalOldSelf).
 */

#include <stdint.h>

#include <jansson.h>

#include "gw_arena.h"
#include "gw_catalog.h"
#include "gw_objmeta.h"

struct gw_crd_version;

/* kube's limits (apiextensions validation and k8s.io/apiserver pkg/apis/cel/config.go). */
#define GW_CRD_RULE_COST_LIMIT 10000000ULL         /* StaticEstimatedCostLimit */
#define GW_CRD_RULES_TOTAL_COST_LIMIT 100000000ULL /* StaticEstimatedCRDCostLimit */
#define GW_CRD_RULES_RUNTIME_BUDGET 10000000LL     /* RuntimeCELCostBudget, per object */
#define GW_CRD_RULE_CALL_LIMIT 1000000ULL          /* PerCallLimit, per evaluation */

/** The compiled rules of one schema tree (opaque; immutable once built). */
typedef struct gw_crd_rules gw_crd_rules_t;

/**
 * Compile every rule (and messageExpression) of the tree under `root` (a gw_crd_schema_compile
 * tree) once, into `a` (environments and programs are released with it). NULL when the tree
 * has no rule. Rules that do not compile are kept with their error, which evaluation reports
 * as kube does ("rule compile error: ..."). Thread: any.
 */
const gw_crd_rules_t *gw_crd_rules_compile(gw_arena_t *a, const gw_schema_t *root);

/**
 * Run the rules of cv's schema on obj (old: the stored object on an update, else NULL), as
 * kube's custom resource strategy does after its schema checks: nothing runs when errs
 * already holds a blocking error (not supported, required, too long, too many, wrong type),
 * which adds kube's "some validation rules were not checked" error instead. Rules of each
 * node run on its value (nulls skipped) with the correlated old value (object and map keys,
 * map lists by their keys, set elements by equality); transition rules only where one
 * exists (optionalOldSelf ones always); one runtime budget for the whole object. Failures
 * are appended to errs in kube's words and paths. Thread: any.
 */
void gw_crd_rules_validate(const struct gw_crd_version *cv, const json_t *obj, const json_t *old,
                           gw_field_errors_t *errs);

/**
 * The CRD-side checks of the rules of one openAPIV3Schema (v1 JSON) at `path`
 * ("spec.versions[0].schema.openAPIV3Schema"): each rule and messageExpression compiles to a
 * bool and a string, estimated costs (times the rule's cardinality) within
 * StaticEstimatedCostLimit, the schema's total within StaticEstimatedCRDCostLimit, oldSelf only
 * where old and new values correlate. The caller calls it only for a structural schema
 * without schema errors (kube's condition). kube's errors are appended to errs.
 * Thread: any.
 */
void gw_crd_rules_check(const json_t *schema, const char *path, gw_field_errors_t *errs);

#endif
