#ifndef GATEWAY_VALIDATION_GW_FIELDVAL_INT_H
#define GATEWAY_VALIDATION_GW_FIELDVAL_INT_H

/*
 * The value checks behind kube-apiserver's custom JSON decoders, shared by the schema walk
 * (gw_fieldval_schema.c). Each returns true when the value decodes, else false with
 * kube-apiserver's message in msg.
 */

#include <stdbool.h>
#include <stddef.h>

/* resource.ParseQuantity */
bool gw_fieldval__quantity(const char *s, char *msg, size_t msg_len);

/* time.Parse(time.RFC3339, s), as metav1.Time decodes */
bool gw_fieldval__rfc3339(const char *s, char *msg, size_t msg_len);

/* base64.StdEncoding.DecodeString, as encoding/json decodes a []byte */
bool gw_fieldval__base64(const char *s, size_t n, char *msg, size_t msg_len);

#endif
