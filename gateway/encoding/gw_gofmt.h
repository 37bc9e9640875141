#ifndef GATEWAY_ENCODING_GW_GOFMT_H
#define GATEWAY_ENCODING_GW_GOFMT_H

/*
 * Go's fmt verbs over decoded JSON: how kube-apiserver's messages print the values it decoded
 * with encoding/json (map[string]interface{}, []interface{}, string, int64 for integers,
 * float64, bool, nil). Pure functions.
 */

#include <jansson.h>

/** %v: `map[a:1 b:[x y]]`, keys sorted, nil as <nil>, floats in Go's shortest %g ("1e+06",
 *  "0.0001"). Caller frees. Thread: any. */
char *gw_go_value(const json_t *v);

/** %s of one argument: strings bare, anything else a bad-verb form (`%!s(int64=1)`,
 *  `%!s(<nil>)`; inside maps and lists nil stays <nil>). Caller frees. Thread: any. */
char *gw_go_string(const json_t *v);

/** %q of s (strconv.Quote: escapes for quotes, backslashes, controls, bad UTF-8). Caller
 *  frees. Thread: any. */
char *gw_go_quote(const char *s);

#endif
