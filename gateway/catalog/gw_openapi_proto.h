#ifndef GATEWAY_CATALOG_GW_OPENAPI_PROTO_H
#define GATEWAY_CATALOG_GW_OPENAPI_PROTO_H

/*
 * /openapi/v2 as protobuf: a Swagger 2.0 JSON document encoded as gnostic's
 * `openapi.v2.Document` (github.com/google/gnostic-models, openapiv2/OpenAPIv2.proto), the
 * message kube-apiserver serves for Accept `application/com.github.proto-openapi.spec.v2.v1.0
 * +protobuf` and that kubectl's and Helm's client-side validation unmarshal.
 *
 * The mapping is gnostic's: JSON keys become the fields of the same name (`$ref` is `_ref`),
 * maps become repeated Named* pairs in document order, `x-` keys become vendor extensions
 * (NamedAny whose Any carries the value as YAML text), `type` a TypeItem, `items` an
 * ItemsItem, `additionalProperties` an AdditionalPropertiesItem, `default`, `example` and
 * `enum` values Any; the oneofs (parameters, responses, security schemes) are chosen by the
 * keys gnostic's parser tells them apart by (`$ref`, `in`, `type`, `flow`). Proto3 rules
 * apply: zero scalars are left out, present objects are written even when empty.
 */

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/**
 * Encode doc, a Swagger 2.0 document, as an openapi.v2.Document. Returns a new gw_malloc'd
 * buffer of *len bytes (the caller frees). When skipped is not NULL it receives the number of
 * JSON members the message has no field for (unknown keys, values of the wrong JSON type),
 * which gnostic's parser would refuse: 0 for a well-formed document. Thread: any.
 */
uint8_t *gw_openapi_proto_encode(const json_t *doc, size_t *len, size_t *skipped);

#endif
