#ifndef GATEWAY_CONTROLLERS_GW_CTL_INT_H
#define GATEWAY_CONTROLLERS_GW_CTL_INT_H

/* Internals shared by the controllers' files: stored objects as JSON, and their metadata. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_json_strings.h"
#include "gw_objmeta.h"
#include "gw_store.h"
#include "gw_time.h"

/** The stored object's JSON if it is an object, else NULL. Caller decrefs. */
json_t *gw_ctl__parse(const gw_obj_t *obj);

/** gw_ctl__parse with only apiVersion, kind and of metadata uid, namespace, name,
 *  ownerReferences, deletionTimestamp and finalizers: what the garbage collector reads of every
 *  object, without building the rest (labels, annotations, managedFields). New reference or
 *  NULL, as gw_ctl__parse. */
json_t *gw_ctl__parse_meta(const gw_obj_t *obj);

/** Whether v is the JSON string s. */
bool gw_ctl__str_is(const json_t *v, const char *s);

/** Compact JSON of `o` as the store keeps it: without metadata.resourceVersion (that is the
 *  key's mod_revision). A new malloc'd buffer (no NUL counted in *len); caller frees. */
uint8_t *gw_ctl__dump(json_t *o, size_t *len);

#endif
