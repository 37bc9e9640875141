#ifndef GATEWAY_CODEC_GW_GOJSON_H
#define GATEWAY_CODEC_GW_GOJSON_H

/*
 * What Go's encoding/json says of bytes kube-apiserver unmarshals itself, where the message
 * reaches the client (a Secret's .dockercfg and .dockerconfigjson): the scanner's syntax errors
 * ("invalid character 'x' looking for beginning of value", "unexpected end of JSON input") and
 * the decoder's type errors. Pure; thread: any.
 */

#include <stddef.h>

/**
 * json.Unmarshal(p[0..n), &map[string]interface{}{}): NULL when it succeeds (an object, or
 * null), else its error text. Caller frees.
 */
char *gw_gojson_unmarshal_map(const unsigned char *p, size_t n);

#endif
