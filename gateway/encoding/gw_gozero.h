#ifndef GATEWAY_ENCODING_GW_GOZERO_H
#define GATEWAY_ENCODING_GW_GOZERO_H

/*
 * The zero values Go's JSON encoder writes. kube-apiserver decodes every object into its Go
 * struct and encodes it again, so its JSON shows fields no client sent: a value struct (never
 * omitted, omitempty or not) as its zero with its own such fields ({}, creationTimestamp: null
 * for a Time, "0" for a Quantity, 0 for an IntOrString, "0s" for a Duration, null for a
 * RawExtension), and a field without omitempty as its zero ("", 0, false; null for a list, map,
 * byte string or pointer). Which fields those are comes from the catalog's Go shape facts
 * (gw_proto_field_shown, gw_schema_t.go_zero).
 *
 * Both the protobuf decoder (fields absent from the wire) and the registry (JSON documents, on
 * every write and on every answer) complete documents with these rules.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_catalog.h"

/* Zero values nest at most this deep by default. */
#define GW_GOZERO_DEPTH_MAX 128

typedef enum {
    GW_GOZERO_OK,
    GW_GOZERO_BUDGET, /* the budget ran out */
    GW_GOZERO_DEPTH,  /* zero structs nested past depth_max */
} gw_gozero_status_t;

/* The state of one completion: how many JSON values it may still add, how deep it is. */
typedef struct {
    size_t budget;            /* values that may still be added (SIZE_MAX: unbounded) */
    int depth;                /* the current nesting, counted against depth_max */
    int depth_max;            /* 0: GW_GOZERO_DEPTH_MAX */
    gw_gozero_status_t st;    /* the first failure; nothing more is added after one */
    const gw_schema_t *where; /* GW_GOZERO_DEPTH: the schema that nested too deep */
} gw_gozero_t;

/** Count one value the caller adds against z's budget; false (z failed) once it is spent or
 *  z failed before. Thread: any. */
bool gw_gozero_spend(gw_gozero_t *z);

/**
 * What Go's JSON shows for the zero value of a value (non-pointer) field of schema s: "" / 0 /
 * false / null for scalars and lists, a special type's zero, a struct's {} with its shown
 * fields. A new value, or NULL once z failed. Thread: any.
 */
json_t *gw_gozero_zero(gw_gozero_t *z, const gw_schema_t *s);

/**
 * What Go's JSON shows for property pf (not an inline struct) left at its zero: a new value, or
 * NULL when Go leaves it out (or z failed). Thread: any.
 */
json_t *gw_gozero_absent(gw_gozero_t *z, const gw_proto_field_t *pf);

/**
 * Give obj every property of message m (and of its inline structs) it lacks that Go's JSON
 * shows; what obj holds is left alone. Thread: any.
 */
void gw_gozero_defaults(gw_gozero_t *z, const gw_proto_message_t *m, json_t *obj);

/**
 * Complete doc, a value of schema s, as Go's JSON of the decoded struct would show it: every
 * absent shown field added, recursively through present objects, lists and maps; a null where
 * a field's Go value cannot be null becomes its zero (or goes, when Go omits it). Values whose
 * JSON type does not fit the schema are left for validation to report. Unbounded (documents
 * are already in memory); doc is modified in place. Thread: any.
 */
void gw_gozero_complete(const gw_schema_t *s, json_t *doc);

/**
 * Whether an object of kind schema s (with the metadata kgate always writes: a
 * creationTimestamp) can lack anything Go's JSON shows, i.e. whether gw_gozero_complete can
 * change it. False for ConfigMaps, Secrets and the like, which are then served untouched.
 * Thread: any.
 */
bool gw_gozero_kind_needed(const gw_schema_t *s);

#endif
