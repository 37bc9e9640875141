#ifndef GATEWAY_CONTROLLERS_GW_CTL_INT_H
#define GATEWAY_CONTROLLERS_GW_CTL_INT_H

/* Internals shared by the controllers' files: stored objects as JSON, and their metadata. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gw_json_strings.h"
#include "gw_store.h"
#include "gw_time.h"

/** The stored object's JSON if it is an object, else NULL. Caller decrefs. */
json_t *gw_ctl__parse(const gw_obj_t *obj);

/** Compact JSON of `o` as the store keeps it: without metadata.resourceVersion (that is the
 *  key's mod_revision). A new malloc'd buffer (no NUL counted in *len); caller frees. */
uint8_t *gw_ctl__dump(json_t *o, size_t *len);

/** The object member `name` of `o`, created (as {}) when missing or not an object. */
json_t *gw_ctl__child(json_t *o, const char *name);

/** metadata.deletionTimestamp is set (non-null). */
bool gw_ctl__deleting(const json_t *o);

/** The array at o.<a>.<b> (e.g. "metadata", "finalizers"), or NULL. */
json_t *gw_ctl__array(const json_t *o, const char *a, const char *b);

/** The number of entries of the array at o.<a>.<b> (0 when it is missing). */
size_t gw_ctl__count(const json_t *o, const char *a, const char *b);

/** Remove every `s` from the string array at o.<a>.<b>; returns whether any was removed. */
bool gw_ctl__remove(json_t *o, const char *a, const char *b, const char *s);

/** Append `s` to the string array at o.<a>.<b> (created when missing) unless it is there;
 *  returns whether it was added. */
bool gw_ctl__add(json_t *o, const char *a, const char *b, const char *s);

#endif
