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
 * from a request (kube defaults at decoding, so before admission sees the object): every field
 * kube v1.32 defaults and `obj` leaves unset is set; a set value is never changed (but for the
 * few places kube itself normalises, such as a Service's sessionAffinityConfig under
 * sessionAffinity None). Kinds without defaults are left alone. `obj` is modified in place.
 */
void gw_defaults_apply(const char *group, const char *version, const char *kind, json_t *obj);

/**
 * What kube's Service storage fills in before it allocates (after admission): the addresses and
 * families a decoded Service `svc` leaves out, taken from `old` (the stored Service an update
 * replaces, NULL on create) where it has them, else kube's single-stack IPv4 choices; node
 * ports an update left out are kept. ExternalName Services are left alone. `svc` is modified
 * in place; `old` is only read.
 */
void gw_defaults_service_addresses(json_t *svc, const json_t *old);

#endif
