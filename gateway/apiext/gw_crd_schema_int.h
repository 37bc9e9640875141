#ifndef GATEWAY_APIEXT_GW_CRD_SCHEMA_INT_H
#define GATEWAY_APIEXT_GW_CRD_SCHEMA_INT_H

/* What the CRD schema modules share: formats and Go's number texts. */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_catalog.h"
#include "gw_objmeta.h"

/* The format kube keeps (formats.go's StripUnsupportedFormatsPostProcess: a supported one,
   whatever the node's type): format itself, or NULL when kube strips it. */
const char *gw_crd__supported_format(const char *format);

/* Whether s is valid in the supported `format`, as kube-openapi's strfmt registry checks it
   (password accepts anything). */
bool gw_crd__format_ok(const char *format, const char *s);

/* Go's fmt %v of a float64 (strconv 'g' with the shortest digits: 1e+06, 0.5, 1.5e-05). */
void gw_crd__go_float(double v, char *buf, size_t n);

/* Go's encoding/json text of a float64 (1e+21, 0.000001, 1e-7). */
void gw_crd__go_json_float(double v, char *buf, size_t n);

/* A value as kube's field errors print it (strings %q, numbers and booleans %v, null, else
   JSON). Caller frees. */
char *gw_crd__show(const json_t *v);

/* kube's objectmeta Validate of embedded resources: apiVersion and kind present, strings, not
   empty, a group/version; metadata an ObjectMeta that passes ObjectMeta's validation. */
void gw_crd__validate_embedded(const gw_schema_t *root, const json_t *obj, gw_field_errors_t *errs);

/* kube's ValidateListSetsAndMaps: Duplicate value for a set's repeated items and a map's
   repeated keys, Invalid for a map's item that is no object. */
void gw_crd__validate_lists(const gw_schema_t *root, const json_t *obj, gw_field_errors_t *errs);

#endif
