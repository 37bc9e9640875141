#ifndef GATEWAY_ENCODING_GW_PARTIAL_H
#define GATEWAY_ENCODING_GW_PARTIAL_H

/*
 * PartialObjectMetadata (meta.k8s.io v1 and v1beta1): the metadata-only view of objects that
 * metadata clients ask for (`as=PartialObjectMetadata` and `as=PartialObjectMetadataList` in
 * Accept), as kube-apiserver's transformObject builds it: {kind, apiVersion, metadata} for an
 * object, {kind, apiVersion, metadata: ListMeta, items} for a list whose items carry their own
 * kind and apiVersion. Its protobuf messages are PartialObjectMetadata {metadata=1} and
 * PartialObjectMetadataList {metadata=1, items=2}.
 */

#include <stdbool.h>

#include <jansson.h>

#include "gw_catalog.h"

/**
 * The PartialObjectMetadata of obj (its metadata, shared by reference) in meta.k8s.io/version.
 * Returns a new document (the caller owns it). Thread: any.
 */
json_t *gw_partial_object(const json_t *obj, const char *version);

/**
 * The Go package kube's messages name a kind of `group` by (its internal type, as in
 * "(*core.ConfigMap)"): core for the core group and events.k8s.io, apiserverinternal for
 * internal.apiserver.k8s.io, else the group's first label. Returns a static string or one of
 * buf's (at least 64 bytes). Thread: any.
 */
const char *gw_partial_go_package(const char *group, char *buf);

/** "meta.k8s.io/<version>" as a static string ("v1" or "v1beta1"; others give v1's). */
const char *gw_partial_api_version(const char *version);

/**
 * The schema of PartialObjectMetadata (list false) or PartialObjectMetadataList (list true),
 * with its protobuf facts, built from the catalog's ObjectMeta and ListMeta definitions on
 * first use (process lifetime). Thread: any.
 */
const gw_schema_t *gw_partial_schema(bool list);

#endif
