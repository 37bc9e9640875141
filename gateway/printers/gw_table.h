#ifndef GATEWAY_PRINTERS_GW_TABLE_H
#define GATEWAY_PRINTERS_GW_TABLE_H

/*
 * Table output (meta.k8s.io/v1 Table, spec 2.5): kube-apiserver's printer columns for the
 * common built-in kinds, and the default Name / Created At columns for the others.
 */

#include <stdbool.h>

#include <jansson.h>

#include "gw_catalog.h"

typedef enum {
    GW_TABLE_INCLUDE_NONE,     /* includeObject=None */
    GW_TABLE_INCLUDE_METADATA, /* the default: PartialObjectMetadata */
    GW_TABLE_INCLUDE_OBJECT,   /* includeObject=Object */
} gw_table_include_t;

/**
 * A Table (apiVersion meta.k8s.io/<table_version>) for `items` (an array of objects of
 * resource r; one object for a get) with columnDefinitions and one row per item (cells, pods'
 * Completed conditions, and object as `include` says: PartialObjectMetadata, the object, or
 * null). `list_meta` (may be NULL) is copied into the Table's metadata (resourceVersion,
 * continue, remainingItemCount; for a get, kube-apiserver puts the object's resourceVersion
 * there). `now` is the reference time for AGE-like columns (seconds since the epoch).
 * Kinds without printer columns in kube-apiserver (roles and cluster roles among them) get
 * Name and Created At. Returns a new document (caller decrefs) that shares the items' values
 * by reference. Thread: any.
 */
json_t *gw_table_build(const gw_resource_t *r, const json_t *items, const json_t *list_meta,
                       const char *table_version, gw_table_include_t include, long long now);

#endif
