#ifndef GATEWAY_META_GW_GOTYPE_H
#define GATEWAY_META_GW_GOTYPE_H

/* Go's name for the type of a JSON value decoded into interface{} (fmt's %T), as kube's
 * messages print it. */

#include <jansson.h>

/** "map[string]interface {}", "[]interface {}", "string", "int64", "float64", "bool", or
 *  "<nil>" for null and NULL. Static. Thread: any. */
const char *gw_json_go_type(const json_t *v);

#endif
