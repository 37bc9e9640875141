#ifndef GATEWAY_REGISTRY_GW_DEFAULTS_H
#define GATEWAY_REGISTRY_GW_DEFAULTS_H

/*
 * kube-apiserver's defaulting of built-in kinds (the generated SetObjectDefaults_* of
 * k8s.io/kubernetes pkg/apis/<group>/<version>, with the SetDefaults_* functions and the
 * +default markers they call, down to nested pod templates, containers, probes and volumes),
 * plus the Service fields kube's service storage fills in before allocation (ipFamilyPolicy,
 * ipFamilies, clusterIPs). Pure; thread: any.
 */

#include <jansson.h>

/**
 * Default `obj`, an object of kind `kind` in `group` ("" for core) and `version` as decoded
 * from a request: every field kube v1.32 defaults and `obj` leaves unset is set; a set value is
 * never changed (but for the few places kube itself normalises, such as a Service's
 * sessionAffinityConfig under sessionAffinity None). `old` is the stored object an update
 * replaces (NULL on create); only Services read it, for kube's update rules of their IP
 * fields. Kinds without defaults are left alone. `obj` is modified in place; `old` is only
 * read.
 */
void gw_defaults_apply(const char *group, const char *version, const char *kind, json_t *obj,
                       const json_t *old);

#endif
