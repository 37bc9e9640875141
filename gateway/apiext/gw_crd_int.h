#ifndef GATEWAY_APIEXT_GW_CRD_INT_H
#define GATEWAY_APIEXT_GW_CRD_INT_H

/* What the CRD schema modules share: formats and Go's number texts. */

#include <stdbool.h>
#include <stddef.h>

/* The format kube keeps for a node of `type` (formats.go: strings and untyped nodes keep the
   supported string formats, integers int32/int64, numbers float/double, other types none):
   format itself, or NULL when kube strips it. */
const char *gw_crd__supported_format(const char *type, const char *format);

/* Whether s is valid in `format` (kube-openapi's strfmt registry); formats the registry does
   not check (password, int32, ...) accept anything. */
bool gw_crd__format_ok(const char *format, const char *s);

/* Go's fmt %v of a float64 (strconv 'g' with the shortest digits: 1e+06, 0.5, 1.5e-05). */
void gw_crd__go_float(double v, char *buf, size_t n);

/* Go's encoding/json text of a float64 (1e+21, 0.000001, 1e-7). */
void gw_crd__go_json_float(double v, char *buf, size_t n);

#endif
