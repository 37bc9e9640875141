#ifndef GATEWAY_META_GW_NAMESPACE_NAMES_H
#define GATEWAY_META_GW_NAMESPACE_NAMES_H

/* The names namespace lifecycle shares between the registry's namespace strategy and the
 * namespace controller (k8s.io/api/core/v1's constants). */

/** The spec.finalizers entry the namespace controller owns (FinalizerKubernetes). */
#define GW_NAMESPACE_FINALIZER "kubernetes"
/** The label kube puts on every namespace: its own name (v1.LabelMetadataName). */
#define GW_NAMESPACE_NAME_LABEL "kubernetes.io/metadata.name"
/** The resource path of namespaces in etcd ("<prefix>/namespaces/<name>"). */
#define GW_NAMESPACE_RESOURCE "namespaces"

#endif
