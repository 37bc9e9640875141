#ifndef GATEWAY_CONTROLLERS_GW_AUTHTRUST_INT_H
#define GATEWAY_CONTROLLERS_GW_AUTHTRUST_INT_H

/* The cluster authentication trust controller's data, without I/O (gw_authtrust_data.c). */

#include <stddef.h>

#include <jansson.h>

/** The request-header lists: allowed names, username headers, group headers, extra headers
 *  prefixes. */
#define GW_AUTHTRUST_N_LISTS 4

/** PEM text (borrowed); text NULL: none. */
typedef struct {
    char *text;
    size_t len;
} gw_authtrust_pem_t;

/**
 * kube's getConfigMapDataFor(combinedClusterAuthenticationInfo(existing, ours)): `old` (the
 * ConfigMap's data as stored, anything a client wrote; may be NULL) combined with this
 * instance's client CA, request-header CA and lists (JSON arrays of strings). Certificates
 * are kept once each, expired ones dropped; the request-header keys are written only when a
 * request-header CA is known. Returns a new object. Thread: any.
 */
json_t *gw_authtrust__data(const json_t *old, const gw_authtrust_pem_t *client_ca,
                           const gw_authtrust_pem_t *rh_ca,
                           json_t *const lists[GW_AUTHTRUST_N_LISTS]);

#endif
